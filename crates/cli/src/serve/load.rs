//! The built-in load generator: `concurrency` workers send requests to one endpoint until
//! `requests` were issued or the window closed, whichever comes first, and the latency of
//! every successful request is kept for percentiles. A request still in flight when the
//! window closes is abandoned and counted as unfinished (the window stays small).

use super::http::{self, Url};
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinSet;

/// What to send, how often, for how long.
#[derive(Debug, Clone)]
pub struct LoadSpec {
    /// The endpoint.
    pub url: Url,
    /// The POST body; `None` sends GET.
    pub body: Option<Arc<Vec<u8>>>,
    /// Most requests to issue.
    pub requests: u64,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Time after which no request is issued and unfinished ones are abandoned.
    pub window: Duration,
    /// Longest wait for one response (connect, request, the whole answer): an endpoint that
    /// accepts the connection and never answers is an error after it, not a hang.
    pub request_limit: Duration,
}

/// How a load run went.
#[derive(Debug, Clone, Default)]
pub struct LoadResult {
    /// Requests issued.
    pub sent: u64,
    /// Requests answered with 2xx.
    pub ok: u64,
    /// Requests that failed (connection error, non-2xx status, malformed response).
    pub errors: u64,
    /// Requests abandoned at the window's end.
    pub unfinished: u64,
    /// The first failure, for the report.
    pub first_error: Option<String>,
    /// Latencies of the successful requests, ns, sorted.
    pub latencies_ns: Vec<u64>,
    /// From the first request to the last answer (or the window's end).
    pub elapsed: Duration,
}

/// Latency percentiles (nearest rank) and throughput, the headline of a load run.
#[derive(Debug, Clone, Serialize, PartialEq, schemars::JsonSchema)]
pub struct LoadStats {
    /// Requests issued.
    pub requests: u64,
    /// Requests answered with 2xx.
    pub ok: u64,
    /// Failed requests.
    pub errors: u64,
    /// Requests abandoned at the window's end.
    pub unfinished: u64,
    /// The first failure's message.
    pub first_error: Option<String>,
    /// Wall time of the run, ns.
    pub elapsed_ns: u64,
    /// Successful requests per second of wall time.
    pub throughput_rps: Option<f64>,
    /// Mean latency of the successful requests, ms.
    pub latency_mean_ms: Option<f64>,
    /// Median latency, ms.
    pub latency_p50_ms: Option<f64>,
    /// 90th percentile latency, ms.
    pub latency_p90_ms: Option<f64>,
    /// 99th percentile latency, ms.
    pub latency_p99_ms: Option<f64>,
    /// Slowest successful request, ms.
    pub latency_max_ms: Option<f64>,
}

