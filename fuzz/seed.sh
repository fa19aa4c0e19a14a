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
seed xla_trace_json xla/jax0.11_softmax_h200/vm.xplane.pb
mkdir -p "$here/corpus/xla_trace_json" && gunzip -c "$fx/xla/jax0.11_softmax_h200/vm.trace.json.gz" > "$here/corpus/xla_trace_json/vm.trace.json"
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
seed npu_smi_usages ascend/npu-smi/mind-cluster_npu-smi-23.0.5_t-usages-i0.txt \
    ascend/npu-smi/yunionio-telegraf_npu-smi-25.5.1_910B_t-usages-i0.txt
gpt3=ascend/msinsight_gpt3_16rank_torch_npu
seed ascend_communication $gpt3/test_rank_0/ASCEND_PROFILER_OUTPUT/communication.json
seed ascend_communication_matrix $gpt3/test_rank_0/ASCEND_PROFILER_OUTPUT/communication_matrix.json
k=ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv
cann8=ascend/vllm-ascend_msprof_cann8/PROF_GROUP_20260823_165254/PROF_PipeUtilization/PROF_000001_20260823165326062_00625538CIGQAHCJ/mindstudio_profiler_output
seed ascend_op_tables $cann8/op_summary_20260823165335.csv $cann8/op_statistic_20260823165335.csv
# kernel_details.csv (128 kB): its header and first 40 rows.
head -n 41 "$fx/$k" >"$here/corpus/ascend_op_tables/kernel_details.head.csv"
seed ascend_step_trace $gpt3/test_rank_0/ASCEND_PROFILER_OUTPUT/step_trace_time.csv \
    $gpt3/cluster_analysis_output/cluster_step_trace_time.csv
# rsmi_frequencies_t has no file of its own: its seeds are the MI100 clocks of the recorded
# rocm-smi --json sample (card0: sclk at level 0 = 300 MHz, levels 1..15 under keys "1".."15";
# mclk one level, 1200 MHz), written in both header layouts (legacy: u32 count, u32 current,
# u64 Hz[32]; deep-sleep: bool, pad, u32 count, u32 current, pad, u64 Hz[33]), little-endian.
mkdir -p "$here/corpus/rsmi_frequencies"
python3 - "$fx/amd/smi/telegraf_mi100_rocm571.json" "$here/corpus/rsmi_frequencies" <<'PY'
import json, re, struct, sys
card = json.load(open(sys.argv[1]))["card0"]
mhz = lambda text: int(re.search(r"(\d+)Mhz", text).group(1))
clocks = {
    "sclk": [mhz(card["sclk clock speed:"])] + [mhz(card[str(k)]) for k in range(1, 16)],
    "mclk": [mhz(card["mclk clock speed:"])],
}
for name, levels in clocks.items():
    hz = [f * 1_000_000 for f in levels]
    legacy = struct.pack("<II", len(hz), 0) + struct.pack("<32Q", *(hz + [0] * (32 - len(hz))))
    deep = struct.pack("<?3xII4x", False, len(hz), 0) + struct.pack("<33Q", *(hz + [0] * (33 - len(hz))))
    open(f"{sys.argv[2]}/mi100_{name}.legacy.bin", "wb").write(legacy)
    open(f"{sys.argv[2]}/mi100_{name}.deep_sleep.bin", "wb").write(deep)
PY
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
# The H200 NCCL one-rank trace: its kernels carrying "Collective name" and the first 40 events.
python3 - "$fx/nvidia/h200-nccl/nccl-one-rank.json" "$here/corpus/torch_trace/h200-nccl.collectives.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
events = doc["traceEvents"]
doc["traceEvents"] = events[:40] + [e for e in events if "Collective name" in e.get("args", {})]
json.dump(doc, open(sys.argv[2], "w"), indent=1)
PY
# The nsys 2024.6.2 SQLite export (890 kB) made small: only the tables prof reads kept (their
# schema and rows as recorded), the runtime calls cut to the first 20 and NVTX to the first 10
# ranges, StringIds to the ids those rows use, then VACUUMed.
mkdir -p "$here/corpus/nsys_sqlite"
python3 - "$fx/nvidia/nsys/sqlite/learncuda_rtx4060-laptop_nsys2024.6.2_report1.sqlite" \
    "$here/corpus/nsys_sqlite/learncuda.small.sqlite" <<'PY'
