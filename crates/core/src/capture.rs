//! Runs a [`CapturePlan`] the durable way: every step under the supervisor in order, a
//! failed step stops the capture with its log's last lines, then every expected artifact is
//! verified (exists, non-trivial size) before anything is reported as captured.

use crate::breakdown::CapturePlan;
use crate::error::{Error, Result};
use crate::supervisor::{self, log_tail, RunOutcome};
use std::path::PathBuf;

/// What a finished capture left behind.
#[derive(Debug, Clone)]
pub struct CaptureResult {
    /// How each step ended, in order.
    pub steps: Vec<RunOutcome>,
    /// The verified artifacts with their sizes in bytes.
    pub artifacts: Vec<(PathBuf, u64)>,
}

/// The plan as a person reads it: one numbered line per step, then the artifacts.
pub fn describe_plan(plan: &CapturePlan) -> String {
    let mut out = String::new();
    for (index, step) in plan.steps.iter().enumerate() {
        let limit = step.timeout.map(|t| format!(" (limit {:.0} s)", t.as_secs_f64())).unwrap_or_default();
        out.push_str(&format!("  {}. {}{limit}: {}\n", index + 1, step.label, step.display_command()));
    }
    for artifact in &plan.artifacts {
        out.push_str(&format!("  artifact: {}\n", artifact.path.display()));
    }
    out
}

/// Runs every step of `plan`; a step that exits non-zero fails the capture with its log tail.
pub fn run_capture(plan: &CapturePlan) -> Result<CaptureResult> {
    let mut steps = Vec::new();
    for step in &plan.steps {
        let outcome = supervisor::run(step)?;
        if !outcome.success() {
            return Err(Error::Unsupported(format!(
                "step `{}` ({}) exited {}; last lines of {}:\n{}",
                step.label,
                step.display_command(),
                outcome.describe(),
                outcome.log.display(),
                log_tail(&outcome.log, 15)
            )));
        }
        steps.push(outcome);
    }
    let artifacts = plan
        .artifacts
        .iter()
        .map(|artifact| supervisor::verify_artifact(artifact).map(|size| (artifact.path.clone(), size)))
        .collect::<Result<Vec<_>>>()?;
    Ok(CaptureResult { steps, artifacts })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::breakdown::ExpectedArtifact;
    use crate::supervisor::RunPlan;

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
        };
        let error = run_capture(&plan).unwrap_err().to_string();
        assert!(error.contains("step `capture`") && error.contains("CUDA out of memory"), "{error}");
        assert!(!d.join("never").exists());
    }

    #[test]
    fn a_missing_artifact_is_an_error() {
        let d = dir("missing");
        let plan = CapturePlan {
            steps: vec![RunPlan::new("capture", vec!["true".into()], d.join("c.log"))],
            artifacts: vec![ExpectedArtifact { path: d.join("none"), min_bytes: 1 }],
            how_to_open: String::new(),
        };
        assert!(run_capture(&plan).unwrap_err().to_string().contains("was not written"));
    }
}
