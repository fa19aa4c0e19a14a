//! Kineto traces of other PyTorch versions and shapes, each a real file (tests/fixtures/nvidia/
//! SOURCES.md). Expected numbers from python's json/gzip modules on each file: the `ph: X`
//! events whose `cat` is `kernel` in any case, their count and summed `dur`.

use super::*;
use prof_core::OpKind;

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/nvidia/torch").join(name)
}

/// Kernels (NCCL ones become communication ops): count and summed duration, ns.
fn kernels(t: &Timeline) -> (usize, u64) {
    let k: Vec<_> = t.ops.iter().filter(|o| matches!(o.kind(), OpKind::Kernel | OpKind::Communication)).collect();
    (k.len(), k.iter().map(|o| o.dur_ns()).sum())
}

#[test]
fn every_version_and_key_order_reads_its_kernels() {
    let cases = [
        // PyTorch 1.9: `Kernel`, `Memcpy`, `Memset`, `Runtime`, `Operator`.
        ("kineto_pt19_resnet50_worker0.1623143089861.pt.trace.json.gz", (8772, 591_532_000), true),
        // Before 1.8: a bare array of events.
        ("kineto_pt18pre_resnet50_nw0_worker0_toplevel_array.pt.trace.json.gz", (9538, 635_237_000), false),
        // torch 2.6 re-saved with traceEvents before schemaVersion (past the gzip head, so it is
        // recognised by its event categories); decimal durations.
        ("tracelens_h100_bert_small_traceEvents_first.json.gz", (60, 307_197), false),
        // Old categories, only traceEvents and distributedInfo.
        ("hta_inference_rank_1_traceEvents_first_oldcats.json.gz", (4, 30_000), false),
    ];
    for (name, expected, kineto_keys) in cases {
        let path = fixture(name);
        assert_eq!(torch_trace_evidence(&path), Some(kineto_keys), "{name}");
        let t = load_torch_trace(&path).unwrap();
        assert_eq!(kernels(&t), expected, "{name}");
        assert_eq!(t.partial, None, "{name}");
    }
    // The same file plain: Kineto's keys after traceEvents are found in its tail.
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(fixture("tracelens_h100_bert_small_traceEvents_first.json.gz")).unwrap(),
    )
    .read_to_end(&mut plain)
    .unwrap();
    assert!(plain.len() > 2 * sniff::SNIFF_BYTES);
    let scratch = std::env::temp_dir().join(format!("prof-torch-plain-{}.json", std::process::id()));
    std::fs::write(&scratch, &plain).unwrap();
    assert_eq!(torch_trace_evidence(&scratch), Some(true));
    std::fs::remove_file(&scratch).unwrap();
    let old = load_torch_trace(&fixture("kineto_pt19_resnet50_worker0.1623143089861.pt.trace.json.gz")).unwrap();
    let count = |kind| old.ops.iter().filter(|o| o.kind() == kind).count();
    assert_eq!((count(OpKind::Memset), count(OpKind::Memcpy)), (312, 12));
    assert!(old.host.len() > 10_000, "Runtime and Operator events are host spans: {}", old.host.len());
    assert_eq!(distributed_rank(&fixture("hta_inference_rank_1_traceEvents_first_oldcats.json.gz")), Some(1));
}

#[test]
fn a_tensorboard_directory_of_ranks_names_each_rank_inside() {
    let dir = fixture("tb_dlrm_kineto_8ranks");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let counts = [245, 310, 246, 315, 251, 245, 246, 246];
    let sums_us = [6832, 12582, 4560, 11014, 7713, 7292, 4609, 2805];
    for (rank, path) in files.iter().enumerate() {
        assert_eq!(distributed_rank(path), Some(rank as u32), "{}", path.display());
        let t = load_torch_trace(path).unwrap();
        assert_eq!(kernels(&t), (counts[rank], sums_us[rank] * 1000), "rank {rank}");
    }
}

#[test]
fn complete_events_of_unknown_categories_only_are_an_error() {
    let text =
        br#"{"traceEvents": [{"ph": "X", "cat": "GpuKernel", "name": "k", "ts": 1, "dur": 2, "pid": 0, "tid": 7},
        {"ph": "X", "cat": "gpu_op", "name": "m", "ts": 3, "dur": 1, "pid": 0, "tid": 7}]}"#;
    let error = read_torch_trace(&text[..], Path::new("t.json")).unwrap_err().to_string();
    assert!(error.contains("holds 2 complete events but none in a category prof reads"), "{error}");
    assert!(error.contains("categories seen: GpuKernel, gpu_op"), "{error}");
}
