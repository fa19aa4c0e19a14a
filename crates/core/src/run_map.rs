//! A map whose values are updated by keys that mostly come in runs (the ops of one stream
//! follow each other): the current run's value is held apart, so a run costs one look-up, not
//! one per op.

use crate::intern::FxHashMap;
use std::hash::Hash;

/// See the module.
pub(crate) struct RunMap<K, V> {
    map: FxHashMap<K, V>,
    current: Option<(K, V)>,
}

impl<K: Copy + Eq + Hash, V: Default> RunMap<K, V> {
    pub(crate) fn new() -> Self {
        RunMap { map: FxHashMap::default(), current: None }
    }

    /// The value of `key` (default at first), looked up only when `key` differs from the last.
    #[inline]
    pub(crate) fn get(&mut self, key: K) -> &mut V {
        if self.current.as_ref().is_none_or(|(k, _)| *k != key) {
            self.switch_to(key);
        }
        // Always held by now; the closure only keeps this total.
        &mut self.current.get_or_insert_with(|| (key, V::default())).1
    }

    /// Puts the current run's value back and takes `key`'s (kept out of the per-op path).
    #[inline(never)]
    fn switch_to(&mut self, key: K) {
        let value = self.map.remove(&key).unwrap_or_default();
        if let Some((k, v)) = self.current.replace((key, value)) {
            self.map.insert(k, v);
        }
    }

    /// Every key's value.
    pub(crate) fn into_map(mut self) -> FxHashMap<K, V> {
        if let Some((k, v)) = self.current.take() {
            self.map.insert(k, v);
        }
        self.map
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
}
