//! What prof knows about the model servers people profile, as data: one JSON table per server
//! under `crates/capture/servers/` (MAX, vLLM, SGLang, TGI), embedded in the binary. Each says
//! how to recognise the server's command line, its default port and health path, the
//! environment it needs to be profiled, its own profiler switches (an output-directory variable
//! and start/stop HTTP endpoints) when it has them, its start-up failure signatures (a log
//! substring, the cause in one line, the fix in one line, and the public thread the log came
//! from), and its benchmark clients (how to recognise their command line and the labels of
//! their summary block). `generic.json` holds the failures any server may hit.
//!
//! Adding a server is adding a file here and a line to [`TABLES`]: no code.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;
use std::sync::OnceLock;

/// The embedded tables, by file name.
const TABLES: [(&str, &str); 5] = [
    ("max.json", include_str!("../servers/max.json")),
    ("vllm.json", include_str!("../servers/vllm.json")),
    ("sglang.json", include_str!("../servers/sglang.json")),
    ("tgi.json", include_str!("../servers/tgi.json")),
    ("generic.json", include_str!("../servers/generic.json")),
];

/// The id of the table of failures any server may hit.
pub const GENERIC: &str = "generic";

/// One server's table.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ServerKnowledge {
    /// Short id (`vllm`).
    pub id: String,
    /// Its name as people write it (`vLLM`).
    pub name: String,
    /// How its command line looks; empty for the generic table.
    #[serde(default)]
    pub command: Recognise,
    /// The port it listens on by default.
    #[serde(default)]
    pub default_port: Option<u16>,
    /// Its health path (`/health`).
    #[serde(default)]
    pub health: Option<String>,
    /// Environment the server always gets under prof (`MODULAR_ENABLE_PROFILING=detailed`).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Its own profiler, when it has one.
    #[serde(default)]
    pub profiler: Option<ServerProfiler>,
    /// Start-up failure signatures, most specific first.
    #[serde(default)]
    pub failures: Vec<FailureSignature>,
    /// Its benchmark clients.
    #[serde(default)]
    pub benchmarks: Vec<BenchClient>,
    /// Where the facts come from (docs, source files).
    #[serde(default)]
    pub sources: Vec<String>,
}

/// How a command line is recognised: a word whose file name is one of `programs`, followed
/// by one of `subcommands` when any are listed (`vllm serve`, not `vllm bench serve`), or `-m`
/// followed by one of `modules`, or a script named one of `scripts`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Recognise {
    /// Program names (`vllm`, `text-generation-launcher`).
    #[serde(default)]
    pub programs: Vec<String>,
    /// A word that must follow the program (`serve`, `bench`).
    #[serde(default)]
    pub subcommands: Vec<String>,
    /// Python modules run with `-m` (`sglang.launch_server`).
    #[serde(default)]
    pub modules: Vec<String>,
    /// Script file names (`benchmark_serving.py`).
    #[serde(default)]
    pub scripts: Vec<String>,
}

/// A server's own profiler: where it writes, and how its window is opened and closed.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ServerProfiler {
    /// Environment that turns it on; `{dir}` stands for the trace directory prof chooses.
    pub env: BTreeMap<String, String>,
    /// Opens the window.
    pub start: HttpCall,
    /// Closes it (the server writes its traces then).
    pub stop: HttpCall,
    /// What it writes into the directory (for the plan).
    pub writes: String,
}

/// One HTTP request to the server.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HttpCall {
    /// `POST` or `GET`.
    pub method: String,
    /// The path (`/start_profile`).
    pub path: String,
    /// A JSON body, when the endpoint takes one.
    #[serde(default)]
    pub body: Option<serde_json::Value>,
}

/// A known fatal start.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FailureSignature {
    /// Short id (`kv-cache-too-small`).
    pub id: String,
    /// Log substrings (case-insensitive); any one identifies the failure.
    pub any: Vec<String>,
    /// The cause, one line.
    pub cause: String,
    /// What to do, one line.
    pub remedy: String,
    /// The public thread a real log of it came from.
    pub source: String,
}

/// A benchmark client and its summary block.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BenchClient {
    /// Its name (`vllm bench serve`).
    pub name: String,
    /// How its command line looks.
    pub command: Recognise,
    /// A line that starts the summary block (`Serving Benchmark Result`).
    pub block_start: String,
    /// Summary label → metric key (`Mean TTFT (ms)` → `ttft_mean_ms`).
    pub labels: BTreeMap<String, String>,
    /// Rows of a box-drawn table in the block (`│ TTFT (ms) │ 15539.31 │ …` under a header
    /// `│ Metric │ Mean │ … │ P99 │`): row label → key; each value becomes `<key>_<column>`
    /// (`ttft_ms_mean`, `ttft_ms_p99`).
    #[serde(default)]
    pub table_rows: BTreeMap<String, String>,
}

