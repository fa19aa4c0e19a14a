//! The utilization probe that reads amdgpu's sysfs files: no process per sample.
//!
//! Per card (`<root>/cardN/device`, `<root>` = `/sys/class/drm` or `$PROF_AMD_SYSFS_ROOT`), the
//! kernel ABI files documented in the Linux amdgpu docs (`drivers/gpu/drm/amd/pm/amdgpu_pm.c`,
//! `amdgpu_vram_mgr.c`): `gpu_busy_percent` and `mem_busy_percent` (percent),
//! `mem_info_vram_used` / `mem_info_vram_total` (bytes), `pp_dpm_sclk` / `pp_dpm_mclk` (lines
//! `N: <MHz>Mhz`, the current one marked `*`), and in `hwmon/hwmon*/`: `power1_average`, else
//! `power1_input` (microwatts), `power1_cap` (microwatts), the `tempN_input` whose `tempN_label`
//! is `junction`, else `temp1_input` (millidegrees Celsius). A missing file is an unknown value;
//! a file that holds something else is an error naming it. amdgpu has no throttle file here,
//! so `throttle_reasons` is `None`.

use prof_core::{DeviceInfo, DeviceSample, Error, Result, UtilizationProbe};
use std::path::{Path, PathBuf};

/// The directory holding `cardN` entries.
pub const DEFAULT_ROOT: &str = "/sys/class/drm";
/// Environment variable that replaces [`DEFAULT_ROOT`] (tests, containers with sysfs elsewhere).
pub const ROOT_VAR: &str = "PROF_AMD_SYSFS_ROOT";

/// The sysfs root in effect: `$PROF_AMD_SYSFS_ROOT` when set and non-empty, else [`DEFAULT_ROOT`].
pub fn sysfs_root() -> PathBuf {
    std::env::var_os(ROOT_VAR).filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(|| DEFAULT_ROOT.into())
}

/// Samples every amdgpu card under a sysfs root.
pub struct SysfsProbe {
    root: PathBuf,
    cards: Vec<(DeviceInfo, PathBuf)>,
}

impl SysfsProbe {
    /// The amdgpu cards under `root`: `cardN` entries (no connector entries like `card0-DP-1`)
    /// whose `device/gpu_busy_percent` exists, ordered by `N` and numbered from 0 in that order.
    /// `Err(Unsupported)` when there is none.
    pub fn open(root: &Path) -> Result<Self> {
        let entries = std::fs::read_dir(root).map_err(|e| Error::io(root, e))?;
        let mut numbered: Vec<(u32, PathBuf)> = entries
            .filter_map(|entry| entry.ok())
            .filter_map(|entry| {
                let n = entry.file_name().to_str()?.strip_prefix("card")?.parse::<u32>().ok()?;
                let device = entry.path().join("device");
                device.join("gpu_busy_percent").is_file().then_some((n, device))
            })
            .collect();
        numbered.sort();
        if numbered.is_empty() {
            let reason = format!("no amdgpu card with gpu_busy_percent under {}", root.display());
            return Err(Error::Unsupported(reason));
        }
        let mut cards = Vec::new();
        for (index, (n, device)) in numbered.into_iter().enumerate() {
            let index = u32::try_from(index).unwrap_or(u32::MAX);
            let vram_total = read_u64(&device.join("mem_info_vram_total"))?;
            let bus_id = std::fs::canonicalize(&device)
                .ok()
                .and_then(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
                .filter(|name| name.contains(':'));
            let info = DeviceInfo {
                index,
                name: format!("AMD GPU (card{n})"),
                bus_id,
                memory_total_mib: vram_total.map(|b| b / (1024 * 1024)),
                ..DeviceInfo::default()
            };
            cards.push((info, device));
        }
        Ok(Self { root: root.to_path_buf(), cards })
    }

    /// True when `root` holds at least one amdgpu card with `gpu_busy_percent`.
    #[cfg(test)]
    pub fn available(root: &Path) -> bool {
        Self::open(root).is_ok()
    }
}

impl UtilizationProbe for SysfsProbe {
    fn source(&self) -> String {
        format!("amdgpu sysfs ({})", self.root.display())
    }

    fn devices(&self) -> Result<Vec<DeviceInfo>> {
        Ok(self.cards.iter().map(|(info, _)| info.clone()).collect())
    }

