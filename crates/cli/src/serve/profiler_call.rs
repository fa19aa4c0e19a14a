//! One request to a server's profiler endpoint (`POST /start_profile`), as a served model's
//! table in `prof_capture::servers` describes it.

use super::http::{self, Url};
use prof_capture::servers::HttpCall;
use std::time::Duration;

/// Longest wait for one answer of a profiler endpoint (stopping writes the trace: slow).
pub const CALL_LIMIT: Duration = Duration::from_secs(600);

/// One request to a profiler endpoint.
#[derive(Debug, Clone)]
pub struct Call {
    /// The URL (the health URL's host and port, the endpoint's path).
    pub url: Url,
    /// The body; `POST` always sends one (`{}` when the table gives none).
    pub body: Option<Vec<u8>>,
}

impl Call {
    pub(crate) fn new(health: &Url, call: &HttpCall) -> Result<Self, String> {
        let url = Url::parse(&format!("http://{}:{}{}", health.host, health.port, call.path))?;
        let body = (call.method == "POST")
            .then(|| call.body.as_ref().map_or_else(|| b"{}".to_vec(), |b| b.to_string().into_bytes()));
        Ok(Self { url, body })
    }

    /// `METHOD URL`, for the plan.
    pub fn describe(&self) -> String {
        format!("{} {}", if self.body.is_some() { "POST" } else { "GET" }, self.url.text)
    }

    /// Sends it; a non-2xx answer is an error saying what the server answered.
    pub async fn send(&self) -> Result<(), String> {
        let answer = http::send(&self.url, self.body.as_deref(), CALL_LIMIT).await?;
        if answer.is_success() {
            Ok(())
        } else {
            Err(format!("{} answered status {}", self.describe(), answer.status))
        }
    }
}
