//! `rsmi_frequencies_t`, as `rsmi_dev_gpu_clk_freq_get` fills it, in either of the two layouts
//! the header has had (ROCm/rocm_smi_lib `include/rocm_smi/rocm_smi.h`):
//!
//! - legacy (e.g. commit 0051403d): `uint32_t num_supported; uint32_t current;
//!   uint64_t frequency[32];` (264 bytes);
//! - deep-sleep (commit fb22d777): `bool has_deep_sleep; uint32_t num_supported;
//!   uint32_t current; uint64_t frequency[33];` (280 bytes: `num_supported` at 4, `current`
//!   at 8, `frequency` at 16).
//!
//! prof cannot know at build time which one the loaded library writes, so it hands the library
//! a zeroed [`FrequencyBuffer`] larger than either, then reads it both ways: a real answer is
//! consistent in exactly one layout (see [`decode`]). Frequencies are in Hz; `current` is an
//! index into them, `-1` (all bits set) when the driver marked no level as current.

/// Bytes handed to `rsmi_dev_gpu_clk_freq_get`: room for either layout, and then some.
pub const BUFFER_BYTES: usize = 1024;

/// Zeroed, 8-byte aligned memory for one `rsmi_frequencies_t`, whatever its layout.
#[repr(C, align(8))]
pub struct FrequencyBuffer(pub [u8; BUFFER_BYTES]);

impl FrequencyBuffer {
    /// A buffer of zeros.
    pub fn zeroed() -> Self {
        Self([0; BUFFER_BYTES])
    }
}

/// Which `rsmi_frequencies_t` layout an answer was read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// No `has_deep_sleep`, up to 32 levels.
    Legacy,
    /// Leading `bool has_deep_sleep`, up to 33 levels.
    DeepSleep,
}

impl Layout {
    /// Offsets of `num_supported`, `current` and `frequency[0]`, and the array's capacity.
    fn offsets(self) -> (usize, usize, usize, usize) {
        match self {
            Layout::Legacy => (0, 4, 8, 32),
            Layout::DeepSleep => (4, 8, 16, 33),
        }
    }
}

/// The DPM levels of one clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockLevels {
    /// The layout the answer was consistent with.
    pub layout: Layout,
    /// Every supported level, Hz, in the library's order.
    pub levels_hz: Vec<u64>,
    /// Index of the current level; `None` when the driver marked none.
    pub current: Option<usize>,
}

impl ClockLevels {
    /// The current level, MHz.
    pub fn current_mhz(&self) -> Option<u32> {
        self.current.and_then(|i| self.levels_hz.get(i)).and_then(|&hz| to_mhz(hz))
    }

    /// The highest level, MHz.
    pub fn max_mhz(&self) -> Option<u32> {
        self.levels_hz.iter().max().and_then(|&hz| to_mhz(hz))
    }
}

fn to_mhz(hz: u64) -> Option<u32> {
    u32::try_from(hz.saturating_add(500_000) / 1_000_000).ok()
}

/// Reads a filled buffer: `Some` when exactly one layout gives a consistent answer (1 to
/// capacity levels, none of them 0 Hz, `current` one of them or -1, and for the deep-sleep
/// layout a `bool` of 0 or 1). Neither or both: `None`, the clock is unknown.
///
/// One layout at most can fit a real answer: read as legacy, a deep-sleep answer has
/// `num_supported` 0 or 1 (the bool, or garbage padding making it ≥ 256) and then a `current`
/// (the real count, 1..33) that is out of range; read as deep-sleep, a legacy answer needs a
/// count of 1 in byte 0, and then its `num_supported` is the legacy `current`, 0 or -1.
pub fn decode(bytes: &[u8]) -> Option<ClockLevels> {
    match (read(bytes, Layout::Legacy), read(bytes, Layout::DeepSleep)) {
        (Some(levels), None) | (None, Some(levels)) => Some(levels),
        _ => None,
    }
}

