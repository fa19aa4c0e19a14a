//! Writer → loader round trip: records written by the tracer's own writer (and a raw
//! CUPTI kernel record taken through decode and the recorder) come back from
//! `prof_backend_nvidia`'s loader with every field intact.

use prof_backend_nvidia::fuzz::cupti_tool::CuptiTool;
use prof_backend_nvidia::fuzz::cupti_trace::{load_paths, TraceHeader};
use prof_core::{BreakdownTool, HostCategory, OpKind};
use prof_cupti::activity;
use prof_cupti::format::{domain, trace_file_name, Api, Header, Kernel, Memcpy, MemoryOp, Memset};
use prof_cupti::recorder::Recorder;
use prof_cupti::window::Window;
use prof_cupti::writer::{api_key, TraceWriter};
use std::fs::File;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prof-cupti-roundtrip-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const HEADER: Header = Header { pid: 31_337, rank: 2, local_rank: 0, t0: 5_000 };

fn write_sample(writer: &mut TraceWriter<File>) {
    let gemm = writer.name_id(0x5555_0000, || "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n".to_owned()).unwrap();
    let launch = writer.name_id(api_key(domain::RUNTIME, 211), || "cudaLaunchKernel_v7000".to_owned()).unwrap();
    let copy = writer.name_id(api_key(domain::DRIVER, 279), || "cuMemcpyHtoDAsync_v2".to_owned()).unwrap();
    writer.api(&Api {
        start: 6_000,
        end: 6_250,
        pid: 31_337,
        tid: 31_338,
        correlation: 41,
        cbid: 211,
        domain: domain::RUNTIME,
        name: launch,
    });
    writer.kernel(&Kernel {
        start: 7_000,
        end: 19_000,
        device: 0,
        context: 1,
        stream: 7,
        correlation: 41,
        name: gemm,
        grid: [132, 1, 1],
        block: [384, 1, 1],
        registers: 168,
        static_shared: 0,
        dynamic_shared: 232_448,
    });
    writer.api(&Api {
        start: 20_000,
        end: 20_100,
        pid: 31_337,
        tid: 31_338,
        correlation: 42,
        cbid: 279,
        domain: domain::DRIVER,
        name: copy,
    });
    writer.memcpy(&Memcpy {
        op: MemoryOp {
            start: 21_000,
            end: 23_000,
            bytes: 8_388_608,
            device: 0,
            context: 1,
            stream: 13,
            correlation: 42,
        },
        copy_kind: 2,
        src_kind: 3,
        dst_kind: 2,
        flags: 1,
    });
    writer.memset(&Memset {
        op: MemoryOp { start: 24_000, end: 24_500, bytes: 65_536, device: 0, context: 1, stream: 7, correlation: 43 },
        value: 0,
        memory_kind: 3,
        flags: 0,
    });
}

