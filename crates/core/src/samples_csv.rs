//! The `prof util --csv` writer: one row per (tick, device) of a recording.
//!
//! Header, fixed: `t_ms,device,gpu_util_pct,mem_util_pct,mem_used_mib,mem_total_mib,
//! sm_clock_mhz,mem_clock_mhz,power_w,power_limit_w,temperature_c,throttle_reasons`, then one
//! column per activity metric name seen anywhere in the recording, in first-seen order.
//! `t_ms` is ms since the recording started; memory is MiB (2^20 bytes); numbers carry at most
//! three decimals. A value the probe did not report is an empty cell. `throttle_reasons` joins
//! the active reasons with `|`, is `none` when the probe reported that none was active, and is
//! empty when it reports no throttle information. Fields holding `,` or `"` are quoted.

use crate::probe::DeviceSample;
use crate::recorder::Tick;
use std::io::{self, Write};

/// The fixed leading columns of the CSV, in order.
pub const CSV_COLUMNS: [&str; 12] = [
    "t_ms",
    "device",
    "gpu_util_pct",
    "mem_util_pct",
    "mem_used_mib",
    "mem_total_mib",
    "sm_clock_mhz",
    "mem_clock_mhz",
    "power_w",
    "power_limit_w",
    "temperature_c",
    "throttle_reasons",
];

/// Writes the header and one row per (tick, device) to `out`. I/O errors are returned
/// as they are; the caller names the file.
pub fn write_csv(ticks: &[Tick], out: &mut dyn Write) -> io::Result<()> {
    let metrics = activity_names(ticks);
    let header: Vec<String> =
        CSV_COLUMNS.iter().map(|c| (*c).to_owned()).chain(metrics.iter().map(|m| field(m))).collect();
    writeln!(out, "{}", header.join(","))?;
    for tick in ticks {
        for sample in &tick.samples {
            writeln!(out, "{}", row(tick.t_ns, sample, &metrics).join(","))?;
        }
    }
    out.flush()
}

/// The CSV written while a recording runs: the header (with the first tick's activity
/// metrics as its extra columns) at the first tick, then each tick's rows, flushed, so
/// `tail -f` shows them and a killed prof leaves every sample taken so far. A metric that
/// first appears later is left out of the stream; [`write_csv`] at the end writes them all.
pub struct CsvStream<W: Write> {
    out: W,
    metrics: Option<Vec<String>>,
}

impl<W: Write> CsvStream<W> {
    /// A stream into `out`; nothing is written before the first tick.
    pub fn new(out: W) -> Self {
        Self { out, metrics: None }
    }

    /// Writes `tick`'s rows (and the header before the first one) and flushes.
    pub fn push(&mut self, tick: &Tick) -> io::Result<()> {
        if self.metrics.is_none() {
            let metrics = activity_names(std::slice::from_ref(tick));
            let header: Vec<String> =
                CSV_COLUMNS.iter().map(|c| (*c).to_owned()).chain(metrics.iter().map(|m| field(m))).collect();
            writeln!(self.out, "{}", header.join(","))?;
            self.metrics = Some(metrics);
        }
        let metrics = self.metrics.as_deref().unwrap_or_default();
        for sample in &tick.samples {
            writeln!(self.out, "{}", row(tick.t_ns, sample, metrics).join(","))?;
        }
        self.out.flush()
    }
}

/// Every activity metric name in `ticks`, in first-seen order: the extra CSV columns.
pub fn activity_names(ticks: &[Tick]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (name, _) in ticks.iter().flat_map(|t| &t.samples).flat_map(|s| &s.activity) {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

fn row(t_ns: u64, s: &DeviceSample, metrics: &[String]) -> Vec<String> {
    let mib = |bytes: Option<u64>| bytes.map(|b| number(b as f64 / 1_048_576.0)).unwrap_or_default();
    let float = |value: Option<f64>| value.map(number).unwrap_or_default();
    let int = |value: Option<u32>| value.map(|v| v.to_string()).unwrap_or_default();
    let throttle = match &s.throttle_reasons {
        None => String::new(),
        Some(reasons) if reasons.is_empty() => "none".to_owned(),
        Some(reasons) => field(&reasons.join("|")),
    };
    let mut cells = vec![
        number(t_ns as f64 / 1e6),
        s.device.to_string(),
        float(s.gpu_util_pct),
        float(s.mem_util_pct),
        mib(s.mem_used_bytes),
        mib(s.mem_total_bytes),
        int(s.sm_clock_mhz),
        int(s.mem_clock_mhz),
        float(s.power_w),
        float(s.power_limit_w),
        float(s.temperature_c),
        throttle,
    ];
    cells.extend(metrics.iter().map(|m| float(s.activity.iter().find(|(name, _)| name == m).map(|(_, v)| *v))));
    cells
}

/// `value` with at most three decimals and no trailing zeros; empty when not finite.
fn number(value: f64) -> String {
    if !value.is_finite() {
        return String::new();
    }
    let fixed = format!("{value:.3}");
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    if trimmed == "-0" {
        "0".to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// Quotes a field holding a separator, a quote or a line break.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}
