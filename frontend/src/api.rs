//! Every HTTP call the page makes, to its own server. Nothing here is needed to design,
//! validate or download: these are the parts that need AWS (live checks, deploys), and
//! each failure comes back as a sentence the page can show as it is.

use gloo_net::http::{Request, Response};
use serde::Deserialize;
use shared::Spec;

/// One live check's outcome, as `POST /api/checks` answers it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct LiveCheck {
    /// Check id, e.g. `reservation-exists`.
    pub id: String,
    /// `ok`, `failed` or `could-not-run`.
    pub status: String,
    /// The spec path it is about, when it is about one field.
    #[serde(default)]
    pub path: Option<String>,
    /// What it found.
    #[serde(default)]
    pub message: String,
    /// More detail (the AWS error, the values compared).
    #[serde(default)]
    pub detail: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct ChecksAnswer {
    checks: Vec<LiveCheck>,
}

/// What `GET /api/health` says about AWS.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct AwsHealth {
    /// Whether the server found AWS credentials.
    pub credentials: bool,
}

/// `GET /api/health`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Health {
    /// Server version.
    #[serde(default)]
    pub version: String,
    /// AWS access.
    pub aws: AwsHealth,
}

/// The reason a call failed, in words: the server's own message when it gave one.
async fn failure(response: Response) -> String {
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    let message = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|body| {
            body.get("error")
                .and_then(|error| error.as_str().map(str::to_owned))
        })
        .unwrap_or(text);
    match status {
        404 => "the server has no such endpoint yet (404)".to_owned(),
        _ if message.trim().is_empty() => format!("the server answered {status}"),
        _ => format!("the server answered {status}: {}", message.trim()),
    }
}

fn unreachable(error: gloo_net::Error) -> String {
    format!("server unreachable ({error})")
}

async fn post_spec(url: &str, spec: &Spec) -> Result<Response, String> {
    Request::post(url)
        .header("content-type", "application/json")
        .body(serde_json::to_string(spec).expect("a spec always serialises"))
        .map_err(|error| error.to_string())?
        .send()
        .await
        .map_err(unreachable)
}

/// `GET /api/health`.
pub async fn health() -> Result<Health, String> {
    let response = Request::get("/api/health")
        .send()
        .await
        .map_err(unreachable)?;
    if !response.ok() {
        return Err(failure(response).await);
    }
    response
        .json::<Health>()
        .await
        .map_err(|error| format!("unexpected health answer: {error}"))
}

/// `POST /api/checks` with the spec.
pub async fn run_checks(spec: &Spec) -> Result<Vec<LiveCheck>, String> {
    let response = post_spec("/api/checks", spec).await?;
    if !response.ok() {
        return Err(failure(response).await);
    }
    response
        .json::<ChecksAnswer>()
        .await
        .map(|answer| answer.checks)
        .map_err(|error| format!("unexpected live-check answer: {error}"))
}

/// `POST /api/deploys` with the spec; the server's answer as text.
pub async fn deploy(spec: &Spec) -> Result<String, String> {
    let response = post_spec("/api/deploys", spec).await?;
    if !response.ok() {
        return Err(failure(response).await);
    }
    Ok(response.text().await.unwrap_or_default())
}
