//! Finding and querying vendor tools: programs on PATH or in known install
//! directories, shared libraries in the loader's search path, and short
//! synchronous runs (`nvidia-smi --query-gpu`, `ncu --version`) bounded by a timeout.
//! Version queries answer from the [`crate::tool_cache`] when the same file answered before.

use crate::tool_cache::{ToolCache, ToolIdentity};
use prof_timeline::error::{Error, Result};
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Finds `name` on `PATH`, then in each of `extra_dirs` (install locations that are
/// often off PATH, such as `/usr/local/cuda/bin`). Returns the first executable file.
pub fn find_program(name: &str, extra_dirs: &[PathBuf]) -> Option<PathBuf> {
    let path_dirs = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
    path_dirs.iter().chain(extra_dirs).map(|dir| dir.join(name)).find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    path.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

/// Expands one trailing-`*` pattern per path component, as in
/// `/opt/nvidia/nsight-systems/*/bin`: install directories that carry a version.
/// Results are sorted newest-name-last so callers can prefer the last.
pub fn expand_versioned_dir(pattern: &str) -> Vec<PathBuf> {
    let mut current = vec![PathBuf::from("/")];
    for component in Path::new(pattern).components().skip(1) {
        let part = component.as_os_str().to_string_lossy();
        let mut next = Vec::new();
        for base in &current {
            if let Some(prefix) = part.strip_suffix('*') {
                let Ok(entries) = std::fs::read_dir(base) else { continue };
                let mut matches: Vec<PathBuf> = entries
                    .filter_map(|e| e.ok())
                    .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                    .map(|e| e.path())
                    .collect();
                matches.sort();
                next.extend(matches);
            } else {
                let candidate = base.join(part.as_ref());
                if candidate.exists() {
                    next.push(candidate);
                }
            }
        }
        current = next;
    }
    current
}

/// Finds a shared library whose file name starts with `stem` (`libcupti.so`) in
/// `LD_LIBRARY_PATH` and then `dirs`. Returns the path as found and the resolved
/// file (symlinks followed), whose name usually carries the version.
pub fn find_library(stem: &str, dirs: &[PathBuf]) -> Option<(PathBuf, PathBuf)> {
    let env_dirs =
        std::env::var_os("LD_LIBRARY_PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
    for dir in env_dirs.iter().chain(dirs) {
        let exact = dir.join(stem);
        let found = if exact.exists() {
            Some(exact)
        } else {
            std::fs::read_dir(dir).ok().and_then(|entries| {
                let mut names: Vec<PathBuf> = entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| p.file_name().map(|n| n.to_string_lossy().starts_with(stem)).unwrap_or(false))
                    .collect();
                names.sort();
                names.into_iter().next()
            })
        };
        if let Some(path) = found {
            let resolved = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            return Some((path, resolved));
        }
    }
    None
}

/// The version a library file name carries after `.so.` (`libcupti.so.2025.3.1` → `2025.3.1`).
pub fn library_version(resolved: &Path) -> Option<String> {
    let name = resolved.file_name()?.to_string_lossy().into_owned();
    let (_, version) = name.split_once(".so.")?;
    (!version.is_empty()).then(|| version.to_owned())
}

/// The first dotted version number in `text` (`Version 2025.3.1.0 (build …)` → `2025.3.1.0`).
pub fn first_version(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()) {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            let candidate = text[start..i].trim_end_matches('.');
            if candidate.contains('.') {
                return Some(candidate.to_owned());
            }
        }
        i += 1;
    }
    None
}

/// What a short tool run printed.
#[derive(Debug, Clone)]
pub struct ToolOutput {
    /// Exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// Standard output, lossily decoded.
    pub stdout: String,
    /// Standard error, lossily decoded.
    pub stderr: String,
}

