//! Reads prof's own `prof util --csv` recording ([`crate::samples_csv`] writes it) back into a
//! [`Timeline`] of counter series and no ops, so `prof analyze util.csv` shows the clock drops
//! of a recording and the throttle reasons active during them.
//!
//! The file is recognised by its header alone: its first fields must be exactly
//! [`CSV_COLUMNS`], then any activity metric columns. Each row becomes points of one series per
//! (column, device), at `t_ms` since the recording started; an empty cell (a value the probe did
//! not report) adds no point. `throttle_reasons` becomes one 0/1 series per reason seen, named
//! [`THROTTLE_REASON_PREFIX`] + the reason, with a point at every row that reports throttle
//! information (`none` sets every reason to 0). A row with another number of fields than the
//! header, a cell that is not a number, or time going back on a device is an error naming the
//! line.

use crate::analysis::counters::THROTTLE_REASON_PREFIX;
use crate::samples_csv::CSV_COLUMNS;
use prof_timeline::csv_record::split_line;
use prof_timeline::error::{Error, Result};
use prof_timeline::intern::{FxHashMap, NameId};
use prof_timeline::timeline::{CounterSeries, Timeline};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// The numeric columns read as series: (column, series name, unit).
pub(crate) const UTIL_CSV_SERIES: [(&str, &str, &str); 8] = [
    ("gpu_util_pct", "GPU utilization", "%"),
    ("mem_util_pct", "memory utilization", "%"),
    ("mem_used_mib", "memory used", "MiB"),
    ("sm_clock_mhz", "SM clock", "MHz"),
    ("mem_clock_mhz", "memory clock", "MHz"),
    ("power_w", "power", "W"),
    ("power_limit_w", "power limit", "W"),
    ("temperature_c", "temperature", "°C"),
];

/// The longest header line looked at when recognising a file.
const MAX_HEADER_BYTES: u64 = 64 * 1024;

/// Whether `path` is a `prof util --csv` recording: its first line starts with exactly the
/// fixed columns of [`CSV_COLUMNS`] (then nothing, or more columns).
pub fn is_util_csv(path: &Path) -> bool {
    let Ok(file) = File::open(path) else { return false };
    let mut first = String::new();
    if BufReader::new(file.take(MAX_HEADER_BYTES)).read_line(&mut first).is_err() {
        return false;
    }
    header_matches(first.trim_end_matches(['\n', '\r']))
}

/// The `prof util --csv` recording as a format of the registry ([`crate::Registry::load`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct UtilCsvImporter;

impl crate::Importer for UtilCsvImporter {
    fn name(&self) -> &'static str {
        "prof util CSV"
    }

    fn recognizes(&self, path: &Path) -> bool {
        path.is_file() && is_util_csv(path)
    }

    fn recognize(&self, path: &Path) -> Option<crate::recognition::Recognition> {
        self.recognizes(path).then(|| {
            crate::recognition::Recognition::new(
                crate::recognition::Certainty::Signature,
                "the `prof util --csv` header",
            )
        })
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        load_util_csv(path)
    }
}

fn header_matches(line: &str) -> bool {
    let fixed = CSV_COLUMNS.join(",");
    line.strip_prefix(&fixed).is_some_and(|rest| rest.is_empty() || rest.starts_with(','))
}

/// Loads the recording at `path` (see the module doc).
pub(crate) fn load_util_csv(path: &Path) -> Result<Timeline> {
    let file = File::open(path).map_err(|e| Error::Artifact {
        path: path.to_owned(),
        line: 0,
        reason: format!("cannot open: {e}"),
    })?;
    read_util_csv(BufReader::new(file), path)
}

/// Where each value of a row goes.
struct Columns {
    t: usize,
    device: usize,
    throttle: usize,
    /// (column index, series name, unit) of every numeric series column.
    numeric: Vec<(usize, NameId, Option<NameId>)>,
}

/// Reads a recording from `input`; `path` names it in errors and in the timeline's source.
pub fn read_util_csv(input: impl BufRead, path: &Path) -> Result<Timeline> {
    let bad = |line: usize, reason: String| Error::Artifact { path: path.to_owned(), line, reason };
    let (header, rows) = rows(input, path)?;
    let mut timeline = Timeline::new(path.display().to_string());
    let columns = columns(&header, &mut timeline);
    let mut series_of: FxHashMap<(usize, u32), usize> = FxHashMap::default();
    let mut reasons = Reasons::default();
    let mut last_t: FxHashMap<u32, u64> = FxHashMap::default();
    for row in rows {
        let (number, cells) = row?;
        let t_ms: f64 = number_cell(&cells[columns.t])
            .ok_or_else(|| bad(number, format!("t_ms {:?} is not a time", cells[columns.t])))?;
        if t_ms < 0.0 {
            return Err(bad(number, format!("t_ms {t_ms} is not a time")));
        }
        let device: u32 = cells[columns.device]
            .parse()
            .map_err(|_| bad(number, format!("device {:?} is not an index", cells[columns.device])))?;
        let t_ns = (t_ms * 1e6).round() as u64;
        if last_t.insert(device, t_ns).is_some_and(|previous| previous > t_ns) {
            return Err(bad(number, format!("t_ms {t_ms} goes back in time on device {device}")));
        }
        for &(col, name, unit) in &columns.numeric {
            let raw = &cells[col];
            if raw.is_empty() {
                continue;
            }
            let value =
                number_cell(raw).ok_or_else(|| bad(number, format!("{} {raw:?} is not a number", header[col])))?;
            let index = *series_of.entry((col, device)).or_insert_with(|| {
                timeline.counters.push(CounterSeries { name, device: Some(device), unit, points: Vec::new() });
                timeline.counters.len() - 1
            });
            timeline.counters[index].points.push((t_ns, value));
        }
        reasons.add(&mut timeline, device, t_ns, &cells[columns.throttle]);
    }
    Ok(timeline)
}

