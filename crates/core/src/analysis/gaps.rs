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

use super::streams::{pct, stream_roles, DeviceStreams};
use crate::families::Families;
use prof_timeline::intern::FxHashMap;
use prof_timeline::run_map::RunMap;
use prof_timeline::timeline::{HostCategory, HostSpan, Timeline};
use serde::Serialize;
use sweep::{Context, Sweep};

mod sweep;

/// Longest gap, ns, between an early-launched op and the op before it that counts as kernel wait.
pub(crate) const KERNEL_WAIT_MAX_NS: u64 = 10_000;
/// Gaps listed per device (and per main stream), longest first.
pub(crate) const TOP_GAPS: usize = 10;
/// Host spans listed per gap.
pub(crate) const HOST_SPANS_PER_GAP: usize = 5;
/// Share of device-gap time, percent, from which a cause's remedy is given.
pub(crate) const REMEDY_MIN_IDLE_SHARE_PCT: f64 = 25.0;
/// A gap at least this long, ns, is a stall (the host stopped: input, a sync, I/O,
/// compilation), not launch overhead between kernels: [`CauseTotal::long_count`].
pub(crate) const STALL_MIN_NS: u64 = 1_000_000;
/// Upper bounds, ns, of the gap-length buckets; the last bucket is open.
pub(crate) const BUCKET_BOUNDS_NS: [u64; 4] = [10_000, 100_000, 1_000_000, 10_000_000];

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
    /// Gaps of at least [`STALL_MIN_NS`] among them (added in 0.6.0).
    #[serde(default)]
    pub long_count: u64,
    /// Their summed length, ns (added in 0.6.0).
    #[serde(default)]
    pub long_ns: u64,
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
///
/// One pass over the ops in start order feeds every device's sweeps (device, main stream and
/// each stream) at once: no per-device or per-stream op lists are built.
pub fn idle_gaps(timeline: &Timeline, families: &Families) -> Vec<DeviceGaps> {
    idle_gaps_of_roles(timeline, &stream_roles(timeline, families), &timeline.launch_index())
}

/// [`idle_gaps`] with the timeline's [`stream_roles`] and [`Timeline::launch_index`] given
/// (several analyses read them).
pub fn idle_gaps_of_roles(
    timeline: &Timeline,
    roles: &[DeviceStreams],
    launches: &prof_timeline::launch_index::LaunchIndex,
) -> Vec<DeviceGaps> {
    let mut host: Vec<&HostSpan> = timeline
        .host
        .iter()
        .filter(|s| matches!(s.category, HostCategory::Framework | HostCategory::Annotation))
        .collect();
    host.sort_by_key(|s| s.start_ns);
    let context = Context { timeline, launches, host };
    let mut devices: Vec<DeviceSweeps> = roles
        .iter()
        .filter_map(|streams| {
            Some(DeviceSweeps {
                device: streams.device,
                main_stream: streams.main_stream()?,
                one_stream: streams.streams.len() == 1,
                all: Sweep::new(TOP_GAPS),
                main: Sweep::new(TOP_GAPS),
                streams: RunMap::new(),
            })
        })
        .collect();
    let slots: FxHashMap<u32, usize> = devices.iter().enumerate().map(|(at, d)| (d.device, at)).collect();
    let ops = &timeline.ops;
    // Ops of one device come in runs: its slot is looked up when the device changes.
    let mut current: Option<(u32, Option<usize>)> = None;
    let feed = |index: usize| {
        let op = &ops[index];
        if op.dur_ns() == 0 {
            return;
        }
        let id = op.device();
        let slot = match current {
            Some((device, slot)) if device == id => slot,
            _ => current.insert((id, slots.get(&id).copied())).1,
        };
        let Some(at) = slot else { return };
        let device = &mut devices[at];
        device.all.add(&context, index, op);
        if device.one_stream {
            // Its main stream's gaps and that stream's are the device's (taken at the end).
            return;
        }
        let stream = op.stream();
        if stream == device.main_stream {
            device.main.add(&context, index, op);
        }
        device.streams.get(stream).add(&context, index, op);
    };
    if ops.is_sorted_by_key(|op| op.start_ns) {
        (0..ops.len()).for_each(feed);
    } else {
        // Stable: ops starting together keep the source's order, as in each sweep's own sort.
        let mut order: Vec<usize> = (0..ops.len()).collect();
        order.sort_by_key(|&i| ops[i].start_ns);
        order.into_iter().for_each(feed);
    }
    devices
        .into_iter()
        .filter(|d| d.all.first.is_some())
        .map(|d| {
            let device_gaps = d.all.finish(&context);
            let remedies = device_gaps
                .causes
                .iter()
                .filter(|c| c.total_ns > 0 && pct(c.total_ns, device_gaps.total_ns) >= REMEDY_MIN_IDLE_SHARE_PCT)
                .filter_map(|c| Some(Remedy { cause: c.cause, advice: c.cause.remedy()? }))
                .collect();
            let of_stream = |stream: u64, stats: &GapStats| StreamGaps {
                stream,
                wall_ns: stats.wall_ns,
                count: stats.count,
                total_ns: stats.total_ns,
                idle_pct: stats.idle_pct,
                causes: stats.causes.clone(),
            };
            let (main_stream_gaps, streams) = if d.one_stream {
                // One stream: its gaps, and the main stream's, are the device's.
                (device_gaps.clone(), vec![of_stream(d.main_stream, &device_gaps)])
            } else {
                let mut streams: Vec<StreamGaps> = d
                    .streams
                    .into_map()
                    .into_iter()
                    .map(|(stream, sweep)| of_stream(stream, &sweep.finish(&context)))
                    .collect();
                streams.sort_by_key(|s| s.stream);
                (d.main.finish(&context), streams)
            };
            DeviceGaps {
                device: d.device,
                device_gaps,
                main_stream: d.main_stream,
                main_stream_gaps,
                remedies,
                streams,
            }
        })
        .collect()
}

/// The sweeps of one device while the ops stream past.
struct DeviceSweeps {
    device: u32,
    main_stream: u64,
    /// The device has one stream (its main one): only the device's sweep is fed.
    one_stream: bool,
    all: Sweep,
    main: Sweep,
    /// Each stream's sweep (its ops mostly come in runs: looked up once a run).
    streams: RunMap<u64, Sweep>,
}

#[cfg(test)]
mod tests;
