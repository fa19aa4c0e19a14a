//! Expected values come from an independent python3 script (csv module, Decimal µs → ns
//! ROUND_HALF_UP) that applies the rule of `pipe_bound` from its description: group rows by
//! (`Type`/`OP Type`, task type); duration-weighted mean of each pipe ratio (the single column,
//! else the sum of the ArithmeticUtilization per-type columns); the sides by task type; compute
//! ≥ 70 % → compute, else busiest pipe memory → memory (named: busiest memory pipe), scalar →
//! scalar, compute busiest with memory columns → memory, else below; no compute ratio → unknown.
//! `OP State` counted per value (tasks, Σ ns, distinct op types).

use super::*;
use crate::ascend_report::TOP_OPS;
use crate::pipe_bound::Bound;
use crate::test_fixtures::{fixture_path, A003_OP_SUMMARY, CANN8_GROUP, CANN8_PIPE, KERNEL_DETAILS, TRACE_VIEW};

fn approx(value: Option<f64>, expected: f64) {
    let value = value.unwrap_or(f64::NAN);
    assert!((value - expected).abs() < 1e-3, "{value} != {expected}");
}

#[test]
fn custom_matmul_is_scalar_bound_and_cast_waits_on_mte2() {
    let report = read_table(&fixture_path(A003_OP_SUMMARY)).unwrap();
    // python: total 122,540 ns; unknown 64,780 (DSARandomNormal on DSA_SQE), scalar 35,160, memory 22,600.
    assert_eq!(report.bound.total_ns, 122_540);
    assert_eq!(report.bound.by_verdict, [(Bound::Unknown, 64_780), (Bound::Scalar, 35_160), (Bound::Memory, 22_600)]);
    let [matmul, cast] = report.bound.top.as_slice() else { panic!("{:?}", report.bound.top) };
    // python: matmul_bias_activation_kernel MIX_AIC, 3 tasks, 35,160 ns, compute 16.8395 %,
    // busiest `aic_scalar_ratio` 57.8548 %, cube_utilization 31.506 %.
    assert_eq!(
        (matmul.op.as_str(), matmul.task_type.as_str(), matmul.calls),
        ("matmul_bias_activation_kernel", "MIX_AIC", 3)
    );
    assert_eq!((matmul.total_ns, matmul.verdict), (35_160, Bound::Scalar));
    approx(matmul.compute_pct, 16.8395);
    assert_eq!(matmul.limiter.map(|l| l.0), Some("cube scalar"));
    approx(matmul.limiter.map(|l| l.1), 57.8548);
    approx(matmul.cube_utilization_pct, 31.506);
    // python: Cast AI_VECTOR_CORE, 6 tasks, 22,600 ns, vector 1.7582 %, aiv_mte2 33.9296 % → memory.
    assert_eq!((cast.op.as_str(), cast.calls, cast.total_ns, cast.verdict), ("Cast", 6, 22_600, Bound::Memory));
    approx(cast.compute_pct, 1.7582);
    assert_eq!(cast.limiter.map(|l| l.0), Some("MTE2 (GM→UB loads)"));
    approx(cast.limiter.map(|l| l.1), 33.9296);
    // python: OP State dynamic 12 tasks 87,380 ns 2 types; static 3 tasks 35,160 ns 1 type.
    let states: Vec<(&str, u64, u64, usize)> =
        report.op_state.iter().flatten().map(|s| (s.state.as_str(), s.tasks, s.total_ns, s.op_types)).collect();
    assert_eq!(states, [("dynamic", 12, 87_380, 2), ("static", 3, 35_160, 1)]);
    assert!(report.notes.is_empty(), "{:?}", report.notes);
}

#[test]
fn grouped_matmul_is_memory_bound_on_mte2() {
    let report = analyze(&fixture_path(CANN8_PIPE)).unwrap().unwrap();
    // python: GroupedMatmul MIX_AIC 26,661 ns, aic_mac 0.7 %, busiest aic_mte2 44.0 %, cube_utilization 87.384 %;
    // OnesLike AI_VECTOR_CORE 2 tasks 12,661 ns, vector 2.5822 %, busiest aiv_scalar 19.008 % → scalar.
    let [gmm, ones] = report.bound.top.as_slice() else { panic!("{:?}", report.bound.top) };
    assert_eq!((gmm.op.as_str(), gmm.total_ns, gmm.verdict), ("GroupedMatmul", 26_661, Bound::Memory));
    approx(gmm.compute_pct, 0.7);
    assert_eq!(gmm.limiter.map(|l| l.0), Some("MTE2 (GM→AI Core loads)"));
    approx(gmm.limiter.map(|l| l.1), 44.0);
    approx(gmm.cube_utilization_pct, 87.384);
    assert_eq!((ones.op.as_str(), ones.calls, ones.total_ns, ones.verdict), ("OnesLike", 2, 12_661, Bound::Scalar));
    approx(ones.limiter.map(|l| l.1), 19.008);
    let states: Vec<(&str, u64)> = report.op_state.iter().flatten().map(|s| (s.state.as_str(), s.tasks)).collect();
    assert_eq!(states, [("dynamic", 3)]);
}

