//! The HIP API calls of a rocprofv3 `hip_api_trace.csv`: loaded as host spans, or read and
//! handed on one at a time (the summary needs only their span).

use crate::rocprof_csv::{CsvReader, Record};
use crate::rocprofv3_rows::{columns, interval};
use prof_core::{HostCategory, HostSpan, Result, Timeline};
use std::io::BufRead;

/// The columns of `*_hip_api_trace.csv` this loader needs.
pub const HIP_COLUMNS: &[&str] =
    &["Domain", "Function", "Process_Id", "Thread_Id", "Correlation_Id", "Start_Timestamp", "End_Timestamp"];
const HIP_EXPECTED: &str = "a rocprofv3 hip_api_trace.csv header (Domain, Function, Process_Id, Thread_Id, \
     Correlation_Id, Start_Timestamp, End_Timestamp)";

/// Appends the HIP API calls of `csv` (a `hip_api_trace.csv`) to `timeline` as host spans.
pub fn load_hip_api<R: BufRead>(csv: CsvReader<R>, corr_base: u64, timeline: &mut Timeline) -> Result<usize> {
    read_hip_api(csv, corr_base, timeline, |timeline, function, mut span| {
        span.name = timeline.intern(function);
        timeline.push_host(span);
    })
}

/// Reads the HIP API calls of `csv` as [`load_hip_api`] does, each handed to `sink` with its
/// function's name (the span's own name is left for `sink` to set); a cut last row is noted
/// on `timeline`, and reading stops when it is full.
pub(crate) fn read_hip_api<R: BufRead>(
    mut csv: CsvReader<R>,
    corr_base: u64,
    timeline: &mut Timeline,
    mut sink: impl FnMut(&mut Timeline, &str, HostSpan),
) -> Result<usize> {
    let [domain, function, pid, tid, corr, start, end] = columns(&csv, HIP_COLUMNS, HIP_EXPECTED)?;
    let mut added = 0;
    let mut r = Record::default();
    while !timeline.is_full() && csv.next_record_into(&mut r)? {
        let (start_ns, dur_ns) = interval(&csv, &r, start, end)?;
        let category =
            if csv.text(&r, domain).starts_with("HIP_") { HostCategory::Runtime } else { HostCategory::Other };
        let pid = u32::try_from(csv.u64(&r, pid)?).map_err(|_| csv.error(&r, "`Process_Id` does not fit 32 bits"))?;
        let (tid, correlation) = (csv.u64(&r, tid)?, Some(corr_base | csv.u64(&r, corr)?).into());
        let span = HostSpan::new(prof_core::NameId(0), category, (pid, tid), start_ns, dur_ns, correlation);
        sink(timeline, csv.text(&r, function), span);
        added += 1;
    }
    csv.mark_cut(timeline);
    Ok(added)
}
