#!/usr/bin/env bash
# Device batch (issue #18): the diagnosis zoo. Each client of zoo_clients.py (and the decode,
# MoE, JAX and training clients of phase_clients.py) traced whole by prof's CUPTI tracer; two
# CNN clients also under torch.profiler; then prof's answer on each. Everything lands in
# $OUT/zoo.tar.gz (the device returns 8 files).
# Usage: scripts/device/record_zoo.sh BIN_DIR   (BIN_DIR holds prof and libprof_cupti.so)
set -u
bin=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-zoo}
rec=/tmp/zoo; rm -rf "$rec"; mkdir -p "$rec" "$out"; cd /tmp
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
zoo=$root/scripts/device/zoo_clients.py
trace() { # NAME [ENV=V...] -- CLIENT ARGS...: one whole-run CUPTI trace
  local name=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  local s=$(date +%s.%N)
  env "${envs[@]}" CUDA_INJECTION64_PATH=$bin/libprof_cupti.so PROF_CUPTI_OUT=$rec/$name.pcupti \
    timeout 240 python3 "$@" > "$rec/$name.client.log" 2>&1
  echo "== $name: exit $? in $(echo "$(date +%s.%N) - $s" | bc) s"; tail -3 "$rec/$name.client.log"
}
echo "== versions"; nvidia-smi -L
python3 -c 'import torch, transformers, jax; print(torch.__version__, transformers.__version__, jax.__version__)'
python3 -c 'import torchvision; print("torchvision", torchvision.__version__)' 2>&1 | tail -1
which nvcc || ls /usr/local/cuda*/bin/nvcc 2>&1 | head -2
for c in decode-sample moe-grouped fp8-linear compiled graph-decode llm-train resnet-train alexnet-infer pageable-loader plain-cuda; do
  trace "$c" X=1 -- "$zoo" "$c"
done
trace qwen3-moe ZOO_EXPERTS=eager -- "$zoo" qwen3-moe
trace qwen3-moe-grouped ZOO_EXPERTS=grouped_mm -- "$zoo" qwen3-moe
echo "== torch.profiler traces"
for c in resnet-train alexnet-infer; do
  timeout 200 python3 "$zoo" "$c" --torch-trace "$rec/$c.torch.json" > "$rec/$c.torch.log" 2>&1; echo "$c: exit $?"; tail -2 "$rec/$c.torch.log"
done
echo "== prof analyze"
for f in "$rec"/*.pcupti "$rec"/*.torch.json; do
  [ -e "$f" ] || continue
  timeout 60 "$bin/prof" analyze "$f" --top 8 > "$f.analyze.txt" 2>&1; echo "--- $(basename "$f") exit $?"
  grep -v '^ *$' "$f.analyze.txt" | head -45
done
for f in "$rec"/*.pcupti "$rec"/*.torch.json; do [ -e "$f" ] && gzip -9 "$f"; done
ls -la "$rec"; tar czf "$out/zoo.tar.gz" -C "$rec" . && ls -la "$out"
