//! The ROCm SMI entry points prof calls, resolved by name from the library loaded at run time
//! (never linked, so the binary starts on hosts without ROCm). Signatures follow ROCm/rocm_smi_lib
//! `include/rocm_smi/rocm_smi.h` at commit fb22d777; C enums passed by value (`rsmi_memory_type_t`,
//! `rsmi_clk_type_t`, `rsmi_temperature_metric_t`, `RSMI_POWER_TYPE`) are 32-bit there (their
//! largest members are `0xFFFFFFFF` or small), so they cross as `u32`.
//!
//! Every wrapper here is safe to call: it passes pointers only to memory it owns, of at least the
//! size the header gives, and reads returned C strings only up to a bound.

use super::frequencies::FrequencyBuffer;
use super::status::{self, Status};
use libloading::Library;
use std::ffi::{c_char, OsStr};

type InitFn = unsafe extern "C" fn(u64) -> Status;
type ShutDownFn = unsafe extern "C" fn() -> Status;
type CountFn = unsafe extern "C" fn(*mut u32) -> Status;
type NameFn = unsafe extern "C" fn(u32, *mut c_char, usize) -> Status;
type PercentFn = unsafe extern "C" fn(u32, *mut u32) -> Status;
type MemoryFn = unsafe extern "C" fn(u32, u32, *mut u64) -> Status;
type PowerFn = unsafe extern "C" fn(u32, *mut u64, *mut u32) -> Status;
type SocketPowerFn = unsafe extern "C" fn(u32, *mut u64) -> Status;
type SensorFn = unsafe extern "C" fn(u32, u32, *mut u64) -> Status;
type TemperatureFn = unsafe extern "C" fn(u32, u32, u32, *mut i64) -> Status;
type ClockFn = unsafe extern "C" fn(u32, u32, *mut FrequencyBuffer) -> Status;
type StatusStringFn = unsafe extern "C" fn(Status, *mut *const c_char) -> Status;
type VersionFn = unsafe extern "C" fn(*mut RawVersion) -> Status;

/// `rsmi_version_t`: three `uint32_t` and a `const char *build`.
#[repr(C)]
struct RawVersion {
    major: u32,
    minor: u32,
    patch: u32,
    build: *const c_char,
}

/// `RSMI_MEM_TYPE_VRAM`.
pub const MEM_TYPE_VRAM: u32 = 0;
/// `RSMI_CLK_TYPE_SYS` (the graphics / compute clock).
pub const CLK_TYPE_SYS: u32 = 0;
/// `RSMI_CLK_TYPE_MEM`.
pub const CLK_TYPE_MEM: u32 = 4;
/// `RSMI_TEMP_TYPE_EDGE`.
pub const TEMP_TYPE_EDGE: u32 = 0;
/// `RSMI_TEMP_TYPE_JUNCTION` (hotspot).
pub const TEMP_TYPE_JUNCTION: u32 = 1;
/// `RSMI_TEMP_CURRENT`.
pub const TEMP_CURRENT: u32 = 0;

/// Longest device name read (`rsmi_dev_name_get` cuts to the buffer and says so).
const NAME_BYTES: usize = 256;
/// Longest status or build string read from the library.
const TEXT_BYTES: usize = 1024;

/// The loaded library and its entry points. The function pointers stay valid while `_library`
/// is alive, which it is for as long as this value (it is dropped last).
pub struct RsmiApi {
    label: String,
    init: InitFn,
    shut_down: ShutDownFn,
    num_monitor_devices: CountFn,
    dev_name_get: NameFn,
    dev_busy_percent_get: PercentFn,
    dev_memory_busy_percent_get: PercentFn,
    dev_memory_total_get: MemoryFn,
    dev_memory_usage_get: MemoryFn,
    dev_power_cap_get: SensorFn,
    dev_temp_metric_get: TemperatureFn,
    dev_gpu_clk_freq_get: ClockFn,
    status_string: StatusStringFn,
    dev_power_get: Option<PowerFn>,
    dev_current_socket_power_get: Option<SocketPowerFn>,
    dev_power_ave_get: Option<SensorFn>,
    version_get: Option<VersionFn>,
    _library: Library,
}

/// Resolves `name` as a `T`; the message names the library and the symbol.
fn symbol<T: Copy>(library: &Library, label: &str, name: &str) -> Result<T, String> {
    let mut c_name = name.as_bytes().to_vec();
    c_name.push(0);
    // SAFETY: `T` is the function-pointer type the header declares for `name`.
    match unsafe { library.get::<T>(&c_name) } {
        Ok(found) => Ok(*found),
        Err(e) => Err(format!("ROCm SMI library {label} lacks the symbol `{name}`: {e}")),
    }
}

fn optional<T: Copy>(library: &Library, label: &str, name: &str) -> Option<T> {
    symbol(library, label, name).ok()
}

