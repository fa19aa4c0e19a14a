//! How close to the hardware (issue #56): prof's achieved FLOP/s on traces recorded with
//! shapes against a hand computation made apart from prof (`scripts/roofline_expected.py` over
//! the same file), against the CUDA-event timings the recording client measured outside the
//! profiler, and the share of the device's peak that a large bf16 GEMM reaches.

mod support;

use serde_json::Value;
use support::{fixture_arg, prof_json};

fn roofline(rel: &str) -> (Value, Value) {
    let doc = prof_json(&["analyze", &fixture_arg(rel), "--phase", "all", "--json", "--json-full"]);
    (doc["analyses"]["roofline"].clone(), doc["answer"].clone())
}

fn expected(rel: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(support::fixtures().join(rel)).expect("expected file");
    serde_json::from_str::<Value>(&text).expect("json").as_array().expect("rows").clone()
}

/// Every op row the hand computation has agrees within 1 % (FLOPs exact, rate within 1 %).
fn assert_rows_agree(roofline: &Value, expected: &[Value]) {
    let rows: Vec<&Value> = roofline["worst"].as_array().expect("worst").iter().collect();
    let mut matched = 0;
    for want in expected {
        let op = want["op"].as_str().unwrap();
        let per_call = want["flops_per_call"].as_f64().unwrap();
        // Two shapes of one op may have equal FLOPs (N512 K2048, N2048 K512): the kernel time
        // tells them apart.
        let time_ns = (want["kernel_us"].as_f64().unwrap() * 1000.0).round() as u64;
        let Some(row) = rows.iter().find(|r| {
            r["op"] == op
                && (r["flops"].as_f64().unwrap() / r["calls"].as_f64().unwrap() - per_call).abs() < 0.5
                && r["time_ns"].as_u64().unwrap().abs_diff(time_ns) <= 1
        }) else {
            continue; // not among the worst rows listed
        };
        matched += 1;
        assert_eq!(row["calls"].as_u64(), want["calls"].as_u64(), "{op} {per_call}");
        let (got, hand) = (row["tflops"].as_f64().unwrap(), want["tflops"].as_f64().unwrap());
        assert!((got - hand).abs() <= hand * 0.01, "{op} {per_call}: prof {got} TFLOP/s, hand {hand}");
    }
    assert!(matched >= expected.len().min(4), "only {matched} of {} hand rows among prof's", expected.len());
}

#[test]
fn h200_ops_of_known_shapes_agree_with_the_hand_computation() {
    let (r, answer) = roofline("nvidia/h200-shapes/shapes.pt.trace.json.gz");
    assert_eq!(r["peaks"]["name"], "H200 SXM");
    assert_eq!(r["enough"], true);
    assert_rows_agree(&r, &expected("nvidia/h200-shapes/roofline.expected.json"));
    // The 8192³ bf16 GEMM: at 60–90 % of the dense bf16 peak (989.5 TFLOP/s), compute-bound.
    let big = r["worst"].as_array().unwrap().iter().find(|w| w["op"] == "aten::mm" && w["dtype"] == "bf16").unwrap();
    let share = big["efficiency_pct"].as_f64().unwrap();
    assert!((60.0..=90.0).contains(&share), "bf16 8192 GEMM at {share} % of peak");
    assert_eq!(big["compute_bound"], true);
    // The elementwise add streams 3 × 128 MiB: bandwidth-bound, near the 4.8 TB/s of HBM3e.
    let add = r["classes"].as_array().unwrap().iter().find(|c| c["class"] == "elementwise").unwrap();
    assert!(add["tbps"].as_f64().unwrap() > 3.5 && add["tbps"].as_f64().unwrap() < 4.8, "{add}");
    // Time lost stands beside idle time in the answer, over the same covered time.
    let e = &answer["efficiency"];
    assert_eq!(e["covered_ns"], r["covered_ns"]);
    assert_eq!(e["lost_ns"], r["lost_ns"]);
    let classes: u64 = r["classes"].as_array().unwrap().iter().map(|c| c["time_ns"].as_u64().unwrap()).sum();
    assert_eq!(classes, r["covered_ns"].as_u64().unwrap(), "class rows add up to the covered time");
}

