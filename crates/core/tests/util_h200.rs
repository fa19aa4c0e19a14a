//! Summary and verdict on numbers recorded on the project's H200, typed in as samples.
//!
//! Busy: tests/fixtures/nvidia/h200-probe/dmon-busy.txt (`nvidia-smi dmon`, 3 samples: 653/652/654 W,
//! 59 °C, sm 100 %, mem 25 %, mclk 3201 MHz, pclk 1935 MHz). dmon has no throttle, limit or max-clock
//! column: those come from nvidia-smi-q-busy.xml in the same folder (`clocks_event_reason_sw_power_cap`
//! Active and every other reason Not Active, `current_power_limit` 700.00 W, `max_clocks/sm_clock`
//! 1980 MHz, `fb_memory_usage/total` 143771 MiB).
//! Idle: dmon.txt (3 samples: 79 W, 38 °C, 0 %, 0 %, 3201 MHz, 345 MHz) with query.csv (power.limit
//! 700.00 W, clocks.max.sm 1980 MHz, memory.total 143771 MiB, clocks_event_reasons.active 0x1 = gpu_idle).

use prof_core::{judge_run, summarize, DeviceSample, FindingKind, Tick, VerdictKind};

const MIB: u64 = 1 << 20;
const COMMAND: [&str; 3] = ["python3", "work.py", "3"];

/// One dmon row as (pwr W, gtemp C, sm %, mem %, mclk MHz, pclk MHz).
type DmonRow = (f64, f64, f64, f64, u32, u32);

const BUSY: [DmonRow; 3] = [
    (653.0, 59.0, 100.0, 25.0, 3201, 1935),
    (652.0, 59.0, 100.0, 25.0, 3201, 1935),
    (654.0, 59.0, 100.0, 25.0, 3201, 1935),
];
const IDLE: [DmonRow; 3] =
    [(79.0, 38.0, 0.0, 0.0, 3201, 345), (79.0, 38.0, 0.0, 0.0, 3201, 345), (79.0, 38.0, 0.0, 0.0, 3201, 345)];

/// dmon samples once a second by default.
fn ticks(rows: &[DmonRow], throttle: &str) -> Vec<Tick> {
    rows.iter()
        .enumerate()
        .map(|(i, &(power, temperature, sm, mem, mclk, pclk))| Tick {
            t_ns: i as u64 * 1_000_000_000,
            samples: vec![DeviceSample {
                device: 0,
                gpu_util_pct: Some(sm),
                mem_util_pct: Some(mem),
                mem_total_bytes: Some(143_771 * MIB),
                sm_clock_mhz: Some(pclk),
                sm_clock_max_mhz: Some(1980),
                mem_clock_mhz: Some(mclk),
                power_w: Some(power),
                power_limit_w: Some(700.0),
                temperature_c: Some(temperature),
                throttle_reasons: Some(vec![throttle.to_owned()]),
                ..Default::default()
            }],
        })
        .collect()
}

/// The typed rows are the file's rows: columns found by the dmon header, not by position.
fn assert_typed_from(file: &str, typed: &[DmonRow]) {
    let path = format!("{}/../../tests/fixtures/nvidia/h200-probe/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("fixture copied into tests/fixtures");
    let header: Vec<&str> = text.lines().next().unwrap().trim_start_matches('#').split_whitespace().collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<f64>> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split_whitespace().map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), typed.len(), "{file}");
    for (row, t) in rows.iter().zip(typed) {
        let got = (row[column("pwr")], row[column("gtemp")], row[column("sm")], row[column("mem")]);
        assert_eq!(got, (t.0, t.1, t.2, t.3), "{file}");
        assert_eq!((row[column("mclk")], row[column("pclk")]), (f64::from(t.4), f64::from(t.5)), "{file}");
    }
}

#[test]
fn typed_samples_match_the_recorded_files() {
    assert_typed_from("dmon-busy.txt", &BUSY);
    assert_typed_from("dmon.txt", &IDLE);
}

#[test]
fn busy_h200_is_busy_and_power_capped() {
    let summaries = summarize(&ticks(&BUSY, "sw_power_cap"));
    let s = &summaries[0];
    assert_eq!(s.samples, 3);
    assert_eq!(
        (s.gpu_util_peak_pct, s.gpu_util_mean_pct, s.gpu_util_median_pct),
        (Some(100.0), Some(100.0), Some(100.0))
    );
    assert_eq!(s.busy_share_pct, Some(100.0));
    assert_eq!((s.mem_util_mean_pct, s.mem_util_peak_pct), (Some(25.0), Some(25.0)));
    // 653 + 652 + 654 = 1959 W over 3 samples.
    assert_eq!((s.power_min_w, s.power_max_w, s.power_mean_w), (Some(652.0), Some(654.0), Some(653.0)));
    assert_eq!(
        (s.sm_clock_lowest_mhz, s.sm_clock_highest_mhz, s.sm_clock_max_mhz),
        (Some(1935), Some(1935), Some(1980))
    );
    assert_eq!(s.temperature_max_c, Some(59.0));
    assert_eq!(s.duration_s, 2.0);
    let throttle = s.throttle_reasons.as_ref().unwrap();
    assert_eq!(
        (throttle[0].reason.as_str(), throttle[0].share_pct, throttle[0].busy_share_pct),
        ("sw_power_cap", 100.0, Some(100.0))
    );

    let verdict = judge_run(&summaries, &COMMAND);
    assert_eq!(verdict.kind, VerdictKind::Busy);
    assert_eq!(verdict.next_step.as_deref(), Some("prof breakdown -- python3 work.py 3"));
    assert!(verdict.has_finding(FindingKind::ClockLimited));
    let evidence = &verdict.findings[0].evidence;
    assert!(evidence.iter().any(|e| e == "device 0: sw_power_cap active in 100 % of busy samples"), "{evidence:?}");
    assert!(evidence.iter().any(|e| e == "device 0: power peaked at 654 W of a 700 W limit"), "{evidence:?}");
    assert!(evidence.iter().any(|e| e == "device 0: SM clock 1935–1935 MHz of a 1980 MHz maximum"), "{evidence:?}");
}

#[test]
fn idle_h200_is_idle() {
    let summaries = summarize(&ticks(&IDLE, "gpu_idle"));
    let s = &summaries[0];
    assert_eq!((s.gpu_util_peak_pct, s.gpu_util_mean_pct, s.busy_share_pct), (Some(0.0), Some(0.0), Some(0.0)));
    assert_eq!(s.power_mean_w, Some(79.0));
    assert_eq!((s.sm_clock_lowest_mhz, s.sm_clock_highest_mhz), (Some(345), Some(345)));

    let verdict = judge_run(&summaries, &COMMAND);
    assert_eq!(verdict.kind, VerdictKind::Idle, "0 % throughout: idle, not host-bound");
    assert_eq!(verdict.next_step, None);
    assert!(verdict.findings.is_empty(), "gpu_idle is not a clock limit");
}
