//! Triton Proton profiles (`proton.finalize()`'s `*.hatchet`) into a kernel summary.
//!
//! The layout, from four public profiles (tests/fixtures/nvidia/SOURCES.md: H100, A100, B200,
//! MI300): a JSON array of two elements. The first is the call tree: nodes `{"frame": {"name",
//! "type"}, "metrics": {…}, "children": […]}` under a `ROOT` node; user scopes
//! (`proton.scope`, Triton's launch metadata names such as `matmul_kernel [M=8192, …]`) carry
//! no time or only `flops*`/`bytes`; kernel nodes carry `count` (launches), `time (ns)` (their
//! summed device time, exclusive: scopes hold none of it), `device_id` and `device_type`
//! (`CUDA` or `HIP`). The second element describes the devices: `{"CUDA": {"0": {"arch": "90",
//! "num_sms": 132, …}}}`. The tree holds no timestamps, so the profile is a table of totals:
//! a kernel's rows under different scopes are summed by name (min and max are the mean).
//!
//! A file whose tree holds no kernel node (no `device_type` metric anywhere) is an error: an
//! empty table would be wrong; so is a node whose `time (ns)` or `count` is not a number.

use prof_core::families::Families;
use prof_core::kernel_summary::{summary_from_totals, CheckedTotals, KernelRow, KernelSummary};
use prof_core::{Error, NameId, OpKind, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

#[derive(Deserialize)]
struct Node {
    frame: Frame,
    #[serde(default)]
    metrics: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    children: Vec<Node>,
}

#[derive(Deserialize)]
struct Frame {
    name: String,
}

#[derive(Deserialize, Default)]
struct Device {
    #[serde(default)]
    arch: Option<serde_json::Value>,
    #[serde(default)]
    num_sms: Option<u64>,
}

/// True when the head of the file at `path` is a JSON array whose first node has Proton's
/// `frame`/`metrics` keys (the tree's `ROOT`).
pub fn is_proton_hatchet(path: &Path) -> bool {
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head));
    read.is_ok() && looks_like(&head)
}

fn looks_like(head: &[u8]) -> bool {
    let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
        && has(b"\"frame\"")
        && has(b"\"metrics\"")
        && (has(b"\"ROOT\"") || has(b"\"time (ns)\""))
}

/// Reads the Proton profile at `path` as a ranked summary, with the devices it names.
pub fn load(path: &Path, families: &Families) -> Result<KernelSummary> {
    let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    read(&text, path, families)
}

/// Reads Proton profile `bytes` (named `path` in errors).
pub fn read(bytes: &[u8], path: &Path, families: &Families) -> Result<KernelSummary> {
    let (tree, devices): (Node, BTreeMap<String, BTreeMap<String, Device>>) =
        serde_json::from_slice(bytes).map_err(|e| {
            let what =
                if e.is_eof() { "the file ends inside its JSON (cut short?)" } else { "is not a Proton profile" };
            Error::artifact(path, e.line(), format!("{what}: {e}"))
        })?;
    let mut rows: Vec<KernelRow> = Vec::new();
    let mut sums = CheckedTotals::default();
    let mut stack = vec![(&tree, String::new())];
    while let Some((node, scope)) = stack.pop() {
        let here = if scope.is_empty() { node.frame.name.clone() } else { format!("{scope}/{}", node.frame.name) };
        if node.metrics.contains_key("device_type") {
            let number = |key: &str| -> Result<u64> {
                match node.metrics.get(key) {
                    None => Ok(0),
                    Some(v) => {
                        v.as_u64().or_else(|| v.as_f64().filter(|f| *f >= 0.0).map(|f| f.round() as u64)).ok_or_else(
                            || Error::artifact(path, 0, format!("kernel node `{here}`: `{key}` is {v}, not a count")),
                        )
                    }
                }
            };
            let (calls, total) = (number("count")?, number("time (ns)")?);
            sums.add(calls, total).map_err(|why| Error::artifact(path, 0, format!("kernel node `{here}`: {why}")))?;
            match rows.iter_mut().find(|r| r.name == node.frame.name) {
                Some(row) => {
                    row.calls += calls;
                    row.total_ns += total;
                }
                None => rows.push(row(&node.frame.name, calls, total, families)),
            }
        }
        stack.extend(node.children.iter().rev().map(|c| (c, here.clone())));
    }
    if rows.is_empty() {
        return Err(Error::artifact(
            path,
            1,
            "its call tree holds no kernel node (no node has a `device_type` metric): was the profile taken with the \
             default `proton.start()` backend while kernels ran?",
        ));
    }
    for (at, row) in rows.iter_mut().enumerate() {
        row.name_id = NameId(u32::try_from(at).unwrap_or(u32::MAX));
        row.mean_ns = if row.calls == 0 { 0.0 } else { row.total_ns as f64 / row.calls as f64 };
        row.min_ns = row.mean_ns.round() as u64;
        row.max_ns = row.min_ns;
    }
    let mut summary = summary_from_totals(path.display().to_string(), rows);
    summary.recorded_on = recorded_on(&devices);
    Ok(summary)
}

fn row(name: &str, calls: u64, total: u64, families: &Families) -> KernelRow {
    KernelRow {
        name: name.to_owned(),
        name_id: NameId(0),
        kind: OpKind::Kernel,
        family: families.classify_op(OpKind::Kernel, name, None),
        calls,
        total_ns: total,
        mean_ns: 0.0,
        min_ns: 0,
        max_ns: 0,
        share_pct: 0.0,
    }
}

