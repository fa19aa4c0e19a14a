//! The HTTP/1.1 client of health checks, profiler calls and the built-in load generator:
//! hyper's HTTP/1 connection over tokio's `TcpStream` (hyper frames the responses:
//! `Content-Length`, `Transfer-Encoding: chunked`, or the end of the connection), one request
//! per connection (`Connection: close`). Plain `http://` only; a body is counted, not kept.

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use std::time::Duration;
use tokio::net::TcpStream;

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

/// One request on a fresh connection, through hyper's HTTP/1 client: the connection is driven
/// on this task beside the request (nothing is spawned, so a request given up by its timeout
/// leaves no task behind), and the body is counted frame by frame, not kept.
async fn exchange(url: &Url, body: Option<&[u8]>) -> Result<Response, String> {
    let stream = TcpStream::connect((url.host.as_str(), url.port)).await.map_err(|e| format!("cannot connect: {e}"))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
        .await
        .map_err(|e| format!("cannot start HTTP on the connection: {e}"))?;
    let request = request(url, body)?;
    let answer = async move {
        let response = sender.send_request(request).await.map_err(|e| format!("no response: {e}"))?;
        let status = response.status().as_u16();
        let mut body = response.into_body();
        let mut body_bytes = 0u64;
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| format!("cannot read the response body: {e}"))?;
            body_bytes += frame.data_ref().map_or(0, |data| data.len() as u64);
        }
        Ok(Response { status, body_bytes })
    };
    let (mut answer, mut connection) = (std::pin::pin!(answer), std::pin::pin!(connection));
    tokio::select! {
        biased;
        result = &mut answer => result,
        // The connection ends once the response is read (`Connection: close`); what it
        // delivered is read out of the answer, a broken one is the error.
        ended = &mut connection => match ended {
            Ok(()) => answer.await,
            Err(e) => Err(format!("the connection failed: {e}")),
        },
    }
}

fn request(url: &Url, body: Option<&[u8]>) -> Result<hyper::Request<Full<Bytes>>, String> {
    let host = if url.host.contains(':') { format!("[{}]", url.host) } else { url.host.clone() };
    let builder = hyper::Request::builder()
        .uri(url.path.as_str())
        .header(hyper::header::HOST, format!("{host}:{}", url.port))
        .header(hyper::header::USER_AGENT, "prof-serve")
        .header(hyper::header::ACCEPT, "*/*")
        .header(hyper::header::CONNECTION, "close");
    let request = match body {
        Some(body) => builder
            .method(hyper::Method::POST)
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::copy_from_slice(body))),
        None => builder.method(hyper::Method::GET).body(Full::new(Bytes::new())),
    };
    request.map_err(|e| format!("`{}`: cannot make a request of it: {e}", url.text))
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

    /// A server on a real socket that reads one request (up to `until` in it) and answers
    /// `reply`, then closes; gives its port and what it read.
    fn one_shot(until: &'static [u8], reply: &'static [u8]) -> (u16, std::thread::JoinHandle<String>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            use std::io::{Read, Write};
            let (mut conn, _) = listener.accept().unwrap();
            let mut seen = Vec::new();
            let mut buf = [0u8; 1024];
            while !seen.windows(until.len()).any(|w| w == until) {
                let n = conn.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                seen.extend_from_slice(&buf[..n]);
            }
            conn.write_all(reply).unwrap();
            String::from_utf8(seen).unwrap()
        });
        (port, server)
    }

    fn get(port: u16) -> Result<Response, String> {
        let runtime = prof_capture::supervisor::runtime().unwrap();
        let url = Url::parse(&format!("http://127.0.0.1:{port}/health")).unwrap();
        runtime.block_on(send(&url, None, Duration::from_secs(5)))
    }

    /// Bodies framed by length, by chunks and by the end of the connection are counted whole;
    /// a body cut short and an answer that is not HTTP are errors.
    #[test]
    fn every_framing_is_counted_and_broken_answers_are_errors() {
        // (reply, status and body bytes; `None`: an error)
        type Case = (&'static [u8], Option<(u16, u64)>);
        let cases: [Case; 5] = [
            (b"HTTP/1.0 200 OK\r\nServer: SimpleHTTP/0.6\r\nContent-Length: 12\r\n\r\nhello world!", Some((200, 12))),
            (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nX-T: 1\r\n\r\n", Some((200, 9))),
            (b"HTTP/1.1 503 Unavailable\r\n\r\nbusy, come back", Some((503, 15))),
            (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort", None),
            (b"SSH-2.0-OpenSSH\r\n\r\n", None),
        ];
        for (reply, expected) in cases {
            let (port, server) = one_shot(b"\r\n\r\n", reply);
            let got = get(port);
            server.join().unwrap();
            match expected {
                Some((status, bytes)) => assert_eq!(got, Ok(Response { status, body_bytes: bytes })),
                None => assert!(got.is_err(), "{got:?} for {}", String::from_utf8_lossy(reply)),
            }
        }
    }

    #[test]
    fn a_request_gets_its_response_from_a_real_socket() {
        let (port, server) =
            one_shot(b"{\"a\":1}", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
        let runtime = prof_capture::supervisor::runtime().unwrap();
        let url = Url::parse(&format!("http://127.0.0.1:{port}/generate")).unwrap();
        let response = runtime.block_on(send(&url, Some(b"{\"a\":1}"), Duration::from_secs(5))).unwrap();
        assert_eq!(response, Response { status: 200, body_bytes: 3 });
        let request = server.join().unwrap();
        assert!(request.starts_with("POST /generate HTTP/1.1\r\n"), "{request}");
        let lower = request.to_ascii_lowercase();
        assert!(lower.contains("content-length: 7\r\n") && lower.contains("host: 127.0.0.1:"), "{request}");
    }
}
