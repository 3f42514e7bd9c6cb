//! The HTTP side: one router made of small per-area routers (`design`, `checks`,
//! `deploys`, the page), the extractors and the error every handler shares, the guard on
//! `Host` and `Origin`, and the accept loop.

/// `/api/capacity-block-offerings`, `/api/offerings`, `/api/where-sold`, `/api/checks`.
pub mod checks;
/// `/api/clusters`, `/api/clusters/read`, `/api/plan`: running clusters read and planned against.
pub mod clusters;
/// `/api/deploys…`: create, list, show, follow (server-sent events), approve and cancel;
/// `/api/applies`: a plan applied to a running cluster as such a job.
pub mod deploys;
/// `/api/health`, `/api/templates`, `/api/validate`, `/api/render`, `/api/bundle`, `/api/resolve`.
pub mod design;
/// The one error type handlers return.
pub mod error;
/// JSON bodies read with the field that is wrong named, and heavy work off the async workers.
pub mod extract;
/// `Host` and `Origin` checks: requests must be meant for the studio.
pub mod guard;
/// The built page: precompressed files, cache headers, the wizard's paths.
pub mod page;
/// The accept loop: header deadlines, a connection budget, a bounded shutdown.
pub mod server;
/// The deploy token at the door of the routes that reach inside a running cluster.
pub mod token;

use std::path::PathBuf;
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::{aws, deploy};

/// Everything handlers share.
#[derive(Clone, Debug, Default)]
pub struct AppState {
    /// The built frontend (trunk's `dist`), served at `/`.
    pub static_dir: Option<PathBuf>,
    /// EC2 access (offline when no credentials were found at start).
    pub aws: aws::LiveAws,
    /// Deploy jobs, or why there are none (the deploy routes' 503 says it).
    pub deploys: deploy::Deploys,
    /// The `Host` names requests must carry (`eks-studio serve` always sets it; without
    /// it, as in tests that call the router directly, every host is answered).
    pub host_guard: Option<guard::HostGuard>,
    /// The tools a read of a running cluster runs (`aws`, `kubectl`), as deploys do.
    pub tools: deploy::Tools,
}

/// Longest time from a request's arrival to its answer's headers: bodies that trickle in
/// slower than this are cut off with 408. Event streams are not affected once their
/// headers are sent.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest body any route reads (axum's default limit for the JSON routes; deploys
/// allow less).
pub const MAX_BODY_BYTES: u64 = 2 * 1024 * 1024;

/// Answers 413 at once to a request that declares a body larger than [`MAX_BODY_BYTES`]
/// (no route would read it, and waiting for it would hold the connection until the
/// request timeout); and tells browsers the studio may not be framed by another page
/// (clickjacking: a page of someone else's overlaying the Deploy button).
async fn edge_rules(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::http::{HeaderValue, header};
    use axum::response::IntoResponse;
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse::<u64>().ok());
    let mut response = match declared {
        Some(length) if length > MAX_BODY_BYTES => error::ApiError::BadRequest {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            message: format!(
                "the request body is {length} bytes; the studio reads at most {MAX_BODY_BYTES}"
            ),
        }
        .into_response(),
        _ => next.run(request).await,
    };
    let headers = response.headers_mut();
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("frame-ancestors 'none'"),
    );
    response
}

/// The whole HTTP application: the JSON API and the built page from one origin.
pub fn app(state: AppState) -> Router {
    let static_dir = state.static_dir.clone();
    let host_guard = state.host_guard.clone();
    let deploys = deploys::router(state.deploys.clone(), state.aws.clone());
    let clusters = clusters::router(state.aws.clone(), state.tools, state.deploys.token());
    // The routers spell out `/api/…` rather than being nested under `/api`: a nested
    // route rewrites every request's URI on the way in, a cost on the API's hot path.
    let router = design::router(state.aws.clone())
        .merge(checks::router(state.aws))
        .merge(clusters)
        .merge(deploys);
    let router = match static_dir {
        Some(dir) => router.fallback_service(page::router(dir)),
        None => router.fallback(page::not_found),
    };
    let router = router.layer(TimeoutLayer::with_status_code(
        StatusCode::REQUEST_TIMEOUT,
        REQUEST_TIMEOUT,
    ));
    let router = match host_guard {
        Some(host_guard) => router.layer(axum::middleware::from_fn_with_state(
            host_guard,
            guard::check,
        )),
        None => router,
    };
    router
        .layer(axum::middleware::from_fn(edge_rules))
        .layer(TraceLayer::new_for_http())
}
