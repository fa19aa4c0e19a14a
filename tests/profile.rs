//! `prof profile` end to end without a GPU: the vendors' fakes (tests/fakes) replay recorded
//! outputs, so each depth of the method is reached for the reason the recordings give, and
//! each step's numbers are the ones its own verb reports on the same recordings.

use serde_json::Value;
use std::path::Path;
use std::process::{Output, Stdio};

#[path = "support/mod.rs"]
mod support;

use support::{fakes, hermetic, path_with, success_json, Scratch};

/// `prof profile ARGS -- sh -c 'echo run >> MARKER; sleep 1'` with `vendor`'s fakes on PATH,
/// stdin closed (not a terminal), `env` on top. Returns the output and how often the command ran.
fn profile(scratch: &Scratch, vendor: &str, env: &[(&str, &str)], args: &[&str]) -> (Output, usize) {
    let marker = scratch.path().join("ran");
    let script = format!("echo run >> {}; sleep 1", marker.display());
    let out = scratch.path().join("out");
    let output = hermetic(path_with(&fakes(vendor)))
        .arg("profile")
        .args(["--interval", "50ms", "--out", out.to_str().unwrap()])
        .args(args)
        .args(["--", "sh", "-c", &script])
        .envs(env.iter().copied())
        .current_dir(scratch.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let runs = std::fs::read_to_string(&marker).map(|t| t.lines().count()).unwrap_or(0);
    (output, runs)
}

fn step<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["steps"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap_or_else(|| panic!("no {name}: {doc}"))
}

#[test]
fn an_idle_device_stops_after_util() {
    let scratch = Scratch::new("profile-idle");
    let (output, runs) = profile(&scratch, "nvidia", &[("FAKE_NVIDIA_SMI", "")], &["--tool", "nsys", "--json"]);
    let doc = success_json(&output);
    assert_eq!(doc["schema"], "prof.profile.v1");
    assert_eq!(doc["stopped_after"], "util");
    assert_eq!(doc["steps"].as_array().unwrap().len(), 1, "{doc}");
    // nvidia-smi-q.xml: <gpu_util>0 %</gpu_util>: the util verdict is idle, and no trace is taken.
    assert_eq!(step(&doc, "util")["document"]["verdict"]["kind"], "idle");
    assert!(doc["why"].as_str().unwrap().contains("did no work"), "{}", doc["why"]);
    assert_eq!(runs, 1, "only the utilization run");
    let plan = String::from_utf8_lossy(&output.stderr);
    assert!(plan.contains("1. util") && plan.contains("2. breakdown") && plan.contains("3. deep-dive"), "{plan}");
}

#[test]
fn a_dominant_kernel_goes_to_the_deep_dive_with_yes() {
    let scratch = Scratch::new("profile-deep");
    let env = [("FAKE_NVIDIA_SMI", "busy")];
    let (output, runs) = profile(&scratch, "nvidia", &env, &["--tool", "nsys", "--yes", "--json"]);
    let doc = success_json(&output);
    assert_eq!(doc["stopped_after"], "deep-dive");
    // util (1 run) + breakdown warm-up and capture (2); the fake ncu replays, it runs nothing.
    assert_eq!(runs, 3);
    let util = step(&doc, "util");
    assert_eq!(util["document"]["verdict"]["kind"], "busy");
    assert!(util["rerun"].as_str().unwrap().starts_with("prof util -- sh -c "), "{}", util["rerun"]);
    // report1.sqlite (python sqlite3): matrixMulKernel 2,523,567 ns, a DtoH copy 959,072 ns:
    // the kernel is 72.5 % of device time, more than 40 % and twice the next.
    let breakdown = step(&doc, "breakdown");
    assert_eq!(breakdown["tool"], "nsys");
    let top = &breakdown["document"]["summary"]["kernels"][0];
    assert_eq!(
        (top["name"].as_str(), top["total_ns"].as_u64()),
        (Some("matrixMulKernel(float *, float *, float *, int)"), Some(2_523_567))
    );
    assert!(breakdown["artifacts"][0]["path"].as_str().unwrap().ends_with("breakdown/prof-nsys.sqlite"));
    assert!(breakdown["artifacts"][0]["open"].as_str().unwrap().contains("nsys-ui"));
    assert!(doc["why"].as_str().unwrap().contains("matrixMulKernel takes 72.5 %"), "{}", doc["why"]);
    let dive = step(&doc, "deep-dive");
    assert_eq!(dive["ran"], true);
    assert_eq!(dive["tool"], "ncu");
    // The deep-dive command names the kernel's function, anchored, past its warm-up launches.
    let rerun = dive["rerun"].as_str().unwrap();
    assert!(
        rerun.starts_with("prof deep-dive --kernel '^matrixMulKernel$' --launch-skip 2 --launch-count 1 -- sh -c"),
        "{rerun}"
    );
    // h200-verify/deep-dive-ncu-details.csv: "Compute (SM) Throughput","%","90.32".
    assert_eq!(dive["document"]["schema"], "prof.deep-dive.v1");
    assert_eq!(dive["document"]["kernels"][0]["compute_throughput_pct"], 90.32);
    assert!(dive["evidence"][0].as_str().unwrap().starts_with("compute 90.3 %"), "{}", dive["evidence"]);
    assert_eq!(doc["answer"], dive["headline"]);
    assert!(scratch.path().join("out/deep-dive/prof-ncu.ncu-rep").is_file());
}

/// The deep dive fails (ncu matched no launch: the H200's recorded log): the util and
/// breakdown answers stay in the report, the failed step says why as a `prof.error.v1`, and
/// prof exits with that failure's status.
#[test]
fn a_failed_deep_dive_keeps_the_answers_before_it() {
    let scratch = Scratch::new("profile-dive-fails");
    let env = [("FAKE_NVIDIA_SMI", "busy"), ("FAKE_NCU", "nokernels")];
    let (output, runs) = profile(&scratch, "nvidia", &env, &["--tool", "nsys", "--yes", "--json"]);
    assert_eq!(runs, 3);
    let doc: Value = serde_json::from_slice(&output.stdout).expect("the report, not an error document");
    assert_eq!(doc["schema"], "prof.profile.v1");
    assert_eq!(doc["stopped_after"], "breakdown");
    assert!(doc["why"].as_str().unwrap().starts_with("the deep-dive step failed ("), "{}", doc["why"]);
    assert_eq!(step(&doc, "util")["document"]["verdict"]["kind"], "busy");
    let breakdown = step(&doc, "breakdown");
    assert_eq!(doc["answer"], breakdown["headline"]);
    assert_eq!(breakdown["document"]["summary"]["kernels"][0]["total_ns"], 2_523_567);
    let dive = step(&doc, "deep-dive");
    assert_eq!((dive["ran"].as_bool(), dive["failed"]["schema"].as_str()), (Some(false), Some("prof.error.v1")));
    let code = dive["failed"]["exit_code"].as_i64().unwrap();
    assert!(code != 0 && output.status.code() == Some(code as i32), "{:?} vs {code}", output.status);
}

#[test]
fn without_yes_and_without_a_terminal_the_deep_dive_is_offered_not_run() {
    let scratch = Scratch::new("profile-ask");
    let html = scratch.path().join("profile.html");
    let args = ["--tool", "nsys", "--html", html.to_str().unwrap()];
    let (output, runs) = profile(&scratch, "nvidia", &[("FAKE_NVIDIA_SMI", "busy")], &args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(runs, 3);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.starts_with("answer: "), "{text}");
    assert!(text.contains("stopped after breakdown: one kernel dominates: matrixMulKernel"), "{text}");
    assert!(text.contains("3. deep-dive: not run: stdin is not a terminal"), "{text}");
    assert!(text.contains("rerun alone: prof deep-dive --kernel '^matrixMulKernel$'"), "{text}");
    assert!(text.contains("=== 2. breakdown ===") && text.contains("2.52 ms"), "{text}");
    assert!(!scratch.path().join("out/deep-dive").exists(), "nothing was started for the deep dive");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("stopped after breakdown"), "the page leads with the answer");
}

