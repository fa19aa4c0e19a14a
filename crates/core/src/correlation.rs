//! The correlation id of a device op or host span (the launch call that made it), or none, in
//! 4 bytes where `Option<u64>` takes 16: a device op is 32 bytes with it, not 44 (120 MB less at
//! 10 M ops, to hold and to stream through every analysis).
//!
//! Ids are 64-bit: a reader that loads several processes or files into one timeline puts its
//! index in the high half (`index << 32 | id`). The word holds `index` (3 bits) and `id`
//! (28 bits) when they fit, as every recorded trace's do (CUPTI's and Kineto's ids count
//! launches from 1); a wider id is kept once in a process-wide table
//! ([`crate::spill_table`]) and the word holds its index there (top bit set), so every id reads
//! back as it was given. The encoding is canonical (one word per id), so equal words are equal
//! ids and the derived `Eq`/`Hash` are the ids'.

use crate::spill_table::{self, SpillTable};
use serde::{Serialize, Serializer};

const ID_BITS: u32 = 28;
const ID_MASK: u32 = (1 << ID_BITS) - 1;
/// Indices of the high half held in the word: 0..8.
const HIGH_LIMIT: u64 = 8;
const SPILLED: u32 = 1 << 31;
/// The word of no id.
const NONE_WORD: u32 = u32::MAX;

/// The ids too wide to pack: up to 2^31 - 1 of them (every word with the top bit set, but
/// [`NONE_WORD`]).
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
        if self.0 & SPILLED == 0 {
            Some(u64::from(self.0 >> ID_BITS) << 32 | u64::from(self.0 & ID_MASK))
        } else if self.0 == NONE_WORD {
            None
        } else {
            Some(wide(self.0))
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
        let (high, low) = (id >> 32, id & 0xffff_ffff);
        if high < HIGH_LIMIT && low <= u64::from(ID_MASK) {
            Correlation((high as u32) << ID_BITS | low as u32)
        } else {
            Correlation(SPILLED | spill(id))
        }
    }
}

/// The table index of a wide id, added if new. Past 2^31 - 1 distinct wide ids it panics
/// rather than give two ids one word.
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
            [0, 1, ID_MASK as u64, 1 << 28, 7 << 32 | 5, 7 << 32 | ID_MASK as u64, 8 << 32, 1 << 40, u64::MAX - 1];
        for id in ids.into_iter().chain([u64::MAX]) {
            assert_eq!(Correlation::from(Some(id)).get(), Some(id));
            assert_eq!(Correlation::from(Some(id)), Some(id));
            assert!(Correlation::from(Some(id)).is_some());
        }
        // Ids that fit are held in the word; the others spill, one word per id.
        assert_eq!(Correlation::from(Some(7 << 32 | 5)).0, 7 << 28 | 5);
        assert_eq!(Correlation::from(Some(ID_MASK as u64)).0, ID_MASK);
        for wide in [1 << 28, 8 << 32, 1 << 40, u64::MAX] {
            let word = Correlation::from(Some(wide));
            assert_ne!(word.0 & SPILLED, 0);
            assert_eq!(word, Correlation::from(Some(wide)));
            assert_ne!(word, Correlation::from(Some(wide ^ 1)));
        }
        assert_eq!(Correlation::from(None).get(), None);
        assert_eq!(Correlation::default(), Correlation::NONE);
        assert!(!Correlation::NONE.is_some());
        assert_eq!(serde_json::to_string(&Correlation::from(Some(3))).unwrap(), "3");
        assert_eq!(serde_json::to_string(&Correlation::NONE).unwrap(), "null");
        assert_eq!(format!("{:?}", Correlation::from(Some(3))), "Some(3)");
        assert_eq!(std::mem::size_of::<crate::DeviceOp>() as u64, crate::load_budget::OP_BYTES);
    }
}
