//! The steps and layers of a real windowed capture, against the op sequence read with SQL.

use super::*;
use crate::test_fixtures::Scratch;
use prof_core::Families;

/// Stream 7's op names of `path` (kernels by demangled name, copies by kind, sets) in (start,
/// end) order, read with SQL: what the step search reads, found apart from prof's loader.
fn stream_names(path: &std::path::Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let sql = "SELECT name FROM ( \
        SELECT k.start, k.\"end\", s.value AS name, k.streamId FROM CUPTI_ACTIVITY_KIND_KERNEL k \
            JOIN StringIds s ON s.id = k.demangledName \
        UNION ALL SELECT start, \"end\", 'memcpy ' || copyKind, streamId FROM CUPTI_ACTIVITY_KIND_MEMCPY \
        UNION ALL SELECT start, \"end\", 'memset', streamId FROM CUPTI_ACTIVITY_KIND_MEMSET \
    ) WHERE streamId = 7 ORDER BY start, \"end\"";
    let mut statement = conn.prepare(sql).unwrap();
    let names = statement.query_map([], |row| row.get::<_, String>(0)).unwrap();
    names.map(Result::unwrap).collect()
}

/// This project's `prof breakdown --tool nsys --skip 24s --window 6s` of the Llama-style
/// decode client on the H100 machine (tests/fixtures/nvidia/SOURCES.md). A decode step is 397
/// ops of stream 7: the embedding lookup (`indexSelectSmallIndex`) comes every 397 ops, and at
/// that distance the names repeat at all but 466 of the 28,233 positions. Until 2026-12-05 the
/// search took 395 ops (26,746 mismatches: chance matches of the common elementwise kernels,
/// one every twenty ops, strung the whole window into one region), and the layer table averaged
/// different kernels at each position.
#[test]
fn h100_decode_window_steps_are_the_sequence_sql_reads() {
    let scratch = Scratch::new("h100-decode");
    let exports = crate::test_fixtures::nsys_exports(&scratch);
    let path = exports.iter().find(|p| p.ends_with("h100-decode-window_nsys2025.3.2_schema3.20.3.sqlite")).unwrap();
    let names = stream_names(path);
    assert_eq!(names.len(), 28_630);
    let lookups: Vec<usize> =
        names.iter().enumerate().filter(|(_, n)| n.contains("indexSelectSmallIndex")).map(|(at, _)| at).collect();
    let step = lookups[1] - lookups[0];
    assert!(lookups.windows(2).all(|w| w[1] - w[0] == step), "one lookup a step");
    let mismatches = |p: usize| (0..names.len() - p).filter(|&i| names[i] != names[i + p]).count();
    assert_eq!((step, mismatches(397), mismatches(395)), (397, 466, 26_746));

    let t = load(path).unwrap();
    let layers = prof_core::analysis::layers::find_layers(&t, &Families::builtin()).unwrap();
    assert_eq!((layers.stream, layers.stream_ops, layers.period_ops), (7, names.len(), step));
    // The region prof found repeats: its names match one period on at nearly every position.
    let (from, to) = (layers.first_op_index, layers.first_op_index + (layers.count - 1) * step);
    let off = (from..to).filter(|&i| names[i] != names[i + step]).count();
    assert!(off * 100 < to - from, "{off} of {} positions differ", to - from);
    // The costliest position of the layer is one kernel, not a blend: the lm-head GEMV.
    let top = layers.by_share()[0];
    assert!(top.name.starts_with("nvjet_sm90_tst_256x8_64x6"), "{}", top.name);
    let phases = prof_core::phases::find_phases(&t);
    let steady = phases.phases.iter().find(|p| p.kind == prof_core::phases::PhaseKind::Steady).unwrap();
    assert!(steady.marks.contains("(a repeating sequence of 397 ops)"), "{}", steady.marks);
}
