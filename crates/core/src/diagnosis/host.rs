//! The rules about the host side: the device waiting for the host, told apart by the shape
//! of its idle time, and copies from pageable host memory.
//!
//! - **host-bound** (warning): the busiest device was busy (union of op intervals) less than
//!   [`HOST_BOUND_BUSY_PCT`](super::HOST_BOUND_BUSY_PCT) of its wall time (first op start to
//!   last op end) and its idle time is spread over many short gaps: the longest gap is below
//!   [`IDLE_STRETCH_SHARE_PCT`] % of the idle time, and so are the stalls (gaps of at least
//!   [`STALL_MIN_NS`](crate::analysis::gaps::STALL_MIN_NS)) together. Launch overhead between
//!   small kernels.
//! - **idle stretch** (warning): as busy, but one gap, or the stalls together, hold at least
//!   [`IDLE_STRETCH_SHARE_PCT`] % of the idle time: the host stalled there (input,
//!   synchronisation, I/O, compilation); batching launches would not help. (A trace whose
//!   median gap is 1 µs but whose idle time sits in a few 10 ms-2 s stalls is this, not
//!   host-bound.)
//! - **pageable copies** (warning): host↔device copies named as pageable (`Pageable` in the
//!   copy's name: torch.profiler's `Memcpy HtoD (Pageable -> Device)`, prof's CUPTI
//!   `CUDA memcpy HtoD (Pageable -> Device)`) take at least [`PAGEABLE_MIN_BUSY_PCT`] % of
//!   the device's busy time and last at least [`PAGEABLE_MIN_MEAN_NS`] on average (a
//!   one-scalar sync copy is not a data copy).
//! - **host syncs** (warning): host calls that wait for the device (`cuda*Synchronize`,
//!   `cu*Synchronize`, the synchronous `cudaMemcpy`) run at least [`SYNCS_PER_STEP`] times a
//!   step: data-dependent ops (`.item()`, `nonzero`, `torch.where`, boolean masks) inside the
//!   step drain the launch queue each time. One a step (a loss read, a stopping check) is not
//!   flagged. Needs steps and host API records (prof's CUPTI tracer, torch.profiler, nsys).

use super::{finding, pct, us, Diagnosis, DiagnosisKind, HOST_BOUND_BUSY_PCT};
use crate::deepdive::Severity;
use crate::kernel_summary::{DeviceTime, KernelSummary};
use prof_timeline::intervals::IntervalSet;
use prof_timeline::timeline::{DeviceOp, OpKind, Timeline};

/// Share of the idle time, percent, that one gap must hold to be a stall rather than launch
/// overhead.
pub(crate) const IDLE_STRETCH_SHARE_PCT: f64 = 50.0;
/// Least share of device busy time, percent, that pageable copies must take to be reported.
pub(crate) const PAGEABLE_MIN_BUSY_PCT: f64 = 10.0;
/// Least mean duration of a pageable copy, ns, to be reported.
pub(crate) const PAGEABLE_MIN_MEAN_NS: u64 = 10_000;
/// Host syncs per step from which they are reported.
pub(crate) const SYNCS_PER_STEP: f64 = 4.0;

/// True for a host call that waits for the device.
pub fn is_sync_call(name: &str) -> bool {
    let base = name.split("_v").next().unwrap_or(name);
    base.contains("Synchronize") || base == "cudaMemcpy" || base == "cudaMemcpy2D" || base.starts_with("cuMemcpyDtoH")
}

struct Gaps {
    count: usize,
    stalls: usize,
    stall_ns: u64,
    median_ns: u64,
    longest_ns: u64,
    longest_at_ns: u64,
    before: String,
    after: String,
}

