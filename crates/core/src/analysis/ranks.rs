//! Multi-rank comparison: one wall-time split per rank (from its timeline's temporal
//! breakdown, or from the vendor's own per-step table), the slowest rank, and why it is slow:
//! its excess wall time over the median rank, split into compute, communication, other
//! device work and idle. Also which ranks of `0..=max` are missing, and how per-rank
//! artifacts are numbered (`rank3`, `rank_1`, `test_rank_0`, `_rank-0.`, `-rank2-local0`).

use super::temporal::DeviceTemporal;
use serde::Serialize;

/// How one rank's wall time splits; the parts sum to `wall_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RankSplit {
    /// Wall time, ns.
    pub wall_ns: u64,
    /// Compute, ns.
    pub compute_ns: u64,
    /// Communication not hidden under compute, ns.
    pub communication_ns: u64,
    /// Other device work (memory traffic, untyped tasks) not under compute or communication, ns.
    pub other_ns: u64,
    /// Nothing ran, ns.
    pub idle_ns: u64,
}

impl RankSplit {
    /// The split of a rank's devices, summed (a rank normally drives one device).
    pub fn from_temporal(devices: &[DeviceTemporal]) -> Option<Self> {
        if devices.is_empty() {
            return None;
        }
        Some(devices.iter().fold(Self::default(), |acc, d| Self {
            wall_ns: acc.wall_ns + d.wall_ns,
            compute_ns: acc.compute_ns + d.compute_ns,
            communication_ns: acc.communication_ns + d.communication_ns,
            other_ns: acc.other_ns + d.memory_ns + d.other_ns,
            idle_ns: acc.idle_ns + d.idle_ns,
        }))
    }

    /// Time something ran, ns.
    pub fn busy_ns(&self) -> u64 {
        self.wall_ns - self.idle_ns
    }

    /// `ns` as a percentage of the wall (0 for an empty wall).
    pub fn share_pct(&self, ns: u64) -> f64 {
        if self.wall_ns == 0 {
            0.0
        } else {
            ns as f64 * 100.0 / self.wall_ns as f64
        }
    }
}

/// The slowest rank against the median rank.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SlowestRank {
    /// The rank with the longest wall time (lowest rank on ties).
    pub rank: u32,
    /// Its wall time, ns.
    pub wall_ns: u64,
    /// Median wall over all ranks, ns (the mean of the two middle ranks for an even count).
    pub median_wall_ns: u64,
    /// `wall_ns - median_wall_ns`.
    pub excess_ns: i64,
    /// Its compute minus the median rank's, ns.
    pub excess_compute_ns: i64,
    /// Its communication minus the median rank's, ns.
    pub excess_communication_ns: i64,
    /// Its other device work minus the median rank's, ns.
    pub excess_other_ns: i64,
    /// Its idle minus the median rank's, ns.
    pub excess_idle_ns: i64,
    /// Which part contributes most of the excess: `compute`, `communication`, `other` or `idle`;
    /// `none` when no part exceeds the median rank's (all ranks alike).
    pub cause: &'static str,
}

/// The slowest of `ranks` and its excess over the median rank, split by part. The median rank
/// is the middle one by wall time (for an even count the mean of the two middle ones, part by
/// part), so the parts of the excess sum to the excess. `None` for fewer than two ranks.
pub fn slowest_rank(ranks: &[(u32, RankSplit)]) -> Option<SlowestRank> {
    if ranks.len() < 2 {
        return None;
    }
    let mut by_wall: Vec<&(u32, RankSplit)> = ranks.iter().collect();
    by_wall.sort_by_key(|(rank, split)| (split.wall_ns, std::cmp::Reverse(*rank)));
    let &&(rank, slow) = by_wall.last()?;
    let n = by_wall.len();
    let middle: Vec<RankSplit> =
        if n % 2 == 1 { vec![by_wall[n / 2].1] } else { vec![by_wall[n / 2 - 1].1, by_wall[n / 2].1] };
    let median = |part: fn(&RankSplit) -> u64| -> f64 {
        middle.iter().map(|s| part(s) as f64).sum::<f64>() / middle.len() as f64
    };
    let excess = |part: fn(&RankSplit) -> u64| -> i64 { (part(&slow) as f64 - median(part)).round() as i64 };
    let parts = [
        ("compute", excess(|s| s.compute_ns)),
        ("communication", excess(|s| s.communication_ns)),
        ("other", excess(|s| s.other_ns)),
        ("idle", excess(|s| s.idle_ns)),
    ];
    let cause = match parts.iter().max_by_key(|(_, ns)| *ns) {
        Some((name, ns)) if *ns > 0 => *name,
        _ => "none",
    };
    Some(SlowestRank {
        rank,
        wall_ns: slow.wall_ns,
        median_wall_ns: median(|s| s.wall_ns).round() as u64,
        excess_ns: excess(|s| s.wall_ns),
        excess_compute_ns: parts[0].1,
        excess_communication_ns: parts[1].1,
        excess_other_ns: parts[2].1,
        excess_idle_ns: parts[3].1,
        cause,
    })
}

