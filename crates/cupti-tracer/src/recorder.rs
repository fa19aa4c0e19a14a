//! Turning decoded CUPTI activities into trace records: the window filter, the check for
//! valid timestamps, and naming (kernel names read from CUPTI's pointers and demangled,
//! API names from `cuptiGetCallbackName`).

use crate::activity::Activity;
use crate::cbid;
use crate::demangle::Demangler;
use crate::format::domain;
use crate::window::Window;
use crate::writer::{api_key, TraceWriter};
use std::ffi::{c_char, CStr};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Decides what is kept and how it is named.
pub struct Recorder {
    /// The capture window.
    pub window: Window,
    demangler: Option<Demangler>,
    launch_only: AtomicBool,
}

impl Recorder {
    /// A recorder for `window`, demangling with `demangler` when there is one.
    pub fn new(window: Window, demangler: Option<Demangler>) -> Self {
        Self { window, demangler, launch_only: AtomicBool::new(false) }
    }

    /// Keeps only API calls of [`cbid`]'s launch set from now on (for a CUPTI that cannot
    /// switch single API functions and so delivers all of them).
    pub fn set_launch_only(&self, on: bool) {
        self.launch_only.store(on, Ordering::Relaxed);
    }

    /// Stores `activity` in `writer` if it has valid times inside the window. `api_name`
    /// names an API function from its (domain, cbid).
    ///
    /// # Safety
    /// A kernel's `name_ptr` must be 0 or point to a NUL-terminated string that outlives the
    /// call (CUPTI's names live as long as the process).
    pub unsafe fn record<W: Write>(
        &self,
        writer: &mut TraceWriter<W>,
        activity: Activity,
        api_name: impl Fn(u8, u32) -> Option<String>,
    ) {
        match activity {
            Activity::Kernel { mut kernel, name_ptr } => {
                if !self.keep(writer, kernel.start, kernel.end) {
                    return;
                }
                // SAFETY: guaranteed by the caller.
                let Some(name) = writer.name_id(name_ptr as u64, || unsafe { self.kernel_name(name_ptr) }) else {
                    return;
                };
                kernel.name = name;
                writer.kernel(&kernel);
            }
            Activity::Memcpy(copy) => {
                if self.keep(writer, copy.op.start, copy.op.end) {
                    writer.memcpy(&copy);
                }
            }
            Activity::Memset(set) => {
                if self.keep(writer, set.op.start, set.op.end) {
                    writer.memset(&set);
                }
            }
            Activity::Api(mut api) => {
                if self.launch_only.load(Ordering::Relaxed) && !cbid::is_launch(api.domain, api.cbid) {
                    return;
                }
                if !self.keep(writer, api.start, api.end) {
                    return;
                }
                let key = api_key(api.domain, api.cbid);
                let fallback = |d: u8, cbid: u32| {
                    let layer = if d == domain::DRIVER { "driver" } else { "runtime" };
                    format!("{layer} API cbid {cbid}")
                };
                let Some(name) = writer
                    .name_id(key, || api_name(api.domain, api.cbid).unwrap_or_else(|| fallback(api.domain, api.cbid)))
                else {
                    return;
                };
                api.name = name;
                writer.api(&api);
            }
            Activity::Other(_) => {}
        }
    }

    fn keep<W: Write>(&self, writer: &mut TraceWriter<W>, start: u64, end: u64) -> bool {
        if start == 0 || end < start {
            writer.untimed();
            return false;
        }
        self.window.contains(start)
    }

