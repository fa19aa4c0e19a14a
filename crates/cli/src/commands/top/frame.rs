//! One frame of `prof top`, drawn from the live views: a header, the device table, the picked
//! device's verdict and reason, its processes, and the keys.

use prof_core::live::{LiveDevice, LiveKind, LiveView};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};
use ratatui::Frame;
use std::time::Duration;

/// How the device table is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    /// By vendor and index.
    Index,
    /// Busiest first.
    Utilization,
    /// Most memory in use first.
    Memory,
    /// Most power first.
    Power,
}

impl Sort {
    /// The next order (`s`).
    pub fn next(self) -> Self {
        match self {
            Sort::Index => Sort::Utilization,
            Sort::Utilization => Sort::Memory,
            Sort::Memory => Sort::Power,
            Sort::Power => Sort::Index,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Sort::Index => "device",
            Sort::Utilization => "utilization",
            Sort::Memory => "memory",
            Sort::Power => "power",
        }
    }
}

/// What the frame shows.
pub struct State {
    /// The probes' views.
    pub views: Vec<LiveView>,
    /// The table's order.
    pub sort: Sort,
    /// The picked row.
    pub selected: usize,
    /// Sampling shown is frozen.
    pub paused: bool,
    interval: Duration,
}

impl State {
    /// Nothing sampled yet.
    pub fn new(interval: Duration) -> Self {
        Self { views: Vec::new(), sort: Sort::Index, selected: 0, paused: false, interval }
    }

    /// Devices over all probes.
    pub fn device_count(&self) -> usize {
        self.views.iter().map(|v| v.devices.len()).sum()
    }

    /// Every device with its vendor, in the table's order.
    fn rows(&self) -> Vec<(&str, &LiveDevice)> {
        let mut rows: Vec<(&str, &LiveDevice)> =
            self.views.iter().flat_map(|v| v.devices.iter().map(move |d| (v.vendor.as_str(), d))).collect();
        let key = |d: &LiveDevice| -> f64 {
            let last = d.last.as_ref();
            match self.sort {
                Sort::Index => 0.0,
                Sort::Utilization => -last.and_then(|s| s.gpu_util_pct).unwrap_or(-1.0),
                Sort::Memory => -last.and_then(|s| s.mem_used_bytes).map_or(-1.0, |b| b as f64),
                Sort::Power => -last.and_then(|s| s.power_w).unwrap_or(-1.0),
            }
        };
        rows.sort_by(|a, b| key(a.1).total_cmp(&key(b.1)).then(a.0.cmp(b.0)).then(a.1.info.index.cmp(&b.1.info.index)));
        rows
    }
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{v:.0}%"))
}

fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

fn memory(d: &LiveDevice) -> String {
    let s = d.last.as_ref();
    match (s.and_then(|s| s.mem_used_bytes), s.and_then(|s| s.mem_total_bytes)) {
        (Some(u), Some(t)) => format!("{:.0}/{:.0}G", gib(u), gib(t)),
        (Some(u), None) => format!("{:.1}G", gib(u)),
        _ => "-".to_owned(),
    }
}

fn power(d: &LiveDevice) -> String {
    let s = d.last.as_ref();
    match (s.and_then(|s| s.power_w), s.and_then(|s| s.power_limit_w)) {
        (Some(p), Some(l)) => format!("{p:.0}/{l:.0}W"),
        (Some(p), None) => format!("{p:.0}W"),
        _ => "-".to_owned(),
    }
}

fn clock(d: &LiveDevice) -> String {
    let s = d.last.as_ref();
    let throttled = s.and_then(|s| s.throttle_reasons.as_ref()).is_some_and(|r| r.iter().any(|r| r != "gpu_idle"));
    let mark = if throttled { "!" } else { "" };
    match (s.and_then(|s| s.sm_clock_mhz), s.and_then(|s| s.sm_clock_max_mhz)) {
        (Some(c), Some(m)) => format!("{c}/{m}{mark}"),
        (Some(c), None) => format!("{c}{mark}"),
        _ => "-".to_owned(),
    }
}

fn verdict_label(kind: LiveKind) -> &'static str {
    match kind {
        LiveKind::Busy => "busy",
        LiveKind::ClockLimited => "clock-limited",
        LiveKind::HostBound => "host-bound",
        LiveKind::Idle => "idle",
        LiveKind::TooShort => "too short",
        LiveKind::NoData => "no data",
    }
}

