//! AMD detection: which ROCm tools and libraries are installed, and the devices and driver
//! `rocm-smi` (or, failing that, `amd-smi`) reports.
//!
//! Both SMI tools run at once, each bounded by a timeout. `rocm-smi` is asked for the JSON of
//! Telegraf's recorded flag list first (product names, bus ids, VRAM, driver); when that output
//! is unusable the plain concise table is tried (device ids only). Whatever cannot be read
//! becomes one `problems` line and detection goes on.

use crate::error::{quote, AmdError};
use crate::tools::{self, SearchPaths, ToolSpec, AMD_SMI_MONITOR_ARGS, ROCM_SMI_JSON_ARGS};
use crate::{amd_smi, rocm_smi_concise, rocm_smi_json};
use prof_core::tools::{run_tool, ToolOutput};
use prof_core::{Detection, DeviceInfo};
use std::path::Path;
use std::time::Duration;

/// How long one SMI query may take: Telegraf's default timeout for the same `rocm-smi` call.
pub const SMI_TIMEOUT: Duration = Duration::from_secs(5);

/// Every tool detection checks, in the order it reports them.
const TOOLS: [ToolSpec; 6] =
    [tools::ROCM_SMI, tools::AMD_SMI, tools::LIB_ROCM_SMI, tools::LIB_AMD_SMI, tools::ROCPROFV3, tools::ROCPROF];

/// The SMI tools and libraries: any one of them found means AMD is present.
const SMI: [ToolSpec; 4] = [tools::ROCM_SMI, tools::AMD_SMI, tools::LIB_ROCM_SMI, tools::LIB_AMD_SMI];

/// Where detection looks and how long it waits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetectConfig {
    /// Directories searched after `PATH` / `LD_LIBRARY_PATH`.
    pub paths: SearchPaths,
    /// Limit of each SMI query; a tool that runs longer is stopped and reported.
    pub smi_timeout: Duration,
}

impl DetectConfig {
    /// The standard ROCm locations and [`SMI_TIMEOUT`].
    pub fn rocm_default() -> Self {
        Self { paths: SearchPaths::rocm_default(), smi_timeout: SMI_TIMEOUT }
    }
}

/// What the SMI queries yielded.
#[derive(Debug, Default)]
struct SmiAnswer {
    devices: Vec<DeviceInfo>,
    driver_version: Option<String>,
    problems: Vec<String>,
}

/// Runs AMD detection under `config`, filling a [`Detection`] for `vendor` / `name`.
pub fn detect(config: &DetectConfig, vendor: &'static str, name: &'static str) -> Detection {
    let mut detection = Detection::new(vendor, name);
    detection.tools = TOOLS
        .iter()
        .map(|spec| {
            if spec.display == tools::LIB_ROCM_SMI.display {
                crate::rsmi_lib::library_status(&config.paths)
            } else {
                tools::locate(spec, &config.paths)
            }
        })
        .collect();
    let found = |spec: &ToolSpec| detection.tool(spec.display).and_then(|t| t.path.clone());
    let present = SMI.iter().any(|spec| found(spec).is_some());
    let (rocm_smi, amd_smi) = (found(&tools::ROCM_SMI), found(&tools::AMD_SMI));
    detection.present = present;
    let timeout = config.smi_timeout;
    let (rocm, amd) = std::thread::scope(|scope| {
        let rocm = rocm_smi.as_deref().map(|path| scope.spawn(move || query_rocm_smi(path, timeout)));
        let amd = amd_smi.as_deref().map(|path| scope.spawn(move || query_amd_smi(path, timeout)));
        (rocm.map(joined), amd.map(joined))
    });
    let (rocm, amd) = (rocm.unwrap_or_default(), amd.unwrap_or_default());
    detection.driver_version = rocm.driver_version;
    detection.devices = if rocm.devices.is_empty() { amd.devices } else { rocm.devices };
    detection.problems = rocm.problems.into_iter().chain(amd.problems).collect();
    if detection.devices.is_empty() && detection.problems.is_empty() && (rocm_smi.is_some() || amd_smi.is_some()) {
        detection.problems.push(no_gpu_line(rocm_smi.is_some(), amd_smi.is_some()));
    }
    detection
}

fn joined(handle: std::thread::ScopedJoinHandle<'_, SmiAnswer>) -> SmiAnswer {
    handle.join().unwrap_or_else(|_| SmiAnswer {
        problems: vec!["AMD SMI query panicked; this is a prof bug".to_owned()],
        ..SmiAnswer::default()
    })
}

