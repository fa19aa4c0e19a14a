//! The ROCm SMI library (`librocm_smi64`), loaded at run time with libloading: the first
//! utilization probe the AMD backend tries, ahead of amdgpu sysfs and the SMI tools, because it
//! reads every value with a library call instead of a file walk or a process per sample.
//!
//! The library is `$PROF_ROCM_SMI_LIBRARY` when set (tests point it at a fake or at a missing
//! file), else the `librocm_smi64.so*` file found in `LD_LIBRARY_PATH` and the ROCm library
//! directories, else the plain soname for the dynamic loader to find. When it cannot be used,
//! the next probe runs and its source carries a note saying why ([`NotedProbe`]).

pub mod ffi;
pub mod frequencies;
pub mod probe;
pub mod status;

pub use probe::RsmiProbe;

use crate::tools::{self, SearchPaths};
use prof_core::{DeviceInfo, DeviceSample, Result, ToolStatus, UtilizationProbe};
use std::ffi::OsString;

/// The soname tried when no file is found and no override is set.
pub const DEFAULT_LIBRARY: &str = "librocm_smi64.so";

/// Environment variable naming the ROCm SMI library to load instead of searching for it.
pub const LIBRARY_ENV: &str = "PROF_ROCM_SMI_LIBRARY";

/// Where the library to load came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LibraryChoice {
    /// `$PROF_ROCM_SMI_LIBRARY`.
    Override(OsString),
    /// A `librocm_smi64.so*` file found in the search directories.
    Found(OsString),
    /// Nothing found: [`DEFAULT_LIBRARY`], for the dynamic loader's own search.
    Soname,
}

impl LibraryChoice {
    /// The name or path handed to the loader.
    pub fn library(&self) -> OsString {
        match self {
            LibraryChoice::Override(library) | LibraryChoice::Found(library) => library.clone(),
            LibraryChoice::Soname => DEFAULT_LIBRARY.into(),
        }
    }
}

/// The library to load under `paths`: the override, else the file found, else the soname.
pub fn choose_library(paths: &SearchPaths) -> LibraryChoice {
    if let Some(library) = std::env::var_os(LIBRARY_ENV).filter(|v| !v.is_empty()) {
        return LibraryChoice::Override(library);
    }
    match prof_core::tools::find_library(tools::LIB_ROCM_SMI.name, &paths.library_dirs) {
        Some((path, _)) => LibraryChoice::Found(path.into_os_string()),
        None => LibraryChoice::Soname,
    }
}

/// How long loading and initialising the library may take before prof gives up on it.
pub const INIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// Overrides [`INIT_TIMEOUT`], in milliseconds (a node whose driver is slow to answer).
pub const INIT_TIMEOUT_ENV: &str = "PROF_RSMI_INIT_TIMEOUT_MS";

/// Opens the ROCm SMI probe on the library [`choose_library`] picks, giving up after
/// [`INIT_TIMEOUT`]: `rsmi_init` talks to the driver and can hang on a wedged GPU. A call that
/// does not return is left on its own thread (a library call cannot be interrupted), and the
/// caller falls back to the next probe with the reason.
pub fn open(paths: &SearchPaths) -> std::result::Result<RsmiProbe, String> {
    let library = choose_library(paths).library();
    let timeout = std::env::var(INIT_TIMEOUT_ENV)
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(INIT_TIMEOUT, std::time::Duration::from_millis);
    let (send, receive) = std::sync::mpsc::channel();
    let opening = library.clone();
    let spawned = std::thread::Builder::new().name("rsmi-init".to_owned()).spawn(move || {
        // The receiver is gone after a timeout: the probe is then dropped (shut down) here.
        let _ = send.send(RsmiProbe::open(&opening));
    });
    if let Err(e) = spawned {
        return Err(format!("cannot start a thread to open the ROCm SMI library: {e}"));
    }
    receive.recv_timeout(timeout).unwrap_or_else(|_| {
        Err(format!(
            "ROCm SMI library {}: rsmi_init did not return within {} ms (a hung driver or GPU?); set {INIT_TIMEOUT_ENV} \
             to wait longer",
            std::path::Path::new(&library).display(),
            timeout.as_millis()
        ))
    })
}

/// Detection's row for `librocm_smi64`: the file search of [`tools::locate`], then, when there
/// is a library to try (the override or a found file), a load of it reporting its path and
/// `rsmi_version_get`, or why it cannot be used.
pub fn library_status(paths: &SearchPaths) -> ToolStatus {
    let located = tools::locate(&tools::LIB_ROCM_SMI, paths);
    let library = match choose_library(paths) {
        LibraryChoice::Soname => return located,
        LibraryChoice::Found(library) => library,
        LibraryChoice::Override(library) => library,
    };
    let spec = &tools::LIB_ROCM_SMI;
    let absent = ToolStatus::absent(spec.display, spec.kind, spec.purpose, spec.install);
    let path = std::path::PathBuf::from(&library);
    match ffi::RsmiApi::load(&library) {
        Ok(api) => match api.version() {
            Some((version, build)) => {
                let note = match build {
                    Some(build) => format!("loaded; version from rsmi_version_get (build {build})"),
                    None => "loaded; version from rsmi_version_get".to_owned(),
                };
                absent.found(path, Some(version)).with_note(note)
            }
            None => absent.found(path, located.version).with_note("loaded; rsmi_version_get gave no version"),
        },
        Err(reason) if path.exists() => absent.found(path, located.version).with_note(reason),
        Err(reason) => absent.with_note(reason),
    }
}

/// A fallback probe whose source also says why the preferred one was not used.
pub struct NotedProbe {
    inner: Box<dyn UtilizationProbe>,
    note: String,
}

impl NotedProbe {
    /// Wraps `inner`, adding `note` to its source.
    pub fn new(inner: Box<dyn UtilizationProbe>, note: String) -> Self {
        Self { inner, note }
    }
}

impl UtilizationProbe for NotedProbe {
    fn source(&self) -> String {
        format!("{}; ROCm SMI library not used: {}", self.inner.source(), self.note)
    }

    fn devices(&self) -> Result<Vec<DeviceInfo>> {
        self.inner.devices()
    }

    fn sample(&mut self) -> Result<Vec<DeviceSample>> {
        self.inner.sample()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_is_an_error_naming_it() {
        let err = RsmiProbe::open(std::ffi::OsStr::new("/nonexistent/librocm_smi64.so")).err().unwrap();
        assert!(err.starts_with("ROCm SMI library /nonexistent/librocm_smi64.so could not be loaded: "), "{err}");
    }

    #[test]
    fn a_library_without_the_symbols_names_the_first_missing_one() {
        let err = RsmiProbe::open(std::ffi::OsStr::new("libc.so.6")).err().unwrap();
        assert!(err.starts_with("ROCm SMI library libc.so.6 lacks the symbol `rsmi_init`: "), "{err}");
    }
}
