//! The activity buffers handed to CUPTI, and the queue completed buffers wait in.
//!
//! Two costs land on the traced thread unless the tracer takes them: CUPTI zeroes every
//! buffer it is given on the thread that asked for it (unless told
//! `CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER`, cupti_activity.h: "a few stalls may
//! appear in critical path"), and a freshly mapped 8 MiB buffer takes ~2,000 page faults as
//! records are first written into it. So buffers are given out already zeroed and touched,
//! from a pool the tracer's own thread keeps filled ([`prefill`]); a buffer back from CUPTI
//! is zeroed by the thread that drained it before it returns to the pool.
//!
//! Completed buffers are not decoded on CUPTI's thread: [`complete`] queues them for the
//! tracer's control thread ([`wait`], [`take_completed`]) and returns at once. Before that
//! thread runs, and from the exit handler on, buffers are drained where they complete.
//!
//! [`STATS`] counts what happened, for `PROF_CUPTI_STATS=1`.

use std::alloc::Layout;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Size of each activity buffer handed to CUPTI.
pub const BUFFER_SIZE: usize = 8 << 20;
const LAYOUT: Layout = match Layout::from_size_align(BUFFER_SIZE, 8) {
    Ok(layout) => layout,
    Err(_) => panic!("8 MiB aligned to 8 is a valid layout"),
};
/// Zeroed buffers kept for reuse instead of being freed.
const POOL_MAX: usize = 8;
/// Zeroed, touched buffers [`prefill`] keeps ready.
const POOL_READY: usize = 2;

static POOL: Mutex<Vec<usize>> = Mutex::new(Vec::new());
static QUEUE: Mutex<Vec<Completed>> = Mutex::new(Vec::new());
static QUEUED: Condvar = Condvar::new();
static HANDOFF: AtomicBool = AtomicBool::new(false);

/// A buffer CUPTI has filled and handed back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completed {
    /// The buffer's address (from [`take`]).
    pub buffer: usize,
    /// Bytes of records in it.
    pub valid: usize,
    /// Records CUPTI dropped for want of space, read when the buffer completed.
    pub dropped: u64,
}

/// Counters for the exit line of `PROF_CUPTI_STATS=1`.
#[derive(Debug, Default)]
pub struct Stats {
    /// Buffers CUPTI asked for.
    pub requested: AtomicU64,
    /// Of those, buffers mapped on the spot because the pool was empty (their page faults
    /// fall on the asking thread).
    pub fresh: AtomicU64,
    /// Buffers CUPTI handed back.
    pub completed: AtomicU64,
    /// Nanoseconds spent decoding and writing buffers.
    pub drain_ns: AtomicU64,
    /// Periodic flushes.
    pub flushes: AtomicU64,
    /// Nanoseconds inside `cuptiActivityFlushAll` for those.
    pub flush_ns: AtomicU64,
    /// The longest of them.
    pub max_flush_ns: AtomicU64,
}

/// The process's counters.
pub static STATS: Stats = Stats {
    requested: AtomicU64::new(0),
    fresh: AtomicU64::new(0),
    completed: AtomicU64::new(0),
    drain_ns: AtomicU64::new(0),
    flushes: AtomicU64::new(0),
    flush_ns: AtomicU64::new(0),
    max_flush_ns: AtomicU64::new(0),
};

impl Stats {
    /// Adds one periodic flush that took `elapsed`.
    pub fn flushed(&self, elapsed: Duration) {
        let ns = nanos(elapsed);
        self.flushes.fetch_add(1, Ordering::Relaxed);
        self.flush_ns.fetch_add(ns, Ordering::Relaxed);
        self.max_flush_ns.fetch_max(ns, Ordering::Relaxed);
    }

    /// Adds time spent draining.
    pub fn drained(&self, elapsed: Duration) {
        self.drain_ns.fetch_add(nanos(elapsed), Ordering::Relaxed);
    }

    /// One line: buffers, how many were mapped on demand, drain and flush time.
    pub fn line(&self) -> String {
        let ms = |a: &AtomicU64| a.load(Ordering::Relaxed) as f64 / 1e6;
        format!(
            "{} buffers requested ({} mapped on demand), {} completed, {:.1} ms draining; {} periodic flushes, \
             {:.1} ms in total, longest {:.2} ms",
            self.requested.load(Ordering::Relaxed),
            self.fresh.load(Ordering::Relaxed),
            self.completed.load(Ordering::Relaxed),
            ms(&self.drain_ns),
            self.flushes.load(Ordering::Relaxed),
            ms(&self.flush_ns),
            ms(&self.max_flush_ns),
        )
    }
}

fn nanos(elapsed: Duration) -> u64 {
    u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX)
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A zeroed buffer for CUPTI: from the pool, else freshly mapped (zero, not yet touched);
/// null when memory is short.
pub fn take() -> *mut u8 {
    STATS.requested.fetch_add(1, Ordering::Relaxed);
    if let Some(address) = lock(&POOL).pop() {
        return address as *mut u8;
    }
    STATS.fresh.fetch_add(1, Ordering::Relaxed);
    // SAFETY: LAYOUT has a non-zero size.
    unsafe { std::alloc::alloc_zeroed(LAYOUT) }
}

