//! Kernel launch statistics (HolisticTraceAnalysis' "CUDA kernel launch statistics"), over
//! the kernels ([`OpKind::Kernel`] and [`OpKind::Communication`] ops) whose correlation id
//! links them to a host span of category [`HostCategory::Runtime`] or
//! [`HostCategory::Driver`] (`cudaLaunchKernel`, `hipLaunchKernel`, `aclnn…` launches):
//! - **launch delay**: kernel start − launch call start (queueing plus launch latency), as
//!   nearest-rank percentiles; a kernel that starts before its launch call, or more than
//!   [`MAX_PLAUSIBLE_DELAY_NS`] after it, is a broken link (clocks or ids from different
//!   runs) and is counted as such, not used;
//! - **CPU launch time against kernel time**: summed launch call durations beside summed
//!   kernel durations;
//! - **the launch-bound signal**: the share of kernels that ran shorter than the call that
//!   launched them, and the share of kernels shorter than [`SHORT_KERNEL_NS`] (count and
//!   time). When at least [`LAUNCH_BOUND_PCT`] % of kernels run shorter than their launch,
//!   the device cannot be kept busy by one launching thread: the verdict is launch-bound;
//!   from [`PARTLY_LAUNCH_BOUND_PCT`] % it is partly launch-bound. Both need an empty launch
//!   queue: when the median **queue wait** (launch delay less the launch call's own duration:
//!   how long the kernel waited after its launch call returned) is at least
//!   [`LAUNCH_QUEUE_DEEP_NS`], the host runs that far ahead of the device and short kernels
//!   cost nothing (a jitted JAX MLP, 89 % busy, 80 % of its kernels shorter than their launch,
//!   a 2.35 ms queue; a V100 ResNet training step whose launches ran 76 ms ahead): not
//!   launch-bound. (An Ascend launch call can itself take 290 µs, its kernel starting as it
//!   returns: that queue is empty.)

use super::streams::pct;
use prof_timeline::timeline::{OpKind, Timeline};
use serde::Serialize;

/// A kernel shorter than this, ns, is a short kernel.
pub const SHORT_KERNEL_NS: u64 = 10_000;
/// Share of kernels, percent, shorter than their launch call from which the verdict is launch-bound.
pub(crate) const LAUNCH_BOUND_PCT: f64 = 50.0;
/// Share of kernels, percent, shorter than their launch call from which the verdict is partly launch-bound.
pub(crate) const PARTLY_LAUNCH_BOUND_PCT: f64 = 20.0;
/// A median queue wait (launch delay less the launch call) of at least this, ns, means the
/// launch queue holds work: the host runs ahead of the device, which does not wait for
/// launches (an empty queue starts a kernel within some 5-20 µs of its launch call).
pub(crate) const LAUNCH_QUEUE_DEEP_NS: u64 = 100_000;
/// A launch delay longer than this, ns, means the correlation link is broken (60 s).
pub(crate) const MAX_PLAUSIBLE_DELAY_NS: u64 = 60_000_000_000;

/// Nearest-rank percentiles of a set of durations, ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Percentiles {
    /// Median.
    pub p50_ns: u64,
    /// 90th percentile.
    pub p90_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// Largest.
    pub max_ns: u64,
}

impl Percentiles {
    /// Percentiles of `values` (sorted here); `None` when empty.
    pub fn of(mut values: Vec<u64>) -> Option<Self> {
        values.sort_unstable();
        let rank = |p: usize| values.get((values.len() * p).div_ceil(100).max(1) - 1).copied();
        Some(Self { p50_ns: rank(50)?, p90_ns: rank(90)?, p99_ns: rank(99)?, max_ns: *values.last()? })
    }
}

/// How the launch-bound signal reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LaunchVerdict {
    /// Most kernels run shorter than their launch call.
    LaunchBound,
    /// A sizeable minority does.
    PartlyLaunchBound,
    /// Kernels outlast their launches.
    NotLaunchBound,
    /// Every link is broken: nothing to judge.
    Unknown,
}

