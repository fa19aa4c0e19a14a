//! Runs a [`CapturePlan`] the durable way: every step under the supervisor in order, a
//! failed step stops the capture with its log's last lines, the plan's clean-up steps run
//! whatever happened, then every expected artifact is verified (exists, non-trivial size)
//! before anything is reported as captured.

use crate::supervisor;
use prof_core::breakdown::CapturePlan;
use prof_core::process_group::log_tail;
use prof_core::run_plan::{RunOutcome, RunPlan};
use prof_timeline::error::{Error, Result};
use std::path::PathBuf;

/// What a finished capture left behind.
#[derive(Debug, Clone)]
pub struct CaptureResult {
    /// How each step ended, in order.
    pub steps: Vec<RunOutcome>,
    /// The verified artifacts with their sizes in bytes.
    pub artifacts: Vec<(PathBuf, u64)>,
    /// What went wrong in the plan's clean-up steps (empty when each exited 0); a clean-up
    /// problem does not fail a capture whose artifacts are good.
    pub cleanup_problems: Vec<String>,
}

/// The plan as a person reads it: one numbered line per step, then the artifacts.
pub fn describe_plan(plan: &CapturePlan) -> String {
    let mut out = String::new();
    for (index, step) in plan.steps.iter().enumerate() {
        let limit = step.timeout.map(|t| format!(" (limit {:.0} s)", t.as_secs_f64())).unwrap_or_default();
        out.push_str(&format!("  {}. {}{limit}: {}\n", index + 1, step.label, step.display_command()));
    }
    for step in &plan.cleanup {
        out.push_str(&format!("  always at the end, {}: {}\n", step.label, step.display_command()));
    }
    for artifact in &plan.artifacts {
        out.push_str(&format!("  artifact: {}\n", artifact.path.display()));
    }
    for note in &plan.notes {
        out.push_str(&format!("  note: {note}\n"));
    }
    out
}

/// Runs every step of `plan`; a step that exits non-zero fails the capture with its log tail.
/// The clean-up steps run afterwards on every path (success, failure, time limit, Ctrl-C);
/// when the capture failed, what they said is printed to stderr and the capture's error is
/// returned unchanged.
pub fn run_capture(plan: &CapturePlan) -> Result<CaptureResult> {
    let steps = run_steps(plan);
    let cleanup_problems = run_cleanup(&plan.cleanup);
    let steps = match steps {
        Ok(steps) => steps,
        Err(error) => {
            for problem in &cleanup_problems {
                eprintln!("prof: clean-up after the failed capture: {problem}");
            }
            return Err(error);
        }
    };
    let artifacts = plan
        .artifacts
        .iter()
        .map(|artifact| supervisor::verify_artifact(artifact).map(|size| (artifact.path.clone(), size)))
        .collect::<Result<Vec<_>>>()?;
    Ok(CaptureResult { steps, artifacts, cleanup_problems })
}

fn run_steps(plan: &CapturePlan) -> Result<Vec<RunOutcome>> {
    let mut steps = Vec::new();
    for step in &plan.steps {
        let outcome = supervisor::run(step)?;
        if let Some(error) = &outcome.log_error {
            // Without its log a failure could not be explained: say so now.
            let source =
                std::io::Error::other(format!("the log of step `{}` could not be written: {error}", step.label));
            return Err(Error::io(&outcome.log, source));
        }
        if !outcome.success_for(step) {
            return Err(Error::StepFailed {
                exit_code: outcome.exit_code,
                signal: outcome.signal,
                message: format!(
                    "step `{}` ({}) exited {}; last lines of {}:\n{}",
                    step.label,
                    step.display_command(),
                    outcome.describe(),
                    outcome.log.display(),
                    log_tail(&outcome.log, 15)
                ),
            });
        }
        steps.push(outcome);
    }
    Ok(steps)
}

