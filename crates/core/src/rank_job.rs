//! Multi-rank jobs on disk: a directory holding one artifact (or profile directory) per rank,
//! as torchrun and Slurm jobs write them (`rank0/`, `rank_1/`, `test_rank_0/`,
//! `…_rank-0.….pt.trace.json.gz`, `prof-cupti-<pid>-rank<R>….pcupti`), entries whose rank a
//! backend reads from inside them (a Kineto trace's `distributedInfo.rank`, as
//! `tensorboard_trace_handler` directories hold them; a torch_npu `profiler_info_<R>.json`),
//! or a directory with a vendor's job-wide table ([`crate::Vendor::cluster_table`]).

use crate::analysis::ranks::rank_in_name;
use crate::registry::Registry;
use crate::vendor_tables::{ClusterTable, CommTable, JobTables, RankTables};
use crate::Result;
use prof_timeline::section::Section;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A multi-rank job found on disk.
#[derive(Debug, Clone, PartialEq)]
pub struct RankJob {
    /// The job directory.
    pub root: PathBuf,
    /// One artifact or directory per rank, by rank.
    pub ranks: BTreeMap<u32, PathBuf>,
    /// The vendor's job-wide table of per-rank splits, when present.
    pub cluster: Option<ClusterTable>,
    /// Entries left out (a second entry for a rank already taken).
    pub ignored: Vec<String>,
}

impl Registry {
    /// The multi-rank job at `path`: two or more rank-numbered entries, a vendor's job-wide
    /// table, or one rank directory that holds only a vendor's per-rank tables (no artifact a
    /// reader loads). `None` for anything else.
    pub fn rank_job(&self, path: &Path) -> Option<RankJob> {
        if !path.is_dir() {
            return None;
        }
        let cluster = self.job_tables().find_map(|j| j.cluster_table(path));
        let root = cluster.as_ref().map_or_else(|| path.to_owned(), |c| c.root.clone());
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&root).ok()?.flatten().map(|e| e.path()).collect();
        entries.sort();
        let mut ranks = BTreeMap::new();
        let mut ignored = Vec::new();
        for entry in entries {
            let Some(rank) = self.rank_of_entry(&entry) else { continue };
            match ranks.get(&rank) {
                Some(taken) => ignored.push(format!(
                    "{}: rank {rank} is already {}; ignored",
                    entry.display(),
                    Path::new(taken).display()
                )),
                None => {
                    ranks.insert(rank, entry);
                }
            }
        }
        if ranks.len() >= 2 || cluster.is_some() {
            return Some(RankJob { root, ranks, cluster, ignored });
        }
        // One rank directory of per-rank tables only, which no reader loads: a job of one.
        if !self.reads_itself(path) && self.rank_tables(path).found {
            let rank = self.rank_of_entry(path).unwrap_or(0);
            return Some(RankJob { root, ranks: BTreeMap::from([(rank, path.to_owned())]), cluster: None, ignored });
        }
        None
    }

    /// The rank of one directory entry: the number in its name, else what a backend reads
    /// inside it. Hidden entries have none.
    pub fn rank_of_entry(&self, entry: &Path) -> Option<u32> {
        let name = entry.file_name()?.to_str()?;
        if name.starts_with('.') {
            return None;
        }
        rank_in_name(name).or_else(|| self.job_tables().find_map(|j| j.rank_of_entry(entry)))
    }

    /// The per-rank tables of the first backend that has some under `path`.
    pub fn rank_tables(&self, path: &Path) -> RankTables {
        self.job_tables().map(|j| j.rank_tables(path)).find(|t| t.found).unwrap_or_default()
    }

    /// The per-op communication table under or beside `path`, from the first backend that
    /// has one.
    pub fn communication(&self, path: &Path) -> Option<Result<CommTable>> {
        self.job_tables().find_map(|j| j.communication(path))
    }

    /// Every backend's own sections about `path`.
    pub fn sections(&self, path: &Path) -> Vec<Section> {
        self.vendors().iter().flat_map(|v| v.sections(path)).collect()
    }

    /// The per-rank splits of a job's cluster table, by rank, from the backend that found it.
    pub fn cluster_splits(&self, table: &ClusterTable) -> Result<Vec<(u32, crate::analysis::ranks::RankSplit)>> {
        let tables = self.job_tables().find(|j| j.cluster_table(&table.root).as_ref() == Some(table));
        match tables {
            Some(tables) => tables.cluster_splits(&table.file),
            None => Err(crate::Error::Unsupported(format!("{}: no backend reads this table", table.file.display()))),
        }
    }

    /// The job-directory knowledge of every backend that has some, in registry order.
    fn job_tables(&self) -> impl Iterator<Item = &dyn JobTables> {
        self.vendors().iter().filter_map(|v| v.job_tables())
    }
}