/// The ranks of `0..=max(ranks)` that `ranks` lacks, in order.
pub fn missing_ranks(ranks: &[u32]) -> Vec<u32> {
    let Some(&max) = ranks.iter().max() else { return Vec::new() };
    (0..=max).filter(|r| !ranks.contains(r)).collect()
}

/// The rank number in a per-rank file or directory name: the digits after the last `rank`
/// (any case), optionally after one `_` or `-`. `None` when the name carries no rank.
pub(crate) fn rank_in_name(name: &str) -> Option<u32> {
    let lower = name.to_ascii_lowercase();
    lower.rmatch_indices("rank").find_map(|(at, word)| {
        let rest = &lower[at + word.len()..];
        let rest = rest.strip_prefix(['_', '-']).unwrap_or(rest);
        let digits: &str = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
        digits.parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(compute: u64, communication: u64, idle: u64) -> RankSplit {
        RankSplit {
            wall_ns: compute + communication + idle,
            compute_ns: compute,
            communication_ns: communication,
            other_ns: 0,
            idle_ns: idle,
        }
    }

    #[test]
    fn rank_numbers_come_from_the_names_tools_write() {
        assert_eq!(rank_in_name("rank0"), Some(0));
        assert_eq!(rank_in_name("rank_1"), Some(1));
        assert_eq!(rank_in_name("test_rank_12"), Some(12));
        assert_eq!(rank_in_name("hta_v100_resnet_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"), Some(0));
        assert_eq!(rank_in_name("prof-cupti-4242-rank3-local1.pcupti"), Some(3));
        assert_eq!(rank_in_name("RANK7"), Some(7));
        assert_eq!(rank_in_name("ranking.json"), None);
        assert_eq!(rank_in_name("trace.json"), None);
    }

    #[test]
    fn the_slowest_rank_is_explained_against_the_median_rank() {
        // walls 100, 120, 150 (median 120): rank 2 has +10 compute, +30 communication, -10 idle.
        let ranks = [(0, split(50, 30, 20)), (1, split(60, 40, 20)), (2, split(70, 70, 10))];
        let slow = slowest_rank(&ranks).unwrap();
        assert_eq!((slow.rank, slow.wall_ns, slow.median_wall_ns, slow.excess_ns), (2, 150, 120, 30));
        assert_eq!((slow.excess_compute_ns, slow.excess_communication_ns, slow.excess_idle_ns), (10, 30, -10));
        assert_eq!(slow.cause, "communication");
        assert_eq!(
            slow.excess_compute_ns + slow.excess_communication_ns + slow.excess_other_ns + slow.excess_idle_ns,
            30
        );
    }

    #[test]
    fn an_even_count_takes_the_mean_of_the_two_middle_ranks() {
        // walls 100, 110, 130, 200: median rank = mean of (60,30,20) and (60,40,30) = (60,35,25), wall 120.
        let ranks = [(3, split(50, 30, 20)), (1, split(60, 30, 20)), (2, split(60, 40, 30)), (0, split(60, 40, 100))];
        let slow = slowest_rank(&ranks).unwrap();
        assert_eq!((slow.rank, slow.median_wall_ns, slow.excess_ns), (0, 120, 80));
        assert_eq!((slow.excess_compute_ns, slow.excess_communication_ns, slow.excess_idle_ns), (0, 5, 75));
        assert_eq!(slow.cause, "idle");
        assert_eq!(slowest_rank(&ranks[..1]), None);
        let alike = [(0, split(1, 1, 1)), (1, split(1, 1, 1))];
        assert_eq!(slowest_rank(&alike).map(|s| (s.rank, s.excess_ns, s.cause)), Some((0, 0, "none")));
    }

    #[test]
    fn gaps_in_the_rank_numbers_are_missing_ranks() {
        assert_eq!(missing_ranks(&[0, 1, 3, 5]), vec![2, 4]);
        assert_eq!(missing_ranks(&[1]), vec![0]);
        assert!(missing_ranks(&[]).is_empty());
    }
}
