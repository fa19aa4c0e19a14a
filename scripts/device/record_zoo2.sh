#!/usr/bin/env bash
# Device batch (issue #50): the second zoo. Each client of zoo2_clients.py traced whole by prof's
# CUPTI tracer, then prof's answer on each (first lines of `prof analyze`). Everything lands in
# $OUT/zoo2.tar.gz.
# Usage: scripts/device/record_zoo2.sh BIN_DIR [NAME...]  (BIN_DIR holds prof and libprof_cupti.so)
set -u
bin=$(cd "$1" && pwd); shift; root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-zoo2}
rec=/tmp/zoo2; rm -rf "$rec"; mkdir -p "$rec" "$out"; cd /tmp
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
zoo=$root/scripts/device/zoo2_clients.py
names=${*:-resnet50-nchw-amp resnet50-cl-amp prefill-math prefill-flash prefill-eager starved-loader reduce-overhead}
python3 -c 'import torch, transformers, torchvision; print(torch.__version__, transformers.__version__, torchvision.__version__)'
for c in $names; do
  s=$(date +%s%N)
  CUDA_INJECTION64_PATH=$bin/libprof_cupti.so PROF_CUPTI_OUT=$rec/$c.pcupti timeout 240 python3 "$zoo" "$c" > "$rec/$c.client.log" 2>&1
  echo "== $c: exit $? in $(( ($(date +%s%N) - s) / 1000000 )) ms"; tail -2 "$rec/$c.client.log"
  timeout 60 "$bin/prof" analyze "$rec/$c.pcupti" --top 6 > "$rec/$c.analyze.txt" 2>&1; echo "--- analyze exit $?"
  head -6 "$rec/$c.analyze.txt"; sed -n '/^families:/,/^$/p' "$rec/$c.analyze.txt" | head -9
done
for f in "$rec"/*.pcupti; do [ -e "$f" ] && gzip -9 "$f"; done
ls -la "$rec"; tar czf "$out/zoo2.tar.gz" -C "$rec" . && ls -la "$out"
