#!/usr/bin/env bash
# Device batch (issue #54): prof top --once and prof exporter on the lent GPU, idle then busy,
# each scrape checked against nvidia-smi read at the same moment (exporter_check.py, with the
# Prometheus project's parser), and the sampler's CPU cost at a 1 s interval beside
# `nvidia-smi --loop=1`'s. Usage: OUT=... scripts/device/exporter_check.sh BIN_DIR
set -u
bin=$(cd "$1" && pwd); here=$(cd "$(dirname "$0")" && pwd); out=${OUT:-/tmp/prof-exporter}; mkdir -p "$out"
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
echo "== prof top --once (idle)"; COLUMNS=100 LINES=24 "$bin/prof" top --once --interval 500ms | tee "$out/top_idle.txt"
"$bin/prof" exporter --listen 127.0.0.1:9464 --interval 1s --window 8s 2> "$out/exporter.log" & exp=$!
sleep 10; curl -s localhost:9464/metrics > "$out/idle.prom"
python3 "$here/exporter_check.py" http://127.0.0.1:9464/metrics idle; echo "idle check exit $?"
python3 "$here/busy.py" 40 > "$out/busy.log" 2>&1 & busy=$!
sleep 12; curl -s localhost:9464/metrics > "$out/busy.prom"
python3 "$here/exporter_check.py" http://127.0.0.1:9464/metrics busy; echo "busy check exit $?"
echo "== prof top --once (busy)"; COLUMNS=100 LINES=24 "$bin/prof" top --once --interval 500ms | tee "$out/top_busy.txt"
# CPU over 20 s at a 1 s interval: prof exporter (already running) and nvidia-smi --loop=1.
nvidia-smi --query-gpu=utilization.gpu,memory.used,power.draw,clocks.sm,temperature.gpu --format=csv --loop=1 > /dev/null & smi=$!
sleep 1; p0=$(cpu $exp); s0=$(cpu $smi); sleep 20; p1=$(cpu $exp); s1=$(cpu $smi)
hz=$(getconf CLK_TCK)
echo "CPU over 20 s at 1 s: prof exporter $(( (p1 - p0) * 1000 / hz )) ms, nvidia-smi --loop=1 $(( (s1 - s0) * 1000 / hz )) ms"
grep prof_sampler_sample_duration "$out/busy.prom"
kill $smi; wait $busy; kill -TERM $exp; wait $exp; echo "exporter exit $?"; tail -2 "$out/exporter.log"
