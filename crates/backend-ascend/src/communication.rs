//! torch_npu's `ASCEND_PROFILER_OUTPUT/communication.json` (also written per rank by
//! msprof-analyze): per step, per group (`collective`, `p2p`), per HCCL op
//! (`hcom_allReduce__483_2@…`) a "Communication Time Info" (start µs, elapse / transit / wait /
//! synchronization / idle ms) and a "Communication Bandwidth Info" per transport (`RDMA`,
//! `HCCS`, `PCIE`, `SDMA`: transit size MB, transit time ms, bandwidth GB/s). The group's
//! "Total Op Info" entry is the tool's own sum and is skipped: the ops are summed here.
//!
//! Units, checked on the recording: MB are 10⁶ bytes (an op of 20 MiB says 20.97152) and
//! GB/s = MB/ms. `SDMA` is the sum of the on-node transports `HCCS` + `PCIE` (in every op of
//! the recording it equals HCCS, PCIE being 0), so an op's bytes are RDMA + HCCS + PCIE.

use crate::error::AscendError;
use prof_core::analysis::comm::{collective_type, CommSample};
use serde_json::Value;
use std::path::Path;

/// The per-transport figures of one op.
#[derive(Debug, Clone, PartialEq)]
pub struct TransportUse {
    /// `RDMA`, `HCCS`, `PCIE` or `SDMA`.
    pub transport: String,
    /// Transit size, bytes.
    pub bytes: u64,
    /// Transit time, ns.
    pub transit_ns: u64,
    /// The bandwidth the file states, GB/s.
    pub stated_gbps: Option<f64>,
}

/// One HCCL op of `communication.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct CommOp {
    /// Step key (`step2`); empty when the file has no step level.
    pub step: String,
    /// `collective` or `p2p`.
    pub group: String,
    /// Op name as written.
    pub name: String,
    /// Start, ns since the epoch, when given.
    pub start_ns: Option<u64>,
    /// Elapsed time, ns.
    pub elapse_ns: u64,
    /// Waiting time, ns.
    pub wait_ns: u64,
    /// Transports with a non-zero transit size.
    pub transports: Vec<TransportUse>,
}

/// Transports whose sizes add up to an op's bytes (`SDMA` repeats HCCS + PCIE).
const PAYLOAD_TRANSPORTS: [&str; 3] = ["RDMA", "HCCS", "PCIE"];

impl CommOp {
    /// Bytes over RDMA, HCCS and PCIE; `None` when the op reports no transfer.
    pub fn bytes(&self) -> Option<u64> {
        let payload = self.payload().fold(0u64, |sum, t| sum.saturating_add(t.bytes));
        (payload > 0).then_some(payload)
    }

    /// The op as a bandwidth sample, its transit on RDMA/HCCS/PCIE as the link measurement.
    pub fn sample(&self) -> CommSample {
        let transit_ns = self.payload().fold(0u64, |sum, t| sum.saturating_add(t.transit_ns));
        CommSample {
            op_type: collective_type(&self.name),
            bytes: self.bytes(),
            latency_ns: self.elapse_ns,
            link_bytes_ns: self.bytes().filter(|_| transit_ns > 0).map(|bytes| (bytes, transit_ns)),
        }
    }

    fn payload(&self) -> impl Iterator<Item = &TransportUse> {
        self.transports.iter().filter(|t| PAYLOAD_TRANSPORTS.contains(&t.transport.as_str()))
    }
}

/// The `communication.json` of the profile at `path`: the file itself, one beside it, or the
/// first (in path order) up to four directory levels below it.
pub fn find_in(path: &Path) -> Option<std::path::PathBuf> {
    find_named(path, "communication.json")
}

/// The file named `name` at, beside or up to four levels below `path` (first in path order).
pub fn find_named(path: &Path, name: &str) -> Option<std::path::PathBuf> {
    if path.is_file() {
        if path.file_name().is_some_and(|n| n == name) {
            return Some(path.to_owned());
        }
        let beside = path.parent()?.join(name);
        return beside.is_file().then_some(beside);
    }
    let mut found = Vec::new();
    walk(path, name, 4, &mut found);
    found.sort();
    found.into_iter().next()
}

