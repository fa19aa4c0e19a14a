//! The NVIDIA tool table: what prof looks for, where, what each is for, and the exact
//! line that installs it. Install lines live here and nowhere else.

use prof_core::tools::expand_versioned_dir;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

/// The version query (cached per installed file) and one-line messages, shared by all backends.
pub use prof_core::tools::{first_line, query_version};

/// The exact install line for each tool.
pub mod install {
    /// nvidia-smi and NVML ship with the driver.
    pub const DRIVER: &str =
        "sudo apt-get install -y nvidia-driver-580 (or your distribution's NVIDIA driver package; NVML ships with the driver)";
    /// Nsight Systems command line.
    pub const NSYS: &str = "sudo apt-get install -y nsight-systems-cli (from NVIDIA's CUDA apt repository)";
    /// Nsight Compute.
    pub const NCU: &str = "sudo apt-get install -y cuda-nsight-compute-13-0 (from NVIDIA's CUDA apt repository)";
    /// CUPTI, for the built-in kernel tracer.
    pub const CUPTI: &str = "sudo apt-get install -y cuda-cupti-13-0  (or: pip install nvidia-cuda-cupti)";
    /// prof's own tracer library.
    pub const TRACER: &str =
        "scripts/install.sh puts it next to prof (or set PROF_CUPTI_TRACER=/path/libprof_cupti.so)";
}

/// What each tool is for, as `prof detect` shows it.
pub mod purpose {
    /// nvidia-smi.
    pub const SMI: &str = "device list and utilization fallback";
    /// NVML.
    pub const NVML: &str = "utilization probe";
    /// nsys.
    pub const NSYS: &str = "kernel breakdown (nsys timeline)";
    /// ncu.
    pub const NCU: &str = "kernel deep dive";
    /// CUPTI.
    pub const CUPTI: &str = "kernel breakdown (built-in CUPTI tracer)";
    /// prof's tracer library.
    pub const TRACER: &str = "prof's CUPTI tracer, injected by `prof breakdown --tool cupti`";
}

/// Tool names as they appear in [`prof_core::Detection::tools`].
pub mod name {
    /// The SMI tool.
    pub const SMI: &str = "nvidia-smi";
    /// The management library.
    pub const NVML: &str = "nvml";
    /// Nsight Systems.
    pub const NSYS: &str = "nsys";
    /// Nsight Compute.
    pub const NCU: &str = "ncu";
    /// CUPTI.
    pub const CUPTI: &str = "libcupti";
    /// prof's tracer library.
    pub const TRACER: &str = "libprof_cupti.so";
}

/// Note on an nsys found inside Nsight Compute rather than Nsight Systems.
pub const NSYS_INSIDE_NCU_NOTE: &str =
    "this nsys ships inside Nsight Compute; this build may write only a .qdstrm, not a .nsys-rep report";

/// The CUDA toolkit's default prefix.
const CUDA_PREFIX: &str = "/usr/local/cuda";

/// How long a `--version` query may take.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(3);

/// Where `nsys` is looked for after `PATH`: the CUDA toolkit, Nsight Systems installs
/// (newest first), and last the copy inside Nsight Compute.
pub fn nsys_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![Path::new(CUDA_PREFIX).join("bin")];
    dirs.extend(newest_first("/opt/nvidia/nsight-systems/*/bin"));
    dirs.extend(newest_first("/opt/nvidia/nsight-compute/*/host/target-linux-x64"));
    dirs
}

/// Where `ncu` is looked for after `PATH`: the CUDA toolkit, then Nsight Compute installs.
pub fn ncu_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![Path::new(CUDA_PREFIX).join("bin")];
    dirs.extend(newest_first("/opt/nvidia/nsight-compute/*"));
    dirs
}

/// Where `libcupti.so` is looked for after `LD_LIBRARY_PATH`: under `cuda_home`
/// (`$CUDA_HOME`) first, then under the default toolkit prefix.
pub fn cupti_dirs(cuda_home: Option<&Path>) -> Vec<PathBuf> {
    const SUBDIRS: [&str; 3] = ["extras/CUPTI/lib64", "lib64", "targets/x86_64-linux/lib"];
    cuda_home
        .into_iter()
        .chain([Path::new(CUDA_PREFIX)])
        .flat_map(|home| SUBDIRS.iter().map(move |sub| home.join(sub)))
        .collect()
}

/// The note for an nsys at `path`, when it is the one bundled with Nsight Compute.
pub fn nsys_note(path: &Path) -> Option<&'static str> {
    let inside = |p: &Path| p.components().any(|c| c == Component::Normal("nsight-compute".as_ref()));
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    (inside(path) || inside(&canonical)).then_some(NSYS_INSIDE_NCU_NOTE)
}

fn newest_first(pattern: &str) -> Vec<PathBuf> {
    let mut dirs = expand_versioned_dir(pattern);
    dirs.reverse();
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cupti_dirs_prefer_cuda_home() {
        let dirs = cupti_dirs(Some(Path::new("/opt/cuda-13")));
        assert_eq!(dirs[0], Path::new("/opt/cuda-13/extras/CUPTI/lib64"));
        assert_eq!(dirs[1], Path::new("/opt/cuda-13/lib64"));
        assert_eq!(dirs[2], Path::new("/opt/cuda-13/targets/x86_64-linux/lib"));
        assert_eq!(dirs[4], Path::new("/usr/local/cuda/lib64"), "where the H200 keeps libcupti.so");
        assert_eq!(cupti_dirs(None).len(), 3);
    }

    #[test]
    fn nsys_inside_nsight_compute_gets_a_note() {
        let bundled = Path::new("/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys");
        assert_eq!(nsys_note(bundled), Some(NSYS_INSIDE_NCU_NOTE));
        assert_eq!(nsys_note(Path::new("/opt/nvidia/nsight-systems/2025.3.1/bin/nsys")), None);
    }
}
