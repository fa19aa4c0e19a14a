//! What kind of workload a timeline is, so that rules fire only on runs of the shape they
//! describe: training or inference, transformer-shaped (attention fused, or as a GEMM, a
//! softmax and a GEMM) or not, and how often its structural kernels (softmax between
//! matmuls, top-k, scatter-adds, rsqrt) ran.

use crate::families::Family;
use crate::kernel_summary::KernelSummary;
use prof_timeline::intern::{FxHashMap, NameId};
use prof_timeline::run_map::RunMap;
use prof_timeline::timeline::{OpKind, Timeline};

/// A softmax counts as attention-shaped when a matmul runs at most this many kernels before it
/// on the same stream (QKᵀ, scale, mask, cast to fp32, softmax: seen in transformers' eager
/// attention on the H200)…
pub(crate) const SANDWICH_BEFORE: usize = 4;
/// …and at most this many after it (softmax, cast back, ·V; SDPA's math backend also checks
/// for fully masked rows after the softmax: isneginf, an all-reduce, a fill and a where, then
/// the cast back, seen in PyTorch 2.11 on the H100).
pub(crate) const SANDWICH_AFTER: usize = 8;

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
    /// Softmax launches with a matmul within [`SANDWICH_BEFORE`] kernels before and
    /// [`SANDWICH_AFTER`] after.
    pub sandwiched_softmax: u64,
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
        (shape.sandwiched_softmax, shape.sandwich_ns) = sandwiched_softmax(timeline, summary);
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
/// [`SANDWICH_AFTER`] after them on their stream, and the device time from each such matmul
/// before through the matmul after.
fn sandwiched_softmax(timeline: &Timeline, summary: &KernelSummary) -> (u64, u64) {
    // No softmax or no matmul among the names (a run with fused attention): nothing to count,
    // as the summary of this very timeline (it counts every op) says without a walk.
    let rows = |test: &dyn Fn(&crate::kernel_summary::KernelRow) -> bool| summary.kernels.iter().any(test);
    if summary.ops == timeline.ops.len() as u64
        && (!rows(&|k| k.family.is_matmul())
            || !rows(&|k| !k.family.is_matmul() && k.name.to_ascii_lowercase().contains("softmax")))
    {
        return (0, 0);
    }
    let families = summary.family_map();
    // Each kernel name's role, decided once (name ids are dense).
    let mut roles: Vec<Option<Role>> = Vec::new();
    let mut role_of = |name: NameId| {
        let slot = name.0 as usize;
        if slot >= roles.len() {
            roles.resize(slot + 1, None);
        }
        *roles[slot].get_or_insert_with(|| {
            if families.get(&name).is_some_and(|f| f.is_matmul()) {
                Role::Matmul
            } else if timeline.name(name).to_ascii_lowercase().contains("softmax") {
                Role::Softmax
            } else {
                Role::Other
            }
        })
    };
    // Per stream, its kernels in start order (stable: ties keep the source's order) stream past
    // a sandwich counter; kernels of one stream mostly come in runs, looked up once a run.
    let mut streams: RunMap<(u32, u64), Sandwich> = RunMap::new();
    let mut feed = |op: &prof_timeline::timeline::DeviceOp| {
        if op.kind() == OpKind::Kernel {
            streams.get((op.device(), op.stream())).add(role_of(op.name()), op.dur_ns());
        }
    };
    let ops = &timeline.ops;
    if ops.is_sorted_by_key(|op| op.start_ns) {
        ops.iter().for_each(feed);
    } else {
        let mut order: Vec<&prof_timeline::timeline::DeviceOp> = ops.iter().collect();
        order.sort_by_key(|op| op.start_ns);
        order.into_iter().for_each(&mut feed);
    }
    streams.into_map().values().fold((0, 0), |(count, ns), c| (count + c.count, ns + c.ns))
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Matmul,
    Softmax,
    Other,
}

/// One stream's softmaxes with a matmul at most [`SANDWICH_BEFORE`] kernels before and
/// [`SANDWICH_AFTER`] after, counted as its kernels come in order.
#[derive(Default)]
struct Sandwich {
    /// Kernels seen.
    seen: usize,
    /// Position of the last matmul.
    last_matmul: Option<usize>,
    /// Positions of softmaxes with a matmul before them, waiting for one after.
    waiting: std::collections::VecDeque<usize>,
    count: u64,
    /// Durations of the last kernels, the latest last (enough to span a sandwich).
    recent: std::collections::VecDeque<u64>,
    /// Summed time of the sandwiches found, ns.
    ns: u64,
}