/// Runs every clean-up step of `steps` under the supervisor, each whatever the one before it
/// did, and returns what went wrong (empty when each exited 0). [`run_capture`] runs a plan's
/// `cleanup` with it; `prof serve` runs its own after the server stopped.
pub fn run_cleanup(steps: &[RunPlan]) -> Vec<String> {
    let mut problems = Vec::new();
    for step in steps {
        match supervisor::run(step) {
            Ok(outcome) if outcome.success() => {}
            Ok(outcome) => {
                let said = log_tail(&outcome.log, 1);
                let said = if said.trim().is_empty() { String::new() } else { format!(": {}", said.trim()) };
                problems.push(format!(
                    "`{}` exited {}{said} (see {})",
                    step.display_command(),
                    outcome.describe(),
                    outcome.log.display()
                ))
            }
            Err(error) => problems.push(format!("`{}`: {error}", step.display_command())),
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_core::breakdown::ExpectedArtifact;
    use std::path::Path;

    fn dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("prof-capture-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn runs_steps_in_order_and_verifies_the_artifact() {
        let d = dir("ok");
        let artifact = d.join("trace.bin");
        let write = format!("printf 0123456789 > {}", artifact.display());
        let plan = CapturePlan {
            steps: vec![
                RunPlan::new("warm-up", vec!["true".into()], d.join("warm.log")),
                RunPlan::new("capture", vec!["sh".into(), "-c".into(), write.into()], d.join("cap.log")),
            ],
            artifacts: vec![ExpectedArtifact { path: artifact.clone(), min_bytes: 10 }],
            how_to_open: String::new(),
            ..CapturePlan::default()
        };
        let text = describe_plan(&plan);
        assert!(text.contains("1. warm-up: true") && text.contains("2. capture: sh -c"), "{text}");
        let result = run_capture(&plan).unwrap();
        assert_eq!(result.steps.len(), 2);
        assert_eq!(result.artifacts, vec![(artifact, 10)]);
    }

    #[test]
    fn a_failing_step_stops_the_capture_with_its_log() {
        let d = dir("fail");
        let plan = CapturePlan {
            steps: vec![
                RunPlan::new(
                    "capture",
                    vec!["sh".into(), "-c".into(), "echo CUDA out of memory >&2; exit 1".into()],
                    d.join("c.log"),
                ),
                RunPlan::new(
                    "export",
                    vec!["sh".into(), "-c".into(), format!("touch {}", d.join("never").display()).into()],
                    d.join("e.log"),
                ),
            ],
            artifacts: vec![],
            how_to_open: String::new(),
            ..CapturePlan::default()
        };
        let error = run_capture(&plan).unwrap_err().to_string();
        assert!(error.contains("step `capture`") && error.contains("CUDA out of memory"), "{error}");
        assert!(!d.join("never").exists());
    }

    #[test]
    fn a_status_the_step_accepts_lets_the_capture_go_on_and_no_other_does() {
        // nsys exits 143 when it stopped the workload at the end of its window.
        let d = dir("ok-codes");
        let step = |code: i32, ok: Vec<i32>| {
            let mut capture =
                RunPlan::new("capture", vec!["sh".into(), "-c".into(), format!("exit {code}").into()], d.join("c.log"));
            capture.ok_codes = ok;
            let export = RunPlan::new("export", vec!["touch".into(), d.join("export").into()], d.join("e.log"));
            CapturePlan { steps: vec![capture, export], ..CapturePlan::default() }
        };
        run_capture(&step(143, vec![143])).expect("143 accepted");
        assert!(d.join("export").exists());
        std::fs::remove_file(d.join("export")).unwrap();
        let error = run_capture(&step(1, vec![143])).unwrap_err().to_string();
        assert!(error.contains("exited with status 1"), "{error}");
        let error = run_capture(&step(143, Vec::new())).unwrap_err().to_string();
        assert!(error.contains("exited with status 143"), "{error}");
        assert!(!d.join("export").exists());
    }

    #[test]
    fn a_missing_artifact_is_an_error() {
        let d = dir("missing");
        let plan = CapturePlan {
            steps: vec![RunPlan::new("capture", vec!["true".into()], d.join("c.log"))],
            artifacts: vec![ExpectedArtifact { path: d.join("none"), min_bytes: 1 }],
            how_to_open: String::new(),
            ..CapturePlan::default()
        };
        assert!(run_capture(&plan).unwrap_err().to_string().contains("was not written"));
    }

    fn marker_step(dir: &Path, name: &str) -> RunPlan {
        let marker = dir.join(name);
        RunPlan::new("clean-up", vec!["touch".into(), marker.into()], dir.join(format!("{name}.log")))
    }

    #[test]
    fn cleanup_runs_after_a_successful_capture() {
        let d = dir("cleanup-ok");
        let plan = CapturePlan {
            steps: vec![RunPlan::new("capture", vec!["true".into()], d.join("c.log"))],
            cleanup: vec![marker_step(&d, "cleaned")],
            ..CapturePlan::default()
        };
        assert!(describe_plan(&plan).contains("always at the end, clean-up: touch"));
        let result = run_capture(&plan).unwrap();
        assert!(d.join("cleaned").exists());
        assert!(result.cleanup_problems.is_empty(), "{:?}", result.cleanup_problems);
    }

    #[test]
    fn cleanup_runs_after_a_failed_step_and_keeps_the_step_error() {
        let d = dir("cleanup-fail");
        let failing = RunPlan::new("capture", vec!["false".into()], d.join("c.log"));
        let plan = CapturePlan {
            steps: vec![failing, marker_step(&d, "never")],
            cleanup: vec![marker_step(&d, "cleaned"), RunPlan::new("broken", vec!["false".into()], d.join("b.log"))],
            ..CapturePlan::default()
        };
        let error = run_capture(&plan).unwrap_err().to_string();
        assert!(error.contains("step `capture`"), "{error}");
        assert!(d.join("cleaned").exists() && !d.join("never").exists());
    }

    #[test]
    fn cleanup_runs_after_a_timed_out_step() {
        let d = dir("cleanup-timeout");
        let mut slow = RunPlan::new("capture", vec!["sleep".into(), "30".into()], d.join("c.log"));
        slow.timeout = Some(std::time::Duration::from_millis(200));
        let plan =
            CapturePlan { steps: vec![slow], cleanup: vec![marker_step(&d, "cleaned")], ..CapturePlan::default() };
        assert!(matches!(run_capture(&plan), Err(Error::TimedOut { .. })));
        assert!(d.join("cleaned").exists());
    }

    #[test]
    fn a_failing_cleanup_is_reported_but_does_not_fail_a_good_capture() {
        let d = dir("cleanup-broken");
        let plan = CapturePlan {
            steps: vec![RunPlan::new("capture", vec!["true".into()], d.join("c.log"))],
            cleanup: vec![RunPlan::new("broken", vec!["false".into()], d.join("b.log"))],
            ..CapturePlan::default()
        };
        let result = run_capture(&plan).unwrap();
        assert_eq!(result.cleanup_problems.len(), 1);
        assert!(result.cleanup_problems[0].contains("`false` exited with status 1"), "{:?}", result.cleanup_problems);
    }
}
