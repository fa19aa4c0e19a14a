//! Idle gaps ("bubbles"): the stretches where a device ran nothing, with the host activity
//! that sat in each and why the device waited (HolisticTraceAnalysis' idle-time breakdown).
//!
//! Rules, per device:
//! - a **device gap** is a gap between the union of the device's op intervals over all its
//!   streams; a **main-stream gap** one between the ops of its main stream
//!   ([`stream_roles`]), which other streams may fill; every stream's gaps are totalled by
//!   cause too (HTA's per-stream idle time). Zero-length ops are ignored.
//! - each gap is measured from its start to the next op's start; its **offset** is from the
//!   device's (or stream's) first op; the op before is one that ends where the gap starts.
//! - its **cause**, from the launch call of the op after the gap (the
//!   [`HostCategory::Runtime`] / [`HostCategory::Driver`] span sharing its correlation id):
//!   the launch started at or after the gap start → [`GapCause::HostWait`] (the host was
//!   late: host-bound); it started before and the gap is at most [`KERNEL_WAIT_MAX_NS`] →
//!   [`GapCause::KernelWait`] (back-to-back launch and scheduling overhead); it started before
//!   and the gap is longer → [`GapCause::Dependency`] (the op was queued yet waited: an event,
//!   a synchronisation or another stream); no launch known, or a launch after the op's start
//!   or more than [`MAX_PLAUSIBLE_DELAY_NS`] before it → [`GapCause::Unknown`]. HTA's
//!   "other" is dependency plus unknown.
//! - the [`TOP_GAPS`] longest gaps are listed with the framework ops and annotations
//!   overlapping them, at most [`HOST_SPANS_PER_GAP`] each: of the spans that hold the whole
//!   gap only the innermost (shortest; `ProfilerStep#N` and `forward` hold it too), then the
//!   spans that started or ended inside it, most overlap first.
//! - a cause holding at least [`REMEDY_MIN_IDLE_SHARE_PCT`] % of the device-gap time brings its
//!   remedy.

use super::launch::MAX_PLAUSIBLE_DELAY_NS;
use super::streams::{pct, stream_roles};
use crate::families::Families;
use crate::intern::FxHashMap;
use crate::timeline::{HostCategory, HostSpan, Timeline};
use serde::Serialize;

/// Longest gap, ns, between an early-launched op and the op before it that counts as kernel wait.
pub const KERNEL_WAIT_MAX_NS: u64 = 10_000;
/// Gaps listed per device (and per main stream), longest first.
pub const TOP_GAPS: usize = 10;
/// Host spans listed per gap.
pub const HOST_SPANS_PER_GAP: usize = 5;
/// Share of device-gap time, percent, from which a cause's remedy is given.
pub const REMEDY_MIN_IDLE_SHARE_PCT: f64 = 25.0;
/// Upper bounds, ns, of the gap-length buckets; the last bucket is open.
pub const BUCKET_BOUNDS_NS: [u64; 4] = [10_000, 100_000, 1_000_000, 10_000_000];

const BUCKET_LABELS: [&str; 5] = ["< 10 µs", "10-100 µs", "100 µs-1 ms", "1-10 ms", ">= 10 ms"];

/// Why the device waited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum GapCause {
    /// The next op was launched only after the device went idle.
    HostWait,
    /// A short wait between ops launched ahead of time.
    KernelWait,
    /// The next op was launched ahead of time yet waited long.
    Dependency,
    /// No usable launch link.
    Unknown,
}

const CAUSES: [GapCause; 4] = [GapCause::HostWait, GapCause::KernelWait, GapCause::Dependency, GapCause::Unknown];

