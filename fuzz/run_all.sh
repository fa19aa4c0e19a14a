#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for SECONDS (default 60) one after another, at
# most 10 s and 512 MB per input (a bomb or a hang is a finding: issue #19), at
# nice 19, logs in fuzz/logs/. Build first (from fuzz/):
#     RUSTC_BOOTSTRAP=1 cargo fuzz build -O -a
# (-a keeps debug assertions and overflow checks on in the optimised build, so an overflowing
# sum is a crash rather than a silently wrong number). The built binaries are run directly, so
# a parser edited mid-run does not trigger a rebuild. Needs cargo-fuzz; on stable Rust,
# RUSTC_BOOTSTRAP=1 lets it pass -Zsanitizer=address.
set -uo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && mapfile -t targets < <(RUSTC_BOOTSTRAP=1 cargo fuzz list)
bin=target/x86_64-unknown-linux-gnu/release
mkdir -p logs artifacts
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    nice -n 19 "$bin/$t" "corpus/$t" -artifact_prefix="artifacts/$t/" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=512 -malloc_limit_mb=512 -print_final_stats=1 >"logs/$t.log" 2>&1
    rc=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$' | tail -1)
    secs=$(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "logs/$t.log" | tail -1)
    echo "$t rc=$rc execs=${runs:-?} ${secs} crash=$(ls "artifacts/$t" | head -1)"
done
