//! The unfused-attention rule knows a softmax no kernel name tells by its cost
//! (crates/core/src/diagnosis/sandwich.rs): a reduction-family kernel between two matmuls of at
//! least 10 µs that takes at least 1.25× the longer of them. This test measures that ratio here,
//! written again from the loaded ops (each stream's kernels in start order, the nearest matmul
//! at most 4 kernels before and 8 after), on every fixture path prof reads, and checks the
//! margin the rule rests on: only XLA attention runs reach it, but for the layer-norm MLP
//! controls, whose heavy norms sit one matmul apart (a chain of layers, which the rule leaves
//! out); nothing else comes near it.

#![cfg(all(feature = "nvidia", feature = "amd", feature = "ascend"))]

mod support;

use prof_core::{Families, Family, Loaded, OpKind, Registry, Vendor};
use std::collections::BTreeMap;
use std::path::Path;

/// A timeline's sandwiches: the largest reduction / longer-matmul ratio under the rule's 1.25
/// (matmuls >= 10 us), and the (matmul before, matmul after) positions of those at or above it.
struct Measured {
    largest_light: f64,
    heavy_pairs: Vec<(usize, usize)>,
}

fn measure(registry: &Registry, path: &Path) -> Option<Measured> {
    let families = Families::builtin();
    let Ok((Loaded::Timeline(timeline), _)) = registry.load(path, &families) else { return None };
    let by_name = prof_core::summarize_kernels(&timeline, &families).family_map();
    let mut streams: BTreeMap<(u32, u64), Vec<_>> = BTreeMap::new();
    for op in timeline.ops.iter().filter(|op| op.kind() == OpKind::Kernel) {
        streams.entry((op.device(), op.stream())).or_default().push(*op);
    }
    let matmul = |op: &prof_core::DeviceOp| by_name.get(&op.name()).is_some_and(|f| f.is_matmul());
    let mut found = Measured { largest_light: 0.0, heavy_pairs: Vec::new() };
    let mut any = false;
    for (stream_index, ops) in streams.values_mut().enumerate() {
        ops.sort_by_key(|op| op.start_ns);
        for at in 0..ops.len() {
            let name = timeline.name(ops[at].name()).to_ascii_lowercase();
            if by_name.get(&ops[at].name()) != Some(&Family::Reduction) || name.contains("softmax") {
                continue;
            }
            let before = (at.saturating_sub(4)..at).rev().find(|&i| matmul(&ops[i]));
            let after = (at + 1..ops.len()).take(8).find(|&i| matmul(&ops[i]));
            let (Some(before), Some(after)) = (before, after) else { continue };
            let (b, a) = (ops[before].dur_ns(), ops[after].dur_ns());
            if b.min(a) < 10_000 {
                continue;
            }
            any = true;
            let ratio = ops[at].dur_ns() as f64 / b.max(a) as f64;
            if ratio >= 1.25 {
                // Positions made unique across streams.
                found.heavy_pairs.push((stream_index << 32 | before, stream_index << 32 | after));
            } else {
                found.largest_light = found.largest_light.max(ratio);
            }
        }
    }
    any.then_some(found)
}

/// Attention runs whose softmax is split over several kernels, none outlasting the matmuls
/// around it (held out in the README's zoo: the rule misses them); their pieces come close to
/// the ratio (0.96 for the manual softmax's amax) and are not part of the margin.
const SPLIT_SOFTMAX: [&str; 2] =
    ["nvidia/h100-zoo2/manual-softmax.pcupti.gz", "xla/jax08_attention_mi300.xplane.pb.gz"];

#[test]
fn only_attention_softmaxes_outlast_the_matmuls_around_them() {
    let vendors: Vec<Box<dyn Vendor>> = vec![
        Box::new(prof_backend_nvidia::NvidiaVendor::new()),
        Box::new(prof_backend_amd::AmdVendor::new()),
        Box::new(prof_backend_ascend::AscendVendor::new()),
    ];
    let registry = Registry::new(vendors);
    let root = support::fixtures();
    let paths = support::every_fixture();
    let (mut attention, mut chains) = (Vec::new(), Vec::new());
    let (mut rest, mut measured) = (0.0f64, 0);
    for path in &paths {
        let Some(found) = measure(&registry, path) else { continue };
        measured += 1;
        let rel = path.strip_prefix(&root).unwrap().display().to_string();
        let pairs = &found.heavy_pairs;
        // A heavy pair whose matmul after is another's matmul before (or the other way) is a
        // link of a chain of layers.
        let chained = |&(from, to): &(usize, usize)| pairs.iter().any(|&(f, t)| t == from || f == to);
        if pairs.iter().any(|p| !chained(p)) {
            attention.push(rel);
        } else if !pairs.is_empty() {
            chains.push(rel);
        } else if !SPLIT_SOFTMAX.contains(&rel.as_str()) {
            rest = rest.max(found.largest_light);
        }
    }
    assert_eq!(
        attention,
        [
            "nvidia/h100-zoo2/jax-train-attention.pcupti.gz",
            "nvidia/h100-zoo2/jax-transformer.pcupti.gz",
            "nvidia/h200-zoo2/jax-attention.pcupti.gz"
        ],
        "the runs with a reduction outlasting the matmuls around it, not in a chain"
    );
    assert_eq!(
        chains,
        ["nvidia/h100-zoo2/jax-ln-mlp-256.pcupti.gz", "nvidia/h100-zoo2/jax-ln-mlp-512.pcupti.gz"],
        "the runs whose heavy reductions are all links of a chain of layers"
    );
    // The margin: in the runs with no heavy reduction at all, the largest ratio (an FP8
    // decode's amax beside its GEMMs, 0.88) stays well under the rule's 1.25.
    assert!(rest > 0.5 && rest < 0.9, "largest ratio of the other runs: {rest:.2}");
    assert!(measured >= 20, "sandwiches measured on {measured} paths");
}