/// `CUDA sm_90, 132 SMs` / `HIP gfx942, 304 CUs`, from the profile's device element.
fn recorded_on(devices: &BTreeMap<String, BTreeMap<String, Device>>) -> Option<String> {
    let mut named = Vec::new();
    for (backend, by_id) in devices {
        for device in by_id.values() {
            let arch = match &device.arch {
                Some(serde_json::Value::String(a)) => a.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            let (arch, units) = match backend.as_str() {
                "CUDA" if arch.chars().all(|c| c.is_ascii_digit()) && !arch.is_empty() => (format!("sm_{arch}"), "SMs"),
                "HIP" => (arch, "CUs"),
                _ => (arch, "SMs"),
            };
            let units = device.num_sms.map(|n| format!(", {n} {units}")).unwrap_or_default();
            let text = format!("{backend} {arch}{units}");
            if !named.contains(&text) {
                named.push(text);
            }
        }
    }
    (!named.is_empty()).then(|| named.join("; "))
}

/// Reads Triton Proton profiles (`*.hatchet`): per-kernel totals, no timeline.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProtonImporter;

impl prof_core::Importer for ProtonImporter {
    fn name(&self) -> &'static str {
        "proton-hatchet"
    }

    fn recognizes(&self, path: &Path) -> bool {
        path.is_file() && is_proton_hatchet(path)
    }

    fn recognize(&self, path: &Path) -> Option<prof_core::Recognition> {
        self.recognizes(path).then(|| {
            prof_core::Recognition::new(
                prof_core::Certainty::Signature,
                "a JSON call tree of frame/metrics nodes (Proton)",
            )
        })
    }

    fn load(&self, path: &Path) -> Result<prof_core::Timeline> {
        Err(Error::Unsupported(format!(
            "{}: a Proton profile holds per-kernel totals, not a timeline; `prof analyze` shows their ranking",
            path.display()
        )))
    }

    fn load_summary(&self, path: &Path, families: &Families) -> Option<Result<KernelSummary>> {
        Some(load(path, families))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> std::path::PathBuf {
        std::path::PathBuf::from(format!("{}/../../tests/fixtures/nvidia/proton/{name}", env!("CARGO_MANIFEST_DIR")))
    }

    /// Independent sums: every node with `device_type`, straight from serde_json::Value.
    fn sums(path: &Path) -> (usize, u64, u64) {
        let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let mut names = std::collections::BTreeSet::new();
        let (mut calls, mut total) = (0, 0);
        let mut stack = vec![&doc[0]];
        while let Some(node) = stack.pop() {
            if node["metrics"].get("device_type").is_some() {
                names.insert(node["frame"]["name"].as_str().unwrap().to_owned());
                calls += node["metrics"]["count"].as_u64().unwrap();
                total += node["metrics"]["time (ns)"].as_u64().unwrap();
            }
            stack.extend(node["children"].as_array().into_iter().flatten());
        }
        (names.len(), calls, total)
    }

    #[test]
    fn four_public_profiles_sum_as_their_trees() {
        let cases = [
            ("tritonbench_softmax_h100_proton.hatchet", "CUDA sm_90, 132 SMs"),
            ("cs336_matmul_tutorial_a100_sm80_proton.hatchet", "CUDA sm_80, 108 SMs"),
            ("triton_matmul_tutorial_b200_sm100_proton.hatchet", "CUDA sm_100, 148 SMs"),
            ("crobeck_triton_vecadd_mi300_gfx942_proton.hatchet", "HIP gfx942, 304 CUs"),
        ];
        for (name, device) in cases {
            let path = fixture(name);
            assert!(is_proton_hatchet(&path), "{name}");
            let s = load(&path, &Families::builtin()).unwrap();
            let (kernels, calls, total) = sums(&path);
            assert_eq!(
                (s.kernels.len(), s.kernels.iter().map(|k| k.calls).sum::<u64>(), s.device_ns),
                (kernels, calls, total),
                "{name}"
            );
            assert_eq!(s.recorded_on.as_deref(), Some(device), "{name}");
        }
        // The A100 tutorial: cuBLAS's kernel under two scopes (`cublas`, `torch`) is one row.
        let s = load(&fixture("cs336_matmul_tutorial_a100_sm80_proton.hatchet"), &Families::builtin()).unwrap();
        let cublas = s.kernels.iter().find(|k| k.name.starts_with("ampere_fp16_s16816gemm")).unwrap();
        assert_eq!((cublas.calls, cublas.total_ns), (20_000, 3_820_351_769 + 3_825_630_756));
    }

    #[test]
    fn a_tree_without_kernels_and_bad_metrics_are_errors() {
        let f = Families::builtin();
        let p = Path::new("x.hatchet");
        let empty = br#"[{"frame": {"name": "ROOT", "type": "function"}, "metrics": {}, "children": []}, {}]"#;
        assert!(read(empty, p, &f).unwrap_err().to_string().contains("no kernel node"));
        let bad = br#"[{"frame": {"name": "ROOT"}, "metrics": {}, "children": [{"frame": {"name": "k"},
            "metrics": {"device_type": "CUDA", "count": "x", "time (ns)": 5}}]}, {}]"#;
        let e = read(bad, p, &f).unwrap_err().to_string();
        assert!(e.contains("kernel node `ROOT/k`: `count` is \"x\""), "{e}");
        assert!(read(&empty[..40], p, &f).unwrap_err().to_string().contains("cut short"));
    }
}
