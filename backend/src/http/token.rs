//! The deploy token at the door of every route that reaches inside a running cluster or
//! changes one: deploys, applies, and the reads and plans of running clusters (which
//! answer with access entries, node classes' user data and every workload on the nodes).

use axum::extract::{Request, State};
use axum::http::header::WWW_AUTHENTICATE;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::deploy::DeployToken;
use crate::http::error::ApiError;

/// Who asked, as a job records it: the holder of the deploy token, and the address the
/// request came from when the server knows it.
pub fn requester(peer: Option<&std::net::SocketAddr>) -> String {
    match peer {
        Some(peer) => format!("the deploy token's holder at {}", peer.ip()),
        None => "the deploy token's holder".to_owned(),
    }
}

/// The address a request came from, as the accept loop records it.
pub type Peer = Option<axum::Extension<axum::extract::ConnectInfo<std::net::SocketAddr>>>;

/// The address in a [`Peer`].
pub fn peer_address(peer: &Peer) -> Option<&std::net::SocketAddr> {
    peer.as_ref()
        .map(|axum::Extension(axum::extract::ConnectInfo(address))| address)
}

/// What a server bound beyond loopback says at start, in one line.
pub const BEYOND_LOOPBACK: &str = "Listening beyond loopback: anyone who reaches this port can design, validate, render and run read-only EC2 live checks with this server's AWS credentials; listing, reading and planning running clusters, deploys, applies and their logs need the deploy token.";

/// Lets a request through only with `Authorization: Bearer <token>`; else 401 with a JSON
/// body and `WWW-Authenticate: Bearer`. A server without a token (one not asked to
/// deploy) opens these routes to no one: 503, saying so.
pub async fn require_token(
    State(token): State<Option<DeployToken>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(token) = token else {
        return ApiError::Unavailable(
            "this server has no deploy token (deploys are not enabled), so it reads, plans and changes no running cluster".into(),
        )
        .into_response();
    };
    let refusal = match crate::deploy::auth::presented(request.headers()) {
        Some(presented) if token.matches(presented) => return next.run(request).await,
        Some(_) => "wrong deploy token",
        None => {
            "this route needs the deploy token, as `Authorization: Bearer <token>`; the server printed it at start (or took it from EKS_STUDIO_DEPLOY_TOKEN)"
        }
    };
    let mut response = ApiError::Unauthorized(refusal.into()).into_response();
    response.headers_mut().insert(
        WWW_AUTHENTICATE,
        "Bearer".parse().expect("a valid header value"),
    );
    response
}
