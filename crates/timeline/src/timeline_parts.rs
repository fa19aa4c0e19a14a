//! A timeline read in parts: a reader that splits a large artifact into byte ranges, each
//! read into its own [`Timeline`] on its own thread, joins them in file order with
//! [`Timeline::append`], and gets the timeline one reader would have built.

use crate::details_pool::DetailsId;
use crate::intern::NameId;
use crate::load_budget::{DETAILS_BYTES, HOST_BYTES, OP_BYTES};
use crate::timeline::{DeviceOp, Timeline};

/// Ops a part's timeline reserves ([`Timeline::for_part`]): 40 MB.
const PART_OPS: usize = (40 << 20) / std::mem::size_of::<DeviceOp>();

impl Timeline {
    /// A timeline for one part of an artifact read in parts, on `budget` bytes, its ops
    /// reserved past the allocator's 32 MB mmap threshold: they are mapped, and go back to the
    /// system once the part is joined. Grown a doubling at a time, a part's ops had stayed,
    /// freed, in its thread's arena (26 MB more at 10 M nsys kernels once an op was 28 bytes).
    /// The untouched pages of a smaller part are never resident.
    pub fn for_part(source: impl Into<String>, budget: u64) -> Self {
        let mut part = Timeline::with_memory_budget(source, budget);
        part.ops.reserve_exact(PART_OPS);
        part
    }

    /// Appends `later`, the next part of the same artifact read on its own: its names are
    /// interned here in its id order (so ids come out as one reader would have given them),
    /// its op details are shared with these, and its ops are counted against this timeline's
    /// budget and device-time sum, so a spent budget or an overflow is found where one reader
    /// would have found it. Host spans, counters, partial notes and sections follow. Returns
    /// the id each of `later`'s names has here, by its id there (for the reader's own tables
    /// keyed by them). Into a timeline that holds nothing yet, `later` is moved whole (its
    /// ops are not copied) when it fits this timeline's budget: it was counted as this one
    /// would count it.
    pub fn append(&mut self, later: Timeline) -> Vec<NameId> {
        self.append_keeping(later).0
    }

    /// [`Timeline::append`], giving back `later`'s op vector emptied (its capacity kept, empty
    /// when `later` was moved whole), for `prof_core::part_buffers::PartBuffers` to hand on.
    #[doc(hidden)]
    pub fn append_keeping(&mut self, mut later: Timeline) -> (Vec<NameId>, Vec<DeviceOp>) {
        if self.holds_nothing() && !later.load.full {
            let mut load = later.load.clone();
            load.limit = self.load.limit;
            load.held = 0;
            if load.take(later.load.held) {
                let ids = (0..later.names.len()).map(|i| NameId(i as u32)).collect();
                let source = std::mem::take(&mut self.source);
                *self = Timeline { source, load, ..later };
                return (ids, Vec::new());
            }
        }
        let ids: Vec<NameId> = later.names.iter().map(|name| self.names.intern(name)).collect();
        let id = |old: NameId| ids.get(old.0 as usize).copied().unwrap_or(old);
        let identity = ids.iter().enumerate().all(|(i, new)| new.0 as usize == i);
        // Per details id of `later`: its id here.
        let mut shared: Vec<Option<DetailsId>> = vec![None; later.details.len()];
        self.ops.reserve(later.ops.len());
        for mut op in later.ops.drain(..) {
            if self.is_full() {
                break;
            }
            let mut bytes = OP_BYTES;
            let details = op.details().map(|details| {
                let slot = details.index();
                match shared.get(slot).copied().flatten() {
                    Some(copy) => copy,
                    None => {
                        let mut own = later.details.get(details).cloned().unwrap_or_default();
                        if !identity {
                            own.op_type = own.op_type.map(id);
                            own.shapes = own.shapes.map(id);
                            own.dtypes = own.dtypes.map(id);
                        }
                        let (copy, new) = self.details.share_value(own);
                        bytes += if new { DETAILS_BYTES } else { 0 };
                        if let Some(entry) = shared.get_mut(slot) {
                            *entry = Some(copy);
                        }
                        copy
                    }
                }
            });
            op.relabel(id(op.name()), details);
            self.push_counted(op, bytes);
        }
        let mut host = later.host;
        if !identity {
            host.iter_mut().for_each(|span| span.name = id(span.name));
        }
        let bytes = HOST_BYTES.saturating_mul(host.len() as u64);
        if self.load.fits(bytes) && self.load.take(bytes) {
            // All fit: the fewer spans go to the vector of the more (a table of millions of
            // NVTX ranges after a few runtime calls is not copied: it had cost its size again).
            if self.host.len() >= host.len() {
                self.host.extend_from_slice(&host);
            } else {
                host.splice(0..0, self.host.drain(..));
                self.host = host;
            }
        } else {
            host.into_iter().for_each(|span| self.push_host(span));
        }
        for mut series in later.counters {
            series.name = id(series.name);
            series.unit = series.unit.map(id);
            self.counters.push(series);
        }
        if let Some(reason) = later.partial {
            self.note_partial(reason);
        }
        for (kind, count) in later.unread {
            self.note_unread(&kind, count);
        }
        self.sections.extend(later.sections);
        (ids, later.ops)
    }

