#!/usr/bin/env bash
# Device batch (#17): a 2-rank torchrun job (gloo, one GPU) whose ranks save their traces with
# torch.profiler.tensorboard_trace_handler into one directory, as most PyTorch users do; then
# `prof analyze` on that directory (a rank job, ranks read from distributedInfo) and on a
# directory holding one of the traces.
# Usage: scripts/device/record_tensorboard.sh BIN_DIR   (BIN_DIR holds prof); files land in $OUT.
set -u
bin=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-tb}
mkdir -p "$out/tb"; cd /tmp
export PYTHONUNBUFFERED=1
python3 -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name(0))"
echo "== torchrun 2 ranks, gloo, tensorboard_trace_handler"
TRACE_DIR=$out/tb timeout 240 torchrun --nproc-per-node=2 "$root/scripts/device/ranks.py" 1 gloo tb 2>&1 | tail -4
ls -la "$out/tb"
echo "== prof analyze DIR (the rank job)"
"$bin/prof" analyze "$out/tb"; echo "exit $?"
"$bin/prof" analyze --json "$out/tb" > "$out/tb-ranks.json"; echo "exit $?"
echo "== prof analyze on a directory holding one of the traces"
mkdir -p "$out/one"; cp "$(ls "$out"/tb/*.pt.trace.json.gz | head -1)" "$out/one/"
"$bin/prof" analyze "$out/one" | head -12; echo "exit $?"
echo "== python: kernel events and summed dur per file, and their distributedInfo rank"
python3 - "$out/tb" <<'PY'
import gzip, json, os, sys
d = sys.argv[1]
for f in sorted(os.listdir(d)):
    doc = json.load(gzip.open(os.path.join(d, f)))
    k = [e for e in doc["traceEvents"] if e.get("cat") == "kernel" and e.get("ph") == "X"]
    print(f, "rank", doc.get("distributedInfo", {}).get("rank"), "kernels", len(k), "dur_us", round(sum(e["dur"] for e in k), 3))
PY
