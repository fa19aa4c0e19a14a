//! `prof serve` with the servers prof knows (crates/capture/servers/*.json), end to end against a
//! vLLM stand-in named `vllm` (tests/fakes/servers/vllm/vllm, python3): the window through the
//! server's own profiler (`--tool server`: VLLM_TORCH_PROFILER_DIR, POST /start_profile and
//! /stop_profile, the trace read through the registry), the summary of its benchmark client
//! (a real `vllm bench serve` output), and a real start-up failure log explained with its
//! cause and fix.

#[path = "support/mod.rs"]
mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn fake_vllm() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fakes/servers/vllm/vllm").display().to_string()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn serve(args: &[&str], env: &[(&str, PathBuf)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_prof"));
    command.arg("serve").args(args).env("PROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
    for (key, value) in env {
        command.env(key, value);
    }
    command.stdin(Stdio::null()).output().expect("run prof serve")
}

#[test]
fn the_servers_own_profiler_records_the_window_and_its_benchmark_is_summarised() {
    let out_dir = support::scratch_dir(&format!("serve-known-profiler-{}", std::process::id())).join("out");
    let port = free_port();
    let server = format!("{} serve m --port {port}", fake_vllm());
    let bench = format!("{} bench serve --model m --port {port}", fake_vllm());
    let health = format!("http://127.0.0.1:{port}/health");
    let trace = support::fixtures().join("nvidia/h200-tensorboard/vm_482.1796342833542962655.pt.trace.json.gz");
    let bench_output = support::fixtures().join("serve/bench/vllm_bench_serve_2.txt");
    let out = serve(
        &["--server", &server, "--health", &health, "--bench", &bench, "--warmup-requests", "0"]
            .into_iter()
            .chain(["--tool", "server", "--phase", "all", "--out", out_dir.to_str().unwrap(), "--yes", "--json"])
            .collect::<Vec<_>>(),
        &[("FAKE_TRACE", trace), ("FAKE_BENCH_OUTPUT", bench_output)],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("server recognised: vLLM"), "the plan names the server: {stderr}");
    assert!(stderr.contains(&format!("POST http://127.0.0.1:{port}/start_profile")), "{stderr}");
    let traces = out_dir.join("server-traces");
    let log = std::fs::read_to_string(out_dir.join("server.log")).unwrap();
    assert!(log.contains(&format!("env VLLM_TORCH_PROFILER_DIR={}", traces.display())), "{log}");
    let events: Vec<&str> = log.lines().filter(|l| l.starts_with("profiler")).map(|l| &l[..16]).collect();
    assert_eq!(events, ["profiler started", "profiler stopped"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["tool"], "server");
    assert_eq!(report["artifacts"][0]["path"], traces.display().to_string());
    // The trace the server wrote is the H200 recording: its GEMM kernels sum to 2022.722 µs
    // (python on the file, tests/fixtures/nvidia/SOURCES.md).
    let top = &report["breakdown"]["summary"]["kernels"][0];
    assert_eq!((top["calls"].as_u64(), top["total_ns"].as_u64()), (Some(12), Some(2_022_722)), "{top}");
    let summary = &report["bench"]["summary"];
    assert_eq!(summary["client"], "vllm bench serve");
    let metric =
        |key: &str| summary["metrics"].as_array().unwrap().iter().find(|m| m["key"] == key).map(|m| m["value"].clone());
    assert_eq!(metric("ttft_p99_ms"), Some(serde_json::json!(14937.16)));
    assert_eq!(metric("output_throughput_tok_s"), Some(serde_json::json!(190.4)));
}

#[test]
fn a_server_without_its_profiler_switch_is_refused_before_it_starts() {
    let out_dir = support::scratch_dir(&format!("serve-known-unknown-{}", std::process::id())).join("out");
    let out = serve(
        &["--server", "python3 my_server.py", "--health", "http://127.0.0.1:9/health", "--tool", "server"]
            .into_iter()
            .chain(["--out", out_dir.to_str().unwrap(), "--yes"])
            .collect::<Vec<_>>(),
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("does not recognise this server's command line; it drives the profilers of vLLM, SGLang"),
        "{stderr}"
    );
}

/// Each real failure log (tests/fixtures/serve/logs, SOURCES.md) replayed by the stand-in as
/// it dies at start: prof stops, quotes the line, and gives the known cause and fix (also as
/// the JSON failure's `hint`).
#[test]
fn a_known_start_up_failure_is_explained_with_cause_and_fix() {
    let logs = support::fixtures().join("serve/logs");
    let fakes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fakes/servers");
    let vllm = fake_vllm();
    let max = fakes.join("max/max").display().to_string();
    let sglang = "python3 -m sglang.launch_server --model-path m".to_owned();
    for (log, server, id, fix) in [
        (
            "vllm_kv-cache-too-small_1.log",
            &vllm,
            "a known vLLM failure (kv-cache-too-small)",
            "fix: lower --max-model-len",
        ),
        (
            "vllm_kv-cache-too-small_2.log",
            &vllm,
            "a known vLLM failure (kv-cache-too-small)",
            "fix: lower --max-model-len",
        ),
        (
            "vllm_architecture-not-loaded_1.log",
            &vllm,
            "a known vLLM failure (architecture-not-loaded)",
            "fix: read the registry errors",
        ),
        (
            "sglang_kv-pool-too-small_1.log",
            &sglang,
            "a known SGLang failure (kv-pool-too-small)",
            "fix: raise --mem-fraction-static",
        ),
        (
            "max_custom-architecture-import_1.log",
            &max,
            "a known MAX failure (custom-architecture-import)",
            "fix: point --custom-architectures",
        ),
        (
            "max_architectures-not-on-path_1.log",
            &max,
            "a known MAX failure (architectures-not-on-path)",
            "fix: run from the directory",
        ),
        ("generic_port-in-use_1.log", &vllm, "a known failure (port-in-use)", "fix: stop it"),
    ] {
        let out_dir = support::scratch_dir(&format!("serve-known-fail-{}-{log}", std::process::id())).join("out");
        let port = free_port();
        let server = if server.starts_with("python3") {
            format!("{server} --port {port}")
        } else {
            format!("{server} serve m --port {port}")
        };
        let health = format!("http://127.0.0.1:{port}/health");
        let out = serve(
            &[
                "--server",
                &server,
                "--health",
                &health,
                "--tool",
                "none",
                "--out",
                out_dir.to_str().unwrap(),
                "--yes",
                "--json",
            ],
            &[("FAKE_SERVER_LOG", logs.join(log)), ("PYTHONPATH", fakes.join("sglang_module"))],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{log}: {stderr}");
        assert!(stderr.contains(id) && stderr.contains("\ncause: ") && stderr.contains(fix), "{log}: {stderr}");
        let failure: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{log}: {e}"));
        let remedy = fix.trim_start_matches("fix: ");
        assert!(failure["hint"].as_str().is_some_and(|h| h.starts_with(remedy)), "{log}: {failure}");
    }
}
