//! What opens and closes the window when it starts at an event ([`StartOn`]) rather than a
//! time: the decision alone, fed with events the CUPTI callbacks decode
//! ([`crate::callbacks`]), so it is tested without a GPU.
//!
//! - `profiler`: the first `cudaProfilerStart`/`cuProfilerStart` opens, the next stop closes.
//! - `nvtx:NAME`: the first range named `NAME` (`NAME*`: starting with `NAME`) opens; its own
//!   end closes (a push/pop range ends at the pop that returns its thread's stack to the
//!   depth it had; a start/end range at the end of its id).
//! - `kernel:TEXT@N`: the `N`th launch of a kernel whose name contains `TEXT` opens.
//! - `auto`: whichever comes first of
//!   - the program's own marks: its first `cudaProfilerStart` opens (the next stop closes,
//!     as for `profiler`: Megatron's `--profile`, NeMo's nsys callback); the start of its
//!     second *step range* opens (an NVTX range named like a training or decode step, see
//!     [`is_step_range`]; the first step is where compilation, autotuning and allocator growth
//!     happen);
//!   - the end of the load: launches are counted in blocks of [`AUTO_BLOCK`] and the
//!     host-to-device bytes each block copies are summed; the window opens once
//!     [`AUTO_SETTLED`] blocks in a row copy about the same (the largest at most 1.5× the
//!     smallest, or all under [`AUTO_SMALL_BYTES`]): the bulk upload of the load is over and
//!     the first launches, where compilation and autotuning happen, are behind.

pub use crate::format::StartOn;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Mutex, PoisonError};

/// Launches per block of the `auto` rule.
pub const AUTO_BLOCK: u64 = 256;
/// Blocks in a row that must copy about the same bytes.
pub const AUTO_SETTLED: usize = 3;
/// Blocks that all copy less than this count as settled whatever their ratio (16 MiB, the
/// phase split's bulk-copy size).
pub const AUTO_SMALL_BYTES: u64 = 16 << 20;

/// One thing the traced program did, as the trigger needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<'a> {
    /// `cudaProfilerStart` or `cuProfilerStart`.
    ProfilerStart,
    /// `cudaProfilerStop` or `cuProfilerStop`.
    ProfilerStop,
    /// A kernel or graph launch; `symbol` is the kernel's name when CUDA gives one.
    Launch {
        /// The kernel's name at launch (mangled for C++ kernels), if any.
        symbol: Option<&'a [u8]>,
    },
    /// A host-to-device copy call of `bytes`.
    HostToDevice {
        /// Bytes the call copies.
        bytes: u64,
    },
    /// An NVTX push; `depth` is the thread's stack depth in that domain before it.
    Push {
        /// The range's message.
        name: &'a str,
        /// The calling thread and NVTX domain, as one key.
        stack: u64,
        /// Depth of that stack before the push.
        depth: u32,
    },
    /// An NVTX pop; `depth` is the stack depth after it.
    Pop {
        /// As for [`Event::Push`].
        stack: u64,
        /// Depth of that stack after the pop.
        depth: u32,
    },
    /// An NVTX start/end range began with id `id`.
    RangeStart {
        /// The range's message.
        name: &'a str,
        /// The id `nvtxRangeStart*` returned.
        id: u64,
    },
    /// The start/end range `id` ended.
    RangeEnd {
        /// As for [`Event::RangeStart`].
        id: u64,
    },
}

/// What the window should do after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Nothing changes.
    None,
    /// Open the window now.
    Open,
    /// Close the window now.
    Close,
}

/// What opened an `auto` window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opener {
    /// The launches and copies settled after the load.
    Load,
    /// The program's `cudaProfilerStart` (its stop closes the window).
    Profiler,
    /// The program's second step range.
    Step,
}

impl Opener {
    /// The value [`Trigger`] keeps it as (0: not opened).
    fn code(self) -> u8 {
        match self {
            Self::Load => 1,
            Self::Profiler => 2,
            Self::Step => 3,
        }
    }

    fn of_code(code: u8) -> Option<Self> {
        [Self::Load, Self::Profiler, Self::Step].into_iter().find(|o| o.code() == code)
    }

    /// How the tracer's log says it.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Load => "the end of the load (launches and copies settled)",
            Self::Profiler => "the program's cudaProfilerStart",
            Self::Step => "the program's second step range (NVTX)",
        }
    }
}

/// Step ranges seen before `auto` opens on the second.
pub const AUTO_STEP: u32 = 2;

