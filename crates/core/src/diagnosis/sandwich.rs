//! Attention's shape in stream order: a matmul (QKᵀ), a row-wise softmax, a matmul (·V).
//!
//! The softmax is known by its name (`softmax_warp_forward`, `triton_softmax_2`) or, where a
//! compiler names it nothing (XLA's `fusion_7`), by its cost: a reduction-family kernel between
//! two matmuls that takes at least [`HEAVY_REDUCTION_RATIO`] × the longer of them, both at
//! least [`HEAVY_REDUCTION_MATMUL_MIN_NS`] long. Why cost tells: a row-wise pass over a GEMM's
//! M × N output reads and writes M·N elements, the GEMM does 2·M·N·K flops, so the pass outlasts
//! the GEMM only when K is below about 2 × peak flops / bandwidth × bytes per element (a few
//! hundred in bf16 on an H100, under a hundred in fp32): a head's width (QKᵀ's K is 64–128),
//! not a hidden size. A layer norm after a projection, a loss softmax after the LM head, a bias
//! gradient after a weight gradient all follow a GEMM whose K is the hidden size or the token
//! count, and take a fraction of it (at most 0.88 × over the 417 fixture paths, against 1.57 and
//! 5.44 for the two XLA attention softmaxes). Kernels at the launch floor say nothing by their
//! ratio (a decode step's amax reduction beside a 5 µs GEMV): hence the floor on the matmuls.
//!
//! Where a hidden size is small and the tokens many (an MLP of 256-wide square layers over
//! 131,072 tokens, each followed by a residual add and a layer norm: 1.5× its GEMMs on the
//! H100), a norm outlasts its matmuls too; but there every matmul after a norm is the matmul
//! before the next: heavy reductions one matmul apart are a stack of layers and do not count.
//! Attention's ·V is never the next softmax's QKᵀ.

use prof_timeline::intern::{FxHashMap, NameId};
use prof_timeline::run_map::RunMap;
use prof_timeline::timeline::{DeviceOp, OpKind, Timeline};
use std::collections::VecDeque;

use crate::families::Family;
use crate::kernel_summary::KernelSummary;

/// A softmax counts as attention-shaped when a matmul runs at most this many kernels before it
/// on the same stream (QKᵀ, scale, mask, cast to fp32, softmax: seen in transformers' eager
/// attention on the H200)…
pub(crate) const SANDWICH_BEFORE: usize = 4;
/// …and at most this many after it (softmax, cast back, ·V; SDPA's math backend also checks
/// for fully masked rows after the softmax: isneginf, an all-reduce, a fill and a where, then
/// the cast back, seen in PyTorch 2.11 on the H100).
pub(crate) const SANDWICH_AFTER: usize = 8;
/// An unnamed reduction between matmuls is attention's softmax when it takes at least this
/// many times the longer of the two (see the module notes).
pub(crate) const HEAVY_REDUCTION_RATIO: f64 = 1.25;
/// …and both matmuls take at least this long, ns.
pub(crate) const HEAVY_REDUCTION_MATMUL_MIN_NS: u64 = 10_000;

/// The attention sandwiches of one timeline.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Sandwiches {
    /// Softmax-named kernels with a matmul within [`SANDWICH_BEFORE`] kernels before and
    /// [`SANDWICH_AFTER`] after.
    pub softmax: u64,
    /// Unnamed reductions in the same place that outlast the matmuls around them.
    pub heavy: u64,
    /// The reduction kernel most of those were, and its count.
    pub heavy_name: Option<(NameId, u64)>,
    /// Device time from the matmul before each counted kernel through the matmul after, ns.
    pub ns: u64,
}

/// Counts `timeline`'s attention sandwiches, stream by stream in start order.
pub(crate) fn sandwiches(timeline: &Timeline, summary: &KernelSummary) -> Sandwiches {
    // No softmax or reduction, or no matmul, among the names (a run with fused attention):
    // nothing to count, as the summary of this very timeline (it counts every op) says
    // without a walk.
    let rows = |test: &dyn Fn(&crate::kernel_summary::KernelRow) -> bool| summary.kernels.iter().any(test);
    let middle = |k: &crate::kernel_summary::KernelRow| {
        !k.family.is_matmul() && (k.family == Family::Reduction || k.name.to_ascii_lowercase().contains("softmax"))
    };
    if summary.ops == timeline.ops.len() as u64 && (!rows(&|k| k.family.is_matmul()) || !rows(&middle)) {
        return Sandwiches::default();
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
            let family = families.get(&name);
            if family.is_some_and(|f| f.is_matmul()) {
                Role::Matmul
            } else if timeline.name(name).to_ascii_lowercase().contains("softmax") {
                Role::Softmax
            } else if family == Some(&Family::Reduction) {
                Role::Reduction
            } else {
                Role::Other
            }
        })
    };
    // Per stream, its kernels in start order (stable: ties keep the source's order) stream past
    // a sandwich counter; kernels of one stream mostly come in runs, looked up once a run.
    let mut streams: RunMap<(u32, u64), Sandwich> = RunMap::new();
    let mut feed = |op: &DeviceOp| {
        if op.kind() == OpKind::Kernel {
            streams.get((op.device(), op.stream())).add(role_of(op.name()), op.name(), op.dur_ns());
        }
    };
    let ops = &timeline.ops;
    if ops.is_sorted_by_key(|op| op.start_ns) {
        ops.iter().for_each(feed);
    } else {
        let mut order: Vec<&DeviceOp> = ops.iter().collect();
        order.sort_by_key(|op| op.start_ns);
        order.into_iter().for_each(&mut feed);
    }
    let mut all = Sandwiches::default();
    let mut heavy_names: FxHashMap<NameId, u64> = FxHashMap::default();
    for counter in streams.into_map().into_values().map(Sandwich::finish) {
        all.softmax += counter.softmax;
        all.heavy += counter.heavy;
        all.ns += counter.ns;
        for (name, n) in counter.heavy_names {
            *heavy_names.entry(name).or_default() += n;
        }
    }
    all.heavy_name = heavy_names.into_iter().max_by_key(|&(name, n)| (n, std::cmp::Reverse(name.0)));
    all
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Matmul,
    Softmax,
    Reduction,
    Other,
}

