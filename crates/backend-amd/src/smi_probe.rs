//! The utilization probe that runs an SMI tool per sample: `rocm-smi` with Telegraf's flag list
//! and `--json` where that works, else `amd-smi monitor -ptumv`, else the plain `rocm-smi`
//! table (the invocations whose output is recorded). A process per sample, and `rocm-smi`'s
//! long flag list is slow, so the recorder may miss ticks at short intervals; it says so.

use crate::smi_sample::{self, SampledDevice};
use crate::tools::{self, SearchPaths, AMD_SMI_MONITOR_ARGS, ROCM_SMI_JSON_ARGS};
use crate::{amd_smi, rocm_smi_concise, AmdError};
use prof_core::tools::{find_program, run_tool};
use prof_core::{DeviceInfo, DeviceSample, Error, Result, UtilizationProbe};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long one SMI run may take.
pub const SAMPLE_TIMEOUT: Duration = Duration::from_secs(10);

/// Which recorded invocation the probe replays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmiQuery {
    /// `rocm-smi` with [`ROCM_SMI_JSON_ARGS`].
    RocmSmiJson,
    /// `amd-smi monitor -ptumv`.
    AmdSmiMonitor,
    /// Plain `rocm-smi`.
    RocmSmiTable,
}

impl SmiQuery {
    /// The invocation as reports and errors name it.
    pub fn tool(self) -> &'static str {
        match self {
            SmiQuery::RocmSmiJson => "rocm-smi --json",
            SmiQuery::AmdSmiMonitor => "amd-smi monitor -ptumv",
            SmiQuery::RocmSmiTable => "rocm-smi",
        }
    }

    fn args(self) -> &'static [&'static str] {
        match self {
            SmiQuery::RocmSmiJson => ROCM_SMI_JSON_ARGS,
            SmiQuery::AmdSmiMonitor => AMD_SMI_MONITOR_ARGS,
            SmiQuery::RocmSmiTable => &[],
        }
    }

    fn parse(self, text: &str) -> std::result::Result<Vec<SampledDevice>, AmdError> {
        let tool = self.tool();
        match self {
            SmiQuery::RocmSmiJson => smi_sample::rocm_json_samples(tool, text),
            SmiQuery::AmdSmiMonitor => smi_sample::monitor_samples(tool, &amd_smi::parse(tool, text)?),
            SmiQuery::RocmSmiTable => smi_sample::concise_samples(tool, &rocm_smi_concise::parse(tool, text)?),
        }
    }
}

/// Samples every AMD GPU by running one SMI invocation.
pub struct AmdSmiProbe {
    program: PathBuf,
    query: SmiQuery,
    devices: Vec<DeviceInfo>,
}

impl AmdSmiProbe {
    /// Finds `rocm-smi` / `amd-smi` (on `PATH`, then `paths`) and keeps the first invocation that
    /// runs and parses with at least one GPU. Fails with the install line when neither tool
    /// exists, or with each invocation's failure.
    pub fn open(paths: &SearchPaths) -> Result<Self> {
        let rocm_smi = find_program(tools::ROCM_SMI.name, &paths.program_dirs);
        let amd_smi = find_program(tools::AMD_SMI.name, &paths.program_dirs);
        if rocm_smi.is_none() && amd_smi.is_none() {
            return Err(Error::ToolMissing {
                tool: "rocm-smi or amd-smi".to_owned(),
                install: tools::INSTALL_ROCM_SMI.to_owned(),
            });
        }
        let candidates = [
            (rocm_smi.as_ref(), SmiQuery::RocmSmiJson),
            (amd_smi.as_ref(), SmiQuery::AmdSmiMonitor),
            (rocm_smi.as_ref(), SmiQuery::RocmSmiTable),
        ];
        let mut failures = Vec::new();
        for (program, query) in candidates {
            let Some(program) = program else { continue };
            match read(program, query) {
                Ok(devices) if !devices.is_empty() => {
                    let devices = devices.into_iter().map(|(info, _)| info).collect();
                    return Ok(Self { program: program.clone(), query, devices });
                }
                Ok(_) => failures.push(format!("{} listed no GPU", query.tool())),
                Err(error) => failures.push(error.to_string()),
            }
        }
        Err(Error::Unsupported(format!("no AMD SMI query gave samples: {}", failures.join("; "))))
    }