impl GapCause {
    /// What to do about idle time of this cause, where there is something to do.
    pub fn remedy(self) -> Option<&'static str> {
        match self {
            GapCause::HostWait => Some(
                "the host launched late: remove host logic from the launch path or move it off it (syncs, \
                 .item()/.cpu() reads, data loading, logging), bind the launching thread to cores near the device \
                 (core binding), and capture the step as a graph (graph mode / CUDA graphs)",
            ),
            GapCause::KernelWait => Some(
                "many short back-to-back ops: fuse them, or capture them as a graph (graph mode / CUDA graphs) to \
                 cut per-launch overhead",
            ),
            GapCause::Dependency => Some(
                "ops were queued early but waited on a dependency or a sync: issue high-intensity ops first, overlap \
                 independent work on other streams, drop needless syncs and cross-stream waits",
            ),
            GapCause::Unknown => None,
        }
    }
}

/// Gaps of one length bucket.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GapBucket {
    /// Its range, as a person reads it.
    pub label: &'static str,
    /// Gaps in it.
    pub count: u64,
    /// Their summed length, ns.
    pub total_ns: u64,
}

/// Gaps of one cause.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CauseTotal {
    /// The cause.
    pub cause: GapCause,
    /// Gaps.
    pub count: u64,
    /// Their summed length, ns.
    pub total_ns: u64,
}

/// A host span that overlapped a gap.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HostInGap {
    /// Span name.
    pub name: String,
    /// Its layer.
    pub category: HostCategory,
    /// Time it overlapped the gap, ns.
    pub overlap_ns: u64,
}

/// One listed gap.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Gap {
    /// Gap start − first op start, ns.
    pub offset_ns: u64,
    /// Gap start on the source's clock, ns.
    pub start_ns: u64,
    /// Length, ns.
    pub length_ns: u64,
    /// The op that ended where the gap starts.
    pub before: String,
    /// The op that started where the gap ends.
    pub after: String,
    /// Why the device waited.
    pub cause: GapCause,
    /// Launch start of `after` − gap start, ns (negative: launched before the gap), when linked.
    pub launch_offset_ns: Option<i64>,
    /// Framework ops and annotations that overlapped the gap.
    pub host: Vec<HostInGap>,
}

/// The gaps of one set of ops (a device's, or its main stream's).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GapStats {
    /// First op start to last op end, ns.
    pub wall_ns: u64,
    /// Number of gaps.
    pub count: u64,
    /// Their summed length, ns.
    pub total_ns: u64,
    /// `total_ns` as a percentage of `wall_ns`.
    pub idle_pct: f64,
    /// By length (bounds [`BUCKET_BOUNDS_NS`]).
    pub buckets: Vec<GapBucket>,
    /// By cause, every cause listed.
    pub causes: Vec<CauseTotal>,
    /// The [`TOP_GAPS`] longest, longest first.
    pub largest: Vec<Gap>,
}

/// Idle gaps of one device.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DeviceGaps {
    /// Device index.
    pub device: u32,
    /// Gaps between any ops of the device.
    pub device_gaps: GapStats,
    /// The main stream's id.
    pub main_stream: u64,
    /// Gaps between the main stream's ops.
    pub main_stream_gaps: GapStats,
    /// Remedies of the causes that hold much of the device-gap time.
    pub remedies: Vec<Remedy>,
    /// Every stream of the device with ops, by stream id: its own gaps, totalled.
    pub streams: Vec<StreamGaps>,
}

/// The gaps between the ops of one stream, totalled (the longest are listed only for the
/// device and its main stream).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StreamGaps {
    /// Stream id.
    pub stream: u64,
    /// First op start to last op end on the stream, ns.
    pub wall_ns: u64,
    /// Number of gaps.
    pub count: u64,
    /// Their summed length, ns.
    pub total_ns: u64,
    /// `total_ns` as a percentage of `wall_ns`.
    pub idle_pct: f64,
    /// By cause, every cause listed.
    pub causes: Vec<CauseTotal>,
}

/// What to do about one cause of idle time.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Remedy {
    /// The cause.
    pub cause: GapCause,
    /// The advice.
    pub advice: &'static str,
}

