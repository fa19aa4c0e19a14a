//! Where the Ascend tools live and how to install them: `npu-smi` and the DCMI library from
//! the NPU driver package, `msprof` from the CANN toolkit.
//!
//! Layouts, from Huawei's docs and real install trees: the driver puts `npu-smi` in
//! `/usr/local/sbin` (tools also in `/usr/local/Ascend/driver/tools`) and `libdcmi.so` in
//! `/usr/local/Ascend/driver/lib64/driver` (or `/usr/local/dcmi`); CANN up to 8.3 installs
//! to `/usr/local/Ascend/ascend-toolkit/<version>` with a `latest` link, CANN 8.5 and later to
//! `/usr/local/Ascend/cann-<version>` with a `cann` link; `set_env.sh` exports
//! `ASCEND_TOOLKIT_HOME` and `ASCEND_HOME_PATH` as that root. msprof sits in
//! `<root>/tools/profiler/bin`, linked from `<root>/bin`.

use crate::toolkit_info::info_path;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The SMI tool's program name.
pub const NPU_SMI: &str = "npu-smi";
/// The profiler's program name.
pub const MSPROF: &str = "msprof";
/// The DCMI management library's file name (found by file, never loaded during detection).
pub const DCMI_LIBRARY: &str = "libdcmi.so";

/// Installs the NPU driver, which brings `npu-smi` and `libdcmi.so` (Huawei's driver guide).
pub const DRIVER_INSTALL: &str =
    "install the Ascend NPU driver: ./Ascend-hdk-<chip_type>-npu-driver_<version>_linux-<arch>.run --full --install-for-all";
/// Installs the CANN toolkit, which brings `msprof` (Huawei's CANN quick install; from CANN 8.5
/// on the environment script is `/usr/local/Ascend/cann/set_env.sh`).
pub const TOOLKIT_INSTALL: &str =
    "install the CANN toolkit: ./Ascend-cann-toolkit_<version>_linux-<arch>.run --install \
     && source /usr/local/Ascend/ascend-toolkit/set_env.sh";

/// How long one tool query may run before it is stopped and reported as a problem.
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(3);

/// Where detection looks, beyond `PATH` and `LD_LIBRARY_PATH`.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPaths {
    /// Directories searched for `npu-smi` after `PATH`.
    pub npu_smi_dirs: Vec<PathBuf>,
    /// Directories searched for `libdcmi.so` after `LD_LIBRARY_PATH`.
    pub dcmi_dirs: Vec<PathBuf>,
    /// Directories searched for `msprof` after `PATH`.
    pub msprof_dirs: Vec<PathBuf>,
    /// CANN toolkit roots whose `<arch>-linux/ascend_toolkit_install.info` may give msprof's version.
    pub toolkit_roots: Vec<PathBuf>,
    /// Limit for each tool query.
    pub timeout: Duration,
}

impl SearchPaths {
    /// The standard install locations, with `$ASCEND_TOOLKIT_HOME` and `$ASCEND_HOME_PATH`
    /// (set by `set_env.sh`) first, and the newest `cann-<version>` directory before older ones.
    pub fn from_env() -> Self {
        let mut toolkit_roots: Vec<PathBuf> = ["ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH"]
            .iter()
            .filter_map(std::env::var_os)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
            .collect();
        toolkit_roots.push(PathBuf::from("/usr/local/Ascend/ascend-toolkit/latest"));
        toolkit_roots.push(PathBuf::from("/usr/local/Ascend/cann"));
        toolkit_roots.extend(prof_core::tools::expand_versioned_dir("/usr/local/Ascend/cann-*").into_iter().rev());
        toolkit_roots.dedup();
        Self::with_toolkit_roots(toolkit_roots)
    }

    /// The standard driver locations with the given toolkit roots.
    pub fn with_toolkit_roots(toolkit_roots: Vec<PathBuf>) -> Self {
        let msprof_dirs =
            toolkit_roots.iter().flat_map(|root| [root.join("tools/profiler/bin"), root.join("bin")]).collect();
        Self {
            npu_smi_dirs: vec![PathBuf::from("/usr/local/sbin"), PathBuf::from("/usr/local/Ascend/driver/tools")],
            dcmi_dirs: vec![PathBuf::from("/usr/local/Ascend/driver/lib64/driver"), PathBuf::from("/usr/local/dcmi")],
            msprof_dirs,
            toolkit_roots,
            timeout: QUERY_TIMEOUT,
        }
    }
}

impl Default for SearchPaths {
    fn default() -> Self {
        Self::from_env()
    }
}

/// The install info file of the toolkit `msprof` belongs to: first under the directories
/// above msprof (as found and with links resolved), then under each of `roots`.
pub fn find_toolkit_info(msprof: &Path, roots: &[PathBuf]) -> Option<PathBuf> {
    let resolved = std::fs::canonicalize(msprof).ok();
    let above: Vec<PathBuf> = std::iter::once(msprof)
        .chain(resolved.as_deref())
        .flat_map(|path| path.ancestors().skip(1).take(4).map(Path::to_path_buf))
        .collect();
    above.iter().chain(roots).map(|root| info_path(root)).find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msprof_dirs_follow_the_toolkit_roots() {
        let paths = SearchPaths::with_toolkit_roots(vec![PathBuf::from("/opt/cann")]);
        assert_eq!(paths.msprof_dirs, [PathBuf::from("/opt/cann/tools/profiler/bin"), PathBuf::from("/opt/cann/bin")]);
        assert_eq!(paths.npu_smi_dirs[0], PathBuf::from("/usr/local/sbin"));
        assert_eq!(paths.timeout, QUERY_TIMEOUT);
    }

    #[test]
    fn toolkit_info_is_found_above_msprof() {
        let root = std::env::temp_dir().join(format!("prof-ascend-tools-{}", std::process::id()));
        let bin = root.join("tools/profiler/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let msprof = bin.join(MSPROF);
        std::fs::write(&msprof, "").unwrap();
        assert_eq!(find_toolkit_info(&msprof, &[]), None);
        let info = info_path(&root);
        std::fs::create_dir_all(info.parent().unwrap()).unwrap();
        std::fs::write(&info, "version=8.0.T6\n").unwrap();
        assert_eq!(find_toolkit_info(&msprof, &[]).and_then(|p| p.canonicalize().ok()), info.canonicalize().ok());
        assert_eq!(find_toolkit_info(Path::new("/nonexistent/msprof"), std::slice::from_ref(&root)), Some(info));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
