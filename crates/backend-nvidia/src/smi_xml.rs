//! `nvidia-smi -q -x`: the full per-GPU report as XML, read with a streaming reader into
//! a [`DeviceInfo`] and a [`DeviceSample`] per `<gpu>`.
//!
//! Both schemas are handled: old drivers write `clocks_throttle_reasons` and `power_readings`
//! (`power_draw`, `enforced_power_limit`); new ones write `clocks_event_reasons` and
//! `gpu_power_readings` (`power_draw`, later `average_power_draw`/`instant_power_draw`, and
//! `current_power_limit`). Only a `<gpu>`'s own elements are read: MIG instances and the
//! module / memory power blocks, which reuse the same element names, are skipped.

use crate::error::{quote, NvidiaError};
use crate::reasons::reason_from_element;
use crate::values::{self, mib_to_bytes};
use prof_core::{DeviceInfo, DeviceSample, ProcessUse};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// Tool label for `-q -x` output in error messages.
pub const XML_TOOL: &str = "nvidia-smi -q -x";

/// The arguments of an `nvidia-smi -q -x` run.
pub const XML_ARGS: [&str; 2] = ["-q", "-x"];

/// Everything prof reads from one `-q -x` report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SmiLog {
    /// `<driver_version>`.
    pub driver_version: Option<String>,
    /// `<cuda_version>` (the driver's CUDA version).
    pub cuda_version: Option<String>,
    /// One entry per `<gpu>`, in report order.
    pub gpus: Vec<SmiGpu>,
}

/// One `<gpu>` of the report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SmiGpu {
    /// Identity. `index` is the `<gpu>`'s position in the report (nvidia-smi lists them in
    /// index order; the XML has no index element). `architecture` is `<product_architecture>`
    /// (`Hopper`): the XML carries no compute capability.
    pub info: DeviceInfo,
    /// Readings, with `device` equal to `info.index`.
    pub sample: DeviceSample,
}

#[derive(Default)]
struct GpuBuilder {
    gpu: SmiGpu,
    id_attribute: Option<String>,
    power_draw: Option<f64>,
    average_power_draw: Option<f64>,
    instant_power_draw: Option<f64>,
    enforced_power_limit: Option<f64>,
    current_power_limit: Option<f64>,
    power_limit: Option<f64>,
    pending_process: Option<(Option<u32>, ProcessUse)>,
}

