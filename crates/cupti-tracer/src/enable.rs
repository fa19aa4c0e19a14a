//! Turning CUPTI's collection on for the chosen [`ApiMode`] and off again at the end of the
//! capture window.
//!
//! Kernels, copies and sets are always enabled. API calls: `none` enables neither
//! `CUPTI_ACTIVITY_KIND_RUNTIME` nor `DRIVER`; `all` enables both; `launch` switches on only
//! the calls of [`crate::cbid`] with `cuptiActivityEnableRuntimeApi` /
//! `cuptiActivityEnableDriverApi` (CUDA 13.0's cupti_activity.h: used without the two kinds,
//! they record just the named functions), so CUPTI never writes a record for the rest. A
//! CUPTI without those functions gets both kinds and the tracer drops the other calls while
//! draining, which saves the writing but not CUPTI's own cost per call.

use crate::activity::kind;
use crate::cbid;
use crate::config::ApiMode;
use crate::error::TracerError;
use crate::ffi::Cupti;

/// The CUPTI switches [`enable`] and [`disable`] use, so they can be tested without CUPTI.
pub trait Switches {
    /// `cuptiActivityEnable(kind)`.
    fn enable_kind(&self, kind: u32) -> Result<(), TracerError>;
    /// `cuptiActivityDisable(kind)`.
    fn disable_kind(&self, kind: u32);
    /// True when single API functions can be switched.
    fn has_api_filter(&self) -> bool;
    /// Switches recording of API function `cbid` of `api_domain` on or off.
    fn enable_api(&self, api_domain: u8, cbid: u32, on: bool) -> Result<(), TracerError>;
}

impl Switches for Cupti {
    fn enable_kind(&self, kind: u32) -> Result<(), TracerError> {
        self.enable(kind)
    }
    fn disable_kind(&self, kind: u32) {
        self.disable(kind)
    }
    fn has_api_filter(&self) -> bool {
        Cupti::has_api_filter(self)
    }
    fn enable_api(&self, api_domain: u8, cbid: u32, on: bool) -> Result<(), TracerError> {
        Cupti::enable_api(self, api_domain, cbid, on)
    }
}

/// How API calls are being recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiCollection {
    /// Not at all.
    Off,
    /// Every call (the RUNTIME and DRIVER kinds).
    Everything,
    /// Only the launch set, switched per callback id inside CUPTI.
    PerCallback,
    /// Every call is collected and the tracer keeps only the launch set.
    Filtered,
    /// The launch set, recorded by the tracer from CUPTI callbacks ([`crate::callbacks::launch_calls`]).
    Callbacks,
}

impl ApiCollection {
    /// A few words for the tracer's exit line.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Off => "none",
            Self::Everything => "all",
            Self::PerCallback => "launch, per callback id",
            Self::Filtered => "launch, filtered while draining",
            Self::Callbacks => "launch, from callbacks",
        }
    }
}

/// What [`enable`] switched on, for [`disable`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enabled {
    /// Bit `1 << k` for each activity kind `k` enabled.
    pub kinds: u32,
    /// How API calls are recorded.
    pub api: ApiCollection,
    /// The (domain, cbid) pairs switched on one by one.
    pub api_ids: Vec<(u8, u32)>,
    /// Launch-set ids this CUPTI refused (older releases lack the newest functions).
    pub api_refused: usize,
}

const DEVICE_KINDS: [(u32, &str); 3] =
    [(kind::CONCURRENT_KERNEL, "kernels"), (kind::MEMCPY, "memory copies"), (kind::MEMSET, "memory sets")];
const API_KINDS: [(u32, &str); 2] = [(kind::RUNTIME, "runtime API calls"), (kind::DRIVER, "driver API calls")];

/// Enables collection for `mode`. Fails only when kernels cannot be traced (nothing is left
/// enabled then); any other refusal becomes one `warn` line.
pub fn enable(cupti: &impl Switches, mode: ApiMode, warn: &mut dyn FnMut(String)) -> Result<Enabled, TracerError> {
    let mut on = Enabled { kinds: 0, api: ApiCollection::Off, api_ids: Vec::new(), api_refused: 0 };
    for (activity_kind, what) in DEVICE_KINDS {
        match cupti.enable_kind(activity_kind) {
            Ok(()) => on.kinds |= 1 << activity_kind,
            Err(error) if activity_kind == kind::CONCURRENT_KERNEL => return Err(error),
            Err(error) => warn(format!("{error}; {what} are not traced")),
        }
    }
    enable_api(cupti, &mut on, mode, warn);
    Ok(on)
}

/// Enables API activity records for `mode` on top of what `on` holds.
pub fn enable_api(cupti: &impl Switches, on: &mut Enabled, mode: ApiMode, warn: &mut dyn FnMut(String)) {
    match mode {
        ApiMode::None => {}
        ApiMode::All => enable_api_kinds(cupti, on, ApiCollection::Everything, warn),
        ApiMode::Launch if cupti.has_api_filter() => {
            for (api_domain, cbid) in cbid::launch_set() {
                match cupti.enable_api(api_domain, cbid, true) {
                    Ok(()) => on.api_ids.push((api_domain, cbid)),
                    Err(_) => on.api_refused += 1,
                }
            }
            if on.api_ids.is_empty() {
                warn(
                    "CUPTI refused every per-function API switch; recording all API calls and keeping launches".into(),
                );
                enable_api_kinds(cupti, on, ApiCollection::Filtered, warn);
            } else {
                on.api = ApiCollection::PerCallback;
            }
        }
        ApiMode::Launch => enable_api_kinds(cupti, on, ApiCollection::Filtered, warn),
    }
}

fn enable_api_kinds(cupti: &impl Switches, on: &mut Enabled, api: ApiCollection, warn: &mut dyn FnMut(String)) {
    for (activity_kind, what) in API_KINDS {
        match cupti.enable_kind(activity_kind) {
            Ok(()) => {
                on.kinds |= 1 << activity_kind;
                on.api = api;
            }
            Err(error) => warn(format!("{error}; {what} are not traced")),
        }
    }
}

/// Pauses (`active` false) or resumes the API records [`enable`] switched on, leaving the
/// device records alone: for `PROF_CUPTI_API_TOGGLE`, which measures what API records cost
/// within one process. [`ApiCollection::Callbacks`] is paused by its own switch
/// ([`crate::callbacks::launch_calls::set_on`]), not here.
pub fn set_api_active(cupti: &impl Switches, on: &Enabled, active: bool) {
    for &(api_domain, cbid) in &on.api_ids {
        let _ = cupti.enable_api(api_domain, cbid, active);
    }
    for (activity_kind, _) in API_KINDS {
        if on.kinds & (1 << activity_kind) != 0 {
            if active {
                let _ = cupti.enable_kind(activity_kind);
            } else {
                cupti.disable_kind(activity_kind);
            }
        }
    }
}

/// Switches off everything [`enable`] switched on.
pub fn disable(cupti: &impl Switches, on: &Enabled) {
    for activity_kind in 0..32 {
        if on.kinds & (1 << activity_kind) != 0 {
            cupti.disable_kind(activity_kind);
        }
    }
    for &(api_domain, cbid) in &on.api_ids {
        let _ = cupti.enable_api(api_domain, cbid, false);
    }
}

#[cfg(test)]
mod tests;