/// Tells CUPTI the buffers come zeroed, fills the pool, and sets the device buffer size when
/// `PROF_CUPTI_DEVICE_BUFFER_MB` asks.
pub fn prepare(cupti: &crate::ffi::Cupti, device_buffer_mb: Option<u64>) {
    use crate::ffi::attribute;
    prefill();
    if let Err(error) = cupti.set_attribute(attribute::ZEROED_OUT_ACTIVITY_BUFFER, &mut [1u8]) {
        crate::messages::note(&format!("{error}; CUPTI zeroes each activity buffer itself"));
    }
    if let Some(mb) = device_buffer_mb {
        let bytes = usize::try_from(mb.saturating_mul(1 << 20)).unwrap_or(usize::MAX);
        if let Err(error) = cupti.set_attribute(attribute::DEVICE_BUFFER_SIZE, &mut bytes.to_ne_bytes()) {
            crate::messages::warn(&format!("{error}; PROF_CUPTI_DEVICE_BUFFER_MB ignored"));
        }
    }
}

/// CUPTI asks for an empty buffer: 8 MiB, 8-byte aligned, or none when memory is short
/// (CUPTI then drops records and reports how many).
///
/// # Safety
/// Called by CUPTI with out-pointers for the buffer, its size and a record limit.
pub unsafe extern "C" fn requested(buffer: *mut *mut u8, size: *mut usize, max_records: *mut usize) {
    if buffer.is_null() || size.is_null() || max_records.is_null() {
        return;
    }
    let fresh = std::panic::catch_unwind(take).unwrap_or(std::ptr::null_mut());
    // SAFETY: CUPTI passes valid out-pointers (checked non-null above).
    unsafe {
        *buffer = fresh;
        *size = if fresh.is_null() { 0 } else { BUFFER_SIZE };
        *max_records = 0;
    }
}

/// Zeroes a drained buffer and keeps it for reuse (or frees it when the pool is full).
///
/// # Safety
/// `buffer` came from [`take`] and CUPTI no longer uses it.
pub unsafe fn give_back(buffer: *mut u8) {
    if buffer.is_null() {
        return;
    }
    let mut pool = lock(&POOL);
    if pool.len() < POOL_MAX && pool.try_reserve(1).is_ok() {
        drop(pool);
        // SAFETY: the buffer is BUFFER_SIZE bytes and ours again.
        unsafe { std::ptr::write_bytes(buffer, 0, BUFFER_SIZE) };
        lock(&POOL).push(buffer as usize);
        return;
    }
    drop(pool);
    // SAFETY: every buffer given to CUPTI came from `take` or `prefill` with LAYOUT.
    unsafe { std::alloc::dealloc(buffer, LAYOUT) };
}

/// Tops the pool up to [`POOL_READY`] zeroed buffers whose pages are already mapped, off
/// the traced thread.
pub fn prefill() {
    while lock(&POOL).len() < POOL_READY {
        // SAFETY: LAYOUT has a non-zero size.
        let buffer = unsafe { std::alloc::alloc(LAYOUT) };
        if buffer.is_null() {
            return;
        }
        // SAFETY: a fresh allocation of BUFFER_SIZE bytes; writing every byte maps every page.
        unsafe { std::ptr::write_bytes(buffer, 0, BUFFER_SIZE) };
        lock(&POOL).push(buffer as usize);
    }
}

/// From now on completed buffers wait for [`take_completed`] (`on`), or are drained where
/// they complete (`off`: before the control thread runs and from the exit handler on).
pub fn hand_off(on: bool) {
    HANDOFF.store(on, Ordering::SeqCst);
}

/// Queues a completed buffer for the control thread; gives it back when nobody is waiting
/// for buffers, for the caller to drain itself.
pub fn complete(done: Completed) -> Option<Completed> {
    STATS.completed.fetch_add(1, Ordering::Relaxed);
    if !HANDOFF.load(Ordering::SeqCst) {
        return Some(done);
    }
    lock(&QUEUE).push(done);
    QUEUED.notify_one();
    None
}

/// Waits up to `timeout` for a completed buffer.
pub fn wait(timeout: Duration) {
    let queue = lock(&QUEUE);
    if queue.is_empty() {
        let _ = QUEUED.wait_timeout(queue, timeout);
    }
}

/// Every queued buffer, oldest first.
pub fn take_completed() -> Vec<Completed> {
    std::mem::take(&mut *lock(&QUEUE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_back_zeroed_and_completions_queue_only_while_handed_off() {
        prefill();
        let buffer = take();
        assert!(!buffer.is_null());
        // SAFETY: a BUFFER_SIZE buffer from `take`.
        let bytes = unsafe { std::slice::from_raw_parts_mut(buffer, BUFFER_SIZE) };
        assert!(bytes.iter().all(|&b| b == 0), "a pool buffer is zeroed");
        bytes[0] = 7;
        bytes[BUFFER_SIZE - 1] = 9;
        // SAFETY: from `take`, no longer used.
        unsafe { give_back(buffer) };
        let again = take();
        // SAFETY: as above.
        let bytes = unsafe { std::slice::from_raw_parts(again, BUFFER_SIZE) };
        assert_eq!((bytes[0], bytes[BUFFER_SIZE - 1]), (0, 0), "a reused buffer is zeroed again");

        let done = Completed { buffer: again as usize, valid: 16, dropped: 0 };
        hand_off(false);
        assert_eq!(complete(done), Some(done), "nobody waits: drained by the caller");
        hand_off(true);
        assert_eq!(complete(done), None);
        wait(Duration::from_secs(5));
        assert_eq!(take_completed(), vec![done]);
        assert!(take_completed().is_empty());
        hand_off(false);
        // SAFETY: as above.
        unsafe { give_back(again) };
        assert!(STATS.line().contains("buffers requested"));
    }
}
