//! `--chrome-trace FILE` and `--html FILE` end to end on real fixtures: the Chrome trace is
//! re-parsed and its events are counted and summed against numbers computed from the source
//! fixture with python3 (one-liners next to each number), read back by `prof analyze`, and the
//! HTML pages are rendered in headless Chromium (screenshot, console errors, SVGs in the DOM).

#[path = "support/mod.rs"]
mod support;

use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{fixtures, prof, prof_json, scratch_dir};

const H200_TRACE: &str = "nvidia/h200-probe/torch-trace.json";
const ASCEND_MSPROF: &str = "ascend/vllm-ascend_msprof_cann8/PROF_GROUP_20260823_165254/PROF_PipeUtilization/PROF_000001_20260823165326062_00625538CIGQAHCJ/mindstudio_profiler_output/msprof_20260823165334.json";
const RESNET_TRACE: &str = "nvidia/torch/hta_v100_resnet_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";

/// What a Chrome trace holds, tallied from its events.
#[derive(Debug, PartialEq, Eq)]
struct Tally {
    device_ops: usize,
    device_ns: u64,
    host_spans: usize,
    host_ns: u64,
    flows: usize,
    counter_points: usize,
}

fn ns(value: &Value) -> u64 {
    (value.as_f64().expect("ts/dur is a number") * 1000.0).round() as u64
}

/// Tallies the written trace and checks its structure: every device op sits under a process
/// named `device N` and a thread named `stream S`, and every flow end has its start.
fn tally(doc: &Value) -> Tally {
    let events = doc["traceEvents"].as_array().expect("traceEvents array");
    let mut processes = HashMap::new();
    let mut threads = HashMap::new();
    for e in events.iter().filter(|e| e["ph"] == "M") {
        let name = e["args"]["name"].as_str().map(str::to_owned);
        match e["name"].as_str() {
            Some("process_name") => drop(processes.insert(e["pid"].as_u64(), name)),
            Some("thread_name") => drop(threads.insert((e["pid"].as_u64(), e["tid"].as_u64()), name)),
            _ => {}
        }
    }
    let device_cats = ["kernel", "gpu_memcpy", "gpu_memset", "gpu_other"];
    let (mut t, mut starts, mut ends) = (
        Tally { device_ops: 0, device_ns: 0, host_spans: 0, host_ns: 0, flows: 0, counter_points: 0 },
        HashSet::new(),
        Vec::new(),
    );
    for e in events {
        match e["ph"].as_str() {
            Some("X") if device_cats.contains(&e["cat"].as_str().unwrap_or("")) => {
                let (pid, tid) = (e["pid"].as_u64(), e["tid"].as_u64());
                assert_eq!(processes[&pid], Some(format!("device {}", pid.unwrap())), "{e}");
                assert_eq!(threads[&(pid, tid)], Some(format!("stream {}", tid.unwrap())), "{e}");
                assert_eq!(e["args"]["device"].as_u64(), pid);
                t.device_ops += 1;
                t.device_ns += ns(&e["dur"]);
            }
            Some("X") => {
                assert!(threads.contains_key(&(e["pid"].as_u64(), e["tid"].as_u64())), "host thread named: {e}");
                t.host_spans += 1;
                t.host_ns += ns(&e["dur"]);
            }
            Some("s") => drop(starts.insert(e["id"].as_u64())),
            Some("f") => ends.push(e["id"].as_u64()),
            Some("C") => t.counter_points += 1,
            _ => {}
        }
    }
    assert!(ends.iter().all(|id| starts.contains(id)), "every flow end has a start");
    t.flows = ends.len();
    t
}

/// Runs `prof analyze FIXTURE --chrome-trace FILE`; returns the parsed file and its path.
fn chrome_trace(fixture: &str, dir: &Path) -> (Value, PathBuf) {
    chrome_trace_of(&fixtures().join(fixture), dir)
}

