//! Checked against a separate Python decoder of the protobuf wire format run on the same files
//! (the numbers quoted: op count, device ns with each length rounded to the nearest ns,
//! per-stream counts, the top kernel, host spans and correlation links).

use super::names::{hlo_name, numbering_dropped};
use super::*;
use prof_core::{summarize_kernels, Families, HostCategory, OpKind, Registry};
use std::path::PathBuf;

/// `tests/fixtures/<name>` of the workspace.
fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(name)
}

fn load(name: &str) -> Timeline {
    let path = fixture_path(&format!("xla/{name}"));
    let registry = Registry::new(vec![Box::new(crate::NvidiaVendor::new())]);
    let (loaded, _) = registry.load(&path, &Families::builtin()).unwrap();
    match loaded {
        prof_core::Loaded::Timeline(t) => *t,
        _ => panic!("{name} is not read as a timeline"),
    }
}

#[test]
fn a_jax_gpu_xspace_reads_its_stream_lines_and_links_every_launch() {
    let path = fixture_path("xla/jax08_gemm_mi300_rocm.xplane.pb");
    let found = XplaneImporter.recognize(&path).unwrap();
    assert_eq!(found.certainty, Certainty::Signature);
    let t = load("jax08_gemm_mi300_rocm.xplane.pb");
    // python: ops 54 device_ns 3475484 streams {(0,16): 42, (0,17): 12}
    assert_eq!(t.ops.len(), 54);
    assert_eq!(t.ops.iter().map(|op| op.dur_ns()).sum::<u64>(), 3_475_484);
    assert_eq!(t.ops.iter().filter(|op| op.stream() == 16).count(), 42);
    assert!(t.ops.iter().all(|op| op.device() == 0 && op.kind() == OpKind::Kernel));
    // python: first op start 1220562, last end 10676774
    assert_eq!(t.ops.iter().map(|op| op.start_ns).min(), Some(1_220_562));
    assert_eq!(t.ops.iter().map(|op| op.end_ns()).max(), Some(10_676_774));
    let summary = summarize_kernels(&t, &Families::builtin());
    // python: top Cijk_Ailk_Bljk_BBS_BH_MT256x224x64_… 3 calls, 1833003 ns
    let top = &summary.kernels[0];
    assert!(top.name.starts_with("Cijk_Ailk_Bljk_BBS_BH_MT256x224x64_MI16x16x16x1"), "{}", top.name);
    assert_eq!((top.calls, top.total_ns), (3, 1_833_003));
    // python: host 3728 spans, 54 hip launches each with a correlation id, all 54 linked
    assert_eq!(t.host.len(), 3728);
    assert_eq!(t.host.iter().filter(|s| s.category == HostCategory::Runtime).count(), 54);
    let launches = t.host_by_correlation();
    assert_eq!(t.ops.iter().filter(|op| op.correlation.get().is_some_and(|c| launches.contains_key(&c))).count(), 54);
    // kernel_details: grid and block of each kernel
    assert!(t.ops.iter().all(|op| t.details_of(op).and_then(|d| d.block).is_some()));
    assert_eq!(t.recorded_on.as_deref(), Some("AMD GPU, 8 device planes"));
    assert!(t.unread.iter().any(|(k, _)| k == "plane /host:metadata") || t.unread.is_empty());
}

#[test]
fn a_jax_xspace_from_an_h200_reads_its_fusions() {
    // Recorded on the H200 this session (scripts/device/answer_clients.py jax-trace, JAX 0.11):
    // a jitted MLP's 4 steps. python: ops 48 device_ns 2433534, all on stream 14; top
    // gemm_fusion_dot_general_7 20 calls 1750177 ns; 147 host events, 4 with a correlation id.
    let t = load("jax0.11_mlp_h200.xplane.pb");
    assert_eq!((t.ops.len(), t.ops.iter().map(|op| op.dur_ns()).sum::<u64>()), (48, 2_433_534));
    assert!(t.ops.iter().all(|op| op.stream() == 14));
    let summary = summarize_kernels(&t, &Families::builtin());
    assert_eq!(
        (summary.kernels[0].name.as_str(), summary.kernels[0].calls, summary.kernels[0].total_ns),
        ("gemm_fusion_dot_general_7", 20, 1_750_177)
    );
    assert_eq!(t.host.len(), 147);
    assert_eq!(t.recorded_on.as_deref(), Some("Nvidia GPU, 1 device planes"));
}

#[test]
fn a_tpu_xspace_reads_the_xla_ops_line_of_each_core() {
    let t = load("tpu_inference_2.xplane.pb.gz");
    // python: ops 6013 device_ns 315122705480 devices [0..3], 1504/1503/1503/1503
    assert_eq!(t.ops.len(), 6013);
    assert_eq!(t.ops.iter().map(|op| op.dur_ns()).sum::<u64>(), 315_122_705_480);
    assert_eq!(t.ops.iter().filter(|op| op.device() == 0).count(), 1504);
    assert_eq!(t.ops.iter().filter(|op| op.device() == 3).count(), 1503);
    // python: 17 ops by HLO instruction name; top copy-done.2, 400 calls, 87957829865 ns
    let summary = summarize_kernels(&t, &Families::builtin());
    assert_eq!(summary.kernels.len(), 17);
    let top = &summary.kernels[0];
    assert_eq!((top.name.as_str(), top.calls, top.total_ns), ("copy-done.2", 400, 87_957_829_865));
    let op_type = t.details_of(&t.ops[0]).and_then(|d| d.op_type).map(|id| t.name(id).to_owned());
    assert!(op_type.is_some_and(|ty| !ty.contains('.') && !ty.contains(' ')), "the HLO opcode is the op type");
    assert_eq!(numbering_dropped("fusion.3"), "fusion");
    assert_eq!(numbering_dropped("copy-done"), "copy-done");
    assert_eq!(hlo_name("%fusion.3 = f32[8]{0} fusion(f32[8]{0} %p), kind=kLoop"), "fusion.3");
    // python: host 19270 spans, no launch correlation on a TPU
    assert_eq!(t.host.len(), 19_270);
    assert_eq!(t.recorded_on.as_deref(), Some("TPU, 4 device planes"));
}