/// The idle gaps of every device that has ops, by device index.
pub fn idle_gaps(timeline: &Timeline, families: &Families) -> Vec<DeviceGaps> {
    let mut by_device: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    for (index, op) in timeline.ops.iter().enumerate().filter(|(_, op)| op.dur_ns > 0) {
        by_device.entry(op.device).or_default().push(index);
    }
    let launches: FxHashMap<u64, &HostSpan> = timeline
        .host
        .iter()
        .filter(|s| matches!(s.category, HostCategory::Runtime | HostCategory::Driver))
        .filter_map(|s| Some((s.correlation?, s)))
        .collect();
    let mut host: Vec<&HostSpan> = timeline
        .host
        .iter()
        .filter(|s| matches!(s.category, HostCategory::Framework | HostCategory::Annotation))
        .collect();
    host.sort_by_key(|s| s.start_ns);
    let context = Context { timeline, launches, host };
    stream_roles(timeline, families)
        .into_iter()
        .filter_map(|streams| {
            let ops = by_device.remove(&streams.device)?;
            let main_stream = streams.main_stream()?;
            let main: Vec<usize> = ops.iter().copied().filter(|&i| timeline.ops[i].stream == main_stream).collect();
            let mut by_stream: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
            for &i in &ops {
                by_stream.entry(timeline.ops[i].stream).or_default().push(i);
            }
            let device_gaps = context.stats(ops);
            let remedies = device_gaps
                .causes
                .iter()
                .filter(|c| c.total_ns > 0 && pct(c.total_ns, device_gaps.total_ns) >= REMEDY_MIN_IDLE_SHARE_PCT)
                .filter_map(|c| Some(Remedy { cause: c.cause, advice: c.cause.remedy()? }))
                .collect();
            let main_stream_gaps = context.stats(main);
            let mut per_stream: Vec<StreamGaps> = by_stream
                .into_iter()
                .map(|(stream, ops)| {
                    let stats = context.totals(ops);
                    StreamGaps {
                        stream,
                        wall_ns: stats.wall_ns,
                        count: stats.count,
                        total_ns: stats.total_ns,
                        idle_pct: stats.idle_pct,
                        causes: stats.causes,
                    }
                })
                .collect();
            per_stream.sort_by_key(|s| s.stream);
            Some(DeviceGaps {
                device: streams.device,
                device_gaps,
                main_stream,
                main_stream_gaps,
                remedies,
                streams: per_stream,
            })
        })
        .collect()
}

/// A gap while the gaps are being measured: op indices, not names yet.
struct Found {
    start: u64,
    length: u64,
    before: usize,
    after: usize,
    cause: GapCause,
    launch_offset_ns: Option<i64>,
}

struct Context<'a> {
    timeline: &'a Timeline,
    launches: FxHashMap<u64, &'a HostSpan>,
    host: Vec<&'a HostSpan>,
}

