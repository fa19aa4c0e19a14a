//! nsys exports read gzipped ([`super::gunzip`]).

use super::*;
use crate::test_fixtures::Scratch;
use prof_core::OpKind;
use std::io::Write;

/// `bytes` gzipped.
fn gzipped(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// `tests/fixtures/nvidia/nsys/sqlite/<name>`.
fn export_fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/nvidia/nsys/sqlite").join(name)
}

/// Every op as text, in order.
fn ops_text(t: &Timeline) -> Vec<String> {
    t.ops
        .iter()
        .map(|op| format!("{:?} {} {} {} {}", op.kind(), t.name(op.name()), op.stream(), { op.start_ns }, op.dur_ns()))
        .collect()
}

/// The copies of `<stem>.gz` this process unzipped still in the temporary directory (other
/// tests unzip files of other names at the same time).
fn copies_left(stem: &str) -> usize {
    let prefix = format!("{}{}-", gunzip::COPY_PREFIX, std::process::id());
    let suffix = format!("-{stem}");
    let names = std::fs::read_dir(std::env::temp_dir()).unwrap().flatten().map(|e| e.file_name());
    names.filter(|n| n.to_string_lossy().starts_with(&prefix) && n.to_string_lossy().ends_with(&suffix)).count()
}

#[test]
fn a_gzipped_export_loads_as_the_export_does_and_leaves_no_copy() {
    let scratch = Scratch::new("gzip");
    let plain = export_fixture("learncuda_rtx4060-laptop_nsys2024.6.2_report1.sqlite");
    let gz = scratch.file("report1.sqlite.gz", &gzipped(&std::fs::read(&plain).unwrap()));
    assert!(is_gzipped_nsys_export(&gz) && !is_nsys_export(&gz));
    let (whole, unzipped) = (load(&plain).unwrap(), load(&gz).unwrap());
    assert_eq!(ops_text(&unzipped), ops_text(&whole));
    assert_eq!(unzipped.host.len(), whole.host.len());
    assert_eq!(unzipped.source, gz.display().to_string());
    let families = Families::builtin();
    let mut folded = summarize_device_ops(&gz, &families).unwrap();
    assert_eq!(folded.source, gz.display().to_string());
    folded.source = plain.display().to_string();
    assert_eq!(folded, summarize_device_ops(&plain, &families).unwrap());
    assert_eq!(copies_left("report1.sqlite"), 0, "the unzipped copies are removed");
}

/// The H100 decode window as stored (gzipped): python sqlite3 on the unzipped file gives
/// 27,829 kernels, 793 copies and 10 sets, 60,967,671 ns in all (tests/fixtures/nvidia/SOURCES.md).
#[test]
fn the_stored_h100_window_reads_gzipped() {
    let gz = export_fixture("h100-decode-window_nsys2025.3.2_schema3.20.3.sqlite.gz");
    let t = load(&gz).unwrap();
    let count = |kind: OpKind| t.ops.iter().filter(|o| o.kind() == kind).count();
    assert_eq!((count(OpKind::Kernel), count(OpKind::Memcpy), count(OpKind::Memset)), (27_829, 793, 10));
    assert_eq!(t.ops.iter().map(|o| o.dur_ns()).sum::<u64>(), 60_967_671);
}

#[test]
fn a_cut_or_foreign_gzip_is_an_error_naming_it() {
    let scratch = Scratch::new("gzip-bad");
    let plain = export_fixture("learncuda_rtx4060-laptop_nsys2024.6.2_report1.sqlite");
    let whole = gzipped(&std::fs::read(&plain).unwrap());
    // Cut short: still recognised by its head, and the error says what happened to it.
    let cut = scratch.file("cut.sqlite.gz", &whole[..whole.len() / 2]);
    assert!(is_gzipped_nsys_export(&cut));
    let error = load(&cut).unwrap_err().to_string();
    assert!(error.contains("cut.sqlite.gz") && error.contains("cut short or corrupt"), "{error}");
    // Another SQLite database, or a JSON, under gzip: not an nsys export.
    let other = scratch.0.join("other.sqlite");
    rusqlite::Connection::open(&other).unwrap().execute_batch("CREATE TABLE t (x INTEGER);").unwrap();
    let other = scratch.file("other.sqlite.gz", &gzipped(&std::fs::read(&other).unwrap()));
    let json = scratch.file("trace.json.gz", &gzipped(b"{\"traceEvents\": []}"));
    assert!(!is_gzipped_nsys_export(&other) && !is_gzipped_nsys_export(&json));
    // Read anyway (the registry would not): the unzipped copy is checked too.
    let error = gunzip::read_unzipped(&other, load).unwrap_err().to_string();
    assert!(error.contains("other.sqlite.gz") && error.contains("not an nsys export"), "{error}");
    assert_eq!(copies_left("cut.sqlite") + copies_left("other.sqlite"), 0);
}

#[test]
fn a_copy_left_by_a_killed_reader_is_removed_by_the_next_unzip() {
    let scratch = Scratch::new("gzip-orphan");
    let plain = export_fixture("learncuda_rtx4060-laptop_nsys2024.6.2_report1.sqlite");
    let gz = scratch.file("orphan_case.sqlite.gz", &gzipped(&std::fs::read(&plain).unwrap()));
    let dir = std::env::temp_dir();
    // A process that has exited (its id is not reused within the test), and this one.
    let mut child = std::process::Command::new("true").spawn().expect("`true` runs");
    let gone = child.id();
    child.wait().expect("exits");
    let orphan = dir.join(format!("{}{gone}-0-orphan_case.sqlite", gunzip::COPY_PREFIX));
    let mine = dir.join(format!("{}{}-999-orphan_case.sqlite", gunzip::COPY_PREFIX, std::process::id()));
    let other = dir.join(format!("prof-{gone}-0-orphan_case.sqlite"));
    // A copy of a process this /proc does not show but that holds it locked (a reader in
    // another container sharing the temporary directory).
    let held = dir.join(format!("{}{gone}-1-orphan_case.sqlite", gunzip::COPY_PREFIX));
    for path in [&orphan, &mine, &other, &held] {
        std::fs::write(path, b"left behind").unwrap();
    }
    let holder = std::fs::File::open(&held).unwrap();
    // SAFETY: flock on a descriptor `holder` owns.
    assert_eq!(unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&holder), libc::LOCK_SH) }, 0);
    // What the first unzip of a process does (in this test process, another test may have
    // made that one).
    gunzip::remove_orphans(&dir);
    assert!(!orphan.exists(), "the copy of a process that is gone is removed");
    assert!(mine.exists() && other.exists(), "a live process's copy and a file not named as a copy are kept");
    assert!(held.exists(), "a copy held locked is kept");
    // And an unzip still reads and removes its own copy (the held one stays held through it).
    assert_eq!(load(&gz).unwrap().ops.len(), load(&plain).unwrap().ops.len());
    drop(holder);
    for path in [&mine, &other, &held] {
        std::fs::remove_file(path).unwrap();
    }
}
