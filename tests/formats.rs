//! The formats users have, through the one door (`prof analyze PATH`): each real sample of
//! tests/fixtures/*/SOURCES.md read end to end, its numbers checked against python's own
//! reading of the same file (noted beside each case), and what prof cannot read refused with
//! what the path looked like and what prof reads instead.

#[path = "support/mod.rs"]
mod support;

use serde_json::Value;
use support::{fixture_arg, fixtures, prof, scratch_dir};

/// `prof analyze --phase all --json PATH`: the document, or a panic with stderr.
fn analyze(path: &str) -> Value {
    let out = prof(&["analyze", "--phase", "all", "--json", path]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{path}: {stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{path}: bad JSON: {e}"))
}

/// Summed device time of every op, and the op count.
fn totals(doc: &Value) -> (u64, u64) {
    (doc["summary"]["device_ns"].as_u64().unwrap(), doc["summary"]["ops"].as_u64().unwrap())
}

#[test]
fn a_gzipped_nsys_export_is_read_as_it_is_attached() {
    // python sqlite3 on the unzipped file: 27,829 kernels + 793 copies + 10 sets, 60,967,671 ns.
    let doc = analyze(&fixture_arg("nvidia/nsys/sqlite/h100-decode-window_nsys2025.3.2_schema3.20.3.sqlite.gz"));
    assert_eq!(totals(&doc), (60_967_671, 28_632));
    assert_eq!(doc["format"]["name"], "nsys-sqlite", "{}", doc["format"]);
}

#[test]
fn an_old_pytorch_trace_is_not_empty() {
    // python: 8772 `Kernel` + 312 `Memset` + 12 `Memcpy` complete events.
    let doc = analyze(&fixture_arg("nvidia/torch/kineto_pt19_resnet50_worker0.1623143089861.pt.trace.json.gz"));
    assert_eq!(totals(&doc).1, 9096);
}

#[test]
fn a_tensorboard_directory_of_ranks_is_a_rank_job() {
    let out = prof(&["analyze", "--json", &fixture_arg("nvidia/torch/tb_dlrm_kineto_8ranks")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "prof.ranks.v1");
    let ranks: Vec<u64> = doc["ranks"].as_array().unwrap().iter().map(|r| r["rank"].as_u64().unwrap()).collect();
    assert_eq!(ranks, (0..8).collect::<Vec<_>>());
    assert_eq!(doc["missing_ranks"], serde_json::json!([]));
    assert!(doc["ranks"].as_array().unwrap().iter().all(|r| r["error"].is_null()), "{doc}");
}

/// The real thing, recorded on the H200 (PyTorch 2.11): two ranks' `tensorboard_trace_handler`
/// files in one directory, named `<host>_<pid>.<ts>`. python on the files: rank 0's GEMM
/// kernels 2022.722 µs, rank 1's 3986.896 µs.
#[test]
fn a_real_tensorboard_directory_of_two_ranks() {
    let out = prof(&["analyze", "--json", &fixture_arg("nvidia/h200-tensorboard")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tops: Vec<(u64, u64)> = doc["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["rank"].as_u64().unwrap(), r["top_kernel"]["total_ns"].as_u64().unwrap()))
        .collect();
    assert_eq!(tops, [(0, 2_022_722), (1, 3_986_896)]);
}

#[test]
fn a_directory_with_one_trace_is_read_as_that_trace() {
    let dir = scratch_dir("formats-one-trace");
    let name = "worker3_step_12.1694128201557.pt.trace.json.gz";
    std::fs::copy(fixtures().join("nvidia/torch/tb_dlrm_kineto_8ranks").join(name), dir.join(name)).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a trace").unwrap();
    let doc = analyze(dir.to_str().unwrap());
    assert_eq!(doc["schema"], "prof.breakdown.v1");
    let format = &doc["format"];
    assert_eq!((format["vendor"].as_str(), format["name"].as_str()), (Some("NVIDIA"), Some("torch-trace")));
    assert!(format["inner"].as_str().unwrap().ends_with(name), "{format}");
    assert!(format["reason"].as_str().unwrap().starts_with("the only artifact in the directory: "), "{format}");
    // python: rank 3 has 315 kernel events.
    let kernels: u64 = doc["summary"]["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| matches!(k["kind"].as_str(), Some("kernel" | "communication")))
        .map(|k| k["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(kernels, 315);
}

#[test]
fn older_nsys_exports_and_rocprof_formats_read_with_their_own_numbers() {
    let cases = [
        // python sqlite3: kernels 8,002,635 + memcpy 3,280,901 + memset 31,808 ns; 505 + 6 + 5 ops.
        ("nvidia/nsys/sqlite/hw5helper_nsys2022.1.3_schema2.9.1_EXPORT_META_DATA_report1.sqlite", (11_315_344, 516)),
        // python sqlite3 on the rocpd view / csv on the same run's trace: 8292 + 5528 + 5488 ns.
        ("amd/rocpd/CONSTRUCTED_vcopy_MI300A_rocpd_schema3.db", (19_308, 3)),
        ("amd/rocprofv3-json/vcopy_MI300A_ps_file_results.REDUCED.json", (19_308, 3)),
        // python csv: 20640 + 15520 + 16480 ns (a workload directory holding one timestamps.csv).
        ("amd/rocprof-compute/device_filter_MI200", (52_640, 3)),
        // python json, EndNs - BeginNs by lane name: GPU0 12 events 1,644,640 ns + COPY 30 events
        // 7,989,458 ns (the CPU HIP API and roctx lanes are host time).
        ("amd/rocprof-v1/kokkos2021_results.json", (9_634_098, 42)),
        // python json, every node with a device_type metric: 10 kernel nodes, count 100,000,
        // time (ns) 7,836,298,761 (a Triton Proton profile).
        ("nvidia/proton/triton_matmul_tutorial_b200_sm100_proton.hatchet", (7_836_298_761, 100_000)),
        // python csv: task_time 7 rows, 4 of them the runtime's (PROFILING_*, TASK_TIMEOUT_SET,
        // EVENT_RECORD: not device work); the 3 `main_kernel` tasks, 249,611.26 µs.
        ("ascend/neo-pan_tilelang_msprof/PROF_000001_20260605155111872_JDEKRCNERPBNJEGA", (249_611_260, 3)),
    ];
    for (path, expected) in cases {
        let doc = analyze(&fixture_arg(path));
        assert_eq!(totals(&doc), expected, "{path}");
    }
}

#[test]
fn a_rocprof_v1_results_directory_reads_its_trace_else_kernel_and_copy_stats() {
    let dir = scratch_dir("formats-rocprof-v1");
    let v1 = fixtures().join("amd/rocprof-v1");
    for name in ["kokkos2021_results.json", "kokkos2021_results.stats.csv", "kokkos2021_results.hip_stats.csv"] {
        std::fs::copy(v1.join(name), dir.join(name.replace("kokkos2021_", ""))).unwrap();
    }
    let doc = analyze(dir.to_str().unwrap());
    assert_eq!(doc["format"]["name"], "rocprof-v1-json", "{}", doc["format"]);
    assert_eq!(totals(&doc), (9_634_098, 42));
    // Without the trace: the kernel stats (python: 8 rows, 1,644,640 ns); the HIP API stats beside
    // them are host time and stay out.
    std::fs::remove_file(dir.join("results.json")).unwrap();
    let doc = analyze(dir.to_str().unwrap());
    assert_eq!(doc["format"]["name"], "rocprof-kernel-stats", "{}", doc["format"]);
    assert_eq!(doc["summary"]["device_ns"].as_u64(), Some(1_644_640));
    let out = prof(&["analyze", dir.join("results.hip_stats.csv").to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("host time per API call, not device time"), "{stderr}");
}

#[test]
fn a_trace_says_which_accelerator_recorded_it_and_what_it_did_not_read() {
    // python json on each file: deviceProperties[0].name; kernel + gpu_memcpy + gpu_memset
    // complete events and their summed dur.
    let mi300x = analyze(&fixture_arg("nvidia/torch/tracelens_mi300x_torch_compile_triton_rocm7.2.json.gz"));
    assert_eq!(mi300x["recorded_on"], "AMD Instinct MI300X");
    assert_eq!(totals(&mi300x), (12_549_021, 12));
    let mi250 = analyze(&fixture_arg("nvidia/torch/hta_mi250_minitoy_train_ROCm6_2_kineto.json.gz"));
    assert_eq!(mi250["recorded_on"], "AMD Radeon Graphics");
    assert_eq!(totals(&mi250), (149_042, 16));
    let mtia_path = fixture_arg("nvidia/torch/hta_mtia_inference_rank_0.json.gz");
    let mtia = analyze(&mtia_path);
    assert_eq!(mtia["recorded_on"], "MTIA (ARTEMIS)");
    assert_eq!(mtia["unread"][0], serde_json::json!(["mtia_ccp_events", 1313]), "{}", mtia["unread"]);
    assert_eq!(mtia["unread"][1], serde_json::json!(["mtia_runtime", 823]));
    let headline = mtia["answer"]["headline"].as_str().unwrap();
    assert!(headline.contains("no device op prof reads (recorded on MTIA (ARTEMIS))"), "{headline}");
    assert!(!headline.contains("recorded the host only"), "{headline}");
    let text = String::from_utf8(prof(&["analyze", &mtia_path]).stdout).unwrap();
    assert!(text.contains("read as: torch-trace (recorded on MTIA (ARTEMIS))"), "{text}");
    assert!(text.contains("not read: mtia_ccp_events 1313, mtia_runtime 823\n"), "{text}");
    assert!(mi300x.get("unread").is_none(), "Kineto's own Trace span is not unread work: {}", mi300x["unread"]);
}

#[test]
fn a_gzip_stream_of_a_format_prof_reads_is_read_whatever_its_inner_name() {
    // A rocprofv3 JSON gzipped by hand (`gzip` keeps the inner name `908_results.json`, which
    // names no format): read through an unzipped copy, with the numbers of the plain file.
    let dir = scratch_dir("formats-gzip-inner");
    let inner = dir.join("908_results.json");
    std::fs::copy(fixtures().join("amd/rocprofv3-json/vcopy_MI300A_ps_file_results.REDUCED.json"), &inner).unwrap();
    let gz = std::process::Command::new("gzip").arg("-c").arg(&inner).output().unwrap();
    assert!(gz.status.success());
    let path = dir.join("trace.gz");
    std::fs::write(&path, gz.stdout).unwrap();
    std::fs::remove_file(&inner).unwrap();
    let doc = analyze(path.to_str().unwrap());
    assert_eq!(doc["format"]["name"], "rocprofv3-json", "{}", doc["format"]);
    assert!(doc["format"]["reason"].as_str().unwrap().starts_with("a gzip stream of"), "{}", doc["format"]);
    assert_eq!(totals(&doc), (19_308, 3));
    assert_eq!(doc["source"], path.to_str().unwrap(), "the report names the file given, not the copy");
}

#[test]
fn an_op_statistic_only_tree_is_read_at_its_root() {
    let root = scratch_dir("formats-op-statistic");
    let inner = root.join("PROF_1/mindstudio_profiler_output");
    std::fs::create_dir_all(&inner).unwrap();
    let source = fixtures().join(
        "ascend/neo-pan_tilelang_msprof/PROF_000001_20260605155111872_JDEKRCNERPBNJEGA/mindstudio_profiler_output/op_statistic_20260605155140.csv",
    );
    std::fs::copy(&source, inner.join("op_statistic_20260605155140.csv")).unwrap();
    let doc = analyze(root.to_str().unwrap());
    // The file's one row: main_kernel, 3 calls, Total 249604.48 µs.
    let top = &doc["summary"]["kernels"][0];
    assert_eq!(
        (top["name"].as_str(), top["calls"].as_u64(), top["total_ns"].as_u64()),
        (Some("main_kernel"), Some(3), Some(249_604_480))
    );
    assert!(doc["partial"].as_str().unwrap().contains("per-op-type totals from op_statistic only"), "{doc}");
}

#[test]
fn an_unknown_file_says_what_it_is_and_what_prof_reads() {
    let dir = scratch_dir("formats-unknown");
    let path = dir.join("numbers.csv");
    std::fs::write(&path, "a,b\n1,2\n").unwrap();
    let out = prof(&["analyze", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("numbers.csv: not a format prof reads: it is a CSV-like text whose first line is `a,b`"),
        "{stderr}"
    );
    for vendor in ["  NVIDIA: ", "  AMD: ", "  Ascend: "] {
        assert!(stderr.lines().any(|l| l.starts_with(vendor)), "{vendor}: {stderr}");
    }
    assert!(
        stderr.contains("rocpd-sqlite") && stderr.contains("torch-trace") && stderr.contains("ascend-op-table"),
        "{stderr}"
    );
}

#[test]
fn analyze_help_lists_every_reader_from_the_registry() {
    let out = prof(&["analyze", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    let listed = help.split_once("Formats read").map(|(_, list)| list).unwrap_or_else(|| panic!("{help}"));
    for line in ["  prof: prof util CSV", "  NVIDIA: ", "  AMD: ", "  Ascend: "] {
        assert!(listed.lines().any(|l| l.starts_with(line)), "{line}: {help}");
    }
    for reader in ["torch-trace", "nsys-sqlite", "rocpd-sqlite", "rocprofv3-json", "ascend-op-table"] {
        assert!(listed.contains(reader), "{reader}: {help}");
    }
}

/// `--json` documents are bounded: every list keeps its first 100 rows and `truncated` says
/// what was cut; `--json-full` gives every row (the ResNet step has 1516 ops).
#[test]
fn json_is_bounded_unless_asked_in_full() {
    let path = fixture_arg("nvidia/torch/kineto_pt19_resnet50_worker0.1623143089861.pt.trace.json.gz");
    let bounded = prof(&["analyze", "--phase", "all", "--json", &path]);
    let full = prof(&["analyze", "--phase", "all", "--json", "--json-full", &path]);
    assert!(bounded.status.success() && full.status.success());
    assert!(bounded.stdout.len() < 200_000, "{} bytes", bounded.stdout.len());
    let (bounded, full): (Value, Value) =
        (serde_json::from_slice(&bounded.stdout).unwrap(), serde_json::from_slice(&full.stdout).unwrap());
    assert_eq!(bounded["truncated"], serde_json::json!([{ "path": "analyses.layers.ops", "kept": 100, "of": 1516 }]));
    assert_eq!(bounded["analyses"]["layers"]["ops"].as_array().unwrap().len(), 100);
    assert_eq!(full["analyses"]["layers"]["ops"].as_array().unwrap().len(), 1516);
    assert!(full.get("truncated").is_none());
    assert_eq!(bounded["summary"], full["summary"], "the ranked kernels fit whole");
}
