//! ncu's console output (what `ncu` prints without `--csv`, and what people paste), read into
//! the same [`DetailsLaunch`] entries as the details CSV.
//!
//! Layout, as in the recordings from 2019-era to 2025.3: a `[pid] process@host` line; per launch
//! a line indented two spaces, `name (grid)x(block), Context 1, Stream 7, Device 0, CC 9.0` (older:
//! `name, 2022-Jun-03 11:31:08, Context 1, Stream 7`); per section `Section: <display name>`, then a
//! table framed by dash rules whose three dash runs give the name, unit and value columns (newer
//! versions add a `Metric Name  Metric Unit  Metric Value` header and its own rule; older ones
//! indent the rows two columns further than the rule); then rule results, `OPT`/`WRN`/`INF`
//! followed by the message (or first by `Est. Speedup: 19.69%` / `Est. Local Speedup: …`) with
//! continuation lines indented further. The console has no launch IDs: launches are numbered
//! from 0 in order, as ncu numbers them in a report.

use crate::error::{quote, NvidiaError};
use crate::ncu_csv::LaunchInfo;
use crate::ncu_pages::{DetailsLaunch, Metric, Rule};
use crate::ncu_units::{impossible_time, parse_number, parse_quantity};

/// The tool name in console-output errors.
pub const CONSOLE_TOOL: &str = "ncu console output";

/// True when `text` looks like ncu console output (it has `Section:` lines).
pub fn looks_like_console(text: &str) -> bool {
    text.lines().any(|l| l.trim_start().starts_with("Section: ") && l.starts_with("    "))
        && text.lines().any(|l| process_line(l).is_some())
}

/// Parses ncu console output into one entry per launch, in order.
pub fn parse_console(text: &str) -> Result<Vec<DetailsLaunch>, NvidiaError> {
    let mut parser = Parser::default();
    for (index, line) in text.lines().enumerate() {
        parser.line(index + 1, line.trim_end())?;
    }
    parser.finish_rule();
    if parser.launches.is_empty() {
        let reason = "no profiled launch found (no `[pid] process@host` line followed by a kernel line)";
        return Err(NvidiaError::output(CONSOLE_TOOL, 1, reason));
    }
    Ok(parser.launches)
}

#[derive(Default)]
struct Parser {
    launches: Vec<DetailsLaunch>,
    process: Option<(Option<u32>, String)>,
    section: Option<String>,
    table: Option<Table>,
    rule: Option<(Rule, usize)>,
}

/// The open table: where its columns start (byte offsets of the rule's dash runs) and whether
/// the rule under a `Metric Name` header is still to come.
struct Table {
    indent: usize,
    unit_at: usize,
    value_at: usize,
    header_rule_due: bool,
}

impl Parser {
    fn line(&mut self, number: usize, line: &str) -> Result<(), NvidiaError> {
        if let Some(process) = process_line(line) {
            self.finish_rule();
            self.process = Some(process);
            return Ok(());
        }
        let Some((pid, name)) = self.process.clone() else { return Ok(()) };
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim();
        if let Some((rule, rule_indent)) = &mut self.rule {
            if !trimmed.is_empty() && indent > *rule_indent && dash_runs(trimmed).is_none() {
                push_text(&mut rule.message, trimmed);
                return Ok(());
            }
            self.finish_rule();
        }
        if trimmed.is_empty() {
            return Ok(());
        }
        if indent == 2 {
            let mut launch = kernel_line(trimmed, number)?;
            (launch.id, launch.process_id, launch.process_name) = (self.launches.len() as u64, pid, Some(name));
            self.launches.push(DetailsLaunch { launch, metrics: Vec::new(), rules: Vec::new() });
            (self.section, self.table) = (None, None);
            return Ok(());
        }
        if let Some(section) = trimmed.strip_prefix("Section: ") {
            (self.section, self.table) = (Some(section.trim().to_owned()), None);
            return Ok(());
        }
        if let Some(runs) = dash_runs(trimmed) {
            self.rule_line(indent, &runs);
            return Ok(());
        }
        if let Some(table) = &mut self.table {
            if trimmed.starts_with("Metric Name") && trimmed.ends_with("Metric Value") {
                table.header_rule_due = true;
                return Ok(());
            }
            let metric = self.row(number, line, indent)?;
            return self.current(number).map(|launch| launch.metrics.push(metric));
        }
        if let Some(rule) = rule_start(self.section.as_deref().unwrap_or(""), trimmed) {
            self.current(number)?;
            self.rule = Some((rule, indent));
        }
        Ok(())
    }

    /// A dash rule with three runs opens or closes a table; the one under a header is skipped.
    fn rule_line(&mut self, indent: usize, runs: &[usize]) {
        match (&mut self.table, runs) {
            (Some(table), _) if table.header_rule_due => table.header_rule_due = false,
            (Some(_), _) => self.table = None,
            (None, [_, unit_at, value_at]) => {
                self.table = Some(Table {
                    indent,
                    unit_at: indent + unit_at,
                    value_at: indent + value_at,
                    header_rule_due: false,
                })
            }
            (None, _) => {}
        }
    }