/// An NVTX range named like one step of a loop: its name begins (any case) with
/// `ProfilerStep`, `train_step`, `training_step`, `train step`, `step`, `iteration` or `iter`,
/// followed by nothing, a digit, space, `#`, `_`, `-`, `:` or `=` (so `step 3`, `ProfilerStep#7`,
/// `iteration_12`, `train_step`; not `stepper` nor `iterator`).
pub fn is_step_range(name: &str) -> bool {
    const STEMS: [&str; 7] = ["profilerstep", "train_step", "training_step", "train step", "step", "iteration", "iter"];
    let lower = name.trim_start().as_bytes();
    STEMS.iter().any(|stem| {
        lower.len() >= stem.len()
            && lower[..stem.len()].eq_ignore_ascii_case(stem.as_bytes())
            && lower.get(stem.len()).is_none_or(|&next| next.is_ascii_digit() || b" #_-:=".contains(&next))
    })
}

#[derive(Debug, Default)]
struct State {
    /// `auto`: bytes of the last full blocks, oldest first.
    blocks: Vec<u64>,
    /// `nvtx`: the open push/pop range's (stack, depth).
    pushed: Option<(u64, u32)>,
    /// `nvtx`: the open start/end range's id.
    started: Option<u64>,
    /// `auto`: step ranges begun so far.
    steps: u32,
}

/// The decision for one [`StartOn`], shared by every thread that makes CUDA calls.
#[derive(Debug)]
pub struct Trigger {
    start_on: StartOn,
    opened: AtomicBool,
    closed: AtomicBool,
    /// Launches seen (`auto`), or launches of matching kernels (`kernel`).
    launches: AtomicU64,
    /// `auto`: host-to-device bytes of the block being filled.
    block_bytes: AtomicU64,
    /// `auto`: what opened the window ([`Opener::code`]; 0 before), set before `opened`, so
    /// [`Trigger::done`], asked on every callback, reads it without a lock.
    opener: AtomicU8,
    state: Mutex<State>,
}

impl Trigger {
    /// A trigger that has not fired.
    pub fn new(start_on: StartOn) -> Self {
        Self {
            start_on,
            opened: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            launches: AtomicU64::new(0),
            block_bytes: AtomicU64::new(0),
            opener: AtomicU8::new(0),
            state: Mutex::new(State::default()),
        }
    }

    /// What it waits for.
    pub fn start_on(&self) -> &StartOn {
        &self.start_on
    }

    /// True once it opened the window.
    pub fn opened(&self) -> bool {
        self.opened.load(Ordering::Acquire)
    }

    /// True once nothing can change any more (opened, and closed where it closes).
    pub fn done(&self) -> bool {
        self.closed.load(Ordering::Acquire)
            || (self.opened()
                && match self.start_on {
                    StartOn::Kernel { .. } => true,
                    StartOn::Auto => self.opener() != Some(Opener::Profiler),
                    _ => false,
                })
    }

    /// What opened an `auto` window (`None` before, or for other starts).
    pub fn opener(&self) -> Option<Opener> {
        Opener::of_code(self.opener.load(Ordering::Acquire))
    }

    /// Why the window has not opened yet, for the tracer's exit line.
    pub fn pending(&self) -> String {
        let seen = self.launches.load(Ordering::Relaxed);
        match &self.start_on {
            StartOn::ProfilerApi => "no cudaProfilerStart/cuProfilerStart call was made".to_owned(),
            StartOn::Nvtx(name) => format!(
                "no NVTX range named `{name}` began (NVTX reaches CUPTI only through NVTX_INJECTION64_PATH; \
                 PyTorch emits ranges with torch.cuda.nvtx.range_push or emit_nvtx)"
            ),
            StartOn::Kernel { pattern, nth } => {
                format!("{seen} launches of kernels whose name contains `{pattern}`, fewer than {nth}")
            }
            StartOn::Auto => format!(
                "{seen} launches: the host-to-device copies per block of {AUTO_BLOCK} launches never settled \
                 for {AUTO_SETTLED} blocks in a row, the program called no cudaProfilerStart and began {} of the \
                 {AUTO_STEP} step ranges (NVTX) that would have opened it",
                self.state.lock().unwrap_or_else(PoisonError::into_inner).steps
            ),
        }
    }

    /// Opens an `auto` window, remembering why.
    fn open_by(&self, opener: Opener) -> Action {
        // The opener first, then the window: `done` never sees it open without its opener.
        if self.opener.compare_exchange(0, opener.code(), Ordering::AcqRel, Ordering::Acquire).is_err() {
            return Action::None;
        }
        self.open()
    }

