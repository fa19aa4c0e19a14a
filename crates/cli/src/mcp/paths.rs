//! Which files the read-only tools may open: paths inside the roots the client declares (MCP
//! `roots/list`), else inside the directory `prof mcp` was started in; anything else is refused
//! unopened, so no error can quote a line of a file the client should not see.

use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use std::ffi::OsString;

/// The directories a tool may read under: the roots the client declares (MCP `roots/list`,
/// `file://` URIs; asked on each call, as they may change), else the directory `prof mcp` was
/// started in (where the client runs it: its project).
#[allow(deprecated)] // roots are deprecated by SEP-2577 but still what clients declare
pub(super) async fn readable_roots(
    ctx: &RequestContext<RoleServer>,
) -> Result<Vec<std::path::PathBuf>, CallToolResult> {
    let declares = ctx.peer.peer_info().is_some_and(|info| info.capabilities.roots.is_some());
    let mut roots = Vec::new();
    if declares {
        let listed = tokio::time::timeout(std::time::Duration::from_secs(5), ctx.peer.list_roots()).await;
        if let Ok(Ok(listed)) = listed {
            for root in listed.roots {
                let Some(path) = root.uri.strip_prefix("file://") else { continue };
                let path = percent_decoded(path);
                if let Ok(found) = std::fs::canonicalize(&path) {
                    roots.push(found);
                }
            }
        }
    }
    if roots.is_empty() {
        let here = std::env::current_dir().and_then(std::fs::canonicalize).map_err(|e| {
            CallToolResult::error(vec![ContentBlock::text(format!(
                "not read: the server's working directory is unusable ({e})"
            ))])
        })?;
        roots.push(here);
    }
    Ok(roots)
}

/// `%20` and the like in a `file://` URI's path.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = bytes.get(at + 1..at + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[at], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                at += 3;
            }
            (byte, _) => {
                out.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The artifact `path` a tool may read: a path inside one of `roots` ([`readable_roots`]), after
/// links are resolved (a relative path is taken from the server's working directory). Anything
/// else (`/etc`, `../..`, a link out of the project) is refused without being opened, so no
/// error can quote a line of a file the client should not see.
pub(super) fn inside_roots(path: &str, roots: &[std::path::PathBuf]) -> Result<OsString, CallToolResult> {
    let refuse = |why: String| CallToolResult::error(vec![ContentBlock::text(why)]);
    let root = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .map_err(|e| refuse(format!("not read: the server's working directory is unusable ({e})")))?;
    // The nearest ancestor that exists, resolved, with the rest appended: a missing file inside
    // the project is left to prof, which says it is missing.
    let joined = root.join(path);
    let mut rest = Vec::new();
    let mut at = joined.as_path();
    let resolved = loop {
        match std::fs::canonicalize(at) {
            Ok(found) => break rest.iter().rev().fold(found, |p: std::path::PathBuf, part| p.join(part)),
            Err(_) => match (at.parent(), at.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_owned());
                    at = parent;
                }
                _ => return Err(refuse(format!("not read: {path}: no such file"))),
            },
        }
    };
    if rest.iter().any(|part| part == ".." || part == ".") {
        return Err(refuse(format!("not read: {path}: name it without `..` past a missing directory")));
    }
    if !roots.iter().any(|root| resolved.starts_with(root)) {
        let shown: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
        return Err(refuse(format!(
            "not read: {path} is outside the directory prof mcp serves ({}); start prof mcp in the project that \
             holds the artifact (or declare its directory as a root), or copy it there",
            shown.join(", ")
        )));
    }
    Ok(resolved.into_os_string())
}
