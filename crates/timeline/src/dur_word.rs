//! A duration in 4 bytes, for the packed device ops and host spans: ns below 2^31 (2.1 s) in
//! place, a longer one kept once in a process-wide side table.

use crate::spill_table::{self, SpillTable};

/// Durations from this many ns up (2.1 s) are kept in [`LONG`]; shorter ones in the word.
const LONG_FROM: u32 = 1 << 31;

/// The durations too long for a word: each kept once, its index in the word with the top bit
/// set (canonical: a duration is in the word exactly when it is shorter than [`LONG_FROM`],
/// so equal words are equal durations).
static LONG: SpillTable<u64, { 1 << (31 - spill_table::CHUNK_BITS) }> = SpillTable::new();

/// A duration in 4 bytes: ns below 2^31 in place, a longer one (a kernel past 2.1 s is rare:
/// a hung collective, a sleep) by its index in [`LONG`], ~45 bytes more and a lock for that op.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dur(u32);

impl Dur {
    #[inline]
    pub(crate) fn new(ns: u64) -> Self {
        match u32::try_from(ns) {
            Ok(short) if short < LONG_FROM => Dur(short),
            _ => Dur(LONG_FROM | LONG.index_of(ns)),
        }
    }

    #[inline]
    pub(crate) fn ns(self) -> u64 {
        if self.0 & LONG_FROM == 0 {
            u64::from(self.0)
        } else {
            long(self.0)
        }
    }
}

#[cold]
fn long(word: u32) -> u64 {
    LONG.get(word & !LONG_FROM).expect("a long duration's word holds an index the table gave")
}
