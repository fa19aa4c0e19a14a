//! The launch set's API calls ([`crate::cbid`]) recorded from CUPTI callbacks rather than
//! as CUPTI API activity records: for a CUPTI that cannot switch API activity records on
//! per function (then the only other way to get launches is to record every call, which
//! cost 1.3x on the H200), or on request (`PROF_CUPTI_LAUNCH_RECORDS=callbacks`).
//!
//! The callback for a launch-set id reads the correlation id CUPTI already assigned, takes
//! a CUPTI timestamp on entry and on exit, and appends one [`Api`] to a buffer of the calling
//! thread; the tracer's control thread collects the buffers ([`take_all`]) and writes them
//! like any other API record. A driver call made inside a runtime call of the set (each
//! `cudaLaunchKernel` calls `cuLaunchKernel`) is not recorded twice. On the H200 (CUDA 13.0,
//! 64-token decode of a 24-layer Llama-style model, `scripts/device/check_launch_records.py`)
//! both ways wrote the same 529,567 API records, every one of the 528,640 kernels linked to
//! its launch, with the same functions and the same median launch-to-start delay. The
//! callback data is decoded in [`crate::callbacks`], which owns the subscription.

use crate::cbid;
use crate::error::TracerError;
use crate::ffi::{Clock, Cupti};
use crate::format::{domain, Api};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

static ON: AtomicBool = AtomicBool::new(false);
/// Every thread's buffer, so the control thread can empty them.
static THREADS: Mutex<Vec<Arc<Mutex<Vec<Api>>>>> = Mutex::new(Vec::new());

struct Local {
    records: Arc<Mutex<Vec<Api>>>,
    pid: u32,
    tid: u32,
    /// Calls entered and not yet left: (start, correlation, cbid, domain).
    open: Vec<(u64, u32, u32, u8)>,
    /// Depth of runtime calls of the set this thread is inside.
    in_runtime: u32,
}

thread_local! {
    static LOCAL: RefCell<Option<Local>> = const { RefCell::new(None) };
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Starts (or stops) recording.
pub fn set_on(on: bool) {
    ON.store(on, Ordering::SeqCst);
}

/// True while recording.
pub fn is_on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// The timestamp the callbacks take.
static CLOCK: OnceLock<Clock> = OnceLock::new();

/// Records the launch set's calls from callbacks ([`launch_calls`]) from now on. Returns how
/// many callbacks were switched on (0 or an error: the caller records them another way).
pub fn record_launches(cupti: &Cupti) -> Result<usize, TracerError> {
    let subscriber = super::subscription(cupti)?;
    let _ = CLOCK.set(cupti.clock());
    let mut count = 0;
    let mut last_error = None;
    for (api_domain, id) in cbid::launch_set() {
        match cupti.enable_callback(subscriber, u32::from(api_domain), id, true) {
            Ok(()) => count += 1,
            Err(error) => last_error = Some(error),
        }
    }
    match last_error {
        Some(error) if count == 0 => Err(error),
        _ => {
            set_on(true);
            Ok(count)
        }
    }
}

/// Stops recording launches and switches their callbacks off (at the end of the window).
pub fn stop_recording_launches(cupti: &Cupti) {
    if !is_on() {
        return;
    }
    set_on(false);
    let Ok(subscriber) = super::subscription(cupti) else { return };
    for (api_domain, id) in cbid::launch_set() {
        let _ = cupti.enable_callback(subscriber, u32::from(api_domain), id, false);
    }
}

/// One callback of a launch-set id, timed with the clock [`record_launches`] kept.
pub(crate) fn record(api_domain: u8, cbid: u32, enter: bool, correlation: u32) {
    if let Some(clock) = CLOCK.get() {
        on_call(api_domain, cbid, enter, correlation, || clock.now());
    }
}

/// One callback of a launch-set id: `enter` is the callback site, `correlation` the id CUPTI
/// gave the call, `now` a CUPTI timestamp.
pub fn on_call(api_domain: u8, cbid: u32, enter: bool, correlation: u32, now: impl FnOnce() -> u64) {
    let _ = LOCAL.try_with(|local| {
        let Ok(mut local) = local.try_borrow_mut() else { return };
        let local = local.get_or_insert_with(register);
        if api_domain == domain::DRIVER && local.in_runtime > 0 {
            return;
        }
        if api_domain == domain::RUNTIME {
            local.in_runtime = if enter { local.in_runtime + 1 } else { local.in_runtime.saturating_sub(1) };
        }
        if enter {
            local.open.push((now(), correlation, cbid, api_domain));
            return;
        }
        let Some(at) = local.open.iter().rposition(|o| o.1 == correlation && o.2 == cbid && o.3 == api_domain) else {
            return;
        };
        let (start, _, _, _) = local.open.remove(at);
        let api =
            Api { start, end: now(), pid: local.pid, tid: local.tid, correlation, cbid, domain: api_domain, name: 0 };
        lock(&local.records).push(api);
    });
}

fn register() -> Local {
    let records = Arc::new(Mutex::new(Vec::with_capacity(4096)));
    lock(&THREADS).push(Arc::clone(&records));
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::gettid() } as u32;
    Local { records, pid: std::process::id(), tid, open: Vec::new(), in_runtime: 0 }
}

/// Every call recorded so far, from all threads, emptying their buffers.
pub fn take_all() -> Vec<Api> {
    let threads = lock(&THREADS).clone();
    let mut all = Vec::new();
    for records in threads {
        let mut records = lock(&records);
        if all.is_empty() {
            all = std::mem::replace(&mut *records, Vec::with_capacity(4096));
        } else {
            all.append(&mut records);
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_becomes_one_record_and_a_nested_driver_call_none() {
        let mut clock = 100;
        let mut tick = || {
            clock += 10;
            clock
        };
        // cudaLaunchKernel (runtime 211) around cuLaunchKernel (driver 307), then a driver-only launch.
        on_call(domain::RUNTIME, 211, true, 7, &mut tick);
        on_call(domain::DRIVER, 307, true, 8, &mut tick);
        on_call(domain::DRIVER, 307, false, 8, &mut tick);
        on_call(domain::RUNTIME, 211, false, 7, &mut tick);
        on_call(domain::DRIVER, 307, true, 9, &mut tick);
        on_call(domain::DRIVER, 307, false, 9, &mut tick);
        on_call(domain::DRIVER, 307, false, 10, &mut tick); // an exit without its entry
        let records = take_all();
        assert_eq!(records.len(), 2, "{records:?}");
        let tid = unsafe { libc::gettid() } as u32;
        assert_eq!(
            (records[0].start, records[0].end, records[0].correlation, records[0].cbid, records[0].tid),
            (110, 120, 7, 211, tid)
        );
        assert_eq!((records[1].start, records[1].end, records[1].domain), (130, 140, domain::DRIVER));
        assert!(take_all().is_empty());
    }
}
