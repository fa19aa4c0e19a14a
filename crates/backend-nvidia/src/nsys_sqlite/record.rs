//! One record (row) of a table read from an SQLite file's pages ([`super::pages`]): its
//! header's serial types decoded, its cells read as SQLite's `sqlite3_column_*` calls give
//! them, per the file format's "Record Format".

use super::raw::Cell;

/// Where a column the reader asks for lies in a record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Place {
    /// The rowid (an `INTEGER PRIMARY KEY` column, stored as NULL in the record).
    Rowid,
    /// The record's column at this index; past a short record's end (a column added since),
    /// NULL when `null_default`, else unreadable here.
    Column { at: usize, null_default: bool },
}

/// One record of a scan: its rowid, payload and the (serial type, offset) of each column
/// decoded.
pub(super) struct Record<'p> {
    pub(super) rowid: i64,
    pub(super) payload: &'p [u8],
    pub(super) cells: &'p [(u64, usize)],
    pub(super) places: &'p [Place],
}

/// Reads the serial types of the first `width` columns of the record `payload` (fewer in a
/// short record) into `cells`, with where each value starts; `None` when the header is damaged.
#[inline]
pub(super) fn decode(payload: &[u8], width: usize, cells: &mut Vec<(u64, usize)>) -> Option<()> {
    cells.clear();
    let (header, mut at) = varint(payload)?;
    let header = usize::try_from(header).ok().filter(|&h| h <= payload.len())?;
    let mut offset = header;
    while at < header && cells.len() < width {
        // Nearly every serial type is one byte (integers, NULL, short text).
        let serial = match payload[at] {
            byte if byte < 0x80 => {
                at += 1;
                u64::from(byte)
            }
            _ => {
                let (serial, used) = varint(&payload[at..header])?;
                at += used;
                serial
            }
        };
        cells.push((serial, offset));
        offset = offset.checked_add(serial_size(serial)?)?;
    }
    (offset <= payload.len()).then_some(())
}

/// A text cell of a record, as [`Record::text`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextCell<'p> {
    /// The text's bytes, as stored (UTF-8 unchecked).
    Text(&'p [u8]),
    Null,
    /// Anything else (or a column the reader did not ask for), named for errors.
    Other(&'static str),
}

impl<'p> Record<'p> {
    /// The asked column `index` as text, as SQLite's `sqlite3_column_type` and `_text` give it
    /// for a TEXT or NULL value.
    pub(super) fn text(&self, index: usize) -> TextCell<'p> {
        let (at, null_default) = match self.places.get(index) {
            Some(Place::Rowid) => return TextCell::Other("an integer"),
            Some(&Place::Column { at, null_default }) => (at, null_default),
            None => return TextCell::Other("a column the query does not have"),
        };
        let Some(&(serial, offset)) = self.cells.get(at) else {
            return if null_default { TextCell::Null } else { TextCell::Other("a default value") };
        };
        match serial {
            0 => TextCell::Null,
            n if n >= 13 && n % 2 == 1 => {
                let len = usize::try_from((n - 13) / 2).unwrap_or(usize::MAX);
                match self.payload.get(offset..offset.saturating_add(len)) {
                    Some(bytes) => TextCell::Text(bytes),
                    None => TextCell::Other("a damaged record"),
                }
            }
            n if n >= 12 => TextCell::Other("a BLOB"),
            7 => TextCell::Other("a REAL"),
            _ => TextCell::Other("an integer"),
        }
    }
}

