use super::*;
use crate::test_fixtures::{fixture, fixture_path, TempDir};
use prof_core::Severity;
use std::time::Duration;

const SDK: &str = "rocprofv3/sdk1.0_counter_collection.csv";
const ISSUE57: &str = "rocprofv3/issue57-rocm6.4_counter_collection.csv";

fn request(out: &Path) -> DeepDiveRequest {
    DeepDiveRequest {
        command: vec![os("./app"), os("--size"), os("1024")],
        kernel_regex: "divide_kernel".to_owned(),
        launch_skip: 2,
        launch_count: 3,
        out_dir: out.to_path_buf(),
        timeout: Duration::from_secs(90),
    }
}

fn strings(argv: &[OsString]) -> Vec<String> {
    argv.iter().map(|a| a.to_string_lossy().into_owned()).collect()
}

#[test]
fn loads_the_sdk_recording_into_one_report_per_dispatch() {
    // python csv: 4 dispatches, End-Start 52151/49780/46818/48151 ns, SQ_WAVES 16384.0 each.
    let tool = Rocprofv3CounterTool::new();
    let launches = tool.load_kernels(&[fixture_path(SDK)]).unwrap();
    assert_eq!(launches.len(), 4);
    let durations: Vec<f64> = launches.iter().filter_map(|l| l.report.duration_ns).collect();
    assert_eq!(durations, [52151.0, 49780.0, 46818.0, 48151.0]);
    let first = &launches[0];
    assert_eq!(first.waves, Some(16384.0));
    assert_eq!(first.dispatch_ids, [1]);
    assert_eq!((first.grid_size, first.workgroup_size, first.vgpr_count), (Some(1048576), Some(64), Some(8)));
    assert_eq!((first.gpu_busy_pct, first.memory_bytes, first.memory_gb_per_s), (None, None, None));
    assert_eq!(first.report.device, None, "Agent_Id is an HSA agent, not a GPU index");
    assert_eq!(first.report.roofline, None);
    assert_eq!(first.report.compute_throughput_pct, None);
    let missing: Vec<&str> = first
        .report
        .findings
        .iter()
        .filter(|f| f.rule == "rocprofv3-counters/missing")
        .filter_map(|f| f.message.split_whitespace().next())
        .collect();
    assert_eq!(missing, ["GRBM_GUI_ACTIVE", "GRBM_COUNT", "FETCH_SIZE", "WRITE_SIZE"]);
    assert!(first.report.findings.iter().all(|f| f.severity == Severity::Info));
    let verdict = first.report.verdict.as_deref().unwrap();
    assert!(verdict.starts_with("52.2 µs, 16384 waves;"), "{verdict}");
    assert!(verdict.contains("not decidable"), "{verdict}");
    let reports = tool.load(&[fixture_path(SDK)]).unwrap();
    assert_eq!(reports[3].kernel, "divide_kernel(float*, float const*, float const*, int, int)");
}

#[test]
fn passes_pair_up_launch_by_launch_and_derive_busy_traffic_and_bound() {
    // Two passes built from the fixture's header and first row (logic test of the derivations):
    // busy = 100 * 250 / 1000 = 25 %; traffic = (3 + 1) KB * 1024 = 4096 B over 52151 ns.
    let text = fixture(SDK);
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let row = lines.next().unwrap();
    let with = |pairs: &[(&str, &str)]| {
        let rows: Vec<String> =
            pairs.iter().map(|(n, v)| row.replace("\"SQ_WAVES\",16384.000000", &format!("\"{n}\",{v}"))).collect();
        format!("{header}\n{}\n", rows.join("\n"))
    };
    let tmp = TempDir::new("dd-passes");
    let one = tmp.file(
        "rocprofv3-pmc-1/pass_1/prof_counter_collection.csv",
        &with(&[("GRBM_COUNT", "1000"), ("GRBM_GUI_ACTIVE", "250"), ("VALUBusy", "10")]),
    );
    let two = tmp.file(
        "rocprofv3-pmc-2/prof_counter_collection.csv",
        &with(&[("FETCH_SIZE", "3"), ("WRITE_SIZE", "1"), ("MemUnitBusy", "60")]),
    );
    let dirs = [one.parent().unwrap().parent().unwrap().to_path_buf(), two.parent().unwrap().to_path_buf()];
    let launches = Rocprofv3CounterTool::new().load_kernels(&dirs).unwrap();
    assert_eq!(launches.len(), 1);
    let launch = &launches[0];
    assert_eq!(launch.dispatch_ids, [1, 1]);
    assert_eq!(launch.gpu_busy_pct, Some(25.0));
    assert_eq!(launch.memory_bytes, Some(4096.0));
    assert_eq!(launch.memory_gb_per_s, Some(4096.0 / 52151.0));
    assert_eq!(launch.counters.len(), 6);
    assert_eq!(launch.report.memory_throughput_pct, Some(60.0));
    assert!(launch.report.verdict.as_deref().unwrap().contains("memory-bound (MemUnitBusy 60.0% > VALUBusy 10.0%)"));
    let busy = launch.report.findings.iter().find(|f| f.rule == "rocprofv3-counters/gpu-busy").unwrap();
    assert!(busy.message.contains("25.0%"), "{}", busy.message);
    let missing: Vec<&str> = launch
        .report
        .findings
        .iter()
        .filter(|f| f.rule == "rocprofv3-counters/missing")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert!(missing[0].starts_with("SQ_WAVES is not in the recording"), "{missing:?}");
}

