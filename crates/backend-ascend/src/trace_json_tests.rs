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
    assert_eq!(t.ops.iter().map(|o| o.dur_ns).sum::<u64>(), 1_790_457);
    assert_eq!(t.ops[0].start_ns, 1_704_161_511_422_904_204);
    assert!(t.ops.iter().all(|o| o.stream == 3));
    // python: connection_id >= 0 on 274 events; the two MEMCPY_ASYNC tasks say -1 (none).
    assert_eq!(t.ops.iter().filter(|o| o.correlation.is_some()).count(), 274);
    assert_eq!(t.ops.iter().filter(|o| o.kind == OpKind::Memcpy).count(), 2);
    assert_eq!(t.ops.iter().filter(|o| o.details.as_ref().and_then(|d| d.core_type) == Some(CoreType::Cpu)).count(), 2);
    assert_eq!(t.host.len(), 1389);
    assert_eq!(t.host.iter().filter(|s| s.category == HostCategory::Framework).count(), 711);
    assert_eq!(t.host.iter().filter(|s| s.category == HostCategory::Runtime).count(), 382);
    assert!(t.counters.is_empty());
}

#[test]
fn cann8_msprof_json_with_frequency_counter() {
    let t = load(&fixture_path(CANN8_PIPE).join("msprof_20260823165334.json")).unwrap();
    assert_eq!(t.ops.len(), 6);
    assert_eq!(t.ops.iter().map(|o| o.dur_ns).sum::<u64>(), 184_984);
    assert_eq!(t.ops.iter().filter(|o| o.kind == OpKind::Other).count(), 3);
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
    assert_eq!(t.ops.len(), 490);
    assert_eq!(t.ops.iter().map(|o| o.dur_ns).sum::<u64>(), 172_200_620);
    let cube = t.ops.iter().filter(|o| o.details.as_ref().and_then(|d| d.core_type) == Some(CoreType::Cube)).count();
    assert_eq!(cube, 137);
    assert_eq!(t.ops.iter().filter(|o| o.kind == OpKind::Memcpy).count(), 29);
    // python: REDUCE_ASYNC_V2 30 + NOTIFY_WAIT 140 + NOTIFY_RECORD 140; EVENT_* 12 are other.
    assert_eq!(t.ops.iter().filter(|o| o.kind == OpKind::Communication).count(), 310);
    assert_eq!(t.ops.iter().filter(|o| o.kind == OpKind::Other).count(), 12);
    assert_eq!(t.ops.iter().filter(|o| o.stream == 2).count(), 144);
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