fn walk(dir: &Path, name: &str, depth: usize, found: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() && depth > 0 => walk(&path, name, depth - 1, found),
            Ok(kind) if kind.is_file() && entry.file_name() == name => found.push(path),
            _ => {}
        }
    }
}

/// Reads `communication.json` at `path`.
pub fn load(path: &Path) -> Result<Vec<CommOp>, AscendError> {
    let text = std::fs::read(path).map_err(|e| AscendError::file(path, 0, e.to_string()))?;
    parse(&text, path)
}

/// Parses the text of a `communication.json`, naming `path` in errors.
pub fn parse(text: &[u8], path: &Path) -> Result<Vec<CommOp>, AscendError> {
    let root: Value = serde_json::from_slice(text)
        .map_err(|e| AscendError::file(path, e.line(), format!("not valid communication JSON: {e}")))?;
    let mut ops = Vec::new();
    for (step, groups) in steps(&root, path)? {
        for (group, entries) in object(groups, path, &step)? {
            for (name, entry) in object(entries, path, group)? {
                if name == "Total Op Info" {
                    continue;
                }
                ops.push(op(&step, group, name, entry, path)?);
            }
        }
    }
    check_totals(&ops, path)?;
    ops.sort_by(|a, b| a.start_ns.cmp(&b.start_ns).then_with(|| a.name.cmp(&b.name)));
    Ok(ops)
}

/// The step level: `{"step2": {"collective": …}}`, or the groups directly.
pub(crate) fn steps<'a>(root: &'a Value, path: &Path) -> Result<Vec<(String, &'a Value)>, AscendError> {
    let top = object(root, path, "the top level")?;
    if top.contains_key("collective") || top.contains_key("p2p") {
        return Ok(vec![(String::new(), root)]);
    }
    Ok(top.iter().map(|(step, groups)| (step.clone(), groups)).collect())
}

/// `value` as an object, or an error saying where.
pub(crate) fn object<'a>(
    value: &'a Value,
    path: &Path,
    at: &str,
) -> Result<&'a serde_json::Map<String, Value>, AscendError> {
    value.as_object().ok_or_else(|| AscendError::file(path, 0, format!("{at}: expected an object")))
}

/// A non-negative number field of `value`, or an error naming the field and op.
pub(crate) fn number(value: &Value, field: &str, op: &str, path: &Path) -> Result<f64, AscendError> {
    match value.get(field).and_then(Value::as_f64) {
        Some(n) if n.is_finite() && n >= 0.0 => Ok(n),
        Some(n) => Err(AscendError::file(path, 0, format!("{op}: {field} is {n}, not a non-negative number"))),
        None => Err(AscendError::file(path, 0, format!("{op}: no number {field}"))),
    }
}

/// Milliseconds to nanoseconds; megabytes (10⁶ bytes) to bytes; `None` past `u64::MAX`.
pub(crate) fn scaled(value: f64, factor: f64) -> Option<u64> {
    let scaled = (value * factor).round();
    // 2⁶⁴ is exact in an f64; every smaller non-negative whole f64 converts exactly.
    (scaled < 18_446_744_073_709_551_616.0).then_some(scaled as u64)
}

/// A non-negative number field of `value` times `factor` as an integer (ms → ns, MB → bytes), or
/// an error naming the field and op when it is missing, negative or past `u64::MAX`.
pub(crate) fn scaled_number(
    value: &Value,
    field: &str,
    factor: f64,
    op: &str,
    path: &Path,
) -> Result<u64, AscendError> {
    let n = number(value, field, op, path)?;
    scaled(n, factor)
        .ok_or_else(|| AscendError::file(path, 0, format!("{op}: {field} is {n}, too large to count in 64 bits")))
}

