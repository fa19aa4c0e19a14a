//! The "no device activity" rule: the answer's window holds no device op. Without it an empty
//! kernel table reads like an idle device; the finding says what the source holds instead (only
//! host events: the profiler recorded no device work; nothing at all; ops outside the window).
//! A utilization recording (counters and no host events) is left to its own verdict.

use super::{finding, Diagnosis, DiagnosisKind};
use crate::deepdive::Severity;
use crate::kernel_summary::KernelSummary;
use prof_timeline::timeline::{HostCategory, Timeline};

/// The finding when `summary` (of `timeline`, or of a window of it) has no device op.
pub(super) fn no_device_activity(timeline: &Timeline, summary: &KernelSummary) -> Option<Diagnosis> {
    if summary.ops > 0 {
        return None;
    }
    let kind = DiagnosisKind::NoDeviceActivity;
    if !timeline.ops.is_empty() {
        let headline = format!(
            "no device op in this window: the run's {} device ops lie outside it (--phase all answers on the whole run)",
            timeline.ops.len()
        );
        return finding(kind, Severity::Info, headline, Vec::new());
    }
    let samples: usize = timeline.counters.iter().map(|c| c.points.len()).sum();
    if timeline.host.is_empty() && samples > 0 {
        return None;
    }
    let mut evidence = host_lines(timeline);
    if samples > 0 {
        evidence.push(format!("{} counter series, {samples} samples", timeline.counters.len()));
    }
    let unread: u64 = timeline.unread.iter().map(|(_, n)| n).sum();
    if unread > 0 {
        let kinds: Vec<String> = timeline.unread.iter().take(4).map(|(kind, n)| format!("{kind} {n}")).collect();
        evidence.push(format!("events prof does not read: {}", kinds.join(", ")));
    }
    let on = timeline.recorded_on.as_deref().map(|d| format!(" (recorded on {d})")).unwrap_or_default();
    let headline = if timeline.host.is_empty() && samples == 0 {
        "no device activity recorded: the file holds no device op, host event or counter".to_owned()
    } else if unread > 0 {
        format!(
            "no device op prof reads{on}: {} host events, and {unread} events of kinds prof does not read ({}), which \
             may be this accelerator's device work; where device time goes cannot be told from this file",
            timeline.host.len(),
            timeline.unread.iter().take(3).map(|(kind, _)| kind.as_str()).collect::<Vec<_>>().join(", ")
        )
    } else {
        format!(
            "no device activity recorded: {} host events and no device op (kernel, copy, set), so where device time goes \
             cannot be told; the profiler recorded the host only: a run on the CPU, device tracing left off, or no \
             device work inside the capture window",
            timeline.host.len()
        )
    };
    finding(kind, Severity::Warning, headline, evidence)
}

/// The host events by layer, one line each, largest first.
fn host_lines(timeline: &Timeline) -> Vec<String> {
    let layers = [
        (HostCategory::Framework, "framework ops"),
        (HostCategory::Runtime, "runtime API calls"),
        (HostCategory::Driver, "driver API calls"),
        (HostCategory::Annotation, "annotations"),
        (HostCategory::Other, "other host events"),
    ];
    let mut counts: Vec<(usize, &str)> = layers
        .iter()
        .map(|&(category, label)| (timeline.host.iter().filter(|s| s.category == category).count(), label))
        .filter(|&(n, _)| n > 0)
        .collect();
    counts.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    counts.into_iter().map(|(n, label)| format!("{label}: {n}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{diagnose, summarize_kernels, Families};
    use prof_timeline::timeline::{CounterSeries, DeviceOp, HostSpan, OpKind};

    fn report(t: &Timeline) -> Option<Diagnosis> {
        let summary = summarize_kernels(t, &Families::default());
        diagnose(t, &summary).get(DiagnosisKind::NoDeviceActivity).cloned()
    }

    #[test]
    fn says_what_a_host_only_trace_holds() {
        let mut t = Timeline::new("cpu.json");
        for (i, category) in
            [HostCategory::Framework, HostCategory::Framework, HostCategory::Runtime].into_iter().enumerate()
        {
            let name = t.intern("aten::mm");
            t.host.push(HostSpan::test(name, category, 100 * i as u64, 50, None));
        }
        let found = report(&t).expect("host only");
        assert_eq!(found.severity, Severity::Warning);
        assert!(found.headline.starts_with("no device activity recorded: 3 host events"), "{}", found.headline);
        assert_eq!(found.evidence, vec!["framework ops: 2", "runtime API calls: 1"]);
    }

    #[test]
    fn says_an_empty_file_is_empty_and_leaves_a_utilization_recording() {
        let found = report(&Timeline::new("empty.json")).expect("empty");
        assert!(found.headline.contains("no device op, host event or counter"), "{}", found.headline);
        let mut util = Timeline::new("util.csv");
        let name = util.intern("GPU utilization");
        util.counters.push(CounterSeries { name, device: Some(0), unit: None, points: vec![(0, 50.0), (10, 60.0)] });
        assert_eq!(report(&util), None);
    }

    #[test]
    fn stays_silent_with_device_ops_and_names_ops_outside_a_window() {
        let mut t = Timeline::new("run.json");
        let name = t.intern("gemm");
        t.ops.push(DeviceOp::new(OpKind::Kernel, name, 0, 7, 1_000, 500));
        assert_eq!(report(&t), None);
        let empty_window = summarize_kernels_of_nothing(&t);
        let found = super::no_device_activity(&t, &empty_window).expect("window");
        assert_eq!(found.severity, Severity::Info);
        assert!(found.headline.contains("the run's 1 device ops lie outside it"), "{}", found.headline);
    }

    fn summarize_kernels_of_nothing(t: &Timeline) -> KernelSummary {
        crate::kernel_summary::summarize_kernels_of(t, &[], None, &Families::default())
    }
}
