//! Accepting connections so that slow or idle clients cannot pin the server: a deadline for
//! each request's headers (which also closes idle keep-alive connections), a bound on open
//! connections below the process's file-descriptor limit, accept errors that back off
//! instead of spinning, and a shutdown that waits a few seconds for open requests, never
//! for a half-open socket.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// How the server treats connections.
#[derive(Clone, Debug)]
pub struct ConnectionLimits {
    /// Time a client has to send a request's headers, from the moment the connection
    /// waits for them (so also the longest a keep-alive connection may sit idle).
    pub header_timeout: Duration,
    /// Connections open at once; further ones are closed as they arrive.
    pub max_connections: usize,
    /// How long shutdown waits for requests in flight before closing what is left.
    pub shutdown_grace: Duration,
}

/// Time a client has for a request's headers unless configured otherwise.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// File descriptors kept free of connections: the store, job logs, child processes' pipes,
/// the page's files and outgoing AWS connections.
const RESERVED_DESCRIPTORS: u64 = 128;

/// The soft limit on open files, read from `/proc/self/limits`.
pub fn descriptor_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

impl ConnectionLimits {
    /// Limits for this process: connections capped below its file-descriptor limit; the
    /// header deadline from `EKS_STUDIO_HEADER_TIMEOUT_SECONDS` when set (default 10 s).
    pub fn for_this_process() -> ConnectionLimits {
        let descriptors = descriptor_limit().unwrap_or(1024);
        let max_connections = descriptors
            .saturating_sub(RESERVED_DESCRIPTORS)
            .clamp(16, 10_000) as usize;
        let header_timeout = std::env::var("EKS_STUDIO_HEADER_TIMEOUT_SECONDS")
            .ok()
            .and_then(|value| value.trim().parse::<f64>().ok())
            .filter(|seconds| seconds.is_finite() && *seconds > 0.0)
            .map_or(DEFAULT_HEADER_TIMEOUT, Duration::from_secs_f64);
        ConnectionLimits {
            header_timeout,
            max_connections,
            shutdown_grace: Duration::from_secs(5),
        }
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then gives requests in flight
/// `limits.shutdown_grace` to finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
) {
    let open = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut refused_since_log = 0u64;
    let mut last_refusal_log = tokio::time::Instant::now();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // EMFILE and friends: the next accept would fail the same way at once.
                tracing::warn!(%error, "cannot accept a connection; retrying in 100 ms");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Ok(permit) = open.clone().try_acquire_owned() else {
            refused_since_log += 1;
            if last_refusal_log.elapsed() >= Duration::from_secs(5) {
                tracing::warn!(
                    refused = refused_since_log,
                    max = limits.max_connections,
                    "closed new connections: the server has as many open as it allows"
                );
                refused_since_log = 0;
                last_refusal_log = tokio::time::Instant::now();
            }
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        // Each request carries the address it came from: who asked for a job says it.
        let service = TowerToHyperService::new(tower::ServiceExt::map_request(
            app.clone(),
            move |mut request: hyper::Request<hyper::body::Incoming>| {
                request
                    .extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                request
            },
        ));
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout);
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A client that goes away mid-request is no error of ours.
            let _ = connection.await;
            drop(permit);
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.shutdown_grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::info!(
            seconds = limits.shutdown_grace.as_secs_f64(),
            "closed the connections still open after the shutdown grace"
        );
    }
}