/// [`chrome_trace`] of the artifact at `source`.
fn chrome_trace_of(source: &Path, dir: &Path) -> (Value, PathBuf) {
    let path = dir.join("trace.json");
    let out = prof(&["analyze", "--phase", "all", source.to_str().unwrap(), "--chrome-trace", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("wrote") && stderr.contains("ui.perfetto.dev"), "{stderr}");
    // stderr is a pipe here: the loading spinner must stay silent.
    assert!(stderr.lines().all(|l| l.starts_with("wrote ")), "only the wrote line: {stderr:?}");
    let doc = serde_json::from_slice(&std::fs::read(&path).unwrap()).expect("the Chrome trace is JSON");
    (doc, path)
}

#[test]
fn h200_torch_trace_round_trips_through_chrome_trace() {
    let dir = scratch_dir("outputs-h200-trace");
    let (doc, path) = chrome_trace(H200_TRACE, &dir);
    // python3: ev=json.load(open(F))['traceEvents']; dev=[X with cat in kernel/gpu_memcpy/gpu_memset];
    // host=[X with cat in cuda_runtime/cuda_driver/cpu_op/user_annotation]; sums of round(dur*1000);
    // flows = device ops whose args.correlation is some host span's args.correlation.
    let expected = Tally {
        device_ops: 100,
        device_ns: 1_376_837,
        host_spans: 422,
        host_ns: 16_441_231,
        flows: 100,
        counter_points: 0,
    };
    assert_eq!(tally(&doc), expected);
    let kernel = doc["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"].as_str().is_some_and(|n| n.contains("vectorized_layer_norm_kernel<c10::BFloat16")))
        .expect("the layer-norm kernel, name intact");
    // The fixture's first kernel: "grid": [1, 1, 1], "block": [32, 4, 1], correlation 20.
    assert_eq!(
        (kernel["args"]["grid"].clone(), kernel["args"]["block"].clone()),
        (serde_json::json!([1, 1, 1]), serde_json::json!([32, 4, 1]))
    );
    assert_eq!(kernel["args"]["correlation"], 20);

    // prof reads its own Chrome trace back (it is Kineto-shaped) with the same kernel summary.
    let back = prof_json(&["analyze", "--phase", "all", path.to_str().unwrap(), "--json"]);
    assert_eq!(back["summary"]["ops"], 100);
    assert_eq!(back["summary"]["device_ns"], 1_376_837);
    let original = prof_json(&["analyze", "--phase", "all", fixtures().join(H200_TRACE).to_str().unwrap(), "--json"]);
    assert_eq!(back["summary"]["kernels"], original["summary"]["kernels"]);
    assert_eq!(back["analyses"]["temporal"], original["analyses"]["temporal"]);
}

#[test]
fn amd_rocprofv3_trace_becomes_chrome_trace() {
    let dir = scratch_dir("outputs-amd-trace");
    // The kernel trace beside its HIP calls (the recorded memory copy trace is from another run
    // and would be refused beside them; the HIP calls are from a third run, so they are left
    // out and the trace holds the kernels alone).
    let run = dir.join("run");
    std::fs::create_dir_all(&run).unwrap();
    for name in ["kernel_trace.csv", "hip_api_trace.csv"] {
        std::fs::copy(fixtures().join(format!("amd/rocprofv3/sdk1.0_{name}")), run.join(format!("sdk1.0_{name}")))
            .unwrap();
    }
    let (doc, _) = chrome_trace_of(&run.join("sdk1.0_kernel_trace.csv"), &dir);
    // python3 csv over sdk1.0_kernel_trace.csv: 9 kernels, sum(End_Timestamp -
    // Start_Timestamp) = 96,160 ns; no HIP call of the same run, so no host span and no flow.
    let expected = Tally { device_ops: 9, device_ns: 96_160, host_spans: 0, host_ns: 0, flows: 0, counter_points: 0 };
    assert_eq!(tally(&doc), expected);
}

#[test]
fn ascend_msprof_trace_becomes_chrome_trace_with_counters() {
    let dir = scratch_dir("outputs-ascend-trace");
    let (doc, _) = chrome_trace(ASCEND_MSPROF, &dir);
    // python3 over msprof_20260823165334.json: X events of process "Ascend Hardware" with
    // args."Task Type" other than the runtime's (PROFILING_*, TASK_TIMEOUT_SET: not device
    // work): 3, dur in ns rounded half up (as msprof's sub-ns digits are; Decimal quantize
    // ROUND_HALF_UP) summed = 39,321 ns; X events outside Ascend Hardware / Overlap Analysis /
    // HCCL: 80, 157,674,870 ns; 3 device ops whose args.connection_id is a host span's; "AI
    // Core Freq" C events: 3 points.
    let expected =
        Tally { device_ops: 3, device_ns: 39_321, host_spans: 80, host_ns: 157_674_870, flows: 3, counter_points: 3 };
    assert_eq!(tally(&doc), expected);
    let counter = doc["traceEvents"].as_array().unwrap().iter().find(|e| e["ph"] == "C").unwrap();
    assert_eq!(
        (counter["name"].as_str(), counter["args"]["value"].as_f64()),
        (Some("AI Core Freq (MHz)"), Some(1800.0))
    );
    let cores: HashSet<&str> =
        doc["traceEvents"].as_array().unwrap().iter().filter_map(|e| e["args"]["core type"].as_str()).collect();
    // Task Types AI_VECTOR_CORE and MIX_AIC.
    assert_eq!(cores, HashSet::from(["vector", "mix"]));
}

