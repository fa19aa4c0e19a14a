//! Sets of half-open time intervals `[start, end)`, kept sorted and merged: the one primitive
//! behind busy time, idle gaps and overlap, so every analysis measures time the same way.

/// A sorted set of disjoint, non-adjacent `[start, end)` intervals in nanoseconds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IntervalSet {
    spans: Vec<(u64, u64)>,
}

impl IntervalSet {
    /// The union of `spans` (any order, overlaps allowed; empty spans dropped). Spans already
    /// in start order (as most sources write them) are merged in place without sorting: the
    /// merge needs the starts in order, not the ends.
    pub fn from_unsorted(mut spans: Vec<(u64, u64)>) -> Self {
        spans.retain(|&(start, end)| end > start);
        if !spans.is_sorted_by_key(|&(start, _)| start) {
            spans.sort_unstable();
        }
        let mut kept = 0;
        for read in 0..spans.len() {
            let (start, end) = spans[read];
            if kept > 0 && start <= spans[kept - 1].1 {
                spans[kept - 1].1 = spans[kept - 1].1.max(end);
            } else {
                spans[kept] = (start, end);
                kept += 1;
            }
        }
        spans.truncate(kept);
        spans.shrink_to_fit();
        Self { spans }
    }

    /// The union of sets, in one merge pass over their (sorted) intervals.
    pub fn union_all(sets: &[&IntervalSet]) -> IntervalSet {
        let spans: Vec<&[(u64, u64)]> = sets.iter().map(|set| &set.spans[..]).collect();
        IntervalSet { spans: union_of(&spans) }
    }

    /// The union of this set and `later` (a later part of a file in time order): only this
    /// set's spans that end at or after `later`'s first start are merged with it, the rest kept
    /// as they are, so joining parts one at a time costs the overlap at each seam, not the whole
    /// set again (a 10 M-kernel trace in 30 parts had spent a tenth of its summary's time here).
    /// The merge runs in this set's own buffer, grown by `later`'s length, so a small table
    /// that overlaps the whole run (an nsys export's copies) does not cost the set a second
    /// time in memory.
    pub fn joined(mut self, later: IntervalSet) -> IntervalSet {
        let Some(&(first, _)) = later.spans.first() else { return self };
        // Spans ending before `first` touch none of `later`'s (each starts at `first` or after).
        let keep = self.spans.partition_point(|&(_, end)| end < first);
        let (n, m) = (self.spans.len(), later.spans.len());
        if keep == n {
            // Grown a doubling at a time: parts appended one by one are not copied each time.
            self.spans.extend_from_slice(&later.spans);
            return self;
        }
        self.spans.reserve_exact(m);
        // The seam moved to the buffer's end, then merged with `later` forward from `keep`:
        // the merged spans never outrun the unread part of the seam (at most `m` more of them
        // are written than of it are read), so the merge needs no other buffer.
        self.spans.resize(n + m, (0, 0));
        let spans = &mut self.spans;
        spans.copy_within(keep..n, keep + m);
        let (mut own, mut other, mut out) = (keep + m, 0, keep);
        while own < n + m || other < m {
            let take_own = other == m || (own < n + m && spans[own].0 <= later.spans[other].0);
            let span = if take_own {
                own += 1;
                spans[own - 1]
            } else {
                other += 1;
                later.spans[other - 1]
            };
            match out.checked_sub(1).filter(|&last| last >= keep).map(|last| &mut spans[last]) {
                // Overlapping or touching the latest merged span: one span.
                Some(merged) if span.0 <= merged.1 => merged.1 = merged.1.max(span.1),
                _ => {
                    spans[out] = span;
                    out += 1;
                }
            }
        }
        spans.truncate(out);
        self
    }

    /// The merged intervals, in time order.
    pub fn spans(&self) -> &[(u64, u64)] {
        &self.spans
    }

    /// Whether the set covers no time.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Covered time inside `[start, end)`, ns.
    pub fn clipped_ns(&self, start: u64, end: u64) -> u64 {
        let from = self.spans.partition_point(|&(_, e)| e <= start);
        self.spans[from..]
            .iter()
            .take_while(|&&(s, _)| s < end)
            .map(|&(s, e)| e.min(end).saturating_sub(s.max(start)))
            .sum()
    }

