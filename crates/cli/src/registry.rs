//! The one explicit list of compiled-in backends; each sits behind a default-on cargo feature.

use prof_core::{Registry, Vendor};

/// Every backend this binary was built with, in detection order.
pub fn build() -> Registry {
    let vendors: Vec<Box<dyn Vendor>> = vec![
        #[cfg(feature = "nvidia")]
        Box::new(prof_backend_nvidia::NvidiaVendor::new()),
        #[cfg(feature = "amd")]
        Box::new(prof_backend_amd::AmdVendor::new()),
        #[cfg(feature = "ascend")]
        Box::new(prof_backend_ascend::AscendVendor::new()),
    ];
    Registry::new(vendors)
}
