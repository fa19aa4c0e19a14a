//! The one door every artifact goes through: [`Registry::recognize`] asks every reader of
//! every backend (and prof's own `prof util --csv` recording) how sure it is that a path is in
//! its format, and the surest wins, with the reason it won; [`Registry::load`] and
//! [`Registry::load_summary`] then load it. A directory that no reader takes but that holds
//! exactly one artifact (a `tensorboard_trace_handler` directory, `rank0/trace.json`) is read
//! as that artifact. A path nothing recognises is an error that says what the path looked like
//! and, per backend, what prof reads.

use crate::breakdown::{BreakdownTool, Importer, StreamedSummary};
use crate::deepdive::{DeepDive, KernelReport};
use crate::families::Families;
use crate::kernel_summary::{summarize_kernels, KernelSummary};
pub use crate::recognition::{Certainty, Recognition};
use crate::registry::Registry;
use crate::util_csv::UtilCsvImporter;
use crate::{Error, Result, Timeline};
use prof_timeline::sniff::describe;
use std::path::{Path, PathBuf};

/// The format a path was read as, for reports.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Format {
    /// The backend (`NVIDIA`), or `prof` for prof's own recordings.
    pub vendor: &'static str,
    /// The reader (`torch-trace`).
    pub name: &'static str,
    /// The file actually read (the one artifact of a directory), when it is not the path given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inner: Option<PathBuf>,
    /// Why it won.
    #[serde(flatten)]
    pub recognition: Recognition,
}

/// What an artifact turned out to hold.
pub enum Loaded {
    /// A timeline of device ops (most formats).
    Timeline(Box<Timeline>),
    /// Per-kernel totals only (nsys stats reports, rocprof stats, msprof op_statistic).
    Summary(KernelSummary),
    /// Single-kernel deep-dive reports (ncu pages, rocprofv3 counters).
    Kernels(Vec<KernelReport>),
}

/// One reader of the registry.
enum Reader {
    Tool(Box<dyn BreakdownTool>),
    Importer(Box<dyn Importer>),
    DeepDive(Box<dyn DeepDive>),
}

/// The reader that won, with what it saw (and, for a gzip stream no reader takes as it is,
/// the unzipped copy it reads, kept while the winner lives).
struct Winner {
    reader: Reader,
    path: PathBuf,
    format: Format,
    copy: Option<prof_timeline::gz_copy::GzCopy>,
}

impl Winner {
    /// `result` of reading the winner, its errors naming `given` where they named the copy.
    fn named<T>(&self, given: &Path, result: Result<T>) -> Result<T> {
        match (&self.copy, result) {
            (Some(copy), Err(error)) => {
                let shown = error.to_string().replace(&copy.path().display().to_string(), "the unzipped copy");
                Err(Error::artifact(given, 0, shown))
            }
            (_, result) => result,
        }
    }
}

impl Registry {
    /// Every format the registry reads, as (backend, reader) pairs in registry order.
    pub fn formats(&self) -> Vec<(&'static str, &'static str)> {
        let mut formats = Vec::new();
        for importer in builtin_importers() {
            formats.push(("prof", importer.name()));
        }
        for vendor in self.vendors() {
            formats.extend(vendor.breakdown_tools().iter().map(|t| (vendor.name(), t.name())));
            formats.extend(vendor.importers().iter().map(|i| (vendor.name(), i.name())));
            formats.extend(vendor.deep_dive().iter().map(|d| (vendor.name(), d.name())));
        }
        formats
    }

    /// [`Self::formats`] grouped by backend, in registry order.
    pub fn formats_by_vendor(&self) -> Vec<(&'static str, Vec<&'static str>)> {
        let mut by_vendor: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
        for (vendor, name) in self.formats() {
            match by_vendor.iter_mut().find(|(v, _)| *v == vendor) {
                Some((_, names)) => names.push(name),
                None => by_vendor.push((vendor, vec![name])),
            }
        }
        by_vendor
    }

    /// The format `path` is in, with the reason it won; an error says what the path looked
    /// like and what prof reads.
    pub fn recognize(&self, path: &Path) -> Result<Format> {
        self.winner(path).map(|w| w.format)
    }

    /// Loads `path` through the reader that recognises it best; per-kernel totals are ranked
    /// with `families`. A timeline whose device time overflows is an error naming the op.
    pub fn load(&self, path: &Path, families: &Families) -> Result<(Loaded, Format)> {
        let winner = self.winner(path)?;
        let file = [winner.path.clone()];
        let loaded = match &winner.reader {
            Reader::Tool(tool) => tool.load(&file).map(|t| Loaded::Timeline(Box::new(t))),
            Reader::Importer(importer) => match importer.load_summary(&winner.path, families) {
                Some(summary) => summary.map(Loaded::Summary),
                None => importer.load(&winner.path).map(|t| Loaded::Timeline(Box::new(t))),
            },
            Reader::DeepDive(tool) => tool.load(&file).map(Loaded::Kernels),
        };
        let mut loaded = winner.named(path, loaded)?;
        if winner.copy.is_some() {
            let shown = path.display().to_string();
            match &mut loaded {
                Loaded::Timeline(timeline) => timeline.source = shown,
                Loaded::Summary(summary) => summary.source = shown,
                Loaded::Kernels(_) => {}
            }
        }
        if let Loaded::Timeline(timeline) = &mut loaded {
            timeline.finish_loading().map_err(Error::Unsupported)?;
        }
        Ok((loaded, winner.format))
    }

