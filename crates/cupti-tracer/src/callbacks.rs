//! The CUPTI callbacks behind an event-started window: one subscriber (`cuptiSubscribe`)
//! whose callback decodes the few calls the [`Trigger`] needs into [`Event`]s and applies
//! the trigger's answer to the window.
//!
//! Only the callbacks the trigger needs are switched on: the profiler start/stop calls for
//! `profiler`; kernel and graph launches for `kernel`; launches, host-to-device copy calls,
//! the profiler calls and NVTX ranges for `auto`; NVTX ranges for `nvtx`. Once the trigger is done the callback returns at its
//! first check. Layouts read here, from CUDA 13.0's `cupti_callbacks.h`,
//! `generated_cuda_runtime_api_meta.h`, `generated_cuda_meta.h` and
//! `generated_nvtx_meta.h` and NVTX 3's `nvToolsExt.h`:
//!
//! - `CUpti_CallbackData`: `callbackSite` u32 at 0, `functionParams` at 16, `symbolName` at 32,
//!   `correlationId` u32 at 64 (read for [`launch_calls`]).
//! - `CUpti_NvtxData`: `functionParams` at 8, `functionReturnValue` at 16.
//! - `cudaMemcpy{,Async}_params`: `count` at 16, `kind` (1 = host to device) at 24;
//!   `cuMemcpyHtoD{,Async}_v2_params`: `ByteCount` at 16.
//! - `nvtxRangePushA_params` / `nvtxRangeStartA_params`: the message pointer at 0;
//!   `…Ex_params`: the `nvtxEventAttributes_t` pointer at 0; the `nvtxDomain…` forms put the
//!   domain first and the same fields at 8; `nvtxRangeEnd_params`: the id at 0.
//! - `nvtxEventAttributes_t` (v2, 48 bytes): `size` u16 at 2, `messageType` i32 at 32
//!   (1 ASCII, 3 registered), the message at 40.

use crate::cbid::{self, DRIVER_CBID_SIZE, DRIVER_LAUNCH, RUNTIME_CBID_SIZE, RUNTIME_LAUNCH};
use crate::error::TracerError;
use crate::ffi::{Cupti, Subscriber};
use crate::trigger::{Action, Event, StartOn, Trigger};

pub mod launch_calls;
use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, OnceLock, PoisonError};

const DRIVER: u32 = 1;
const RUNTIME: u32 = 2;
const NVTX: u32 = 5;
const API_ENTER: u32 = 0;

/// `cudaProfilerStart_v4000` / `cudaProfilerStop_v4000` in `cupti_runtime_cbid.h`, used
/// when CUPTI cannot name its ids.
const RUNTIME_PROFILER: (u32, u32) = (171, 172);

/// What a runtime or driver callback id means to the trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Ignored,
    Launch,
    RuntimeCopy,
    DriverHostToDevice,
    ProfilerStart,
    ProfilerStop,
}

struct Watch {
    trigger: Trigger,
    runtime: Vec<Role>,
    driver: Vec<Role>,
    registered: Mutex<HashMap<usize, String>>,
    apply: fn(Action, &Trigger),
}

static WATCH: OnceLock<Watch> = OnceLock::new();
/// The process's one subscription, shared by the trigger and launch recording.
static SUBSCRIBER: OnceLock<Subscriber> = OnceLock::new();
/// The subscription and the (domain, cbid) callbacks it switched on.
type Switched = (Subscriber, Vec<(u32, u32)>);
/// What [`release`] switches off.
static SWITCHED: Mutex<Option<Switched>> = Mutex::new(None);

thread_local! {
    /// Runtime launch or copy calls this thread is inside: the driver call the runtime makes
    /// for them calls back too (seen on the H200, CUDA 13: each `cudaLaunchKernel` also
    /// reported a `cuLaunchKernel`), and must not count twice.
    static IN_RUNTIME: Cell<u32> = const { Cell::new(0) };
}

fn roles(table: &[(u32, &str)], size: u32, copy: fn(&str) -> Option<Role>) -> Vec<Role> {
    let mut roles = vec![Role::Ignored; size as usize + 1];
    for &(cbid, name) in table {
        let role = if name.contains("Launch") && !name.contains("HostFunc") { Some(Role::Launch) } else { copy(name) };
        if let (Some(role), Some(slot)) = (role, roles.get_mut(cbid as usize)) {
            *slot = role;
        }
    }
    roles
}

