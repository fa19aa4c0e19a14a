//! What kind of workload a timeline is, so that rules fire only on runs of the shape they
//! describe: training or inference, transformer-shaped (attention fused, or as a GEMM, a
//! softmax and a GEMM) or not, and how often its structural kernels (softmax between
//! matmuls, top-k, scatter-adds, rsqrt) ran.

use super::sandwich::sandwiches;
use crate::families::Family;
use crate::kernel_summary::KernelSummary;
use prof_timeline::intern::{FxHashMap, NameId};
use prof_timeline::timeline::Timeline;

/// Kernel-name parts (lower case) that only training runs launch: backward kernels and
/// optimizer steps.
pub(crate) const TRAINING_MARKS: [&str; 9] =
    ["backward", "_bwd", "bwd_", "bprop", "dgrad", "wgrad", "multi_tensor_apply", "adam", "sgd_"];

/// Kernel-name parts (lower case) of scatter-adds into a token buffer (`index_add_`), the
/// combine step of an eager MoE expert loop.
pub(crate) const SCATTER_ADD_MARKS: [&str; 3] = ["indexfuncsmallindex", "indexfunclargeindex", "index_add"];

/// The structure of one timeline.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shape {
    /// Backward kernels, optimizer kernels or autograd host spans ran.
    pub training: bool,
    /// Softmax launches.
    pub softmax_calls: u64,
    /// Their summed duration, ns.
    pub softmax_ns: u64,
    /// Softmax launches with a matmul within [`SANDWICH_BEFORE`](super::sandwich::SANDWICH_BEFORE) kernels before and
    /// [`SANDWICH_AFTER`](super::sandwich::SANDWICH_AFTER) after.
    pub sandwiched_softmax: u64,
    /// Unnamed reductions in the same place that outlast the matmuls around them: attention's
    /// softmax by its cost ([`super::sandwich`]).
    pub heavy_reductions: u64,
    /// The kernel most of those were, and how many of them it was.
    pub heavy_reduction: Option<(String, u64)>,
    /// The device time of those attention sandwiches, ns: every kernel from the matmul before
    /// each such softmax (QKᵀ) through the matmul after it (·V), masks and casts included.
    pub sandwich_ns: u64,
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
    /// Launches of dtype conversions (PyTorch's copies with a cast, `LoadWithCast`).
    pub cast_calls: u64,
    /// Their summed duration, ns.
    pub cast_ns: u64,
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
            if lower.contains("loadwithcast") {
                shape.cast_calls += k.calls;
                shape.cast_ns += k.total_ns;
            }
        }
        if gather_topk > 0 {
            shape.topk_ops = gather_topk;
        }
        shape.training |= autograd_spans(timeline);
        let found = sandwiches(timeline, summary);
        shape.sandwiched_softmax = found.softmax;
        shape.heavy_reductions = found.heavy;
        shape.heavy_reduction = found.heavy_name.map(|(name, n)| (timeline.name(name).to_owned(), n));
        shape.sandwich_ns = found.ns;
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
