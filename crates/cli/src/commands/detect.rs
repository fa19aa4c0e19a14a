//! `prof detect`: which vendors, devices, drivers and profiling tools this machine has.
//!
//! `--json` prints the stable schema `prof.detect.v1`:
//! `{"schema": "prof.detect.v1", "any_present": bool, "vendors": [Detection]}` where each
//! `Detection` is `{vendor, name, present, driver_version, devices: [{index, name, uuid,
//! bus_id, memory_total_mib, architecture}], tools: [{name, kind: "program"|"library",
//! purpose, present, path, version, install, note}], problems: [string]}`; unknown values
//! are `null`. Fields are only ever added, never renamed, within v1.

use crate::render::{print_json, table};
use clap::Args;
use prof_core::{Detection, Registry};
use serde::Serialize;
use std::process::ExitCode;

/// Arguments of `prof detect`.
#[derive(Debug, Args)]
pub struct DetectArgs {
    /// Print the `prof.detect.v1` JSON document instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// The `--json` document.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct DetectReport<'a> {
    schema: &'static str,
    any_present: bool,
    vendors: &'a [Detection],
}

/// Runs detection of every compiled-in backend and prints it. Exits 0 even when nothing is found.
pub fn run(registry: &Registry, args: &DetectArgs) -> Result<ExitCode, crate::failure::Failure> {
    let detections = registry.detect_all();
    let any_present = detections.iter().any(|d| d.present);
    if args.json {
        print_json(&DetectReport { schema: "prof.detect.v1", any_present, vendors: &detections })?;
    } else {
        out!("{}", render_text(&detections));
    }
    Ok(ExitCode::SUCCESS)
}

fn render_text(detections: &[Detection]) -> String {
    let mut out = String::new();
    for detection in detections {
        out.push_str(&render_vendor(detection));
        out.push('\n');
    }
    if !detections.iter().any(|d| d.present) {
        let names: Vec<&str> = detections.iter().map(|d| d.name).collect();
        out.push_str(&format!(
            "No accelerator found: none of the {} tools or libraries are on this machine. \
             prof can still read existing artifacts with `prof analyze PATH`.\n",
            names.join(", ")
        ));
    }
    out
}

fn render_vendor(detection: &Detection) -> String {
    let mut out = String::new();
    let state = if detection.present { "found" } else { "not found" };
    out.push_str(&format!("{}: {state}", detection.name));
    if let Some(driver) = &detection.driver_version {
        out.push_str(&format!(", driver {driver}"));
    }
    out.push('\n');
    let devices: Vec<Vec<String>> = detection
        .devices
        .iter()
        .map(|d| {
            vec![
                format!("  device {}", d.index),
                d.name.clone(),
                d.memory_total_mib.map(|m| format!("{m} MiB")).unwrap_or_default(),
                d.architecture.clone().map(|a| format!("arch {a}")).unwrap_or_default(),
                d.bus_id.clone().unwrap_or_default(),
            ]
        })
        .collect();
    out.push_str(&table(&devices));
    if detection.present || detection.tools.iter().any(|t| t.present) {
        let tools: Vec<Vec<String>> = detection
            .tools
            .iter()
            .map(|t| {
                let (state, detail) = if t.present {
                    ("present", t.path.as_ref().map(|p| p.display().to_string()).unwrap_or_default())
                } else {
                    ("absent", format!("install: {}", t.install))
                };
                let mut detail = detail;
                if let Some(note) = &t.note {
                    detail.push_str(&format!(" ({note})"));
                }
                vec![
                    format!("  {}", t.name),
                    state.to_owned(),
                    t.version.clone().unwrap_or_default(),
                    t.purpose.clone(),
                    detail,
                ]
            })
            .collect();
        out.push_str(&table(&tools));
    }
    for problem in &detection.problems {
        out.push_str(&format!("  problem: {problem}\n"));
    }
    out
}

/// The JSON Schema of the `prof.detect.v1` document.
pub fn json_schema() -> schemars::Schema {
    schemars::schema_for!(DetectReport<'static>)
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_core::{DeviceInfo, ToolKind, ToolStatus};

    #[test]
    fn text_lists_devices_tools_and_install_lines() {
        let mut d = Detection::new("x", "X");
        d.present = true;
        d.driver_version = Some("1.2".into());
        d.devices.push(DeviceInfo { index: 0, name: "Chip".into(), memory_total_mib: Some(10), ..Default::default() });
        d.tools.push(ToolStatus::absent("prof-tool", ToolKind::Program, "tracing", "apt-get install prof-tool"));
        let text = render_text(&[d]);
        assert!(text.starts_with("X: found, driver 1.2\n"), "{text}");
        assert!(text.contains("device 0  Chip  10 MiB"), "{text}");
        assert!(text.contains("install: apt-get install prof-tool"), "{text}");
        assert!(!text.contains("No accelerator found"));
    }

    #[test]
    fn nothing_found_is_said_plainly() {
        let text = render_text(&[Detection::new("x", "X"), Detection::new("y", "Y")]);
        assert!(text.contains("No accelerator found: none of the X, Y tools"), "{text}");
    }
}
