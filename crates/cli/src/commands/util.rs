//! `prof util`: is the accelerator actually being used? Samples the vendor's utilization
//! probe while a command runs (or for `--duration`, or once), then summarises each device
//! and gives a verdict with the next step.
//!
//! `--json` prints schema `prof.util.v1`: `{"schema", "source", "mode": "snapshot"|"duration"|"command"|"watch" (0.4.0),
//! "command": [string]|null, "exit_code": int|null, "interval_ns", "elapsed_ns", "samples",
//! "missed_ticks", "sample_errors": {count, first}, "sample_cost": {calls, mean_ns, max_ns},
//! "devices": [DeviceSummary], "verdict": Verdict, "phases": PhaseView (not for a snapshot; see
//! `crate::phases_view`; added in 0.3.0), "stopped_by": string (only when a signal or
//! `--timeout` ended the recording; 0.4.0)}`; unknown values are `null`. `verdict.kind` is
//! `busy`, `host_bound`, `idle`, `too_short` (the last two added in 0.4.0), `snapshot` or
//! `no_data`. With a command or a
//! duration, `devices` and `verdict` describe the window `--phase` picks: by default the active
//! phase (from the first busy sample to the last), not the idle lead-in of imports and loading.

use super::util_record::{self, exit_status, record_command, record_for, Ended, Sampling};
use crate::durations::parse_duration;
use crate::failure::{Failure, Kind};
use crate::render::{print_json, table};
use clap::Args;
use prof_core::recorder::{Recording, DEFAULT_INTERVAL};
use prof_core::{judge_snapshot, summarize, DeviceSummary, Registry, Verdict};
use serde::Serialize;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `prof util`.
#[derive(Debug, Args)]
pub struct UtilArgs {
    /// Sampling interval (10ms at least).
    #[arg(long, default_value = "100ms", value_parser = parse_duration)]
    interval: Duration,
    /// Sample for this long instead of running a command.
    #[arg(long, value_parser = parse_duration)]
    duration: Option<Duration>,
    /// Sample until stopped (Ctrl-C, SIGTERM, SIGHUP), e.g. beside a running training job, with
    /// one line every 5 s on stderr; the summary and verdict come at the end (exit 0).
    #[arg(long, conflicts_with = "duration")]
    watch: bool,
    /// Stop the command after this long (default: never; a training run is not cut short).
    #[arg(long, value_parser = parse_duration)]
    timeout: Option<Duration>,
    /// Write every sample to this CSV file, as it is taken (`tail -f` shows the rows); at the
    /// end it is rewritten whole (with any metric that appeared late). An existing file is
    /// replaced.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Which part of the recording the summary and verdict describe: `steady` (the active
    /// phase, from the first busy sample to the last), `all`, `load` (the idle lead-in),
    /// `tail`, or `START..END` from the recording's start.
    #[arg(long, default_value = "steady", value_parser = crate::phases_view::parse_phase)]
    phase: prof_core::phases::PhaseChoice,
    /// Also write a self-contained HTML page plotting utilization, memory, power and clocks over time.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Print the `prof.util.v1` JSON document instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Use only this vendor's probe (`nvidia`, `amd`, `ascend`).
    #[arg(long)]
    vendor: Option<String>,
    /// Directory for the command's log.
    #[arg(long, default_value = "prof-out")]
    out: PathBuf,
    /// The workload to observe, after `--`.
    #[arg(last = true)]
    command: Vec<OsString>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct UtilReport<'a> {
    schema: &'static str,
    source: &'a str,
    mode: &'static str,
    command: Option<Vec<String>>,
    exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped_by: Option<String>,
    interval_ns: u128,
    elapsed_ns: u128,
    samples: usize,
    missed_ticks: u64,
    sample_errors: &'a prof_core::SampleErrors,
    sample_cost: &'a prof_core::SampleCost,
    devices: &'a [DeviceSummary],
    verdict: &'a Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    phases: Option<&'a prof_core::report::PhaseView>,
}

