//! How each kind of answer reads: the headline, its remedy and its evidence line, from the
//! account and the analyses behind it.

use super::account::{Account, IdleCause, Part};
use super::model::{Answer, Candidate, Evidence, Next, Verdict};
use super::model::{ADDRESSABLE_MIN_PCT, DOMINANT_RATIO, DOMINANT_SHARE_PCT, ENOUGH_BUSY_NS, ENOUGH_OPS, ENOUGH_STEPS};
use crate::analysis::gaps::{DeviceGaps, STALL_MIN_NS};
use crate::analysis::launch::LaunchStats;
use crate::diagnosis::{DiagnosisKind, DiagnosisReport};
use crate::families::Family;
use crate::kernel_summary::KernelSummary;
use prof_timeline::timeline::OpKind;
use prof_timeline::units::duration;

fn ns(value: u64) -> String {
    duration(value as f64)
}

/// `busy 71.2 % of 4.80 ms on device 0`.
fn busy_line(account: &Account) -> String {
    format!("busy {:.1} % of {} on device {}", account.busy_pct(), ns(account.wall_ns), account.device)
}

/// The evidence size as a person reads it: `1,204 device ops, 38.2 ms of device work, 12 steps`.
fn size_line(evidence: &Evidence) -> String {
    let mut line =
        format!("{}, {} of device work", prof_timeline::units::count(evidence.ops, "device op"), ns(evidence.busy_ns));
    if let Some(steps) = evidence.steps {
        line.push_str(&format!(", {}", prof_timeline::units::count(steps as u64, "step")));
    }
    line
}

pub(super) fn no_device(diagnosis: Option<&DiagnosisReport>, evidence: Evidence) -> Answer {
    let finding = diagnosis.and_then(|d| d.get(DiagnosisKind::NoDeviceActivity));
    let headline = finding.map_or_else(
        || "no device ops in the window: nothing ran on the device, or the capture missed it".to_owned(),
        |f| f.headline.clone(),
    );
    Answer {
        verdict: Verdict::NoDeviceActivity,
        headline,
        share_pct: None,
        remedy: None,
        evidence_line: finding.and_then(|f| f.evidence.first().cloned()).unwrap_or_else(|| size_line(&evidence)),
        evidence,
        next: Next::CaptureMore,
        account: None,
        efficiency: None,
    }
}

pub(super) fn too_little(account: Account, evidence: Evidence) -> Answer {
    let size = size_line(&evidence);
    too_little_of(&size, busy_line(&account), evidence, Some(account))
}

/// "Too little captured to tell" of a window whose size reads `size`.
fn too_little_of(size: &str, evidence_line: String, evidence: Evidence, account: Option<Account>) -> Answer {
    Answer {
        verdict: Verdict::TooLittle,
        headline: format!(
            "too little captured to tell: {size} in the window (a verdict needs {ENOUGH_OPS} ops, {ENOUGH_STEPS} \
             steps or {} of device work)",
            ns(ENOUGH_BUSY_NS)
        ),
        share_pct: None,
        remedy: Some(
            "capture a longer window that opens on the work (past the load and warm-up), or point at a larger \
             artifact"
                .to_owned(),
        ),
        evidence_line,
        evidence,
        next: Next::CaptureMore,
        account,
        efficiency: None,
    }
}

