//! The few CUPTI functions the tracer calls, bound at run time from libcupti with
//! hand-written declarations (signatures from cupti_activity.h, cupti_callbacks.h and
//! cupti_result.h of CUDA 13.0, `CUPTI_API_VERSION 130001`).

use crate::error::TracerError;
use libloading::Library;
use std::ffi::{c_char, c_void, CStr, OsString};
use std::path::{Path, PathBuf};

/// `CUptiResult` (a C enum, 4 bytes).
pub type CuptiResult = u32;
/// `CUPTI_SUCCESS`.
pub const CUPTI_SUCCESS: CuptiResult = 0;
/// `CUPTI_ERROR_MAX_LIMIT_REACHED`: no more records in the buffer.
pub const CUPTI_ERROR_MAX_LIMIT_REACHED: CuptiResult = 12;
/// `CUPTI_ERROR_INVALID_KIND`: the next record is incomplete or invalid.
pub const CUPTI_ERROR_INVALID_KIND: CuptiResult = 21;
/// `CUPTI_ACTIVITY_FLAG_FLUSH_FORCED` (`1 << 0`).
pub const CUPTI_ACTIVITY_FLAG_FLUSH_FORCED: u32 = 1;

/// `CUpti_BuffersCallbackRequestFunc`.
pub type BufferRequested = unsafe extern "C" fn(buffer: *mut *mut u8, size: *mut usize, max_records: *mut usize);
/// `CUpti_BuffersCallbackCompleteFunc`.
pub type BufferCompleted =
    unsafe extern "C" fn(context: *mut c_void, stream_id: u32, buffer: *mut u8, size: usize, valid_size: usize);

type RegisterCallbacks = unsafe extern "C" fn(BufferRequested, BufferCompleted) -> CuptiResult;
type KindCall = unsafe extern "C" fn(kind: u32) -> CuptiResult;
type FlushAll = unsafe extern "C" fn(flag: u32) -> CuptiResult;
type NextRecord = unsafe extern "C" fn(buffer: *mut u8, valid: usize, record: *mut *mut c_void) -> CuptiResult;
type GetTimestamp = unsafe extern "C" fn(timestamp: *mut u64) -> CuptiResult;
type GetVersion = unsafe extern "C" fn(version: *mut u32) -> CuptiResult;
type ResultString = unsafe extern "C" fn(result: CuptiResult, text: *mut *const c_char) -> CuptiResult;
type CallbackName = unsafe extern "C" fn(domain: u32, cbid: u32, name: *mut *const c_char) -> CuptiResult;
type ApiSwitch = unsafe extern "C" fn(cbid: u32, enable: u8) -> CuptiResult;
/// `CUpti_CallbackFunc`: `(userdata, domain, cbid, cbdata)`.
pub type CallbackFunc = unsafe extern "C" fn(userdata: *mut c_void, domain: u32, cbid: u32, data: *const c_void);
type Subscribe =
    unsafe extern "C" fn(subscriber: *mut *mut c_void, callback: CallbackFunc, userdata: *mut c_void) -> CuptiResult;
type EnableCallback = unsafe extern "C" fn(enable: u32, subscriber: *mut c_void, domain: u32, cbid: u32) -> CuptiResult;
type EnableDomain = unsafe extern "C" fn(enable: u32, subscriber: *mut c_void, domain: u32) -> CuptiResult;
type DroppedRecords = unsafe extern "C" fn(context: *mut c_void, stream_id: u32, dropped: *mut usize) -> CuptiResult;
type SetAttribute = unsafe extern "C" fn(attribute: u32, size: *mut usize, value: *mut c_void) -> CuptiResult;

/// `CUpti_ActivityAttribute` values used here (cupti_activity.h, CUDA 13.0).
pub mod attribute {
    /// `CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE` (`size_t`): device memory per buffer for
    /// kernel, copy and set records.
    pub const DEVICE_BUFFER_SIZE: u32 = 0;
    /// `CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER` (`uint8_t`): the client hands CUPTI
    /// zeroed buffers, so CUPTI does not zero them itself on the thread that asked for one
    /// (the traced thread).
    pub const ZEROED_OUT_ACTIVITY_BUFFER: u32 = 5;
}

