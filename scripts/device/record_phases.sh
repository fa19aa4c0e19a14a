#!/usr/bin/env bash
# Device batch (issue #16): real clients that load before they compute, traced whole with prof's
# CUPTI tracer (no window, so the load is in the trace) and sampled with `prof util --csv`; then
# prof's own answers on each. Everything lands in $OUT/rec.tar.gz (the device returns 8 files).
# Usage: scripts/device/record_phases.sh BIN_DIR   (BIN_DIR holds prof and libprof_cupti.so)
set -u
bin=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-rec}
rec=/tmp/rec; rm -rf "$rec"; mkdir -p "$rec" "$out"; cd /tmp
export PYTHONUNBUFFERED=1
clients=$root/scripts/device/phase_clients.py
trace() { # NAME ARGS...: one whole-run CUPTI trace of the client
  local name=$1; shift
  local s=$(date +%s.%N)
  CUDA_INJECTION64_PATH=$bin/libprof_cupti.so PROF_CUPTI_OUT=$rec/$name.pcupti \
    timeout 300 python3 "$clients" "$@" > "$rec/$name.log" 2>&1
  echo "$name: exit $? in $(echo "$(date +%s.%N) - $s" | bc) s"; tail -4 "$rec/$name.log"; ls -la "$rec/$name.pcupti"
}
echo "== versions"; nvidia-smi -L; python3 -c 'import torch, transformers, jax; print(torch.__version__, transformers.__version__, jax.__version__)'
trace hf-decode-cache hf_decode --tokens 64 --calls 2
trace hf-decode-nocache hf_decode --no-cache --tokens 64 --calls 2
trace hf-decode-eager hf_decode --attn eager --tokens 64 --calls 2
trace hf-moe hf_moe --tokens 32 --calls 2
trace load-then-busy load_then_busy 12 4
trace jax-loop jax_loop 300
trace train-loop train_loop 60
echo "== prof util --csv"
timeout 120 "$bin/prof" util --interval 100ms --csv "$rec/util-load-then-busy.csv" -- python3 "$clients" load_then_busy 20 6 > "$rec/util-load-then-busy.txt" 2>&1; echo "exit $?"; cat "$rec/util-load-then-busy.txt"
timeout 200 "$bin/prof" util --interval 100ms --csv "$rec/util-hf-decode.csv" -- python3 "$clients" hf_decode --tokens 256 --calls 3 > "$rec/util-hf-decode.txt" 2>&1; echo "exit $?"; cat "$rec/util-hf-decode.txt"
echo "== prof analyze of each trace (the answers before #16)"
for f in "$rec"/*.pcupti; do
  echo "--- $f"; timeout 60 "$bin/prof" analyze "$f" --top 5 > "${f%.pcupti}.analyze.txt" 2>&1; echo "exit $?"; head -40 "${f%.pcupti}.analyze.txt"
done
tar czf "$out/rec.tar.gz" -C "$rec" . && ls -la "$out"