/// The `q` quantile (0 < q ≤ 1) of sorted `values` by nearest rank: the value at 1-based
/// rank ⌈q·n⌉, so p50 of 1..=10 is 5 and p99 of 100 values is the 99th.
pub fn nearest_rank(sorted: &[u64], q: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

impl LoadResult {
    /// The percentiles and throughput of this run.
    pub fn stats(&self) -> LoadStats {
        let ms = |ns: u64| ns as f64 / 1e6;
        let pct = |q: f64| nearest_rank(&self.latencies_ns, q).map(ms);
        let seconds = self.elapsed.as_secs_f64();
        let mean = (!self.latencies_ns.is_empty())
            .then(|| self.latencies_ns.iter().map(|&ns| ns as f64).sum::<f64>() / self.latencies_ns.len() as f64 / 1e6);
        LoadStats {
            requests: self.sent,
            ok: self.ok,
            errors: self.errors,
            unfinished: self.unfinished,
            first_error: self.first_error.clone(),
            elapsed_ns: u64::try_from(self.elapsed.as_nanos()).unwrap_or(u64::MAX),
            throughput_rps: (seconds > 0.0).then(|| self.ok as f64 / seconds),
            latency_mean_ms: mean,
            latency_p50_ms: pct(0.50),
            latency_p90_ms: pct(0.90),
            latency_p99_ms: pct(0.99),
            latency_max_ms: self.latencies_ns.last().copied().map(ms),
        }
    }
}

/// Runs the load described by `spec` (inside a tokio runtime). Dropping the future aborts
/// every worker.
pub async fn run(spec: &LoadSpec) -> LoadResult {
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + spec.window;
    let issued = Arc::new(AtomicU64::new(0));
    let mut workers = JoinSet::new();
    for _ in 0..spec.concurrency.max(1) {
        let (spec, issued) = (spec.clone(), issued.clone());
        workers.spawn(async move { worker(&spec, &issued, deadline).await });
    }
    let mut total = LoadResult::default();
    while let Some(joined) = workers.join_next().await {
        let Ok(part) = joined else { continue };
        total.sent += part.sent;
        total.ok += part.ok;
        total.errors += part.errors;
        total.unfinished += part.unfinished;
        if total.first_error.is_none() {
            total.first_error = part.first_error;
        }
        total.latencies_ns.extend(part.latencies_ns);
    }
    total.elapsed = started.elapsed().min(spec.window);
    total.latencies_ns.sort_unstable();
    total
}

async fn worker(spec: &LoadSpec, issued: &AtomicU64, deadline: tokio::time::Instant) -> LoadResult {
    let mut part = LoadResult::default();
    while tokio::time::Instant::now() < deadline {
        if issued.fetch_add(1, Ordering::SeqCst) >= spec.requests {
            break;
        }
        part.sent += 1;
        let started = Instant::now();
        let far = Duration::from_secs(24 * 3600);
        let limit = (tokio::time::Instant::now() + spec.request_limit).min(deadline);
        let outcome =
            tokio::time::timeout_at(limit, http::send(&spec.url, spec.body.as_deref().map(Vec::as_slice), far));
        match outcome.await {
            Err(_) if limit < deadline => {
                part.errors += 1;
                part.first_error.get_or_insert_with(|| {
                    format!(
                        "no response within {:.1} s (--request-timeout): the endpoint took the request and did not \
                         answer",
                        spec.request_limit.as_secs_f64()
                    )
                });
            }
            Err(_) => part.unfinished += 1,
            Ok(Ok(response)) if response.is_success() => {
                part.ok += 1;
                part.latencies_ns.push(u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX));
            }
            Ok(Ok(response)) => {
                part.errors += 1;
                part.first_error.get_or_insert_with(|| format!("HTTP status {}", response.status));
            }
            Ok(Err(error)) => {
                part.errors += 1;
                part.first_error.get_or_insert(error);
            }
        }
    }
    part
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let values: Vec<u64> = (1..=10).collect();
        assert_eq!(nearest_rank(&values, 0.5), Some(5));
        assert_eq!(nearest_rank(&values, 0.9), Some(9));
        assert_eq!(nearest_rank(&values, 0.99), Some(10));
        assert_eq!(nearest_rank(&[7], 0.5), Some(7));
        assert_eq!(nearest_rank(&[], 0.5), None);
        let hundred: Vec<u64> = (1..=100).collect();
        assert_eq!(nearest_rank(&hundred, 0.99), Some(99));
    }

    #[test]
    fn stats_of_a_run() {
        let run = LoadResult {
            sent: 5,
            ok: 4,
            errors: 1,
            latencies_ns: vec![1_000_000, 2_000_000, 3_000_000, 10_000_000],
            elapsed: Duration::from_secs(2),
            ..LoadResult::default()
        };
        let stats = run.stats();
        assert_eq!(stats.throughput_rps, Some(2.0));
        assert_eq!(stats.latency_p50_ms, Some(2.0));
        assert_eq!(stats.latency_max_ms, Some(10.0));
        assert_eq!(stats.latency_mean_ms, Some(4.0));
        assert_eq!(LoadResult::default().stats().latency_p99_ms, None);
    }
}
