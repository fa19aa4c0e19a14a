//! `InitializeInjection` on a machine without CUPTI: it must return success, print one
//! warning line and write no trace. Its own test binary, because it redirects fd 2 and sets
//! environment variables.

use std::io::Read;
use std::os::fd::AsRawFd;

#[test]
fn missing_libcupti_returns_success_and_warns_once() {
    let out_dir = std::env::temp_dir().join(format!("prof-cupti-inject-test-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    std::env::set_var("PROF_CUPTI_LIBRARY", "/nonexistent");
    std::env::set_var("PROF_CUPTI_OUT", &out_dir);

    let capture_path = out_dir.join("stderr.txt");
    let capture = std::fs::File::create(&capture_path).unwrap();
    // SAFETY: plain fd juggling; fd 2 is restored before any assertion can print.
    let saved = unsafe { libc::dup(2) };
    assert!(saved >= 0);
    unsafe { libc::dup2(capture.as_raw_fd(), 2) };
    let first = prof_cupti::InitializeInjection();
    let second = prof_cupti::InitializeInjection();
    unsafe {
        libc::dup2(saved, 2);
        libc::close(saved);
    }

    let mut stderr = String::new();
    std::fs::File::open(&capture_path).unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!((first, second), (1, 1));
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "exactly one warning, also after a second call: {stderr:?}");
    assert!(lines[0].starts_with("prof-cupti: warning: cannot load PROF_CUPTI_LIBRARY=/nonexistent"), "{stderr}");
    assert!(lines[0].ends_with("; tracing disabled"), "{stderr}");
    let traces: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".pcupti"))
        .collect();
    assert!(traces.is_empty(), "no trace file when tracing is disabled");
    let _ = std::fs::remove_dir_all(&out_dir);
}