impl RsmiApi {
    /// Loads `library` and resolves every entry point prof needs. Power has three entry points
    /// across versions (`rsmi_dev_power_get`, `rsmi_dev_current_socket_power_get`, the deprecated
    /// `rsmi_dev_power_ave_get`), each optional; `rsmi_version_get` is optional too.
    pub fn load(library: &OsStr) -> Result<Self, String> {
        let label = library.to_string_lossy().into_owned();
        // SAFETY: loading runs the library's initialisers, as linking it would; nothing else runs.
        let lib = unsafe { Library::new(library) }
            .map_err(|e| format!("ROCm SMI library {label} could not be loaded: {e}"))?;
        Ok(Self {
            init: symbol(&lib, &label, "rsmi_init")?,
            shut_down: symbol(&lib, &label, "rsmi_shut_down")?,
            num_monitor_devices: symbol(&lib, &label, "rsmi_num_monitor_devices")?,
            dev_name_get: symbol(&lib, &label, "rsmi_dev_name_get")?,
            dev_busy_percent_get: symbol(&lib, &label, "rsmi_dev_busy_percent_get")?,
            dev_memory_busy_percent_get: symbol(&lib, &label, "rsmi_dev_memory_busy_percent_get")?,
            dev_memory_total_get: symbol(&lib, &label, "rsmi_dev_memory_total_get")?,
            dev_memory_usage_get: symbol(&lib, &label, "rsmi_dev_memory_usage_get")?,
            dev_power_cap_get: symbol(&lib, &label, "rsmi_dev_power_cap_get")?,
            dev_temp_metric_get: symbol(&lib, &label, "rsmi_dev_temp_metric_get")?,
            dev_gpu_clk_freq_get: symbol(&lib, &label, "rsmi_dev_gpu_clk_freq_get")?,
            status_string: symbol(&lib, &label, "rsmi_status_string")?,
            dev_power_get: optional(&lib, &label, "rsmi_dev_power_get"),
            dev_current_socket_power_get: optional(&lib, &label, "rsmi_dev_current_socket_power_get"),
            dev_power_ave_get: optional(&lib, &label, "rsmi_dev_power_ave_get"),
            version_get: optional(&lib, &label, "rsmi_version_get"),
            label,
            _library: lib,
        })
    }

    /// The library as it was asked for (a path or a soname).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// `rsmi_init(0)`: AMD GPUs only.
    pub fn init(&self) -> Result<(), Status> {
        // SAFETY: no pointer arguments.
        check(unsafe { (self.init)(0) }, ())
    }

    /// `rsmi_shut_down()`.
    pub fn shut_down(&self) -> Status {
        // SAFETY: no arguments; called once per successful `init`.
        unsafe { (self.shut_down)() }
    }

    /// `rsmi_num_monitor_devices`.
    pub fn device_count(&self) -> Result<u32, Status> {
        // SAFETY: the out-pointer is a live u32.
        out(|count| unsafe { (self.num_monitor_devices)(count) })
    }

    /// `rsmi_dev_name_get`; a name cut to the buffer (`RSMI_STATUS_INSUFFICIENT_SIZE`) is kept.
    pub fn name(&self, device: u32) -> Result<String, Status> {
        let mut buffer = [0u8; NAME_BYTES];
        // SAFETY: the buffer holds NAME_BYTES bytes and the library is told so.
        let status = unsafe { (self.dev_name_get)(device, buffer.as_mut_ptr().cast::<c_char>(), NAME_BYTES) };
        if status != status::SUCCESS && status != status::INSUFFICIENT_SIZE {
            return Err(status);
        }
        let end = buffer.iter().position(|&b| b == 0).unwrap_or(NAME_BYTES);
        Ok(String::from_utf8_lossy(&buffer[..end]).trim().to_owned())
    }

    /// `rsmi_dev_busy_percent_get`, percent.
    pub fn busy_percent(&self, device: u32) -> Result<u32, Status> {
        // SAFETY: the out-pointer is a live u32.
        out(|value| unsafe { (self.dev_busy_percent_get)(device, value) })
    }

    /// `rsmi_dev_memory_busy_percent_get`, percent.
    pub fn memory_busy_percent(&self, device: u32) -> Result<u32, Status> {
        // SAFETY: the out-pointer is a live u32.
        out(|value| unsafe { (self.dev_memory_busy_percent_get)(device, value) })
    }

    /// `rsmi_dev_memory_total_get(VRAM)`, bytes.
    pub fn vram_total(&self, device: u32) -> Result<u64, Status> {
        // SAFETY: the out-pointer is a live u64.
        out(|value| unsafe { (self.dev_memory_total_get)(device, MEM_TYPE_VRAM, value) })
    }

    /// `rsmi_dev_memory_usage_get(VRAM)`, bytes.
    pub fn vram_used(&self, device: u32) -> Result<u64, Status> {
        // SAFETY: the out-pointer is a live u64.
        out(|value| unsafe { (self.dev_memory_usage_get)(device, MEM_TYPE_VRAM, value) })
    }

