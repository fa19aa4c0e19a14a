//! Loader tests on traces built byte by byte from the format table in `prof-cupti-format`'s
//! docs (independently of its encoder, which the tracer crate's round-trip test covers).

use super::*;
use prof_core::OpKind;

/// Builds a trace the way the format table describes it.
#[derive(Default)]
struct Trace(Vec<u8>);

impl Trace {
    fn new(pid: u32, rank: i32) -> Self {
        let mut b = b"PROFCUPT".to_vec();
        b.extend(1u32.to_le_bytes());
        b.extend(pid.to_le_bytes());
        b.extend(rank.to_le_bytes());
        b.extend((-1i32).to_le_bytes());
        b.extend(123_456u64.to_le_bytes());
        Self(b)
    }
    fn u32s(&mut self, values: &[u32]) -> &mut Self {
        for v in values {
            self.0.extend(v.to_le_bytes());
        }
        self
    }
    fn u64s(&mut self, values: &[u64]) -> &mut Self {
        for v in values {
            self.0.extend(v.to_le_bytes());
        }
        self
    }
    fn string(&mut self, id: u32, text: &str) -> &mut Self {
        self.0.push(1);
        self.u32s(&[id, text.len() as u32]);
        self.0.extend(text.as_bytes());
        self
    }
    #[allow(clippy::too_many_arguments)]
    fn kernel(&mut self, start: u64, end: u64, stream: u32, corr: u32, name: u32, grid: [i32; 3]) -> &mut Self {
        self.0.push(2);
        self.u64s(&[start, end]).u32s(&[0, 1, stream, corr, name]);
        for v in grid.iter().chain(&[256, 1, 1]) {
            self.0.extend(v.to_le_bytes());
        }
        self.0.extend(96u16.to_le_bytes());
        self.0.extend(0u16.to_le_bytes());
        self.0.extend(1024i32.to_le_bytes());
        self.0.extend(32_768i32.to_le_bytes());
        self
    }
    fn memcpy(&mut self, start: u64, end: u64, bytes: u64, copy_kind: u8, corr: u32) -> &mut Self {
        self.0.push(3);
        self.u64s(&[start, end, bytes]).u32s(&[0, 1, 14, corr]);
        self.0.extend([copy_kind, 2, 3, 1, 0, 0, 0, 0]);
        self
    }
    fn memset(&mut self, start: u64, end: u64, bytes: u64, corr: u32) -> &mut Self {
        self.0.push(4);
        self.u64s(&[start, end, bytes]).u32s(&[0, 1, 7, corr, 0]);
        self.0.extend([3, 0, 1, 0]);
        self
    }
    fn api(&mut self, start: u64, end: u64, corr: u32, cbid: u32, domain: u8, name: u32) -> &mut Self {
        self.0.push(5);
        self.u64s(&[start, end]).u32s(&[777, 778, corr, cbid]);
        self.0.extend([domain, 0, 0, 0]);
        self.u32s(&[name]);
        self
    }
    fn tagged(&mut self, tag: u8, values: &[u64]) -> &mut Self {
        self.0.push(tag);
        self.u64s(values)
    }
}

fn sample() -> Trace {
    let mut t = Trace::new(4242, 0);
    t.string(0, "cudaLaunchKernel_v7000")
        .string(1, "void gemv<128>(float const*, float*)")
        .string(2, "cuMemcpyHtoDAsync_v2")
        .api(1_000, 1_400, 7, 211, 2, 0)
        .kernel(2_000, 5_500, 7, 7, 1, [4096, 1, 1])
        .api(6_000, 6_300, 8, 279, 1, 2)
        .memcpy(7_000, 9_000, 1 << 20, 1, 8)
        .memset(9_500, 9_600, 4096, 0)
        .tagged(8, &[5, 3]);
    t
}

fn load(bytes: &[u8]) -> Result<(Timeline, LoadedFile)> {
    let mut timeline = Timeline::new("test");
    let loaded = load_bytes(bytes, Path::new("/traces/prof-cupti-4242-rank0.pcupti"), 0, &mut timeline)?;
    Ok((timeline, loaded))
}

