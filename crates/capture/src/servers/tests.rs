use super::*;
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/serve")
}

fn argv(text: &str) -> Vec<OsString> {
    text.split(' ').map(OsString::from).collect()
}

#[test]
fn tables_parse_and_are_consistent() {
    let tables = servers();
    assert_eq!(tables.len(), TABLES.len());
    let mut ids: Vec<&str> = tables.iter().map(|s| s.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), tables.len(), "ids are unique");
    for table in tables {
        for failure in &table.failures {
            let what = format!("{}/{}", table.id, failure.id);
            assert!(!failure.any.is_empty() && failure.any.iter().all(|a| a.len() >= 8), "{what}: signatures");
            assert!(!failure.cause.is_empty() && !failure.remedy.is_empty(), "{what}: cause and remedy");
            assert!(failure.source.starts_with("https://"), "{what}: a public source");
        }
        if let Some(profiler) = &table.profiler {
            assert!(profiler.env.values().any(|v| v.contains("{dir}")), "{}: the trace directory", table.id);
            assert!(profiler.start.path.starts_with('/') && profiler.stop.path.starts_with('/'));
        }
    }
}

/// Every failure signature has a real log under tests/fixtures/serve/logs (named
/// `<server>_<id>*.log`, sources in SOURCES.md) that it explains, and that log is explained as
/// this failure and no other.
#[test]
fn every_signature_explains_its_real_log() {
    let dir = fixtures().join("logs");
    for table in servers() {
        for failure in &table.failures {
            let prefix = format!("{}_{}", table.id, failure.id);
            let logs: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(&prefix))
                .collect();
            assert!(!logs.is_empty(), "{prefix}: no real log in {}", dir.display());
            for log in logs {
                let text = std::fs::read_to_string(&log).unwrap();
                let server = (table.id != GENERIC).then_some(table.id.as_str());
                let found = explain(server, &text).unwrap_or_else(|| panic!("{}: not explained", log.display()));
                assert_eq!(
                    (found.server.as_str(), found.id.as_str()),
                    (table.id.as_str(), failure.id.as_str()),
                    "{}",
                    log.display()
                );
            }
        }
    }
}

#[test]
fn command_lines_are_recognised() {
    let id = |text: &str| recognise(&argv(text)).map(|s| s.id.as_str());
    assert_eq!(id("vllm serve Qwen/Qwen2.5-0.5B --port 8000"), Some("vllm"));
    assert_eq!(id("python3 -m vllm.entrypoints.openai.api_server --model m"), Some("vllm"));
    assert_eq!(id("/opt/venv/bin/vllm serve m"), Some("vllm"));
    assert_eq!(id("vllm bench serve --model m"), None, "a benchmark is not a server");
    assert_eq!(id("python3 -m sglang.launch_server --model-path m"), Some("sglang"));
    assert_eq!(id("text-generation-launcher --model-id m"), Some("tgi"));
    assert_eq!(id("pixi run max serve --model-path m"), Some("max"));
    assert_eq!(id("max generate --model-path m"), None);
    assert_eq!(id("python3 serve_model.py"), None);
    let bench = |text: &str| recognise_bench(&argv(text)).map(|(s, b)| (s.id.as_str(), b.name.as_str()));
    assert_eq!(bench("vllm bench serve --model m"), Some(("vllm", "vllm bench serve")));
    assert_eq!(bench("python3 benchmarks/benchmark_serving.py --backend vllm"), Some(("vllm", "vllm bench serve")));
    assert_eq!(bench("python3 -m sglang.bench_serving --backend sglang"), Some(("sglang", "sglang.bench_serving")));
    assert_eq!(bench("curl http://localhost:8000/health"), None);
}

#[test]
fn max_gets_detailed_profiling_from_its_table() {
    let max = recognise(&argv("max serve --model-path m")).unwrap();
    assert_eq!(max.env.get("MODULAR_ENABLE_PROFILING").map(String::as_str), Some("detailed"));
}

/// The summary blocks of real benchmark outputs (tests/fixtures/serve/SOURCES.md), read as
/// printed: the numbers are the ones in the files.
#[test]
fn real_benchmark_summaries_parse() {
    let read = |name: &str| std::fs::read_to_string(fixtures().join("bench").join(name)).unwrap();
    let value = |metrics: &[BenchMetric], key: &str| metrics.iter().find(|m| m.key == key).map(|m| m.value);
    let client = |text: &str| recognise_bench(&argv(text)).unwrap().1;
    let vllm = client("vllm bench serve --model m");
    let full = parse_bench(vllm, &read("vllm_bench_serve_2.txt")).unwrap();
    assert_eq!(value(&full, "requests_ok"), Some(100.0));
    assert_eq!(value(&full, "output_throughput_tok_s"), Some(190.40));
    assert_eq!(value(&full, "total_throughput_tok_s"), Some(391.14), "the older `Total Token throughput` label");
    assert_eq!(value(&full, "ttft_p99_ms"), Some(14937.16));
    assert_eq!(value(&full, "itl_median_ms"), Some(180.39));
    let newer = parse_bench(vllm, &read("vllm_bench_serve_6.txt")).unwrap();
    assert_eq!(
        (value(&newer, "requests_failed"), value(&newer, "total_throughput_tok_s")),
        (Some(1.0), Some(192958.09))
    );
    for name in ["vllm_bench_serve_1.txt", "vllm_bench_serve_5.txt", "benchmark_serving_1.txt"] {
        let metrics = parse_bench(vllm, &read(name)).unwrap_or_else(|| panic!("{name}"));
        assert!(
            value(&metrics, "ttft_mean_ms").is_some() && value(&metrics, "request_throughput_rps").is_some(),
            "{name}"
        );
    }
    let sglang = client("python3 -m sglang.bench_serving --backend sglang");
    let metrics = parse_bench(sglang, &read("sglang_bench_serving_2.txt")).unwrap();
    assert!(value(&metrics, "e2e_median_ms").is_some() && value(&metrics, "ttft_p99_ms").is_some(), "{metrics:?}");
    let max = client("max benchmark --model m");
    let metrics = parse_bench(max, &read("max_benchmark_1.txt")).unwrap();
    assert_eq!(value(&metrics, "request_throughput_rps"), Some(10.81));
    assert_eq!(value(&metrics, "ttft_ms_p99"), Some(33034.17), "a row of MAX's box table");
    assert_eq!(value(&metrics, "tpot_ms_mean"), Some(34.23));
    assert_eq!(parse_bench(vllm, "no summary here\n"), None);
}