impl ToolOutput {
    /// True when the tool exited 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// `spawn()` (a process start), tried again a few times (10 ms apart) while the executable is
/// busy (`ETXTBSY`): a program written a moment ago is busy for as long as any process that
/// forked meanwhile (another thread's child, before its exec) still holds the writer's
/// descriptor. For `std` and `tokio` commands alike.
pub fn spawn_when_free<T>(mut spawn: impl FnMut() -> std::io::Result<T>) -> std::io::Result<T> {
    let mut tries = 0;
    loop {
        match spawn() {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && tries < 20 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            spawned => return spawned,
        }
    }
}

/// Runs `program args…` to completion in its own process group, capturing its output;
/// past `timeout` the whole group is killed and [`Error::TimedOut`] returned.
/// For quick queries only (version, device list); captures go through the supervisor.
pub fn run_tool<I, S>(program: &Path, args: I, timeout: Duration) -> Result<ToolOutput>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
    let display = program.display().to_string();
    let mut command = Command::new(program);
    command.args(&args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let mut child =
        spawn_when_free(|| command.spawn()).map_err(|source| Error::Spawn { program: display.clone(), source })?;
    let pgid = child.id() as i32;
    let mut stdout = child.stdout.take().expect("stdout piped");
    let mut stderr = child.stderr.take().expect("stderr piped");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    // A blocking wait on its own thread answers the moment the tool exits (a polling loop
    // would add up to its sleep to every query, and `prof detect` makes several).
    let (exited, exit) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = exited.send(child.wait());
    });
    let status = match exit.recv_timeout(timeout) {
        Ok(Ok(status)) => status,
        Ok(Err(source)) => return Err(Error::Spawn { program: display, source }),
        Err(_) => {
            crate::process_group::kill_group(pgid, libc::SIGKILL);
            let _ = waiter.join();
            return Err(Error::TimedOut { program: display, limit: timeout, log: PathBuf::from("(captured)") });
        }
    };
    // Reap anything the tool left in its group so our readers see EOF.
    crate::process_group::kill_group(pgid, libc::SIGKILL);
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    Ok(ToolOutput {
        code: status.code(),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    })
}

/// The arguments of a version query.
const VERSION_QUERY: &str = "--version";

/// Runs `program --version` within `timeout` and returns the first dotted version it prints,
/// answering from the user's [`ToolCache`] when this very file answered before.
/// The error is a one-line problem naming the tool (`ncu --version did not answer within 3s`).
pub fn query_version(tool: &str, program: &Path, timeout: Duration) -> std::result::Result<String, String> {
    query_version_with(&ToolCache::from_env(), tool, program, timeout)
}

/// [`query_version`] with an explicit `cache`. Only a query that gave a version is cached (its
/// stdout, parsed again on each hit); failures and time-outs run again next time. The answer is
/// stored only when the file is unchanged across the run, so one replaced mid-query is not.
pub(crate) fn query_version_with(
    cache: &ToolCache,
    tool: &str,
    program: &Path,
    timeout: Duration,
) -> std::result::Result<String, String> {
    let identity = ToolIdentity::of(program);
    let cached = identity.as_ref().and_then(|id| cache.lookup(id, VERSION_QUERY));
    if let Some(version) = cached.as_deref().and_then(first_version) {
        return Ok(version);
    }
    let output = run_tool(program, [VERSION_QUERY], timeout).map_err(|e| match e {
        Error::TimedOut { limit, .. } => {
            format!("{tool} {VERSION_QUERY} did not answer within {limit:?}; version unknown")
        }
        other => format!("{tool} {VERSION_QUERY}: {other}"),
    })?;
    let text = format!("{}{}", output.stdout, output.stderr);
    if !output.success() {
        let status = output.code.map(|c| format!("status {c}")).unwrap_or_else(|| "a signal".to_owned());
        return Err(format!("{tool} {VERSION_QUERY} exited with {status}: {}", first_line(&text)));
    }
    let version = first_version(&output.stdout).ok_or_else(|| {
        Error::tool_output(
            format!("{tool} {VERSION_QUERY}"),
            1,
            format!("no version number in `{}`", first_line(&text)),
        )
        .to_string()
    })?;
    if let Some(id) = identity.filter(|id| ToolIdentity::of(program).as_ref() == Some(id)) {
        let _ = cache.store(&id, VERSION_QUERY, &output.stdout);
    }
    Ok(version)
}

