//! Readable in 80 columns (issue #53): the answer block and the diagnosis, on a report of each
//! vendor and shape, fit 80 columns when stdout is not a terminal; only a command line (the
//! next step, whole so it can be copied) or a single unbreakable word (a path) may run past.
//! On every fixture, the whole report fits the same way and the kernel table never shows two
//! kernels under one name.

mod support;

use support::{fixture_arg, prof_on_path, NOWHERE};

/// Lines of `text` wider than 80 that are not a lone command or a lone word.
fn too_wide(text: &str) -> Vec<String> {
    text.lines()
        .filter(|line| line.chars().count() > 80)
        .filter(|line| {
            let body = line.trim_start();
            // A command, a lone word, or a label and one word (`rank job: PATH`).
            let after_label = body.split_once(": ").map_or(body, |(_, rest)| rest);
            !(body.starts_with("prof ") || !body.contains(' ') || !after_label.contains(' '))
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

/// The names in the kernel table of a report (`#   kernel   family …`), one per row.
fn kernel_names(text: &str) -> Vec<String> {
    let mut lines = text.lines().skip_while(|l| !(l.starts_with("#   kernel") || l.starts_with("#  kernel")));
    let Some(header) = lines.next() else { return Vec::new() };
    let (from, to) = (header.find("kernel").unwrap(), header.find("family").unwrap());
    lines
        .take_while(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .map(|l| l.chars().skip(from).take(to - from).collect::<String>().trim_end().to_owned())
        .collect()
}

#[test]
fn every_fixture_fits_80_columns_and_keeps_kernel_names_apart() {
    let paths = support::every_fixture();
    assert!(paths.len() > 300, "{} fixture paths", paths.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let wrong = std::sync::Mutex::new(Vec::new());
    let (wide, tables) = (std::sync::atomic::AtomicUsize::new(0), std::sync::atomic::AtomicUsize::new(0));
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                while let Some(path) = paths.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                    let path = path.to_str().unwrap();
                    let out = prof_on_path(NOWHERE, &[("COLUMNS", "80")], &["analyze", path]);
                    let text = String::from_utf8_lossy(&out.stdout);
                    let mut found: Vec<String> =
                        text.lines().filter(|l| l.chars().count() > 80).map(|l| format!("{path}: {l}")).collect();
                    wide.fetch_add(found.len(), std::sync::atomic::Ordering::Relaxed);
                    found.retain(|l| !too_wide(l.split_once(": ").unwrap().1).is_empty());
                    let names = kernel_names(&text);
                    if !names.is_empty() {
                        tables.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    let mut seen = std::collections::HashSet::new();
                    for name in &names {
                        if !seen.insert(name) {
                            found.push(format!("{path}: two kernels print as `{name}`"));
                        }
                    }
                    wrong.lock().unwrap().extend(found);
                }
            });
        }
    });
    let wrong = wrong.into_inner().unwrap();
    assert!(wrong.is_empty(), "{} problems:\n{}", wrong.len(), wrong.join("\n"));
    // The test saw kernel tables, and the lines it let pass are only commands and paths.
    let tables = tables.into_inner();
    assert!(tables > 120, "{tables} kernel tables seen");
    eprintln!("{} lines past 80 columns, all commands or paths", wide.into_inner());
}

#[test]
fn the_kernel_table_reader_reads_every_row() {
    let out = prof_on_path(NOWHERE, &[("COLUMNS", "80")], &["analyze"]);
    let names = kernel_names(&String::from_utf8_lossy(&out.stdout));
    let json = support::prof_json(&["analyze", "--json"]);
    let kernels = json["summary"]["kernels"].as_array().unwrap().len().min(20);
    assert_eq!(names.len(), kernels, "{names:?}");
    assert!(names.iter().all(|n| !n.is_empty() && n.chars().count() <= 40), "{names:?}");
}
