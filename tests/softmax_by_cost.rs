//! The unfused-attention rule knows a softmax no kernel name tells by its cost
//! (crates/core/src/diagnosis/sandwich.rs): a reduction-family kernel between two matmuls of at
//! least 10 µs that takes at least 1.25× the longer of them. This test measures that ratio here,
//! written again from the loaded ops (each stream's kernels in start order, the nearest matmul
//! at most 4 kernels before and 8 after), on every fixture path prof reads, and checks the
//! margin the rule rests on: only the two XLA attention runs reach it, and nothing that is not
//! attention comes near it.

#![cfg(all(feature = "nvidia", feature = "amd", feature = "ascend"))]

mod support;

use prof_core::{Families, Family, Loaded, OpKind, Registry, Vendor};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every directory and file under `dir` but SOURCES.md, sorted (scripts/fixture_paths.py).
fn fixture_paths(dir: &Path, out: &mut Vec<PathBuf>) {
    out.push(dir.to_path_buf());
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            fixture_paths(&path, out);
        } else if path.file_name().is_some_and(|n| n != "SOURCES.md") {
            out.push(path);
        }
    }
}

/// The largest reduction / longer-matmul ratio of a timeline's sandwiches (matmuls ≥ 10 µs).
fn largest_ratio(registry: &Registry, path: &Path) -> Option<f64> {
    let families = Families::builtin();
    let Ok((Loaded::Timeline(timeline), _)) = registry.load(path, &families) else { return None };
    let by_name = prof_core::summarize_kernels(&timeline, &families).family_map();
    let mut streams: BTreeMap<(u32, u64), Vec<_>> = BTreeMap::new();
    for op in timeline.ops.iter().filter(|op| op.kind() == OpKind::Kernel) {
        streams.entry((op.device(), op.stream())).or_default().push(*op);
    }
    let matmul = |op: &prof_core::DeviceOp| by_name.get(&op.name()).is_some_and(|f| f.is_matmul());
    let mut largest: Option<f64> = None;
    for ops in streams.values_mut() {
        ops.sort_by_key(|op| op.start_ns);
        for at in 0..ops.len() {
            let name = timeline.name(ops[at].name()).to_ascii_lowercase();
            if by_name.get(&ops[at].name()) != Some(&Family::Reduction) || name.contains("softmax") {
                continue;
            }
            let before = ops[at.saturating_sub(4)..at].iter().rev().find(|op| matmul(op));
            let after = ops[at + 1..].iter().take(8).find(|op| matmul(op));
            let (Some(before), Some(after)) = (before, after) else { continue };
            if before.dur_ns().min(after.dur_ns()) < 10_000 {
                continue;
            }
            let ratio = ops[at].dur_ns() as f64 / before.dur_ns().max(after.dur_ns()) as f64;
            largest = Some(largest.map_or(ratio, |r: f64| r.max(ratio)));
        }
    }
    largest
}

#[test]
fn only_attention_softmaxes_outlast_the_matmuls_around_them() {
    let vendors: Vec<Box<dyn Vendor>> = vec![
        Box::new(prof_backend_nvidia::NvidiaVendor::new()),
        Box::new(prof_backend_amd::AmdVendor::new()),
        Box::new(prof_backend_ascend::AscendVendor::new()),
    ];
    let registry = Registry::new(vendors);
    let root = support::fixtures();
    let mut paths = Vec::new();
    fixture_paths(&root, &mut paths);
    let mut attention = BTreeMap::new();
    let (mut rest, mut measured) = (0.0f64, 0);
    for path in &paths {
        let Some(ratio) = largest_ratio(&registry, path) else { continue };
        measured += 1;
        let rel = path.strip_prefix(&root).unwrap().display().to_string();
        if ratio >= 1.25 {
            attention.insert(rel, ratio);
        } else {
            rest = rest.max(ratio);
        }
    }
    let found: Vec<(&str, String)> = attention.iter().map(|(p, r)| (p.as_str(), format!("{r:.2}"))).collect();
    assert_eq!(
        found,
        [
            ("nvidia/h100-zoo2/jax-transformer.pcupti.gz", "1.57".to_owned()),
            ("nvidia/h200-zoo2/jax-attention.pcupti.gz", "5.44".to_owned())
        ],
        "the runs whose reductions outlast the matmuls around them"
    );
    // The margin: the largest ratio of a reduction that is no attention (an FP8 decode's amax
    // beside its GEMMs) stays well under the rule's 1.25.
    assert!(rest > 0.5 && rest < 0.9, "largest ratio that is no attention: {rest:.2}");
    assert!(measured >= 20, "sandwiches measured on {measured} paths");
}
