//! Where a device op ran and what it is — its kind, device and stream — in one 4-byte word
//! instead of 13 bytes over three fields: with it a [`crate::DeviceOp`] is 9 bytes smaller
//! (90 MB less at 10 M ops, to hold and to stream through every analysis).
//!
//! The word is `kind` (3 bits) | a spill flag (1 bit) | `device` (10 bits) | `stream` (18 bits);
//! the all-ones value of a field stands for `u32::MAX` / `u64::MAX` (the "unknown" a reader
//! gives an HCCL row without a stream). A device index or stream id too wide for its bits (a
//! stream that is a queue handle, a legacy rocprof `gpu-id` that is a KFD node id such as
//! 60633) is not cut: the pair is kept once in a process-wide table and the word holds its
//! index there, so every pair reads back as it was given. The table is read without a lock
//! (two atomic loads), so ops of wide pairs cost little more to read than packed ones. The
//! encoding is canonical (one word per kind, device and stream), so equal words are equal
//! places and [`Place::lane`] is a stream's key.

use crate::op_kind::OpKind;
use crate::spill_table::{self, SpillTable};

const KIND_SHIFT: u32 = 29;
const SPILLED: u32 = 1 << 28;
const DEVICE_SHIFT: u32 = 18;
const DEVICE_BITS: u32 = 10;
const DEVICE_MASK: u32 = (1 << DEVICE_BITS) - 1;
const STREAM_MASK: u32 = (1 << DEVICE_SHIFT) - 1;
const LANE_MASK: u32 = (1 << KIND_SHIFT) - 1;

/// An op's kind, device and stream, packed (see the module's documentation).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Place(u32);

impl Place {
    #[inline]
    pub fn new(kind: OpKind, device: u32, stream: u64) -> Self {
        Place(kind_bits(kind) << KIND_SHIFT | lane_bits(device, stream))
    }

    #[inline]
    pub fn kind(self) -> OpKind {
        kind_of(self.0 >> KIND_SHIFT)
    }

    #[inline]
    pub fn device(self) -> u32 {
        if self.0 & SPILLED == 0 {
            match (self.0 >> DEVICE_SHIFT) & DEVICE_MASK {
                DEVICE_MASK => u32::MAX,
                device => device,
            }
        } else {
            spilled(self.0).0
        }
    }

    #[inline]
    pub fn stream(self) -> u64 {
        if self.0 & SPILLED == 0 {
            match self.0 & STREAM_MASK {
                STREAM_MASK => u64::MAX,
                stream => u64::from(stream),
            }
        } else {
            spilled(self.0).1
        }
    }

    /// The device and stream as one key: equal for two ops exactly when both are equal.
    #[inline]
    pub fn lane(self) -> u64 {
        u64::from(self.0 & LANE_MASK)
    }
}

#[inline]
fn kind_bits(kind: OpKind) -> u32 {
    match kind {
        OpKind::Kernel => 0,
        OpKind::Memcpy => 1,
        OpKind::Memset => 2,
        OpKind::Communication => 3,
        OpKind::Other => 4,
    }
}

#[inline]
fn kind_of(bits: u32) -> OpKind {
    match bits {
        0 => OpKind::Kernel,
        1 => OpKind::Memcpy,
        2 => OpKind::Memset,
        3 => OpKind::Communication,
        // Only `Place::new` writes the bits: 4 is the one value left.
        _ => OpKind::Other,
    }
}

#[inline]
fn lane_bits(device: u32, stream: u64) -> u32 {
    if device < DEVICE_MASK && stream < u64::from(STREAM_MASK) {
        device << DEVICE_SHIFT | stream as u32
    } else {
        wide_lane_bits(device, stream)
    }
}

/// [`lane_bits`] of a pair with an "unknown" (all-ones) or too wide field.
#[cold]
fn wide_lane_bits(device: u32, stream: u64) -> u32 {
    let packed_device = match device {
        u32::MAX => Some(DEVICE_MASK),
        d => Some(d).filter(|&d| d < DEVICE_MASK),
    };
    let packed_stream = match stream {
        u64::MAX => Some(STREAM_MASK),
        s => u32::try_from(s).ok().filter(|&s| s < STREAM_MASK),
    };
    match (packed_device, packed_stream) {
        (Some(d), Some(s)) => d << DEVICE_SHIFT | s,
        _ => SPILLED | spill(device, stream),
    }
}

/// The process-wide table of the device/stream pairs too wide to pack, each pair once, by
/// index: 2^28 pairs, as many as a spilled word can index.
static PAIRS: SpillTable<(u32, u64), { 1 << (28 - spill_table::CHUNK_BITS) }> = SpillTable::new();

