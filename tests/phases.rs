//! Phases of real runs recorded on the H200 (tests/fixtures/nvidia/h200-phases, SOURCES.md):
//! the load never leads the default answer, steps are decode steps, re-prefill fires without
//! a KV cache only, and `prof util`'s verdict is taken on the active phase. Every expected
//! number is computed here from something other than prof's phase code: the model config of
//! the client, the CSV rows, or the client's own log.

mod support;

use serde_json::Value;
use support::{fixture_arg, prof, prof_json};

fn phases_fixture(name: &str) -> String {
    fixture_arg(&format!("nvidia/h200-phases/{name}"))
}

fn kinds(doc: &Value) -> Vec<String> {
    doc["phases"]["phases"].as_array().unwrap().iter().map(|p| p["kind"].as_str().unwrap().to_owned()).collect()
}

fn findings(doc: &Value) -> Vec<String> {
    doc["diagnosis"]["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap().to_owned()).collect()
}

/// Bytes of the bf16 weights of scripts/device/phase_clients.py's LlamaConfig (vocab 32000,
/// hidden 1024, intermediate 2816, 8 layers, 16 heads, 8 KV heads, untied embeddings).
fn llama_weight_bytes() -> u64 {
    let (v, h, i, l, kv) = (32_000u64, 1_024u64, 2_816u64, 8u64, 8 * (1_024 / 16));
    let per_layer = h * h * 2 + h * kv * 2 + 3 * h * i + 2 * h;
    2 * (2 * v * h + l * per_layer + h)
}

#[test]
fn hf_decode_load_is_the_weight_upload_and_never_leads_the_answer() {
    let path = phases_fixture("hf-decode-cache.pcupti.gz");
    let doc = prof_json(&["analyze", "--json", &path]);
    assert_eq!(kinds(&doc), ["load", "warmup", "steady", "tail"]);
    let load = &doc["phases"]["phases"][0];
    // The upload copies exactly the model's weights (plus nothing else the size of a weight).
    let copied = load["copied_bytes"].as_u64().unwrap();
    let weights = llama_weight_bytes();
    assert!(copied >= weights && copied - weights < 1 << 20, "copied {copied}, weights {weights}");
    let top = &doc["summary"]["kernels"][0];
    assert_ne!(top["kind"], "memcpy", "{top}");
    assert_eq!(top["family"], "gemv");
    // Two generate calls of 64 new tokens (the client's log): the steady state holds at least
    // the second call's 63 decode steps, and every step is one token, not one call.
    let log = std::fs::read_to_string(phases_fixture("hf-decode-cache.client.log")).unwrap();
    assert_eq!(log.matches(": 64 tokens in").count(), 2);
    let steps = doc["phases"]["steady_steps"].as_u64().unwrap();
    assert!((63..=128).contains(&steps), "{steps} steps");
    assert_eq!(doc["phases"]["chosen"], "steady");
    // One answer per report: the diagnosis counts the steps the phases report for the steady
    // state it reads (it once looked again on the cut window and found one fewer).
    assert_eq!(doc["diagnosis"]["steps"]["count"].as_u64(), Some(steps));
    // The whole run (the old answer) is led by the upload.
    let all = prof_json(&["analyze", "--json", "--phase", "all", &path]);
    assert_eq!(all["summary"]["kernels"][0]["name"], "CUDA memcpy HtoD (Pageable -> Device)");
    assert!(all["phases"]["window_ns"].is_null());
    let text = String::from_utf8(prof(&["analyze", &path]).stdout).unwrap();
    assert!(text.starts_with("answer: "), "{text}");
    assert!(text.contains("\n\nphases:\n  load"), "{text}");
    assert!(text.contains("answers below: the steady state"), "{text}");
}

#[test]
fn re_prefill_fires_without_the_kv_cache_only() {
    let nocache = prof_json(&["analyze", "--json", &phases_fixture("hf-decode-nocache.pcupti.gz")]);
    assert!(findings(&nocache).contains(&"re_prefill".to_owned()), "{:?}", findings(&nocache));
    let steps = nocache["diagnosis"]["steps"]["count"].as_u64().unwrap();
    // The steady state is the second generate call (the first runs ~7× slower per token):
    // dozens of decode steps, not the two calls.
    assert!((50..=128).contains(&steps), "{steps} steps: decode steps, not generate calls");
    for cached in ["hf-decode-cache.pcupti.gz", "hf-decode-eager.pcupti.gz"] {
        let doc = prof_json(&["analyze", "--json", &phases_fixture(cached)]);
        assert!(!findings(&doc).contains(&"re_prefill".to_owned()), "{cached}: {:?}", findings(&doc));
    }
}

#[test]
fn a_one_kernel_loop_after_a_load_is_busy_and_phase_windows_can_be_chosen() {
    let path = phases_fixture("load-then-busy.pcupti.gz");
    let doc = prof_json(&["analyze", "--json", &path]);
    assert_eq!(kinds(&doc)[0], "load");
    // The 2 GiB host tensor of load_then_busy (512 × 1024 × 1024 fp32) is the load.
    assert_eq!(doc["phases"]["phases"][0]["copied_bytes"], 2u64 << 30);
    assert_eq!(doc["summary"]["kernels"][0]["family"], "gemm");
    assert!(!findings(&doc).contains(&"host_bound".to_owned()));
    let load = prof_json(&["analyze", "--json", "--phase", "load", &path]);
    // From a plain (pageable) host tensor, as CUPTI's memory kinds say.
    assert_eq!(load["summary"]["kernels"][0]["name"], "CUDA memcpy HtoD (Pageable -> Device)");
    assert_eq!(load["summary"]["kernels"].as_array().unwrap().len(), 1);
    let missing = prof(&["analyze", "--phase", "tail", &path]);
    assert!(!missing.status.success());
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(err.contains("no tail phase") && err.contains("load"), "{err}");
    let range = prof_json(&["analyze", "--json", "--phase", "0s..100ms", &path]);
    let calls: u64 = range["summary"]["kernels"].as_array().unwrap().iter().map(|k| k["calls"].as_u64().unwrap()).sum();
    assert_eq!(calls, 1, "only the upload starts in the first 100 ms");
}

/// (first, last) `t_ms` of the rows at or above 5 % utilization, and their mean utilization.
fn active_rows(csv: &str) -> (f64, f64, f64) {
    let text = std::fs::read_to_string(csv).unwrap();
    let rows: Vec<(f64, f64)> = text
        .lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            (cells[0].parse().unwrap(), cells[2].parse().unwrap())
        })
        .collect();
    let first = rows.iter().position(|r| r.1 >= 5.0).unwrap();
    let last = rows.iter().rposition(|r| r.1 >= 5.0).unwrap();
    let mean = rows[first..=last].iter().map(|r| r.1).sum::<f64>() / (last + 1 - first) as f64;
    (rows[first].0, rows[last].0, mean)
}