/// Parses the text of an `nvidia-smi -q -x` report. Malformed or truncated XML, a value that
/// is not what its element promises (`lots MiB` for memory) or a `<gpu>` with no name is an
/// error naming the line.
pub fn parse_smi_xml(text: &str) -> Result<SmiLog, NvidiaError> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().trim_text(true);
    let mut stack: Vec<String> = Vec::new();
    let mut log = SmiLog::default();
    let mut current: Option<GpuBuilder> = None;
    let mut seen_root = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| fail(line_at(text, reader.error_position()), format!("malformed XML: {e}")))?;
        let line = line_at(text, reader.buffer_position());
        match event {
            Event::Start(start) => {
                let name = element_name(&start, line)?;
                if stack.is_empty() {
                    check_root(&name, seen_root, line)?;
                    seen_root = true;
                }
                stack.push(name);
                on_start(&stack, &start, &mut current, log.gpus.len(), line)?;
            }
            Event::Empty(start) => {
                let name = element_name(&start, line)?;
                if stack.is_empty() {
                    check_root(&name, seen_root, line)?;
                    seen_root = true;
                }
            }
            Event::End(_) => {
                on_end(&stack, &mut current, &mut log, line)?;
                stack.pop();
            }
            Event::Text(raw) => {
                let value = raw.unescape().map_err(|e| fail(line, format!("bad text: {e}")))?;
                let path: Vec<&str> = stack.iter().map(String::as_str).collect();
                on_text(&path, &value, &mut current, &mut log).map_err(|reason| fail(line, reason))?;
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !seen_root {
        return Err(fail(1, "no <nvidia_smi_log> element: not nvidia-smi -q -x output"));
    }
    if let Some(open) = stack.last() {
        let last_line = text.lines().count().max(1);
        return Err(fail(last_line, format!("output ends inside <{open}>: truncated")));
    }
    Ok(log)
}

fn fail(line: usize, reason: impl Into<String>) -> NvidiaError {
    NvidiaError::output(XML_TOOL, line, reason)
}

/// 1-based line of the last non-blank byte before `position` (the reader's position is past
/// any whitespace that followed the event).
fn line_at(text: &str, position: u64) -> usize {
    let end = usize::try_from(position).unwrap_or(usize::MAX).min(text.len());
    let before = text.as_bytes().get(..end).unwrap_or_default();
    let content = before.iter().rposition(|c| !c.is_ascii_whitespace()).map_or(0, |last| last + 1);
    before.iter().take(content).filter(|&&c| c == b'\n').count() + 1
}

fn element_name(start: &BytesStart<'_>, line: usize) -> Result<String, NvidiaError> {
    std::str::from_utf8(start.name().as_ref()).map(str::to_owned).map_err(|_| fail(line, "element name is not UTF-8"))
}

fn check_root(name: &str, seen_root: bool, line: usize) -> Result<(), NvidiaError> {
    if seen_root {
        return Err(fail(line, format!("second top-level element <{name}> after </nvidia_smi_log>")));
    }
    if name != "nvidia_smi_log" {
        return Err(fail(line, format!("expected <nvidia_smi_log> as the root element, found <{name}>")));
    }
    Ok(())
}

fn on_start(
    stack: &[String],
    start: &BytesStart<'_>,
    current: &mut Option<GpuBuilder>,
    gpu_count: usize,
    line: usize,
) -> Result<(), NvidiaError> {
    let path: Vec<&str> = stack.iter().map(String::as_str).collect();
    match path.as_slice() {
        ["nvidia_smi_log", "gpu"] => {
            let id_attribute = match start.try_get_attribute("id") {
                Ok(Some(attribute)) => attribute.unescape_value().ok().map(|v| v.into_owned()),
                Ok(None) => None,
                Err(e) => return Err(fail(line, format!("bad <gpu> attribute: {e}"))),
            };
            let index = u32::try_from(gpu_count).map_err(|_| fail(line, "too many <gpu> elements"))?;
            let mut builder = GpuBuilder { id_attribute, ..GpuBuilder::default() };
            builder.gpu.info.index = index;
            builder.gpu.sample.device = index;
            *current = Some(builder);
        }
        ["nvidia_smi_log", "gpu", group] if group.starts_with("clocks_") && group.ends_with("_reasons") => {
            if let Some(builder) = current {
                builder.gpu.sample.throttle_reasons.get_or_insert_with(Vec::new);
            }
        }
        ["nvidia_smi_log", "gpu", "processes", "process_info"] => {
            if let Some(builder) = current {
                builder.pending_process = Some((None, ProcessUse::default()));
            }
        }
        _ => {}
    }
    Ok(())
}

fn on_end(
    stack: &[String],
    current: &mut Option<GpuBuilder>,
    log: &mut SmiLog,
    line: usize,
) -> Result<(), NvidiaError> {
    let path: Vec<&str> = stack.iter().map(String::as_str).collect();
    match path.as_slice() {
        ["nvidia_smi_log", "gpu"] => {
            if let Some(builder) = current.take() {
                log.gpus.push(finish_gpu(builder).map_err(|reason| fail(line, reason))?);
            }
        }
        ["nvidia_smi_log", "gpu", "processes", "process_info"] => {
            if let Some((pid, mut process)) = current.as_mut().and_then(|b| b.pending_process.take()) {
                process.pid = pid.ok_or_else(|| fail(line, "<process_info> without a <pid>"))?;
                if let Some(builder) = current {
                    builder.gpu.sample.processes.push(process);
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn on_text(path: &[&str], raw: &str, current: &mut Option<GpuBuilder>, log: &mut SmiLog) -> Result<(), String> {
    match path {
        [] => Err(format!("text outside <nvidia_smi_log>: {}", quote(raw))),
        ["nvidia_smi_log", "driver_version"] => {
            log.driver_version = values::text(raw).map(str::to_owned);
            Ok(())
        }
        ["nvidia_smi_log", "cuda_version"] => {
            log.cuda_version = values::text(raw).map(str::to_owned);
            Ok(())
        }
        ["nvidia_smi_log", "gpu", field @ ..] => match current {
            Some(builder) => gpu_field(builder, field, raw),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

fn gpu_field(b: &mut GpuBuilder, field: &[&str], raw: &str) -> Result<(), String> {
    let owned = || values::text(raw).map(str::to_owned);
    let info = &mut b.gpu.info;
    let sample = &mut b.gpu.sample;
    match field {
        ["product_name"] => info.name = owned().unwrap_or_default(),
        ["product_architecture"] => info.architecture = owned(),
        ["uuid"] => info.uuid = owned(),
        ["pci", "pci_bus_id"] => info.bus_id = owned(),
        ["fb_memory_usage", "total"] => {
            info.memory_total_mib = named("fb_memory_usage/total", values::whole(raw, "MiB"))?;
            sample.mem_total_bytes = info.memory_total_mib.and_then(mib_to_bytes);
        }
        ["fb_memory_usage", "used"] => {
            sample.mem_used_bytes = named("fb_memory_usage/used", values::whole(raw, "MiB"))?.and_then(mib_to_bytes);
        }
        ["utilization", "gpu_util"] => sample.gpu_util_pct = named("utilization/gpu_util", values::number(raw, "%"))?,
        ["utilization", "memory_util"] => {
            sample.mem_util_pct = named("utilization/memory_util", values::number(raw, "%"))?;
        }
        ["clocks", "sm_clock"] => sample.sm_clock_mhz = named("clocks/sm_clock", values::whole_u32(raw, "MHz"))?,
        ["clocks", "mem_clock"] => sample.mem_clock_mhz = named("clocks/mem_clock", values::whole_u32(raw, "MHz"))?,
        ["max_clocks", "sm_clock"] => {
            sample.sm_clock_max_mhz = named("max_clocks/sm_clock", values::whole_u32(raw, "MHz"))?;
        }
        ["max_clocks", "mem_clock"] => {
            sample.mem_clock_max_mhz = named("max_clocks/mem_clock", values::whole_u32(raw, "MHz"))?;
        }
        ["temperature", "gpu_temp"] => sample.temperature_c = named("temperature/gpu_temp", values::number(raw, "C"))?,
        [group @ ("power_readings" | "gpu_power_readings"), reading] => {
            let slot = match *reading {
                "power_draw" => &mut b.power_draw,
                "average_power_draw" => &mut b.average_power_draw,
                "instant_power_draw" => &mut b.instant_power_draw,
                "enforced_power_limit" => &mut b.enforced_power_limit,
                "current_power_limit" => &mut b.current_power_limit,
                "power_limit" => &mut b.power_limit,
                _ => return Ok(()),
            };
            *slot = named(&format!("{group}/{reading}"), values::number(raw, "W"))?;
        }
        [group, element] if group.starts_with("clocks_") && group.ends_with("_reasons") => {
            if let (Some(reason), Some(active)) = (reason_from_element(element), sample.throttle_reasons.as_mut()) {
                match raw.trim() {
                    "Active" => active.push(reason.to_owned()),
                    "Not Active" => {}
                    other => {
                        return Err(format!("{group}/{element}: expected Active or Not Active, found {}", quote(other)))
                    }
                }
            }
        }
        ["processes", "process_info", element] => {
            if let Some((pid, process)) = b.pending_process.as_mut() {
                match *element {
                    "pid" => *pid = named("process_info/pid", values::whole_u32(raw, ""))?,
                    "process_name" => process.name = owned(),
                    "used_memory" => {
                        process.mem_used_bytes =
                            named("process_info/used_memory", values::whole(raw, "MiB"))?.and_then(mib_to_bytes);
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Prefixes a value error with the element path it came from.
fn named<T>(what: &str, result: Result<T, String>) -> Result<T, String> {
    result.map_err(|reason| format!("{what}: {reason}"))
}

fn finish_gpu(b: GpuBuilder) -> Result<SmiGpu, String> {
    let mut gpu = b.gpu;
    if gpu.info.name.is_empty() {
        return Err(format!("<gpu> number {} has no <product_name>", gpu.info.index));
    }
    if gpu.info.bus_id.is_none() {
        gpu.info.bus_id = b.id_attribute;
    }
    gpu.sample.power_w = b.power_draw.or(b.average_power_draw).or(b.instant_power_draw);
    gpu.sample.power_limit_w = b.enforced_power_limit.or(b.current_power_limit).or(b.power_limit);
    Ok(gpu)
}

#[cfg(test)]
mod tests;