#[test]
fn max_depth_util_stops_a_busy_run_after_util() {
    let scratch = Scratch::new("profile-depth");
    let args = ["--max-depth", "util", "--json"];
    let (output, runs) = profile(&scratch, "nvidia", &[("FAKE_NVIDIA_SMI", "busy")], &args);
    let doc = success_json(&output);
    assert_eq!((doc["stopped_after"].as_str(), doc["max_depth"].as_str()), (Some("util"), Some("util")));
    assert_eq!(doc["why"], "--max-depth util");
    assert_eq!(runs, 1);
    let plan = String::from_utf8_lossy(&output.stderr);
    assert!(!plan.contains("2. breakdown"), "{plan}");
}

#[test]
fn a_thin_breakdown_stops_the_profile_and_says_its_window_missed_the_work() {
    let scratch = Scratch::new("profile-flat");
    // A hand-typed amdgpu sysfs tree (as tests/util_amd.rs): busy at 100 %.
    let device = scratch.path().join("sysfs/card0/device");
    std::fs::create_dir_all(&device).unwrap();
    std::fs::write(device.join("gpu_busy_percent"), "100\n").unwrap();
    let sysfs = scratch.path().join("sysfs");
    let env = [("PROF_AMD_SYSFS_ROOT", sysfs.to_str().unwrap())];
    let (output, runs) = profile(&scratch, "amd", &env, &["--tool", "rocprofv3", "--yes", "--json"]);
    let doc = success_json(&output);
    assert_eq!(doc["vendor"], "AMD");
    assert_eq!(doc["stopped_after"], "breakdown");
    assert_eq!(runs, 3);
    // sdk1.0_kernel_trace.csv (python csv module): addition_kernel 34,040 of 96,160 ns in the
    // window = 35.4 %, under the 40 % a deep dive needs. Nine kernels and 96 µs are under the
    // answer's evidence floor (100 ops, 3 steps or 1 ms): its three launches of one kernel are
    // no steps (a repeating kernel marks steps from 5), so the answer is "too little to tell",
    // and beside a utilization run that saw the device busy, the window missed the work.
    let why = doc["why"].as_str().unwrap();
    assert!(
        why.starts_with(
            "the breakdown's window missed the work the utilization run saw (too little captured to tell: 9 device ops"
        ),
        "{why}"
    );
    let evidence = step(&doc, "breakdown")["evidence"].to_string();
    assert!(evidence.contains("35.4 %  addition_kernel"), "{evidence}");
    assert_eq!(doc["steps"].as_array().unwrap().len(), 2, "no deep-dive step: none was called for");
    assert_eq!(step(&doc, "breakdown")["document"]["summary"]["device_ns"], 96_160);
}

