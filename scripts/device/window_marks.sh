#!/usr/bin/env bash
# Device batch (issue #49, "capture the work"): where the default breakdown window opens.
# - cupti's default (`auto`) on the program's own marks: its cudaProfilerStart (closed by its
#   stop), its second NVTX step range, and without marks the end of the load;
# - a tool without `auto` (nsys) on a program that loads for 12 s: the utilization pre-pass
#   (the warm-up run, sampled with NVML) picks the time the window opens.
# Each case prints the tracer's window lines and the GEMM launches the window holds, counted
# from prof's own JSON. Everything lands in $OUT/marks.tar.gz.
# Usage: scripts/device/window_marks.sh BIN_DIR [CASE...]  (BIN_DIR holds prof and
# libprof_cupti.so; CASEs: profiler nvtx-steps load nsys-prepass; default all)
set -u
bin=$(cd "$1" && pwd); shift; cases=" ${*:-profiler nvtx-steps load nsys-prepass} "
root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-marks}
rec=/tmp/marks; rm -rf "$rec"; mkdir -p "$rec" "$out"; cd /tmp
export PYTHONUNBUFFERED=1
phase=$root/scripts/device/phase_clients.py; answers=$root/scripts/device/answer_clients.py
count() { # prof.breakdown.v1 on stdin: GEMM launches, ops, where the window opened
  python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = d["summary"]["kernels"]
gemm = sum(r["calls"] for r in rows if any(w in r["name"] for w in ("nvjet", "gemm", "Gemm", "xmma", "cutlass")))
print("gemm launches", gemm, "| ops", d["summary"]["ops"], "| window", d.get("capture_window"))
print("answer:", d["answer"]["headline"])'
}
run() { # NAME EXPECTED -- prof breakdown ARGS
  local name=$1 expected=$2; shift 2
  [[ $cases == *" $name "* ]] || return 0
  local s=$(date +%s%N)
  timeout 300 "$bin/prof" breakdown --json --phase all --out "$rec/$name" "$@" > "$rec/$name.json" 2> "$rec/$name.err"
  echo "== $name: exit $? in $(( ($(date +%s%N) - s) / 1000000 )) ms (expected: $expected)"
  grep -hE "capture window|pre-pass|opened|prof breakdown with|--delay|never opened" "$rec/$name.err" "$rec/$name"/capture.log 2>/dev/null | head -8
  count < "$rec/$name.json" 2>&1 | tail -2
}
echo "== versions"; nvidia-smi -L; python3 -c 'import torch; print(torch.__version__)'
run profiler "opens at the program's cudaProfilerStart (step 30), closes at its stop (step 59): 120 GEMMs" \
  --window 60s -- python3 "$phase" range_loop --steps 300 --profiler 30:59
run nvtx-steps "opens at the second step range (step1): 299 steps x 4 = 1196 GEMMs" \
  --window 60s -- python3 "$phase" range_loop --steps 300 --nvtx
run load "no marks: opens at the end of the load" \
  --window 60s -- python3 "$phase" range_loop --steps 600
run nsys-prepass "the pre-pass sees the GEMMs start ~12 s in; nsys is asked for --delay 12" \
  --tool nsys --window 4s -- python3 "$answers" load-then-gemm
tar czf "$out/marks.tar.gz" -C "$rec" . && ls -la "$out"
