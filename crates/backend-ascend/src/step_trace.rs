//! torch_npu's per-rank `ASCEND_PROFILER_OUTPUT/step_trace_time.csv` and msprof-analyze's
//! `cluster_analysis_output/cluster_step_trace_time.csv`: per step (and, in the cluster file,
//! per `Type`/`Index`: one row per rank and one per pipeline stage) the step's time split into
//! `Computing`, `Communication(Not Overlapped)`, `Overlapped` and `Free`, in µs.
//!
//! From the recording: `Computing + Communication(Not Overlapped) + Free` is the step time
//! (rank 0: 75174.57 + 146614.02 + 69909.50 = 291698.1 = its `Stage`; on pipeline ranks that
//! wait for activations the sum is `Stage + Bubble`, the bubble being receive time counted in
//! communication). So the step's wall splits exactly into compute, exposed communication and
//! idle (`Free`); `Overlapped` is communication hidden under compute.

use crate::csv_table::CsvTable;
use crate::error::AscendError;
use prof_core::analysis::ranks::RankSplit;
use std::path::Path;

/// One row: one step of one rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepTime {
    /// The `Step` column, when filled.
    pub step: Option<String>,
    /// The rank (`Index` of a `Type` = `rank` row); `None` in a per-rank file.
    pub rank: Option<u32>,
    /// Compute, ns.
    pub computing_ns: u64,
    /// Communication not overlapped by compute, ns.
    pub communication_ns: u64,
    /// Communication overlapped by compute, ns.
    pub overlapped_ns: u64,
    /// Free (nothing running), ns.
    pub free_ns: u64,
}

impl StepTime {
    /// The step's wall: compute + exposed communication + free, ns.
    pub fn wall_ns(&self) -> u64 {
        // Saturating only matters for rows not from `parse`, which rejects sums past 64 bits.
        self.computing_ns.saturating_add(self.communication_ns).saturating_add(self.free_ns)
    }
}