/// What one `prof util` recording found, before it is rendered.
pub struct Measured {
    /// `snapshot`, `duration`, `command` or `watch`.
    pub mode: &'static str,
    /// The samples.
    pub recording: Recording,
    /// How the recording ended.
    pub ended: Ended,
    /// The command's exit status, when it exited.
    pub exit_code: Option<i32>,
    /// The phases (not for a snapshot).
    pub phases: Option<prof_core::report::PhaseView>,
    /// Per device, over the chosen phase.
    pub summaries: Vec<DeviceSummary>,
    /// The verdict.
    pub verdict: Verdict,
    /// The `--csv` file or the command's log, when lost (a full disk): reported after the
    /// report.
    pub lost: Vec<Failure>,
    /// Whether the `--csv` file is among them.
    pub csv_lost: bool,
}

impl UtilArgs {
    /// The arguments `prof util -- COMMAND` has, with these settings (for `prof profile`).
    pub fn for_command(command: Vec<OsString>, interval: Duration, timeout: Option<Duration>, out: PathBuf) -> Self {
        Self {
            interval,
            duration: None,
            watch: false,
            timeout,
            csv: None,
            phase: prof_core::phases::PhaseChoice::Steady,
            html: None,
            json: false,
            vendor: None,
            out,
            command,
        }
    }
}

/// Records as `args` asks and judges the recording (nothing is printed but the warnings).
pub fn measure(registry: &Registry, args: &UtilArgs) -> Result<Measured, Failure> {
    for path in [&args.csv, &args.html].into_iter().flatten() {
        crate::output_file::check(path).map_err(|e| Failure::new(crate::failure::Kind::Usage, e))?;
    }
    let mut probe = crate::probes::open_probe(registry, args.vendor.as_deref())?;
    let sampling = Sampling {
        interval: args.interval,
        csv: args.csv.as_deref(),
        watch: args.watch,
        csv_error: Default::default(),
    };
    let mut log_lost = None;
    let (mode, recording, ended) = if !args.command.is_empty() {
        // Two runs into one --out would write one log.
        let _lock = crate::out_lock::OutLock::take(&args.out).map_err(|e| Failure::new(Kind::Usage, e))?;
        let log = args.out.join("util-workload.log");
        let (recording, ended, lost) = record_command(probe, &sampling, &args.command, args.timeout, &log)?;
        log_lost = lost;
        ("command", recording, ended)
    } else if let Some(duration) = args.duration.or(args.watch.then_some(Duration::MAX)) {
        let (recording, ended) = record_for(probe, &sampling, duration)?;
        // A watch is meant to be ended by Ctrl-C: that is its normal end.
        let ended = if args.watch { Ended::Exited(None) } else { ended };
        (if args.watch { "watch" } else { "duration" }, recording, ended)
    } else {
        // Rate counters (NVML GPM) need one interval between two reads.
        std::thread::sleep(DEFAULT_INTERVAL);
        ("snapshot", Recording::snapshot(probe.as_mut())?, Ended::Exited(None))
    };
    let exit_code = match ended {
        Ended::Exited(code) => code,
        _ => None,
    };
    let (phases, summaries, verdict) = if mode == "snapshot" {
        let summaries = summarize(&recording.ticks);
        let verdict = judge_snapshot(&summaries);
        (None, summaries, verdict)
    } else {
        let (phases, summaries, verdict) = prof_core::report::judge_util(&recording.ticks, args.phase, &args.command)?;
        (Some(phases), summaries, verdict)
    };
    let mut lost = Vec::new();
    if let Some(path) = &args.csv {
        let stream_error = sampling.csv_error.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        lost.extend(util_record::rewrite_csv(path, &recording, stream_error).err());
    }
    let csv_lost = !lost.is_empty();
    if let Some(error) = log_lost {
        lost.push(Failure::new(crate::failure::Kind::OutputLost, error));
    }
    Ok(Measured { mode, recording, ended, exit_code, phases, summaries, verdict, lost, csv_lost })
}

