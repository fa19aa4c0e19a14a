//! NVIDIA detection: nvidia-smi (CSV query, XML as fallback), NVML, nsys, ncu and CUPTI.
//!
//! The slow parts (nvidia-smi, NVML, each `--version`, the CUPTI search) run in parallel, each
//! bounded by a time limit; whatever fails becomes a line in [`Detection::problems`] and the
//! rest goes on. A `--version` answer is cached per installed file (`prof_core::tool_cache`),
//! so only the first run after an install or upgrade spawns nsys and ncu. With
//! `PROF_DETECT_TIMES=1` in the environment each probe's wall time is printed on stderr, to tell
//! which one sets the total (`scripts/bench/detect_time.sh`).

use crate::error::NvidiaError;
use crate::nvml_detect::{self, NvmlFindings};
use crate::smi_query::{parse_detect_query, query_gpu_args, SmiDevices, DETECT_FIELDS, QUERY_GPU_TOOL};
use crate::smi_xml::{parse_smi_xml, XML_ARGS, XML_TOOL};
use crate::tools::{self, install, name, purpose, VERSION_TIMEOUT};
use prof_core::tools::{find_library, find_program, library_version, run_tool};
use prof_core::{Detection, ToolKind, ToolStatus};
use std::path::{Path, PathBuf};
use std::thread::ScopedJoinHandle;
use std::time::{Duration, Instant};

/// How long one nvidia-smi query may take (it can be slow while the driver wakes a GPU).
pub const SMI_TIMEOUT: Duration = Duration::from_secs(10);

/// Detects everything NVIDIA on this machine; never fails as a whole.
pub fn detect(vendor: &'static str, vendor_name: &'static str) -> Detection {
    let mut detection = Detection::new(vendor, vendor_name);
    let started = Instant::now();
    let smi_path = find_program(name::SMI, &[]);
    let nsys_path = crate::nsys_tool::NsysTool::new().program().ok();
    let ncu_path = find_program(name::NCU, &tools::ncu_dirs());
    report_time("program search", started);
    let (smi, nvml, nsys_version, ncu_version, cupti) = std::thread::scope(|scope| {
        let nsys = scope.spawn(|| {
            timed("nsys --version", || {
                nsys_path.as_deref().map(|p| tools::query_version(name::NSYS, p, VERSION_TIMEOUT))
            })
        });
        let ncu = scope.spawn(|| {
            timed("ncu --version", || ncu_path.as_deref().map(|p| tools::query_version(name::NCU, p, VERSION_TIMEOUT)))
        });
        let cupti = scope.spawn(|| timed(name::CUPTI, cupti_status));
        let nvml = timed(name::NVML, nvml_detect::probe);
        let smi = (!nvml_answers_for_smi(&nvml))
            .then(|| scope.spawn(|| timed(name::SMI, || smi_path.as_deref().map(read_smi))));
        let smi = smi.map(|handle| joined(handle, name::SMI));
        let cupti = cupti.join().unwrap_or_else(|_| {
            ToolStatus::absent(name::CUPTI, ToolKind::Library, purpose::CUPTI, install::CUPTI)
                .with_note("the search panicked; this is a prof bug")
        });
        (smi, nvml, joined(nsys, name::NSYS), joined(ncu, name::NCU), cupti)
    });
    let mut problems = Vec::new();

    let smi_status = ToolStatus::absent(name::SMI, ToolKind::Program, purpose::SMI, install::DRIVER);
    let smi_devices = match (smi_path, smi) {
        // Not run: NVML told everything its query would (the driver version is the one it reports).
        (Some(path), None) => {
            detection.tools.push(smi_status.found(path, nvml.driver_version.clone()));
            None
        }
        (Some(path), Some(ran)) => {
            match ran.unwrap_or_else(|problem| Some(SmiFindings { devices: None, problems: vec![problem] })) {
                Some(found) => {
                    problems.extend(found.problems);
                    let version = found.devices.as_ref().and_then(|d| d.driver_version.clone());
                    detection.tools.push(smi_status.found(path, version));
                    found.devices
                }
                None => {
                    detection.tools.push(smi_status);
                    None
                }
            }
        }
        (None, _) => {
            detection.tools.push(smi_status);
            None
        }
    };

    problems.extend(nvml.problems.iter().cloned());
    detection.tools.push(nvml_status(&nvml));
    detection.present = detection.tool(name::SMI).is_some_and(|t| t.present) || nvml.loaded;
    match smi_devices {
        Some(found) => {
            detection.driver_version = found.driver_version.or(nvml.driver_version);
            detection.devices = found.devices;
        }
        None => {
            detection.driver_version = nvml.driver_version;
            detection.devices = nvml.devices;
        }
    }

    let nsys = program_status(name::NSYS, purpose::NSYS, install::NSYS, nsys_path, nsys_version, &mut problems);
    let nsys = match nsys.path.as_deref().and_then(tools::nsys_note) {
        Some(note) => nsys.with_note(note),
        None => nsys,
    };
    detection.tools.push(nsys);
    detection.tools.push(program_status(name::NCU, purpose::NCU, install::NCU, ncu_path, ncu_version, &mut problems));
    detection.tools.push(cupti);
    detection.tools.push(tracer_status());
    detection.problems = problems;
    report_time("NVIDIA detection", started);
    detection
}