/// The client timed each op with CUDA events outside the profiler: the trace's rates (kernel
/// time only, no launch gaps) are within 10 % of them for the long ops.
#[test]
fn h200_rates_match_the_clients_cuda_event_timings() {
    let (r, _) = roofline("nvidia/h200-shapes/shapes.pt.trace.json.gz");
    let text = std::fs::read_to_string(support::fixtures().join("nvidia/h200-shapes/shapes.expected.json")).unwrap();
    let client: Value = serde_json::from_str(&text).unwrap();
    let rows = r["worst"].as_array().unwrap();
    for (name, op, dtype) in [("mm_bf16_8192", "aten::mm", "bf16"), ("scaled_mm_fp8", "aten::_scaled_mm", "f8e4m3")] {
        let want = client["ops"][name]["tflops"].as_f64().unwrap();
        let row = rows.iter().find(|w| w["op"] == op && w["dtype"] == dtype).unwrap();
        let got = row["tflops"].as_f64().unwrap();
        assert!((got - want).abs() <= want * 0.10, "{name}: trace {got} TFLOP/s, CUDA events {want}");
    }
}

#[test]
fn h100_bert_agrees_with_the_hand_computation() {
    let (r, _) = roofline("nvidia/torch/tracelens_h100_bert_small_traceEvents_first.json.gz");
    assert_eq!(r["peaks"]["name"], "H100 SXM");
    assert_rows_agree(&r, &expected("nvidia/torch/tracelens_h100_bert_small.roofline.expected.json"));
}

/// A device the peak table does not know: achieved rates, no share of a bound, no efficiency
/// line in the answer (never a guessed peak).
#[test]
fn unknown_device_gets_rates_and_no_bound() {
    let (r, answer) = roofline("nvidia/torch/hta_mi250_minitoy_train_ROCm6_2_kineto.json.gz");
    assert!(r["peaks"].is_null(), "{}", r["peaks"]);
    assert!(r["worst"].as_array().unwrap().iter().all(|w| w["efficiency_pct"].is_null()));
    assert!(answer.get("efficiency").is_none());
}

/// A trace without shapes has no roofline section at all.
#[test]
fn no_shapes_no_roofline() {
    let doc = prof_json(&[
        "analyze",
        &fixture_arg("nvidia/torch/hta_v100_resnet_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"),
        "--json",
    ]);
    assert!(doc["analyses"].get("roofline").is_none());
}

/// The cells of one CSV line, quotes honoured (TraceLens writes tuples and dicts in quotes).
fn csv_cells(line: &str) -> Vec<String> {
    let (mut cells, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => cells.push(std::mem::take(&mut cell)),
            c => cell.push(c),
        }
    }
    cells.push(cell);
    cells
}

/// (GFLOPs per call, calls, kernel µs summed) of each row of a TraceLens sheet.
fn tracelens_rows(rel: &str) -> Vec<(f64, u64, f64)> {
    let text = std::fs::read_to_string(support::fixtures().join(rel)).expect("TraceLens sheet");
    let mut lines = text.lines();
    let header = csv_cells(lines.next().unwrap());
    let at = |name: &str| header.iter().position(|h| h == name).unwrap_or_else(|| panic!("{name} in {rel}"));
    let (gflops, count, time) = (at("GFLOPS_first"), at("name_count"), at("Kernel Time (µs)_sum"));
    lines
        .map(csv_cells)
        .map(|c| (c[gflops].parse().unwrap(), c[count].parse().unwrap(), c[time].parse().unwrap()))
        .collect()
}

