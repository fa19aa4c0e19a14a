//! From ncu's pages to one [`KernelReport`] per launch: the details page (or console output)
//! gives the section values and rule results, the raw page the stall breakdown and roofline;
//! either alone gives what it holds. Metric labels and raw names of every recorded ncu version
//! are tried, newest first (2025: `Compute (SM) Throughput`, 2022: `Compute (SM) [%]`, Pascal
//! era: `SM [%]`; raw 2025: `sm__throughput.avg.pct_of_peak_sustained_elapsed`, 2019:
//! `sm__sol_pct`).

use crate::error::{quote, NvidiaError};
use crate::ncu_analysis::{self, BlockLimits};
use crate::ncu_csv::LaunchInfo;
use crate::ncu_pages::{DetailsLaunch, Metric, RawLaunch, Rule};
use crate::ncu_units::{NANOSECOND, PERCENT};
use prof_core::{Finding, KernelReport, Occupancy, Severity};
use serde::Serialize;

/// Speed-of-light section names: `GPU Speed Of Light Throughput` (2022+), `GPU Speed Of Light`.
const SOL: &[&str] = &["GPU Speed Of Light"];
const OCCUPANCY: &[&str] = &["Occupancy"];

/// A [`KernelReport`] and what ncu adds that the shared report has no field for.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcuKernel {
    /// The vendor-neutral report.
    pub report: KernelReport,
    /// Which launch (ID, process, grid, block, compute capability).
    pub launch: LaunchInfo,
    /// DRAM throughput, percent of peak (the memory figure may be L1 or L2 instead).
    pub dram_throughput_pct: Option<f64>,
    /// The per-SM block limits the occupancy limiter comes from.
    pub block_limits: BlockLimits,
    /// Why [`KernelReport::roofline`] is `None`, when it is.
    pub roofline_note: Option<String>,
}

/// Builds the reports of a capture: each details launch with the raw launch of the same ID,
/// then raw launches no details launch had. The same ID naming two kernels means the pages
/// come from different reports, which is an error.
pub fn merge(details: Vec<DetailsLaunch>, raw: Vec<RawLaunch>) -> Result<Vec<NcuKernel>, NvidiaError> {
    let mut raw: Vec<Option<RawLaunch>> = raw.into_iter().map(Some).collect();
    let mut kernels = Vec::with_capacity(details.len().max(raw.len()));
    for launch in &details {
        let partner = raw.iter_mut().find(|r| r.as_ref().is_some_and(|r| r.launch.id == launch.launch.id));
        let partner = partner.and_then(Option::take);
        if let Some(other) = &partner {
            if other.launch.kernel != launch.launch.kernel {
                let reason = format!(
                    "launch ID {} is {} in the details page but {} in the raw page: the pages come from different reports",
                    launch.launch.id,
                    quote(&launch.launch.kernel),
                    quote(&other.launch.kernel)
                );
                return Err(NvidiaError::output("ncu --csv", 0, reason));
            }
        }
        kernels.push(build(Some(launch), partner.as_ref()));
    }
    kernels.extend(raw.iter().flatten().map(|r| build(None, Some(r))));
    Ok(kernels)
}

