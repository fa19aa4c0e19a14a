#!/usr/bin/env bash
# Device batch: record a 2-rank torchrun job (torch traces per rank, and prof breakdown with the
# CUPTI tracer: one artifact per rank), the eager vs CUDA-graph trace pair, and prof detect timings.
# Usage: scripts/device/record_ranks_diff.sh BIN_DIR   (BIN_DIR holds prof and libprof_cupti.so)
set -u
bin=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-rec}
mkdir -p "$out"; cd /tmp
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
echo "== GPUs"; nvidia-smi -L
echo "== torchrun 2 ranks, nccl on one GPU (expected to fail: NCCL refuses two ranks on one device)"
timeout 120 torchrun --nproc-per-node=2 "$root/scripts/device/ranks.py" 1 nccl 2>&1 | tail -5
echo "== torchrun 2 ranks, gloo, torch traces"
TRACE_DIR=$out/ranks timeout 180 torchrun --nproc-per-node=2 "$root/scripts/device/ranks.py" 1 gloo trace 2>&1 | tail -5
ls -la "$out/ranks"/*
echo "== prof breakdown --tool cupti of the torchrun job"
timeout 240 "$bin/prof" breakdown --tool cupti --warmup 0 --out /tmp/pbr -- torchrun --nproc-per-node=2 "$root/scripts/device/ranks.py" 3 gloo > "$out/breakdown-ranks.txt" 2>&1; echo "exit $?" >> "$out/breakdown-ranks.txt"; tail -40 "$out/breakdown-ranks.txt"
ls -la /tmp/pbr /tmp/pbr/* 2>&1 | head -20
mkdir -p "$out/cupti-ranks"; cp /tmp/pbr/cupti/*rank* "$out/cupti-ranks/" 2>/dev/null; ls -la "$out/cupti-ranks"
echo "== eager vs CUDA graph traces"
mkdir -p "$out/diff"; timeout 180 python3 "$root/scripts/device/eager_vs_graph.py" "$out/diff" 2>&1 | tail -3
ls -la "$out/diff"
echo "== prof detect x20 (ms)"
for i in $(seq 20); do s=$(date +%s%N); "$bin/prof" detect > /dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); done | sort -n | tr '\n' ' '; echo
"$bin/prof" detect
