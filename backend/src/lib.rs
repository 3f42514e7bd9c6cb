//! The imperative shell around `shared`: the HTTP server and the `eks-studio` CLI.
//!
//! `app` builds the whole router; `main.rs` only hands the command line to [`cli`].

/// Routes under `/api`.
pub mod api;
/// The `eks-studio` command line.
pub mod cli;
/// The one error type handlers return.
pub mod error;
/// `eks-studio lint` and `eks-studio convert`.
pub mod lint_cmd;

use std::path::PathBuf;

use axum::Router;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::trace::TraceLayer;

/// What the AWS side of the server knows about its configuration.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct AwsStatus {
    /// Credentials were found (environment, profile or shared credentials file).
    pub credentials: bool,
    /// A non-default EC2 endpoint, e.g. an emulator on loopback.
    pub ec2_endpoint: Option<String>,
}

impl AwsStatus {
    /// Reads the AWS configuration the way the SDK's default chain would find it.
    pub fn from_environment(ec2_endpoint: Option<String>) -> AwsStatus {
        let has_env_keys = std::env::var_os("AWS_ACCESS_KEY_ID").is_some()
            && std::env::var_os("AWS_SECRET_ACCESS_KEY").is_some();
        let has_profile = std::env::var_os("AWS_PROFILE").is_some();
        let credentials_file = std::env::var_os("AWS_SHARED_CREDENTIALS_FILE")
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".aws/credentials"))
            });
        let has_file = credentials_file.is_some_and(|path| path.is_file());
        AwsStatus {
            credentials: has_env_keys || has_profile || has_file,
            ec2_endpoint: ec2_endpoint.or_else(|| std::env::var("AWS_ENDPOINT_URL_EC2").ok()),
        }
    }
}

/// Everything handlers share.
#[derive(Clone, Debug, Default)]
pub struct AppState {
    /// The built frontend (trunk's `dist`), served at `/`.
    pub static_dir: Option<PathBuf>,
    /// AWS configuration as found at start.
    pub aws: AwsStatus,
}

/// The whole HTTP application: the JSON API and the built page from one origin.
pub fn app(state: AppState) -> Router {
    let static_dir = state.static_dir.clone();
    let router = Router::new().nest("/api", api::router(state));
    let router = match static_dir {
        Some(dir) => {
            let index = ServeFile::new(dir.join("index.html"));
            router.fallback_service(ServeDir::new(dir).fallback(index))
        }
        None => router,
    };
    router.layer(TraceLayer::new_for_http())
}
