//! Readable in 80 columns (issue #53): the answer block and the diagnosis, on a report of each
//! vendor and shape, fit 80 columns when stdout is not a terminal; only a command line (the
//! next step, whole so it can be copied) or a single unbreakable word (a path) may run past.

mod support;

use support::{fixture_arg, prof_on_path, NOWHERE};

/// Lines of `text` wider than 80 that are not a lone command or a lone word.
fn too_wide(text: &str) -> Vec<String> {
    text.lines()
        .filter(|line| line.chars().count() > 80)
        .filter(|line| {
            let body = line.trim_start();
            !(body.starts_with("prof ") || !body.contains(' ') || body.split_whitespace().count() <= 2)
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn answers_and_findings_fit_80_columns() {
    let fixtures = [
        None,
        Some("nvidia/h200-zoo/resnet-train.pcupti.gz"),
        Some("nvidia/h200-zoo/qwen3-moe.pcupti.gz"),
        Some("nvidia/h200-ncu/norm-softmax-details.csv"),
        Some("amd/rocprofv3/sdk0.5_kernel_trace.csv"),
        Some("ascend/mindinsight_msprof_2dev"),
        Some("ascend/msprof-analyze_advisor_trace_view"),
        Some("xla/jax0.11_mlp_h200.xplane.pb"),
    ];
    let mut wrong = Vec::new();
    for fixture in fixtures {
        let mut args = vec!["analyze".to_owned()];
        args.extend(fixture.map(fixture_arg));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = prof_on_path(NOWHERE, &[("COLUMNS", "80")], &args);
        assert!(out.status.success(), "{fixture:?}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        // The answer block (to its blank line) and the diagnosis are prose: they must wrap.
        let answer = text.split("\n\n").next().unwrap_or_default();
        let diagnosis = text.split("\ndiagnosis:\n").nth(1).map(|d| d.split("\n\n").next().unwrap_or_default());
        for block in [Some(answer), diagnosis].into_iter().flatten() {
            wrong.extend(too_wide(block).into_iter().map(|l| format!("{fixture:?}: {l}")));
        }
        assert!(text.starts_with("answer: ") || text.starts_with("kernel: "), "{fixture:?}: {text}");
    }
    assert!(wrong.is_empty(), "lines past 80 columns:\n{}", wrong.join("\n"));
}
