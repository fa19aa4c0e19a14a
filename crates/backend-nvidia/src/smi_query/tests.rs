use super::*;
use crate::test_fixtures::{bundle_section, fixture};

const MIB: u64 = 1024 * 1024;

#[test]
fn detect_query_recorded_on_h200() {
    let found = parse_detect_query(&fixture("h200-detect/query-detect.csv")).unwrap();
    assert_eq!(found.driver_version.as_deref(), Some("580.159.04"));
    assert_eq!(
        found.devices,
        [DeviceInfo {
            index: 0,
            name: "NVIDIA H200".into(),
            uuid: Some("GPU-b760cc64-42ae-7d9d-86af-076d5fbe517c".into()),
            bus_id: Some("00000000:00:06.0".into()),
            memory_total_mib: Some(143771),
            architecture: Some("9.0".into()),
        }]
    );
}

#[test]
fn detect_args_match_the_recorded_command() {
    let args = query_gpu_args(DETECT_FIELDS);
    assert_eq!(
        args,
        ["--query-gpu=index,name,uuid,pci.bus_id,driver_version,memory.total,compute_cap", "--format=csv"]
    );
}

#[test]
fn detect_query_without_compute_cap_column_is_an_error() {
    let text = "index, name, uuid, pci.bus_id, driver_version, memory.total [MiB]\n0, NVIDIA H200, GPU-b760cc64-42ae-7d9d-86af-076d5fbe517c, 00000000:00:06.0, 580.159.04, 143771 MiB\n";
    let err = parse_detect_query(text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "nvidia-smi --query-gpu: unexpected output at line 1: missing column(s) compute_cap in the header"
    );
}

#[test]
fn detect_query_garbage_row() {
    let mut text = fixture("h200-detect/query-detect.csv");
    text.push_str("1, NVIDIA H200, GPU-x, 00000000:00:07.0, 580.159.04, lots of MiB, 9.0\n");
    let err = parse_detect_query(&text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "nvidia-smi --query-gpu: unexpected output at line 3: memory.total: expected a number in MiB, found `lots of MiB`"
    );
}

#[test]
fn sample_from_h200_probe_query() {
    let samples = parse_sample_query(&fixture("h200-probe/query.csv")).unwrap();
    assert_eq!(samples.len(), 1);
    let s = &samples[0];
    assert_eq!(s.device, 0);
    assert_eq!(s.gpu_util_pct, Some(0.0));
    assert_eq!(s.mem_util_pct, Some(0.0));
    assert_eq!(s.mem_used_bytes, Some(0));
    assert_eq!(s.mem_total_bytes, Some(143771 * MIB));
    assert_eq!((s.sm_clock_mhz, s.sm_clock_max_mhz), (Some(345), Some(1980)));
    assert_eq!((s.mem_clock_mhz, s.mem_clock_max_mhz), (Some(3201), None), "clocks.max.memory was not asked");
    assert_eq!(s.power_w, Some(79.25));
    assert_eq!(s.power_limit_w, Some(700.0));
    assert_eq!(s.temperature_c, Some(38.0));
    assert_eq!(s.throttle_reasons.as_deref(), Some(&["gpu_idle".to_owned()][..]));
}

#[test]
fn sample_from_h100_bundle_under_load() {
    let samples = parse_sample_query(&bundle_section("load :: query-gpu (csv, what the exporter parses)")).unwrap();
    let s = &samples[0];
    assert_eq!(s.gpu_util_pct, None, "MIG mode reports [N/A]");
    assert_eq!(s.mem_used_bytes, Some(11125 * MIB));
    assert_eq!(s.mem_total_bytes, Some(81559 * MIB));
    assert_eq!((s.sm_clock_mhz, s.sm_clock_max_mhz), (Some(1980), Some(1980)));
    assert_eq!((s.mem_clock_mhz, s.mem_clock_max_mhz), (Some(2619), Some(2619)));
    assert_eq!(s.power_w, Some(433.78));
    assert_eq!(s.power_limit_w, Some(700.0));
    assert_eq!(s.temperature_c, Some(53.0));
    assert_eq!(s.throttle_reasons, Some(Vec::new()));
}

#[test]
fn sample_query_needs_index() {
    let err = parse_sample_query("utilization.gpu [%]\n5 %\n").unwrap_err();
    assert!(err.to_string().ends_with("line 1: missing column(s) index in the header"), "{err}");
}

#[test]
fn compute_apps_h200_busy() {
    let apps = parse_compute_apps(&fixture("h200-probe/apps-busy.csv")).unwrap();
    assert_eq!(
        apps,
        [ComputeApp {
            gpu_uuid: None,
            gpu_bus_id: None,
            process: ProcessUse {
                pid: 569,
                name: Some("python3".into()),
                mem_used_bytes: Some(930 * MIB),
                sm_util_pct: None
            },
        }]
    );
}

#[test]
fn compute_apps_h100_bundle() {
    assert!(parse_compute_apps(&bundle_section("idle :: query-compute-apps (per-process)")).unwrap().is_empty());
    let apps = parse_compute_apps(&bundle_section("load :: query-compute-apps (per-process)")).unwrap();
    let summary: Vec<(u32, Option<&str>, Option<u64>)> =
        apps.iter().map(|a| (a.process.pid, a.process.name.as_deref(), a.process.mem_used_bytes)).collect();
    assert_eq!(
        summary,
        [
            (21180, Some("/root/tools/memhog"), Some(2296 * MIB)),
            (21181, Some("/root/tools/memhog"), Some(1272 * MIB)),
            (21198, Some("./gpu_burn"), Some(7484 * MIB)),
        ]
    );
    assert_eq!(apps[2].gpu_bus_id.as_deref(), Some("00000000:00:09.0"));
    assert_eq!(apps[2].gpu_uuid.as_deref(), Some("GPU-00000000-0000-0000-0000-000000000000"));
}

#[test]
fn compute_apps_bad_input() {
    let err = parse_compute_apps("process_name, used_gpu_memory [MiB]\npython3, 930 MiB\n").unwrap_err();
    assert!(err.to_string().contains("missing column(s) pid"), "{err}");
    let err = parse_compute_apps("pid, process_name, used_gpu_memory [MiB]\nabc, python3, 930 MiB\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "nvidia-smi --query-compute-apps: unexpected output at line 2: pid: expected a number, found `abc`"
    );
}
