//! What prof derives from ncu's metrics: the warp stall shares, the roofline position, the
//! occupancy limiter and the one-line verdict.
//!
//! Roofline, as ncu's own `SpeedOfLight_RooflineChart` section defines its DRAM roofline:
//!
//! - achieved FLOP/s = (`fadd` + `fmul` + 2·`ffma` + `dadd` + `dmul` + 2·`dfma`) per elapsed
//!   cycle (`smsp__sass_thread_inst_executed_op_<op>_pred_on.sum.per_cycle_elapsed`) ×
//!   `smsp__cycles_elapsed.avg.per_second`;
//! - DRAM bytes/s = `dram__bytes.sum.per_second`; arithmetic intensity = FLOP/s ÷ bytes/s,
//!   which equals FLOP ÷ bytes over the launch;
//! - peak FLOP/s = 2 × `sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained` (the
//!   `dfma` one when FP64 dominates) × `sm__cycles_elapsed.avg.per_second`; peak bytes/s =
//!   `dram__bytes.sum.peak_sustained` × `dram__cycles_elapsed.avg.per_second`;
//! - ridge point = peak FLOP/s ÷ peak bytes/s; the bound at the kernel's intensity is
//!   min(peak FLOP/s, intensity × peak bytes/s).
//!
//! Tensor-core work is not in those counts, so a launch whose tensor pipes are busy gets no
//! roofline rather than a wrong one.

use crate::ncu_pages::RawLaunch;
use crate::ncu_units::{BYTE_PER_SECOND, HERTZ};
use prof_core::{KernelReport, Roofline};
use serde::Serialize;

/// ncu's own line between "bound" and "latency issues": its SOLBottleneck rule says achieved
/// compute and memory throughput "below 60.0% of peak typically indicate latency issues".
pub const LATENCY_THRESHOLD_PCT: f64 = 60.0;
/// Stall reasons kept, largest first.
pub const TOP_STALLS: usize = 5;
/// Tensor-pipe activity (percent of peak) from which the FP32/FP64 roofline misses real work.
pub const TENSOR_ACTIVE_PCT: f64 = 1.0;

/// The stall metric families, newest first: the per-reason prefix and suffix.
const STALL_FORMS: [(&str, &str); 2] =
    [("smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"), ("smsp__warp_cycles_per_issue_stall_", "")];

/// The top warp stall reasons of `raw`, largest first, each as a percentage of the sum over
/// all reasons (the warp cycles between two issued instructions). `selected`, the issuing
/// cycle itself, counts in the sum but is not listed. Empty when the page has no stall metrics.
///
/// ncu's CPIStall rule divides by `smsp__average_warp_latency_per_inst_issued` instead; the
/// reasons come from other replay passes and add up to a little more than it (H200: 19.72
/// against 19.57 cycles, so barrier 30.4 % here against the rule's 30.6 %), and on the 2019
/// GTX 1080 recording to far more, so prof divides by their sum, which never passes 100 %.
pub fn stalls(raw: &RawLaunch) -> Vec<(String, f64)> {
    for (prefix, suffix) in STALL_FORMS {
        let reasons: Vec<(&str, f64)> = raw
            .metrics
            .iter()
            .filter_map(|(name, value)| {
                let reason = name.strip_prefix(prefix)?.strip_suffix(suffix)?;
                Some((reason, value.value.as_ref()?.value))
            })
            .collect();
        if reasons.is_empty() {
            continue;
        }
        let total: f64 = reasons.iter().map(|(_, v)| v.max(0.0)).sum();
        if total <= 0.0 {
            return Vec::new();
        }
        let mut shares: Vec<(String, f64)> = reasons
            .into_iter()
            .filter(|(reason, value)| *reason != "selected" && *value > 0.0)
            .map(|(reason, value)| (reason.to_owned(), value / total * 100.0))
            .collect();
        shares.sort_by(|a, b| b.1.total_cmp(&a.1));
        shares.truncate(TOP_STALLS);
        return shares;
    }
    Vec::new()
}

/// The DRAM roofline position of `raw` (formula in the module docs), or why there is none.
pub fn roofline(raw: &RawLaunch) -> Result<Roofline, String> {
    let need = |name: &str, unit: Option<&str>| -> Result<f64, String> {
        let quantity = raw.first(&[name]).ok_or_else(|| format!("the recording lacks {name}"))?;
        match unit {
            Some(unit) if quantity.unit != unit => Err(format!("{name} is in {}, not {unit}", quantity.unit)),
            _ => Ok(quantity.value),
        }
    };
    if let Some(tensor) = raw.number("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed") {
        if tensor >= TENSOR_ACTIVE_PCT {
            return Err(format!(
                "tensor pipes active {tensor:.1} % of peak: the FP32/FP64 roofline does not count tensor-core work"
            ));
        }
    }
    let per_cycle =
        |op: &str| need(&format!("smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed"), None);
    let fp32 = per_cycle("fadd")? + per_cycle("fmul")? + 2.0 * per_cycle("ffma")?;
    let fp64 = per_cycle("dadd")? + per_cycle("dmul")? + 2.0 * per_cycle("dfma")?;
    if fp32 + fp64 <= 0.0 {
        return Err("no FP32 or FP64 operations were counted".to_owned());
    }
    let flops = (fp32 + fp64) * need("smsp__cycles_elapsed.avg.per_second", Some(HERTZ))?;
    let bandwidth = need("dram__bytes.sum.per_second", Some(BYTE_PER_SECOND))?;
    if bandwidth <= 0.0 {
        return Err("no DRAM traffic was counted".to_owned());
    }
    let fma = if fp64 > fp32 { "dfma" } else { "ffma" };
    let peak_ops = 2.0 * need(&format!("sm__sass_thread_inst_executed_op_{fma}_pred_on.sum.peak_sustained"), None)?;
    let peak_flops = peak_ops * need("sm__cycles_elapsed.avg.per_second", Some(HERTZ))?;
    let peak_bandwidth = need("dram__bytes.sum.peak_sustained", Some("byte/cycle"))?
        * need("dram__cycles_elapsed.avg.per_second", Some(HERTZ))?;
    if peak_flops <= 0.0 || peak_bandwidth <= 0.0 {
        return Err("the recorded peaks are zero".to_owned());
    }
    let intensity = flops / bandwidth;
    let ridge = peak_flops / peak_bandwidth;
    let bound = peak_flops.min(intensity * peak_bandwidth);
    Ok(Roofline {
        arithmetic_intensity: intensity,
        ridge_point: ridge,
        memory_bound: intensity < ridge,
        achieved_pct_of_bound: Some(flops / bound * 100.0),
    })
}

