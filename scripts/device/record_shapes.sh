#!/usr/bin/env bash
# Device batch (issues #56 and #51): ops of known shapes under torch.profiler(record_shapes=True)
# with their hand-computed FLOPs/bytes and CUDA-event times, and a JAX profile (XSpace + Perfetto
# trace). Everything lands in $OUT/shapes.tar.gz.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-shapes}; rec=/tmp/shapes
rm -rf "$rec"; mkdir -p "$rec" "$out"; export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,power.limit --format=csv
timeout 240 python3 "$root/scripts/device/shapes_clients.py" torch "$rec" 2>&1 | tail -20
timeout 120 python3 "$root/scripts/device/shapes_clients.py" jax "$rec" 2>&1 | grep -v "^W0000\|^I0000" | tail -8
ls -laR "$rec" | head -30; tar czf "$out/shapes.tar.gz" -C "$rec" . && ls -la "$out"
