//! JAX / XLA and TensorFlow profiles: the XSpace protobuf (`*.xplane.pb`) that
//! `jax.profiler.trace` and the TensorFlow profiler write under `plugins/profile/<run>/`,
//! read into the timeline ([`space`] says how) by a wire decoder of its own ([`wire`]); no
//! protobuf library.

mod names;
mod space;
mod trace_json;
mod wire;

use prof_core::{Certainty, Error, Importer, Recognition, Result, Timeline};
use std::io::Read;
use std::path::Path;

/// Reads `*.xplane.pb` files.
#[derive(Debug, Default, Clone, Copy)]
pub struct XplaneImporter;

/// Bytes of a file's head read to tell an XSpace.
const HEAD: u64 = 64 * 1024;

/// True when `head` starts as an XSpace does: a first plane (field 1) whose name (field 2)
/// is one a profiler writes (`/device:…`, `/host:…`, `Task Environment`).
fn looks_like_xspace(head: &[u8]) -> bool {
    // The first plane may be longer than the head: read its key and length, then its fields as
    // far as the head goes.
    let mut top = wire::Fields::new(head, 0);
    let (Ok(0x0a), Ok(len)) = (top.varint(), top.varint()) else { return false };
    let at = top.offset();
    let Some(len) = usize::try_from(len).ok().filter(|&len| len > 0) else { return false };
    let plane = &head[at..head.len().min(at.saturating_add(len))];
    let mut fields = wire::Fields::new(plane, 0);
    while let Ok(Some((number, value, _))) = fields.next_field() {
        if let (2, wire::Value::Bytes(name)) = (number, value) {
            return [b"/device:".as_slice(), b"/host:", b"Task Environment"].iter().any(|p| name.starts_with(p));
        }
    }
    false
}

fn head_of(path: &Path) -> Option<Vec<u8>> {
    let mut head = Vec::new();
    std::fs::File::open(path).ok()?.take(HEAD).read_to_end(&mut head).ok()?;
    Some(head)
}

impl Importer for XplaneImporter {
    fn name(&self) -> &'static str {
        "xplane"
    }

    fn recognizes(&self, path: &Path) -> bool {
        self.recognize(path).is_some()
    }

    fn recognize(&self, path: &Path) -> Option<Recognition> {
        if !path.is_file() {
            return None;
        }
        let named = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".xplane.pb"));
        let content = head_of(path).is_some_and(|head| looks_like_xspace(&head));
        match (named, content) {
            (_, true) => Some(Recognition::new(Certainty::Signature, "an XSpace protobuf (planes /device:…, /host:…)")),
            (true, false) => Some(Recognition::new(Certainty::Name, "named *.xplane.pb")),
            _ => None,
        }
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        space::read(&bytes, path)
    }

    fn read_bytes(&self, bytes: &[u8], name: &Path) -> Option<Result<Timeline>> {
        Some(space::read(bytes, name))
    }
}

/// Reads the trace events JSON XLA's converter writes beside an XSpace (`*.trace.json.gz`,
/// `perfetto_trace.json.gz`), plain or gzipped.
#[derive(Debug, Default, Clone, Copy)]
pub struct XlaTraceImporter;

/// The file's first bytes, unzipped when it is a gzip stream.
fn json_head(path: &Path) -> Option<Vec<u8>> {
    match prof_timeline::gz_copy::gzipped_with_magic(path, b"") {
        Some((stream, mut head)) => {
            stream.take(HEAD).read_to_end(&mut head).ok()?;
            Some(head)
        }
        None => head_of(path),
    }
}

impl Importer for XlaTraceImporter {
    fn name(&self) -> &'static str {
        "xla-trace-json"
    }

    fn recognizes(&self, path: &Path) -> bool {
        self.recognize(path).is_some()
    }

    fn recognize(&self, path: &Path) -> Option<Recognition> {
        if !path.is_file() {
            return None;
        }
        json_head(path).filter(|head| trace_json::looks_like_xla_trace(head)).map(|_| {
            Recognition::new(Certainty::Signature, "XLA trace events (processes /device:…, /host:CPU; no categories)")
        })
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        let mut bytes = Vec::new();
        match prof_timeline::gz_copy::gzipped_with_magic(path, b"") {
            Some((mut stream, _)) => stream.read_to_end(&mut bytes),
            None => std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes)),
        }
        .map_err(|e| Error::io(path, e))?;
        trace_json::read(&bytes, path)
    }

    fn read_bytes(&self, bytes: &[u8], name: &Path) -> Option<Result<Timeline>> {
        Some(trace_json::read(bytes, name))
    }
}

#[cfg(test)]
mod tests;
