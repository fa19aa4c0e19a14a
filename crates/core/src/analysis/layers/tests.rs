//! Tests of the layer analysis on small hand-checked sequences and one large one.

use super::*;
use prof_timeline::timeline::OpKind;

/// Ops on device 0 stream 7, back to back, 10 ns apart, named by `sequence`.
fn timeline(sequence: &[(&str, u64)]) -> Timeline {
    let mut t = Timeline::new("test");
    let mut at = 0;
    for &(name, dur) in sequence {
        let id = t.intern(name);
        t.push_op(DeviceOp::new(OpKind::Kernel, id, 0, 7, at, dur));
        at += dur + 10;
    }
    t
}

#[test]
fn finds_the_layer_after_a_prologue_and_averages_each_position() {
    // prologue "embed", 3 layers of norm(10|20|30) gemm(100) act(10), epilogue "head".
    let mut seq = vec![("embed", 50)];
    for norm in [10, 20, 30] {
        seq.extend([("norm", norm), ("gemm", 100), ("act", 10)]);
    }
    seq.push(("head", 40));
    // A side stream op must not count.
    let mut t = timeline(&seq);
    let side = t.intern("copy");
    t.push_op(DeviceOp::new(OpKind::Memcpy, side, 0, 9, 0, 1_000));
    let layers = find_layers(&t, &Families::builtin()).unwrap();
    assert_eq!((layers.period_ops, layers.count, layers.first_op_index, layers.stream), (3, 3, 1, 7));
    // offset: embed 50 + 10 gap.
    assert_eq!(layers.offset_ns, 60);
    let names: Vec<&str> = layers.ops.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["norm", "gemm", "act"]);
    // norm mean (10+20+30)/3 = 20; layer sum 20+100+10 = 130.
    assert_eq!(layers.ops[0].mean_ns, 20.0);
    assert!((layers.ops[1].share_pct - 100.0 * 100.0 / 130.0).abs() < 1e-9);
    assert_eq!(layers.by_share()[0].name, "gemm");
    // layer k spans norm start .. act end: norm + 10 + 100 + 10 + 10.
    assert_eq!((layers.layer_min_ns, layers.layer_max_ns), (140, 160));
    assert_eq!(layers.layer_mean_ns, 150.0);
    // covered: 390 of 50 + 390 + 40.
    assert!((layers.covered_pct - 390.0 * 100.0 / 480.0).abs() < 1e-9);
    assert_eq!(layers.profiler_steps, None);
    assert_eq!(layers.inner, None);
}

#[test]
fn tolerates_one_differing_op_and_prefers_the_period_that_covers_most_time() {
    // 4 layers of 10 ops, the 3rd layer's softmax is a different node.
    let mut seq = Vec::new();
    for k in 0..4 {
        for j in 0..10 {
            let name = match (k, j) {
                (2, 5) => "softmax_b",
                (_, 5) => "softmax_a",
                _ => ["a", "b", "c", "d", "e", "", "g", "h", "i", "j"][j],
            };
            seq.push((name, 5));
        }
    }
    // A cheap pair repeating many times after it must not win.
    for _ in 0..8 {
        seq.extend([("x", 1), ("y", 1)]);
    }
    let layers = find_layers(&timeline(&seq), &Families::builtin()).unwrap();
    assert_eq!((layers.period_ops, layers.count, layers.first_op_index), (10, 4, 0));
    assert_eq!(layers.ops[5].name, "softmax_a");
}

#[test]
fn a_step_of_repeated_layers_reports_the_inner_repeat() {
    // 3 steps: 4 × (norm 10, gemv 40), then head 100.
    let mut seq = Vec::new();
    for _ in 0..3 {
        for _ in 0..4 {
            seq.extend([("norm", 10), ("gemv", 40)]);
        }
        seq.push(("head", 100));
    }
    let layers = find_layers(&timeline(&seq), &Families::builtin()).unwrap();
    assert_eq!((layers.period_ops, layers.count), (9, 3));
    let inner = layers.inner.unwrap();
    assert_eq!((inner.period_ops, inner.count, inner.first_position), (2, 4, 0));
    // 4 × 50 of 300.
    assert!((inner.covered_pct - 200.0 * 100.0 / 300.0).abs() < 1e-9);
}

#[test]
fn large_timelines_stay_linear() {
    // 200 steps of 1000 ops (names k0..k999), 200 000 ops: one pass per candidate period.
    let mut t = Timeline::new("test");
    let names: Vec<NameId> = (0..1_000).map(|i| t.intern(&format!("k{i}"))).collect();
    for step in 0..200u64 {
        for (i, &name) in names.iter().enumerate() {
            let at = (step * 1_000 + i as u64) * 100;
            t.push_op(DeviceOp::new(OpKind::Kernel, name, 0, 7, at, 50 + i as u64 % 7));
        }
    }
    let started = std::time::Instant::now();
    let layers = find_layers(&t, &Families::builtin()).unwrap();
    assert_eq!((layers.period_ops, layers.count, layers.covered_pct), (1_000, 200, 100.0));
    assert!(started.elapsed().as_secs() < 20, "took {:?}", started.elapsed());
}

#[test]
fn nothing_repeats_nothing_found() {
    let seq: Vec<(&str, u64)> = ["a", "b", "c", "d", "e"].iter().map(|&n| (n, 10)).collect();
    assert_eq!(find_layers(&timeline(&seq), &Families::builtin()), None);
    assert_eq!(find_layers(&Timeline::new("empty"), &Families::builtin()), None);
}

/// A main stream whose ops the timeline holds out of order (a source that lists them table by
/// table, read without the loader's sort) gives the layers of the ops in order.
#[test]
fn a_main_stream_out_of_order_gives_the_layers_of_the_ordered_one() {
    let mut seq = vec![("embed", 50)];
    for k in 0..6 {
        seq.extend([("norm", 10 + k), ("gemm", 100), ("act", 10), ("add", 5 + k)]);
    }
    seq.push(("head", 40));
    let ordered = timeline(&seq);
    let mut reversed = ordered.clone();
    reversed.ops.reverse();
    let side = reversed.intern("copy");
    reversed.push_op(DeviceOp::new(OpKind::Memcpy, side, 0, 9, 0, 1_000));
    let layers = find_layers(&ordered, &Families::builtin()).unwrap();
    assert_eq!((layers.period_ops, layers.count, layers.first_op_index), (4, 6, 1));
    assert_eq!(find_layers(&reversed, &Families::builtin()), Some(layers));
}
