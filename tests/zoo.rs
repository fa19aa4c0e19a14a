//! The diagnosis zoo (README "Diagnosis zoo"): every recorded run in the README's table gets
//! the answer its row names and exactly the findings its row marks, no more and no fewer; the table is read from the README,
//! so the published table and the rules cannot drift apart. Beside it, the structural numbers
//! the MoE, pageable-copy and family rules rest on are checked against the clients' own
//! configurations (scripts/device/zoo_clients.py), not against prof's code.

mod support;

use serde_json::Value;
use support::{fixture_arg, prof_json};

/// The README columns after "workload", in order, as `DiagnosisKind` names.
const COLUMNS: [&str; 12] = [
    "healthy_dense_decode",
    "moe_shape",
    "moe_expert_loop",
    "quant_prep",
    "unfused_attention",
    "unfused_norm_rope",
    "re_prefill",
    "host_bound",
    "idle_stretch",
    "pageable_copies",
    "host_syncs",
    "layout_transposes",
];

struct Row {
    path: String,
    /// The answer's verdict: `idle: launch_gaps`, `finding: pageable_copies`, `healthy`, …
    answer: String,
    expected: Vec<&'static str>,
}

/// The answer's verdict as the table spells it: a plain verdict by its name, an idle cause or a
/// finding as `idle: cause` / `finding: kind`.
fn verdict(doc: &Value) -> String {
    match &doc["answer"]["verdict"] {
        Value::String(name) => name.clone(),
        Value::Object(one) => one.iter().map(|(k, v)| format!("{k}: {}", v.as_str().unwrap_or("?"))).collect(),
        other => format!("{other}"),
    }
}

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap()
}

fn table() -> Vec<Row> {
    let rows = marked_table("zoo-table");
    assert!(rows.len() >= 20, "the zoo has its entries ({})", rows.len());
    rows
}

/// The rows of the README table between `<!-- NAME:start -->` and `<!-- NAME:end -->`.
fn marked_table(name: &str) -> Vec<Row> {
    let readme = readme();
    let start = readme.find(&format!("<!-- {name}:start -->")).expect("README has the table");
    let end = readme.find(&format!("<!-- {name}:end -->")).expect("README closes the table");
    let mut rows = Vec::new();
    for line in readme[start..end]
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| entry") && !l.starts_with("| ---"))
    {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(cells.len(), 3 + COLUMNS.len(), "zoo row has every column: {line}");
        let expected = COLUMNS
            .iter()
            .zip(&cells[3..])
            .filter_map(|(kind, cell)| match *cell {
                "✓" => Some(*kind),
                "·" => None,
                other => panic!("zoo cell `{other}` is neither ✓ nor · in {line}"),
            })
            .collect();
        rows.push(Row { path: cells[0].to_owned(), answer: cells[2].to_owned(), expected });
    }
    rows
}

fn findings(doc: &Value) -> Vec<String> {
    doc["diagnosis"]["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap().to_owned()).collect()
}

fn finding<'a>(doc: &'a Value, kind: &str) -> &'a Value {
    let all = doc["diagnosis"]["findings"].as_array().unwrap();
    all.iter().find(|f| f["kind"] == kind).unwrap_or_else(|| panic!("{kind} fired: {all:?}"))
}

fn evidence(doc: &Value, kind: &str) -> Vec<String> {
    finding(doc, kind)["evidence"].as_array().unwrap().iter().map(|e| e.as_str().unwrap().to_owned()).collect()
}

/// The number just before `marker` in `text` ("4.3 per top-k" → 4.3).
fn number_before(text: &str, marker: &str) -> f64 {
    let head = &text[..text.find(marker).unwrap_or_else(|| panic!("`{marker}` in `{text}`"))];
    head.trim_end().rsplit(' ').next().unwrap().replace(',', "").parse().unwrap()
}

#[test]
fn every_zoo_entry_gets_exactly_its_labelled_findings() {
    let mut wrong = Vec::new();
    for row in table() {
        let doc = prof_json(&["--json-full", "analyze", "--json", &fixture_arg(&row.path)]);
        let mut got = findings(&doc);
        got.retain(|k| k != "throttled"); // no zoo entry records clocks
        got.sort();
        let mut want: Vec<String> = row.expected.iter().map(|k| (*k).to_owned()).collect();
        want.sort();
        if got != want {
            wrong.push(format!("{}: prof says {got:?}, the table says {want:?}", row.path));
        }
        if verdict(&doc) != row.answer {
            wrong.push(format!("{}: prof answers `{}`, the table says `{}`", row.path, verdict(&doc), row.answer));
        }
    }
    assert!(wrong.is_empty(), "zoo entries off their labels:\n{}", wrong.join("\n"));
}

