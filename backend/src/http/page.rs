//! The built page (trunk's `dist`) as browsers should get it: the brotli or gzip copy
//! written at build time when the browser accepts it, cache headers by file name, the
//! page itself for the wizard's paths and a plain 404 for files that do not exist.

use std::path::{Path, PathBuf};

use axum::Router;
use axum::extract::Request;
use axum::handler::HandlerWithoutStateExt;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tower::ServiceExt;
use tower_http::services::{ServeDir, ServeFile};

use crate::http::error::ApiError;

/// For files whose name carries a hash of their content: a new build has new names, so
/// a browser may keep these for a year without asking again.
const IMMUTABLE: HeaderValue = HeaderValue::from_static("public, max-age=31536000, immutable");
/// For everything else (`index.html` above all): ask the server every time; an unchanged
/// file costs a `304 Not Modified`.
const REVALIDATE: HeaderValue = HeaderValue::from_static("no-cache");

/// Serves `dir` for every path the API does not route.
pub fn router(dir: PathBuf) -> Router {
    let index = dir.join("index.html");
    let not_found = move |request: Request| page_or_not_found(index.clone(), request);
    let files = ServeDir::new(dir)
        .precompressed_br()
        .precompressed_gzip()
        .fallback(not_found.into_service());
    Router::new()
        .fallback_service(files)
        .layer(middleware::from_fn(cache_control))
}

/// What a path with no file behind it gets: the page for a wizard path (a bookmark or a
/// reload keeps working), a JSON 404 under `/api`, a plain 404 for a missing file
/// (anything whose last segment has an extension), so a stale script is never answered
/// with HTML.
async fn page_or_not_found(index: PathBuf, request: Request) -> Response {
    let path = request.uri().path();
    let last_segment = path.rsplit('/').next().unwrap_or_default();
    if is_api(path) || last_segment.contains('.') {
        return not_found(request).await;
    }
    match ServeFile::new(index)
        .precompressed_br()
        .precompressed_gzip()
        .oneshot(request)
        .await
    {
        Ok(response) => response.into_response(),
        Err(error) => match error {},
    }
}

/// The 404 of a path nothing serves: JSON under `/api`, plain text elsewhere. Also the
/// server's fallback when it has no page to serve.
pub async fn not_found(request: Request) -> Response {
    let path = request.uri().path();
    if is_api(path) {
        ApiError::NotFound(format!("no API route `{path}`")).into_response()
    } else {
        (StatusCode::NOT_FOUND, "not found\n").into_response()
    }
}

fn is_api(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/")
}

async fn cache_control(request: Request, next: Next) -> Response {
    let hashed = is_content_hashed(Path::new(request.uri().path()));
    let mut response = next.run(request).await;
    let status = response.status();
    if status.is_success() || status == StatusCode::NOT_MODIFIED {
        let is_html = response
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|value| value.as_bytes().starts_with(b"text/html"));
        let value = if hashed && !is_html {
            IMMUTABLE
        } else {
            REVALIDATE
        };
        response.headers_mut().insert(header::CACHE_CONTROL, value);
    }
    response
}

/// Whether a file name carries the build's content hash (trunk's, which the split page's
/// files share): `NAME-HASH.EXT` or `NAME-HASH_bg.wasm`, HASH being 8 to 16 lowercase hex
/// digits (a 64-bit hash printed without leading zeros).
pub fn is_content_hashed(path: &Path) -> bool {
    let Some(stem) = path.file_stem().and_then(|stem| stem.to_str()) else {
        return false;
    };
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    let Some((name, hash)) = stem.rsplit_once('-') else {
        return false;
    };
    !name.is_empty()
        && (8..=16).contains(&hash.len())
        && hash
            .bytes()
            .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
}

#[cfg(test)]
mod tests {
    use super::is_content_hashed;
    use std::path::Path;

    #[test]
    fn trunk_hashed_names_are_recognised() {
        for hashed in [
            "/eks-studio-frontend-4f3a2b1c0d9e8f7a_bg.wasm",
            "/eks-studio-frontend-4f3a2b1c0d9e8f7a.js",
            "/main-a1b2c3d4e5f6071.css",
            // The split page's loader and the files a step loads when it opens.
            "/eks-studio-frontend-split-4f3a2b1c0d9e8f7a.js",
            "/split_cluster_step_view-4f3a2b1c0d9e8f7a.wasm",
            "/chunk_12-4f3a2b1c0d9e8f7a.wasm",
        ] {
            assert!(is_content_hashed(Path::new(hashed)), "{hashed}");
        }
        for plain in [
            "/index.html",
            "/snippets/leptos-0.8/inline0.js",
            "/favicon.ico",
            "/main-ABCDEF0123.css",
            "/main-abc.css",
            "/-0123456789abcdef.js",
        ] {
            assert!(!is_content_hashed(Path::new(plain)), "{plain}");
        }
    }
}