/// The per-SM block limits of the Occupancy section (`Block Limit …`, `launch__occupancy_limit_*`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BlockLimits {
    /// Blocks that fit by registers.
    pub registers: Option<f64>,
    /// Blocks that fit by shared memory.
    pub shared_memory: Option<f64>,
    /// Blocks that fit by warps.
    pub warps: Option<f64>,
    /// The SM's block limit.
    pub blocks: Option<f64>,
    /// Blocks that fit by barriers (newer ncu only).
    pub barriers: Option<f64>,
}

impl BlockLimits {
    /// The smallest limit's name (ties joined with `+`, as in `registers+shared_memory`); `None`
    /// when no limit is known or the theoretical occupancy is already 100 %.
    pub fn limiter(&self, theoretical_pct: Option<f64>) -> Option<String> {
        if theoretical_pct.is_some_and(|t| t >= 99.995) {
            return None;
        }
        let named = [
            ("registers", self.registers),
            ("shared_memory", self.shared_memory),
            ("warps", self.warps),
            ("blocks", self.blocks),
            ("barriers", self.barriers),
        ];
        let smallest = named.iter().filter_map(|(_, v)| *v).reduce(f64::min)?;
        let names: Vec<&str> = named.iter().filter(|(_, v)| *v == Some(smallest)).map(|(n, _)| *n).collect();
        Some(names.join("+"))
    }
}

/// One line saying what bounds the launch: `lead` where the pipes and memory levels said it
/// (see `ncu_limits`), else memory-, compute- or latency-bound by ncu's 60 % line; then the
/// occupancy limiter, the top stall where known, and `tail` (the clock note). `None` when the
/// report has no throughput at all.
pub fn verdict(
    report: &KernelReport,
    dram_pct: Option<f64>,
    lead: Option<String>,
    tail: Option<String>,
) -> Option<String> {
    let threshold = LATENCY_THRESHOLD_PCT;
    let dram = dram_pct.map(|d| format!(" (DRAM {d:.1} %)")).unwrap_or_default();
    let mut line = match (lead, report.compute_throughput_pct, report.memory_throughput_pct) {
        (Some(lead), _, _) => lead,
        (None, Some(c), Some(m)) if m >= threshold && m >= c => {
            format!("memory-bound: memory at {m:.1} % of peak{dram}, compute at {c:.1} %")
        }
        (None, Some(c), Some(m)) if c >= threshold => {
            format!("compute-bound: compute at {c:.1} % of peak, memory at {m:.1} %{dram}")
        }
        (None, Some(c), Some(m)) => {
            let dram = dram_pct.map(|d| format!(", DRAM {d:.1} %")).unwrap_or_default();
            format!("latency-bound: neither compute ({c:.1} %) nor memory ({m:.1} %{dram}) reaches {threshold:.0} % of peak")
        }
        (None, Some(c), None) => format!("compute at {c:.1} % of peak; memory throughput not recorded"),
        (None, None, Some(m)) => format!("memory at {m:.1} % of peak{dram}; compute throughput not recorded"),
        (None, None, None) => return None,
    };
    if let Some(occupancy) = &report.occupancy {
        if let (Some(limiter), Some(theoretical)) = (&occupancy.limiter, occupancy.theoretical_pct) {
            let achieved = occupancy.achieved_pct.map(|a| format!(", achieved {a:.1} %")).unwrap_or_default();
            let limiter = limiter.replace('+', " and ").replace('_', " ");
            line.push_str(&format!("; occupancy limited by {limiter} (theoretical {theoretical:.1} %{achieved})"));
        }
    }
    if let Some((reason, share)) = report.stalls.first() {
        line.push_str(&format!("; top stall: {} {share:.1} %", reason.replace('_', " ")));
    }
    line.push_str(&tail.unwrap_or_default());
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limiter_is_the_smallest_limit_unless_occupancy_is_full() {
        let limits = BlockLimits {
            registers: Some(2.0),
            shared_memory: Some(2.0),
            warps: Some(16.0),
            blocks: Some(32.0),
            barriers: Some(32.0),
        };
        assert_eq!(limits.limiter(Some(12.5)).as_deref(), Some("registers+shared_memory"));
        assert_eq!(limits.limiter(None).as_deref(), Some("registers+shared_memory"));
        assert_eq!(limits.limiter(Some(100.0)), None);
        let warps = BlockLimits { warps: Some(5.0), blocks: Some(32.0), ..BlockLimits::default() };
        assert_eq!(warps.limiter(Some(62.5)).as_deref(), Some("warps"));
        assert_eq!(BlockLimits::default().limiter(Some(50.0)), None);
    }
}
