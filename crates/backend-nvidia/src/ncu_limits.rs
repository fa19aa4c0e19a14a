//! What bounds a launch, from the raw page's pipe and memory-level throughputs against their
//! peaks ([`prof_core::Limits`]), and the verdict line that reads them.
//!
//! - compute: the tensor pipe (`sm__pipe_tensor_cycles_active`, or its HMMA form on older
//!   parts) and the busiest FP pipe (`sm__pipe_fma_cycles_active`, `sm__pipe_fp64_cycles_active`),
//!   each `.avg.pct_of_peak_sustained_elapsed`;
//! - memory: DRAM (`dram__throughput` / `gpu__dram_throughput`), L2 (`lts__throughput`), L1 /
//!   shared (`l1tex__throughput`), percent of peak;
//! - grid: `launch__grid_size`, `device__attribute_multiprocessor_count`,
//!   `launch__waves_per_multiprocessor`;
//! - clock: `sm__cycles_elapsed.avg.per_second` against `device__attribute_max_gpu_frequency_khz`.
//!
//! Rules, first that holds: a compute pipe and a memory level both at least [`ROOF_PCT`] →
//! at the roofline (a bf16 8192³ GEMM on an H100: tensor 93 %, L1/shared 94 %, DRAM 28 %,
//! which ncu's memory figure calls memory-bound); a compute pipe at least [`ROOF_PCT`] →
//! compute-bound; the busiest memory level at least [`ROOF_PCT`] → bound by that level; under
//! one wave with blocks for at most [`GRID_SMALL_SM_SHARE`] of the SMs → grid too small (128
//! blocks on 132 SMs leave 3 % idle: not that); a pipe and a memory level recorded and all
//! below ncu's 60 % latency line ([`crate::ncu_analysis::LATENCY_THRESHOLD_PCT`]) →
//! latency-bound; else mixed (the throughput verdict speaks).

use crate::ncu_analysis::LATENCY_THRESHOLD_PCT;
use crate::ncu_pages::RawLaunch;
use prof_core::{Bound, Limits};

/// A unit at or above this share of its peak, percent, is at its roof.
pub const ROOF_PCT: f64 = 80.0;
/// A grid under one wave whose blocks fill at most this share of the SMs is too small.
pub const GRID_SMALL_SM_SHARE: f64 = 0.5;
/// An SM clock below this share of its maximum, percent, is said (power or thermal cap).
pub const CLOCK_CAPPED_PCT: f64 = 90.0;

