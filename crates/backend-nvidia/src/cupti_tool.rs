//! `prof breakdown --tool cupti`: runs the workload with prof's own CUPTI tracer injected
//! through `CUDA_INJECTION64_PATH` and loads the per-process traces it writes. Needs only
//! libcupti and `libprof_cupti.so`, no nsys (whose report step fails on our H200).

use crate::cupti_trace;
use crate::tools;
use prof_core::tools::find_library;
use prof_core::{
    BreakdownTool, CapturePlan, CaptureRange, CaptureRequest, Error, ExpectedArtifact, Result, RunPlan, Timeline,
    WindowControl,
};
use prof_cupti_format::{body, env, is_trace_file, StartOn, FILE_EXTENSION, FILE_PREFIX, HEADER_LEN, MAGIC};
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// File name of the tracer library.
pub const TRACER_FILE: &str = "libprof_cupti.so";
/// Overrides where the tracer library is taken from.
pub const TRACER_VAR: &str = "PROF_CUPTI_TRACER";
/// Subdirectory of the capture's output directory that receives the traces.
pub const TRACE_DIR: &str = "cupti";
/// How to get the tracer when it is missing.
pub const TRACER_INSTALL: &str = "install prof with scripts/install.sh (it puts libprof_cupti.so next to the prof \
     binary), or build it with cargo build --release -p prof-cupti-tracer and set \
     PROF_CUPTI_TRACER=/absolute/path/libprof_cupti.so";

/// Which runtime and driver API calls the tracer records (`PROF_CUPTI_API`); the tracer's
/// own type, so both sides parse and spell the modes alike.
pub use prof_cupti_format::ApiMode;

/// The API mode to use: `explicit` if given, else `from_env` (prof's own `PROF_CUPTI_API`),
/// else [`ApiMode::Launch`]. A value that is none of the three is an error naming it.
pub fn resolve_api(explicit: Option<ApiMode>, from_env: Option<OsString>) -> Result<ApiMode> {
    if let Some(api) = explicit {
        return Ok(api);
    }
    let Some(value) = from_env.filter(|v| !v.is_empty()) else { return Ok(ApiMode::default()) };
    let text = value.to_string_lossy();
    ApiMode::parse(&text)
        .ok_or_else(|| Error::Unsupported(format!("{}={text} is not one of launch, all, none", env::API)))
}

/// The built-in CUPTI breakdown tool.
#[derive(Debug, Clone, Default)]
pub struct CuptiTool {
    tracer: Option<PathBuf>,
    start_after: Duration,
    api: Option<ApiMode>,
}

impl CuptiTool {
    /// The tool, finding the tracer through `PROF_CUPTI_TRACER` or next to the prof binary.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses the tracer library at `path` instead of searching for it.
    #[cfg(test)]
    pub fn with_tracer(mut self, path: impl Into<PathBuf>) -> Self {
        self.tracer = Some(path.into());
        self
    }

    /// Keeps only activity that starts `skip` after CUDA initialised (in-process warm-up skip).
    #[cfg(test)]
    pub fn with_start_after(mut self, skip: Duration) -> Self {
        self.start_after = skip;
        self
    }

    /// Records the API calls `api` selects instead of `$PROF_CUPTI_API` (default launch).
    #[cfg(test)]
    pub fn with_api(mut self, api: ApiMode) -> Self {
        self.api = Some(api);
        self
    }

    /// The absolute path of `libprof_cupti.so`: the configured one, `$PROF_CUPTI_TRACER`, or
    /// the file beside the running executable (or in `../lib`).
    pub fn tracer_path(&self) -> Result<PathBuf> {
        let exe = std::env::current_exe().ok();
        locate_tracer(self.tracer.as_deref(), std::env::var_os(TRACER_VAR), exe.as_deref())
            .ok_or_else(|| Error::ToolMissing { tool: TRACER_FILE.to_owned(), install: TRACER_INSTALL.to_owned() })
    }
}

/// The first existing tracer among `explicit`, `env` and the executable's neighbours, made absolute.
pub fn locate_tracer(explicit: Option<&Path>, env: Option<OsString>, exe: Option<&Path>) -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(path) = explicit {
        candidates.push(path.to_owned());
    } else if let Some(value) = env.filter(|v| !v.is_empty()) {
        candidates.push(PathBuf::from(value));
    } else if let Some(dir) = exe.and_then(Path::parent) {
        candidates.push(dir.join(TRACER_FILE));
        candidates.push(dir.join("../lib").join(TRACER_FILE));
    }
    candidates.into_iter().filter(|p| p.is_file()).find_map(|p| std::fs::canonicalize(&p).ok())
}

