//! What prof reads from `npu-smi info -t common -i <npu>`: `Key : value` lines in blank-line
//! separated sections (the NPU, then one section per chip, then named parts such as the `mcu`),
//! for the utilization probe (AI Core usage and frequency, HBM usage, power, temperature).
//!
//! The layout follows the real 910B recording; its paste indents with 8 spaces where Huawei's
//! documentation shows a TAB, so any leading whitespace is accepted.

use crate::error::{quote, AscendError};

/// Tool label for `npu-smi info -t common` output in error messages.
pub const COMMON_TOOL: &str = "npu-smi info -t common";

/// The arguments of a `-t common` query for NPU `npu`.
pub fn common_args(npu: u32) -> Vec<String> {
    vec!["info".to_owned(), "-t".to_owned(), "common".to_owned(), "-i".to_owned(), npu.to_string()]
}

/// One NPU's `-t common` report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CommonInfo {
    /// `NPU ID`.
    pub npu: u32,
    /// `Chip Count`: how many chip sections follow (checked).
    pub chip_count: u32,
    /// One entry per `Chip ID` section.
    pub chips: Vec<CommonChip>,
    /// Sections headed `Chip Name` (the `mcu` with its temperature).
    pub parts: Vec<CommonPart>,
}

/// One `Chip ID` section. Keys the section does not print stay `None`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CommonChip {
    /// `Chip ID`.
    pub chip: u32,
    /// `Memory Usage Rate(%)`.
    pub memory_usage_pct: Option<f64>,
    /// `HBM Usage Rate(%)`.
    pub hbm_usage_pct: Option<f64>,
    /// `Aicore Usage Rate(%)`.
    pub aicore_usage_pct: Option<f64>,
    /// `Aicore Freq(MHZ)`: the rated AI Core clock.
    pub aicore_freq_mhz: Option<f64>,
    /// `Aicore curFreq(MHZ)`: the current AI Core clock.
    pub aicore_cur_freq_mhz: Option<f64>,
    /// `Aicore Count`.
    pub aicore_count: Option<u32>,
    /// `Temperature(C)`.
    pub temperature_c: Option<f64>,
    /// `NPU Real-time Power(W)`.
    pub power_w: Option<f64>,
    /// Any other `key : value` of the section, in printed order.
    pub other: Vec<(String, String)>,
}

/// A section headed `Chip Name` (the recording has one, `mcu`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CommonPart {
    /// `Chip Name`.
    pub name: String,
    /// `Temperature(C)`.
    pub temperature_c: Option<f64>,
}

struct Field<'a> {
    line: usize,
    key: &'a str,
    value: &'a str,
}

/// Parses the standard output of `npu-smi info -t common -i N`. Errors name the line: a line
/// with no `:`, a section that does not start with `NPU ID`, `Chip ID` or `Chip Name`, a
/// repeated key, a value that is not a number, fewer or more chip sections than `Chip Count`.
pub fn parse_common(text: &str) -> Result<CommonInfo, AscendError> {
    let sections = split_sections(text)?;
    let last_line = text.lines().count().max(1);
    let Some((head, rest)) = sections.split_first() else {
        return Err(AscendError::output(COMMON_TOOL, 1, "empty output"));
    };
    let mut info = CommonInfo::default();
    let first = &head[0];
    if first.key != "NPU ID" {
        return Err(AscendError::output(COMMON_TOOL, first.line, format!("expected `NPU ID`, found `{}`", first.key)));
    }
    let mut chip_count = None;
    for field in head {
        match field.key {
            "NPU ID" => info.npu = whole(field)?,
            "Chip Count" => chip_count = Some(whole(field)?),
            _ => {}
        }
    }
    info.chip_count = chip_count.ok_or_else(|| AscendError::output(COMMON_TOOL, first.line, "no `Chip Count`"))?;
    for section in rest {
        let lead = &section[0];
        match lead.key {
            "Chip ID" => info.chips.push(chip_section(section)?),
            "Chip Name" => info.parts.push(part_section(section)?),
            other => {
                let reason = format!("a section must start with `Chip ID` or `Chip Name`, found `{other}`");
                return Err(AscendError::output(COMMON_TOOL, lead.line, reason));
            }
        }
    }
    if info.chips.len() != info.chip_count as usize {
        let reason = format!("Chip Count is {} but {} chip sections follow", info.chip_count, info.chips.len());
        return Err(AscendError::output(COMMON_TOOL, last_line, reason));
    }
    Ok(info)
}

fn split_sections(text: &str) -> Result<Vec<Vec<Field<'_>>>, AscendError> {
    let mut sections: Vec<Vec<Field<'_>>> = Vec::new();
    let mut current: Vec<Field<'_>> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            if !current.is_empty() {
                sections.push(std::mem::take(&mut current));
            }
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            return Err(AscendError::output(COMMON_TOOL, line, format!("expected `key : value`: {}", quote(raw))));
        };
        let key = key.trim();
        if current.iter().any(|f| f.key == key) {
            return Err(AscendError::output(COMMON_TOOL, line, format!("`{key}` repeated in one section")));
        }
        current.push(Field { line, key, value: value.trim() });
    }
    if !current.is_empty() {
        sections.push(current);
    }
    Ok(sections)
}