#[test]
fn bad_artifacts_are_errors_naming_the_file_and_line() {
    let tmp = TempDir::new("dd-bad");
    let empty_dir = tmp.path().join("rocprofv3-pmc-1");
    std::fs::create_dir_all(&empty_dir).unwrap();
    tmp.file("rocprofv3-pmc-1/prof_agent_info.csv", "\"Node_Id\"\n0\n");
    let error = Rocprofv3CounterTool::new().load(std::slice::from_ref(&empty_dir)).unwrap_err().to_string();
    assert!(error.contains("rocprofv3-pmc-1") && error.contains("_counter_collection.csv"), "{error}");
    let broken = tmp.file("x_counter_collection.csv", &fixture(SDK).replacen("\"Dispatch_Id\"", "\"Id\"", 1));
    let error = Rocprofv3CounterTool::new().load(&[broken]).unwrap_err().to_string();
    assert!(error.contains("x_counter_collection.csv") && error.contains("Dispatch_Id"), "{error}");
    assert!(error.contains("line 1") || error.contains(":1"), "{error}");
    let header_only = tmp.file("h_counter_collection.csv", fixture(SDK).lines().next().unwrap());
    assert!(Rocprofv3CounterTool::new().load(&[header_only]).is_err());
    let missing = tmp.path().join("absent_counter_collection.csv");
    assert!(Rocprofv3CounterTool::new().load(&[missing]).is_err());
}

#[test]
fn plans_one_rocprofv3_run_per_pass_with_the_documented_flags() {
    let tmp = TempDir::new("dd-plan");
    let program = tmp.program("rocm-7.0.0/bin/rocprofv3", "#!/bin/sh\n");
    let tool = Rocprofv3CounterTool::new().with_program(&program);
    let out = tmp.path().join("out");
    let plan = tool.plan(&request(&out)).unwrap();
    assert_eq!(plan.steps.len(), 2);
    let dir1 = out.join("rocprofv3-pmc-1").display().to_string();
    let expected = [
        program.display().to_string().as_str(),
        "--pmc",
        "SQ_WAVES",
        "GRBM_COUNT",
        "GRBM_GUI_ACTIVE",
        "--kernel-include-regex",
        "divide_kernel",
        "--kernel-iteration-range",
        "[3-5]",
        "--output-format",
        "csv",
        "-d",
        dir1.as_str(),
        "-o",
        "prof",
        "--",
        "./app",
        "--size",
        "1024",
    ]
    .map(str::to_owned);
    assert_eq!(strings(&plan.steps[0].argv), expected);
    let second = strings(&plan.steps[1].argv);
    assert_eq!(second[1..4], ["--pmc", "FETCH_SIZE", "WRITE_SIZE"].map(str::to_owned));
    assert_eq!(plan.steps[1].log, out.join("rocprofv3-pmc-2.log"));
    assert_eq!(plan.steps[0].timeout, Some(Duration::from_secs(90)));
    let artifacts: Vec<&Path> = plan.artifacts.iter().map(|a| a.path.as_path()).collect();
    assert_eq!(artifacts, [out.join("rocprofv3-pmc-1"), out.join("rocprofv3-pmc-2")]);
}

#[test]
fn plan_rejects_requests_it_cannot_run() {
    let tmp = TempDir::new("dd-reject");
    let program = tmp.program("bin/rocprofv3", "#!/bin/sh\n");
    let tool = Rocprofv3CounterTool::new().with_program(&program);
    let out = tmp.path().join("out");
    let mut no_regex = request(&out);
    no_regex.kernel_regex.clear();
    assert!(tool.plan(&no_regex).is_err());
    let mut no_launch = request(&out);
    no_launch.launch_count = 0;
    assert!(tool.plan(&no_launch).is_err());
    let mut no_command = request(&out);
    no_command.command.clear();
    assert!(tool.plan(&no_command).is_err());
    assert!(tool.clone().with_passes(vec![vec![]]).plan(&request(&out)).is_err());
}

#[test]
fn iteration_range_is_one_based_and_inclusive() {
    assert_eq!(iteration_range(0, 1), "[1]");
    assert_eq!(iteration_range(0, 2), "[1-2]");
    assert_eq!(iteration_range(2, 3), "[3-5]");
}

