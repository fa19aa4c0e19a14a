//! The main stream of a run as the step search and the layers read it: its names and the
//! prefix sums of its durations, gathered in one pass, and its ops walked again in place for
//! the few starts and ends they need, rather than a reference per op kept (8 bytes an op, 80 MB
//! and the page faults of fresh memory at 10 M ops). A stream listed out of (start, end) order
//! is read through its positions sorted (4 bytes an op).

use crate::analysis::prefix::PrefixSums;
use prof_timeline::intern::{FxHashMap, NameId};
use prof_timeline::op_place::Place;
use prof_timeline::run_map::RunMap;
use prof_timeline::timeline::{DeviceOp, OpKind};

/// The ops of a [`MainStream`] in (start, end) order: one loop for either way they are read,
/// where a chain of the two had cost a check of both at every op (the step search and the
/// layers walk the stream op by op).
pub(crate) enum Ops<'a, 's> {
    /// In `all`'s order: the ops of the stream's lane.
    Plain { ops: std::slice::Iter<'a, DeviceOp>, lane: u64 },
    /// Through their positions sorted.
    Sorted { all: &'a [DeviceOp], positions: std::slice::Iter<'s, u32> },
}

impl<'a> Iterator for Ops<'a, '_> {
    type Item = &'a DeviceOp;

    #[inline]
    fn next(&mut self) -> Option<&'a DeviceOp> {
        match self {
            Ops::Plain { ops, lane } => ops.find(|op| op.lane() == *lane),
            Ops::Sorted { all, positions } => positions.next().map(|&at| &all[at as usize]),
        }
    }
}

/// See the module.
pub(crate) struct MainStream<'a> {
    all: &'a [DeviceOp],
    /// The device and stream packed ([`DeviceOp::lane`]), which its ops are picked by.
    lane: u64,
    /// The positions in `all` of the stream's ops sorted, for a source that lists them out of
    /// (start, end) order; `None` when they are in order in `all`, so are read there.
    sorted: Option<Vec<u32>>,
    len: usize,
    /// Each op's name.
    pub(crate) names: Vec<NameId>,
    /// Prefix sums of the durations (`len + 1` of them).
    pub(crate) prefix: PrefixSums,
}

impl<'a> MainStream<'a> {
    /// The main stream of `all` by op counts: the stream with the most ops on the device with
    /// the most (ties to the lowest ids); empty when `all` is.
    pub(crate) fn of(all: &'a [DeviceOp]) -> Self {
        match busiest(all) {
            Some((device, id, count)) => Self::on(all, device, id, count),
            None => Self::empty(all),
        }
    }

    /// A stream without ops (its sorted positions none).
    fn empty(all: &'a [DeviceOp]) -> Self {
        MainStream { all, lane: 0, sorted: Some(Vec::new()), len: 0, names: Vec::new(), prefix: PrefixSums::default() }
    }

    /// Stream `id` of `device` in `all`, which has about `count` ops (for the vectors' size).
    pub(crate) fn on(all: &'a [DeviceOp], device: u32, id: u64, count: usize) -> Self {
        let lane = Place::new(OpKind::Kernel, device, id).lane();
        let mut stream = MainStream { lane, sorted: None, ..Self::empty(all) };
        // Gathered in `all`'s order, checking that it is (start, end) order on the way: a
        // stream out of order drops them at its first op out of place, so it never holds two
        // sets of names and sums at once.
        let (mut names, mut prefix) = (Vec::with_capacity(count), PrefixSums::with_capacity(count));
        let mut last = (0, 0);
        let in_order = stream.plain().all(|op| {
            let ok = (op.start_ns, op.end_ns()) >= last;
            last = (op.start_ns, op.end_ns());
            names.push(op.name());
            prefix.push(op.dur_ns());
            ok
        });
        if !in_order {
            drop((std::mem::take(&mut names), std::mem::take(&mut prefix)));
            // Positions in `all` (4 bytes an op), sorted by (start, end), ties in `all`'s order.
            let Ok(mut sorted) = stream.plain_positions().map(u32::try_from).collect::<Result<Vec<u32>, _>>() else {
                // Past 2^32 ops (not a timeline that fits in memory): no main stream.
                return Self::empty(all);
            };
            sorted.sort_by_key(|&at| (all[at as usize].start_ns, all[at as usize].end_ns()));
            stream.sorted = Some(sorted);
            (names, prefix) = (Vec::with_capacity(count), PrefixSums::with_capacity(count));
            for op in stream.ops() {
                names.push(op.name());
                prefix.push(op.dur_ns());
            }
        }
        stream.len = names.len();
        (stream.names, stream.prefix) = (names, prefix);
        stream
    }

