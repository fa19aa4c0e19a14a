use super::*;
use crate::test_fixtures::fixture_path;

/// Independent sums straight from the file (serde_json::Value), by lane name.
fn sums(path: &Path) -> (usize, u64, usize, u64, usize) {
    let doc: serde_json::Value = serde_json::from_reader(std::fs::File::open(path).unwrap()).unwrap();
    let events = doc["traceEvents"].as_array().unwrap();
    let lane = |pid: &serde_json::Value| {
        let pid = pid.as_str().map(|s| s.parse::<u64>().unwrap()).or(pid.as_u64());
        events
            .iter()
            .find(|e| e["ph"] == "M" && e["pid"].as_u64() == pid)
            .map(|e| e["args"]["name"].as_str().unwrap().to_owned())
    };
    let (mut kernels, mut kernel_ns, mut copies, mut copy_ns, mut host) = (0, 0, 0, 0, 0);
    for e in events.iter().filter(|e| e["ph"] == "X") {
        let ns = |k: &str| e["args"][k].as_str().unwrap().parse::<u64>().unwrap();
        let dur = ns("EndNs") - ns("BeginNs");
        match lane(&e["pid"]).as_deref() {
            Some(l) if l.starts_with("GPU") => (kernels, kernel_ns) = (kernels + 1, kernel_ns + dur),
            Some("COPY") => (copies, copy_ns) = (copies + 1, copy_ns + dur),
            _ => host += 1,
        }
    }
    (kernels, kernel_ns, copies, copy_ns, host)
}

#[test]
fn kokkos_run_reads_kernels_copies_and_host_calls_as_the_file_sums_them() {
    let path = fixture_path("rocprof-v1/kokkos2021_results.json");
    assert!(is_rocprof_v1_json(&path));
    let timeline = load(&path).unwrap();
    let (kernels, kernel_ns, copies, copy_ns, host) = sums(&path);
    let of = |k: fn(&OpKind) -> bool| -> (usize, u64) {
        let ops: Vec<_> = timeline.ops.iter().filter(|o| k(&o.kind())).collect();
        (ops.len(), ops.iter().map(|o| o.dur_ns()).sum())
    };
    assert_eq!(of(|k| matches!(k, OpKind::Kernel | OpKind::Other)), (kernels, kernel_ns));
    assert_eq!(timeline.ops.iter().filter(|o| o.kind() == OpKind::Other).count(), 4, "Unknown command type");
    assert_eq!(of(|k| matches!(k, OpKind::Memcpy | OpKind::Memset)), (copies, copy_ns));
    assert_eq!((kernels, copies, host), (12, 30, 113));
    assert_eq!(timeline.host.len(), host);
    assert!(timeline.host.iter().any(|h| h.category == HostCategory::Annotation));
    let fill = timeline.ops.iter().find(|o| timeline.name(o.name()) == "FillBuffer").unwrap();
    assert_eq!(fill.kind(), OpKind::Memset);
    assert!(timeline.partial.is_none(), "{:?}", timeline.partial);
}

#[test]
fn barriers_unknown_lanes_and_bad_events_are_named() {
    let trace = |events: &str| {
        format!(
            r#"{{"traceEvents":[{{"args":{{"name":"GPU0"}},"ph":"M","pid":6,"name":"process_name"}},
            {{"args":{{"name":"Mystery"}},"ph":"M","pid":9,"name":"process_name"}}{events}]}}"#
        )
    };
    let x = |name: &str, pid: u32, begin: u64, end: u64| {
        format!(
            r#",{{"ph":"X","name":"{name}","pid":"{pid}","tid":"1","ts":"1","dur":"1","args":{{"BeginNs":"{begin}","EndNs":"{end}"}}}}"#
        )
    };
    let path = Path::new("results.json");
    let text = trace(&[x("k", 6, 100, 300), x(BARRIER, 6, 300, 900), x("m", 9, 0, 5)].concat());
    assert!(looks_like(text.as_bytes()));
    let timeline = read(text.as_bytes(), path).unwrap();
    assert_eq!(timeline.ops.len(), 1);
    assert_eq!(timeline.ops[0].dur_ns(), 200);
    let partial = timeline.partial.unwrap();
    assert!(partial.contains("1 <barrier packet>") && partial.contains("1 events on lanes"), "{partial}");
    let backwards = read(trace(&x("k", 6, 300, 100)).as_bytes(), path).unwrap_err().to_string();
    assert!(backwards.contains("traceEvents[2] (k): EndNs 100 is before BeginNs 300"), "{backwards}");
    let empty = read(trace(&x("m", 9, 0, 5)).as_bytes(), path).unwrap_err().to_string();
    assert!(empty.contains("no kernel dispatch"), "{empty}");
    let cut = read(&text.as_bytes()[..text.len() - 20], path).unwrap_err().to_string();
    assert!(cut.contains("cut short"), "{cut}");
}