#[test]
fn chrome_trace_of_totals_only_artifact_is_a_clear_error() {
    let dir = scratch_dir("outputs-totals-only");
    let stats = fixtures().join("amd/rocprofv3/hpctrain-jacobi_kernel_stats.csv");
    let path = dir.join("t.json");
    let out = prof(&["analyze", "--phase", "all", stats.to_str().unwrap(), "--chrome-trace", path.to_str().unwrap()]);
    // A rocprofv3 --stats file has per-kernel totals only: no timeline to write.
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--chrome-trace") && stderr.contains("no timeline"), "{stderr}");
    assert!(!path.exists());
}

/// The headless Chromium (or Chrome) binary: `$PROF_CHROMIUM`, else the first of the usual
/// names on `PATH`, else Playwright's download. `None` when there is none.
fn chromium() -> Option<PathBuf> {
    let names = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless_shell"];
    let on_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).flat_map(|dir| names.map(|n| dir.join(n))).collect::<Vec<_>>())
        .unwrap_or_default();
    let playwright = std::env::var_os("HOME")
        .map(|home| PathBuf::from(home).join(".cache/ms-playwright"))
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .map(|entries| entries.flatten().map(|e| e.path().join("chrome-linux/chrome")).collect::<Vec<_>>())
        .unwrap_or_default();
    std::env::var_os("PROF_CHROMIUM")
        .map(PathBuf::from)
        .into_iter()
        .chain(on_path)
        .chain(playwright)
        .find(|p| p.is_file())
}

/// The browser, or `None` after saying loudly that the rendering checks are skipped. CI sets
/// `PROF_REQUIRE_BROWSER=1` (`.ci/run` installs Chromium), where a missing browser fails.
fn browser_or_skip(page: &Path) -> Option<PathBuf> {
    let found = chromium();
    if found.is_none() {
        assert!(
            std::env::var_os("PROF_REQUIRE_BROWSER").is_none(),
            "PROF_REQUIRE_BROWSER is set but no Chromium was found: install it with `apt-get install -y chromium` \
             or set PROF_CHROMIUM"
        );
        eprintln!(
            "note: no Chromium found (PROF_CHROMIUM, chromium/google-chrome on PATH, Playwright's): {} was checked \
             as HTML but not rendered",
            page.display()
        );
    }
    found
}

/// Runs headless Chromium on `page` with `extra` flags, killing its process group after 90 s.
fn run_chromium(browser: &Path, page: &Path, dir: &Path, extra: &[String]) -> (String, String) {
    use std::os::unix::process::CommandExt;
    let profile = dir.join(format!("chromium-profile-{}", extra.len()));
    let _ = std::fs::remove_dir_all(&profile);
    let mut child = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("start chromium");
    let (mut stdout, mut stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = Command::new("kill").args(["-KILL", &format!("-{}", child.id())]).status();
            let _ = child.wait();
            panic!("chromium hung on {} for 90 s and was killed", page.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let (out, err) = (out_reader.join().unwrap(), err_reader.join().unwrap());
    assert!(status.success(), "chromium failed on {}: {status}\n{err}", page.display());
    (out, err)
}

/// Width and height of a PNG from its IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.len() > 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n") && &bytes[12..16] == b"IHDR", "a PNG");
    let be = |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    (be(16), be(20))
}

/// Renders `page` in Chromium: a 1280×2000 screenshot that is not blank, no console errors,
/// and at least `svgs` SVG elements in the rendered DOM.
fn check_in_browser(page: &Path, dir: &Path, svgs: usize) {
    let Some(browser) = browser_or_skip(page) else { return };
    let shot = dir.join("screenshot.png");
    let (_, log) = run_chromium(
        &browser,
        page,
        dir,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,2000".to_owned(),
            "--enable-logging=stderr".to_owned(),
            "--v=0".to_owned(),
        ],
    );
    let png = std::fs::read(&shot).expect("chromium wrote the screenshot");
    assert_eq!(png_size(&png), (1280, 2000));
    // A blank white 1280×2000 page compresses to a few kB; the plots make it far larger.
    assert!(png.len() > 20_000, "screenshot of {} is only {} bytes", page.display(), png.len());
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:?}");
    let (dom, _) = run_chromium(&browser, page, dir, &["--dump-dom".to_owned()]);
    assert!(dom.matches("<svg").count() >= svgs, "{} SVGs expected in the DOM:\n{dom}", svgs);
}

