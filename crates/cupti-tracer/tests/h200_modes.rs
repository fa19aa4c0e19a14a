//! The loader on real traces that the release tracer wrote on the H200 with
//! `PROF_CUPTI_API=launch` and `none` (2 ms windows of work.py; see tests/fixtures/nvidia/SOURCES.md).
//! Expected numbers were counted from the files with a separate Python walk of the format.

use prof_backend_nvidia::fuzz::cupti_trace::load_paths;
use prof_core::{HostCategory, OpKind, Timeline};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn load(name: &str) -> Timeline {
    let path =
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/nvidia/h200-cupti/")).join(name);
    load_paths(&[path]).unwrap()
}

fn count(t: &Timeline, kind: OpKind) -> usize {
    t.ops.iter().filter(|op| op.kind() == kind).count()
}

#[test]
fn a_launch_mode_trace_holds_only_launches_and_links_every_kernel() {
    let t = load("prof-cupti-682-launch.pcupti");
    assert_eq!(t.partial, None);
    assert_eq!((count(&t, OpKind::Kernel), count(&t, OpKind::Memset), count(&t, OpKind::Memcpy)), (93, 5, 0));
    let mut calls: BTreeMap<&str, usize> = BTreeMap::new();
    for span in &t.host {
        *calls.entry(t.name(span.name)).or_default() += 1;
    }
    let expected =
        [("cuLaunchKernelEx", 35), ("cudaLaunchKernel", 38), ("cudaLaunchKernelExC", 20), ("cudaMemsetAsync", 5)];
    assert_eq!(calls.into_iter().collect::<Vec<_>>(), expected);
    let driver = t.host.iter().filter(|h| h.category == HostCategory::Driver).count();
    assert_eq!(driver, 35);
    let launches = t.host_by_correlation();
    assert!(
        t.ops.iter().all(|op| op.correlation.get().is_some_and(|c| launches.contains_key(&c))),
        "every op has its call"
    );
}

#[test]
fn a_none_mode_trace_has_no_api_calls_but_keeps_correlation_ids() {
    let t = load("prof-cupti-713-none.pcupti");
    assert_eq!(t.partial, None);
    assert_eq!((count(&t, OpKind::Kernel), count(&t, OpKind::Memset)), (114, 6));
    assert!(t.host.is_empty());
    assert!(t.ops.iter().all(|op| op.correlation.get().is_some_and(|c| c != 0)));
}
