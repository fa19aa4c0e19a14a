//! prof's knowledge of model servers ([`prof_core::servers`]) applied to one `prof serve` run:
//! the environment the recognised server needs, the failure in its log explained (cause and
//! fix), and the recognised benchmark client's summary parsed into numbers.

use prof_capture::servers::{self, BenchMetric, Explained};
use serde::Serialize;
use std::ffi::OsString;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The most of a log's end read when explaining a failure.
const LOG_TAIL_BYTES: u64 = 4 << 20;

/// Environment the server `argv` starts always gets under prof (MAX:
/// `MODULAR_ENABLE_PROFILING=detailed`); nothing for a server prof does not know.
pub fn server_env(argv: &[OsString]) -> Vec<(String, String)> {
    servers::recognise(argv).map(|s| s.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect()).unwrap_or_default()
}

/// The server's name, when prof knows its command line.
pub fn server_name(argv: &[OsString]) -> Option<&'static str> {
    servers::recognise(argv).map(|s| s.name.as_str())
}

/// The last [`LOG_TAIL_BYTES`] of `log`, as text.
fn log_text(log: &Path) -> Option<String> {
    let mut file = std::fs::File::open(log).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(LOG_TAIL_BYTES))).ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The known failure in the server's `log`: its own signatures first, then the generic ones.
pub fn explain(argv: &[OsString], log: &Path) -> Option<Explained> {
    let server = servers::recognise(argv).map(|s| s.id.as_str());
    servers::explain(server, &log_text(log)?)
}

/// `explained` as the lines a failure message ends with.
pub fn render_explained(explained: &Explained) -> String {
    let whose = match servers::servers().iter().find(|s| s.id == explained.server) {
        Some(s) if s.id != servers::GENERIC => format!("a known {} failure", s.name),
        _ => "a known failure".to_owned(),
    };
    format!(
        "\n{whose} ({}), log line {}: {}\ncause: {}\nfix: {}",
        explained.id, explained.line_number, explained.line, explained.cause, explained.remedy
    )
}

/// A benchmark client's summary.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BenchSummary {
    /// The client (`vllm bench serve`).
    pub client: String,
    /// Its numbers, in the order it printed them.
    pub metrics: Vec<BenchMetric>,
}

/// The summary the benchmark command `argv` printed into `log`, when prof knows the client;
/// `Err` when it knows the client but its log holds no summary block.
pub fn bench_summary(argv: &[OsString], log: &Path) -> Option<Result<BenchSummary, String>> {
    let (_, client) = servers::recognise_bench(argv)?;
    let text = log_text(log).unwrap_or_default();
    Some(match servers::parse_bench(client, &text) {
        Some(metrics) => Ok(BenchSummary { client: client.name.clone(), metrics }),
        None => Err(format!(
            "{} printed no summary block (`{}`) into {}: it did not finish its run",
            client.name,
            client.block_start,
            log.display()
        )),
    })
}

/// The summary as text lines.
pub fn render_bench(summary: &BenchSummary) -> String {
    let mut out = format!("{} summary:\n", summary.client);
    for metric in &summary.metrics {
        out.push_str(&format!("  {}: {}\n", metric.label, metric.value));
    }
    out
}
