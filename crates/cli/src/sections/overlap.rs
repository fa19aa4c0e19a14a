//! (being written)

use super::{Section, SectionContext};
use prof_core::Timeline;

/// This section, when it has something to say.
pub fn section(_timeline: &Timeline, _context: &SectionContext) -> Option<Section> {
    None
}
