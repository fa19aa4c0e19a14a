//! The tracer inside the traced process: start-up from `InitializeInjection`, the CUPTI
//! buffer callbacks (their draining into the file: `injection_drain.rs`), a control thread
//! (periodic flush, window end, SIGUSR1) and the `atexit` flush.
//!
//! Nothing here may take the host down: every `extern "C"` entry catches panics, locks are
//! held only while a buffer is drained, and any failure becomes one warning line on stderr.

use crate::buffers::{self, STATS};
use crate::callbacks;
use crate::callbacks::launch_calls;
use crate::config::{ApiMode, Config, LaunchRecords, SignalMode};
use crate::demangle::Demangler;
use crate::enable::{self, ApiCollection, Enabled};
use crate::error::TracerError;
use crate::ffi::{Cupti, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED};
use crate::format::Header;
use crate::messages::{note, warn};
use crate::recorder::Recorder;
use crate::signals;
use crate::trigger::{Action, StartOn, Trigger};
use crate::window::{Toggle, Window};
use crate::writer::TraceWriter;
use std::ffi::c_int;
use std::fs::File;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

const POLL: Duration = Duration::from_millis(50);
static STARTED: AtomicBool = AtomicBool::new(false);
/// Whether API records are being collected (`PROF_CUPTI_API_TOGGLE` pauses them).
static API_ACTIVE: AtomicBool = AtomicBool::new(true);
static TRACER: OnceLock<Tracer> = OnceLock::new();