/// Reads a `step_trace_time.csv` or `cluster_step_trace_time.csv`; the cluster file's stage
/// rows are dropped (they repeat the ranks' maxima).
pub fn load(path: &Path) -> Result<Vec<StepTime>, AscendError> {
    let bytes = std::fs::read(path).map_err(|e| AscendError::file(path, 0, e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|_| AscendError::file(path, 0, "not UTF-8 text"))?;
    parse(&text, path)
}

/// Parses `text` as one of the two files, naming `path` in errors. Both tools end the file
/// with a newline; text without one is cut short, and its last number may be cut too, so it
/// is an error rather than a silently smaller value.
pub fn parse(text: &str, path: &Path) -> Result<Vec<StepTime>, AscendError> {
    if !text.is_empty() && !text.ends_with('\n') {
        let line = text.lines().count();
        return Err(AscendError::file(path, line, "the file ends mid-line (cut short?)"));
    }
    parse_table(&CsvTable::parse(text, path)?)
}

fn parse_table(table: &CsvTable) -> Result<Vec<StepTime>, AscendError> {
    let step = table.column(&["Step"]);
    let kind = table.column(&["Type"]);
    let index = table.column(&["Index"]);
    let computing = table.require(&["Computing"])?;
    let communication = table.require(&["Communication(Not Overlapped)"])?;
    let overlapped = table.require(&["Overlapped"])?;
    let free = table.require(&["Free"])?;
    let mut rows = Vec::new();
    let mut total_ns = 0u64;
    for row in table.rows() {
        let rank = match (row.get(kind), index) {
            (Some("rank"), Some(col)) => {
                let index = row.integer(Some(col))?.ok_or_else(|| row.error(col, "is empty"))?;
                Some(u32::try_from(index).map_err(|_| row.error(col, &format!("{index} is not a rank number")))?)
            }
            (Some(_), _) => continue,
            (None, _) => None,
        };
        let micros = |col: usize| row.micros_ns(Some(col))?.ok_or_else(|| row.error(col, "is empty or N/A"));
        let step_time = StepTime {
            step: row.get(step).map(str::to_owned),
            rank,
            computing_ns: micros(computing)?,
            communication_ns: micros(communication)?,
            overlapped_ns: micros(overlapped)?,
            free_ns: micros(free)?,
        };
        // The four columns summed over the file bound every wall and every per-rank sum made
        // from these rows, so past this check none of them can overflow.
        total_ns = [step_time.computing_ns, step_time.communication_ns, step_time.overlapped_ns, step_time.free_ns]
            .into_iter()
            .try_fold(total_ns, u64::checked_add)
            .ok_or_else(|| AscendError::file(table.path(), row.line(), "the step times add up past 64 bits of ns"))?;
        rows.push(step_time);
    }
    if rows.is_empty() {
        return Err(AscendError::file(table.path(), 0, "no step rows"));
    }
    Ok(rows)
}

/// The split of `steps` (one rank's rows), summed over steps.
pub fn rank_split<'a>(steps: impl IntoIterator<Item = &'a StepTime>) -> RankSplit {
    steps.into_iter().fold(RankSplit::default(), |acc, s| RankSplit {
        wall_ns: acc.wall_ns.saturating_add(s.wall_ns()),
        compute_ns: acc.compute_ns.saturating_add(s.computing_ns),
        communication_ns: acc.communication_ns.saturating_add(s.communication_ns),
        other_ns: 0,
        idle_ns: acc.idle_ns.saturating_add(s.free_ns),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::{fixture_path, MSINSIGHT_RANK0};

    #[test]
    fn the_rank_file_and_the_cluster_file_agree_on_rank_0() {
        let own =
            load(&fixture_path(&format!("{MSINSIGHT_RANK0}/ASCEND_PROFILER_OUTPUT/step_trace_time.csv"))).unwrap();
        assert_eq!(own.len(), 1);
        // The file: Step 2, Computing 75174.57464453117, Communication(Not Overlapped) 146614.02034375005,
        // Free 69909.50350390615 µs.
        assert_eq!((own[0].step.as_deref(), own[0].rank), (Some("2"), None));
        assert_eq!(
            (own[0].computing_ns, own[0].communication_ns, own[0].free_ns),
            (75_174_575, 146_614_020, 69_909_504)
        );
        let cluster =
            load(&fixture_path("msinsight_gpt3_16rank_torch_npu/cluster_analysis_output/cluster_step_trace_time.csv"))
                .unwrap();
        // python: 16 rows with Type == "rank", Index 0..15 (the 2 stage rows dropped)
        assert_eq!(cluster.len(), 16);
        assert_eq!(cluster.iter().filter_map(|s| s.rank).collect::<Vec<_>>(), (0..16).collect::<Vec<_>>());
        assert_eq!(cluster[0].computing_ns, own[0].computing_ns);
        // python: rank 11: 79879.36000000002 + 231698.2 + 82657.36000000013 = 394234.92 µs
        let split = rank_split(cluster.iter().filter(|s| s.rank == Some(11)));
        assert_eq!((split.wall_ns, split.communication_ns, split.idle_ns), (394_234_920, 231_698_200, 82_657_360));
    }

    #[test]
    fn missing_columns_and_bad_values_name_the_file_and_line() {
        let path = Path::new("step_trace_time.csv");
        let error = parse("Step,Computing,Free\n2,1.0,2.0\n", path).unwrap_err().to_string();
        assert!(error.contains("step_trace_time.csv:1: no column Communication(Not Overlapped)"), "{error}");
        let text = "Step,Computing,Communication(Not Overlapped),Overlapped,Free\n2,1.0,x,0,1\n";
        let error = parse(text, path).unwrap_err().to_string();
        assert!(error.contains("step_trace_time.csv:2:") && error.contains("Communication(Not Overlapped)"), "{error}");
        let error = parse(&text[..text.len() - 2], path).unwrap_err().to_string();
        assert!(error.contains("step_trace_time.csv:2: the file ends mid-line"), "{error}");
        let error = parse("Step,Computing,Communication(Not Overlapped),Overlapped,Free\n", path).unwrap_err();
        assert!(error.to_string().contains("no step rows"));
    }

    /// Regression (a hand-made input through fuzz/'s `ascend_step_trace`, overflow checks on):
    /// a step's wall and the per-rank sums used to overflow, and an `Index` past `u32::MAX`
    /// wrapped to another rank.
    #[test]
    fn times_and_ranks_past_their_width_are_errors_not_wraps() {
        let own = fixture_path(&format!("{MSINSIGHT_RANK0}/ASCEND_PROFILER_OUTPUT/step_trace_time.csv"));
        let text = std::fs::read_to_string(&own).unwrap();
        // 1.8·10¹⁶ µs = 1.8·10¹⁹ ns fits in a u64 (< 1.84·10¹⁹), two of them in one row do not.
        let huge =
            text.replace("75174.57464453117", "18000000000000000").replace("69909.50350390615", "18000000000000000");
        let error = parse(&huge, &own).unwrap_err().to_string();
        assert!(error.contains("step_trace_time.csv:2: the step times add up past 64 bits"), "{error}");
        let cluster =
            fixture_path("msinsight_gpt3_16rank_torch_npu/cluster_analysis_output/cluster_step_trace_time.csv");
        let text = std::fs::read_to_string(&cluster).unwrap();
        let wrapped = text.replacen("2,rank,1,", "2,rank,4294967297,", 1);
        assert_ne!(wrapped, text);
        let error = parse(&wrapped, &cluster).unwrap_err().to_string();
        assert!(
            error.contains("cluster_step_trace_time.csv:3: column Index 4294967297 is not a rank number"),
            "{error}"
        );
    }
}
