//! Tests of the timeline: spans, the memory budget, shared details, start order.

use super::*;

#[test]
fn span_covers_device_and_host_and_links_by_correlation() {
    let mut t = Timeline::new("test");
    let k = t.intern("k");
    let launch = t.intern("cudaLaunchKernel");
    let mut op = DeviceOp::new(OpKind::Kernel, k, 0, 7, 1_000, 500);
    op.correlation = Some(42).into();
    t.push_op(op);
    t.host.push(HostSpan::test(launch, HostCategory::Runtime, 900, 20, Some(42)));
    assert_eq!(t.span_ns(), Some((900, 1_500)));
    let index = t.host_by_correlation()[&42];
    assert_eq!(t.name(t.host[index].name), "cudaLaunchKernel");
    assert_eq!(std::mem::size_of::<DeviceOp>() as u64, crate::load_budget::OP_BYTES);
}

#[test]
fn a_spent_budget_stops_the_timeline_and_says_so() {
    // Room for three bare ops: the fourth is refused, and so is a host span after it.
    let mut t = Timeline::with_memory_budget("big.json", 3 * OP_BYTES + 10);
    let k = t.intern("k");
    for i in 0..5 {
        t.push_op(DeviceOp::new(OpKind::Kernel, k, 0, 7, i * 10, 5));
    }
    t.push_host(HostSpan::test(k, HostCategory::Runtime, 0, 1, None));
    assert_eq!((t.ops.len(), t.host.len()), (3, 0));
    assert!(t.is_full());
    let note = t.partial.as_deref().unwrap();
    let budget = format!("stopped at the memory budget ({} B) after 3 device ops", 3 * OP_BYTES + 10);
    assert!(note.starts_with(&budget), "{note}");
    assert_eq!(note.matches("stopped").count(), 1, "noted once: {note}");
    assert_eq!(t.check_loaded(), Ok(()), "a partial timeline with ops is analysed");
    let mut empty = Timeline::with_memory_budget("big.json", 10);
    empty.push_op(DeviceOp::new(OpKind::Kernel, k, 0, 7, 0, 5));
    let error = empty.check_loaded().unwrap_err();
    assert!(error.starts_with("big.json: the memory budget (10 B) was spent before the first device op"), "{error}");
}

#[test]
fn ops_go_in_start_order_ties_in_source_order_unless_a_sum_overflowed() {
    let mut t = Timeline::new("tables.sqlite");
    let (k, c, s) = (t.intern("kernel"), t.intern("copy"), t.intern("set"));
    // Listed table by table, as an nsys export's tables come.
    for (name, start) in [(k, 30), (k, 50), (c, 10), (c, 30), (s, 20)] {
        t.push_op(DeviceOp::new(OpKind::Kernel, name, 0, 7, start, 5));
    }
    assert_eq!(t.finish_loading(), Ok(()));
    let order: Vec<(&str, u64)> = t.ops.iter().map(|op| (t.name(op.name()), op.start_ns)).collect();
    assert_eq!(order, [("copy", 10), ("set", 20), ("kernel", 30), ("copy", 30), ("kernel", 50)]);
    let mut bad = Timeline::new("bad.csv");
    let (a, b) = (bad.intern("a"), bad.intern("b"));
    bad.push_op(DeviceOp::new(OpKind::Kernel, a, 0, 7, 9, u64::MAX - 10));
    bad.push_op(DeviceOp::new(OpKind::Kernel, b, 0, 7, 5, 20));
    let error = bad.finish_loading().unwrap_err();
    assert!(error.contains("device op 2 (`b`"), "{error}");
    assert_eq!(bad.name(bad.ops[1].name()), "b", "the op check_loaded names stays where it was");
}

#[test]
fn equal_details_are_shared_and_counted_once_against_the_budget() {
    let mut t = Timeline::with_memory_budget("k.csv", 2 * OP_BYTES + DETAILS_BYTES + 1);
    let k = t.intern("k");
    for start in [0, 10] {
        let op = DeviceOp::new(OpKind::Kernel, k, 0, 7, start, 5);
        t.push_op_with(op, OpDetails { grid: Some([4, 1, 1]), ..OpDetails::default() });
    }
    assert_eq!(t.ops.len(), 2, "the second op's details cost nothing more");
    assert_eq!(t.ops[0].details(), t.ops[1].details());
    assert_eq!(t.details.len(), 1);
    // Changing one op's details after the load changes that op alone.
    assert!(t.set_details(1, OpDetails { grid: Some([8, 1, 1]), ..OpDetails::default() }));
    assert!(!t.set_details(2, OpDetails::default()));
    assert_eq!(t.details_of(&t.ops[0]).unwrap().grid, Some([4, 1, 1]));
    assert_eq!(t.details_of(&t.ops[1]).unwrap().grid, Some([8, 1, 1]));
}

