//! "How close to the hardware": the ops with recorded shapes, their achieved FLOP/s and bytes/s
//! and their share of the device's roofline bound (core's [`prof_core::roofline`]), per class
//! and for the ops with the most time lost.

use super::RenderedSection;
use crate::blocks::Blocks;
use crate::render::human_ns;
use prof_core::roofline::{Roofline, Row, ENOUGH_CALLS, ENOUGH_LONG_NS, ENOUGH_NS};

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |p| format!("{p:.1} %"))
}

fn rate(row: &Row) -> String {
    if row.class.matrix() {
        format!("{:.1} TFLOP/s", row.tflops)
    } else {
        format!("{:.2} TB/s", row.tbps)
    }
}

/// `aten::_cudnn_attention_forward` → `cudnn_attention`, `aten::native_layer_norm` →
/// `layer_norm`: the op's name without namespace, leading underscores, `native_` or `_forward`.
fn short_op(op: &str) -> String {
    let op = op.rsplit("::").next().unwrap_or(op).trim_start_matches('_');
    let op = op.strip_prefix("native_").unwrap_or(op);
    op.strip_suffix("_forward").unwrap_or(op).to_owned()
}

fn dtype(row: &Row) -> String {
    row.dtype.map(|d| d.label().to_owned()).unwrap_or_default()
}

/// The roofline, when some kernel's call carries shapes a model covers.
pub fn section(r: &Roofline) -> Option<RenderedSection> {
    let mut text = Blocks::default();
    let device = r.device.as_deref().unwrap_or("an unnamed device");
    match &r.peaks {
        Some(p) => text.push_str(&format!(
            "{device}: peaks of the {} (bf16 {:.0} TFLOP/s dense, DRAM {:.2} TB/s; {})\n",
            p.name, p.bf16, p.dram_tbps, p.source
        )),
        None => {
            text.push_str(&format!("{device}: not in prof's peak table, so achieved rates only, no share of a bound\n"))
        }
    }
    text.push_str(&format!(
        "{} calls with shapes cover {} of {} kernel time ({:.1} %)\n",
        r.calls,
        human_ns(r.covered_ns as f64),
        human_ns(r.kernel_ns as f64),
        r.covered_ns as f64 * 100.0 / r.kernel_ns.max(1) as f64
    ));
    if !r.enough {
        text.push_str(&format!(
            "too little to tell: {} calls, {} (a verdict needs {ENOUGH_CALLS} calls and {}, or {}); record more \
             steps with torch.profiler(record_shapes=True)\n",
            r.calls,
            human_ns(r.covered_ns as f64),
            human_ns(ENOUGH_NS as f64),
            human_ns(ENOUGH_LONG_NS as f64)
        ));
    }
    let mut rows = vec![["class", "time", "calls", "achieved", "of bound", "lost"].map(String::from).to_vec()];
    for c in &r.classes {
        rows.push(vec![
            c.class.label().to_owned(),
            human_ns(c.time_ns as f64),
            c.calls.to_string(),
            rate(c),
            pct(c.efficiency_pct),
            c.lost_ns.map_or_else(|| "-".to_owned(), |l| human_ns(l as f64)),
        ]);
    }
    text.push_table(rows);
    if let (Some(e), Some(lost)) = (r.efficiency_pct, r.lost_ns) {
        text.push_str(&format!(
            "all covered ops: {e:.1} % of their roofline bound; {} above it\n",
            human_ns(lost as f64)
        ));
    }
    text.push_str(if r.peaks.is_some() { "most time lost against the bound:\n" } else { "most time:\n" });
    let mut rows = vec![["op", "time", "achieved", "of bound", "type and shape"].map(String::from).to_vec()];
    for w in r.worst.iter().take(8) {
        rows.push(vec![
            short_op(&w.op),
            human_ns(w.time_ns as f64),
            rate(w),
            pct(w.efficiency_pct),
            format!("{} {}", dtype(w), w.shape).trim().to_owned(),
        ]);
    }
    text.push_table(rows);
    if !r.uncovered.is_empty() {
        let ops: Vec<String> =
            r.uncovered.iter().take(4).map(|(op, t)| format!("{} {}", short_op(op), human_ns(*t as f64))).collect();
        text.push_str(&format!("recorded but not modelled (not counted above): {}\n", ops.join(", ")));
    }
    let json = serde_json::to_value(r).ok()?;
    Some(RenderedSection { key: "roofline", title: "roofline (ops with recorded shapes)".to_owned(), text, json })
}
