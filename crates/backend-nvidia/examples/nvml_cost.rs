//! Times each NVML query the utilization probe makes, one by one, on device 0, so the
//! probe's per-sample cost can be attributed. Run on a machine with an NVIDIA GPU:
//! `cargo run --release -p prof-backend-nvidia --example nvml_cost [ITERATIONS]`.

use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
use prof_backend_nvidia::fuzz::nvml_probe::{shared_nvml, NvmlProbe};
use prof_core::UtilizationProbe;
use std::time::Instant;

fn time<T>(label: &str, iterations: u32, mut f: impl FnMut() -> T) {
    let started = Instant::now();
    for _ in 0..iterations {
        std::hint::black_box(f());
    }
    let per_call = started.elapsed().as_secs_f64() * 1e6 / f64::from(iterations);
    println!("{label:<36} {per_call:>10.1} us/call");
}

fn main() {
    let iterations: u32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let nvml = match shared_nvml() {
        Ok(nvml) => nvml,
        Err(reason) => {
            eprintln!("{reason}");
            std::process::exit(1);
        }
    };
    let d = nvml.device_by_index(0).expect("device 0");
    time("utilization_rates", iterations, || d.utilization_rates().is_ok());
    time("memory_info", iterations, || d.memory_info().is_ok());
    time("clock_info(SM)", iterations, || d.clock_info(Clock::SM).is_ok());
    time("clock_info(Memory)", iterations, || d.clock_info(Clock::Memory).is_ok());
    time("power_usage", iterations, || d.power_usage().is_ok());
    time("enforced_power_limit", iterations, || d.enforced_power_limit().is_ok());
    time("temperature", iterations, || d.temperature(TemperatureSensor::Gpu).is_ok());
    time("current_throttle_reasons", iterations, || d.current_throttle_reasons().is_ok());
    time("running_compute_processes", iterations, || d.running_compute_processes().is_ok());
    time("process_utilization_stats", iterations, || d.process_utilization_stats(None).is_ok());
    time("gpm_sample", iterations, || d.gpm_sample().is_ok());
    let ids = [nvml_wrapper::enums::gpm::GpmMetricId::SmUtil, nvml_wrapper::enums::gpm::GpmMetricId::AnyTensorUtil];
    if let (Ok(a), Ok(b)) = (d.gpm_sample(), d.gpm_sample()) {
        time("gpm_metrics_get (2 metrics)", iterations, || {
            nvml_wrapper::gpm::gpm_metrics_get(nvml, &a, &b, &ids).is_ok()
        });
    }
    time("sys_process_name(self)", iterations, || nvml.sys_process_name(std::process::id(), 256).is_ok());
    let mut probe = NvmlProbe::open().expect("probe");
    time("NvmlProbe::sample back to back (GPM every 100 ms)", iterations, || probe.sample().is_ok());
    time("NvmlProbe::sample every 10 ms", 100, || {
        std::thread::sleep(std::time::Duration::from_millis(10));
        probe.sample().is_ok()
    });
}
