//! What `prof serve` reports: the server's readiness, the warm-up, the window's load
//! (latency percentiles, throughput, errors) or the benchmark's exit, the verified
//! artifacts with how to open them, the headline of the capture (top kernels or peak
//! utilization), and the clean-up check.
//!
//! `--json` schema `prof.serve.v1`: `{"schema", "tool", "server": {"command": [string],
//! "model": string|null, "env": [[name, value]], "pgid", "log", "ready_after_ms", "left_running": [pid]},
//! "health_url", "warmup": LoadStats|null, "load": {"endpoint", "method", "concurrency",
//! "requests_asked", "window_ns", "stats": LoadStats}|null, "bench": {"command", "exit_code",
//! "signal", "elapsed_ns", "log"}|null, "artifacts": [{"path", "bytes"}], "how_to_open":
//! string|null, "breakdown": prof.breakdown.v1|null, "utilization": {"source", "samples",
//! "devices": [DeviceSummary]}|null, "notes": [string]}`, where LoadStats is `{"requests",
//! "ok", "errors", "unfinished", "first_error", "elapsed_ns", "throughput_rps",
//! "latency_mean_ms", "latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "latency_max_ms"}`
//! (latencies of successful requests; nearest-rank percentiles; unknown is `null`).

use super::load::LoadStats;
use prof_core::DeviceSummary;
use serde::Serialize;

/// The `prof.serve.v1` document.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ServeReport {
    /// Always `prof.serve.v1`.
    pub schema: &'static str,
    /// `none`, `util`, or the breakdown tool.
    pub tool: String,
    /// The server and its clean-up.
    pub server: ServerPart,
    /// The health URL polled.
    pub health_url: String,
    /// The unprofiled warm-up requests.
    pub warmup: Option<LoadStats>,
    /// The built-in load of the window.
    pub load: Option<LoadPart>,
    /// The benchmark command of the window.
    pub bench: Option<BenchPart>,
    /// Verified artifacts.
    pub artifacts: Vec<ArtifactPart>,
    /// How to open them.
    pub how_to_open: Option<String>,
    /// The kernel breakdown of the window (`prof.breakdown.v1`), for breakdown tools.
    pub breakdown: Option<serde_json::Value>,
    /// The utilization of the window, for `--tool util` with a device.
    pub utilization: Option<UtilPart>,
    /// What the user should know (no device, whole-run capture).
    pub notes: Vec<String>,
}

/// The server's side of the report.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ServerPart {
    /// Its argv as run.
    pub command: Vec<String>,
    /// The model its command names, when it names one.
    pub model: Option<String>,
    /// Variables prof added.
    pub env: Vec<(String, String)>,
    /// Its process group.
    pub pgid: i32,
    /// Its log file.
    pub log: String,
    /// From its start until the health URL answered 200, ms.
    pub ready_after_ms: f64,
    /// Processes of its group still running after clean-up (empty when clean).
    pub left_running: Vec<i32>,
}

/// The built-in load as asked and as measured.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct LoadPart {
    /// The endpoint.
    pub endpoint: String,
    /// `GET`, or `POST` with the payload.
    pub method: &'static str,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// `--requests`.
    pub requests_asked: u64,
    /// `--window`, ns.
    pub window_ns: u64,
    /// What happened.
    pub stats: LoadStats,
}

/// The benchmark command and how it ended.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct BenchPart {
    /// Its argv.
    pub command: Vec<String>,
    /// Exit code, when it exited.
    pub exit_code: Option<i32>,
    /// Signal, when one ended it.
    pub signal: Option<i32>,
    /// Wall time, ns.
    pub elapsed_ns: u64,
    /// Its log.
    pub log: String,
    /// The summary it printed, when prof knows the client (added in 0.5.0): `client`,
    /// `metrics` (`key`, `label`, `value`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<crate::serve::known::BenchSummary>,
    /// Why a known client's summary is missing (it did not finish), when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary_missing: Option<String>,
}

/// One verified artifact.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ArtifactPart {
    /// Path.
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
}

/// The window's utilization.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct UtilPart {
    /// Where the numbers come from.
    pub source: String,
    /// Ticks recorded.
    pub samples: usize,
    /// Per-device summaries, over the window `--phase` picks (the active phase by default).
    pub devices: Vec<DeviceSummary>,
    /// The phases of the recording (added in 0.3.0).
    pub phases: Option<prof_core::report::PhaseView>,
}