#[test]
fn util_verdicts_are_taken_on_the_active_phase() {
    let csv = phases_fixture("util-load-then-busy.csv");
    let (first, last, mean) = active_rows(&csv);
    let doc = prof_json(&["analyze", "--json", &csv]);
    assert_eq!(doc["util_verdict"]["kind"], "busy", "{}", doc["util_verdict"]);
    assert_eq!(kinds(&doc), ["load", "steady", "tail"]);
    let steady = &doc["phases"]["phases"][1];
    assert!((steady["offset_ns"].as_f64().unwrap() / 1e6 - first).abs() < 0.01);
    assert!(
        ((steady["end_ns"].as_f64().unwrap() - doc["phases"]["run_ns"][0].as_f64().unwrap()) / 1e6 - last).abs() < 0.01
    );
    assert!((steady["busy_pct"].as_f64().unwrap() - mean).abs() < 1e-6);
    // Over the whole recording (the old answer) the 24 s lead-in made it "host-bound".
    let all = prof_json(&["analyze", "--json", "--phase", "all", &csv]);
    assert_eq!(all["util_verdict"]["kind"], "host_bound");
    // Batch-1 decode of a small model stays host-bound on its active phase too.
    let hf = prof_json(&["analyze", "--json", &phases_fixture("util-hf-decode.csv")]);
    assert_eq!(hf["util_verdict"]["kind"], "host_bound");
    let text = String::from_utf8(prof(&["analyze", &csv]).stdout).unwrap();
    assert!(text.contains("idle lead-in") && text.contains("verdict: busy"), "{text}");
}

