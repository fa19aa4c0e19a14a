#!/usr/bin/env bash
# Device batch (issue #20): `prof breakdown --tool nsys` on the decode client with its window past the
# client's ~21 s of start-up (imports, the model built on the CPU, under nsys), checked against
# python sqlite3. Run from the repository root with carry ["target/release/prof", ".carry/devlibs"]
# (LIB_DIR as in nsys_real.sh): OUT=$OUT bash scripts/device/nsys_breakdown_window.sh
set -u
libs=$(cd .carry/devlibs && pwd); client=$PWD/scripts/device/profile_clients.py
start=$(date +%s)
LD_LIBRARY_PATH=$libs timeout 200 target/release/prof breakdown --tool nsys --warmup 0 --skip 24s --window 6s --out /tmp/bd2 -- python3 "$client" decode > $OUT/breakdown.txt 2> /tmp/bd2.err
echo "exit $? in $(( $(date +%s) - start )) s"; tr '\r' '\n' < /tmp/bd2.err | grep -v "^\[1/1\]\|^Processing" | tail -25; head -70 $OUT/breakdown.txt
ls -la /tmp/bd2
LD_LIBRARY_PATH=$libs target/release/prof analyze --phase all --json /tmp/bd2/prof-nsys.sqlite > /tmp/bd2.json 2>/dev/null
python3 - /tmp/bd2/prof-nsys.sqlite /tmp/bd2.json <<'PY'
import sqlite3, sys, json
s = json.load(open(sys.argv[2]))["summary"]
db = sqlite3.connect(sys.argv[1]); q = lambda x: db.execute(x).fetchall()
k = q("select count(*), sum(end-start) from CUPTI_ACTIVITY_KIND_KERNEL")[0]
o = [q(f"select count(*), coalesce(sum(end-start),0) from {t}")[0] for t in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET")]
print("prof --phase all:", s["ops"], s["device_ns"], "| sqlite3:", k[0] + sum(r[0] for r in o), k[1] + sum(r[1] for r in o))
PY
