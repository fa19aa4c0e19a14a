#!/usr/bin/env bash
# Device batch (issue #23): `prof profile --yes --json` on one real client per depth, and the
# text report of each. Usage: scripts/device/check_profile.sh BIN_DIR (prof, libprof_cupti.so)
# CLIENTS_PY (default profile_clients.py) and CLIENTS (default its three) choose the clients;
# LIMIT (default 420 s) bounds each run.
set -u
bin=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd); out=${OUT:-/tmp/prof-profile}
rec=/tmp/profile; rm -rf "$rec"; mkdir -p "$rec" "$out"; cd /tmp
export PYTHONUNBUFFERED=1
clients=${CLIENTS_PY:-$root/scripts/device/profile_clients.py}
"$bin/prof" --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for c in ${CLIENTS:-decode train lm-head}; do
  echo "== prof profile --yes -- python3 $(basename "$clients") $c"
  start=$(date +%s)
  timeout ${LIMIT:-420} "$bin/prof" profile --yes --json --out "$rec/out-$c" -- python3 "$clients" "$c" > "$rec/$c.json" 2> "$rec/$c.stderr"
  echo "exit $? in $(( $(date +%s) - start )) s"
  grep -v "^\s*$" "$rec/$c.stderr" | grep -vE "^[a-z-]+: [0-9]+ " | tail -${STDERR_LINES:-25}
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
    for e in s["evidence"][:8]: print("     -", e)
    print("     rerun:", s["rerun"])
PY
done
# Keep each breakdown's CUPTI trace (gzipped) as evidence; the rest of the outputs go.
for d in "$rec"/out-*/breakdown/cupti; do
  [ -d "$d" ] || continue
  c=$(basename "$(dirname "$(dirname "$d")")"); c=${c#out-}
  for f in "$d"/*.pcupti; do gzip -9c "$f" > "$rec/$c.breakdown.pcupti.gz"; break; done
done
rm -rf "$rec"/out-*/
tar czf "$out/profile.tar.gz" -C "$rec" . && ls -la "$out"