/// Side by side with AMD TraceLens (its GEMM and SDPA sheets of the same traces, from
/// `scripts/bench/tracelens_roofline.sh`): the same FLOPs per call (TraceLens adds a bias's
/// M·N to addmm: under 0.1 %) and the same rate within 1 % over the op's total time (TraceLens
/// times an op by every device event under it, the GEMM's 0.8 µs memset included; prof by its
/// kernels).
#[test]
fn gemm_and_attention_rates_agree_with_tracelens() {
    for (trace, sheets) in [
        ("nvidia/h200-shapes/shapes.pt.trace.json.gz", "tracelens/h200_shapes"),
        ("nvidia/torch/tracelens_h100_bert_small_traceEvents_first.json.gz", "tracelens/h100_bert"),
        ("nvidia/torch/tracelens_mi300x_torch_compile_triton_rocm7.2.json.gz", "tracelens/mi300x_compile"),
    ] {
        let doc = prof_json(&["analyze", &fixture_arg(trace), "--phase", "all", "--json", "--json-full"]);
        let rows = doc["analyses"]["roofline"]["worst"].as_array().expect("rows").clone();
        let mut compared = 0;
        for sheet in ["GEMM.csv", "SDPA_fwd.csv"] {
            for (gflops, calls, time_us) in tracelens_rows(&format!("{sheets}/{sheet}")) {
                let theirs = gflops * 1e9 * calls as f64 / (time_us * 1e-6) / 1e12;
                let Some(row) = rows.iter().find(|r| {
                    let per_call = r["flops"].as_f64().unwrap() / r["calls"].as_f64().unwrap();
                    r["calls"].as_u64() == Some(calls)
                        && (per_call - gflops * 1e9).abs() <= gflops * 1e9 * 0.001
                        && (r["time_ns"].as_f64().unwrap() / 1e3 - time_us).abs() <= time_us * 0.05
                }) else {
                    continue; // not among prof's worst rows
                };
                compared += 1;
                let ours = row["tflops"].as_f64().unwrap();
                let our_us = row["time_ns"].as_f64().unwrap() / 1e3;
                if (our_us - time_us).abs() <= time_us * 0.01 {
                    assert!((ours - theirs).abs() <= theirs * 0.01, "{trace} {sheet}: prof {ours}, TraceLens {theirs}");
                } else {
                    // TraceLens timed more device events under the op (a bmm's 2.5 µs beside its
                    // kernel): the same FLOPs, so the rates differ by exactly the times' ratio.
                    let explained = theirs * time_us / our_us;
                    assert!(
                        (ours - explained).abs() <= explained * 0.005,
                        "{trace} {sheet}: prof {ours}, TraceLens {theirs} over {time_us} µs against prof's {our_us} µs"
                    );
                }
            }
        }
        assert!(compared >= 3, "{trace}: only {compared} rows compared with TraceLens");
    }
}

/// Ascend op tables carry `Input Shapes` and `Input Data Types`: CANN's matmuls are rated (the
/// shared dimension is K, so `4096,12288;6144,12288` is M4096 N6144 K12288 with x2 transposed).
/// python over the file: its two rows of those shapes take 4,096.44 µs. No Ascend peak is in the
/// table: rates, no bound.
#[test]
fn ascend_matmuls_are_rated_from_their_table_shapes() {
    let (r, answer) = roofline("ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv");
    assert!(r["peaks"].is_null());
    assert!(answer.get("efficiency").is_none());
    let row = r["worst"].as_array().unwrap().iter().find(|w| w["shape"] == "M4096 N6144 K12288").expect("the matmul");
    assert_eq!(
        (row["op"].as_str(), row["calls"].as_u64(), row["dtype"].as_str()),
        (Some("MatMul"), Some(2), Some("f16"))
    );
    let hand = 2.0 * 2.0 * 4096.0 * 6144.0 * 12288.0 / 4096.44e-6 / 1e12;
    let got = row["tflops"].as_f64().unwrap();
    assert!((got - hand).abs() <= hand * 0.001, "prof {got}, hand {hand}");
}