struct Tracer {
    cupti: Cupti,
    writer: Mutex<Option<TraceWriter<File>>>,
    output: PathBuf,
    recorder: Recorder,
    enabled: OnceLock<Enabled>,
    shutdown: AtomicBool,
    warned_io: AtomicBool,
    flush_every: Option<Duration>,
    stats: bool,
    launch_records: LaunchRecords,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The body of `InitializeInjection`: starts tracing once per process. Always returns 1
/// (success) so CUDA carries on whether or not tracing could start.
pub fn initialize_injection() -> c_int {
    let _ = catch_unwind(|| {
        if STARTED.swap(true, Ordering::SeqCst) {
            return;
        }
        if let Err(error) = start() {
            warn(&format!("{error}; tracing disabled"));
        }
    });
    1
}

fn start() -> Result<(), TracerError> {
    let config = Config::from_env();
    for line in &config.warnings {
        warn(line);
    }
    let cupti = Cupti::load(config.library.as_deref(), config.cuda_home.as_deref())?;
    cupti.check_version()?;
    let (file, output) = crate::output::create_output(&config.output)?;
    let t0 = cupti.timestamp();
    let header = Header {
        pid: std::process::id(),
        rank: config.rank.unwrap_or(-1),
        local_rank: config.local_rank.unwrap_or(-1),
        t0,
    };
    // The header goes out at once: it names this process as the file's writer (see `create_output`).
    let mut writer = TraceWriter::new(file, &header);
    let _ = writer.flush();
    let waits = config.signal == SignalMode::Paused || config.start_on.is_some();
    let start_after_ms = if config.start_on.is_some() { 0 } else { config.start_after_ms };
    let window = Window::new(t0, start_after_ms, config.duration_ms, waits);
    let tracer = Tracer {
        cupti,
        writer: Mutex::new(Some(writer)),
        output,
        recorder: Recorder::new(window, Demangler::find()),
        enabled: OnceLock::new(),
        shutdown: AtomicBool::new(false),
        warned_io: AtomicBool::new(false),
        flush_every: (config.flush_ms > 0).then(|| Duration::from_millis(config.flush_ms)),
        stats: config.stats,
        launch_records: config.launch_records,
    };
    if TRACER.set(tracer).is_err() {
        return Ok(());
    }
    let Some(tracer) = TRACER.get() else { return Ok(()) };
    buffers::prepare(&tracer.cupti, config.device_buffer_mb);
    if let Err(error) = tracer.enable_all(config.api) {
        tracer.abandon();
        return Err(error);
    }
    if let Some(start_on) = config.start_on.clone() {
        watch(tracer, start_on, t0);
    }
    // SAFETY: `at_exit` is an `extern "C" fn()` that catches its own panics.
    unsafe { libc::atexit(at_exit) };
    let signal = config.signal != SignalMode::Off;
    if signal && !signals::install_window() {
        warn("cannot install the SIGUSR1 handler; PROF_CUPTI_SIGNAL ignored");
    }
    if config.api_toggle && !signals::install_api_toggle() {
        warn("cannot install the SIGUSR2 handler; PROF_CUPTI_API_TOGGLE ignored");
    }
    buffers::hand_off(true);
    let spawned = std::thread::Builder::new().name("prof-cupti".to_owned()).spawn(move || {
        let _ = catch_unwind(AssertUnwindSafe(|| tracer.control_loop(signal)));
    });
    if spawned.is_err() {
        buffers::hand_off(false);
        warn("cannot start the flush thread; records are written when buffers fill and at exit");
    }
    Ok(())
}

/// Arms the event that opens the window; when CUPTI will not call back, the window opens
/// at the start instead, with a warning.
fn watch(tracer: &Tracer, start_on: StartOn, t0: u64) {
    if let StartOn::Nvtx(_) | StartOn::Auto = start_on {
        route_nvtx(&tracer.cupti);
    }
    let wanted = start_on.to_env();
    match callbacks::install(&tracer.cupti, start_on, apply_trigger) {
        Ok(0) => {
            warn(&format!("CUPTI switched on no callback for {wanted}; recording from the start"));
            tracer.recorder.window.open(t0);
        }
        Ok(_) => note(&format!("capture window waits for {wanted}")),
        Err(error) => {
            warn(&format!("{error}; cannot wait for {wanted}, recording from the start"));
            tracer.recorder.window.open(t0);
        }
    }
}

/// NVTX calls reach CUPTI only when NVTX loads CUPTI as its injection library
/// (`NVTX_INJECTION64_PATH`, read at a process's first NVTX call): points it at the libcupti
/// this tracer uses unless the user chose one.
fn route_nvtx(cupti: &crate::ffi::Cupti) {
    const NVTX_INJECTION: &str = "NVTX_INJECTION64_PATH";
    if std::env::var_os(NVTX_INJECTION).is_some_and(|v| !v.is_empty()) {
        return;
    }
    match cupti.loaded_path() {
        // Set during cuInit, before the program's first NVTX call in the usual order (CUDA
        // first, ranges later); a program that calls NVTX before CUDA needs it set by hand.
        Some(path) => std::env::set_var(NVTX_INJECTION, path),
        None => warn("cannot tell where libcupti was loaded from; set NVTX_INJECTION64_PATH to it for nvtx ranges"),
    }
}

/// Applies a trigger's decision to the window (called from CUPTI callbacks).
fn apply_trigger(action: Action, trigger: &Trigger) {
    let Some(tracer) = TRACER.get() else { return };
    let now = tracer.cupti.timestamp();
    let wanted = trigger.start_on().to_env();
    match action {
        Action::Open if tracer.recorder.window.open(now) => match trigger.opener() {
            Some(opener) => note(&format!("{wanted}: capture window opened at {}", opener.describe())),
            None => note(&format!("{wanted}: capture window opened")),
        },
        Action::Close if tracer.recorder.window.close(now) => note(&format!("{wanted}: capture window closed")),
        _ => {}
    }
}

impl Tracer {
    fn enable_all(&self, mode: ApiMode) -> Result<(), TracerError> {
        self.cupti.register_callbacks(buffers::requested, buffer_completed)?;
        let callbacks = mode == ApiMode::Launch
            && match self.launch_records {
                LaunchRecords::Auto => !self.cupti.has_api_filter(),
                LaunchRecords::Callbacks => true,
                LaunchRecords::Activity => false,
            };
        let first = if callbacks { ApiMode::None } else { mode };
        let mut on = enable::enable(&self.cupti, first, &mut |line| warn(&line))?;
        if callbacks {
            match launch_calls::record_launches(&self.cupti) {
                Ok(count) if count > 0 => on.api = ApiCollection::Callbacks,
                result => {
                    let why =
                        result.err().map_or_else(|| "CUPTI switched on no launch callback".into(), |e| e.to_string());
                    warn(&format!("{why}; launch calls are recorded as CUPTI API activity instead"));
                    enable::enable_api(&self.cupti, &mut on, ApiMode::Launch, &mut |line| warn(&line));
                }
            }
        }
        self.recorder.set_launch_only(on.api == ApiCollection::Filtered);
        let _ = self.enabled.set(on);
        Ok(())
    }

