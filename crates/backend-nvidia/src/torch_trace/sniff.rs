//! Recognising a Kineto trace by its head (and a plain file's tail), and reading the rank its
//! `distributedInfo` names, without parsing the file.

use super::{event, read_full};
use crate::cupti_trace::GZIP_MAGIC;
use std::fs::File;
use std::io::{Read, Seek};
use std::path::Path;

/// Bytes of (decompressed) head that [`looks_like_torch_trace`] reads.
pub(crate) const SNIFF_BYTES: usize = 64 << 10;

/// True when the file at `path` reads like a Kineto trace: a `traceEvents` key in its
/// (decompressed) head with Kineto's `schemaVersion` or `deviceProperties` beside it (keys
/// written after `traceEvents` are looked for in the last 64 KiB of a plain file) or an event
/// of a category the importer reads (`kernel`, `cpu_op`, … in any case); or a top-level array
/// of events with a CUDA category or PyTorch 1.8's `Operator`. Heads holding Ascend's process
/// or category names (torch_npu and msprof write the same Chrome format) are not taken.
pub fn looks_like_torch_trace(path: &Path) -> bool {
    torch_trace_evidence(path).is_some()
}

/// What made [`looks_like_torch_trace`] say yes: `Some(true)` for Kineto's own top-level keys,
/// `Some(false)` for Kineto event categories only (a top-level array of events, as Kineto
/// wrote before PyTorch 1.8, counts when its events have them).
pub fn torch_trace_evidence(path: &Path) -> Option<bool> {
    let (head, tail) = head_and_tail(path, SNIFF_BYTES)?;
    let has = |text: &[u8], needle: &[u8]| memchr::memmem::find(text, needle).is_some();
    // torch_npu and msprof write the same Chrome format with `cpu_op` events: their own
    // process and category names tell them apart.
    if ASCEND_MARKERS.iter().any(|marker| has(&head, marker)) {
        return None;
    }
    if !has(&head, b"\"traceEvents\"") {
        if !head.trim_ascii_start().starts_with(b"[") {
            return None;
        }
        // Kineto before PyTorch 1.8 wrote an array with every host operator first (its first
        // CUDA event is 19 MB into the recorded sample): its own `Operator` category counts.
        let operator = memchr::memmem::find_iter(&head, b"\"cat\"").any(|at| category_at(&head, at) == b"Operator");
        return (operator || kineto_category(&head)).then_some(false);
    }
    let kineto_keys = |text: &[u8]| has(text, b"\"schemaVersion\"") || has(text, b"\"deviceProperties\"");
    if kineto_keys(&head) || tail.as_deref().is_some_and(kineto_keys) {
        return Some(true);
    }
    let known = memchr::memmem::find_iter(&head, b"\"cat\"").any(|at| event::is_known_category(category_at(&head, at)));
    known.then_some(false)
}

/// Names only Ascend traces (torch_npu's trace_view.json, msprof's timeline JSON) hold.
const ASCEND_MARKERS: [&[u8]; 4] = [b"Ascend Hardware", b"AscendCL", b"\"async_npu\"", b"\"HostToDevice\""];

/// The rank a Kineto trace's `distributedInfo` names (`"rank": 3`), looked for in its head and,
/// for a plain file, its tail; `None` when it names none.
pub fn distributed_rank(path: &Path) -> Option<u32> {
    let (head, tail) = head_and_tail(path, SNIFF_BYTES)?;
    [Some(head), tail].into_iter().flatten().find_map(|text| {
        let at = memchr::memmem::find(&text, b"\"distributedInfo\"")?;
        let info = &text[at..text.len().min(at + 4096)];
        let info = &info[..memchr::memchr(b'}', info)?];
        let key = memchr::memmem::find(info, b"\"rank\"")?;
        let value = info[key + 6..].trim_ascii_start().strip_prefix(b":")?.trim_ascii_start();
        let digits = value.iter().take_while(|b| b.is_ascii_digit()).count();
        std::str::from_utf8(&value[..digits]).ok()?.parse().ok()
    })
}