/// A loaded libcupti. The library stays loaded for the life of the process.
pub struct Cupti {
    _library: Library,
    /// Where it was loaded from (a path, or a name the dynamic loader resolved).
    pub origin: String,
    register_callbacks: RegisterCallbacks,
    enable: KindCall,
    disable: Option<KindCall>,
    flush_all: FlushAll,
    next_record: NextRecord,
    get_timestamp: GetTimestamp,
    get_version: Option<GetVersion>,
    result_string: ResultString,
    callback_name: Option<CallbackName>,
    dropped_records: Option<DroppedRecords>,
    enable_runtime_api: Option<ApiSwitch>,
    enable_driver_api: Option<ApiSwitch>,
    subscribe: Option<Subscribe>,
    enable_callback: Option<EnableCallback>,
    enable_domain: Option<EnableDomain>,
    set_attribute: Option<SetAttribute>,
}

/// `cuptiGetTimestamp`, copied out of [`Cupti`] for callbacks that have no `Cupti` at hand.
#[derive(Clone, Copy)]
pub struct Clock(GetTimestamp);

impl Clock {
    /// A CUPTI timestamp, ns; 0 when it fails.
    pub fn now(self) -> u64 {
        let mut ts = 0u64;
        // SAFETY: writes one u64.
        if unsafe { (self.0)(&mut ts) } == CUPTI_SUCCESS {
            ts
        } else {
            0
        }
    }
}

/// A callback subscription (`CUpti_SubscriberHandle`), kept for the life of the process.
#[derive(Debug, Clone, Copy)]
pub struct Subscriber(*mut c_void);
// SAFETY: the handle is an opaque token CUPTI accepts from any thread.
unsafe impl Send for Subscriber {}
// SAFETY: as above.
unsafe impl Sync for Subscriber {}

/// Where to look for libcupti when `PROF_CUPTI_LIBRARY` is not set, in order: the loader's
/// own search for each name, then the CUDA install directories.
pub fn candidates(cuda_home: Option<&Path>) -> Vec<OsString> {
    const NAMES: [&str; 3] = ["libcupti.so", "libcupti.so.13", "libcupti.so.12"];
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(home) = cuda_home {
        dirs.push(home.join("extras/CUPTI/lib64"));
        dirs.push(home.join("lib64"));
    }
    dirs.push(PathBuf::from("/usr/local/cuda/extras/CUPTI/lib64"));
    dirs.push(PathBuf::from("/usr/local/cuda/lib64"));
    let mut out: Vec<OsString> = NAMES.iter().map(OsString::from).collect();
    for dir in dirs {
        out.extend(NAMES.iter().map(|name| dir.join(name).into_os_string()));
    }
    out
}

impl Cupti {
    /// Loads `explicit` if given (and nothing else). Otherwise reuses a libcupti the process
    /// already loaded (PyTorch links one), so there is one CUPTI per process, or loads the
    /// first of [`candidates`].
    pub fn load(explicit: Option<&Path>, cuda_home: Option<&Path>) -> Result<Self, TracerError> {
        if let Some(path) = explicit {
            // SAFETY: loading runs libcupti's initialisers, which is what CUPTI expects.
            let library = unsafe { Library::new(path) }
                .map_err(|e| TracerError::Explicit { path: path.to_owned(), reason: e.to_string() })?;
            return Self::bind(library, path.display().to_string());
        }
        for name in ["libcupti.so.13", "libcupti.so.12", "libcupti.so"] {
            let flags = libc::RTLD_LAZY | libc::RTLD_NOLOAD;
            // SAFETY: RTLD_NOLOAD only returns a library that is already loaded and initialised.
            if let Ok(loaded) = unsafe { libloading::os::unix::Library::open(Some(name), flags) } {
                return Self::bind(loaded.into(), format!("{name} (already loaded)"));
            }
        }
        let tried = candidates(cuda_home);
        for candidate in &tried {
            // SAFETY: as above.
            if let Ok(library) = unsafe { Library::new(candidate) } {
                return Self::bind(library, candidate.to_string_lossy().into_owned());
            }
        }
        let tried = tried.iter().map(|c| c.to_string_lossy()).collect::<Vec<_>>().join(", ");
        Err(TracerError::NotFound { tried })
    }

