//! C++ name demangling through the host process's own `__cxa_demangle` (libstdc++), so
//! kernel names read as `at::native::...` rather than `_ZN2at6native...` without a
//! demangler compiled in. A process without libstdc++ keeps the mangled names.

use std::ffi::{c_char, c_int, c_void, CStr};

type CxaDemangle =
    unsafe extern "C" fn(mangled: *const c_char, out: *mut c_char, len: *mut usize, status: *mut c_int) -> *mut c_char;

/// `__cxa_demangle` from a library already loaded in the process, if any.
#[derive(Clone, Copy)]
pub struct Demangler(CxaDemangle);

impl Demangler {
    /// Looks `__cxa_demangle` up in the libraries already loaded (never loads one).
    pub fn find() -> Option<Self> {
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name has no preconditions.
        let mut symbol: *mut c_void = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__cxa_demangle".as_ptr()) };
        if symbol.is_null() {
            // SAFETY: RTLD_NOLOAD only returns a handle when libstdc++ is already loaded.
            let handle = unsafe { libc::dlopen(c"libstdc++.so.6".as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
            if !handle.is_null() {
                // SAFETY: a valid handle and a NUL-terminated name.
                symbol = unsafe { libc::dlsym(handle, c"__cxa_demangle".as_ptr()) };
            }
        }
        if symbol.is_null() {
            return None;
        }
        // SAFETY: `__cxa_demangle` has this signature in the Itanium C++ ABI.
        Some(Self(unsafe { std::mem::transmute::<*mut c_void, CxaDemangle>(symbol) }))
    }

    /// The demangled form of an Itanium-mangled `name` (`_Z...`); `None` for any other name.
    pub fn demangle(&self, name: &CStr) -> Option<String> {
        if !name.to_bytes().starts_with(b"_Z") {
            return None;
        }
        let mut status: c_int = -1;
        // SAFETY: null output buffer asks __cxa_demangle to malloc the result.
        let out = unsafe { (self.0)(name.as_ptr(), std::ptr::null_mut(), std::ptr::null_mut(), &mut status) };
        if out.is_null() {
            return None;
        }
        // SAFETY: on success `out` is a NUL-terminated malloc'd string we now own.
        let text = (status == 0).then(|| unsafe { CStr::from_ptr(out) }.to_string_lossy().into_owned());
        // SAFETY: allocated by __cxa_demangle with malloc.
        unsafe { libc::free(out.cast()) };
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangles_with_the_loaded_libstdcxx_and_leaves_plain_names() {
        // The test binary does not link libstdc++; load it the way a PyTorch process has it.
        // SAFETY: loading the system C++ runtime.
        let handle = unsafe { libc::dlopen(c"libstdc++.so.6".as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
        assert!(!handle.is_null(), "libstdc++.so.6 is needed for this test");
        let demangler = Demangler::find().expect("__cxa_demangle is visible once libstdc++ is loaded");
        // Expected text from `c++filt` (binutils 2.40) on the same mangled names.
        let name = c"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_";
        assert_eq!(
            demangler.demangle(name).as_deref(),
            Some("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)")
        );
        assert_eq!(demangler.demangle(c"_Z5gemv1PfS_i").as_deref(), Some("gemv1(float*, float*, int)"));
        assert_eq!(demangler.demangle(c"ampere_sgemm_128x64_nn"), None);
        assert_eq!(demangler.demangle(c"_Znot valid"), None);
    }
}