/// Finds the ids of `start` and `stop` in `domain` by the names CUPTI gives them.
fn profiler_ids(cupti: &Cupti, domain: u32, size: u32, start: &str, stop: &str) -> Vec<(u32, Role)> {
    (1..size)
        .filter_map(|cbid| {
            let name = cupti.callback_name(domain, cbid)?;
            let role = if name.starts_with(start) {
                Role::ProfilerStart
            } else if name.starts_with(stop) {
                Role::ProfilerStop
            } else {
                return None;
            };
            Some((cbid, role))
        })
        .collect()
}

/// Subscribes to the callbacks `start_on` needs; `apply` acts on the window when the trigger
/// says so. Returns how many callbacks were switched on.
pub fn install(cupti: &Cupti, start_on: StartOn, apply: fn(Action, &Trigger)) -> Result<usize, TracerError> {
    let mut runtime = roles(&RUNTIME_LAUNCH, RUNTIME_CBID_SIZE, |name| {
        let copy = ["cudaMemcpy_v", "cudaMemcpyAsync_v", "cudaMemcpy_ptds", "cudaMemcpyAsync_ptsz"];
        copy.iter().any(|prefix| name.starts_with(prefix)).then_some(Role::RuntimeCopy)
    });
    let mut driver = roles(&DRIVER_LAUNCH, DRIVER_CBID_SIZE, |name| {
        (name.starts_with("cuMemcpyHtoD") && name.contains("_v2")).then_some(Role::DriverHostToDevice)
    });
    let mut profiler = profiler_ids(cupti, RUNTIME, RUNTIME_CBID_SIZE, "cudaProfilerStart", "cudaProfilerStop");
    if profiler.is_empty() {
        profiler = vec![(RUNTIME_PROFILER.0, Role::ProfilerStart), (RUNTIME_PROFILER.1, Role::ProfilerStop)];
    }
    for &(cbid, role) in &profiler {
        runtime[cbid as usize] = role;
    }
    let driver_profiler = profiler_ids(cupti, DRIVER, DRIVER_CBID_SIZE, "cuProfilerStart", "cuProfilerStop");
    for &(cbid, role) in &driver_profiler {
        driver[cbid as usize] = role;
    }
    let wanted = |role: Role| match start_on {
        StartOn::ProfilerApi => matches!(role, Role::ProfilerStart | Role::ProfilerStop),
        StartOn::Kernel { .. } => role == Role::Launch,
        StartOn::Auto => role != Role::Ignored,
        StartOn::Nvtx(_) => false,
    };
    let mut ids: Vec<(u32, u32)> = Vec::new();
    for (domain, table) in [(RUNTIME, &runtime), (DRIVER, &driver)] {
        ids.extend(table.iter().enumerate().filter(|(_, role)| wanted(**role)).map(|(cbid, _)| (domain, cbid as u32)));
    }
    if matches!(start_on, StartOn::Nvtx(_) | StartOn::Auto) {
        ids.extend(nvtx::cbid::ALL.iter().map(|&cbid| (NVTX, cbid)));
    }
    let watch = Watch { trigger: Trigger::new(start_on), runtime, driver, registered: Mutex::default(), apply };
    if WATCH.set(watch).is_err() {
        return Ok(0);
    }
    let subscriber = subscription(cupti)?;
    let mut enabled = Vec::new();
    let mut last_error = None;
    for (domain, cbid) in ids {
        match cupti.enable_callback(subscriber, domain, cbid, true) {
            Ok(()) => enabled.push((domain, cbid)),
            Err(error) => last_error = Some(error),
        }
    }
    let count = enabled.len();
    *SWITCHED.lock().unwrap_or_else(PoisonError::into_inner) = Some((subscriber, enabled));
    match last_error {
        Some(error) if count == 0 => Err(error),
        _ => Ok(count),
    }
}

/// The process's subscription, made on first use.
pub(crate) fn subscription(cupti: &Cupti) -> Result<Subscriber, TracerError> {
    if let Some(subscriber) = SUBSCRIBER.get() {
        return Ok(*subscriber);
    }
    let subscriber = cupti.subscribe(on_callback)?;
    Ok(*SUBSCRIBER.get_or_init(|| subscriber))
}

/// Once the trigger can change nothing more, switches its callbacks off, so the rest of the
/// run pays no callback per launch. Called from the tracer's control thread, never from a
/// callback; does nothing before then or a second time.
pub fn release(cupti: &Cupti) {
    if !WATCH.get().is_some_and(|watch| watch.trigger.done()) {
        return;
    }
    let Some((subscriber, ids)) = SWITCHED.lock().unwrap_or_else(PoisonError::into_inner).take() else { return };
    let recording = launch_calls::is_on();
    for (domain, id) in ids {
        if recording && matches!(domain, DRIVER | RUNTIME) && cbid::is_launch(domain as u8, id) {
            continue;
        }
        let _ = cupti.enable_callback(subscriber, domain, id, false);
    }
}

