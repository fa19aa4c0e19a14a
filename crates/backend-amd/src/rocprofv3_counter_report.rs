//! Turns counter-collection dispatches into one [`KernelReport`] per launch, with the AMD-only
//! numbers in [`AmdKernelCounters`].
//!
//! Counter meanings (rocprofiler-sdk `counter_defs.yaml` and its docs): `SQ_WAVES` waves started;
//! `GRBM_GUI_ACTIVE` / `GRBM_COUNT` GPU-active cycles over all cycles (the SDK's derived `GPU_UTIL`
//! is `100*GRBM_GUI_ACTIVE/GRBM_COUNT`, used as recorded when collected by name); `FETCH_SIZE` /
//! `WRITE_SIZE` kilobytes (`…/1024` in their expressions) read from / written to video memory;
//! `VALUBusy`, `MemUnitBusy`, `OccupancyPercent` derived percentages. No FLOP counter is
//! interpreted: none is in any recording we have, so there is no roofline.

use crate::rocprofv3_counters::CounterDispatch;
use prof_core::{Finding, KernelReport, Occupancy, Severity};
use serde::Serialize;
use std::collections::BTreeMap;

/// Counters the report reads, with what is lost without them.
pub const INTERPRETED: [(&str, &str); 5] = [
    ("SQ_WAVES", "wave count"),
    ("GRBM_GUI_ACTIVE", "GPU busy share"),
    ("GRBM_COUNT", "GPU busy share"),
    ("FETCH_SIZE", "memory traffic"),
    ("WRITE_SIZE", "memory traffic"),
];

/// One launch of the kernel with every AMD counter prof read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AmdKernelCounters {
    /// The vendor-neutral report.
    pub report: KernelReport,
    /// `Dispatch_Id` of each pass this launch was recorded in, in pass order.
    pub dispatch_ids: Vec<u64>,
    /// `Agent_Id` as rocprofv3 wrote it.
    pub agent: Option<String>,
    /// Work-items in the grid.
    pub grid_size: Option<u64>,
    /// Work-items per workgroup.
    pub workgroup_size: Option<u64>,
    /// Vector registers per work-item (`VGPR_Count`).
    pub vgpr_count: Option<u64>,
    /// Accumulation registers (`Accum_VGPR_Count`).
    pub accum_vgpr_count: Option<u64>,
    /// Scalar registers per wave (`SGPR_Count`).
    pub sgpr_count: Option<u64>,
    /// LDS per workgroup, bytes.
    pub lds_block_size: Option<u64>,
    /// Scratch per work-item, bytes.
    pub scratch_size: Option<u64>,
    /// Waves started (`SQ_WAVES`).
    pub waves: Option<f64>,
    /// 100 × `GRBM_GUI_ACTIVE` / `GRBM_COUNT`, else the recorded `GPU_UTIL`.
    pub gpu_busy_pct: Option<f64>,
    /// (`FETCH_SIZE` + `WRITE_SIZE`) × 1024, bytes.
    pub memory_bytes: Option<f64>,
    /// `memory_bytes` over the duration, GB/s (10⁹ bytes per second).
    pub memory_gb_per_s: Option<f64>,
    /// Every counter recorded for this launch, over all passes.
    pub counters: BTreeMap<String, f64>,
}

