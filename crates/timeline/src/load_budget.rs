//! The memory budget of a load, and the exact sums kept while a timeline fills.
//!
//! A reader streams an artifact into a [`Timeline`](crate::Timeline) op by op. Every op and host
//! span pushed is counted against a budget of bytes: once the next one would pass it, the
//! timeline takes no more, is marked partial with the reason, and [`Timeline::is_full`]
//! (crate::Timeline::is_full) tells the reader it may stop reading. The budget is the process's
//! (`--memory-budget` / `PROF_MEMORY_BUDGET`; by default half of the machine's memory), and it
//! bounds what the timeline holds: the interned names and the analyses' own tables come on top.
//!
//! The device time of every op pushed is summed with a checked add: a file whose durations sum
//! past 2^64 ns (584 years) cannot be a real trace, and [`Timeline::check_loaded`]
//! (crate::Timeline::check_loaded) names the first op that passed it.

use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes one device op holds in the timeline, without its details (24 on 64-bit targets).
pub const OP_BYTES: u64 = std::mem::size_of::<crate::device_op::DeviceOp>() as u64;
/// Bytes of one distinct op details (ops with equal details share one: [`crate::details_pool`]).
pub const DETAILS_BYTES: u64 = 128;
/// Bytes one host span holds (36 on 64-bit targets).
pub const HOST_BYTES: u64 = std::mem::size_of::<crate::host_span::HostSpan>() as u64;

/// The budget set for this process (0: not set, the default applies).
static BUDGET: AtomicU64 = AtomicU64::new(0);

/// Sets the memory budget of every later load to `bytes`.
pub fn set_memory_budget(bytes: u64) {
    BUDGET.store(bytes.max(1), Ordering::Relaxed);
}

/// The memory budget of a load, bytes: the one set, else `PROF_MEMORY_BUDGET`, else half of
/// the machine's memory (8 GiB where that cannot be read).
pub fn memory_budget() -> u64 {
    match BUDGET.load(Ordering::Relaxed) {
        0 => {
            let budget = std::env::var("PROF_MEMORY_BUDGET")
                .ok()
                .and_then(|text| parse_size(&text).ok())
                .unwrap_or_else(|| physical_memory().map_or(8 << 30, |total| total / 2));
            BUDGET.store(budget.max(1), Ordering::Relaxed);
            budget.max(1)
        }
        set => set,
    }
}

/// Parses a size: a number of bytes with an optional `K`, `M`, `G` or `T` (powers of 1024,
/// an optional `i`/`B` after it), e.g. `512M`, `4GiB`, `1000000`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let unit_at = trimmed.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(unit_at);
    let number: f64 = number.parse().map_err(|_| format!("`{text}` is not a size (e.g. 512M, 4G)"))?;
    let shift = match unit.trim().trim_end_matches(['B', 'b']).trim_end_matches('i').to_ascii_uppercase().as_str() {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("`{text}`: unknown unit `{unit}` (use K, M, G or T)")),
    };
    let bytes = number * (1u64 << shift) as f64;
    if !(1.0..1.8e19).contains(&bytes) {
        return Err(format!("`{text}` is out of range"));
    }
    Ok(bytes as u64)
}

/// `MemTotal` of /proc/meminfo, bytes.
fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// What a timeline has taken so far: bytes held against the budget and the checked device
/// time.
#[derive(Debug, Clone, Default)]
pub struct LoadBudget {
    /// Bytes held, as counted by [`OP_BYTES`], [`DETAILS_BYTES`] and [`HOST_BYTES`].
    pub held: u64,
    /// The budget of this timeline when set on it (tests), else the process's.
    pub limit: Option<u64>,
    /// Set once the budget refused a push.
    pub full: bool,
    /// Sum of every pushed op's duration, ns.
    pub device_ns: u64,
    /// The index of the first op whose duration took the sum past 2^64 ns.
    pub overflow_at: Option<usize>,
}

impl LoadBudget {
    /// True when `bytes` more would fit (nothing is counted).
    pub fn fits(&self, bytes: u64) -> bool {
        !self.full && self.held.checked_add(bytes).is_some_and(|held| held <= self.limit.unwrap_or_else(memory_budget))
    }

    /// Counts `bytes` more if they fit; false (and full from then on) when they do not.
    pub fn take(&mut self, bytes: u64) -> bool {
        if self.full {
            return false;
        }
        let limit = self.limit.unwrap_or_else(memory_budget);
        match self.held.checked_add(bytes) {
            Some(held) if held <= limit => {
                self.held = held;
                true
            }
            _ => {
                self.full = true;
                false
            }
        }
    }

    /// The note a timeline that hit the budget carries, after `ops` ops.
    pub fn note(&self, ops: usize) -> String {
        let limit = self.limit.unwrap_or_else(memory_budget);
        format!(
            "stopped at the memory budget ({}) after {ops} device ops; the rest was not read \
             (raise it with --memory-budget or PROF_MEMORY_BUDGET, or cut the capture shorter)",
            human_bytes(limit)
        )
    }
}

/// `bytes` as `1.5 GiB`, `512 MiB`, `900 KiB` or `12 B`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [(&str, u32); 4] = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for (unit, shift) in UNITS {
        if bytes >= 1 << shift {
            let value = bytes as f64 / (1u64 << shift) as f64;
            return if value.fract() == 0.0 { format!("{value:.0} {unit}") } else { format!("{value:.1} {unit}") };
        }
    }
    format!("{bytes} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4GiB"), Ok(4 << 30));
        assert_eq!(parse_size("1.5k"), Ok(1536));
        assert_eq!(parse_size("1000000"), Ok(1_000_000));
        assert!(parse_size("4X").unwrap_err().contains("unknown unit"));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("0").is_err());
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
        assert_eq!(human_bytes(12), "12 B");
    }

    #[test]
    fn the_budget_refuses_what_does_not_fit_and_stays_full() {
        let mut b = LoadBudget { limit: Some(3 * OP_BYTES + OP_BYTES / 2), ..LoadBudget::default() };
        assert!(b.take(OP_BYTES) && b.take(OP_BYTES) && b.take(OP_BYTES));
        assert!(!b.take(OP_BYTES));
        assert!(b.full && !b.take(1), "once full, nothing more is taken");
        assert_eq!(b.held, 3 * OP_BYTES);
        let note = format!("stopped at the memory budget ({} B) after 3 device ops", 3 * OP_BYTES + OP_BYTES / 2);
        assert!(b.note(3).starts_with(&note), "{}", b.note(3));
    }
}
