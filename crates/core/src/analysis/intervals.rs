//! Sets of half-open time intervals `[start, end)`, kept sorted and merged: the one primitive
//! behind busy time, idle gaps and overlap, so every analysis measures time the same way.

/// A sorted set of disjoint, non-adjacent `[start, end)` intervals in nanoseconds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IntervalSet {
    spans: Vec<(u64, u64)>,
}

impl IntervalSet {
    /// The union of `spans` (any order, overlaps allowed; empty spans dropped).
    pub fn from_unsorted(mut spans: Vec<(u64, u64)>) -> Self {
        spans.retain(|&(start, end)| end > start);
        spans.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(spans.len());
        for (start, end) in spans {
            match merged.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        Self { spans: merged }
    }

    /// The merged intervals, in time order.
    pub fn spans(&self) -> &[(u64, u64)] {
        &self.spans
    }

    /// Whether the set covers no time.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
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
        let mut all = Vec::with_capacity(self.spans.len() + other.spans.len());
        all.extend_from_slice(&self.spans);
        all.extend_from_slice(&other.spans);
        IntervalSet::from_unsorted(all)
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
        assert!(IntervalSet::default().is_empty());
        assert_eq!(IntervalSet::default().bounds(), None);
    }
}