    /// Reads `bytes` (an artifact embedded in the binary, named `name` in reports) with the
    /// importer called `format`.
    pub fn read_bytes(&self, format: &str, bytes: &[u8], name: &Path) -> Result<Timeline> {
        let importer = self.vendors().iter().flat_map(|v| v.importers()).find(|i| i.name() == format);
        let read = importer.and_then(|i| i.read_bytes(bytes, name));
        let mut timeline = read.unwrap_or_else(|| {
            Err(Error::Unsupported(format!("this build has no {format} reader for {}: give a PATH", name.display())))
        })?;
        timeline.finish_loading().map_err(Error::Unsupported)?;
        Ok(timeline)
    }

    /// The ranked kernel summary of `path` and nothing else: a reader that can aggregate while
    /// it streams (a multi-GB op table, an nsys export's device tables) does so without
    /// building the timeline; the others load and summarise.
    pub fn load_summary(&self, path: &Path, families: &Families) -> Result<(StreamedSummary, Format)> {
        let winner = self.winner(path)?;
        let streamed = match &winner.reader {
            Reader::Importer(importer) => importer.stream_summary(&winner.path, families),
            Reader::Tool(tool) => tool.stream_summary(&winner.path, families),
            Reader::DeepDive(_) => None,
        };
        if let Some(streamed) = streamed {
            let mut streamed = winner.named(path, streamed)?;
            if winner.copy.is_some() {
                streamed.summary.source = path.display().to_string();
            }
            return Ok((streamed, winner.format));
        }
        let summary = match self.load(&winner.path, families)?.0 {
            Loaded::Timeline(timeline) => summarize_kernels(&timeline, families),
            Loaded::Summary(summary) => summary,
            Loaded::Kernels(_) => {
                return Err(Error::Unsupported(format!(
                    "{}: holds single-kernel deep-dive reports, not a kernel summary; run prof analyze without \
                     --summary-only",
                    path.display()
                )))
            }
        };
        Ok((StreamedSummary { summary, op_types: None }, winner.format))
    }

    fn winner(&self, path: &Path) -> Result<Winner> {
        check_readable(path)?;
        if let Some(winner) = self.best(path) {
            return Ok(winner);
        }
        if let Some(winner) = self.unzipped(path) {
            return Ok(winner);
        }
        if let Some((run, runs)) = profile_runs::latest_run(path) {
            // A TensorBoard log directory: its latest profile run is the artifact.
            let mut winner = self.winner(&run)?;
            let of = if runs == 1 { "its one run".to_owned() } else { format!("the latest of {runs} runs") };
            winner.format.inner.get_or_insert_with(|| winner.path.clone());
            winner.format.recognition.reason = format!(
                "a TensorBoard log directory, {of} (plugins/profile/{}): {}",
                run.file_name().unwrap_or_default().to_string_lossy(),
                winner.format.recognition.reason
            );
            return Ok(winner);
        }
        if path.is_dir() {
            // Inside a directory only files read by content count (a name alone is too weak a
            // reason to pick one entry over the directory given; subdirectories are rank jobs'
            // or a vendor's walk), and the surest of them must be the only one that sure.
            let mut inner: Vec<Winner> = entries(path)
                .iter()
                .filter(|entry| entry.is_file())
                .filter_map(|entry| self.best(entry))
                .filter(|w| w.format.recognition.certainty >= Certainty::Content)
                .collect();
            let found = inner.len();
            let surest = inner.iter().map(|w| w.format.recognition.certainty).max();
            inner.retain(|w| Some(w.format.recognition.certainty) == surest);
            match inner.as_slice() {
                [_] => {
                    let mut winner = inner.into_iter().next().expect("one entry");
                    let which = if found == 1 { "only" } else { "surest" };
                    winner.format.inner = Some(winner.path.clone());
                    winner.format.recognition.reason =
                        format!("the {which} artifact in the directory: {}", winner.format.recognition.reason);
                    return Ok(winner);
                }
                [] => {}
                several => {
                    let names: Vec<String> = several
                        .iter()
                        .map(|w| {
                            format!("{} ({})", w.path.file_name().unwrap_or_default().to_string_lossy(), w.format.name)
                        })
                        .collect();
                    return Err(Error::Unsupported(format!(
                        "{}: holds {} artifacts and no rank numbers to tell them apart: {}; give one of them",
                        path.display(),
                        several.len(),
                        names.join(", ")
                    )));
                }
            }
        }
        Err(self.unrecognised(path))
    }