impl Context<'_> {
    /// The gaps of the ops `by_start`, with the longest listed.
    fn stats(&self, by_start: Vec<usize>) -> GapStats {
        self.measure(by_start, TOP_GAPS)
    }

    /// The gaps of the ops `by_start`, totals only (no gap listed, so no host spans looked up).
    fn totals(&self, by_start: Vec<usize>) -> GapStats {
        self.measure(by_start, 0)
    }

    /// One sweep over the ops in start order: the busy time is their union, merged as it
    /// goes (an op starting past the furthest end so far opens a gap), so no interval list
    /// or end-ordered copy is built. The op before a gap is the first in start order that
    /// reached the furthest end (the one that ended where the gap starts); the op after it is
    /// the first that starts where the gap ends. `by_start` holds ops that take time
    /// ([`idle_gaps`] leaves zero-length ops out).
    fn measure(&self, mut by_start: Vec<usize>, listed: usize) -> GapStats {
        let ops = &self.timeline.ops;
        if !by_start.is_sorted_by_key(|&i| ops[i].start_ns) {
            by_start.sort_by_key(|&i| ops[i].start_ns);
        }
        let first = by_start.first().map_or(0, |&i| ops[i].start_ns);
        let mut buckets: Vec<GapBucket> =
            BUCKET_LABELS.iter().map(|&label| GapBucket { label, count: 0, total_ns: 0 }).collect();
        let mut causes: Vec<CauseTotal> =
            CAUSES.iter().map(|&cause| CauseTotal { cause, count: 0, total_ns: 0 }).collect();
        // The longest gaps so far, longest first (ties: earliest), at most TOP_GAPS.
        let mut all: Vec<Found> = Vec::with_capacity(listed + 1);
        // The furthest end so far and the first op (in start order) that reached it.
        let (mut reach, mut reach_op) = (first, by_start.first().copied().unwrap_or(0));
        for &after in &by_start {
            let op = &ops[after];
            let (end, op_end) = (op.start_ns, op.end_ns());
            if end <= reach {
                if op_end > reach {
                    (reach, reach_op) = (op_end, after);
                }
                continue;
            }
            let (start, before) = (reach, reach_op);
            (reach, reach_op) = (op_end, after);
            let length = end - start;
            let launch = ops[after].correlation.get().and_then(|c| self.launches.get(&c)).map(|s| s.start_ns);
            let launch = launch.filter(|&l| l <= end && end - l <= MAX_PLAUSIBLE_DELAY_NS);
            let cause = match launch {
                None => GapCause::Unknown,
                Some(l) if l >= start => GapCause::HostWait,
                Some(_) if length <= KERNEL_WAIT_MAX_NS => GapCause::KernelWait,
                Some(_) => GapCause::Dependency,
            };
            let bucket = BUCKET_BOUNDS_NS.iter().position(|&b| length < b).unwrap_or(BUCKET_BOUNDS_NS.len());
            buckets[bucket].count += 1;
            buckets[bucket].total_ns += length;
            let slot = &mut causes[CAUSES.iter().position(|&c| c == cause).unwrap_or(3)];
            slot.count += 1;
            slot.total_ns += length;
            if listed == 0 || all.len() == listed && all.last().is_some_and(|shortest| shortest.length >= length) {
                // Not longer than the shortest kept (and later: a tie loses to it).
                continue;
            }
            let offset = launch.and_then(|l| i64::try_from(i128::from(l) - i128::from(start)).ok());
            let at = all.partition_point(|kept| kept.length >= length);
            all.insert(at, Found { start, length, before, after, cause, launch_offset_ns: offset });
            all.truncate(listed);
        }
        let largest = all
            .into_iter()
            .map(|f| Gap {
                offset_ns: f.start - first,
                start_ns: f.start,
                length_ns: f.length,
                before: self.timeline.name(ops[f.before].name).to_owned(),
                after: self.timeline.name(ops[f.after].name).to_owned(),
                cause: f.cause,
                launch_offset_ns: f.launch_offset_ns,
                host: self.host_in(f.start, f.start + f.length),
            })
            .collect();
        let total_ns: u64 = buckets.iter().map(|b| b.total_ns).sum();
        let wall_ns = reach - first;
        GapStats {
            wall_ns,
            count: buckets.iter().map(|b| b.count).sum(),
            total_ns,
            idle_pct: pct(total_ns, wall_ns),
            buckets,
            causes,
            largest,
        }
    }

    /// Framework ops and annotations overlapping `[start, end)`.
    fn host_in(&self, start: u64, end: u64) -> Vec<HostInGap> {
        let upto = self.host.partition_point(|s| s.start_ns < end);
        let mut found: Vec<(u64, u64, &HostSpan)> = self.host[..upto]
            .iter()
            .filter_map(|s| {
                let overlap = (s.start_ns.saturating_add(s.dur_ns)).min(end).saturating_sub(s.start_ns.max(start));
                (overlap > 0).then_some((overlap, s.dur_ns, *s))
            })
            .collect();
        found.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let length = end - start;
        let innermost_containing = found.iter().position(|f| f.0 == length);
        found
            .into_iter()
            .enumerate()
            .filter(|(i, f)| f.0 < length || Some(*i) == innermost_containing)
            .map(|(_, f)| f)
            .take(HOST_SPANS_PER_GAP)
            .map(|(overlap_ns, _, s)| HostInGap {
                name: self.timeline.name(s.name).to_owned(),
                category: s.category,
                overlap_ns,
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "gaps_tests.rs"]
mod tests;
