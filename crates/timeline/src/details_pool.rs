//! Shared op details: most ops of a trace repeat the details of others (every launch of a
//! kernel has the same grid, block, registers and shared memory; every Ascend op of a type
//! the same shapes and core type), so a timeline keeps each distinct [`OpDetails`] once and
//! its ops hold a [`DetailsId`] of it (15 bits of a word shared with the name: `op_label.rs`).
//! A kernel trace's op then costs its 24 bytes and a share of a few hundred details, where a box
//! per op cost ~130 more (10 M rocprofv3 kernels: 2.1 GB) and a shared pointer 8.
//!
//! Readers ask the timeline ([`crate::Timeline::details_of`]); a loader hands an op its
//! details as it pushes it ([`crate::Timeline::push_op_with`]).

use crate::intern::{FxHashMap, NameId};
use crate::op_kind::OpDetails;
use std::num::NonZeroU32;
use std::sync::Arc;

/// Distinct details kept for sharing; past this a trace whose details rarely repeat (every
/// copy a different size) stops paying for the look-up table and keeps its details unshared.
pub const MAX_SHARED: usize = 1 << 20;

/// The details of an op, by their place in its timeline's pool (serialized as that number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct DetailsId(NonZeroU32);

impl DetailsId {
    /// Its place in its pool.
    pub fn index(self) -> usize {
        self.0.get() as usize - 1
    }

    /// Its number (never 0), for a packed word.
    #[inline]
    pub(crate) fn raw(self) -> u32 {
        self.0.get()
    }

    /// The id of number `raw`; `None` for 0.
    #[inline]
    pub(crate) fn from_raw(raw: u32) -> Option<Self> {
        NonZeroU32::new(raw).map(DetailsId)
    }
}

/// The distinct details of one timeline.
#[derive(Debug, Clone, Default)]
pub struct DetailsPool {
    /// Every details held, by id.
    items: Vec<Arc<OpDetails>>,
    /// The id of each distinct details (the first [`MAX_SHARED`]).
    seen: FxHashMap<Arc<OpDetails>, DetailsId>,
    /// The details last given to each op name (by name id): the next op of the same name
    /// mostly has equal ones, found by one comparison instead of a hash and a probe.
    by_name: Vec<Option<DetailsId>>,
}

impl DetailsPool {
    /// The id of `details` here, and whether they are new (so hold memory of their own).
    pub fn share_value(&mut self, details: OpDetails) -> (DetailsId, bool) {
        if let Some(&known) = self.seen.get(&details) {
            return (known, false);
        }
        let id = DetailsId(
            u32::try_from(self.items.len() + 1).ok().and_then(NonZeroU32::new).expect("fewer than 2^32 details"),
        );
        let details = Arc::new(details);
        if self.seen.len() < MAX_SHARED {
            self.seen.insert(Arc::clone(&details), id);
        }
        self.items.push(details);
        (id, true)
    }

    /// [`DetailsPool::share_value`] for an op named `name` (an id of the timeline whose pool
    /// this is): when the last op of that name had equal details, their id without a look-up.
    pub fn share_named(&mut self, name: NameId, details: OpDetails) -> (DetailsId, bool) {
        let slot = name.0 as usize;
        if let Some(&Some(last)) = self.by_name.get(slot) {
            if *self.items[last.index()] == details {
                return (last, false);
            }
        }
        let (id, new) = self.share_value(details);
        if slot >= self.by_name.len() {
            self.by_name.resize(slot + 1, None);
        }
        self.by_name[slot] = Some(id);
        (id, new)
    }

    /// The details of `id`; `None` for an id this pool did not give.
    pub fn get(&self, id: DetailsId) -> Option<&OpDetails> {
        self.items.get(id.index()).map(|d| &**d)
    }

    /// True when some details held match `test` (a question about all ops' details asked of
    /// the few distinct ones).
    pub fn any(&self, test: impl Fn(&OpDetails) -> bool) -> bool {
        self.items.iter().any(|d| test(d))
    }

    /// `f` of each details held, by id (at [`DetailsId`]'s place): a question about every op's
    /// details answered once per distinct details, then looked up by id.
    pub fn each<T>(&self, f: impl Fn(&OpDetails) -> T) -> Vec<T> {
        self.items.iter().map(|d| f(d)).collect()
    }

    /// How many details are held.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when none is.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_details_are_kept_once_and_different_ones_apart() {
        let mut pool = DetailsPool::default();
        let grid = |x| OpDetails { grid: Some([x, 1, 1]), ..Default::default() };
        let (a, new_a) = pool.share_value(grid(4));
        let (b, new_b) = pool.share_value(grid(4));
        let (c, new_c) = pool.share_value(grid(8));
        assert!(new_a && !new_b && new_c);
        assert!(a == b && a != c);
        assert_eq!(pool.get(c).unwrap().grid, Some([8, 1, 1]));
        assert_eq!(pool.len(), 2);
    }

    #[test]
    fn the_last_details_of_a_name_are_found_and_changed_ones_shared_as_any() {
        let (mut named, mut plain) = (DetailsPool::default(), DetailsPool::default());
        let bytes = |b| OpDetails { bytes: Some(b), ..Default::default() };
        // Two names alternating, one changing its details and coming back to the first ones.
        let calls = [(0, 1), (1, 2), (0, 1), (1, 2), (0, 3), (0, 1), (1, 1), (2, 2), (1, 2)];
        for (name, b) in calls {
            let (id, new) = named.share_named(NameId(name), bytes(b));
            assert_eq!((id, new), plain.share_value(bytes(b)), "name {name} bytes {b}");
            assert_eq!(named.get(id), Some(&bytes(b)));
        }
        assert_eq!(named.len(), 3);
    }
}
