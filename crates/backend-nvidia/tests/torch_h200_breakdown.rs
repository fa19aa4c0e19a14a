//! The kernel summary, families and diagnosis of the recorded H200 torch.profiler trace.
//!
//! `work.py` runs, five times: four × (rms_norm + x @ W with x 1×4096), SDPA, softmax and
//! top-k (a decode-shaped step), then A @ A with A 4096×4096. Expected per-kernel totals
//! were computed with Python (`json` with `parse_float=Decimal`, ns = `int(dur * 1000)`,
//! summed per `name` over `cat == "kernel"` / `"gpu_memset"` events); busy and wall time
//! from the union of the sorted op intervals (1 375 299 of 4 801 387 ns).

use prof_backend_nvidia::fuzz::torch_trace::load_torch_trace;
use prof_core::diagnosis::steps::StepSource;
use prof_core::{diagnose, summarize_kernels, DiagnosisKind, Families, Family, Severity};
use std::path::Path;

const H200: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/nvidia/h200-probe/torch-trace.json");

#[test]
fn h200_families_summary_and_diagnosis() {
    let timeline = load_torch_trace(Path::new(H200)).expect("loads");
    let summary = summarize_kernels(&timeline, &Families::builtin());
    let family_of = |prefix: &str| {
        let row = summary.kernels.iter().find(|k| k.name.starts_with(prefix)).unwrap_or_else(|| panic!("{prefix}"));
        (row.family, row.total_ns, row.calls)
    };
    assert_eq!(family_of("nvjet_sm90_tst_256x128"), (Family::Gemm, 870_658, 5));
    assert_eq!(family_of("nvjet_sm90_tst_64x8"), (Family::Gemv, 228_609, 20));
    assert_eq!(family_of("void at::native::(anonymous namespace)::vectorized_layer_norm"), (Family::Norm, 71_136, 20));
    assert_eq!(family_of("void at::native::sbtopk::gatherTopK"), (Family::TopK, 61_985, 5));
    assert_eq!(family_of("cudnn_generated_fort_native_sdpa"), (Family::Attention, 41_023, 5));
    assert_eq!(family_of("void cublasLt::splitKreduce_kernel"), (Family::Gemm, 33_923, 20));
    assert_eq!(
        family_of("void at::native::(anonymous namespace)::cunn_SoftMaxForwardReg"),
        (Family::Reduction, 22_878, 5)
    );
    assert_eq!(family_of("void at::native::bitonicSortKVInPlace"), (Family::Index, 19_424, 5));
    assert_eq!(family_of("void at::native::unrolled_elementwise_kernel"), (Family::Elementwise, 13_153, 5));
    assert_eq!(family_of("void cudnn::fusion::lean_reduction_kernel"), (Family::Reduction, 9_760, 5));
    assert_eq!(family_of("Memset (Device)"), (Family::Memset, 4_288, 5));
    assert_eq!(summary.kernels.len(), 11);
    assert_eq!(summary.device_ns, 1_376_837);
    assert_eq!(summary.family_ns(Family::Gemm), 870_658 + 33_923);
    assert_eq!(summary.family_ns(Family::Reduction), 22_878 + 9_760);
    let top = &summary.top(1)[0];
    assert!((top.share_pct - 870_658.0 * 100.0 / 1_376_837.0).abs() < 1e-9);
    assert!((top.mean_ns - 870_658.0 / 5.0).abs() < 1e-9);

    let report = diagnose(&timeline, &summary);
    let kinds: Vec<DiagnosisKind> = report.findings.iter().map(|d| d.kind).collect();
    // Eager decode with tiny kernels leaves the GPU idle between launches; the one large
    // GEMM per step dominates device time at a flat cost (prefill-shaped but not growing: no
    // re-prefill); GEMV is not the leading family, so not a healthy decode; one top-k a step
    // beside one attention kernel is sampling-shaped, not MoE routing.
    assert_eq!(kinds, vec![DiagnosisKind::HostBound]);
    let host = report.get(DiagnosisKind::HostBound).expect("host-bound");
    assert_eq!(host.severity, Severity::Warning);
    assert!(host.evidence[0].contains("busy 1.38 ms of a 4.80 ms window (28.6 %"), "{:?}", host.evidence);
    let steps = report.steps.as_ref().expect("steps");
    // The 5 decode steps repeat as a whole op sequence (each step holds its layers).
    assert_eq!(steps.count, 5);
    assert!(matches!(&steps.source, StepSource::RepeatingSequence { .. }), "{:?}", steps.source);
    let json = serde_json::to_value(&report).expect("serializes");
    assert_eq!(json["findings"][0]["kind"], "host_bound");
}
