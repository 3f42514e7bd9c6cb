//! The built page as browsers get it: the precompressed copy the browser accepts, cache
//! headers by file name, the page for the wizard's paths and 404s for missing files.

use std::path::PathBuf;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use backend::{AppState, app};
use http_body_util::BodyExt;
use tower::ServiceExt;

const WASM: &str = "eks-studio-frontend-3c8d0e1f2a4b5c6d_bg.wasm";

/// A dist directory as `cargo xtask build-frontend` leaves it: files and their copies,
/// each copy's content telling which it is.
fn dist(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("eks-studio-page-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, body) in [
        ("index.html", "<!doctype html><title>studio</title>"),
        ("index.html.br", "brotli index"),
        ("index.html.gz", "gzip index"),
        (WASM, "raw wasm"),
        (&format!("{WASM}.br"), "brotli wasm"),
        (&format!("{WASM}.gz"), "gzip wasm"),
    ] {
        std::fs::write(dir.join(file), body).unwrap();
    }
    dir
}

struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: String,
}

impl Answer {
    fn header(&self, name: header::HeaderName) -> &str {
        self.headers
            .get(&name)
            .map(|value| value.to_str().unwrap())
            .unwrap_or("")
    }
}

async fn get(dir: &std::path::Path, uri: &str, headers: &[(&str, &str)]) -> Answer {
    let state = AppState {
        static_dir: Some(dir.to_path_buf()),
        ..AppState::default()
    };
    let mut request = Request::get(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = app(state)
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    Answer {
        status,
        headers,
        body: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

#[tokio::test]
async fn the_smallest_accepted_copy_is_sent_and_hashed_files_are_immutable() {
    let dir = dist("encodings");
    let wasm = format!("/{WASM}");
    for (accept, body, encoding) in [
        ("br, gzip", "brotli wasm", "br"),
        ("gzip, deflate, br, zstd", "brotli wasm", "br"),
        ("gzip", "gzip wasm", "gzip"),
        ("identity", "raw wasm", ""),
    ] {
        let answer = get(&dir, &wasm, &[("accept-encoding", accept)]).await;
        assert_eq!(answer.status, StatusCode::OK, "{accept}");
        assert_eq!(answer.body, body, "{accept}");
        assert_eq!(
            answer.header(header::CONTENT_ENCODING),
            encoding,
            "{accept}"
        );
        assert_eq!(
            answer.header(header::CONTENT_TYPE),
            "application/wasm",
            "{accept}"
        );
        assert_eq!(
            answer.header(header::CACHE_CONTROL),
            "public, max-age=31536000, immutable"
        );
        assert!(
            answer
                .header(header::VARY)
                .to_ascii_lowercase()
                .contains("accept-encoding"),
            "{accept}: {:?}",
            answer.headers
        );
    }
    let none = get(&dir, &wasm, &[]).await;
    assert_eq!(none.body, "raw wasm");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn the_page_is_revalidated_on_every_visit_and_answers_the_wizard_paths() {
    let dir = dist("index");
    for path in ["/", "/index.html", "/review", "/deploys/3"] {
        let answer = get(&dir, path, &[("accept-encoding", "br, gzip")]).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert_eq!(answer.body, "brotli index", "{path}");
        assert_eq!(answer.header(header::CONTENT_ENCODING), "br", "{path}");
        assert_eq!(answer.header(header::CACHE_CONTROL), "no-cache", "{path}");
        assert!(
            answer.header(header::CONTENT_TYPE).starts_with("text/html"),
            "{path}"
        );
    }
    // A repeat visit asks again and gets a bodyless 304 while the page is unchanged.
    let first = get(&dir, "/", &[]).await;
    let modified = first.header(header::LAST_MODIFIED).to_owned();
    assert!(!modified.is_empty(), "{:?}", first.headers);
    let again = get(&dir, "/", &[("if-modified-since", &modified)]).await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert_eq!(again.header(header::CACHE_CONTROL), "no-cache");
    assert!(again.body.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn missing_files_and_api_paths_are_404s_not_the_page() {
    let dir = dist("missing");
    // A script of an older build: a 404, never the page as JavaScript, never cached.
    let stale = get(&dir, "/eks-studio-frontend-0123456789abcdef.js", &[]).await;
    assert_eq!(stale.status, StatusCode::NOT_FOUND);
    assert!(!stale.body.contains("<title>"), "{}", stale.body);
    assert_eq!(stale.header(header::CACHE_CONTROL), "");
    for path in ["/api/nope", "/api/templates/x/y"] {
        let answer = get(&dir, path, &[]).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(
            answer.header(header::CONTENT_TYPE),
            "application/json",
            "{path}"
        );
        let body: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
        assert!(body["error"].as_str().unwrap().contains(path), "{body}");
    }
    // Without a page the API's unknown paths still answer JSON.
    let answer = app(AppState::default())
        .oneshot(Request::get("/api/nope").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::NOT_FOUND);
    assert_eq!(answer.headers()[header::CONTENT_TYPE], "application/json");
    std::fs::remove_dir_all(&dir).unwrap();
}