    /// True when nothing was pushed, interned, noted or counted yet.
    fn holds_nothing(&self) -> bool {
        self.ops.is_empty()
            && self.host.is_empty()
            && self.counters.is_empty()
            && self.names.is_empty()
            && self.partial.is_none()
            && self.sections.is_empty()
            && self.details.is_empty()
            && self.load.held == 0
            && self.load.device_ns == 0
    }
}

impl Timeline {
    /// This timeline cut to `[start, end)`: device ops that start in it, host spans that
    /// overlap it, counter points inside it. Cut in place, so a 10 M-op trace is never held
    /// twice; the load's budget and sums start afresh (they described the whole file).
    pub fn window(mut self, start: u64, end: u64) -> Timeline {
        let inside = |t: u64| (start..end).contains(&t);
        self.ops.retain(|op| inside(op.start_ns));
        self.ops.shrink_to_fit();
        self.host.retain(|s| s.start_ns < end && s.start_ns.saturating_add(s.dur_ns()) >= start);
        for series in &mut self.counters {
            series.points.retain(|&(t, _)| inside(t));
        }
        Timeline {
            source: self.source,
            names: self.names,
            ops: self.ops,
            host: self.host,
            counters: self.counters,
            partial: self.partial,
            sections: self.sections,
            recorded_on: self.recorded_on,
            unread: self.unread,
            details: self.details,
            ..Timeline::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::timeline::{DeviceOp, HostCategory, HostSpan, OpDetails, OpKind, Timeline};

    /// Pushes ops named `names` (one µs apart from `at`), every other one with details that
    /// name an op type, onto `timeline`.
    fn push(timeline: &mut Timeline, names: &[&str], at: u64) {
        for (i, name) in names.iter().enumerate() {
            let id = timeline.intern(name);
            let op = DeviceOp::new(OpKind::Kernel, id, 0, 7, at + 1000 * i as u64, 500);
            if i % 2 == 0 {
                let op_type = Some(timeline.intern(&format!("type-{name}")));
                timeline.push_op_with(op, OpDetails { op_type, block_dim: Some(8), ..Default::default() });
            } else {
                timeline.push_op(op);
            }
        }
    }

    /// Names, details and times of every op, as strings (ids differ between timelines).
    fn described(timeline: &Timeline) -> Vec<String> {
        let text = |id| timeline.name(id).to_owned();
        timeline
            .ops
            .iter()
            .map(|op| {
                let details = timeline.details_of(op).map(|d| (d.op_type.map(text), d.block_dim));
                format!("{} {} {} {details:?}", text(op.name()), { op.start_ns }, { op.dur_ns() })
            })
            .collect()
    }

    #[test]
    fn parts_appended_equal_one_reader() {
        let first = ["matmul", "add", "softmax", "matmul"];
        let second = ["matmul", "gelu", "add", "reduce", "gelu"];
        let mut whole = Timeline::new("t");
        push(&mut whole, &first, 0);
        push(&mut whole, &second, 10_000);

        let mut joined = Timeline::new("t");
        push(&mut joined, &first, 0);
        let mut later = Timeline::new("t");
        push(&mut later, &second, 10_000);
        let gelu = later.intern("gelu");
        later.push_host(HostSpan::test(gelu, HostCategory::Other, 10_000, 5, None));
        joined.append(later);

        assert_eq!(described(&joined), described(&whole));
        // Same ids as one reader's, in the same order.
        assert_eq!(joined.names.iter().collect::<Vec<_>>(), whole.names.iter().collect::<Vec<_>>());
        assert_eq!(
            joined.ops.iter().map(|op| op.name()).collect::<Vec<_>>(),
            whole.ops.iter().map(|op| op.name()).collect::<Vec<_>>()
        );
        // The details of equal ops are one shared copy across the parts.
        let matmuls: Vec<_> =
            joined.ops.iter().filter(|op| joined.name(op.name()) == "matmul" && op.details().is_some()).collect();
        assert_eq!(matmuls.len(), 2);
        assert_eq!(matmuls[0].details(), matmuls[1].details());
        assert_eq!(joined.details.len(), whole.details.len());
        assert_eq!(joined.name(joined.host[0].name), "gelu");
    }

    #[test]
    fn a_budget_spent_in_a_later_part_cuts_where_one_reader_would() {
        let names: Vec<String> = (0..10).map(|i| format!("k{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        // Room for 7 ops without details and the details of a few.
        let budget = 7 * crate::load_budget::OP_BYTES + 3 * crate::load_budget::DETAILS_BYTES;
        let mut whole = Timeline::with_memory_budget("t", budget);
        push(&mut whole, &names, 0);
        let mut joined = Timeline::with_memory_budget("t", budget);
        push(&mut joined, &names[..4], 0);
        let mut later = Timeline::new("t");
        push(&mut later, &names[4..], 4000);
        joined.append(later);
        assert!(whole.is_full() && joined.is_full());
        assert_eq!(described(&joined), described(&whole));
        assert_eq!(joined.partial.is_some(), whole.partial.is_some());
    }

    #[test]
    fn a_first_part_is_moved_into_a_fresh_timeline_as_one_reader_counts_it() {
        let names: Vec<String> = (0..10).map(|i| format!("k{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for budget in [None, Some(7 * crate::load_budget::OP_BYTES + 3 * crate::load_budget::DETAILS_BYTES)] {
            let fresh =
                |source| budget.map_or_else(|| Timeline::new(source), |b| Timeline::with_memory_budget(source, b));
            let mut whole = fresh("t");
            push(&mut whole, &names, 0);
            // Two parts (the first fits the budget), or one that does not fit it.
            for split in [vec![(0..6, 0), (6..10, 6000)], vec![(0..10, 0)]] {
                let mut joined = fresh("t");
                for (range, at) in split.clone() {
                    // Each part read on a budget of its own, larger than the joined one's.
                    let mut part = Timeline::new("part");
                    push(&mut part, &names[range], at);
                    joined.append(part);
                }
                let at = format!("{budget:?} {split:?}");
                assert_eq!(joined.source, "t", "{at}");
                assert_eq!(described(&joined), described(&whole), "{at}");
                let (j, w) = (&joined, &whole);
                assert_eq!((j.is_full(), j.partial.is_some()), (w.is_full(), w.partial.is_some()), "{at}");
                assert_eq!((j.load.held, j.load.device_ns), (w.load.held, w.load.device_ns), "{at}");
                assert_eq!(joined.load.limit, budget, "{at}: the joined timeline keeps its own budget");
            }
        }
    }

    #[test]
    fn an_overflow_in_a_later_part_is_named_at_its_place() {
        let mut joined = Timeline::new("t");
        push(&mut joined, &["a", "b"], 0);
        let mut later = Timeline::new("t");
        let id = later.intern("huge");
        later.push_op(DeviceOp::new(OpKind::Kernel, id, 0, 0, 5000, u64::MAX - 10));
        joined.append(later);
        let error = joined.check_loaded().unwrap_err();
        assert!(error.contains("device op 3 (") && error.contains("huge"), "{error}");
    }

    /// Host spans joined from parts are those of one reader, in its order, with its names:
    /// a few spans before many (the many's vector takes the few in front), many before a few,
    /// and a budget spent partway.
    #[test]
    fn host_spans_join_in_order_whichever_part_holds_more() {
        let span = |t: &mut Timeline, name: &str, at: u64| {
            let name = t.intern(name);
            let correlation = Some(at).into();
            t.push_host(HostSpan::new(name, HostCategory::Runtime, (1, 2), at, 1, correlation));
        };
        let listed =
            |t: &Timeline| t.host.iter().map(|s| format!("{} {}", t.name(s.name), { s.start_ns })).collect::<Vec<_>>();
        let budget = 6 * crate::load_budget::HOST_BYTES;
        for (first, second) in [(2u64, 9u64), (9, 2), (5, 5)] {
            for limit in [None, Some(budget)] {
                let fresh = || limit.map_or_else(|| Timeline::new("t"), |b| Timeline::with_memory_budget("t", b));
                let mut whole = fresh();
                let mut joined = fresh();
                push(&mut joined, &["k"], 0);
                push(&mut whole, &["k"], 0);
                let mut later = Timeline::new("part");
                for at in 0..first + second {
                    let name = format!("call{}", at % 3);
                    span(&mut whole, &name, at);
                    if at < first {
                        span(&mut joined, &name, at);
                    } else {
                        span(&mut later, &format!("call{}", at % 3), at);
                    }
                }
                joined.append(later);
                let case = format!("{first}+{second} {limit:?}");
                assert_eq!(listed(&joined), listed(&whole), "{case}");
                assert_eq!((joined.is_full(), joined.load.held), (whole.is_full(), whole.load.held), "{case}");
                assert_eq!(
                    joined.host.iter().map(|s| s.correlation).collect::<Vec<_>>(),
                    whole.host.iter().map(|s| s.correlation).collect::<Vec<_>>()
                );
            }
        }
    }
}
