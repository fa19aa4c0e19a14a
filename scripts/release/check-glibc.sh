#!/usr/bin/env bash
# Fails when one of FILES needs a glibc symbol version newer than MAX (e.g. 2.28).
# Usage: scripts/release/check-glibc.sh MAX FILE...
set -euo pipefail
max=$1; shift
status=0
for file in "$@"; do
    need=$(objdump -T "$file" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)
    if [[ "$(printf '%s\n%s\n' "$need" "$max" | sort -V | tail -1)" != "$max" ]]; then
        echo "$file needs glibc $need, newer than $max"; status=1
    else
        echo "$file needs glibc $need (≤ $max)"
    fi
done
exit $status