/// Checks that a page is self-contained: no scripts, no external resources.
fn assert_self_contained(html: &str) {
    assert!(!html.contains("<script"), "no scripts");
    assert!(!html.contains("<link") && !html.contains("@import") && !html.contains("url("), "no external resources");
    let external = html.matches("http").count();
    let namespaces = html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count();
    assert_eq!(external, namespaces, "the only URLs are SVG namespaces");
}

#[test]
fn breakdown_html_is_self_contained_escaped_and_renders() {
    let dir = scratch_dir("outputs-h200-html");
    let page = dir.join("report.html");
    let source = fixtures().join(H200_TRACE);
    let out = prof(&["analyze", "--phase", "all", source.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    // Kernel names hold `<`, `>` and `&`: only their escaped forms may appear.
    assert!(!html.contains("<c10::BFloat16"), "raw kernel-name markup");
    assert!(html.contains("vectorized_layer_norm_kernel&lt;c10::BFloat16"), "escaped kernel name");
    for heading in ["Kernel families", "Top 11 kernels", "Timeline per device stream", "Where each device"] {
        assert!(html.contains(heading), "{heading}");
    }
    // The answer leads: its headline, evidence, next step and time account, then the diagnosis.
    let first_h2 = html.find("<h2>").unwrap();
    assert!(html[first_h2..].starts_with("<h2>Answer</h2>"), "{}", &html[first_h2..first_h2 + 40]);
    assert!(html.contains("<b>the device waits for the host to launch the next kernel: 70.2 %"), "headline");
    assert!(html.contains("<tr><td>idle: waiting for launches</td><td>70.2 %</td>"), "time account");
    let diagnosis = html.find("<h2>Diagnosis</h2>").expect("diagnosis");
    assert!(
        html[diagnosis..].contains("<b>host-bound: the device sits idle")
            && html.contains("<li>device 0: busy 1.38 ms"),
        "finding and evidence"
    );
    assert!(diagnosis < html.find("<h2>Top").unwrap() && !html.contains("prof deep-dive --kernel"));
    // Every kernel of the table in the colour of its family, the same colour in the bars.
    assert!(html.contains("<table>") && html.contains("class=\"swatch\" style=\"background:#1f4e79\"></span>gemm"));
    // python3: the fixture's ops span 4.80 ms of device 0 stream 7 (first start to last end over
    // cat kernel/gpu_memcpy/gpu_memset); the temporal section puts it at 71.4 % idle.
    assert!(html.contains("device 0 stream 7") && html.contains("device 0 (4.80 ms)"), "strip and temporal bar");
    assert!(html.contains("idle gap"), "idle gaps are shaded");
    check_in_browser(&page, &dir, 4);
}

#[test]
fn every_vendors_page_leads_with_the_answer_and_honours_top() {
    let dir = scratch_dir("outputs-vendor-html");
    // The kernel trace alone (its neighbour copy trace is from another run).
    let amd = dir.join("sdk1.0_kernel_trace.csv");
    std::fs::copy(fixtures().join("amd/rocprofv3/sdk1.0_kernel_trace.csv"), &amd).unwrap();
    // An Ascend table with more than 3 kernels (the msprof trace holds 2 kernel names).
    let ascend = fixtures().join("ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv");
    for (name, source) in [("amd", amd), ("ascend", ascend)] {
        let page = dir.join(format!("{name}.html"));
        let out = prof(&["analyze", "--top", "3", source.to_str().unwrap(), "--html", page.to_str().unwrap()]);
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let html = std::fs::read_to_string(&page).unwrap();
        let first_h2 = html.find("<h2>").unwrap();
        assert!(html[first_h2..].starts_with("<h2>Answer</h2>"), "{name}");
        assert!(html.contains("<h2>Diagnosis</h2>"), "{name}");
        assert_eq!(html.matches("<tr><td class=\"n\">").count(), 3, "{name}: --top 3 rows");
    }
}

#[test]
fn a_util_recording_is_replotted_by_analyze() {
    let dir = scratch_dir("outputs-util-csv-html");
    let page = dir.join("util.html");
    let csv = fixtures().join("nvidia/h200-phases/util-hf-decode.csv");
    let out = prof(&["analyze", csv.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    // The same charts `prof util --html` draws (utilization, memory, power, clocks), not an
    // empty breakdown page.
    assert!(html.contains("<h2>Device 0 over time</h2>") && !html.contains("prof breakdown"), "util page");
    assert_eq!(html.matches("<svg").count(), 4);
}

#[test]
fn pages_an_input_cannot_give_are_refused_not_dropped() {
    let dir = scratch_dir("outputs-refused");
    let page = dir.join("x.html");
    let trace = dir.join("x.json");
    let ncu = fixtures().join("nvidia/h200-ncu/nvjet-details.csv");
    let ranks = fixtures().join("nvidia/torch/tb_dlrm_kineto_8ranks");
    for (source, flag, file) in
        [(&ncu, "--html", &page), (&ncu, "--chrome-trace", &trace), (&ranks, "--chrome-trace", &trace)]
    {
        let out = prof(&["analyze", source.to_str().unwrap(), flag, file.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(flag) && stderr.contains("not written"), "{stderr}");
        assert!(!file.exists());
    }
}

#[test]
fn diff_writes_its_page() {
    let dir = scratch_dir("outputs-diff-html");
    let page = dir.join("diff.html");
    let (a, b) = (fixtures().join("nvidia/h200-diff/eager.json"), fixtures().join("nvidia/h200-diff/graph.json"));
    let out = prof(&["diff", a.to_str().unwrap(), b.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    // The text report's first line is on the page, and its tables are tables.
    let first = text.lines().next().unwrap();
    assert!(html.contains(&first.replace('>', "&gt;").replace('<', "&lt;")), "{first}");
    assert!(html.matches("<table>").count() >= 2, "{html}");
}

#[test]
fn a_rank_job_page_shows_each_rank_and_the_communication_matrix() {
    let dir = scratch_dir("outputs-ranks-html");
    let page = dir.join("ranks.html");
    let job = fixtures().join("ascend/msinsight_gpt3_16rank_torch_npu");
    let out = prof(&["analyze", job.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    // 16 ranks (step_trace_time.csv and cluster_step_trace_time.csv), each a bar of four parts.
    for rank in 0..16 {
        assert!(html.contains(&format!(">rank {rank}</text>")), "rank {rank}");
    }
    assert!(html.contains("rank 11 communication: "), "tooltips name rank and part");
    // Rank 0's communication_matrix.json: links from rank 0 to ranks 0..=8.
    assert_eq!(html.matches("rank 0 → rank ").count(), 9);
    check_in_browser(&page, &dir, 2);
}

#[test]
fn html_of_a_large_trace_stays_bounded() {
    let dir = scratch_dir("outputs-resnet-html");
    let page = dir.join("report.html");
    let source = fixtures().join(RESNET_TRACE);
    let out = prof(&["analyze", "--phase", "all", source.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    // The trace has 6,095 device ops (python3: X events with cat kernel/gpu_memcpy/gpu_memset);
    // the strip draws at most 3,000 busy and 1,000 gap rectangles, plus a few dozen bars.
    assert!(html.contains("6095 device ops"), "the page counts every op");
    // The strip's worst case (200k ops) is bounded in html_report::strip's unit test.
    let rects = html.matches("<rect").count();
    assert!(rects < 4_200, "{rects} rects");
    assert!(html.len() < 2_000_000, "{} bytes", html.len());
    assert_self_contained(&html);
}

#[test]
fn util_html_plots_the_recording_and_renders() {
    let dir = scratch_dir("outputs-util-html");
    let page = dir.join("util.html");
    let fakes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fakes/nvidia");
    let out = Command::new(env!("CARGO_BIN_EXE_prof"))
        .args(["util", "--interval", "50ms", "--duration", "1s", "--html", page.to_str().unwrap()])
        .env("PATH", format!("{}:/usr/bin:/bin", fakes.display()))
        .env("PROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1")
        .env("FAKE_NVIDIA_SMI", "busy")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("wrote") && !stderr.contains('\r'), "no progress output when captured: {stderr:?}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    // nvidia-smi-q-busy.xml reports utilization, memory, power draw/limit and clocks for GPU 0.
    for chart in
        ["device 0 utilization (%)", "device 0 memory in use (GiB)", "device 0 power (W)", "device 0 clocks (MHz)"]
    {
        assert!(html.contains(chart), "{chart}");
    }
    assert!(html.matches("<polyline").count() >= 4, "one line per reported quantity");
    // nvidia-smi-q-busy.xml: <current_power_limit>700.00 W</current_power_limit> is the peak of
    // the power chart, whose axis tops out 10 % above it: 770.
    assert!(html.contains(">770</text>"), "power axis from the 700 W limit");
    check_in_browser(&page, &dir, 4);
}

#[test]
fn breakdown_writes_both_files_after_a_capture() {
    let dir = scratch_dir("outputs-breakdown");
    let (trace, page) = (dir.join("trace.json"), dir.join("report.html"));
    let fakes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fakes/amd");
    let out = Command::new(env!("CARGO_BIN_EXE_prof"))
        .args(["breakdown", "--phase", "all", "--tool", "rocprofv3", "--json", "--warmup", "0"])
        .args(["--out", dir.join("out").to_str().unwrap()])
        .args(["--chrome-trace", trace.to_str().unwrap(), "--html", page.to_str().unwrap(), "--", "true"])
        .env("PATH", format!("{}:/usr/bin:/bin", fakes.display()))
        .env("PROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The fake rocprofv3 writes sdk1.0_{kernel,hip_api}_trace.csv; python3 csv: 9 kernels,
    // sum(End_Timestamp - Start_Timestamp) = 96,160 ns; the 17 HIP calls were recorded in another
    // run (495,136 s away), so they are left out: no host span, no flow.
    let doc = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    let expected = Tally { device_ops: 9, device_ns: 96_160, host_spans: 0, host_ns: 0, flows: 0, counter_points: 0 };
    assert_eq!(tally(&doc), expected);
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    assert!(
        html.contains("9 device ops") && html.contains("addition_kernel&lt;float&gt;"),
        "summary and escaped names"
    );
}

/// A report lost to a full disk is an error (exit 74, a line on stderr), in JSON and in text:
/// it once exited 0 with nothing said.
#[test]
fn a_report_lost_to_a_full_disk_is_an_error() {
    if !Path::new("/dev/full").exists() {
        eprintln!("skipped: this machine has no /dev/full");
        return;
    }
    for args in [&["analyze", "--json"][..], &["analyze"][..]] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
        let out = Command::new(env!("CARGO_BIN_EXE_prof")).args(args).stdout(full).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(74), "{args:?}: {stderr}");
        assert!(stderr.contains("could not be written to standard output"), "{stderr}");
    }
}

/// A kernel name holding terminal escape sequences (a retitle, a screen clear, a C1 CSI) is
/// shown with its control characters made visible in the text, kept exact in the JSON.
#[test]
fn control_characters_in_names_never_reach_the_terminal() {
    let dir = scratch_dir("outputs-escapes");
    let mut trace: Value = serde_json::from_slice(&std::fs::read(fixtures().join(H200_TRACE)).unwrap()).unwrap();
    let hostile = "\u{1b}]0;owned\u{7}\u{1b}[2Jnvjet\u{9b}31m";
    for event in trace["traceEvents"].as_array_mut().unwrap() {
        if event["cat"] == "kernel" && event["name"].as_str().unwrap().starts_with("nvjet_sm90_tst_256x128") {
            event["name"] = hostile.into();
        }
    }
    let path = dir.join("hostile.json");
    std::fs::write(&path, serde_json::to_vec(&trace).unwrap()).unwrap();
    let text = prof(&["analyze", path.to_str().unwrap()]);
    assert!(text.status.success());
    let shown = String::from_utf8(text.stdout).unwrap();
    assert!(!shown.chars().any(|c| c.is_control() && c != '\n' && c != '\t'), "a control character reached the text");
    assert!(shown.contains("\\x1b]0;owned\\x07\\x1b[2Jnvjet\\x9b31m"), "{shown}");
    let doc = prof_json(&["analyze", "--json", path.to_str().unwrap()]);
    assert_eq!(doc["summary"]["kernels"][0]["name"], hostile);
}

/// An output file in a directory that does not exist is refused before any work (a capture or
/// a long analysis is not thrown away at the end), with what to do; nothing is half-printed.
#[test]
fn an_output_in_a_missing_directory_is_refused_before_the_work() {
    for args in [
        &["analyze", "--html", "/nonexistent-prof-dir/report.html"][..],
        &["analyze", "--chrome-trace", "/nonexistent-prof-dir/trace.json"][..],
        &["diff", "a", "b", "--html", "/nonexistent-prof-dir/diff.html"][..],
    ] {
        let out = prof(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("the directory /nonexistent-prof-dir does not exist; create it"), "{stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