#[test]
fn the_expert_loop_is_measured_from_the_models_own_routing() {
    // qwen3-moe: Qwen3MoeConfig(num_experts_per_tok=4), batch-1 decode: each top-k selects 4
    // experts, each hit expert is scatter-added once, its GEMMs (gate_up, down) are 2 launches.
    let doc = prof_json(&["analyze", "--json", &fixture_arg("nvidia/h200-zoo/qwen3-moe.pcupti.gz")]);
    let lines = evidence(&doc, "moe_expert_loop");
    let per_topk = number_before(&lines[0], "per top-k");
    assert!((4.0..4.6).contains(&per_topk), "one scatter-add per selected expert: {per_topk} ({lines:?})");
    let per_scatter = number_before(&lines[1], "per scatter-add");
    assert!(per_scatter >= 2.0, "gate_up + down per expert: {per_scatter}");
    // The dense Mixtral path (weights of the top-2 gathered, no scatter-add loop) is no loop.
    let doc = prof_json(&["analyze", "--json", &fixture_arg("nvidia/h200-phases/hf-moe.pcupti.gz")]);
    assert!(!findings(&doc).contains(&"moe_expert_loop".to_owned()));
    assert!(evidence(&doc, "moe_shape")[0].contains("per attention kernel"), "routing from per-layer top-k");
}

#[test]
fn host_syncs_are_the_device_to_host_reads_of_the_step() {
    // moe-grouped: every sync is the host waiting for one device-to-host copy (the copies are
    // counted from the copy records, the syncs from the host API records).
    let path = fixture_arg("nvidia/h200-zoo/moe-grouped.pcupti.gz");
    let doc = prof_json(&["--json-full", "analyze", "--json", &path]);
    let lines = evidence(&doc, "host_syncs");
    let rows = doc["summary"]["kernels"].as_array().unwrap();
    let dtoh: u64 = rows
        .iter()
        .filter(|k| k["name"].as_str().unwrap().starts_with("CUDA memcpy DtoH"))
        .map(|k| k["calls"].as_u64().unwrap())
        .sum();
    let stream_syncs = number_before(lines.iter().find(|l| l.starts_with("cudaStreamSynchronize")).unwrap(), "calls");
    assert_eq!(stream_syncs, dtoh as f64, "{lines:?}");
    // 2 a layer, 8 layers a step.
    assert!(lines[0].contains("16.0 per step"), "{lines:?}");
}

#[test]
fn grouped_and_low_bit_gemms_land_in_their_families() {
    let kernels = |rel: &str| {
        let doc = prof_json(&["--json-full", "analyze", "--json", "--phase", "all", &fixture_arg(rel)]);
        doc["summary"]["kernels"].as_array().unwrap().clone()
    };
    let family_of = |rows: &[Value], part: &str| -> (String, u64) {
        let row = rows.iter().find(|k| k["name"].as_str().unwrap().contains(part)).unwrap_or_else(|| panic!("{part}"));
        (row["family"].as_str().unwrap().to_owned(), row["calls"].as_u64().unwrap())
    };
    // moe-grouped, the whole run: (5 warm-up + 60 timed steps) × 8 layers × 2 torch._grouped_mm
    // calls (zoo_clients.py).
    let rows = kernels("nvidia/h200-zoo/moe-grouped.pcupti.gz");
    assert_eq!(family_of(&rows, "GroupProblemShape"), ("grouped_matmul".to_owned(), 65 * 8 * 2));
    assert_eq!(family_of(&rows, "gatherTopK").0, "topk");
    // fp8-linear, the whole run: the FP8 GEMM and the cast to float8 that feeds it, 8 linears a
    // step, 5 warm-up + 100 timed steps.
    let rows = kernels("nvidia/h200-zoo/fp8-linear.pcupti.gz");
    let (gemm, gemm_calls) = family_of(&rows, "nvjet_sm90_qqtst");
    let (cast, cast_calls) = family_of(&rows, "float8_copy_kernel");
    assert_eq!((gemm.as_str(), cast.as_str()), ("gemm", "quantize"));
    assert_eq!((gemm_calls, cast_calls), (105 * 8, 105 * 8), "one cast per FP8 GEMM");
    // resnet-train: cuDNN's convolutions are conv, not other or gemm.
    let rows = kernels("nvidia/h200-zoo/resnet-train.pcupti.gz");
    let conv: Vec<_> = rows.iter().filter(|k| k["name"].as_str().unwrap().contains("fprop")).collect();
    assert!(!conv.is_empty() && conv.iter().all(|k| k["family"] == "conv"), "{conv:?}");
    for k in &rows {
        let name = k["name"].as_str().unwrap().to_ascii_lowercase();
        if name.contains("wgrad") || name.contains("dgrad") {
            assert_eq!(k["family"], "conv", "{name}");
        }
    }
}

