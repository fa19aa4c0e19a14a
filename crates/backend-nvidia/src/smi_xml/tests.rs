use super::*;
use crate::test_fixtures::fixture;

const MIB: u64 = 1024 * 1024;

fn only_gpu(path: &str) -> (SmiLog, SmiGpu) {
    let log = parse_smi_xml(&fixture(path)).unwrap();
    assert_eq!(log.gpus.len(), 1, "{path}");
    let gpu = log.gpus[0].clone();
    (log, gpu)
}

fn names(list: &[&str]) -> Option<Vec<String>> {
    Some(list.iter().map(|s| (*s).to_owned()).collect())
}

#[test]
fn h200_idle() {
    let (log, gpu) = only_gpu("h200-probe/nvidia-smi-q.xml");
    assert_eq!(log.driver_version.as_deref(), Some("580.159.04"));
    assert_eq!(log.cuda_version.as_deref(), Some("13.0"));
    assert_eq!(
        gpu.info,
        DeviceInfo {
            index: 0,
            name: "NVIDIA H200".into(),
            uuid: Some("GPU-ff7eaf04-c0af-69a7-90df-53066e9f15ea".into()),
            bus_id: Some("00000000:00:06.0".into()),
            memory_total_mib: Some(143771),
            architecture: Some("Hopper".into()),
        }
    );
    let s = &gpu.sample;
    assert_eq!((s.gpu_util_pct, s.mem_util_pct), (Some(0.0), Some(0.0)));
    assert_eq!((s.mem_used_bytes, s.mem_total_bytes), (Some(0), Some(143771 * MIB)));
    assert_eq!((s.sm_clock_mhz, s.sm_clock_max_mhz), (Some(345), Some(1980)));
    assert_eq!((s.mem_clock_mhz, s.mem_clock_max_mhz), (Some(3201), Some(3201)));
    assert_eq!(s.power_w, Some(79.25), "average_power_draw, not the module or memory readings");
    assert_eq!(s.power_limit_w, Some(700.0));
    assert_eq!(s.temperature_c, Some(38.0));
    assert_eq!(s.throttle_reasons, names(&["gpu_idle"]));
    assert!(s.processes.is_empty());
}

#[test]
fn h200_busy_is_power_capped() {
    let (_, gpu) = only_gpu("h200-probe/nvidia-smi-q-busy.xml");
    let s = &gpu.sample;
    assert_eq!((s.gpu_util_pct, s.mem_util_pct), (Some(100.0), Some(25.0)));
    assert_eq!(s.mem_used_bytes, Some(939 * MIB));
    assert_eq!((s.sm_clock_mhz, s.sm_clock_max_mhz), (Some(1935), Some(1980)));
    assert_eq!(s.power_w, Some(653.20));
    assert_eq!(s.power_limit_w, Some(700.0));
    assert_eq!(s.temperature_c, Some(59.0));
    assert_eq!(s.throttle_reasons, names(&["sw_power_cap"]));
    assert_eq!(
        s.processes,
        [ProcessUse { pid: 569, name: Some("python3".into()), mem_used_bytes: Some(930 * MIB), sm_util_pct: None }]
    );
}

#[test]
fn quadro_p400_old_schema() {
    let (log, gpu) = only_gpu("smi/telegraf_quadro-p400_drv418_q-x.xml");
    assert_eq!(log.driver_version.as_deref(), Some("418.43"));
    assert_eq!(gpu.info.name, "Quadro P400");
    assert_eq!(gpu.info.architecture, None, "driver 418 has no product_architecture");
    assert_eq!(gpu.info.memory_total_mib, Some(1998));
    let s = &gpu.sample;
    assert_eq!((s.gpu_util_pct, s.mem_util_pct), (Some(0.0), Some(3.0)));
    assert_eq!((s.sm_clock_mhz, s.mem_clock_mhz), (Some(139), Some(405)));
    assert_eq!((s.sm_clock_max_mhz, s.mem_clock_max_mhz), (Some(1252), Some(2005)));
    assert_eq!((s.power_w, s.power_limit_w), (None, None), "power_readings are all N/A");
    assert_eq!(s.temperature_c, Some(33.0));
    assert_eq!(s.throttle_reasons, names(&["gpu_idle"]), "from clocks_throttle_reasons");
}

#[test]
fn tesla_t4_old_power_readings() {
    let (_, gpu) = only_gpu("smi/telegraf_tesla-t4_q-x.xml");
    let s = &gpu.sample;
    assert_eq!(s.power_w, Some(26.78));
    assert_eq!(s.power_limit_w, Some(70.0), "enforced_power_limit");
    assert_eq!(s.throttle_reasons, Some(Vec::new()));
    let pids: Vec<(u32, Option<u64>)> = s.processes.iter().map(|p| (p.pid, p.mem_used_bytes)).collect();
    assert_eq!(pids, [(675, Some(22 * MIB)), (5762, Some(1005 * MIB))]);
}

