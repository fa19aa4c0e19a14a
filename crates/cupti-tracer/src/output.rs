//! Where a process's trace goes when `PROF_CUPTI_OUT` names one file.

use crate::error::TracerError;
use crate::format::Header;
use std::fs::File;
use std::path::{Path, PathBuf};

/// Opens this process's trace file. A file another live process is writing (one `PROF_CUPTI_OUT`
/// file inherited by a child that also starts CUDA, as torch.compile's workers do) is left to
/// it: this process writes `<stem>-<pid>.pcupti` beside it instead, and says so. A file whose
/// writer has exited (an earlier run's) is replaced.
pub(crate) fn create_output(path: &Path) -> Result<(File, PathBuf), TracerError> {
    let error = |path: &Path| {
        let path = path.to_owned();
        move |source| TracerError::Output { path, source }
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(error(path))?;
    }
    let create_new = |p: &Path| std::fs::OpenOptions::new().write(true).create_new(true).open(p);
    match create_new(path) {
        Ok(file) => return Ok((file, path.to_owned())),
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(error(path)(e)),
        Err(_) => {}
    }
    let writer = std::fs::read(path).ok().and_then(|bytes| Header::decode(&bytes).ok()).map(|h| h.pid);
    let me = std::process::id();
    let alive = writer.is_some_and(|pid| pid != me && Path::new(&format!("/proc/{pid}")).exists());
    if !alive {
        return File::create(path).map(|f| (f, path.to_owned())).map_err(error(path));
    }
    let stem = path.file_stem().map_or_else(|| "prof-cupti".into(), |s| s.to_string_lossy().into_owned());
    let sibling = path.with_file_name(format!("{stem}-{me}.pcupti"));
    crate::messages::note(&format!(
        "{} is being written by process {}; this process ({me}) writes {}",
        path.display(),
        writer.unwrap_or(0),
        sibling.display()
    ));
    File::create(&sibling).map(|f| (f, sibling.clone())).map_err(error(&sibling))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header_of(pid: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        Header { pid, rank: -1, local_rank: -1, t0: 0 }.encode(&mut bytes);
        bytes
    }

    #[test]
    fn a_file_a_live_process_writes_is_left_to_it() {
        let dir = std::env::temp_dir().join(format!("prof-cupti-output-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("one.pcupti");
        let (_, got) = create_output(&path).unwrap();
        assert_eq!(got, path, "a new file is this process's");
        std::fs::write(&path, header_of(1)).unwrap(); // pid 1 is alive and not this process
        let (_, got) = create_output(&path).unwrap();
        assert_eq!(got, dir.join(format!("one-{}.pcupti", std::process::id())));
        assert_eq!(std::fs::read(&path).unwrap(), header_of(1), "the live writer's file is untouched");
        std::fs::write(&path, header_of(u32::MAX - 7)).unwrap(); // no such process
        let (_, got) = create_output(&path).unwrap();
        assert_eq!(got, path, "a dead writer's file is replaced");
        assert!(std::fs::read(&path).unwrap().is_empty());
        std::fs::write(&path, b"not a trace").unwrap();
        assert_eq!(create_output(&path).unwrap().1, path, "an unreadable file is replaced");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
