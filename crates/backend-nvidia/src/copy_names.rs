//! The name of a memory copy, as the CUPTI and nsys readers both give it: `CUDA memcpy HtoD`,
//! and where a side is pageable host memory, the memory kinds as torch.profiler spells them
//! (`CUDA memcpy HtoD (Pageable -> Device)`), so the kernel table and the pageable-copies rule
//! tell pageable from pinned copies. Each reader gives its own enums' labels.

/// A source's labels of copy kinds and memory kinds, by enum id.
pub(crate) struct CopyEnums {
    /// Copy kinds (`HtoD`, …).
    pub(crate) kinds: &'static [&'static str],
    /// Memory kinds (`Pageable`, …).
    pub(crate) memory: &'static [&'static str],
    /// The id of pageable host memory among them.
    pub(crate) pageable: i64,
}

impl CopyEnums {
    /// The name of a copy of kind `kind` from memory `src` to memory `dst` (ids; one without a
    /// label is named by its id, a memory kind without one `Unknown`).
    pub(crate) fn name(&self, kind: i64, src: i64, dst: i64) -> String {
        let label =
            |table: &'static [&'static str], id: i64| usize::try_from(id).ok().and_then(|i| table.get(i)).copied();
        let mut name = match label(self.kinds, kind) {
            Some(label) => format!("CUDA memcpy {label}"),
            None => format!("CUDA memcpy kind {kind}"),
        };
        if src == self.pageable || dst == self.pageable {
            let memory = |id: i64| label(self.memory, id).unwrap_or("Unknown");
            name.push_str(&format!(" ({} -> {})", memory(src), memory(dst)));
        }
        name
    }
}
