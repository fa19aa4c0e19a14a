#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 60) one after another, logs in fuzz/logs/.
# Needs cargo-fuzz; on stable Rust, RUSTC_BOOTSTRAP=1 lets it pass -Zsanitizer=address.
set -uo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && mapfile -t targets < <(RUSTC_BOOTSTRAP=1 cargo fuzz list)
mkdir -p logs
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    RUSTC_BOOTSTRAP=1 cargo fuzz run -O "$t" "corpus/$t" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 >"logs/$t.log" 2>&1
    rc=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$' | tail -1)
    echo "$t rc=$rc execs=${runs:-?} $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "logs/$t.log" | tail -1)"
done