#[test]
fn durations_that_sum_past_64_bits_name_the_op() {
    let mut t = Timeline::new("bad.csv");
    let (a, b) = (t.intern("a"), t.intern("b"));
    t.push_op(DeviceOp::new(OpKind::Kernel, a, 0, 7, 0, u64::MAX - 10));
    assert_eq!(t.check_loaded(), Ok(()));
    t.push_op(DeviceOp::new(OpKind::Kernel, b, 0, 7, 5, 20));
    let error = t.check_loaded().unwrap_err();
    assert!(error.starts_with("bad.csv: device op 2 (`b`, start 5 ns, duration 20 ns)"), "{error}");
    // An op whose own end passes 2^64 is refused the same way.
    let mut t = Timeline::new("end.csv");
    let a = t.intern("a");
    t.push_op(DeviceOp::new(OpKind::Kernel, a, 0, 7, u64::MAX - 1, 2));
    assert!(t.check_loaded().unwrap_err().contains("device op 1"));
}

#[test]
#[cfg(target_pointer_width = "64")]
fn a_device_op_is_24_bytes() {
    // Start, the duration word, the packed correlation, the packed name/details and the
    // packed kind/device/stream, no padding: what 10 M ops cost (240 MB).
    assert_eq!(std::mem::size_of::<DeviceOp>(), 24);
    assert_eq!(std::mem::align_of::<DeviceOp>(), 8);
    assert_eq!(OP_BYTES, 24);
}

#[test]
#[cfg(target_pointer_width = "64")]
fn a_host_span_is_36_bytes() {
    // Start, tid, the duration word, the packed correlation (4 bytes, none included), name,
    // pid and category, packed to 4-byte alignment: at a launch per kernel, 10 M launches cost
    // 360 MB (480 padded to 8 with an 8-byte id, 560 with an `Option<u64>` one).
    assert_eq!(std::mem::size_of::<HostSpan>(), 36);
    assert_eq!(std::mem::align_of::<HostSpan>(), 4);
    assert_eq!(crate::load_budget::HOST_BYTES, 36);
    // A span past 2^31 ns (a `generate` call, a long sync) reads back whole.
    let long = HostSpan::new(NameId(0), HostCategory::Runtime, (1, 2), 5, 9_000_000_000, None.into());
    assert_eq!((long.dur_ns(), { long.start_ns }, { long.tid }), (9_000_000_000, 5, 2));
}

#[test]
fn ops_past_the_packed_name_and_details_read_back_exactly() {
    // 70,000 names and 40,000 distinct details: the later ops' name and details ids are past
    // the 16 and 15 bits of the packed word (`op_label.rs`) and are kept in its side table.
    let mut t = Timeline::new("wide.json");
    let names: Vec<NameId> = (0..70_000).map(|k| t.intern(&format!("kernel_{k}"))).collect();
    for (k, &name) in names.iter().enumerate() {
        let op = DeviceOp::new(OpKind::Kernel, name, 0, 7, k as u64 * 10, 5 + (k % 3) as u64);
        if k < 40_000 {
            t.push_op_with(op, OpDetails { grid: Some([k as u32, 1, 1]), ..OpDetails::default() });
        } else {
            t.push_op(op);
        }
    }
    t.finish_loading().unwrap();
    assert_eq!(t.details.len(), 40_000);
    for (k, op) in t.ops.iter().enumerate() {
        assert_eq!(t.name(op.name()), format!("kernel_{k}"));
        assert_eq!(t.details_of(op).and_then(|d| d.grid), (k < 40_000).then_some([k as u32, 1, 1]), "op {k}");
    }
    // Every duration reads back: their sum is the one written.
    let want: u64 = (0..70_000u64).map(|k| 5 + k % 3).sum();
    assert_eq!(t.ops.iter().map(|op| op.dur_ns()).sum::<u64>(), want);
    // 69,999 is a multiple of 3: the op lasts 5 ns.
    let last = t.ops.iter().find(|op| t.name(op.name()) == "kernel_69999").unwrap();
    assert_eq!(last.dur_ns(), 5);
}