    fn row(&self, number: usize, line: &str, indent: usize) -> Result<Metric, NvidiaError> {
        let table =
            self.table.as_ref().ok_or_else(|| NvidiaError::output(CONSOLE_TOOL, number, "a row outside a table"))?;
        let shift = indent.saturating_sub(table.indent);
        let (unit_at, value_at) = (table.unit_at + shift, table.value_at + shift);
        let cut = |from: usize, to: Option<usize>| match to {
            Some(to) => line.get(from..to.min(line.len())),
            None => line.get(from..),
        };
        let fields = (cut(0, Some(unit_at)), cut(unit_at, Some(value_at)), cut(value_at, None));
        let (Some(name), Some(unit), Some(value)) = fields else {
            let reason = format!("a table row shorter than its columns: {}", quote(line));
            return Err(NvidiaError::output(CONSOLE_TOOL, number, reason));
        };
        let (name, unit, text) = (name.trim(), unit.trim(), value.trim());
        if name.is_empty() || text.is_empty() {
            let reason =
                format!("expected a metric name, unit and value in the table's columns, found {}", quote(line));
            return Err(NvidiaError::output(CONSOLE_TOOL, number, reason));
        }
        let value = parse_quantity(text, unit);
        if let Some(reason) = impossible_time(name, value.as_ref()) {
            return Err(NvidiaError::output(CONSOLE_TOOL, number, reason));
        }
        Ok(Metric {
            section: self.section.clone().unwrap_or_default(),
            name: name.to_owned(),
            unit: unit.to_owned(),
            text: text.to_owned(),
            value,
        })
    }

    fn current(&mut self, number: usize) -> Result<&mut DetailsLaunch, NvidiaError> {
        self.launches
            .last_mut()
            .ok_or_else(|| NvidiaError::output(CONSOLE_TOOL, number, "a section result before any kernel line"))
    }

    fn finish_rule(&mut self) {
        if let (Some((rule, _)), Some(launch)) = (self.rule.take(), self.launches.last_mut()) {
            launch.rules.push(rule);
        }
    }
}

/// `[pid] process@host`.
fn process_line(line: &str) -> Option<(Option<u32>, String)> {
    let rest = line.strip_prefix('[')?;
    let (pid, process) = rest.split_once("] ")?;
    let (name, _host) = process.rsplit_once('@')?;
    (!pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())).then(|| (pid.parse().ok(), name.to_owned()))
}

/// The offsets of the dash runs of a line made only of dashes and single spaces.
fn dash_runs(trimmed: &str) -> Option<Vec<usize>> {
    if !trimmed.starts_with('-') || !trimmed.bytes().all(|b| b == b'-' || b == b' ') {
        return None;
    }
    let starts = trimmed.char_indices().filter(|&(i, c)| c == '-' && (i == 0 || trimmed.as_bytes()[i - 1] == b' '));
    Some(starts.map(|(i, _)| i).collect())
}

/// The kernel line: name, grid and block, then `Context`, `Stream`, `Device`, `CC` entries.
fn kernel_line(trimmed: &str, number: usize) -> Result<LaunchInfo, NvidiaError> {
    let (head, tail) = trimmed.split_once(", Context ").ok_or_else(|| {
        NvidiaError::output(
            CONSOLE_TOOL,
            number,
            format!("expected a kernel line with `, Context`, found {}", quote(trimmed)),
        )
    })?;
    let mut launch = LaunchInfo::default();
    for entry in format!("Context {tail}").split(", ") {
        match entry.split_once(' ') {
            Some(("Device", v)) => launch.device = parse_number(v).map(|d| d as u32),
            Some(("CC", v)) => launch.compute_capability = Some(v.to_owned()),
            _ => {}
        }
    }
    let mut name = head;
    if let Some(x) = head.rfind(")x(").filter(|_| head.ends_with(')')) {
        if let Some(open) = head[..x].rfind(" (") {
            (launch.grid_size, launch.block_size) =
                (Some(head[open + 1..=x].to_owned()), Some(head[x + 2..].to_owned()));
            name = &head[..open];
        }
    } else if let Some((before, stamp)) = head.rsplit_once(", ") {
        if stamp.len() > 4 && stamp.as_bytes()[..4].iter().all(u8::is_ascii_digit) && stamp.as_bytes()[4] == b'-' {
            name = before;
        }
    }
    launch.kernel = name.trim().to_owned();
    Ok(launch)
}

/// `OPT   message`, `WRN   Est. Speedup: 19.69%` … at the start of a rule result.
fn rule_start(section: &str, trimmed: &str) -> Option<Rule> {
    let (kind, rest) = trimmed.split_once(' ')?;
    if !matches!(kind, "OPT" | "WRN" | "INF") {
        return None;
    }
    let rest = rest.trim();
    let mut rule = Rule {
        section: section.to_owned(),
        name: None,
        kind: kind.to_owned(),
        message: String::new(),
        speedup_kind: None,
        speedup_pct: None,
    };
    let estimate = [("Est. Speedup:", "global"), ("Est. Local Speedup:", "local")]
        .into_iter()
        .find_map(|(label, scope)| rest.strip_prefix(label).map(|v| (v, scope)));
    match estimate {
        Some((value, scope)) => {
            rule.speedup_pct = parse_number(value.trim().trim_end_matches('%'));
            rule.speedup_kind = Some(scope.to_owned());
        }
        None => rule.message = rest.to_owned(),
    }
    Some(rule)
}

fn push_text(message: &mut String, line: &str) {
    if !message.is_empty() {
        message.push(' ');
    }
    message.push_str(line);
}

#[cfg(test)]
mod tests;
