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

/// A job of `ranks` summaries built from `base` by scripts/bench/rank_job.py, its span repeated
/// `repeat` times, with `plants`.
fn build_job(base: &Path, out: &Path, ranks: u32, repeat: u32, plants: &[&str]) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/bench/rank_job.py");
    let (ranks, repeat) = (ranks.to_string(), repeat.to_string());
    let status = Command::new("python3")
        .arg(script)
        .args([base.to_str().unwrap(), out.to_str().unwrap(), "--ranks", &ranks, "--repeat", &repeat])
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
    // One summary alone is a job of one rank.
    let one = prof_json(&["analyze", "--json", summaries[3].to_str().unwrap()]);
    assert_eq!((one["ranks"].as_u64(), one["rows"][0]["rank"].as_u64()), (Some(1), Some(3)));
}

/// 1,024 ranks: each planted cause is named, with its rank; without plants nothing is.
#[test]
fn a_thousand_ranks_name_each_planted_cause() {
    let dir = scratch_dir("job-1k");
    let base = dlrm_summaries(&dir.join("dlrm")).remove(0);
    let planted = dir.join("planted");
    build_job(&base, &planted, 1024, 30, &["--slow", "17", "--late", "900", "--link", "42"]);
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
    build_job(&base, &balanced, 1024, 30, &[]);
    let job = prof_json(&["analyze", "--json", balanced.to_str().unwrap()]);
    assert!(job["straggler"].is_null() && job["late_start"].is_null(), "{job}");
    assert_eq!(job["links"].as_array().unwrap().len(), 0);
    assert!(job["answer"].as_str().unwrap().starts_with("balanced"), "{}", job["answer"]);
    assert_eq!(job["rows"].as_array().unwrap().len(), 100, "a list is bounded without --json-full");

    let job = prof_json(&["analyze", "--json", planted.to_str().unwrap()]);
    let heat = &job["heat"];
    let rows: Vec<u64> = heat["ranks"].as_array().unwrap().iter().map(|r| r.as_u64().unwrap()).collect();
    assert!(rows.len() <= 64 && heat["steps"].as_array().unwrap().len() <= 64, "the heat map is bounded");
    assert!([17, 42, 900].iter().all(|r| rows.contains(r)), "the named ranks are rows: {rows:?}");
    let late = rows.iter().position(|&r| r == 900).unwrap();
    assert_eq!(heat["late_ns"][late][0], 5_000_000, "rank 900 started step 0 late");
    let page = dir.join("job.html");
    let out = prof(&["analyze", "--html", page.to_str().unwrap(), planted.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("rank 900, step 0: started 5.00 ms after the earliest rank"), "the heat map names the cell");
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
    // Parses, but a window ends before it starts: named with the entry, not merged.
    let mut bad: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("rank0.rank-summary.json")).unwrap()).unwrap();
    bad["rank"] = 9.into();
    bad["collectives"][2]["end_ns"] = 0.into();
    std::fs::write(dir.join("rank9.rank-summary.json"), serde_json::to_vec(&bad).unwrap()).unwrap();
    let job = prof_json(&["analyze", "--json", dir.to_str().unwrap()]);
    assert_eq!(job["ranks"], 8);
    let failed: Vec<&str> = job["failed"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert!(
        failed.iter().any(|f| f.contains("rank9.rank-summary.json: collectives[2] ends before it starts")),
        "{failed:?}"
    );
    for (file, why) in
        [("/tmp/x.json", "name it"), ("/nowhere/x.rank-summary.json", "the directory /nowhere does not exist")]
    {
        let refused = prof(&["analyze", "--rank-summary", file]);
        assert_eq!(refused.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&refused.stderr).contains(why));
    }
}

