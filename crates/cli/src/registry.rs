//! The one explicit list of compiled-in backends; each sits behind a default-on cargo feature.

use prof_core::{Registry, Vendor};

/// Every backend this binary was built with, in detection order.
pub fn build() -> Registry {
    let mut vendors: Vec<Box<dyn Vendor>> = Vec::new();
    #[cfg(feature = "nvidia")]
    vendors.push(Box::new(prof_backend_nvidia::NvidiaVendor::new()));
    #[cfg(feature = "amd")]
    vendors.push(Box::new(prof_backend_amd::AmdVendor::new()));
    #[cfg(feature = "ascend")]
    vendors.push(Box::new(prof_backend_ascend::AscendVendor::new()));
    Registry::new(vendors)
}
