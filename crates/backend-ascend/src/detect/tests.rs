use super::*;
use crate::test_fixtures::{fixture_path, INFO_24_1_0, TOOLKIT_INFO};
use crate::toolkit_info::info_path;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Every fake tool tree, written once before any test spawns one (a script still open for
/// writing in one thread while another forks would fail with "text file busy").
fn fakes() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("prof-ascend-detect-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let replay = format!("#!/bin/sh\ncat '{}'\n", fixture_path(INFO_24_1_0).display());
        script(&root.join("replay"), NPU_SMI, &replay);
        script(&root.join("garbage"), NPU_SMI, "#!/bin/sh\necho 'dcmi module initialize failed. ret is -8005'\n");
        script(&root.join("failing"), NPU_SMI, "#!/bin/sh\necho 'npu-smi: permission denied' >&2\nexit 3\n");
        script(&root.join("hang"), NPU_SMI, "#!/bin/sh\nsleep 30\n");
        let toolkit = root.join("toolkit");
        script(&toolkit.join("tools/profiler/bin"), MSPROF, "#!/bin/sh\nexit 0\n");
        let info = info_path(&toolkit);
        std::fs::create_dir_all(info.parent().unwrap()).unwrap();
        std::fs::copy(fixture_path(TOOLKIT_INFO), &info).unwrap();
        let broken = root.join("broken-toolkit");
        script(&broken.join("bin"), MSPROF, "#!/bin/sh\nexit 0\n");
        let info = info_path(&broken);
        std::fs::create_dir_all(info.parent().unwrap()).unwrap();
        std::fs::write(&info, "package_name=Ascend-cann-toolkit\n").unwrap();
        script(&root.join("bare-msprof"), MSPROF, "#!/bin/sh\nexit 0\n");
        std::fs::create_dir_all(root.join("dcmi")).unwrap();
        std::fs::write(root.join("dcmi").join(DCMI_LIBRARY), "").unwrap();
        root
    })
}

fn script(dir: &Path, name: &str, body: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn paths(npu_smi: &str, toolkit: &str) -> SearchPaths {
    let root = fakes();
    let mut paths = SearchPaths::with_toolkit_roots(vec![root.join(toolkit)]);
    paths.npu_smi_dirs = vec![root.join(npu_smi)];
    paths.dcmi_dirs = vec![root.join("no-dcmi")];
    paths.msprof_dirs.push(root.join(toolkit));
    paths
}

fn run(paths: &SearchPaths) -> Detection {
    detect("ascend", "Ascend", paths)
}

#[test]
fn replayed_npu_smi_and_toolkit() {
    let detection = run(&paths("replay", "toolkit"));
    assert!(detection.present);
    assert!(detection.problems.is_empty(), "{:?}", detection.problems);
    assert_eq!(detection.driver_version.as_deref(), Some("24.1.0"));
    assert_eq!(detection.devices.len(), 8);
    let first = &detection.devices[0];
    assert_eq!((first.index, first.name.as_str(), first.bus_id.as_deref()), (0, "910B", Some("0000:C1:00.0")));
    assert!(detection.devices.iter().all(|d| d.memory_total_mib == Some(32768)), "HBM, not Memory-Usage");
    let smi = detection.tool(NPU_SMI).unwrap();
    assert_eq!((smi.present, smi.version.as_deref()), (true, Some("24.1.0")));
    let msprof = detection.tool(MSPROF).unwrap();
    assert_eq!((msprof.present, msprof.version.as_deref()), (true, Some("8.0.T6")));
    assert!(msprof.path.as_ref().unwrap().ends_with("toolkit/tools/profiler/bin/msprof"));
    assert!(msprof.note.as_deref().unwrap().contains("ascend_toolkit_install.info"));
    assert!(!detection.tool(DCMI_LIBRARY).unwrap().present);
}

#[test]
fn garbage_becomes_a_problem_line() {
    let detection = run(&paths("garbage", "none"));
    assert!(detection.present, "npu-smi was found");
    assert!(detection.devices.is_empty());
    assert_eq!(detection.problems.len(), 1, "{:?}", detection.problems);
    let problem = &detection.problems[0];
    assert!(problem.starts_with("npu-smi info: unexpected output at line 1: not a table line"), "{problem}");
    assert!(problem.contains("-8005"), "{problem}");
    let msprof = detection.tool(MSPROF).unwrap();
    assert_eq!((msprof.present, msprof.install.as_str()), (false, TOOLKIT_INSTALL));
}

#[test]
fn failing_npu_smi_says_how_it_exited() {
    let detection = run(&paths("failing", "none"));
    assert_eq!(detection.problems, ["npu-smi info exited with status 3: npu-smi: permission denied"]);
    assert!(detection.tool(NPU_SMI).unwrap().note.is_some());
}

#[test]
fn a_hanging_npu_smi_is_stopped() {
    let mut paths = paths("hang", "none");
    paths.timeout = Duration::from_millis(300);
    let started = Instant::now();
    let detection = run(&paths);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(detection.problems.len(), 1, "{:?}", detection.problems);
    assert!(detection.problems[0].contains("ran past its 300ms limit"), "{:?}", detection.problems);
    assert!(detection.devices.is_empty());
}

#[test]
fn msprof_without_or_with_a_broken_install_info() {
    let detection = run(&paths("none", "bare-msprof"));
    let msprof = detection.tool(MSPROF).unwrap();
    assert_eq!((msprof.present, msprof.version.as_deref()), (true, None));
    assert!(msprof.note.as_deref().unwrap().contains("no version option"), "{msprof:?}");
    assert!(detection.problems.is_empty());

    let detection = run(&paths("none", "broken-toolkit"));
    assert_eq!(detection.tool(MSPROF).unwrap().version, None);
    assert_eq!(detection.problems.len(), 1);
    assert!(
        detection.problems[0].ends_with("ascend_toolkit_install.info: no `version=` line"),
        "{:?}",
        detection.problems
    );
}

#[test]
fn nothing_installed_and_dcmi_alone() {
    let detection = run(&paths("none", "none"));
    assert!(!detection.present);
    assert!(detection.devices.is_empty() && detection.problems.is_empty());
    let names: Vec<&str> = detection.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, [NPU_SMI, DCMI_LIBRARY, MSPROF]);
    assert!(detection.tools.iter().all(|t| !t.present && !t.install.is_empty()));
    assert_eq!(detection.tool(NPU_SMI).unwrap().install, DRIVER_INSTALL);

    let mut with_dcmi = paths("none", "none");
    with_dcmi.dcmi_dirs = vec![fakes().join("dcmi")];
    let detection = run(&with_dcmi);
    assert!(detection.present, "the DCMI library alone counts");
    let dcmi = detection.tool(DCMI_LIBRARY).unwrap();
    assert_eq!(dcmi.kind, ToolKind::Library);
    assert!(dcmi.present && dcmi.note.as_deref() == Some("found by file; not loaded during detection"));
}

#[test]
fn unhealthy_npus_are_reported() {
    let text = crate::test_fixtures::fixture(crate::test_fixtures::INFO_25_5_6).replacen("| OK ", "| Warning ", 2);
    let info = parse_info(&text).unwrap();
    let mut detection = Detection::new("ascend", "Ascend");
    apply_info(&mut detection, &info);
    assert_eq!(detection.devices.len(), 4);
    assert_eq!(
        detection.problems,
        ["npu-smi: NPU 4 (0000:01:00.0) health is Warning", "npu-smi: NPU 5 (0000:02:00.0) health is Warning"]
    );
}
