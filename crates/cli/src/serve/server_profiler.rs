//! `prof serve --tool server`: the capture window through the server's own profiler, as its
//! table in `prof_capture::servers` describes it (vLLM and SGLang: an output-directory variable
//! and `/start_profile` / `/stop_profile`). The server writes torch.profiler traces into the
//! output directory when the window closes; prof waits for them to be written and reads them
//! through the registry's one door.

use super::http::Url;
use super::plan::{base_server, bench, PlanRequest, ServePlan, ServeWindow};
pub use super::profiler_call::Call;
use prof_capture::servers;
use prof_core::ExpectedArtifact;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The directory, in the output directory, the server writes its traces into.
pub const TRACE_DIR: &str = "server-traces";
/// How long the server is given to finish writing its traces after the window closed.
pub const WRITE_LIMIT: Duration = Duration::from_secs(300);

/// The plan that uses the server's own profiler.
pub fn plan(request: &PlanRequest, health: &Url) -> Result<ServePlan, String> {
    let known = servers::recognise(&request.server).ok_or_else(|| {
        let names: Vec<&str> =
            servers::servers().iter().filter(|s| s.profiler.is_some()).map(|s| s.name.as_str()).collect();
        format!(
            "--tool server: prof does not recognise this server's command line; it drives the profilers of {}",
            names.join(", ")
        )
    })?;
    let profiler = known.profiler.as_ref().ok_or_else(|| {
        format!(
            "--tool server: {} has no profiler of its own that prof can drive; use --tool cupti or nsys",
            known.name
        )
    })?;
    let dir = absolute(&request.out_dir.join(TRACE_DIR));
    let mut server = base_server(request, request.server.clone());
    for (key, value) in &profiler.env {
        server.env.push((key.clone(), value.replace("{dir}", &dir.display().to_string())));
    }
    let start = Call::new(health, &profiler.start)?;
    let stop = Call::new(health, &profiler.stop)?;
    Ok(ServePlan {
        tool: "server".to_owned(),
        server,
        bench: bench(request),
        window: ServeWindow::Http { start: Box::new(start), stop: Box::new(stop), traces: dir.clone() },
        after: Vec::new(),
        cleanup: Vec::new(),
        artifacts: vec![ExpectedArtifact { path: dir.clone(), min_bytes: 1 }],
        how_to_open: Some(format!(
            "{} ({}): ui.perfetto.dev, or `prof analyze {}`",
            dir.display(),
            profiler.writes,
            dir.display()
        )),
        notes: vec![format!("{}'s own profiler records the window: {}", known.name, profiler.writes)],
    })
}

fn absolute(path: &Path) -> PathBuf {
    std::env::current_dir().map(|cwd| cwd.join(path)).unwrap_or_else(|_| path.to_owned())
}

/// Waits until the server has written its traces into `dir`: at least one file, and no file
/// growing for a second. An error after [`WRITE_LIMIT`] says what is there.
pub async fn wait_for_traces(dir: &Path) -> Result<(), String> {
    let started = Instant::now();
    let mut last: Option<Vec<(PathBuf, u64)>> = None;
    loop {
        let now = listing(dir);
        if !now.is_empty() && last.as_ref() == Some(&now) {
            return Ok(());
        }
        if started.elapsed() > WRITE_LIMIT {
            return Err(format!(
                "the server wrote no complete trace into {} within {:.0} s of the window's end ({} files there)",
                dir.display(),
                WRITE_LIMIT.as_secs_f64(),
                now.len()
            ));
        }
        last = Some(now);
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// The files under `dir` (two levels, as some servers write a directory per worker) and
/// their sizes, sorted.
fn listing(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut files = Vec::new();
    let mut dirs = vec![(dir.to_owned(), 0)];
    while let Some((current, depth)) = dirs.pop() {
        for entry in std::fs::read_dir(&current).into_iter().flatten().flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() && depth < 1 {
                dirs.push((entry.path(), depth + 1));
            } else if meta.is_file() {
                files.push((entry.path(), meta.len()));
            }
        }
    }
    files.sort();
    files
}

/// The server's traces through the registry's one door: one trace (or a directory holding
/// one) is the breakdown; several (one per worker) are named in a note for `prof analyze`,
/// which shows them per rank.
pub fn load_traces(
    registry: &prof_core::Registry,
    dir: &Path,
    notes: &mut Vec<String>,
) -> Result<Option<prof_core::Timeline>, String> {
    if let Some(job) = registry.rank_job(dir) {
        notes.push(format!(
            "the server wrote {} per-rank traces: `prof analyze {}` shows them rank by rank",
            job.ranks.len(),
            dir.display()
        ));
        return Ok(None);
    }
    match registry.load(dir, &prof_core::Families::builtin()).map_err(|e| e.to_string())? {
        (prof_core::Loaded::Timeline(timeline), _) => Ok(Some(*timeline)),
        _ => Err(format!("{}: the server's traces hold no timeline", dir.display())),
    }
}
