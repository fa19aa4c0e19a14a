//! `prof analyze` end to end on real recorded artifacts: the embedded H200 torch trace (the
//! README's main job), a prof CUPTI trace recorded on the H200, the ncu pages of a
//! `prof deep-dive` run there, an nsys stats CSV, and bad input.

#[path = "support/mod.rs"]
mod support;

use support::{fixture_arg, fixtures, prof, prof_json, scratch_dir, Scratch};

#[test]
fn embedded_default_is_the_h200_torch_trace() {
    let doc = prof_json(&["analyze", "--phase", "all", "--json"]);
    assert_eq!(doc["schema"], "prof.breakdown.v1");
    assert_eq!(doc["source"], "embedded:h200-probe/torch-trace.json");
    // torch-trace.json: the 5 launches of the 4096² GEMM are the top kernel (python json sum: 870.7 µs).
    let top = &doc["summary"]["kernels"][0];
    assert_eq!(top["name"], "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
    assert_eq!(top["calls"], 5);
    assert_eq!(top["family"], "gemm");
    let kinds: Vec<&str> =
        doc["diagnosis"]["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"host_bound"), "{kinds:?}");
    // The GEMM is 63.2 % of device time, but the device is busy 28.6 % of the window: the
    // answer is the idle time (70.2 % waiting for launches: python over the trace, 80 gaps
    // after a late launch), and no deep dive is offered beside it.
    assert_eq!(doc["deep_dive"], serde_json::Value::Null);
    assert_eq!(doc["answer"]["verdict"], serde_json::json!({"idle": "launch_gaps"}));
    assert!(doc["answer"]["evidence"]["enough"].as_bool().unwrap());
    let text = String::from_utf8(prof(&["analyze"]).stdout).unwrap();
    let head: Vec<&str> = text.lines().take(6).collect();
    assert!(head[0].starts_with("answer: the device waits for the host to launch the next kernel: 70.2 %"), "{text}");
    assert!(head.iter().any(|l| l.starts_with("  next: apply the remedy")), "{text}");
    assert!(text.contains("families:") && text.contains("diagnosis:") && !text.contains("prof deep-dive"));
}

#[test]
fn cupti_trace_recorded_on_the_h200() {
    let path = fixture_arg("nvidia/h200-cupti/prof-cupti-682-launch.pcupti");
    let doc = prof_json(&["analyze", "--phase", "all", "--json", &path]);
    // 93 kernels + 5 memsets in this 2 ms window (counted with a separate Python reader, SOURCES.md).
    let ops: u64 = doc["summary"]["kernels"].as_array().unwrap().iter().map(|k| k["calls"].as_u64().unwrap()).sum();
    assert_eq!(ops, 98);
}

#[test]
fn ncu_pages_of_a_deep_dive_on_the_h200() {
    let details = fixture_arg("nvidia/h200-verify/deep-dive-ncu-details.csv");
    let doc = prof_json(&["analyze", "--phase", "all", "--json", &details]);
    assert_eq!(doc["schema"], "prof.deep-dive.v1");
    let kernel = &doc["kernels"][0];
    // From the CSV: "Duration","us","173.34"; "Compute (SM) Throughput","%","90.32";
    // "Memory Throughput","%","69.85"; achieved 14.62 %, theoretical 18.75 %.
    assert_eq!(kernel["kernel"], "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
    assert!((kernel["duration_ns"].as_f64().unwrap() - 173_340.0).abs() < 1.0);
    assert_eq!(kernel["compute_throughput_pct"], 90.32);
    assert_eq!(kernel["memory_throughput_pct"], 69.85);
    assert_eq!(kernel["occupancy"]["achieved_pct"], 14.62);
    assert_eq!(kernel["occupancy"]["theoretical_pct"], 18.75);
    assert!(kernel["verdict"].as_str().unwrap().starts_with("compute-bound"));
}

#[test]
fn nsys_stats_csv_is_ranked_without_a_timeline() {
    let path = fixture_arg("nvidia/nsys/gpuperf_sm103_cuda_gpu_kern_sum.csv");
    let doc = prof_json(&["analyze", "--phase", "all", "--json", &path]);
    assert_eq!(doc["summary"]["kernels"].as_array().unwrap().len(), 27);
}

#[test]
fn bad_input_names_the_file() {
    let missing = prof(&["analyze", "--phase", "all", "/nonexistent/trace.json"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/trace.json: no such file"));
    let dir = scratch_dir("analyze-bad");
    let text = dir.join("notes.txt");
    std::fs::write(&text, "hello\n").unwrap();
    let out = prof(&["analyze", "--phase", "all", text.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("not a format prof reads") && err.contains("torch-trace"), "{err}");
    let source = std::fs::read(fixtures().join("nvidia/h200-probe/torch-trace.json")).unwrap();
    let cut = dir.join("cut.json");
    std::fs::write(&cut, &source[..source.len() / 2]).unwrap();
    let doc = prof_json(&["analyze", "--phase", "all", "--json", cut.to_str().unwrap()]);
    assert!(doc["source"].as_str().unwrap().ends_with("cut.json"), "{}", doc["source"]);
    assert!(doc["partial"].as_str().unwrap().contains("complete events before it"), "{}", doc["partial"]);
    let text = String::from_utf8(prof(&["analyze", "--phase", "all", cut.to_str().unwrap()]).stdout).unwrap();
    assert!(text.contains("PARTIAL: the file ends at line"), "{text}");
    let families = dir.join("families.txt");
    std::fs::write(&families, "gemm nvjet\nBogus! pattern\n").unwrap();
    let out = prof(&["analyze", "--phase", "all", "--families", families.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("families.txt:2") && err.contains("`Bogus!` is not a family name"),
        "{err}"
    );
    // A new family name is a family of its own in the report.
    std::fs::write(&families, "softmax_layer softmax\n").unwrap();
    let doc = prof_json(&["analyze", "--phase", "all", "--json", "--families", families.to_str().unwrap()]);
    let rows = doc["summary"]["families"].as_array().unwrap();
    assert!(rows.iter().any(|f| f["family"] == "softmax_layer"), "{rows:?}");
}

/// A trace with host events and no device op (torch.profiler without its CUDA activity, or a
/// run on the CPU) is not read as an idle device: the diagnosis says what the file holds. Built
/// from the embedded H200 trace by dropping its device events (kernels, memsets, their flows),
/// then also its CUDA API calls (a CPU-only profile); the expected counts are those of the
/// derived file's events by category, counted here with serde_json.
#[test]
fn a_host_only_trace_says_no_device_activity() {
    let source = fixtures().join("nvidia/h200-probe/torch-trace.json");
    let mut trace: serde_json::Value = serde_json::from_slice(&std::fs::read(source).unwrap()).unwrap();
    let dir = Scratch::new("host-only-trace");
    for (variant, dropped) in [
        ("device-off", &["kernel", "gpu_memset", "gpu_memcpy", "ac2g"][..]),
        ("cpu-only", &["cuda_runtime", "cuda_driver"][..]),
    ] {
        let events = trace["traceEvents"].as_array_mut().unwrap();
        events.retain(|e| !dropped.contains(&e["cat"].as_str().unwrap_or("")));
        let count = |cat: &str| events.iter().filter(|e| e["ph"] == "X" && e["cat"] == cat).count();
        let (framework, runtime, driver) = (count("cpu_op"), count("cuda_runtime"), count("cuda_driver"));
        assert!(framework > 100, "{variant}: the trace's CPU ops");
        let path = dir.path().join(format!("{variant}.json"));
        std::fs::write(&path, serde_json::to_vec(&trace).unwrap()).unwrap();
        let doc = prof_json(&["analyze", "--json", path.to_str().unwrap()]);
        assert_eq!(doc["summary"]["ops"], 0, "{variant}");
        let findings = doc["diagnosis"]["findings"].as_array().unwrap();
        assert_eq!(findings.len(), 1, "{variant}: {findings:?}");
        let found = &findings[0];
        assert_eq!((found["kind"].as_str(), found["severity"].as_str()), (Some("no_device_activity"), Some("warning")));
        let hosts = framework + runtime + driver;
        let headline = found["headline"].as_str().unwrap();
        assert!(headline.starts_with(&format!("no device activity recorded: {hosts} host events")), "{headline}");
        let mut want = vec![format!("framework ops: {framework}")];
        want.extend((runtime > 0).then(|| format!("runtime API calls: {runtime}")));
        want.extend((driver > 0).then(|| format!("driver API calls: {driver}")));
        assert_eq!(found["evidence"], serde_json::json!(want), "{variant}");
        let text = String::from_utf8(prof(&["analyze", path.to_str().unwrap()]).stdout).unwrap();
        // The text wraps its prose to 80 columns: compared word by word.
        let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words(&text).contains("no device ops, so no kernel or family table"), "{text}");
        assert!(words(&text).contains(&words(headline)), "{text}");
        assert!(!text.contains("utilization recording"), "{text}");
        let summary = String::from_utf8(prof(&["analyze", "--summary-only", path.to_str().unwrap()]).stdout).unwrap();
        assert!(
            words(&summary)
                .contains("no device ops, so no kernel or family table (`prof analyze` without --summary-only"),
            "{summary}"
        );
    }
}
