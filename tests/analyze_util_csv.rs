//! `prof analyze` on prof's own `prof util --csv` recording: the real H200 run under a power
//! cap (tests/fixtures/nvidia/h200-util/util-busy.csv, 189 samples at 50 ms). Its clocks and
//! throttle reasons become counter series with no ops; the counters section shows the clock
//! drops and the "throttled" rule fires. Every expected number was computed with python3's
//! csv module over the fixture (the one-liner is next to it), with
//! `t = [round(float(x['t_ms']) * 1e6) for x in rows]` (ns), `c` the sm_clock_mhz column,
//! `L = max(c) * 0.98` the drop line, sample and hold (the last sample holds no time).
//! Also: an Ascend trace with a flat `AI Core Freq` is not throttled, and bad input.

#[path = "support/mod.rs"]
mod support;

use support::{fixture_arg, prof, prof_json, Scratch};

const UTIL_CSV: &str = "nvidia/h200-util/util-busy.csv";
const ASCEND_PIPE: &str = "ascend/vllm-ascend_msprof_cann8/PROF_GROUP_20260823_165254/PROF_PipeUtilization";

fn series<'a>(doc: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    let all = doc["analyses"]["counters"].as_array().expect("counters section");
    all.iter().find(|s| s["name"] == name).unwrap_or_else(|| panic!("no series {name} in {all:?}"))
}

#[test]
fn sm_clock_drops_of_a_power_capped_run() {
    let doc = prof_json(&["analyze", "--json", &fixture_arg(UTIL_CSV)]);
    assert_eq!(doc["summary"]["kernels"].as_array().map(Vec::len), Some(0));
    let sm = series(&doc, "SM clock");
    // python: len(rows), max(c), min(c) → 189 1980.0 465.0
    assert_eq!((sm["device"].as_u64(), sm["unit"].as_str(), sm["points"].as_u64()), (Some(0), Some("MHz"), Some(189)));
    assert_eq!((sm["min"].as_f64(), sm["max"].as_f64()), (Some(465.0), Some(1980.0)));
    // python: b=[i for i in range(len(c)-1) if c[i]<L]; sum(t[i+1]-t[i] for i in b) → 7550014000
    assert_eq!((sm["drop_count"].as_u64(), sm["below_nominal_ns"].as_u64()), (Some(2), Some(7_550_014_000)));
    // python: runs of c<L from their first sample to the next sample ≥ L:
    //   s=[i for i in range(len(c)) if c[i]<L and (i==0 or c[i-1]>=L)]; e=[next(j for j in range(i,len(c)) if c[j]>=L) …]
    //   → (t, length, min) = (1450093000, 1550016000, 465.0), (3200115000, 5999998000, 1335.0); longest first
    let drops = sm["drops"].as_array().expect("drops");
    let drop = |k: usize| {
        let d = &drops[k];
        (d["offset_ns"].as_u64(), d["duration_ns"].as_u64(), d["min_value"].as_f64())
    };
    assert_eq!(drops.len(), 2);
    assert_eq!(drop(0), (Some(3_200_115_000), Some(5_999_998_000), Some(1335.0)));
    assert_eq!(drop(1), (Some(1_450_093_000), Some(1_550_016_000), Some(465.0)));
    // python: (1980 - 1335) / 1980 * 100 = 32.5757…; (1980 - 465) / 1980 * 100 = 76.5151…
    assert!((drops[0]["depth_pct"].as_f64().unwrap() - 32.575_757).abs() < 1e-4);
    assert!((drops[1]["depth_pct"].as_f64().unwrap() - 76.515_151).abs() < 1e-4);
    // python: set of throttle_reasons of the samples inside each run (minus 'none'):
    //   run 1 {'gpu_idle'}, run 2 {'sw_power_cap'} (3200–3300 ms say none)
    assert_eq!(drops[0]["reasons"], serde_json::json!(["sw_power_cap"]));
    assert_eq!(drops[1]["reasons"], serde_json::json!(["gpu_idle"]));
    // python: {k: sum(t[i+1]-t[i] for i in range(len(c)-1) if c[i]<L and k in R[i])} with R the
    //   reasons split on '|' → sw_power_cap 5899993000, gpu_idle 1550016000
    let reasons = &sm["reasons_below_nominal"];
    assert_eq!(
        (reasons[0]["reason"].as_str(), reasons[0]["active_ns"].as_u64()),
        (Some("sw_power_cap"), Some(5_899_993_000))
    );
    assert_eq!(
        (reasons[1]["reason"].as_str(), reasons[1]["active_ns"].as_u64()),
        (Some("gpu_idle"), Some(1_550_016_000))
    );
    // python: the mem_clock_mhz column is 3201 in all 189 rows → no drop
    let mem = series(&doc, "memory clock");
    assert_eq!(
        (mem["min"].as_f64(), mem["max"].as_f64(), mem["drop_count"].as_u64()),
        (Some(3201.0), Some(3201.0), Some(0))
    );
    // python: sum('sw_power_cap' in x for x in R) → 124 of 189 rows; gpu_idle 30
    let cap = series(&doc, "throttle reason sw_power_cap");
    assert!((cap["mean"].as_f64().unwrap() - 124.0 / 189.0).abs() < 1e-9);
    assert!((series(&doc, "throttle reason gpu_idle")["mean"].as_f64().unwrap() - 30.0 / 189.0).abs() < 1e-9);
    // python: max(float(x['power_w'])) → 699.302; temperature_c max 64
    assert_eq!(series(&doc, "power")["max"].as_f64(), Some(699.302));
    assert_eq!(series(&doc, "temperature")["max"].as_f64(), Some(64.0));
}