fn chip_section(section: &[Field<'_>]) -> Result<CommonChip, AscendError> {
    let mut chip = CommonChip::default();
    for field in section {
        match field.key {
            "Chip ID" => chip.chip = whole(field)?,
            "Memory Usage Rate(%)" => chip.memory_usage_pct = Some(number(field)?),
            "HBM Usage Rate(%)" => chip.hbm_usage_pct = Some(number(field)?),
            "Aicore Usage Rate(%)" => chip.aicore_usage_pct = Some(number(field)?),
            "Aicore Freq(MHZ)" => chip.aicore_freq_mhz = Some(number(field)?),
            "Aicore curFreq(MHZ)" => chip.aicore_cur_freq_mhz = Some(number(field)?),
            "Aicore Count" => chip.aicore_count = Some(whole(field)?),
            "Temperature(C)" => chip.temperature_c = Some(number(field)?),
            "NPU Real-time Power(W)" => chip.power_w = Some(number(field)?),
            _ => chip.other.push((field.key.to_owned(), field.value.to_owned())),
        }
    }
    Ok(chip)
}

fn part_section(section: &[Field<'_>]) -> Result<CommonPart, AscendError> {
    let mut part = CommonPart::default();
    for field in section {
        match field.key {
            "Chip Name" => part.name = field.value.to_owned(),
            "Temperature(C)" => part.temperature_c = Some(number(field)?),
            _ => {}
        }
    }
    Ok(part)
}

fn number(field: &Field<'_>) -> Result<f64, AscendError> {
    field.value.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
        AscendError::output(COMMON_TOOL, field.line, format!("{} is not a number: `{}`", field.key, field.value))
    })
}

fn whole<T: std::str::FromStr>(field: &Field<'_>) -> Result<T, AscendError> {
    field.value.parse::<T>().map_err(|_| {
        AscendError::output(COMMON_TOOL, field.line, format!("{} is not a whole number: `{}`", field.key, field.value))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::{fixture, COMMON_910B};

    fn error_of(text: &str) -> (usize, String) {
        match parse_common(text).unwrap_err() {
            AscendError::Output { tool, line, reason } => {
                assert_eq!(tool, COMMON_TOOL);
                (line, reason)
            }
            other => panic!("unexpected error {other}"),
        }
    }

    #[test]
    fn recorded_910b_npu_1() {
        let info = parse_common(&fixture(COMMON_910B)).unwrap();
        assert_eq!((info.npu, info.chip_count), (1, 1));
        let [chip] = info.chips.as_slice() else { panic!("{info:?}") };
        assert_eq!(chip.chip, 0);
        assert_eq!(
            (chip.memory_usage_pct, chip.hbm_usage_pct, chip.aicore_usage_pct),
            (Some(0.0), Some(91.0), Some(6.0))
        );
        assert_eq!((chip.aicore_freq_mhz, chip.aicore_cur_freq_mhz), (Some(1800.0), Some(1800.0)));
        assert_eq!(chip.aicore_count, Some(20));
        assert_eq!((chip.temperature_c, chip.power_w), (Some(46.0), Some(130.4)));
        assert!(chip.other.is_empty());
        assert_eq!(info.parts, [CommonPart { name: "mcu".into(), temperature_c: Some(40.0) }]);
    }

    #[test]
    fn tab_indentation_and_crlf_parse_the_same() {
        let text = fixture(COMMON_910B);
        let expected = parse_common(&text).unwrap();
        let tabbed = text.replace("        ", "\t");
        assert!(tabbed.starts_with("\tNPU ID"));
        assert_eq!(parse_common(&tabbed).unwrap(), expected);
        assert_eq!(parse_common(&text.replace('\n', "\r\n")).unwrap(), expected);
    }

    #[test]
    fn bad_input_names_the_line() {
        assert_eq!(error_of(""), (1, "empty output".to_owned()));
        let text = fixture(COMMON_910B);
        let truncated: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
        let (line, reason) = error_of(&truncated);
        assert_eq!(line, 3);
        assert!(reason.contains("Chip Count is 1 but 0 chip sections follow"), "{reason}");

        let no_colon = text.replace("Aicore Count                   : 20", "Aicore Count 20");
        let (line, reason) = error_of(&no_colon);
        assert_eq!(line, 10);
        assert!(reason.contains("expected `key : value`"), "{reason}");

        let bad_freq = text.replace(": 1800\n        Aicore curFreq", ": fast\n        Aicore curFreq");
        let (line, reason) = error_of(&bad_freq);
        assert_eq!(line, 8);
        assert!(reason.contains("Aicore Freq(MHZ) is not a number: `fast`"), "{reason}");

        let (line, reason) = error_of("Usage: npu-smi info -t common -i <id>\n");
        assert_eq!(line, 1);
        assert!(reason.contains("expected `NPU ID`"), "{reason}");
    }
}
