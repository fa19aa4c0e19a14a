//! Import speed of the Kineto trace reader on a large trace.
//!
//! Builds a trace of about `TARGET_MB` megabytes (first argument, default 200) by repeating
//! the events of the recorded H200 trace, writes it to a temporary file, imports it with
//! [`load_torch_trace`], and prints the throughput and the peak resident memory (`VmHWM`).
//!
//! `cargo run --release -p prof-backend-nvidia --example torch_trace_speed -- 200`

use prof_backend_nvidia::fuzz::torch_trace::load_torch_trace;
use std::io::{BufWriter, Write};
use std::time::Instant;

const H200: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/nvidia/h200-probe/torch-trace.json");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let target_mb: u64 = std::env::args().nth(1).map(|a| a.parse()).transpose()?.unwrap_or(200);
    let text = std::fs::read_to_string(H200)?;
    let key = text.find("\"traceEvents\"").ok_or("no traceEvents in the fixture")?;
    let open = key + text[key..].find('[').ok_or("no [ after traceEvents")?;
    let close = text.rfind(']').ok_or("no ] in the fixture")?;
    let (head, events, tail) = (&text[..=open], text[open + 1..close].trim(), &text[close..]);

    let path = std::env::temp_dir().join(format!("prof-torch-trace-speed-{}.json", std::process::id()));
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(&path)?);
    out.write_all(head.as_bytes())?;
    let copies = (target_mb << 20).div_ceil(events.len() as u64 + 2).max(1);
    for copy in 0..copies {
        out.write_all(if copy == 0 { b"\n" } else { b",\n" })?;
        out.write_all(events.as_bytes())?;
    }
    out.write_all(b"\n")?;
    out.write_all(tail.as_bytes())?;
    out.into_inner()?.sync_all()?;
    let bytes = std::fs::metadata(&path)?.len();

    let started = Instant::now();
    let timeline = load_torch_trace(&path);
    let elapsed = started.elapsed().as_secs_f64();
    std::fs::remove_file(&path)?;
    let timeline = timeline?;
    let mb = bytes as f64 / 1e6;
    println!(
        "{mb:.1} MB ({copies} copies of the H200 trace): {} device ops, {} host spans in {elapsed:.2} s = {:.0} MB/s",
        timeline.ops.len(),
        timeline.host.len(),
        mb / elapsed
    );
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap_or("VmHWM: unknown");
    println!("peak RSS {}", peak.trim_start_matches("VmHWM:").trim());
    Ok(())
}
