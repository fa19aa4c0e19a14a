//! A kernel dispatch's details (block, grid, registers, LDS) parsed once per distinct text: the
//! dispatches of one kernel repeat the same cells, so a row whose detail cells are, byte for
//! byte, those of the last row of the same name takes that row's details without parsing them
//! again (eight integers, three divisions and a comparison of the details a row).

use prof_core::NameId;
use prof_timeline::details_pool::DetailsId;

/// The last detail cells seen per kernel name, and the details they gave.
#[derive(Default)]
pub(crate) struct DetailsCache {
    /// Per name id: the text of the detail cells ([`crate::rocprof_row::Record::span`]) and
    /// the id the timeline's pool gave their details.
    by_name: Vec<Option<(String, DetailsId)>>,
}

impl DetailsCache {
    /// The details id of the last row named `name` whose detail cells read `cells`.
    #[inline]
    pub(crate) fn get(&self, name: NameId, cells: &str) -> Option<DetailsId> {
        match self.by_name.get(name.0 as usize) {
            Some(Some((text, id))) if text == cells => Some(*id),
            _ => None,
        }
    }

    /// Remembers that the row named `name` with detail cells `cells` got `id`.
    pub(crate) fn put(&mut self, name: NameId, cells: &str, id: DetailsId) {
        let slot = name.0 as usize;
        if slot >= self.by_name.len() {
            self.by_name.resize_with(slot + 1, || None);
        }
        match &mut self.by_name[slot] {
            Some((text, last)) => {
                text.clear();
                text.push_str(cells);
                *last = id;
            }
            empty => *empty = Some((cells.to_owned(), id)),
        }
    }
}
