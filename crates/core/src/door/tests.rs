use super::{Certainty, Loaded};
use crate::testing::TestVendor as FakeVendor;
use crate::{Families, Registry};
use std::path::PathBuf;

fn registry() -> Registry {
    Registry::new(vec![
        Box::new(FakeVendor("A", vec![("a-trace", ".json", Certainty::Name), ("a-db", ".db", Certainty::Content)])),
        Box::new(FakeVendor(
            "B",
            vec![("b-trace", ".trace.json", Certainty::Signature), ("b-db", ".db", Certainty::Content)],
        )),
    ])
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prof-door-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn kernel_of(loaded: Loaded) -> String {
    match loaded {
        Loaded::Timeline(t) => t.name(t.ops[0].name()).to_owned(),
        _ => panic!("a timeline"),
    }
}

#[test]
fn the_surest_reader_wins_and_ties_go_to_registry_order() {
    let dir = scratch("surest");
    let registry = registry();
    let families = Families::builtin();
    let trace = dir.join("run.trace.json");
    std::fs::write(&trace, "{}").unwrap();
    let (loaded, format) = registry.load(&trace, &families).unwrap();
    assert_eq!((format.vendor, format.name, format.recognition.certainty), ("B", "b-trace", Certainty::Signature));
    assert_eq!(kernel_of(loaded), "b-trace");
    let plain = dir.join("run.json");
    std::fs::write(&plain, "{}").unwrap();
    assert_eq!(registry.recognize(&plain).unwrap().name, "a-trace");
    let db = dir.join("x.db");
    std::fs::write(&db, "").unwrap();
    let format = registry.recognize(&db).unwrap();
    assert_eq!((format.vendor, format.name, format.recognition.reason.as_str()), ("A", "a-db", "ends in .db"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_directory_with_one_artifact_is_read_as_it_and_several_are_refused() {
    let dir = scratch("dir");
    let registry = registry();
    let families = Families::builtin();
    std::fs::write(dir.join("host_12.1700.pt.trace.json"), "{}").unwrap();
    std::fs::write(dir.join("notes.txt"), "hello").unwrap();
    std::fs::write(dir.join(".hidden.json"), "{}").unwrap();
    let (loaded, format) = registry.load(&dir, &families).unwrap();
    assert_eq!(format.inner.as_deref(), Some(dir.join("host_12.1700.pt.trace.json").as_path()));
    assert!(format.recognition.reason.starts_with("the only artifact in the directory: "), "{format:?}");
    assert_eq!(kernel_of(loaded), "b-trace");
    std::fs::write(dir.join("host_12.1800.pt.trace.json"), "{}").unwrap();
    let error = registry.load(&dir, &families).err().unwrap().to_string();
    assert!(error.contains("holds 2 artifacts and no rank numbers to tell them apart"), "{error}");
    assert!(error.contains("host_12.1700.pt.trace.json (b-trace), host_12.1800.pt.trace.json (b-trace)"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unknown_path_is_described_with_what_each_backend_reads() {
    let dir = scratch("unknown");
    let registry = registry();
    let path = dir.join("data.csv");
    std::fs::write(&path, "Name,Calls\n").unwrap();
    let error = registry.recognize(&path).err().unwrap().to_string();
    assert!(
        error.contains("data.csv: not a format prof reads: it is a CSV-like text whose first line is `Name,Calls`"),
        "{error}"
    );
    assert!(error.ends_with("it reads:\n  prof: prof util CSV\n  A: a-trace, a-db\n  B: b-trace, b-db"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_tensorboard_log_directory_reads_its_latest_profile_run() {
    let dir = scratch("logdir");
    let registry = registry();
    let runs = dir.join("plugins/profile");
    for (run, file) in [("2026_12_06_09_00_00", "old.trace.json"), ("2026_12_06_22_00_00", "new.trace.json")] {
        std::fs::create_dir_all(runs.join(run)).unwrap();
        std::fs::write(runs.join(run).join(file), "{}").unwrap();
    }
    let (_, format) = registry.load(&dir, &Families::builtin()).unwrap();
    let read = runs.join("2026_12_06_22_00_00/new.trace.json");
    assert_eq!(format.inner.as_deref(), Some(read.as_path()));
    let reason = &format.recognition.reason;
    assert!(
        reason.starts_with("a TensorBoard log directory, the latest of 2 runs (plugins/profile/2026_12_06_22_00_00): the only artifact"),
        "{reason}"
    );
    // A log directory whose runs hold nothing prof reads says so, naming the run.
    let empty = scratch("logdir-empty");
    std::fs::create_dir_all(empty.join("plugins/profile/2026_01_01_00_00_00")).unwrap();
    let err = registry.recognize(&empty).unwrap_err().to_string();
    assert!(err.contains("2026_01_01_00_00_00") && err.contains("not a format prof reads"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&empty).unwrap();
}
