//! `prof breakdown --tool rocprofv3` and `prof analyze` on AMD files, end to end without a GPU:
//! the fake `rocprofv3` (tests/fakes/amd) runs the command and writes the recorded
//! rocprofiler-sdk 1.0 CSVs where rocprofv3 `-d DIR -o prof` writes them. No AMD hardware is
//! involved: this proves planning, supervision, loading and reporting on recordings only.

use serde_json::Value;
use std::process::Output;

#[path = "support/mod.rs"]
mod support;

use support::{fixture_arg, path_with, prof_on_path, success_json, Scratch};

/// `prof args` hermetically with the AMD fakes on `PATH` and `env` on top.
fn prof(env: &[(&str, &str)], args: &[&str]) -> Output {
    support::prof_with_fakes("amd", env, args)
}

/// The first row of kind `kernel` in a `prof.breakdown.v1` document.
fn top_kernel(doc: &Value) -> &Value {
    doc["summary"]["kernels"].as_array().unwrap().iter().find(|k| k["kind"] == "kernel").unwrap()
}

#[test]
fn rocprofv3_breakdown_captures_and_reports_the_top_kernel() {
    let scratch = Scratch::new("breakdown-amd-capture");
    let out = scratch.path().join("out");
    let marker = scratch.path().join("ran");
    let script = format!("echo run >> {}", marker.display());
    let args = [
        "breakdown",
        "--phase",
        "all",
        "--tool",
        "rocprofv3",
        "--out",
        out.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        &script,
    ];
    let o = prof(&[], &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let plan = String::from_utf8_lossy(&o.stderr);
    // rocprofv3 cannot open its window on the work: the warm-up run is the utilization
    // pre-pass (sampled with the fake rocm-smi's idle MI300A recording, so it finds no active
    // phase and the window opens at the start), and the capture is the plan's one step.
    assert!(plan.contains("prof: the utilization pre-pass found no active phase"), "{plan}");
    assert!(out.join("prepass/util-workload.log").is_file(), "the pre-pass run has its log");
    assert!(!plan.contains("warm-up (limit") && plan.contains("1. capture"), "{plan}");
    assert!(
        plan.contains(
            "--kernel-trace --memory-copy-trace --hip-runtime-trace --stats --collection-period 0:10:1 \
             --output-format csv -d"
        ),
        "{plan}"
    );
    assert_eq!(std::fs::read_to_string(&marker).unwrap().lines().count(), 2, "warm-up and capture both ran");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("addition_kernel"), "{text}");
    assert!(out.join("rocprofv3/prof_kernel_trace.csv").is_file());

    let mut json_args = args.to_vec();
    json_args.splice(1..1, ["--json", "--warmup", "0"]);
    let doc = success_json(&prof(&[], &json_args));
    // sdk1.0_kernel_trace.csv (python csv module): 9 kernels, 96,160 ns; top kernel
    // `void addition_kernel<float>`, 3 calls, 34,040 ns; busy 96,160 of a 144,400 ns window.
    let top = &doc["summary"]["kernels"][0];
    assert_eq!(top["name"], "void addition_kernel<float>(float*, float const*, float const*, int, int)");
    assert_eq!((top["calls"].as_u64(), top["total_ns"].as_u64()), (Some(3), Some(34_040)));
    assert_eq!((doc["summary"]["ops"].as_u64(), doc["summary"]["device_ns"].as_u64()), (Some(9), Some(96_160)));
    assert_eq!(doc["summary"]["devices"][0]["wall_ns"], 144_400);
    let findings = doc["diagnosis"]["findings"].as_array().unwrap();
    assert!(findings.iter().all(|f| f["kind"] != "host_bound"), "66.6 % busy: {findings:?}");
    assert!(doc["artifacts"][0].as_str().unwrap().ends_with("rocprofv3"));
    // --warmup 0: no run to sample, so no pre-pass; the window is the default time window.
    let window = &doc["capture_window"];
    assert_eq!((window["opens_on"].as_str(), window["skip_ns"].as_u64()), (Some("time"), Some(0)), "{window}");
    assert_eq!((window["length_ns"].as_u64(), window.get("chosen_by")), (Some(10_000_000_000), None), "{window}");
    let mut prepassed = args.to_vec();
    prepassed.insert(1, "--json");
    let doc = success_json(&prof(&[], &prepassed));
    let chosen = doc["capture_window"]["chosen_by"].as_str().unwrap_or_default();
    assert!(chosen.starts_with("the utilization pre-pass found no active phase (too short to tell"), "{chosen}");

    // + sdk1.0_memory_copy_trace.csv, a recording of another run: its clocks lie days away from
    // the kernels', so joining them would make one idle "run": it is left out, and said.
    let doc = success_json(&prof(&[("FAKE_ROCPROFV3", "copies")], &json_args));
    assert_eq!((doc["summary"]["ops"].as_u64(), doc["summary"]["device_ns"].as_u64()), (Some(9), Some(96_160)));
    let partial = doc["partial"].as_str().unwrap_or_default();
    assert!(partial.contains("memory_copy_trace.csv: its times lie") && partial.contains("left out"), "{partial}");
}

