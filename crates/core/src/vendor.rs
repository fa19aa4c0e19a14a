//! The [`Vendor`] trait and what detection reports: devices, driver, and each tool's status.

use crate::breakdown::{BreakdownTool, Importer};
use crate::deepdive::DeepDive;
pub use crate::probe::DeviceInfo;
use crate::probe::UtilizationProbe;
pub use crate::vendor_tables::JobTables;
use prof_timeline::error::Result;
use prof_timeline::section::Section;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One accelerator vendor's backend: detection plus the three capabilities, each optional.
///
/// Object-safe, so the CLI can hold a registry of `Box<dyn Vendor>` and pick at run time.
pub trait Vendor: Send + Sync {
    /// Stable short id (`nvidia`, `amd`, `ascend`), used in `--json` and flags.
    fn id(&self) -> &'static str;
    /// Human name (`NVIDIA`).
    fn name(&self) -> &'static str;
    /// Looks for the vendor's SMI tool, library and profilers. Never fails as a whole:
    /// what could not be read goes into [`Detection::problems`].
    fn detect(&self) -> Detection;
    /// Opens the utilization probe; `None` when the backend has none,
    /// `Some(Err)` when it has one but it cannot run here (library missing, no device).
    fn utilization_probe(&self) -> Option<Result<Box<dyn UtilizationProbe>>> {
        None
    }
    /// The kernel-breakdown tools this backend drives (first is the default).
    fn breakdown_tools(&self) -> Vec<Box<dyn BreakdownTool>> {
        Vec::new()
    }
    /// Readers of artifacts other tools already wrote (beyond what its breakdown tools load).
    fn importers(&self) -> Vec<Box<dyn Importer>> {
        Vec::new()
    }
    /// The single-kernel deep-dive tool, if the backend has one.
    fn deep_dive(&self) -> Option<Box<dyn DeepDive>> {
        None
    }
    /// The backend's own analyses of the artifact at `path` beyond its timeline (columns the
    /// timeline does not keep), as sections; empty when it has none for this path. Depends on
    /// the path only, so it may run while the timeline loads. A section the backend's reader
    /// finds in the same pass as the ops goes on the timeline instead
    /// ([`crate::Timeline::sections`]) and is not given here again.
    fn sections(&self, path: &Path) -> Vec<Section> {
        let _ = path;
        Vec::new()
    }
    /// What the backend knows of multi-rank job directories (which rank an entry is, its
    /// tools' per-rank and job-wide tables); `None` when it knows nothing of them.
    fn job_tables(&self) -> Option<&dyn JobTables> {
        None
    }
}

/// What one vendor's detection found.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Detection {
    /// [`Vendor::id`].
    pub vendor: &'static str,
    /// [`Vendor::name`].
    pub name: &'static str,
    /// True when the vendor's SMI tool or management library was found on this machine.
    pub present: bool,
    /// Driver version, where the SMI tool or library reports it.
    pub driver_version: Option<String>,
    /// Devices found.
    pub devices: Vec<DeviceInfo>,
    /// The SMI tool, the management/profiling libraries and the profilers, each present or absent.
    pub tools: Vec<ToolStatus>,
    /// What went wrong while detecting (unparseable output, a tool that hung), one line each.
    pub problems: Vec<String>,
}

impl Detection {
    /// An empty detection for a vendor, to be filled in.
    pub fn new(vendor: &'static str, name: &'static str) -> Self {
        Self {
            vendor,
            name,
            present: false,
            driver_version: None,
            devices: Vec::new(),
            tools: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// The status of the tool called `name`, if it was checked.
    pub fn tool(&self, name: &str) -> Option<&ToolStatus> {
        self.tools.iter().find(|tool| tool.name == name)
    }
}

/// Whether a tool is a command-line program or a shared library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// An executable found on PATH or in a known install directory.
    Program,
    /// A shared library found in the loader's search path or a known directory.
    Library,
}

/// One tool's status: present with path and version, or absent with the exact install line.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolStatus {
    /// Tool name (`ncu`, `libcupti`).
    pub name: String,
    /// Program or library.
    pub kind: ToolKind,
    /// What prof uses it for (`kernel deep dive`).
    pub purpose: String,
    /// True when found.
    pub present: bool,
    /// Where it was found.
    pub path: Option<PathBuf>,
    /// Version it reports, where it does.
    pub version: Option<String>,
    /// The exact command that installs it (always set, so `--json` users can show it).
    pub install: String,
    /// Anything else worth saying (found but broken, found outside PATH).
    pub note: Option<String>,
}

impl ToolStatus {
    /// An absent tool with its install line.
    pub fn absent(name: &str, kind: ToolKind, purpose: &str, install: &str) -> Self {
        Self {
            name: name.to_owned(),
            kind,
            purpose: purpose.to_owned(),
            present: false,
            path: None,
            version: None,
            install: install.to_owned(),
            note: None,
        }
    }

    /// Marks the tool present at `path` with `version`.
    pub fn found(mut self, path: PathBuf, version: Option<String>) -> Self {
        self.present = true;
        self.path = Some(path);
        self.version = version;
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }
}