/// One data row of a recording: its line number and its fields.
pub(crate) type Row = Result<(usize, Vec<String>)>;

/// The header fields of a recording read from `input`, and its data rows: each with its line
/// number and as many fields as the header (else an error naming the line); blank lines are
/// skipped. `path` names the file in errors.
pub(crate) fn rows<'a>(
    input: impl BufRead + 'a,
    path: &'a Path,
) -> Result<(Vec<String>, impl Iterator<Item = Row> + 'a)> {
    let bad = move |line: usize, reason: String| Error::Artifact { path: path.to_owned(), line, reason };
    let mut lines = input.lines();
    let header = match lines.next() {
        Some(line) => line.map_err(|e| bad(1, format!("cannot read: {e}")))?,
        None => String::new(),
    };
    if !header_matches(header.trim_end_matches('\r')) {
        return Err(bad(1, format!("not a prof util CSV: the header must start {}", CSV_COLUMNS.join(","))));
    }
    let header = split_line(header.trim_end_matches('\r')).map_err(|reason| bad(1, reason.to_string()))?;
    let count = header.len();
    let rows = lines.enumerate().filter_map(move |(index, line)| {
        let number = index + 2;
        let line = match line {
            Ok(line) => line,
            Err(e) => return Some(Err(bad(number, format!("cannot read: {e}")))),
        };
        let line = line.trim_end_matches('\r');
        if line.is_empty() {
            return None;
        }
        Some(match split_line(line) {
            Err(reason) => Err(bad(number, reason.to_string())),
            Ok(cells) if cells.len() != count => Err(bad(
                number,
                format!("{} fields, the header has {count} (a truncated or hand-edited row)", cells.len()),
            )),
            Ok(cells) => Ok((number, cells)),
        })
    });
    Ok((header, rows))
}

fn columns(header: &[String], timeline: &mut Timeline) -> Columns {
    let at = |name: &str| header.iter().position(|c| c == name).unwrap_or(0);
    let mut numeric = Vec::new();
    for (column, series, unit) in UTIL_CSV_SERIES {
        let (name, unit) = (timeline.intern(series), timeline.intern(unit));
        numeric.push((at(column), name, Some(unit)));
    }
    let percent = timeline.intern("%");
    for (col, metric) in header.iter().enumerate().skip(CSV_COLUMNS.len()) {
        let unit = metric.ends_with("_pct").then_some(percent);
        numeric.push((col, timeline.intern(metric), unit));
    }
    Columns { t: at("t_ms"), device: at("device"), throttle: at("throttle_reasons"), numeric }
}

