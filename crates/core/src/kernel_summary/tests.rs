//! Tests of the kernel summary.

use super::*;

#[test]
fn checked_totals_refuse_what_passes_64_bits() {
    let mut sums = CheckedTotals::default();
    sums.add(3, u64::MAX - 5).unwrap();
    assert_eq!(sums, CheckedTotals { calls: 3, ns: u64::MAX - 5 });
    assert!(sums.add(1, 6).unwrap_err().starts_with("the times summed"));
    let mut sums = CheckedTotals::default();
    sums.add(u64::MAX, 0).unwrap();
    assert!(sums.add(1, 0).unwrap_err().starts_with("the call counts summed"));
}

#[test]
fn overlapping_streams_count_once_and_rows_rank_by_total() {
    let mut t = Timeline::new("test");
    let a = t.intern("ampere_sgemm_128x64_nn");
    let b = t.intern("vectorized_elementwise_kernel");
    // Unsorted on purpose: busy is the union [0,100) ∪ [150,200) = 150 of a 200 wall.
    t.push_op(DeviceOp::new(OpKind::Kernel, b, 0, 8, 150, 50));
    t.push_op(DeviceOp::new(OpKind::Kernel, a, 0, 7, 0, 100));
    t.push_op(DeviceOp::new(OpKind::Kernel, b, 0, 8, 20, 30));
    let s = summarize_kernels(&t, &Families::builtin());
    assert_eq!(s.device_ns, 180);
    assert_eq!(s.devices[0].busy_ns, 150);
    assert_eq!(s.devices[0].wall_ns, 200);
    assert_eq!(s.kernels[0].name, "ampere_sgemm_128x64_nn");
    assert_eq!((s.kernels[1].calls, s.kernels[1].min_ns, s.kernels[1].max_ns), (2, 30, 50));
    assert_eq!(s.family_ns(Family::Elementwise), 80);
    assert_eq!(s.top(1).len(), 1);
}

/// Ops whose name ids this timeline's names do not hold (an id from another interner) are
/// still one row per id, found without the table by id.
#[test]
fn names_past_the_table_get_one_row_each() {
    let mut t = Timeline::new("foreign");
    let known = t.intern("k");
    for (name, dur) in [(known, 5), (NameId(700), 7), (NameId(900), 11), (NameId(700), 13), (known, 1)] {
        t.push_op(DeviceOp::new(OpKind::Kernel, name, 0, 7, 100, dur));
    }
    let s = summarize_kernels(&t, &Families::builtin());
    let rows: Vec<(NameId, u64, u64)> = s.kernels.iter().map(|k| (k.name_id, k.calls, k.total_ns)).collect();
    assert_eq!(rows, [(NameId(700), 2, 20), (NameId(900), 1, 11), (known, 2, 6)]);
}
