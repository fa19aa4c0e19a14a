//! Unit tests of the Chrome trace writer: escaping, flows, exact microseconds, speed.

use super::*;
use prof_core::CounterSeries;

#[test]
fn escapes_names_links_launches_and_keeps_nanoseconds() {
    let mut t = Timeline::new("unit \"test\"");
    let kernel = t.intern("void f<a, \"b\">(c\\d)\n\u{1}");
    let launch = t.intern("cudaLaunchKernel");
    let clock = t.intern("sm clock");
    let mhz = t.intern("MHz");
    let mut op = DeviceOp::new(OpKind::Kernel, kernel, 1, 7, 1_000_001, 2_500);
    op.correlation = Some(9).into();
    t.push_op_with(op, prof_core::OpDetails { grid: Some([4, 1, 1]), ..Default::default() });
    t.host.push(HostSpan::new(launch, HostCategory::Runtime, (300, 301), 999_000, 10, Some(9).into()));
    t.counters.push(CounterSeries { name: clock, device: Some(1), unit: Some(mhz), points: vec![(5, 1980.0)] });
    let mut bytes = Vec::new();
    let events = write(&t, &mut bytes).unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let list = doc["traceEvents"].as_array().unwrap();
    assert_eq!(list.len() as u64, events);
    let x: Vec<_> = list.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(x.len(), 2);
    assert_eq!(x[0]["name"], "void f<a, \"b\">(c\\d)\n\u{1}");
    assert_eq!(x[0]["ts"].as_f64(), Some(1000.001));
    assert_eq!(x[0]["dur"].as_f64(), Some(2.5));
    assert_eq!(x[0]["args"]["grid"], serde_json::json!([4, 1, 1]));
    assert_eq!(list.iter().filter(|e| e["ph"] == "s" || e["ph"] == "f").count(), 2);
    assert_eq!(list.iter().filter(|e| e["ph"] == "C").count(), 1);
    assert_eq!(doc["otherData"]["source"], "unit \"test\"");
}

/// `cargo test -p prof-cli --release chrome_trace -- --ignored --nocapture`: the time to
/// write a 1M-op timeline (with launches and flows) into memory.
#[test]
#[ignore = "timing, run by hand in release"]
fn writes_a_million_ops_quickly() {
    let mut t = Timeline::new("synthetic");
    let names: Vec<NameId> = (0..200).map(|i| t.intern(&format!("void kernel_{i}<float, 4>(float*)"))).collect();
    let launch = t.intern("cudaLaunchKernel");
    for i in 0..1_000_000u64 {
        let mut op = DeviceOp::new(OpKind::Kernel, names[i as usize % names.len()], 0, 7, i * 2_000, 1_500);
        op.correlation = Some(i).into();
        t.push_op_with(op, prof_core::OpDetails { grid: Some([128, 1, 1]), ..Default::default() });
        let (pid, tid, start_ns, dur_ns) = (1, 1, i * 2_000, 900);
        t.host.push(HostSpan::new(launch, HostCategory::Runtime, (pid, tid), start_ns, dur_ns, Some(i).into()));
    }
    let mut bytes = Vec::with_capacity(600 << 20);
    let started = std::time::Instant::now();
    let events = write(&t, &mut bytes).unwrap();
    let elapsed = started.elapsed();
    println!("{events} events, {} MB in {:.3} s", bytes.len() >> 20, elapsed.as_secs_f64());
    assert_eq!(events, 4_000_000 + 6, "3 events per op and launch, 6 metadata");
}
