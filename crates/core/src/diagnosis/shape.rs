//! What kind of workload a timeline is, so that rules fire only on runs of the shape they
//! describe: training or inference, transformer-shaped (attention fused, or as a GEMM, a
//! softmax and a GEMM) or not, and how often its structural kernels (softmax between
//! matmuls, top-k, scatter-adds, rsqrt) ran.

use crate::families::Family;
use crate::intern::{FxHashMap, NameId};
use crate::kernel_summary::KernelSummary;
use crate::timeline::{OpKind, Timeline};

/// A softmax counts as attention-shaped when a matmul runs at most this many kernels before it
/// on the same stream (QKᵀ, scale, mask, cast to fp32, softmax: seen in transformers' eager
/// attention on the H200)…
pub const SANDWICH_BEFORE: usize = 4;
/// …and at most this many after it (softmax, cast back, ·V).
pub const SANDWICH_AFTER: usize = 3;

/// Kernel-name parts (lower case) that only training runs launch: backward kernels and
/// optimizer steps.
pub const TRAINING_MARKS: [&str; 9] =
    ["backward", "_bwd", "bwd_", "bprop", "dgrad", "wgrad", "multi_tensor_apply", "adam", "sgd_"];

/// Kernel-name parts (lower case) of scatter-adds into a token buffer (`index_add_`), the
/// combine step of an eager MoE expert loop.
pub const SCATTER_ADD_MARKS: [&str; 3] = ["indexfuncsmallindex", "indexfunclargeindex", "index_add"];

/// The structure of one timeline.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shape {
    /// Backward kernels, optimizer kernels or autograd host spans ran.
    pub training: bool,
    /// Softmax launches.
    pub softmax_calls: u64,
    /// Their summed duration, ns.
    pub softmax_ns: u64,
    /// Softmax launches with a matmul within [`SANDWICH_BEFORE`] kernels before and
    /// [`SANDWICH_AFTER`] after.
    pub sandwiched_softmax: u64,
    /// Top-k selections: launches of `gatherTopK` (one per `torch.topk`), or of every top-k
    /// kernel when none is called so.
    pub topk_ops: u64,
    /// Launches of scatter-add kernels ([`SCATTER_ADD_MARKS`]).
    pub scatter_adds: u64,
    /// Launches of `rsqrt` kernels (a normalisation written as elementwise ops).
    pub rsqrt_calls: u64,
    /// Launches of matmul kernels (GEMV, GEMM, grouped).
    pub matmul_calls: u64,
    /// Launches of attention-family kernels.
    pub attention_calls: u64,
}

impl Shape {
    /// Reads the shape of `timeline`, whose kernel table is `summary`.
    pub fn of(timeline: &Timeline, summary: &KernelSummary) -> Shape {
        let mut shape = Shape::default();
        let mut gather_topk = 0;
        for k in &summary.kernels {
            let lower = k.name.to_ascii_lowercase();
            shape.training |= TRAINING_MARKS.iter().any(|m| lower.contains(m));
            if lower.contains("softmax") {
                shape.softmax_calls += k.calls;
                shape.softmax_ns += k.total_ns;
            }
            if k.family == Family::TopK {
                shape.topk_ops += k.calls;
                gather_topk += if lower.contains("gathertopk") { k.calls } else { 0 };
            }
            if SCATTER_ADD_MARKS.iter().any(|m| lower.contains(m)) {
                shape.scatter_adds += k.calls;
            }
            if lower.contains("rsqrt") {
                shape.rsqrt_calls += k.calls;
            }
            if k.family.is_matmul() {
                shape.matmul_calls += k.calls;
            }
            if k.family == Family::Attention {
                shape.attention_calls += k.calls;
            }
        }
        if gather_topk > 0 {
            shape.topk_ops = gather_topk;
        }
        shape.training |= autograd_spans(timeline);
        shape.sandwiched_softmax = sandwiched_softmax(timeline, summary);
        shape
    }
}

fn autograd_spans(timeline: &Timeline) -> bool {
    let mut seen: FxHashMap<NameId, ()> = FxHashMap::default();
    timeline.host.iter().any(|span| {
        seen.insert(span.name, ()).is_none() && {
            let name = timeline.name(span.name);
            name.starts_with("autograd::engine") || name.starts_with("Optimizer.step")
        }
    })
}

/// Softmax kernels with a matmul at most [`SANDWICH_BEFORE`] kernels before and
/// [`SANDWICH_AFTER`] after them on their stream.
fn sandwiched_softmax(timeline: &Timeline, summary: &KernelSummary) -> u64 {
    #[derive(Clone, Copy, PartialEq)]
    enum Role {
        Matmul,
        Softmax,
        Other,
    }
    let families = summary.family_map();
    let mut roles: FxHashMap<NameId, Role> = FxHashMap::default();
    let mut streams: FxHashMap<(u32, u64), Vec<(u64, Role)>> = FxHashMap::default();
    for op in timeline.ops.iter().filter(|op| op.kind == OpKind::Kernel) {
        let role = *roles.entry(op.name).or_insert_with(|| {
            if families.get(&op.name).is_some_and(|f| f.is_matmul()) {
                Role::Matmul
            } else if timeline.name(op.name).to_ascii_lowercase().contains("softmax") {
                Role::Softmax
            } else {
                Role::Other
            }
        });
        streams.entry((op.device, op.stream)).or_default().push((op.start_ns, role));
    }
    if !roles.values().any(|r| *r == Role::Softmax) {
        return 0;
    }
    let mut count = 0;
    for ops in streams.values_mut() {
        ops.sort_by_key(|op| op.0);
        for (at, op) in ops.iter().enumerate() {
            if op.1 != Role::Softmax {
                continue;
            }
            let before = ops[at.saturating_sub(SANDWICH_BEFORE)..at].iter().any(|o| o.1 == Role::Matmul);
            let after = ops.iter().skip(at + 1).take(SANDWICH_AFTER).any(|o| o.1 == Role::Matmul);
            count += u64::from(before && after);
        }
    }
    count
}
