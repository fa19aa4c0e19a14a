//! What the merge keeps of each rank summary, and the median it measures against.

use crate::analysis::ranks::RankSplit;

/// What one summary is reduced to.
pub(super) struct Kept {
    pub(super) rank: u32,
    pub(super) split: RankSplit,
    pub(super) steps: Vec<(u64, u64)>,
    /// (type, start, end) in start order.
    pub(super) collectives: Vec<(u16, u64, u64)>,
    pub(super) links: Vec<crate::vendor_tables::Link>,
}

/// The median of `values` (the upper one of an even count), sorting them; 0 for none.
pub(super) fn median(values: &mut [u64]) -> u64 {
    if values.is_empty() {
        return 0;
    }
    values.sort_unstable();
    values[values.len() / 2]
}