#[test]
fn every_record_kind_lands_in_the_timeline_with_its_fields() {
    let (t, loaded) = load(&sample().0).unwrap();
    assert_eq!(loaded.header, TraceHeader { pid: 4242, rank: Some(0), local_rank: None, t0: 123_456 });
    assert_eq!((loaded.records, loaded.partial), (5, None));
    assert_eq!(t.ops.len(), 3);
    assert_eq!(t.host.len(), 2);

    let k = &t.ops[0];
    assert_eq!(k.kind(), OpKind::Kernel);
    assert_eq!(t.name(k.name()), "void gemv<128>(float const*, float*)");
    assert_eq!((k.device(), k.stream(), k.start_ns, k.dur_ns(), k.correlation.get()), (0, 7, 2_000, 3_500, Some(7)));
    let d = t.details_of(k).unwrap();
    assert_eq!(d.grid, Some([4096, 1, 1]));
    assert_eq!(d.block, Some([256, 1, 1]));
    assert_eq!(d.registers_per_thread, Some(96));
    assert_eq!(d.shared_memory_bytes, Some(1024 + 32_768));

    let copy = &t.ops[1];
    assert_eq!((copy.kind(), t.name(copy.name())), (OpKind::Memcpy, "CUDA memcpy HtoD"));
    assert_eq!((copy.stream(), copy.dur_ns(), copy.correlation.get()), (14, 2_000, Some(8)));
    assert_eq!(t.details_of(copy).unwrap().bytes, Some(1 << 20));
    let set = &t.ops[2];
    assert_eq!((set.kind(), t.name(set.name()), set.correlation.get()), (OpKind::Memset, "CUDA memset", None));
    assert_eq!(t.details_of(set).unwrap().bytes, Some(4096));

    let launch = &t.host[0];
    assert_eq!((t.name(launch.name), launch.category), ("cudaLaunchKernel", HostCategory::Runtime));
    assert_eq!((launch.pid, launch.tid, launch.start_ns, launch.dur_ns()), (777, 778, 1_000, 400));
    let driver = &t.host[1];
    assert_eq!((t.name(driver.name), driver.category), ("cuMemcpyHtoDAsync_v2", HostCategory::Driver));
    let by_corr = t.host_by_correlation();
    assert_eq!(t.name(t.host[by_corr[&7]].name), "cudaLaunchKernel");
    assert_eq!(by_corr[&8], 1);
}

#[test]
fn a_cut_last_record_keeps_the_complete_ones_and_says_why() {
    let bytes = sample().0;
    // Cut inside the memset record: 4 complete records before it.
    let memset_at = bytes.len() - 17 - 49;
    for cut in [memset_at + 1, memset_at + 30, bytes.len() - 17] {
        let (t, loaded) = load(&bytes[..cut]).unwrap();
        let complete = if cut == bytes.len() - 17 { 5 } else { 4 };
        assert_eq!(t.ops.len() + t.host.len(), complete, "cut at {cut}");
        let reason = loaded.partial.unwrap();
        if cut == bytes.len() - 17 {
            assert!(reason.starts_with("no END record after 5 records"), "{reason}");
        } else {
            assert!(reason.starts_with("record 8 (memset) at byte"), "{reason}");
            assert!(reason.contains(&format!("the file ends at byte {cut}")), "{reason}");
        }
    }
    let mut t = Timeline::new("x");
    let err = load_bytes(&bytes[..20], Path::new("/t/a.pcupti"), 0, &mut t).unwrap_err().to_string();
    assert_eq!(err, "/t/a.pcupti: is 20 bytes, shorter than the 32-byte prof-cupti header");
}

#[test]
fn garbage_is_an_error_naming_file_and_record() {
    let mut bytes = sample().0;
    let err = |b: &[u8]| load(b).unwrap_err().to_string();
    let mut bad_magic = bytes.clone();
    bad_magic[0] = b'X';
    assert!(err(&bad_magic).ends_with("is not a prof-cupti trace (no PROFCUPT magic)"));
    let mut version = bytes.clone();
    version[8] = 9;
    assert!(err(&version).contains("format version 9"));
    let mut tag = bytes.clone();
    let kernel_at = HEADER_LEN + (9 + 22) + (9 + 36) + (9 + 20) + 41;
    assert_eq!(tag[kernel_at], 2);
    tag[kernel_at] = 0xEE;
    assert_eq!(
        err(&tag),
        format!(
            "/traces/prof-cupti-4242-rank0.pcupti:5: unknown record tag 0xee at byte {kernel_at}: \
             not a prof-cupti trace or corrupted"
        )
    );
    let mut backwards = bytes.clone();
    backwards[kernel_at + 9..kernel_at + 17].copy_from_slice(&1u64.to_le_bytes());
    assert!(err(&backwards).contains(":5: ends at 1 ns, before its start at 2000 ns"));
    let mut undefined = Trace::new(1, -1);
    undefined.kernel(1, 2, 0, 0, 9, [1, 1, 1]);
    assert!(err(&undefined.0).contains(":1: refers to string id 9, never defined"));
    let mut negative = Trace::new(1, -1);
    negative.string(0, "k").kernel(1, 2, 0, 0, 0, [-1, 1, 1]);
    assert!(err(&negative.0).contains(":2: negative launch dimension -1"));
    let mut twice = Trace::new(1, -1);
    twice.string(3, "a").string(3, "b");
    assert!(err(&twice.0).contains(":2: string id 3 is defined twice"));
    let mut huge = Trace::new(1, -1);
    huge.0.push(1);
    huge.u32s(&[0, u32::MAX]);
    assert!(err(&huge.0).contains(":1: string of 4294967295 bytes"));
    let mut count = Trace::new(1, -1);
    count.tagged(8, &[3, 0]);
    assert!(err(&count.0).contains("END says 3 records were written, the file holds 0"));
    bytes.push(2);
    assert!(err(&bytes).contains(":10: data after the END record"));
}

