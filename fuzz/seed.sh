#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ with copies of small real fixtures from tests/fixtures.
# The corpus dirs are .gitignored (libFuzzer grows them); rerun this after a fresh clone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fx="$here/../tests/fixtures"
seed() { # target fixture...
    local dir="$here/corpus/$1"; shift
    mkdir -p "$dir"
    for f in "$@"; do cp "$fx/$f" "$dir/"; chmod u+w "$dir/$(basename "$f")"; done
}
seed smi_xml nvidia/h200-probe/nvidia-smi-q.xml nvidia/h200-probe/nvidia-smi-q-busy.xml \
    nvidia/smi/telegraf_tesla-t4_q-x.xml nvidia/smi/telegraf_a100-sxm4-4gpu-mig_q-x.xml
seed smi_detect_query nvidia/h200-detect/query-detect.csv nvidia/h200-probe/query.csv
seed smi_sample_query nvidia/h200-probe/query.csv nvidia/h200-detect/query-detect.csv
seed smi_compute_apps nvidia/h200-probe/apps-busy.csv
seed ncu_details nvidia/h200-ncu/norm-softmax-details.csv nvidia/h200-verify/deep-dive-ncu-details.csv
seed ncu_raw nvidia/h200-probe/ncu-raw.csv nvidia/ncu/microgpusim_gtx1080_ncu-raw-csv_with-preamble.txt
seed ncu_console nvidia/h200-ncu/norm-softmax-console.txt nvidia/ncu/ipaco_rtx3050ti-laptop_ncu-default_gemm.txt \
    nvidia/ncu/cudatraining_tesla-p40_ncu-old_vector_add_160b_1024t.txt nvidia/ncu/cudatraining_hw8_ncu-metrics_task1b.txt
seed nsys_stats_csv nvidia/nsys/cudalm_rtx2080ti_nsys2022.4.2_cudaapisum.csv \
    nvidia/nsys/cudalm_rtx2080ti_nsys2022.4.2_gpumemtimesum.csv nvidia/nsys/cudalm_rtx2080ti_nsys2022.4.2_kernexecsum.csv \
    nvidia/nsys/gpuperf_sm103_cuda_gpu_kern_sum.csv nvidia/nsys/tienshen_rtx3060ti_nvtx_sum_fp16.csv
seed cupti_trace nvidia/h200-cupti/prof-cupti-682-launch.pcupti nvidia/h200-cupti/prof-cupti-713-none.pcupti
seed rocm_smi_json amd/smi/telegraf_mi100_rocm571.json
seed rocm_smi_concise amd/smi/rocm-smi_concise_mi300a.txt
seed amd_smi_monitor amd/smi/amdsmi-changelog_monitor_ptumv.txt
seed rocprofv3_kernel_trace amd/rocprofv3/sdk0.5_kernel_trace.csv amd/rocprofv3/sdk1.0_kernel_trace.csv
seed rocprofv3_memory_copy amd/rocprofv3/sdk1.0_memory_copy_trace.csv
seed rocprofv3_hip_api amd/rocprofv3/sdk1.0_hip_api_trace.csv
seed rocprofv3_agent_info amd/rocprofv3/hpctrain-mi300a_agent_info.csv
seed rocprofv3_counters amd/rocprofv3/sdk1.0_counter_collection.csv amd/rocprofv3/issue57-rocm6.4_counter_collection.csv
seed rocprof_stats amd/rocprof-v1/hpctrain-laplacian_results.stats.csv amd/rocprof-v1/kokkos2021_results.stats.csv \
    amd/rocprofv3/hpctrain-jacobi_kernel_stats.csv
seed npu_smi_info ascend/npu-smi/llm-action_npu-smi-23.0.rc1_910ProB_info.txt \
    ascend/npu-smi/vllm-ascend-910a_npu-smi-24.1.0_910A-x8_info.txt \
    ascend/npu-smi/ascend-msprof-skill_npu-smi-25.5.6_910B2-x4_npu_smi_info.stdout.txt
seed npu_smi_common ascend/npu-smi/llm-action_npu-smi_910B_t-common-i1.txt
# Large fixtures: only their head (the header and the first rows), so each seed stays small.
mkdir -p "$here/corpus/rocprof_legacy" "$here/corpus/torch_trace"
head -n 40 "$fx/amd/rocprof-v1/hpctrain-laplacian_results.csv" >"$here/corpus/rocprof_legacy/hpctrain-laplacian_results.head.csv"
# The torch seed keeps the real document shape with its first 40 trace events.
python3 - "$fx/nvidia/torch/hta_a100_alexnet_benchmark_result_2869224_1695835535_trace.json.gz" \
    "$here/corpus/torch_trace/hta_a100_alexnet.first40.json" <<'PY'
import gzip, json, sys
doc = json.load(gzip.open(sys.argv[1]))
doc["traceEvents"] = doc["traceEvents"][:40]
json.dump(doc, open(sys.argv[2], "w"), indent=1)
PY
echo "seeded $(find "$here/corpus" -type f | wc -l) files into $here/corpus"
