#!/usr/bin/env bash
# Installs prof and its CUPTI tracer library side by side (prof finds libprof_cupti.so next to
# its own binary): `cargo install` alone installs no library.
# Usage: scripts/install.sh [BIN_DIR]   (default: ~/.cargo/bin)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-${CARGO_HOME:-$HOME/.cargo}/bin}
cargo build --release --locked --manifest-path "$root/Cargo.toml" -p prof-cli -p prof-cupti-tracer
mkdir -p "$bin"
install -m 755 "$root/target/release/prof" "$bin/prof"
install -m 755 "$root/target/release/libprof_cupti.so" "$bin/libprof_cupti.so"
echo "installed $bin/prof and $bin/libprof_cupti.so ($("$bin/prof" --version))"
"$bin/prof" detect | grep -i "libprof_cupti" || true