/// The gaps of `device`'s busy time ([`IntervalSet::gaps`], as the idle-gaps analysis
/// measures them: zero-length ops cover nothing), and the ops on either side of the longest
/// (the earliest of equal ones).
fn gaps(timeline: &Timeline, device: &DeviceTime) -> Option<Gaps> {
    let ops: Vec<&DeviceOp> =
        timeline.ops.iter().filter(|op| op.device() == device.device && op.dur_ns() > 0).collect();
    let busy = IntervalSet::from_unsorted(ops.iter().map(|op| (op.start_ns, op.end_ns())).collect());
    let mut lengths: Vec<u64> = busy.gaps().map(|(start, end)| end - start).collect();
    let (start, end) = busy.gaps().max_by_key(|&(start, end)| (end - start, std::cmp::Reverse(start)))?;
    lengths.sort_unstable();
    let stall_from = lengths.partition_point(|&l| l < crate::analysis::gaps::STALL_MIN_NS);
    let name =
        |op: Option<&&DeviceOp>| op.map_or_else(String::new, |op| super::short(timeline.name(op.name())).to_owned());
    Some(Gaps {
        count: lengths.len(),
        stalls: lengths.len() - stall_from,
        stall_ns: lengths[stall_from..].iter().sum(),
        median_ns: lengths[lengths.len() / 2],
        longest_ns: end - start,
        longest_at_ns: start.saturating_sub(device.first_start_ns),
        before: name(ops.iter().find(|op| op.end_ns() == start)),
        after: name(ops.iter().filter(|op| op.start_ns == end).min_by_key(|op| op.end_ns())),
    })
}

/// Host-bound or an idle stretch, from the busiest device's busy share and gap structure.
pub(super) fn waiting(timeline: &Timeline, summary: &KernelSummary) -> Option<Diagnosis> {
    let device = summary.busiest_device()?;
    if device.busy_pct >= HOST_BOUND_BUSY_PCT {
        return None;
    }
    let idle = device.wall_ns.saturating_sub(device.busy_ns);
    let busy = format!(
        "device {}: busy {} of a {} window ({} %, flagged below {HOST_BOUND_BUSY_PCT} %)",
        device.device,
        us(device.busy_ns),
        us(device.wall_ns),
        pct(device.busy_pct)
    );
    let gaps = gaps(timeline, device)?;
    let longest_share = gaps.longest_ns as f64 * 100.0 / idle.max(1) as f64;
    let longest = format!(
        "longest gap {} at +{} ({} % of the idle time), between `{}` and `{}`",
        us(gaps.longest_ns),
        us(gaps.longest_at_ns),
        pct(longest_share),
        gaps.before,
        gaps.after
    );
    let stall_share = gaps.stall_ns as f64 * 100.0 / idle.max(1) as f64;
    let spread = format!(
        "{} gaps, median {}; {} of at least {} hold {} % of the idle time",
        gaps.count,
        us(gaps.median_ns),
        gaps.stalls,
        us(crate::analysis::gaps::STALL_MIN_NS),
        pct(stall_share)
    );
    if longest_share >= IDLE_STRETCH_SHARE_PCT || stall_share >= IDLE_STRETCH_SHARE_PCT {
        let headline = "idle stretch: the device waits in few long stretches, not between kernels; the host stalled \
                        there (input pipeline, synchronisation, I/O, compilation): find what the host did then";
        return finding(
            DiagnosisKind::IdleStretch,
            Severity::Warning,
            headline.to_owned(),
            vec![busy, longest, spread],
        );
    }
    let per_op = format!("{} ops, {} idle per op on average", device.ops, us(idle / device.ops.max(1)));
    let headline = "host-bound: the device sits idle between small kernels; batch more work per launch or \
                    replay the step as a captured device graph"
        .to_owned();
    finding(DiagnosisKind::HostBound, Severity::Warning, headline, vec![busy, spread, longest, per_op])
}