#[test]
fn the_workload_failing_in_the_util_run_stops_with_its_log() {
    let scratch = Scratch::new("profile-fails");
    let output = hermetic(path_with(&fakes("nvidia")))
        .args(["profile", "--interval", "50ms", "--out"])
        .arg(scratch.path().join("out"))
        .args(["--", "sh", "-c", "exit 3"])
        .env("FAKE_NVIDIA_SMI", "busy")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("exit status 3") && err.contains(&format!("{}", Path::new("util/util-workload.log").display())),
        "{err}"
    );
}

/// A `prof profile --yes --json` document recorded on the H200 (tests/fixtures/nvidia/h200-profile).
fn recorded(name: &str) -> Value {
    let path = support::fixtures().join("nvidia/h200-profile").join(name);
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

#[test]
fn recorded_h200_runs_stop_where_their_own_numbers_say() {
    // decode: batch-1 eager decode, ~1,000 kernels a token: utilization under the host-bound
    // line (10 % mean) on the steady phase, so no trace was taken.
    let decode = recorded("decode.json");
    assert_eq!(decode["stopped_after"], "util");
    assert_eq!(decode["steps"].as_array().unwrap().len(), 1);
    let util = &decode["steps"][0]["document"];
    assert_eq!(util["verdict"]["kind"], "host_bound");
    assert!(util["devices"][0]["gpu_util_mean_pct"].as_f64().unwrap() < 10.0);

    // train: busy, but the top kernel is far from dominant: the breakdown is the answer.
    let train = recorded("train.json");
    assert_eq!(train["stopped_after"], "breakdown");
    assert_eq!(train["steps"][0]["document"]["verdict"]["kind"], "busy");
    let summary = &train["steps"][1]["document"]["summary"];
    let top = summary["kernels"][0]["share_pct"].as_f64().unwrap();
    assert!(top < 40.0, "{top}");
    let why = train["why"].as_str().unwrap();
    assert!(why.contains(&format!("is {top:.1} % of device time")), "{why}");
    let family = &summary["families"][0];
    let largest = format!(
        "the largest family is {} at {:.1} %",
        family["family"].as_str().unwrap(),
        family["share_pct"].as_f64().unwrap()
    );
    assert!(why.ends_with(&largest), "{why}");

    // lm-head: one GEMM ≥ 40 % and twice the next: deep-dived by its function name, and the
    // deep dive profiled that kernel.
    let lm_head = recorded("lm-head.json");
    assert_eq!(lm_head["stopped_after"], "deep-dive");
    let kernels = lm_head["steps"][1]["document"]["summary"]["kernels"].as_array().unwrap();
    let (first, second) = (kernels[0]["total_ns"].as_f64().unwrap(), kernels[1]["total_ns"].as_f64().unwrap());
    assert!(kernels[0]["share_pct"].as_f64().unwrap() >= 40.0 && first >= 2.0 * second);
    let name = kernels[0]["name"].as_str().unwrap();
    let dive = &lm_head["steps"][2];
    assert!(dive["rerun"].as_str().unwrap().contains(&format!("--kernel '^{name}$'")), "{}", dive["rerun"]);
    assert_eq!(dive["document"]["kernels"][0]["kernel"].as_str().unwrap().split('(').next().unwrap(), name);
    assert!(dive["document"]["kernels"][0]["compute_throughput_pct"].as_f64().unwrap() > 80.0);
}

#[test]
fn a_prefill_loop_that_slows_as_the_device_heats_is_not_re_prefill() {
    // lm-head's breakdown trace (59 identical prefills of 16 K tokens): before the grid rule its
    // GEMM time per step drifted 13.64 → 15.22 ms (×1.12) from the first to the last third and
    // was called O(n²) re-prefill. The launched blocks per step do not grow: no finding.
    let trace = support::fixture_arg("nvidia/h200-profile/lm-head.breakdown.pcupti.gz");
    let doc = support::prof_json(&["analyze", "--json", &trace]);
    let findings = doc["diagnosis"]["findings"].as_array().unwrap();
    assert!(findings.iter().all(|f| f["kind"] != "re_prefill"), "{findings:?}");
    assert_eq!(doc["diagnosis"]["steps"]["count"], 59);
    // The same numbers the profile's breakdown step reported on this trace.
    let recorded = recorded("lm-head.json");
    let step = &recorded["steps"][1]["document"];
    assert_eq!(doc["summary"]["kernels"][0]["total_ns"], step["summary"]["kernels"][0]["total_ns"]);
    assert_eq!(doc["summary"]["kernels"][0]["calls"], 59);
    assert_eq!(step["diagnosis"]["findings"], doc["diagnosis"]["findings"]);
}

/// A `prof profile --yes --json` document of issue #49's real clients, recorded on the H200
/// (tests/fixtures/nvidia/h200-answers; scripts/device/check_answers.sh with
/// scripts/device/answer_clients.py). Each client's right answer was written down before prof ran.
fn answer_of(name: &str) -> Value {
    let path = support::fixtures().join("nvidia/h200-answers").join(format!("{name}.json"));
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

#[test]
fn the_real_clients_of_issue_49_get_the_answer_an_engineer_gives() {
    // load-then-gemm: 12 s of host-side loading, then bf16 GEMMs. Once failing (the window
    // closed before the GEMMs began, a 1 µs fill kernel was called dominant and the deep dive
    // found no launch); now the window holds the GEMMs and the deep dive says "at the roofline".
    for client in ["load-then-gemm", "gemm-now"] {
        let doc = answer_of(client);
        assert_eq!(doc["stopped_after"], "deep-dive", "{client}");
        let breakdown = &doc["steps"][1]["document"];
        assert_eq!(breakdown["answer"]["verdict"], "dominant_kernel", "{client}");
        let top = &breakdown["summary"]["kernels"][0];
        assert!(top["name"].as_str().unwrap().starts_with("nvjet_sm90"), "{client}: the GEMM, not a fill kernel");
        assert!(top["share_pct"].as_f64().unwrap() > 99.0, "{client}");
        let limits = &doc["steps"][2]["document"]["kernels"][0]["limits"];
        assert_eq!(limits["bound"], "at_roofline", "{client}: a GEMM at the roofline is not memory-bound");
        assert!(limits["tensor_pipe_pct"].as_f64().unwrap() > 90.0, "{client}");
        assert!(doc["answer"].as_str().unwrap().contains("at the roofline"), "{client}");
    }
    // The breakdown's own trace of load-then-gemm, read again: the same answer.
    let trace = support::fixture_arg("nvidia/h200-answers/load-then-gemm.breakdown.pcupti.gz");
    let again = support::prof_json(&["analyze", "--json", &trace]);
    assert_eq!(again["answer"]["verdict"], "dominant_kernel");
    assert!(again["summary"]["kernels"][0]["name"].as_str().unwrap().starts_with("nvjet_sm90"));
    // tiny (one-by-one 256-element adds) and a torch.compile'd decoder stepping one token at a
    // time: the device waits for the host; prof stops after util and takes no trace.
    for client in ["tiny", "compiled-decode"] {
        let doc = answer_of(client);
        assert_eq!(doc["stopped_after"], "util", "{client}");
        assert_eq!(doc["steps"][0]["document"]["verdict"]["kind"], "host_bound", "{client}");
    }
    // jax-mlp: a jitted MLP with a deep launch queue, 95.7 % busy: not launch-bound whatever its
    // kernel lengths; the GEMM fusion dominates and is compute-bound at the tensor pipe.
    let jax = answer_of("jax-mlp");
    let breakdown = &jax["steps"][1]["document"];
    assert_eq!(breakdown["answer"]["verdict"], "dominant_kernel");
    let idle_launch: f64 = breakdown["answer"]["account"]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["cause"] == "launch_gaps")
        .map(|p| p["pct"].as_f64().unwrap())
        .sum();
    assert!(idle_launch < 10.0, "waiting for launches is {idle_launch} %, not the answer");
    let kernel = &jax["steps"][2]["document"]["kernels"][0];
    assert_eq!(
        (kernel["kernel"].as_str().unwrap(), &kernel["limits"]["bound"]),
        ("gemm_fusion_dot_general_7", &Value::from("compute_bound"))
    );
}
