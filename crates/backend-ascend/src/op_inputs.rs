//! Each op's call from its table row (`OP Type`, `Input Shapes` `"8192,4096;4096,11008"`,
//! `Input Data Types` `DT_BF16;DT_BF16`) as [`OpInputs`], for the roofline
//! (`prof_core::roofline`): done once per distinct details after the load, so a table of
//! millions of rows parses each distinct shape once.

use prof_core::{DType, OpInputs, Timeline};
use std::collections::HashMap;

/// `8192,4096;4096,11008` → `[[8192, 4096], [4096, 11008]]`; an input that is not a list of
/// numbers (a scalar, `N/A`) is empty.
fn dims(shapes: &str) -> Vec<Vec<u64>> {
    shapes
        .split(';')
        .map(|one| one.split(',').map(|d| d.trim().parse::<u64>().ok()).collect::<Option<Vec<_>>>().unwrap_or_default())
        .collect()
}

/// Gives every op with an op type and shapes its call.
pub(crate) fn attach(timeline: &mut Timeline) {
    let mut made: HashMap<(prof_core::NameId, Option<usize>), Option<prof_timeline::details_pool::DetailsId>> =
        HashMap::new();
    for index in 0..timeline.ops.len() {
        let op = &timeline.ops[index];
        let Some(id) = op.details() else { continue };
        let key = (op.name(), Some(id.index()));
        if let Some(known) = made.get(&key) {
            if let (Some(known), Some(op)) = (*known, timeline.ops.get_mut(index)) {
                op.set_details(Some(known));
            }
            continue;
        }
        let Some(details) = timeline.details_of(op).cloned() else { continue };
        let (Some(op_type), Some(shapes)) = (details.op_type, details.shapes) else {
            made.insert(key, None);
            continue;
        };
        let dims = dims(timeline.name(shapes));
        let dtypes = match details.dtypes {
            Some(types) => timeline.name(types).split(';').map(DType::of_ascend).collect(),
            None => vec![None; dims.len()],
        };
        let inputs = OpInputs { op: timeline.name(op_type).to_owned(), dims, dtypes, scalars: Vec::new(), kernels: 1 };
        timeline.set_details(index, prof_core::OpDetails { inputs: Some(Box::new(inputs)), ..details });
        made.insert(key, timeline.ops.get(index).and_then(|op| op.details()));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn shapes_split_into_inputs() {
        assert_eq!(super::dims("8192,4096;4096,11008"), vec![vec![8192, 4096], vec![4096, 11008]]);
        assert_eq!(super::dims("512,16;;N/A"), vec![vec![512, 16], vec![], vec![]]);
    }
}
