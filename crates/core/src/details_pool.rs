//! Shared op details: most ops of a trace repeat the details of others (every launch of a
//! kernel has the same grid, block, registers and shared memory; every Ascend op of a type
//! the same shapes and core type), so a timeline keeps each distinct [`OpDetails`] once and
//! its ops point at it. A kernel trace's op then costs its 56 bytes and a share of a few
//! hundred details, where a box per op cost ~130 more (10 M rocprofv3 kernels: 2.1 GB).
//!
//! Sharing is invisible to readers (`op.details.as_deref()`); a writer that changes one op's
//! details after the load gets its own copy ([`crate::DeviceOp::details_mut`], copy on write).

use crate::intern::{FxHasher, NameId};
use crate::timeline::OpDetails;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::sync::Arc;

/// Distinct details kept for sharing; past this a trace whose details rarely repeat (every
/// copy a different size) stops paying for the look-up table and keeps its details unshared.
pub const MAX_SHARED: usize = 1 << 20;

/// The distinct details of one timeline.
#[derive(Debug, Clone, Default)]
pub struct DetailsPool {
    seen: HashSet<Arc<OpDetails>, BuildHasherDefault<FxHasher>>,
    /// The details last shared for each op name (by name id): the next op of the same name
    /// mostly has equal ones, found by one comparison instead of a hash and a probe.
    by_name: Vec<Option<Arc<OpDetails>>>,
}

impl DetailsPool {
    /// The shared copy of `details`, and whether it is new (so holds memory of its own).
    pub fn share(&mut self, details: Arc<OpDetails>) -> (Arc<OpDetails>, bool) {
        if let Some(known) = self.seen.get(&*details) {
            return (Arc::clone(known), false);
        }
        if self.seen.len() < MAX_SHARED {
            self.seen.insert(Arc::clone(&details));
        }
        (details, true)
    }

    /// Like [`DetailsPool::share`] for details built in place: allocated only when new.
    pub fn share_value(&mut self, details: OpDetails) -> (Arc<OpDetails>, bool) {
        match self.seen.get(&details) {
            Some(known) => (Arc::clone(known), false),
            None => self.share(Arc::new(details)),
        }
    }

    /// [`DetailsPool::share_value`] for an op named `name` (an id of the timeline whose pool
    /// this is): when the last op of that name had equal details, their copy without a look-up.
    pub fn share_named(&mut self, name: NameId, details: OpDetails) -> (Arc<OpDetails>, bool) {
        let slot = name.0 as usize;
        if let Some(Some(last)) = self.by_name.get(slot) {
            if **last == details {
                return (Arc::clone(last), false);
            }
        }
        let (shared, new) = self.share_value(details);
        if slot >= self.by_name.len() {
            self.by_name.resize(slot + 1, None);
        }
        self.by_name[slot] = Some(Arc::clone(&shared));
        (shared, new)
    }

    /// How many distinct details are shared.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// True when no details are shared.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_details_are_kept_once_and_different_ones_apart() {
        let mut pool = DetailsPool::default();
        let grid = |x| Arc::new(OpDetails { grid: Some([x, 1, 1]), ..Default::default() });
        let (a, new_a) = pool.share(grid(4));
        let (b, new_b) = pool.share(grid(4));
        let (c, new_c) = pool.share(grid(8));
        assert!(new_a && !new_b && new_c);
        assert!(Arc::ptr_eq(&a, &b) && !Arc::ptr_eq(&a, &c));
        assert_eq!(c.grid, Some([8, 1, 1]));
        assert_eq!(pool.len(), 2);
    }
}
