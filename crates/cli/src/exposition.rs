//! The live view as Prometheus metrics, in the OpenMetrics text format written by the
//! Prometheus project's Rust client (`prometheus-client`). Names follow the Prometheus
//! conventions: `prof_` namespace, base units in the name (`_bytes`, `_watts`, `_hertz`,
//! `_celsius`, `_seconds`, `_ratio` for 0–1 fractions), `_total` on counters; every device
//! series carries `vendor`, `device`, `uuid` and `model`. A value the probe does not report is
//! no series at all, never 0 (an AMD or Ascend device has no SM activity).

use prof_core::live::{LiveKind, LiveView};
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::{Registry, Unit};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;

type Labels = Vec<(String, String)>;
type GaugeFamily = Family<Labels, Gauge<f64, AtomicU64>>;

/// The gauges of one exposition, registered as they are first set.
struct Gauges {
    registry: Registry,
    families: BTreeMap<&'static str, GaugeFamily>,
}

impl Gauges {
    fn set(&mut self, name: &'static str, help: &str, unit: Option<&str>, labels: &Labels, value: Option<f64>) {
        let Some(value) = value.filter(|v| v.is_finite()) else { return };
        let registry = &mut self.registry;
        let family = self.families.entry(name).or_insert_with(|| {
            let family = GaugeFamily::default();
            match unit {
                Some(unit) => registry.register_with_unit(name, help, Unit::Other(unit.to_owned()), family.clone()),
                None => registry.register(name, help, family.clone()),
            }
            family
        });
        family.get_or_create(labels).set(value);
    }
}

fn label_set(pairs: &[(&str, String)]) -> Labels {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
}

/// `sm_activity_pct` → `prof_device_sm_activity` (a ratio).
fn activity_name(key: &str) -> Option<&'static str> {
    Some(match key {
        "sm_activity_pct" => "prof_device_sm_activity",
        "sm_occupancy_pct" => "prof_device_sm_occupancy",
        "tensor_activity_pct" => "prof_device_tensor_activity",
        "dram_activity_pct" => "prof_device_dram_activity",
        "fp64_activity_pct" => "prof_device_fp64_activity",
        "fp32_activity_pct" => "prof_device_fp32_activity",
        "fp16_activity_pct" => "prof_device_fp16_activity",
        _ => return None,
    })
}

/// A probe's source without its paths and notes (`rocm-smi --json (/usr/bin/rocm-smi); …` →
/// `rocm-smi --json`): a label value stays short and stable.
fn short_source(source: &str) -> String {
    source.split([' ', ';']).take_while(|w| !w.starts_with('(')).collect::<Vec<_>>().join(" ")
}

