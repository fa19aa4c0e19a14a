//! Help that teaches: every verb's `--help` ends with examples, and every flag an example uses
//! is one that verb takes (so the examples cannot drift from the options).

mod support;

use support::prof;

#[test]
fn every_verb_has_examples_that_use_its_own_flags() {
    for verb in ["detect", "util", "breakdown", "deep-dive", "analyze", "diff", "serve"] {
        let out = prof(&[verb, "--help"]);
        assert!(out.status.success(), "{verb}");
        let help = String::from_utf8_lossy(&out.stdout).into_owned();
        let (options, examples) =
            help.split_once("\nExamples:\n").unwrap_or_else(|| panic!("{verb} has no examples:\n{help}"));
        let commands: Vec<&str> = examples.lines().filter(|l| l.trim_start().starts_with("prof ")).collect();
        assert!(!commands.is_empty(), "{verb}: {examples}");
        assert!(commands.iter().any(|c| c.trim_start().starts_with(&format!("prof {verb}"))), "{verb}: {examples}");
        for command in commands.iter().filter(|c| c.trim_start().starts_with(&format!("prof {verb}"))) {
            let before_workload = command.split(" -- ").next().unwrap();
            // Quoted arguments (`--server 'vllm serve …'`) are the workload's, not prof's.
            let unquoted: String = before_workload.split('\'').step_by(2).collect::<Vec<_>>().join(" ");
            for flag in unquoted.split_whitespace().filter(|w| w.starts_with("--")) {
                assert!(
                    options.contains(&format!("{flag} ")) || options.contains(&format!("{flag}\n")),
                    "{verb}: {flag} in `{command}` is not an option:\n{options}"
                );
            }
        }
    }
}

#[test]
fn top_means_the_same_everywhere() {
    for verb in ["breakdown", "analyze", "diff", "serve"] {
        let help = String::from_utf8_lossy(&prof(&[verb, "--help"]).stdout).into_owned();
        let top = help.lines().skip_while(|l| !l.contains("--top")).take(3).collect::<Vec<_>>().join(" ");
        assert!(top.contains("[default: 20]"), "{verb}: {top}");
    }
}

/// A misspelt verb gets the one it resembles (`prof analyse` → `analyze`), exit 2.
#[test]
fn a_misspelt_verb_gets_a_did_you_mean() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_prof")).arg("analyse").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("a similar subcommand exists: 'analyze'"), "{stderr}");
}
