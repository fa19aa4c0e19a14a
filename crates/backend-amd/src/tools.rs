//! The AMD tools prof looks for, their install lines, where ROCm puts them, and the exact
//! `rocm-smi` / `amd-smi` invocations detection replays (the ones with recorded output).

use prof_core::tools::{expand_versioned_dir, find_library, find_program, first_version, library_version};
use prof_core::{ToolKind, ToolStatus};
use std::path::{Path, PathBuf};

/// Install line of `rocm-smi` and `librocm_smi64` (package `rocm-smi-lib`).
pub const INSTALL_ROCM_SMI: &str = "sudo apt-get install -y rocm-smi-lib (from AMD's ROCm apt repository)";
/// Install line of `amd-smi` and `libamd_smi` (package `amd-smi-lib`).
pub const INSTALL_AMD_SMI: &str = "sudo apt-get install -y amd-smi-lib (from AMD's ROCm apt repository)";
/// Install line of `rocprofv3` (package `rocprofiler-sdk`).
pub const INSTALL_ROCPROFV3: &str = "sudo apt-get install -y rocprofiler-sdk (from AMD's ROCm apt repository)";
/// Install line of the legacy `rocprof` (package `rocprofiler`).
pub const INSTALL_ROCPROF: &str = "sudo apt-get install -y rocprofiler (from AMD's ROCm apt repository)";

/// `rocm-smi` arguments whose `--json` output is recorded (`telegraf_mi100_rocm571.json`): Telegraf's
/// `amd_rocm_smi` input runs exactly this list (`pollROCmSMI` in `amd_rocm_smi.go`).
pub const ROCM_SMI_JSON_ARGS: &[&str] = &[
    "-o",
    "-l",
    "-m",
    "-M",
    "-g",
    "-c",
    "-t",
    "-u",
    "-i",
    "-f",
    "-p",
    "-P",
    "-s",
    "-S",
    "-v",
    "--showreplaycount",
    "--showpids",
    "--showdriverversion",
    "--showmemvendor",
    "--showfwinfo",
    "--showproductname",
    "--showserial",
    "--showuniqueid",
    "--showbus",
    "--showpendingpages",
    "--showpagesinfo",
    "--showmeminfo",
    "all",
    "--showretiredpages",
    "--showunreservablepages",
    "--showmemuse",
    "--showvoltage",
    "--showtopo",
    "--showtopoweight",
    "--showtopohops",
    "--showtopotype",
    "--showtoponuma",
    "--json",
];

/// `amd-smi` arguments whose output is recorded (`amdsmi-changelog_monitor_ptumv.txt`).
pub const AMD_SMI_MONITOR_ARGS: &[&str] = &["monitor", "-ptumv"];

/// Why the version of a program is the ROCm install's: none of these programs has a recorded
/// `--version` output to parse.
const INSTALL_VERSION_NOTE: &str =
    "version is the ROCm install's; no recorded `--version` output of this tool to parse";

/// One tool prof checks for.
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    /// Program name or library file stem (`librocm_smi64.so`).
    pub name: &'static str,
    /// Name shown in [`ToolStatus::name`].
    pub display: &'static str,
    /// Program or library.
    pub kind: ToolKind,
    /// What prof uses it for.
    pub purpose: &'static str,
    /// The exact install line.
    pub install: &'static str,
}

/// `rocm-smi`.
pub const ROCM_SMI: ToolSpec = ToolSpec {
    name: "rocm-smi",
    display: "rocm-smi",
    kind: ToolKind::Program,
    purpose: "device list, driver version",
    install: INSTALL_ROCM_SMI,
};
/// `amd-smi`.
pub const AMD_SMI: ToolSpec = ToolSpec {
    name: "amd-smi",
    display: "amd-smi",
    kind: ToolKind::Program,
    purpose: "device list (successor of rocm-smi)",
    install: INSTALL_AMD_SMI,
};
/// The ROCm SMI library.
pub const LIB_ROCM_SMI: ToolSpec = ToolSpec {
    name: "librocm_smi64.so",
    display: "librocm_smi64",
    kind: ToolKind::Library,
    purpose: "ROCm SMI library (utilization probe)",
    install: INSTALL_ROCM_SMI,
};
/// The AMD SMI library.
pub const LIB_AMD_SMI: ToolSpec = ToolSpec {
    name: "libamd_smi.so",
    display: "libamd_smi",
    kind: ToolKind::Library,
    purpose: "AMD SMI library (utilization probe)",
    install: INSTALL_AMD_SMI,
};
/// `rocprofv3`.
pub const ROCPROFV3: ToolSpec = ToolSpec {
    name: "rocprofv3",
    display: "rocprofv3",
    kind: ToolKind::Program,
    purpose: "kernel breakdown and counter deep dive",
    install: INSTALL_ROCPROFV3,
};
/// The legacy `rocprof` (rocprofiler v1).
pub const ROCPROF: ToolSpec = ToolSpec {
    name: "rocprof",
    display: "rocprof",
    kind: ToolKind::Program,
    purpose: "legacy kernel breakdown (rocprofv3 preferred)",
    install: INSTALL_ROCPROF,
};

