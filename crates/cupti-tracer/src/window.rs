//! The capture window: which CUPTI timestamps are kept. Records arrive late (buffers are
//! delivered in batches), so the window is kept as timestamps and each record is judged by
//! its own start time, not by when it arrives.

use std::sync::atomic::{AtomicU64, Ordering};

/// An open end.
const OPEN: u64 = u64::MAX;
const MS: u64 = 1_000_000;

/// `[start, end)` in CUPTI nanoseconds; `start == u64::MAX` means not opened yet.
#[derive(Debug)]
pub struct Window {
    start: AtomicU64,
    end: AtomicU64,
    duration_ns: Option<u64>,
}

/// What a SIGUSR1 did to the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toggle {
    /// The window opened now.
    Opened,
    /// The window closed now.
    Closed,
    /// The window had already closed; nothing changed.
    Ignored,
}

impl Window {
    /// A window that opens `start_after_ms` after `t0` (or waits for [`Window::toggle`] when
    /// `paused`) and lasts `duration_ms` once open.
    pub fn new(t0: u64, start_after_ms: u64, duration_ms: Option<u64>, paused: bool) -> Self {
        let duration_ns = duration_ms.map(|ms| ms.saturating_mul(MS));
        let start = if paused { OPEN } else { t0.saturating_add(start_after_ms.saturating_mul(MS)) };
        let end = if paused { OPEN } else { duration_ns.map_or(OPEN, |d| start.saturating_add(d)) };
        Self { start: AtomicU64::new(start), end: AtomicU64::new(end), duration_ns }
    }

    /// True when a record starting at `ts` belongs to the capture.
    pub fn contains(&self, ts: u64) -> bool {
        ts >= self.start.load(Ordering::Acquire) && ts < self.end.load(Ordering::Acquire)
    }

    /// The end, if the window has one.
    pub fn end(&self) -> Option<u64> {
        Some(self.end.load(Ordering::Acquire)).filter(|&end| end != OPEN)
    }

    /// True once `now` is past the end.
    pub fn is_closed_at(&self, now: u64) -> bool {
        self.end().is_some_and(|end| now >= end)
    }

    /// Opens a window that has not opened yet at `now` (its duration counts from `now`);
    /// false when it had opened.
    pub fn open(&self, now: u64) -> bool {
        if self.start.load(Ordering::Acquire) != OPEN {
            return false;
        }
        self.end.store(self.duration_ns.map_or(OPEN, |d| now.saturating_add(d)), Ordering::Release);
        self.start.store(now, Ordering::Release);
        true
    }

    /// Closes an open window at `now` (never later than its own end); false when it had not
    /// opened or had closed.
    pub fn close(&self, now: u64) -> bool {
        let start = self.start.load(Ordering::Acquire);
        if start == OPEN || self.is_closed_at(now) {
            return false;
        }
        self.end.store(now.max(start), Ordering::Release);
        true
    }

    /// Opens a window that has not opened, else closes an open one, at `now`.
    pub fn toggle(&self, now: u64) -> Toggle {
        if self.open(now) {
            Toggle::Opened
        } else if self.close(now) {
            Toggle::Closed
        } else {
            Toggle::Ignored
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_after_and_duration_bound_the_kept_records() {
        let w = Window::new(1_000, 2, Some(3), false);
        assert!(!w.contains(1_000 + 2 * MS - 1));
        assert!(w.contains(1_000 + 2 * MS));
        assert!(w.contains(1_000 + 5 * MS - 1));
        assert!(!w.contains(1_000 + 5 * MS));
        assert_eq!(w.end(), Some(1_000 + 5 * MS));
        assert!(w.is_closed_at(1_000 + 5 * MS));
        let open = Window::new(0, 0, None, false);
        assert!(open.contains(0) && open.contains(u64::MAX - 1));
        assert!(!open.is_closed_at(u64::MAX - 1));
    }

    #[test]
    fn paused_windows_open_and_close_on_signals() {
        let w = Window::new(0, 0, None, true);
        assert!(!w.contains(10));
        assert_eq!(w.toggle(100), Toggle::Opened);
        assert!(!w.contains(99) && w.contains(100) && w.contains(10_000));
        assert_eq!(w.toggle(500), Toggle::Closed);
        assert!(w.contains(499) && !w.contains(500));
        assert_eq!(w.toggle(600), Toggle::Ignored);

        let timed = Window::new(0, 0, Some(1), true);
        assert_eq!(timed.toggle(50), Toggle::Opened);
        assert_eq!(timed.end(), Some(50 + MS));
        let running = Window::new(0, 0, None, false);
        assert_eq!(running.toggle(70), Toggle::Closed);
        assert!(running.contains(69) && !running.contains(70));
    }

    #[test]
    fn open_and_close_act_once_and_in_order() {
        let w = Window::new(0, 0, Some(2), true);
        assert!(!w.close(10) && !w.contains(10), "closing a window that never opened does nothing");
        assert!(w.open(100) && w.contains(100) && !w.open(200));
        assert_eq!(w.end(), Some(100 + 2 * MS));
        assert!(w.close(150) && !w.close(160));
        assert!(w.contains(149) && !w.contains(150));
    }
}