#[test]
fn arithmetic_utilization_export_says_what_it_cannot_tell() {
    let report = read_table(&fixture_path(KERNEL_DETAILS)).unwrap();
    // python: total 396,807,040 ns; unknown 349,360,500 (HCCL, AI_CPU, DSA), below 33,020,760, compute 14,425,780.
    assert_eq!(report.bound.total_ns, 396_807_040);
    assert_eq!(
        report.bound.by_verdict,
        [(Bound::Unknown, 349_360_500), (Bound::BelowCompute, 33_020_760), (Bound::Compute, 14_425_780)]
    );
    // python: top AI Core op MatMul AI_CORE 9 tasks 14,070,560 ns, aic_mac_fp16+int8 88.1801 % → compute;
    // then ApplyAdamW 28 tasks 12,939,380 ns vector 21.858 % → below.
    let top: Vec<(&str, u64, Bound)> =
        report.bound.top.iter().map(|o| (o.op.as_str(), o.total_ns, o.verdict)).collect();
    assert_eq!(top[..2], [("MatMul", 14_070_560, Bound::Compute), ("ApplyAdamW", 12_939_380, Bound::BelowCompute)]);
    approx(report.bound.top[0].compute_pct, 88.1801);
    assert_eq!(report.bound.top.len(), TOP_OPS);
    assert!(report.op_state.is_none());
    assert!(report.notes.iter().any(|n| n.contains("no memory pipe columns")), "{:?}", report.notes);
    assert!(report.notes.iter().any(|n| n.contains("no `OP State` column")), "{:?}", report.notes);
}

#[test]
fn a_directory_without_op_table_names_what_is_skipped() {
    let dir = fixture_path(TRACE_VIEW).parent().unwrap().to_owned();
    let reason = analyze(&dir).unwrap().unwrap_err();
    assert!(reason.contains("no op table (kernel_details.csv / op_summary_*.csv)"), "{reason}");
    assert!(reason.contains("compute-bound and static/dynamic checks are skipped"), "{reason}");
    assert!(analyze(&fixture_path(CANN8_GROUP)).unwrap_err().to_string().contains("several profiles"));
}

#[test]
fn bad_ratio_values_name_the_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("prof-ascend-analysis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("op_summary_1.csv");
    let text = std::fs::read_to_string(fixture_path(CANN8_PIPE).join("op_summary_20260823165335.csv")).unwrap();
    std::fs::write(&path, text.replacen(",0.055,0.015,", ",0.055,fast,", 1)).unwrap();
    let err = read_table(&path).unwrap_err().to_string();
    assert!(err.contains("op_summary_1.csv:2") && err.contains("aiv_vec_ratio") && err.contains("`fast`"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plain_decimals_read_as_str_parse_reads_them() {
    let mut texts: Vec<String> =
        ["0", "0.0822", "87.4", "100", "0.001", ".5", "5.", "123456789012345", "0.00000000000001"]
            .iter()
            .map(|t| t.to_string())
            .collect();
    // Every ratio with up to six decimals that a pipe column holds, and then some.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let digits = (x % 15 + 1) as u32;
        let value = x % 10u64.pow(digits);
        let point = (x >> 32) as usize % (digits as usize + 1);
        let text = format!("{value:0width$}", width = digits as usize);
        texts.push(format!("{}.{}", &text[..text.len() - point], &text[text.len() - point..]));
    }
    for text in &texts {
        assert_eq!(crate::op_checks::plain_decimal(text), text.parse::<f64>().ok(), "{text}");
    }
    for other in ["", ".", "1e3", "-1", "1.2.3", "N/A", "1234567890123456", "nan", "+1"] {
        assert_eq!(crate::op_checks::plain_decimal(other), None, "{other}");
    }
}