/// Every table, parsed once. The tables are part of the binary and tested: a table that does
/// not parse is a bug caught by `tables_parse_and_are_consistent`.
pub fn servers() -> &'static [ServerKnowledge] {
    static PARSED: OnceLock<Vec<ServerKnowledge>> = OnceLock::new();
    PARSED.get_or_init(|| {
        TABLES
            .iter()
            .map(|(file, text)| {
                serde_json::from_str(text).unwrap_or_else(|e| panic!("servers/{file} does not parse: {e}"))
            })
            .collect()
    })
}

/// The server `argv` starts, when prof knows it.
pub fn recognise(argv: &[OsString]) -> Option<&'static ServerKnowledge> {
    servers().iter().filter(|s| s.id != GENERIC).find(|s| s.command.matches(argv))
}

/// The benchmark client `argv` runs, with the server whose client it is.
pub fn recognise_bench(argv: &[OsString]) -> Option<(&'static ServerKnowledge, &'static BenchClient)> {
    servers().iter().find_map(|s| s.benchmarks.iter().find(|b| b.command.matches(argv)).map(|b| (s, b)))
}

impl Recognise {
    /// True when `argv` is a command line of this shape.
    pub fn matches(&self, argv: &[OsString]) -> bool {
        let words: Vec<String> = argv.iter().map(|a| a.to_string_lossy().into_owned()).collect();
        let name =
            |word: &str| Path::new(word).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let program = words.iter().position(|w| self.programs.iter().any(|p| *p == name(w)));
        let by_program = program.is_some_and(|at| {
            self.subcommands.is_empty() || words.get(at + 1).is_some_and(|w| self.subcommands.contains(w))
        });
        let by_module = words.windows(2).any(|pair| pair[0] == "-m" && self.modules.contains(&pair[1]));
        let by_script = words.iter().any(|w| self.scripts.iter().any(|s| *s == name(w)));
        by_program || by_module || by_script
    }
}

/// A failure recognised in a server's log.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Explained {
    /// The table it came from (`vllm`, or `generic`).
    pub server: String,
    /// The signature's id.
    pub id: String,
    /// The cause, one line.
    pub cause: String,
    /// What to do, one line.
    pub remedy: String,
    /// 1-based line of the log that matched.
    pub line_number: usize,
    /// That line, trimmed.
    pub line: String,
}

/// The first known failure in `log`: the server's own signatures first (`server` is its id),
/// then the generic ones; for each signature the first line that matches.
pub fn explain(server: Option<&str>, log: &str) -> Option<Explained> {
    let tables = servers().iter().filter(|s| Some(s.id.as_str()) == server);
    let tables = tables.chain(servers().iter().filter(|s| s.id == GENERIC));
    let lower: Vec<(usize, &str, String)> =
        log.lines().enumerate().map(|(i, line)| (i + 1, line, line.to_lowercase())).collect();
    tables.flat_map(|table| table.failures.iter().map(move |f| (table, f))).find_map(|(table, failure)| {
        let needles: Vec<String> = failure.any.iter().map(|n| n.to_lowercase()).collect();
        let (line_number, line, _) = lower.iter().find(|(_, _, l)| needles.iter().any(|n| l.contains(n.as_str())))?;
        Some(Explained {
            server: table.id.clone(),
            id: failure.id.clone(),
            cause: failure.cause.clone(),
            remedy: failure.remedy.clone(),
            line_number: *line_number,
            line: line.trim().chars().take(400).collect(),
        })
    })
}

/// One number of a benchmark client's summary.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BenchMetric {
    /// prof's key (`ttft_mean_ms`).
    pub key: String,
    /// The label as the client printed it.
    pub label: String,
    /// The value.
    pub value: f64,
}

/// The summary block of `client` in `output`: every labelled line (`Label:  value`) of the
/// last block whose label the table knows, and every known row of a box-drawn table in it.
/// `None` when the output holds no such block.
pub fn parse_bench(client: &BenchClient, output: &str) -> Option<Vec<BenchMetric>> {
    let start = output.rfind(&client.block_start)?;
    let mut metrics: Vec<BenchMetric> = Vec::new();
    let mut push = |key: String, label: &str, value: &str| {
        let Ok(value) = value.trim().trim_end_matches('%').trim().parse::<f64>() else { return };
        if metrics.iter().all(|m| m.key != key) {
            metrics.push(BenchMetric { key, label: label.to_owned(), value });
        }
    };
    let mut columns: Vec<String> = Vec::new();
    for line in output[start..].lines().skip(1) {
        if line.contains('│') {
            let cells: Vec<&str> = line.split('│').map(str::trim).filter(|c| !c.is_empty()).collect();
            match cells.split_first() {
                Some((&"Metric", rest)) => columns = rest.iter().map(|c| c.to_lowercase()).collect(),
                Some((label, values)) => {
                    if let Some(key) = client.table_rows.get(*label) {
                        for (column, value) in columns.iter().zip(values) {
                            push(format!("{key}_{column}"), &format!("{label} {column}"), value);
                        }
                    }
                }
                None => {}
            }
            continue;
        }
        let Some((label, value)) = line.rsplit_once(':') else { continue };
        if let Some(key) = client.labels.get(label.trim()) {
            push(key.clone(), label.trim(), value);
        }
    }
    (!metrics.is_empty()).then_some(metrics)
}

#[cfg(test)]
mod tests;