    fn bind(library: Library, origin: String) -> Result<Self, TracerError> {
        fn required<T: Copy>(library: &Library, origin: &str, symbol: &'static str) -> Result<T, TracerError> {
            let mut name = symbol.as_bytes().to_vec();
            name.push(0);
            // SAFETY: T is the function-pointer type declared in CUPTI's headers for `symbol`.
            unsafe { library.get::<T>(&name) }.map(|s| *s).map_err(|e| TracerError::Symbol {
                library: origin.to_owned(),
                symbol,
                reason: e.to_string(),
            })
        }
        fn optional<T: Copy>(library: &Library, symbol: &str) -> Option<T> {
            let mut name = symbol.as_bytes().to_vec();
            name.push(0);
            // SAFETY: as for `required`.
            unsafe { library.get::<T>(&name) }.ok().map(|s| *s)
        }
        let lib = &library;
        Ok(Self {
            register_callbacks: required(lib, &origin, "cuptiActivityRegisterCallbacks")?,
            enable: required(lib, &origin, "cuptiActivityEnable")?,
            disable: optional(lib, "cuptiActivityDisable"),
            flush_all: required(lib, &origin, "cuptiActivityFlushAll")?,
            next_record: required(lib, &origin, "cuptiActivityGetNextRecord")?,
            get_timestamp: required(lib, &origin, "cuptiGetTimestamp")?,
            get_version: optional(lib, "cuptiGetVersion"),
            result_string: required(lib, &origin, "cuptiGetResultString")?,
            callback_name: optional(lib, "cuptiGetCallbackName"),
            dropped_records: optional(lib, "cuptiActivityGetNumDroppedRecords"),
            enable_runtime_api: optional(lib, "cuptiActivityEnableRuntimeApi"),
            enable_driver_api: optional(lib, "cuptiActivityEnableDriverApi"),
            subscribe: optional(lib, "cuptiSubscribe"),
            enable_callback: optional(lib, "cuptiEnableCallback"),
            enable_domain: optional(lib, "cuptiEnableDomain"),
            set_attribute: optional(lib, "cuptiActivitySetAttribute"),
            origin,
            _library: library,
        })
    }

    /// `cuptiGetVersion`: the library's `CUPTI_API_VERSION`, when it says.
    pub fn api_version(&self) -> Option<u32> {
        let get = self.get_version?;
        let mut version = 0u32;
        // SAFETY: cuptiGetVersion writes one uint32_t.
        (unsafe { get(&mut version) } == CUPTI_SUCCESS).then_some(version)
    }

    /// Refuses a libcupti whose record layouts the decoder was not written for (see
    /// [`crate::activity::known_api_version`]).
    pub fn check_version(&self) -> Result<(), TracerError> {
        match self.api_version() {
            Some(version) if !crate::activity::known_api_version(version) => {
                Err(TracerError::UnknownVersion { library: self.origin.clone(), version })
            }
            _ => Ok(()),
        }
    }

    fn check(&self, call: &'static str, code: CuptiResult) -> Result<(), TracerError> {
        if code == CUPTI_SUCCESS {
            return Ok(());
        }
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: cuptiGetResultString writes a static string pointer or leaves it null.
        let found = unsafe { (self.result_string)(code, &mut text) } == CUPTI_SUCCESS && !text.is_null();
        // SAFETY: CUPTI returned a NUL-terminated static string.
        let message =
            if found { unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned() } else { String::new() };
        Err(TracerError::Call { call, code, message })
    }

    /// `cuptiActivityRegisterCallbacks`.
    pub fn register_callbacks(
        &self,
        requested: BufferRequested,
        completed: BufferCompleted,
    ) -> Result<(), TracerError> {
        // SAFETY: both are valid `extern "C"` functions with CUPTI's callback signatures.
        self.check("cuptiActivityRegisterCallbacks", unsafe { (self.register_callbacks)(requested, completed) })
    }

