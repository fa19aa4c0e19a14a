//! NVIDIA detection: nvidia-smi (CSV query, XML as fallback), NVML, nsys, ncu and CUPTI.
//!
//! The slow parts (nvidia-smi, NVML, each `--version`) run in parallel, each bounded by a
//! time limit; whatever fails becomes a line in [`Detection::problems`] and the rest goes on.

use crate::error::NvidiaError;
use crate::nvml_detect::{self, NvmlFindings};
use crate::smi_query::{parse_detect_query, query_gpu_args, SmiDevices, DETECT_FIELDS, QUERY_GPU_TOOL};
use crate::smi_xml::{parse_smi_xml, XML_ARGS, XML_TOOL};
use crate::tools::{self, install, name, purpose, VERSION_TIMEOUT};
use prof_core::tools::{find_library, find_program, library_version, run_tool};
use prof_core::{Detection, ToolKind, ToolStatus};
use std::path::{Path, PathBuf};
use std::thread::ScopedJoinHandle;
use std::time::Duration;

/// How long one nvidia-smi query may take (it can be slow while the driver wakes a GPU).
pub const SMI_TIMEOUT: Duration = Duration::from_secs(10);

/// Detects everything NVIDIA on this machine; never fails as a whole.
pub fn detect(vendor: &'static str, vendor_name: &'static str) -> Detection {
    let mut detection = Detection::new(vendor, vendor_name);
    let smi_path = find_program(name::SMI, &[]);
    let nsys_path = find_program(name::NSYS, &tools::nsys_dirs());
    let ncu_path = find_program(name::NCU, &tools::ncu_dirs());
    let (smi, nvml, nsys_version, ncu_version) = std::thread::scope(|scope| {
        let smi = scope.spawn(|| smi_path.as_deref().map(read_smi));
        let nsys = scope.spawn(|| nsys_path.as_deref().map(|p| tools::query_version(name::NSYS, p, VERSION_TIMEOUT)));
        let ncu = scope.spawn(|| ncu_path.as_deref().map(|p| tools::query_version(name::NCU, p, VERSION_TIMEOUT)));
        let nvml = nvml_detect::probe();
        (joined(smi, name::SMI), nvml, joined(nsys, name::NSYS), joined(ncu, name::NCU))
    });
    let mut problems = Vec::new();

    let smi = smi.unwrap_or_else(|problem| Some(SmiFindings { devices: None, problems: vec![problem] }));
    let smi_status = ToolStatus::absent(name::SMI, ToolKind::Program, purpose::SMI, install::DRIVER);
    let smi_devices = match (smi_path, smi) {
        (Some(path), Some(found)) => {
            problems.extend(found.problems);
            let version = found.devices.as_ref().and_then(|d| d.driver_version.clone());
            detection.tools.push(smi_status.found(path, version));
            found.devices
        }
        _ => {
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
    detection.tools.push(cupti_status());
    detection.problems = problems;
    detection
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