/// Launch statistics over the linked kernels of a timeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LaunchStats {
    /// Kernels linked to a runtime/driver launch with a plausible delay.
    pub kernels: u64,
    /// Kernels whose correlation found a launch span but whose delay was implausible.
    pub broken_links: u64,
    /// Kernel start − launch start (absent when every link is broken).
    pub delay: Option<Percentiles>,
    /// Launch call durations (absent when every link is broken).
    pub launch_duration: Option<Percentiles>,
    /// Launch delay less the launch call's duration, per kernel: how long it waited in the
    /// queue after its launch returned (absent when every link is broken; added in 0.6.0).
    pub queue_wait: Option<Percentiles>,
    /// Summed launch call durations, ns.
    pub launch_total_ns: u64,
    /// Summed kernel durations, ns.
    pub kernel_total_ns: u64,
    /// Kernels that ran shorter than their launch call.
    pub shorter_than_launch: u64,
    /// `shorter_than_launch` as a percentage of `kernels`.
    pub shorter_than_launch_pct: f64,
    /// Kernels shorter than [`SHORT_KERNEL_NS`].
    pub short_kernels: u64,
    /// `short_kernels` as a percentage of `kernels`.
    pub short_kernels_pct: f64,
    /// Summed durations of the short kernels, ns.
    pub short_kernel_ns: u64,
    /// `short_kernel_ns` as a percentage of `kernel_total_ns`.
    pub short_kernel_time_pct: f64,
    /// What the numbers say.
    pub verdict: LaunchVerdict,
    /// The verdict as one line, with its evidence.
    pub verdict_line: String,
    /// Kernels launched by a graph replay (`cudaGraphLaunch`, `hipGraphLaunch`, …) among those
    /// linked (added in 0.7.0): the step is already a graph, so launch overhead is not per kernel.
    #[serde(default)]
    pub graph_launched: u64,
}

/// Launch statistics of `timeline`, or `None` when no kernel links to a launch span (a timeline
/// whose links are all broken gets statistics with no kernels, so the report can say so).
pub fn launch_stats(timeline: &Timeline) -> Option<LaunchStats> {
    launch_stats_of(timeline, &timeline.launch_index())
}

