#!/usr/bin/env bash
# Device batch (issue #49): `prof profile --yes --json` on real clients whose right answer is
# known before prof runs (scripts/device/answer_clients.py: load-then-gemm, gemm-now, tiny,
# compiled-decode, jax-mlp), each step's headline and evidence printed, the documents kept.
# Usage: CLIENTS="tiny gemm-now" scripts/device/check_answers.sh BIN_DIR (prof, libprof_cupti.so)
here=$(cd "$(dirname "$0")" && pwd)
CLIENTS_PY=$here/answer_clients.py CLIENTS=${CLIENTS:-tiny gemm-now load-then-gemm compiled-decode jax-mlp} \
  LIMIT=${LIMIT:-300} STDERR_LINES=${STDERR_LINES:-12} exec "$here/check_profile.sh" "$@"
