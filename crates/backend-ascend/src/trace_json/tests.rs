//! Expected numbers were computed with python's json module: hardware ops are `X` events of
//! the `Ascend Hardware` process with `args["Task Type"]`, durations summed as decimal µs → ns
//! (ROUND_HALF_UP); host spans are the `X` events of every other process but `Overlap
//! Analysis` and `HCCL`.

use super::*;
use crate::test_fixtures::{fixture_path, CANN8_PIPE, MINDINSIGHT_PROF, TRACE_VIEW};
use prof_core::{CoreType, HostCategory, OpKind};

#[test]
fn torch_npu_trace_view_with_string_timestamps() {
    let t = load(&fixture_path(TRACE_VIEW)).unwrap();
    assert_eq!(t.ops.len(), 276);
    assert_eq!(t.ops.iter().map(|o| o.dur_ns()).sum::<u64>(), 1_790_457);
    assert_eq!({ t.ops[0].start_ns }, 1_704_161_511_422_904_204);
    assert!(t.ops.iter().all(|o| o.stream() == 3));
    // python: connection_id >= 0 on 274 events; the two MEMCPY_ASYNC tasks say -1 (none).
    assert_eq!(t.ops.iter().filter(|o| o.correlation.is_some()).count(), 274);
    assert_eq!(t.ops.iter().filter(|o| o.kind() == OpKind::Memcpy).count(), 2);
    assert_eq!(t.ops.iter().filter(|o| t.details_of(o).and_then(|d| d.core_type) == Some(CoreType::Cpu)).count(), 2);
    assert_eq!(t.host.len(), 1389);
    assert_eq!(t.host.iter().filter(|s| s.category == HostCategory::Framework).count(), 711);
    assert_eq!(t.host.iter().filter(|s| s.category == HostCategory::Runtime).count(), 382);
    assert!(t.counters.is_empty());
}

#[test]
fn cann8_msprof_json_with_frequency_counter() {
    let t = load(&fixture_path(CANN8_PIPE).join("msprof_20260823165334.json")).unwrap();
    // 6 hardware tasks, 3 of them the runtime's (PROFILING_ENABLE/DISABLE, TASK_TIMEOUT_SET):
    // counted as unread, not device work; the other 3 sum to 39,321 ns.
    assert_eq!(t.ops.len(), 3);
    assert_eq!(t.ops.iter().map(|o| o.dur_ns()).sum::<u64>(), 39_321);
    assert_eq!(t.ops.iter().filter(|o| o.kind() == OpKind::Other).count(), 0);
    assert_eq!(t.unread.iter().map(|(_, n)| n).sum::<u64>(), 3, "{:?}", t.unread);
    assert_eq!(t.host.len(), 80);
    assert_eq!(t.counters.len(), 1);
    let freq = &t.counters[0];
    assert_eq!((t.name(freq.name), freq.unit.map(|u| t.name(u)), freq.device), ("AI Core Freq", Some("MHz"), Some(0)));
    assert_eq!(
        freq.points,
        vec![
            (1_787_504_006_800_668_000, 1800.0),
            (1_787_504_006_801_369_750, 1800.0),
            (1_787_504_007_994_979_000, 1800.0)
        ]
    );
}

#[test]
fn older_msprof_timeline_with_numeric_timestamps() {
    let path = fixture_path(MINDINSIGHT_PROF).join("device_0/timeline/msprof_0_2_1.json");
    let t = load(&path).unwrap();
    // 490 hardware tasks, 12 of them the runtime's EVENT_RECORD/RESET/WAIT (unread).
    assert_eq!(t.ops.len(), 478);
    assert_eq!(t.ops.iter().map(|o| o.dur_ns()).sum::<u64>(), 172_200_350);
    let cube = t.ops.iter().filter(|o| t.details_of(o).and_then(|d| d.core_type) == Some(CoreType::Cube)).count();
    assert_eq!(cube, 137);
    assert_eq!(t.ops.iter().filter(|o| o.kind() == OpKind::Memcpy).count(), 29);
    // python: REDUCE_ASYNC_V2 30 + NOTIFY_WAIT 140 + NOTIFY_RECORD 140; EVENT_* 12 unread.
    assert_eq!(t.ops.iter().filter(|o| o.kind() == OpKind::Communication).count(), 310);
    assert_eq!(t.ops.iter().filter(|o| o.kind() == OpKind::Other).count(), 0);
    assert_eq!(t.unread.iter().map(|(_, n)| n).sum::<u64>(), 12, "{:?}", t.unread);
    // python: 137 device tasks on stream 2 (144 with its 7 EVENT_* tasks).
    assert_eq!(t.ops.iter().filter(|o| o.stream() == 2).count(), 137);
    assert_eq!(t.host.len(), 1);
}

#[test]
fn malformed_traces_are_errors_naming_the_file() {
    let path = Path::new("trace_view.json");
    let err = read(b"[{\"ph\":\"X\",\"name\":\"a\"", path).unwrap_err().to_string();
    assert!(err.contains("trace_view.json:1") && err.contains("not valid trace JSON"), "{err}");
    assert!(read(b"{\"x\":1}", path).unwrap_err().to_string().contains("traceEvents"));
    assert!(read(b"", path).is_err());
    let bad_ts = br#"[{"ph":"M","name":"process_name","pid":1,"args":{"name":"Ascend Hardware"}},
        {"ph":"X","name":"k","pid":1,"tid":2,"ts":"N/A","dur":1,"args":{"Task Type":"AI_CORE"}}]"#;
    let err = read(bad_ts, path).unwrap_err().to_string();
    assert!(err.contains("event 2") && err.contains("ts"), "{err}");
    let bom = "\u{feff}[]".as_bytes();
    assert!(read(bom, path).unwrap().ops.is_empty());
}

