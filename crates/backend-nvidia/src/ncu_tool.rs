//! `prof deepdive --tool ncu`: one Nsight Compute capture of the selected kernel launches into
//! a `.ncu-rep` report, then two exports of it (`--page details` and `--page raw`, as CSV on
//! stdout, which the supervisor writes to each step's log), which prof loads into one
//! [`KernelReport`] per launch.
//!
//! The section identifiers are those `ncu --list-sections` printed on our H200 (Nsight Compute
//! 2025.3.1, `tests/fixtures/nvidia/h200-ncu/list-sections.txt`).

use crate::error::NvidiaError;
use crate::ncu_pages::{detect_page, parse_details, parse_raw, Page, DETAILS_TOOL, RAW_TOOL};
use crate::ncu_report::{merge, NcuKernel};
use crate::ncu_text::{looks_like_console, parse_console, CONSOLE_TOOL};
use crate::tools;
use prof_core::tools::find_program;
use prof_core::{CapturePlan, DeepDive, DeepDiveRequest, Error, ExpectedArtifact, KernelReport, Result, RunPlan};
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The sections prof collects: throughput, occupancy and launch configuration, the stall
/// breakdown, the compute and memory workloads, and the DRAM roofline's counters.
pub const SECTIONS: [&str; 7] = [
    "SpeedOfLight",
    "Occupancy",
    "LaunchStats",
    "WarpStateStats",
    "ComputeWorkloadAnalysis",
    "MemoryWorkloadAnalysis",
    "SpeedOfLight_RooflineChart",
];
/// Base name of the report in the output directory (ncu appends `.ncu-rep`).
pub const REPORT_BASE: &str = "prof-ncu";
/// File name of the details export.
pub const DETAILS_FILE: &str = "ncu-details.csv";
/// File name of the raw export.
pub const RAW_FILE: &str = "ncu-raw.csv";
/// File name of the capture step's log.
pub const CAPTURE_LOG: &str = "ncu-capture.log";
/// How long one `ncu --import … --csv` export may take.
pub const EXPORT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);
/// The first bytes of every `.ncu-rep` (read off a report written by ncu 2025.3.1).
pub const REPORT_MAGIC: &[u8; 4] = b"NVR\0";
/// How much of a file [`NcuTool::recognizes`] reads looking for an ncu header.
const SNIFF_BYTES: u64 = 1 << 20;

/// The Nsight Compute deep dive.
#[derive(Debug, Clone, Default)]
pub struct NcuTool {
    program: Option<PathBuf>,
}

impl NcuTool {
    /// The tool, finding `ncu` on `PATH` or in the CUDA and Nsight Compute install directories.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses the `ncu` at `path` instead of searching for it.
    #[cfg(test)]
    pub fn with_program(mut self, path: impl Into<PathBuf>) -> Self {
        self.program = Some(path.into());
        self
    }

    /// The `ncu` this tool runs: the configured one if it exists, else the first on `PATH` or in
    /// [`tools::ncu_dirs`]; missing, the error carries the install line.
    pub fn program(&self) -> Result<PathBuf> {
        let found = match &self.program {
            Some(path) => path.is_file().then(|| path.clone()),
            None => find_program("ncu", &tools::ncu_dirs()),
        };
        found.ok_or_else(|| Error::ToolMissing {
            tool: tools::name::NCU.to_owned(),
            install: tools::install::NCU.to_owned(),
        })
    }

    /// The details and raw CSV pages of an existing `.ncu-rep`, exported with
    /// `ncu --import REPORT --csv --page details|raw` (ncu must be installed to read a report).
    pub fn export_pages(&self, report: &Path) -> Result<(String, String)> {
        let program = self.program().map_err(|e| match e {
            Error::ToolMissing { tool, install } => {
                Error::ToolMissing { tool: format!("{tool} (needed to read the report {})", report.display()), install }
            }
            other => other,
        })?;
        let page = |name: &str| -> Result<String> {
            let args = [os("--import"), report.as_os_str().to_owned(), os("--csv"), os("--page"), os(name)];
            let output = prof_core::tools::run_tool(&program, args, EXPORT_TIMEOUT)?;
            if !output.success() {
                let said = output.stdout.lines().chain(output.stderr.lines()).find(|l| l.contains("==ERROR=="));
                let reason = said.unwrap_or("no error message").trim().to_owned();
                return Err(Error::artifact(report, 0, format!("ncu --import failed: {reason}")));
            }
            Ok(output.stdout)
        };
        Ok((page("details")?, page("raw")?))
    }

    /// Loads the artifacts into reports with ncu's extra fields (launch, DRAM share, block
    /// limits, why there is no roofline).
    pub fn load_kernels(&self, artifacts: &[PathBuf]) -> Result<Vec<NcuKernel>> {
        let (mut details, mut raw) = (Vec::new(), Vec::new());
        // A capture lists the .ncu-rep beside its CSV exports: read the CSVs, keep the report.
        let has_pages = artifacts.iter().any(|p| !is_report(p));
        for path in artifacts.iter().filter(|p| !(has_pages && is_report(p))) {
            if is_report(path) {
                let (details_text, raw_text) = self.export_pages(path)?;
                details.extend(parse_details(&details_text).map_err(|e| artifact_error(path, e))?);
                raw.extend(parse_raw(&raw_text).map_err(|e| artifact_error(path, e))?);
                continue;
            }
            let text = read_utf8(path)?;
            let at_file = |error: NvidiaError| artifact_error(path, error);
            match detect_page(&text) {
                Some(Page::Details) => details.extend(parse_details(&text).map_err(at_file)?),
                Some(Page::Raw) => raw.extend(parse_raw(&text).map_err(at_file)?),
                None if looks_like_console(&text) => details.extend(parse_console(&text).map_err(at_file)?),
                None => {
                    let reason = format!(
                        "neither ncu CSV ({DETAILS_TOOL}, {RAW_TOOL}) nor {CONSOLE_TOOL}: no \"ID\",\"Process ID\" header \
                         and no `Section:` lines"
                    );
                    return Err(Error::artifact(path, 0, reason));
                }
            }
        }
        let kernels = merge(details, raw).map_err(|e| match e {
            NvidiaError::Output { reason, .. } => Error::Unsupported(reason),
            other => other.into(),
        })?;
        if kernels.is_empty() {
            return Err(Error::Unsupported("the ncu artifacts hold no kernel launch".to_owned()));
        }
        Ok(kernels)
    }
}