/// The idle causes that can be won back, as candidates.
pub(super) fn idle_candidates(
    account: &Account,
    launch: Option<&LaunchStats>,
    gaps: Option<&[DeviceGaps]>,
) -> Vec<Candidate> {
    let device_gaps = gaps.and_then(|g| g.iter().find(|g| g.device == account.device));
    let longest = device_gaps.and_then(|g| g.device_gaps.largest.first()).map_or_else(String::new, |g| {
        format!(
            "; longest {} at +{} between `{}` and `{}`",
            ns(g.length_ns),
            ns(g.offset_ns),
            crate::diagnosis::short(&g.before),
            crate::diagnosis::short(&g.after)
        )
    });
    let launch_line = launch.and_then(|l| {
        let (d, c) = (l.delay?, l.launch_duration?);
        let mean_kernel = l.kernel_total_ns / l.kernels.max(1);
        Some(format!(
            "; launch calls take {} (p50) against {} kernels (mean), launch delay p50 {}",
            ns(c.p50_ns),
            ns(mean_kernel),
            ns(d.p50_ns)
        ))
    });
    let launch_line = launch_line.unwrap_or_default();
    let graphed = launch.filter(|l| l.kernels > 0 && l.graph_launched * 2 >= l.kernels).map(|l| {
        format!("{} of {} kernels linked to their launch came from graph replays", l.graph_launched, l.kernels)
    });
    let mut out = Vec::new();
    for part in &account.parts {
        let Part::Idle { cause } = part.part else { continue };
        let count = prof_timeline::units::count(part.gaps.unwrap_or(0), "gap");
        let share = part.pct;
        let stall = ns(STALL_MIN_NS);
        let (headline, remedy, evidence) = match cause {
            // Most kernels come from graph replays: the step is a graph already, and the wait is
            // the host's time between replays, not a launch per kernel.
            IdleCause::LaunchGaps if graphed.is_some() => (
                format!("the device waits between graph replays: {share:.1} % of the window"),
                "the step already replays as a graph, so the idle is the host's time between replays (Python, \
                 sampling, syncs, the next inputs): put more work in each replay (a larger batch, several steps \
                 per graph) or cut the host's work per step",
                format!(
                    "{count} shorter than {stall} where the launch came late; {}",
                    graphed.clone().unwrap_or_default()
                ),
            ),
            IdleCause::LaunchGaps => (
                format!("the device waits for the host to launch the next kernel: {share:.1} % of the window"),
                "capture the step as a graph (CUDA graphs: torch.compile(mode=\"reduce-overhead\"), \
                 torch.cuda.graphs; jax.jit), or launch fewer, larger kernels (fuse, batch)",
                format!("{count} shorter than {stall} where the launch came late{launch_line}"),
            ),
            IdleCause::HostStalls => (
                format!("the host stalls: the device sits idle in long gaps for {share:.1} % of the window"),
                "find what the host did in the longest gaps (the idle-gaps section lists the host ops in each): \
                 data loading, a sync, compilation, logging or I/O; move it off the step or overlap it",
                format!("{count} of at least {stall}, each launched only after the device went idle{longest}"),
            ),
            IdleCause::Dependency => (
                format!("ops launched ahead of time still wait: {share:.1} % of the window idles on a dependency"),
                "the ops were queued but waited on a sync, an event or another stream: drop needless syncs and \
                 cross-stream waits, overlap independent work",
                format!("{count} where the next op was already queued{longest}"),
            ),
            IdleCause::ShortGaps => (
                format!("the device idles between kernels: {share:.1} % of the window in short gaps"),
                "short gaps between kernels are usually launch overhead: capture the step as a graph (CUDA \
                 graphs) or launch fewer, larger kernels; the trace has no launch records to confirm it \
                 (torch.profiler with CUDA activities, or prof's own capture, records them)",
                format!("{count} shorter than {stall}, cause unknown (no launch records)"),
            ),
            IdleCause::LongStalls => (
                format!("the device sits idle in long stretches: {share:.1} % of the window"),
                "the host stalled there (input pipeline, synchronisation, I/O, compilation): find what it did \
                 (the idle-gaps section lists the host ops in each gap)",
                format!("{count} of at least {stall}{longest}"),
            ),
            IdleCause::Unexplained => (
                format!("the device is idle {share:.1} % of the window"),
                "the source has no timeline to say why: capture with prof breakdown for the idle gaps and their \
                 causes",
                busy_line(account),
            ),
        };
        out.push(Candidate {
            verdict: Verdict::Idle(cause),
            share_pct: share,
            headline,
            remedy: Some(remedy.to_owned()),
            evidence,
        });
    }
    out
}