/// Errors when a file-wide total overflows 64 bits: every sum made from the file's ops
/// ([`CommOp::bytes`], [`CommOp::sample`], [`transport_totals`], per-collective sums of the
/// samples) is at most one of these totals, so none of them can overflow afterwards.
fn check_totals(ops: &[CommOp], path: &Path) -> Result<(), AscendError> {
    let too_large = |what: &str| AscendError::file(path, 0, format!("the ops' {what} add up past 64 bits"));
    checked_sum(ops.iter().map(|op| op.elapse_ns)).ok_or_else(|| too_large("Elapse Time(ms)"))?;
    checked_sum(ops.iter().map(|op| op.wait_ns)).ok_or_else(|| too_large("Wait Time(ms)"))?;
    let transports = || ops.iter().flat_map(|op| &op.transports);
    checked_sum(transports().map(|t| t.bytes)).ok_or_else(|| too_large("Transit Size(MB)"))?;
    checked_sum(transports().map(|t| t.transit_ns)).ok_or_else(|| too_large("Transit Time(ms)"))?;
    Ok(())
}

fn checked_sum(mut values: impl Iterator<Item = u64>) -> Option<u64> {
    values.try_fold(0u64, u64::checked_add)
}

fn op(step: &str, group: &str, name: &str, entry: &Value, path: &Path) -> Result<CommOp, AscendError> {
    let time = entry
        .get("Communication Time Info")
        .ok_or_else(|| AscendError::file(path, 0, format!("{name}: no \"Communication Time Info\"")))?;
    // An f64 holds a 16-digit µs timestamp only to ~0.2 µs; its shortest decimal form is the
    // text the tool wrote, which converts digit by digit.
    let start_ns = match time.get("Start Timestamp(us)") {
        Some(serde_json::Value::Number(n)) => Some(crate::micros::micros_to_ns(&n.to_string()).ok_or_else(|| {
            AscendError::file(path, 0, format!("{name}: Start Timestamp(us) {n} is not a microsecond value"))
        })?),
        Some(other) => {
            return Err(AscendError::file(path, 0, format!("{name}: Start Timestamp(us) is {other}, not a number")))
        }
        None => None,
    };
    let mut transports = Vec::new();
    if let Some(bandwidth) = entry.get("Communication Bandwidth Info") {
        for (transport, info) in object(bandwidth, path, name)? {
            let bytes = scaled_number(info, "Transit Size(MB)", 1e6, name, path)?;
            if bytes == 0 {
                continue;
            }
            transports.push(TransportUse {
                transport: transport.clone(),
                bytes,
                transit_ns: scaled_number(info, "Transit Time(ms)", 1e6, name, path)?,
                stated_gbps: info.get("Bandwidth(GB/s)").and_then(Value::as_f64),
            });
        }
    }
    Ok(CommOp {
        step: step.to_owned(),
        group: group.to_owned(),
        name: name.to_owned(),
        start_ns,
        elapse_ns: scaled_number(time, "Elapse Time(ms)", 1e6, name, path)?,
        wait_ns: scaled_number(time, "Wait Time(ms)", 1e6, name, path)?,
        transports,
    })
}

/// One transport's totals over a rank's ops.
pub use prof_core::vendor_tables::TransportTotal;

/// Bytes, transit time and ops per transport over `ops`, by transport name.
pub fn transport_totals(ops: &[CommOp]) -> Vec<TransportTotal> {
    let mut totals: Vec<TransportTotal> = Vec::new();
    for used in ops.iter().flat_map(|op| &op.transports) {
        let at = match totals.iter().position(|t| t.transport == used.transport) {
            Some(at) => at,
            None => {
                totals.push(TransportTotal { transport: used.transport.clone(), ops: 0, bytes: 0, transit_ns: 0 });
                totals.len() - 1
            }
        };
        let total = &mut totals[at];
        total.ops += 1;
        // Saturating only matters for ops not from `parse`, which rejects totals past 64 bits.
        total.bytes = total.bytes.saturating_add(used.bytes);
        total.transit_ns = total.transit_ns.saturating_add(used.transit_ns);
    }
    totals.sort_by(|a, b| a.transport.cmp(&b.transport));
    totals
}

#[cfg(test)]
mod tests;
