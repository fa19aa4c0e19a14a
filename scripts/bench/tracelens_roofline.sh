#!/usr/bin/env bash
# Issue #56: AMD TraceLens's per-op perf report on the traces prof's roofline is checked on, for
# the side-by-side table in the README (tests/roofline.rs compares prof with the GEMM and SDPA
# sheets kept in tests/fixtures/tracelens). TraceLens is not on PyPI under its name (`tracelens`
# there is another project): install it from its repository (github.com/AMD-AGI/TraceLens,
# tried at 171dd747) with pandas, numpy, tqdm, openpyxl, tabulate, orjson, PyYAML, matplotlib.
#   TRACELENS_SRC=/path/to/TraceLens bash scripts/bench/tracelens_roofline.sh OUT_DIR
set -eu
out=${1:-/tmp/tracelens_roofline}; root=$(cd "$(dirname "$0")/../.." && pwd); F=$root/tests/fixtures/nvidia
export PYTHONPATH=${TRACELENS_SITE:-}:${TRACELENS_SRC:?set TRACELENS_SRC to a TraceLens checkout}
for pair in h200_shapes:h200-shapes/shapes.pt.trace.json.gz \
            h100_bert:torch/tracelens_h100_bert_small_traceEvents_first.json.gz \
            mi300x_compile:torch/tracelens_mi300x_torch_compile_triton_rocm7.2.json.gz; do
  k=${pair%%:*}; trace=$F/${pair#*:}; rm -rf "$out/$k"
  s=$(date +%s%N)
  python3 -m TraceLens.Reporting.generate_perf_report_pytorch --profile_json_path "$trace" \
    --output_csvs_dir "$out/$k" --output_xlsx_path "$out/$k.xlsx" > "$out/$k.log" 2>&1
  t1=$(( ($(date +%s%N) - s) / 1000000 ))
  s=$(date +%s%N); "$root/target/release/prof" analyze "$trace" --phase all --json > "$out/$k.prof.json"
  t2=$(( ($(date +%s%N) - s) / 1000000 ))
  echo "$k: TraceLens ${t1} ms, prof ${t2} ms (same file, one run)"
done