/// The exposition of `views` (one per probe), ending in `# EOF`.
pub fn exposition(views: &[LiveView]) -> String {
    let mut g = Gauges { registry: Registry::default(), families: BTreeMap::new() };
    let ratio = Some("ratio");
    let mhz = |v: Option<u32>| v.map(|m| f64::from(m) * 1e6);
    for view in views {
        for d in &view.devices {
            let labels = label_set(&[
                ("vendor", view.vendor.clone()),
                ("device", d.info.index.to_string()),
                ("uuid", d.info.uuid.clone().unwrap_or_default()),
                ("model", d.info.name.clone()),
            ]);
            for kind in LiveKind::ALL {
                let mut with = labels.clone();
                with.push(("verdict".to_owned(), kind.label().to_owned()));
                let value = Some(if d.verdict == kind { 1.0 } else { 0.0 });
                g.set(
                    "prof_device_verdict",
                    "the device's verdict over the window (1 for the one that holds)",
                    None,
                    &with,
                    value,
                );
            }
            let window_mean = d.summary.as_ref().and_then(|s| s.gpu_util_mean_pct).map(|p| p / 100.0);
            g.set(
                "prof_device_window_utilization",
                "mean utilization over the verdict's window",
                ratio,
                &labels,
                window_mean,
            );
            let Some(s) = &d.last else { continue };
            let pct = |v: Option<f64>| v.map(|p| p / 100.0);
            g.set(
                "prof_device_utilization",
                "share of the last period a kernel was resident",
                ratio,
                &labels,
                pct(s.gpu_util_pct),
            );
            g.set(
                "prof_device_memory_utilization",
                "share of the last period device memory was read or written",
                ratio,
                &labels,
                pct(s.mem_util_pct),
            );
            for (key, value) in &s.activity {
                if let Some(name) = activity_name(key) {
                    g.set(
                        name,
                        "activity counter of the last period (NVML GPM and the like)",
                        ratio,
                        &labels,
                        Some(value / 100.0),
                    );
                }
            }
            let bytes = Some("bytes");
            g.set(
                "prof_device_memory_used",
                "device memory in use",
                bytes,
                &labels,
                s.mem_used_bytes.map(|b| b as f64),
            );
            g.set(
                "prof_device_memory_total",
                "device memory in all",
                bytes,
                &labels,
                s.mem_total_bytes.map(|b| b as f64),
            );
            g.set("prof_device_power", "power draw", Some("watts"), &labels, s.power_w);
            g.set("prof_device_power_limit", "enforced power limit", Some("watts"), &labels, s.power_limit_w);
            g.set("prof_device_sm_clock", "SM / core clock", Some("hertz"), &labels, mhz(s.sm_clock_mhz));
            g.set(
                "prof_device_sm_clock_max",
                "maximum SM / core clock",
                Some("hertz"),
                &labels,
                mhz(s.sm_clock_max_mhz),
            );
            g.set("prof_device_memory_clock", "memory clock", Some("hertz"), &labels, mhz(s.mem_clock_mhz));
            g.set(
                "prof_device_memory_clock_max",
                "maximum memory clock",
                Some("hertz"),
                &labels,
                mhz(s.mem_clock_max_mhz),
            );
            g.set("prof_device_temperature", "core temperature", Some("celsius"), &labels, s.temperature_c);
            for reason in s.throttle_reasons.iter().flatten() {
                let mut with = labels.clone();
                with.push(("reason".to_owned(), reason.clone()));
                g.set(
                    "prof_device_clock_throttle",
                    "a clock-limiting reason active at the last sample",
                    None,
                    &with,
                    Some(1.0),
                );
            }
            for p in &s.processes {
                let mut with = labels.clone();
                with.push(("pid".to_owned(), p.pid.to_string()));
                with.push(("process".to_owned(), p.name.clone().unwrap_or_default()));
                g.set(
                    "prof_process_memory_used",
                    "device memory a process holds",
                    bytes,
                    &with,
                    p.mem_used_bytes.map(|b| b as f64),
                );
                g.set("prof_process_sm_utilization", "a process's share of SM time", ratio, &with, pct(p.sm_util_pct));
            }
        }
        let labels = label_set(&[("vendor", view.vendor.clone()), ("source", short_source(&view.source))]);
        let h = &view.health;
        g.set(
            "prof_sampler_last_sample_timestamp",
            "when the last sample was taken",
            Some("seconds"),
            &labels,
            Some(h.last_unix_s).filter(|t| *t > 0.0),
        );
        g.set(
            "prof_sampler_sample_duration",
            "what the last sample took",
            Some("seconds"),
            &labels,
            Some(h.last_cost_s),
        );
        g.set(
            "prof_sampler_window",
            "the window verdicts are taken over",
            Some("seconds"),
            &labels,
            Some(view.window_s),
        );
    }
    let samples = Family::<Labels, Counter>::default();
    let errors = Family::<Labels, Counter>::default();
    g.registry.register("prof_sampler_samples", "samples taken", samples.clone());
    g.registry.register("prof_sampler_errors", "samples that failed", errors.clone());
    for view in views {
        let labels = label_set(&[("vendor", view.vendor.clone()), ("source", short_source(&view.source))]);
        samples.get_or_create(&labels).inc_by(view.health.samples);
        errors.get_or_create(&labels).inc_by(view.health.errors);
    }
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = encode(&mut out, &g.registry);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_core::live::Live;
    use prof_core::{DeviceInfo, DeviceSample, ProcessUse, Tick};

    /// An exposition with every field a probe can report.
    fn full() -> String {
        let info = DeviceInfo {
            index: 0,
            name: "NVIDIA H100 80GB HBM3".into(),
            uuid: Some("GPU-1".into()),
            ..DeviceInfo::default()
        };
        let mut live = Live::new("NVML 13.580.82".into(), "nvidia", vec![info], 10.0);
        let sample = DeviceSample {
            device: 0,
            gpu_util_pct: Some(97.0),
            mem_util_pct: Some(40.0),
            mem_used_bytes: Some(1 << 30),
            mem_total_bytes: Some(80 << 30),
            sm_clock_mhz: Some(1755),
            sm_clock_max_mhz: Some(1980),
            mem_clock_mhz: Some(2619),
            mem_clock_max_mhz: Some(2619),
            power_w: Some(650.5),
            power_limit_w: Some(700.0),
            temperature_c: Some(63.0),
            throttle_reasons: Some(vec!["sw_power_cap".into()]),
            processes: vec![ProcessUse {
                pid: 7,
                name: Some("python3".into()),
                mem_used_bytes: Some(1 << 29),
                sm_util_pct: Some(90.0),
            }],
            activity: ["sm_activity_pct", "sm_occupancy_pct", "tensor_activity_pct", "dram_activity_pct"]
                .iter()
                .map(|k| ((*k).to_owned(), 50.0))
                .collect(),
        };
        for t in 0..3u64 {
            live.push(Tick { t_ns: t * 1_000_000_000, samples: vec![sample.clone()] }, 0.002, 1.7e9 + t as f64);
        }
        exposition(&[live.view()])
    }

    #[test]
    fn units_are_in_the_names_and_values_are_base_units() {
        let text = full();
        assert!(text.ends_with("# EOF\n"), "{text}");
        for line in [
            "# UNIT prof_device_power_watts watts",
            "# TYPE prof_sampler_samples counter",
            "prof_device_sm_clock_hertz{vendor=\"nvidia\",device=\"0\",uuid=\"GPU-1\",model=\"NVIDIA H100 80GB HBM3\"} 1755000000.0",
            "prof_device_utilization_ratio{vendor=\"nvidia\",device=\"0\",uuid=\"GPU-1\",model=\"NVIDIA H100 80GB HBM3\"} 0.97",
            "prof_sampler_samples_total{vendor=\"nvidia\",source=\"NVML 13.580.82\"} 3",
        ] {
            assert!(text.contains(line), "{line} missing in\n{text}");
        }
    }

    /// Every metric the Grafana dashboard in deploy/ asks for is one the exporter writes.
    #[test]
    fn the_dashboard_asks_only_for_exported_metrics() {
        let text = full();
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/grafana-prof-dashboard.json");
        let dashboard = std::fs::read_to_string(path).unwrap();
        let mut asked = 0;
        for (i, _) in dashboard.match_indices("prof_") {
            let name: String = dashboard[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if name == "prof_" || name.starts_with("prof_exporter") {
                continue;
            }
            asked += 1;
            assert!(text.contains(&format!("\n{name}{{")), "the dashboard asks for {name}, not exported");
        }
        assert!(asked >= 15, "{asked}");
    }
}
