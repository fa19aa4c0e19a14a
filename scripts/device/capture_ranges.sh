#!/usr/bin/env bash
# Device batch (issue #16, capture ranges): `prof breakdown --tool cupti` with each way of opening
# the window at an event, on real clients (scripts/device/phase_clients.py), and the kernels
# each window holds counted from prof's own JSON. Everything lands in $OUT/ranges.tar.gz.
# Usage: scripts/device/capture_ranges.sh BIN_DIR [CASE...]   (BIN_DIR holds prof and
# libprof_cupti.so; CASEs: whole profiler nvtx nvtx-prefix kernel auto-loop auto-hf whole-hf never;
# default all)
set -u
bin=$(cd "$1" && pwd); shift; cases=" ${*:-whole profiler nvtx nvtx-prefix kernel auto-loop auto-hf whole-hf never} "; root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-ranges}
rec=/tmp/ranges; rm -rf "$rec"; mkdir -p "$rec" "$out"; cd /tmp
export PYTHONUNBUFFERED=1
clients=$root/scripts/device/phase_clients.py
count() { # JSON report on stdin: kernels and copies per name pattern
  python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = d["summary"]["kernels"]
def calls(*words):
    return sum(r["calls"] for r in rows if any(w in r["name"] for w in words))
print("ops", d["summary"]["ops"], "| scans", calls("DeviceScanKernel"), "| matmuls", calls("nvjet", "gemm", "Gemm", "xmma"),
      "| HtoD", calls("HtoD"), "| phases", [(p["kind"], p["ops"]) for p in d["phases"]["phases"]])'
}
run() { # NAME FLAGS... -- CLIENT ARGS: one capture, its text answer and its counts
  local name=$1; shift
  [[ $cases == *" $name "* ]] || return 0
  local s=$(date +%s%N)
  timeout 300 "$bin/prof" breakdown --tool cupti --warmup 0 --window 60s --top 2000 --json --phase all \
    --out "$rec/$name" "$@" > "$rec/$name.json" 2> "$rec/$name.err"
  echo "== $name: exit $? in $(( ($(date +%s%N) - s) / 1000000 )) ms"
  grep -E "prof-cupti|cannot|error" "$rec/$name.err" | grep -v "^  " | head -8
  count < "$rec/$name.json" 2>&1 | tail -2
}
echo "== versions"; nvidia-smi -L; python3 -c 'import torch, transformers; print(torch.__version__, transformers.__version__)'
run whole -- python3 "$clients" range_loop --steps 40
run profiler --capture-range profiler -- python3 "$clients" range_loop --steps 40 --profiler 10:19
run nvtx --capture-range range:step12 -- python3 "$clients" range_loop --steps 40 --nvtx
run nvtx-prefix --capture-range 'range:step3*' -- python3 "$clients" range_loop --steps 40 --nvtx
run kernel --capture-range kernel:DeviceScanKernel@5 -- python3 "$clients" range_loop --steps 40
run auto-loop --skip auto -- python3 "$clients" range_loop --steps 400
run auto-hf --skip auto -- python3 "$clients" hf_decode --tokens 64 --calls 2
run whole-hf -- python3 "$clients" hf_decode --tokens 64 --calls 2
run never --capture-range profiler -- python3 "$clients" range_loop --steps 5
if [[ $cases == *" auto-hf "* ]]; then
  echo "== text answer of auto-hf (steady by default)"
  timeout 120 "$bin/prof" analyze "$rec/auto-hf/cupti" --top 8 2>&1 | head -12
fi
tar czf "$out/ranges.tar.gz" -C "$rec" . && ls -la "$out"