#[test]
fn a_fused_attention_xspace_keeps_its_ck_kernels() {
    let t = load("jax_te_fused_attn_gfx950.xplane.pb.gz");
    // python: ops 150 device_ns 12133585; top ck_tile FmhaBwdDQDKDVKernel 10 calls 4279357 ns
    assert_eq!(t.ops.len(), 150);
    assert_eq!(t.ops.iter().map(|op| op.dur_ns()).sum::<u64>(), 12_133_585);
    let summary = summarize_kernels(&t, &Families::builtin());
    let top = &summary.kernels[0];
    assert!(top.name.contains("FmhaBwdDQDKDVKernel"), "{}", top.name);
    assert_eq!((top.calls, top.total_ns), (10, 4_279_357));
}

#[test]
fn a_cut_xspace_is_an_error_naming_the_file_and_byte() {
    let bytes = std::fs::read(fixture_path("xla/jax08_gemm_mi300_rocm.xplane.pb")).unwrap();
    let cut = &bytes[..bytes.len() / 2];
    let err = space::read(cut, Path::new("cut.xplane.pb")).unwrap_err().to_string();
    assert!(err.starts_with("cut.xplane.pb") && err.contains("at byte"), "{err}");
    let err = space::read(b"", Path::new("empty.xplane.pb")).unwrap_err().to_string();
    assert!(err.contains("holds no XPlane"), "{err}");
    // A Kineto JSON trace is not an XSpace.
    assert!(!looks_like_xspace(b"{\"traceEvents\": []}"));
    assert!(!looks_like_xspace(&[0x0a, 0x05, 0x12, 0x03, b'a', b'b', b'c']));
}

/// The trace events JSON XLA's converter wrote beside the XSpace of the same run (recorded on
/// the H200, JAX 0.11.2, `jax.profiler.trace(DIR, create_perfetto_trace=True)` around 5 steps
/// of a jitted bf16 matmul → softmax → matmul). python over the JSON: 25 device events on
/// stream 14, 1,781,938 ns (each `dur` µs × 1000 rounded), 10 `Memset N`, 183 host events,
/// all 25 device events linked by `correlation_id`, first start 19,187,749 ns.
#[test]
fn xla_trace_json_beside_the_xspace_reads_the_same_run() {
    for name in ["vm.trace.json.gz", "perfetto_trace.json.gz"] {
        let path = fixture_path(&format!("xla/jax0.11_softmax_h200/{name}"));
        let found = XlaTraceImporter.recognize(&path).unwrap();
        assert_eq!(found.certainty, Certainty::Signature);
        assert!(XplaneImporter.recognize(&path).is_none());
        let t = load(&format!("jax0.11_softmax_h200/{name}"));
        assert_eq!((t.ops.len(), t.ops.iter().map(|op| op.dur_ns()).sum::<u64>()), (25, 1_781_938), "{name}");
        assert!(t.ops.iter().all(|op| op.stream() == 14 && op.device() == 0));
        assert_eq!(t.ops.iter().filter(|op| op.kind() == OpKind::Memset).count(), 10);
        assert_eq!(t.ops.iter().filter(|op| op.kind() == OpKind::Kernel).count(), 15);
        assert_eq!(t.ops.iter().map(|op| op.start_ns).min(), Some(19_187_749));
        assert_eq!(t.host.len(), 183);
        let launches = t.host_by_correlation();
        assert_eq!(
            t.ops.iter().filter(|op| op.correlation.get().is_some_and(|c| launches.contains_key(&c))).count(),
            25
        );
        assert!(t
            .ops
            .iter()
            .filter(|op| op.kind() == OpKind::Kernel)
            .all(|op| t.details_of(op).and_then(|d| d.grid).is_some()));
    }
    // The XSpace of the run: the same ops (its stream line is `Stream #14(Compute,Memset)`:
    // kernels stay kernels, the sets are sets).
    let x = load("jax0.11_softmax_h200/vm.xplane.pb");
    assert_eq!((x.ops.len(), x.ops.iter().map(|op| op.dur_ns()).sum::<u64>()), (25, 1_781_938));
    assert_eq!(x.ops.iter().filter(|op| op.kind() == OpKind::Memset).count(), 10);
}

#[test]
fn xla_trace_json_without_device_or_host_events_is_an_error() {
    let bytes = br#"{"traceEvents":[{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},
        {"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"name":"XLA Modules"}},
        {"ph":"X","pid":1,"tid":3,"ts":1.0,"dur":2.0,"name":"jit_step"}]}"#;
    let err = trace_json::read(bytes, Path::new("t.trace.json")).unwrap_err().to_string();
    assert!(err.contains("t.trace.json") && err.contains("derived views"), "{err}");
    let cut = &bytes[..60];
    let err = trace_json::read(cut, Path::new("t.trace.json")).unwrap_err().to_string();
    assert!(err.contains("t.trace.json") && err.contains("line 1"), "{err}");
}