    /// `cuptiActivityEnable(kind)`.
    pub fn enable(&self, kind: u32) -> Result<(), TracerError> {
        // SAFETY: plain value argument.
        self.check("cuptiActivityEnable", unsafe { (self.enable)(kind) })
    }

    /// `cuptiActivityDisable(kind)`, when the library has it.
    pub fn disable(&self, kind: u32) {
        if let Some(disable) = self.disable {
            // SAFETY: plain value argument.
            unsafe { disable(kind) };
        }
    }

    /// True when this CUPTI can record single API functions (`cuptiActivityEnableRuntimeApi`
    /// and `cuptiActivityEnableDriverApi`, both declared in CUDA 13.0's cupti_activity.h).
    pub fn has_api_filter(&self) -> bool {
        self.enable_runtime_api.is_some() && self.enable_driver_api.is_some()
    }

    /// `cuptiActivityEnable{Runtime,Driver}Api(cbid, on)` for `api_domain` (a
    /// [`crate::format::domain`] value).
    pub fn enable_api(&self, api_domain: u8, cbid: u32, on: bool) -> Result<(), TracerError> {
        let (switch, call) = match api_domain {
            crate::format::domain::RUNTIME => (self.enable_runtime_api, "cuptiActivityEnableRuntimeApi"),
            _ => (self.enable_driver_api, "cuptiActivityEnableDriverApi"),
        };
        let switch = switch.ok_or_else(|| self.missing(call))?;
        // SAFETY: plain value arguments.
        self.check(call, unsafe { switch(cbid, u8::from(on)) })
    }

    /// `cuptiActivitySetAttribute(attribute, sizeof value, &value)` for a `uint8_t` or
    /// `size_t` attribute (`value` holds its bytes).
    pub fn set_attribute(&self, attribute: u32, value: &mut [u8]) -> Result<(), TracerError> {
        let set = self.set_attribute.ok_or_else(|| self.missing("cuptiActivitySetAttribute"))?;
        let mut size = value.len();
        // SAFETY: CUPTI reads `size` bytes of `value`, the size its attribute expects.
        self.check("cuptiActivitySetAttribute", unsafe { set(attribute, &mut size, value.as_mut_ptr().cast()) })
    }

    /// `cuptiActivityFlushAll(flag)`; delivers buffers through the completion callback.
    pub fn flush_all(&self, flag: u32) -> Result<(), TracerError> {
        // SAFETY: plain value argument; callbacks were registered before any flush.
        self.check("cuptiActivityFlushAll", unsafe { (self.flush_all)(flag) })
    }

    /// `cuptiGetTimestamp`, or 0 when it fails.
    pub fn timestamp(&self) -> u64 {
        self.clock().now()
    }

    /// The timestamp function, to keep.
    pub fn clock(&self) -> Clock {
        Clock(self.get_timestamp)
    }

    /// `cuptiActivityGetNextRecord`: advances `record` (null for the first) within `buffer`.
    ///
    /// # Safety
    /// `buffer` must be a completed CUPTI activity buffer with `valid` valid bytes, and
    /// `record` null or a record previously returned for the same buffer.
    pub unsafe fn next_record(&self, buffer: *mut u8, valid: usize, record: &mut *mut c_void) -> CuptiResult {
        // SAFETY: guaranteed by the caller.
        unsafe { (self.next_record)(buffer, valid, record) }
    }

    /// `cuptiGetCallbackName(domain, cbid)`, when the library has it and knows the id.
    pub fn callback_name(&self, domain: u32, cbid: u32) -> Option<String> {
        let lookup = self.callback_name?;
        let mut name: *const c_char = std::ptr::null();
        // SAFETY: writes a static string pointer or leaves it null.
        if unsafe { lookup(domain, cbid, &mut name) } != CUPTI_SUCCESS || name.is_null() {
            return None;
        }
        // SAFETY: CUPTI returned a NUL-terminated static string.
        Some(unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned())
    }

    fn missing(&self, symbol: &'static str) -> TracerError {
        TracerError::Symbol { library: self.origin.clone(), symbol, reason: "not exported".into() }
    }

