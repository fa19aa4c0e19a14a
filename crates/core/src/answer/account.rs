//! The time account of one device: its wall time (first op start to last op end of the
//! answer's window) split into parts that add up to it exactly, busy by family and idle by
//! cause.
//!
//! - **busy**: the union of the device's op intervals ([`KernelSummary`]'s busy time). Time
//!   when a compute op runs is split among the compute families in proportion to their summed
//!   op time on the device (overlapping compute kernels share it); time when only a collective
//!   runs is *exposed* communication (hidden communication costs nothing and is not counted);
//!   time when only copies or sets run is exposed copies/sets, split between them by op time.
//! - **idle**: wall − busy, split by the idle-gap analysis' causes
//!   ([`crate::analysis::gaps`]): gaps where the host launched the next op late, and short
//!   back-to-back launch gaps, are [`IdleCause::LaunchGaps`] up to
//!   [`STALL_MIN_NS`](crate::analysis::gaps::STALL_MIN_NS) long and [`IdleCause::HostStalls`]
//!   from it; ops queued early that still waited are [`IdleCause::Dependency`]; gaps without a
//!   launch record to tell are [`IdleCause::ShortGaps`] / [`IdleCause::LongStalls`] by the same
//!   length. Without the gap analysis (a kernel table) idle is [`IdleCause::Unexplained`].
//!
//! Every part is rounded to whole nanoseconds by largest remainder, so the parts sum to the
//! wall time exactly.

use crate::analysis::gaps::{DeviceGaps, GapCause};
use crate::analysis::streams::pct;
use crate::families::Family;
use crate::kernel_summary::{DeviceTime, KernelSummary};
use prof_timeline::intervals::SortedUnion;
use prof_timeline::timeline::Timeline;
use serde::Serialize;

/// Why a device was idle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum IdleCause {
    /// Short gaps where the next op waited for its launch (the host launched late, or
    /// back-to-back launch overhead): launch-bound.
    LaunchGaps,
    /// Long gaps (a stall) where the host launched the next op only after the device went idle.
    HostStalls,
    /// Gaps where the next op was launched early yet waited (a sync, an event, another stream).
    Dependency,
    /// Short gaps with no launch record to tell why.
    ShortGaps,
    /// Long gaps with no launch record to tell why.
    LongStalls,
    /// Idle time the source cannot split (no timeline: a kernel table).
    Unexplained,
}

impl IdleCause {
    /// How the cause reads in a sentence.
    pub fn label(self) -> &'static str {
        match self {
            IdleCause::LaunchGaps => "waiting for launches",
            IdleCause::HostStalls => "host stalls",
            IdleCause::Dependency => "waiting on a dependency",
            IdleCause::ShortGaps => "short gaps",
            IdleCause::LongStalls => "long stalls",
            IdleCause::Unexplained => "idle",
        }
    }
}

/// What one part of the wall time was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Part {
    /// The device ran ops of this family (collectives, copies and sets: only while no compute
    /// op ran).
    Busy {
        /// The family.
        family: Family,
    },
    /// The device ran nothing.
    Idle {
        /// Why.
        cause: IdleCause,
    },
}

/// One part of the account.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AccountPart {
    /// What the time was.
    #[serde(flatten)]
    pub part: Part,
    /// How long, ns.
    pub ns: u64,
    /// Share of the wall time, percent.
    pub pct: f64,
    /// For idle parts: the gaps in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gaps: Option<u64>,
}

/// One device's wall time, accounted for.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Account {
    /// Device index.
    pub device: u32,
    /// First op start to last op end, ns.
    pub wall_ns: u64,
    /// Union of its op intervals, ns.
    pub busy_ns: u64,
    /// Device ops in the window.
    pub ops: u64,
    /// The parts, largest first; their `ns` sum to `wall_ns`.
    pub parts: Vec<AccountPart>,
}

impl Account {
    /// The part that is `part`, if any time went to it.
    pub fn get(&self, part: Part) -> Option<&AccountPart> {
        self.parts.iter().find(|p| p.part == part)
    }

    /// Idle time of `cause`, ns.
    pub fn idle_ns(&self, cause: IdleCause) -> u64 {
        self.get(Part::Idle { cause }).map_or(0, |p| p.ns)
    }

    /// Busy share of the wall time, percent.
    pub fn busy_pct(&self) -> f64 {
        pct(self.busy_ns, self.wall_ns)
    }
}

