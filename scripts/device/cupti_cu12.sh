#!/usr/bin/env bash
# Device batch (issue #24): prof's CUPTI tracer under CUDA 12.x CUPTI libraries (from the
# nvidia-cuda-cupti-cu12 wheels, carried) and under the machine's CUDA 13 CUPTI, on the same
# driver-API program (scripts/device/cupti_cu12.py); then prof's reading of each trace.
# Usage: scripts/device/cupti_cu12.sh BIN_DIR CUPTI_DIR...   (each CUPTI_DIR holds libcupti.so.12)
set -u
bin=$(cd "$1" && pwd); shift; root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-cu12}
libs=(); for dir in "$@"; do libs+=("$(cd "$dir" && pwd)/libcupti.so.12"); done
rec=/tmp/cu12; rm -rf "$rec"; mkdir -p "$rec" "$out"; cd /tmp
prog=$root/scripts/device/cupti_cu12.py
python3 - <<'PY'
import ctypes
for lib in ["/usr/local/cuda/lib64/libcupti.so"]:
    try:
        v = ctypes.c_uint32(); ctypes.CDLL(lib).cuptiGetVersion(ctypes.byref(v)); print(lib, "CUPTI_API_VERSION", v.value)
    except OSError as e: print(lib, e)
PY
run() { # NAME [PROF_CUPTI_LIBRARY]
  local name=$1 lib=${2:-}
  if [ -n "$lib" ]; then python3 -c "import ctypes,sys; v=ctypes.c_uint32(); ctypes.CDLL(sys.argv[1]).cuptiGetVersion(ctypes.byref(v)); print(sys.argv[1], 'CUPTI_API_VERSION', v.value)" "$lib"; fi
  env ${lib:+PROF_CUPTI_LIBRARY=$lib} CUDA_INJECTION64_PATH=$bin/libprof_cupti.so PROF_CUPTI_OUT=$rec/$name.pcupti \
    timeout 60 python3 "$prog" > "$rec/$name.log" 2>&1
  echo "== $name: exit $?"; cat "$rec/$name.log"
  "$bin/prof" analyze --phase all --json --json-full "$rec/$name.pcupti" > "$rec/$name.json" 2>&1
  python3 - "$rec/$name.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in d["summary"]["kernels"]:
    print(f'  {k["kind"]:8} {k["name"][:40]:40} calls {k["calls"]:3} mean {k["mean_ns"]/1e3:9.1f} us')
PY
}
run cuda13
for lib in "${libs[@]}"; do run "cu12-$(basename "$(dirname "$lib")")" "$lib"; done
echo "== decoded records, side by side (kernel grid/block from the JSON timeline)"
for f in "$rec"/*.pcupti; do "$bin/prof" analyze --phase all "$f" --chrome-trace "${f%.pcupti}.chrome.json" > /dev/null 2>&1
  python3 - "${f%.pcupti}.chrome.json" <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); ev = d["traceEvents"] if isinstance(d, dict) else d
c = collections.Counter()
for e in ev:
    if e.get("ph") == "X" and e.get("args", {}).get("grid"):
        c[(e["name"], str(e["args"].get("grid")), str(e["args"].get("block")))] += 1
print(sys.argv[1].split("/")[-1], dict(c))
PY
done
for f in "$rec"/*.pcupti; do gzip -9 "$f"; done; rm -f "$rec"/*.chrome.json
tar czf "$out/cu12.tar.gz" -C "$rec" . && ls -la "$out"
