//! `prof analyze DIR` over rank summaries (`*.rank-summary.json`, `prof.rank-summary.v1`, written
//! where each rank was captured: `prof breakdown` under a launcher, or `prof analyze TRACE
//! --rank-summary FILE`): the job merged in bounded memory on every core
//! ([`prof_core::rank_summary::merge`]), the rank the others wait on and why, a late start, a
//! slow link, the per-step skew. `--json` prints `prof.job.v1`.

use crate::failure::{Failure, Kind};
use crate::render::{human_ns, print_json, table};
use prof_core::rank_summary::{is_rank_summary, merge, JobReport, MIN_MATCHED};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Steps and ranks the text lists (the JSON has them all, bounded like every list).
const LISTED: usize = 10;

/// The `prof.job.v1` document.
#[derive(Serialize, schemars::JsonSchema)]
pub struct JobDocument<'a> {
    /// Always `prof.job.v1`.
    schema: &'static str,
    /// The directory merged.
    root: String,
    /// The one-line answer.
    answer: String,
    /// The merge.
    #[serde(flatten)]
    job: &'a JobReport,
}

/// The rank summaries under `path` (a directory, or up to two directories deeper: `rank3/`,
/// `rank3/breakdown/` of `prof profile`), in name
/// order; `None` when it holds none.
pub fn summaries_in(path: &Path) -> Option<Vec<PathBuf>> {
    if !path.is_dir() {
        return None;
    }
    let mut found = Vec::new();
    let mut dirs = vec![(path.to_owned(), 0)];
    while let Some((dir, depth)) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().filter_map(Result::ok).map(|e| e.path()) {
            if entry.is_dir() && depth < 2 {
                dirs.push((entry, depth + 1));
            } else if is_rank_summary(&entry) {
                found.push(entry);
            }
        }
    }
    found.sort();
    (!found.is_empty()).then_some(found)
}

/// Writes `summary` to `path` as every output file is written (no link followed, a partial
/// file never left under the name; a lost write is exit 74).
pub fn write_summary(path: &Path, summary: &prof_core::rank_summary::RankSummary) -> Result<(), Failure> {
    let json = summary.to_json().map_err(|e| Failure::new(Kind::Failed, e))?;
    Ok(crate::output_file::write_bytes(path, &json)?)
}

/// Merges `summaries` and prints the job report (and writes its page to `html`).
pub fn run(root: &Path, summaries: &[PathBuf], json: bool, html: Option<&Path>) -> Result<ExitCode, Failure> {
    let job = merge(summaries);
    if job.ranks == 0 {
        let why = job.failed.first().cloned().unwrap_or_default();
        return Err(Failure::new(Kind::BadInput, format!("{}: no rank summary could be read: {why}", root.display())));
    }
    let answer = answer(&job);
    let text = render(root, &job, &answer);
    if let Some(page) = html {
        let html = crate::html_report::ranks::job_page(&root.display().to_string(), &job, &text);
        crate::output_file::write_bytes(page, html.as_bytes())?;
        eprintln!("wrote {} (the rank × step heat map and each rank's split; open in a browser)", page.display());
    }
    if json {
        print_json(&JobDocument { schema: "prof.job.v1", root: root.display().to_string(), answer, job: &job })?;
    } else {
        out!("{text}");
    }
    if !job.failed.is_empty() {
        crate::render::note_partial();
    }
    Ok(ExitCode::SUCCESS)
}

/// The headline: the rank the job waits on and why, else a late start, else a slow link, else
/// balanced; too little to tell with one rank or no collective matched.
pub fn answer(job: &JobReport) -> String {
    let matched: u64 = job.collectives.iter().map(|c| c.matched).sum();
    if job.ranks >= 2 && matched > 0 && !job.aligned {
        return "too little to tell which rank the job waits on: the ranks' matched collectives do not line up \
                (their windows hold different steps, or their clocks differ); capture every rank on the same step \
                (a profiler step or NVTX range: `prof breakdown --capture-range range:train_step`)"
            .to_owned();
    }
    if job.ranks < 2 || matched < MIN_MATCHED {
        return format!(
            "too little to tell which rank the job waits on: {} rank(s), {matched} collectives matched across \
             them (at least {MIN_MATCHED} needed); capture more steps of every rank (`srun prof breakdown \
             --window 30s -- python train.py`) and merge their summaries",
            job.ranks
        );
    }
    if let Some(s) = &job.straggler {
        let why = match s.cause.as_str() {
            "slow compute" => {
                format!("its compute is {} above the median rank's", human_ns(s.excess_compute_ns as f64))
            }
            _ => "its compute is not above the median rank's: look at its host side (data loading, Python)".to_owned(),
        };
        let others = (job.ranks - 1).max(1) as u64;
        let median_wall = job.slowest.as_ref().map_or(0, |w| w.median_wall_ns);
        let share = match median_wall {
            0 => String::new(),
            wall => {
                format!(", {:.1} % of the median rank's wall", (s.others_wait_ns / others) as f64 * 100.0 / wall as f64)
            }
        };
        return format!(
            "the job waits on rank {}: it arrives last at {} of {} collectives ({why}); each other rank waits {} for it{share}",
            s.rank,
            s.last_at,
            s.matched,
            human_ns((s.others_wait_ns / others) as f64)
        );
    }
    if let Some(late) = &job.late_start {
        return format!(
            "rank {} started late: its first step began {} after the median rank's (a step takes {}); the others wait for it at the first collective",
            late.rank,
            human_ns(late.late_ns as f64),
            human_ns(late.median_step_ns as f64)
        );
    }
    if let Some(link) = job.links.first() {
        return format!(
            "rank {}'s collectives run {} after every rank has arrived, {:.1}× the median rank's {}: a slow link or NIC on rank {}",
            link.rank,
            human_ns(link.transfer_ns as f64),
            link.transfer_ns as f64 / link.median_transfer_ns.max(1) as f64,
            human_ns(link.median_transfer_ns as f64),
            link.rank
        );
    }
    format!("balanced: no rank is last at most collectives over {} ranks and {matched} collectives", job.ranks)
}