/// The report of one launch from its details and/or raw page entries (at least one).
pub fn build(details: Option<&DetailsLaunch>, raw: Option<&RawLaunch>) -> NcuKernel {
    let launch = details.map(|d| &d.launch).or(raw.map(|r| &r.launch)).cloned().unwrap_or_default();
    let from_details = |sections: &[&str], names: &[&str], unit: &str| -> Option<f64> {
        details.and_then(|d| d.metric(sections, names)).and_then(|m| in_unit(m, unit))
    };
    let from_raw = |names: &[&str], unit: &str| -> Option<f64> {
        raw.and_then(|r| r.first(names)).filter(|q| q.unit == unit).map(|q| q.value)
    };
    let pick = |sections: &[&str], names: &[&str], raw_names: &[&str], unit: &str| {
        from_details(sections, names, unit).or_else(|| from_raw(raw_names, unit))
    };
    let duration_ns = pick(SOL, &["Duration"], &["gpu__time_duration.sum", "gpu__time_duration"], NANOSECOND);
    let compute = pick(
        SOL,
        &["Compute (SM) Throughput", "Compute (SM) [%]", "SM [%]"],
        &["sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm__sol_pct"],
        PERCENT,
    );
    let memory = pick(
        SOL,
        &["Memory Throughput", "Memory [%]"],
        &["gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "gpu__compute_memory_sol_pct"],
        PERCENT,
    );
    let dram = pick(
        SOL,
        &["DRAM Throughput", "SOL FB"],
        &[
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
            "dram__throughput.avg.pct_of_peak_sustained_elapsed",
            "fbpa__sol_pct",
        ],
        PERCENT,
    );
    let achieved = pick(
        OCCUPANCY,
        &["Achieved Occupancy"],
        &["sm__warps_active.avg.pct_of_peak_sustained_active", "sm__active_warps_avg_per_active_cycle_pct"],
        PERCENT,
    );
    let theoretical = pick(OCCUPANCY, &["Theoretical Occupancy"], &["sm__maximum_warps_per_active_cycle_pct"], PERCENT);
    let limit = |label: &str, raw_name: &str| pick(OCCUPANCY, &[label], &[raw_name], "block");
    let block_limits = BlockLimits {
        registers: limit("Block Limit Registers", "launch__occupancy_limit_registers"),
        shared_memory: limit("Block Limit Shared Mem", "launch__occupancy_limit_shared_mem"),
        warps: limit("Block Limit Warps", "launch__occupancy_limit_warps"),
        blocks: limit("Block Limit SM", "launch__occupancy_limit_blocks"),
        barriers: limit("Block Limit Barriers", "launch__occupancy_limit_barriers"),
    };
    let limiter = block_limits.limiter(theoretical);
    let occupancy = (achieved.is_some() || theoretical.is_some() || limiter.is_some()).then_some(Occupancy {
        achieved_pct: achieved,
        theoretical_pct: theoretical,
        limiter,
    });
    let (roofline, roofline_note) = match raw.map(ncu_analysis::roofline) {
        Some(Ok(roofline)) => (Some(roofline), None),
        Some(Err(why)) => (None, Some(why)),
        None => (None, Some("no raw page: the roofline needs `ncu --csv --page raw`".to_owned())),
    };
    let mut report = KernelReport {
        kernel: launch.kernel.clone(),
        device: launch.device,
        duration_ns,
        compute_throughput_pct: compute,
        memory_throughput_pct: memory,
        occupancy,
        stalls: raw.map(ncu_analysis::stalls).unwrap_or_default(),
        roofline,
        findings: details.map(|d| findings(&d.rules)).unwrap_or_default(),
        verdict: None,
        limits: raw.and_then(|r| crate::ncu_limits::limits(r, dram)),
    };
    let lead = report.limits.as_ref().and_then(crate::ncu_limits::lead);
    let tail = report.limits.as_ref().and_then(crate::ncu_limits::clock_note);
    report.verdict = ncu_analysis::verdict(&report, dram, lead, tail);
    NcuKernel { report, launch, dram_throughput_pct: dram, block_limits, roofline_note }
}

/// ncu's rule results as findings, largest estimated speedup first; rules without an estimate
/// follow in page order.
pub fn findings(rules: &[Rule]) -> Vec<Finding> {
    let mut findings: Vec<Finding> = rules
        .iter()
        .map(|rule| Finding {
            severity: severity(&rule.kind),
            rule: match &rule.name {
                Some(name) => format!("{}/{name}", rule.section),
                None => rule.section.clone(),
            },
            message: rule.message.clone(),
            estimated_speedup_pct: rule.speedup_pct,
        })
        .collect();
    findings.sort_by(|a, b| match (a.estimated_speedup_pct, b.estimated_speedup_pct) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    findings
}

/// OPT is an optimisation opportunity, WRN a warning; INF and anything else information.
pub fn severity(kind: &str) -> Severity {
    match kind {
        "OPT" => Severity::Opportunity,
        "WRN" => Severity::Warning,
        _ => Severity::Info,
    }
}

fn in_unit(metric: &Metric, unit: &str) -> Option<f64> {
    metric.value.as_ref().filter(|q| q.unit == unit).map(|q| q.value)
}

#[cfg(test)]
mod tests;