impl Sandwich {
    fn add(&mut self, role: Role, dur_ns: u64) {
        let at = self.seen;
        self.seen += 1;
        if self.recent.len() > SANDWICH_BEFORE + SANDWICH_AFTER + 1 {
            self.recent.pop_front();
        }
        self.recent.push_back(dur_ns);
        while self.waiting.front().is_some_and(|&softmax| at - softmax > SANDWICH_AFTER) {
            self.waiting.pop_front();
        }
        match role {
            Role::Matmul => {
                if let (Some(&first), Some(before)) = (self.waiting.front(), self.last_matmul) {
                    // From the matmul before the first waiting softmax through this one.
                    let span = (at - before + 1).min(self.recent.len());
                    debug_assert!(before < first);
                    self.ns += self.recent.iter().rev().take(span).sum::<u64>();
                }
                self.count += self.waiting.len() as u64;
                self.waiting.clear();
                self.last_matmul = Some(at);
            }
            Role::Softmax if self.last_matmul.is_some_and(|m| at - m <= SANDWICH_BEFORE) => self.waiting.push_back(at),
            Role::Softmax | Role::Other => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::families::Families;
    use crate::kernel_summary::summarize_kernels;
    use prof_timeline::timeline::DeviceOp;

    /// The counter that sees each stream's kernels once, in order, against the count written
    /// the plain way (each stream's kernels gathered, sorted, and each softmax's neighbours
    /// looked at), on random streams of matmuls, softmaxes, copies and other kernels.
    #[test]
    fn the_streaming_count_equals_a_look_at_each_softmax_neighbours() {
        let mut rng = prof_timeline::test_random::XorShift::new(0x1234_5678_9abc_def1u64);
        let mut next = |bound: u64| rng.below(bound);
        let names = ["ampere_sgemm_128x64_tn", "softmax_warp_forward", "elementwise_kernel", "CUDA memcpy DtoD"];
        let mut seen = 0;
        for round in 0..60 {
            let mut t = Timeline::new("random");
            for _ in 0..(10 + next(300)) {
                let pick = next(4) as usize;
                let kind = if pick == 3 { OpKind::Memcpy } else { OpKind::Kernel };
                let name = t.intern(names[pick]);
                let dur = 1 + next(50);
                t.push_op(DeviceOp::new(kind, name, next(2) as u32, next(3), next(400) * 10, dur));
            }
            let summary = summarize_kernels(&t, &Families::builtin());
            // Per (device, stream): (start, role, duration) of each kernel.
            type Kernels = Vec<(u64, usize, u64)>;
            let mut streams: FxHashMap<(u32, u64), Kernels> = FxHashMap::default();
            for op in t.ops.iter().filter(|op| op.kind() == OpKind::Kernel) {
                let role = names.iter().position(|n| *n == t.name(op.name())).unwrap_or(2);
                streams.entry((op.device(), op.stream())).or_default().push((op.start_ns, role, op.dur_ns()));
            }
            let (mut expected, mut expected_ns) = (0, 0);
            for ops in streams.values_mut() {
                ops.sort_by_key(|op| op.0);
                // The (matmul before, matmul after) of each sandwiched softmax, each pair once.
                let mut pairs = std::collections::BTreeSet::new();
                for at in (0..ops.len()).filter(|&at| ops[at].1 == 1) {
                    let before = ops[at.saturating_sub(SANDWICH_BEFORE)..at].iter().any(|o| o.1 == 0);
                    let after = ops.iter().skip(at + 1).take(SANDWICH_AFTER).any(|o| o.1 == 0);
                    if before && after {
                        expected += 1;
                        let from = (0..at).rev().find(|&i| ops[i].1 == 0).unwrap();
                        let to = (at + 1..ops.len()).find(|&i| ops[i].1 == 0).unwrap();
                        pairs.insert((from, to));
                    }
                }
                expected_ns +=
                    pairs.iter().map(|&(from, to)| ops[from..=to].iter().map(|o| o.2).sum::<u64>()).sum::<u64>();
            }
            assert_eq!(sandwiched_softmax(&t, &summary), (expected, expected_ns), "round {round}");
            let mut ordered = t.clone();
            ordered.ops.sort_by_key(|op| op.start_ns);
            assert_eq!(sandwiched_softmax(&ordered, &summary), (expected, expected_ns), "round {round}");
            seen += expected;
        }
        assert!(seen > 0, "no round had a sandwiched softmax");
    }

    /// Without a softmax (or a matmul) in the summary of the timeline nothing is walked; a
    /// summary of other ops (not this timeline's) does not stop the walk.
    #[test]
    fn a_summary_without_softmax_skips_the_walk_only_when_it_is_this_timelines() {
        let mut t = Timeline::new("sandwich");
        let names = ["ampere_sgemm_128x64_tn", "softmax_warp_forward", "ampere_sgemm_128x64_tn"];
        for (k, name) in names.iter().enumerate() {
            let id = t.intern(name);
            t.push_op(DeviceOp::new(OpKind::Kernel, id, 0, 7, k as u64 * 10, 5));
        }
        let own = summarize_kernels(&t, &Families::builtin());
        assert_eq!(sandwiched_softmax(&t, &own), (1, 15));
        // The matmuls alone: a summary of another timeline, whose op count differs.
        let mut matmuls = t.clone();
        matmuls.ops.retain(|op| t.name(op.name()) != "softmax_warp_forward");
        let other = summarize_kernels(&matmuls, &Families::builtin());
        assert_eq!(sandwiched_softmax(&t, &other), (1, 15));
        assert_eq!(sandwiched_softmax(&matmuls, &other), (0, 0));
        // Softmaxes without a matmul.
        let mut softmaxes = t.clone();
        softmaxes.ops.retain(|op| t.name(op.name()) == "softmax_warp_forward");
        assert_eq!(sandwiched_softmax(&softmaxes, &summarize_kernels(&softmaxes, &Families::builtin())), (0, 0));
    }
}