/// A kernel after a matmul, waiting for one after it.
struct Waiting {
    at: usize,
    name: NameId,
    /// `None` for a softmax; a reduction's duration and the matmul's before it.
    reduction: Option<(u64, u64)>,
}

/// The heavy reductions between one pair of matmuls, held until the next pair shows whether
/// the two are chained.
struct HeavyPair {
    /// Positions of the matmul before and after.
    before: usize,
    after: usize,
    names: Vec<NameId>,
    /// Device time from the matmul before through the matmul after, ns, and whether a named
    /// softmax between them already counted it.
    span_ns: u64,
    counted_ns: bool,
    /// Its matmul after is the next pair's matmul before, or its matmul before the last one's
    /// matmul after.
    chained: bool,
}

/// One stream's sandwiches, counted as its kernels come in order.
#[derive(Default)]
struct Sandwich {
    /// Kernels seen.
    seen: usize,
    /// Position and duration of the last matmul.
    last_matmul: Option<(usize, u64)>,
    /// Softmaxes and reductions with a matmul before them, waiting for one after.
    waiting: VecDeque<Waiting>,
    /// The last pair of matmuls with heavy reductions between them, not yet counted.
    pending: Option<HeavyPair>,
    softmax: u64,
    heavy: u64,
    heavy_names: FxHashMap<NameId, u64>,
    /// Durations of the last kernels, the latest last (enough to span a sandwich).
    recent: VecDeque<u64>,
    /// Summed time of the sandwiches found, ns.
    ns: u64,
}

impl Sandwich {
    fn add(&mut self, role: Role, name: NameId, dur_ns: u64) {
        let at = self.seen;
        self.seen += 1;
        if self.recent.len() > SANDWICH_BEFORE + SANDWICH_AFTER + 1 {
            self.recent.pop_front();
        }
        self.recent.push_back(dur_ns);
        while self.waiting.front().is_some_and(|w| at - w.at > SANDWICH_AFTER) {
            self.waiting.pop_front();
        }
        let close = self.last_matmul.filter(|&(m, _)| at - m <= SANDWICH_BEFORE);
        match role {
            Role::Matmul => {
                let (mut softmax, mut heavy_names) = (0, Vec::new());
                for w in self.waiting.drain(..) {
                    match w.reduction {
                        None => softmax += 1,
                        Some((reduction_ns, before_ns)) if heavy(reduction_ns, before_ns, dur_ns) => {
                            heavy_names.push(w.name)
                        }
                        Some(_) => {}
                    }
                }
                if let (true, Some((before, _))) = (softmax > 0 || !heavy_names.is_empty(), self.last_matmul) {
                    // From the matmul before the first counted kernel through this one.
                    let span = (at - before + 1).min(self.recent.len());
                    let span_ns = self.recent.iter().rev().take(span).sum::<u64>();
                    self.softmax += softmax;
                    if softmax > 0 {
                        self.ns += span_ns;
                    }
                    if !heavy_names.is_empty() {
                        let pair = HeavyPair {
                            before,
                            after: at,
                            names: heavy_names,
                            span_ns,
                            counted_ns: softmax > 0,
                            chained: false,
                        };
                        self.hold(pair);
                    }
                }
                self.last_matmul = Some((at, dur_ns));
            }
            Role::Softmax if close.is_some() => self.waiting.push_back(Waiting { at, name, reduction: None }),
            Role::Reduction => {
                if let Some((_, before_ns)) = close {
                    self.waiting.push_back(Waiting { at, name, reduction: Some((dur_ns, before_ns)) });
                }
            }
            Role::Softmax | Role::Other => {}
        }
    }

    /// Holds `pair` until the next one; counts the one held before unless the two are chained:
    /// one matmul between two heavy reductions is a stack of layers (a norm after every
    /// projection), never attention, whose ·V is not the next QKᵀ.
    fn hold(&mut self, mut pair: HeavyPair) {
        if let Some(mut last) = self.pending.take() {
            if last.after == pair.before {
                last.chained = true;
                pair.chained = true;
            }
            self.count(last);
        }
        self.pending = Some(pair);
    }

    fn count(&mut self, pair: HeavyPair) {
        if pair.chained {
            return;
        }
        self.heavy += pair.names.len() as u64;
        for name in pair.names {
            *self.heavy_names.entry(name).or_default() += 1;
        }
        if !pair.counted_ns {
            self.ns += pair.span_ns;
        }
    }

    /// Counts the pair still held (the stream has ended).
    fn finish(mut self) -> Self {
        if let Some(last) = self.pending.take() {
            self.count(last);
        }
        self
    }
}

/// A reduction of `reduction_ns` between matmuls of `before_ns` and `after_ns` is attention's
/// softmax by its cost (module notes).
fn heavy(reduction_ns: u64, before_ns: u64, after_ns: u64) -> bool {
    before_ns.min(after_ns) >= HEAVY_REDUCTION_MATMUL_MIN_NS
        && reduction_ns as f64 >= HEAVY_REDUCTION_RATIO * before_ns.max(after_ns) as f64
}

#[cfg(test)]
mod tests;
