//! Communication bandwidth per collective type: how many all-reduces, all-gathers, sends… ran,
//! how many bytes they moved, how long they took, and the effective bandwidth bytes / latency
//! (what nccl-tests calls the algorithm bandwidth: payload over elapsed time, waiting
//! included). Written over plain [`CommSample`]s so the timeline's communication ops and a
//! vendor's own per-op table (Ascend `communication.json`) share one aggregation.
//!
//! No link peak is applied to timeline ops: a timeline says neither the interconnect nor the
//! topology, so a "percent of peak" would be a guess. Where the source measures the link
//! itself (Ascend gives a bandwidth per transport), the caller passes it as
//! [`CommSample::link_bytes_ns`] and the report sets that measured link rate beside the
//! effective bandwidth.

use super::temporal::{activity_of, Activity};
use crate::families::Families;
use prof_timeline::intern::FxHashMap;
use prof_timeline::timeline::Timeline;
use serde::Serialize;

/// One communication op, as far as bandwidth is concerned.
#[derive(Debug, Clone, PartialEq)]
pub struct CommSample {
    /// Collective type ([`collective_type`] of the op name).
    pub op_type: String,
    /// Bytes moved, when the source says.
    pub bytes: Option<u64>,
    /// Elapsed time of the op, ns.
    pub latency_ns: u64,
    /// Bytes and time spent actually on the link (transit), when the source measures it.
    pub link_bytes_ns: Option<(u64, u64)>,
}

/// The totals of one collective type.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CollectiveStats {
    /// Collective type (`all_reduce`, `all_gather`, `send`, …).
    pub op_type: String,
    /// Ops of this type.
    pub count: u64,
    /// Total elapsed time, ns.
    pub total_ns: u64,
    /// Ops that report their bytes.
    pub ops_with_bytes: u64,
    /// Bytes moved by the ops that report them (`None` when none does).
    pub bytes: Option<u64>,
    /// Bytes over the elapsed time of the ops that report bytes, GB/s (10⁹ bytes per second);
    /// `None` without bytes or time.
    pub bandwidth_gbps: Option<f64>,
    /// Transit bytes over transit time, GB/s: the per-link rate the source measured, when it
    /// does. Set beside the effective bandwidth, not divided into it: an op that spreads over
    /// several links at once (an 8-NPU all-gather over 7 HCCS links) has transit times that add
    /// up to more than its elapsed time, so its effective bandwidth can exceed one link's rate.
    pub link_gbps: Option<f64>,
}

/// GB/s (10⁹ bytes per second) of `bytes` in `ns`; `None` for no time.
pub fn gbps(bytes: u64, ns: u64) -> Option<f64> {
    (ns > 0).then(|| bytes as f64 / ns as f64)
}

/// The collective type of an op name, lower snake case: NCCL/RCCL kernels
/// (`ncclDevKernel_AllReduce_Sum_f32_RING_LL`, `ncclKernel_SendRecv_…`), HCCL ops
/// (`hcom_allReduce__483_2@…`), torch ops (`c10d::allreduce_`). Names that match none keep
/// a cleaned prefix, so unknown collectives still group by name.
pub fn collective_type(name: &str) -> String {
    let squashed: String = name.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase();
    const TYPES: &[(&str, &str)] = &[
        ("reducescatter", "reduce_scatter"),
        ("allreduce", "all_reduce"),
        ("allgather", "all_gather"),
        ("alltoall", "all_to_all"),
        ("broadcast", "broadcast"),
        ("sendrecv", "send_recv"),
        ("send", "send"),
        ("recv", "recv"),
        ("receive", "recv"),
        ("reduce", "reduce"),
        ("gather", "gather"),
        ("scatter", "scatter"),
        ("barrier", "barrier"),
    ];
    // The NCCL/HCCL prefixes hold none of these words, so the first listed word found wins.
    TYPES
        .iter()
        .find(|(word, _)| squashed.contains(word))
        .map(|(_, kind)| (*kind).to_owned())
        .unwrap_or_else(|| name.split(['@', '(', '<']).next().unwrap_or(name).trim().to_owned())
}

/// Groups `samples` by type, longest total time first (ties by type).
pub fn summarize_collectives(samples: impl IntoIterator<Item = CommSample>) -> Vec<CollectiveStats> {
    #[derive(Default)]
    struct Acc {
        count: u64,
        total_ns: u64,
        ops_with_bytes: u64,
        bytes: u64,
        bytes_ns: u64,
        link: Option<(u64, u64)>,
    }
    let mut by_type: FxHashMap<String, Acc> = FxHashMap::default();
    for sample in samples {
        let acc = by_type.entry(sample.op_type).or_default();
        acc.count += 1;
        acc.total_ns += sample.latency_ns;
        if let Some(bytes) = sample.bytes {
            acc.ops_with_bytes += 1;
            acc.bytes += bytes;
            acc.bytes_ns += sample.latency_ns;
        }
        if let Some((bytes, ns)) = sample.link_bytes_ns {
            let (b, t) = acc.link.unwrap_or((0, 0));
            acc.link = Some((b + bytes, t + ns));
        }
    }
    let mut stats: Vec<CollectiveStats> = by_type
        .into_iter()
        .map(|(op_type, acc)| {
            let bandwidth_gbps = if acc.ops_with_bytes > 0 { gbps(acc.bytes, acc.bytes_ns) } else { None };
            let link_gbps = acc.link.and_then(|(bytes, ns)| gbps(bytes, ns));
            CollectiveStats {
                op_type,
                count: acc.count,
                total_ns: acc.total_ns,
                ops_with_bytes: acc.ops_with_bytes,
                bytes: (acc.ops_with_bytes > 0).then_some(acc.bytes),
                bandwidth_gbps,
                link_gbps,
            }
        })
        .collect();
    stats.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.op_type.cmp(&b.op_type)));
    stats
}