fn no_gpu_line(rocm_smi: bool, amd_smi: bool) -> String {
    let ran: Vec<&str> = [("rocm-smi", rocm_smi), ("amd-smi", amd_smi)]
        .into_iter()
        .filter(|(_, ran)| *ran)
        .map(|(name, _)| name)
        .collect();
    format!("{} ran but listed no GPU", ran.join(" and "))
}

fn query_rocm_smi(program: &Path, timeout: Duration) -> SmiAnswer {
    let mut answer = SmiAnswer::default();
    match query(program, ROCM_SMI_JSON_ARGS, "rocm-smi --json", timeout, rocm_smi_json::parse) {
        Query::Parsed(report) => {
            answer.driver_version = report.driver_version;
            answer.devices = report.cards.iter().map(rocm_smi_json::Card::to_device_info).collect();
            return answer;
        }
        Query::Stuck(problem) => {
            answer.problems.push(problem);
            return answer;
        }
        Query::Unusable(problem) => answer.problems.push(problem),
    }
    match query(program, &[], "rocm-smi", timeout, rocm_smi_concise::parse) {
        Query::Parsed(table) => {
            answer.devices = table.rows.iter().map(rocm_smi_concise::ConciseRow::to_device_info).collect()
        }
        Query::Stuck(problem) | Query::Unusable(problem) => answer.problems.push(problem),
    }
    answer
}

fn query_amd_smi(program: &Path, timeout: Duration) -> SmiAnswer {
    let mut answer = SmiAnswer::default();
    match query(program, AMD_SMI_MONITOR_ARGS, "amd-smi monitor -ptumv", timeout, amd_smi::parse) {
        Query::Parsed(table) => answer.devices = table.rows.iter().map(amd_smi::MonitorRow::to_device_info).collect(),
        Query::Stuck(problem) | Query::Unusable(problem) => answer.problems.push(problem),
    }
    answer
}

/// One SMI run: parsed, unusable (it ran, but its output cannot be read), or stuck (it could
/// not start or did not finish: asking it again would not help).
enum Query<T> {
    Parsed(T),
    Unusable(String),
    Stuck(String),
}

fn query<T>(
    program: &Path,
    args: &[&str],
    tool: &str,
    timeout: Duration,
    parse: fn(&str, &str) -> Result<T, AmdError>,
) -> Query<T> {
    let output = match run_tool(program, args, timeout) {
        Ok(output) => output,
        Err(prof_core::Error::TimedOut { limit, .. }) => {
            return Query::Stuck(format!("{tool} did not answer within {limit:?} and was stopped"));
        }
        Err(error) => return Query::Stuck(format!("{tool}: {error}")),
    };
    match parse(tool, &output.stdout) {
        Ok(parsed) => Query::Parsed(parsed),
        Err(_) if !output.success() => Query::Unusable(failure_line(tool, &output)),
        Err(error) => Query::Unusable(prof_core::Error::from(error).to_string()),
    }
}

