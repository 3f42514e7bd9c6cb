//! The baseline of `cargo xtask bench`: a bare axum handler on the same axum and tokio
//! stack as `eks-studio serve`, answering `POST /api/validate` without looking at the body
//! beyond its length. The bench loads both with the same request and reports the ratio
//! of their throughputs (docs/performance.md).
//!
//! `cargo run --release --package eks-studio --example bare_axum -- [ADDR]` (default
//! `127.0.0.1:0`, a free port); it prints the line the bench reads to find the port.

use std::net::SocketAddr;

use axum::Router;
use axum::body::Bytes;
use axum::routing::post;

/// The same allocator as `eks-studio`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The request body is read in full, as the real handler's JSON extractor does, and a
/// small JSON answer goes back.
async fn bare(body: Bytes) -> axum::Json<serde_json::Value> {
    axum::Json(serde_json::json!({ "errors": 0, "warnings": 0, "bytes": body.len() }))
}

fn main() -> std::process::ExitCode {
    let addr: SocketAddr = match std::env::args()
        .nth(1)
        .as_deref()
        .unwrap_or("127.0.0.1:0")
        .parse()
    {
        Ok(addr) => addr,
        Err(error) => {
            eprintln!("error: not an address: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime starts");
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(addr).await {
            Ok(listener) => listener,
            Err(error) => {
                eprintln!("error: cannot listen on {addr}: {error}");
                return std::process::ExitCode::from(2);
            }
        };
        let local_addr = listener
            .local_addr()
            .expect("a bound listener has an address");
        println!("bare axum listening on http://{local_addr}/");
        let app = Router::new().route("/api/validate", post(bare));
        match axum::serve(listener, app).await {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("error: server failed: {error}");
                std::process::ExitCode::FAILURE
            }
        }
    })
}