/// The first non-empty line of `text`, trimmed, for one-line messages.
pub fn first_line(text: &str) -> &str {
    text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("(no output)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_from_real_tool_banners() {
        let ncu = "NVIDIA (R) Nsight Compute Command Line Profiler\nCopyright (c) 2018-2025 NVIDIA Corporation\nVersion 2025.3.1.0 (build 36398880) (public-release)\n";
        assert_eq!(first_version(ncu).as_deref(), Some("2025.3.1.0"));
        assert_eq!(first_version("NVIDIA Nsight Systems version 2025.3.1.0\n").as_deref(), Some("2025.3.1.0"));
        assert_eq!(first_version("no version here 42"), None);
        assert_eq!(library_version(Path::new("/x/libcupti.so.2025.3.1")).as_deref(), Some("2025.3.1"));
        assert_eq!(library_version(Path::new("/x/libcupti.so")), None);
    }

    #[test]
    fn run_tool_captures_and_times_out() {
        use std::time::Instant;
        let out = run_tool(Path::new("/bin/echo"), ["hello"], Duration::from_secs(5)).unwrap();
        assert!(out.success());
        assert_eq!(out.stdout, "hello\n");
        let started = Instant::now();
        let err = run_tool(Path::new("/bin/sleep"), ["30"], Duration::from_millis(200)).unwrap_err();
        assert!(matches!(err, Error::TimedOut { .. }), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    /// A program still open for writing (as it is in a child forked by another thread before
    /// its exec) is busy: it starts once the writer lets go, not with `ETXTBSY`.
    #[test]
    fn a_program_busy_for_a_moment_starts_once_released() {
        let (dir, _) = script_dir("busy");
        let path = dir.join("busy");
        let mut writer = std::fs::File::create(&path).unwrap();
        std::io::Write::write_all(&mut writer, b"#!/bin/sh\necho started\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let busy = Command::new(&path).spawn().map(|mut child| child.wait()).unwrap_err();
        assert_eq!(busy.raw_os_error(), Some(libc::ETXTBSY), "the program is busy while open for writing");
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(40));
            drop(writer);
        });
        let out = run_tool(&path, [] as [&str; 0], Duration::from_secs(5)).unwrap();
        assert_eq!(out.stdout, "started\n");
        releaser.join().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A fresh directory with a helper that writes executable `#!/bin/sh` scripts into it.
    fn script_dir(label: &str) -> (PathBuf, impl Fn(&str, &str) -> PathBuf) {
        let dir = std::env::temp_dir().join(format!("prof-core-tools-{label}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let at = dir.clone();
        let script = move |name: &str, body: &str| {
            let path = at.join(name);
            std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            path
        };
        (dir, script)
    }

    #[test]
    fn version_queries() {
        let (dir, script) = script_dir("versions");
        let query = |tool: &str, path: &Path, timeout| query_version_with(&ToolCache::disabled(), tool, path, timeout);
        let timeout = Duration::from_secs(3);
        // The H200's `nsys --version` (tests/fixtures/nvidia/h200-detect/nsys-version.txt).
        let recorded = script("nsys", "echo 'NVIDIA Nsight Systems version 2025.3.1.0'");
        assert_eq!(query("nsys", &recorded, timeout).as_deref(), Ok("2025.3.1.0"));
        let silent = script("noversion", "echo 'no version here'");
        let err = query("noversion", &silent, timeout).unwrap_err();
        assert_eq!(err, "noversion --version: unexpected output at line 1: no version number in `no version here`");
        let failing = script("failing", "echo 'unknown option' >&2; exit 3");
        let err = query("failing", &failing, timeout).unwrap_err();
        assert_eq!(err, "failing --version exited with status 3: unknown option");
        let hanging = script("hanging", "sleep 30");
        let err = query("hanging", &hanging, Duration::from_millis(300)).unwrap_err();
        assert_eq!(err, "hanging --version did not answer within 300ms; version unknown");
        std::fs::remove_dir_all(&dir).unwrap();
        let err = query("missing", Path::new("/nonexistent/ncu"), timeout).unwrap_err();
        assert!(err.starts_with("missing --version: could not start /nonexistent/ncu"), "{err}");
    }

    #[test]
    fn cached_version_query_runs_the_tool_once_per_file() {
        let (dir, script) = script_dir("cached");
        let cache = ToolCache::at(dir.join("cache/prof/tool-versions.json"));
        let runs = dir.join("runs");
        let counting =
            |version: &str| format!("echo run >> '{}'; echo 'NVIDIA Nsight Systems version {version}'", runs.display());
        let count = || std::fs::read_to_string(&runs).map(|t| t.lines().count()).unwrap_or(0);
        let nsys = script("nsys", &counting("2025.3.1.0"));
        let timeout = Duration::from_secs(3);
        assert_eq!(query_version_with(&cache, "nsys", &nsys, timeout).as_deref(), Ok("2025.3.1.0"));
        assert_eq!(query_version_with(&cache, "nsys", &nsys, timeout).as_deref(), Ok("2025.3.1.0"));
        assert_eq!(count(), 1, "the second query is answered from the cache");
        // An upgrade in place (same path and inode, another size): the new file is queried again.
        let nsys = script("nsys", &counting("2025.10.1.0"));
        assert_eq!(query_version_with(&cache, "nsys", &nsys, timeout).as_deref(), Ok("2025.10.1.0"));
        assert_eq!(count(), 2);
        // A failure is never cached: a failing tool runs every time.
        let failing = script("failing", &format!("echo run >> '{}'; exit 3", runs.display()));
        assert!(query_version_with(&cache, "failing", &failing, timeout).is_err());
        assert!(query_version_with(&cache, "failing", &failing, timeout).is_err());
        assert_eq!(count(), 4);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn finds_programs_in_extra_dirs() {
        assert!(find_program("sh", &[]).is_some());
        assert!(find_program("definitely-not-a-tool-xyz", &[PathBuf::from("/bin")]).is_none());
        assert!(expand_versioned_dir("/usr/l*").iter().any(|p| p.ends_with("lib")));
    }
}
