#!/usr/bin/env bash
# A release build of prof and its CUPTI tracer that starts on glibc 2.28 (RHEL/Rocky 8, Debian
# 10, Ubuntu 20.04 has 2.31), with cargo-zigbuild and zig (both from PyPI: `pip install
# --target DIR ziglang cargo-zigbuild`, then PATH=DIR/bin:$PATH PYTHONPATH=DIR), and a check of
# the highest glibc symbol version each file needs.
# Usage: scripts/release/build-glibc228.sh   (binaries in target/x86_64-unknown-linux-gnu/release/,
# under CARGO_TARGET_DIR when that is set)
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo zigbuild --release --target x86_64-unknown-linux-gnu.2.28 -p prof-cli -p prof-cupti-tracer
out=${CARGO_TARGET_DIR:-target}/x86_64-unknown-linux-gnu/release
scripts/release/check-glibc.sh 2.28 "$out/prof" "$out/libprof_cupti.so"
