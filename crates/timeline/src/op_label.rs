//! A device op's name and details id in one 4-byte word instead of two: with it a
//! [`crate::DeviceOp`] is 24 bytes, not 28 (40 MB less at 10 M ops, to hold and to stream
//! through every analysis).
//!
//! The word is `details` (15 bits, 0 for none) | `name` (16 bits), top bit clear, when both fit:
//! the traces read so far name their device ops with ids below 600 and hold at most ~200
//! distinct details (the 89 fixture files and the 10 M-op benchmark files, measured). A pair
//! that does not fit (a name id from 2^16, a details id from 2^15: a timeline whose details
//! rarely repeat) is kept once in a process-wide table and the word holds its index there,
//! top bit set: ~45 bytes more and a lock for each such distinct pair. Every pair reads back as
//! it was given, and the encoding is canonical (a pair is in the word exactly when it fits),
//! so equal words are equal pairs.

use crate::details_pool::DetailsId;
use crate::intern::NameId;
use crate::spill_table::{self, SpillTable};

const SPILLED: u32 = 1 << 31;
const NAME_BITS: u32 = 16;
const NAME_MASK: u32 = (1 << NAME_BITS) - 1;
/// Details ids below this (15 bits) fit in the word.
const DETAILS_LIMIT: u32 = 1 << (31 - NAME_BITS);

/// The pairs too wide for a word: (name id, details id or 0).
static WIDE: SpillTable<(u32, u32), { 1 << (31 - spill_table::CHUNK_BITS) }> = SpillTable::new();

/// An op's name and details (see the module's documentation).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Label(u32);

impl Label {
    #[inline]
    pub(crate) fn new(name: NameId, details: Option<DetailsId>) -> Self {
        let details = details.map_or(0, DetailsId::raw);
        if name.0 <= NAME_MASK && details < DETAILS_LIMIT {
            Label(details << NAME_BITS | name.0)
        } else {
            Label(SPILLED | spill(name.0, details))
        }
    }

    #[inline]
    pub(crate) fn name(self) -> NameId {
        if self.0 & SPILLED == 0 {
            NameId(self.0 & NAME_MASK)
        } else {
            NameId(wide(self.0).0)
        }
    }

    #[inline]
    pub(crate) fn details(self) -> Option<DetailsId> {
        if self.0 & SPILLED == 0 {
            DetailsId::from_raw(self.0 >> NAME_BITS)
        } else {
            DetailsId::from_raw(wide(self.0).1)
        }
    }
}

/// The table index of a pair too wide for a word, added if new. Past 2^31 pairs it panics
/// rather than give two pairs one word.
#[cold]
fn spill(name: u32, details: u32) -> u32 {
    WIDE.index_of((name, details))
}

/// The pair of a spilled word: two atomic loads, no lock.
#[cold]
fn wide(word: u32) -> (u32, u32) {
    // Only `spill` makes spilled words, after adding their pair, and pairs are never removed.
    WIDE.get(word & !SPILLED).unwrap_or((u32::MAX, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_at_and_past_the_word_read_back_exactly_and_compare_by_value() {
        let details = |raw: u32| DetailsId::from_raw(raw);
        let names = [0, 1, NAME_MASK - 1, NAME_MASK, NAME_MASK + 1, 1 << 20, u32::MAX];
        let ids = [0, 1, DETAILS_LIMIT - 1, DETAILS_LIMIT, DETAILS_LIMIT + 1, 1 << 24, u32::MAX];
        for name in names {
            for raw in ids {
                let label = Label::new(NameId(name), details(raw));
                assert_eq!((label.name(), label.details()), (NameId(name), details(raw)), "{name} {raw}");
                // In the word exactly when both fit; canonical either way.
                assert_eq!(label.0 & SPILLED == 0, name <= NAME_MASK && raw < DETAILS_LIMIT, "{name} {raw}");
                assert!(label == Label::new(NameId(name), details(raw)));
                assert!(label != Label::new(NameId(name ^ 1), details(raw)));
                assert!(label != Label::new(NameId(name), details(raw ^ 1)));
            }
        }
        // Wide pairs added on another thread read back on this one.
        let theirs: Vec<Label> =
            std::thread::spawn(move || (0..3_000u32).map(|k| Label::new(NameId(70_000 + k), details(k))).collect())
                .join()
                .unwrap();
        assert!(theirs
            .iter()
            .enumerate()
            .all(|(k, l)| l.name() == NameId(70_000 + k as u32) && l.details() == details(k as u32)));
        // Pairs met again and again keep their words.
        let wide = |k: u32| (NameId(k % 7), details(40_000 + k % 3_000));
        let words: Vec<Label> = (0..5_000u32).map(|k| Label::new(wide(k).0, wide(k).1)).collect();
        for (k, word) in (0..5_000u32).zip(&words) {
            assert_eq!((word.name(), word.details()), wide(k));
            assert!(*word == Label::new(wide(k).0, wide(k).1));
        }
    }
}