/// libcupti as prof finds it: `$PROF_CUPTI_LIBRARY`, then `LD_LIBRARY_PATH` and the CUDA dirs.
fn find_cupti() -> Option<PathBuf> {
    if let Some(explicit) = std::env::var_os(env::LIBRARY).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(explicit);
        return path.is_file().then_some(path);
    }
    let cuda_home = std::env::var_os("CUDA_HOME").map(PathBuf::from);
    let mut dirs = tools::cupti_dirs(cuda_home.as_deref());
    dirs.extend([PathBuf::from("/usr/lib/x86_64-linux-gnu"), PathBuf::from("/usr/lib64")]);
    find_library("libcupti.so", &dirs).map(|(found, _)| found)
}

/// The capture step's log, in the output directory.
pub const CAPTURE_LOG: &str = "capture.log";

/// The tracer's warning lines in a capture log, one per line, or `None` when there are none.
pub fn tracer_warnings(log: &str) -> Option<String> {
    let lines: Vec<&str> = log.lines().filter(|line| line.starts_with("prof-cupti: warning:")).collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// The tracer's spelling of a capture range (`None`: a time).
pub fn start_on(range: &CaptureRange) -> Option<StartOn> {
    match range {
        CaptureRange::Time => None,
        CaptureRange::Auto => Some(StartOn::Auto),
        CaptureRange::ProfilerApi => Some(StartOn::ProfilerApi),
        CaptureRange::Range { name } => Some(StartOn::Nvtx(name.clone())),
        CaptureRange::KernelLaunch { pattern, nth } => Some(StartOn::Kernel { pattern: pattern.clone(), nth: *nth }),
    }
}

fn millis(d: Duration) -> String {
    d.as_millis().to_string()
}

impl BreakdownTool for CuptiTool {
    fn name(&self) -> &'static str {
        "cupti"
    }

    fn check(&self) -> Result<()> {
        if find_cupti().is_none() {
            return Err(Error::ToolMissing {
                tool: tools::name::CUPTI.to_owned(),
                install: tools::install::CUPTI.to_owned(),
            });
        }
        self.tracer_path().map(|_| ())
    }

    fn plan(&self, request: &CaptureRequest) -> Result<CapturePlan> {
        let tracer = self.tracer_path()?;
        let api = resolve_api(self.api, std::env::var_os(env::API))?;
        prof_core::breakdown::require_command(&request.command)?;
        let traces = request.out_dir.join(TRACE_DIR);
        let mut steps = request.warmup_steps();
        let mut capture = RunPlan::new("capture", request.command.clone(), request.out_dir.join(CAPTURE_LOG));
        capture.timeout = Some(request.timeout);
        capture.env = vec![
            (env::INJECTION.to_owned(), tracer.display().to_string()),
            (env::OUT.to_owned(), format!("{}/", traces.display())),
            (env::DURATION_MS.to_owned(), millis(request.window)),
            (env::API.to_owned(), api.as_str().to_owned()),
        ];
        capture.env.push(match start_on(&request.range) {
            None => (env::START_AFTER_MS.to_owned(), millis(self.start_after.max(request.skip))),
            Some(start_on) => (env::START_ON.to_owned(), start_on.to_env()),
        });
        steps.push(capture);
        Ok(CapturePlan {
            steps,
            artifacts: vec![ExpectedArtifact {
                path: traces.clone(),
                min_bytes: (HEADER_LEN + 1 + body::KERNEL) as u64,
            }],
            how_to_open: format!(
                "one {FILE_PREFIX}<pid>[-rank<R>].{FILE_EXTENSION} trace per CUDA process in {}; \
                 prof loads them for the breakdown (there is no GUI viewer)",
                traces.display()
            ),
            control: WindowControl::Usr1 { env: vec![(env::SIGNAL.to_owned(), "paused".to_owned())] },
            ..CapturePlan::default()
        })
    }

    fn load(&self, artifacts: &[PathBuf]) -> Result<Timeline> {
        cupti_trace::load_paths(artifacts)
    }

    /// The tracer's own warnings from the capture log (a window that never opened, a CUPTI
    /// that refused a callback), which say why a trace came out empty.
    fn explain_failure(&self, out_dir: &Path) -> Option<String> {
        tracer_warnings(&std::fs::read_to_string(out_dir.join(CAPTURE_LOG)).ok()?)
    }

    fn recognizes(&self, path: &Path) -> bool {
        if path.is_dir() {
            return cupti_trace::trace_files(path).is_ok();
        }
        if is_trace_file(path) {
            return true;
        }
        let mut magic = [0u8; 8];
        let head = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut magic)).is_ok();
        head && (magic == MAGIC || (magic[..2] == cupti_trace::GZIP_MAGIC && cupti_trace::is_gzipped_trace(path)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("prof-cupti-tool-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_tracers_warnings_explain_an_empty_capture() {
        let log = "loading\nprof-cupti: capture window waits for profiler\n\
                   prof-cupti: warning: the capture window never opened: no cudaProfilerStart/cuProfilerStart call was made\n\
                   prof-cupti: wrote 0 records (API calls: launch, per callback id) to x\n";
        assert_eq!(
            tracer_warnings(log).as_deref(),
            Some("prof-cupti: warning: the capture window never opened: no cudaProfilerStart/cuProfilerStart call was made")
        );
        assert_eq!(tracer_warnings("prof-cupti: wrote 9 records\n"), None);
        let dir = scratch("explain");
        std::fs::write(dir.join(CAPTURE_LOG), log).unwrap();
        assert!(CuptiTool::new().explain_failure(&dir).unwrap().contains("never opened"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_capture_range_becomes_the_tracers_start_event_and_replaces_the_time_skip() {
        let dir = scratch("range");
        let tracer = dir.join(TRACER_FILE);
        std::fs::write(&tracer, b"\x7fELF").unwrap();
        let tool = CuptiTool::new().with_tracer(&tracer);
        let request = |range: CaptureRange| CaptureRequest {
            command: vec!["python3".into(), "work.py".into()],
            out_dir: dir.join("out"),
            warmup_runs: 0,
            skip: Duration::from_secs(2),
            window: Duration::from_secs(10),
            range,
            timeout: Duration::from_secs(120),
        };
        let env_of = |range: CaptureRange| tool.plan(&request(range)).unwrap().steps[0].env.clone();
        let value = |env: &[(String, String)], key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        let timed = env_of(CaptureRange::Time);
        assert_eq!(value(&timed, env::START_AFTER_MS).as_deref(), Some("2000"));
        assert_eq!(value(&timed, env::START_ON), None);
        for (range, spelled) in [
            (CaptureRange::Auto, "auto"),
            (CaptureRange::ProfilerApi, "profiler"),
            (CaptureRange::Range { name: "ProfilerStep*".into() }, "nvtx:ProfilerStep*"),
            (CaptureRange::KernelLaunch { pattern: "gemm".into(), nth: 4 }, "kernel:gemm@4"),
        ] {
            let env = env_of(range);
            assert_eq!(value(&env, env::START_ON).as_deref(), Some(spelled));
            assert_eq!(value(&env, env::START_AFTER_MS), None, "{spelled}: the event replaces the time");
            assert_eq!(StartOn::parse(spelled).unwrap().to_env(), spelled, "the tracer reads what prof writes");
        }
        let plan = tool.plan(&request(CaptureRange::Time)).unwrap();
        let WindowControl::Usr1 { env } = plan.control else { panic!("{:?}", plan.control) };
        assert_eq!(env, [(env::SIGNAL.to_owned(), "paused".to_owned())]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn plan_warms_up_unprofiled_then_injects_the_tracer() {
        let dir = scratch("plan");
        let tracer = dir.join(TRACER_FILE);
        std::fs::write(&tracer, b"\x7fELF").unwrap();
        let tool = CuptiTool::new().with_tracer(&tracer).with_start_after(Duration::from_millis(1500));
        let request = CaptureRequest {
            command: vec!["python3".into(), "work.py".into(), "3".into()],
            out_dir: dir.join("out"),
            warmup_runs: 1,
            skip: Duration::ZERO,
            window: Duration::from_secs(10),
            range: prof_core::CaptureRange::Time,
            timeout: Duration::from_secs(120),
        };
        let plan = tool.plan(&request).unwrap();
        assert_eq!(plan.steps.len(), 2);
        let (warm, capture) = (&plan.steps[0], &plan.steps[1]);
        assert_eq!(warm.label, "warm-up");
        assert_eq!(warm.argv, request.command);
        assert!(warm.env.is_empty(), "the warm-up runs unprofiled");
        assert_eq!(warm.log, dir.join("out/warmup-0.log"));
        assert_eq!(capture.argv, request.command);
        assert_eq!(capture.timeout, Some(Duration::from_secs(120)));
        let env = |key: &str| capture.env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        let absolute = std::fs::canonicalize(&tracer).unwrap();
        assert_eq!(env("CUDA_INJECTION64_PATH"), Some(absolute.display().to_string()));
        assert!(Path::new(&env("CUDA_INJECTION64_PATH").unwrap()).is_absolute());
        assert_eq!(env("PROF_CUPTI_OUT"), Some(format!("{}/", dir.join("out/cupti").display())));
        assert_eq!(env("PROF_CUPTI_START_AFTER_MS").as_deref(), Some("1500"));
        assert_eq!(env("PROF_CUPTI_DURATION_MS").as_deref(), Some("10000"));
        if std::env::var_os(env::API).is_none() {
            assert_eq!(env("PROF_CUPTI_API").as_deref(), Some("launch"));
        }
        let all = tool.clone().with_api(ApiMode::All).plan(&request).unwrap();
        let api_of = |plan: &CapturePlan| plan.steps[1].env.iter().find(|(k, _)| k == env::API).map(|(_, v)| v.clone());
        assert_eq!(api_of(&all).as_deref(), Some("all"));
        assert_eq!(api_of(&tool.clone().with_api(ApiMode::None).plan(&request).unwrap()).as_deref(), Some("none"));
        assert_eq!(plan.artifacts[0].path, dir.join("out/cupti"));
        assert_eq!(plan.artifacts[0].min_bytes, 105);

        let mut none = request.clone();
        none.warmup_runs = 0;
        assert_eq!(tool.plan(&none).unwrap().steps.len(), 1);
        let mut skipped = none.clone();
        skipped.skip = Duration::from_secs(3);
        let plan = tool.plan(&skipped).unwrap();
        let start_after = plan.steps[0].env.iter().find(|(k, _)| k == "PROF_CUPTI_START_AFTER_MS").unwrap();
        assert_eq!(start_after.1, "3000", "the request's skip wins over the smaller builder value");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_api_mode_comes_from_the_builder_then_the_environment_then_launch() {
        assert_eq!(resolve_api(None, None).unwrap(), ApiMode::Launch);
        assert_eq!(resolve_api(None, Some("".into())).unwrap(), ApiMode::Launch);
        assert_eq!(resolve_api(None, Some(" All ".into())).unwrap(), ApiMode::All);
        assert_eq!(resolve_api(None, Some("none".into())).unwrap(), ApiMode::None);
        assert_eq!(resolve_api(Some(ApiMode::None), Some("all".into())).unwrap(), ApiMode::None);
        let err = resolve_api(None, Some("kernels".into())).unwrap_err().to_string();
        assert!(err.contains("PROF_CUPTI_API=kernels is not one of launch, all, none"), "{err}");
        for api in [ApiMode::Launch, ApiMode::All, ApiMode::None] {
            assert_eq!(ApiMode::parse(api.as_str()), Some(api));
        }
    }

    #[test]
    fn a_missing_tracer_names_the_build_line() {
        let tool = CuptiTool::new().with_tracer("/nonexistent/libprof_cupti.so");
        let err = tool.tracer_path().unwrap_err().to_string();
        assert!(err.starts_with("libprof_cupti.so is not installed: install prof with scripts/install.sh"), "{err}");
    }

    #[test]
    fn the_tracer_is_found_beside_the_executable_unless_overridden() {
        let dir = scratch("locate");
        std::fs::write(dir.join(TRACER_FILE), b"so").unwrap();
        let exe = dir.join("prof");
        let found = locate_tracer(None, None, Some(&exe)).unwrap();
        assert_eq!(found, std::fs::canonicalize(dir.join(TRACER_FILE)).unwrap());
        assert_eq!(locate_tracer(None, Some("/nonexistent.so".into()), Some(&exe)), None);
        assert_eq!(locate_tracer(None, None, Some(Path::new("/nonexistent/prof"))), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn recognizes_trace_names_directories_and_magic() {
        let dir = scratch("recognize");
        let tool = CuptiTool::new();
        let named = dir.join("prof-cupti-12-rank0.pcupti");
        std::fs::write(&named, b"x").unwrap();
        let renamed = dir.join("renamed.bin");
        std::fs::write(&renamed, b"PROFCUPT\x01\0\0\0").unwrap();
        let other = dir.join("report.nsys-rep");
        std::fs::write(&other, b"not ours").unwrap();
        assert!(tool.recognizes(&named) && tool.recognizes(&renamed) && tool.recognizes(&dir));
        assert!(!tool.recognizes(&other));
        assert!(!tool.recognizes(Path::new("/nonexistent/file")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
