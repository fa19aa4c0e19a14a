//! torch_npu's `ASCEND_PROFILER_OUTPUT/communication_matrix.json`: per step, per group, per
//! HCCL op, one entry per link `"<src>-<dst>"` (global rank numbers) with its transport type
//! (`LOCAL` for a rank's copy to itself, `HCCS`, `PCIE`, `RDMA`), transit size MB (10⁶ bytes)
//! and transit time ms. [`load`] sums the ops into one matrix per link; the group's own
//! "Total Op Info" is skipped, as in [`communication`](crate::communication).

use crate::communication::{object, scaled_number, steps};
use crate::error::AscendError;
use std::collections::BTreeMap;
use std::path::Path;

/// One link's totals over the file's ops.
pub use prof_core::vendor_tables::Link as MatrixLink;

/// Reads `communication_matrix.json` at `path`: the links by (src, dst, transport).
pub fn load(path: &Path) -> Result<Vec<MatrixLink>, AscendError> {
    let text = std::fs::read(path).map_err(|e| AscendError::file(path, 0, e.to_string()))?;
    parse(&text, path)
}

/// Parses the text of a `communication_matrix.json`, naming `path` in errors.
pub fn parse(text: &[u8], path: &Path) -> Result<Vec<MatrixLink>, AscendError> {
    let root: serde_json::Value = serde_json::from_slice(text)
        .map_err(|e| AscendError::file(path, e.line(), format!("not valid communication matrix JSON: {e}")))?;
    let mut links: BTreeMap<(u32, u32, String), MatrixLink> = BTreeMap::new();
    let (mut total_bytes, mut total_ns) = (0u64, 0u64);
    for (step, groups) in steps(&root, path)? {
        for (group, entries) in object(groups, path, &step)? {
            for (op, pairs) in object(entries, path, group)? {
                if op == "Total Op Info" {
                    continue;
                }
                for (pair, info) in object(pairs, path, op)? {
                    let (src, dst) = ranks_of(pair)
                        .ok_or_else(|| AscendError::file(path, 0, format!("{op}: link {pair:?} is not <src>-<dst>")))?;
                    let transport = info
                        .get("Transport Type")
                        .and_then(serde_json::Value::as_str)
                        .ok_or_else(|| AscendError::file(path, 0, format!("{op} {pair}: no \"Transport Type\"")))?;
                    let bytes = scaled_number(info, "Transit Size(MB)", 1e6, op, path)?;
                    let transit_ns = scaled_number(info, "Transit Time(ms)", 1e6, op, path)?;
                    // File-wide totals bound every link's (and any sum of links') figures.
                    let too_large = |what: &str| AscendError::file(path, 0, format!("{what} add up past 64 bits"));
                    total_bytes = total_bytes.checked_add(bytes).ok_or_else(|| too_large("transit sizes"))?;
                    total_ns = total_ns.checked_add(transit_ns).ok_or_else(|| too_large("transit times"))?;
                    let link = links.entry((src, dst, transport.to_owned())).or_insert_with(|| MatrixLink {
                        src,
                        dst,
                        transport: transport.to_owned(),
                        ops: 0,
                        bytes: 0,
                        transit_ns: 0,
                    });
                    link.ops += 1;
                    link.bytes += bytes;
                    link.transit_ns += transit_ns;
                }
            }
        }
    }
    Ok(links.into_values().collect())
}

fn ranks_of(pair: &str) -> Option<(u32, u32)> {
    let (src, dst) = pair.split_once('-')?;
    Some((src.trim().parse().ok()?, dst.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::{fixture_path, MSINSIGHT_RANK0};

    #[test]
    fn sums_the_links_of_the_gpt3_rank() {
        let path = fixture_path(&format!("{MSINSIGHT_RANK0}/ASCEND_PROFILER_OUTPUT/communication_matrix.json"));
        let links = load(&path).unwrap();
        // python: the distinct (src, dst, Transport Type) over every op but "Total Op Info", both groups
        let pairs: Vec<(u32, u32, &str)> = links.iter().map(|l| (l.src, l.dst, l.transport.as_str())).collect();
        assert_eq!(pairs.len(), 10);
        assert!(pairs.contains(&(0, 8, "RDMA")) && pairs.contains(&(0, 1, "HCCS")) && pairs.contains(&(0, 0, "LOCAL")));
        // python: 0-1 is used over HCCS (11 ops, 188.760292 MB, 9.885189847656251 ms) and RDMA (1 op, 131.072 MB);
        // together the 319.832292 MB that the file's collective "Total Op Info" files under HCCS
        let hccs = links.iter().find(|l| (l.dst, l.transport.as_str()) == (1, "HCCS")).unwrap();
        assert_eq!((hccs.ops, hccs.bytes), (11, 188_760_292));
        assert!((hccs.transit_ns as f64 - 9_885_189.85).abs() < 30.0);
        let to_1: u64 = links.iter().filter(|l| l.dst == 1).map(|l| l.bytes).sum();
        assert_eq!(to_1, 319_832_292);
        let error = parse(&std::fs::read(&path).unwrap()[..1000], &path).unwrap_err().to_string();
        assert!(error.contains("communication_matrix.json:1:"), "{error}");
    }

    #[test]
    fn a_bad_link_name_or_a_missing_transport_is_an_error_naming_it() {
        let path = Path::new("communication_matrix.json");
        let bad_pair = br#"{"step1": {"collective": {"allreduce@1": {"0+1": {"Transport Type": "HCCS"}}}}}"#;
        let error = parse(bad_pair, path).unwrap_err().to_string();
        assert!(error.contains("communication_matrix.json") && error.contains("\"0+1\" is not <src>-<dst>"), "{error}");
        let no_transport = br#"{"step1": {"collective": {"allreduce@1": {"0-1": {"Transit Size(MB)": 1}}}}}"#;
        let error = parse(no_transport, path).unwrap_err().to_string();
        assert!(error.contains("allreduce@1 0-1: no \"Transport Type\""), "{error}");
    }

    /// Regression (a hand-made input through fuzz/'s `ascend_communication_matrix`, overflow
    /// checks on): a link's summed transit size used to overflow; now sums past 64 bits are an
    /// error naming the file.
    #[test]
    fn transit_sizes_past_64_bits_are_an_error_not_an_overflow() {
        let path = fixture_path(&format!("{MSINSIGHT_RANK0}/ASCEND_PROFILER_OUTPUT/communication_matrix.json"));
        let text = std::fs::read_to_string(&path).unwrap();
        let with_mb = |mb: &str| {
            let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
            for group in doc["step2"].as_object_mut().unwrap().values_mut() {
                for pairs in group.as_object_mut().unwrap().values_mut() {
                    for info in pairs.as_object_mut().unwrap().values_mut() {
                        info["Transit Size(MB)"] = serde_json::from_str(mb).unwrap();
                    }
                }
            }
            serde_json::to_vec(&doc).unwrap()
        };
        // 10¹³ MB = 10¹⁹ bytes fits in a u64, but the links' sum of them does not.
        let error = parse(&with_mb("1e13"), &path).unwrap_err().to_string();
        assert!(error.contains("communication_matrix.json") && error.contains("add up past 64 bits"), "{error}");
        let error = parse(&with_mb("1e300"), &path).unwrap_err().to_string();
        assert!(error.contains("too large to count in 64 bits"), "{error}");
        assert_eq!(parse(&with_mb("1"), &path).unwrap().len(), 10);
    }
}
