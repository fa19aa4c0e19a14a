//! The correlation id of a device op or host span (the launch call that made it), or none, in
//! 4 bytes where `Option<u64>` takes 16: a device op is 32 bytes with it, not 44 (120 MB less at
//! 10 M ops, to hold and to stream through every analysis).
//!
//! Ids are 64-bit (a reader that loads several processes or files into one timeline puts its
//! index in the high half, `index << 32 | id`), but the ids of one trace lie close together
//! (CUPTI's and Kineto's count the calls from 1: a trace taken late in a long job starts at a
//! large id and spans a few million). The word holds an id's low 24 bits and, in 7 bits, a
//! code for the rest of it: 0 for none (ids below 2^24), else one of 127 "high parts" kept
//! process-wide in the order they are first seen ([`crate::spill_table`]), so the ids of a
//! trace anywhere in the 64-bit range, or of a few processes, fit. An id whose high part finds
//! no code (the table is full: ids scattered over more than 127 × 2^24 of the range, or a
//! long-lived process that read many jobs) is kept once in a second table and the word holds
//! its index there (top bit set): ~45 bytes more and a lock for that op. Every id reads back as
//! it was given, and the encoding is canonical (a high part refused a code is refused for
//! good), so equal words are equal ids and the derived `Eq`/`Hash` are the ids'.

use crate::spill_table::{self, SpillTable};
use serde::{Serialize, Serializer};
use std::sync::atomic::{AtomicBool, Ordering};

const LOW_BITS: u32 = 24;
const LOW_MASK: u32 = (1 << LOW_BITS) - 1;
/// High parts with a code (codes 1..=127; 0 is the high part 0).
const HIGH_CODES: u32 = 127;
const SPILLED: u32 = 1 << 31;
/// The word of no id.
const NONE_WORD: u32 = u32::MAX;

/// The high parts (`id >> 24`) with a code: code `k` is the one at index `k - 1`.
static HIGHS: SpillTable<u64, 1> = SpillTable::new();

/// The ids whose high part has no code: up to 2^31 - 1 of them (every word with the top bit
/// set, but [`NONE_WORD`]).
static WIDE: SpillTable<u64, { 1 << (31 - spill_table::CHUNK_BITS) }> = SpillTable::new();

/// A correlation id, or none (see the module's documentation).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Correlation(u32);

impl Correlation {
    /// No correlation id.
    pub const NONE: Correlation = Correlation(NONE_WORD);

    /// The id, if there is one.
    #[inline]
    pub fn get(self) -> Option<u64> {
        if self.0 & SPILLED != 0 {
            return (self.0 != NONE_WORD).then(|| wide(self.0));
        }
        let low = u64::from(self.0 & LOW_MASK);
        match self.0 >> LOW_BITS {
            0 => Some(low),
            code => Some(high_of(code) << LOW_BITS | low),
        }
    }

    /// True when there is an id.
    #[inline]
    pub fn is_some(self) -> bool {
        self.0 != NONE_WORD
    }

    /// The word of `id`.
    #[inline]
    fn of(id: u64) -> Self {
        let (high, low) = (id >> LOW_BITS, id as u32 & LOW_MASK);
        if high == 0 {
            return Correlation(low);
        }
        match code_of(high) {
            Some(code) => Correlation(code << LOW_BITS | low),
            None => Correlation(SPILLED | spill(id)),
        }
    }
}

/// The code of a high part, if it has or gets one. The last one looked up is kept per thread:
/// the ids of a trace come in long runs of one high part.
#[inline]
fn code_of(high: u64) -> Option<u32> {
    use std::cell::Cell;
    thread_local!(static LAST: Cell<(u64, u32)> = const { Cell::new((0, 0)) });
    let (last, code) = LAST.get();
    if last == high && code != 0 {
        return Some(code);
    }
    let code = if HIGHS_FULL.load(Ordering::Acquire) {
        // Every code is taken: the high part has one or never will; found without the lock.
        (0..HIGH_CODES).find(|&at| HIGHS.get(at) == Some(high))? + 1
    } else {
        match HIGHS.index_below(high, HIGH_CODES) {
            Some(at) => at + 1,
            None => {
                HIGHS_FULL.store(true, Ordering::Release);
                return None;
            }
        }
    };
    LAST.set((high, code));
    Some(code)
}

