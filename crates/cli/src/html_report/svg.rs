//! A small SVG writer: rectangles, text, lines and polylines into one inline `<svg>`
//! element, drawn with maud (every text and attribute escaped by it), coordinates rounded to
//! one decimal so the markup stays small.

use maud::{html, Markup, PreEscaped};
use std::fmt;

/// An `<svg>` element being drawn.
pub struct Svg {
    body: String,
    width: f64,
    height: f64,
}

/// Fill colours by name, one per series or family slot, readable on white.
pub const PALETTE: [&str; 10] =
    ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

/// A coordinate written with one decimal.
#[derive(Clone, Copy)]
struct At(f64);

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.1}", self.0)
    }
}

impl Svg {
    /// An empty drawing of `width` × `height` user units (pixels at 100 % zoom).
    pub fn new(width: f64, height: f64) -> Self {
        Self { body: String::new(), width, height }
    }

    fn push(&mut self, element: Markup) {
        self.body.push_str(&element.into_string());
    }

    /// A filled rectangle; `title` becomes its hover tooltip.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, title: Option<&str>) {
        let (x, y, w, h) = (At(x), At(y), At(w), At(h));
        self.push(html! {
            rect x=(x) y=(y) width=(w) height=(h) fill=(fill) {
                @if let Some(title) = title { title { (title) } }
            }
        });
    }

    /// Text at (`x`, `y`) (baseline), anchored `start`, `middle` or `end`.
    pub fn text(&mut self, x: f64, y: f64, anchor: &str, size: f64, text: &str) {
        let (x, y) = (At(x), At(y));
        self.push(html! { text x=(x) y=(y) text-anchor=(anchor) font-size=(size) { (text) } });
    }

    /// A straight line.
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str) {
        let (x1, y1, x2, y2) = (At(x1), At(y1), At(x2), At(y2));
        self.push(html! { line x1=(x1) y1=(y1) x2=(x2) y2=(y2) stroke=(stroke) stroke-width="1" {} });
    }

    /// A polyline through `points`.
    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str) {
        if points.is_empty() {
            return;
        }
        let points: String = points.iter().map(|&(x, y)| format!("{},{} ", At(x), At(y))).collect();
        self.push(html! { polyline fill="none" stroke-width="1.5" stroke=(stroke) points=(points) {} });
    }

    /// The finished element, labelled for screen readers by `label`.
    pub fn finish(self, label: &str) -> Markup {
        let (w, h) = (self.width, self.height);
        html! {
            svg xmlns="http://www.w3.org/2000/svg" width=(w) height=(h) viewBox=(format_args!("0 0 {w} {h}"))
                role="img" aria-label=(label) font-family="sans-serif" { (PreEscaped(self.body)) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_text_and_titles() {
        let mut svg = Svg::new(100.0, 20.0);
        svg.rect(0.0, 0.0, 10.0, 10.0, "#000", Some("f<T>&"));
        svg.text(1.0, 2.0, "start", 10.0, "a<b>");
        svg.polyline(&[(1.0, 2.04), (3.0, 4.06)], "#111");
        let out = svg.finish("x & y").into_string();
        assert!(out.contains("<title>f&lt;T&gt;&amp;</title>"), "{out}");
        assert!(out.contains(">a&lt;b&gt;</text>"), "{out}");
        assert!(out.contains("aria-label=\"x &amp; y\""), "{out}");
        assert!(out.contains("points=\"1.0,2.0 3.0,4.1 \""), "{out}");
        assert!(out.contains("<rect x=\"0.0\" y=\"0.0\" width=\"10.0\" height=\"10.0\" fill=\"#000\">"), "{out}");
        assert!(!out.contains("<T>"));
    }
}
