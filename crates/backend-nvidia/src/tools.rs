//! The NVIDIA tool table: what prof looks for, where, what each is for, and the exact
//! line that installs it. Install lines live here and nowhere else.

use prof_core::tools::{expand_versioned_dir, first_version, run_tool};
use prof_core::Error;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

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

/// Runs `program --version` within `timeout` and returns the first dotted version it prints.
/// The error is a one-line problem naming the tool (`ncu --version did not answer within 3s`).
pub fn query_version(tool: &str, program: &Path, timeout: Duration) -> Result<String, String> {
    let output = run_tool(program, ["--version"], timeout).map_err(|e| match e {
        Error::TimedOut { limit, .. } => format!("{tool} --version did not answer within {limit:?}; version unknown"),
        other => format!("{tool} --version: {other}"),
    })?;
    let text = format!("{}{}", output.stdout, output.stderr);
    if !output.success() {
        let status = output.code.map(|c| format!("status {c}")).unwrap_or_else(|| "a signal".to_owned());
        return Err(format!("{tool} --version exited with {status}: {}", first_line(&text)));
    }
    first_version(&output.stdout).ok_or_else(|| {
        Error::tool_output(format!("{tool} --version"), 1, format!("no version number in `{}`", first_line(&text)))
            .to_string()
    })
}

/// The first non-empty line of `text`, trimmed, for one-line messages.
pub fn first_line(text: &str) -> &str {
    text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("(no output)")
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

    #[test]
    fn version_queries() {
        let dir = std::env::temp_dir().join(format!("prof-nvidia-tools-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let script = |name: &str, body: &str| {
            let path = dir.join(name);
            std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
            path
        };
        let recorded = script("nsys", "echo 'NVIDIA Nsight Systems version 2025.3.1.0'");
        assert_eq!(query_version("nsys", &recorded, VERSION_TIMEOUT).as_deref(), Ok("2025.3.1.0"));
        let silent = script("noversion", "echo 'no version here'");
        let err = query_version("noversion", &silent, VERSION_TIMEOUT).unwrap_err();
        assert_eq!(err, "noversion --version: unexpected output at line 1: no version number in `no version here`");
        let failing = script("failing", "echo 'unknown option' >&2; exit 3");
        let err = query_version("failing", &failing, VERSION_TIMEOUT).unwrap_err();
        assert_eq!(err, "failing --version exited with status 3: unknown option");
        let hanging = script("hanging", "sleep 30");
        let err = query_version("hanging", &hanging, Duration::from_millis(300)).unwrap_err();
        assert_eq!(err, "hanging --version did not answer within 300ms; version unknown");
        std::fs::remove_dir_all(&dir).unwrap();
        let err = query_version("missing", Path::new("/nonexistent/ncu"), VERSION_TIMEOUT).unwrap_err();
        assert!(err.starts_with("missing --version: could not start /nonexistent/ncu"), "{err}");
    }
}