/// The limits of `raw`, or `None` when it records neither a pipe nor a memory level.
pub fn limits(raw: &RawLaunch, dram_pct: Option<f64>) -> Option<Limits> {
    let pct = |names: &[&str]| raw.first(names).filter(|q| q.unit == crate::ncu_units::PERCENT).map(|q| q.value);
    let tensor = pct(&[
        "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
        "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
    ]);
    let fp = [
        pct(&["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"]),
        pct(&["sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed"]),
    ]
    .into_iter()
    .flatten()
    .reduce(f64::max);
    let dram = dram_pct.or_else(|| {
        pct(&[
            "dram__throughput.avg.pct_of_peak_sustained_elapsed",
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
        ])
    });
    let l2 = pct(&["lts__throughput.avg.pct_of_peak_sustained_elapsed"]);
    let l1 = pct(&[
        "l1tex__throughput.avg.pct_of_peak_sustained_active",
        "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
    ]);
    if [tensor, fp, dram, l2, l1].iter().all(Option::is_none) {
        return None;
    }
    let grid_blocks = raw.number("launch__grid_size");
    let sms = raw.number("device__attribute_multiprocessor_count");
    let waves_per_sm = raw.number("launch__waves_per_multiprocessor");
    let clock = raw.first(&["sm__cycles_elapsed.avg.per_second"]).filter(|q| q.unit == crate::ncu_units::HERTZ);
    let max_khz = raw.number("device__attribute_max_gpu_frequency_khz").filter(|&k| k > 0.0);
    let sm_clock_pct_of_max = clock.zip(max_khz).map(|(c, k)| c.value * 100.0 / (k * 1_000.0));
    let compute = [tensor, fp].into_iter().flatten().reduce(f64::max);
    let memory = [dram, l2, l1].into_iter().flatten().reduce(f64::max);
    let at = |v: Option<f64>| v.is_some_and(|v| v >= ROOF_PCT);
    let bound = if at(compute) && at(memory) {
        Bound::AtRoofline
    } else if at(compute) {
        Bound::ComputeBound
    } else if at(memory) {
        // The busiest level (ties: the one farthest from the SM).
        if dram == memory {
            Bound::DramBound
        } else if l2 == memory {
            Bound::L2Bound
        } else {
            Bound::L1SharedBound
        }
    } else if waves_per_sm.is_some_and(|w| w < 1.0)
        && grid_blocks.zip(sms).is_some_and(|(g, s)| g <= s * GRID_SMALL_SM_SHARE)
    {
        Bound::GridTooSmall
    } else if compute.zip(memory).is_some_and(|(c, m)| c < LATENCY_THRESHOLD_PCT && m < LATENCY_THRESHOLD_PCT) {
        // Only when both a pipe and a memory level were recorded: an older raw page with DRAM
        // alone cannot say that nothing was near its peak.
        Bound::LatencyBound
    } else {
        Bound::Mixed
    };
    Some(Limits {
        tensor_pipe_pct: tensor,
        fp_pipe_pct: fp,
        dram_pct: dram,
        l2_pct: l2,
        l1_pct: l1,
        grid_blocks,
        sms,
        waves_per_sm,
        sm_clock_pct_of_max,
        bound,
    })
}

/// The units as a person reads them: `tensor pipe 90.3 %, L1/shared 94.0 %, L2 40.1 %, DRAM 28.0 %`.
fn units(limits: &Limits) -> String {
    let named = [
        ("tensor pipe", limits.tensor_pipe_pct),
        ("FP pipe", limits.fp_pipe_pct),
        ("L1/shared", limits.l1_pct),
        ("L2", limits.l2_pct),
        ("DRAM", limits.dram_pct),
    ];
    let shown: Vec<String> = named.iter().filter_map(|(n, v)| v.map(|v| format!("{n} {v:.1} %"))).collect();
    format!("{} of peak", shown.join(", "))
}

/// The verdict's lead from the limits: what bounds the launch, the units behind it and what it
/// means; `None` for [`Bound::Mixed`] (the throughput verdict says it better).
pub fn lead(limits: &Limits) -> Option<String> {
    let units = units(limits);
    let grid = match (limits.grid_blocks, limits.sms, limits.waves_per_sm) {
        (Some(g), Some(s), Some(w)) => {
            let blocks = if g == 1.0 { "block" } else { "blocks" };
            format!("{g:.0} {blocks} for {s:.0} SMs ({w:.2} waves)")
        }
        _ => String::new(),
    };
    let line = match limits.bound {
        Bound::AtRoofline => format!(
            "at the roofline: {units}: the kernel runs at the hardware's limit; the lever is less work (smaller or \
             fewer shapes, lower precision), not this kernel"
        ),
        Bound::ComputeBound => {
            format!("compute-bound at the pipe's peak: {units}; the lever is less work or lower precision")
        }
        Bound::DramBound => format!("DRAM-bound: {units}: cut the bytes moved (fuse, lower precision, reuse on chip)"),
        Bound::L2Bound => format!("L2-bound: {units}: improve locality (tiling, access order) or cut traffic"),
        Bound::L1SharedBound => {
            format!("L1/shared-bound: {units}: shared-memory or L1 traffic (bank conflicts, re-reads)")
        }
        Bound::GridTooSmall => format!(
            "latency-bound, grid too small: {grid}: part of the device idles; split the work into more blocks \
             (split-K, smaller tiles) or batch more; {units}"
        ),
        Bound::LatencyBound => {
            format!("latency-bound: no unit reaches {LATENCY_THRESHOLD_PCT:.0} % of its peak ({units}): the warps wait")
        }
        Bound::Mixed => return None,
    };
    Some(line)
}

