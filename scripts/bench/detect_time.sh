#!/usr/bin/env bash
# Wall time of `prof detect`: runs it RUNS times (default 20) and prints min / median / max
# in milliseconds. Usage: scripts/bench/detect_time.sh [PROF_BINARY] [RUNS] [-- extra args]
# On the H200: scripts/bench/detect_time.sh target/release/prof 20
# Here, with the recorded fakes instead of the real tools:
#   PATH=$PWD/tests/fakes/nvidia:/usr/bin:/bin scripts/bench/detect_time.sh target/release/prof 20
set -euo pipefail
prof="${1:-target/release/prof}"
runs="${2:-20}"
shift $(( $# < 2 ? $# : 2 ))
[[ "${1:-}" == -- ]] && shift
"$prof" detect "$@" >/dev/null # warm the page cache and the driver once, not counted
times=()
for ((i = 0; i < runs; i++)); do
    start=$(date +%s%N)
    "$prof" detect "$@" >/dev/null
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000 )))
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
ms() { printf '%d.%01d' $(($1 / 1000)) $((($1 % 1000) / 100)); }
median=${sorted[$((runs / 2))]}
echo "prof detect, $runs runs: min $(ms "${sorted[0]}") ms, median $(ms "$median") ms, max $(ms "${sorted[$((runs - 1))]}") ms"
# One more run with the per-probe wall times (stderr lines `prof detect: <probe>: <ms> ms`),
# to tell which probe sets the total.
PROF_DETECT_TIMES=1 "$prof" detect "$@" 2>&1 >/dev/null | grep '^prof detect:' || true