#[test]
fn rocprofv3_without_output_explains_with_the_log() {
    let scratch = Scratch::new("breakdown-amd-nothing");
    let out = scratch.path().join("out");
    let o = prof(
        &[("FAKE_ROCPROFV3", "nothing")],
        &[
            "breakdown",
            "--phase",
            "all",
            "--tool",
            "rocprofv3",
            "--warmup",
            "0",
            "--out",
            out.to_str().unwrap(),
            "--",
            "true",
        ],
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no *_kernel_trace.csv") && err.contains("fake failure"), "{err}");
}

#[test]
fn rocprofv3_missing_names_the_install_line() {
    let scratch = Scratch::new("breakdown-amd-missing");
    let o = prof_on_path(
        path_with(scratch.path()),
        &[],
        &["breakdown", "--phase", "all", "--tool", "rocprofv3", "--", "true"],
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("rocprofv3") && err.contains("rocprofiler-sdk"), "{err}");
}

#[test]
fn analyze_reads_rocprofv3_traces_legacy_tables_and_kernel_stats() {
    let file = fixture_arg("amd/rocprofv3/sdk0.5_kernel_trace.csv");
    let doc = success_json(&prof(&[], &["analyze", "--phase", "all", "--json", &file]));
    // python: 7 dispatches, 795,453 ns; addition_kernel 4 calls, 413,506 ns.
    assert_eq!((doc["summary"]["ops"].as_u64(), doc["summary"]["device_ns"].as_u64()), (Some(7), Some(795_453)));
    assert_eq!(top_kernel(&doc)["total_ns"], 413_506);

    // The fixture directory holds two processes' traces, and the sdk1.0_* kernel and copy files
    // are recordings of different runs (their clocks lie 492,188 s apart): not joined into one
    // idle "run": the copies are left out, and the document says so. The kernels of both
    // processes remain: 7 + 9 dispatches, 795,453 + 96,160 ns (python over the CSVs).
    let dir = fixture_arg("amd/rocprofv3");
    let doc = success_json(&prof(&[], &["analyze", "--phase", "all", "--json", &dir]));
    assert_eq!((doc["summary"]["ops"].as_u64(), doc["summary"]["device_ns"].as_u64()), (Some(16), Some(891_613)));
    let partial = doc["partial"].as_str().unwrap_or_default();
    assert!(partial.contains("sdk1.0_memory_copy_trace.csv: its times lie 492188 s away"), "{partial}");
    assert!(
        partial.contains("it was left out and") && partial.contains("sdk1.0_kernel_trace.csv read alone"),
        "{partial}"
    );

    // Named, the copies file is the one read (issue #51: the named file is analyzed, its
    // sibling of another run left out): its 4 copies (4 rows), and the kernels named as left out.
    let copies = fixture_arg("amd/rocprofv3/sdk1.0_memory_copy_trace.csv");
    let doc = success_json(&prof(&[], &["analyze", "--phase", "all", "--json", &copies]));
    assert_eq!(doc["summary"]["ops"].as_u64(), Some(4));
    let partial = doc["partial"].as_str().unwrap_or_default();
    assert!(
        partial.starts_with(&format!("{}: its times lie", fixture_arg("amd/rocprofv3/sdk1.0_kernel_trace.csv"))),
        "{partial}"
    );

    let results = fixture_arg("amd/rocprof-v1/hpctrain-laplacian_results.csv");
    let doc = success_json(&prof(&[], &["analyze", "--phase", "all", "--json", &results]));
    // python: 1004 dispatches, 2,610,787,312 ns.
    assert_eq!(
        (doc["summary"]["ops"].as_u64(), doc["summary"]["device_ns"].as_u64()),
        (Some(1004), Some(2_610_787_312))
    );

    let stats = fixture_arg("amd/rocprofv3/hpctrain-jacobi_kernel_stats.csv");
    let o = prof(&[], &["analyze", "--phase", "all", &stats]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("JacobiIterationKernel"));
}

#[test]
fn rocprofv3_breakdown_turns_skip_and_window_into_the_collection_period() {
    let scratch = Scratch::new("breakdown-amd-period");
    let out = scratch.path().join("out");
    let args = [
        "breakdown",
        "--tool",
        "rocprofv3",
        "--skip",
        "2s",
        "--window",
        "5s",
        "--warmup",
        "0",
        "--out",
        out.to_str().unwrap(),
        "--",
        "true",
    ];
    let o = prof(&[], &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let plan = String::from_utf8_lossy(&o.stderr);
    // 2 s start delay, 5 s collection time, collected once (rocprofv3 -P START:TIME:REPEAT, seconds).
    assert!(plan.contains("--stats --collection-period 2:5:1 --output-format csv"), "{plan}");
    // The fake lives outside a ROCm install, so its release is unknown: the plan says what the option needs.
    assert!(plan.contains("note: the ROCm release of") && plan.contains("ROCm 6.4 or later"), "{plan}");
    assert!(out.join("rocprofv3/prof_kernel_trace.csv").is_file(), "the fake took the flag and replayed its files");
}