/// [`launch_stats`] with the timeline's [`Timeline::launch_index`] given (the idle gaps read
/// it too).
pub fn launch_stats_of(
    timeline: &Timeline,
    launches: &prof_timeline::launch_index::LaunchIndex,
) -> Option<LaunchStats> {
    if launches.is_empty() {
        // No launch call for any op to link to (a trace of device ops alone).
        return None;
    }
    let (mut delays, mut durations, mut waits) = (Vec::new(), Vec::new(), Vec::new());
    let (mut broken_links, mut kernel_total_ns, mut shorter, mut short, mut short_ns) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut graph_launched = 0u64;
    let mut is_graph_launch: prof_timeline::intern::FxHashMap<prof_timeline::intern::NameId, bool> = Default::default();
    for op in timeline.ops.iter().filter(|op| matches!(op.kind(), OpKind::Kernel | OpKind::Communication)) {
        // Launch calls only (runtime and driver spans: the index holds nothing else).
        let Some(span) = op.correlation.get().and_then(|c| launches.get(c)).and_then(|i| timeline.host.get(i)) else {
            continue;
        };
        let delay = op.start_ns.checked_sub(span.start_ns).filter(|&d| d <= MAX_PLAUSIBLE_DELAY_NS);
        let Some(delay) = delay else {
            broken_links += 1;
            continue;
        };
        delays.push(delay);
        graph_launched += u64::from(
            *is_graph_launch.entry(span.name).or_insert_with(|| timeline.name(span.name).contains("GraphLaunch")),
        );
        durations.push(span.dur_ns());
        waits.push(delay.saturating_sub(span.dur_ns()));
        kernel_total_ns += op.dur_ns();
        shorter += u64::from(op.dur_ns() < span.dur_ns());
        if op.dur_ns() < SHORT_KERNEL_NS {
            short += 1;
            short_ns += op.dur_ns();
        }
    }
    let kernels = delays.len() as u64;
    let launch_total_ns = durations.iter().sum();
    if kernels == 0 && broken_links == 0 {
        return None;
    }
    let delay = Percentiles::of(delays);
    let launch_duration = Percentiles::of(durations);
    let shorter_pct = pct(shorter, kernels);
    let queue_wait = Percentiles::of(waits);
    let queued = queue_wait.is_some_and(|w| w.p50_ns >= LAUNCH_QUEUE_DEEP_NS);
    // Most kernels replayed from graphs: one launch call stands for many kernels, so a kernel
    // shorter than "its" launch call says nothing about launch cost.
    let graphed = kernels > 0 && graph_launched * 2 >= kernels;
    let verdict = if kernels == 0 {
        LaunchVerdict::Unknown
    } else if queued || graphed {
        LaunchVerdict::NotLaunchBound
    } else if shorter_pct >= LAUNCH_BOUND_PCT {
        LaunchVerdict::LaunchBound
    } else if shorter_pct >= PARTLY_LAUNCH_BOUND_PCT {
        LaunchVerdict::PartlyLaunchBound
    } else {
        LaunchVerdict::NotLaunchBound
    };
    let short_pct = pct(short, kernels);
    let lead = match verdict {
        LaunchVerdict::LaunchBound => "launch-bound",
        LaunchVerdict::PartlyLaunchBound => "partly launch-bound",
        LaunchVerdict::NotLaunchBound => "not launch-bound",
        LaunchVerdict::Unknown => "",
    };
    let verdict_line = if kernels == 0 {
        format!(
            "unknown: all {broken_links} correlation links are broken (the kernel starts before its launch call or \
             more than {} s after it: ids or clocks from different runs)",
            MAX_PLAUSIBLE_DELAY_NS / 1_000_000_000
        )
    } else if graphed {
        format!(
            "{lead} per kernel: {graph_launched} of {kernels} kernels were replayed from graphs (one launch call \
             for many kernels); what is left to win is the host's time between replays"
        )
    } else if queued {
        format!(
            "{lead}: the launch queue holds work (median queue wait {}, from {} µs), so the host runs ahead of \
             the device; {shorter_pct:.1} % of {kernels} kernels ran shorter than their launch call, which costs \
             nothing while the queue is full",
            prof_timeline::units::duration(queue_wait.map_or(0, |d| d.p50_ns) as f64),
            LAUNCH_QUEUE_DEEP_NS / 1_000
        )
    } else {
        format!(
            "{lead}: {shorter_pct:.1} % of {kernels} kernels ran shorter than their launch call, {short_pct:.1} % \
             are under {} µs",
            SHORT_KERNEL_NS / 1_000
        )
    };
    Some(LaunchStats {
        kernels,
        broken_links,
        delay,
        launch_duration,
        queue_wait,
        launch_total_ns,
        kernel_total_ns,
        shorter_than_launch: shorter,
        shorter_than_launch_pct: shorter_pct,
        short_kernels: short,
        short_kernels_pct: short_pct,
        short_kernel_ns: short_ns,
        short_kernel_time_pct: pct(short_ns, kernel_total_ns),
        verdict,
        verdict_line,
        graph_launched,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_timeline::timeline::{DeviceOp, HostCategory, HostSpan};

    fn launch(t: &mut Timeline, corr: u64, start: u64, dur: u64, category: HostCategory) {
        let name = t.intern("cudaLaunchKernel");
        t.host.push(HostSpan::test(name, category, start, dur, Some(corr)));
    }

    fn kernel(t: &mut Timeline, corr: u64, start: u64, dur: u64) {
        let name = t.intern("k");
        let mut op = DeviceOp::new(OpKind::Kernel, name, 0, 7, start, dur);
        op.correlation = Some(corr).into();
        t.push_op(op);
    }

    #[test]
    fn delays_durations_and_the_short_kernel_signal() {
        let mut t = Timeline::new("test");
        // (corr, launch start, launch dur, kernel start, kernel dur)
        for (c, ls, ld, ks, kd) in [
            (1, 0, 5_000, 10_000, 2_000),       // delay 10 us, shorter than launch, short
            (2, 6_000, 5_000, 20_000, 4_000),   // delay 14 us, shorter, short
            (3, 12_000, 5_000, 30_000, 50_000), // delay 18 us, long
            (4, 18_000, 5_000, 90_000, 6_000),  // delay 72 us, not shorter (6 > 5), short
        ] {
            launch(&mut t, c, ls, ld, HostCategory::Runtime);
            kernel(&mut t, c, ks, kd);
        }
        // a framework span with the same id pattern is not a launch; a kernel before its launch is broken
        launch(&mut t, 5, 200_000, 1_000, HostCategory::Framework);
        kernel(&mut t, 5, 210_000, 1_000);
        launch(&mut t, 6, 300_000, 1_000, HostCategory::Driver);
        kernel(&mut t, 6, 299_000, 1_000);
        let s = launch_stats(&t).expect("linked kernels");
        assert_eq!((s.kernels, s.broken_links), (4, 1));
        assert_eq!(s.delay, Some(Percentiles { p50_ns: 14_000, p90_ns: 72_000, p99_ns: 72_000, max_ns: 72_000 }));
        assert_eq!((s.launch_total_ns, s.kernel_total_ns), (20_000, 62_000));
        assert_eq!((s.shorter_than_launch, s.shorter_than_launch_pct), (2, 50.0));
        assert_eq!((s.short_kernels, s.short_kernel_ns), (3, 12_000));
        assert_eq!(s.verdict, LaunchVerdict::LaunchBound);
        assert!(s.verdict_line.starts_with("launch-bound: 50.0 % of 4 kernels"), "{}", s.verdict_line);
    }

    /// Kernels replayed from a graph share their graph launch's correlation id: counted as
    /// graph-launched, and a step of them is not called launch-bound for being shorter than
    /// the one launch call.
    #[test]
    fn kernels_replayed_from_a_graph_are_not_launch_bound_per_kernel() {
        let mut t = Timeline::new("test");
        let graph = t.intern("cudaGraphLaunch");
        t.host.push(HostSpan::test(graph, HostCategory::Runtime, 0, 30_000, Some(1)));
        for k in 0..3 {
            kernel(&mut t, 1, 31_000 + k * 3_000, 2_000);
        }
        launch(&mut t, 2, 40_000, 5_000, HostCategory::Runtime);
        kernel(&mut t, 2, 46_000, 2_000);
        let s = launch_stats(&t).expect("linked kernels");
        assert_eq!((s.kernels, s.graph_launched, s.shorter_than_launch), (4, 3, 4));
        assert_eq!(s.verdict, LaunchVerdict::NotLaunchBound);
        assert!(s.verdict_line.contains("3 of 4 kernels were replayed from graphs"), "{}", s.verdict_line);
    }

    /// A kernel whose correlation id a framework span also carries (written after its launch
    /// call) links to the launch call: the index holds launch calls only, so the framework
    /// span neither hides the link nor stands in for it.
    #[test]
    fn a_framework_span_with_the_same_id_does_not_hide_the_launch() {
        let mut t = Timeline::new("test");
        launch(&mut t, 1, 0, 5_000, HostCategory::Runtime);
        launch(&mut t, 1, 1_000, 1_000, HostCategory::Framework);
        kernel(&mut t, 1, 10_000, 2_000);
        assert_eq!(t.launch_index().get(1), Some(0));
        let s = launch_stats(&t).expect("the kernel links to its launch call");
        assert_eq!((s.kernels, s.broken_links, s.launch_total_ns), (1, 0, 5_000));
        assert_eq!(s.delay.map(|d| d.max_ns), Some(10_000));
    }

    /// Kernels shorter than their launch while the host runs 2 ms ahead (a jitted program
    /// with a deep launch queue): the device never waits for a launch, not launch-bound.
    #[test]
    fn a_deep_launch_queue_is_not_launch_bound() {
        let mut t = Timeline::new("test");
        for c in 0..50u64 {
            launch(&mut t, c + 1, c * 6_000, 6_000, HostCategory::Runtime);
            kernel(&mut t, c + 1, 2_000_000 + c * 6_000, 5_000);
        }
        let s = launch_stats(&t).expect("linked kernels");
        assert_eq!(s.shorter_than_launch_pct, 100.0);
        assert_eq!(s.delay.map(|d| d.p50_ns), Some(2_000_000));
        assert_eq!(s.verdict, LaunchVerdict::NotLaunchBound, "{}", s.verdict_line);
        assert!(
            s.verdict_line.contains("the launch queue holds work (median queue wait 1.99 ms"),
            "{}",
            s.verdict_line
        );
        // The same kernels started as soon as launched: launch-bound.
        let mut t = Timeline::new("test");
        for c in 0..50u64 {
            launch(&mut t, c + 1, c * 6_000, 6_000, HostCategory::Runtime);
            kernel(&mut t, c + 1, c * 6_000 + 8_000, 5_000);
        }
        assert_eq!(launch_stats(&t).map(|s| s.verdict), Some(LaunchVerdict::LaunchBound));
    }

    #[test]
    fn nothing_linked_is_none() {
        let mut t = Timeline::new("test");
        kernel(&mut t, 1, 0, 10);
        assert_eq!(launch_stats(&t), None);
        launch(&mut t, 1, 1_000, 10, HostCategory::Runtime);
        let broken = launch_stats(&t).expect("a link, broken");
        assert_eq!(
            (broken.kernels, broken.broken_links, broken.delay, broken.verdict),
            (0, 1, None, LaunchVerdict::Unknown)
        );
        assert_eq!(Percentiles::of(vec![5]).map(|p| p.p99_ns), Some(5));
    }
}
