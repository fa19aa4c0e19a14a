//! Tests of the Kineto importer on recorded traces and on bad input.
//!
//! Expected numbers were computed independently with a throwaway Python script:
//! `json.load(f, parse_float=Decimal, parse_int=Decimal)` over `traceEvents`, keeping
//! `ph == "X"` events, counting by `cat`, converting `ts`/`dur` to ns as
//! `int(Decimal(v) * 1000)` and summing; busy time is the union of the sorted
//! `[ts, ts + dur)` intervals of kernel/memcpy/memset events.

use super::{load_torch_trace, looks_like_torch_trace, newlines, read_chunked, read_torch_trace};
use prof_core::{summarize_kernels, Families, HostCategory, OpKind, Timeline};
use std::path::{Path, PathBuf};

const H200: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/nvidia/h200-probe/torch-trace.json");
const ALEXNET: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/nvidia/torch/hta_a100_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"
);
const RESNET: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/nvidia/torch/hta_v100_resnet_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
);

fn load(path: &str) -> Timeline {
    load_torch_trace(Path::new(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn count(t: &Timeline, kind: OpKind) -> usize {
    t.ops.iter().filter(|op| op.kind() == kind).count()
}

fn host(t: &Timeline, category: HostCategory) -> usize {
    t.host.iter().filter(|s| s.category == category).count()
}

fn kernel_ns(t: &Timeline) -> u64 {
    t.ops.iter().filter(|op| op.kind() == OpKind::Kernel).map(|op| op.dur_ns()).sum()
}

fn parse(text: &[u8]) -> prof_core::Result<Timeline> {
    read_torch_trace(text, Path::new("test.json"))
}

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("prof-torch-trace-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).expect("write temp file");
    path
}

#[test]
fn h200_trace_counts_times_and_details() {
    let t = load(H200);
    assert_eq!(t.partial, None);
    assert_eq!((count(&t, OpKind::Kernel), count(&t, OpKind::Memset), count(&t, OpKind::Memcpy)), (95, 5, 0));
    assert_eq!(count(&t, OpKind::Communication), 0);
    assert_eq!(host(&t, HostCategory::Runtime), 167);
    assert_eq!(host(&t, HostCategory::Driver), 35);
    assert_eq!(host(&t, HostCategory::Framework), 220);
    assert_eq!(host(&t, HostCategory::Annotation), 0);
    assert_eq!(kernel_ns(&t), 1_372_549);
    let first = &t.ops[0];
    assert!(t.name(first.name()).starts_with("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel"));
    assert_eq!((first.start_ns, first.dur_ns(), first.device(), first.stream()), (5_359_103_342_279_386, 4_608, 0, 7));
    assert_eq!({ first.correlation }, Some(20));
    let details = t.details_of(first).expect("kernel details");
    assert_eq!((details.grid, details.block), (Some([1, 1, 1]), Some([32, 4, 1])));
    assert_eq!((details.registers_per_thread, details.shared_memory_bytes), (Some(27), Some(24)));
    let memset_bytes: u64 = t.ops.iter().filter_map(|op| t.details_of(op)?.bytes).sum();
    assert_eq!(memset_bytes, 20);
    let launch = t.host.iter().find(|s| s.category == HostCategory::Runtime).expect("a runtime span");
    assert_eq!(t.name(launch.name), "cudaLaunchKernel");
    assert_eq!((launch.start_ns, launch.dur_ns(), launch.correlation.get()), (5_359_103_342_208_963, 78_849, Some(20)));
    assert_eq!((launch.pid, launch.tid), (1064, 1064));
    let summary = summarize_kernels(&t, &Families::builtin());
    let top: Vec<(&str, u64, u64)> = summary.top(3).iter().map(|k| (k.name.as_str(), k.total_ns, k.calls)).collect();
    assert_eq!(top[0], ("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", 870_658, 5));
    assert_eq!(top[1], ("nvjet_sm90_tst_64x8_64x16_2x1_v_bz_splitK_NNT", 228_609, 20));
    assert_eq!((top[2].1, top[2].2), (71_136, 20));
    let device = &summary.devices[0];
    assert_eq!((device.ops, device.op_ns, device.busy_ns, device.wall_ns), (100, 1_376_837, 1_375_299, 4_801_387));
}

#[test]
fn hta_alexnet_gz_with_distributed_info_first() {
    let t = load(ALEXNET);
    assert_eq!(t.partial, None);
    assert_eq!((count(&t, OpKind::Kernel), count(&t, OpKind::Memcpy), count(&t, OpKind::Memset)), (79, 16, 3));
    assert_eq!((host(&t, HostCategory::Runtime), host(&t, HostCategory::Framework)), (361, 359));
    assert_eq!(host(&t, HostCategory::Annotation), 8);
    assert_eq!(kernel_ns(&t), 10_692_000);
    let memcpy_ns: u64 = t.ops.iter().filter(|op| op.kind() == OpKind::Memcpy).map(|op| op.dur_ns()).sum();
    assert_eq!(memcpy_ns, 55_503_000);
    let summary = summarize_kernels(&t, &Families::builtin());
    let kernels: Vec<_> = summary.kernels.iter().filter(|k| k.kind == OpKind::Kernel).collect();
    assert_eq!((kernels[0].name.as_str(), kernels[0].total_ns), ("ampere_sgemm_32x32_sliced1x4_tn", 2_621_000));
    assert_eq!(kernels[1].name, "cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1");
    let mut streams: Vec<u64> = t.ops.iter().map(|op| op.stream()).collect();
    streams.sort_unstable();
    streams.dedup();
    assert_eq!(streams, vec![7, 20]);
}

#[test]
fn a_torch_compile_trace_reads_its_triton_and_library_kernels() {
    // Recorded on the H200 this session (scripts/device/answer_clients.py compiled-trace,
    // torch 2.11): a torch.compile'd decoder's steps. python: 205 kernels, 582296 ns; top
    // nvjet_sm90_tst_64x8_64x16_4x1_v_bz_bias_TNT 209215 ns; 3 Triton kernels; cpu_op 195,
    // cuda_runtime 47, cuda_driver 160.
    let t = load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/nvidia/torch/h200_torch2.11_compiled_decoder_trace.json.gz"
    ));
    assert_eq!((count(&t, OpKind::Kernel), kernel_ns(&t)), (205, 582_296));
    assert_eq!((host(&t, HostCategory::Runtime), host(&t, HostCategory::Driver)), (47, 160));
    let summary = summarize_kernels(&t, &Families::builtin());
    assert_eq!(
        (summary.kernels[0].name.as_str(), summary.kernels[0].total_ns),
        ("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_bias_TNT", 209_215)
    );
    assert_eq!(summary.kernels.iter().filter(|k| k.name.starts_with("triton_")).count(), 3);
    assert_eq!(t.recorded_on.as_deref(), Some("NVIDIA H200"));
}

#[test]
fn hta_resnet_gz_exact_nanoseconds_and_keys_after_events() {
    let t = load(RESNET);
    assert_eq!(t.partial, None);
    assert_eq!((count(&t, OpKind::Kernel), count(&t, OpKind::Memcpy), count(&t, OpKind::Memset)), (4350, 1600, 145));
    assert_eq!(t.host.len(), 39_309);
    assert_eq!(kernel_ns(&t), 468_153_602);
    assert_eq!({ t.ops[0].start_ns }, 1_712_195_495_505_582_988);
    // 58 cuda_runtime events carry `"tid": -247463936`, kept as 2^32 - 247463936.
    assert_eq!(t.host.iter().filter(|s| s.tid == 4_047_503_360).count(), 58);
    let summary = summarize_kernels(&t, &Families::builtin());
    assert!(summary.kernels[0]
        .name
        .starts_with("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>"));
    assert_eq!((summary.kernels[0].total_ns, summary.kernels[0].calls), (26_303_973, 160));
    assert_eq!((summary.devices[0].busy_ns, summary.devices[0].wall_ns), (472_454_441, 480_029_179));
}

#[test]
fn sniffs_kineto_traces_only() {
    assert!(looks_like_torch_trace(Path::new(H200)));
    assert!(looks_like_torch_trace(Path::new(RESNET)));
    let chrome = temp("chrome.json", br#"{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 1}]}"#);
    assert!(!looks_like_torch_trace(&chrome));
    std::fs::remove_file(&chrome).expect("remove temp file");
    assert!(!looks_like_torch_trace(Path::new("/nonexistent/trace.json")));
}

#[test]
fn truncated_inside_events_keeps_the_events_before_the_cut() {
    let text = std::fs::read(H200).expect("fixture");
    let cut = text.len() * 6 / 10;
    let t = parse(&text[..cut]).expect("a partial timeline");
    let partial = t.partial.as_deref().expect("partial is set");
    assert!(partial.contains("the file ends") && partial.contains("inside traceEvents"), "{partial}");
    let expected_events = complete_events_before(&text, cut);
    assert!(partial.contains(&format!("kept the {expected_events} complete events")), "{partial}");
    assert!(!t.ops.is_empty() && t.ops.len() < 100);
}

/// Events that close before `cut`: event objects are the `{` at nesting depth 2 (inside
/// the top-level object and the traceEvents array), counted with a plain depth scan.
fn complete_events_before(text: &[u8], cut: usize) -> usize {
    let start = text.windows(13).position(|w| w == b"\"traceEvents\"").expect("traceEvents");
    let (mut depth, mut in_string, mut escaped, mut events) = (0i32, false, false, 0);
    for &c in &text[start..cut] {
        match (in_string, c) {
            (true, b'\\') if !escaped => escaped = true,
            (true, b'"') if !escaped => in_string = false,
            (true, _) => escaped = false,
            (false, b'"') => in_string = true,
            (false, b'{' | b'[') => depth += 1,
            (false, b'}' | b']') => {
                depth -= 1;
                events += usize::from(depth == 1 && c == b'}');
            }
            _ => {}
        }
    }
    events
}

#[test]
fn truncated_gzip_gives_a_partial_timeline() {
    let bytes = std::fs::read(RESNET).expect("fixture");
    let path = temp("cut.json.gz", &bytes[..bytes.len() / 2]);
    let t = load_torch_trace(&path).expect("partial");
    std::fs::remove_file(&path).expect("remove temp file");
    let partial = t.partial.as_deref().expect("partial is set");
    assert!(partial.contains("gzip stream ends early"), "{partial}");
    assert!(!t.ops.is_empty() && t.ops.len() < 6095);
}

#[test]
fn cut_before_the_first_event_and_empty_files_are_errors() {
    let text = std::fs::read(H200).expect("fixture");
    let error = parse(&text[..300]).unwrap_err().to_string();
    assert!(error.starts_with("test.json:10:") && error.contains("the file ends"), "{error}");
    for empty in [&b""[..], b"  \n "] {
        let error = parse(empty).unwrap_err().to_string();
        assert!(error.contains("the file is empty"), "{error}");
    }
}

#[test]
fn wrong_types_and_malformed_json_name_the_line() {
    let cases: [(&[u8], &str); 7] = [
        (b"ph,cat,name\n", "test.json:1: byte offset 0: expected a JSON object"),
        (b"{\"traceEvents\": 5}", "traceEvents is not an array"),
        (b"{\"schemaVersion\": 1}", "has no traceEvents"),
        (b"[1, 2]", "expected `{` starting an event"),
        (
            b"{\"traceEvents\": [\n{\"ph\": \"X\" \"cat\": \"kernel\"}]}",
            "test.json:2: byte offset 29: expected `,` or `}`",
        ),
        (b"{\"traceEvents\": []} x", "unexpected data after the top-level value"),
        (b"{\"a\": [1}, \"traceEvents\": []}", "mismatched `}`"),
    ];
    for (text, expected) in cases {
        let error = parse(text).unwrap_err().to_string();
        assert!(error.contains(expected), "{error} should contain {expected}");
    }
}

#[test]
fn bad_fields_are_errors_with_their_name() {
    let event = |fields: &str| format!("{{\"traceEvents\": [\n{{\"ph\": \"X\", \"cat\": \"kernel\", {fields}}}]}}");
    let cases = [
        (event(r#""name": "k", "ts": 1, "dur": "abc", "args": {"device": 0, "stream": 7}"#), "`dur` missing"),
        (event(r#""name": "k", "ts": 1, "dur": 1, "pid": "x", "tid": "y", "args": {}"#), "args.device"),
        (event(r#""name": "k", "ts": 1, "dur": 1, "args": {"device": -1, "stream": 7}"#), "args.device: expected"),
        (event(r#""name": "k", "ts": 1, "dur": 1, "args": {"device": 0, "stream": 7, "grid": [1, 2]}"#), "`,`"),
        (event(r#""ts": 1, "dur": 1, "args": {"device": 0, "stream": 7}"#), "without a `name`"),
    ];
    for (text, expected) in cases {
        let error = parse(text.as_bytes()).unwrap_err().to_string();
        assert!(error.starts_with("test.json:2:") && error.contains(expected), "{error} should contain {expected}");
    }
}

#[test]
fn unsorted_events_escapes_nccl_and_array_format() {
    // Kineto-shaped events written out of time order; the NCCL kernel name is NCCL's naming,
    // no recorded trace here has one.
    let text = br#"[
      {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 9,
       "ts": 20.5, "dur": 10, "args": {"device": 0, "stream": 9, "correlation": 3}},
      {"ph": "X", "cat": "kernel", "name": "a\"b\u00e9", "pid": 0, "tid": 7, "ts": "10.250", "dur": 15.000,
       "args": {"device": 0, "stream": 7, "unknown": {"deep": [1, {"x": null}]}}},
      {"ph": "i", "cat": "kernel", "name": "instant", "ts": 1},
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 5, "tid": 6, "ts": 9, "dur": 30, "args": {}}
    ]"#;
    let t = parse(text).expect("parses");
    assert_eq!(t.ops.len(), 2);
    assert_eq!(t.ops[0].kind(), OpKind::Communication);
    assert_eq!((t.ops[0].start_ns, t.ops[0].correlation.get()), (20_500, Some(3)));
    assert_eq!(t.name(t.ops[1].name()), "a\"bé");
    assert_eq!((t.ops[1].start_ns, t.ops[1].dur_ns()), (10_250, 15_000));
    assert_eq!(t.host.len(), 1);
    let summary = summarize_kernels(&t, &Families::builtin());
    // [10.25, 25.25) ∪ [20.5, 30.5) = 20.25 µs busy of a 20.25 µs wall.
    assert_eq!((summary.devices[0].busy_ns, summary.devices[0].wall_ns), (20_250, 20_250));
    assert_eq!(summary.family_ns(prof_core::Family::Collective), 10_000);
}

#[test]
fn tiny_chunks_read_the_same_timeline() {
    let text = std::fs::read(H200).expect("fixture");
    let whole = parse(&text).expect("parses");
    for chunk in [1, 7, 64, 4096] {
        let t = read_chunked(&text[..], Path::new("test.json"), chunk).expect("parses in chunks");
        assert_eq!(
            (t.ops == whole.ops, t.host == whole.host, t.names.len()),
            (true, true, whole.names.len()),
            "{chunk}"
        );
    }
    let cut = read_chunked(&text[..text.len() / 2], Path::new("test.json"), 7).expect("partial");
    assert_eq!(cut.partial, parse(&text[..text.len() / 2]).expect("partial").partial);
    let error = read_chunked(&b"{\"traceEvents\": [\n\n{\"ph\": 1;}]}"[..], Path::new("t.json"), 3).unwrap_err();
    assert_eq!(error.to_string(), "t.json:3: byte offset 26: expected a string, found `1;}]}`");
}

#[test]
fn lane_newline_count_matches_a_plain_count() {
    let bytes: Vec<u8> = (0..20_000u32).map(|i| if i % 7 == 0 || i % 13 == 0 { b'\n' } else { b'x' }).collect();
    for len in [0, 1, 31, 32, 33, 8_159, 8_160, 8_161, 20_000] {
        assert_eq!(newlines(&bytes[..len]), bytes[..len].iter().filter(|&&b| b == b'\n').count(), "{len}");
    }
}

#[test]
fn collective_metadata_on_a_kernel_gives_its_bytes_and_kind() {
    // The args PyTorch 2.11 puts on NCCL's one-rank kernel (tests/fixtures/nvidia/h200-nccl),
    // then an unknown dtype and a non-numeric count, which leave the bytes absent.
    let kernel = |args: &str| {
        format!(
            "{{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"oneRankReduce\", \"ts\": 1, \"dur\": 2, \"args\": {{\"device\": 0, \"stream\": 16, {args}}}}}"
        )
    };
    let text = format!(
        "{{\"traceEvents\": [\n{},\n{},\n{}]}}",
        kernel(r#""Collective name": "allreduce", "In msg nelems": 67108864, "dtype": "Float""#),
        kernel(r#""In msg nelems": 10, "dtype": "Quux""#),
        kernel(r#""In msg nelems": "many", "dtype": "Half""#),
    );
    let t = parse(text.as_bytes()).unwrap();
    let bytes: Vec<Option<u64>> = t.ops.iter().map(|op| t.details_of(op).and_then(|d| d.bytes)).collect();
    assert_eq!(bytes, [Some(67_108_864 * 4), None, None]);
    let kinds: Vec<OpKind> = t.ops.iter().map(|op| op.kind()).collect();
    assert_eq!(kinds, [OpKind::Communication, OpKind::Kernel, OpKind::Kernel]);
    // The collective's own name is the op type of its kernel; the others have none.
    let types: Vec<Option<&str>> =
        t.ops.iter().map(|op| t.details_of(op).and_then(|d| d.op_type).map(|id| t.name(id))).collect();
    assert_eq!(types, [Some("allreduce"), None, None]);
}

#[test]
fn one_endless_value_is_refused_at_the_bound_not_read_to_the_end() {
    use std::io::Read as _;
    // What a tiny `.json.gz` bomb inflates to: one string that never ends (200 MiB here).
    let head = &b"{\"schemaVersion\": 1, \"traceEvents\": [{\"name\": \""[..];
    let endless = head.chain(std::io::repeat(b'a').take(200 << 20));
    let started = std::time::Instant::now();
    let error = read_torch_trace(endless, Path::new("bomb.json")).unwrap_err().to_string();
    assert!(error.starts_with("bomb.json:1: ") && error.contains("runs past 64 MiB: refused"), "{error}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "took {:?}", started.elapsed());
}

#[test]
fn a_second_trace_events_key_is_refused_not_added() {
    let text = br#"{"schemaVersion": 1, "traceEvents": [], "traceEvents": []}"#;
    let error = read_torch_trace(&text[..], Path::new("twice.json")).unwrap_err().to_string();
    assert!(error.contains("a second traceEvents key"), "{error}");
}

/// Inductor's Triton launch records (torch.compile) carry the launch grid as text in a cpu_op's
/// args (`"grid": "grid(100,)"`, issue #51): the trace reads, the record is a framework span and
/// the kernel keeps its own `[x, y, z]` grid. A bracketed grid that is not three numbers stays an
/// error (`bad_fields_are_errors_with_their_name`).
#[test]
fn a_triton_launch_record_with_a_text_grid_is_read() {
    let text = br#"{"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "triton_poi_fused_add_0", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"kernel_file": "/tmp/k.py", "kernel_backend": "triton", "grid": "grid(100,)", "stream": 0}},
{"ph": "X", "cat": "kernel", "name": "triton_poi_fused_add_0", "pid": 0, "tid": 7, "ts": 20, "dur": 3, "args": {"device": 0, "stream": 7, "grid": [100, 1, 1], "block": [128, 1, 1]}}
]}"#;
    let t = parse(text).expect("a compiled model's trace reads");
    assert_eq!(t.ops.len(), 1);
    assert_eq!(t.details_of(&t.ops[0]).and_then(|d| d.grid), Some([100, 1, 1]));
    assert_eq!(host(&t, HostCategory::Framework), 1);
}
