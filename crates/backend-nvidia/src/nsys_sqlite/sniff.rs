//! What a file given as an nsys SQLite export really is, decided from its name and first
//! bytes before SQLite opens it: an nsys report or capture stream given by mistake, an empty
//! or text file, another binary, or an SQLite database cut short. Each gets an error that
//! says what the file is and the command that makes the export.

use prof_core::{Error, Result};
use std::io::Read;
use std::path::Path;

pub use prof_timeline::sniff::SQLITE_MAGIC;

/// The length of the SQLite database header.
const HEADER_LEN: usize = 100;

/// Checks `path` looks like a whole SQLite database before it is opened.
pub fn check_file(path: &Path) -> Result<()> {
    match extension(path).as_deref() {
        Some("nsys-rep" | "qdrep") => return Err(report_given(path)),
        Some("qdstrm") => return Err(stream_given(path)),
        _ => {}
    }
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if len == 0 {
        return Err(whole(path, "is empty (0 bytes), not an nsys SQLite export"));
    }
    let mut head = Vec::with_capacity(HEADER_LEN);
    file.by_ref().take(HEADER_LEN as u64).read_to_end(&mut head).map_err(|e| Error::io(path, e))?;
    if !head.starts_with(SQLITE_MAGIC) {
        return Err(whole(
            path,
            format!("{}, not an nsys SQLite export (`nsys export --type sqlite`)", describe(&head)),
        ));
    }
    let Some(expected) = declared_size(&head) else {
        if head.len() < HEADER_LEN {
            return Err(truncated(path, format!("its {len}-byte SQLite header is cut short")));
        }
        return Ok(());
    };
    if len < expected {
        return Err(truncated(path, format!("its header declares {expected} bytes but the file has {len}")));
    }
    Ok(())
}

/// The database size the header declares (page size × page count), when the header says
/// its page count is valid (the "version-valid-for" number equals the change counter).
fn declared_size(head: &[u8]) -> Option<u64> {
    let u32_at = |at: usize| head.get(at..at + 4).and_then(|b| b.try_into().ok()).map(u32::from_be_bytes);
    let raw_page = head.get(16..18).and_then(|b| b.try_into().ok()).map(u16::from_be_bytes)?;
    let page_size = if raw_page == 1 { 65_536 } else { u64::from(raw_page) };
    let pages = u32_at(28)?;
    (u32_at(24)? == u32_at(92)? && pages > 0).then(|| page_size * u64::from(pages))
}

/// A short description of a file that is not SQLite, from its first bytes.
fn describe(head: &[u8]) -> String {
    let text = match std::str::from_utf8(head) {
        Ok(text) => Some(text),
        Err(e) if e.error_len().is_none() => head.get(..e.valid_up_to()).and_then(|b| std::str::from_utf8(b).ok()),
        Err(_) => None,
    };
    match text {
        Some(text) if text.chars().all(|c| !c.is_control() || c.is_ascii_whitespace()) => {
            let first = text.lines().next().unwrap_or("").trim();
            let shown: String = first.chars().take(40).collect();
            format!("is a text file (it starts `{shown}`)")
        }
        _ => {
            let bytes: Vec<String> = head.iter().take(8).map(|b| format!("{b:02x}")).collect();
            format!("is not an SQLite database (it starts with bytes {})", bytes.join(" "))
        }
    }
}

/// The lower-cased extension of `path`, `nsys-rep` for `x.nsys-rep`.
pub fn extension(path: &Path) -> Option<String> {
    path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase())
}

/// The exact command that exports the report `report` to SQLite beside it.
pub fn export_command(report: &Path) -> String {
    format!("nsys export --type sqlite -o {} {}", report.with_extension("sqlite").display(), report.display())
}

fn report_given(path: &Path) -> Error {
    whole(
        path,
        format!("is an Nsight Systems report, not its SQLite export; convert it with: {}", export_command(path)),
    )
}

fn stream_given(path: &Path) -> Error {
    let report = path.with_extension("nsys-rep");
    whole(
        path,
        format!(
            "is an nsys capture stream (.qdstrm) that was never turned into a report; import it with \
             `QdstrmImporter -i {}` (in the host-linux-x64 directory of a full Nsight Systems install), \
             then: {}",
            path.display(),
            export_command(&report)
        ),
    )
}

fn truncated(path: &Path, why: String) -> Error {
    whole(path, format!("is a truncated SQLite database ({why}); copy or export it again"))
}

fn whole(path: &Path, reason: impl Into<String>) -> Error {
    Error::artifact(path, 0, reason)
}
