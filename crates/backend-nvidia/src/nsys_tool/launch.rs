//! nsys driven from outside the workload, for `prof serve`: the window as `nsys start` /
//! `nsys stop` commands around an `nsys launch` session.

use super::{flag, path_flag, shutdown_step, OUTPUT_STEM, PROFILE_LOG, TRACE};
use prof_core::{CaptureRequest, RunPlan, WindowControl};
use std::ffi::OsString;
use std::time::Duration;

/// The window driven from outside: `nsys launch` runs the workload in a session of its own
/// (`prof-launch-<pid>`) with the trace flags of `profile`, `nsys start` opens the window
/// (writing the report `profile` would), `nsys stop` closes it, `nsys shutdown` ends the
/// session whatever happened.
pub(super) fn control(nsys: &OsString, request: &CaptureRequest) -> WindowControl {
    let out = &request.out_dir;
    let session = format!("prof-launch-{}", std::process::id());
    let mut launch = vec![nsys.clone(), "launch".into(), flag(format!("--session-new={session}"))];
    launch.extend([flag(format!("--trace={TRACE}")), "--sample=none".into(), "--cpuctxsw=none".into()]);
    launch.extend(request.command.iter().cloned());
    let start = vec![
        nsys.clone(),
        "start".into(),
        flag(format!("--session={session}")),
        path_flag("output", &out.join(OUTPUT_STEM)),
        "--force-overwrite=true".into(),
    ];
    let stop = vec![nsys.clone(), "stop".into(), flag(format!("--session={session}"))];
    let step = |label: &str, argv: Vec<OsString>, log: &str| {
        let mut step = RunPlan::new(label, argv, out.join(log));
        step.timeout = Some(Duration::from_secs(120));
        Box::new(step)
    };
    WindowControl::Commands {
        launch: step("capture", launch, PROFILE_LOG),
        start: step("window start", start, "nsys-start.log"),
        stop: step("window stop", stop, "nsys-stop.log"),
        shutdown: Box::new(shutdown_step(nsys, &session, out)),
    }
}