/// `rocm-smi --json failed (exit status 1): `first line it printed``.
fn failure_line(tool: &str, output: &ToolOutput) -> String {
    let status = match output.code {
        Some(code) => format!("exit status {code}"),
        None => "killed by a signal".to_owned(),
    };
    let said = output.stderr.lines().chain(output.stdout.lines()).find(|line| !line.trim().is_empty());
    match said {
        Some(line) => format!("{tool} failed ({status}): {}", quote(line)),
        None => format!("{tool} failed ({status}) and printed nothing"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::{fixture_path, TempDir};
    use std::time::Instant;

    fn config(tmp: &TempDir, timeout: Duration) -> DetectConfig {
        let paths =
            SearchPaths { program_dirs: vec![tmp.path().join("bin")], library_dirs: vec![tmp.path().join("lib")] };
        DetectConfig { paths, smi_timeout: timeout }
    }

    fn replay(file: &str) -> String {
        format!("#!/usr/bin/env bash\ncat '{}'\n", fixture_path(file).display())
    }

    #[test]
    fn nothing_installed_is_absent_with_install_lines_and_no_problems() {
        let tmp = TempDir::new("detect-empty");
        let detection = detect(&config(&tmp, SMI_TIMEOUT), "amd", "AMD");
        assert!(!detection.present);
        assert!(detection.devices.is_empty() && detection.problems.is_empty());
        let names: Vec<&str> = detection.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["rocm-smi", "amd-smi", "librocm_smi64", "libamd_smi", "rocprofv3", "rocprof"]);
        assert_eq!(detection.tool("rocprofv3").unwrap().install, tools::INSTALL_ROCPROFV3);
    }

    #[test]
    fn the_smi_library_alone_means_present() {
        let tmp = TempDir::new("detect-lib");
        tmp.file("lib/libamd_smi.so.25.4", "");
        let detection = detect(&config(&tmp, SMI_TIMEOUT), "amd", "AMD");
        assert!(detection.present);
        let lib = detection.tool("libamd_smi").unwrap();
        assert_eq!((lib.present, lib.version.as_deref()), (true, Some("25.4")));
        assert!(detection.devices.is_empty() && detection.problems.is_empty());
    }

    #[test]
    fn json_failure_falls_back_to_the_concise_table() {
        let tmp = TempDir::new("detect-fallback");
        let table = fixture_path("smi/rocm-smi_concise_mi300a.txt");
        let script = format!(
            "#!/usr/bin/env bash\nif [ $# -eq 0 ]; then cat '{}'; else echo 'ERROR: no json here' >&2; exit 2; fi\n",
            table.display()
        );
        tmp.program("bin/rocm-smi", &script);
        let detection = detect(&config(&tmp, SMI_TIMEOUT), "amd", "AMD");
        assert!(detection.present);
        assert_eq!(detection.devices.len(), 4);
        assert_eq!(detection.devices[3].name, "AMD GPU (device id 0x74a0)");
        assert_eq!(detection.problems, ["rocm-smi --json failed (exit status 2): `ERROR: no json here`"]);
    }

    #[test]
    fn amd_smi_devices_are_used_when_rocm_smi_is_missing() {
        let tmp = TempDir::new("detect-amd-smi");
        tmp.program("bin/amd-smi", &replay("smi/amdsmi-changelog_monitor_ptumv.txt"));
        let detection = detect(&config(&tmp, SMI_TIMEOUT), "amd", "AMD");
        assert!(detection.present && detection.problems.is_empty(), "{:?}", detection.problems);
        assert_eq!(detection.devices.len(), 8);
        assert_eq!(detection.devices[7].memory_total_mib, Some(196_300));
        assert_eq!(detection.driver_version, None);
    }

    #[test]
    fn a_hanging_tool_is_stopped_and_reported() {
        let tmp = TempDir::new("detect-hang");
        tmp.program("bin/rocm-smi", "#!/usr/bin/env bash\nsleep 30\n");
        tmp.program("bin/amd-smi", "#!/usr/bin/env bash\necho 'GPU  VRAM_TOTAL'\n");
        let started = Instant::now();
        let detection = detect(&config(&tmp, Duration::from_millis(300)), "amd", "AMD");
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
        assert_eq!(detection.problems, ["rocm-smi --json did not answer within 300ms and was stopped"]);
        assert!(detection.devices.is_empty());
    }

    #[test]
    fn garbage_from_rocm_smi_gives_one_problem_per_invocation() {
        let tmp = TempDir::new("detect-garbage");
        tmp.program("bin/rocm-smi", "#!/usr/bin/env bash\necho 'Segmentation fault (core dumped)'\n");
        let detection = detect(&config(&tmp, SMI_TIMEOUT), "amd", "AMD");
        assert!(detection.present && detection.devices.is_empty());
        assert_eq!(detection.problems.len(), 2, "{:?}", detection.problems);
        assert!(detection.problems[0].starts_with("rocm-smi --json: unexpected output at line 1: invalid JSON"));
        assert_eq!(
            detection.problems[1],
            "rocm-smi: unexpected output at line 1: expected a header line starting with `Device`, \
             found `Segmentation fault (core dumped)`"
        );
    }

    #[test]
    fn an_empty_gpu_list_is_said() {
        let tmp = TempDir::new("detect-no-gpu");
        tmp.program("bin/rocm-smi", "#!/usr/bin/env bash\necho '{\"system\": {\"Driver version\": \"6.8.0\"}}'\n");
        let detection = detect(&config(&tmp, SMI_TIMEOUT), "amd", "AMD");
        assert_eq!(detection.driver_version.as_deref(), Some("6.8.0"));
        assert_eq!(detection.problems, ["rocm-smi ran but listed no GPU"]);
    }
}
