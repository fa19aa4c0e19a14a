//! Where `prof breakdown`'s capture window opens: `--skip` (a time or `auto`), the time window
//! a default capture falls back to, the `capture_window` of the document, and what to say when
//! a time window caught nothing.

use crate::breakdown_view::CaptureWindow;
use crate::durations::parse_duration;
use crate::failure::{Failure, Kind};
use prof_core::{BreakdownTool, CaptureRange, CaptureRequest};
use std::time::Duration;

/// Why a time-windowed capture can come out empty (no artifact worth the name, or one without
/// GPU work), from how long the command ran. On the H100 (2026-12-05): an HF decode client's
/// first CUDA call came ~20 s in (imports, the model built on the CPU), after a 10 s window from
/// its start; and `--skip 24s` and `12s` on one whose `generate` calls all came after the
/// window (CUPTI's skip counts from CUDA's start) left a trace header and no record.
pub(super) fn window_hint(request: &CaptureRequest, ran: Duration) -> String {
    let (skip, window) = (request.skip.as_secs_f64(), request.window.as_secs_f64());
    if ran <= request.skip {
        format!(
            "the command ended {:.1} s after it started, before the window opened ({skip:.0} s in): rerun with a \
             smaller --skip, or --skip auto",
            ran.as_secs_f64()
        )
    } else {
        format!(
            "the command ran {:.1} s; the window was {window:.0} s from {skip:.0} s after the command started: if its \
             GPU work starts later (imports, a model load), rerun with a larger --skip or --window, if earlier with a \
             smaller --skip, or open the window at an event (--capture-range)",
            ran.as_secs_f64()
        )
    }
}

/// Where the capture's window opened, for the JSON document.
pub(super) fn capture_window(
    request: &CaptureRequest,
    chosen_by: Option<String>,
    from_profile: Duration,
) -> CaptureWindow {
    let opens_on = match request.range {
        CaptureRange::Time => "time",
        CaptureRange::Auto => "auto",
        CaptureRange::ProfilerApi => "profiler",
        CaptureRange::Range { .. } => "range",
        CaptureRange::KernelLaunch { .. } => "kernel",
    };
    let (opens, skip_ns) = match request.range {
        CaptureRange::Time => {
            (format!("{:.1} s after the start", request.skip.as_secs_f64()), Some(request.skip.as_nanos() as u64))
        }
        ref range => (format!("at {}", range.describe()), None),
    };
    let chosen_by = chosen_by.or_else(|| {
        (request.range == CaptureRange::Time && !from_profile.is_zero() && request.skip == from_profile)
            .then(|| "the active phase of prof profile's utilization step".to_owned())
    });
    CaptureWindow { opens_on, opens, skip_ns, length_ns: request.window.as_nanos() as u64, chosen_by }
}

/// The time window a default capture falls back to (a tool without `auto`, or an `auto` window
/// that never opened): from `skip` after the start.
pub(super) fn fall_back(
    tool: &dyn BreakdownTool,
    request: &mut CaptureRequest,
    skip: Duration,
) -> Result<prof_core::CapturePlan, Failure> {
    request.range = CaptureRange::Time;
    request.skip = skip;
    tool.plan(request).map_err(|e| Failure::from(e).or_kind(Kind::Usage))
}

/// `--skip`: a time, or `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// This long after the start.
    Time(Duration),
    /// After the load.
    Auto,
}

/// Parses `--skip`: `auto` or a duration.
pub fn parse_skip(text: &str) -> Result<Skip, String> {
    if text.trim().eq_ignore_ascii_case("auto") {
        return Ok(Skip::Auto);
    }
    parse_duration(text).map(Skip::Time).map_err(|e| format!("{e} (or `auto`)"))
}