/// Builds the launch from its dispatches in each pass (the same launch ordinal of the same
/// kernel; one dispatch when there was one pass). The duration is the first pass's.
pub fn build(passes: &[&CounterDispatch]) -> Option<AmdKernelCounters> {
    let first = passes.first()?;
    let mut counters = BTreeMap::new();
    for dispatch in passes {
        counters.extend(dispatch.counters.iter().map(|(k, v)| (k.clone(), *v)));
    }
    let get = |name: &str| counters.get(name).copied();
    let duration_ns = first.duration_ns() as f64;
    let gpu_busy_pct = match (get("GRBM_GUI_ACTIVE"), get("GRBM_COUNT")) {
        (Some(active), Some(all)) if all > 0.0 => Some(100.0 * active / all),
        _ => get("GPU_UTIL"),
    };
    let memory_bytes = match (get("FETCH_SIZE"), get("WRITE_SIZE")) {
        (Some(fetch), Some(write)) => Some((fetch + write) * 1024.0),
        _ => None,
    };
    let memory_gb_per_s = memory_bytes.filter(|_| duration_ns > 0.0).map(|bytes| bytes / duration_ns);
    let occupancy =
        get("OccupancyPercent").map(|pct| Occupancy { achieved_pct: Some(pct), theoretical_pct: None, limiter: None });
    let compute = get("VALUBusy");
    let memory = get("MemUnitBusy");
    let mut findings = missing_findings(&counters);
    if !counters.is_empty() && counters.values().all(|v| *v == 0.0) && duration_ns > 0.0 {
        findings.push(Finding {
            severity: Severity::Warning,
            rule: "rocprofv3-counters/all-zero".to_owned(),
            message: format!(
                "every counter of this {:.1} µs launch is 0: rocprofv3 read nothing (seen on RDNA3 until the \
                 power profile is pinned, `amd-smi set -g <gpu> -l stable_std`, ROCm/rocprofiler-sdk#47)",
                duration_ns / 1000.0
            ),
            estimated_speedup_pct: None,
        });
    }
    if let Some(busy) = gpu_busy_pct.filter(|b| *b < 50.0) {
        findings.push(Finding {
            severity: Severity::Warning,
            rule: "rocprofv3-counters/gpu-busy".to_owned(),
            message: format!("the GPU was active {busy:.1}% of the kernel's cycles (GRBM_GUI_ACTIVE / GRBM_COUNT)"),
            estimated_speedup_pct: None,
        });
    }
    let report = KernelReport {
        limits: None,
        kernel: first.kernel.clone(),
        device: None,
        duration_ns: Some(duration_ns),
        compute_throughput_pct: compute,
        memory_throughput_pct: memory,
        occupancy,
        stalls: Vec::new(),
        roofline: None,
        findings,
        verdict: Some(verdict(duration_ns, get("SQ_WAVES"), compute, memory, memory_gb_per_s)),
    };
    Some(AmdKernelCounters {
        report,
        dispatch_ids: passes.iter().map(|d| d.dispatch_id).collect(),
        agent: first.agent.clone(),
        grid_size: first.grid_size,
        workgroup_size: first.workgroup_size,
        vgpr_count: first.vgpr_count,
        accum_vgpr_count: first.accum_vgpr_count,
        sgpr_count: first.sgpr_count,
        lds_block_size: first.lds_block_size,
        scratch_size: first.scratch_size,
        waves: get("SQ_WAVES"),
        gpu_busy_pct,
        memory_bytes,
        memory_gb_per_s,
        counters,
    })
}

fn missing_findings(counters: &BTreeMap<String, f64>) -> Vec<Finding> {
    let mut findings: Vec<Finding> = Vec::new();
    for (name, loses) in INTERPRETED {
        if counters.contains_key(name) {
            continue;
        }
        findings.push(Finding {
            severity: Severity::Info,
            rule: "rocprofv3-counters/missing".to_owned(),
            message: format!(
                "{name} is not in the recording (not requested, or not supported by this GPU): no {loses}"
            ),
            estimated_speedup_pct: None,
        });
    }
    findings
}

fn verdict(
    duration_ns: f64,
    waves: Option<f64>,
    compute: Option<f64>,
    memory: Option<f64>,
    gbs: Option<f64>,
) -> String {
    let mut parts = vec![format!("{:.1} µs", duration_ns / 1000.0)];
    if let Some(waves) = waves {
        parts.push(format!("{waves:.0} waves"));
    }
    if let Some(gbs) = gbs {
        parts.push(format!("{gbs:.1} GB/s to and from video memory"));
    }
    let bound = match (compute, memory) {
        (Some(valu), Some(mem)) if mem > valu => format!("memory-bound (MemUnitBusy {mem:.1}% > VALUBusy {valu:.1}%)"),
        (Some(valu), Some(mem)) => format!("compute-bound (VALUBusy {valu:.1}% ≥ MemUnitBusy {mem:.1}%)"),
        _ => "memory- vs compute-bound not decidable: VALUBusy and MemUnitBusy were not both recorded".to_owned(),
    };
    format!("{}; {bound}", parts.join(", "))
}

/// Pairs the passes' dispatches launch by launch: the n-th dispatch of a kernel in one pass
/// with the n-th dispatch of the same kernel in every other pass (each pass reruns the
/// workload, so dispatch ids restart). A launch missing from a later pass keeps what it has;
/// one only in later passes is left out.
pub fn merge_passes(passes: &[Vec<CounterDispatch>]) -> Vec<AmdKernelCounters> {
    let Some(first) = passes.first() else { return Vec::new() };
    let ordinal = |dispatches: &[CounterDispatch]| {
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        let mut keyed: BTreeMap<(String, usize), usize> = BTreeMap::new();
        for (index, dispatch) in dispatches.iter().enumerate() {
            let n = seen.entry(dispatch.kernel.as_str()).or_insert(0);
            keyed.insert((dispatch.kernel.clone(), *n), index);
            *n += 1;
        }
        keyed
    };
    let others: Vec<_> = passes.iter().skip(1).map(|p| (p, ordinal(p))).collect();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut launches = Vec::new();
    for dispatch in first {
        let n = seen.entry(dispatch.kernel.as_str()).or_insert(0);
        let key = (dispatch.kernel.clone(), *n);
        *n += 1;
        let mut group = vec![dispatch];
        for (pass, index) in &others {
            if let Some(matched) = index.get(&key).and_then(|&i| pass.get(i)) {
                group.push(matched);
            }
        }
        launches.extend(build(&group));
    }
    launches
}
