//! A large CSV file read in parts at once, one thread each: the file is split just after a
//! line end near each k/n of its size ([`prof_core::text_parts`]), and each part is read by
//! its own [`CsvReader`]. A split inside a quoted field makes the part before it end inside
//! quotes and fail, so a wrong guess costs a re-read by one thread, never a wrong number.

use crate::csv_table::CsvReader;

pub(crate) use prof_core::text_parts::parts_for;
use prof_core::text_parts::split_points;

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