/// Copies from pageable host memory that take a real share of the device's time.
pub(super) fn pageable_copies(timeline: &Timeline, summary: &KernelSummary) -> Option<Diagnosis> {
    let device = summary.busiest_device()?;
    let pageable: Vec<_> = summary
        .kernels
        .iter()
        .filter(|k| k.kind == OpKind::Memcpy && k.name.to_ascii_lowercase().contains("pageable"))
        .collect();
    let calls: u64 = pageable.iter().map(|k| k.calls).sum();
    let ns: u64 = pageable.iter().map(|k| k.total_ns).sum();
    let share = ns as f64 * 100.0 / device.busy_ns.max(1) as f64;
    if calls == 0 || share < PAGEABLE_MIN_BUSY_PCT || ns / calls < PAGEABLE_MIN_MEAN_NS {
        return None;
    }
    let ids: Vec<_> = pageable.iter().map(|k| k.name_id).collect();
    let bytes: u64 = timeline
        .ops
        .iter()
        .filter(|op| op.kind() == OpKind::Memcpy && ids.contains(&op.name()))
        .filter_map(|op| timeline.details_of(op).and_then(|d| d.bytes))
        .sum();
    let mut evidence = vec![format!(
        "{calls} pageable copies, {} ({} % of device {}'s busy time, flagged from {PAGEABLE_MIN_BUSY_PCT} %)",
        us(ns),
        pct(share),
        device.device
    )];
    for k in &pageable {
        evidence.push(format!(
            "{}: {}, {}, {} mean",
            k.name,
            prof_timeline::units::count(k.calls, "call"),
            us(k.total_ns),
            us(k.mean_ns as u64)
        ));
    }
    if bytes > 0 && ns > 0 {
        evidence.push(format!(
            "{:.1} MiB moved at {:.1} GB/s (pinned host memory copies at tens of GB/s)",
            bytes as f64 / 1_048_576.0,
            bytes as f64 / ns as f64
        ));
    }
    let headline = "pageable copies: host↔device copies from pageable memory are staged through a bounce buffer \
                    and block the host; pin the host buffers (DataLoader(pin_memory=True), tensor.pin_memory()) and \
                    copy with non_blocking=True";
    finding(DiagnosisKind::PageableCopies, Severity::Warning, headline.to_owned(), evidence).map(|d| d.about(ns))
}

/// Host calls that wait for the device, several times a step; `steps` counts
/// [firm](super::StepInfo::firm) steps only (the FlexAttention run's 26 syncs were a compile's
/// uploads around three launches of a setup kernel, not a step's).
pub(super) fn host_syncs(timeline: &Timeline, steps: Option<usize>) -> Option<Diagnosis> {
    let steps = steps?;
    let mut by_name: prof_timeline::intern::FxHashMap<prof_timeline::intern::NameId, (bool, u64, u64)> =
        Default::default();
    for span in &timeline.host {
        let entry = by_name.entry(span.name).or_insert_with(|| (is_sync_call(timeline.name(span.name)), 0, 0));
        if entry.0 {
            entry.1 += 1;
            entry.2 += span.dur_ns();
        }
    }
    let mut syncs: Vec<(&str, u64, u64)> =
        by_name.iter().filter(|(_, v)| v.0 && v.1 > 0).map(|(id, v)| (timeline.name(*id), v.1, v.2)).collect();
    let calls: u64 = syncs.iter().map(|s| s.1).sum();
    let per_step = calls as f64 / steps.max(1) as f64;
    if per_step < SYNCS_PER_STEP {
        return None;
    }
    syncs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let waited: u64 = syncs.iter().map(|s| s.2).sum();
    let mut evidence = vec![format!(
        "{calls} host calls that wait for the device, {per_step:.1} per step over {steps} steps (flagged from \
         {SYNCS_PER_STEP}), {} waited in them",
        us(waited)
    )];
    evidence.extend(
        syncs
            .iter()
            .take(3)
            .map(|(name, n, ns)| format!("{name}: {}, {}", prof_timeline::units::count(*n, "call"), us(*ns))),
    );
    let headline = "host syncs inside the step: the host waits for the device several times a step, so the launch \
                    queue drains each time; find the data-dependent ops (.item(), nonzero, torch.where, boolean \
                    masks, repeat_interleave without output_size) and move them out of the step or make the shapes \
                    static";
    finding(DiagnosisKind::HostSyncs, Severity::Warning, headline.to_owned(), evidence)
}