/// The communication ops of `timeline` (op kind communication, or a kernel of the collective
/// family), in timeline order, each with its collective type: `details.op_type` where the
/// source names the collective (a torch trace's `Collective name`), else the op's name, through
/// [`collective_type`] (worked out once a name).
pub fn timeline_comm_ops<'a>(
    timeline: &'a Timeline,
    families: &'a Families,
) -> impl Iterator<Item = (&'a prof_timeline::timeline::DeviceOp, String)> + 'a {
    let activity = activity_of(timeline, families);
    let mut type_of: FxHashMap<prof_timeline::intern::NameId, String> = FxHashMap::default();
    timeline.ops.iter().enumerate().filter(move |(index, _)| activity(*index) == Activity::Communication).map(
        move |(_, op)| {
            let named = timeline.details_of(op).and_then(|d| d.op_type).unwrap_or(op.name());
            (op, type_of.entry(named).or_insert_with(|| collective_type(timeline.name(named))).clone())
        },
    )
}

/// The communication ops of `timeline` ([`timeline_comm_ops`]) as samples, with the bytes of
/// `details.bytes`.
pub fn timeline_comm_samples(timeline: &Timeline, families: &Families) -> Vec<CommSample> {
    timeline_comm_ops(timeline, families)
        .map(|(op, op_type)| CommSample {
            op_type,
            bytes: timeline.details_of(op).and_then(|d| d.bytes),
            latency_ns: op.dur_ns(),
            link_bytes_ns: None,
        })
        .collect()
}

/// Bandwidth per collective type over the communication ops of `timeline`; empty when it
/// has none.
#[cfg(test)]
fn timeline_collectives(timeline: &Timeline, families: &Families) -> Vec<CollectiveStats> {
    summarize_collectives(timeline_comm_samples(timeline, families))
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_timeline::timeline::{DeviceOp, OpDetails, OpKind};

    #[test]
    fn names_map_to_collective_types() {
        assert_eq!(collective_type("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), "all_reduce");
        assert_eq!(collective_type("ncclKernel_ReduceScatter_RING_LL_Sum_float"), "reduce_scatter");
        assert_eq!(collective_type("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)"), "send_recv");
        assert_eq!(collective_type("hcom_allGather__483_3@9350434047717501483"), "all_gather");
        assert_eq!(collective_type("hcom_send__822_0@13337953553061386822"), "send");
        assert_eq!(collective_type("hcom_broadcast__483_0@1"), "broadcast");
        assert_eq!(collective_type("c10d::allreduce_"), "all_reduce");
        assert_eq!(collective_type("mystery@42"), "mystery");
    }

    #[test]
    fn bandwidth_is_bytes_over_latency_of_the_ops_with_bytes() {
        let mut t = Timeline::new("test");
        let ar = t.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
        let ag = t.intern("ncclDevKernel_AllGather_RING_LL");
        let gemm = t.intern("sm90_gemm");
        // all_reduce: 1 GB in 2 ms and 1 GB in 3 ms → 2e9 B / 5e6 ns = 400 GB/s; a third op
        // without bytes counts in total time only.
        for (start, dur) in [(0, 2_000_000), (10_000_000, 3_000_000), (20_000_000, 1_000_000)] {
            let op = DeviceOp::new(OpKind::Communication, ar, 0, 9, start, dur);
            if start < 20_000_000 {
                t.push_op_with(op, OpDetails { bytes: Some(1_000_000_000), ..OpDetails::default() });
            } else {
                t.push_op(op);
            }
        }
        t.push_op(DeviceOp::new(OpKind::Kernel, ag, 0, 9, 30_000_000, 500));
        t.push_op(DeviceOp::new(OpKind::Kernel, gemm, 0, 7, 0, 100));
        let stats = timeline_collectives(&t, &Families::builtin());
        assert_eq!(stats.len(), 2);
        let all_reduce = &stats[0];
        assert_eq!((all_reduce.op_type.as_str(), all_reduce.count, all_reduce.total_ns), ("all_reduce", 3, 6_000_000));
        assert_eq!((all_reduce.ops_with_bytes, all_reduce.bytes), (2, Some(2_000_000_000)));
        assert_eq!(all_reduce.bandwidth_gbps, Some(400.0));
        assert_eq!(all_reduce.link_gbps, None);
        assert_eq!((stats[1].op_type.as_str(), stats[1].bytes, stats[1].bandwidth_gbps), ("all_gather", None, None));
    }

    #[test]
    fn link_rate_is_transit_bytes_over_transit_time() {
        // 100 MB moved; the op took 10 ms but spent 4 ms on the link: 10 GB/s effective, 25 GB/s link.
        let sample = CommSample {
            op_type: "all_gather".into(),
            bytes: Some(100_000_000),
            latency_ns: 10_000_000,
            link_bytes_ns: Some((100_000_000, 4_000_000)),
        };
        let stats = summarize_collectives([sample]);
        assert_eq!((stats[0].bandwidth_gbps, stats[0].link_gbps), (Some(10.0), Some(25.0)));
        assert!(summarize_collectives(Vec::new()).is_empty());
    }
}