#[test]
fn a_first_generate_call_that_runs_slower_per_token_is_warm_up() {
    // Per-token times from the whole-run Chrome trace: the lm_head (an fp32 SIMT sgemm) runs
    // once per token; its start-to-start gaps are the decode steps.
    let path = phases_fixture("hf-decode-cache.pcupti.gz");
    let trace = support::scratch_dir("phases-first-call").join("trace.json");
    let written = prof(&["analyze", "--phase", "all", "--chrome-trace", trace.to_str().unwrap(), &path]);
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let events = doc["traceEvents"].as_array().unwrap();
    let mut starts: Vec<f64> = events
        .iter()
        .filter(|e| e["name"].as_str().is_some_and(|n| n.contains("cutlass_80_simt_sgemm_128x32_8x5_tn")))
        .map(|e| e["ts"].as_f64().unwrap())
        .collect();
    starts.sort_by(f64::total_cmp);
    let gaps: Vec<f64> = starts.windows(2).map(|w| w[1] - w[0]).collect();
    let median = |values: &[f64]| {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted[sorted.len() / 2]
    };
    let (first, second) = gaps.split_at(gaps.len() / 2);
    assert!(median(first) > 3.0 * median(second), "first call {} us/token, second {}", median(first), median(second));
    // The steady state is the fast tokens after the last slow one.
    let slow = 3.0 * median(second);
    let last_slow = gaps.iter().rposition(|&g| g > slow).unwrap();
    let fast = (gaps.len() - last_slow - 1) as u64;
    let steps = prof_json(&["analyze", "--json", &path])["phases"]["steady_steps"].as_u64().unwrap();
    assert!(steps.abs_diff(fast) <= 3, "{steps} steady steps, {fast} fast tokens");
}

#[test]
fn moe_steps_that_repeat_only_after_the_load_are_the_phases_steps() {
    // Mixtral-style decode (2 generate calls of 32 tokens): on the whole run no sequence
    // covers enough (the first call's expert loop differs), after the load one does. The
    // phases count those steps, the first call's slow ones are warm-up, and the diagnosis of
    // the steady state counts the same steps.
    let doc = prof_json(&["analyze", "--json", &phases_fixture("hf-moe.pcupti.gz")]);
    assert_eq!(kinds(&doc), ["load", "warmup", "steady", "tail"]);
    let steps = doc["phases"]["steady_steps"].as_u64().expect("steps found after the load");
    assert!((28..=32).contains(&steps), "{steps} steps: the second call's decode steps");
    assert_eq!(doc["diagnosis"]["steps"]["count"].as_u64(), Some(steps));
    assert!(findings(&doc).contains(&"moe_shape".to_owned()), "{:?}", findings(&doc));
}

/// A window that holds too few of the run's steps (the load, before the decode steps) is
/// diagnosed on its own ops: its steps and findings are those of the window's ops read alone
/// (written out by `--chrome-trace` and analyzed whole). The steps of the whole run were once
/// handed over as "none" instead, so the window fell back to a repeating kernel.
#[test]
fn a_window_before_the_steps_is_diagnosed_on_its_own_ops() {
    let dir = support::scratch_dir("phases-load-window");
    for name in ["hf-decode-eager.pcupti.gz", "hf-decode-cache.pcupti.gz"] {
        let trace = dir.join(format!("{name}.load.json"));
        let window = prof_json(&[
            "analyze",
            "--json",
            "--phase",
            "load",
            "--chrome-trace",
            trace.to_str().unwrap(),
            &phases_fixture(name),
        ]);
        let alone = prof_json(&["analyze", "--json", "--phase", "all", trace.to_str().unwrap()]);
        let steps = &window["diagnosis"]["steps"];
        assert!(steps["source"]["repeating_sequence"].is_object(), "{name}: {steps}");
        assert_eq!(*steps, alone["diagnosis"]["steps"], "{name}");
        assert_eq!(findings(&window), findings(&alone), "{name}");
    }
}