    /// True when some reader takes `path` itself by its content (not by its name alone, and
    /// not only an artifact inside the directory).
    pub(crate) fn reads_itself(&self, path: &Path) -> bool {
        self.best(path).is_some_and(|w| w.format.recognition.certainty >= Certainty::Content)
    }

    /// For a gzip stream that no reader takes as it is (a gzipped rocprofv3 JSON, whatever its
    /// inner name): the surest reader of its unzipped copy, by content only.
    fn unzipped(&self, path: &Path) -> Option<Winner> {
        prof_timeline::gz_copy::gzipped_with_magic(path, b"")?;
        let copy = prof_timeline::gz_copy::GzCopy::of(path, "the unzipped file").ok()?;
        let mut winner = self.best(copy.path()).filter(|w| w.format.recognition.certainty >= Certainty::Content)?;
        winner.format.recognition.reason = format!("a gzip stream of {}", winner.format.recognition.reason);
        winner.copy = Some(copy);
        Some(winner)
    }

    /// The surest reader of `path` itself (no look inside a directory).
    fn best(&self, path: &Path) -> Option<Winner> {
        let mut best: Option<Winner> = None;
        let mut offer = |vendor: &'static str, name: &'static str, seen: Option<Recognition>, reader: Reader| {
            let Some(recognition) = seen else { return };
            if best.as_ref().is_some_and(|b| b.format.recognition.certainty >= recognition.certainty) {
                return;
            }
            let format = Format { vendor, name, inner: None, recognition };
            best = Some(Winner { reader, path: path.to_owned(), format, copy: None });
        };
        for importer in builtin_importers() {
            offer("prof", importer.name(), importer.recognize(path), Reader::Importer(importer));
        }
        for vendor in self.vendors() {
            for tool in vendor.breakdown_tools() {
                offer(vendor.name(), tool.name(), tool.recognize(path), Reader::Tool(tool));
            }
            for importer in vendor.importers() {
                offer(vendor.name(), importer.name(), importer.recognize(path), Reader::Importer(importer));
            }
            if let Some(tool) = vendor.deep_dive() {
                offer(vendor.name(), tool.name(), tool.recognize(path), Reader::DeepDive(tool));
            }
        }
        best
    }

    /// "not a format prof reads", with what the path looked like and the formats per backend.
    fn unrecognised(&self, path: &Path) -> Error {
        let lines: Vec<String> =
            self.formats_by_vendor().iter().map(|(v, names)| format!("  {v}: {}", names.join(", "))).collect();
        Error::UnknownFormat { path: path.to_owned(), looks_like: describe(path), reads: lines.join("\n") }
    }
}

/// Refuses what cannot be an artifact before any reader opens it: a missing path, a broken
/// link or a link loop, a file that cannot be opened, anything that is not a regular file or a
/// directory (a FIFO would block forever, `/dev/zero` never ends), and a CSV whose lines end in
/// a bare CR (every reader would see a header and no rows).
fn check_readable(path: &Path) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let shown = path.display();
    let refuse = |what: String| Err(Error::Unsupported(format!("{shown}: {what}")));
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(error) if error.raw_os_error() == Some(libc::ELOOP) => return refuse("a loop of symbolic links".into()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let broken = std::fs::symlink_metadata(path).is_ok();
            return refuse(if broken { "a symbolic link to nothing" } else { "no such file or directory" }.into());
        }
        Err(error) => return refuse(error.to_string()),
    };
    let kind = meta.file_type();
    if kind.is_dir() {
        return Ok(());
    }
    if !kind.is_file() {
        let what = if kind.is_fifo() {
            "a FIFO (named pipe)"
        } else if kind.is_char_device() || kind.is_block_device() {
            "a device"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        };
        return refuse(format!("is {what}; prof reads artifacts from regular files and directories"));
    }
    let file =
        std::fs::File::open(path).map_err(|error| Error::Unsupported(format!("{shown}: cannot be read: {error}")))?;
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")) {
        let mut head = Vec::new();
        let _ = std::io::Read::read_to_end(&mut std::io::Read::take(file, 64 << 10), &mut head);
        if head.contains(&b'\r') && !head.contains(&b'\n') {
            let fix = format!("tr '\\r' '\\n' < {shown} > fixed.csv");
            return Err(Error::artifact(path, 1, format!("lines end in a bare CR, not LF; convert with `{fix}`")));
        }
    }
    Ok(())
}

/// The visible entries of directory `dir`, sorted.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|read| {
            read.flatten().filter(|e| !e.file_name().to_string_lossy().starts_with('.')).map(|e| e.path()).collect()
        })
        .unwrap_or_default();
    entries.sort();
    entries
}

/// prof's own formats, tried before every backend's (the `prof util --csv` recording).
fn builtin_importers() -> Vec<Box<dyn Importer>> {
    vec![Box::new(UtilCsvImporter)]
}

mod profile_runs;

#[cfg(test)]
mod tests;
