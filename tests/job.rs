//! Jobs of many ranks (issue #55): rank summaries written by `prof analyze TRACE --rank-summary`
//! from a real rank of the 8-rank DLRM job, then 1,024 ranks built from it with planted causes
//! (scripts/bench/rank_job.py), merged by `prof analyze DIR`: the slow rank, the late rank and
//! the slow link are each named, and a job without plants is balanced.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::{fixtures, prof, prof_json, scratch_dir, success_json};

const DLRM: &str = "nvidia/torch/tb_dlrm_kineto_8ranks";

/// The rank summaries of the 8 DLRM ranks, written into `dir`.
fn dlrm_summaries(dir: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    let mut traces: Vec<PathBuf> =
        std::fs::read_dir(fixtures().join(DLRM)).unwrap().map(|e| e.unwrap().path()).collect();
    traces.sort();
    traces
        .iter()
        .enumerate()
        .map(|(rank, trace)| {
            let out = dir.join(format!("rank{rank}.rank-summary.json"));
            let rank = rank.to_string();
            let args = ["analyze", "--phase", "all", "--rank-summary", out.to_str().unwrap(), "--rank", &rank];
            let status = prof(&[&args[..], &[trace.to_str().unwrap()]].concat());
            assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
            out
        })
        .collect()
}

fn build_job(base: &Path, out: &Path, plants: &[&str]) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/bench/rank_job.py");
    let status = Command::new("python3")
        .arg(script)
        .args([base.to_str().unwrap(), out.to_str().unwrap(), "--ranks", "1024", "--repeat", "30"])
        .args(plants)
        .output()
        .expect("python3 runs the job builder");
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
}

/// The summaries hold what the traces hold, and merged they give the slowest rank `prof analyze`
/// gives on the raw traces (rank 3, median 14.70 ms); 8 collectives are too few to name a rank
/// the job waits on.
#[test]
fn summaries_of_the_dlrm_ranks_agree_with_the_raw_traces() {
    let dir = scratch_dir("job-dlrm");
    let summaries = dlrm_summaries(&dir);
    let rank0: serde_json::Value = serde_json::from_slice(&std::fs::read(&summaries[0]).unwrap()).unwrap();
    assert_eq!(rank0["schema"], "prof.rank-summary.v1");
    // worker0's trace: 5 ncclKernel_SendRecv and 3 ncclKernel_AllReduce launches (zcat | grep -c).
    let ops: Vec<&str> = rank0["collectives"].as_array().unwrap().iter().map(|c| c["op"].as_str().unwrap()).collect();
    assert_eq!((ops.iter().filter(|o| **o == "send_recv").count(), ops.len()), (5, 8), "{ops:?}");
    let raw = prof_json(&["analyze", "--json", &fixtures().join(DLRM).display().to_string()]);
    let merged = prof_json(&["analyze", "--json", dir.to_str().unwrap()]);
    assert_eq!(merged["schema"], "prof.job.v1");
    assert_eq!(merged["ranks"], 8);
    assert_eq!(merged["slowest"]["rank"], raw["slowest"]["rank"]);
    assert_eq!(merged["slowest"]["median_wall_ns"], raw["slowest"]["median_wall_ns"]);
    assert!(merged["straggler"].is_null(), "{}", merged["straggler"]);
    assert!(merged["answer"].as_str().unwrap().starts_with("too little to tell"), "{}", merged["answer"]);
}

/// 1,024 ranks: each planted cause is named, with its rank; without plants nothing is.
#[test]
fn a_thousand_ranks_name_each_planted_cause() {
    let dir = scratch_dir("job-1k");
    let base = dlrm_summaries(&dir.join("dlrm")).remove(0);
    let planted = dir.join("planted");
    build_job(&base, &planted, &["--slow", "17", "--late", "900", "--link", "42"]);
    let out = prof(&["analyze", "--json", "--json-full", planted.to_str().unwrap()]);
    let job = success_json(&out);
    assert_eq!(job["ranks"], 1024);
    assert_eq!(job["straggler"]["rank"], 17, "{}", job["straggler"]);
    assert_eq!(job["straggler"]["cause"], "slow compute");
    assert_eq!(job["late_start"]["rank"], 900, "{}", job["late_start"]);
    assert_eq!(job["late_start"]["late_ns"], 5_000_000);
    let links: Vec<u64> = job["links"].as_array().unwrap().iter().map(|l| l["rank"].as_u64().unwrap()).collect();
    assert_eq!(links, [42]);
    assert!(job["answer"].as_str().unwrap().starts_with("the job waits on rank 17"), "{}", job["answer"]);
    assert_eq!(job["rows"].as_array().unwrap().len(), 1024, "--json-full keeps every rank");

    let balanced = dir.join("balanced");
    build_job(&base, &balanced, &[]);
    let job = prof_json(&["analyze", "--json", balanced.to_str().unwrap()]);
    assert!(job["straggler"].is_null() && job["late_start"].is_null(), "{job}");
    assert_eq!(job["links"].as_array().unwrap().len(), 0);
    assert!(job["answer"].as_str().unwrap().starts_with("balanced"), "{}", job["answer"]);
    assert_eq!(job["rows"].as_array().unwrap().len(), 100, "a list is bounded without --json-full");

    let text = String::from_utf8(prof(&["analyze", planted.to_str().unwrap()]).stdout).unwrap();
    assert!(text.starts_with("answer: the job waits on rank 17"), "{text}");
    assert!(text.contains("rank 900 started late") && text.contains("rank 42's collectives"), "{text}");
}

/// A summary that is not one (bad JSON, another schema) is named; the others are merged.
#[test]
fn a_broken_summary_is_named_and_the_rest_merged() {
    let dir = scratch_dir("job-broken");
    dlrm_summaries(&dir);
    std::fs::write(dir.join("rank8.rank-summary.json"), b"{\"schema\": \"prof.rank-summary.v1\", \"rank\": ").unwrap();
    let job = prof_json(&["analyze", "--json", dir.to_str().unwrap()]);
    assert_eq!(job["ranks"], 8);
    let failed = job["failed"][0].as_str().unwrap();
    assert!(failed.contains("rank8.rank-summary.json") && failed.contains("line 1"), "{failed}");
    for (file, why) in [("/tmp/x.json", "name it"), ("/nowhere/x.rank-summary.json", "no directory /nowhere")] {
        let refused = prof(&["analyze", "--rank-summary", file]);
        assert_eq!(refused.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&refused.stderr).contains(why));
    }
}
