#!/usr/bin/env bash
# Device batch (fifteenth session): the decode client under the CUPTI tracer with a window past
# its GPU work (24 s and 12 s after CUDA's start: the generate calls come later; prof must say
# so). Run 11 of the fifteenth session then used --skip auto, which captured the calls.
# Carry [".carry"] as decode_gap_check.sh says: OUT=$OUT bash scripts/device/decode_window_cupti.sh
set -u
root=$PWD; prof=$root/target/release/prof; client=$root/scripts/device/profile_clients.py
for skip in 24s 12s; do
  echo "== prof breakdown (cupti) --skip $skip --window 6s"
  start=$(date +%s)
  timeout 200 "$prof" breakdown --warmup 0 --skip $skip --window 6s --json --out /tmp/gap-$skip -- python3 "$client" decode > $OUT/cupti-$skip.json 2> /tmp/gap-$skip.err
  echo "exit $? in $(( $(date +%s) - start )) s"; grep -v "^  \|^prof breakdown\|^$" /tmp/gap-$skip.err | tail -4
done
python3 - $OUT/cupti-12s.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["phases"]["phases"]:
    n = p["end_ns"] - p["start_ns"]
    print(f'  {p["kind"]:8} {n/1e9:7.3f} s busy {p["busy_pct"]:5.1f} %  {p["marks"][:100]}')
l = d["analyses"].get("layers") or {}
print("  layers:", l.get("period_ops"), l.get("count"), [(round(o["mean_ns"]), o["name"][:30]) for o in sorted(l.get("ops", []), key=lambda o: -o["mean_ns"])[:3]])
print("  findings:", [f.get("rule", f.get("id", "")) or f.get("title", "")[:40] for f in d["diagnosis"]["findings"]])
PY
