#!/usr/bin/env bash
# One batched verification on the H200 (run by the developers through the device tool):
# breakdown with the CUPTI tracer vs torch.profiler on the same workload, a deep dive of the
# top GEMM with ncu, and the utilization sampler's cost against nvidia-smi. Writes to $OUT.
# Usage: scripts/device/verify.sh BIN_DIR   (BIN_DIR holds prof and libprof_cupti.so)
set -u
bin=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-verify}
work=$root/tests/fixtures/nvidia/work.py
mkdir -p "$out"; cd /tmp
export PYTHONUNBUFFERED=1
echo "== prof breakdown (cupti) of work.py 3"
"$bin/prof" breakdown --tool cupti --warmup 0 --out /tmp/pb --json -- python3 "$work" 3 > "$out/breakdown-cupti.json" 2> /tmp/pb.err || { tail -20 /tmp/pb.err; }
"$bin/prof" analyze --top 12 /tmp/pb/cupti > "$out/breakdown-cupti.txt" 2>&1; cat "$out/breakdown-cupti.txt"
echo "== torch.profiler trace of work.py (5 steps) and prof analyze of it"
python3 "$work" 0 trace > /tmp/torch-table.txt 2>&1
"$bin/prof" analyze --json torch-trace.json > /tmp/torch.json
python3 "$root/scripts/device/compare_cupti_torch.py" "$out/breakdown-cupti.json" /tmp/torch.json | tee "$out/compare.txt"
echo "== prof deep-dive of the top GEMM"
"$bin/prof" deep-dive --kernel 'nvjet_sm90_tst_256x128' --launch-skip 10 --launch-count 1 --out /tmp/pd -- python3 "$work" 2 > "$out/deep-dive.txt" 2>&1; cat "$out/deep-dive.txt"
echo "== deep-dive with a regex that matches nothing"
"$bin/prof" deep-dive --kernel 'no_such_kernel_xyz' --out /tmp/pd2 -- python3 "$work" 1 > "$out/deep-dive-miss.txt" 2>&1; echo "exit $?" >> "$out/deep-dive-miss.txt"; tail -15 "$out/deep-dive-miss.txt"
echo "== utilization sampling cost"
python3 "$root/scripts/bench/util_overhead.py" "$bin/prof" 5 > "$out/util-bench.txt" 2>&1; cat "$out/util-bench.txt"
