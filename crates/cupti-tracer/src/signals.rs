//! The tracer's signal handlers: each only sets a flag the control thread reads.
//!
//! - SIGUSR1 (`PROF_CUPTI_SIGNAL`): opens or closes the capture window.
//! - SIGUSR2 (`PROF_CUPTI_API_TOGGLE=1`): pauses or resumes the API records, so a benchmark
//!   can compare steps with and without them inside one process (processes of one mode
//!   differed by up to 24 % on the H200 host, more than the cost being measured).

use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, Ordering};

static WINDOW: AtomicBool = AtomicBool::new(false);
static API: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigusr1(_: c_int) {
    WINDOW.store(true, Ordering::SeqCst);
}

extern "C" fn on_sigusr2(_: c_int) {
    API.store(true, Ordering::SeqCst);
}

fn install(signal: c_int, handler: extern "C" fn(c_int)) -> bool {
    // SAFETY: a zeroed sigaction is valid; the handlers only store an atomic, which is
    // async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(signal, &action, std::ptr::null_mut()) == 0
    }
}

/// Installs the SIGUSR1 handler; false when the system refused.
pub fn install_window() -> bool {
    install(libc::SIGUSR1, on_sigusr1)
}

/// Installs the SIGUSR2 handler; false when the system refused.
pub fn install_api_toggle() -> bool {
    install(libc::SIGUSR2, on_sigusr2)
}

/// True once per SIGUSR1 received since the last call.
pub fn window_signalled() -> bool {
    WINDOW.swap(false, Ordering::SeqCst)
}

/// True once per SIGUSR2 received since the last call.
pub fn api_toggle_signalled() -> bool {
    API.swap(false, Ordering::SeqCst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_sets_its_flag_once() {
        assert!(install_api_toggle());
        assert!(!api_toggle_signalled());
        // SAFETY: raising a signal whose handler is installed.
        unsafe { libc::raise(libc::SIGUSR2) };
        assert!(api_toggle_signalled());
        assert!(!api_toggle_signalled(), "read once");
        assert!(!window_signalled());
    }
}
