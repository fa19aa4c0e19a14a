//! Errors a person can act on: each failure path below fails (non-zero exit) with one message
//! that names what failed, says why, and says what to do, with no loader or OS error text
//! standing in for a tool's name. The table is the contract; a path added to prof gets a row.

mod support;

use support::{fixtures, prof_on_path, scratch_dir, NOWHERE};

struct Case {
    args: Vec<String>,
    /// Parts the message must hold: what failed, why, what to do.
    holds: Vec<&'static str>,
}

fn case(args: &[&str], holds: &[&'static str]) -> Case {
    Case { args: args.iter().map(|a| (*a).to_owned()).collect(), holds: holds.to_vec() }
}

#[test]
fn every_failure_says_what_why_and_what_to_do() {
    let dir = scratch_dir("errors-table");
    let unknown = dir.join("x.bin");
    std::fs::write(&unknown, "a\tb\n").unwrap();
    let bad_families = dir.join("families.txt");
    std::fs::write(&bad_families, "gemm nvjet\nBad-Name! x\n").unwrap();
    let (unknown, bad_families) = (unknown.display().to_string(), bad_families.display().to_string());
    let trace = fixtures().join("nvidia/h200-probe/torch-trace.json").display().to_string();
    let cases = [
        case(&["analyze", "/nonexistent/trace.json"], &["/nonexistent/trace.json", "no such file"]),
        case(
            &["analyze", &unknown],
            &["x.bin", "not a format prof reads", "prof analyze --help", "NVIDIA: ", "torch-trace"],
        ),
        case(
            &["analyze", "--families", "/nonexistent/f.txt", &trace],
            &["/nonexistent/f.txt", "--families", "cannot read"],
        ),
        case(
            &["analyze", "--families", &bad_families, &trace],
            &["families.txt:2", "--families", "not a family name", "built-ins:"],
        ),
        case(&["breakdown", "--", "true"], &["no accelerator found", "prof detect", "prof analyze PATH"]),
        case(&["breakdown", "--tool", "bogus", "--", "true"], &["no breakdown tool `bogus`", "have: cupti"]),
        case(&["deep-dive", "--kernel", "x", "--", "true"], &["no accelerator found", "prof analyze PATH"]),
        case(&["diff", "/nonexistent/a.json", &trace], &["/nonexistent/a.json", "no such file"]),
        case(
            &["util", "--duration", "1s"],
            &[
                "no accelerator to sample here",
                "prof analyze PATH",
                "NVIDIA: NVML (libnvidia-ml.so.1) or nvidia-smi is not installed: sudo apt-get",
            ],
        ),
    ];
    let mut wrong = Vec::new();
    for case in &cases {
        let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
        let out = prof_on_path(NOWHERE, &[], &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let missing: Vec<_> = case.holds.iter().filter(|part| !stderr.contains(*part)).collect();
        if out.status.success() || !stderr.starts_with("prof: ") || !missing.is_empty() {
            wrong.push(format!("prof {}: exit {:?}, lacks {missing:?}:\n{stderr}", args.join(" "), out.status.code()));
        }
        // No OS loader text where a tool's name belongs.
        assert!(!stderr.contains("No such file or directory is not installed"), "{stderr}");
        assert!(!stderr.contains(":0: "), "no line 0: {stderr}");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// With --json the failure document carries a `hint` where there is one thing to do: the
/// formats list for an unknown file, prof analyze for a machine without an accelerator.
#[test]
fn json_errors_carry_the_hint() {
    let dir = scratch_dir("errors-hint");
    let unknown = dir.join("Cargo.toml");
    std::fs::write(&unknown, "[workspace]\nmembers = []\n").unwrap();
    let out = prof_on_path(NOWHERE, &[], &["analyze", "--json", unknown.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["hint"], "`prof analyze --help` lists the formats prof reads, with examples", "{doc}");
    assert!(doc["message"].as_str().unwrap().contains("(INI or TOML, not JSON)"), "{doc}");
    let out = prof_on_path(NOWHERE, &[], &["util", "--json", "--duration", "1s"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["hint"].as_str().unwrap().starts_with("prof analyze PATH"), "{doc}");
}
