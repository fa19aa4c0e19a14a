#!/usr/bin/env bash
# Device batch (issue #49): `prof profile --yes --json` on real clients whose right answer is
# known before prof runs (scripts/device/answer_clients.py), printing each step's headline and
# the breakdown's answer (verdict, share, evidence, next step).
# Usage: CLIENTS="tiny gemm-now" scripts/device/check_answers.sh BIN_DIR (prof, libprof_cupti.so)
set -u
bin=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-answers}
rec=/tmp/answers; rm -rf "$rec"; mkdir -p "$rec" "$out"; cd /tmp
export PYTHONUNBUFFERED=1
clients=$root/scripts/device/answer_clients.py
"$bin/prof" --version; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for c in ${CLIENTS:-tiny gemm-now load-then-gemm compiled-decode jax-mlp}; do
  echo "== prof profile --yes -- python3 answer_clients.py $c"
  start=$(date +%s)
  timeout ${LIMIT:-300} "$bin/prof" profile --yes --json --out "$rec/out-$c" -- python3 "$clients" "$c" > "$rec/$c.json" 2> "$rec/$c.stderr"
  echo "exit $? in $(( $(date +%s) - start )) s"
  grep -E "^prof|never opened|failed|error" "$rec/$c.stderr" | grep -v "^prof profile on" | tail -8
  python3 - "$rec/$c.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("no JSON:", e); sys.exit()
print("stopped_after:", d["stopped_after"]); print("answer:", d["answer"]); print("why:", d["why"])
for s in d["steps"]:
    head = s["headline"] if s["ran"] else (s.get("skipped") or (s.get("failed") or {}).get("message"))
    print(f"  {s['name']} ran={s['ran']} tool={s['tool']}: {head}")
    for e in s["evidence"][:4]: print("     -", e)
PY
done
for c in "$rec"/*.json; do gzip -9 "$c"; done
rm -rf "$rec"/out-*/
tar czf "$out/answers.tar.gz" -C "$rec" . && ls -la "$out"
