//! How a single-kernel deep dive is shown (`prof deep-dive`, and `prof analyze` on ncu
//! CSVs): duration, speed-of-light, occupancy and its limiter, stalls, roofline, the
//! profiler's own findings ranked by estimated speedup, and the verdict.
//!
//! `--json` schema `prof.deep-dive.v1`: `{"schema", "source", "kernels": [KernelReport]}`
//! where each KernelReport is `{kernel, device, duration_ns, compute_throughput_pct,
//! memory_throughput_pct, occupancy: {achieved_pct, theoretical_pct, limiter}|null,
//! stalls: [[reason, share_pct]], roofline: {arithmetic_intensity, ridge_point,
//! memory_bound, achieved_pct_of_bound}|null, findings: [{severity, rule, message,
//! estimated_speedup_pct}], verdict}`.

use crate::render::{ellipsize, human_ns};
use prof_core::{KernelReport, Severity};
use serde::Serialize;

/// The `--json` document of a deep dive.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct DeepDiveReport<'a> {
    /// Always `prof.deep-dive.v1`.
    pub schema: &'static str,
    /// Where the reports came from.
    pub source: String,
    /// One report per captured launch.
    pub kernels: &'a [KernelReport],
}

fn pct(value: Option<f64>) -> String {
    value.map(|v| format!("{v:.1} %")).unwrap_or_else(|| "-".to_owned())
}

/// The human report of every launch.
pub fn render_text(reports: &[KernelReport]) -> String {
    let mut out = String::new();
    for report in reports {
        out.push_str(&format!("kernel: {}\n", report.kernel));
        if let Some(ns) = report.duration_ns {
            out.push_str(&format!("  duration: {}\n", human_ns(ns)));
        }
        out.push_str(&format!(
            "  throughput: compute {} of peak, memory {} of peak\n",
            pct(report.compute_throughput_pct),
            pct(report.memory_throughput_pct)
        ));
        if let Some(o) = &report.occupancy {
            let limiter = o.limiter.as_deref().map(|l| format!(", limited by {l}")).unwrap_or_default();
            out.push_str(&format!(
                "  occupancy: achieved {} of a theoretical {}{limiter}\n",
                pct(o.achieved_pct),
                pct(o.theoretical_pct)
            ));
        }
        if !report.stalls.is_empty() {
            let stalls: Vec<String> =
                report.stalls.iter().take(5).map(|(reason, share)| format!("{reason} {share:.1} %")).collect();
            out.push_str(&format!("  top stalls: {}\n", stalls.join(", ")));
        }
        if let Some(r) = &report.roofline {
            let side = if r.memory_bound { "memory-bound" } else { "compute-bound" };
            let achieved = r.achieved_pct_of_bound.map(|a| format!(", at {a:.1} % of that bound")).unwrap_or_default();
            out.push_str(&format!(
                "  roofline: {:.2} FLOP/byte against a ridge at {:.2}: {side}{achieved}\n",
                r.arithmetic_intensity, r.ridge_point
            ));
        }
        if !report.findings.is_empty() {
            out.push_str("  findings (largest estimated speedup first):\n");
            for f in &report.findings {
                let tag = match f.severity {
                    Severity::Opportunity => "OPT",
                    Severity::Warning => "WRN",
                    Severity::Info => "INF",
                };
                let speedup = f.estimated_speedup_pct.map(|s| format!(" (est. {s:.1} %)")).unwrap_or_default();
                out.push_str(&format!("    {tag} {}{speedup}: {}\n", f.rule, ellipsize(&f.message, 160)));
            }
        }
        if let Some(verdict) = &report.verdict {
            out.push_str(&format!("  verdict: {verdict}\n"));
        }
        out.push('\n');
    }
    crate::wrap::wrap(&out, crate::wrap::width())
}