/// Why the window has not opened, when a trigger is installed and has not fired.
pub fn pending() -> Option<String> {
    WATCH.get().filter(|watch| !watch.trigger.opened()).map(|watch| watch.trigger.pending())
}

/// The callback CUPTI calls.
unsafe extern "C" fn on_callback(_: *mut c_void, domain: u32, cbid: u32, data: *const c_void) {
    if data.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        if matches!(domain, DRIVER | RUNTIME) && launch_calls::is_on() && cbid::is_launch(domain as u8, cbid) {
            let data = data.cast::<u8>();
            // SAFETY: CUpti_CallbackData: the callback site u32 at 0, correlationId u32 at 64.
            let (site, correlation) =
                unsafe { (data.cast::<u32>().read_unaligned(), data.add(64).cast::<u32>().read_unaligned()) };
            launch_calls::record(domain as u8, cbid, site == API_ENTER, correlation);
        }
        let Some(watch) = WATCH.get() else { return };
        if watch.trigger.done() {
            return;
        }
        // SAFETY: CUPTI passes the callback data of `domain` for `cbid`.
        let action = unsafe { watch.judge(domain, cbid, data.cast()) };
        if action != Action::None {
            (watch.apply)(action, &watch.trigger);
        }
    }));
}

/// Reads a pointer-sized or 8-byte field at `offset` of `base`.
///
/// # Safety
/// `base` must point to a structure at least `offset + 8` bytes long.
unsafe fn word(base: *const u8, offset: usize) -> u64 {
    // SAFETY: guaranteed by the caller; the read is unaligned-safe.
    unsafe { base.add(offset).cast::<u64>().read_unaligned() }
}

/// A C string at a pointer read from memory, or `None` for a null one.
///
/// # Safety
/// `address` must be 0 or point to a NUL-terminated string.
unsafe fn text<'a>(address: u64) -> Option<&'a [u8]> {
    // SAFETY: guaranteed by the caller.
    (address != 0).then(|| unsafe { CStr::from_ptr(address as *const c_char) }.to_bytes())
}

impl Watch {
    /// # Safety
    /// `data` is the callback data CUPTI passed for (`domain`, `cbid`).
    unsafe fn judge(&self, domain: u32, cbid: u32, data: *const u8) -> Action {
        let table = match domain {
            RUNTIME => &self.runtime,
            DRIVER => &self.driver,
            // SAFETY: forwarded.
            NVTX => return unsafe { self.judge_nvtx(cbid, data) },
            _ => return Action::None,
        };
        let role = table.get(cbid as usize).copied().unwrap_or(Role::Ignored);
        if role == Role::Ignored {
            return Action::None;
        }
        // SAFETY: CUpti_CallbackData starts with the 4-byte callback site.
        let enter = unsafe { data.cast::<u32>().read_unaligned() } == API_ENTER;
        let nests = matches!(role, Role::Launch | Role::RuntimeCopy | Role::DriverHostToDevice);
        if nests && domain == RUNTIME {
            IN_RUNTIME.with(|depth| depth.set(if enter { depth.get() + 1 } else { depth.get().saturating_sub(1) }));
        } else if nests && IN_RUNTIME.with(Cell::get) > 0 {
            return Action::None;
        }
        if !enter {
            return Action::None;
        }
        // SAFETY: CUpti_CallbackData is 72 bytes; its parameter block is the call's own.
        let params = unsafe { word(data, 16) } as *const u8;
        let event = match role {
            // SAFETY: symbolName is null or a NUL-terminated name.
            Role::Launch => Event::Launch { symbol: unsafe { text(word(data, 32)) } },
            Role::ProfilerStart => Event::ProfilerStart,
            Role::ProfilerStop => Event::ProfilerStop,
            // SAFETY: cudaMemcpy{,Async}_params hold count at 16 and kind at 24.
            Role::RuntimeCopy if !params.is_null() && unsafe { params.add(24).cast::<u32>().read_unaligned() } == 1 => {
                Event::HostToDevice { bytes: unsafe { word(params, 16) } }
            }
            // SAFETY: cuMemcpyHtoD{,Async}_v2_params hold ByteCount at 16.
            Role::DriverHostToDevice if !params.is_null() => Event::HostToDevice { bytes: unsafe { word(params, 16) } },
            _ => return Action::None,
        };
        self.trigger.on(event)
    }
}

mod nvtx;
