//! `prof exporter`: every device's utilization, SM activity, memory, power, clocks, throttle
//! reasons, temperature, processes and rolling verdict as Prometheus metrics on an HTTP
//! endpoint (`/metrics`, OpenMetrics text), read through the vendors' utilization probes only.
//! Memory is bounded by the verdict window; the sampler's own health is exported too.

use crate::durations::parse_duration;
use crate::failure::{Failure, Kind};
use crate::live_sampler::Sampler;
use clap::Args;
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Request, Response, StatusCode};
use prof_capture::supervisor;
use prof_core::Registry;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// Arguments of `prof exporter`.
#[derive(Debug, Args)]
pub struct ExporterArgs {
    /// Address to serve `/metrics` on (port 0: any free port, printed on stderr).
    #[arg(long, default_value = "127.0.0.1:9464")]
    listen: SocketAddr,
    /// Sampling interval.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    interval: Duration,
    /// The window each device's verdict is taken over.
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    window: Duration,
    /// Use only this vendor's probe (`nvidia`, `amd`, `ascend`).
    #[arg(long)]
    vendor: Option<String>,
    /// Print one exposition to stdout after a few samples and exit, instead of serving.
    #[arg(long)]
    once: bool,
}

/// The content type of the OpenMetrics text format.
const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

fn response(status: StatusCode, content_type: &str, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    if let Ok(value) = content_type.parse() {
        response.headers_mut().insert(hyper::header::CONTENT_TYPE, value);
    }
    response
}

fn handle(request: &Request<hyper::body::Incoming>, sampler: &Sampler) -> Response<Full<Bytes>> {
    match (request.method(), request.uri().path()) {
        (&hyper::Method::GET, "/metrics") => {
            response(StatusCode::OK, CONTENT_TYPE, crate::exposition::exposition(&sampler.views()))
        }
        (&hyper::Method::GET, "/") => response(
            StatusCode::OK,
            "text/plain; charset=utf-8",
            "prof exporter: the metrics are at /metrics\n".to_owned(),
        ),
        _ => response(StatusCode::NOT_FOUND, "text/plain; charset=utf-8", "not found: try /metrics\n".to_owned()),
    }
}

/// Runs `prof exporter`.
pub fn run(registry: &Registry, args: &ExporterArgs) -> Result<ExitCode, Failure> {
    if args.interval < Duration::from_millis(100) {
        return Err(Failure::new(Kind::Usage, "--interval must be at least 100ms"));
    }
    let window_s = args.window.as_secs_f64().max(args.interval.as_secs_f64());
    let sampler = Sampler::start(registry, args.vendor.as_deref(), args.interval, window_s)?;
    if args.once {
        // Three samples: a verdict needs them (and NVML GPM rates a pair).
        sampler.wait_for(3, args.interval * 6 + Duration::from_secs(5));
        print!("{}", crate::exposition::exposition(&sampler.views()));
        return Ok(ExitCode::SUCCESS);
    }
    let sampler = Arc::new(sampler);
    let runtime = supervisor::runtime()?;
    let ended = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| Failure::new(Kind::Usage, format!("cannot listen on {}: {e}", args.listen)))?;
        let bound = listener.local_addr().map_err(|e| Failure::new(Kind::Failed, e.to_string()))?;
        eprintln!(
            "prof exporter: serving http://{bound}/metrics (every {:?}, verdicts over {window_s:.0} s)",
            args.interval
        );
        let mut stop = supervisor::StopSignals::listen()?;
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let sampler = sampler.clone();
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |request| {
                            let reply = handle(&request, &sampler);
                            async move { Ok::<_, std::convert::Infallible>(reply) }
                        });
                        let io = hyper_util::rt::TokioIo::new(stream);
                        let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
                    });
                }
                signal = stop.recv() => return Ok::<_, Failure>(signal),
            }
        }
    })?;
    eprintln!("prof exporter: stopped by {}", prof_timeline::error::signal_name(ended));
    Ok(ExitCode::SUCCESS)
}