fn read(bytes: &[u8], layout: Layout) -> Option<ClockLevels> {
    let (count_at, current_at, levels_at, capacity) = layout.offsets();
    if layout == Layout::DeepSleep && *bytes.first()? > 1 {
        return None;
    }
    let count = usize::try_from(u32_at(bytes, count_at)?).ok()?;
    if count == 0 || count > capacity {
        return None;
    }
    let current = match u32_at(bytes, current_at)? {
        u32::MAX => None,
        index => Some(usize::try_from(index).ok().filter(|&i| i < count)?),
    };
    let levels_hz = (0..count).map(|i| u64_at(bytes, levels_at + 8 * i)).collect::<Option<Vec<u64>>>()?;
    if levels_hz.contains(&0) {
        return None;
    }
    Some(ClockLevels { layout, levels_hz, current })
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let raw: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_ne_bytes(raw))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    let raw: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_ne_bytes(raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The MI100 sclk levels of `telegraf_mi100_rocm571.json` (300 MHz current, then the 15
    /// levels under keys `1`..`15`), in Hz.
    const MI100_SCLK_MHZ: [u64; 16] =
        [300, 495, 731, 962, 1029, 1087, 1147, 1189, 1235, 1283, 1319, 1363, 1404, 1430, 1472, 1502];

    fn legacy(count: u32, current: u32, mhz: &[u64]) -> FrequencyBuffer {
        let mut buffer = FrequencyBuffer::zeroed();
        buffer.0[0..4].copy_from_slice(&count.to_ne_bytes());
        buffer.0[4..8].copy_from_slice(&current.to_ne_bytes());
        for (i, f) in mhz.iter().enumerate() {
            buffer.0[8 + 8 * i..16 + 8 * i].copy_from_slice(&(f * 1_000_000).to_ne_bytes());
        }
        buffer
    }

    fn deep_sleep(flag: u8, count: u32, current: u32, mhz: &[u64]) -> FrequencyBuffer {
        let mut buffer = FrequencyBuffer::zeroed();
        buffer.0[0] = flag;
        buffer.0[4..8].copy_from_slice(&count.to_ne_bytes());
        buffer.0[8..12].copy_from_slice(&current.to_ne_bytes());
        for (i, f) in mhz.iter().enumerate() {
            buffer.0[16 + 8 * i..24 + 8 * i].copy_from_slice(&(f * 1_000_000).to_ne_bytes());
        }
        buffer
    }

    #[test]
    fn both_layouts_decode_to_the_same_clock() {
        for buffer in [legacy(16, 0, &MI100_SCLK_MHZ), deep_sleep(0, 16, 0, &MI100_SCLK_MHZ)] {
            let levels = decode(&buffer.0).unwrap();
            assert_eq!((levels.current_mhz(), levels.max_mhz()), (Some(300), Some(1502)));
        }
        assert_eq!(decode(&legacy(16, 3, &MI100_SCLK_MHZ).0).unwrap().layout, Layout::Legacy);
        assert_eq!(decode(&deep_sleep(1, 16, 15, &MI100_SCLK_MHZ).0).unwrap().layout, Layout::DeepSleep);
    }

    #[test]
    fn a_single_level_is_not_mistaken_for_the_other_layout() {
        let one = decode(&legacy(1, 0, &[1200]).0).unwrap();
        assert_eq!((one.layout, one.current_mhz()), (Layout::Legacy, Some(1200)));
        let one = decode(&deep_sleep(1, 1, 0, &[1200]).0).unwrap();
        assert_eq!((one.layout, one.current_mhz()), (Layout::DeepSleep, Some(1200)));
        let garbage_padding = {
            let mut b = deep_sleep(1, 2, 1, &[100, 1200]);
            b.0[1..4].copy_from_slice(&[0xAA, 0xAA, 0xAA]);
            b
        };
        assert_eq!(decode(&garbage_padding.0).unwrap().current_mhz(), Some(1200));
    }

    #[test]
    fn no_current_level_keeps_the_maximum() {
        let levels = decode(&deep_sleep(0, 2, u32::MAX, &[500, 1300]).0).unwrap();
        assert_eq!((levels.current_mhz(), levels.max_mhz()), (None, Some(1300)));
    }

    #[test]
    fn inconsistent_answers_are_unknown() {
        assert_eq!(decode(&FrequencyBuffer::zeroed().0), None, "no levels");
        assert_eq!(decode(&legacy(2, 5, &[300, 1500]).0), None, "current out of range");
        assert_eq!(decode(&legacy(40, 0, &[300]).0), None, "more levels than the array holds");
        assert_eq!(decode(&deep_sleep(0, 2, 0, &[300, 0]).0), None, "a 0 Hz level");
        assert_eq!(decode(&[1, 0, 0]), None, "short buffer");
    }
}
