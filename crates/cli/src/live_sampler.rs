//! The sampler behind `prof top` and `prof exporter`: every probe that opens on this machine
//! (one per vendor), sampled every interval on a thread of its own into a bounded rolling window
//! ([`prof_core::live::Live`]). Only [`prof_core::UtilizationProbe`] is read.

use crate::failure::Failure;
use prof_core::live::{Live, LiveView};
use prof_core::{Registry, UtilizationProbe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// One probe and its window.
struct Source {
    probe: Box<dyn UtilizationProbe>,
    live: Arc<Mutex<Live>>,
}

/// Every probe that opens (only `vendor`'s when given); an error when none does.
fn open(registry: &Registry, vendor: Option<&str>, window_s: f64) -> Result<Vec<Source>, Failure> {
    let mut sources = Vec::new();
    let mut first_error = None;
    for backend in registry.vendors().iter().filter(|v| vendor.is_none_or(|id| v.id() == id)) {
        match crate::probes::open_probe(registry, Some(backend.id())) {
            Ok(probe) => {
                let devices = probe.devices().unwrap_or_default();
                let live = Live::new(probe.source(), backend.id(), devices, window_s);
                sources.push(Source { probe, live: Arc::new(Mutex::new(live)) });
            }
            Err(error) => drop(first_error.get_or_insert(error)),
        }
    }
    match (sources.is_empty(), first_error) {
        (true, Some(error)) => Err(error),
        (true, None) => Err(crate::probes::open_probe(registry, vendor).err().unwrap_or_else(|| "no probe".into())),
        _ => Ok(sources),
    }
}

/// One tick of `source` at `t_ns` since the start.
fn tick(source: &mut Source, t_ns: u64) {
    let started = Instant::now();
    let sampled = source.probe.sample();
    let cost = started.elapsed().as_secs_f64();
    let unix = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
    let mut live = source.live.lock().unwrap_or_else(|e| e.into_inner());
    match sampled {
        Ok(samples) => live.push(prof_core::Tick { t_ns, samples }, cost, unix),
        Err(error) => live.failed(error.to_string()),
    }
}

/// The sampler, running.
pub struct Sampler {
    lives: Vec<Arc<Mutex<Live>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Sampler {
    /// Opens the probes and samples them every `interval` on a thread, the first tick at once.
    pub fn start(
        registry: &Registry,
        vendor: Option<&str>,
        interval: Duration,
        window_s: f64,
    ) -> Result<Self, Failure> {
        let mut sources = open(registry, vendor, window_s)?;
        let lives = sources.iter().map(|s| s.live.clone()).collect();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            let mut next = start;
            while !stopping.load(Ordering::Relaxed) {
                let t_ns = start.elapsed().as_nanos() as u64;
                for source in &mut sources {
                    tick(source, t_ns);
                }
                next += interval;
                // Sleep in short slices so a stop is seen within 50 ms.
                while !stopping.load(Ordering::Relaxed) {
                    let now = Instant::now();
                    if now >= next {
                        break;
                    }
                    std::thread::sleep((next - now).min(Duration::from_millis(50)));
                }
            }
        });
        Ok(Self { lives, stop, thread: Some(thread) })
    }

    /// Every device now.
    pub fn views(&self) -> Vec<LiveView> {
        self.lives.iter().map(|l| l.lock().unwrap_or_else(|e| e.into_inner()).view()).collect()
    }

    /// Ticks taken so far (of the first probe).
    pub fn ticks(&self) -> u64 {
        self.lives.first().map_or(0, |l| l.lock().unwrap_or_else(|e| e.into_inner()).health.samples)
    }

    /// Waits until `n` ticks were taken (or `limit` passed).
    pub fn wait_for(&self, n: u64, limit: Duration) {
        let until = Instant::now() + limit;
        while self.ticks() < n && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
