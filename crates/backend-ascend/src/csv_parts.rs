//! A large CSV file read in parts at once, one thread each: the file is split just after a
//! line end near each k/n of its size ([`prof_timeline::text_parts`]), and each part is read by
//! its own [`CsvReader`]. A split inside a quoted field makes the part before it end inside
//! quotes and fail, so a wrong guess costs a re-read by one thread, never a wrong number.

use crate::csv_table::CsvReader;

pub(crate) use prof_timeline::text_parts::parts_for;
use prof_timeline::text_parts::{run_parts_joined, split_points};

/// Reads the file of `first` (a reader just past the header) in `parts` parts, on every core
/// ([`prof_timeline::text_parts::run_parts_joined`]): `read` gets each part's reader and whether
/// the part is a later one (the first ends at a line end before the file does, so it is never
/// cut; every part's line numbers count from its own start, so a reader that fails on any
/// error reads again by one thread), and `join` puts each part's result onto `init` in file
/// order while later parts are read. `None` when the file could not be split or a part's
/// `read` gave `None`.
pub(crate) fn in_parts<T: Send, J: Send>(
    first: CsvReader,
    size: u64,
    parts: usize,
    read: impl Fn(CsvReader, bool) -> Option<T> + Sync,
    init: J,
    join: impl Fn(&mut J, T) + Sync,
) -> Option<J> {
    let header = first.header().clone();
    let mut bounds = vec![first.consumed()];
    drop(first);
    bounds.extend(split_points(header.path(), size, parts)?);
    bounds.push(size);
    if bounds.windows(2).any(|w| w[0] >= w[1]) {
        return None;
    }
    let work = |k: usize| read(CsvReader::open_range(&header, bounds[k], bounds[k + 1]).ok()?, k > 0);
    run_parts_joined(bounds.len() - 1, work, init, join)
}
