//! Clock-event ("throttle") reasons: NVML's bit values and the names nvidia-smi gives them.
//!
//! The bits are NVML's `nvmlClocksEventReason*` constants (nvml.h, as carried by
//! nvml-wrapper's [`ThrottleReasons`]); the names are the suffixes nvidia-smi uses in
//! `-q -x` (`clocks_event_reason_sw_power_cap`) and `--query-gpu` (`clocks_event_reasons.sw_power_cap`).

use nvml_wrapper::bitmasks::device::ThrottleReasons;

/// Every known reason bit with its nvidia-smi name, lowest bit first.
pub const REASONS: &[(u64, &str)] = &[
    (ThrottleReasons::GPU_IDLE.bits(), "gpu_idle"),
    (ThrottleReasons::APPLICATIONS_CLOCKS_SETTING.bits(), "applications_clocks_setting"),
    (ThrottleReasons::SW_POWER_CAP.bits(), "sw_power_cap"),
    (ThrottleReasons::HW_SLOWDOWN.bits(), "hw_slowdown"),
    (ThrottleReasons::SYNC_BOOST.bits(), "sync_boost"),
    (ThrottleReasons::SW_THERMAL_SLOWDOWN.bits(), "sw_thermal_slowdown"),
    (ThrottleReasons::HW_THERMAL_SLOWDOWN.bits(), "hw_thermal_slowdown"),
    (ThrottleReasons::HW_POWER_BRAKE_SLOWDOWN.bits(), "hw_power_brake_slowdown"),
    (ThrottleReasons::DISPLAY_CLOCK_SETTING.bits(), "display_clocks_setting"),
];

/// Names of the reasons set in `mask`, lowest bit first. A bit prof does not know is kept
/// as `bit_0x…` rather than dropped, so a new driver's reason is never silently lost.
pub fn decode_reason_mask(mask: u64) -> Vec<String> {
    (0..64)
        .map(|shift| 1u64 << shift)
        .filter(|bit| mask & bit != 0)
        .map(|bit| match REASONS.iter().find(|(known, _)| *known == bit) {
            Some((_, name)) => (*name).to_owned(),
            None => format!("bit_{bit:#x}"),
        })
        .collect()
}

/// The reason name inside an `-q -x` element name (`clocks_event_reason_sw_power_cap` or the
/// old `clocks_throttle_reason_sw_power_cap` → `sw_power_cap`).
pub fn reason_from_element(element: &str) -> Option<&str> {
    element.strip_prefix("clocks_event_reason_").or_else(|| element.strip_prefix("clocks_throttle_reason_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_nvml_bits() {
        assert_eq!(decode_reason_mask(0), Vec::<String>::new());
        assert_eq!(decode_reason_mask(0x1), ["gpu_idle"]);
        assert_eq!(decode_reason_mask(0x4), ["sw_power_cap"]);
        assert_eq!(decode_reason_mask(0x44), ["sw_power_cap", "hw_thermal_slowdown"]);
        assert_eq!(decode_reason_mask(0x200), ["bit_0x200"]);
        // nvidia-smi reports 0x1FF as the supported set on the H100 bundle: exactly the nine known bits.
        assert_eq!(decode_reason_mask(0x1ff).len(), REASONS.len());
    }

    #[test]
    fn element_names_old_and_new() {
        assert_eq!(reason_from_element("clocks_event_reason_sw_power_cap"), Some("sw_power_cap"));
        assert_eq!(reason_from_element("clocks_throttle_reason_gpu_idle"), Some("gpu_idle"));
        assert_eq!(reason_from_element("clocks_event_reasons_counters_sw_power_cap"), None);
    }
}
