//! A rowid table of an SQLite file read from its pages, as the file format documents them
//! (<https://www.sqlite.org/fileformat2.html>, "B-tree Pages" and "Record Format"): the
//! interior pages give the leaves in rowid order, each leaf's cells give the records, and a
//! record's integer cells are read where its header says they lie. At 10 M kernels SQLite's
//! own scan (its VDBE, a call per cell) was half the load; this reads a row in a tenth of it,
//! and the leaves split into parts read on every core.
//!
//! Only what it can read exactly is read this way: a file in rollback-journal mode (a WAL
//! file may hold newer pages), a table with rowids and no generated columns, columns whose
//! values SQLite returns as stored (no REAL affinity). Anything else, and any record it
//! cannot decode, is left to SQLite ([`TablePages::open`] gives `None`; a record gives
//! [`Cell::Other`]), which reads the same rows and names a damaged one.

use super::record::{decode, varint, Place, Record};
use rusqlite::{Connection, OptionalExtension};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Interior pages deeper than this mean a damaged file (SQLite's own limit is 20).
const MAX_DEPTH: usize = 20;
/// Most bytes read from the file at once (a run of consecutive leaves).
const RUN_BYTES: usize = 1 << 18;

/// The leaves of one table and where the asked columns lie in its records.
pub(super) struct TablePages {
    path: PathBuf,
    page_size: usize,
    usable: usize,
    /// Pages in the file.
    pages: u64,
    /// Leaf page numbers, in rowid order.
    leaves: Vec<u32>,
    places: Vec<Place>,
    /// Record columns to decode: one past the last asked.
    width: usize,
}

impl TablePages {
    /// The pages of `table` in the SQLite file at `path` (open as `conn`), for reading the
    /// columns `columns` in that order; `None` when it cannot be read exactly this way.
    pub(super) fn open(path: &Path, conn: &Connection, table: &str, columns: &[&str]) -> Option<Self> {
        let mut file = File::open(path).ok()?;
        let mut header = [0u8; 100];
        file.read_exact(&mut header).ok()?;
        let page_size = match u16::from_be_bytes([header[16], header[17]]) {
            1 => 65536,
            size => usize::from(size),
        };
        // Rollback journal only (1, 1): in WAL mode (2, 2) pages may be newer in the WAL.
        let legacy = header[18] == 1 && header[19] == 1;
        // Text in UTF-8 (1), as SQLite gives it to a reader (UTF-16 files are converted).
        let utf8 = u32::from_be_bytes([header[56], header[57], header[58], header[59]]) == 1;
        if !legacy || !utf8 || !page_size.is_power_of_two() || !(512..=65536).contains(&page_size) {
            return None;
        }
        let usable = page_size - usize::from(header[20]);
        let pages = file.metadata().ok()?.len() / page_size as u64;
        let (root, sql): (i64, String) = conn
            .query_row("SELECT rootpage, sql FROM sqlite_master WHERE type = 'table' AND name = ?1", [table], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()
            .ok()??;
        if usable < 480 || sql.to_ascii_uppercase().contains("WITHOUT ROWID") {
            return None;
        }
        let places = places(conn, table, columns)?;
        let width = places.iter().map(|p| if let Place::Column { at, .. } = p { at + 1 } else { 0 }).max()?;
        let root = u32::try_from(root).ok().filter(|&r| r > 1 && u64::from(r) <= pages)?;
        let mut reader =
            TablePages { path: path.to_owned(), page_size, usable, pages, leaves: Vec::new(), places, width };
        reader.leaves = reader.walk(&mut file, root, pages)?;
        Some(reader)
    }

    /// Number of leaf pages.
    pub(super) fn leaves(&self) -> usize {
        self.leaves.len()
    }

    /// The leaves from the root `root` down, left to right; `None` on anything but table
    /// b-tree pages within the file. A b-tree's leaves are all at one depth, that of its
    /// leftmost leaf: the pages at that depth are listed unread (the scan checks each is a
    /// leaf), so only the interior pages are read here.
    fn walk(&self, file: &mut File, root: u32, pages: u64) -> Option<Vec<u32>> {
        let mut page = vec![0u8; self.page_size];
        let children = |page: &[u8]| -> Option<Vec<u32>> {
            let cells = usize::from(u16::from_be_bytes([page[3], page[4]]));
            let mut children = Vec::with_capacity(cells + 1);
            for k in 0..cells {
                let at = usize::from(u16::from_be_bytes(page.get(12 + 2 * k..14 + 2 * k)?.try_into().ok()?));
                children.push(u32::from_be_bytes(page.get(at..at + 4)?.try_into().ok()?));
            }
            children.push(u32::from_be_bytes(page.get(8..12)?.try_into().ok()?));
            Some(children)
        };
        let within = |number: u32| number >= 2 && u64::from(number) <= pages;
        // The depth of the leaves, down the leftmost children.
        let (mut depth, mut number) = (0, root);
        loop {
            if depth > MAX_DEPTH || !within(number) {
                return None;
            }
            self.read_pages(file, number, &mut page)?;
            match page[0] {
                0x0D => break,
                0x05 => number = *children(&page)?.first()?,
                _ => return None,
            }
            depth += 1;
        }
        // Pages to visit, the next one last, with their depth.
        let (mut leaves, mut stack, mut visited) = (Vec::new(), vec![(root, 0usize)], 0u64);
        while let Some((number, at)) = stack.pop() {
            visited += 1;
            if visited > pages || !within(number) {
                return None;
            }
            if at == depth {
                leaves.push(number);
                continue;
            }
            self.read_pages(file, number, &mut page)?;
            if page[0] != 0x05 {
                return None;
            }
            stack.extend(children(&page)?.into_iter().rev().map(|child| (child, at + 1)));
        }
        Some(leaves)
    }

    /// Reads the pages from `first` into `into` (whole pages).
    fn read_pages(&self, file: &mut File, first: u32, into: &mut [u8]) -> Option<()> {
        file.seek(SeekFrom::Start(u64::from(first - 1) * self.page_size as u64)).ok()?;
        file.read_exact(into).ok()
    }

    /// Calls `row` with each record of the leaves `range` (indices into the leaf list), in
    /// rowid order, until it gives an error; `Err(None)` when the file cannot be read here.
    pub(super) fn scan<E>(
        &self,
        range: std::ops::Range<usize>,
        mut row: impl FnMut(&Record) -> Result<(), E>,
    ) -> Result<(), Option<E>> {
        let mut file = File::open(&self.path).map_err(|_| None)?;
        let leaves = self.leaves.get(range).ok_or(None)?;
        let per_run = (RUN_BYTES / self.page_size).max(1);
        let mut run = vec![0u8; per_run * self.page_size];
        let mut cells = Vec::with_capacity(self.width);
        let mut spill = Vec::new();
        let mut next = 0;
        while next < leaves.len() {
            // Consecutive page numbers are read at once.
            let first = leaves[next];
            let mut count = 1;
            while count < per_run && next + count < leaves.len() && leaves[next + count] == first + count as u32 {
                count += 1;
            }
            let bytes = &mut run[..count * self.page_size];
            self.read_pages(&mut file, first, bytes).ok_or(None)?;
            for page in bytes.chunks_exact(self.page_size) {
                self.leaf(&mut file, page, &mut cells, &mut spill, &mut row)?;
            }
            next += count;
        }
        Ok(())
    }

    /// The records of one leaf page; `cells` and `spill` (an overflowing record's payload)
    /// are reused from record to record.
    fn leaf<E>(
        &self,
        file: &mut File,
        page: &[u8],
        cells: &mut Vec<(u64, usize)>,
        spill: &mut Vec<u8>,
        row: &mut impl FnMut(&Record) -> Result<(), E>,
    ) -> Result<(), Option<E>> {
        if page[0] != 0x0D {
            return Err(None);
        }
        let count = usize::from(u16::from_be_bytes([page[3], page[4]]));
        for k in 0..count {
            let pointer = page.get(8 + 2 * k..10 + 2 * k).ok_or(None)?;
            let at = usize::from(u16::from_be_bytes([pointer[0], pointer[1]]));
            let (size, used) = varint(page.get(at..).ok_or(None)?).ok_or(None)?;
            let (rowid, used_too) = varint(&page[at + used..]).ok_or(None)?;
            let start = at + used + used_too;
            // No record holds more than the file.
            let size =
                usize::try_from(size).ok().filter(|&s| s as u64 <= self.pages * self.usable as u64).ok_or(None)?;
            let local = self.local_size(size);
            let mut payload = page.get(start..start + local).ok_or(None)?;
            if local < size {
                let link = page.get(start + local..start + local + 4).ok_or(None)?;
                let next = u32::from_be_bytes(link.try_into().map_err(|_| None)?);
                spill.clear();
                spill.extend_from_slice(payload);
                self.overflow(file, next, size, spill).map_err(|()| None)?;
                payload = spill;
            }
            decode(payload, self.width, cells).ok_or(None)?;
            let record = Record { rowid: rowid as i64, payload, cells, places: &self.places };
            row(&record).map_err(Some)?;
        }
        Ok(())
    }

    /// Bytes of a `size`-byte payload kept on a table leaf page (the rest overflows).
    fn local_size(&self, size: usize) -> usize {
        let u = self.usable;
        let most = u - 35;
        if size <= most {
            return size;
        }
        let least = (u - 12) * 32 / 255 - 23;
        let k = least + (size - least) % (u - 4);
        if k <= most {
            k
        } else {
            least
        }
    }

    /// Follows an overflow chain from page `next` until `payload` holds `size` bytes.
    fn overflow(&self, file: &mut File, mut next: u32, size: usize, payload: &mut Vec<u8>) -> Result<(), ()> {
        let mut page = vec![0u8; self.page_size];
        let mut hops = 0usize;
        while payload.len() < size {
            hops += 1;
            if next < 2 || hops > size / (self.usable - 4) + 2 {
                return Err(());
            }
            self.read_pages(file, next, &mut page).ok_or(())?;
            let take = (size - payload.len()).min(self.usable - 4);
            payload.extend_from_slice(&page[4..4 + take]);
            next = u32::from_be_bytes([page[0], page[1], page[2], page[3]]);
        }
        Ok(())
    }
}

/// Where each of `columns` lies in the records of `table`; `None` for a column SQLite would
/// not return as stored (REAL affinity), a generated column, or one the table lacks.
fn places(conn: &Connection, table: &str, columns: &[&str]) -> Option<Vec<Place>> {
    let mut statement =
        conn.prepare("SELECT cid, name, type, dflt_value, pk, hidden FROM pragma_table_xinfo(?1)").ok()?;
    type Info = (i64, String, String, Option<String>, i64, i64);
    let info: Vec<Info> = statement
        .query_map([table], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))
        .ok()?
        .collect::<rusqlite::Result<_>>()
        .ok()?;
    if info.iter().any(|c| c.5 != 0) {
        return None;
    }
    let keys = info.iter().filter(|c| c.4 > 0).count();
    columns
        .iter()
        .map(|name| {
            let at = info.iter().position(|c| c.1.eq_ignore_ascii_case(name))?;
            let (_, _, declared, default, pk, _) = &info[at];
            let declared = declared.to_ascii_uppercase();
            if keys == 1 && *pk == 1 && declared == "INTEGER" {
                return Some(Place::Rowid);
            }
            let real = !declared.contains("INT") && ["REAL", "FLOA", "DOUB"].iter().any(|t| declared.contains(t));
            (!real).then_some(Place::Column { at, null_default: default.is_none() })
        })
        .collect()
}

#[cfg(test)]
mod tests;
