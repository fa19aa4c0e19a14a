//! The backends' own sections ([`crate::Vendor::sections`]: the Ascend op checks of a profile
//! directory, …). They depend on the artifact's path only, so they are computed on their own
//! thread from the moment the path is known: a section that reads other files overlaps the
//! timeline's load instead of following it.

use prof_timeline::section::Section;
use std::path::Path;
use std::sync::Mutex;
use std::thread::JoinHandle;

/// The vendor sections of an artifact, computing on their own thread.
#[derive(Default)]
pub struct VendorPrefetch {
    running: Mutex<Option<JoinHandle<Vec<Section>>>>,
}

impl VendorPrefetch {
    /// Starts the backends' sections of `path` on a registry `build` makes on that thread;
    /// nothing without a path.
    pub fn start(path: Option<&Path>, build: fn() -> crate::Registry) -> Self {
        let Some(path) = path.map(Path::to_owned) else { return Self::default() };
        let handle = std::thread::spawn(move || build().sections(&path));
        Self { running: Mutex::new(Some(handle)) }
    }

    /// The sections, once; empty when none were started (or the thread panicked, a bug that
    /// should not take the report with it).
    pub fn take(&self) -> Vec<Section> {
        let handle = self.running.lock().ok().and_then(|mut running| running.take());
        handle.and_then(|h| h.join().ok()).unwrap_or_default()
    }
}
