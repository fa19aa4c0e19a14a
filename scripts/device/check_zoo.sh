#!/usr/bin/env bash
# Device batch (issue #18): prof's verbs on real zoo clients with the rules of this tree.
# 1. torch.compile's client traced whole with PROF_CUPTI_OUT naming one file (its compile
#    workers also start CUDA: they must write beside it, not over it);
# 2. `prof breakdown -- python3 zoo_clients.py NAME` for clients of each shape, as a user runs it.
# Usage: scripts/device/check_zoo.sh BIN_DIR   (BIN_DIR holds prof and libprof_cupti.so)
set -u
bin=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-zoo}
rec=/tmp/zoo; rm -rf "$rec"; mkdir -p "$rec" "$out"; cd /tmp
export PYTHONUNBUFFERED=1 PROF_CUPTI_TRACER=$bin/libprof_cupti.so
zoo=$root/scripts/device/zoo_clients.py
ldd --version | head -1; "$bin/prof" --version
echo "== compiled, one PROF_CUPTI_OUT file"
CUDA_INJECTION64_PATH=$bin/libprof_cupti.so PROF_CUPTI_OUT=$rec/compiled.pcupti timeout 240 python3 "$zoo" compiled > "$rec/compiled.client.log" 2>&1
echo "exit $?"; grep -v "^$" "$rec/compiled.client.log" | tail -6; ls -la "$rec"
"$bin/prof" analyze "$rec/compiled.pcupti" --top 12 > "$rec/compiled.analyze.txt" 2>&1; echo "analyze exit $?"; cat "$rec/compiled.analyze.txt" | head -60
for c in qwen3-moe pageable-loader resnet-train decode-sample fp8-linear graph-decode; do
  echo "== prof breakdown -- python3 zoo_clients.py $c"
  env ZOO_EXPERTS=eager timeout 300 "$bin/prof" breakdown --warmup 0 --out "$rec/bd-$c" --top 6 -- python3 "$zoo" "$c" > "$rec/bd-$c.txt" 2>&1
  echo "exit $?"; sed -n '/^phases:/,/^wall time/p' "$rec/bd-$c.txt" | grep -v "^wall time" | head -60; grep -E "^next|deep-dive" "$rec/bd-$c.txt"
done
for f in "$rec"/*.pcupti; do gzip -9 "$f"; done
rm -rf "$rec"/bd-*/
tar czf "$out/zoo2.tar.gz" -C "$rec" . && ls -la "$out"
