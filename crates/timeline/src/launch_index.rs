//! The launch call of each correlation id: what the launch statistics and the idle gaps look a
//! device op's launch up in ([`Timeline::launch_index`](crate::Timeline::launch_index)).
//!
//! Tracers number launches from a counter (CUPTI, Kineto, rocprofv3 within one process), so the
//! ids of one timeline are nearly always a dense range: the index is then a table by id less the
//! smallest, 4 bytes a slot, and a lookup is one load from a place next to the last one (ops in
//! start order were launched in nearly that order). A hash map held 28 bytes a launch and cost a
//! cache miss a lookup: at 10 M launches 280 MB and most of the gaps' and launch statistics'
//! time. Ids spread wider than [`SPREAD`] slots a launch (several processes' ids in one file)
//! keep the map.

use crate::host_span::{HostCategory, HostSpan};
use crate::intern::FxHashMap;

/// Most table slots per launch before the map is used instead (the table's slot is 4 bytes,
/// a map entry ~28).
pub const SPREAD: u64 = 4;
/// Ranges up to this many slots take the table whatever the count (16 KB).
const SMALL_RANGE: u64 = 4096;
/// An empty slot.
const EMPTY: u32 = u32::MAX;

/// The index in a timeline's host spans of the launch call (a runtime or driver span) of each
/// correlation id; when two share an id, the later in the host list.
#[derive(Debug, Clone)]
pub enum LaunchIndex {
    /// `slots[id - first]` is the span, or [`EMPTY`].
    Table {
        /// The smallest id.
        first: u64,
        /// One slot per id from `first` on.
        slots: Vec<u32>,
    },
    /// Ids too spread out (or more spans than a slot can number).
    Map(FxHashMap<u64, usize>),
}

impl Default for LaunchIndex {
    fn default() -> Self {
        LaunchIndex::Table { first: 0, slots: Vec::new() }
    }
}

/// True for the spans the index holds: launch calls.
#[inline]
fn is_launch(span: &HostSpan) -> bool {
    matches!(span.category, HostCategory::Runtime | HostCategory::Driver)
}

impl LaunchIndex {
    /// The index of the launch calls among `host`.
    pub fn of(host: &[HostSpan]) -> Self {
        let ids = || {
            host.iter().enumerate().filter(|(_, s)| is_launch(s)).filter_map(|(i, s)| Some((s.correlation.get()?, i)))
        };
        let (mut count, mut low, mut high) = (0u64, u64::MAX, 0u64);
        for (id, _) in ids() {
            count += 1;
            low = low.min(id);
            high = high.max(id);
        }
        if count == 0 {
            return Self::default();
        }
        let range = high - low;
        let dense = range < SMALL_RANGE.max(count.saturating_mul(SPREAD));
        if !dense || host.len() >= EMPTY as usize {
            let mut map = FxHashMap::default();
            map.reserve(count as usize);
            map.extend(ids());
            return LaunchIndex::Map(map);
        }
        let mut slots = vec![EMPTY; range as usize + 1];
        for (id, index) in ids() {
            slots[(id - low) as usize] = index as u32;
        }
        LaunchIndex::Table { first: low, slots }
    }

    /// The launch span of correlation id `id`, if the index holds one.
    #[inline]
    pub fn get(&self, id: u64) -> Option<usize> {
        match self {
            LaunchIndex::Table { first, slots } => {
                let slot = *slots.get(usize::try_from(id.checked_sub(*first)?).ok()?)?;
                (slot != EMPTY).then_some(slot as usize)
            }
            LaunchIndex::Map(map) => map.get(&id).copied(),
        }
    }

    /// True when it holds no launch.
    pub fn is_empty(&self) -> bool {
        match self {
            LaunchIndex::Table { slots, .. } => slots.is_empty(),
            LaunchIndex::Map(map) => map.is_empty(),
        }
    }

    /// True when it is the table (for the tests: which way was taken).
    pub fn is_table(&self) -> bool {
        matches!(self, LaunchIndex::Table { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intern::NameId;
    use crate::test_random::XorShift;

    fn span(category: HostCategory, correlation: Option<u64>) -> HostSpan {
        HostSpan::test(NameId(0), category, 0, 1, correlation)
    }

    /// The rule written plainly: the last launch span of each id.
    fn plain(host: &[HostSpan]) -> FxHashMap<u64, usize> {
        let mut map = FxHashMap::default();
        for (i, s) in host.iter().enumerate() {
            if let (true, Some(c)) = (is_launch(s), s.correlation.get()) {
                map.insert(c, i);
            }
        }
        map
    }

    fn check(host: &[HostSpan], probes: impl Iterator<Item = u64>) -> LaunchIndex {
        let index = LaunchIndex::of(host);
        let map = plain(host);
        assert_eq!(index.is_empty(), map.is_empty());
        for id in probes.chain(map.keys().copied()) {
            assert_eq!(index.get(id), map.get(&id).copied(), "id {id}");
        }
        index
    }

    #[test]
    fn dense_ids_take_the_table_and_spread_ids_the_map_with_the_same_answers() {
        let mut random = XorShift::new(7);
        let categories = [HostCategory::Runtime, HostCategory::Driver, HostCategory::Framework, HostCategory::Other];
        for round in 0..200 {
            let n = random.below(300) as usize + 1;
            let spread = [1u64, 3, 5, 1 << 40][round % 4];
            let base = [0u64, 17, u64::MAX - 10_000, 1 << 32][round % 3 + usize::from(round % 7 == 0)];
            let host: Vec<HostSpan> = (0..n)
                .map(|_| {
                    let category = categories[random.below(4) as usize];
                    let id = (random.below(6) != 0).then(|| base.saturating_add(random.below(n as u64 * spread + 1)));
                    span(category, id)
                })
                .collect();
            let probes = (0..50).map(|_| base.wrapping_add(random.below(n as u64 * spread + 10)).wrapping_sub(5));
            check(&host, probes.chain([0, u64::MAX, base]));
        }
    }

    #[test]
    fn the_way_taken_follows_the_spread() {
        let ids = |ids: &[u64]| ids.iter().map(|&c| span(HostCategory::Runtime, Some(c))).collect::<Vec<_>>();
        assert!(check(&ids(&[5, 9, 7]), 0..12).is_table());
        let wide: Vec<u64> = (0..2000).map(|i| i * 1000).collect();
        assert!(!check(&ids(&wide), 0..3000).is_table(), "2000 ids over 2 M slots: the map");
        let high = [1u64 << 63, (1 << 63) + 1];
        assert!(check(&ids(&high), [0, 1 << 63, (1 << 63) + 2, u64::MAX].into_iter()).is_table());
        assert!(check(&ids(&[]), 0..3).is_empty());
        assert!(check(&[span(HostCategory::Framework, Some(3))], 0..5).is_empty(), "framework ops are no launches");
    }
}