/// Draws the frame.
pub fn draw(frame: &mut Frame, state: &State) {
    let rows = state.rows();
    let area = frame.area();
    let table_height = (rows.len() as u16 + 1).min(area.height.saturating_sub(6).max(2));
    let [head, table_area, detail, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(table_height),
        Constraint::Min(2),
        Constraint::Length(1),
    ])
    .areas(area);
    // The probe's source without its paths and versions (`rocm-smi --json (…)` → `rocm-smi --json`).
    let sources: Vec<String> = state
        .views
        .iter()
        .map(|v| format!("{} {}", v.vendor, v.source.split(" (").next().unwrap_or(&v.source)))
        .collect();
    let window = state.views.first().map_or(0.0, |v| v.window_s);
    let header = format!(
        "prof top{} · {} · {} device(s) · verdicts over {window:.0} s, every {:.1} s",
        if state.paused { " PAUSED" } else { "" },
        if sources.is_empty() { "no probe".to_owned() } else { sources.join(", ") },
        rows.len(),
        state.interval.as_secs_f64()
    );
    frame.render_widget(Paragraph::new(header), head);

    let bold = Style::default().add_modifier(Modifier::BOLD);
    let header_row = Row::new(["dev", "model", "util", "SM", "mem", "power", "clock MHz", "°C", "verdict"]).style(bold);
    let table_rows = rows.iter().enumerate().map(|(i, (vendor, d))| {
        let s = d.last.as_ref();
        let dev = if state.views.len() > 1 {
            format!("{}{}", &vendor[..1.min(vendor.len())], d.info.index)
        } else {
            d.info.index.to_string()
        };
        let row = Row::new([
            Cell::from(dev),
            Cell::from(d.info.name.trim_start_matches("NVIDIA ").to_owned()),
            Cell::from(pct(s.and_then(|s| s.gpu_util_pct))),
            Cell::from(pct(d.sm_activity_pct())),
            Cell::from(memory(d)),
            Cell::from(power(d)),
            Cell::from(clock(d)),
            Cell::from(s.and_then(|s| s.temperature_c).map_or_else(|| "-".to_owned(), |t| format!("{t:.0}"))),
            Cell::from(verdict_label(d.verdict)),
        ]);
        if i == state.selected.min(rows.len().saturating_sub(1)) {
            row.style(Style::default().add_modifier(Modifier::REVERSED))
        } else {
            row
        }
    });
    let widths = [
        Constraint::Length(3),
        Constraint::Min(8),
        Constraint::Length(4),
        Constraint::Length(4),
        Constraint::Length(9),
        Constraint::Length(9),
        Constraint::Length(10),
        Constraint::Length(3),
        Constraint::Length(13),
    ];
    frame.render_widget(Table::new(table_rows, widths).header(header_row).column_spacing(1), table_area);

    let mut lines: Vec<Line> = Vec::new();
    match rows.get(state.selected.min(rows.len().saturating_sub(1))) {
        None => lines.push(Line::from("no device sampled yet")),
        Some((vendor, d)) => {
            lines.push(Line::from(format!(
                "{vendor} device {}: {} — {}",
                d.info.index,
                verdict_label(d.verdict),
                d.reason
            )));
            let s = d.last.as_ref();
            if let (Some(util), Some(sm)) = (s.and_then(|s| s.gpu_util_pct), d.sm_activity_pct()) {
                if util >= 50.0 && sm < util / 2.0 {
                    lines.push(Line::from(format!(
                        "utilization {util:.0}% but SM activity {sm:.0}%: kernels resident, SMs mostly idle (tiny kernels)"
                    )));
                }
            }
            if let Some(reasons) = s.and_then(|s| s.throttle_reasons.as_ref()).filter(|r| !r.is_empty()) {
                lines.push(Line::from(format!("clock limited by: {}", reasons.join(", "))));
            }
            let processes = s.map(|s| s.processes.as_slice()).unwrap_or_default();
            if processes.is_empty() {
                lines.push(Line::from("processes: none reported"));
            } else {
                lines.push(Line::styled(format!("{:>8}  {:<24} {:>9} {:>5}", "pid", "process", "memory", "SM"), bold));
                for p in processes {
                    lines.push(Line::from(format!(
                        "{:>8}  {:<24} {:>9} {:>5}",
                        p.pid,
                        p.name.as_deref().unwrap_or("?").chars().take(24).collect::<String>(),
                        p.mem_used_bytes.map_or_else(|| "-".to_owned(), |b| format!("{:.1}G", gib(b))),
                        pct(p.sm_util_pct)
                    )));
                }
            }
        }
    }
    if let Some(error) = state.views.iter().find_map(|v| v.health.last_error.as_ref()) {
        lines.push(Line::from(format!("sampler: {error}")));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), detail);
    let keys_line = format!("q quit · s sort ({}) · ↑↓ device · p pause", state.sort.label());
    frame.render_widget(Paragraph::new(keys_line), keys);
}