    /// Power draw, microwatts: `rsmi_dev_power_get` (current or average, whichever the device
    /// has), else `rsmi_dev_current_socket_power_get`, else `rsmi_dev_power_ave_get(sensor 0)`;
    /// the last status when none answers, `NOT_SUPPORTED` when the library has none of them.
    pub fn power_microwatts(&self, device: u32) -> Result<u64, Status> {
        let mut last = status::NOT_SUPPORTED;
        if let Some(power_get) = self.dev_power_get {
            let (mut value, mut kind) = (0u64, u32::MAX);
            // SAFETY: both out-pointers are live.
            last = unsafe { power_get(device, &mut value, &mut kind) };
            if last == status::SUCCESS {
                return Ok(value);
            }
        }
        if let Some(socket_power) = self.dev_current_socket_power_get {
            // SAFETY: the out-pointer is a live u64.
            match out(|value| unsafe { socket_power(device, value) }) {
                Ok(value) => return Ok(value),
                Err(status) => last = status,
            }
        }
        match self.dev_power_ave_get {
            // SAFETY: the out-pointer is a live u64.
            Some(average) => out(|value| unsafe { average(device, 0, value) }),
            None => Err(last),
        }
    }

    /// `rsmi_dev_power_cap_get(sensor 0)`, microwatts.
    pub fn power_cap_microwatts(&self, device: u32) -> Result<u64, Status> {
        // SAFETY: the out-pointer is a live u64.
        out(|value| unsafe { (self.dev_power_cap_get)(device, 0, value) })
    }

    /// `rsmi_dev_temp_metric_get(sensor, RSMI_TEMP_CURRENT)`, millidegrees Celsius.
    pub fn temperature_millicelsius(&self, device: u32, sensor: u32) -> Result<i64, Status> {
        // SAFETY: the out-pointer is a live i64.
        out(|value| unsafe { (self.dev_temp_metric_get)(device, sensor, TEMP_CURRENT, value) })
    }

    /// `rsmi_dev_gpu_clk_freq_get(clock)` into a zeroed buffer larger than any layout.
    pub fn clock_frequencies(&self, device: u32, clock: u32) -> Result<FrequencyBuffer, Status> {
        let mut buffer = FrequencyBuffer::zeroed();
        // SAFETY: the buffer is larger than every published `rsmi_frequencies_t` and 8-byte aligned.
        let status = unsafe { (self.dev_gpu_clk_freq_get)(device, clock, &mut buffer) };
        check(status, buffer)
    }

    /// The library's `rsmi_status_string` text for `code`, when it gives one.
    pub fn status_text(&self, code: Status) -> Option<String> {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: `text` is a live pointer slot; the library points it at a static string.
        let status = unsafe { (self.status_string)(code, &mut text) };
        if status != status::SUCCESS {
            return None;
        }
        // SAFETY: non-null pointers from `rsmi_status_string` point at NUL-terminated strings.
        unsafe { bounded_c_string(text) }
    }

    /// `status N (library text)` for a failed call.
    pub fn describe(&self, code: Status) -> String {
        status::describe(code, self.status_text(code).as_deref())
    }

    /// `rsmi_version_get` as `major.minor.patch` and the build string, when the library has it.
    pub fn version(&self) -> Option<(String, Option<String>)> {
        let version_get = self.version_get?;
        let mut raw = RawVersion { major: 0, minor: 0, patch: 0, build: std::ptr::null() };
        // SAFETY: `raw` is a live `rsmi_version_t`.
        if unsafe { version_get(&mut raw) } != status::SUCCESS {
            return None;
        }
        // SAFETY: a non-null `build` points at a NUL-terminated string owned by the library.
        let build = unsafe { bounded_c_string(raw.build) }.filter(|b| !b.trim().is_empty());
        Some((format!("{}.{}.{}", raw.major, raw.minor, raw.patch), build))
    }
}

/// Calls `call` with a pointer to a zeroed `T` it fills; the value when it answers success.
fn out<T: Default>(call: impl FnOnce(*mut T) -> Status) -> Result<T, Status> {
    let mut value = T::default();
    let status = call(&mut value);
    check(status, value)
}

fn check<T>(status: Status, value: T) -> Result<T, Status> {
    if status == status::SUCCESS {
        Ok(value)
    } else {
        Err(status)
    }
}

/// The text at `text`, read up to its NUL or [`TEXT_BYTES`], whichever comes first.
///
/// # Safety
/// `text` is null or points at readable bytes up to a NUL or [`TEXT_BYTES`] long.
unsafe fn bounded_c_string(text: *const c_char) -> Option<String> {
    if text.is_null() {
        return None;
    }
    let mut bytes = Vec::new();
    for i in 0..TEXT_BYTES {
        // SAFETY: within the caller's guarantee: stops at the first NUL.
        let byte = unsafe { *text.add(i) } as u8;
        if byte == 0 {
            break;
        }
        bytes.push(byte);
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}
