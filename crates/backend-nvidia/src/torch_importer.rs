//! [`prof_core::Importer`] for PyTorch profiler (Kineto) Chrome traces, so `prof analyze`
//! reads what `torch.profiler` already wrote.

use crate::torch_trace::{load_torch_trace, looks_like_torch_trace, torch_trace_evidence};
use prof_core::{Certainty, Importer, Recognition, Result, Timeline};
use std::path::Path;

/// Reads `.json` / `.json.gz` traces exported by `torch.profiler` (`export_chrome_trace`).
#[derive(Debug, Default, Clone, Copy)]
pub struct TorchTraceImporter;

impl Importer for TorchTraceImporter {
    fn name(&self) -> &'static str {
        "torch-trace"
    }

    fn recognizes(&self, path: &Path) -> bool {
        path.is_file() && looks_like_torch_trace(path)
    }

    fn recognize(&self, path: &Path) -> Option<Recognition> {
        if !path.is_file() {
            return None;
        }
        Some(match torch_trace_evidence(path)? {
            true => Recognition::new(Certainty::Signature, "traceEvents with Kineto's schemaVersion/deviceProperties"),
            false => Recognition::new(Certainty::Content, "traceEvents with Kineto event categories"),
        })
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        load_torch_trace(path)
    }

    fn read_bytes(&self, bytes: &[u8], name: &Path) -> Option<Result<Timeline>> {
        Some(crate::torch_trace::read_torch_trace(bytes, name))
    }
}