#[test]
fn the_power_capped_run_is_throttled() {
    let doc = prof_json(&["analyze", "--json", &fixture_arg(UTIL_CSV)]);
    let findings = doc["diagnosis"]["findings"].as_array().expect("findings");
    let kinds: Vec<&str> = findings.iter().filter_map(|f| f["kind"].as_str()).collect();
    assert_eq!(kinds, ["throttled"]);
    let found = &findings[0];
    assert_eq!(found["severity"], "warning");
    let evidence: Vec<&str> = found["evidence"].as_array().unwrap().iter().filter_map(|e| e.as_str()).collect();
    let has = |text: &str| assert!(evidence.iter().any(|e| e.contains(text)), "{text:?} not in {evidence:#?}");
    // python: u = gpu_util_pct; B=[i for i in range(len(u)-1) if u[i]>=5]; bs,be=t[B[0]],t[B[-1]+1]
    //   → 3300120000 9300111000: busy span 5999991000 ns
    has("busy span 6.000 s from +3.300 s");
    // python: w=[i … if c[i]<L and t[i]<be and t[i+1]>bs]; x=sum(min(t[i+1],be)-max(t[i],bs) for i in w)
    //   → 5899993000 ns, 100*x/(be-bs) = 98.333…; one run of c<L meets the span
    has("1 drop(s) below 1940 MHz (nominal 1980 MHz");
    has("below nominal 5.900 s of the busy span (98.3 %, flagged from 10 %)");
    // python: min(c[i] for i in w) → 1335.0; 100*(1980-1335)/1980 = 32.58
    has("lowest 1335 MHz vs nominal 1980 MHz (32.6 % below)");
    // python: sum over w of the clipped hold where 'sw_power_cap' in R[i] → 5899993000 (all of x)
    has("sw_power_cap 5.900 s (100.0 %)");
    assert!(!evidence.iter().any(|e| e.contains("gpu_idle")), "{evidence:#?}");
    let text = prof(&["analyze", &fixture_arg(UTIL_CSV)]);
    assert!(text.status.success());
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("no device ops: a utilization recording"), "{text}");
    assert!(!text.contains("families:"), "{text}");
    assert!(text.contains("SM clock: longest drops below the nominal 1980"), "{text}");
}

#[test]
fn flat_ascend_ai_core_freq_is_not_throttled() {
    let doc = prof_json(&["analyze", "--json", &fixture_arg(ASCEND_PIPE)]);
    // python: the 3 "AI Core Freq" C events of msprof_*.json all say {"MHz": 1800} → no drop
    let freq = series(&doc, "AI Core Freq");
    assert_eq!((freq["points"].as_u64(), freq["drop_count"].as_u64()), (Some(3), Some(0)));
    let findings = doc["diagnosis"]["findings"].as_array().expect("findings");
    assert!(findings.iter().all(|f| f["kind"] != "throttled"), "{findings:?}");
}

#[test]
fn a_truncated_row_names_its_line() {
    let text = std::fs::read_to_string(support::fixtures().join(UTIL_CSV)).unwrap();
    // Cut line 101 (1-based) just before its 5th comma: 5 fields of the header's 17.
    let start: usize = text.split_inclusive('\n').take(100).map(str::len).sum();
    let cut = start + text[start..].match_indices(',').nth(4).unwrap().0;
    let scratch = Scratch::new("util-csv-truncated");
    let file = scratch.path().join("util.csv");
    std::fs::write(&file, &text[..cut]).unwrap();
    let out = prof(&["analyze", &file.display().to_string()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    // python: len(open(f).readline().split(',')) → 17
    assert!(stderr.contains(&format!("{}:101: 5 fields, the header has 17", file.display())), "{stderr}");
}

#[test]
fn another_header_is_not_claimed() {
    let text = std::fs::read_to_string(support::fixtures().join(UTIL_CSV)).unwrap();
    let scratch = Scratch::new("util-csv-other-header");
    let file = scratch.path().join("util.csv");
    std::fs::write(&file, text.replacen("sm_clock_mhz", "sm_clock_khz", 1)).unwrap();
    let out = prof(&["analyze", &file.display().to_string()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a format prof reads"), "{stderr}");
    assert!(!stderr.contains("fields, the header has"), "{stderr}");
}
