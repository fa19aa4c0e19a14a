#!/usr/bin/env bash
# Device batch: `prof serve` with the CUPTI tracer and with util sampling on a real PyTorch model
# server (scripts/device/serve_model.py), a `prof util --csv/--html` recording of a power-capped
# busy loop (real clock drops), a breakdown with --chrome-trace/--html, and `prof detect` timings.
# Usage: scripts/device/serve_util_detect.sh BIN_DIR   (BIN_DIR holds prof and libprof_cupti.so)
set -u
bin=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-rec}
mkdir -p "$out"; cd /tmp
export PYTHONUNBUFFERED=1
model=$root/scripts/device/serve_model.py
echo "== prof serve --tool cupti"
timeout 300 "$bin/prof" serve --tool cupti --server "python3 $model --port 8321" \
  --health http://127.0.0.1:8321/health --endpoint http://127.0.0.1:8321/generate \
  --requests 50 --warmup-requests 5 --out /tmp/ps-cupti --yes > "$out/serve-cupti.txt" 2>&1; echo "exit $?" >> "$out/serve-cupti.txt"
cat "$out/serve-cupti.txt" | head -120
cp /tmp/ps-cupti/server.log "$out/serve-cupti-server.log" 2>/dev/null; ls -la /tmp/ps-cupti /tmp/ps-cupti/* | head -20
echo "== leftovers after serve:"; ps -eo pid,pgid,cmd | grep -v grep | grep serve_model || echo none
echo "== prof serve --tool util --json"
timeout 300 "$bin/prof" serve --tool util --server "python3 $model --port 8322" \
  --health http://127.0.0.1:8322/health --endpoint http://127.0.0.1:8322/generate \
  --requests 30 --concurrency 2 --out /tmp/ps-util --yes --json > "$out/serve-util.json" 2> "$out/serve-util.err"; echo "exit $?"
head -c 3000 "$out/serve-util.json"; tail -5 "$out/serve-util.err"
echo "== prof util --csv --html of busy.py 6"
timeout 120 "$bin/prof" util --interval 50ms --csv "$out/util-busy.csv" --html "$out/util-busy.html" -- python3 "$root/scripts/device/busy.py" 6 > "$out/util-busy.txt" 2>&1; echo "exit $?"; cat "$out/util-busy.txt"; wc -l "$out/util-busy.csv"; head -3 "$out/util-busy.csv"
echo "== prof breakdown --tool cupti with outputs"
timeout 200 "$bin/prof" breakdown --tool cupti --warmup 0 --out /tmp/pb --chrome-trace "$out/work-trace.json" --html "$out/work.html" -- python3 "$root/tests/fixtures/nvidia/work.py" 1 > "$out/breakdown-outputs.txt" 2>&1; echo "exit $?"; head -30 "$out/breakdown-outputs.txt"; ls -la "$out"/work*
echo "== prof detect"
bash "$root/scripts/bench/detect_time.sh" "$bin/prof" 20