    /// Total covered time, ns.
    pub fn total_ns(&self) -> u64 {
        self.spans.iter().map(|&(start, end)| end - start).sum()
    }

    /// First start and last end, if any.
    pub fn bounds(&self) -> Option<(u64, u64)> {
        Some((self.spans.first()?.0, self.spans.last()?.1))
    }

    /// The union of two sets.
    pub fn union(&self, other: &IntervalSet) -> IntervalSet {
        IntervalSet::union_all(&[self, other])
    }

    /// Time covered by both sets, ns.
    pub fn intersection_ns(&self, other: &IntervalSet) -> u64 {
        let (mut i, mut j, mut total) = (0, 0, 0u64);
        while i < self.spans.len() && j < other.spans.len() {
            let (a, b) = (self.spans[i], other.spans[j]);
            let (start, end) = (a.0.max(b.0), a.1.min(b.1));
            if end > start {
                total += end - start;
            }
            if a.1 <= b.1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        total
    }

    /// The uncovered stretches between the first start and the last end, in time order.
    pub fn gaps(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.spans.windows(2).map(|pair| (pair[0].1, pair[1].0))
    }
}

/// The covered time of spans that arrive in start order, merged as they come, without
/// keeping them: for the common case of a source that writes ops in time order.
#[derive(Debug, Clone, Copy, Default)]
pub struct SortedUnion {
    current: Option<(u64, u64)>,
    closed_ns: u64,
    out_of_order: bool,
}

impl SortedUnion {
    /// Adds `[start, end)` (an empty span is ignored, as [`IntervalSet::from_unsorted`] does).
    pub fn add(&mut self, start: u64, end: u64) {
        self.add_closing(start, end);
    }

    /// [`SortedUnion::add`], returning the merged span that `[start, end)` closed (it starts
    /// past that span's end), for a caller that keeps the merged spans.
    pub fn add_closing(&mut self, start: u64, end: u64) -> Option<(u64, u64)> {
        if end <= start {
            return None;
        }
        let mut closed = None;
        self.current = match self.current {
            Some((lo, _)) if start < lo => {
                self.out_of_order = true;
                self.current
            }
            Some((lo, hi)) if start <= hi => Some((lo, hi.max(end))),
            Some((lo, hi)) => {
                self.closed_ns += hi - lo;
                closed = Some((lo, hi));
                Some((start, end))
            }
            None => Some((start, end)),
        };
        closed
    }

    /// Counts `ns` of merged spans that all start at or after `from` (spans merged elsewhere,
    /// not kept), closing the open span first; false, and nothing changed, when the open span
    /// ends past `from` (it may overlap them, so their cover is not simply added).
    pub fn add_merged_from(&mut self, from: u64, ns: u64) -> bool {
        if let Some((lo, hi)) = self.current {
            if hi > from {
                return false;
            }
            self.closed_ns += hi - lo;
            self.current = None;
        }
        self.closed_ns += ns;
        true
    }

    /// The merged span still open (the latest), if any.
    pub fn open_span(&self) -> Option<(u64, u64)> {
        self.current
    }

    /// Makes the covered time unknown: spans out of order came in where this union did not see
    /// them (another part of the same file).
    pub fn mark_out_of_order(&mut self) {
        self.out_of_order = true;
    }

