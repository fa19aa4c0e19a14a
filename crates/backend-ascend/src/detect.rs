//! Ascend detection: `npu-smi info` for devices and version, the DCMI library by file, and
//! `msprof` with the CANN toolkit version. The `npu-smi` query runs on its own thread, under a
//! timeout, while the rest is looked up; whatever fails becomes a `problems` line.

use crate::npu_smi::{parse_info, NpuSmiInfo, INFO_TOOL};
use crate::toolkit_info::parse_toolkit_info;
use crate::tools::{find_toolkit_info, SearchPaths, DCMI_LIBRARY, DRIVER_INSTALL, MSPROF, NPU_SMI, TOOLKIT_INSTALL};
use prof_core::tools::{find_library, find_program, library_version, run_tool};
use prof_core::{Detection, ToolKind, ToolStatus};
use std::path::Path;

/// Detects the Ascend driver, devices and tools with the given search paths.
pub fn detect(id: &'static str, name: &'static str, paths: &SearchPaths) -> Detection {
    let mut detection = Detection::new(id, name);
    let npu_smi = find_program(NPU_SMI, &paths.npu_smi_dirs);
    let (queried, (msprof, msprof_problem)) = std::thread::scope(|scope| {
        let query = npu_smi.as_deref().map(|program| scope.spawn(|| query_info(program, paths)));
        let msprof = msprof_status(paths);
        let queried = query.map(|handle| {
            handle.join().unwrap_or_else(|_| Err(format!("{INFO_TOOL}: the query thread panicked; this is a prof bug")))
        });
        (queried, msprof)
    });

    let mut smi_status = ToolStatus::absent(NPU_SMI, ToolKind::Program, "device list and utilization", DRIVER_INSTALL);
    if let Some(program) = npu_smi {
        match queried {
            Some(Ok(info)) => {
                smi_status = smi_status.found(program, info.version.clone());
                apply_info(&mut detection, &info);
            }
            Some(Err(problem)) => {
                smi_status = smi_status.found(program, None).with_note("found, but `npu-smi info` gave no device list");
                detection.problems.push(problem);
            }
            None => smi_status = smi_status.found(program, None),
        }
    }

    let mut dcmi = ToolStatus::absent(DCMI_LIBRARY, ToolKind::Library, "device management library", DRIVER_INSTALL);
    if let Some((path, resolved)) = find_library(DCMI_LIBRARY, &paths.dcmi_dirs) {
        dcmi = dcmi.found(path, library_version(&resolved)).with_note("found by file; not loaded during detection");
    }

    detection.present = smi_status.present || dcmi.present;
    detection.tools = vec![smi_status, dcmi, msprof];
    detection.problems.extend(msprof_problem);
    detection
}

fn query_info(program: &Path, paths: &SearchPaths) -> Result<NpuSmiInfo, String> {
    let output = run_tool(program, ["info"], paths.timeout).map_err(|error| error.to_string())?;
    if !output.success() {
        let status = output.code.map_or_else(|| "on a signal".to_owned(), |code| format!("with status {code}"));
        let said = output.stderr.lines().chain(output.stdout.lines()).find(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(format!("{INFO_TOOL} exited {status}: {}", said.trim()));
    }
    parse_info(&output.stdout).map_err(|error| prof_core::Error::from(error).to_string())
}

fn apply_info(detection: &mut Detection, info: &NpuSmiInfo) {
    detection.driver_version = info.version.clone();
    for chip in &info.chips {
        if chip.health != "OK" {
            detection.problems.push(format!("npu-smi: NPU {} ({}) health is {}", chip.npu, chip.bus_id, chip.health));
        }
        detection.devices.push(chip.device_info());
    }
}

fn msprof_status(paths: &SearchPaths) -> (ToolStatus, Option<String>) {
    let status = ToolStatus::absent(MSPROF, ToolKind::Program, "kernel breakdown", TOOLKIT_INSTALL);
    let Some(program) = find_program(MSPROF, &paths.msprof_dirs) else {
        return (status, None);
    };
    let Some(info_file) = find_toolkit_info(&program, &paths.toolkit_roots) else {
        let note = "msprof has no version option; no ascend_toolkit_install.info found to read the CANN version from";
        return (status.found(program, None).with_note(note), None);
    };
    let parsed = std::fs::read_to_string(&info_file)
        .map_err(|error| prof_core::Error::io(&info_file, error).to_string())
        .and_then(|text| parse_toolkit_info(&info_file, &text).map_err(|e| prof_core::Error::from(e).to_string()));
    match parsed {
        Ok(info) => {
            let note = format!("version is the CANN toolkit's, from {}", info_file.display());
            (status.found(program, Some(info.version)).with_note(note), None)
        }
        Err(problem) => (status.found(program, None).with_note("CANN version unreadable"), Some(problem)),
    }
}

#[cfg(test)]
mod tests;
