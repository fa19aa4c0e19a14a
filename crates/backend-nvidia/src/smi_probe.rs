//! The utilization fallback where NVML cannot be loaded but `nvidia-smi` exists: one
//! `nvidia-smi -q -x` run per sample, parsed by [`crate::smi_xml`]. Slower than NVML
//! (a process per sample), so the recorder may miss ticks at short intervals; it says so.

use crate::smi_xml::{parse_smi_xml, XML_ARGS, XML_TOOL};
use crate::tools::{install, name};
use prof_core::tools::{find_program, run_tool};
use prof_core::{DeviceInfo, DeviceSample, Error, Result, UtilizationProbe};
use std::path::PathBuf;
use std::time::Duration;

/// How long one `nvidia-smi -q -x` may take.
pub const SAMPLE_TIMEOUT: Duration = Duration::from_secs(10);

/// Samples every GPU by running `nvidia-smi -q -x`.
pub struct SmiProbe {
    program: PathBuf,
    devices: Vec<DeviceInfo>,
}

impl SmiProbe {
    /// Finds `nvidia-smi` on PATH and reads the device list once; fails with the install
    /// line when it is absent, or with the parse error when its output is not a report.
    pub fn open() -> Result<Self> {
        let program = find_program(name::SMI, &[])
            .ok_or_else(|| Error::ToolMissing { tool: name::SMI.to_owned(), install: install::DRIVER.to_owned() })?;
        let mut probe = Self { program, devices: Vec::new() };
        let gpus = probe.read()?;
        probe.devices = gpus.into_iter().map(|(info, _)| info).collect();
        Ok(probe)
    }

    fn read(&self) -> Result<Vec<(DeviceInfo, DeviceSample)>> {
        let output = run_tool(&self.program, XML_ARGS, SAMPLE_TIMEOUT)?;
        if !output.success() {
            let reason = output.stderr.lines().chain(output.stdout.lines()).next().unwrap_or("no output").to_owned();
            return Err(Error::tool_output(XML_TOOL, 1, format!("exited with {:?}: {reason}", output.code)));
        }
        let log = parse_smi_xml(&output.stdout).map_err(Error::from)?;
        Ok(log.gpus.into_iter().map(|gpu| (gpu.info, gpu.sample)).collect())
    }
}

impl UtilizationProbe for SmiProbe {
    fn source(&self) -> String {
        format!("{} ({})", XML_TOOL, self.program.display())
    }

    fn devices(&self) -> Result<Vec<DeviceInfo>> {
        Ok(self.devices.clone())
    }

    fn sample(&mut self) -> Result<Vec<DeviceSample>> {
        Ok(self.read()?.into_iter().map(|(_, sample)| sample).collect())
    }
}
