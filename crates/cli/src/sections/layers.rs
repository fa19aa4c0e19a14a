//! "One layer": the layers (or steps) found from the main stream's repeating op pattern and
//! the per-op cost of one representative layer, most expensive first (core's [`find_layers`]).

use super::RenderedSection;
use crate::blocks::Blocks;
use crate::render::{ellipsize, human_ns};
use prof_core::analysis::layers::Layers;
use prof_core::KernelSummary;

/// Ops of the representative layer listed by cost.
const LISTED_OPS: usize = 15;

/// The layer section, when an op pattern repeats on the main stream.
pub fn section(layers: &Layers, summary: &KernelSummary) -> Option<RenderedSection> {
    let mut text = Blocks::default();
    text.push_str(&format!(
        "device {} stream {}: {} layers of {} ops from op {} of {} (+{}), {:.1} % of the stream's op time\n",
        layers.device,
        layers.stream,
        layers.count,
        layers.period_ops,
        layers.first_op_index,
        layers.stream_ops,
        human_ns(layers.offset_ns as f64),
        layers.covered_pct,
    ));
    text.push_str(&format!("  found by: {}\n", layers.method));
    text.push_str(&format!(
        "  layer time: mean {}, min {}, max {}\n",
        human_ns(layers.layer_mean_ns),
        human_ns(layers.layer_min_ns as f64),
        human_ns(layers.layer_max_ns as f64)
    ));
    if let Some(inner) = &layers.inner {
        text.push_str(&format!(
            "  inside each: {} × {} ops from position {} ({:.1} % of the layer's op time)\n",
            inner.count, inner.period_ops, inner.first_position, inner.covered_pct
        ));
    }
    if let Some(steps) = layers.profiler_steps {
        text.push_str(&format!(
            "  {steps} ProfilerStep annotations: {:.1} layers per step\n",
            layers.count as f64 / steps as f64
        ));
    }
    let family: std::collections::HashMap<&str, &str> =
        summary.kernels.iter().map(|k| (k.name.as_str(), k.family.as_str())).collect();
    let mut rows = vec![["#", "op (position in layer)", "family", "mean", "share of layer"].map(String::from).to_vec()];
    for op in layers.by_share().into_iter().take(LISTED_OPS) {
        rows.push(vec![
            op.position.to_string(),
            ellipsize(&crate::render::display_name(&op.name), crate::render::name_width(50).min(60)),
            family.get(op.name.as_str()).copied().unwrap_or("-").to_owned(),
            human_ns(op.mean_ns),
            format!("{:.1} %", op.share_pct),
        ]);
    }
    text.push_table(rows);
    if layers.ops.len() > LISTED_OPS {
        text.push_str(&format!(
            "  ({} more ops in the layer; --json-full lists all in order)\n",
            layers.ops.len() - LISTED_OPS
        ));
    }
    let json = serde_json::to_value(layers).ok()?;
    Some(RenderedSection {
        key: "layers",
        title: "one layer (repeating op pattern on the main stream; costliest ops first)".to_owned(),
        text,
        json,
    })
}
