//! A minimal HTTP/1.1 client over tokio's `TcpStream`, enough for health checks and the
//! built-in load generator: one request per connection (`Connection: close`), responses
//! framed by `Content-Length`, `Transfer-Encoding: chunked`, or the end of the connection.
//! Plain `http://` only; a body is counted, not kept.

use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The largest response head accepted.
const MAX_HEAD: usize = 64 * 1024;

/// An `http://host:port/path` address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    /// Host name or address, as written (brackets of an IPv6 address removed).
    pub host: String,
    /// Port (80 when not written).
    pub port: u16,
    /// Path with query, starting with `/`.
    pub path: String,
    /// The URL as given, for messages.
    pub text: String,
}

impl Url {
    /// Parses `http://host[:port][/path]`; other schemes are refused with the reason.
    pub fn parse(text: &str) -> Result<Self, String> {
        let rest = text.strip_prefix("http://").ok_or_else(|| {
            if text.starts_with("https://") {
                format!("`{text}`: https is not supported; point prof at the server's plain http port")
            } else {
                format!("`{text}` is not an http:// URL")
            }
        })?;
        let (authority, path) = rest.find('/').map_or((rest, "/"), |i| (&rest[..i], &rest[i..]));
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (host, after) = v6.split_once(']').ok_or_else(|| format!("`{text}`: unclosed [ in the host"))?;
            (host, after.strip_prefix(':'))
        } else {
            match authority.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (authority, None),
            }
        };
        if host.is_empty() {
            return Err(format!("`{text}` has no host"));
        }
        let port = match port {
            Some(port) => port.parse::<u16>().map_err(|_| format!("`{text}`: `{port}` is not a port number"))?,
            None => 80,
        };
        Ok(Self { host: host.to_owned(), port, path: path.to_owned(), text: text.to_owned() })
    }
}

/// What came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Body length in bytes (after de-chunking).
    pub body_bytes: u64,
}

impl Response {
    /// True for a 2xx status.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Sends one request (`GET` without a body, `POST` with one) and reads the whole response,
/// all within `timeout`.
pub async fn send(url: &Url, body: Option<&[u8]>, timeout: Duration) -> Result<Response, String> {
    match tokio::time::timeout(timeout, exchange(url, body)).await {
        Ok(result) => result,
        Err(_) => Err(format!("no complete response within {:.1} s", timeout.as_secs_f64())),
    }
}

async fn exchange(url: &Url, body: Option<&[u8]>) -> Result<Response, String> {
    let mut stream =
        TcpStream::connect((url.host.as_str(), url.port)).await.map_err(|e| format!("cannot connect: {e}"))?;
    let head = request_head(url, body.map(<[u8]>::len));
    stream.write_all(head.as_bytes()).await.map_err(|e| format!("cannot send the request: {e}"))?;
    if let Some(body) = body {
        stream.write_all(body).await.map_err(|e| format!("cannot send the request body: {e}"))?;
    }
    read_response(&mut stream).await
}

fn request_head(url: &Url, body_len: Option<usize>) -> String {
    let host = if url.host.contains(':') { format!("[{}]", url.host) } else { url.host.clone() };
    let mut head = match body_len {
        Some(len) => format!(
            "POST {} HTTP/1.1\r\nHost: {host}:{}\r\nContent-Type: application/json\r\nContent-Length: {len}\r\n",
            url.path, url.port
        ),
        None => format!("GET {} HTTP/1.1\r\nHost: {host}:{}\r\n", url.path, url.port),
    };
    head.push_str("User-Agent: prof-serve\r\nAccept: */*\r\nConnection: close\r\n\r\n");
    head
}

/// How the body of a response is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    Length(u64),
    Chunked,
    UntilClose,
}

/// The status line and the headers that matter for framing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Head {
    status: u16,
    framing: Framing,
}

