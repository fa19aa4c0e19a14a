#!/usr/bin/env bash
# Builds every fuzz target as a plain program, without libFuzzer or nightly (a stand-in
# `fuzz_target!` that runs the body on each file named on the command line), and runs each on
# its seed corpus when there is one: the check that the targets still compile against the
# backends' `fuzz` faces after a change, on a machine that cannot run cargo-fuzz.
#     bash fuzz/check.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${FUZZ_CHECK_DIR:-$root/target/fuzz-check}
mkdir -p "$work/src/bin"
rm -f "$work"/src/bin/*.rs
cat > "$work/Cargo.toml" <<TOML
[package]
name = "prof-fuzz-check"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
prof-core = { path = "$root/crates/core" }
prof-timeline = { path = "$root/crates/timeline" }
prof-backend-nvidia = { path = "$root/crates/backend-nvidia" }
prof-backend-amd = { path = "$root/crates/backend-amd" }
prof-backend-ascend = { path = "$root/crates/backend-ascend" }

[workspace]
TOML
shim='macro_rules! fuzz_target {
    (|$data:ident: &[u8]| $body:block) => {
        fn main() {
            for path in std::env::args().skip(1) {
                let bytes = std::fs::read(&path).expect("a readable input");
                let $data: &[u8] = &bytes;
                $body
            }
        }
    };
}'
for t in "$root"/fuzz/fuzz_targets/*.rs; do
    name=$(basename "$t" .rs)
    { echo "$shim"; grep -v -e '^#!\[no_main\]' -e '^use libfuzzer_sys::fuzz_target;' "$t" | sed 's|^//!|//|'; } > "$work/src/bin/$name.rs"
done
cd "$work"
cargo build --release --quiet
for t in "$root"/fuzz/fuzz_targets/*.rs; do
    name=$(basename "$t" .rs)
    corpus="$root/fuzz/corpus/$name"
    if [ -d "$corpus" ] && [ -n "$(ls -A "$corpus")" ]; then
        find "$corpus" -type f -print0 | xargs -0 -n 64 "target/release/$name" && echo "$name: ran on $(ls "$corpus" | wc -l) seeds"
    else
        echo "$name: built (no seed corpus here: fuzz/seed.sh makes one)"
    fi
done
