//! An `.nsys-rep` (or older `.qdrep`) report given to `prof analyze`: prof reads the SQLite
//! export, so it runs `nsys export --type sqlite` when nsys is installed and keeps the result
//! beside the report (`run.nsys-rep` → `run.sqlite`, where `nsys export` itself would put it;
//! the temporary directory when the report's directory cannot be written). An export newer than
//! its report is reused. Without nsys the error gives the command to run.

use super::NsysTool;
use crate::nsys_sqlite::{self, export_command};
use prof_core::process_group::log_tail;
use prof_core::run_plan::RunPlan;
use prof_core::step_runner::run_step;
use prof_core::{Error, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Time limit of one export (a multi-GB report takes minutes).
const EXPORT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The SQLite export of `report`: cached, or made now with the tool's nsys.
pub(super) fn export_of(tool: &NsysTool, report: &Path) -> Result<PathBuf> {
    let beside = report.with_extension("sqlite");
    let fallback = std::env::temp_dir().join(format!(
        "prof-nsys-export-{}.sqlite",
        report.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
    ));
    for cached in [&beside, &fallback] {
        if is_fresh(cached, report) {
            return Ok(cached.clone());
        }
    }
    let nsys = tool.program().map_err(|_| {
        Error::artifact(
            report,
            0,
            format!(
                "is an Nsight Systems report, not its SQLite export, and nsys is not installed here to export it; \
                 run `{}` where nsys is, then give prof the .sqlite",
                export_command(report)
            ),
        )
    })?;
    let output = if writable_dir(report.parent().unwrap_or(Path::new("."))) { beside } else { fallback };
    let log = output.with_extension("prof-export.log");
    let mut output_flag = OsString::from("--output=");
    output_flag.push(&output);
    let argv = vec![
        nsys.into_os_string(),
        "export".into(),
        "--type".into(),
        "sqlite".into(),
        output_flag,
        "--force-overwrite=true".into(),
        report.as_os_str().to_owned(),
    ];
    let mut step = RunPlan::new("nsys export", argv, &log);
    step.timeout = Some(EXPORT_TIMEOUT);
    eprintln!("prof: exporting {} to {} with nsys (once: the export is reused)", report.display(), output.display());
    let outcome = run_step(&step)?;
    if outcome.exit_code != Some(0) || !nsys_sqlite::is_nsys_export(&output) {
        let _ = std::fs::remove_file(&output);
        return Err(Error::artifact(
            report,
            0,
            format!("`nsys export` did not write an SQLite export (see {}):\n{}", log.display(), log_tail(&log, 10)),
        ));
    }
    let _ = std::fs::remove_file(&log);
    Ok(output)
}

/// True when `export` is an nsys export written after `report` was.
fn is_fresh(export: &Path, report: &Path) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(export), modified(report)) {
        (Some(export_time), Some(report_time)) => export_time >= report_time && nsys_sqlite::is_nsys_export(export),
        _ => false,
    }
}

/// True when a file can be created in `dir`.
fn writable_dir(dir: &Path) -> bool {
    let probe = dir.join(format!(".prof-write-test-{}", std::process::id()));
    let ok = std::fs::File::create(&probe).is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}
