//! `prof schema [NAME]`: the JSON Schema of each document prof prints with `--json`, generated
//! from the Rust types that write them (schemars), so a schema cannot drift from its output.
//! The repository ships them in `schemas/` (`prof schema --write schemas`), and the test suite
//! validates every document it reads against them.

use crate::failure::{Failure, Kind};
use crate::stdout::write_stdout;
use clap::Args;
use serde_json::Value;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `prof schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The document (`prof.breakdown.v1`, …); without it, the list of documents.
    name: Option<String>,
    /// Write every schema to DIR/NAME.json instead.
    #[arg(long, value_name = "DIR", conflicts_with = "name")]
    write: Option<PathBuf>,
}

/// A schema's generator.
type Generate = fn() -> schemars::Schema;

/// Every document prof prints, with its schema's generator.
pub const DOCUMENTS: [(&str, Generate); 11] = [
    ("prof.detect.v1", super::detect::json_schema),
    ("prof.util.v1", super::util::json_schema),
    ("prof.breakdown.v1", || schemars::schema_for!(crate::breakdown_view::BreakdownReport<'static>)),
    ("prof.deep-dive.v1", || schemars::schema_for!(crate::deep_dive_view::DeepDiveReport<'static>)),
    ("prof.ranks.v1", super::analyze_ranks::json_schema),
    ("prof.job.v1", || schemars::schema_for!(super::analyze_job::JobDocument<'static>)),
    // Not printed: the file `--rank-summary` writes and `prof analyze DIR` merges.
    ("prof.rank-summary.v1", || schemars::schema_for!(prof_core::rank_summary::RankSummary)),
    ("prof.diff.v1", super::diff::json_schema),
    ("prof.serve.v1", || schemars::schema_for!(crate::serve::report::ServeReport)),
    ("prof.profile.v1", || schemars::schema_for!(crate::commands::profile::ProfileReport)),
    ("prof.error.v1", || schemars::schema_for!(crate::failure::Failure)),
];

/// The schema of document `name`: generated, with its name as `$id` and title and its
/// `schema` field pinned to the name.
pub fn schema(name: &str) -> Option<Value> {
    let (_, generate) = DOCUMENTS.iter().find(|(n, _)| *n == name)?;
    let mut schema = generate().to_value();
    schema["$id"] = format!("https://prof.dev/schemas/{name}.json").into();
    schema["title"] = name.into();
    schema["properties"]["schema"] =
        serde_json::json!({ "const": name, "description": "the document's name and version" });
    // Added to every document by `--json`'s bound (see `crate::render::bound_json`).
    schema["properties"]["truncated"] = serde_json::json!({
        "description": "the lists cut to their first rows (absent when none was; --json-full gives every row)",
        "type": "array",
        "items": {
            "type": "object",
            "required": ["path", "kept", "of"],
            "properties": {
                "path": { "type": "string", "description": "the list, as dotted keys and indices" },
                "kept": { "type": "integer", "minimum": 0 },
                "of": { "type": "integer", "minimum": 0 }
            }
        }
    });
    Some(schema)
}

/// Runs `prof schema`.
pub fn run(args: &SchemaArgs) -> Result<ExitCode, Failure> {
    if let Some(dir) = &args.write {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for (name, _) in DOCUMENTS {
            let path = dir.join(format!("{name}.json"));
            let text = text(name).unwrap_or_default();
            crate::output_file::write_bytes(&path, text.as_bytes())?;
            eprintln!("wrote {}", path.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let Some(name) = &args.name else {
        for (name, _) in DOCUMENTS {
            write_stdout(format_args!("{name}\n"));
        }
        return Ok(ExitCode::SUCCESS);
    };
    match text(name) {
        Some(text) => {
            crate::stdout::write_json_stdout(&text);
            Ok(ExitCode::SUCCESS)
        }
        None => {
            let known: Vec<&str> = DOCUMENTS.iter().map(|(n, _)| *n).collect();
            Err(Failure::new(Kind::Usage, format!("no document `{name}` (have: {})", known.join(", "))))
        }
    }
}

/// The schema of `name` as the file holds it: pretty JSON and a newline.
pub fn text(name: &str) -> Option<String> {
    let schema = schema(name)?;
    Some(format!("{}\n", serde_json::to_string_pretty(&schema).unwrap_or_default()))
}
