//! `rsmi_status_t`: what each code means to prof. A metric whose call answers "not supported"
//! (or "not implemented", "no data") is unknown, never 0; any other failure also leaves the value
//! absent for that sample, and at start-up it becomes the error message, with the library's own text.

/// An `rsmi_status_t` value (a C enum whose largest member is `0xFFFFFFFF`, so 32 bits).
pub type Status = u32;

/// `RSMI_STATUS_SUCCESS`.
pub const SUCCESS: Status = 0;
/// `RSMI_STATUS_NOT_SUPPORTED`: the device or driver does not offer this value.
pub const NOT_SUPPORTED: Status = 2;
/// `RSMI_STATUS_NOT_YET_IMPLEMENTED`.
pub const NOT_YET_IMPLEMENTED: Status = 9;
/// `RSMI_STATUS_INSUFFICIENT_SIZE`: a string was cut to the buffer given.
pub const INSUFFICIENT_SIZE: Status = 11;
/// `RSMI_STATUS_NO_DATA`.
pub const NO_DATA: Status = 14;

/// The enumerator names of `rsmi_status_t` in ROCm/rocm_smi_lib `include/rocm_smi/rocm_smi.h`
/// (commit fb22d777), indexed by value; `0xFFFFFFFF` is `RSMI_STATUS_UNKNOWN_ERROR`.
const NAMES: [&str; 23] = [
    "RSMI_STATUS_SUCCESS",
    "RSMI_STATUS_INVALID_ARGS",
    "RSMI_STATUS_NOT_SUPPORTED",
    "RSMI_STATUS_FILE_ERROR",
    "RSMI_STATUS_PERMISSION",
    "RSMI_STATUS_OUT_OF_RESOURCES",
    "RSMI_STATUS_INTERNAL_EXCEPTION",
    "RSMI_STATUS_INPUT_OUT_OF_BOUNDS",
    "RSMI_STATUS_INIT_ERROR",
    "RSMI_STATUS_NOT_YET_IMPLEMENTED",
    "RSMI_STATUS_NOT_FOUND",
    "RSMI_STATUS_INSUFFICIENT_SIZE",
    "RSMI_STATUS_INTERRUPT",
    "RSMI_STATUS_UNEXPECTED_SIZE",
    "RSMI_STATUS_NO_DATA",
    "RSMI_STATUS_UNEXPECTED_DATA",
    "RSMI_STATUS_BUSY",
    "RSMI_STATUS_REFCOUNT_OVERFLOW",
    "RSMI_STATUS_SETTING_UNAVAILABLE",
    "RSMI_STATUS_AMDGPU_RESTART_ERR",
    "RSMI_STATUS_DRM_ERROR",
    "RSMI_STATUS_FAIL_LOAD_MODULE",
    "RSMI_STATUS_FAIL_LOAD_SYMBOL",
];

/// The header's name for `status`, or `None` for a code this header does not list.
pub fn name(status: Status) -> Option<&'static str> {
    if status == u32::MAX {
        return Some("RSMI_STATUS_UNKNOWN_ERROR");
    }
    NAMES.get(usize::try_from(status).ok()?).copied()
}

/// True when `status` says the value does not exist here (so it is reported as unknown).
pub fn is_absent(status: Status) -> bool {
    matches!(status, NOT_SUPPORTED | NOT_YET_IMPLEMENTED | NO_DATA)
}

/// `value` when the call succeeded, `None` for every other status.
pub fn reading<T>(status: Status, value: T) -> Option<T> {
    (status == SUCCESS).then_some(value)
}

/// `status 8 (RSMI_STATUS_INIT_ERROR: <the library's text>)`: the code, the header's name where
/// the library gave no text, and the library's `rsmi_status_string` where it did.
pub fn describe(status: Status, library_text: Option<&str>) -> String {
    match (library_text.map(str::trim).filter(|t| !t.is_empty()), name(status)) {
        (Some(text), _) => format!("status {status} ({text})"),
        (None, Some(name)) => format!("status {status} ({name})"),
        (None, None) => format!("status {status} (not an rsmi_status_t this version of prof knows)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_header_order() {
        assert_eq!(name(0), Some("RSMI_STATUS_SUCCESS"));
        assert_eq!(name(NOT_SUPPORTED), Some("RSMI_STATUS_NOT_SUPPORTED"));
        assert_eq!(name(8), Some("RSMI_STATUS_INIT_ERROR"));
        assert_eq!(name(NO_DATA), Some("RSMI_STATUS_NO_DATA"));
        assert_eq!(name(22), Some("RSMI_STATUS_FAIL_LOAD_SYMBOL"));
        assert_eq!(name(23), None);
        assert_eq!(name(0xFFFF_FFFF), Some("RSMI_STATUS_UNKNOWN_ERROR"));
    }

    #[test]
    fn not_supported_is_absent_never_zero() {
        assert!(is_absent(NOT_SUPPORTED) && is_absent(NOT_YET_IMPLEMENTED) && is_absent(NO_DATA));
        assert!(!is_absent(SUCCESS) && !is_absent(4), "a permission error is a failure, not an absence");
        assert_eq!(reading(SUCCESS, 0u32), Some(0), "a real 0 stays 0");
        assert_eq!(reading(NOT_SUPPORTED, 0u32), None);
        assert_eq!(reading(4, 17u64), None);
    }

    #[test]
    fn describe_prefers_the_library_text() {
        assert_eq!(describe(8, Some("RSMI_STATUS_INIT_ERROR: boom ")), "status 8 (RSMI_STATUS_INIT_ERROR: boom)");
        assert_eq!(describe(4, None), "status 4 (RSMI_STATUS_PERMISSION)");
        assert_eq!(describe(4, Some("  ")), "status 4 (RSMI_STATUS_PERMISSION)");
        assert_eq!(describe(99, None), "status 99 (not an rsmi_status_t this version of prof knows)");
    }
}
