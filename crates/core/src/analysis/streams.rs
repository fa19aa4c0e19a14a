//! Stream roles: what each stream (queue) of a device does, so a report can say "stream 7 is
//! the main compute stream, stream 20 carries the collectives, stream 9 the copies".
//!
//! Rules, per device:
//! - a stream's **busy time** is the union of its ops' intervals; its **share** is that busy
//!   time over the device's busy time (the union over all its streams), so shares of
//!   concurrent streams may add up to more than 100 %;
//! - its **dominant activity** is the [`Activity`] (from [`activity_of`]) with the largest
//!   summed op duration on it (ties: compute, communication, memory, other, in that order);
//! - the **main stream** is the stream with the most ops (ties: the most busy time, then the
//!   lowest stream id);
//! - every other stream is **communication** when at least [`MOSTLY_SHARE_PCT`] % of its op
//!   time is communication, else **memory** when at least that share is copies/sets, else a
//!   **side stream**.

use super::intervals::{IntervalSet, SortedUnion};
use super::temporal::{activity_of_ops, Activity};
use crate::families::Families;
use prof_timeline::intern::FxHashMap;
use prof_timeline::run_map::RunMap;
use prof_timeline::timeline::{DeviceOp, Timeline};
use serde::Serialize;

/// Share of a stream's op time, percent, one activity must reach to name the stream's role.
pub(crate) const MOSTLY_SHARE_PCT: f64 = 50.0;

/// What a stream is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StreamRole {
    /// The stream with the most ops: where the model's main work is issued.
    Main,
    /// Mostly collectives / point-to-point transfers.
    Communication,
    /// Mostly memory copies and sets.
    Memory,
    /// Any other stream.
    Side,
}

/// One stream of one device.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StreamStats {
    /// Stream (or queue) id.
    pub stream: u64,
    /// What it is for.
    pub role: StreamRole,
    /// Ops on it.
    pub ops: u64,
    /// Union of its op intervals, ns.
    pub busy_ns: u64,
    /// Busy time as a percentage of the device's busy time.
    pub share_of_device_busy_pct: f64,
    /// The activity with the most op time on it.
    pub dominant: Activity,
    /// Summed durations of its compute ops, ns.
    pub compute_ns: u64,
    /// Summed durations of its communication ops, ns.
    pub communication_ns: u64,
    /// Summed durations of its memory ops, ns.
    pub memory_ns: u64,
    /// Summed durations of its other ops, ns.
    pub other_ns: u64,
    /// Its communication ops (the sections that read only those skip a walk when no stream
    /// has one).
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub communication_ops: u64,
}

impl StreamStats {
    fn op_time_ns(&self) -> u64 {
        self.compute_ns + self.communication_ns + self.memory_ns + self.other_ns
    }
}

/// The streams of one device, main stream first, then by busy time.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DeviceStreams {
    /// Device index.
    pub device: u32,
    /// Union of all its ops' intervals, ns.
    pub busy_ns: u64,
    /// Its streams.
    pub streams: Vec<StreamStats>,
}

/// The communication ops on every stream of `devices`: an analysis that reads only those need
/// not walk the ops when there are none.
pub fn communication_ops(devices: &[DeviceStreams]) -> u64 {
    devices.iter().flat_map(|d| &d.streams).map(|s| s.communication_ops).sum()
}

impl DeviceStreams {
    /// The main stream's id.
    pub fn main_stream(&self) -> Option<u64> {
        self.streams.iter().find(|s| s.role == StreamRole::Main).map(|s| s.stream)
    }
}

#[derive(Default)]
struct Gather {
    /// The stream's device and id.
    pair: (u32, u64),
    ops: u64,
    busy: SortedUnion,
    time: [u64; 4],
    communication_ops: u64,
}

/// The stream roles of every device of `timeline`, by device index.
pub fn stream_roles(timeline: &Timeline, families: &Families) -> Vec<DeviceStreams> {
    stream_roles_of(timeline, &timeline.ops, families)
}