    /// Pauses or resumes the API records (SIGUSR2 with `PROF_CUPTI_API_TOGGLE=1`).
    fn toggle_api(&self) {
        let Some(on) = self.enabled.get() else { return };
        let active = !API_ACTIVE.fetch_xor(true, Ordering::SeqCst);
        match on.api {
            ApiCollection::Off => return,
            ApiCollection::Callbacks => launch_calls::set_on(active),
            _ => enable::set_api_active(&self.cupti, on, active),
        }
        note(if active { "SIGUSR2: API records resumed" } else { "SIGUSR2: API records paused" });
    }

    fn disable_all(&self) {
        launch_calls::stop_recording_launches(&self.cupti);
        if let Some(on) = self.enabled.get() {
            enable::disable(&self.cupti, on);
        }
    }

    /// Undoes a failed start: nothing is traced and the empty trace file is removed.
    fn abandon(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
        self.disable_all();
        drop(lock(&self.writer).take());
        let _ = std::fs::remove_file(&self.output);
    }

    fn control_loop(&self, signal: bool) {
        let mut last_flush = Instant::now();
        loop {
            buffers::wait(POLL);
            if self.shutdown.load(Ordering::SeqCst) {
                return;
            }
            self.drain_queued();
            buffers::prefill();
            let now = self.cupti.timestamp();
            if signals::api_toggle_signalled() {
                self.toggle_api();
            }
            if signal && signals::window_signalled() {
                let toggle = self.recorder.window.toggle(now);
                note(match toggle {
                    Toggle::Opened => "SIGUSR1: capture window opened",
                    Toggle::Closed => "SIGUSR1: capture window closed",
                    Toggle::Ignored => "SIGUSR1: capture window already closed",
                });
            }
            callbacks::release(&self.cupti);
            if self.recorder.window.is_closed_at(now) {
                self.close_window();
                return;
            }
            if self.flush_every.is_some_and(|every| last_flush.elapsed() >= every) {
                let started = Instant::now();
                let _ = self.cupti.flush_all(0);
                STATS.flushed(started.elapsed());
                self.drain_queued();
                last_flush = Instant::now();
            }
        }
    }

    /// Stops collection once the window is over and writes everything out.
    fn close_window(&self) {
        self.disable_all();
        let _ = self.cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        let mut guard = lock(&self.writer);
        if let Some(writer) = guard.as_mut() {
            self.drain_into(writer);
            writer.window_end(self.recorder.window.end().unwrap_or(0));
            self.write_out(writer);
        }
    }

    /// Drains every queued buffer and writes the file out.
    fn drain_queued(&self) {
        let mut guard = lock(&self.writer);
        if let Some(writer) = guard.as_mut() {
            self.drain_into(writer);
            self.write_out(writer);
        }
    }
}

extern "C" fn at_exit() {
    let _ = catch_unwind(|| {
        let Some(tracer) = TRACER.get() else { return };
        if tracer.shutdown.swap(true, Ordering::SeqCst) {
            return;
        }
        buffers::hand_off(false);
        let _ = tracer.cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        let mut guard = lock(&tracer.writer);
        if let Some(writer) = guard.as_mut() {
            tracer.drain_into(writer);
        }
        let Some(writer) = guard.take() else { return };
        drop(guard);
        if let Some(why) = callbacks::pending() {
            warn(&format!("the capture window never opened: {why}"));
        }
        let (records, lost) = (writer.records(), writer.lost());
        match writer.finish() {
            Ok(_) if lost > 0 => warn(&format!("{lost} records did not fit and were lost")),
            Ok(_) => {
                let (api, refused) = tracer.enabled.get().map_or(("none", 0), |on| (on.api.describe(), on.api_refused));
                let refused = if refused > 0 { format!("; CUPTI refused {refused} launch ids") } else { String::new() };
                note(&format!("wrote {records} records (API calls: {api}{refused}) to {}", tracer.output.display()))
            }
            Err(error) => warn(&format!("cannot finish {}: {error}", tracer.output.display())),
        }
        if tracer.stats {
            note(&format!("stats: {}", STATS.line()));
        }
    });
}

mod drain;
use drain::buffer_completed;
