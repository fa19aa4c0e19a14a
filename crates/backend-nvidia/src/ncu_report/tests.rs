use super::*;
use crate::ncu_pages::{parse_details, parse_raw};
use crate::test_fixtures::fixture;

fn details(path: &str) -> Vec<DetailsLaunch> {
    parse_details(&fixture(path)).unwrap()
}

fn raw(path: &str) -> Vec<RawLaunch> {
    parse_raw(&fixture(path)).unwrap()
}

fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
    (actual - expected).abs() <= tolerance
}

fn occupancy(report: &KernelReport) -> (Option<f64>, Option<f64>, Option<&str>) {
    let o = report.occupancy.as_ref().expect("occupancy");
    (o.achieved_pct, o.theoretical_pct, o.limiter.as_deref())
}

#[test]
fn h200_details_page_alone() {
    let kernels = merge(details("h200-probe/ncu-details.csv"), Vec::new()).unwrap();
    assert_eq!(kernels.len(), 7);
    // ID 6, the 4096×4096 bf16 matmul: Duration `175,264` ns, Compute (SM) 90.22 %, Memory 69.76 %,
    // DRAM 13.14 %, Achieved 14.64 %, Theoretical 18.75 %, Block Limit Registers 1 = Shared Mem 1.
    let gemm = &kernels[6];
    let report = &gemm.report;
    assert_eq!(report.kernel, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
    assert_eq!(report.device, Some(0));
    assert_eq!(report.duration_ns, Some(175_264.0));
    assert_eq!((report.compute_throughput_pct, report.memory_throughput_pct), (Some(90.22), Some(69.76)));
    assert_eq!(gemm.dram_throughput_pct, Some(13.14));
    assert_eq!(occupancy(report), (Some(14.64), Some(18.75), Some("registers+shared_memory")));
    assert_eq!(gemm.block_limits.warps, Some(5.0));
    assert_eq!(gemm.block_limits.barriers, Some(21.0));
    assert!(report.stalls.is_empty(), "the details page has no per-reason stall metrics");
    assert_eq!(report.roofline, None);
    assert_eq!(gemm.roofline_note.as_deref(), Some("no raw page: the roofline needs `ncu --csv --page raw`"));
    // Its 6 rule rows: TheoreticalOccupancy 81.25 and CPIStall 30.77 estimate a speedup, the rest not.
    let ranked: Vec<(&str, Option<f64>)> =
        report.findings.iter().map(|f| (f.rule.as_str(), f.estimated_speedup_pct)).collect();
    assert_eq!(
        ranked,
        [
            ("Occupancy/TheoreticalOccupancy", Some(81.25)),
            ("WarpStateStats/CPIStall", Some(30.77)),
            ("SpeedOfLight/SOLBottleneck", None),
            ("WarpStateStats/CPIStall", None),
            ("WarpStateStats/CPIStall", None),
            ("LaunchStats/LaunchConfiguration", None),
        ]
    );
    let severities: Vec<Severity> = report.findings.iter().map(|f| f.severity).collect();
    use Severity::{Info, Opportunity, Warning};
    assert_eq!(severities, [Opportunity, Opportunity, Info, Warning, Info, Opportunity]);
    assert_eq!(
        report.verdict.as_deref(),
        Some(
            "compute-bound: compute at 90.2 % of peak, memory at 69.8 % (DRAM 13.1 %); occupancy limited by \
             registers and shared memory (theoretical 18.8 %, achieved 14.6 %)"
        )
    );
    // ID 0, the SDPA kernel: Compute 17.27 %, Memory 21.85 %, DRAM 19.75 %, 11.77 % of 12.50 %.
    assert_eq!(
        kernels[0].report.verdict.as_deref(),
        Some(
            "latency-bound: neither compute (17.3 %) nor memory (21.9 %, DRAM 19.8 %) reaches 60 % of peak; \
             occupancy limited by registers and shared memory (theoretical 12.5 %, achieved 11.8 %)"
        )
    );
    assert_eq!(kernels[0].report.findings[0].estimated_speedup_pct, Some(87.5));
    // ID 3, softmax: Theoretical Occupancy 100 %, so no limiter; LaunchConfiguration 99.24 leads.
    let softmax = &kernels[3].report;
    assert_eq!(occupancy(softmax), (Some(43.86), Some(100.0), None));
    assert_eq!(softmax.findings[0].rule, "LaunchStats/LaunchConfiguration");
    assert_eq!(softmax.findings[0].estimated_speedup_pct, Some(99.24));
    assert_eq!(softmax.findings[1].estimated_speedup_pct, Some(56.14));
    assert_eq!(softmax.findings[2].estimated_speedup_pct, Some(0.07954));
}

#[test]
fn h200_raw_page_alone() {
    let kernels = merge(Vec::new(), raw("h200-probe/ncu-raw.csv")).unwrap();
    assert_eq!(kernels.len(), 7);
    let first = &kernels[0];
    // gpu__time_duration.sum `8,896` ns; sm__throughput 17.27; dram__throughput 19.78; no
    // gpu__compute_memory_throughput column in this recording; sm__warps_active 11.75, maximum 12.50.
    assert_eq!(first.report.duration_ns, Some(8896.0));
    assert_eq!(first.report.compute_throughput_pct, Some(17.27));
    assert_eq!(first.report.memory_throughput_pct, None);
    assert_eq!(first.dram_throughput_pct, Some(19.78));
    assert_eq!(occupancy(&first.report), (Some(11.75), Some(12.5), Some("registers+shared_memory")));
    assert!(first.report.findings.is_empty(), "the raw page has no rule results");
    assert_eq!(
        first.report.verdict.as_deref(),
        Some(
            "compute at 17.3 % of peak; memory throughput not recorded; occupancy limited by registers and \
             shared memory (theoretical 12.5 %, achieved 11.8 %)"
        )
    );
    assert!(first.roofline_note.as_deref().unwrap().starts_with("the recording lacks "), "{:?}", first.roofline_note);
    assert_eq!(kernels[6].report.duration_ns, Some(174_784.0));
}

#[test]
fn both_pages_of_one_report_gemv_and_gemm() {
    let kernels = merge(details("h200-ncu/nvjet-details.csv"), raw("h200-ncu/nvjet-raw.csv")).unwrap();
    assert_eq!(kernels.len(), 3);
    let gemv = &kernels[0];
    // Details: Duration 11.78 us (the raw page's 11.776 us is not used when details has it).
    assert_eq!(gemv.report.duration_ns, Some(11_780.0));
    assert_eq!((gemv.report.compute_throughput_pct, gemv.report.memory_throughput_pct), (Some(9.68), Some(60.5)));
    // Stall shares of the sum of smsp__average_warps_issue_stalled_* (18.737999 cycles):
    // long_scoreboard 12.885844 → 68.77 %, wait 1.753629 → 9.36 %.
    assert_eq!(gemv.report.stalls.len(), TOP_STALLS_EXPECTED);
    let (reason, share) = &gemv.report.stalls[0];
    assert!(reason == "long_scoreboard" && close(*share, 68.7685, 1e-3), "{reason} {share}");
    assert!(gemv.report.stalls[1].0 == "wait" && close(gemv.report.stalls[1].1, 9.3587, 1e-3));
    assert_eq!(gemv.report.roofline, None);
    let note = gemv.roofline_note.as_deref().unwrap();
    assert!(note.starts_with("tensor pipes active 2.3 % of peak"), "{note}");
    assert_eq!(
        gemv.report.verdict.as_deref(),
        Some(
            "memory-bound: memory at 60.5 % of peak (DRAM 60.5 %), compute at 9.7 %; occupancy limited by \
             registers and shared memory (theoretical 18.8 %, achieved 14.3 %); top stall: long scoreboard 68.8 %"
        )
    );
    // The GEMM: barrier 5.990924 of 19.719962 cycles = 30.38 %, within half a point of ncu's own
    // CPIStall estimate (30.61, which divides by the 19.57 average instead).
    let gemm = &kernels[2].report;
    let (reason, share) = &gemm.stalls[0];
    assert!(reason == "barrier" && close(*share, 30.38, 1e-2), "{reason} {share}");
    let cpi = gemm.findings.iter().find(|f| f.rule == "WarpStateStats/CPIStall" && f.estimated_speedup_pct.is_some());
    assert!(close(cpi.unwrap().estimated_speedup_pct.unwrap(), *share, 0.5));
    // The raw page's tensor pipe: 90.18 % of peak (sm__pipe_tensor_cycles_active…elapsed): at the
    // compute roof, read from the pipe itself rather than from ncu's SM/memory figures.
    assert!(
        gemm.verdict.as_deref().unwrap().starts_with("compute-bound at the pipe's peak: tensor pipe 90.2 %"),
        "{:?}",
        gemm.verdict
    );
    assert_eq!(gemm.limits.as_ref().map(|l| l.bound), Some(prof_core::Bound::ComputeBound));
}

const TOP_STALLS_EXPECTED: usize = 5;

#[test]
fn roofline_of_fp32_kernels() {
    let kernels = merge(details("h200-ncu/norm-softmax-details.csv"), raw("h200-ncu/norm-softmax-raw.csv")).unwrap();
    assert_eq!(kernels.len(), 2);
    // Layer norm, by hand from its raw row: (0.069334 + 0.368345 + 2·0.368794) FLOP/cycle ×
    // 1.963280 GHz = 2.307e9 FLOP/s over 2.983051 GB/s → 0.77350 FLOP/byte; ridge 2·16896 ×
    // 1.963280 GHz ÷ (1504 B × 3.171375 GHz) = 13.9092; 0.0625 % of the DRAM roof there.
    let norm = kernels[0].report.roofline.as_ref().expect("roofline");
    assert!(close(norm.arithmetic_intensity, 0.773496, 1e-5), "{}", norm.arithmetic_intensity);
    assert!(close(norm.ridge_point, 13.909154, 1e-5), "{}", norm.ridge_point);
    assert!(norm.memory_bound);
    assert!(close(norm.achieved_pct_of_bound.unwrap(), 0.062541, 1e-5));
    let softmax = kernels[1].report.roofline.as_ref().expect("roofline");
    assert!(close(softmax.arithmetic_intensity, 5.236129, 1e-5), "{}", softmax.arithmetic_intensity);
    assert!(close(softmax.ridge_point, 13.918194, 1e-5));
    assert!(close(softmax.achieved_pct_of_bound.unwrap(), 0.101392, 1e-5));
    assert_eq!(kernels[0].roofline_note, None);
    // Theoretical occupancy 100 %: no limiter; the stalls lead with long_scoreboard 68.76 %.
    assert_eq!(occupancy(&kernels[0].report), (Some(6.52), Some(100.0), None));
    assert!(close(kernels[0].report.stalls[0].1, 68.7572, 1e-3));
}

#[test]
fn gtx1080_2019_raw_page() {
    let kernels = merge(Vec::new(), raw("ncu/microgpusim_gtx1080_ncu-raw-csv_with-preamble.txt")).unwrap();
    assert_eq!(kernels.len(), 3);
    let first = &kernels[0].report;
    // gpu__time_duration `2,720.00` nsecond; sm__sol_pct 0.09; gpu__compute_memory_sol_pct 3.01,
    // 3.02, 3.02; sm__active_warps_avg_per_active_cycle_pct 28.30; sm__maximum_warps… 100.
    assert_eq!(first.kernel, "vecAdd");
    assert_eq!(first.duration_ns, Some(2720.0));
    assert_eq!(first.compute_throughput_pct, Some(0.09));
    let memory: Vec<Option<f64>> = kernels.iter().map(|k| k.report.memory_throughput_pct).collect();
    assert_eq!(memory, [Some(3.01), Some(3.02), Some(3.02)]);
    assert_eq!(occupancy(first), (Some(28.3), Some(100.0), None));
    assert_eq!(kernels[0].block_limits.warps, Some(2.0));
    // smsp__warp_cycles_per_issue_stall_*: imc_miss 36.16 and misc 33.92 of 94.63 cycles.
    let top: Vec<&str> = first.stalls.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(top, ["imc_miss", "misc", "allocation_stall", "short_scoreboard", "long_scoreboard"]);
    assert!(close(first.stalls[0].1, 38.212, 1e-3) && close(first.stalls[1].1, 35.8449, 1e-3));
    assert!(kernels.iter().all(|k| k.report.stalls.iter().map(|(_, s)| s).sum::<f64>() <= 100.0));
    assert_eq!(first.roofline, None);
    let note = kernels[0].roofline_note.as_deref().unwrap();
    assert_eq!(note, "the recording lacks smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed");
    // launch__grid_size 1, device__attribute_multiprocessor_count 20, 0.03 waves: one block on
    // a 20-SM GTX 1080.
    let verdict = first.verdict.as_deref().unwrap();
    assert!(verdict.starts_with("latency-bound, grid too small: 1 block for 20 SMs (0.03 waves)"), "{verdict}");
}

#[test]
fn pages_of_different_reports_do_not_merge() {
    let err = merge(details("h200-ncu/nvjet-details.csv"), raw("h200-ncu/norm-softmax-raw.csv")).unwrap_err();
    assert!(
        err.to_string().contains("launch ID 0 is `nvjet_sm90_tst_64x8_64x16_2x1_v_bz_splitK_NNT` in the details page"),
        "{err}"
    );
}