#[test]
fn dual_a5000_two_gpus() {
    let log = parse_smi_xml(&fixture("smi/telegraf_dual-a5000_q-x.xml")).unwrap();
    assert_eq!(log.driver_version.as_deref(), Some("590.44.01"));
    let summary: Vec<_> = log
        .gpus
        .iter()
        .map(|g| {
            (g.info.index, g.info.bus_id.clone(), g.sample.mem_used_bytes, g.sample.power_w, g.sample.temperature_c)
        })
        .collect();
    assert_eq!(
        summary,
        [
            (0, Some("00000000:81:00.0".to_owned()), Some(22437 * MIB), Some(6.41), Some(13.0)),
            (1, Some("00000000:C1:00.0".to_owned()), Some(17253 * MIB), Some(13.60), Some(15.0)),
        ]
    );
    assert_eq!(log.gpus[1].sample.device, 1);
    assert_eq!(log.gpus[1].info.uuid.as_deref(), Some("GPU-12345678-aaaa-bbbb-cccc-0123456789cd"));
    assert_eq!(log.gpus[1].sample.power_limit_w, Some(230.0));
    assert_eq!((log.gpus[1].sample.sm_clock_max_mhz, log.gpus[1].sample.mem_clock_max_mhz), (Some(2100), Some(8001)));
    assert_eq!(log.gpus[0].sample.processes[0].mem_used_bytes, Some(22430 * MIB));
    assert_eq!(log.gpus[1].sample.processes[0].mem_used_bytes, Some(17246 * MIB));
    assert_eq!(log.gpus[1].sample.processes[0].name.as_deref(), Some("/root/src/llama.cpp/build/bin/llama-server"));
}

#[test]
fn a100_mig_reads_the_gpu_not_its_instances() {
    let (log, gpu) = only_gpu("smi/telegraf_a100-sxm4-4gpu-mig_q-x.xml");
    assert_eq!(log.driver_version.as_deref(), Some("535.54.03"));
    assert_eq!(gpu.info.memory_total_mib, Some(81920), "not a MIG instance's 19968 MiB");
    let s = &gpu.sample;
    assert_eq!(s.mem_used_bytes, Some(50 * MIB));
    assert_eq!((s.gpu_util_pct, s.mem_util_pct), (None, None), "N/A under MIG");
    assert_eq!(s.power_w, Some(67.03), "gpu_power_readings/power_draw, not module_power_readings");
    assert_eq!(s.power_limit_w, Some(500.0));
    assert_eq!((s.sm_clock_mhz, s.sm_clock_max_mhz), (Some(1275), Some(1410)));
    assert_eq!(s.temperature_c, Some(27.0));
    assert_eq!(s.throttle_reasons, Some(Vec::new()));
    assert!(s.processes.is_empty(), "<processes />");
}

#[test]
fn truncated_report_names_the_open_element() {
    let text = fixture("h200-probe/nvidia-smi-q.xml");
    let cut = text.find("<fb_memory_usage>").unwrap();
    let truncated = &text[..cut];
    let err = parse_smi_xml(truncated).unwrap_err();
    let last_line = truncated.lines().count();
    assert_eq!(
        err.to_string(),
        format!("nvidia-smi -q -x: unexpected output at line {last_line}: output ends inside <gpu>: truncated")
    );
}

#[test]
fn mismatched_tags_and_bad_values() {
    let err = parse_smi_xml("<nvidia_smi_log>\n<gpu>\n<product_name>X</gpu>\n</nvidia_smi_log>\n").unwrap_err();
    assert!(err.to_string().starts_with("nvidia-smi -q -x: unexpected output at line 3: malformed XML"), "{err}");
    let text = "<nvidia_smi_log>\n<gpu>\n<product_name>X</product_name>\n<fb_memory_usage>\n<total>lots MiB</total>\n</fb_memory_usage>\n</gpu>\n</nvidia_smi_log>\n";
    let err = parse_smi_xml(text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "nvidia-smi -q -x: unexpected output at line 5: fb_memory_usage/total: expected a number in MiB, found `lots MiB`"
    );
    let text = "<nvidia_smi_log>\n<gpu>\n<product_name>X</product_name>\n<clocks_event_reasons>\n<clocks_event_reason_gpu_idle>Maybe</clocks_event_reason_gpu_idle>\n</clocks_event_reasons>\n</gpu>\n</nvidia_smi_log>\n";
    let err = parse_smi_xml(text).unwrap_err();
    assert!(
        err.to_string()
            .contains("line 5: clocks_event_reasons/clocks_event_reason_gpu_idle: expected Active or Not Active"),
        "{err}"
    );
}

#[test]
fn garbage_and_foreign_xml() {
    let err = parse_smi_xml("Failed to initialize NVML: Driver/library version mismatch\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "nvidia-smi -q -x: unexpected output at line 1: text outside <nvidia_smi_log>: `Failed to initialize NVML: Driver/library version mismatch`"
    );
    let err = parse_smi_xml("<?xml version=\"1.0\" ?>\n<rocm_smi/>\n").unwrap_err();
    assert!(
        err.to_string().contains("line 2: expected <nvidia_smi_log> as the root element, found <rocm_smi>"),
        "{err}"
    );
    let err = parse_smi_xml("").unwrap_err();
    assert!(err.to_string().contains("line 1: no <nvidia_smi_log> element"), "{err}");
    let err = parse_smi_xml("<nvidia_smi_log>\n<gpu>\n</gpu>\n</nvidia_smi_log>\n").unwrap_err();
    assert!(err.to_string().contains("line 3: <gpu> number 0 has no <product_name>"), "{err}");
}