    fn sample(&mut self) -> Result<Vec<DeviceSample>> {
        self.cards.iter().map(|(info, device)| read_card(info.index, device)).collect()
    }
}

/// One reading of the card whose `device` directory is `device`.
pub fn read_card(index: u32, device: &Path) -> Result<DeviceSample> {
    let hwmon = first_hwmon(device);
    let micro = |name: &str| -> Result<Option<f64>> {
        match &hwmon {
            Some(dir) => Ok(read_u64(&dir.join(name))?.map(|uw| uw as f64 / 1e6)),
            None => Ok(None),
        }
    };
    let power_w = match micro("power1_average")? {
        Some(w) => Some(w),
        None => micro("power1_input")?,
    };
    let (sm_clock_mhz, sm_clock_max_mhz) = read_dpm(&device.join("pp_dpm_sclk"))?;
    let (mem_clock_mhz, mem_clock_max_mhz) = read_dpm(&device.join("pp_dpm_mclk"))?;
    Ok(DeviceSample {
        device: index,
        gpu_util_pct: read_u64(&device.join("gpu_busy_percent"))?.map(|p| p as f64),
        mem_util_pct: read_u64(&device.join("mem_busy_percent"))?.map(|p| p as f64),
        mem_used_bytes: read_u64(&device.join("mem_info_vram_used"))?,
        mem_total_bytes: read_u64(&device.join("mem_info_vram_total"))?,
        sm_clock_mhz,
        sm_clock_max_mhz,
        mem_clock_mhz,
        mem_clock_max_mhz,
        power_w,
        power_limit_w: micro("power1_cap")?,
        temperature_c: match &hwmon {
            Some(dir) => read_temperature(dir)?,
            None => None,
        },
        ..DeviceSample::default()
    })
}

/// The first `hwmon/hwmonN` directory of a card, lowest `N` first.
fn first_hwmon(device: &Path) -> Option<PathBuf> {
    let mut dirs: Vec<(u32, PathBuf)> = std::fs::read_dir(device.join("hwmon"))
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.file_name().to_str()?.strip_prefix("hwmon")?.parse::<u32>().ok()?, e.path())))
        .collect();
    dirs.sort();
    dirs.into_iter().next().map(|(_, path)| path)
}

/// The junction sensor (`tempN_label` = `junction`) where labelled, else `temp1_input`; °C.
fn read_temperature(hwmon: &Path) -> Result<Option<f64>> {
    for n in 1..=3 {
        let label = read_text(&hwmon.join(format!("temp{n}_label")))?;
        if label.as_deref().map(str::trim) == Some("junction") {
            return Ok(read_i64(&hwmon.join(format!("temp{n}_input")))?.map(|m| m as f64 / 1000.0));
        }
    }
    Ok(read_i64(&hwmon.join("temp1_input"))?.map(|m| m as f64 / 1000.0))
}

/// `pp_dpm_*`: the level marked `*` (current) and the highest level listed (maximum), MHz.
/// Lines look like `1: 1300Mhz *`; a level without its number (`   1300Mhz *`) also counts.
pub fn read_dpm(path: &Path) -> Result<(Option<u32>, Option<u32>)> {
    let Some(text) = read_text(path)? else { return Ok((None, None)) };
    let (mut current, mut max) = (None, None::<u32>);
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let mut words = line.split_whitespace().peekable();
        if words.peek().is_some_and(|w| w.ends_with(':')) {
            words.next();
        }
        let clock = words.next().and_then(|w| w.strip_suffix("Mhz").or_else(|| w.strip_suffix("MHz")));
        let Some(mhz) = clock.and_then(|c| c.parse::<u32>().ok()) else {
            let reason = format!("expected `<level>: <clock>Mhz [*]`, found {}", prof_timeline::error::quote(line));
            return Err(Error::artifact(path, i + 1, reason));
        };
        if words.next() == Some("*") {
            current = Some(mhz);
        }
        max = Some(max.map_or(mhz, |m| m.max(mhz)));
    }
    Ok((current, max))
}

/// The file's text; `None` when it does not exist.
fn read_text(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

fn read_number<T: std::str::FromStr>(path: &Path, what: &str) -> Result<Option<T>> {
    let Some(text) = read_text(path)? else { return Ok(None) };
    let value = text.trim();
    value
        .parse::<T>()
        .map(Some)
        .map_err(|_| Error::artifact(path, 1, format!("expected {what}, found {}", prof_timeline::error::quote(value))))
}

fn read_u64(path: &Path) -> Result<Option<u64>> {
    read_number(path, "a whole non-negative number")
}

fn read_i64(path: &Path) -> Result<Option<i64>> {
    read_number(path, "a whole number")
}

#[cfg(test)]
mod tests;