#[test]
fn missing_rocprofv3_carries_the_install_line() {
    let tmp = TempDir::new("dd-missing");
    let paths = SearchPaths { program_dirs: vec![tmp.path().join("bin")], library_dirs: vec![] };
    let tool = Rocprofv3CounterTool::new().with_program(tmp.path().join("nope"));
    match tool.check() {
        Err(Error::ToolMissing { tool, install }) => {
            assert_eq!(tool, "rocprofv3");
            assert_eq!(install, tools::INSTALL_ROCPROFV3);
        }
        other => panic!("expected ToolMissing, got {other:?}"),
    }
    let searched = Rocprofv3CounterTool::new().with_search_paths(paths.clone());
    if prof_core::tools::find_program("rocprofv3", &paths.program_dirs).is_none() {
        assert!(searched.check().is_err());
    }
    let found = tmp.program("bin/rocprofv3", "#!/bin/sh\n");
    assert_eq!(Rocprofv3CounterTool::new().with_program(&found).program().unwrap(), found);
}

#[test]
fn recognizes_counter_csvs_and_their_directories_only() {
    let tool = Rocprofv3CounterTool::new();
    assert!(tool.recognizes(&fixture_path(SDK)));
    assert!(!tool.recognizes(&fixture_path("rocprofv3/hpctrain-jacobi_kernel_stats.csv")));
    let tmp = TempDir::new("dd-recognize");
    tmp.file("run/host/pass_1/p_counter_collection.csv", &fixture(SDK));
    assert!(tool.recognizes(&tmp.path().join("run")));
    let renamed = tmp.file("counters.csv", &fixture(SDK));
    assert!(tool.recognizes(&renamed), "recognized by header");
    let other = tmp.file("other.csv", "\"Name\",\"Calls\"\n");
    assert!(!tool.recognizes(&other));
    assert!(!tool.recognizes(&tmp.path().join("empty-dir-that-does-not-exist")));
}

#[test]
fn explain_failure_names_the_pass_without_counters_with_its_log_tail() {
    let tmp = TempDir::new("dd-explain");
    let tool = Rocprofv3CounterTool::new();
    tmp.file("rocprofv3-pmc-1/pass_1/prof_counter_collection.csv", &fixture(SDK));
    tmp.file("rocprofv3-pmc-2.log", "starting\nsomething went wrong here\n");
    let text = tool.explain_failure(tmp.path()).unwrap();
    assert!(text.starts_with("counters pass 2 (FETCH_SIZE WRITE_SIZE): rocprofv3 wrote no"), "{text}");
    assert!(text.contains("    something went wrong here"), "{text}");
    assert!(!text.contains("pass 1 "), "{text}");
    tmp.file("rocprofv3-pmc-2/prof_counter_collection.csv", &fixture(SDK));
    assert_eq!(tool.explain_failure(tmp.path()), None);
    let fresh = TempDir::new("dd-explain-empty");
    assert!(tool.explain_failure(fresh.path()).unwrap().contains("(log empty or missing)"));
}

#[test]
fn issue57_recording_integer_agent_and_all_zero_counters() {
    // python csv on the fixture: 2 dispatches, Agent_Id "1" (integer form of ROCm 6.4),
    // MemUnitBusy 0.0 for both, End-Start 6080 and 101359039 ns, the second with
    // LDS_Block_Size 2048, Scratch_Size 1024, VGPR_Count 48, SGPR_Count 128.
    let launches = Rocprofv3CounterTool::new().load_kernels(&[fixture_path(ISSUE57)]).unwrap();
    assert_eq!(launches.len(), 2);
    let matmul = &launches[1];
    assert_eq!(
        matmul.report.kernel,
        "void matrix_multiplication_kernel<16u>(float const*, float const*, float*, unsigned int)"
    );
    assert_eq!(matmul.report.duration_ns, Some(101359039.0));
    assert_eq!(matmul.agent.as_deref(), Some("1"));
    assert_eq!((matmul.lds_block_size, matmul.scratch_size), (Some(2048), Some(1024)));
    assert_eq!((matmul.vgpr_count, matmul.sgpr_count), (Some(48), Some(128)));
    assert_eq!(matmul.report.memory_throughput_pct, Some(0.0));
    let zero = matmul.report.findings.iter().find(|f| f.rule == "rocprofv3-counters/all-zero").unwrap();
    assert_eq!(zero.severity, Severity::Warning);
    assert!(zero.message.contains("101359.0 µs"), "{}", zero.message);
    assert!(matmul.report.verdict.as_deref().unwrap().contains("not decidable"));
    let sdk = Rocprofv3CounterTool::new().load_kernels(&[fixture_path(SDK)]).unwrap();
    assert!(sdk[0].report.findings.iter().all(|f| f.rule != "rocprofv3-counters/all-zero"));
}