fn parse_head(head: &[u8]) -> Result<Head, String> {
    let text = std::str::from_utf8(head).map_err(|_| "the response head is not text".to_owned())?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    if !version.starts_with("HTTP/1.") {
        return Err(format!("not an HTTP/1.x response: `{}`", status_line.chars().take(80).collect::<String>()));
    }
    let status = parts
        .next()
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or_else(|| format!("no status code in `{status_line}`"))?;
    let mut framing = Framing::UntilClose;
    for line in lines.filter(|l| !l.is_empty()) {
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("malformed header line `{line}`"));
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("transfer-encoding") && value.to_ascii_lowercase().contains("chunked") {
            framing = Framing::Chunked;
        } else if name.eq_ignore_ascii_case("content-length") && framing != Framing::Chunked {
            let length = value.parse::<u64>().map_err(|_| format!("bad Content-Length `{value}`"))?;
            framing = Framing::Length(length);
        }
    }
    if status == 204 || status == 304 || (100..200).contains(&status) {
        framing = Framing::Length(0);
    }
    Ok(Head { status, framing })
}

/// Decodes a chunked body incrementally: fed the whole buffer each time, it resumes where
/// it stopped, so a long body is scanned once.
#[derive(Debug, Default)]
struct Chunked {
    pos: usize,
    /// Data bytes still to skip in the current chunk (plus its CRLF).
    remaining: u64,
    body_bytes: u64,
    in_trailers: bool,
}

impl Chunked {
    /// True once the final chunk and the trailers are complete.
    fn feed(&mut self, buf: &[u8]) -> Result<bool, String> {
        loop {
            if self.remaining > 0 {
                let available = (buf.len() - self.pos) as u64;
                let step = available.min(self.remaining);
                self.pos += step as usize;
                self.remaining -= step;
                if self.remaining > 0 {
                    return Ok(false);
                }
            }
            let Some(end) = buf[self.pos..].windows(2).position(|w| w == b"\r\n") else {
                if buf.len() - self.pos > MAX_HEAD {
                    return Err("a chunk-size or trailer line is too long".to_owned());
                }
                return Ok(false);
            };
            let line = &buf[self.pos..self.pos + end];
            self.pos += end + 2;
            if self.in_trailers {
                if line.is_empty() {
                    return Ok(true);
                }
                continue;
            }
            let text = String::from_utf8_lossy(line);
            let size_text = text.split(';').next().unwrap_or_default().trim();
            let size = u64::from_str_radix(size_text, 16).map_err(|_| format!("bad chunk size `{size_text}`"))?;
            if size == 0 {
                self.in_trailers = true;
                continue;
            }
            self.body_bytes += size;
            self.remaining = size + 2;
        }
    }
}