/// Exposed communication and copies, as candidates (pageable copies are the diagnosis'
/// finding, which says more: not counted twice).
pub(super) fn exposed_candidates(account: &Account, diagnosis: Option<&DiagnosisReport>) -> Vec<Candidate> {
    let mut out = Vec::new();
    let comm = account.get(Part::Busy { family: Family::Collective });
    if let Some(comm) = comm {
        out.push(Candidate {
            verdict: Verdict::ExposedCommunication,
            share_pct: comm.pct,
            headline: format!(
                "communication not hidden under compute: {:.1} % of the window runs collectives alone",
                comm.pct
            ),
            remedy: Some(
                "overlap communication with compute (bucketed gradient all-reduce, FSDP prefetch, async \
                 collectives on their own stream), or communicate less (larger buckets, compression)"
                    .to_owned(),
            ),
            evidence: format!("{} of exposed collectives; {}", ns(comm.ns), busy_line(account)),
        });
    }
    let pageable = diagnosis.is_some_and(|d| d.get(DiagnosisKind::PageableCopies).is_some());
    let copies: u64 = [Family::Memcpy, Family::Memset]
        .iter()
        .filter_map(|&f| account.get(Part::Busy { family: f }))
        .map(|p| p.ns)
        .sum();
    if copies > 0 && !pageable {
        let share = copies as f64 * 100.0 / account.wall_ns.max(1) as f64;
        out.push(Candidate {
            verdict: Verdict::ExposedCopies,
            share_pct: share,
            headline: format!("copies on the critical path: {share:.1} % of the window runs copies or sets alone"),
            remedy: Some(
                "keep data on the device, overlap copies with compute (PyTorch: pinned memory, non_blocking=True, a \
                 copy stream; JAX/XLA: jax.device_put ahead of the step, keep arrays on device instead of host \
                 offload), or copy less"
                    .to_owned(),
            ),
            evidence: format!("{} of copies and sets with no kernel beside them; {}", ns(copies), busy_line(account)),
        });
    }
    out
}

pub(super) fn from_candidate(top: Candidate, account: Account, evidence: Evidence) -> Answer {
    Answer {
        verdict: top.verdict,
        headline: top.headline,
        share_pct: Some(top.share_pct),
        remedy: top.remedy,
        evidence_line: format!("{}; {}", top.evidence, size_line(&evidence)),
        evidence,
        next: Next::ApplyAndCompare,
        account: Some(account),
        efficiency: None,
    }
}

pub(super) fn dominant_answer(kernel: &str, share: f64, account: Account, evidence: Evidence) -> Answer {
    Answer {
        verdict: Verdict::DominantKernel,
        headline: format!(
            "one kernel dominates a busy device: `{}` takes {share:.1} % of device time; see why it is slow",
            crate::diagnosis::short(kernel)
        ),
        share_pct: Some(share * account.busy_pct() / 100.0),
        remedy: None,
        evidence_line: format!("{}; {}", busy_line(&account), size_line(&evidence)),
        evidence,
        next: Next::DeepDive { kernel: kernel.to_owned(), share_pct: share },
        account: Some(account),
        efficiency: None,
    }
}

pub(super) fn healthy(
    summary: &KernelSummary,
    diagnosis: Option<&DiagnosisReport>,
    account: Account,
    evidence: Evidence,
) -> Answer {
    let families: Vec<String> =
        summary.families.iter().take(3).map(|f| format!("{} {:.1} %", f.family.as_str(), f.share_pct)).collect();
    // Smaller findings (under the headline's floor) are the next levers, named so the headline
    // and the diagnosis below it tell one story.
    let smaller: Vec<&str> = diagnosis
        .map(|d| {
            d.findings
                .iter()
                .filter(|f| f.severity != crate::deepdive::Severity::Info)
                .map(|f| f.headline.split(':').next().unwrap_or(""))
                .collect()
        })
        .unwrap_or_default();
    let next = match (smaller.is_empty(), summary.kernels.first()) {
        (false, _) => format!("; the next levers are the smaller findings below: {}", smaller.join(", ")),
        (true, Some(k)) => {
            format!(
                "; the next lever is the top kernel, `{}` at {:.1} %",
                crate::diagnosis::short(&k.name),
                k.share_pct
            )
        }
        (true, None) => String::new(),
    };
    let lead = if smaller.is_empty() { "healthy: " } else { "" };
    Answer {
        verdict: Verdict::Healthy,
        headline: format!(
            "{lead}busy {:.1} %, no idle cause or known pattern holds {:.0} % of the window; {}{next}",
            account.busy_pct(),
            ADDRESSABLE_MIN_PCT,
            families.join(", ")
        ),
        share_pct: None,
        remedy: None,
        evidence_line: format!("{}; {}", busy_line(&account), size_line(&evidence)),
        evidence,
        next: Next::Done,
        account: Some(account),
        efficiency: None,
    }
}