/// The `HostToDevice` flows of trace_view.json, checked against a python3 script that binds
/// each flow end by brute force (json + Decimal µs → ns, ROUND_HALF_UP): for every `s`/`f`
/// pair of cat HostToDevice, the shortest `X` event of the end's pid/tid whose [ts, ts+dur]
/// holds the end's ts. Result: 274 links, all CANN `AscendCL@…` span → `Ascend Hardware` task,
/// 146 distinct host spans, Σ(task ts − span ts) = 44,038,155 ns; 99 tasks start before their
/// span (negative delay), 175 do not, nearest-rank p50 of those 33,674 ns, max 1,070,331 ns.
/// Every task an `async_npu` flow reaches is also reached by a HostToDevice flow (0 extra).
#[test]
fn host_to_device_flows_link_launch_calls_to_tasks() {
    let t = load(&fixture_path(TRACE_VIEW)).unwrap();
    let launches = t.host_by_correlation();
    let linked: Vec<(&prof_core::DeviceOp, &prof_core::HostSpan)> = t
        .ops
        .iter()
        .filter_map(|op| Some((op, &t.host[*launches.get(&op.correlation.get()?)?])))
        .filter(|(_, span)| span.category == HostCategory::Runtime)
        .collect();
    assert_eq!(linked.len(), 274);
    assert!(linked.iter().all(|(_, span)| t.name(span.name).starts_with("AscendCL@")));
    let distinct: std::collections::HashSet<u64> = linked.iter().filter_map(|(op, _)| op.correlation.get()).collect();
    assert_eq!(distinct.len(), 146);
    let delay_sum: i128 = linked.iter().map(|(op, span)| op.start_ns as i128 - span.start_ns as i128).sum();
    assert_eq!(delay_sum, 44_038_155);

    let stats = prof_core::analysis::launch::launch_stats(&t).unwrap();
    assert_eq!((stats.kernels, stats.broken_links), (175, 99));
    let delay = stats.delay.unwrap();
    assert_eq!((delay.p50_ns, delay.max_ns), (33_674, 1_070_331));
}

/// CANN 8 msprof json: the three HostToDevice flows bind `Node@launch` spans to the three
/// kernels, whose `connection_id`s (26, 34, 74) the spans already share: nothing changes.
#[test]
fn cann8_flows_keep_the_shared_connection_ids() {
    let t = load(&fixture_path(CANN8_PIPE).join("msprof_20260823165334.json")).unwrap();
    let launches = t.host_by_correlation();
    let mut linked: Vec<(u64, &str)> = t
        .ops
        .iter()
        .filter(|op| op.kind() == OpKind::Kernel)
        .filter_map(|op| Some((op.correlation.get()?, t.name(t.host[*launches.get(&op.correlation.get()?)?].name))))
        .collect();
    linked.sort();
    assert_eq!(linked, [(26, "Node@launch"), (34, "Node@launch"), (74, "Node@launch")]);
}

#[test]
fn flows_bind_to_the_innermost_enclosing_slice() {
    let trace = br#"[{"ph":"M","name":"process_name","pid":1,"args":{"name":"CANN"}},
        {"ph":"M","name":"process_name","pid":2,"args":{"name":"Ascend Hardware"}},
        {"ph":"X","name":"AscendCL@outer","pid":1,"tid":7,"ts":"10","dur":100},
        {"ph":"X","name":"Node@launch","pid":1,"tid":7,"ts":"20","dur":10},
        {"ph":"X","name":"k","pid":2,"tid":3,"ts":"50","dur":5,"args":{"Task Type":"AI_CORE"}},
        {"ph":"s","cat":"HostToDevice","id":"9","pid":1,"tid":7,"ts":"25"},
        {"ph":"f","cat":"HostToDevice","id":"9","pid":2,"tid":3,"ts":"50","bp":"e"},
        {"ph":"s","cat":"HostToDevice","id":"10","pid":1,"tid":7,"ts":"500"},
        {"ph":"f","cat":"HostToDevice","id":"10","pid":2,"tid":3,"ts":"50","bp":"e"}]"#;
    let t = read(trace, Path::new("t.json")).unwrap();
    let span = t.host.iter().find(|s| t.name(s.name) == "Node@launch").unwrap();
    assert!(span.correlation.is_some());
    assert_eq!({ t.ops[0].correlation }, { span.correlation });
    assert!(t.host.iter().find(|s| t.name(s.name) == "AscendCL@outer").unwrap().correlation.get().is_none());
    // A hand-made async_npu flow (the recording has none without a HostToDevice twin): it links
    // a framework op to a task with no launch link, and never overrides a launch link.
    let framework = br#"[{"ph":"M","name":"process_name","pid":2,"args":{"name":"Ascend Hardware"}},
        {"ph":"X","name":"aten::mm","cat":"cpu_op","pid":5,"tid":5,"ts":"1","dur":10},
        {"ph":"X","name":"k","pid":2,"tid":3,"ts":"50","dur":5,"args":{"Task Type":"AI_CORE"}},
        {"ph":"s","cat":"async_npu","id":7,"pid":5,"tid":5,"ts":"2"},
        {"ph":"f","cat":"async_npu","id":7,"pid":2,"tid":3,"ts":"50","bp":"e"}]"#;
    let t = read(framework, Path::new("t.json")).unwrap();
    assert_eq!(t.host[0].category, HostCategory::Framework);
    assert!(t.host[0].correlation.is_some());
    assert_eq!({ t.ops[0].correlation }, { t.host[0].correlation });
    let bad = br#"[{"ph":"s","cat":"HostToDevice","id":"1","pid":1,"tid":1,"ts":"x"}]"#;
    assert!(read(bad, Path::new("t.json")).unwrap_err().to_string().contains("flow ts"));
}
