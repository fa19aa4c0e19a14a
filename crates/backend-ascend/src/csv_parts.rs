//! A large CSV file read in parts at once, one thread each: the file is split just after a
//! line end near each k/n of its size, and each part is read by its own [`CsvReader`]. A
//! split can fall inside a quoted field that holds a line end; the part before it then ends
//! inside quotes and fails, so a wrong guess costs a re-read by one thread (whose errors name
//! the right line), never a wrong number.

use crate::csv_table::CsvReader;
use std::path::Path;

/// Files smaller than this are read by one thread.
pub(crate) const PARALLEL_MIN_BYTES: u64 = 64 << 20;
/// Most threads a file is read with.
const MAX_THREADS: usize = 8;

/// How many parts a file of `size` bytes is read in: one when it is small or the machine
/// has one core.
pub(crate) fn parts_for(size: u64) -> usize {
    if size < PARALLEL_MIN_BYTES {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS)
}

/// Reads the file of `first` (a reader just past the header) in `parts` parts at once:
/// `read` gets each part's reader and whether the part is a later one (whose line numbers
/// count from the part's start), on its own thread. The results come in file order; `None`
/// when the file could not be split or a part's `read` gave `None`.
pub(crate) fn in_parts<T: Send>(
    mut first: CsvReader,
    size: u64,
    parts: usize,
    read: impl Fn(CsvReader, bool) -> Option<T> + Sync,
) -> Option<Vec<T>> {
    let header = first.header().clone();
    let mut bounds = split_points(header.path(), size, parts)?;
    bounds.push(size);
    if !first.stop_at(bounds[0]) {
        return None;
    }
    let read = &read;
    std::thread::scope(|scope| {
        let later: Vec<_> = bounds
            .windows(2)
            .map(|range| {
                let header = &header;
                scope.spawn(move || read(CsvReader::open_range(header, range[0], range[1]).ok()?, true))
            })
            .collect();
        let mut results = vec![read(first, false)];
        results.extend(later.into_iter().map(|part| part.join().ok().flatten()));
        results.into_iter().collect()
    })
}

/// Where parts 1.. of the file start: just after the first line end at or after each k/n of
/// the size.
fn split_points(path: &Path, size: u64, parts: usize) -> Option<Vec<u64>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    let mut points: Vec<u64> = Vec::with_capacity(parts);
    let mut window = vec![0u8; 1 << 20];
    for k in 1..parts as u64 {
        let target = size / parts as u64 * k;
        file.seek(SeekFrom::Start(target)).ok()?;
        let n = file.read(&mut window).ok()?;
        let newline = window[..n].iter().position(|&b| b == b'\n')?;
        let point = target + newline as u64 + 1;
        if point >= size || points.last().is_some_and(|&p| p >= point) {
            return None;
        }
        points.push(point);
    }
    Some(points)
}
