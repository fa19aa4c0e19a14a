#!/usr/bin/env bash
# Runs a prof binary on an older distribution's glibc, without root: Ubuntu 20.04's libc6
# (glibc 2.31) and libgcc-s1 are downloaded from the Ubuntu archive, unpacked with dpkg-deb,
# and `prof` is started through that glibc's own loader with its libraries only. As a control,
# a program built against this machine's glibc (which needs GLIBC_2.34) must fail there.
# (No glibc-2.28 distribution is reachable from here: Debian 10 moved to archive.debian.org and
# the RHEL 8 rebuilds' mirrors are not reachable; `check-glibc.sh 2.28` checks the symbols.)
# Usage: scripts/release/run-on-old-glibc.sh PROF [CONTROL]   (CONTROL default: /bin/true)
set -euo pipefail
prof=$(readlink -f "$1"); control=${2:-/bin/true}
mirror=${UBUNTU_MIRROR:-http://archive.ubuntu.com/ubuntu}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
curl -fsS "$mirror/dists/focal/main/binary-amd64/Packages.gz" | zcat > "$work/Packages"
for package in libc6 libgcc-s1; do
    file=$(awk -v p="$package" '$0 == "Package: " p {found=1} found && /^Filename:/ {print $2; exit}' "$work/Packages")
    curl -fsS "$mirror/$file" -o "$work/$package.deb"
    dpkg-deb -x "$work/$package.deb" "$work/root"
done
lib="$work/root/lib/x86_64-linux-gnu"
loader=$(ls "$lib"/ld-2.*.so)
echo "glibc of Ubuntu 20.04: $(basename "$loader")"
if "$loader" --library-path "$lib" "$control" >/dev/null 2>&1; then
    echo "control $control ran on it: this is not an older glibc"; exit 1
fi
echo "control: $("$loader" --library-path "$lib" "$control" 2>&1 | head -1)"
"$loader" --library-path "$lib" "$prof" --version
"$loader" --library-path "$lib" "$prof" analyze --top 3 > "$work/analyze.txt"
grep -m1 -A3 '^#' "$work/analyze.txt"
echo "prof ran on glibc $(basename "$loader" .so | sed 's/ld-//')"
