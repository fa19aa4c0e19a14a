//! The rank a job launcher gave this process, from the variables each launcher sets: torchrun
//! (`RANK`, `LOCAL_RANK`, `WORLD_SIZE`), Slurm's `srun` (`SLURM_PROCID`, `SLURM_LOCALID`,
//! `SLURM_NTASKS`), Open MPI's `mpirun` (`OMPI_COMM_WORLD_RANK`, `…_LOCAL_RANK`, `…_SIZE`)
//! and MPICH/PMI (`PMI_RANK`, `PMI_SIZE`). A Kubernetes PyTorchJob runs torchrun and sets
//! the same as it. prof run under a launcher names its outputs per rank and samples the
//! node's utilization once (local rank 0).

/// This process's place in a launched job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchedRank {
    /// Global rank.
    pub rank: u32,
    /// Rank on this node, where the launcher says.
    pub local_rank: Option<u32>,
    /// Ranks in the job, where the launcher says.
    pub world_size: Option<u32>,
    /// Which launcher's variables said so: `torchrun`, `slurm`, `openmpi`, `pmi`.
    pub launcher: &'static str,
}

/// The variables of each launcher: (name, rank, local rank, world size).
const LAUNCHERS: [(&str, &str, &str, &str); 4] = [
    ("torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE"),
    ("slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"),
    ("openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"),
    ("pmi", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"),
];

/// This process's rank from its environment, `None` outside a launched job.
pub fn from_env() -> Option<LaunchedRank> {
    from_vars(|name| std::env::var(name).ok())
}

/// [`from_env`] over any source of variables (the first launcher whose rank variable parses
/// wins: torchrun inside a Slurm allocation is torchrun's rank).
pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Option<LaunchedRank> {
    let number = |name: &str| get(name).and_then(|v| v.trim().parse::<u32>().ok());
    LAUNCHERS.iter().find_map(|&(launcher, rank, local, size)| {
        Some(LaunchedRank { rank: number(rank)?, local_rank: number(local), world_size: number(size), launcher })
    })
}

/// The rank number in an artifact's name as tools write it (`rank3`, `rank_1`, `test_rank_0`,
/// `_rank-0.`, `-rank2-local0`), `None` when it has none.
pub fn rank_in_name(name: &str) -> Option<u32> {
    crate::analysis::ranks::rank_in_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn each_launchers_variables_give_the_rank() {
        let torchrun = from_vars(vars(&[("RANK", "5"), ("LOCAL_RANK", "1"), ("WORLD_SIZE", "16")]));
        assert_eq!(
            torchrun,
            Some(LaunchedRank { rank: 5, local_rank: Some(1), world_size: Some(16), launcher: "torchrun" })
        );
        let slurm = from_vars(vars(&[("SLURM_PROCID", "1023"), ("SLURM_LOCALID", "7"), ("SLURM_NTASKS", "1024")]));
        assert_eq!(slurm.map(|r| (r.rank, r.local_rank, r.launcher)), Some((1023, Some(7), "slurm")));
        let mpi = from_vars(vars(&[("OMPI_COMM_WORLD_RANK", "3"), ("OMPI_COMM_WORLD_SIZE", "4")]));
        assert_eq!(mpi.map(|r| (r.rank, r.local_rank, r.world_size)), Some((3, None, Some(4))));
        let both = from_vars(vars(&[("SLURM_PROCID", "0"), ("RANK", "9")]));
        assert_eq!(both.map(|r| (r.rank, r.launcher)), Some((9, "torchrun")), "torchrun inside an allocation");
        assert_eq!(from_vars(vars(&[("RANK", "x")])), None);
        assert_eq!(from_vars(vars(&[])), None);
    }
}