/// The first `bytes` of the (decompressed) file, and the last [`SNIFF_BYTES`] of a plain file
/// longer than that.
fn head_and_tail(path: &Path, bytes: usize) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
    let mut file = File::open(path).ok()?;
    let mut magic = [0u8; 2];
    let gz = file.read_exact(&mut magic).is_ok() && magic == GZIP_MAGIC;
    file.rewind().ok()?;
    if gz {
        let mut unzipped = vec![0u8; bytes];
        let mut decoder = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file));
        let n = read_full(&mut decoder, &mut unzipped).unwrap_or(0);
        unzipped.truncate(n);
        return Some((unzipped, None));
    }
    let mut head = vec![0u8; bytes];
    let n = read_full(&mut file, &mut head).ok()?;
    head.truncate(n);
    if n < bytes {
        return Some((head, None));
    }
    let mut tail = vec![0u8; SNIFF_BYTES];
    let len = file.seek(std::io::SeekFrom::End(0)).ok()?;
    file.seek(std::io::SeekFrom::Start(len.saturating_sub(SNIFF_BYTES as u64))).ok()?;
    let n = read_full(&mut file, &mut tail).ok()?;
    tail.truncate(n);
    Some((head, Some(tail)))
}

/// True when some `"cat": "…"` in `text` names a CUDA category the importer reads.
fn kineto_category(text: &[u8]) -> bool {
    memchr::memmem::find_iter(text, b"\"cat\"").any(|at| event::is_cuda_category(category_at(text, at)))
}

/// The string value of the `"cat"` key at `at` in `text` (empty when it is not a string).
fn category_at(text: &[u8], at: usize) -> &[u8] {
    let rest = &text[at + 5..];
    let rest = rest.trim_ascii_start().strip_prefix(b":").unwrap_or_default().trim_ascii_start();
    let Some(rest) = rest.strip_prefix(b"\"") else { return b"" };
    rest.split(|&b| b == b'"').next().unwrap_or_default()
}

/// A top-level key of a Kineto trace, as the reader treats it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    /// `traceEvents`.
    Events,
    /// `deviceProperties`: the devices' names.
    DeviceProperties,
    /// `roctracer_version`, `hip_runtime_version`, `hip_driver_version`: a ROCm build wrote it.
    Rocm,
    /// Anything else (skipped).
    Other,
}

impl Key {
    pub(crate) fn of(raw: &[u8]) -> Self {
        match raw {
            b"traceEvents" => Key::Events,
            b"deviceProperties" => Key::DeviceProperties,
            b"roctracer_version" | b"hip_runtime_version" | b"hip_driver_version" => Key::Rocm,
            _ => Key::Other,
        }
    }
}

/// What the top-level keys said of the device.
#[derive(Debug, Default)]
pub(crate) struct DeviceKeys {
    /// The distinct `deviceProperties[].name`s, in order.
    pub(crate) names: Vec<String>,
    /// A ROCm version key was present.
    pub(crate) rocm: bool,
}

/// The distinct `name`s of a `deviceProperties` array (raw JSON); none when it is not one.
pub(crate) fn device_names(raw: &[u8]) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Device {
        #[serde(default)]
        name: String,
    }
    let devices: Vec<Device> = serde_json::from_slice(raw).unwrap_or_default();
    let mut names: Vec<String> = Vec::new();
    for name in devices.into_iter().map(|d| d.name).filter(|n| !n.trim().is_empty()) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The accelerator a trace was recorded on, from its own keys and categories: Meta's MTIA
/// writes `mtia_*` categories (its device name, `ARTEMIS`, does not say MTIA); a ROCm build
/// writes its roctracer/HIP versions (an MI250 names itself `AMD Radeon Graphics`); otherwise
/// the device names as written (`NVIDIA H100 80GB HBM3`). `None` when the trace says nothing.
pub(crate) fn recorded_on(device: &DeviceKeys, categories: &[(String, u64)]) -> Option<String> {
    let names = (!device.names.is_empty()).then(|| device.names.join(", "));
    if categories.iter().any(|(c, _)| c.starts_with("mtia")) {
        return Some(names.map_or_else(|| "MTIA".to_owned(), |n| format!("MTIA ({n})")));
    }
    match names {
        Some(n) if device.rocm && !n.contains("AMD") => Some(format!("{n} (ROCm)")),
        Some(n) => Some(n),
        None if device.rocm => Some("an AMD GPU (ROCm)".to_owned()),
        None => None,
    }
}