fn render(root: &Path, job: &JobReport, answer: &str) -> String {
    let width = crate::wrap::width();
    let matched: u64 = job.collectives.iter().map(|c| c.matched).sum();
    let mut out = crate::wrap::wrap(&format!("answer: {answer}\n"), width);
    let evidence = format!(
        "  evidence: {} rank summaries under {}, {} collectives matched across every rank, {} steps\n",
        job.ranks,
        root.display(),
        matched,
        job.steps.len()
    );
    out.push_str(&crate::wrap::wrap(&evidence, width));
    if let (Some(late), Some(s)) = (&job.late_start, &job.straggler) {
        let line = format!(
            "  also: rank {} started late: its first step began {} after the median rank's (the job waits on rank {} after that)\n",
            late.rank,
            human_ns(late.late_ns as f64),
            s.rank
        );
        out.push_str(&crate::wrap::wrap(&line, width));
    }
    for link in job.links.iter().take(3).filter(|_| job.straggler.is_some() || job.late_start.is_some()) {
        let line = format!(
            "  also: rank {}'s collectives run {} after everyone arrived ({:.1}× the median): a slow link or NIC\n",
            link.rank,
            human_ns(link.transfer_ns as f64),
            link.transfer_ns as f64 / link.median_transfer_ns.max(1) as f64
        );
        out.push_str(&crate::wrap::wrap(&line, width));
    }
    if let Some(s) = job.slowest.as_ref().filter(|s| s.excess_ns > 0) {
        out.push_str(&crate::wrap::wrap(
            &format!(
                "\nslowest rank by wall: {} ({} against the median {}; most of the excess: {})\n",
                s.rank,
                human_ns(s.wall_ns as f64),
                human_ns(s.median_wall_ns as f64),
                s.cause
            ),
            width,
        ));
    }
    if !job.collectives.is_empty() {
        out.push_str("\ncollectives (matched across every rank)\n");
        let mut rows =
            vec![["collective", "matched", "median arrival spread", "waits, all ranks"].map(String::from).to_vec()];
        for c in &job.collectives {
            rows.push(vec![
                c.op.clone(),
                c.matched.to_string(),
                human_ns(c.median_spread_ns as f64),
                human_ns(c.wait_ns as f64),
            ]);
        }
        out.push_str(&table(&rows));
    }
    let mut steps: Vec<_> = job.steps.iter().collect();
    steps.sort_by(|a, b| b.start_spread_ns.cmp(&a.start_spread_ns).then(a.step.cmp(&b.step)));
    if !steps.is_empty() {
        out.push_str("\nsteps with the widest start spread\n");
        let mut rows = vec![["step", "ranks", "start spread", "last to start", "length min/median/max", "longest"]
            .map(String::from)
            .to_vec()];
        for s in steps.iter().take(LISTED) {
            let (lo, mid, hi) = s.length_ns;
            rows.push(vec![
                s.step.to_string(),
                s.ranks.to_string(),
                human_ns(s.start_spread_ns as f64),
                s.last_to_start.to_string(),
                format!("{}/{}/{}", human_ns(lo as f64), human_ns(mid as f64), human_ns(hi as f64)),
                s.longest.to_string(),
            ]);
        }
        out.push_str(&table(&crate::blocks::fit(&rows, width)));
    }
    let mut ranks: Vec<_> = job.rows.iter().collect();
    ranks.sort_by(|a, b| b.last_at.cmp(&a.last_at).then(a.wait_ns.cmp(&b.wait_ns)).then(a.rank.cmp(&b.rank)));
    out.push_str(&format!("\nranks last to arrive most often ({} in the JSON)\n", job.rows.len()));
    let mut rows = vec![["rank", "compute", "comm", "idle", "waited", "last at"].map(String::from).to_vec()];
    for r in ranks.iter().take(LISTED) {
        rows.push(vec![
            r.rank.to_string(),
            human_ns(r.split.compute_ns as f64),
            human_ns(r.split.communication_ns as f64),
            human_ns(r.split.idle_ns as f64),
            human_ns(r.wait_ns as f64),
            r.last_at.to_string(),
        ]);
    }
    out.push_str(&table(&rows));
    if !job.missing_ranks.is_empty() {
        out.push_str(&crate::wrap::wrap(&format!("missing ranks: {:?}\n", job.missing_ranks), width));
    }
    for note in job.notes.iter().chain(&job.failed) {
        out.push_str(&crate::wrap::wrap(&format!("note: {note}\n"), width));
    }
    out
}
