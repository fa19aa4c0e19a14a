//! [`prof_core::Importer`] for PyTorch profiler (Kineto) Chrome traces, so `prof analyze`
//! reads what `torch.profiler` already wrote.

use crate::torch_trace::{load_torch_trace, looks_like_torch_trace};
use prof_core::{Importer, Result, Timeline};
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

    fn load(&self, path: &Path) -> Result<Timeline> {
        load_torch_trace(path)
    }
}