    /// `cuptiSubscribe(&handle, callback, NULL)`: one subscriber per process (CUPTI refuses a
    /// second, for example while `torch.profiler` records).
    pub fn subscribe(&self, callback: CallbackFunc) -> Result<Subscriber, TracerError> {
        let subscribe = self.subscribe.ok_or_else(|| self.missing("cuptiSubscribe"))?;
        let mut handle: *mut c_void = std::ptr::null_mut();
        // SAFETY: writes one handle; `callback` has CUPTI's callback signature.
        self.check("cuptiSubscribe", unsafe { subscribe(&mut handle, callback, std::ptr::null_mut()) })?;
        Ok(Subscriber(handle))
    }

    /// `cuptiEnableCallback(on, subscriber, domain, cbid)`.
    pub fn enable_callback(&self, subscriber: Subscriber, domain: u32, cbid: u32, on: bool) -> Result<(), TracerError> {
        let enable = self.enable_callback.ok_or_else(|| self.missing("cuptiEnableCallback"))?;
        // SAFETY: plain values and a handle from `subscribe`.
        self.check("cuptiEnableCallback", unsafe { enable(u32::from(on), subscriber.0, domain, cbid) })
    }

    /// `cuptiEnableDomain(on, subscriber, domain)`.
    pub fn enable_domain(&self, subscriber: Subscriber, domain: u32, on: bool) -> Result<(), TracerError> {
        let enable = self.enable_domain.ok_or_else(|| self.missing("cuptiEnableDomain"))?;
        // SAFETY: plain values and a handle from `subscribe`.
        self.check("cuptiEnableDomain", unsafe { enable(u32::from(on), subscriber.0, domain) })
    }

    /// The file libcupti was loaded from, as the dynamic loader reports it (for
    /// `NVTX_INJECTION64_PATH`, which must name the same library).
    pub fn loaded_path(&self) -> Option<PathBuf> {
        // SAFETY: Dl_info is plain data; all zeroes is a valid value.
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        let address = self.get_timestamp as *const c_void;
        // SAFETY: dladdr only reads the address and fills `info`.
        if unsafe { libc::dladdr(address, &mut info) } == 0 || info.dli_fname.is_null() {
            return None;
        }
        // SAFETY: dli_fname is a NUL-terminated path owned by the loader.
        let path = unsafe { CStr::from_ptr(info.dli_fname) }.to_string_lossy().into_owned();
        Some(PathBuf::from(path))
    }

    /// `cuptiActivityGetNumDroppedRecords(NULL, stream_id)`, 0 when unknown.
    pub fn dropped_records(&self, stream_id: u32) -> u64 {
        let Some(count) = self.dropped_records else { return 0 };
        let mut dropped = 0usize;
        // SAFETY: a null context is what CUPTI passes to completion callbacks since CUDA 6.
        if unsafe { count(std::ptr::null_mut(), stream_id, &mut dropped) } == CUPTI_SUCCESS {
            dropped as u64
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_order_is_loader_names_then_cuda_dirs() {
        let list = candidates(Some(Path::new("/opt/cuda-13")));
        let list: Vec<String> = list.iter().map(|c| c.to_string_lossy().into_owned()).collect();
        assert_eq!(&list[..3], ["libcupti.so", "libcupti.so.13", "libcupti.so.12"]);
        assert_eq!(list[3], "/opt/cuda-13/extras/CUPTI/lib64/libcupti.so");
        assert_eq!(list[6], "/opt/cuda-13/lib64/libcupti.so");
        assert_eq!(list[9], "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so");
        assert_eq!(list[12], "/usr/local/cuda/lib64/libcupti.so");
        assert_eq!(list.len(), 15);
    }

    #[test]
    fn an_explicit_missing_library_is_reported_with_its_path() {
        let err = Cupti::load(Some(Path::new("/nonexistent/libcupti.so")), None).err().expect("must fail");
        let text = err.to_string();
        assert!(text.starts_with("cannot load PROF_CUPTI_LIBRARY=/nonexistent/libcupti.so"), "{text}");
    }
}