/// The `prof.util.v1` document of `measured`.
pub fn document(args: &UtilArgs, measured: &Measured) -> Result<serde_json::Value, Failure> {
    let recording = &measured.recording;
    let report = UtilReport {
        schema: "prof.util.v1",
        source: &recording.source,
        mode: measured.mode,
        command: (!args.command.is_empty())
            .then(|| args.command.iter().map(|a| a.to_string_lossy().into_owned()).collect()),
        exit_code: measured.exit_code,
        stopped_by: measured.ended.stopped_by(),
        interval_ns: recording.interval.as_nanos(),
        elapsed_ns: recording.elapsed.as_nanos(),
        samples: recording.ticks.len(),
        missed_ticks: recording.missed_ticks,
        sample_errors: &recording.errors,
        sample_cost: &recording.sample_cost,
        devices: &measured.summaries,
        verdict: &measured.verdict,
        phases: measured.phases.as_ref(),
    };
    Ok(serde_json::to_value(&report).map_err(|e| format!("cannot encode JSON: {e}"))?)
}

/// The report a person reads: the phases, the table per device and the verdict.
pub fn text(measured: &Measured) -> String {
    let mut out = measured.phases.as_ref().map(crate::phases_view::render_text).unwrap_or_default();
    out.push_str(&render_text(&measured.recording, &measured.summaries, &measured.verdict, measured.exit_code));
    out
}

/// Runs `prof util`.
pub fn run(registry: &Registry, args: &UtilArgs) -> Result<ExitCode, Failure> {
    // Under a job launcher the node's devices are sampled once, by local rank 0; the other
    // ranks of the node only run the command.
    if let Some(launched) = prof_core::launcher::from_env().filter(|l| l.local_rank.unwrap_or(0) > 0) {
        if !args.command.is_empty() {
            return util_record::run_unsampled(&args.out, &args.command, args.timeout, launched);
        }
    }
    let mut measured = measure(registry, args)?;
    let csv_lost = measured.csv_lost;
    let mut written = crate::outputs::Written { lost: std::mem::take(&mut measured.lost), ..Default::default() };
    let recording = &measured.recording;
    if let Some(path) = &args.html {
        let report = render_text(recording, &measured.summaries, &measured.verdict, measured.exit_code);
        match crate::html_report::write_util(path, recording, &report) {
            Ok(()) => written.lines.push(format!("wrote {} (open in a browser)", path.display())),
            Err(error) => written.lost.push(error.into()),
        }
    }
    if args.json {
        print_json(&document(args, &measured)?)?;
    } else {
        out!("{}", text(&measured));
        if let Some(path) = args.csv.as_ref().filter(|_| !csv_lost) {
            outln!("samples written to {}", path.display());
        }
    }
    let lost = !written.lost.is_empty();
    let lost_status = written.finish();
    let ended = measured.ended;
    if let Some(stopped) = ended.stopped_by() {
        eprintln!(
            "prof util: {stopped} ended the recording; the {} samples taken are summarised above",
            recording.ticks.len()
        );
    }
    // A signal, the time limit or a failed command says how the recording ended; else a lost
    // file is the status.
    Ok(if lost && matches!(ended, Ended::Exited(None | Some(0))) { lost_status } else { exit_status(ended) })
}

impl UtilArgs {
    /// Under a job launcher each rank writes into its own `--out`/`rank<R>`.
    pub fn per_rank(mut self) -> Self {
        self.out = crate::report_args::per_rank(self.out);
        self
    }
}

fn opt(value: Option<f64>, unit: &str) -> String {
    value.map(|v| format!("{v:.0}{unit}")).unwrap_or_else(|| "-".to_owned())
}