fn artifact_error(path: &Path, error: NvidiaError) -> Error {
    match error {
        NvidiaError::Output { tool, line, reason } => Error::artifact(path, line, format!("{tool}: {reason}")),
        other => other.into(),
    }
}

fn is_report(path: &Path) -> bool {
    if path.extension().is_some_and(|e| e == "ncu-rep") {
        return true;
    }
    let mut magic = [0u8; 4];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut magic)).is_ok() && &magic == REPORT_MAGIC
}

fn os(text: impl Into<OsString>) -> OsString {
    text.into()
}

impl DeepDive for NcuTool {
    fn name(&self) -> &'static str {
        "ncu"
    }

    fn check(&self) -> Result<()> {
        self.program().map(|_| ())
    }

    fn plan(&self, request: &DeepDiveRequest) -> Result<CapturePlan> {
        let ncu = self.program()?;
        prof_core::breakdown::require_command(&request.command)?;
        if request.kernel_regex.is_empty() {
            return Err(Error::Unsupported(
                "ncu needs a kernel name regular expression to select the kernel".to_owned(),
            ));
        }
        if request.launch_count == 0 {
            return Err(Error::Unsupported("ncu needs a launch count of at least 1".to_owned()));
        }
        let out = &request.out_dir;
        let report_base = out.join(REPORT_BASE);
        let report = out.join(format!("{REPORT_BASE}.ncu-rep"));
        let mut argv = vec![
            ncu.clone().into_os_string(),
            os("--kernel-name"),
            os(format!("regex:{}", request.kernel_regex)),
            os("--launch-skip"),
            os(request.launch_skip.to_string()),
            os("--launch-count"),
            os(request.launch_count.to_string()),
            os("--clock-control"),
            os("none"),
        ];
        for section in SECTIONS {
            argv.extend([os("--section"), os(section)]);
        }
        argv.extend([os("--export"), report_base.into_os_string(), os("--force-overwrite")]);
        argv.extend(request.command.iter().cloned());
        let mut capture = RunPlan::new("capture", argv, out.join(CAPTURE_LOG));
        capture.timeout = Some(request.timeout);
        let export = |page: &str, file: &str| {
            let argv = vec![
                ncu.clone().into_os_string(),
                os("--import"),
                report.clone().into_os_string(),
                os("--csv"),
                os("--page"),
                os(page),
            ];
            let mut step = RunPlan::new("export", argv, out.join(file));
            step.timeout = Some(request.timeout);
            step
        };
        let details = out.join(DETAILS_FILE);
        let raw = out.join(RAW_FILE);
        Ok(CapturePlan {
            steps: vec![capture, export("details", DETAILS_FILE), export("raw", RAW_FILE)],
            artifacts: vec![
                ExpectedArtifact { path: report.clone(), min_bytes: 1024 },
                ExpectedArtifact { path: details.clone(), min_bytes: 256 },
                ExpectedArtifact { path: raw.clone(), min_bytes: 256 },
            ],
            how_to_open: format!(
                "ncu-ui {} (Nsight Compute); prof reads {} and {}",
                report.display(),
                details.display(),
                raw.display()
            ),
            ..CapturePlan::default()
        })
    }

    fn load(&self, artifacts: &[PathBuf]) -> Result<Vec<KernelReport>> {
        Ok(self.load_kernels(artifacts)?.into_iter().map(|k| k.report).collect())
    }

    fn recognizes(&self, path: &Path) -> bool {
        if path.is_dir() {
            return false;
        }
        if is_report(path) {
            return true;
        }
        let mut head = Vec::new();
        let read = std::fs::File::open(path).and_then(|f| f.take(SNIFF_BYTES).read_to_end(&mut head));
        if read.is_err() {
            return false;
        }
        let text = String::from_utf8_lossy(&head);
        detect_page(&text).is_some() || looks_like_console(&text)
    }

    fn explain_failure(&self, out_dir: &Path) -> Option<String> {
        let log = std::fs::read_to_string(out_dir.join(CAPTURE_LOG)).ok()?;
        let failure = crate::ncu_failure::classify_failure(&log)?;
        let mut text = format!(
            "{}
  ncu said: {}
  fix: {}",
            failure.message, failure.evidence, failure.fix
        );
        if !failure.available_kernels.is_empty() {
            text.push_str(
                "
  kernels ncu saw:",
            );
            for name in failure.available_kernels.iter().take(30) {
                text.push_str(&format!(
                    "
    {name}"
                ));
            }
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests;

/// Reads the text file at `path`; bytes that are not UTF-8 are an error naming their line and
/// byte offset (ncu writes UTF-8).
fn read_utf8(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes().get(..at).map_or(1, |b| b.iter().filter(|&&c| c == b'\n').count() + 1);
        Error::artifact(path, line, format!("byte offset {at} is not UTF-8; ncu writes UTF-8"))
    })
}
