//! Op vectors handed on from one part of an artifact read in parts to the next. A part's ops
//! are written into fresh memory, then copied into the whole timeline when it is joined
//! ([`Timeline::append`]): each op's memory was zeroed and mapped by the kernel twice, and at
//! 10 M rocprofv3 kernels those page faults were 6 % of the load's time. A joined part's op
//! vector, emptied, goes to the next part a worker starts, its pages already there; at most one
//! per worker thread is kept, and all are freed with the `PartBuffers` when the load is done.

use crate::op_totals::OpTotals;
use prof_timeline::intern::NameId;
use prof_timeline::timeline::{DeviceOp, Timeline};
use std::sync::Mutex;

/// See the module.
#[derive(Default)]
pub struct PartBuffers {
    free: Mutex<Vec<Vec<DeviceOp>>>,
}

impl PartBuffers {
    /// A timeline for the next part (as [`Timeline::for_part`] makes one), on the op vector of
    /// a part joined before when one is free.
    pub fn timeline(&self, source: impl Into<String>, budget: u64) -> Timeline {
        match self.free.lock().ok().and_then(|mut free| free.pop()) {
            Some(ops) => {
                let mut part = Timeline::with_memory_budget(source, budget);
                part.ops = ops;
                part
            }
            None => Timeline::for_part(source, budget),
        }
    }

    /// [`Timeline::append`]s `part` to `whole`, keeping `part`'s op vector for a later part.
    pub fn append(&self, whole: &mut Timeline, part: Timeline) -> Vec<NameId> {
        let (ids, ops) = whole.append_keeping(part);
        self.give_back(ops);
        ids
    }

    /// Keeps `ops` (a part's op vector that is done with), emptied, for a later part; dropped
    /// when one per worker thread is kept already, or when it has no capacity.
    pub fn give_back(&self, mut ops: Vec<DeviceOp>) {
        if ops.capacity() == 0 {
            return;
        }
        ops.clear();
        if let Ok(mut free) = self.free.lock() {
            if free.len() < prof_timeline::text_parts::workers() {
                free.push(ops);
            }
        }
    }

    /// The kernel-summary totals of `part` (a part folded and dropped, for `--summary-only`),
    /// its op vector kept for a later part.
    pub fn fold(&self, part: Timeline) -> OpTotals {
        let totals = OpTotals::of_timeline(&part);
        self.give_back(part.ops);
        totals
    }

    /// How many vectors are kept now.
    #[cfg(test)]
    fn kept(&self) -> usize {
        self.free.lock().map_or(0, |free| free.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_timeline::timeline::OpKind;

    fn part(buffers: &PartBuffers, names: &[&str], at: u64) -> Timeline {
        let mut t = buffers.timeline("t", u64::MAX);
        for (i, name) in names.iter().enumerate() {
            let id = t.intern(name);
            t.push_op(DeviceOp::new(OpKind::Kernel, id, 0, 1, at + 10 * i as u64, 5));
        }
        t
    }

    /// Parts joined through the buffers give the timeline plain appends give, and a later
    /// part is written into the vector of one joined before (its capacity, not a fresh one).
    #[test]
    fn recycled_vectors_join_as_plain_appends_do() {
        let buffers = PartBuffers::default();
        let parts = [vec!["a", "b"], vec!["b", "c", "d"], vec!["e"], vec!["a", "e", "f"]];
        let (mut whole, mut plain) = (Timeline::new("t"), Timeline::new("t"));
        let mut kept_at = None;
        for (k, names) in parts.iter().enumerate() {
            let at = 1000 * k as u64;
            plain.append(part(&PartBuffers::default(), names, at));
            let next = part(&buffers, names, at);
            match k {
                // Part 0 is moved whole; part 1 is copied and its vector kept…
                1 => kept_at = Some(next.ops.as_ptr()),
                // …and part 2 is written into it.
                2 => assert_eq!(Some(next.ops.as_ptr()), kept_at),
                _ => {}
            }
            buffers.append(&mut whole, next);
            if k == 1 {
                assert_eq!(buffers.kept(), 1);
            }
        }
        let text = |t: &Timeline| {
            t.ops
                .iter()
                .map(|op| format!("{} {} {}", t.name(op.name()), { op.start_ns }, op.dur_ns()))
                .collect::<Vec<_>>()
        };
        assert_eq!(text(&whole), text(&plain));
        assert_eq!(whole.ops.len(), 9);
        assert!(buffers.kept() >= 1);
    }
}
