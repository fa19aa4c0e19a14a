use super::*;
use crate::ncu_pages::parse_details;
use crate::ncu_report::merge;
use crate::test_fixtures::fixture;

fn console(path: &str) -> Vec<DetailsLaunch> {
    parse_console(&fixture(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn rule_count(launches: &[DetailsLaunch]) -> usize {
    launches.iter().map(|l| l.rules.len()).sum()
}

#[test]
fn console_and_csv_of_one_report_agree() {
    // nvjet-console.txt is `ncu --import` of the same .ncu-rep as nvjet-details.csv.
    let text = console("h200-ncu/nvjet-console.txt");
    let csv = parse_details(&fixture("h200-ncu/nvjet-details.csv")).unwrap();
    assert_eq!(text.len(), 3);
    for (from_text, from_csv) in text.iter().zip(&csv) {
        assert_eq!(from_text.launch.kernel, from_csv.launch.kernel);
        assert_eq!(from_text.launch.id, from_csv.launch.id);
        assert_eq!(from_text.launch.grid_size, from_csv.launch.grid_size);
        assert_eq!(from_text.launch.block_size, from_csv.launch.block_size);
        assert_eq!(from_text.launch.compute_capability, from_csv.launch.compute_capability);
        assert_eq!((from_text.launch.device, from_text.launch.process_id), (Some(0), Some(691)));
        assert_eq!(from_text.metrics, from_csv.metrics, "launch {}", from_csv.launch.id);
        assert_eq!(from_text.rules.len(), from_csv.rules.len());
        for (a, b) in from_text.rules.iter().zip(&from_csv.rules) {
            assert_eq!(
                (a.kind.as_str(), a.speedup_pct, a.speedup_kind.as_deref()),
                (b.kind.as_str(), b.speedup_pct, b.speedup_kind.as_deref())
            );
            assert_eq!(a.message, b.message, "the wrapped lines join back into the CSV's one-line message");
        }
    }
    assert_eq!(text[0].rules[2].section, "Compute Workload Analysis");
    let from_text = merge(text, Vec::new()).unwrap();
    let from_csv = merge(csv, Vec::new()).unwrap();
    for (a, b) in from_text.iter().zip(&from_csv) {
        assert_eq!(a.report.duration_ns, b.report.duration_ns);
        assert_eq!(a.report.verdict, b.report.verdict);
        assert_eq!(a.report.occupancy, b.report.occupancy);
    }
    assert_eq!(console("h200-ncu/norm-softmax-console.txt").len(), 2);
}

#[test]
fn ncu_2022_console_with_shifted_rows() {
    let launches = console("ncu/cudatraining_rtx3070_ncu2022_reductions-a-8M.txt");
    // Three kernel lines; six WRN/INF paragraphs (`grep -cE '^ +(OPT|WRN|INF) '`).
    assert_eq!(launches.len(), 3);
    assert_eq!(rule_count(&launches), 6);
    assert_eq!(launches[0].launch.kernel, "atomic_red(const float *, float *)");
    assert_eq!(launches[1].launch.kernel, "reduce_a(float *, float *)");
    assert_eq!(launches[0].launch.process_name.as_deref(), Some("reductions"));
    let kernels = merge(launches, Vec::new()).unwrap();
    let atomic = &kernels[0].report;
    // Duration 30.51 msecond, Compute (SM) [%] 0.88, Memory [%] 2.07, Achieved 80.71 of 100 %.
    assert_eq!(atomic.duration_ns, Some(30_510_000.0));
    assert_eq!((atomic.compute_throughput_pct, atomic.memory_throughput_pct), (Some(0.88), Some(2.07)));
    let occupancy = atomic.occupancy.as_ref().unwrap();
    assert_eq!(
        (occupancy.achieved_pct, occupancy.theoretical_pct, occupancy.limiter.as_deref()),
        (Some(80.71), Some(100.0), None)
    );
    assert_eq!(atomic.findings.len(), 2);
    assert_eq!(atomic.findings[0].rule, "GPU Speed Of Light Throughput");
    assert!(atomic.findings[0].message.starts_with("This kernel exhibits low compute throughput and memory bandwidth"));
    assert!(atomic.findings[0]
        .message
        .ends_with("Look at Scheduler Statistics and Warp State Statistics for potential reasons."));
    // reduce_a: Memory [%] 79.55 ≥ 60 → memory-bound.
    assert!(kernels[1]
        .report
        .verdict
        .as_deref()
        .unwrap()
        .starts_with("memory-bound: memory at 79.5 % of peak (DRAM 79.5 %)"));
}

#[test]
fn pascal_era_console() {
    let launches = console("ncu/cudatraining_tesla-p40_ncu-old_vector_add_160b_1024t.txt");
    assert_eq!(launches.len(), 1);
    assert_eq!(launches[0].launch.kernel, "vadd(float const *,float const *,float*,int)");
    assert_eq!(launches[0].launch.process_id, Some(278_022));
    // 10 SOL rows and 6 Memory Workload Analysis rows.
    assert_eq!(launches[0].metrics.len(), 16);
    let report = &merge(launches, Vec::new()).unwrap()[0];
    // Duration 1.67 msecond; SM [%] 9.61; Memory [%] 82.65; SOL FB 82.65.
    assert_eq!(report.report.duration_ns, Some(1_670_000.0));
    assert_eq!((report.report.compute_throughput_pct, report.report.memory_throughput_pct), (Some(9.61), Some(82.65)));
    assert_eq!(report.dram_throughput_pct, Some(82.65));
    assert_eq!(
        report.report.verdict.as_deref(),
        Some("memory-bound: memory at 82.7 % of peak (DRAM 82.7 %), compute at 9.6 %")
    );
}

#[test]
fn ncu_2024_console_with_header_rows_and_speedups() {
    let launches = console("ncu/ipaco_rtx3050ti-laptop_ncu-default_gemm.txt");
    assert_eq!(launches.len(), 1);
    let launch = &launches[0].launch;
    assert_eq!(launch.kernel, "gemm_kernel(int, int, int, float, float, float *, float *, float *)");
    assert_eq!((launch.grid_size.as_deref(), launch.block_size.as_deref()), (Some("(16, 64, 1)"), Some("(32, 8, 1)")));
    assert_eq!((launch.device, launch.compute_capability.as_deref()), (Some(0), Some("8.6")));
    let report = &merge(launches, Vec::new()).unwrap()[0].report;
    // Duration 2.57 ms; Compute (SM) 67.65; Memory 67.65; Achieved 97.66 of 100 %.
    assert_eq!(report.duration_ns, Some(2_570_000.0));
    assert_eq!((report.compute_throughput_pct, report.memory_throughput_pct), (Some(67.65), Some(67.65)));
    assert_eq!(report.findings.len(), 3);
    assert_eq!(report.findings[0].estimated_speedup_pct, Some(93.82));
    assert_eq!(report.findings[0].rule, "Compute Workload Analysis");
    assert!(report.findings[0].message.starts_with("All compute pipelines are under-utilized."));
    assert!(report.findings[1].message.starts_with("Compute and Memory are well-balanced:"));
    let full = console("ncu/ipaco_rtx3050ti-laptop_ncu-full_2mm_tensor.txt");
    assert_eq!((full.len(), rule_count(&full)), (6, 47));
    assert_eq!(full[3].launch.kernel, "wmma_kernel1(int, int, int, float, const __half *, const __half *, float *)");
    let durations: Vec<Option<f64>> = merge(full, Vec::new()).unwrap().iter().map(|k| k.report.duration_ns).collect();
    // 44.99 us, 44.70 us, 44.93 us, 1.25 ms, 44.61 us, 1.25 ms (`grep Duration`).
    let expected = [44_990.0, 44_700.0, 44_930.0, 1_250_000.0, 44_610.0, 1_250_000.0];
    for (got, want) in durations.iter().zip(expected) {
        assert!(got.is_some_and(|g| (g - want).abs() < 1e-6), "{got:?} {want}");
    }
    let three = console("ncu/ipaco_rtx3050ti-laptop_ncu-default_3mm.txt");
    assert_eq!((three.len(), rule_count(&three)), (3, 9));
}

#[test]
fn metrics_table_without_sections_of_note() {
    let launches = console("ncu/cudatraining_hw8_ncu-metrics_task1b.txt");
    assert_eq!(launches.len(), 1);
    assert_eq!(launches[0].metrics.len(), 8);
    let first = &launches[0].metrics[0];
    assert_eq!(first.section, "Command line profiler metrics");
    assert_eq!(first.name, "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio");
    assert_eq!((first.unit.as_str(), first.text.as_str()), ("sector/request", "8"));
    assert_eq!(launches[0].metrics[3].value.as_ref().map(|q| q.value), Some(524_288.0));
    assert_eq!(merge(launches, Vec::new()).unwrap()[0].report.verdict, None);
}

#[test]
fn console_detection_and_bad_input() {
    assert!(looks_like_console(&fixture("ncu/ipaco_rtx3050ti-laptop_ncu-default_gemm.txt")));
    assert!(!looks_like_console(&fixture("h200-ncu/nvjet-details.csv")));
    assert!(!looks_like_console(&fixture("h200-ncu/no-kernels.log")));
    let err = parse_console("==PROF== Disconnected from process 1\n").unwrap_err().to_string();
    assert_eq!(
        err,
        "ncu console output: unexpected output at line 1: no profiled launch found (no `[pid] process@host` line \
         followed by a kernel line)"
    );
    let text = fixture("ncu/ipaco_rtx3050ti-laptop_ncu-default_gemm.txt");
    let cut = text.replacen("    DRAM Frequency                  Ghz         5.00", "    DRAM Frequency   Ghz", 1);
    let err = parse_console(&cut).unwrap_err().to_string();
    assert_eq!(
        err,
        "ncu console output: unexpected output at line 16: a table row shorter than its columns: `DRAM Frequency   Ghz`"
    );
    let no_context = text.replacen(", Context 1, Stream 7", " Stream 7", 1);
    let err = parse_console(&no_context).unwrap_err().to_string();
    assert!(err.contains("line 11: expected a kernel line with `, Context`"), "{err}");
}

#[test]
fn a_negative_console_duration_names_its_line() {
    let text = fixture("h200-ncu/norm-softmax-console.txt");
    let line = text.lines().position(|l| l.trim_start().starts_with("Duration ")).unwrap() + 1;
    let row = text.lines().nth(line - 1).unwrap();
    let value = row.split_whitespace().last().unwrap();
    let negative = format!("{}-{value}", &row[..row.len() - value.len() - 1]);
    let edited = text.replacen(row, &negative, 1);
    let err = parse_console(&edited).unwrap_err().to_string();
    assert!(err.contains(&format!("line {line}: the time `Duration`")), "{err}");
}