/// Environment variable that turns on the per-probe timing lines on stderr.
pub const TIMES_ENV: &str = "PROF_DETECT_TIMES";

/// Runs `probe`, reporting its wall time under `label` when [`TIMES_ENV`] is set.
fn timed<T>(label: &str, probe: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = probe();
    report_time(label, started);
    out
}

fn report_time(label: &str, started: Instant) {
    if std::env::var_os(TIMES_ENV).is_some_and(|v| !v.is_empty() && v != "0") {
        eprintln!("prof detect: {label}: {:.1} ms", started.elapsed().as_secs_f64() * 1e3);
    }
}

/// True when NVML answered everything nvidia-smi's detection query asks (driver version; each
/// device's name, UUID, bus id, memory and compute capability; no problem), so that query, the
/// slowest probe (it initialises NVML itself), is not run. nvidia-smi is built on NVML: its
/// `--query-gpu` fields are these NVML values (the H200's 143,771 MiB is what both report, in
/// tests/fixtures/nvidia/h200-detect/query-detect.csv and h200-run/util-snapshot.txt).
fn nvml_answers_for_smi(nvml: &NvmlFindings) -> bool {
    let complete = |d: &prof_core::DeviceInfo| {
        d.uuid.is_some() && d.bus_id.is_some() && d.memory_total_mib.is_some() && d.architecture.is_some()
    };
    nvml.loaded
        && nvml.problems.is_empty()
        && nvml.driver_version.is_some()
        && !nvml.devices.is_empty()
        && nvml.devices.iter().all(complete)
}

/// What nvidia-smi told us: devices when one of its outputs could be read, and problems.
struct SmiFindings {
    devices: Option<SmiDevices>,
    problems: Vec<String>,
}

fn read_smi(path: &Path) -> SmiFindings {
    let mut problems = Vec::new();
    let query_failure = match query(path, &query_gpu_args(DETECT_FIELDS), QUERY_GPU_TOOL, parse_detect_query) {
        Ok(devices) => return SmiFindings { devices: Some(devices), problems },
        Err(Failure::Unparseable(problem)) => {
            problems.push(problem);
            None
        }
        Err(Failure::Run(problem)) => Some(problem),
    };
    let parse_xml = |text: &str| {
        parse_smi_xml(text).map(|log| SmiDevices {
            driver_version: log.driver_version,
            devices: log.gpus.into_iter().map(|gpu| gpu.info).collect(),
        })
    };
    match query(path, &XML_ARGS, XML_TOOL, parse_xml) {
        Ok(devices) => SmiFindings { devices: Some(devices), problems },
        Err(Failure::Unparseable(problem) | Failure::Run(problem)) => {
            problems.extend(query_failure);
            problems.push(problem);
            SmiFindings { devices: None, problems }
        }
    }
}

/// Why an nvidia-smi query gave nothing: it could not run / exited non-zero (expected on old
/// drivers for unknown fields), or it printed something unparseable (worth reporting).
enum Failure {
    Run(String),
    Unparseable(String),
}

fn query<T, A: AsRef<std::ffi::OsStr>>(
    path: &Path,
    args: &[A],
    tool: &str,
    parse: impl Fn(&str) -> Result<T, NvidiaError>,
) -> Result<T, Failure> {
    let output = run_tool(path, args, SMI_TIMEOUT).map_err(|e| Failure::Run(format!("{tool}: {e}")))?;
    if !output.success() {
        let status = output.code.map(|c| format!("status {c}")).unwrap_or_else(|| "a signal".to_owned());
        let said = tools::first_line(if output.stderr.trim().is_empty() { &output.stdout } else { &output.stderr });
        return Err(Failure::Run(format!("{tool} exited with {status}: {said}")));
    }
    parse(&output.stdout).map_err(|e| Failure::Unparseable(prof_core::Error::from(e).to_string()))
}

