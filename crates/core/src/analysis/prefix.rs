//! Prefix sums of op durations in about 4 bytes an entry, not 8: each block of 256 entries
//! keeps its first sum whole and the others as a 32-bit offset from it. The step search and
//! the layers hold them for the main stream (10 M ops: 40 MB, not 80); a block whose offsets
//! pass 2^32 ns (ops averaging over 16 ms) turns the whole set back to 8-byte sums, so every
//! sum reads back exactly.

/// Entries a block: one 8-byte sum each.
const BLOCK: usize = 256;

/// `[0, d0, d0 + d1, …]` (saturating at 2^64): the sum of durations `a..b` is
/// `at(b) - at(a)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixSums {
    repr: Repr,
    /// The last entry.
    total: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Repr {
    Narrow { base: Vec<u64>, offset: Vec<u32> },
    Wide(Vec<u64>),
}

impl Default for PrefixSums {
    /// The sums of no durations: the leading 0.
    fn default() -> Self {
        PrefixSums::with_capacity(0)
    }
}

impl PrefixSums {
    /// The prefix sums of `durations` (one more entry than they are).
    pub fn of(durations: impl IntoIterator<Item = u64>) -> Self {
        let durations = durations.into_iter();
        let mut sums = PrefixSums::with_capacity(durations.size_hint().0);
        for d in durations {
            sums.push(d);
        }
        sums
    }

    /// Just the leading 0, with room for `durations` more.
    pub(crate) fn with_capacity(durations: usize) -> Self {
        let mut offset = Vec::with_capacity(durations + 1);
        offset.push(0);
        PrefixSums { repr: Repr::Narrow { base: vec![0], offset }, total: 0 }
    }

    /// Adds the sum after one more duration.
    #[inline]
    pub(crate) fn push(&mut self, duration: u64) {
        let sum = self.total.saturating_add(duration);
        self.total = sum;
        match &mut self.repr {
            Repr::Narrow { base, offset } => {
                if offset.len() % BLOCK == 0 {
                    base.push(sum);
                    offset.push(0);
                    return;
                }
                match u32::try_from(sum - base[base.len() - 1]) {
                    Ok(o) => offset.push(o),
                    Err(_) => {
                        let mut wide: Vec<u64> = Vec::with_capacity(offset.capacity());
                        wide.extend((0..offset.len()).map(|i| base[i / BLOCK] + u64::from(offset[i])));
                        wide.push(sum);
                        self.repr = Repr::Wide(wide);
                    }
                }
            }
            Repr::Wide(sums) => sums.push(sum),
        }
    }

    /// Entry `i` (the sum of the first `i` durations).
    #[inline]
    pub fn at(&self, i: usize) -> u64 {
        match &self.repr {
            Repr::Narrow { base, offset } => base[i / BLOCK] + u64::from(offset[i]),
            Repr::Wide(sums) => sums[i],
        }
    }

    /// The sum of durations `a..b`.
    #[inline]
    pub fn sum(&self, a: usize, b: usize) -> u64 {
        self.at(b) - self.at(a)
    }

    /// Entries (durations + 1).
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Narrow { offset, .. } => offset.len(),
            Repr::Wide(sums) => sums.len(),
        }
    }

    /// Never: there is always the leading 0.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The last entry: the sum of all durations.
    pub fn last(&self) -> u64 {
        self.total
    }

    /// The entries, each as a whole sum.
    pub fn to_vec(&self) -> Vec<u64> {
        (0..self.len()).map(|i| self.at(i)).collect()
    }

    /// The prefix sums of durations `from..to` alone.
    pub fn range(&self, from: usize, to: usize) -> PrefixSums {
        PrefixSums::of((from..to).map(|i| self.sum(i, i + 1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(durations: &[u64]) -> Vec<u64> {
        let mut sums = vec![0u64];
        for &d in durations {
            sums.push(sums[sums.len() - 1].saturating_add(d));
        }
        sums
    }

    fn check(durations: &[u64]) -> PrefixSums {
        let sums = PrefixSums::of(durations.iter().copied());
        let want = plain(durations);
        assert_eq!(sums.len(), want.len());
        assert!((0..want.len()).all(|i| sums.at(i) == want[i]), "{durations:?}");
        assert_eq!(sums.last(), want[want.len() - 1]);
        sums
    }

    #[test]
    fn every_sum_reads_back_exactly() {
        let mut rng = prof_timeline::test_random::XorShift::new(11);
        for len in [0, 1, 255, 256, 257, 1000] {
            let small: Vec<u64> = (0..len).map(|_| rng.below(10_000)).collect();
            assert!(matches!(check(&small).repr, Repr::Narrow { .. }));
            let range = PrefixSums::of(small.iter().copied()).range(len / 3, len / 2);
            assert_eq!(range, PrefixSums::of(small[len / 3..len / 2].iter().copied()));
        }
        // A block whose offsets pass 32 bits: every sum kept whole from then on.
        let mut long: Vec<u64> = (0..600).map(|_| rng.below(1000)).collect();
        long[300] = 5_000_000_000;
        assert!(matches!(check(&long).repr, Repr::Wide(_)));
        // Sums that saturate.
        check(&[u64::MAX - 5, 3, 10, 1]);
    }
}
