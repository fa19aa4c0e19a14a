//! `prof top`: every device on the machine, any vendor, live: utilization and SM activity side
//! by side (a gap between them is the tiny-kernel trap), memory, power against its limit, clocks
//! against their maximum with the throttle reason, temperature, the processes on the picked
//! device, and each device's rolling verdict with its reason. Keys: `q` quit, `s` sort, `↑`/`↓`
//! pick a device, `p` pause. `--once` prints one frame as text (for scripts; 80×24 unless
//! `COLUMNS`/`LINES` say otherwise). Drawn with ratatui; read through the utilization probes
//! only.

mod frame;
#[cfg(test)]
mod tests;

use crate::durations::parse_duration;
use crate::failure::{Failure, Kind};
use crate::live_sampler::Sampler;
use clap::Args;
use frame::State;
use prof_core::Registry;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind};
use ratatui::Terminal;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `prof top`.
#[derive(Debug, Args)]
pub struct TopArgs {
    /// Sampling interval.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    interval: Duration,
    /// The window each device's verdict is taken over.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    window: Duration,
    /// Use only this vendor's probe (`nvidia`, `amd`, `ascend`).
    #[arg(long)]
    vendor: Option<String>,
    /// Print one frame as text after a few samples and exit (what `prof top` does when stdout is
    /// not a terminal).
    #[arg(long)]
    once: bool,
}

/// One frame drawn at `width` × `height`, as text lines (trailing blanks cut).
pub fn frame_text(state: &State, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap_or_else(|never| match never {});
    if terminal.draw(|f| frame::draw(f, state)).is_err() {
        return String::new();
    }
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..height {
        let line: String = (0..width).map(|x| buffer[(x, y)].symbol().to_owned()).collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

fn size_from_env(name: &str, default: u16) -> u16 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).filter(|&v| v >= 20).unwrap_or(default)
}

/// Runs `prof top`.
pub fn run(registry: &Registry, args: &TopArgs) -> Result<ExitCode, Failure> {
    if args.interval < Duration::from_millis(100) {
        return Err(Failure::new(Kind::Usage, "--interval must be at least 100ms"));
    }
    let window_s = args.window.as_secs_f64().max(args.interval.as_secs_f64());
    let sampler = Sampler::start(registry, args.vendor.as_deref(), args.interval, window_s)?;
    let mut state = State::new(args.interval);
    // Without a terminal (piped, under a script) there is no live view to draw: one frame.
    use std::io::IsTerminal;
    if args.once || !std::io::stdout().is_terminal() {
        sampler.wait_for(3, args.interval * 6 + Duration::from_secs(5));
        state.views = sampler.views();
        print!("{}", frame_text(&state, size_from_env("COLUMNS", 80), size_from_env("LINES", 24)));
        return Ok(ExitCode::SUCCESS);
    }
    let mut terminal =
        ratatui::try_init().map_err(|e| Failure::new(Kind::Failed, format!("cannot start the terminal view: {e}")))?;
    let result = live_loop(&mut terminal, &sampler, &mut state, args.interval);
    ratatui::restore();
    result.map_err(|e| Failure::new(Kind::Failed, format!("terminal: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

fn live_loop(
    terminal: &mut ratatui::DefaultTerminal,
    sampler: &Sampler,
    state: &mut State,
    interval: Duration,
) -> std::io::Result<()> {
    let mut last = Instant::now() - interval;
    loop {
        if !state.paused && last.elapsed() >= interval.min(Duration::from_millis(500)) {
            state.views = sampler.views();
            last = Instant::now();
        }
        terminal.draw(|f| frame::draw(f, state))?;
        if !event::poll(Duration::from_millis(200))? {
            continue;
        }
        let Event::Key(key) = event::read()? else { continue };
        if key.kind != KeyEventKind::Press {
            continue;
        }
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => return Ok(()),
            KeyCode::Char('c') if key.modifiers.contains(event::KeyModifiers::CONTROL) => return Ok(()),
            KeyCode::Char('s') => state.sort = state.sort.next(),
            KeyCode::Char('p') => state.paused = !state.paused,
            KeyCode::Up => state.selected = state.selected.saturating_sub(1),
            KeyCode::Down => state.selected = (state.selected + 1).min(state.device_count().saturating_sub(1)),
            _ => {}
        }
    }
}