/// Set once every code is taken (after which [`HIGHS`] never changes).
static HIGHS_FULL: AtomicBool = AtomicBool::new(false);

/// The high part of `code` (1..=127, handed out by [`code_of`] after adding its high part).
#[inline]
fn high_of(code: u32) -> u64 {
    HIGHS.get(code - 1).unwrap_or(u64::MAX >> LOW_BITS)
}

/// The table index of an id whose high part has no code, added if new. Past 2^31 - 1 such ids
/// it panics rather than give two ids one word.
#[cold]
fn spill(id: u64) -> u32 {
    let at = WIDE.index_of(id);
    assert!(at < NONE_WORD & !SPILLED, "fewer than 2^31 - 1 wide correlation ids");
    at
}

/// The id of a spilled word: two atomic loads, no lock.
#[cold]
fn wide(word: u32) -> u64 {
    // Only `spill` makes spilled words, after adding their id, and ids are never removed.
    WIDE.get(word & !SPILLED).unwrap_or(u64::MAX)
}

impl Default for Correlation {
    fn default() -> Self {
        Self::NONE
    }
}

impl From<Option<u64>> for Correlation {
    #[inline]
    fn from(id: Option<u64>) -> Self {
        id.map_or(Self::NONE, Self::of)
    }
}

impl PartialEq<Option<u64>> for Correlation {
    fn eq(&self, other: &Option<u64>) -> bool {
        self.get() == *other
    }
}

impl std::fmt::Debug for Correlation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl Serialize for Correlation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(serializer)
    }
}

/// Serialized as the id or null, as `Option<u64>` is.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Correlation {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <Option<u64>>::schema_name()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Option<u64>>::json_schema(generator)
    }
    fn inline_schema() -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_none_is_none() {
        let ids =
            [0, 1, LOW_MASK as u64, 1 << 24, 1 << 28, 7 << 32 | 5, 1_048_001_587, 1 << 40, u64::MAX - 1, u64::MAX];
        for id in ids {
            assert_eq!(Correlation::from(Some(id)).get(), Some(id));
            assert_eq!(Correlation::from(Some(id)), Some(id));
            assert!(Correlation::from(Some(id)).is_some());
            assert_eq!(Correlation::from(Some(id)), Correlation::from(Some(id)));
            assert_ne!(Correlation::from(Some(id)), Correlation::from(Some(id ^ 1)));
        }
        // Ids below 2^24 are the word. (Whether a larger one takes a code or spills depends on
        // the codes other tests of this process took: both read back, as checked above.)
        assert_eq!(Correlation::from(Some(LOW_MASK as u64)).0, LOW_MASK);
        assert_eq!(Correlation::from(None).get(), None);
        assert_eq!(Correlation::default(), Correlation::NONE);
        assert!(!Correlation::NONE.is_some());
        assert_eq!(serde_json::to_string(&Correlation::from(Some(3))).unwrap(), "3");
        assert_eq!(serde_json::to_string(&Correlation::NONE).unwrap(), "null");
        assert_eq!(format!("{:?}", Correlation::from(Some(3))), "Some(3)");
        assert_eq!(std::mem::size_of::<crate::DeviceOp>() as u64, crate::load_budget::OP_BYTES);
    }

    #[test]
    fn ids_past_the_codes_spill_and_still_read_back_on_any_thread() {
        // More high parts than there are codes (the table is the process's: other tests may
        // have taken some), from two threads at once.
        let ids = |t: u64| (1..400u64).map(move |k| (k << 30) + t * 3 + 1);
        let words: Vec<Vec<(u64, Correlation)>> = (0..2)
            .map(|t| std::thread::spawn(move || ids(t).map(|id| (id, Correlation::from(Some(id)))).collect()))
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect();
        let all: Vec<(u64, Correlation)> = words.into_iter().flatten().collect();
        assert!(all.iter().any(|(_, w)| w.0 & SPILLED != 0), "some high parts find no code");
        assert!(all.iter().any(|(_, w)| w.0 & SPILLED == 0));
        std::thread::spawn(move || {
            for (id, word) in all {
                assert_eq!(word.get(), Some(id));
                assert_eq!(Correlation::from(Some(id)), word, "one word per id");
            }
        })
        .join()
        .unwrap();
    }
}