    /// # Safety
    /// As for [`Recorder::record`].
    unsafe fn kernel_name(&self, name_ptr: usize) -> String {
        if name_ptr == 0 {
            return "<unnamed kernel>".to_owned();
        }
        // SAFETY: guaranteed by the caller.
        let name = unsafe { CStr::from_ptr(name_ptr as *const c_char) };
        self.demangler.and_then(|d| d.demangle(name)).unwrap_or_else(|| name.to_string_lossy().into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{read_record, tag, Api, Header, Kernel, Memcpy, MemoryOp};

    fn count_tags(bytes: &[u8], wanted: u8) -> usize {
        let mut pos = crate::format::HEADER_LEN;
        let mut n = 0;
        while let Some((_, next)) = read_record(bytes, pos).unwrap() {
            n += usize::from(bytes[pos] == wanted);
            pos = next;
        }
        assert_eq!(pos, bytes.len(), "the trace ends with a whole record");
        n
    }

    #[test]
    fn keeps_timed_records_inside_the_window_and_names_them() {
        let recorder = Recorder::new(Window::new(1_000_000, 1, Some(1), false), None);
        let mut w = TraceWriter::new(Vec::new(), &Header { pid: 1, rank: -1, local_rank: -1, t0: 1_000_000 });
        let name = c"fused_rms_norm";
        let inside = 2_000_000;
        let kernel = |start: u64, end: u64| Activity::Kernel {
            kernel: Kernel { start, end, ..Kernel::default() },
            name_ptr: name.as_ptr() as usize,
        };
        let api =
            Activity::Api(Api { start: inside, end: inside + 5, cbid: 211, domain: domain::RUNTIME, ..Api::default() });
        let names =
            |d: u8, cbid: u32| (d == domain::RUNTIME && cbid == 211).then(|| "cudaLaunchKernel_v7000".to_owned());
        // SAFETY: `name` is a static C string.
        unsafe {
            recorder.record(&mut w, kernel(inside, inside + 10), names);
            recorder.record(&mut w, kernel(inside + 20, inside + 30), names);
            recorder.record(&mut w, kernel(500_000, 600_000), names); // before the window
            recorder.record(&mut w, kernel(3_000_000, 3_000_010), names); // after it
            recorder.record(&mut w, kernel(0, 0), names); // untimed
            recorder.record(&mut w, api, names);
            recorder.record(
                &mut w,
                Activity::Memcpy(Memcpy {
                    op: MemoryOp { start: inside, end: inside, ..MemoryOp::default() },
                    ..Memcpy::default()
                }),
                names,
            );
            recorder.record(&mut w, Activity::Other(9), names);
        }
        assert_eq!(w.records(), 4);
        let bytes = w.finish().unwrap();
        assert_eq!(count_tags(&bytes, tag::KERNEL), 2);
        assert_eq!(count_tags(&bytes, tag::STRING), 2);
        assert_eq!(count_tags(&bytes, tag::API), 1);
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.contains("fused_rms_norm") && text.contains("cudaLaunchKernel_v7000"));
        let untimed = u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().unwrap());
        assert_eq!(untimed, 1);
    }

    #[test]
    fn launch_only_drops_other_api_calls_before_they_are_named() {
        let recorder = Recorder::new(Window::new(0, 0, None, false), None);
        recorder.set_launch_only(true);
        let mut w = TraceWriter::new(Vec::new(), &Header { pid: 1, rank: -1, local_rank: -1, t0: 0 });
        let call = |cbid: u32, d: u8| Activity::Api(Api { start: 5, end: 6, cbid, domain: d, ..Api::default() });
        let names = |_: u8, cbid: u32| {
            assert_ne!(cbid, 17, "cudaGetDevice is dropped before naming");
            Some(format!("call {cbid}"))
        };
        // cudaGetDevice_v3020 = 17, cudaLaunchKernel_v7000 = 211 (runtime); cuLaunchKernel = 307 (driver).
        // SAFETY: no kernel records.
        unsafe {
            recorder.record(&mut w, call(17, domain::RUNTIME), names);
            recorder.record(&mut w, call(211, domain::RUNTIME), names);
            recorder.record(&mut w, call(307, domain::DRIVER), names);
            recorder.record(&mut w, call(17, domain::RUNTIME), names);
        }
        assert_eq!(w.records(), 2);
        recorder.set_launch_only(false);
        // SAFETY: as above.
        unsafe { recorder.record(&mut w, call(18, domain::RUNTIME), |_, _| None) };
        assert_eq!(w.records(), 3);
    }

    #[test]
    fn unknown_api_ids_and_null_kernel_names_get_readable_names() {
        let recorder = Recorder::new(Window::new(0, 0, None, false), None);
        let mut w = TraceWriter::new(Vec::new(), &Header { pid: 1, rank: -1, local_rank: -1, t0: 0 });
        let api = Activity::Api(Api { start: 5, end: 6, cbid: 4242, domain: domain::DRIVER, ..Api::default() });
        let null_kernel = Activity::Kernel { kernel: Kernel { start: 5, end: 6, ..Kernel::default() }, name_ptr: 0 };
        // SAFETY: a null name pointer is allowed.
        unsafe {
            recorder.record(&mut w, api, |_, _| None);
            recorder.record(&mut w, null_kernel, |_, _| None);
        }
        let text = String::from_utf8_lossy(&w.finish().unwrap()).into_owned();
        assert!(text.contains("driver API cbid 4242"), "{text}");
        assert!(text.contains("<unnamed kernel>"));
    }
}
