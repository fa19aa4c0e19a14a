//! A process-wide table of the values too wide for the packed words of a device op (a wide
//! device/stream pair of [`crate::op_place`], a wide correlation id of [`crate::Correlation`]):
//! each value is kept once, by index, so a word can hold its index and every value reads back
//! as it was given. Chunks are made as they are needed and never freed; a value is read without
//! a lock (two atomic loads), and adding one takes a lock. The indices are canonical (one per
//! value), so equal words stay equal values.

use crate::intern::FxHashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Mutex, OnceLock};

/// Values of one chunk of a table.
pub(crate) const CHUNK_BITS: u32 = 12;

/// A chunk: 2^[`CHUNK_BITS`] slots, each set once, before any word holding its index exists.
type Slot<T> = OnceLock<T>;

/// The table: `CHUNKS` pointers to chunks of 2^[`CHUNK_BITS`] values, null until used. Null
/// pointers are zero bytes, so a table is zero-initialised and costs the binary nothing (with
/// a `OnceLock` per chunk, whose bytes are not all zero, the three 2^19-chunk tables were 37 MB
/// of the binary's data section); a chunk is leaked once made, as the table lives as long as
/// the process.
pub(crate) struct SpillTable<T, const CHUNKS: usize> {
    chunks: [AtomicPtr<Slot<T>>; CHUNKS],
    /// The index of each value, for adding a value once (writers only; `None` until the first:
    /// zero bytes too).
    index: Mutex<Option<FxHashMap<T, u32>>>,
}

impl<T: Copy + Eq + Hash + Send + Sync, const CHUNKS: usize> SpillTable<T, CHUNKS> {
    pub(crate) const fn new() -> Self {
        Self { chunks: [const { AtomicPtr::new(std::ptr::null_mut()) }; CHUNKS], index: Mutex::new(None) }
    }

    /// The index of `value`, added if new. Past the table's capacity (`CHUNKS` × 2^12
    /// values) it panics rather than give two values one index.
    #[cold]
    pub(crate) fn index_of(&self, value: T) -> u32 {
        self.index_below(value, u32::MAX).expect("a spill table holds fewer values than its capacity")
    }

    /// The index of `value`, added if new and the table holds fewer than `limit` values;
    /// `None` when it is new and the table is that full (which it then stays: a value refused
    /// once is refused always, so a caller's encoding stays canonical). Past the table's
    /// capacity it panics.
    #[cold]
    pub(crate) fn index_below(&self, value: T, limit: u32) -> Option<u32> {
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        let index = index.get_or_insert_with(FxHashMap::default);
        if let Some(&at) = index.get(&value) {
            return Some(at);
        }
        if index.len() >= limit as usize {
            return None;
        }
        let at = u32::try_from(index.len())
            .ok()
            .filter(|&n| ((n >> CHUNK_BITS) as usize) < CHUNKS)
            .expect("a spill table holds fewer values than its capacity");
        // Made under the index's lock, so only once; published with Release, read with Acquire.
        let pointer = &self.chunks[(at >> CHUNK_BITS) as usize];
        let mut chunk = pointer.load(Ordering::Acquire);
        if chunk.is_null() {
            let made: Box<[Slot<T>]> = (0..1 << CHUNK_BITS).map(|_| OnceLock::new()).collect();
            chunk = Box::leak(made).as_mut_ptr();
            pointer.store(chunk, Ordering::Release);
        }
        // SAFETY: a non-null pointer is a leaked chunk of 2^CHUNK_BITS slots, never freed.
        let slots = unsafe { std::slice::from_raw_parts(chunk, 1 << CHUNK_BITS) };
        // Set before the index is handed out: a word holding it always finds its value.
        let _ = slots[(at & ((1 << CHUNK_BITS) - 1)) as usize].set(value);
        index.insert(value, at);
        Some(at)
    }

    /// The value at index `at`, if one was added there: two atomic loads, no lock.
    #[inline]
    pub(crate) fn get(&self, at: u32) -> Option<T> {
        let chunk = self.chunks.get((at >> CHUNK_BITS) as usize)?.load(Ordering::Acquire);
        if chunk.is_null() {
            return None;
        }
        // SAFETY: a non-null pointer is a leaked chunk of 2^CHUNK_BITS slots, never freed, and
        // the offset is below that.
        let slot = unsafe { &*chunk.add((at & ((1 << CHUNK_BITS) - 1)) as usize) };
        slot.get().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_added_on_many_threads_get_one_index_each_and_read_back() {
        static TABLE: SpillTable<u64, 8> = SpillTable::new();
        // Five chunks' worth, each value added by two threads at once.
        let values = |t: u64| (0..10_000u64).map(move |i| (t / 2) << 40 | i);
        let indices: Vec<Vec<(u64, u32)>> = (0..4)
            .map(|t| std::thread::spawn(move || values(t).map(|v| (v, TABLE.index_of(v))).collect()))
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect();
        for (t, mine) in indices.iter().enumerate() {
            assert_eq!(mine, &indices[t ^ 1], "thread {t}");
        }
        let all: Vec<(u64, u32)> = indices.into_iter().step_by(2).flatten().collect();
        let distinct: std::collections::HashSet<u32> = all.iter().map(|&(_, at)| at).collect();
        assert_eq!(distinct.len(), 20_000);
        std::thread::spawn(move || assert!(all.iter().all(|&(v, at)| TABLE.get(at) == Some(v)))).join().unwrap();
        assert_eq!(TABLE.get(20_000), None);
        assert_eq!(TABLE.get(u32::MAX), None);
    }

    #[test]
    fn a_table_full_to_its_limit_refuses_new_values_for_good() {
        static LIMITED: SpillTable<u64, 1> = SpillTable::new();
        assert_eq!((LIMITED.index_below(7, 2), LIMITED.index_below(9, 2)), (Some(0), Some(1)));
        assert_eq!(LIMITED.index_below(11, 2), None);
        assert_eq!((LIMITED.index_below(9, 2), LIMITED.index_below(11, 2)), (Some(1), None));
        assert_eq!((LIMITED.get(0), LIMITED.get(1), LIMITED.get(2)), (Some(7), Some(9), None));
    }

    #[test]
    #[should_panic(expected = "fewer values than its capacity")]
    fn a_full_table_panics_rather_than_share_an_index() {
        static SMALL: SpillTable<u32, 1> = SpillTable::new();
        for v in 0..=(1u32 << CHUNK_BITS) {
            SMALL.index_of(v);
        }
    }
}