/// Under a launcher (here the variables `srun` sets, and torchrun's), each rank writes into
/// its own `--out/rank<R>`: `prof breakdown` leaves its rank summary beside its capture (the
/// fake rocprofv3 replays a recorded run), `prof util` samples only on local rank 0 and the
/// node's other ranks just run the command.
#[test]
fn under_a_launcher_each_rank_writes_its_own_and_the_node_is_sampled_once() {
    let dir = scratch_dir("job-launcher");
    let out = dir.join("out");
    let slurm = [("SLURM_PROCID", "5"), ("SLURM_LOCALID", "1"), ("SLURM_NTASKS", "8")];
    let args = ["breakdown", "--tool", "rocprofv3", "--warmup", "0", "--out", out.to_str().unwrap(), "--", "true"];
    let o = support::prof_with_fakes("amd", &slurm, &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = out.join("rank5/rank5.rank-summary.json");
    let written: serde_json::Value = serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    assert_eq!((written["rank"].as_u64(), written["world_size"].as_u64()), (Some(5), Some(8)));
    assert!(written["top_kernels"][0][0].as_str().unwrap().contains("addition_kernel"), "{written}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("rank summary: "), "the report names it");
    let mut json_args = args.to_vec();
    json_args.insert(1, "--json");
    let doc = success_json(&support::prof_with_fakes("amd", &slurm, &json_args));
    assert_eq!(doc["rank_summary"], summary.to_str().unwrap(), "the JSON names it too");

    let marker = dir.join("ran");
    let script = format!("echo run >> {}", marker.display());
    let o =
        support::prof_with_fakes("amd", &slurm, &["util", "--out", out.to_str().unwrap(), "--", "sh", "-c", &script]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("sampled by its local rank 0"));
    assert!(marker.is_file() && out.join("rank5/util-workload.log").is_file(), "the command ran, logged per rank");
    let torchrun = [("RANK", "0"), ("LOCAL_RANK", "0"), ("WORLD_SIZE", "8")];
    let o =
        support::prof_with_fakes("amd", &torchrun, &["util", "--json", "--out", out.to_str().unwrap(), "--", "true"]);
    let doc = success_json(&o);
    assert_eq!(doc["schema"], "prof.util.v1", "local rank 0 samples");
    assert!(out.join("rank0/util-workload.log").is_file());
}

/// `--rank-summaries DIR` on a directory of ranks writes one summary a rank; merged, they give
/// the raw analysis's answers: the 16-rank Ascend job (splits from its cluster step-trace table,
/// no op timelines) and the 8-rank DLRM job name the same slowest rank with the same median,
/// and the Ascend communication matrix keeps its links.
#[test]
fn summaries_of_a_rank_directory_give_its_answers() {
    for (job, ranks) in [("ascend/msinsight_gpt3_16rank_torch_npu", 16), (DLRM, 8)] {
        let dir = scratch_dir("job-from-ranks");
        let root = fixtures().join(job);
        let raw = prof_json(&["analyze", "--json", root.to_str().unwrap()]);
        let out = prof(&["analyze", "--rank-summaries", dir.to_str().unwrap(), root.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let merged = prof_json(&["analyze", "--json", dir.to_str().unwrap()]);
        assert_eq!(merged["ranks"], ranks, "{job}");
        assert_eq!(merged["slowest"], raw["slowest"], "{job}");
        let links = |doc: &serde_json::Value| doc["communication_matrix"].as_array().unwrap().len();
        assert_eq!(links(&merged), links(&raw), "{job}");
    }
    let one_trace = fixtures().join("nvidia/h200-probe/torch-trace.json");
    let refused = prof(&["analyze", "--rank-summaries", "/tmp/x", one_trace.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
}

/// Ranks whose windows hold different steps (half the job shifted by 50 ms, as when each rank's
/// window opened on its own clock): their n-th collectives do not line up, and no rank is
/// named, instead of one at random.
#[test]
fn ranks_whose_collectives_do_not_line_up_name_no_one() {
    let dir = scratch_dir("job-misaligned");
    let base = dlrm_summaries(&dir.join("dlrm")).remove(0);
    let job = dir.join("job");
    build_job(&base, &job, 64, 10, &["--slow", "5"]);
    assert_eq!(prof_json(&["analyze", "--json", job.to_str().unwrap()])["straggler"]["rank"], 5, "aligned: named");
    for rank in 32..64 {
        let file = job.join(format!("rank{rank}.rank-summary.json"));
        let mut summary: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        for c in summary["collectives"].as_array_mut().unwrap() {
            for key in ["start_ns", "end_ns"] {
                c[key] = (c[key].as_u64().unwrap() + 50_000_000).into();
            }
        }
        std::fs::write(&file, serde_json::to_vec(&summary).unwrap()).unwrap();
    }
    let merged = prof_json(&["analyze", "--json", job.to_str().unwrap()]);
    assert_eq!(merged["aligned"], false);
    assert!(merged["straggler"].is_null() && merged["links"].as_array().unwrap().is_empty(), "{merged}");
    assert!(merged["answer"].as_str().unwrap().contains("do not line up"), "{}", merged["answer"]);
}