async fn read_more(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<usize, String> {
    let mut chunk = [0u8; 16 * 1024];
    let n = stream.read(&mut chunk).await.map_err(|e| format!("cannot read the response: {e}"))?;
    buf.extend_from_slice(&chunk[..n]);
    Ok(n)
}

async fn read_response(stream: &mut TcpStream) -> Result<Response, String> {
    let mut buf = Vec::new();
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > MAX_HEAD {
            return Err(format!("the response head is over {MAX_HEAD} bytes"));
        }
        if read_more(stream, &mut buf).await? == 0 {
            return Err("the server closed the connection before a complete response head".to_owned());
        }
    };
    let head = parse_head(&buf[..head_end])?;
    let body_bytes = match head.framing {
        Framing::Length(length) => {
            let mut have = (buf.len() - head_end) as u64;
            buf.clear();
            while have < length {
                let n = read_more(stream, &mut buf).await?;
                buf.clear();
                if n == 0 {
                    return Err(format!("the body ended after {have} of {length} bytes (Content-Length)"));
                }
                have += n as u64;
            }
            length
        }
        Framing::Chunked => {
            let mut body = buf.split_off(head_end);
            let mut decoder = Chunked::default();
            while !decoder.feed(&body)? {
                if read_more(stream, &mut body).await? == 0 {
                    return Err("the chunked body ended before its last chunk".to_owned());
                }
            }
            decoder.body_bytes
        }
        Framing::UntilClose => {
            let mut have = (buf.len() - head_end) as u64;
            buf.clear();
            loop {
                let n = read_more(stream, &mut buf).await?;
                buf.clear();
                if n == 0 {
                    break have;
                }
                have += n as u64;
            }
        }
    };
    Ok(Response { status: head.status, body_bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_and_other_schemes_are_refused() {
        let url = Url::parse("http://127.0.0.1:8000/v1/health?x=1").unwrap();
        assert_eq!((url.host.as_str(), url.port, url.path.as_str()), ("127.0.0.1", 8000, "/v1/health?x=1"));
        assert_eq!(Url::parse("http://localhost").unwrap().path, "/");
        assert_eq!(Url::parse("http://[::1]:9/").unwrap().host, "::1");
        assert!(Url::parse("https://x/").unwrap_err().contains("https is not supported"));
        assert!(Url::parse("localhost:80").unwrap_err().contains("not an http:// URL"));
        assert!(Url::parse("http://x:99999/").unwrap_err().contains("not a port number"));
    }

    #[test]
    fn heads_give_status_and_framing() {
        let head = parse_head(b"HTTP/1.0 200 OK\r\nServer: SimpleHTTP/0.6\r\nContent-Length: 12\r\n\r\n").unwrap();
        assert_eq!(head, Head { status: 200, framing: Framing::Length(12) });
        let head = parse_head(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n").unwrap();
        assert_eq!(head.framing, Framing::Chunked, "chunked wins over a length");
        assert_eq!(parse_head(b"HTTP/1.1 503 Unavailable\r\n\r\n").unwrap().framing, Framing::UntilClose);
        assert_eq!(parse_head(b"HTTP/1.1 204 No Content\r\n\r\n").unwrap().framing, Framing::Length(0));
        assert!(parse_head(b"SSH-2.0-OpenSSH\r\n\r\n").unwrap_err().contains("not an HTTP/1.x response"));
        assert!(parse_head(b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n")
            .unwrap_err()
            .contains("bad Content-Length"));
    }

    #[test]
    fn chunked_bodies_decode_across_reads() {
        let body = b"4;ext=1\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-Trailer: 1\r\n\r\n";
        let mut decoder = Chunked::default();
        for cut in [3, 10, 20, 40] {
            assert!(!decoder.feed(&body[..cut]).unwrap(), "incomplete at {cut}");
        }
        assert!(decoder.feed(body).unwrap());
        assert_eq!(decoder.body_bytes, 4 + 5 + 14);
        assert!(Chunked::default().feed(b"zz\r\n").unwrap_err().contains("bad chunk size"));
    }

    #[test]
    fn a_request_gets_its_response_from_a_real_socket() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            use std::io::{Read, Write};
            let (mut conn, _) = listener.accept().unwrap();
            let mut seen = Vec::new();
            let mut buf = [0u8; 1024];
            while !seen.windows(7).any(|w| w == b"{\"a\":1}") {
                let n = conn.read(&mut buf).unwrap();
                seen.extend_from_slice(&buf[..n]);
            }
            conn.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n").unwrap();
            String::from_utf8(seen).unwrap()
        });
        let runtime = prof_capture::supervisor::runtime().unwrap();
        let url = Url::parse(&format!("http://127.0.0.1:{port}/generate")).unwrap();
        let response = runtime.block_on(send(&url, Some(b"{\"a\":1}"), Duration::from_secs(5))).unwrap();
        assert_eq!(response, Response { status: 200, body_bytes: 3 });
        let request = server.join().unwrap();
        assert!(request.starts_with("POST /generate HTTP/1.1\r\n"), "{request}");
        assert!(request.contains("Content-Length: 7\r\n"), "{request}");
    }
}
