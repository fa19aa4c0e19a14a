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
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let slots: Vec<std::sync::Mutex<Option<T>>> = (0..parts).map(|_| std::sync::Mutex::new(None)).collect();
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
    slots.into_iter().map(|slot| slot.into_inner().ok().flatten()).collect()
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
}
