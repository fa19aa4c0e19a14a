//! Expected numbers come from the python checks noted in `op_table_tests.rs` and
//! `trace_json_tests.rs`.

use super::*;
use crate::test_fixtures::{fixture_path, CANN8_GROUP, CANN8_PIPE, MINDINSIGHT_PROF, MSINSIGHT_RANK0};

#[test]
fn cann8_directory_merges_op_summary_and_trace() {
    let root = fixture_path(CANN8_PIPE).parent().unwrap().to_owned();
    let files = ProfileFiles::find(&root).unwrap();
    assert!(files.op_table.as_deref().unwrap().ends_with("op_summary_20260823165335.csv"));
    assert!(files.trace.as_deref().unwrap().ends_with("msprof_20260823165334.json"));
    assert!(files.op_statistic.is_some());
    let t = files.load().unwrap();
    assert_eq!(t.ops.len(), 3);
    assert_eq!(t.ops.iter().map(|o| o.dur_ns()).sum::<u64>(), 39_322);
    // python: the stream-46 hardware events of msprof_*.json start at the op_summary starts and carry
    // connection_id 26, 34, 74, each shared with a CANN `Node@launch` span.
    let correlations: Vec<_> = t.ops.iter().map(|o| o.correlation.get()).collect();
    assert_eq!(correlations, [Some(26), Some(34), Some(74)]);
    let by_corr = t.host_by_correlation();
    assert!(correlations
        .iter()
        .flatten()
        .all(|c| by_corr.get(c).is_some_and(|&i| t.name(t.host[i].name) == "Node@launch")));
    assert_eq!(t.host.len(), 80);
    assert_eq!(t.counters.len(), 1);
    assert_eq!(t.partial, None);
}

#[test]
fn old_msprof_directory_loads_the_trace_and_says_what_is_missing() {
    let t = ProfileFiles::find(&fixture_path(MINDINSIGHT_PROF)).unwrap().load().unwrap();
    // 490 hardware tasks less 12 runtime EVENT_* tasks (see trace_json's tests).
    assert_eq!(t.ops.len(), 478);
    let note = t.partial.unwrap();
    assert!(note.contains("no op table") && note.contains("without op types"), "{note}");
}

#[test]
fn op_table_alone_skips_host_analyses() {
    let dir = std::env::temp_dir().join(format!("prof-ascend-table-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixture_path(CANN8_PIPE).join("op_summary_20260823165335.csv"), dir.join("op_summary_1.csv"))
        .unwrap();
    let t = ProfileFiles::find(&dir).unwrap().load();
    std::fs::remove_dir_all(&dir).unwrap();
    let note = t.unwrap().partial.unwrap();
    assert!(note.contains("no trace") && note.contains("host-bound"), "{note}");
}

#[test]
fn several_profiles_are_refused_by_name() {
    let err = ProfileFiles::find(&fixture_path(CANN8_GROUP)).unwrap_err().to_string();
    assert!(
        err.contains("several profiles")
            && err.contains("PROF_PipeUtilization")
            && err.contains("PROF_ResourceConflictRatio"),
        "{err}"
    );
}

#[test]
fn directories_without_profile_files_are_errors() {
    let err = ProfileFiles::find(&fixture_path(MSINSIGHT_RANK0)).unwrap_err().to_string();
    assert!(err.contains("test_rank_0") && err.contains("no Ascend profile files"), "{err}");
    let empty = std::env::temp_dir().join(format!("prof-ascend-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let result = ProfileFiles::find(&empty);
    std::fs::remove_dir_all(&empty).unwrap();
    assert!(result.unwrap_err().to_string().contains("kernel_details.csv"));
}

/// A real msprof tree with task_time and op_statistic but no op_summary: task_time gives the
/// timeline (its device tasks; the runtime's bookkeeping tasks counted as unread). Expected from
/// python's csv module on the file: 7 rows, 4 of them runtime tasks (PROFILING_ENABLE,
/// TASK_TIMEOUT_SET 81.4 µs, EVENT_RECORD, PROFILING_DISABLE); `main_kernel` 3 tasks, 249,611.26 µs.
#[test]
fn task_time_is_the_op_table_when_there_is_no_op_summary() {
    let root = fixture_path("neo-pan_tilelang_msprof/PROF_000001_20260605155111872_JDEKRCNERPBNJEGA");
    let files = ProfileFiles::find(&root).unwrap();
    assert!(files.op_table.as_deref().unwrap().ends_with("task_time_20260605155140.csv"));
    let t = files.load().unwrap();
    assert_eq!(t.ops.len(), 3);
    assert_eq!(t.ops.iter().map(|o| o.dur_ns()).sum::<u64>(), 249_611_260);
    let main: Vec<_> = t.ops.iter().filter(|o| t.name(o.name()) == "main_kernel").collect();
    assert_eq!((main.len(), main.iter().map(|o| o.dur_ns()).sum::<u64>()), (3, 249_611_260));
    assert!(main.iter().all(|o| o.kind() == prof_core::OpKind::Kernel));
    assert!(t.ops.iter().all(|o| t.name(o.name()) == "main_kernel"));
    assert!(t.unread.contains(&("runtime task TASK_TIMEOUT_SET".to_owned(), 1)), "{:?}", t.unread);
    assert_eq!(t.unread.iter().map(|(_, n)| n).sum::<u64>(), 4);
    assert!(t.partial.as_deref().unwrap().contains("ops come from task_time"), "{:?}", t.partial);
}
