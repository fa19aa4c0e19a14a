#!/usr/bin/env bash
# Tracing overhead on the most launch-bound real workload: batch-1 decode of a Llama-style
# model (decode_overhead.py), tokens/s without a tracer, under prof's CUPTI tracer in each
# PROF_CUPTI_API mode, and under torch.profiler; modes alternate within each round, each run
# in its own process. Prints every run, then per mode the median over rounds, its ratio to
# the untraced run and to the tracer's `none` mode, the added time per token, and the
# tracer's own exit lines (records written, lost). Each run is its own process of about 35 s on
# the H200 (imports, a 24-layer model, 2 + REPEATS generate calls): 5 modes x 2 rounds fit one
# 10-minute device call.
# Usage: TRACER=/abs/libprof_cupti.so scripts/device/decode_overhead.sh [ROUNDS] [TOKENS] [REPEATS]
#   MODES="plain none launch all torch-profiler" (default)   OUT=/dir (default /tmp/prof-decode-overhead)
set -u
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-2}; tokens=${2:-64}; repeats=${3:-5}
modes=${MODES:-plain none launch all torch-profiler}
out=${OUT:-/tmp/prof-decode-overhead}
tracer=$(readlink -f "${TRACER:?set TRACER=/abs/path/libprof_cupti.so}")
rm -rf "$out"; mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  for mode in $modes; do
    log=$out/$mode-$round.log
    case $mode in
      plain|torch-profiler) python3 "$here/decode_overhead.py" "$mode" "$tokens" "$repeats" >"$log" 2>&1 ;;
      *) mkdir -p "$out/trace-$mode-$round"
         CUDA_INJECTION64_PATH=$tracer PROF_CUPTI_API=$mode PROF_CUPTI_OUT=$out/trace-$mode-$round \
           python3 "$here/decode_overhead.py" tracer "$tokens" "$repeats" >"$log" 2>&1 ;;
    esac
    echo "round $round $mode: exit $? $(grep -h '^{' "$log" | tail -1)"
    grep -h '^prof-cupti' "$log" | sed 's/^/    /'
  done
done
python3 - "$out" $modes <<'PY'
import glob, json, os, statistics, sys
out, modes = sys.argv[1], sys.argv[2:]
med = {}
for mode in modes:
    rates = []
    for log in sorted(glob.glob(os.path.join(out, f"{mode}-*.log"))):
        lines = [l for l in open(log) if l.startswith("{")]
        if lines:
            rates.append(json.loads(lines[-1])["tokens_per_s"])
    if rates:
        med[mode] = statistics.median(rates)
        print(f"{mode:15s} tokens/s per round {' '.join(f'{r:7.1f}' for r in rates)}  median {med[mode]:7.1f}")
base = med.get("plain")
for mode, rate in med.items():
    parts = []
    if base:
        parts.append(f"{rate / base:.3f}x plain, +{(1 / rate - 1 / base) * 1e6:.0f} us/token")
    if "none" in med and mode not in ("plain", "none"):
        parts.append(f"{rate / med['none']:.3f}x none")
    print(f"{mode:15s} {'; '.join(parts)}")
PY