    /// The invocation this probe replays.
    #[cfg(test)]
    pub fn query(&self) -> SmiQuery {
        self.query
    }
}

fn read(program: &Path, query: SmiQuery) -> Result<Vec<SampledDevice>> {
    let output = run_tool(program, query.args(), SAMPLE_TIMEOUT)?;
    match query.parse(&output.stdout) {
        Ok(devices) => Ok(devices),
        Err(_) if !output.success() => {
            let said = output.stderr.lines().chain(output.stdout.lines()).find(|l| !l.trim().is_empty());
            let reason = format!("exited with {:?}: {}", output.code, said.unwrap_or("no output").trim());
            Err(Error::tool_output(query.tool(), 1, reason))
        }
        Err(error) => Err(error.into()),
    }
}

impl UtilizationProbe for AmdSmiProbe {
    fn source(&self) -> String {
        format!("{} ({})", self.query.tool(), self.program.display())
    }

    fn devices(&self) -> Result<Vec<DeviceInfo>> {
        Ok(self.devices.clone())
    }

    fn sample(&mut self) -> Result<Vec<DeviceSample>> {
        Ok(read(&self.program, self.query)?.into_iter().map(|(_, sample)| sample).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::{fixture_path, TempDir};

    fn paths(tmp: &TempDir) -> SearchPaths {
        SearchPaths { program_dirs: vec![tmp.path().join("bin")], library_dirs: Vec::new() }
    }

    fn replay(file: &str) -> String {
        format!("#!/usr/bin/env bash\ncat '{}'\n", fixture_path(file).display())
    }

    #[test]
    fn json_first_then_samples_with_the_recorded_values() {
        let tmp = TempDir::new("smi-probe-json");
        tmp.program("bin/rocm-smi", &replay("smi/telegraf_mi100_rocm571.json"));
        let mut probe = AmdSmiProbe::open(&paths(&tmp)).unwrap();
        assert_eq!(probe.query(), SmiQuery::RocmSmiJson);
        assert!(probe.source().starts_with("rocm-smi --json ("), "{}", probe.source());
        assert_eq!(probe.devices().unwrap().len(), 6);
        let samples = probe.sample().unwrap();
        assert_eq!(samples[5].power_w, Some(40.0), "card5 Average Graphics Package Power (W)");
    }

    #[test]
    fn amd_smi_when_rocm_smi_json_fails_then_the_table() {
        let tmp = TempDir::new("smi-probe-fallback");
        let table = fixture_path("smi/rocm-smi_concise_mi300a.txt");
        let script = format!("#!/usr/bin/env bash\nif [ $# -eq 0 ]; then cat '{}'; else exit 2; fi\n", table.display());
        tmp.program("bin/rocm-smi", &script);
        tmp.program("bin/amd-smi", &replay("smi/amdsmi-changelog_monitor_ptumv.txt"));
        let probe = AmdSmiProbe::open(&paths(&tmp)).unwrap();
        assert_eq!((probe.query(), probe.devices().unwrap().len()), (SmiQuery::AmdSmiMonitor, 8));
        std::fs::remove_file(tmp.path().join("bin/amd-smi")).unwrap();
        let mut probe = AmdSmiProbe::open(&paths(&tmp)).unwrap();
        assert_eq!(probe.query(), SmiQuery::RocmSmiTable);
        assert_eq!(probe.sample().unwrap()[1].temperature_c, Some(53.0));
    }

    #[test]
    fn nothing_installed_names_the_install_line_and_garbage_each_failure() {
        let tmp = TempDir::new("smi-probe-none");
        let err = AmdSmiProbe::open(&paths(&tmp)).err().unwrap().to_string();
        assert_eq!(err, format!("rocm-smi or amd-smi is not installed: {}", tools::INSTALL_ROCM_SMI));
        tmp.program("bin/rocm-smi", "#!/usr/bin/env bash\necho 'Segmentation fault'\n");
        let err = AmdSmiProbe::open(&paths(&tmp)).err().unwrap().to_string();
        assert!(
            err.starts_with("no AMD SMI query gave samples: rocm-smi --json: unexpected output at line 1"),
            "{err}"
        );
        assert!(err.contains("; rocm-smi: unexpected output at line 1"), "{err}");
    }
}