/// Where detection looks besides `PATH` and `LD_LIBRARY_PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchPaths {
    /// Program directories after `PATH`.
    pub program_dirs: Vec<PathBuf>,
    /// Library directories after `LD_LIBRARY_PATH`.
    pub library_dirs: Vec<PathBuf>,
}

impl SearchPaths {
    /// `/opt/rocm/{bin,lib}`, then each `/opt/rocm-X.Y.Z/{bin,lib}`, newest name first.
    pub fn rocm_default() -> Self {
        let versioned = |sub: &str| {
            let mut dirs = expand_versioned_dir(&format!("/opt/rocm-*/{sub}"));
            dirs.reverse();
            std::iter::once(PathBuf::from(format!("/opt/rocm/{sub}"))).chain(dirs).collect()
        };
        Self { program_dirs: versioned("bin"), library_dirs: versioned("lib") }
    }
}

/// Looks `spec` up (programs on `PATH` then `paths.program_dirs`, libraries in
/// `LD_LIBRARY_PATH` then `paths.library_dirs`). A program's version is its ROCm install's
/// ([`rocm_install_version`]); a library's is the one its file name carries.
pub fn locate(spec: &ToolSpec, paths: &SearchPaths) -> ToolStatus {
    let absent = ToolStatus::absent(spec.display, spec.kind, spec.purpose, spec.install);
    match spec.kind {
        ToolKind::Program => match find_program(spec.name, &paths.program_dirs) {
            None => absent,
            Some(path) => match rocm_install_version(&path) {
                Some(version) => absent.found(path, Some(version)).with_note(INSTALL_VERSION_NOTE),
                None => absent.found(path, None),
            },
        },
        ToolKind::Library => match find_library(spec.name, &paths.library_dirs) {
            None => absent,
            Some((path, resolved)) => {
                let version = library_version(&resolved);
                absent.found(path, version).with_note("found by file, not loaded")
            }
        },
    }
}

/// The version of the ROCm install a program at `<root>/bin/<name>` belongs to: the first
/// dotted number of `<root>/.info/version`, else of the root's name (`/opt/rocm-6.2.0`).
/// Symlinks are followed first, so `/opt/rocm/bin` resolves to its versioned directory.
pub fn rocm_install_version(program: &Path) -> Option<String> {
    let program = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
    let bin = program.parent()?;
    if bin.file_name()? != "bin" {
        return None;
    }
    let root = bin.parent()?;
    if let Some(version) = std::fs::read_to_string(root.join(".info/version")).ok().and_then(|t| first_version(&t)) {
        return Some(version);
    }
    let name = root.file_name()?.to_string_lossy();
    name.starts_with("rocm").then(|| first_version(&name)).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::TempDir;

    #[test]
    fn install_version_from_info_file_then_directory_name() {
        let tmp = TempDir::new("install-version");
        let versioned = tmp.program("rocm-6.3.1/bin/rocprofv3", "#!/bin/sh\n");
        assert_eq!(rocm_install_version(&versioned).as_deref(), Some("6.3.1"));
        let plain = tmp.program("rocm/bin/rocprofv3", "#!/bin/sh\n");
        assert_eq!(rocm_install_version(&plain), None, "no .info/version and no version in the name");
        tmp.file("rocm/.info/version", "7.1.1-38\n");
        assert_eq!(rocm_install_version(&plain).as_deref(), Some("7.1.1"));
        let elsewhere = tmp.program("usr/bin/rocprofv3", "#!/bin/sh\n");
        assert_eq!(rocm_install_version(&elsewhere), None);
    }

    #[test]
    fn locate_reports_programs_and_libraries_with_install_lines() {
        let tmp = TempDir::new("locate");
        tmp.program("rocm-6.2.0/bin/rocprofv3", "#!/bin/sh\n");
        tmp.file("rocm-6.2.0/lib/librocm_smi64.so.7.3.0", "");
        let paths = SearchPaths {
            program_dirs: vec![tmp.path().join("rocm-6.2.0/bin")],
            library_dirs: vec![tmp.path().join("rocm-6.2.0/lib")],
        };
        let rocprofv3 = locate(&ROCPROFV3, &paths);
        assert!(rocprofv3.present);
        assert_eq!(rocprofv3.version.as_deref(), Some("6.2.0"));
        assert!(rocprofv3.note.as_deref().unwrap().contains("ROCm install"));
        let lib = locate(&LIB_ROCM_SMI, &paths);
        assert_eq!((lib.present, lib.kind, lib.version.as_deref()), (true, ToolKind::Library, Some("7.3.0")));
        let missing = locate(&LIB_AMD_SMI, &paths);
        assert!(!missing.present);
        assert_eq!(missing.install, INSTALL_AMD_SMI);
    }
}
