//! The timeline analyses of one window, as data, worked out on two threads beside the
//! diagnosis. What each holds is the analysis's own type; a renderer decides what to show
//! (an analysis with nothing to say is shown by none).

use super::comm::CommReport;
use super::context::Context;
use crate::analysis::counters::{counter_drops, SeriesDrops};
use crate::analysis::gaps::DeviceGaps;
use crate::analysis::launch::LaunchStats;
use crate::analysis::layers::{find_layers_of_roles, Layers};
use crate::analysis::overlap::{overlaps_of, DeviceOverlap};
use crate::analysis::streams::{communication_ops, DeviceStreams};
use crate::analysis::temporal::{temporal_breakdown, DeviceTemporal};
use crate::Timeline;
use prof_timeline::section::Section;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The analyses of one window, in report order.
#[derive(Debug, Clone, Default)]
pub struct Analyses {
    /// Wall time per device: compute, communication, memory, other, idle.
    pub temporal: Vec<DeviceTemporal>,
    /// The streams of each device and their roles.
    pub streams: Vec<DeviceStreams>,
    /// The idle gaps of each device.
    pub gaps: Vec<DeviceGaps>,
    /// What ran under what (communication under compute, cube under vector).
    pub overlap: Vec<DeviceOverlap>,
    /// Kernel launches: delay, call time, kernels shorter than their launch.
    pub launch: Option<LaunchStats>,
    /// The repeating layer of the main stream.
    pub layers: Option<Layers>,
    /// Counter series and their clock drops.
    pub counters: Vec<SeriesDrops>,
    /// The collectives (`Err`: the vendor's tables were there and could not be read).
    pub comm: Option<Result<CommReport, String>>,
    /// How close to the hardware the ops with recorded shapes ran.
    pub roofline: Option<crate::roofline::Roofline>,
    /// The backends' own sections: those the reader found with the ops, then those read
    /// beside the artifact.
    pub vendor: Vec<Section>,
}

/// One slot per analysis, filled by whichever thread runs its job.
#[derive(Default)]
struct Slots {
    temporal: Mutex<Vec<DeviceTemporal>>,
    overlap: Mutex<Vec<DeviceOverlap>>,
    layers: Mutex<Option<Layers>>,
    counters: Mutex<Vec<SeriesDrops>>,
    comm: Mutex<Option<Result<CommReport, String>>>,
}

/// Every analysis of `timeline`, with `beside` (the diagnosis) run too, on two threads that
/// each take the next job, costliest first (as measured at 10 M ops), so the two finish
/// together. The stream roles, idle gaps and launch statistics stay in `context` (the answer
/// reads them); [`super::analyze`] moves them into the report.
pub(super) fn compute_beside<T: Send>(
    timeline: &Timeline,
    context: &Context,
    beside: impl FnOnce() -> T + Send,
) -> (Analyses, T) {
    let slots = Slots::default();
    let job = |k: usize| match k {
        0 => *lock(&slots.temporal) = temporal_breakdown(timeline, context.families),
        1 => drop(context.stream_roles(timeline)),
        2 => drop(context.idle_gaps(timeline)),
        3 => {
            let communication = communication_ops(context.stream_roles(timeline)) > 0;
            *lock(&slots.overlap) = overlaps_of(timeline, context.families, communication);
        }
        4 => drop(context.launch_stats(timeline)),
        5 => *lock(&slots.layers) = find_layers_of_roles(timeline, context.stream_roles(timeline)),
        6 => *lock(&slots.counters) = counter_drops(timeline),
        _ => *lock(&slots.comm) = super::comm::analysis(timeline, context),
    };
    // The jobs, costliest first: `None` is `beside`, `Some(k)` analysis k. `beside` (the
    // diagnosis) starts beside the layers: it lets go of the steps' bounds early, before the
    // layers hold their names and sums (at 10 M ops both are ~80 MB). Then by their time at
    // 10 M ops (rocprofv3, nsys, Ascend): gaps 0.14-0.21 s, temporal 0.14-0.15 s, overlap
    // 0.11-0.28 s, comm 0.03-0.12 s, launch 0.04 s (temporal before overlap: the two threads
    // end 0.04 s apart on the rocprofv3 file, not 0.1 s).
    const JOBS: [Option<usize>; 9] = [Some(5), None, Some(2), Some(0), Some(3), Some(7), Some(4), Some(1), Some(6)];
    let next = AtomicUsize::new(0);
    let beside = Mutex::new(Some(beside));
    let besides = Mutex::new(None);
    let work = || {
        while let Some(&job_k) = JOBS.get(next.fetch_add(1, Ordering::Relaxed)) {
            match job_k {
                Some(k) => job(k),
                None => {
                    let beside = lock(&beside).take();
                    *lock(&besides) = beside.map(|f| f());
                }
            }
        }
    };
    std::thread::scope(|scope| {
        let second = scope.spawn(work);
        work();
        second.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    });
    let analyses = Analyses {
        temporal: into(slots.temporal),
        overlap: into(slots.overlap),
        layers: into(slots.layers),
        counters: into(slots.counters),
        comm: into(slots.comm),
        vendor: timeline.sections.clone(),
        ..Analyses::default()
    };
    let besides = into(besides);
    (analyses, besides.expect("the jobs include beside, run once"))
}

/// The value behind `mutex`, also after a panic elsewhere (that panic is re-raised anyway).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn into<T>(mutex: Mutex<T>) -> T {
    mutex.into_inner().unwrap_or_else(|e| e.into_inner())
}
