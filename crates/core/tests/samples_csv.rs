//! The `--csv` writer: fixed header, one row per (tick, device), empty cells for unknown.

use prof_core::samples_csv::{activity_names, CSV_COLUMNS};
use prof_core::{write_csv, DeviceSample, Tick};
use std::io::{self, Write};

const MIB: u64 = 1 << 20;
const FIXED_HEADER: &str = "t_ms,device,gpu_util_pct,mem_util_pct,mem_used_mib,mem_total_mib,sm_clock_mhz,\
                            mem_clock_mhz,power_w,power_limit_w,temperature_c,throttle_reasons";

fn csv(ticks: &[Tick]) -> String {
    let mut out = Vec::new();
    write_csv(ticks, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("UTF-8")
}

fn busy_h200_like() -> DeviceSample {
    DeviceSample {
        device: 0,
        gpu_util_pct: Some(100.0),
        mem_util_pct: Some(25.0),
        mem_used_bytes: Some(939 * MIB),
        mem_total_bytes: Some(143_771 * MIB),
        sm_clock_mhz: Some(1935),
        sm_clock_max_mhz: Some(1980),
        mem_clock_mhz: Some(3201),
        mem_clock_max_mhz: Some(3201),
        power_w: Some(653.2),
        power_limit_w: Some(700.0),
        temperature_c: Some(59.0),
        throttle_reasons: Some(vec!["sw_power_cap".into(), "hw_slowdown".into()]),
        processes: Vec::new(),
        activity: vec![("sm_activity_pct".into(), 81.25)],
    }
}

#[test]
fn header_is_fixed_without_activity() {
    assert_eq!(CSV_COLUMNS.join(","), FIXED_HEADER);
    assert_eq!(csv(&[]), format!("{FIXED_HEADER}\n"));
}

#[test]
fn rows_per_tick_and_device_with_empty_unknowns() {
    let ticks = [
        Tick { t_ns: 1_500_000, samples: vec![busy_h200_like(), DeviceSample { device: 1, ..Default::default() }] },
        Tick {
            t_ns: 101_000_001,
            samples: vec![DeviceSample {
                device: 0,
                gpu_util_pct: Some(0.0),
                mem_used_bytes: Some(MIB + MIB / 2),
                throttle_reasons: Some(Vec::new()),
                ..Default::default()
            }],
        },
    ];
    let text = csv(&ticks);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], format!("{FIXED_HEADER},sm_activity_pct"));
    assert_eq!(lines[1], "1.5,0,100,25,939,143771,1935,3201,653.2,700,59,sw_power_cap|hw_slowdown,81.25");
    assert_eq!(lines[2], "1.5,1,,,,,,,,,,,", "device 1 reported nothing: every cell but time and device is empty");
    assert_eq!(lines[3], "101,0,0,,1.5,,,,,,,none,", "0 stays 0; no active reason is `none`; no activity is empty");
    assert_eq!(lines.len(), 4);
    assert!(lines.iter().all(|l| l.split(',').count() == 13));
}

#[test]
fn activity_columns_are_every_metric_seen_in_order() {
    let with = |device: u32, metrics: &[(&str, f64)]| DeviceSample {
        device,
        activity: metrics.iter().map(|(n, v)| ((*n).to_owned(), *v)).collect(),
        ..Default::default()
    };
    let ticks = [
        Tick { t_ns: 0, samples: vec![with(0, &[("sm_activity_pct", 10.0)])] },
        Tick { t_ns: 1, samples: vec![with(0, &[("tensor_activity_pct", 2.0), ("sm_activity_pct", 30.5)])] },
    ];
    assert_eq!(activity_names(&ticks), ["sm_activity_pct", "tensor_activity_pct"]);
    let text = csv(&ticks);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with(",throttle_reasons,sm_activity_pct,tensor_activity_pct"));
    assert!(lines[1].ends_with(",10,"), "{}", lines[1]);
    assert!(lines[2].ends_with(",30.5,2"), "{}", lines[2]);
}

#[test]
fn odd_values_are_quoted_or_emptied() {
    let sample = DeviceSample {
        device: 2,
        power_w: Some(f64::NAN),
        mem_used_bytes: Some(1),
        throttle_reasons: Some(vec!["odd,reason".into()]),
        ..Default::default()
    };
    let text = csv(&[Tick { t_ns: 0, samples: vec![sample] }]);
    let row = text.lines().nth(1).unwrap();
    // 1 byte is 0.00000095 MiB, which rounds to 0 at three decimals.
    assert_eq!(row, "0,2,,,0,,,,,,,\"odd,reason\"");
}

struct Broken;

impl Write for Broken {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::other("disk full"))
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn write_errors_are_returned() {
    let error = write_csv(&[], &mut Broken).expect_err("the error comes back");
    assert_eq!(error.to_string(), "disk full");
}

#[test]
fn the_stream_writes_what_the_whole_writer_writes_when_the_metrics_stay_the_same() {
    let on = |device: u32, util: f64| DeviceSample { device, gpu_util_pct: Some(util), ..busy_h200_like() };
    let ticks = [
        Tick { t_ns: 0, samples: vec![on(0, 10.0), on(1, 20.0)] },
        Tick { t_ns: 100_000_000, samples: vec![on(0, 30.0), on(1, 40.5)] },
    ];
    let mut whole = Vec::new();
    write_csv(&ticks, &mut whole).unwrap();
    let mut streamed = Vec::new();
    let mut stream = prof_core::samples_csv::CsvStream::new(&mut streamed);
    for tick in &ticks {
        stream.push(tick).unwrap();
    }
    assert_eq!(String::from_utf8(streamed).unwrap(), String::from_utf8(whole).unwrap());
}