fn joined<T>(handle: ScopedJoinHandle<'_, T>, tool: &str) -> Result<T, String> {
    handle.join().map_err(|_| format!("reading {tool} panicked; this is a prof bug"))
}

fn nvml_status(nvml: &NvmlFindings) -> ToolStatus {
    let status = ToolStatus::absent(name::NVML, ToolKind::Library, purpose::NVML, install::DRIVER);
    if !nvml.loaded {
        return match &nvml.load_error {
            Some(error) => status.with_note(format!("could not be loaded: {error}")),
            None => status,
        };
    }
    let path = nvml.path.clone().unwrap_or_else(|| PathBuf::from(&nvml.library));
    let status = status.found(path, nvml.nvml_version.clone());
    if nvml.nvml_version.is_none() {
        status.with_note("loaded, but NVML could not be initialised (see problems)")
    } else {
        status
    }
}

fn program_status(
    tool: &str,
    purpose: &str,
    install: &str,
    path: Option<PathBuf>,
    version: Result<Option<Result<String, String>>, String>,
    problems: &mut Vec<String>,
) -> ToolStatus {
    let status = ToolStatus::absent(tool, ToolKind::Program, purpose, install);
    let Some(path) = path else { return status };
    let version = match version {
        Ok(Some(Ok(version))) => Some(version),
        Ok(Some(Err(problem))) | Err(problem) => {
            problems.push(problem);
            None
        }
        Ok(None) => None,
    };
    status.found(path, version)
}

fn cupti_status() -> ToolStatus {
    let status = ToolStatus::absent(name::CUPTI, ToolKind::Library, purpose::CUPTI, install::CUPTI);
    let cuda_home = std::env::var_os("CUDA_HOME").filter(|v| !v.is_empty()).map(PathBuf::from);
    match find_library("libcupti.so", &tools::cupti_dirs(cuda_home.as_deref())) {
        Some((path, resolved)) => status.found(path, library_version(&resolved)),
        None => status,
    }
}

/// prof's own tracer library, where `prof breakdown --tool cupti` would take it from.
fn tracer_status() -> ToolStatus {
    let status = ToolStatus::absent(name::TRACER, ToolKind::Library, purpose::TRACER, install::TRACER);
    match crate::cupti_tool::CuptiTool::new().tracer_path() {
        Ok(path) => status.found(path, Some(env!("CARGO_PKG_VERSION").to_owned())),
        Err(_) => status,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_core::DeviceInfo;

    /// NVML findings with the H200's device as tests/fixtures/nvidia/h200-detect/query-detect.csv
    /// lists it (index, name, uuid, bus id, driver, memory, compute capability).
    fn h200() -> NvmlFindings {
        NvmlFindings {
            library: "libnvidia-ml.so.1".into(),
            loaded: true,
            nvml_version: Some("13.580.159.04".into()),
            driver_version: Some("580.159.04".into()),
            devices: vec![DeviceInfo {
                index: 0,
                name: "NVIDIA H200".into(),
                uuid: Some("GPU-b760cc64-42ae-7d9d-86af-076d5fbe517c".into()),
                bus_id: Some("00000000:00:06.0".into()),
                memory_total_mib: Some(143_771),
                architecture: Some("9.0".into()),
            }],
            ..Default::default()
        }
    }

    #[test]
    fn nvidia_smi_is_skipped_only_when_nvml_told_everything() {
        assert!(nvml_answers_for_smi(&h200()));
        let mut missing = h200();
        missing.devices[0].bus_id = None;
        assert!(!nvml_answers_for_smi(&missing));
        let mut troubled = h200();
        troubled.problems.push("NVML: device 1 could not be opened".into());
        assert!(!nvml_answers_for_smi(&troubled));
        let mut no_driver = h200();
        no_driver.driver_version = None;
        assert!(!nvml_answers_for_smi(&no_driver));
        let mut no_devices = h200();
        no_devices.devices.clear();
        assert!(!nvml_answers_for_smi(&no_devices));
        assert!(!nvml_answers_for_smi(&NvmlFindings::default()));
    }
}