/// The account of `device` from `timeline`'s ops, with its idle time split by `gaps` (the
/// idle-gap analysis of the same timeline) where given.
pub fn account(
    timeline: &Timeline,
    summary: &KernelSummary,
    device: &DeviceTime,
    gaps: Option<&DeviceGaps>,
) -> Account {
    let mut family_of: Vec<Option<Family>> = Vec::new();
    for k in &summary.kernels {
        let at = k.name_id.0 as usize;
        if family_of.len() <= at {
            family_of.resize(at + 1, None);
        }
        family_of[at] = Some(k.family);
    }
    // The ops are fed in start order (sorted below when the source's are not), so each union
    // is merged as it goes.
    let (mut compute, mut with_comm, mut all) =
        (SortedUnion::default(), SortedUnion::default(), SortedUnion::default());
    // Op time by name id (one add an op), summed by family once at the end.
    let mut by_name: Vec<u64> = vec![0; family_of.len()];
    let mut unnamed_ns = 0u64;
    let mut feed = |op: &prof_timeline::timeline::DeviceOp| {
        if op.device() != device.device || op.dur_ns() == 0 {
            return;
        }
        let at = op.name().0 as usize;
        let family = family_of.get(at).copied().flatten().unwrap_or(Family::Other);
        let (start, end) = (op.start_ns, op.end_ns());
        if family.is_compute() {
            compute.add(start, end);
        }
        if family != Family::Memcpy && family != Family::Memset {
            with_comm.add(start, end);
        }
        all.add(start, end);
        match by_name.get_mut(at) {
            Some(ns) => *ns += op.dur_ns(),
            None => unnamed_ns += op.dur_ns(),
        }
    };
    if timeline.ops.is_sorted_by_key(|op| op.start_ns) {
        timeline.ops.iter().for_each(&mut feed);
    } else {
        let mut order: Vec<&prof_timeline::timeline::DeviceOp> = timeline.ops.iter().collect();
        order.sort_by_key(|op| op.start_ns);
        order.into_iter().for_each(feed);
    }
    let mut op_ns: Vec<(Family, u64)> = Vec::new();
    let named = by_name.iter().enumerate().map(|(at, &ns)| (family_of[at].unwrap_or(Family::Other), ns));
    for (family, ns) in named.chain([(Family::Other, unnamed_ns)]).filter(|f| f.1 > 0) {
        match op_ns.iter_mut().find(|(f, _)| *f == family) {
            Some(entry) => entry.1 += ns,
            None => op_ns.push((family, ns)),
        }
    }
    let covered = |u: &SortedUnion| u.total_ns().expect("the ops were fed in start order");
    let (compute, with_comm, busy_ns) = (covered(&compute), covered(&with_comm), covered(&all));
    let wall_ns = device.wall_ns.max(busy_ns);
    let mut shares: Vec<(Part, u128, Option<u64>)> = Vec::new();
    // Compute time split by family op time; exposed collectives; exposed copies and sets.
    let split = |shares: &mut Vec<(Part, u128, Option<u64>)>, total: u64, families: &[(Family, u64)]| {
        let weight: u64 = families.iter().map(|f| f.1).sum();
        for &(family, ns) in families {
            let scaled = if weight == 0 { 0 } else { u128::from(total) * u128::from(ns) * SCALE / u128::from(weight) };
            shares.push((Part::Busy { family }, scaled, None));
        }
    };
    let compute_families: Vec<(Family, u64)> = op_ns.iter().copied().filter(|f| f.0.is_compute()).collect();
    split(&mut shares, compute, &compute_families);
    let comm: Vec<(Family, u64)> = op_ns.iter().copied().filter(|f| f.0 == Family::Collective).collect();
    split(&mut shares, with_comm - compute.min(with_comm), &comm);
    let copies: Vec<(Family, u64)> =
        op_ns.iter().copied().filter(|f| matches!(f.0, Family::Memcpy | Family::Memset)).collect();
    split(&mut shares, busy_ns - with_comm.min(busy_ns), &copies);
    let idle_ns = wall_ns - busy_ns;
    for (cause, ns, count) in idle_split(idle_ns, gaps) {
        shares.push((Part::Idle { cause }, u128::from(ns) * SCALE, count));
    }
    let parts = round_parts(shares, wall_ns);
    Account { device: device.device, wall_ns, busy_ns, ops: device.ops, parts }
}

