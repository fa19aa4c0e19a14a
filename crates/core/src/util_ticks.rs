//! Reads a `prof util --csv` recording back into the ticks `prof util` took, so `prof analyze
//! util.csv` gives the same phases, device summaries and verdict as the live run did. Rows
//! with the same `t_ms` form one tick. What the CSV does not keep (maximum clocks, processes)
//! is absent. The file is validated by [`crate::util_csv::load_util_csv`] first.

use crate::probe::DeviceSample;
use crate::recorder::Tick;
use crate::samples_csv::CSV_COLUMNS;
use crate::util_csv::{number_cell, rows};
use prof_timeline::error::{Error, Result};
use std::io::BufReader;
use std::path::Path;

/// The ticks of the recording at `path`.
pub fn read_ticks(path: &Path) -> Result<Vec<Tick>> {
    let bad = |line: usize, reason: String| Error::Artifact { path: path.to_owned(), line, reason };
    let file = std::fs::File::open(path).map_err(|e| bad(0, format!("cannot open: {e}")))?;
    let (header, rows) = rows(BufReader::new(file), path)?;
    let metrics: Vec<String> = header.iter().skip(CSV_COLUMNS.len()).cloned().collect();
    let mut ticks: Vec<Tick> = Vec::new();
    for row in rows {
        let (number, cells) = row?;
        let float = |i: usize| number_cell(&cells[i]);
        let t_ns = (float(0).ok_or_else(|| bad(number, "t_ms is not a time".into()))? * 1e6).round() as u64;
        let device = cells[1].parse().map_err(|_| bad(number, format!("device {:?} is not an index", cells[1])))?;
        let bytes = |i: usize| float(i).map(|mib| (mib * 1_048_576.0).round() as u64);
        let mhz = |i: usize| float(i).map(|v| v.round() as u32);
        let throttle = match cells[11].as_str() {
            "" => None,
            "none" => Some(Vec::new()),
            reasons => Some(reasons.split('|').map(str::to_owned).collect()),
        };
        let activity = metrics
            .iter()
            .enumerate()
            .filter_map(|(k, name)| float(CSV_COLUMNS.len() + k).map(|v| (name.clone(), v)))
            .collect();
        let sample = DeviceSample {
            device,
            gpu_util_pct: float(2),
            mem_util_pct: float(3),
            mem_used_bytes: bytes(4),
            mem_total_bytes: bytes(5),
            sm_clock_mhz: mhz(6),
            mem_clock_mhz: mhz(7),
            power_w: float(8),
            power_limit_w: float(9),
            temperature_c: float(10),
            throttle_reasons: throttle,
            activity,
            ..DeviceSample::default()
        };
        match ticks.last_mut() {
            Some(tick) if tick.t_ns == t_ns => tick.samples.push(sample),
            _ => ticks.push(Tick { t_ns, samples: vec![sample] }),
        }
    }
    Ok(ticks)
}

/// A recording re-built from its CSV ticks (`source` names the file): the interval is the
/// median spacing of the ticks, the elapsed time their span; what the CSV does not keep
/// (start time, probe cost, missed ticks) is zero.
pub fn recording_of(source: &str, ticks: Vec<crate::recorder::Tick>) -> crate::recorder::Recording {
    let mut steps: Vec<u64> = ticks.windows(2).map(|w| w[1].t_ns.saturating_sub(w[0].t_ns)).collect();
    steps.sort_unstable();
    let interval = steps.get(steps.len() / 2).copied().unwrap_or(0);
    let elapsed = match (ticks.first(), ticks.last()) {
        (Some(first), Some(last)) => last.t_ns.saturating_sub(first.t_ns) + interval,
        _ => 0,
    };
    crate::recorder::Recording {
        source: source.to_owned(),
        start_unix_ms: 0,
        interval: std::time::Duration::from_nanos(interval),
        elapsed: std::time::Duration::from_nanos(elapsed),
        ticks,
        missed_ticks: 0,
        errors: Default::default(),
        sample_cost: Default::default(),
    }
}
