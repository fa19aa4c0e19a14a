//! Load speed of the op-table reader (`kernel_details.csv`, `op_summary_*.csv`) on a file.
//!
//! Loads the file named by the first argument with [`op_table::load`] and prints the rows,
//! the time, the throughput and the peak resident memory (`VmHWM`): the parser's share of
//! `prof analyze`'s time on the same file. Build a large file with
//! `python3 scripts/bench/ascend_kernel_details_vs_pandas.py target/release/prof 10000000 --keep`.
//!
//! `cargo run --release -p prof-backend-ascend --example kernel_details_speed -- FILE`

use prof_backend_ascend::fuzz::op_table;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: kernel_details_speed FILE")?;
    let bytes = std::fs::metadata(&path)?.len();
    let started = Instant::now();
    let timeline = op_table::load(std::path::Path::new(&path))?;
    let elapsed = started.elapsed().as_secs_f64();
    let mb = bytes as f64 / 1e6;
    let rows = timeline.ops.len() as f64;
    println!(
        "{mb:.1} MB, {} ops in {elapsed:.2} s = {:.0} MB/s, {:.2} M rows/s",
        timeline.ops.len(),
        mb / elapsed,
        rows / elapsed / 1e6
    );
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap_or("VmHWM: unknown");
    println!("peak RSS {}", peak.trim_start_matches("VmHWM:").trim());
    Ok(())
}
