//! Reading a trace record by record: the tag picks the body's layout, and a body the file
//! ends inside is told apart from a corrupt one.

use crate::fields::Fields;
use crate::layout::tag;
use crate::records::{Api, Kernel, Memcpy, Memset};
use crate::FormatError;

/// The longest STRING a reader accepts. The writer stores at most [`crate::MAX_STRING`];
/// the margin tolerates other writers, and a larger length means a corrupt file rather
/// than one cut short.
pub const MAX_STRING_READ: usize = 1 << 20;

/// One decoded record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record<'a> {
    /// STRING: `text` (UTF-8 as written) is known as `id` from now on.
    String {
        /// The id later records name it by.
        id: u32,
        /// The bytes of the text.
        text: &'a [u8],
    },
    /// KERNEL.
    Kernel(Kernel),
    /// MEMCPY.
    Memcpy(Memcpy),
    /// MEMSET.
    Memset(Memset),
    /// API.
    Api(Api),
    /// DROPPED: CUPTI dropped this many records.
    Dropped(u64),
    /// WINDOW_END: the window closed at this CUPTI time.
    WindowEnd(u64),
    /// END: the clean end of the trace.
    End {
        /// KERNEL, MEMCPY, MEMSET and API records written.
        records: u64,
        /// Records CUPTI delivered without valid times (not stored).
        untimed: u64,
    },
}

/// The record whose tag byte is at `file[pos]` and the offset just after it; `Ok(None)` when
/// the file ends inside it (or at `pos`). An unknown tag or an impossible STRING length is
/// an error.
pub fn read_record(file: &[u8], pos: usize) -> Result<Option<(Record<'_>, usize)>, FormatError> {
    let Some((&record_tag, body)) = file.get(pos..).and_then(<[u8]>::split_first) else { return Ok(None) };
    let mut f = Fields::new(body);
    let record = match record_tag {
        tag::STRING => {
            let (Some(id), Some(len)) = (f.take::<u32>(), f.take::<u32>()) else { return Ok(None) };
            let len = len as usize;
            if len > MAX_STRING_READ {
                return Err(FormatError::StringTooLong { len, at: pos });
            }
            f.bytes(len).map(|text| Record::String { id, text })
        }
        tag::KERNEL => Kernel::decode(&mut f).map(Record::Kernel),
        tag::MEMCPY => Memcpy::decode(&mut f).map(Record::Memcpy),
        tag::MEMSET => Memset::decode(&mut f).map(Record::Memset),
        tag::API => Api::decode(&mut f).map(Record::Api),
        tag::DROPPED => f.take().map(Record::Dropped),
        tag::WINDOW_END => f.take().map(Record::WindowEnd),
        tag::END => f.take().zip(f.take()).map(|(records, untimed)| Record::End { records, untimed }),
        other => return Err(FormatError::UnknownTag { tag: other, at: pos }),
    };
    Ok(record.map(|record| (record, pos + 1 + f.taken())))
}
