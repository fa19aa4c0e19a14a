#!/usr/bin/env bash
# Device batch (issue #20, fifteenth session): is the ~50 ms host gap per token that
# `prof breakdown --tool nsys` showed on the decode client the client's own, or the tracing's?
# The same client, same window (24 s in, 6 s), three ways:
#   1. untraced: the client's own per-call times (96 tokens a `generate` call);
#   2. `prof breakdown` with the built-in CUPTI tracer (the default tool);
#   3. nsys with `--trace=cuda,nvtx` only (no osrt), exported and read by `prof analyze`.
# Each prints the steady phase (steps, per-step time, busy share) and the longest gaps.
# Carry [".carry"] holding prof.gz, libprof_cupti.so.gz and devlibs/ (nsys_real.sh's header):
#   mkdir -p target/release && gunzip -c .carry/prof.gz > target/release/prof &&
#   gunzip -c .carry/libprof_cupti.so.gz > target/release/libprof_cupti.so && chmod +x target/release/prof &&
#   OUT=$OUT bash scripts/device/decode_gap_check.sh
set -u
root=$PWD; prof=$root/target/release/prof; libs=$(cd .carry/devlibs && pwd)
client=$root/scripts/device/profile_clients.py; out=${OUT:-/tmp/gap}; mkdir -p "$out"
export PYTHONUNBUFFERED=1
steady() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["phases"]["phases"]:
    n = p["end_ns"] - p["start_ns"]
    print(f'  {p["kind"]:8} {n/1e9:7.3f} s busy {p["busy_pct"]:5.1f} %  {p["marks"][:90]}')
for g in (d["analyses"].get("gaps") or [])[:1]:
    dg = g["device_gaps"]
    print("  gaps:", dg["count"], "idle %.1f %%" % dg["idle_pct"], [(b["label"], b["count"]) for b in dg["buckets"]])
    print("  longest:", [round(x["length_ns"] / 1e6, 1) for x in dg["largest"][:5]], "ms")
PY
}
echo "== 1. untraced"
timeout 120 python3 "$client" decode 2>&1 | grep generate
echo "== 2. prof breakdown (cupti), skip 24 s, window 6 s"
start=$(date +%s)
timeout 200 "$prof" breakdown --warmup 0 --skip 24s --window 6s --json --out /tmp/gap-cupti -- python3 "$client" decode \
  > "$out/cupti.json" 2> /tmp/gap-cupti.err
echo "exit $? in $(( $(date +%s) - start )) s"; tail -3 /tmp/gap-cupti.err; steady "$out/cupti.json"
echo "== 3. nsys --trace=cuda,nvtx (no osrt), delay 24 s, duration 6 s"
nsys=$(command -v nsys || find /usr/local /opt -name nsys -type f -perm -u+x 2>/dev/null | head -1)
start=$(date +%s)
LD_LIBRARY_PATH=$libs timeout 200 "$nsys" profile --trace=cuda,nvtx --sample=none --cpuctxsw=none --delay=24 --duration=6 \
  -o /tmp/gap-nsys --force-overwrite true python3 "$client" decode > /tmp/gap-nsys.log 2>&1
echo "exit $? in $(( $(date +%s) - start )) s"
LD_LIBRARY_PATH=$libs timeout 200 "$nsys" export --type sqlite --force-overwrite true -o /tmp/gap-nsys.sqlite /tmp/gap-nsys.nsys-rep \
  > /dev/null 2>&1; ls -la /tmp/gap-nsys.sqlite
"$prof" analyze --json /tmp/gap-nsys.sqlite > "$out/nsys.json" 2> /dev/null; steady "$out/nsys.json"
