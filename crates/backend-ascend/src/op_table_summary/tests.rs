use super::*;
use crate::test_fixtures::fixture_path;
use prof_timeline::intervals::IntervalSet;

#[test]
fn streaming_summary_equals_the_timeline_summary() {
    // The reference is the summary of the fully loaded timeline (op_table::load +
    // summarize_kernels), itself checked against python in the op_table and e2e tests.
    let path = fixture_path("msprof-analyze_advisor_kernel_details/kernel_details.csv");
    let families = Families::builtin();
    let streamed = summarize(&path, &families).expect("fixture summarises");
    let timeline = crate::op_table::load(&path).expect("fixture loads");
    let mut loaded = prof_core::summarize_kernels(&timeline, &families);
    let mut got = streamed.summary.clone();
    for k in got.kernels.iter_mut().chain(loaded.kernels.iter_mut()) {
        k.name_id = NameId(0);
    }
    assert_eq!(got, loaded);
    // python3: csv.DictReader over the fixture, Counter of `Type` → 43 types, 591 rows.
    assert_eq!(streamed.op_types.len(), 43);
    assert_eq!(streamed.op_types.iter().map(|t| t.calls).sum::<u64>(), 591);
    assert_eq!(streamed.op_types.iter().map(|t| t.total_ns).sum::<u64>(), streamed.summary.device_ns);
}

#[test]
fn reading_in_parts_gives_the_same_numbers() {
    // A small first buffer, so that the fixture (128 kB) splits into parts like a large file.
    let path = fixture_path("msprof-analyze_advisor_kernel_details/kernel_details.csv");
    let families = Families::builtin();
    let whole = summarize(&path, &families).expect("fixture summarises");
    let size = std::fs::metadata(&path).expect("fixture exists").len();
    for threads in [2, 3, 7] {
        let first = CsvReader::open_with_buffer(&path, 4096).expect("fixture opens");
        let layout = Layout::of(first.header()).expect("an op table");
        let partial = in_parts(first, &layout, size, threads).expect("splits at line ends");
        assert_eq!(finish(partial, &path, &families).expect("finishes"), whole, "{threads} parts");
    }
}

#[test]
fn a_bad_value_in_a_column_it_does_not_read_fails_only_the_full_load() {
    // The real fixture with the first row's `Stream ID` (16) made `16i`: the summary reads
    // name, type, core, start and duration only, the full load also the stream.
    let real = std::fs::read_to_string(fixture_path("msprof-analyze_advisor_kernel_details/kernel_details.csv"))
        .expect("fixture reads");
    let bad = real.replacen(",1259,16,ZerosLike46,", ",1259,16i,ZerosLike46,", 1);
    assert_ne!(bad, real);
    let dir = std::env::temp_dir().join(format!("prof-op-table-summary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("kernel_details.csv");
    std::fs::write(&path, bad).expect("writes");
    let summary = summarize(&path, &Families::builtin()).expect("the summary does not read Stream ID");
    assert_eq!(summary.summary.ops, 591);
    let Err(err) = crate::op_table::load(&path) else { panic!("the load checks Stream ID") };
    let err = err.to_string();
    assert!(err.contains("kernel_details.csv:2") && err.contains("column Stream ID `16i`"), "{err}");
}

/// Random spans from `from` on, in start order (a few overlapping or touching the next).
fn spans_from(from: u64, count: usize, seed: &mut u64) -> Vec<(u64, u64)> {
    let mut next = |below: u64| {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed % below
    };
    let mut start = from;
    (0..count)
        .map(|_| {
            start += 50 + next(40);
            (start, start + 1 + next(60))
        })
        .collect()
}

#[test]
fn a_later_part_keeps_a_bounded_list_and_joins_to_the_exact_union() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for (earlier_ops, later_ops, reach) in [(10, 3 * KEPT_SPANS, 0), (500, 2 * KEPT_SPANS, 2_000), (3, 10, 500)] {
        let earlier = spans_from(0, earlier_ops, &mut seed);
        let boundary = earlier.last().map_or(0, |s| s.0) + 1;
        let later = spans_from(boundary, later_ops, &mut seed);
        // The earlier part's last op reaches `reach` ns past the later part's first start.
        let mut earlier = earlier;
        earlier.push((boundary, boundary + reach));
        let (mut first, mut second) = (DeviceAcc::new(false), DeviceAcc::new(true));
        earlier.iter().for_each(|&(s, e)| first.add(s, e));
        later.iter().for_each(|&(s, e)| second.add(s, e));
        let kept = second.closed.as_ref().map_or(0, Vec::len);
        assert!(kept <= KEPT_SPANS, "{kept} spans kept");
        assert_eq!(second.rest.is_some(), later_ops >= 2 * KEPT_SPANS, "{later_ops} later ops");
        let all: Vec<(u64, u64)> = earlier.iter().chain(&later).copied().collect();
        let want = IntervalSet::from_unsorted(all).total_ns();
        first.absorb(second).expect("the earlier part ends among the kept spans");
        assert_eq!(first.union.total_ns(), Some(want), "{earlier_ops} + {later_ops} ops");
        assert_eq!(first.ops, (earlier_ops + 1 + later_ops) as u64);
    }
}

#[test]
fn an_op_outlasting_the_kept_spans_refuses_the_join() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let later = spans_from(1_000, 2 * KEPT_SPANS, &mut seed);
    let (mut first, mut second) = (DeviceAcc::new(false), DeviceAcc::new(true));
    // One op of the earlier part runs to the later part's end.
    first.add(0, later.last().expect("spans").1);
    later.iter().for_each(|&(s, e)| second.add(s, e));
    assert!(second.rest.is_some());
    assert!(first.absorb(second).is_none());
}

#[test]
fn a_file_whose_early_op_outlasts_a_later_parts_kept_intervals_is_read_by_one_thread() {
    use std::fmt::Write as _;
    let dir = std::env::temp_dir().join(format!("prof-op-table-kept-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let families = Families::builtin();
    for long in [false, true] {
        // 200,000 ops of 1 µs every 2 µs on one device (disjoint: the later half of the file
        // holds ~100,000 merged intervals, more than a later part keeps); with `long`, op 10
        // runs 1 s, past every later start.
        let mut text = String::from("Name,Type,Accelerator Core,Start Time(us),Duration(us)\n");
        let mut spans = Vec::new();
        for i in 0..200_000u64 {
            let dur = if long && i == 10 { 1_000_000 } else { 1 };
            writeln!(text, "k{},T{},AI_CORE,{},{}", i % 7, i % 3, i * 2, dur).expect("writes");
            spans.push((i * 2_000, i * 2_000 + dur * 1_000));
        }
        let path = dir.join(format!("kernel_details_{long}.csv"));
        std::fs::write(&path, text).expect("writes");
        let want = IntervalSet::from_unsorted(spans).total_ns();
        let size = std::fs::metadata(&path).expect("written").len();
        let first = CsvReader::open_with_buffer(&path, 4096).expect("opens");
        let layout = Layout::of(first.header()).expect("an op table");
        let parted = in_parts(first, &layout, size, 2);
        // The join is refused exactly when the early op reaches past the kept intervals.
        assert_eq!(parted.is_none(), long, "long {long}");
        let whole = summarize(&path, &families).expect("summarises");
        assert_eq!(whole.summary.devices.len(), 1);
        assert_eq!(whole.summary.devices[0].busy_ns, want, "long {long}");
        assert_eq!(whole.summary.ops, 200_000);
        if let Some(parted) = parted {
            assert_eq!(finish(parted, &path, &families).expect("finishes"), whole);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