/// A finite number, or `None`.
pub(crate) fn number_cell(raw: &str) -> Option<f64> {
    raw.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The 0/1 throttle-reason series, per (reason, device).
#[derive(Default)]
struct Reasons {
    /// (reason, device) → index in timeline.counters.
    series: Vec<((String, u32), usize)>,
    /// Times of the rows of each device that reported throttle information, so a reason first
    /// seen late is 0 at every earlier row.
    reported: FxHashMap<u32, Vec<u64>>,
}

impl Reasons {
    fn add(&mut self, timeline: &mut Timeline, device: u32, t_ns: u64, cell: &str) {
        if cell.is_empty() {
            return;
        }
        let active: Vec<&str> = if cell == "none" { Vec::new() } else { cell.split('|').collect() };
        let earlier = self.reported.entry(device).or_default();
        for reason in &active {
            if !self.series.iter().any(|((r, d), _)| r == reason && *d == device) {
                let name = timeline.intern(&format!("{THROTTLE_REASON_PREFIX}{reason}"));
                let points = earlier.iter().map(|&t| (t, 0.0)).collect();
                timeline.counters.push(CounterSeries { name, device: Some(device), unit: None, points });
                self.series.push(((reason.to_string(), device), timeline.counters.len() - 1));
            }
        }
        earlier.push(t_ns);
        for ((reason, _), index) in self.series.iter().filter(|((_, d), _)| *d == device) {
            let value = if active.contains(&reason.as_str()) { 1.0 } else { 0.0 };
            timeline.counters[*index].points.push((t_ns, value));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::counters::counter_drops;
    use crate::probe::DeviceSample;
    use crate::recorder::Tick;

    fn read(text: &str) -> Result<Timeline> {
        read_util_csv(text.as_bytes(), Path::new("x.csv"))
    }

    #[test]
    fn round_trips_through_the_writer() {
        // SM clock 1980, 1980, 345, 1500, 1980 at 0, 100, 200, 300, 400 ms; memory clock flat 3201;
        // sw_power_cap from the third sample on, gpu_idle in the first, none in the second.
        let reasons: [&[&str]; 5] =
            [&["gpu_idle"], &[], &["sw_power_cap"], &["sw_power_cap", "gpu_idle"], &["sw_power_cap"]];
        let ticks: Vec<Tick> = [1980u32, 1980, 345, 1500, 1980]
            .iter()
            .zip(reasons)
            .enumerate()
            .map(|(i, (&sm, active))| Tick {
                t_ns: i as u64 * 100_000_000,
                samples: vec![DeviceSample {
                    device: 0,
                    sm_clock_mhz: Some(sm),
                    mem_clock_mhz: Some(3201),
                    power_w: Some(650.5),
                    throttle_reasons: Some(active.iter().map(|r| r.to_string()).collect()),
                    activity: vec![("sm, activity_pct".to_owned(), 50.0)],
                    ..Default::default()
                }],
            })
            .collect();
        let mut csv = Vec::new();
        crate::samples_csv::write_csv(&ticks, &mut csv).unwrap();
        let text = String::from_utf8(csv).unwrap();
        let t = read(&text).unwrap();
        let names: Vec<&str> = t.counters.iter().map(|s| t.name(s.name)).collect();
        assert_eq!(
            names,
            [
                "SM clock",
                "memory clock",
                "power",
                "sm, activity_pct",
                "throttle reason gpu_idle",
                "throttle reason sw_power_cap"
            ]
        );
        let all = counter_drops(&t);
        let sm = &all[0];
        assert_eq!((sm.unit.as_deref(), sm.points), (Some("MHz"), 5));
        // one drop from 200 ms to 400 ms, down to 345, under sw_power_cap (and gpu_idle at 300 ms).
        assert_eq!((sm.drop_count, sm.below_nominal_ns, sm.drops[0].offset_ns), (1, 200_000_000, 200_000_000));
        assert_eq!(sm.drops[0].reasons, ["gpu_idle", "sw_power_cap"]);
        let cap = &t.counters[5].points;
        assert_eq!(cap.iter().map(|p| p.1).collect::<Vec<_>>(), [0.0, 0.0, 1.0, 1.0, 1.0]);
        let idle = &t.counters[4].points;
        assert_eq!(idle.iter().map(|p| p.1).collect::<Vec<_>>(), [1.0, 0.0, 0.0, 1.0, 0.0]);
        assert_eq!(t.counters[3].unit.map(|u| t.name(u)), Some("%"));
        assert!(t.ops.is_empty());
    }

    #[test]
    fn bad_input_names_the_line() {
        let header = CSV_COLUMNS.join(",");
        let err = read("a,b\n1,2\n").unwrap_err().to_string();
        assert!(err.starts_with("x.csv:1: not a prof util CSV"), "{err}");
        // A different column in the fixed part is not claimed.
        assert!(!header_matches(&header.replace("sm_clock_mhz", "sm_clock")));
        assert!(!header_matches(&format!("{header}x")));
        assert!(header_matches(&format!("{header},sm_activity_pct")));
        let row = "0,0,100,5,1,2,1980,3201,600,700,50,none";
        let err = read(&format!("{header}\n{row}\n0,0,100\n")).unwrap_err().to_string();
        assert!(err.starts_with("x.csv:3: 3 fields, the header has 12"), "{err}");
        let err = read(&format!("{header}\n{}\n", row.replacen("1980", "fast", 1))).unwrap_err().to_string();
        assert!(err.starts_with("x.csv:2: sm_clock_mhz \"fast\" is not a number"), "{err}");
        let err = read(&format!("{header}\n{}\n", row.replacen("0,", "soon,", 1))).unwrap_err().to_string();
        assert!(err.starts_with("x.csv:2: t_ms \"soon\""), "{err}");
        let err = read(&format!("{header}\n{}\n{row}\n", row.replacen("0,", "9,", 1))).unwrap_err().to_string();
        assert!(err.starts_with("x.csv:3: t_ms 0 goes back in time"), "{err}");
        let err = read(&format!("{header}\n{}\n", row.replacen("none", "\"none", 1))).unwrap_err().to_string();
        assert!(err.starts_with("x.csv:2: the record ends inside a quoted field"), "{err}");
    }
}
