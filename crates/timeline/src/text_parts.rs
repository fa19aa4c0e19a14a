//! Where to split a large text file so that its lines can be read in parts at once, one
//! thread each: just after a line end near each k/n of its size. A split can fall inside a
//! quoted field that holds a line end; the reader of the part before it then ends inside
//! quotes and fails, so a reader that reads again by one thread on any failure (whose errors
//! name the right line) pays a re-read for a wrong guess, never a wrong number.

use std::path::Path;

/// Files smaller than this are read by one thread.
pub const PARALLEL_MIN_BYTES: u64 = 64 << 20;
/// Bytes of a part: parts are joined one at a time, each copied once, so small parts keep
/// the memory held twice small (a 2 GB file in two parts held a gigabyte's ops twice).
pub const PART_BYTES: u64 = 64 << 20;
/// Most threads that read parts.
const MAX_WORKERS: usize = 8;

/// Threads that read parts: the cores, at most [`MAX_WORKERS`].
pub fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_WORKERS)
}

/// How many parts a file of `size` bytes is read in: one when it is small or the machine
/// has one core, else one per [`PART_BYTES`] and at least one per worker.
pub fn parts_for(size: u64) -> usize {
    let workers = workers();
    if size < PARALLEL_MIN_BYTES || workers < 2 {
        return 1;
    }
    usize::try_from(size.div_ceil(PART_BYTES)).unwrap_or(usize::MAX).max(workers)
}

/// Runs `work(k)` for every part `k` in `0..parts` on [`workers`] threads, each taking the
/// next part when it is done with one; the results in part order, `None` for the lot as soon
/// as one part gives `None` (the others then stop taking parts).
pub fn run_parts<T: Send>(parts: usize, work: impl Fn(usize) -> Option<T> + Sync) -> Option<Vec<T>> {
    run_parts_joined(parts, work, Vec::with_capacity(parts), |all, result| all.push(result))
}

/// [`run_parts`], each result handed to `join` (onto `init`) in part order as soon as it and
/// every part before it are done, by the worker that finished last: joining overlaps reading
/// instead of following it. `None` as soon as one part gives `None`.
pub fn run_parts_joined<T: Send, J: Send>(
    parts: usize,
    work: impl Fn(usize) -> Option<T> + Sync,
    init: J,
    join: impl Fn(&mut J, T) + Sync,
) -> Option<J> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Mutex, TryLockError};
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let slots: Vec<Mutex<Option<T>>> = (0..parts).map(|_| Mutex::new(None)).collect();
    // The parts joined so far, and what they were joined onto.
    let joined = Mutex::new((0usize, init));
    // Joins the parts that are ready, in order; `wait` for the lock (else a worker that finds
    // another joining goes back to reading: that one will join what is ready).
    let join_ready = |wait: bool| {
        let mut guard = match joined.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::WouldBlock) if wait => joined.lock().unwrap_or_else(|e| e.into_inner()),
            Err(TryLockError::WouldBlock) => return,
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
        };
        let (done, onto) = &mut *guard;
        while let Some(result) = slots.get(*done).and_then(|slot| slot.lock().ok()?.take()) {
            join(onto, result);
            *done += 1;
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..workers().min(parts) {
            scope.spawn(|| {
                while !failed.load(Ordering::Relaxed) {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= parts {
                        break;
                    }
                    match work(k) {
                        Some(result) => {
                            if let Ok(mut slot) = slots[k].lock() {
                                *slot = Some(result);
                            }
                            join_ready(false);
                        }
                        None => failed.store(true, Ordering::Relaxed),
                    }
                }
            });
        }
    });
    if failed.load(Ordering::Relaxed) {
        return None;
    }
    join_ready(true);
    let (done, onto) = joined.into_inner().unwrap_or_else(|e| e.into_inner());
    (done == parts).then_some(onto)
}

/// Where parts 1.. of the file at `path` (`size` bytes) start when it is read in `parts`
/// parts: just after the first line end at or after each k/n of the size. `None` when a part
/// would be empty or no line end follows a point within 1 MiB.
pub fn split_points(path: &Path, size: u64, parts: usize) -> Option<Vec<u64>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    let mut points: Vec<u64> = Vec::with_capacity(parts);
    let mut window = vec![0u8; 1 << 20];
    for k in 1..parts as u64 {
        let target = size / parts as u64 * k;
        file.seek(SeekFrom::Start(target)).ok()?;
        let n = file.read(&mut window).ok()?;
        let newline = window[..n].iter().position(|&b| b == b'\n')?;
        let point = target + newline as u64 + 1;
        if point >= size || points.last().is_some_and(|&p| p >= point) {
            return None;
        }
        points.push(point);
    }
    Some(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_fall_just_after_line_ends_and_a_file_without_room_is_not_split() {
        let dir = std::env::temp_dir().join(format!("prof-text-parts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("lines.csv");
        let text = "h1,h2\n".to_owned() + &"12345,678\n".repeat(100);
        std::fs::write(&path, &text).unwrap();
        let size = text.len() as u64;
        for parts in [2, 3, 7] {
            let points = split_points(&path, size, parts).unwrap();
            assert_eq!(points.len(), parts - 1);
            for (k, &p) in points.iter().enumerate() {
                assert_eq!(text.as_bytes()[p as usize - 1], b'\n', "{parts} parts, point {k}");
                assert!(p >= size / parts as u64 * (k as u64 + 1));
            }
        }
        // One line: nowhere to split.
        std::fs::write(&path, "a,b,c").unwrap();
        assert_eq!(split_points(&path, 5, 2), None);
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(parts_for(PARALLEL_MIN_BYTES - 1), 1);
    }

    #[test]
    fn parts_run_on_every_worker_and_come_back_in_order() {
        let squares = run_parts(37, |k| Some(k * k)).unwrap();
        assert_eq!(squares, (0..37).map(|k| k * k).collect::<Vec<_>>());
        assert_eq!(run_parts(37, |k| (k != 20).then_some(k)), None, "one part failing fails the lot");
        assert_eq!(run_parts(0, Some), Some(Vec::<usize>::new()));
        if workers() > 1 {
            assert_eq!(parts_for(10 * PART_BYTES + 1), 11);
            assert_eq!(parts_for(PARALLEL_MIN_BYTES), workers().max(1));
        }
    }

    /// Parts that finish out of order (later ones sooner) are still joined in part order, each
    /// once, and a failing part joins nothing that is handed back.
    #[test]
    fn joined_parts_go_in_order_while_others_are_read() {
        let slow = |k: usize| {
            std::thread::sleep(std::time::Duration::from_millis(((k * 7) % 5) as u64));
            Some(k)
        };
        let joined = run_parts_joined(40, slow, Vec::new(), |all: &mut Vec<usize>, k| all.push(k)).unwrap();
        assert_eq!(joined, (0..40).collect::<Vec<_>>());
        let failing = |k: usize| (k != 33).then_some(k);
        assert_eq!(run_parts_joined(40, failing, 0usize, |n, _| *n += 1), None);
    }
}
