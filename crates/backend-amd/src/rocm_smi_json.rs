//! `rocm-smi … --json`: one JSON object with a `cardN` entry per GPU (string fields such as
//! `"GPU ID"`, `"Card series"`, `"PCI Bus"`, `"VRAM Total Memory (B)"`) and a `system` entry
//! (`"Driver version"`).
//!
//! Only the keys seen in the recorded output (ROCm 5.7.1, Telegraf's flag list) are read.
//! Values of `N/A` are absent, never zero.

use crate::error::{quote, AmdError};
use prof_core::DeviceInfo;
use serde_json::{Map, Value};

/// One `cardN` entry: the fields detection uses, as the tool printed them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    /// `N` of `cardN`: rocm-smi's device index.
    pub index: u32,
    /// `"GPU ID"`: the PCI device id (`0x738c`).
    pub gpu_id: Option<String>,
    /// `"Unique ID"`.
    pub unique_id: Option<String>,
    /// `"Card series"`: the product name (`Arcturus GL-XL [Instinct MI100]`).
    pub series: Option<String>,
    /// `"PCI Bus"` (`0000:1E:00.0`).
    pub pci_bus: Option<String>,
    /// `"VRAM Total Memory (B)"` in bytes.
    pub vram_total_bytes: Option<u64>,
}

impl Card {
    /// The vendor-neutral device record: the product name (or the device id when the name is
    /// missing), the unique id, the bus id and VRAM in MiB.
    pub fn to_device_info(&self) -> DeviceInfo {
        let name = match (&self.series, &self.gpu_id) {
            (Some(series), _) => series.clone(),
            (None, Some(id)) => format!("AMD GPU (device id {id})"),
            (None, None) => "AMD GPU".to_owned(),
        };
        DeviceInfo {
            index: self.index,
            name,
            uuid: self.unique_id.clone(),
            bus_id: self.pci_bus.clone(),
            memory_total_mib: self.vram_total_bytes.map(|bytes| bytes / (1024 * 1024)),
            architecture: None,
        }
    }
}

/// What one `rocm-smi --json` run reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RocmSmiJson {
    /// `system` → `"Driver version"`, where present.
    pub driver_version: Option<String>,
    /// The `cardN` entries, ordered by `N`.
    pub cards: Vec<Card>,
}

/// Parses the standard output of `tool` (named in errors). Errors: empty output, invalid or
/// truncated JSON, a top level that is not an object, a `cardN` entry that is not an object,
/// a VRAM size that is not a byte count.
pub fn parse(tool: &str, text: &str) -> Result<RocmSmiJson, AmdError> {
    if text.trim().is_empty() {
        return Err(AmdError::output(tool, 1, "empty output, expected a JSON object"));
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|e| AmdError::output(tool, e.line().max(1), format!("invalid JSON: {e}")))?;
    let Value::Object(top) = value else {
        return Err(AmdError::output(tool, 1, "expected a JSON object of `cardN` entries"));
    };
    let driver_version = match top.get("system") {
        Some(Value::Object(system)) => text_field(tool, text, "system", system, "Driver version")?,
        _ => None,
    };
    let mut cards = Vec::new();
    for (key, entry) in &top {
        let Some(index) = key.strip_prefix("card").and_then(|n| n.parse::<u32>().ok()) else { continue };
        let Value::Object(fields) = entry else {
            return Err(AmdError::output(tool, line_of(text, key), format!("`{key}` is not an object of fields")));
        };
        cards.push(card(tool, text, key, index, fields)?);
    }
    cards.sort_by_key(|card| card.index);
    Ok(RocmSmiJson { driver_version, cards })
}

fn card(tool: &str, text: &str, key: &str, index: u32, fields: &Map<String, Value>) -> Result<Card, AmdError> {
    let vram_key = "VRAM Total Memory (B)";
    let vram_total_bytes = match text_field(tool, text, key, fields, vram_key)? {
        None => None,
        Some(raw) => Some(raw.parse::<u64>().map_err(|_| {
            AmdError::output(
                tool,
                field_line(text, key, vram_key),
                format!("`{vram_key}` of {key} is not a byte count: {}", quote(&raw)),
            )
        })?),
    };
    Ok(Card {
        index,
        gpu_id: text_field(tool, text, key, fields, "GPU ID")?,
        unique_id: text_field(tool, text, key, fields, "Unique ID")?,
        series: text_field(tool, text, key, fields, "Card series")?,
        pci_bus: text_field(tool, text, key, fields, "PCI Bus")?,
        vram_total_bytes,
    })
}

/// The text of field `name` of entry `entry`: strings and numbers as printed; `null`, empty
/// and `N/A` are absent. Key case is ignored, so `Card Series` reads as `Card series`.
pub(crate) fn text_field(
    tool: &str,
    text: &str,
    entry: &str,
    fields: &Map<String, Value>,
    name: &str,
) -> Result<Option<String>, AmdError> {
    let value = fields.get(name).or_else(|| fields.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v));
    let raw = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => {
            let reason = format!("`{name}` of {entry} should be a string, found {}", quote(&other.to_string()));
            return Err(AmdError::output(tool, field_line(text, entry, name), reason));
        }
    };
    Ok((!raw.is_empty() && raw != "N/A").then_some(raw))
}

