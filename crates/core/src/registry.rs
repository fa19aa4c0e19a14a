//! The backend registry: the explicit list of vendors the binary was built with.

use crate::vendor::{Detection, Vendor};

/// Holds every compiled-in backend; the CLI builds it from one explicit list.
pub struct Registry {
    vendors: Vec<Box<dyn Vendor>>,
}

impl Registry {
    /// A registry over `vendors`, in the order they should be tried.
    pub fn new(vendors: Vec<Box<dyn Vendor>>) -> Self {
        Self { vendors }
    }

    /// Every backend.
    pub fn vendors(&self) -> &[Box<dyn Vendor>] {
        &self.vendors
    }

    /// The backend with id `id`.
    pub fn get(&self, id: &str) -> Option<&dyn Vendor> {
        self.vendors.iter().find(|v| v.id() == id).map(|v| v.as_ref())
    }

    /// Runs every backend's detection concurrently (each spawns its SMI tool) and
    /// returns them in registry order. A backend that panics is reported, not propagated.
    pub fn detect_all(&self) -> Vec<Detection> {
        std::thread::scope(|scope| {
            let handles: Vec<_> = self.vendors.iter().map(|vendor| (vendor, scope.spawn(|| vendor.detect()))).collect();
            handles
                .into_iter()
                .map(|(vendor, handle)| {
                    handle.join().unwrap_or_else(|_| {
                        let mut detection = Detection::new(vendor.id(), vendor.name());
                        detection.problems.push(format!("{} detection panicked; this is a prof bug", vendor.name()));
                        detection
                    })
                })
                .collect()
        })
    }
}
