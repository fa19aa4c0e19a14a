//! The calls of a trace recorded with `record_shapes=True`: each `cpu_op`'s `Input Dims`,
//! `Input type` and `Concrete Inputs`, joined to the kernels it launched by `External id`
//! (Kineto gives a kernel the id of the op that launched it). Kineto writes the CPU ops before
//! the device activity, so a kernel's op is known when the kernel is read; a kernel read
//! before any op with shapes is left without (the join keeps memory to one small entry per op:
//! equal calls share one [`OpInputs`]).

use prof_core::{DType, OpInputs, Timeline};
use std::collections::HashMap;

/// The raw JSON of one op's recorded inputs, as the event holds them.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct RawInputs<'a> {
    pub(crate) dims: Option<&'a [u8]>,
    pub(crate) types: Option<&'a [u8]>,
    pub(crate) concrete: Option<&'a [u8]>,
}

/// The join of ops to kernels, across the events of one trace.
#[derive(Debug, Default)]
pub(crate) struct CallInputs {
    /// Each distinct call, once.
    calls: Vec<OpInputs>,
    seen: HashMap<OpInputs, u32>,
    /// The call of each distinct raw text (op name and the three arrays as written): most ops
    /// repeat an earlier one's, which is then not parsed again.
    raw_seen: HashMap<Vec<u8>, Option<u32>>,
    key: Vec<u8>,
    /// Op `External id` → its call.
    by_external: HashMap<u64, u32>,
    /// Kernels per op instance (by `External id`), for the ones that launched any.
    kernels: HashMap<u64, u32>,
    /// (op index in the timeline, its op's `External id`), for every kernel joined.
    joined: Vec<(usize, u64)>,
}

impl CallInputs {
    /// Keeps the recorded inputs of op `name` whose `External id` is `external`; inputs that do
    /// not parse as Kineto writes them are left out (the op keeps no shapes), never an error.
    pub(crate) fn op(&mut self, name: &str, external: u64, raw: RawInputs<'_>) {
        self.key.clear();
        for part in [Some(name.as_bytes()), raw.dims, raw.types, raw.concrete] {
            self.key.extend_from_slice(part.unwrap_or_default());
            self.key.push(0);
        }
        let id = match self.raw_seen.get(self.key.as_slice()) {
            Some(known) => *known,
            None => {
                let id = self.parse(name, raw);
                self.raw_seen.insert(self.key.clone(), id);
                id
            }
        };
        if let Some(id) = id {
            self.by_external.insert(external, id);
        }
    }

    /// The call of `raw`, parsed and kept once; `None` when its dims are not Kineto's arrays.
    fn parse(&mut self, name: &str, raw: RawInputs<'_>) -> Option<u32> {
        let dims = raw.dims.and_then(|d| serde_json::from_slice::<Vec<serde_json::Value>>(d).ok())?;
        let strings = |raw: Option<&[u8]>| {
            raw.and_then(|r| serde_json::from_slice::<Vec<serde_json::Value>>(r).ok())
                .map(|v| v.iter().map(|s| s.as_str().unwrap_or_default().to_owned()).collect::<Vec<_>>())
                .unwrap_or_default()
        };
        let dims = dims
            .iter()
            .map(|d| {
                let numbers = d.as_array().map(|a| a.iter().map(serde_json::Value::as_u64).collect::<Option<Vec<_>>>());
                numbers.flatten().unwrap_or_default()
            })
            .collect::<Vec<_>>();
        let dtypes = strings(raw.types).iter().map(|t| DType::of_torch(t)).collect();
        let call = OpInputs { op: name.to_owned(), dims, dtypes, scalars: strings(raw.concrete), kernels: 0 };
        let next = self.calls.len() as u32;
        let id = *self.seen.entry(call).or_insert_with_key(|call| {
            self.calls.push(call.clone());
            next
        });
        Some(id)
    }

    /// True when some op with inputs was read (a kernel is worth joining).
    pub(crate) fn any(&self) -> bool {
        !self.by_external.is_empty()
    }

    /// Joins the kernel at `index` of the timeline to its op `external`, when that op's inputs
    /// were read.
    pub(crate) fn kernel(&mut self, index: usize, external: u64) {
        if self.by_external.contains_key(&external) {
            *self.kernels.entry(external).or_default() += 1;
            self.joined.push((index, external));
        }
    }

    /// Gives each joined kernel its op's call, with the number of kernels that call launched.
    pub(crate) fn finish(self, timeline: &mut Timeline) {
        // (the kernel's name and details before, the call, its kernels) → the details after:
        // equal kernels of equal calls share them without building them again.
        let mut made = HashMap::new();
        for (index, external) in self.joined {
            let (Some(&call), Some(&kernels)) = (self.by_external.get(&external), self.kernels.get(&external)) else {
                continue;
            };
            let Some(op) = timeline.ops.get(index) else { continue };
            let key = (op.name(), op.details(), call, kernels);
            if let Some(&Some(id)) = made.get(&key) {
                if let Some(op) = timeline.ops.get_mut(index) {
                    op.set_details(Some(id));
                }
                continue;
            }
            let mut details = timeline.details_of(op).cloned().unwrap_or_default();
            let Some(inputs) = self.calls.get(call as usize) else { continue };
            details.inputs = Some(Box::new(OpInputs { kernels, ..inputs.clone() }));
            timeline.set_details(index, details);
            made.insert(key, timeline.ops.get(index).and_then(|op| op.details()));
        }
    }
}