/// [`stream_roles`] of `ops`, some of `timeline`'s ops in its order: the roles a timeline cut
/// to those ops has.
pub fn stream_roles_of(timeline: &Timeline, ops: &[DeviceOp], families: &Families) -> Vec<DeviceStreams> {
    let activity = activity_of_ops(timeline, ops, families);
    let slot_of = |index: usize| match activity(index) {
        Activity::Compute => 0,
        Activity::Communication => 1,
        Activity::Memory => 2,
        Activity::Other => 3,
    };
    // Ops in start order (as most sources write them) have their busy times merged on the fly.
    // Ops of one stream mostly come in runs: the stream is looked up only when it changes.
    // A stream is keyed by its packed device and id (`DeviceOp::lane`), read out once.
    let mut by_stream: RunMap<u64, Gather> = RunMap::new();
    let mut device_union: RunMap<u32, SortedUnion> = RunMap::new();
    for (index, op) in ops.iter().enumerate() {
        let gather = by_stream.get(op.lane());
        if gather.ops == 0 {
            gather.pair = (op.device(), op.stream());
        }
        gather.ops += 1;
        gather.busy.add(op.start_ns, op.end_ns());
        let slot = slot_of(index);
        gather.time[slot] += op.dur_ns();
        gather.communication_ops += u64::from(slot == 1);
        device_union.get(gather.pair.0).add(op.start_ns, op.end_ns());
    }
    let by_stream: FxHashMap<(u32, u64), Gather> = by_stream.into_map().into_values().map(|g| (g.pair, g)).collect();
    let device_union = device_union.into_map();
    let (stream_busy, device_busy) = busy_times(ops, &by_stream, &device_union);
    let mut by_device: FxHashMap<u32, Vec<StreamStats>> = FxHashMap::default();
    for ((device, stream), gather) in by_stream {
        let [compute_ns, communication_ns, memory_ns, other_ns] = gather.time;
        by_device.entry(device).or_default().push(StreamStats {
            stream,
            role: StreamRole::Side,
            ops: gather.ops,
            busy_ns: stream_busy.get(&(device, stream)).copied().unwrap_or(0),
            share_of_device_busy_pct: 0.0,
            dominant: dominant(gather.time),
            compute_ns,
            communication_ns,
            memory_ns,
            other_ns,
            communication_ops: gather.communication_ops,
        });
    }
    let mut devices: Vec<DeviceStreams> = by_device
        .into_iter()
        .map(|(device, mut streams)| {
            let busy_ns = device_busy.get(&device).copied().unwrap_or(0);
            for s in &mut streams {
                s.share_of_device_busy_pct = pct(s.busy_ns, busy_ns);
                s.role = side_role(s);
            }
            streams.sort_by(|a, b| b.ops.cmp(&a.ops).then(b.busy_ns.cmp(&a.busy_ns)).then(a.stream.cmp(&b.stream)));
            if let Some(first) = streams.first_mut() {
                first.role = StreamRole::Main;
            }
            if let Some(rest) = streams.get_mut(1..) {
                rest.sort_by(|a, b| b.busy_ns.cmp(&a.busy_ns).then(a.stream.cmp(&b.stream)));
            }
            DeviceStreams { device, busy_ns, streams }
        })
        .collect();
    devices.sort_by_key(|d| d.device);
    devices
}

/// Busy time per stream and per device, ns: from the on-the-fly unions when every op came in
/// start order, else from each stream's gathered intervals.
fn busy_times(
    ops: &[DeviceOp],
    by_stream: &FxHashMap<(u32, u64), Gather>,
    device_union: &FxHashMap<u32, SortedUnion>,
) -> (FxHashMap<(u32, u64), u64>, FxHashMap<u32, u64>) {
    let streams: Option<FxHashMap<(u32, u64), u64>> =
        by_stream.iter().map(|(key, gather)| Some((*key, gather.busy.total_ns()?))).collect();
    let devices: Option<FxHashMap<u32, u64>> =
        device_union.iter().map(|(device, union)| Some((*device, union.total_ns()?))).collect();
    if let (Some(streams), Some(devices)) = (streams, devices) {
        return (streams, devices);
    }
    let mut spans: FxHashMap<(u32, u64), Vec<(u64, u64)>> = FxHashMap::default();
    for op in ops {
        spans.entry((op.device(), op.stream())).or_default().push((op.start_ns, op.end_ns()));
    }
    let mut stream_busy = FxHashMap::default();
    let mut sets: FxHashMap<u32, Vec<IntervalSet>> = FxHashMap::default();
    for ((device, stream), spans) in spans {
        let set = IntervalSet::from_unsorted(spans);
        stream_busy.insert((device, stream), set.total_ns());
        sets.entry(device).or_default().push(set);
    }
    let device_busy = sets
        .into_iter()
        .map(|(device, sets)| (device, IntervalSet::union_all(&sets.iter().collect::<Vec<_>>()).total_ns()))
        .collect();
    (stream_busy, device_busy)
}