/// Fixed-point scale of the shares before rounding.
const SCALE: u128 = 1 << 20;

/// The idle time split by cause, from the gap analysis (scaled to `idle_ns` where its gaps,
/// which leave zero-length ops out, measure a little differently).
fn idle_split(idle_ns: u64, gaps: Option<&DeviceGaps>) -> Vec<(IdleCause, u64, Option<u64>)> {
    let Some(gaps) = gaps.filter(|g| g.device_gaps.total_ns > 0) else {
        return vec![(IdleCause::Unexplained, idle_ns, None)];
    };
    let cause = |c: GapCause| gaps.device_gaps.causes.iter().find(|t| t.cause == c);
    let short = |c: GapCause| cause(c).map_or((0, 0), |t| (t.total_ns - t.long_ns, t.count - t.long_count));
    let long = |c: GapCause| cause(c).map_or((0, 0), |t| (t.long_ns, t.long_count));
    let all = |c: GapCause| cause(c).map_or((0, 0), |t| (t.total_ns, t.count));
    let add = |a: (u64, u64), b: (u64, u64)| (a.0 + b.0, a.1 + b.1);
    let raw = [
        (IdleCause::LaunchGaps, add(short(GapCause::HostWait), all(GapCause::KernelWait))),
        (IdleCause::HostStalls, long(GapCause::HostWait)),
        (IdleCause::Dependency, all(GapCause::Dependency)),
        (IdleCause::ShortGaps, short(GapCause::Unknown)),
        (IdleCause::LongStalls, long(GapCause::Unknown)),
    ];
    let measured: u64 = raw.iter().map(|r| r.1 .0).sum();
    raw.into_iter()
        .map(|(c, (ns, count))| {
            let scaled = (u128::from(ns) * u128::from(idle_ns) / u128::from(measured.max(1))) as u64;
            (c, scaled, Some(count))
        })
        .collect()
}

/// Rounds the scaled shares to whole ns by largest remainder so they sum to `wall_ns`; drops
/// empty parts and orders the rest largest first.
fn round_parts(shares: Vec<(Part, u128, Option<u64>)>, wall_ns: u64) -> Vec<AccountPart> {
    let mut floors: Vec<(Part, u64, u128, Option<u64>)> =
        shares.into_iter().map(|(p, s, c)| (p, (s / SCALE) as u64, s % SCALE, c)).collect();
    let short = wall_ns.saturating_sub(floors.iter().map(|f| f.1).sum());
    let mut order: Vec<usize> = (0..floors.len()).collect();
    order.sort_by(|&a, &b| floors[b].2.cmp(&floors[a].2).then(a.cmp(&b)));
    for &at in order.iter().take(short as usize) {
        floors[at].1 += 1;
    }
    if let (Some(first), true) = (floors.first_mut(), order.len() < short as usize) {
        // Only when rounding left more than one ns a part (never, with exact inputs).
        first.1 += short - order.len() as u64;
    }
    let mut parts: Vec<AccountPart> = floors
        .into_iter()
        .filter(|f| f.1 > 0)
        .map(|(part, ns, _, gaps)| AccountPart { part, ns, pct: pct(ns, wall_ns), gaps })
        .collect();
    parts.sort_by_key(|p| std::cmp::Reverse(p.ns));
    parts
}

/// The account of a device from its busy and wall time alone (a kernel table without a
/// timeline): busy split by the summary's family shares, idle unexplained.
pub fn account_of_summary(summary: &KernelSummary, device: &DeviceTime) -> Account {
    let mut shares: Vec<(Part, u128, Option<u64>)> = Vec::new();
    let weight: u64 = summary.families.iter().map(|f| f.total_ns).sum();
    for f in &summary.families {
        let scaled = u128::from(device.busy_ns) * u128::from(f.total_ns) * SCALE / u128::from(weight.max(1));
        shares.push((Part::Busy { family: f.family }, scaled, None));
    }
    let wall_ns = device.wall_ns.max(device.busy_ns);
    shares.push((Part::Idle { cause: IdleCause::Unexplained }, u128::from(wall_ns - device.busy_ns) * SCALE, None));
    Account {
        device: device.device,
        wall_ns,
        busy_ns: device.busy_ns,
        ops: device.ops,
        parts: round_parts(shares, wall_ns),
    }
}