    /// How many ops it has.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Its ops in (start, end) order.
    pub(crate) fn ops(&self) -> Ops<'a, '_> {
        match &self.sorted {
            Some(sorted) => Ops::Sorted { all: self.all, positions: sorted.iter() },
            None => Ops::Plain { ops: self.all.iter(), lane: self.lane },
        }
    }

    /// Its ops in (start, end) order in two halves, the first half's ops all before the
    /// second's (for a walk split over two threads).
    pub(crate) fn halves(&self) -> [Ops<'a, '_>; 2] {
        match &self.sorted {
            Some(sorted) => {
                let (first, second) = sorted.split_at(sorted.len() / 2);
                [first, second].map(|part| Ops::Sorted { all: self.all, positions: part.iter() })
            }
            None => {
                let (first, second) = self.all.split_at(self.all.len() / 2);
                [first, second].map(|part| Ops::Plain { ops: part.iter(), lane: self.lane })
            }
        }
    }

    /// Its ops in the order `all` lists them.
    fn plain(&self) -> impl Iterator<Item = &'a DeviceOp> + 'a {
        let lane = self.lane;
        self.all.iter().filter(move |op| op.lane() == lane)
    }

    /// The positions in `all` of [`MainStream::plain`]'s ops.
    fn plain_positions(&self) -> impl Iterator<Item = usize> + 'a {
        let lane = self.lane;
        self.all.iter().enumerate().filter(move |(_, op)| op.lane() == lane).map(|(at, _)| at)
    }

    /// In one walk: the start of the op at each of `positions`, and the latest end of the ops
    /// in each of `ranges` (`[from, to)` positions, 0 for an empty one). Positions past the
    /// last op read as 0.
    pub(crate) fn starts_and_ends(&self, positions: &[usize], ranges: &[(usize, usize)]) -> (Vec<u64>, Vec<u64>) {
        // Positions in order (as steps come) are read as they are; others through a sorted copy.
        let sorted_copy: Option<Vec<(usize, usize)>> = (!positions.is_sorted()).then(|| {
            let mut wanted: Vec<(usize, usize)> = positions.iter().copied().enumerate().map(|(i, p)| (p, i)).collect();
            wanted.sort_unstable();
            wanted
        });
        let wanted_at = |w: usize| match &sorted_copy {
            Some(wanted) => wanted.get(w).copied(),
            None => positions.get(w).map(|&p| (p, w)),
        };
        // Range bounds as events: (position, range), opened at `from`, closed at `to`.
        let mut opens: Vec<(usize, usize)> = ranges.iter().enumerate().map(|(i, r)| (r.0, i)).collect();
        let mut closes: Vec<(usize, usize)> = ranges.iter().enumerate().map(|(i, r)| (r.1, i)).collect();
        opens.sort_unstable();
        closes.sort_unstable();
        let (mut starts, mut ends) = (vec![0u64; positions.len()], vec![0u64; ranges.len()]);
        let last_wanted = positions.len().checked_sub(1).and_then(wanted_at).map(|w| w.0 + 1);
        let last = last_wanted.into_iter().chain(closes.last().map(|c| c.0)).max().unwrap_or(0);
        let (mut w, mut o, mut c) = (0, 0, 0);
        let mut open: Vec<usize> = Vec::new();
        for (at, op) in self.ops().enumerate().take(last) {
            while closes.get(c).is_some_and(|&(to, _)| to <= at) {
                let range = closes[c].1;
                open.retain(|&r| r != range);
                c += 1;
            }
            while opens.get(o).is_some_and(|&(from, _)| from <= at) {
                let range = opens[o].1;
                if ranges[range].1 > at {
                    open.push(range);
                }
                o += 1;
            }
            for &range in &open {
                ends[range] = ends[range].max(op.end_ns());
            }
            while let Some((p, i)) = wanted_at(w).filter(|&(p, _)| p <= at) {
                if p == at {
                    starts[i] = op.start_ns;
                }
                w += 1;
            }
        }
        (starts, ends)
    }
}