/// The index of `(device, stream)` in the table, added if new. The last pair spilled on this
/// thread is kept beside it: ops of one stream come in runs, so a source whose every stream is
/// wide (queue handles) takes the table's lock once a run, not once an op. Past 2^28 distinct
/// pairs (not seen in any trace: a stream is a queue or a stream, a few thousand at most) it
/// panics rather than give two pairs one index.
#[cold]
fn spill(device: u32, stream: u64) -> u32 {
    use std::cell::Cell;
    thread_local!(static LAST: Cell<Option<((u32, u64), u32)>> = const { Cell::new(None) });
    if let Some((_, at)) = LAST.get().filter(|&(pair, _)| pair == (device, stream)) {
        return at;
    }
    let at = PAIRS.index_of((device, stream));
    LAST.set(Some(((device, stream), at)));
    at
}

/// The pair of a spilled word: two atomic loads, no lock.
#[inline]
fn spilled(word: u32) -> (u32, u64) {
    // Only `spill` makes spilled words, after adding their pair, and pairs are never removed.
    PAIRS.get(word & (SPILLED - 1)).unwrap_or((u32::MAX, u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const KINDS: [OpKind; 5] = [OpKind::Kernel, OpKind::Memcpy, OpKind::Memset, OpKind::Communication, OpKind::Other];

    #[test]
    fn every_kind_device_and_stream_reads_back_as_given() {
        let devices = [0, 1, 7, 1022, 1023, 1024, 60_633, u32::MAX - 1, u32::MAX];
        let streams = [0, 7, (1 << 18) - 2, (1 << 18) - 1, 1 << 18, 1 << 40, 0x7f3a_5c00_1000, u64::MAX - 1, u64::MAX];
        let mut lanes = HashMap::new();
        for kind in KINDS {
            for device in devices {
                for stream in streams {
                    let place = Place::new(kind, device, stream);
                    assert_eq!((place.kind(), place.device(), place.stream()), (kind, device, stream));
                    // One lane key per pair, whatever the kind.
                    assert_eq!(*lanes.entry((device, stream)).or_insert(place.lane()), place.lane());
                }
            }
        }
        let distinct: std::collections::HashSet<u64> = lanes.values().copied().collect();
        assert_eq!(distinct.len(), devices.len() * streams.len());
        // Read back on another thread too (the table is the process's, the last-spilled cache
        // each thread's), alternating between two spilled pairs.
        let (a, b) = (Place::new(OpKind::Kernel, 1 << 20, 3), Place::new(OpKind::Memcpy, 5, 1 << 41));
        std::thread::spawn(move || {
            for _ in 0..3 {
                assert_eq!((a.device(), a.stream(), b.device(), b.stream()), (1 << 20, 3, 5, 1 << 41));
            }
        })
        .join()
        .unwrap();
    }

    #[test]
    fn wide_pairs_spilled_at_once_on_many_threads_read_back_past_the_first_chunk() {
        // More pairs than a chunk holds, spilled by four threads at once (each pair by two of
        // them), read back on other threads.
        let pairs = |t: u64| (0..3_000u64).map(move |i| (7_000 + (i % 1_500) as u32, (1 << 30) + t / 2 * 3_000 + i));
        let places: Vec<Vec<(Place, (u32, u64))>> = (0..4)
            .map(|t| {
                std::thread::spawn(move || pairs(t).map(|(d, s)| (Place::new(OpKind::Kernel, d, s), (d, s))).collect())
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect();
        for (t, mine) in places.iter().enumerate() {
            // Threads 0 and 1 spilled the same pairs, as did 2 and 3: the same words.
            assert!(mine.iter().zip(&places[t ^ 1]).all(|(a, b)| a.0 == b.0), "thread {t}");
        }
        let all: Vec<(Place, (u32, u64))> = places.into_iter().flatten().collect();
        std::thread::spawn(move || {
            for (place, (device, stream)) in all {
                assert_ne!(place.0 & SPILLED, 0);
                assert_eq!((place.device(), place.stream(), place.kind()), (device, stream, OpKind::Kernel));
            }
        })
        .join()
        .unwrap();
    }

    #[test]
    fn narrow_pairs_are_packed_and_wide_ones_spilled() {
        assert_eq!(Place::new(OpKind::Kernel, 3, 7).0, 3 << 18 | 7);
        assert_eq!(Place::new(OpKind::Other, 0, 0).0 >> 29, 4);
        assert_ne!(Place::new(OpKind::Kernel, 1 << 10, 0).0 & SPILLED, 0);
        assert_ne!(Place::new(OpKind::Kernel, 0, 1 << 18).0 & SPILLED, 0);
        assert_eq!(Place::new(OpKind::Kernel, (1 << 10) - 2, (1 << 18) - 2).0 & SPILLED, 0);
        // The "unknown" device and stream are packed too (an HCCL row without a stream)...
        assert_eq!(Place::new(OpKind::Kernel, u32::MAX, u64::MAX).0 & SPILLED, 0);
        // ...so the all-ones values of the fields are spilled when they are real ids.
        assert_ne!(Place::new(OpKind::Kernel, (1 << 10) - 1, 0).0 & SPILLED, 0);
        assert_ne!(Place::new(OpKind::Kernel, 0, (1 << 18) - 1).0 & SPILLED, 0);
    }
}