fn ms(value: Option<f64>) -> String {
    value.map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".to_owned())
}

/// The load's headline: counts, throughput, latency percentiles.
pub fn render_load(label: &str, stats: &LoadStats) -> String {
    let mut out = format!(
        "{label}: {} requests, {} ok, {} errors, {} unfinished in {:.2} s",
        stats.requests,
        stats.ok,
        stats.errors,
        stats.unfinished,
        stats.elapsed_ns as f64 / 1e9
    );
    if let Some(rps) = stats.throughput_rps {
        out.push_str(&format!(" = {rps:.1} req/s"));
    }
    out.push('\n');
    if stats.ok > 0 {
        out.push_str(&format!(
            "  latency ms: p50 {}  p90 {}  p99 {}  max {}  mean {}\n",
            ms(stats.latency_p50_ms),
            ms(stats.latency_p90_ms),
            ms(stats.latency_p99_ms),
            ms(stats.latency_max_ms),
            ms(stats.latency_mean_ms)
        ));
    }
    if let Some(error) = &stats.first_error {
        out.push_str(&format!("  first error: {error}\n"));
    }
    out
}

/// The peak utilization of each device in the window.
pub fn render_utilization(util: &UtilPart) -> String {
    let mut out = util.phases.as_ref().map(crate::phases_view::render_text).unwrap_or_default();
    out.push_str(&format!("utilization during the window ({}, {} samples):\n", util.source, util.samples));
    let pct = |v: Option<f64>| v.map(|v| format!("{v:.0}%")).unwrap_or_else(|| "-".to_owned());
    for device in &util.devices {
        let mem = device.mem_used_peak_bytes.map(|b| format!("{} MiB", b / (1024 * 1024))).unwrap_or("-".into());
        out.push_str(&format!(
            "  device {}: util peak {} mean {}, memory used peak {mem}\n",
            device.device,
            pct(device.gpu_util_peak_pct),
            pct(device.gpu_util_mean_pct)
        ));
    }
    out
}

impl ServeReport {
    /// The human report; `breakdown_text` is the kernel table when there is one.
    pub fn render_text(&self, breakdown_text: Option<&str>) -> String {
        let mut out = format!(
            "server ready after {:.1} s (process group {}, log {})\n",
            self.server.ready_after_ms / 1000.0,
            self.server.pgid,
            self.server.log
        );
        if let Some(warmup) = &self.warmup {
            out.push_str(&render_load("warm-up (unprofiled)", warmup));
        }
        if let Some(load) = &self.load {
            out.push_str(&format!(
                "load: {} {} at concurrency {}, up to {} requests in {:.1} s\n",
                load.method,
                load.endpoint,
                load.concurrency,
                load.requests_asked,
                load.window_ns as f64 / 1e9
            ));
            out.push_str(&render_load("window", &load.stats));
        }
        if let Some(bench) = &self.bench {
            let how = match (bench.exit_code, bench.signal) {
                (Some(code), _) => format!("exited {code}"),
                (None, Some(signal)) => format!("ended by signal {signal}"),
                _ => "ended".to_owned(),
            };
            out.push_str(&format!(
                "bench: `{}` {how} after {:.1} s (log {})\n",
                bench.command.join(" "),
                bench.elapsed_ns as f64 / 1e9,
                bench.log
            ));
            if let Some(summary) = &bench.summary {
                out.push_str(&crate::serve::known::render_bench(summary));
            }
            if let Some(why) = &bench.summary_missing {
                out.push_str(&format!("  no summary: {why}\n"));
            }
        }
        if let Some(text) = breakdown_text {
            out.push('\n');
            out.push_str(text);
        }
        if let Some(util) = &self.utilization {
            out.push_str(&render_utilization(util));
        }
        for artifact in &self.artifacts {
            out.push_str(&format!("artifact: {} ({} bytes)\n", artifact.path, artifact.bytes));
        }
        if let Some(open) = &self.how_to_open {
            out.push_str(&format!("open: {open}\n"));
        }
        for note in &self.notes {
            out.push_str(&format!("note: {note}\n"));
        }
        if self.server.left_running.is_empty() {
            out.push_str(&format!(
                "server process group {} stopped; nothing of it is left running\n",
                self.server.pgid
            ));
        } else {
            out.push_str(&format!(
                "warning: processes {:?} of the server's group {} are still running\n",
                self.server.left_running, self.server.pgid
            ));
        }
        out
    }
}