/// The device with the most ops, its stream with the most, and that stream's op count.
fn busiest(all: &[DeviceOp]) -> Option<(u32, u64, usize)> {
    // Ops of one stream come in runs: the stream is looked up once a run, by its packed lane
    // (with the position of its first op, whose device and stream are read out once).
    let mut per_lane: RunMap<u64, (usize, usize)> = RunMap::new();
    for (at, op) in all.iter().enumerate() {
        let (count, first) = per_lane.get(op.lane());
        if *count == 0 {
            *first = at;
        }
        *count += 1;
    }
    let per_stream: FxHashMap<(u32, u64), usize> = per_lane
        .into_map()
        .into_values()
        .map(|(count, first)| ((all[first].device(), all[first].stream()), count))
        .collect();
    let mut per_device: FxHashMap<u32, usize> = FxHashMap::default();
    for (&(device, _), &n) in &per_stream {
        *per_device.entry(device).or_default() += n;
    }
    let (device, _) = per_device.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))?;
    let ((_, stream), count) =
        per_stream.into_iter().filter(|((d, _), _)| *d == device).max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))?;
    Some((device, stream, count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_timeline::test_random::XorShift;
    use prof_timeline::timeline::OpKind;

    #[test]
    fn starts_and_ends_read_in_place_are_the_gathered_ones() {
        for (seed, shuffled) in [(1, false), (2, false), (3, true), (4, true)] {
            let mut random = XorShift::new(seed);
            let mut ops: Vec<DeviceOp> = (0..3000u64)
                .map(|i| {
                    let (device, stream) = (random.below(2) as u32, random.below(3));
                    let start = i * 10 + random.below(30);
                    DeviceOp::new(
                        OpKind::Kernel,
                        NameId(random.below(5) as u32),
                        device,
                        stream,
                        start,
                        random.below(40),
                    )
                })
                .collect();
            if shuffled {
                for i in (1..ops.len()).rev() {
                    ops.swap(i, random.below(i as u64 + 1) as usize);
                }
            }
            let main = MainStream::of(&ops);
            // The oracle: the stream's ops gathered and sorted, as the steps once kept them.
            let mut gathered: Vec<&DeviceOp> = ops.iter().filter(|op| op.lane() == main.lane).collect();
            gathered.sort_by_key(|op| (op.start_ns, op.end_ns()));
            assert_eq!(main.len(), gathered.len());
            assert_eq!(main.names, gathered.iter().map(|op| op.name()).collect::<Vec<_>>());
            assert_eq!(main.prefix, PrefixSums::of(gathered.iter().map(|op| op.dur_ns())));
            assert!(main.ops().eq(gathered.iter().copied()));
            let n = gathered.len();
            let positions: Vec<usize> = (0..200).map(|_| random.below(n as u64 + 5) as usize).collect();
            let ranges: Vec<(usize, usize)> = (0..50)
                .map(|_| {
                    let from = random.below(n as u64) as usize;
                    (from, (from + random.below(300) as usize).min(n + 3))
                })
                .collect();
            let mut in_order = positions.clone();
            in_order.sort_unstable();
            let (starts, ends) = main.starts_and_ends(&positions, &ranges);
            // Positions in order (as steps come) are read without the sorted copy.
            let (starts_in_order, _) = main.starts_and_ends(&in_order, &ranges);
            for (&p, &start) in positions.iter().zip(&starts).chain(in_order.iter().zip(&starts_in_order)) {
                assert_eq!(start, gathered.get(p).map_or(0, |op| op.start_ns), "seed {seed} position {p}");
            }
            for (&(from, to), &end) in ranges.iter().zip(&ends) {
                let want = gathered[from..to.min(n)].iter().map(|op| op.end_ns()).max().unwrap_or(0);
                assert_eq!(end, want, "seed {seed} range {from}..{to}");
            }
        }
        let empty = MainStream::of(&[]);
        assert_eq!((empty.len(), empty.prefix.to_vec().as_slice()), (0, &[0u64][..]));
        assert_eq!(empty.starts_and_ends(&[0], &[(0, 2)]), (vec![0], vec![0]));
    }
}