/// Calls and summed time of the dtype conversions (`LoadWithCast` copies) in a report's kernel table.
fn casts_of(doc: &Value) -> (u64, u64) {
    let rows = doc["summary"]["kernels"].as_array().unwrap();
    let casts = rows.iter().filter(|k| k["name"].as_str().unwrap().contains("LoadWithCast"));
    casts.fold((0, 0), |(calls, ns), k| (calls + k["calls"].as_u64().unwrap(), ns + k["total_ns"].as_u64().unwrap()))
}

/// The int8 decode that dequantizes its weights before every matmul (zoo2_clients.py
/// `int8-dequant`: 32 linears a step, 3 warm-up + 20 timed steps, one cast of a 4096 × 4096
/// int8 weight to bf16 each): the conversions the finding counts are exactly those casts, one
/// per matmul, and the packed variant's kernel is a GEMM, not `other`.
#[test]
fn weights_converted_every_step_are_counted_from_their_casts() {
    let doc = prof_json(&[
        "--json-full",
        "analyze",
        "--json",
        "--phase",
        "all",
        &fixture_arg("nvidia/h100-zoo2/int8-dequant.pcupti.gz"),
    ]);
    let rows = doc["summary"]["kernels"].as_array().unwrap();
    let (cast_calls, _) = casts_of(&doc);
    assert_eq!(cast_calls, 23 * 32, "one cast per linear");
    let matmul_calls: u64 = rows
        .iter()
        .filter(|k| {
            k["family"] == "gemv" || (k["family"] == "gemm" && !k["name"].as_str().unwrap().contains("splitKreduce"))
        })
        .map(|k| k["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(matmul_calls, 23 * 32, "one GEMV per linear");
    let steady =
        prof_json(&["--json-full", "analyze", "--json", &fixture_arg("nvidia/h100-zoo2/int8-dequant.pcupti.gz")]);
    let lines = evidence(&steady, "quant_prep");
    assert!(lines[0].starts_with("dtype conversions (copies with a cast): "), "{lines:?}");
    let (cast_calls_steady, cast_ns) = casts_of(&steady);
    let calls = number_before(&lines[0], "calls");
    assert_eq!(calls as u64, cast_calls_steady, "{lines:?}");
    assert!(cast_ns > 0 && lines[2].starts_with("conversions / matmul = "), "{lines:?}");
    let packed =
        prof_json(&["--json-full", "analyze", "--json", &fixture_arg("nvidia/h100-zoo2/int8-packed.pcupti.gz")]);
    let top = &packed["summary"]["kernels"][0];
    assert!(top["name"].as_str().unwrap().contains("weight_int8pack_mm_kernel") && top["family"] == "gemm", "{top}");
}

#[test]
fn hta_alexnet_uploads_its_weights_from_pageable_memory() {
    // The steady answer leaves the load out; over the whole run the 16 pageable uploads are
    // 83.8 % of device time (python over the trace: sum of `Memcpy HtoD (Pageable -> Device)`
    // durations 55 503 µs of 66 141 µs of busy time).
    let path = fixture_arg("nvidia/torch/hta_a100_alexnet_benchmark_result_2869224_1695835535_trace.json.gz");
    let doc = prof_json(&["analyze", "--json", "--phase", "all", &path]);
    let lines = evidence(&doc, "pageable_copies");
    assert!(lines[0].starts_with("16 pageable copies, 55.50 ms (83.9 % of device 0's busy time"), "{lines:?}");
}

#[test]
fn pageable_copies_carry_their_bytes() {
    // pageable-loader: each step copies one 4096×4096 fp32 batch (64 MiB) from pageable memory.
    let doc = prof_json(&["analyze", "--json", &fixture_arg("nvidia/h200-zoo/pageable-loader.pcupti.gz")]);
    let lines = evidence(&doc, "pageable_copies");
    let htod = lines.iter().find(|l| l.starts_with("CUDA memcpy HtoD (Pageable -> Device)")).expect("the batch copies");
    let copies = number_before(htod, "calls");
    let mib = number_before(lines.last().unwrap(), "MiB moved");
    // Beside them only the one-scalar `.item()` copies back (4 bytes each).
    assert!((mib / copies - 64.0).abs() < 0.01, "{lines:?}");
}

/// Issue #50: `other` above 10 % of a zoo entry's device time is a defect to explain; the one
/// entry explained is a hand-written TileLang kernel whose only name is `main_kernel` (no family
/// can be told from it). The second zoo's UNet (group norm kernels) and recommender (embedding
/// backward segment kernels) had 7.4 % and 9.7 % there before their families were named; every
/// second-zoo entry (H200 and H100) keeps under 1 % there (the grouped-GEMM MoE's `bincount`
/// histogram had 1.9 %, the held-out JAX transformer's bare XLA fusions 25 %).
#[test]
fn no_zoo_entry_leaves_more_than_a_tenth_in_other() {
    const EXPLAINED: [&str; 1] = ["ascend/neo-pan_tilelang_msprof/PROF_000001_20260605155111872_JDEKRCNERPBNJEGA"];
    let mut wrong = Vec::new();
    for row in table() {
        let doc = prof_json(&["analyze", "--json", &fixture_arg(&row.path)]);
        let other = doc["summary"]["families"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["family"] == "other")
            .map_or(0.0, |f| f["share_pct"].as_f64().unwrap());
        if other > 10.0 && !EXPLAINED.contains(&row.path.as_str()) {
            wrong.push(format!("{}: other {other:.1} %", row.path));
        }
        if row.path.contains("-zoo2/") {
            assert!(other < 1.0, "{}: other {other:.1} %", row.path);
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The rules' confusion over the zoo and the held-out runs (README "Diagnosis zoo"): per rule,
/// the runs where it fired and an engineer gives it (TP), fired and should not (FP), stayed
/// silent and should have fired (FN), precision and recall. The zoo rows are asserted exactly
/// above; the held-out rows are runs whose engineer's answer prof does not (all) give, counted
/// here and not asserted, so a miss shows as recall below 1. The table in the README is this
/// test's output (`PROF_WRITE_ZOO_TABLE=1 cargo test --test zoo confusion` rewrites it); a rule
/// under 0.9 precision fails the test (it would be off by default).
#[test]
fn the_confusion_table_is_current() {
    let rows: Vec<Row> = table().into_iter().chain(marked_table("zoo-held-out")).collect();
    let mut counts = vec![[0u32; 4]; COLUMNS.len()];
    for row in &rows {
        let doc = prof_json(&["--json-full", "analyze", "--json", &fixture_arg(&row.path)]);
        let got = findings(&doc);
        for (i, kind) in COLUMNS.iter().enumerate() {
            let (fired, want) = (got.iter().any(|g| g == kind), row.expected.contains(kind));
            counts[i][match (fired, want) {
                (true, true) => 0,
                (true, false) => 1,
                (false, true) => 2,
                (false, false) => 3,
            }] += 1;
        }
    }
    let ratio =
        |a: u32, b: u32| if a + b == 0 { "–".to_owned() } else { format!("{:.2}", f64::from(a) / f64::from(a + b)) };
    let mut table = String::from(
        "| rule | fired, should (TP) | fired, should not (FP) | silent, should fire (FN) | silent (TN) | precision | recall |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n"
    );
    let mut low = Vec::new();
    for (kind, [tp, fp, fn_, tn]) in COLUMNS.iter().zip(&counts) {
        table.push_str(&format!(
            "| {kind} | {tp} | {fp} | {fn_} | {tn} | {} | {} |\n",
            ratio(*tp, *fp),
            ratio(*tp, *fn_)
        ));
        if tp + fp > 0 && f64::from(*tp) / f64::from(tp + fp) < 0.9 {
            low.push(*kind);
        }
    }
    table.push_str(&format!(
        "\n{} runs: {} zoo entries and {} held out.\n",
        rows.len(),
        table_len(),
        rows.len() - table_len()
    ));
    let readme = readme();
    let (start, end) = ("<!-- zoo-confusion:start -->\n", "<!-- zoo-confusion:end -->");
    let from = readme.find(start).expect("README has the confusion table") + start.len();
    let to = readme.find(end).expect("README closes the confusion table");
    if std::env::var_os("PROF_WRITE_ZOO_TABLE").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
        std::fs::write(path, format!("{}{table}{}", &readme[..from], &readme[to..])).unwrap();
    } else {
        assert_eq!(
            &readme[from..to],
            table,
            "the README's confusion table is stale; PROF_WRITE_ZOO_TABLE=1 rewrites it"
        );
    }
    assert!(low.is_empty(), "rules under 0.9 precision on the zoo: {low:?}");
}

fn table_len() -> usize {
    table().len()
}