#[test]
fn window_end_without_end_is_complete_and_drops_are_reported() {
    let mut killed_after_window = Trace::new(1, -1);
    killed_after_window.string(0, "k").kernel(10, 20, 0, 1, 0, [1, 1, 1]).tagged(7, &[30]);
    let (_, loaded) = load(&killed_after_window.0).unwrap();
    assert_eq!((loaded.records, loaded.partial), (1, None));
    let mut dropped = sample();
    dropped.0.truncate(dropped.0.len() - 17);
    dropped.tagged(6, &[40]).tagged(6, &[2]).tagged(8, &[5, 0]);
    let (_, loaded) = load(&dropped.0).unwrap();
    assert_eq!(loaded.partial.as_deref(), Some("CUPTI dropped 42 records for lack of buffer space"));
}

#[test]
fn several_files_get_distinct_correlations_and_one_partial_note() {
    let dir = std::env::temp_dir().join(format!("prof-cupti-loader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let complete = sample().0;
    std::fs::write(dir.join("prof-cupti-10-rank0.pcupti"), &complete).unwrap();
    std::fs::write(dir.join("prof-cupti-11-rank1.pcupti"), &complete[..complete.len() - 17]).unwrap();
    std::fs::write(dir.join("capture.log"), b"not a trace").unwrap();
    let t = load_paths(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(t.ops.len(), 6);
    assert_eq!({ t.ops[0].correlation }, Some(7));
    assert_eq!({ t.ops[3].correlation }, Some((1u64 << 32) | 7));
    let partial = t.partial.clone().unwrap();
    assert!(partial.contains("prof-cupti-11-rank1.pcupti: no END record"), "{partial}");
    assert!(t.source.ends_with("and 1 more CUPTI traces"));
    std::fs::remove_file(dir.join("prof-cupti-10-rank0.pcupti")).unwrap();
    std::fs::remove_file(dir.join("prof-cupti-11-rank1.pcupti")).unwrap();
    let empty = load_paths(std::slice::from_ref(&dir)).unwrap_err().to_string();
    assert!(empty.ends_with("holds no prof-cupti-*.pcupti trace"), "{empty}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn runtime_names_lose_their_cupti_version_suffix_only() {
    assert_eq!(strip_runtime_version("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
    assert_eq!(strip_runtime_version("cudaLaunchKernel_ptsz_v7000"), "cudaLaunchKernel_ptsz");
    assert_eq!(strip_runtime_version("cudaGetDeviceProperties_v2_v12000"), "cudaGetDeviceProperties_v2");
    assert_eq!(strip_runtime_version("cuMemcpyHtoD_v2"), "cuMemcpyHtoD_v2");
    assert_eq!(strip_runtime_version("runtime API cbid 9"), "runtime API cbid 9");
    assert!(is_trace_file(Path::new("/x/prof-cupti-1-rank2-local0.pcupti")));
    assert!(!is_trace_file(Path::new("/x/prof-cupti-1.jsonl")));
}

/// A real trace: `work.py 2` on the H200 with `PROF_CUPTI_START_AFTER_MS=1500` and
/// `PROF_CUPTI_DURATION_MS=2` (see tests/fixtures/nvidia/SOURCES.md). The expected numbers
/// come from a separate Python walker over the same file.
const H200_TRACE: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/nvidia/h200-cupti/prof-cupti-420.pcupti");

#[test]
fn real_h200_trace_loads_with_the_numbers_an_independent_walker_found() {
    let t = load_paths(&[PathBuf::from(H200_TRACE)]).unwrap();
    assert_eq!(t.partial, None);
    let kernels: Vec<_> = t.ops.iter().filter(|op| op.kind() == OpKind::Kernel).collect();
    let sets: Vec<_> = t.ops.iter().filter(|op| op.kind() == OpKind::Memset).collect();
    assert_eq!((kernels.len(), sets.len(), t.ops.len(), t.host.len()), (88, 4, 92, 1389));
    assert_eq!(kernels.iter().map(|k| k.dur_ns()).sum::<u64>(), 1_170_722);
    let distinct: std::collections::HashSet<_> = kernels.iter().map(|k| k.name()).collect();
    assert_eq!(distinct.len(), 10);

    let first = kernels[0];
    assert!(t.name(first.name()).starts_with(
        "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float, true>(int, float,"
    ));
    assert_eq!((first.start_ns, first.dur_ns()), (1_796_228_603_341_404_786, 4_929));
    assert_eq!((first.device(), first.stream(), first.correlation.get()), (0, 7, Some(5_787)));
    let d = t.details_of(first).unwrap();
    assert_eq!(
        (d.grid, d.block, d.registers_per_thread, d.shared_memory_bytes),
        (Some([1, 1, 1]), Some([32, 4, 1]), Some(27), Some(24))
    );
    assert!(sets.iter().all(|s| t.details_of(s).unwrap().bytes == Some(4) && s.stream() == 7));

    let runtime = t.host.iter().filter(|s| s.category == HostCategory::Runtime).count();
    assert_eq!((runtime, t.host.len() - runtime), (975, 414));
    let get_device = t.host.iter().filter(|s| t.name(s.name) == "cudaGetDevice").count();
    assert_eq!(get_device, 756);
    let h = &t.host[0];
    assert_eq!(
        (t.name(h.name), h.pid, h.tid, h.start_ns, h.dur_ns()),
        ("cudaGetDevice", 420, 3_952_578_880, 1_796_228_603_341_308_387, 361)
    );
    assert_eq!({ h.correlation }, Some(5_818));
    let launches = t.host_by_correlation();
    let linked = kernels.iter().filter(|k| k.correlation.get().is_some_and(|c| launches.contains_key(&c))).count();
    assert_eq!(linked, 85, "3 kernels were launched just before the window opened");
}

#[test]
fn real_h200_trace_cut_short_keeps_its_complete_prefix() {
    let bytes = std::fs::read(H200_TRACE).unwrap();
    let (t, loaded) = load(&bytes[..40_000]).unwrap();
    let kernels = t.ops.iter().filter(|op| op.kind() == OpKind::Kernel).count();
    assert_eq!((kernels, t.ops.len() - kernels, t.host.len()), (50, 2, 795));
    let reason = loaded.partial.unwrap();
    assert!(reason.starts_with("record 880 (api) at byte 39971 is cut short: the file ends at byte 40000"), "{reason}");
    let (_, loaded) = load(&bytes[..250]).unwrap();
    assert!(loaded.partial.unwrap().starts_with("record 2 (kernel) at byte 247 is cut short"));
    let (t, loaded) = load(&bytes[..247]).unwrap();
    assert!(t.ops.is_empty() && loaded.partial.unwrap().starts_with("no END record after 0 records"));
}

#[test]
fn gzipped_traces_load_like_plain_ones_and_bombs_and_garbage_are_refused() {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("prof-cupti-gz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let gz = |data: &[u8]| {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    };
    let plain = sample().0;
    let zipped = dir.join("trace.pcupti.gz");
    std::fs::write(&zipped, gz(&plain)).unwrap();
    assert!(is_gzipped_trace(&zipped));
    assert_eq!(read_maybe_gzipped(&zipped).unwrap(), plain);
    assert_eq!(load_paths(std::slice::from_ref(&zipped)).unwrap().ops.len(), 3);
    // 96 MiB of zeros gzip to ~100 kB: far beyond 64× plus 64 MiB.
    let bomb = dir.join("bomb.pcupti.gz");
    std::fs::write(&bomb, gz(&vec![0u8; 96 << 20])).unwrap();
    let error = read_maybe_gzipped(&bomb).unwrap_err().to_string();
    assert!(error.contains("bomb.pcupti.gz") && error.contains("inflates beyond"), "{error}");
    assert!(!is_gzipped_trace(&bomb), "zeros are not the trace magic");
    let garbage = dir.join("garbage.pcupti.gz");
    std::fs::write(&garbage, [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff]).unwrap();
    let error = read_maybe_gzipped(&garbage).unwrap_err().to_string();
    assert!(error.contains("does not inflate"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_large_file_that_is_not_a_trace_is_refused_from_its_first_bytes() {
    let dir = std::env::temp_dir().join(format!("prof-cupti-zeros-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let zeros = dir.join("prof-cupti-1.pcupti");
    // 1 GiB of zeros, sparse: reading it whole would take a gigabyte of memory.
    std::fs::File::create(&zeros).unwrap().set_len(1 << 30).unwrap();
    let error = read_maybe_gzipped(&zeros).unwrap_err().to_string();
    assert!(error.contains("prof-cupti-1.pcupti") && error.contains("does not start with"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}
