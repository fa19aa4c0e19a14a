use super::*;
use crate::test_fixtures::{fixture_path, CANN8_PIPE};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prof-msprof-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn with_fake_msprof(dir: &Path) -> MsprofTool {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join(MSPROF), "#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(bin.join(MSPROF), std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut paths = SearchPaths::with_toolkit_roots(Vec::new());
    paths.msprof_dirs = vec![bin];
    MsprofTool::with_paths(paths)
}

#[test]
fn application_is_one_shell_quoted_string() {
    let command: Vec<OsString> = ["python3", "-c", "print('a b'); x=$HOME"].iter().map(OsString::from).collect();
    assert_eq!(application_string(&command).unwrap(), r#"python3 -c 'print('\''a b'\''); x=$HOME'"#);
}

#[test]
fn plan_has_warmup_then_msprof_with_window_and_delay() {
    let dir = scratch("plan");
    let tool = with_fake_msprof(&dir);
    let request = CaptureRequest {
        command: vec!["./serve".into(), "--model".into(), "a b".into()],
        out_dir: dir.join("out"),
        warmup_runs: 1,
        skip: Duration::from_millis(1500),
        window: Duration::from_secs(10),
        range: prof_core::CaptureRange::Time,
        timeout: Duration::from_secs(60),
    };
    let plan = tool.plan(&request).unwrap();
    assert_eq!(plan.steps.len(), 2);
    assert_eq!(plan.steps[0].label, "warm-up");
    let argv: Vec<String> = plan.steps[1].argv.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let output = dir.join("out/msprof");
    assert_eq!(
        argv[1..],
        [
            "--application=./serve --model 'a b'".to_owned(),
            format!("--output={}", output.display()),
            "--ai-core=on".to_owned(),
            "--aic-metrics=PipeUtilization".to_owned(),
            "--task-time=on".to_owned(),
            "--delay=2".to_owned(),
            "--duration=10".to_owned(),
        ]
    );
    assert_eq!(plan.artifacts[0].path, output);
    std::fs::create_dir_all(output.join("PROF_000001_earlier")).unwrap();
    assert!(tool.plan(&request).unwrap_err().to_string().contains("already holds msprof profiles"));
    let bad = CaptureRequest { out_dir: dir.join("o;ut"), ..request };
    assert!(tool.plan(&bad).unwrap_err().to_string().contains("refuses output paths"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn missing_msprof_names_the_cann_install_line() {
    let mut paths = SearchPaths::with_toolkit_roots(Vec::new());
    paths.msprof_dirs = Vec::new();
    let err = MsprofTool::with_paths(paths).check().unwrap_err().to_string();
    assert_eq!(err, format!("msprof is not installed: {TOOLKIT_INSTALL}"));
}

#[test]
fn loads_the_recorded_prof_directory_and_names_raw_or_missing_ones() {
    let prof = fixture_path(CANN8_PIPE).parent().unwrap().to_owned();
    let timeline = load_output(&prof).unwrap();
    // op_summary_20260823165335.csv (python csv): 3 rows.
    assert_eq!(timeline.ops.len(), 3);
    assert_eq!(find_profiles(prof.parent().unwrap()), [prof]);

    let dir = scratch("raw");
    let err = load_output(&dir).unwrap_err().to_string();
    assert!(err.contains("msprof wrote no PROF_* directory"), "{err}");
    std::fs::create_dir_all(dir.join("PROF_000001_x/host")).unwrap();
    let err = load_output(&dir).unwrap_err().to_string();
    assert!(err.contains("neither mindstudio_profiler_output/ nor device_*/"), "{err}");
    std::fs::create_dir_all(dir.join("PROF_000001_x/device_0")).unwrap();
    std::fs::create_dir_all(dir.join("PROF_000002_y/device_0")).unwrap();
    let err = load_output(&dir).unwrap_err().to_string();
    assert!(err.contains("several profiles here") && err.contains("PROF_000002_y"), "{err}");
    assert!(!MsprofTool::with_paths(SearchPaths::with_toolkit_roots(Vec::new())).recognizes(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
}