/// The 1-based line where `"key"` first appears (line 1 for the tool's one-line JSON).
fn line_of(text: &str, key: &str) -> usize {
    position(text, 0, key).map(|at| line_at(text, at)).unwrap_or(1)
}

/// The 1-based line of field `"name"` inside entry `"entry"`.
pub(crate) fn field_line(text: &str, entry: &str, name: &str) -> usize {
    let start = position(text, 0, entry).unwrap_or(0);
    position(text, start, name).map(|at| line_at(text, at)).unwrap_or_else(|| line_at(text, start))
}

fn position(text: &str, from: usize, key: &str) -> Option<usize> {
    let needle = format!("\"{key}\"");
    text.get(from..)?.find(&needle).map(|at| from + at)
}

fn line_at(text: &str, at: usize) -> usize {
    text.get(..at).map(|before| before.matches('\n').count() + 1).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::fixture;

    const TOOL: &str = "rocm-smi --json";

    #[test]
    fn reads_six_mi100_cards_and_the_driver_from_the_telegraf_recording() {
        let report = parse(TOOL, &fixture("smi/telegraf_mi100_rocm571.json")).unwrap();
        assert_eq!(report.driver_version.as_deref(), Some("6.2.4"));
        assert_eq!(report.cards.len(), 6);
        let buses: Vec<&str> = report.cards.iter().map(|c| c.pci_bus.as_deref().unwrap()).collect();
        assert_eq!(
            buses,
            ["0000:1E:00.0", "0000:22:00.0", "0000:3F:00.0", "0000:43:00.0", "0000:46:00.0", "0000:49:00.0"]
        );
        for (i, card) in report.cards.iter().enumerate() {
            assert_eq!(card.index, i as u32);
            assert_eq!(card.gpu_id.as_deref(), Some("0x738c"));
            assert_eq!(card.series.as_deref(), Some("Arcturus GL-XL [Instinct MI100]"));
            assert_eq!(card.unique_id, None, "`N/A` is absent");
            assert_eq!(card.vram_total_bytes, Some(34_342_961_152));
        }
        let device = report.cards[3].to_device_info();
        assert_eq!(device.name, "Arcturus GL-XL [Instinct MI100]");
        assert_eq!(device.memory_total_mib, Some(32_752));
        assert_eq!(device.bus_id.as_deref(), Some("0000:43:00.0"));
    }

    #[test]
    fn compact_one_line_json_and_numeric_card_order() {
        let text = r#"{"card10": {"GPU ID": "0x1"}, "card2": {"GPU ID": "0x2", "Card Series": "X"}, "system": {}}"#;
        let report = parse(TOOL, text).unwrap();
        let indices: Vec<u32> = report.cards.iter().map(|c| c.index).collect();
        assert_eq!(indices, [2, 10]);
        assert_eq!(report.cards[0].series.as_deref(), Some("X"));
        assert_eq!(report.cards[1].to_device_info().name, "AMD GPU (device id 0x1)");
        assert_eq!(report.driver_version, None);
    }

    #[test]
    fn truncated_json_names_the_tool_and_the_line() {
        let full = fixture("smi/telegraf_mi100_rocm571.json");
        let cut: String = full.lines().take(40).map(|l| format!("{l}\n")).collect();
        let err = parse(TOOL, &cut).unwrap_err().to_string();
        assert!(err.starts_with("rocm-smi --json: unexpected output at line 41: invalid JSON"), "{err}");
    }

    #[test]
    fn a_bad_field_is_located_inside_its_own_card() {
        let text = fixture("smi/telegraf_mi100_rocm571.json").replace("\"0000:43:00.0\"", "[43]");
        let err = parse(TOOL, &text).unwrap_err().to_string();
        assert!(err.starts_with("rocm-smi --json: unexpected output at line 288: `PCI Bus` of card3"), "{err}");
    }

    #[test]
    fn empty_non_object_and_bad_values_are_errors() {
        let err = parse(TOOL, "  \n").unwrap_err().to_string();
        assert!(err.contains("line 1: empty output"), "{err}");
        let err = parse(TOOL, "[1, 2]").unwrap_err().to_string();
        assert!(err.contains("expected a JSON object"), "{err}");
        let err = parse(TOOL, "{\n\"card0\": \"oops\"\n}").unwrap_err().to_string();
        assert!(err.contains("line 2: `card0` is not an object"), "{err}");
        let err = parse(TOOL, "{\"card0\": {\n\"VRAM Total Memory (B)\": \"32 GB\"}}").unwrap_err().to_string();
        assert!(err.contains("line 2: `VRAM Total Memory (B)` of card0 is not a byte count: `32 GB`"), "{err}");
        let err = parse(TOOL, "{\"card0\": {\"PCI Bus\": [1]}}").unwrap_err().to_string();
        assert!(err.contains("`PCI Bus` of card0 should be a string"), "{err}");
    }
}