/// What the clock says, when it ran below [`CLOCK_CAPPED_PCT`] of its maximum.
pub fn clock_note(limits: &Limits) -> Option<String> {
    let pct = limits.sm_clock_pct_of_max.filter(|&p| p < CLOCK_CAPPED_PCT)?;
    Some(format!(
        "; the SM clock ran at {pct:.0} % of its maximum during the replay (power or thermal cap; ncu ran with \
         --clock-control none)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ncu_pages::parse_raw;

    fn raw(file: &str) -> Vec<RawLaunch> {
        let path = format!("{}/../../tests/fixtures/nvidia/{file}", env!("CARGO_MANIFEST_DIR"));
        parse_raw(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    /// The H200's 4096² bf16 GEMM (h200-verify): tensor pipe 90.32 % of peak (the raw page's
    /// `sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed`), L1 73.39 %: at the
    /// compute roof, not "memory-bound"; the SM clock 1.624 of 1.980 GHz.
    #[test]
    fn a_gemm_at_its_tensor_peak_is_compute_bound() {
        let launches = raw("h200-verify/deep-dive-ncu-raw.csv");
        let limits = limits(&launches[0], None).expect("pipes recorded");
        assert_eq!(limits.bound, Bound::ComputeBound);
        assert_eq!(limits.tensor_pipe_pct, Some(90.31956));
        assert_eq!(limits.l1_pct, Some(73.392879));
        let clock = limits.sm_clock_pct_of_max.unwrap();
        assert!((clock - 1.623624e9 * 100.0 / 1.98e9).abs() < 1e-6, "{clock}");
        assert!(lead(&limits).unwrap().starts_with("compute-bound at the pipe's peak: tensor pipe 90.3 %"));
        assert!(clock_note(&limits).unwrap().contains("82 % of its maximum"));
    }

    /// The decode GEMV (h200-ncu nvjet splitK): 128 blocks on 132 SMs is not a small grid; the
    /// layer norm on one block is.
    #[test]
    fn a_grid_is_too_small_only_when_most_sms_idle() {
        let gemv = &raw("h200-ncu/nvjet-raw.csv")[0];
        assert_eq!(limits(gemv, None).unwrap().bound, Bound::Mixed);
        let norm = &raw("h200-ncu/norm-softmax-raw.csv")[0];
        let found = limits(norm, None).unwrap();
        assert_eq!(found.bound, Bound::GridTooSmall);
        assert!(lead(&found).unwrap().contains("1 block for 132 SMs (0.00 waves)"));
    }

    /// A bf16 8192³ GEMM as the issue measured it on an H100 (tensor 93 %, L1/shared 94 %, DRAM
    /// 28 %): a compute pipe and a memory level both at their roofs.
    #[test]
    fn compute_and_a_memory_level_at_their_peaks_is_the_roofline() {
        let mut launch = raw("h200-verify/deep-dive-ncu-raw.csv").remove(0);
        let set = |launch: &mut RawLaunch, name: &str, value: f64| {
            let quantity = launch.metrics.get_mut(name).and_then(|m| m.value.as_mut()).expect(name);
            quantity.value = value;
        };
        set(&mut launch, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", 93.0);
        set(&mut launch, "l1tex__throughput.avg.pct_of_peak_sustained_active", 94.0);
        let found = limits(&launch, Some(28.0)).unwrap();
        assert_eq!(found.bound, Bound::AtRoofline);
        assert!(lead(&found).unwrap().starts_with("at the roofline: tensor pipe 93.0 %"));
    }
}
