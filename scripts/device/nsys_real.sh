#!/usr/bin/env bash
# Device batch (issue #20): a real nsys capture on the H200, read by prof (SQLite pages reader)
# and checked against the same export read with Python's sqlite3.
#
# The nsys that ships inside Nsight Compute writes only a .qdstrm there: its QdstrmImporter needs
# libdw.so.1, which is not installed. LIB_DIR holds libdw and the libraries it needs (Debian 12's
# libdw.so.1, libelf.so.1, liblzma.so.5, libbz2.so.1.0); the importer alone gets them.
#
# Usage: scripts/device/nsys_real.sh BIN_DIR LIB_DIR     (BIN_DIR holds prof)
# LIB_DIR, made on the build machine (Debian 12) and carried:
#   mkdir -p .carry/devlibs && cp -L /lib/x86_64-linux-gnu/{libdw.so.1,libelf.so.1,liblzma.so.5,libbz2.so.1.0} .carry/devlibs/
# then run with carry ["target/release/prof", ".carry/devlibs"]: OUT=$OUT bash scripts/device/nsys_real.sh target/release .carry/devlibs
set -u
bin=$(cd "$1" && pwd); libs=$(cd "$2" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/nsys-real}; work=/tmp/nsys-real-work; rm -rf "$work"; mkdir -p "$work" "$out"; cd "$work"
export PYTHONUNBUFFERED=1
"$bin/prof" --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
importer=$(find /usr/local /opt -name QdstrmImporter -type f 2>/dev/null | head -1)
nsys=$(command -v nsys || find /usr/local /opt -name nsys -type f -perm -u+x 2>/dev/null | head -1)
echo "nsys: $nsys ($("$nsys" --version 2>&1 | tail -1))"; echo "importer: $importer"
echo "== importer libraries missing without LIB_DIR:"; ldd "$importer" | grep "not found"
echo "== missing with LIB_DIR:"; LD_LIBRARY_PATH=$libs ldd "$importer" | grep "not found" || echo none

client=$root/scripts/device/profile_clients.py
for c in ${CLIENTS:-decode train}; do
  echo "== nsys profile -t cuda,nvtx,osrt python3 profile_clients.py $c"
  start=$(date +%s)
  timeout 240 "$nsys" profile -t cuda,nvtx --sample=none --cpuctxsw=none -o "$work/$c" --force-overwrite true \
    python3 "$client" "$c" > "$work/$c.nsys.log" 2>&1
  echo "exit $? in $(( $(date +%s) - start )) s"; tail -4 "$work/$c.nsys.log"; ls -la "$work" | grep "$c\."
  if [ ! -f "$work/$c.nsys-rep" ] && [ -f "$work/$c.qdstrm" ]; then
    echo "== QdstrmImporter -i $c.qdstrm (LD_LIBRARY_PATH=LIB_DIR)"
    start=$(date +%s)
    LD_LIBRARY_PATH=$libs timeout 240 "$importer" -i "$work/$c.qdstrm" 2>&1 | tail -5
    echo "importer exit ${PIPESTATUS[0]} in $(( $(date +%s) - start )) s"; ls -la "$work" | grep "$c\."
  fi
  [ -f "$work/$c.nsys-rep" ] || { echo "no $c.nsys-rep"; continue; }
  start=$(date +%s)
  timeout 240 "$nsys" export --type sqlite --force-overwrite true -o "$work/$c.sqlite" "$work/$c.nsys-rep" 2>&1 | tail -3
  echo "export exit ${PIPESTATUS[0]} in $(( $(date +%s) - start )) s"; ls -la "$work/$c.sqlite"
  echo "== prof analyze $c.sqlite"
  /usr/bin/time -f "prof analyze: %e s, %M KB" "$bin/prof" analyze "$work/$c.sqlite" 2>&1 | head -60
  # The whole run (--phase all): the independent numbers below count every row.
  "$bin/prof" analyze --phase all --json "$work/$c.sqlite" > "$work/$c.analyze.json" 2> "$work/$c.analyze.err"; echo "json exit $?"
  cat "$work/$c.analyze.err"
  python3 - "$work/$c.analyze.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print("prof:", "ops", s["ops"], "device_ns", s["device_ns"], "span_ns", s["span_ns"])
for k in s["kernels"][:6]: print("   ", k["kind"], k["name"][:80], k["calls"], k["total_ns"])
PY
  python3 - "$work/$c.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
q = lambda s: db.execute(s).fetchall()
print("independent (sqlite3):")
k = q("select count(*), sum(end-start), min(start), max(end) from CUPTI_ACTIVITY_KIND_KERNEL")[0]
print("  kernels", k)
ops, ns = k[0], k[1] or 0
for t in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"):
    try:
        n = q(f"select count(*), sum(end-start) from {t}")[0]
        print(" ", t, n[0])
        if t in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"): ops, ns = ops + n[0], ns + (n[1] or 0)
    except Exception as e: print(" ", t, e)
print("  device ops", ops, "device_ns", ns)
print("  top kernels (name, count, total ns):")
for r in q("select s.value, count(*), sum(k.end-k.start) t from CUPTI_ACTIVITY_KIND_KERNEL k join StringIds s on s.id = coalesce(k.demangledName, k.shortName) group by 1 order by t desc limit 6"):
    print("   ", r[0][:80], r[1], r[2])
PY
  size=$(stat -c %s "$work/$c.sqlite")
  # Small exports come back (a fixture); the device returns only a few files.
  if [ "$size" -lt "${KEEP_BELOW:-8000000}" ]; then gzip -9c "$work/$c.sqlite" > "$out/$c.sqlite.gz"; fi
done

echo "== prof breakdown --tool nsys (importer libraries on LD_LIBRARY_PATH) -- decode"
start=$(date +%s)
LD_LIBRARY_PATH=$libs timeout 300 "$bin/prof" breakdown --tool nsys --out "$work/bd" -- python3 "$client" decode > "$work/breakdown.txt" 2> "$work/breakdown.err"
echo "exit $? in $(( $(date +%s) - start )) s"; head -60 "$work/breakdown.txt"; tail -15 "$work/breakdown.err" | tr '\r' '\n' | tail -15
ls -la "$work/bd" 2>/dev/null | head
