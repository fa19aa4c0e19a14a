//! Draining CUPTI's activity buffers into the trace file: by the control thread from the
//! queue [`buffers`] keeps, or in CUPTI's own completion callback when no control thread runs
//! (and at exit), the launch calls recorded by callbacks with them.

use super::{lock, warn, Tracer, TRACER};
use crate::activity;
use crate::buffers::{self, Completed, BUFFER_SIZE, STATS};
use crate::callbacks::launch_calls;
use crate::ffi::CUPTI_SUCCESS;
use crate::writer::TraceWriter;
use std::ffi::c_void;
use std::fs::File;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::time::Instant;

impl Tracer {
    /// Drains the queued buffers into `writer`. They are taken from the queue only while the
    /// writer is held, so the exit handler, which takes the writer, misses none.
    pub(super) fn drain_into(&self, writer: &mut TraceWriter<File>) {
        for done in buffers::take_completed() {
            // SAFETY: a buffer CUPTI completed with `valid` bytes, queued once.
            unsafe { self.drain(writer, done) };
        }
        for api in launch_calls::take_all() {
            // SAFETY: API records hold no name pointer.
            unsafe { self.recorder.record(writer, activity::Activity::Api(api), |d, c| self.api_name(d, c)) };
        }
    }

    /// The name CUPTI gives API function `cbid` of `domain`.
    pub(super) fn api_name(&self, domain: u8, cbid: u32) -> Option<String> {
        self.cupti.callback_name(u32::from(domain), cbid)
    }

    pub(super) fn write_out(&self, writer: &mut TraceWriter<File>) {
        if let Err(error) = writer.flush() {
            if !self.warned_io.swap(true, Ordering::SeqCst) {
                warn(&format!("cannot write {}: {error}; tracing stopped", self.output.display()));
            }
        }
    }

    /// Reads every record of a completed buffer into the writer and gives the buffer back.
    ///
    /// # Safety
    /// `done.buffer` must be a buffer CUPTI completed, with `done.valid` valid bytes, that
    /// nothing else drains.
    pub(super) unsafe fn drain(&self, writer: &mut TraceWriter<File>, done: Completed) {
        let started = Instant::now();
        let buffer = done.buffer as *mut u8;
        let valid = done.valid.min(BUFFER_SIZE);
        // SAFETY: CUPTI filled `valid` bytes of this buffer and has handed it back to us.
        let bytes = unsafe { std::slice::from_raw_parts(buffer, valid) };
        let mut record: *mut c_void = std::ptr::null_mut();
        loop {
            // SAFETY: `buffer` is a completed activity buffer; `record` is null or the previous record.
            let status = unsafe { self.cupti.next_record(buffer, valid, &mut record) };
            if status != CUPTI_SUCCESS || record.is_null() {
                break;
            }
            let offset = (record as usize).wrapping_sub(buffer as usize);
            let Some(rest) = bytes.get(offset..) else { break };
            if let Some(activity) = activity::decode(rest) {
                // SAFETY: kernel name pointers come from CUPTI and live as long as the process.
                unsafe { self.recorder.record(writer, activity, |d, c| self.api_name(d, c)) };
            }
        }
        writer.dropped(done.dropped);
        // SAFETY: drained; CUPTI no longer uses it.
        unsafe { buffers::give_back(buffer) };
        STATS.drained(started.elapsed());
    }
}

/// CUPTI hands a filled buffer back: queued for the control thread, or drained here when
/// no control thread is running.
pub(super) unsafe extern "C" fn buffer_completed(
    _: *mut c_void,
    stream_id: u32,
    buffer: *mut u8,
    _: usize,
    valid: usize,
) {
    if buffer.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let Some(tracer) = TRACER.get() else {
            // SAFETY: from `buffers::take`; CUPTI is done with it.
            unsafe { buffers::give_back(buffer) };
            return;
        };
        let done = Completed { buffer: buffer as usize, valid, dropped: tracer.cupti.dropped_records(stream_id) };
        if let Some(done) = buffers::complete(done) {
            match lock(&tracer.writer).as_mut() {
                // SAFETY: CUPTI completed this buffer with `valid` bytes.
                Some(writer) => unsafe { tracer.drain(writer, done) },
                // SAFETY: as above; the trace is already finished.
                None => unsafe { buffers::give_back(buffer) },
            }
        }
    }));
}
