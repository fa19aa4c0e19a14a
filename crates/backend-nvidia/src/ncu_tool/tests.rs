use super::*;
use crate::ncu_pages::parse_details;
use std::time::Duration;

fn fixture_path(path: &str) -> PathBuf {
    PathBuf::from(format!("{}/../../tests/fixtures/nvidia/{path}", env!("CARGO_MANIFEST_DIR")))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prof-ncu-tool-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn script(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

fn request(out: &Path) -> DeepDiveRequest {
    DeepDiveRequest {
        command: vec!["python3".into(), "work.py".into(), "3".into()],
        kernel_regex: "nvjet".to_owned(),
        launch_skip: 2,
        launch_count: 3,
        out_dir: out.to_owned(),
        timeout: Duration::from_secs(120),
    }
}

fn strings(argv: &[OsString]) -> Vec<String> {
    argv.iter().map(|a| a.to_string_lossy().into_owned()).collect()
}

#[test]
fn plan_is_the_command_recorded_on_the_h200() {
    let dir = scratch("plan");
    let ncu = dir.join("ncu");
    script(&ncu, "exit 0");
    let tool = NcuTool::new().with_program(&ncu);
    assert_eq!(tool.name(), "ncu");
    tool.check().unwrap();
    let out = dir.join("out");
    let plan = tool.plan(&request(&out)).unwrap();
    assert_eq!(plan.steps.len(), 3);
    let (n, o) = (ncu.display().to_string(), out.display().to_string());
    // As run on the H200 for h200-ncu/nvjet-capture.log (there with --export /tmp/prof-ncu).
    let capture: Vec<String> = [
        n.as_str(),
        "--kernel-name",
        "regex:nvjet",
        "--launch-skip",
        "2",
        "--launch-count",
        "3",
        "--clock-control",
        "none",
        "--section",
        "SpeedOfLight",
        "--section",
        "Occupancy",
        "--section",
        "LaunchStats",
        "--section",
        "WarpStateStats",
        "--section",
        "ComputeWorkloadAnalysis",
        "--section",
        "MemoryWorkloadAnalysis",
        "--section",
        "SpeedOfLight_RooflineChart",
        "--export",
        &format!("{o}/prof-ncu"),
        "--force-overwrite",
        "python3",
        "work.py",
        "3",
    ]
    .map(str::to_owned)
    .to_vec();
    assert_eq!(strings(&plan.steps[0].argv), capture);
    assert_eq!(plan.steps[0].log, out.join("ncu-capture.log"));
    assert_eq!(plan.steps[0].timeout, Some(Duration::from_secs(120)));
    let report = format!("{o}/prof-ncu.ncu-rep");
    assert_eq!(strings(&plan.steps[1].argv), [n.as_str(), "--import", &report, "--csv", "--page", "details"]);
    assert_eq!(plan.steps[1].log, out.join("ncu-details.csv"));
    assert_eq!(strings(&plan.steps[2].argv), [n.as_str(), "--import", &report, "--csv", "--page", "raw"]);
    assert_eq!(plan.steps[2].log, out.join("ncu-raw.csv"));
    let artifacts: Vec<&Path> = plan.artifacts.iter().map(|a| a.path.as_path()).collect();
    assert_eq!(artifacts, [out.join("prof-ncu.ncu-rep"), out.join("ncu-details.csv"), out.join("ncu-raw.csv")]);
    assert!(plan.how_to_open.starts_with(&format!("ncu-ui {report}")));
    // Every section identifier is one `ncu --list-sections` printed there.
    let listed = std::fs::read_to_string(fixture_path("h200-ncu/list-sections.txt")).unwrap();
    let identifiers: Vec<&str> = listed.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(SECTIONS.iter().all(|s| identifiers.contains(s)), "{identifiers:?}");

    let mut bad = request(&out);
    bad.kernel_regex.clear();
    assert!(tool.plan(&bad).unwrap_err().to_string().contains("kernel name regular expression"));
    let mut bad = request(&out);
    bad.launch_count = 0;
    assert!(tool.plan(&bad).unwrap_err().to_string().contains("launch count of at least 1"));
    let mut bad = request(&out);
    bad.command.clear();
    assert_eq!(tool.plan(&bad).unwrap_err().to_string(), "no command to profile");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_ncu_names_the_install_line() {
    let tool = NcuTool::new().with_program("/nonexistent/ncu");
    let err = tool.check().unwrap_err().to_string();
    assert_eq!(err, format!("ncu is not installed: {}", tools::install::NCU));
    assert!(tool.plan(&request(Path::new("/tmp"))).is_err());
}

#[test]
fn the_exports_run_through_the_supervisor_and_load() {
    // A fake ncu replaying the recorded pages: --page details/raw print the H200 CSVs, the
    // capture prints the recorded capture log.
    let dir = scratch("replay");
    let ncu = dir.join("ncu");
    let (details, raw, log) = (
        fixture_path("h200-ncu/nvjet-details.csv"),
        fixture_path("h200-ncu/nvjet-raw.csv"),
        fixture_path("h200-ncu/nvjet-capture.log"),
    );
    script(
        &ncu,
        &format!(
            "case \"$*\" in\n*'--page details'*) echo '==WARNING== replayed' >&2; cat '{}';;\n*'--page raw'*) cat '{}';;\n*) cat '{}';;\nesac",
            details.display(),
            raw.display(),
            log.display()
        ),
    );
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let tool = NcuTool::new().with_program(&ncu);
    let plan = tool.plan(&request(&out)).unwrap();
    for step in &plan.steps {
        assert!(prof_core::step_runner::run_step(step).unwrap().success(), "{}", step.display_command());
    }
    assert_eq!(crate::ncu_failure::classify_failure(&std::fs::read_to_string(out.join(CAPTURE_LOG)).unwrap()), None);
    let exported = [out.join(DETAILS_FILE), out.join(RAW_FILE)];
    assert!(exported.iter().all(|p| tool.recognizes(p)));
    let reports = tool.load(&exported).unwrap();
    assert_eq!(reports.len(), 3);
    assert_eq!(reports[2].kernel, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
    assert_eq!(reports[2].duration_ns, Some(172_100.0), "Duration 172.10 us");
    assert_eq!(reports[2].stalls[0].0, "barrier", "the raw page was merged in");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn load_reads_every_format_and_names_bad_files() {
    let tool = NcuTool::new();
    let details = fixture_path("h200-probe/ncu-details.csv");
    let kernels = tool.load_kernels(&[details]).unwrap();
    assert_eq!(kernels.len(), 7);
    assert_eq!(kernels[6].report.duration_ns, Some(175_264.0));
    let console = tool.load(&[fixture_path("ncu/ipaco_rtx3050ti-laptop_ncu-default_3mm.txt")]).unwrap();
    assert_eq!(console.len(), 3);
    let gtx = tool.load(&[fixture_path("ncu/microgpusim_gtx1080_ncu-raw-csv_with-preamble.txt")]).unwrap();
    assert_eq!(gtx.len(), 3);

    let report = fixture_path("h200-ncu/report-head.ncu-rep");
    let no_ncu = NcuTool::new().with_program("/nonexistent/ncu");
    let err = no_ncu.load(std::slice::from_ref(&report)).unwrap_err().to_string();
    assert!(err.contains("needed to read the report"), "{err}");
    // With ncu (the fake replays the pages `ncu --import` printed on the H200), a report alone loads.
    let fake = PathBuf::from(format!("{}/../../tests/fakes/nvidia/ncu", env!("CARGO_MANIFEST_DIR")));
    let imported = NcuTool::new().with_program(fake).load(&[report]).unwrap();
    assert_eq!(imported[0].kernel, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
    let err = tool.load(&[fixture_path("h200-ncu/no-kernels.log")]).unwrap_err().to_string();
    assert!(err.contains("no-kernels.log: neither ncu CSV"), "{err}");
    let dir = scratch("bad");
    let cut = dir.join("cut.csv");
    let text = std::fs::read_to_string(fixture_path("h200-ncu/nvjet-raw.csv")).unwrap();
    std::fs::write(&cut, &text[..text.len() - 100]).unwrap();
    let err = tool.load(std::slice::from_ref(&cut)).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{}:5: ncu --csv --page raw: ", cut.display())), "{err}");
    let missing = dir.join("missing.csv");
    assert!(tool.load(&[missing]).unwrap_err().to_string().contains("missing.csv"));
    assert!(parse_details(&text).is_err(), "a raw page is no details page");
    let latin1 = dir.join("latin1.csv");
    let bytes = text.replacen("nvjet", "\u{e9}nvjet", 1).replacen('\u{e9}', "\u{1}", 1).into_bytes();
    let at = bytes.iter().position(|&b| b == 1).unwrap();
    let mut bytes = bytes;
    bytes[at] = 0xE9;
    std::fs::write(&latin1, &bytes).unwrap();
    let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    let err = tool.load(std::slice::from_ref(&latin1)).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{}:{line}: byte offset {at} is not UTF-8", latin1.display())), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn recognizes_reports_by_magic_and_pages_by_header() {
    let tool = NcuTool::new();
    let dir = scratch("recognize");
    let head = std::fs::read(fixture_path("h200-ncu/report-head.ncu-rep")).unwrap();
    assert_eq!(&head[..4], REPORT_MAGIC);
    let renamed = dir.join("capture.bin");
    std::fs::write(&renamed, &head).unwrap();
    assert!(tool.recognizes(&renamed));
    assert!(tool.recognizes(&fixture_path("h200-ncu/report-head.ncu-rep")));
    for csv in [
        "h200-probe/ncu-details.csv",
        "h200-probe/ncu-raw.csv",
        "ncu/microgpusim_gtx1080_ncu-raw-csv_with-preamble.txt",
    ] {
        assert!(tool.recognizes(&fixture_path(csv)), "{csv}");
    }
    assert!(tool.recognizes(&fixture_path("ncu/cudatraining_rtx3070_ncu2022_reductions-a-8M.txt")));
    assert!(!tool.recognizes(&fixture_path("h200-ncu/no-kernels.log")));
    assert!(!tool.recognizes(&fixture_path("h200-probe/query.csv")));
    assert!(!tool.recognizes(&dir));
    assert!(!tool.recognizes(Path::new("/nonexistent/file.csv")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_capture_lists_the_report_beside_its_pages_and_the_pages_are_read() {
    // What `plan()` declares as artifacts: the .ncu-rep (kept for the user) and both CSV pages.
    let report = fixture_path("h200-ncu/report-head.ncu-rep");
    let details = fixture_path("h200-ncu/nvjet-details.csv");
    let raw = fixture_path("h200-ncu/nvjet-raw.csv");
    let kernels = NcuTool::new().load_kernels(&[report.clone(), details.clone(), raw]).unwrap();
    let pages_only = NcuTool::new().load_kernels(&[details]).unwrap();
    assert_eq!(kernels.len(), pages_only.len());
    assert!(kernels.iter().any(|k| k.report.kernel.starts_with("nvjet_sm90_tst_256x128")));
    let missing = NcuTool::new().with_program("/nonexistent/ncu").load_kernels(&[report]).unwrap_err().to_string();
    assert!(missing.contains("needed to read the report") && missing.contains("cuda-nsight-compute"), "{missing}");
}
