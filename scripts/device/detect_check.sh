#!/usr/bin/env bash
# Device batch: `prof detect` with the tool-version cache (cold, warm, and with PROF_NO_CACHE=1),
# and its JSON, to compare with tests/fixtures/nvidia/h200-run/detect.json.
# Usage: scripts/device/detect_check.sh BIN_DIR
set -u
bin=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-rec}
mkdir -p "$out"; export XDG_CACHE_HOME=$(mktemp -d)
echo "== cold (empty cache)"; s=$(date +%s%N); "$bin/prof" detect > /dev/null; e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) ms"
echo "== warm cache"; bash "$root/scripts/bench/detect_time.sh" "$bin/prof" 20
echo "== cache off"; PROF_NO_CACHE=1 bash "$root/scripts/bench/detect_time.sh" "$bin/prof" 20
"$bin/prof" detect --json > "$out/detect.json"; "$bin/prof" detect | tee "$out/detect.txt"
