//! A small SVG writer: rectangles, text, lines and polylines into one inline `<svg>`
//! element, every text escaped, coordinates rounded to one decimal so the markup stays small.

use super::escape;
use std::fmt::Write;

/// An `<svg>` element being drawn.
pub struct Svg {
    body: String,
    width: f64,
    height: f64,
}

/// Fill colours by name, one per series or family slot, readable on white.
pub const PALETTE: [&str; 10] =
    ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

impl Svg {
    /// An empty drawing of `width` × `height` user units (pixels at 100 % zoom).
    pub fn new(width: f64, height: f64) -> Self {
        Self { body: String::new(), width, height }
    }

    /// A filled rectangle; `title` becomes its hover tooltip.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, title: Option<&str>) {
        let _ = write!(self.body, "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" fill=\"{fill}\"");
        match title {
            Some(title) => {
                let _ = write!(self.body, "><title>{}</title></rect>", escape(title));
            }
            None => self.body.push_str("/>"),
        }
    }

    /// Text at (`x`, `y`) (baseline), anchored `start`, `middle` or `end`.
    pub fn text(&mut self, x: f64, y: f64, anchor: &str, size: f64, text: &str) {
        let _ = write!(
            self.body,
            "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\" font-size=\"{size}\">{}</text>",
            escape(text)
        );
    }

    /// A straight line.
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str) {
        let _ = write!(
            self.body,
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"{stroke}\" stroke-width=\"1\"/>"
        );
    }

    /// A polyline through `points`.
    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str) {
        if points.is_empty() {
            return;
        }
        self.body.push_str("<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"");
        self.body.push_str(stroke);
        self.body.push_str("\" points=\"");
        for (x, y) in points {
            let _ = write!(self.body, "{x:.1},{y:.1} ");
        }
        self.body.push_str("\"/>");
    }

    /// The finished element, labelled for screen readers by `label`.
    pub fn finish(self, label: &str) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" \
             aria-label=\"{label}\" font-family=\"sans-serif\">{body}</svg>\n",
            w = self.width,
            h = self.height,
            label = escape(label),
            body = self.body
        )
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
        let out = svg.finish("x & y");
        assert!(out.contains("<title>f&lt;T&gt;&amp;</title>"));
        assert!(out.contains(">a&lt;b&gt;</text>"));
        assert!(out.contains("aria-label=\"x &amp; y\""));
        assert!(!out.contains("<T>"));
    }
}
