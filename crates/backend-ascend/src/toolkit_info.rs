//! The CANN toolkit's `<arch>-linux/ascend_toolkit_install.info`: `key=value` lines
//! (`package_name=Ascend-cann-toolkit`, `version=8.0.T6`, `innerversion=…`, `arch=…`, `path=…`).
//!
//! msprof has no documented version option, and it ships inside the toolkit, so the toolkit's
//! `version=` is the version prof reports for it.

use crate::error::{quote, AscendError};
use std::path::{Path, PathBuf};

/// The name of the install info file inside `<toolkit root>/<arch>-linux/`.
pub const TOOLKIT_INFO_FILE: &str = "ascend_toolkit_install.info";

/// What the install info file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolkitInfo {
    /// `package_name=` (`Ascend-cann-toolkit`), where present.
    pub package_name: Option<String>,
    /// `version=` (`8.0.T6`, `8.3.RC2`).
    pub version: String,
    /// `innerversion=` (`V100R001C17B214`), where present.
    pub inner_version: Option<String>,
}

/// Parses the text of the install info file at `path` (used in error messages). Errors: a
/// non-blank line without `=`, no `version=` line, an empty version.
pub fn parse_toolkit_info(path: &Path, text: &str) -> Result<ToolkitInfo, AscendError> {
    let mut package_name = None;
    let mut version = None;
    let mut inner_version = None;
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(AscendError::file(path, index + 1, format!("expected `key=value`: {}", quote(raw))));
        };
        let value = value.trim().to_owned();
        match key.trim() {
            "package_name" => package_name = Some(value),
            "version" if value.is_empty() => return Err(AscendError::file(path, index + 1, "empty `version=`")),
            "version" => version = Some(value),
            "innerversion" => inner_version = Some(value),
            _ => {}
        }
    }
    let version = version.ok_or_else(|| AscendError::file(path, 0, "no `version=` line"))?;
    Ok(ToolkitInfo { package_name, version, inner_version })
}

/// Where the install info file of a toolkit rooted at `root` sits on this machine's
/// architecture (`<root>/x86_64-linux/ascend_toolkit_install.info`).
pub fn info_path(root: &Path) -> PathBuf {
    root.join(format!("{}-linux", std::env::consts::ARCH)).join(TOOLKIT_INFO_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::{fixture, TOOLKIT_INFO};

    #[test]
    fn recorded_cann_8_0_t6() {
        let info = parse_toolkit_info(Path::new(TOOLKIT_INFO), &fixture(TOOLKIT_INFO)).unwrap();
        assert_eq!(info.version, "8.0.T6");
        assert_eq!(info.package_name.as_deref(), Some("Ascend-cann-toolkit"));
        assert_eq!(info.inner_version.as_deref(), Some("V100R001C17B214"));
        let crlf = fixture(TOOLKIT_INFO).replace('\n', "\r\n");
        assert_eq!(parse_toolkit_info(Path::new(TOOLKIT_INFO), &crlf).unwrap(), info);
    }

    #[test]
    fn bad_files_name_the_file_and_line() {
        let path = Path::new("/x/ascend_toolkit_install.info");
        let text = fixture(TOOLKIT_INFO);
        let no_version: String =
            text.lines().filter(|l| !l.starts_with("version=")).map(|l| format!("{l}\n")).collect();
        let err = parse_toolkit_info(path, &no_version).unwrap_err().to_string();
        assert_eq!(err, "/x/ascend_toolkit_install.info: no `version=` line");
        let err = parse_toolkit_info(path, "package_name=Ascend-cann-toolkit\ngarbage\n").unwrap_err().to_string();
        assert!(err.starts_with("/x/ascend_toolkit_install.info:2: expected `key=value`"), "{err}");
        let err = parse_toolkit_info(path, "version=\n").unwrap_err().to_string();
        assert_eq!(err, "/x/ascend_toolkit_install.info:1: empty `version=`");
        assert!(parse_toolkit_info(path, "").is_err());
    }
}
