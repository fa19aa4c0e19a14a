//! Test support: reading the recorded fixtures under the workspace's `tests/fixtures/nvidia`.

/// The text of `tests/fixtures/nvidia/<path>`.
pub fn fixture(path: &str) -> String {
    let full = format!("{}/../../tests/fixtures/nvidia/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// The body of one `# <title>` section of the nvidia_gpu_exporter H100 bundle: the raw tool
/// output between the section's closing `####` line and the next blank line.
pub fn bundle_section(title: &str) -> String {
    let text = fixture("smi/bundles/nvgpuexp_linux-x86_64__nvidia-h100-mig__590.48.01.txt");
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| *l == format!("# {title}")).unwrap_or_else(|| panic!("no section {title}"));
    let body_start = start + lines[start..].iter().position(|l| l.starts_with("####")).expect("section rule") + 1;
    lines[body_start..].iter().take_while(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect()
}

/// A fresh directory for one test under the system's temp directory, removed on drop. Its name
/// carries the process id and a per-process count, so tests running at the same time (in this
/// binary or another) never share one.
pub struct Scratch(pub std::path::PathBuf);

impl Scratch {
    /// Makes the empty directory; `name` only makes it recognizable.
    pub fn new(name: &str) -> Self {
        static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let count = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("prof-nvidia-test-{name}-{}-{count}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        Self(dir)
    }

    /// Writes `bytes` as the file `name` in the directory and returns its path.
    pub fn file(&self, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every real nsys SQLite export under `tests/fixtures/nvidia/nsys/sqlite`, in name order: the
/// `.sqlite` files where they are, and each `.sqlite.gz` (a larger export of this project's own
/// capture) decompressed into `scratch`.
pub fn nsys_exports(scratch: &Scratch) -> Vec<std::path::PathBuf> {
    use std::io::Read;
    let dir = format!("{}/../../tests/fixtures/nvidia/nsys/sqlite", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<std::path::PathBuf> =
        std::fs::read_dir(&dir).unwrap().map(|entry| entry.unwrap().path()).collect();
    names.sort();
    let mut exports = Vec::new();
    for path in names {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        if name.ends_with(".sqlite") {
            exports.push(path);
        } else if let Some(stem) = name.strip_suffix(".gz").filter(|s| s.ends_with(".sqlite")) {
            let mut bytes = Vec::new();
            let file = std::fs::File::open(&path).unwrap();
            flate2::read::GzDecoder::new(file).read_to_end(&mut bytes).unwrap();
            exports.push(scratch.file(stem, &bytes));
        }
    }
    exports
}
