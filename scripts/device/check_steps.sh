#!/usr/bin/env bash
# Device check (issue #20, seventh session): new real captures of the phase clients, traced
# whole with prof's CUPTI tracer; `prof analyze --json` on each with its wall time and peak
# RSS, and whether the diagnosis counts the steps the phases report for the steady state
# (one step count per report). The JSON documents land in $OUT.
# Usage: scripts/device/check_steps.sh BIN_DIR [OLD_PROF]   (BIN_DIR holds prof and
# libprof_cupti.so; OLD_PROF, a previous build of prof, is run on the same captures and its
# JSON compared with the new one's, timings left out: "same answer as the old build: True")
set -u
bin=$(cd "$1" && pwd); old=${2:+$(cd "$(dirname "$2")" && pwd)/$(basename "$2")}; root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-steps}
rec=/tmp/steps; rm -rf "$rec"; mkdir -p "$rec" "$out"; cd /tmp
export PYTHONUNBUFFERED=1
clients=$root/scripts/device/phase_clients.py
check() { # NAME ARGS...: trace the client, analyse the trace
  local name=$1; shift
  CUDA_INJECTION64_PATH=$bin/libprof_cupti.so PROF_CUPTI_OUT=$rec/$name.pcupti \
    timeout 300 python3 "$clients" "$@" > "$rec/$name.log" 2>&1
  echo "== $name: client exit $?"; tail -2 "$rec/$name.log"; ls -la "$rec/$name.pcupti"
  /usr/bin/time -f "analyze: %e s wall, %M KB peak RSS" "$bin/prof" analyze "$rec/$name.pcupti" --json \
    > "$out/$name.json" 2> "$rec/$name.err"; echo "analyze exit $?"; tail -1 "$rec/$name.err"
  python3 - "$out/$name.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d.get("phases") or {}
steps = (d["diagnosis"].get("steps") or {})
print("phases:", [(x["kind"], x["ops"], round(x["busy_pct"], 1)) for x in p.get("phases", [])])
print("steady steps (phases):", p.get("steady_steps"), "| diagnosis steps:", steps.get("count"), steps.get("source"))
print("findings:", [f["kind"] for f in d["diagnosis"]["findings"]])
print("top kernel:", d["summary"]["kernels"][0]["name"][:80])
print("same count:", p.get("steady_steps") == steps.get("count"))
PY
  [ -n "$old" ] || return 0
  "$old" analyze "$rec/$name.pcupti" --json > "$out/$name.old.json" 2>/dev/null
  python3 - "$out/$name.json" "$out/$name.old.json" <<'PY'
import json, sys
def plain(d):
    if isinstance(d, dict):
        return {k: plain(v) for k, v in d.items() if not k.endswith(("elapsed_s", "load_s", "wall_s"))}
    return [plain(x) for x in d] if isinstance(d, list) else d
new, old = (json.load(open(f)) for f in sys.argv[1:3])
print("same answer as the old build:", plain(new) == plain(old))
PY
}
echo "== versions"; nvidia-smi -L; python3 -c 'import torch, transformers; print(torch.__version__, transformers.__version__)'
check hf-decode-cache hf_decode --tokens 96 --calls 2
check hf-decode-eager hf_decode --attn eager --tokens 96 --calls 2
check hf-moe hf_moe --tokens 48 --calls 2
check train-loop train_loop 80
"$bin/prof" analyze "$rec/hf-decode-cache.pcupti" --top 5 | head -40