impl Record<'_> {
    /// The first `N` asked columns as integers when every one of them holds an integer (or is
    /// the rowid), as [`Record::cell`] reads each: a table's hot loop takes a row in one call.
    /// `None` for anything else (a NULL, a text, a short or damaged record): the caller reads
    /// that row cell by cell, which names what is wrong.
    #[inline]
    pub(super) fn ints<const N: usize>(&self) -> Option<[i64; N]> {
        let mut out = [0i64; N];
        let places = self.places.get(..N)?;
        for (slot, place) in out.iter_mut().zip(places) {
            *slot = match *place {
                Place::Rowid => self.rowid,
                Place::Column { at, .. } => {
                    let &(serial, offset) = self.cells.get(at)?;
                    self.integer(serial, offset)?
                }
            };
        }
        Some(out)
    }

    /// The asked column `index`, as SQLite's `sqlite3_column_type` and `_int64` give it.
    #[inline]
    pub(super) fn cell(&self, index: usize) -> Cell {
        let (at, null_default) = match self.places.get(index) {
            Some(Place::Rowid) => return Cell::Int(self.rowid),
            Some(&Place::Column { at, null_default }) => (at, null_default),
            None => return Cell::Other("a column the query does not have"),
        };
        let Some(&(serial, offset)) = self.cells.get(at) else {
            return if null_default { Cell::Null } else { Cell::Other("a default value") };
        };
        match serial {
            0 => Cell::Null,
            1..=6 | 8 | 9 => self.integer(serial, offset).map_or(Cell::Other("a damaged record"), Cell::Int),
            7 => Cell::Other("a REAL"),
            10 | 11 => Cell::Other("a damaged record"),
            n if n % 2 == 0 => Cell::Other("a BLOB"),
            _ => Cell::Other("TEXT"),
        }
    }

    /// The integer of a cell of serial type `serial` at `offset` (types 1-6: big-endian bytes;
    /// 8 and 9: the constants 0 and 1); `None` for any other type or bytes past the payload.
    #[inline]
    fn integer(&self, serial: u64, offset: usize) -> Option<i64> {
        let bytes = self.payload.get(offset..);
        // Each width read as one big-endian load (a byte loop had been a tenth of the table
        // reader's time), sign-extended from its top byte.
        let value = match serial {
            1 => i64::from(i8::from_be_bytes(fixed(bytes?)?)),
            2 => i64::from(i16::from_be_bytes(fixed(bytes?)?)),
            3 => {
                let [a, b, c]: [u8; 3] = fixed(bytes?)?;
                i64::from(i32::from_be_bytes([a, b, c, 0]) >> 8)
            }
            4 => i64::from(i32::from_be_bytes(fixed(bytes?)?)),
            5 => {
                let [a, b, c, d, e, f]: [u8; 6] = fixed(bytes?)?;
                i64::from_be_bytes([a, b, c, d, e, f, 0, 0]) >> 16
            }
            6 => i64::from_be_bytes(fixed(bytes?)?),
            8 => 0,
            9 => 1,
            _ => return None,
        };
        Some(value)
    }
}

/// The first `N` bytes of `bytes`, `None` when it is shorter.
#[inline(always)]
fn fixed<const N: usize>(bytes: &[u8]) -> Option<[u8; N]> {
    bytes.get(..N)?.try_into().ok()
}

/// Bytes of a value of each serial type below 12 (10 and 11 are reserved: [`RESERVED`]).
const SIZES: [u8; 12] = [0, 1, 2, 3, 4, 6, 8, 8, 0, 0, RESERVED, RESERVED];
/// The size of a reserved serial type in [`SIZES`].
const RESERVED: u8 = u8::MAX;

/// Bytes of a value of serial type `serial`; `None` for the reserved types.
#[inline]
fn serial_size(serial: u64) -> Option<usize> {
    if serial >= 12 {
        return usize::try_from((serial - 12) / 2).ok();
    }
    let size = SIZES[serial as usize];
    (size != RESERVED).then_some(usize::from(size))
}

/// An SQLite varint at the start of `bytes`: its value and length (1–9 bytes).
#[inline]
pub(super) fn varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (k, &byte) in bytes.iter().enumerate().take(9) {
        if k == 8 {
            return Some(((value << 8) | u64::from(byte), 9));
        }
        value = (value << 7) | u64::from(byte & 0x7F);
        if byte & 0x80 == 0 {
            return Some((value, k + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SQLite's rule, byte by byte: a big-endian two's complement integer, sign-extended.
    fn reference(bytes: &[u8]) -> i64 {
        let mut value = i64::from(bytes[0] as i8);
        for &byte in &bytes[1..] {
            value = (value << 8) | i64::from(byte);
        }
        value
    }

    #[test]
    fn integers_of_every_width_read_as_sqlite_writes_them() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // Extremes first, then random bytes; each width at an offset, with a byte after.
            let word = match round {
                0 => 0,
                1 => u64::MAX,
                2 => 0x8000_0000_0000_0000,
                3 => 0x7fff_ffff_ffff_ffff,
                _ => seed,
            };
            for (serial, len) in [(1u64, 1usize), (2, 2), (3, 3), (4, 4), (5, 6), (6, 8)] {
                let mut payload = vec![0xAB];
                payload.extend_from_slice(&word.to_be_bytes()[8 - len..]);
                payload.push(0xCD);
                let record = Record { rowid: 0, payload: &payload, cells: &[], places: &[] };
                assert_eq!(record.integer(serial, 1), Some(reference(&payload[1..1 + len])), "{word:#x} {serial}");
                // Cut short: no value.
                let cut = Record { payload: &payload[..len], ..record };
                assert_eq!(cut.integer(serial, 1), None, "{word:#x} {serial}");
            }
        }
        let record = Record { rowid: 0, payload: &[], cells: &[], places: &[] };
        assert_eq!((record.integer(8, 5), record.integer(9, 5), record.integer(7, 0)), (Some(0), Some(1), None));
    }
}