    /// `auto` on a step range's start: the [`AUTO_STEP`]th opens.
    fn step_range(&self, name: &str) -> Action {
        if !is_step_range(name) {
            return Action::None;
        }
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.steps += 1;
        let opens = state.steps >= AUTO_STEP;
        drop(state);
        if opens {
            self.open_by(Opener::Step)
        } else {
            Action::None
        }
    }

    fn open(&self) -> Action {
        if self.opened.swap(true, Ordering::AcqRel) {
            Action::None
        } else {
            Action::Open
        }
    }

    fn close(&self) -> Action {
        if self.opened() && !self.closed.swap(true, Ordering::AcqRel) {
            Action::Close
        } else {
            Action::None
        }
    }

    /// Judges one event.
    pub fn on(&self, event: Event<'_>) -> Action {
        if self.closed.load(Ordering::Acquire) {
            return Action::None;
        }
        match (&self.start_on, event) {
            (StartOn::ProfilerApi, Event::ProfilerStart) => self.open(),
            (StartOn::ProfilerApi, Event::ProfilerStop) => self.close(),
            (StartOn::Kernel { pattern, nth }, Event::Launch { symbol: Some(symbol) }) if !self.opened() => {
                if contains(symbol, pattern.as_bytes()) && self.launches.fetch_add(1, Ordering::AcqRel) + 1 == *nth {
                    return self.open();
                }
                Action::None
            }
            (StartOn::Auto, Event::ProfilerStart) if !self.opened() => self.open_by(Opener::Profiler),
            (StartOn::Auto, Event::ProfilerStop) if self.opener() == Some(Opener::Profiler) => self.close(),
            (StartOn::Auto, Event::Push { name, .. } | Event::RangeStart { name, .. }) if !self.opened() => {
                self.step_range(name)
            }
            (StartOn::Auto, Event::HostToDevice { bytes }) if !self.opened() => {
                self.block_bytes.fetch_add(bytes, Ordering::AcqRel);
                Action::None
            }
            (StartOn::Auto, Event::Launch { .. }) if !self.opened() => {
                if !(self.launches.fetch_add(1, Ordering::AcqRel) + 1).is_multiple_of(AUTO_BLOCK) {
                    return Action::None;
                }
                let bytes = self.block_bytes.swap(0, Ordering::AcqRel);
                let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                state.blocks.push(bytes);
                if state.blocks.len() > AUTO_SETTLED {
                    state.blocks.remove(0);
                }
                if state.blocks.len() == AUTO_SETTLED && settled(&state.blocks) {
                    drop(state);
                    return self.open_by(Opener::Load);
                }
                Action::None
            }
            (StartOn::Nvtx(wanted), Event::Push { name, stack, depth }) if !self.opened() && matches(name, wanted) => {
                self.state.lock().unwrap_or_else(PoisonError::into_inner).pushed = Some((stack, depth));
                self.open()
            }
            (StartOn::Nvtx(_), Event::Pop { stack, depth }) => {
                let pushed = self.state.lock().unwrap_or_else(PoisonError::into_inner).pushed;
                if pushed == Some((stack, depth)) {
                    return self.close();
                }
                Action::None
            }
            (StartOn::Nvtx(wanted), Event::RangeStart { name, id }) if !self.opened() && matches(name, wanted) => {
                self.state.lock().unwrap_or_else(PoisonError::into_inner).started = Some(id);
                self.open()
            }
            (StartOn::Nvtx(_), Event::RangeEnd { id }) => {
                let started = self.state.lock().unwrap_or_else(PoisonError::into_inner).started;
                if started == Some(id) {
                    return self.close();
                }
                Action::None
            }
            _ => Action::None,
        }
    }
}

/// `auto`'s rule for a full set of blocks.
fn settled(blocks: &[u64]) -> bool {
    let largest = blocks.iter().copied().max().unwrap_or(0);
    let smallest = blocks.iter().copied().min().unwrap_or(0);
    largest < AUTO_SMALL_BYTES || largest.saturating_mul(2) <= smallest.saturating_mul(3)
}

/// An NVTX message against `nvtx:NAME`: equal, or starting with `NAME` less its final `*`.
pub fn matches(name: &str, wanted: &str) -> bool {
    match wanted.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == wanted,
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|window| window == needle)
}

#[cfg(test)]
mod tests;
