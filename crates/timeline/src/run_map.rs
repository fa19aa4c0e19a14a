//! A map whose values are updated by keys that mostly come in runs (the ops of one stream
//! follow each other): the current run's key and slot are held apart, so a run costs one
//! look-up, not one per op, and a change of key one look-up, not a removal and an insertion.

use crate::intern::FxHashMap;
use std::hash::Hash;

/// See the module.
pub struct RunMap<K, V> {
    /// Each key's slot in `entries`.
    slots: FxHashMap<K, usize>,
    entries: Vec<(K, V)>,
    /// The current run's key and slot.
    current: Option<(K, usize)>,
}

impl<K: Copy + Eq + Hash, V: Default> Default for RunMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Copy + Eq + Hash, V: Default> RunMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        RunMap { slots: FxHashMap::default(), entries: Vec::new(), current: None }
    }

    /// The value of `key` (default at first), looked up only when `key` differs from the last.
    #[inline]
    pub fn get(&mut self, key: K) -> &mut V {
        let slot = match self.current {
            Some((k, slot)) if k == key => slot,
            _ => self.switch_to(key),
        };
        &mut self.entries[slot].1
    }

    /// The slot of `key`, made the current run's (one look-up, kept out of the per-op path).
    #[inline(never)]
    fn switch_to(&mut self, key: K) -> usize {
        let next = self.entries.len();
        let slot = *self.slots.entry(key).or_insert(next);
        if slot == next {
            self.entries.push((key, V::default()));
        }
        self.current = Some((key, slot));
        slot
    }

    /// Every key's value.
    pub fn into_map(self) -> FxHashMap<K, V> {
        self.entries.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_returns_to_a_key_add_up() {
        let mut counts: RunMap<u32, u64> = RunMap::new();
        for key in [1, 1, 2, 2, 2, 1, 3, 1] {
            *counts.get(key) += 1;
        }
        let mut all: Vec<(u32, u64)> = counts.into_map().into_iter().collect();
        all.sort_unstable();
        assert_eq!(all, [(1, 4), (2, 3), (3, 1)]);
    }

    #[test]
    fn keys_in_short_runs_sum_as_a_plain_map_sums_them() {
        let mut random = crate::test_random::XorShift::new(7);
        type Key = (u32, u64);
        let (mut runs, mut plain): (RunMap<Key, u64>, FxHashMap<Key, u64>) = (RunMap::new(), FxHashMap::default());
        let mut key = (0, 0);
        for i in 0..20_000u64 {
            if random.below(3) == 0 {
                key = (random.below(4) as u32, random.below(9));
            }
            *runs.get(key) += i;
            *plain.entry(key).or_default() += i;
        }
        assert_eq!(runs.into_map(), plain);
    }
}
