#!/usr/bin/env bash
# Device batch (issue #20, seventeenth and eighteenth sessions): real runs taken by the new
# build, then every capture analysed by the new and the old build: the answers must be the same
# JSON (the sessions changed how ops are held, walked and interned, not what is answered). The captures are
# zoo clients of each shape (MoE decode, eager decode with softmax, a training step, a graph
# replayed decode) through `prof breakdown` (CUPTI), and the decode client through nsys.
# Usage: OUT=$OUT scripts/device/check_same_answers.sh NEW_BIN_DIR OLD_PROF
#   NEW_BIN_DIR holds prof and libprof_cupti.so; OLD_PROF is the old build's binary.
set -u
bin=$(cd "$1" && pwd); old=$2; root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-same}
rec=/tmp/same; rm -rf "$rec"; mkdir -p "$rec" "$out"; cd /tmp
exec > >(tee "$out/log.txt") 2>&1
export PYTHONUNBUFFERED=1 PROF_CUPTI_TRACER=$bin/libprof_cupti.so
zoo=$root/scripts/device/zoo_clients.py
"$bin/prof" --version; "$old" --version
for c in qwen3-moe decode-sample resnet-train graph-decode; do
  echo "== prof breakdown -- python3 zoo_clients.py $c"
  start=$(date +%s)
  env ZOO_EXPERTS=eager timeout 240 "$bin/prof" breakdown --warmup 0 --out "$rec/bd-$c" --top 6 -- python3 "$zoo" "$c" > "$rec/bd-$c.txt" 2>&1
  echo "exit $? in $(( $(date +%s) - start )) s"
  sed -n '/^phases:/,/^families/p' "$rec/bd-$c.txt" | head -24
  grep -A3 "^diagnosis" "$rec/bd-$c.txt" | head -6
done
echo "== nsys: the decode client's window"
libs=$(cd "$root/.carry/devlibs" && pwd)
LD_LIBRARY_PATH=$libs timeout 200 "$bin/prof" breakdown --tool nsys --warmup 0 --skip 24s --window 6s --out "$rec/nsys" -- python3 "$root/scripts/device/profile_clients.py" decode > "$rec/nsys.txt" 2> "$rec/nsys.err"
echo "exit $?"; sed -n '/^phases:/,/^families/p' "$rec/nsys.txt" | head -20
echo "== the same captures, old build against new (analyze --json, each phase choice)"
same=0; differ=0
for f in $(find "$rec" -type f \( -name '*.pcupti' -o -name '*.sqlite' -o -name '*.json' \) | sort); do
  for phase in steady all; do
    a=$(LD_LIBRARY_PATH=$libs "$old" analyze --phase $phase --json "$f" 2>/dev/null | md5sum | cut -c1-12)
    b=$(LD_LIBRARY_PATH=$libs "$bin/prof" analyze --phase $phase --json "$f" 2>/dev/null | md5sum | cut -c1-12)
    ops=$(LD_LIBRARY_PATH=$libs "$bin/prof" analyze --phase all --json "$f" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["ops"])' 2>/dev/null)
    if [ "$a" = "$b" ]; then same=$((same+1)); r=same; else differ=$((differ+1)); r=DIFFERENT; fi
    echo "$r $phase ${f#$rec/} ($ops ops) old $a new $b"
  done
done
echo "same $same different $differ"
du -sh "$rec"; ls -la "$rec"