fn render_text(
    recording: &Recording,
    summaries: &[DeviceSummary],
    verdict: &Verdict,
    exit_code: Option<i32>,
) -> String {
    let mut out = format!(
        "source: {}, {} samples over {:.1} s\n",
        recording.source,
        recording.ticks.len(),
        recording.elapsed.as_secs_f64()
    );
    let mut rows = vec![["device", "util peak/mean/median", "busy", "mem used peak", "SM clock", "power", "temp"]
        .map(str::to_owned)
        .to_vec()];
    for s in summaries {
        let mib = |b: Option<u64>| b.map(|b| format!("{}", b / (1024 * 1024))).unwrap_or_else(|| "-".to_owned());
        let clock = match (s.sm_clock_lowest_mhz, s.sm_clock_highest_mhz, s.sm_clock_max_mhz) {
            (Some(lo), Some(hi), max) => {
                format!("{lo}-{hi} MHz{}", max.map(|m| format!(" (max {m})")).unwrap_or_default())
            }
            _ => "-".to_owned(),
        };
        let power = match (s.power_min_w, s.power_max_w, s.power_limit_w) {
            (Some(lo), Some(hi), Some(limit)) => format!("{lo:.0}-{hi:.0} W of {limit:.0} W"),
            (Some(lo), Some(hi), None) => format!("{lo:.0}-{hi:.0} W"),
            _ => "-".to_owned(),
        };
        rows.push(vec![
            s.device.to_string(),
            format!(
                "{}/{}/{}",
                opt(s.gpu_util_peak_pct, "%"),
                opt(s.gpu_util_mean_pct, "%"),
                opt(s.gpu_util_median_pct, "%")
            ),
            opt(s.busy_share_pct, "%"),
            format!("{} / {} MiB", mib(s.mem_used_peak_bytes), mib(s.mem_total_bytes)),
            clock,
            power,
            opt(s.temperature_max_c, " C"),
        ]);
    }
    out.push_str(&table(&rows));
    for s in summaries {
        for a in &s.activity {
            out.push_str(&format!("  device {} {}: mean {:.1}\n", s.device, a.name, a.mean));
        }
        for t in s.throttle_reasons.iter().flatten() {
            out.push_str(&format!("  device {} clock reason {}: {:.0}% of samples\n", s.device, t.reason, t.share_pct));
        }
        for p in &s.processes {
            let mem = p.mem_used_peak_bytes.map(|b| format!("{} MiB", b / (1024 * 1024))).unwrap_or_else(|| "-".into());
            out.push_str(&format!(
                "  device {} process {} {}: peak {mem}\n",
                s.device,
                p.pid,
                p.name.as_deref().unwrap_or("?")
            ));
        }
    }
    if recording.errors.count > 0 {
        out.push_str(&format!(
            "warning: {} samples failed (first: {})\n",
            recording.errors.count,
            recording.errors.first.as_deref().unwrap_or("?")
        ));
    }
    if recording.missed_ticks > 0 {
        out.push_str(&format!(
            "warning: {} ticks missed: the probe is slower than the interval\n",
            recording.missed_ticks
        ));
    }
    if let Some(code) = exit_code.filter(|c| *c != 0) {
        out.push_str(&format!("note: the command exited with status {code}\n"));
    }
    out.push_str(&render_verdict(verdict));
    out
}

/// The verdict, its evidence, the extra findings and the next step.
pub fn render_verdict(verdict: &Verdict) -> String {
    let mut out = format!("\nverdict: {}\n", verdict.headline);
    for line in &verdict.evidence {
        out.push_str(&format!("  - {line}\n"));
    }
    for finding in &verdict.findings {
        out.push_str(&format!("{}\n", finding.headline));
        for line in &finding.evidence {
            out.push_str(&format!("  - {line}\n"));
        }
    }
    if let Some(next) = &verdict.next_step {
        out.push_str(&format!("next: {next}\n"));
    }
    crate::wrap::wrap(&out, crate::wrap::width())
}

/// The JSON Schema of the `prof.util.v1` document.
pub fn json_schema() -> schemars::Schema {
    schemars::schema_for!(UtilReport<'static>)
}