/// A kernel table without a timeline: where the device time went; idle time cannot be told.
/// The evidence is its calls and device time (the table's own sums).
pub(super) fn kernel_table(summary: &KernelSummary, mut evidence: Evidence) -> Answer {
    evidence.busy_ns = summary.device_ns;
    evidence.enough = evidence.ops >= ENOUGH_OPS || summary.device_ns >= ENOUGH_BUSY_NS;
    let families: Vec<String> =
        summary.families.iter().take(3).map(|f| format!("{} {:.1} %", f.family.as_str(), f.share_pct)).collect();
    let size = format!("{} calls, {} of device time", evidence.ops, ns(summary.device_ns));
    if !evidence.enough {
        return too_little_of(&size, size.clone(), evidence, None);
    }
    let dominant = dominant(summary);
    let (headline, next) = match dominant {
        Some((kernel, share)) => (
            format!(
                "one kernel takes {share:.1} % of device time: `{}` (a kernel table: no timeline, so idle time \
                 is not known); see why it is slow",
                crate::diagnosis::short(kernel)
            ),
            Next::DeepDive { kernel: kernel.to_owned(), share_pct: share },
        ),
        None => (
            format!(
                "device time by family: {} (a kernel table: no timeline, so idle time and its causes are not \
                 known; a trace of the run tells them)",
                families.join(", ")
            ),
            Next::CaptureMore,
        ),
    };
    Answer {
        verdict: if dominant.is_some() { Verdict::DominantKernel } else { Verdict::KernelTable },
        headline,
        share_pct: dominant.map(|d| d.1),
        remedy: None,
        evidence_line: size,
        evidence,
        next,
        account: None,
        efficiency: None,
    }
}

pub(super) fn utilization(verdict: &crate::util_verdict::Verdict) -> Answer {
    use crate::util_verdict::VerdictKind;
    let next = match verdict.kind {
        VerdictKind::Busy => Next::Breakdown,
        VerdictKind::TooShort | VerdictKind::NoData => Next::CaptureMore,
        VerdictKind::HostBound | VerdictKind::Idle | VerdictKind::Snapshot => Next::Done,
    };
    let enough = !matches!(verdict.kind, VerdictKind::TooShort | VerdictKind::NoData);
    Answer {
        verdict: Verdict::Utilization,
        headline: verdict.headline.clone(),
        share_pct: None,
        remedy: None,
        evidence_line: verdict.evidence.join("; "),
        evidence: Evidence { ops: 0, kernels: 0, busy_ns: 0, wall_ns: 0, steps: None, enough },
        next,
        account: None,
        efficiency: None,
    }
}

/// The top compute kernel when it dominates: at least [`DOMINANT_SHARE_PCT`] % of device
/// time and [`DOMINANT_RATIO`]× the next compute kernel (copies, sets and collectives cannot
/// be replayed by a kernel profiler).
pub fn dominant(summary: &KernelSummary) -> Option<(&str, f64)> {
    let mut compute = summary.kernels.iter().filter(|k| k.kind == OpKind::Kernel && k.family != Family::Collective);
    let top = compute.next()?;
    let second = compute.next().map_or(0, |k| k.total_ns);
    let dominant = top.share_pct >= DOMINANT_SHARE_PCT && top.total_ns as f64 >= DOMINANT_RATIO * second as f64;
    dominant.then_some((top.name.as_str(), top.share_pct))
}