#[test]
fn written_records_load_back_field_for_field() {
    let dir = scratch("fields");
    let path = dir.join(trace_file_name(HEADER.pid, Some(2), Some(0)));
    let mut writer = TraceWriter::new(File::create(&path).unwrap(), &HEADER);
    write_sample(&mut writer);
    writer.finish().unwrap();

    let tool = CuptiTool::new();
    assert!(tool.recognizes(&path) && tool.recognizes(&dir));
    let t = tool.load(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(t.partial, None);
    assert_eq!(t.source, path.display().to_string());
    assert_eq!((t.ops.len(), t.host.len()), (3, 2));

    let k = &t.ops[0];
    assert_eq!((k.kind(), t.name(k.name())), (OpKind::Kernel, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"));
    assert_eq!((k.device(), k.stream(), k.start_ns, k.dur_ns(), k.correlation.get()), (0, 7, 7_000, 12_000, Some(41)));
    let d = t.details_of(k).unwrap();
    assert_eq!((d.grid, d.block), (Some([132, 1, 1]), Some([384, 1, 1])));
    assert_eq!((d.registers_per_thread, d.shared_memory_bytes), (Some(168), Some(232_448)));

    let c = &t.ops[1];
    assert_eq!((c.kind(), t.name(c.name()), c.stream(), c.dur_ns()), (OpKind::Memcpy, "CUDA memcpy DtoH", 13, 2_000));
    assert_eq!((c.correlation.get(), t.details_of(c).unwrap().bytes), (Some(42), Some(8_388_608)));
    let s = &t.ops[2];
    assert_eq!((s.kind(), s.dur_ns(), s.correlation.get()), (OpKind::Memset, 500, Some(43)));
    assert_eq!(t.details_of(s).unwrap().bytes, Some(65_536));

    let (launch, copy) = (&t.host[0], &t.host[1]);
    assert_eq!((t.name(launch.name), launch.category), ("cudaLaunchKernel", HostCategory::Runtime));
    assert_eq!((launch.pid, launch.tid, launch.start_ns, launch.dur_ns()), (31_337, 31_338, 6_000, 250));
    assert_eq!(
        (t.name(copy.name), copy.category, copy.correlation.get()),
        ("cuMemcpyHtoDAsync_v2", HostCategory::Driver, Some(42))
    );
    assert_eq!(t.host_by_correlation()[&41], 0);

    let bytes = std::fs::read(&path).unwrap();
    let mut scratch_timeline = prof_core::Timeline::new("x");
    let loaded = prof_backend_nvidia::fuzz::cupti_trace::load_bytes(&bytes, &path, 0, &mut scratch_timeline).unwrap();
    assert_eq!(loaded.header, TraceHeader { pid: 31_337, rank: Some(2), local_rank: Some(0), t0: 5_000 });
    assert_eq!(loaded.records, 5);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_process_that_never_finished_loads_as_partial() {
    let dir = scratch("crash");
    let path = dir.join(trace_file_name(7, None, None));
    let mut writer =
        TraceWriter::new(File::create(&path).unwrap(), &Header { pid: 7, rank: -1, local_rank: -1, t0: 0 });
    write_sample(&mut writer);
    writer.flush().unwrap();
    drop(writer); // killed: no END record
    let t = load_paths(std::slice::from_ref(&path)).unwrap();
    assert_eq!(t.ops.len() + t.host.len(), 5);
    let reason = t.partial.unwrap();
    assert!(reason.contains("no END record after 5 records"), "{reason}");

    // A crash in the middle of a write leaves a cut record.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
    let t = load_paths(std::slice::from_ref(&path)).unwrap();
    assert_eq!(t.ops.len() + t.host.len(), 4);
    assert!(t.partial.unwrap().contains("(memset) at byte"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_raw_cupti_kernel_record_survives_decode_record_write_and_load() {
    // CUpti_ActivityKernel10 bytes at the header's offsets (see the tracer's activity tests).
    let mut raw = vec![0u8; 216];
    raw[0..4].copy_from_slice(&10u32.to_le_bytes());
    raw[6..8].copy_from_slice(&64u16.to_le_bytes());
    raw[16..24].copy_from_slice(&2_000_000u64.to_le_bytes());
    raw[24..32].copy_from_slice(&2_003_000u64.to_le_bytes());
    raw[40..44].copy_from_slice(&1u32.to_le_bytes());
    raw[48..52].copy_from_slice(&21u32.to_le_bytes());
    for (i, v) in [80i32, 4, 1, 128, 2, 1].iter().enumerate() {
        raw[52 + 4 * i..56 + 4 * i].copy_from_slice(&v.to_le_bytes());
    }
    raw[76..80].copy_from_slice(&512i32.to_le_bytes());
    raw[80..84].copy_from_slice(&1_536i32.to_le_bytes());
    raw[92..96].copy_from_slice(&777u32.to_le_bytes());
    let name = c"rms_norm_kernel";
    raw[104..112].copy_from_slice(&(name.as_ptr() as u64).to_le_bytes());

    let dir = scratch("raw");
    let path = dir.join(trace_file_name(9, None, None));
    let mut writer =
        TraceWriter::new(File::create(&path).unwrap(), &Header { pid: 9, rank: -1, local_rank: -1, t0: 1_000_000 });
    let recorder = Recorder::new(Window::new(1_000_000, 0, None, false), None);
    let decoded = activity::decode(&raw).unwrap();
    // SAFETY: the name pointer is a static C string.
    unsafe { recorder.record(&mut writer, decoded, |_, _| None) };
    writer.finish().unwrap();

    let t = load_paths(&[path]).unwrap();
    let k = &t.ops[0];
    assert_eq!(t.name(k.name()), "rms_norm_kernel");
    assert_eq!(
        (k.device(), k.stream(), k.start_ns, k.dur_ns(), k.correlation.get()),
        (1, 21, 2_000_000, 3_000, Some(777))
    );
    let d = t.details_of(k).unwrap();
    assert_eq!((d.grid, d.block, d.registers_per_thread), (Some([80, 4, 1]), Some([128, 2, 1]), Some(64)));
    assert_eq!(d.shared_memory_bytes, Some(2_048));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn traces_of_every_api_mode_load_with_kernels_linked_to_their_launches() {
    // What CUPTI delivers per mode for one launch: cudaGetDevice_v3020 (cbid 17) then
    // cudaLaunchKernel_v7000 (cbid 211, correlation 5) and its kernel. `launch` through the
    // per-function switches never sees cbid 17; the fallback sees it and must drop it.
    let get_device =
        Api { start: 2_000, end: 2_010, cbid: 17, correlation: 4, domain: domain::RUNTIME, ..Api::default() };
    let launch = Api { start: 2_100, end: 2_400, cbid: 211, correlation: 5, domain: domain::RUNTIME, ..Api::default() };
    let kernel = Kernel { start: 3_000, end: 4_000, correlation: 5, ..Kernel::default() };
    let name = c"gemv_kernel";
    let cases: [(&str, bool, Vec<Api>, &[&str]); 4] = [
        ("none", false, vec![], &[]),
        ("launch", false, vec![launch], &["cudaLaunchKernel"]),
        ("launch-fallback", true, vec![get_device, launch], &["cudaLaunchKernel"]),
        ("all", false, vec![get_device, launch], &["cudaGetDevice", "cudaLaunchKernel"]),
    ];
    let dir = scratch("modes");
    for (mode, launch_only, calls, expected) in cases {
        let path = dir.join(format!("prof-cupti-1-{mode}.pcupti"));
        let header = Header { pid: 1, rank: -1, local_rank: -1, t0: 1_000 };
        let mut writer = TraceWriter::new(File::create(&path).unwrap(), &header);
        let recorder = Recorder::new(Window::new(1_000, 0, None, false), None);
        recorder.set_launch_only(launch_only);
        let api_name =
            |_: u8, cbid: u32| Some(if cbid == 17 { "cudaGetDevice_v3020" } else { "cudaLaunchKernel_v7000" }.into());
        // SAFETY: the kernel name is a static C string.
        unsafe {
            for call in calls {
                recorder.record(&mut writer, activity::Activity::Api(call), api_name);
            }
            let activity = activity::Activity::Kernel { kernel, name_ptr: name.as_ptr() as usize };
            recorder.record(&mut writer, activity, api_name);
        }
        writer.finish().unwrap();

        let t = load_paths(std::slice::from_ref(&path)).unwrap();
        assert_eq!(t.partial, None, "{mode}");
        assert_eq!(t.ops.len(), 1, "{mode}");
        assert_eq!((t.name(t.ops[0].name()), t.ops[0].correlation.get()), ("gemv_kernel", Some(5)), "{mode}");
        let names: Vec<&str> = t.host.iter().map(|h| t.name(h.name)).collect();
        assert_eq!(names, expected, "{mode}");
        let linked = t.host_by_correlation().get(&5).copied();
        assert_eq!(linked.is_some(), !expected.is_empty(), "{mode}: the kernel's launch is found by correlation");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