    /// The covered time, ns, the same as [`IntervalSet::total_ns`] of the spans; `None` when a
    /// span started before an earlier one (the caller then needs an [`IntervalSet`]).
    pub fn total_ns(&self) -> Option<u64> {
        (!self.out_of_order).then(|| self.closed_ns + self.current.map_or(0, |(lo, hi)| hi - lo))
    }
}

/// The union of sorted, merged span lists, merged in one pass.
fn union_of(sets: &[&[(u64, u64)]]) -> Vec<(u64, u64)> {
    let mut cursors = vec![0usize; sets.len()];
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(sets.iter().map(|s| s.len()).max().unwrap_or(0));
    loop {
        let next = (0..sets.len()).filter_map(|k| sets[k].get(cursors[k]).map(|span| (*span, k))).min();
        let Some(((start, end), k)) = next else { break };
        cursors[k] += 1;
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_overlapping_and_touching_spans_and_measures_overlap() {
        let a = IntervalSet::from_unsorted(vec![(10, 20), (0, 5), (15, 30), (30, 40), (50, 50)]);
        assert_eq!(a.spans(), &[(0, 5), (10, 40)]);
        assert_eq!(a.total_ns(), 35);
        assert_eq!(a.bounds(), Some((0, 40)));
        assert_eq!(a.gaps().collect::<Vec<_>>(), vec![(5, 10)]);
        let b = IntervalSet::from_unsorted(vec![(3, 12), (35, 60)]);
        // [3,5) + [10,12) + [35,40)
        assert_eq!(a.intersection_ns(&b), 2 + 2 + 5);
        assert_eq!(a.union(&b).spans(), &[(0, 60)]);
        let c = IntervalSet::from_unsorted(vec![(100, 110), (45, 47)]);
        assert_eq!(IntervalSet::union_all(&[&a, &b, &c]).spans(), &[(0, 60), (100, 110)]);
        assert_eq!(IntervalSet::union_all(&[]), IntervalSet::default());
        let mut sorted = SortedUnion::default();
        for (start, end) in [(0, 5), (10, 20), (10, 12), (15, 30), (30, 40), (50, 50)] {
            sorted.add(start, end);
        }
        assert_eq!(sorted.total_ns(), Some(35));
        // The empty (50, 50) was ignored: [10, 40) is still open.
        assert_eq!(sorted.open_span(), Some((10, 40)));
        assert_eq!(sorted.add_closing(60, 70), Some((10, 40)));
        assert_eq!(sorted.add_closing(65, 80), None);
        assert_eq!(sorted.open_span(), Some((60, 80)));
        assert_eq!(sorted.total_ns(), Some(55));
        sorted.add(1, 2);
        assert_eq!(sorted.total_ns(), None);
        // Spans merged elsewhere, from 100 on: the open [60, 80) is closed and they are counted.
        assert!(sorted.clone().add_merged_from(80, 7));
        let mut counted = SortedUnion::default();
        counted.add(60, 80);
        assert!(counted.add_merged_from(100, 7));
        assert_eq!((counted.total_ns(), counted.open_span()), (Some(27), None));
        // The open span reaches past where they start: refused, nothing changed.
        let mut reaching = SortedUnion::default();
        reaching.add(60, 80);
        assert!(!reaching.add_merged_from(79, 7));
        assert_eq!((reaching.total_ns(), reaching.open_span()), (Some(20), Some((60, 80))));
        let mut marked = SortedUnion::default();
        marked.add(0, 5);
        marked.mark_out_of_order();
        assert_eq!(marked.total_ns(), None);
        assert!(IntervalSet::default().is_empty());
        assert_eq!(IntervalSet::default().bounds(), None);
    }

    #[test]
    fn joining_a_later_part_equals_the_union_of_both() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % below
        };
        for round in 0..400 {
            let spans = |next: &mut dyn FnMut(u64) -> u64, from: u64| -> Vec<(u64, u64)> {
                let n = next(12);
                (0..n)
                    .map(|_| {
                        let s = from + next(200);
                        (s, s + next(30))
                    })
                    .collect()
            };
            let a = IntervalSet::from_unsorted(spans(&mut next, 0));
            // The later part starts anywhere from well before to past the earlier one's end.
            let from = next(260);
            let b = IntervalSet::from_unsorted(spans(&mut next, from));
            let want = IntervalSet::union_all(&[&a, &b]);
            assert_eq!(a.clone().joined(b.clone()), want, "round {round}: {a:?} + {b:?}");
        }
        let a = IntervalSet::from_unsorted(vec![(0, 10), (20, 30)]);
        assert_eq!(a.clone().joined(IntervalSet::from_unsorted(vec![(30, 35)])).spans(), &[(0, 10), (20, 35)]);
        assert_eq!(
            a.clone().joined(IntervalSet::from_unsorted(vec![(31, 35)])).spans(),
            &[(0, 10), (20, 30), (31, 35)]
        );
        assert_eq!(a.clone().joined(IntervalSet::default()), a);
        assert_eq!(IntervalSet::default().joined(a.clone()), a);
    }
}