import shutil, sqlite3, sys
shutil.copyfile(sys.argv[1], sys.argv[2])
c = sqlite3.connect(sys.argv[2])
c.execute("DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE rowid NOT IN (SELECT rowid FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY start LIMIT 20)")
c.execute("DELETE FROM NVTX_EVENTS WHERE rowid NOT IN (SELECT rowid FROM NVTX_EVENTS ORDER BY start LIMIT 10)")
keep = {"META_DATA_EXPORT", "StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
        "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"}
tables = [t for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
for t in tables:
    if t not in keep:
        c.execute(f'DROP TABLE "{t}"')
used = set()
for sql in ["SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL", "SELECT shortName FROM CUPTI_ACTIVITY_KIND_KERNEL",
            "SELECT nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME", "SELECT textId FROM NVTX_EVENTS"]:
    used.update(v for (v,) in c.execute(sql) if v is not None)
c.execute("DELETE FROM StringIds WHERE id NOT IN (%s)" % ",".join(str(int(v)) for v in used))
c.commit()
c.execute("VACUUM")
c.close()
PY
# The Ascend traces: the CANN 8 msprof export whole (25 KB); of the two larger ones every "M"
# (process/thread name) event and the first 40 "X" and 10 "s" + 10 "f" (flow) events, in file order.
mkdir -p "$here/corpus/ascend_trace_json"
cp "$fx/ascend/vllm-ascend_msprof_cann8/PROF_GROUP_20260823_165254/PROF_PipeUtilization/PROF_000001_20260823165326062_00625538CIGQAHCJ/mindstudio_profiler_output/msprof_20260823165334.json" \
    "$here/corpus/ascend_trace_json/vllm-ascend_msprof_cann8.json"
chmod u+w "$here/corpus/ascend_trace_json/vllm-ascend_msprof_cann8.json"
python3 - "$here/corpus/ascend_trace_json" \
    "$fx/ascend/msprof-analyze_advisor_trace_view/trace_view.json" \
    "$fx/ascend/mindinsight_msprof_2dev/PROF_000001_20230818142704322_COJGGGCANRMICFBC/device_0/timeline/msprof_0_2_1.json" <<'PY'
import json, os, sys
for source in sys.argv[2:]:
    events, kept, limits = json.load(open(source)), {}, {"X": 40, "s": 10, "f": 10}
    cut = []
    for event in events:
        ph = event.get("ph")
        if ph == "M" or kept.get(ph, 0) < limits.get(ph, 0):
            kept[ph] = kept.get(ph, 0) + 1
            cut.append(event)
    name = os.path.basename(os.path.dirname(os.path.dirname(source))) + "_" + os.path.basename(source)
    json.dump(cut, open(os.path.join(sys.argv[1], name.replace(".json", ".cut.json")), "w"), indent=1)
PY
# A `prof util --csv` recording is prof's own output: made by the built prof (PROF, default
# target/debug/prof) with the fake nvidia-smi of tests/fakes/nvidia replaying the H200 -q -x
# reports (busy: SM clock 1935 MHz; idle: 345 MHz), as tests/util.rs does; plus the busy rows
# followed by the idle ones (t_ms moved past the last busy row), so the seed has a clock drop.
prof=${PROF:-$here/../target/debug/prof}
if [ -x "$prof" ]; then
    mkdir -p "$here/corpus/util_csv_clocks"
    for mode in busy idle; do
        PATH="$here/../tests/fakes/nvidia:/usr/bin:/bin" PROF_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 \
            FAKE_NVIDIA_SMI=$mode "$prof" util --interval 100ms --duration 1s \
            --csv "$here/corpus/util_csv_clocks/h200_$mode.csv" >/dev/null
    done
    python3 - "$here/corpus/util_csv_clocks" <<'PY'
import os, sys
d = sys.argv[1]
busy = open(os.path.join(d, "h200_busy.csv")).read().splitlines()
idle = open(os.path.join(d, "h200_idle.csv")).read().splitlines()[1:]
last = float(busy[-1].split(",")[0])
shifted = [f"{last + float(row.split(',')[0]) + 100:.3f}," + row.split(",", 1)[1] for row in idle]
open(os.path.join(d, "h200_busy_then_idle.csv"), "w").write("\n".join(busy + shifted) + "\n")
PY
else
    echo "no prof binary at $prof (cargo build -p prof-cli first): corpus/util_csv_clocks not seeded" >&2
fi
# The adversarial cases of issue #19 as seeds, made from the seeds above: every CSV target gets
# its seeds cut three bytes before the end of the last row (a writer killed mid-row) and with
# bare-CR line ends; the torch target a second traceEvents key and kernel durations that sum
# past 2^64 ns; the CUPTI target a trace cut inside its last record.
python3 - "$here/corpus" <<'PY'
import json, os, sys
root = sys.argv[1]
for target in sorted(os.listdir(root)):
    d = os.path.join(root, target)
    if not os.path.isdir(d):
        continue
    for name in sorted(os.listdir(d)):
        if name.startswith("adv_"):
            continue
        path = os.path.join(d, name)
        data = open(path, "rb").read()
        if name.endswith((".csv", ".txt")) and data.count(b"\n") > 1:
            whole = data.rstrip(b"\r\n")
            open(os.path.join(d, "adv_cut_" + name), "wb").write(whole[:-3])
            open(os.path.join(d, "adv_cr_" + name), "wb").write(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r"))
        elif name.endswith(".pcupti") and len(data) > 64:
            open(os.path.join(d, "adv_cut_" + name), "wb").write(data[:-5])
torch = os.path.join(root, "torch_trace")
kernel = lambda name, ts: {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts,
                           "dur": 10 ** 16, "args": {"device": 0, "stream": 7, "correlation": ts}}
events = [kernel("a", 1), kernel("b", 2)]
open(os.path.join(torch, "adv_overflow.json"), "w").write(json.dumps({"schemaVersion": 1, "traceEvents": events}))
text = json.dumps({"schemaVersion": 1, "traceEvents": events[:1]})
open(os.path.join(torch, "adv_duplicate_key.json"), "w").write(text[:-1] + ', "traceEvents": ' + json.dumps(events[1:]) + "}")
PY
# The door's targets: a name byte (its index in the target's NAMES) before a real file, and a
# tree of one run (TensorBoard layout: plugins/profile/RUN/host.xplane.pb) built from entries.
python3 - "$here/corpus" "$fx" <<'PY'
import os, sys
root, fx = sys.argv[1], sys.argv[2]
door = os.path.join(root, "door_recognize"); os.makedirs(door, exist_ok=True)
for index, fixture in [(0, "nvidia/h200-answers/load-then-gemm.breakdown.pcupti.gz"),
                       (3, "amd/rocprofv3/sdk1.0_kernel_trace.csv"),
                       (6, "amd/rocprof-v1/hpctrain-laplacian_results.stats.csv"),
                       (14, "nvidia/h200-cupti/prof-cupti-682-launch.pcupti"),
                       (18, "xla/jax0.11_mlp_h200.xplane.pb")]:
    path = os.path.join(fx, fixture)
    if os.path.exists(path):
        data = open(path, "rb").read()
        open(os.path.join(door, f"seed_{index}_" + os.path.basename(fixture)), "wb").write(bytes([index]) + data)
walk = os.path.join(root, "door_walk"); os.makedirs(walk, exist_ok=True)
xplane = open(os.path.join(fx, "xla/jax0.11_mlp_h200.xplane.pb"), "rb").read()[:255]
tree = bytes([0, 0, 0, 0, 0, 1, 1, 0, 0, 2, 2, 0, 3, 3, 3, len(xplane)]) + xplane
open(os.path.join(walk, "seed_tensorboard"), "wb").write(tree)
link = tree + bytes([2, 29, 3, 1])  # a link inside the run back to plugins/: a loop
open(os.path.join(walk, "seed_loop"), "wb").write(link)
PY
echo "seeded $(find "$here/corpus" -type f | wc -l) files into $here/corpus"
