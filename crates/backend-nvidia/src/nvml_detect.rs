//! Detection's view of NVML: can `libnvidia-ml.so.1` be loaded, which version is it, and
//! which devices does it see (used when nvidia-smi is absent or unreadable).
//!
//! The library is loaded at run time, never linked, so the binary starts on any host.
//! NVML calls run on their own thread with a time limit, so a wedged driver cannot hang
//! `prof detect`.

use nvml_wrapper::Nvml;
use prof_core::DeviceInfo;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// The NVML library detection loads by default (the driver's runtime soname; the
/// unversioned `libnvidia-ml.so` needs the development package).
pub const DEFAULT_LIBRARY: &str = "libnvidia-ml.so.1";

/// Environment variable naming an NVML library path to load instead of [`DEFAULT_LIBRARY`]
/// (tests point it at a missing file to force "absent").
pub const LIBRARY_ENV: &str = "PROF_NVML_LIBRARY";

/// How long NVML may take to load, initialise and list devices.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// What detection learned from NVML.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NvmlFindings {
    /// The library name or path that was tried.
    pub library: String,
    /// True when the library could be loaded.
    pub loaded: bool,
    /// The file the loader mapped, where it can be found.
    pub path: Option<PathBuf>,
    /// Why loading failed (the loader's message).
    pub load_error: Option<String>,
    /// `nvmlSystemGetNVMLVersion` (`13.580.159.04`).
    pub nvml_version: Option<String>,
    /// `nvmlSystemGetDriverVersion` (`580.159.04`).
    pub driver_version: Option<String>,
    /// Devices NVML lists.
    pub devices: Vec<DeviceInfo>,
    /// Failures after a successful load (init failed, a device could not be read, time-out).
    pub problems: Vec<String>,
}

/// The library to load: `$PROF_NVML_LIBRARY` when set and non-empty, else [`DEFAULT_LIBRARY`].
pub fn library_name() -> OsString {
    std::env::var_os(LIBRARY_ENV).filter(|v| !v.is_empty()).unwrap_or_else(|| DEFAULT_LIBRARY.into())
}

/// Loads [`library_name`] and reads NVML, within [`TIMEOUT`].
pub fn probe() -> NvmlFindings {
    probe_library(library_name(), TIMEOUT)
}

/// Loads `library` and reads NVML on a helper thread; past `timeout` the thread is
/// abandoned and a problem is reported instead.
pub fn probe_library(library: OsString, timeout: Duration) -> NvmlFindings {
    let label = library.to_string_lossy().into_owned();
    let (sender, receiver) = mpsc::channel();
    let spawned = std::thread::Builder::new().name("prof-nvml-detect".into()).spawn(move || {
        let _ = sender.send(read_nvml(&library));
    });
    let unanswered =
        |problem: String| NvmlFindings { library: label.clone(), problems: vec![problem], ..Default::default() };
    if let Err(e) = spawned {
        return unanswered(format!("NVML ({label}): could not start a thread to load it: {e}"));
    }
    receiver.recv_timeout(timeout).unwrap_or_else(|_| {
        unanswered(format!("NVML ({label}) did not answer within {timeout:?}; its devices are not reported"))
    })
}

fn read_nvml(library: &OsStr) -> NvmlFindings {
    let mut found = NvmlFindings { library: library.to_string_lossy().into_owned(), ..Default::default() };
    // SAFETY: loading NVML runs the vendor library's initialisers, as nvml-wrapper's own load does;
    // no symbol is called through this handle, it only tells whether the library loads.
    let handle = match unsafe { libloading::Library::new(library) } {
        Ok(handle) => handle,
        Err(e) => {
            found.load_error = Some(e.to_string());
            return found;
        }
    };
    found.loaded = true;
    found.path = mapped_path(library);
    match Nvml::builder().lib_path(library).init() {
        Ok(nvml) => read_devices(&nvml, &mut found),
        Err(e) => found.problems.push(format!("NVML ({}) loaded, but nvmlInit failed: {e}", found.library)),
    }
    drop(handle);
    found
}

fn read_devices(nvml: &Nvml, found: &mut NvmlFindings) {
    found.nvml_version = nvml.sys_nvml_version().ok();
    found.driver_version = nvml.sys_driver_version().ok();
    let count = match nvml.device_count() {
        Ok(count) => count,
        Err(e) => {
            found.problems.push(format!("NVML: nvmlDeviceGetCount failed: {e}"));
            return;
        }
    };
    for index in 0..count {
        let device = match nvml.device_by_index(index) {
            Ok(device) => device,
            Err(e) => {
                found.problems.push(format!("NVML: device {index} could not be opened: {e}"));
                continue;
            }
        };
        let name = match device.name() {
            Ok(name) => name,
            Err(e) => {
                found.problems.push(format!("NVML: device {index} has no name: {e}"));
                continue;
            }
        };
        found.devices.push(DeviceInfo {
            index,
            name,
            uuid: device.uuid().ok(),
            bus_id: device.pci_info().ok().map(|pci| pci.bus_id),
            memory_total_mib: device.memory_info().ok().map(|memory| memory.total / (1024 * 1024)),
            architecture: device.cuda_compute_capability().ok().map(|cc| format!("{}.{}", cc.major, cc.minor)),
        });
    }
}

/// The file the dynamic loader mapped for `library`: the canonical path of an explicit
/// path, else the first `/proc/self/maps` entry whose file name starts with the soname's stem.
fn mapped_path(library: &OsStr) -> Option<PathBuf> {
    let requested = Path::new(library);
    if requested.components().count() > 1 {
        return std::fs::canonicalize(requested).ok();
    }
    let name = requested.to_string_lossy();
    let stem = name.split_once(".so").map(|(stem, _)| format!("{stem}.so")).unwrap_or_else(|| name.into_owned());
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .map(PathBuf::from)
        .find(|path| path.file_name().map(|f| f.to_string_lossy().starts_with(&stem)).unwrap_or(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_library_is_absent_with_the_loader_message() {
        let found = probe_library("/nonexistent/libnvidia-ml.so.1".into(), TIMEOUT);
        assert!(!found.loaded);
        assert_eq!(found.library, "/nonexistent/libnvidia-ml.so.1");
        assert!(
            found.load_error.as_deref().unwrap_or_default().contains("/nonexistent/libnvidia-ml.so.1"),
            "{found:?}"
        );
        assert!(found.devices.is_empty() && found.problems.is_empty());
    }

    #[test]
    fn mapped_path_finds_a_loaded_library() {
        let libc = mapped_path(OsStr::new("libc.so.6")).expect("libc is mapped into every test process");
        assert!(libc.file_name().unwrap().to_string_lossy().starts_with("libc.so"), "{libc:?}");
    }
}
