//! The in-memory trace writer: encodes records into a preallocated buffer and writes it out
//! in large chunks, interning names so each distinct name is stored once.
//!
//! It never grows its buffer on the hot path and never panics on allocation failure: a
//! record that does not fit after a flush is counted as lost. After the first I/O error it
//! stops writing (the error is kept for one warning).

use crate::format::{self, tag, Api, Header, Kernel, Memcpy, Memset};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Write};

/// Buffer size; the writer flushes before a record would overflow it.
pub const BUFFER_BYTES: usize = 1 << 20;

/// Key of a name: a CUPTI name pointer, or [`api_key`] for an API function.
pub type NameKey = u64;

/// The interning key of API function `cbid` in `domain` (pointers never have the top bit set).
pub fn api_key(domain: u8, cbid: u32) -> NameKey {
    (1 << 63) | (u64::from(domain) << 32) | u64::from(cbid)
}

/// A hasher for [`NameKey`]s: one multiply instead of SipHash, since the keys are pointers
/// and callback ids from CUPTI, not input an attacker picks.
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, key: u64) {
        self.0 = (key ^ (key >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Writes one trace file (see [`crate::format`]).
pub struct TraceWriter<W: Write> {
    out: W,
    buf: Vec<u8>,
    names: HashMap<NameKey, u32, BuildHasherDefault<KeyHasher>>,
    next_name: u32,
    records: u64,
    untimed: u64,
    lost: u64,
    error: Option<io::Error>,
}

impl<W: Write> TraceWriter<W> {
    /// A writer over `out` with the header already buffered.
    pub fn new(out: W, header: &Header) -> Self {
        let mut buf = Vec::new();
        let _ = buf.try_reserve_exact(BUFFER_BYTES);
        header.encode(&mut buf);
        Self { out, buf, names: HashMap::default(), next_name: 0, records: 0, untimed: 0, lost: 0, error: None }
    }

    /// The id of the name behind `key`, writing a STRING record on first sight. `resolve`
    /// runs only then. `None` when the string could not be stored (it is then retried).
    pub fn name_id(&mut self, key: NameKey, resolve: impl FnOnce() -> String) -> Option<u32> {
        if let Some(&id) = self.names.get(&key) {
            return Some(id);
        }
        self.names.try_reserve(1).ok()?;
        let text = resolve();
        let text = format::clip(&text);
        let id = self.next_name;
        if !self.room(1 + format::body::STRING_HEAD + text.len()) {
            return None;
        }
        format::encode_string(&mut self.buf, id, text);
        self.next_name += 1;
        self.names.insert(key, id);
        Some(id)
    }

    /// Appends a kernel record.
    pub fn kernel(&mut self, record: &Kernel) {
        self.counted(format::body::KERNEL, |out| record.encode(out));
    }

    /// Appends a memcpy record.
    pub fn memcpy(&mut self, record: &Memcpy) {
        self.counted(format::body::MEMCPY, |out| record.encode(out));
    }

    /// Appends a memset record.
    pub fn memset(&mut self, record: &Memset) {
        self.counted(format::body::MEMSET, |out| record.encode(out));
    }

    /// Appends an API record.
    pub fn api(&mut self, record: &Api) {
        self.counted(format::body::API, |out| record.encode(out));
    }

    /// Appends one of the records END counts, whose body is `body` bytes, with `encode`.
    fn counted(&mut self, body: usize, encode: impl FnOnce(&mut Vec<u8>)) {
        if self.room(1 + body) {
            encode(&mut self.buf);
            self.records += 1;
        }
    }

    /// Counts a record CUPTI delivered without valid timestamps (it is not stored).
    pub fn untimed(&mut self) {
        self.untimed += 1;
    }

    /// Records that CUPTI dropped `count` records.
    pub fn dropped(&mut self, count: u64) {
        if count > 0 && self.room(1 + format::body::DROPPED) {
            format::encode_u64_record(&mut self.buf, tag::DROPPED, count);
        }
    }

    /// Marks the end of the capture window at CUPTI time `at`.
    pub fn window_end(&mut self, at: u64) {
        if self.room(1 + format::body::WINDOW_END) {
            format::encode_u64_record(&mut self.buf, tag::WINDOW_END, at);
        }
    }

    /// Records stored so far (kernels, copies, sets, API calls).
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Records lost because the buffer or the file could not take them.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// The first I/O error, if writing failed.
    pub fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }

    /// Writes the buffered bytes to the output and flushes it.
    pub fn flush(&mut self) -> io::Result<()> {
        if self.error.is_some() {
            return Ok(());
        }
        let result = self.out.write_all(&self.buf).and_then(|()| self.out.flush());
        self.buf.clear();
        if let Err(error) = result {
            let copy = io::Error::new(error.kind(), error.to_string());
            self.error = Some(error);
            return Err(copy);
        }
        Ok(())
    }

    /// Appends END, flushes, and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        if self.room(1 + format::body::END) {
            format::encode_end(&mut self.buf, self.records, self.untimed);
        }
        self.flush()?;
        match self.error.take() {
            Some(error) => Err(error),
            None => Ok(self.out),
        }
    }

    /// Makes room for `len` more bytes, flushing if needed; false when the record must be dropped.
    fn room(&mut self, len: usize) -> bool {
        if self.error.is_some() {
            self.lost += 1;
            return false;
        }
        if self.buf.len() + len > self.buf.capacity() {
            let _ = self.flush();
        }
        if self.buf.len() + len > self.buf.capacity() && self.buf.try_reserve(len).is_err() {
            self.lost += 1;
            return false;
        }
        if self.error.is_some() {
            self.lost += 1;
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: Header = Header { pid: 1, rank: -1, local_rank: -1, t0: 0 };

    #[test]
    fn a_name_is_stored_once_and_resolved_lazily() {
        let mut w = TraceWriter::new(Vec::new(), &HEADER);
        let mut calls = 0;
        let a = w.name_id(0x1000, || {
            calls += 1;
            "gemv".to_owned()
        });
        let again = w.name_id(0x1000, || unreachable!("already interned"));
        let b = w.name_id(api_key(2, 211), || "cudaLaunchKernel_v7000".to_owned());
        assert_eq!((a, again, b, calls), (Some(0), Some(0), Some(1), 1));
        let bytes = w.finish().unwrap();
        let strings = bytes.iter().filter(|&&b| b == tag::STRING).count();
        let expected_len = format::HEADER_LEN + (1 + 8 + 4) + (1 + 8 + 22) + (1 + format::body::END);
        assert_eq!(bytes.len(), expected_len);
        assert!(strings >= 2);
        assert_ne!(api_key(1, 211), api_key(2, 211));
    }

    #[test]
    fn flushes_in_chunks_and_counts_records() {
        let mut w = TraceWriter::new(Vec::new(), &HEADER);
        let n = BUFFER_BYTES / (1 + format::body::KERNEL) * 3;
        for i in 0..n {
            w.kernel(&Kernel { start: i as u64, end: i as u64 + 1, ..Kernel::default() });
        }
        w.untimed();
        assert_eq!(w.records(), n as u64);
        let bytes = w.finish().unwrap();
        assert_eq!(bytes.len(), format::HEADER_LEN + n * (1 + format::body::KERNEL) + 1 + format::body::END);
        let end = &bytes[bytes.len() - 16..];
        assert_eq!(u64::from_le_bytes(end[..8].try_into().unwrap()), n as u64);
        assert_eq!(u64::from_le_bytes(end[8..].try_into().unwrap()), 1);
    }

    struct Broken;
    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::other("disk full"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn an_io_error_stops_writing_without_panicking() {
        let mut w = TraceWriter::new(Broken, &HEADER);
        w.kernel(&Kernel::default());
        assert!(w.flush().is_err());
        w.kernel(&Kernel::default());
        assert_eq!(w.lost(), 1);
        assert_eq!(w.error().map(|e| e.to_string()).as_deref(), Some("disk full"));
        assert!(w.finish().is_err());
    }
}