fn dominant(time: [u64; 4]) -> Activity {
    let order = [Activity::Compute, Activity::Communication, Activity::Memory, Activity::Other];
    let mut best = 0;
    for (slot, &t) in time.iter().enumerate() {
        if t > time[best] {
            best = slot;
        }
    }
    order[best]
}

fn side_role(stream: &StreamStats) -> StreamRole {
    let total = stream.op_time_ns();
    if total > 0 && pct(stream.communication_ns, total) >= MOSTLY_SHARE_PCT {
        StreamRole::Communication
    } else if total > 0 && pct(stream.memory_ns, total) >= MOSTLY_SHARE_PCT {
        StreamRole::Memory
    } else {
        StreamRole::Side
    }
}

/// `part` as a percentage of `whole` (0 for an empty whole).
pub(crate) fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_timeline::timeline::{DeviceOp, OpKind};

    #[test]
    fn main_stream_has_the_most_ops_and_others_get_their_role() {
        let mut t = Timeline::new("test");
        let gemm = t.intern("ampere_sgemm_128x64_tn");
        let nccl = t.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
        let copy = t.intern("Memcpy HtoD");
        // stream 7: three gemms [0,100) [100,200) [300,400) → busy 300
        for start in [0, 100, 300] {
            t.push_op(DeviceOp::new(OpKind::Kernel, gemm, 0, 7, start, 100));
        }
        // stream 9: nccl [50,450) → busy 400; stream 8: copy [0,50) and a gemm [500,510)
        t.push_op(DeviceOp::new(OpKind::Kernel, nccl, 0, 9, 50, 400));
        t.push_op(DeviceOp::new(OpKind::Memcpy, copy, 0, 8, 0, 50));
        t.push_op(DeviceOp::new(OpKind::Kernel, gemm, 0, 8, 500, 10));
        // stream 3: one gemm
        t.push_op(DeviceOp::new(OpKind::Kernel, gemm, 0, 3, 600, 40));
        let devices = stream_roles(&t, &Families::builtin());
        assert_eq!(devices.len(), 1);
        let d = &devices[0];
        // device busy: [0,450) ∪ [500,510) ∪ [600,640) = 450 + 10 + 40
        assert_eq!(d.busy_ns, 500);
        assert_eq!(d.main_stream(), Some(7));
        let roles: Vec<(u64, StreamRole, u64)> = d.streams.iter().map(|s| (s.stream, s.role, s.busy_ns)).collect();
        assert_eq!(
            roles,
            vec![
                (7, StreamRole::Main, 300),
                (9, StreamRole::Communication, 400),
                (8, StreamRole::Memory, 60),
                (3, StreamRole::Side, 40)
            ]
        );
        assert_eq!(d.streams[0].share_of_device_busy_pct, 60.0);
        assert_eq!(d.streams[1].dominant, Activity::Communication);
        assert_eq!(d.streams[2].dominant, Activity::Memory);
    }

    #[test]
    fn ties_on_op_count_go_to_the_busier_stream() {
        let mut t = Timeline::new("test");
        let k = t.intern("k");
        t.push_op(DeviceOp::new(OpKind::Kernel, k, 1, 1, 0, 10));
        t.push_op(DeviceOp::new(OpKind::Kernel, k, 1, 2, 0, 20));
        let devices = stream_roles(&t, &Families::builtin());
        assert_eq!(devices[0].main_stream(), Some(2));
        assert_eq!(devices[0].streams[1].role, StreamRole::Side);
    }
}
