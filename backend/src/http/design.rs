//! Small per-area routers merged into one; each handler is a thin call into `shared`.

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;
use shared::Spec;
use shared::rules::{Finding, Severity};

use crate::AwsStatus;
use crate::aws::LiveAws;
use crate::http::error::ApiError;
use crate::http::extract::{JsonBody, SizedJsonBody, off_the_workers};

/// The `/api` router; its handlers only need EC2 access (an `Arc`, cheap to clone per request).
pub fn router(aws: LiveAws) -> Router {
    Router::new()
        .route("/api/health", get(health))
        .route("/api/templates", get(list_templates))
        .route("/api/templates/{id}", get(get_template))
        .route("/api/validate", post(validate))
        .route("/api/render", post(render_bundle))
        .route("/api/bundle", post(page_bundle))
        .route("/api/bundle/files", post(page_bundle_files))
        .route("/api/resolve", post(resolve))
        .with_state(aws)
}

/// `GET /api/health`.
#[derive(Debug, Serialize)]
pub struct Health {
    /// Always `ok` when the server answers.
    pub status: &'static str,
    /// The server's version.
    pub version: &'static str,
    /// Whether live AWS checks can run.
    pub aws: AwsStatus,
}

async fn health(State(aws): State<LiveAws>) -> Json<Health> {
    Json(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
        aws: aws.status(),
    })
}

/// One entry of `GET /api/templates`.
#[derive(Debug, Serialize)]
pub struct TemplateEntry {
    /// Template id.
    pub id: &'static str,
    /// Human name.
    pub name: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    /// The template's spec.
    pub spec: Spec,
}

async fn list_templates() -> Json<Vec<TemplateEntry>> {
    let entries = shared::TEMPLATES
        .iter()
        .map(|template| TemplateEntry {
            id: template.id,
            name: template.name,
            summary: template.summary,
            spec: template.spec(),
        })
        .collect();
    Json(entries)
}

async fn get_template(Path(id): Path<String>) -> Result<Json<Spec>, ApiError> {
    let template = shared::template(&id)
        .ok_or_else(|| ApiError::NotFound(format!("no template with id `{id}`")))?;
    Ok(Json(template.spec()))
}

/// `POST /api/validate` answer: every finding of the shared rules, and counts.
#[derive(Debug, Serialize)]
pub struct Validation {
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
    /// Every finding, most serious first.
    pub findings: Vec<Finding>,
}

/// Bodies larger than this are validated off the async workers: what a check costs grows
/// with the bytes (a long key, many mappings), not only with the node groups.
const LARGE_VALIDATE_BODY_BYTES: usize = 16 * 1024;

/// `POST /api/validate`: the same rules the browser runs, run again on the server.
async fn validate(SizedJsonBody(spec, size): SizedJsonBody<Spec>) -> Result<Response, ApiError> {
    let findings = if size > LARGE_VALIDATE_BODY_BYTES {
        off_the_workers(move || shared::rules::validate_with(&spec, &crate::clock::todays_facts()))
            .await?
    } else {
        shared::rules::validate_with(&spec, &crate::clock::todays_facts())
    };
    let count = |severity: Severity| {
        findings
            .iter()
            .filter(|finding| finding.severity == severity)
            .count()
    };
    // Written into a buffer of about the answer's size: axum's `Json` starts small and
    // copies the text each time it outgrows its buffer.
    let size = 64
        + findings
            .iter()
            .map(|finding| {
                80 + finding.rule.len()
                    + finding.path.len()
                    + finding.message.len()
                    + finding.help.len()
            })
            .sum::<usize>();
    let mut body = Vec::with_capacity(size);
    let validation = Validation {
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        findings,
    };
    serde_json::to_writer(&mut body, &validation)
        .map_err(|error| ApiError::Internal(Box::new(error)))?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// `POST /api/resolve` answer.
#[derive(Debug, Serialize)]
pub struct Resolved {
    /// Each NodePool with the instance types it can launch.
    pub node_pools: Vec<shared::model::resolve::PoolTypes>,
}

/// `POST /api/resolve`: which instance types each NodePool of the spec can launch.
async fn resolve(JsonBody(spec): JsonBody<Spec>) -> Result<Json<Resolved>, ApiError> {
    let node_pools = off_the_workers(move || shared::model::resolve::resolve(&spec)).await?;
    Ok(Json(Resolved { node_pools }))
}

/// What the page asks a bundle for: its design, with the live checks it ran and what EC2
/// told them, so the README lists the same findings and checks the page shows.
#[derive(Debug, serde::Deserialize)]
struct BundleRequest {
    spec: Spec,
    #[serde(default)]
    checks: Vec<shared::deploy::bundle::CheckLine>,
    #[serde(default)]
    facts: Option<shared::rules::LiveFacts>,
}

impl BundleRequest {
    fn files(self) -> Result<Vec<shared::deploy::bundle::BundleFile>, shared::RenderError> {
        let mut facts = self.facts.unwrap_or_default();
        // The date that decides which Kubernetes versions are supported is the server's.
        facts.today = crate::clock::todays_facts().today;
        let findings = shared::rules::validate_with(&self.spec, &facts);
        shared::deploy::bundle::bundle_files(&self.spec, &findings, &self.checks)
    }
}

/// `POST /api/bundle`: the page's "Download bundle", a zip like `POST /api/render`'s with
/// the page's live checks in its README.
async fn page_bundle(JsonBody(request): JsonBody<BundleRequest>) -> Result<Response, ApiError> {
    bundle_zip(request).await
}

/// The bundle as a zip download; `x-bundle-files` says how many files it holds.
async fn bundle_zip(request: BundleRequest) -> Result<Response, ApiError> {
    let name = shared::deploy::bundle::file_name(&request.spec.cluster.name);
    let (zip, count) = off_the_workers(move || {
        request
            .files()
            .map(|files| (shared::deploy::bundle::zip_bundle(&files), files.len()))
    })
    .await?
    .map_err(|error| ApiError::Internal(Box::new(error)))?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/zip".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
            (
                header::HeaderName::from_static("x-bundle-files"),
                count.to_string(),
            ),
        ],
        zip,
    )
        .into_response())
}

/// `POST /api/bundle/files`'s answer.
#[derive(Debug, Serialize)]
struct BundleFiles {
    files: Vec<shared::deploy::bundle::BundleFile>,
}

/// `POST /api/bundle/files`: the bundle's files as text, for the preview's tabs of the
/// files the page does not render itself (the CloudFormation stacks, device plugin values).
async fn page_bundle_files(
    JsonBody(request): JsonBody<BundleRequest>,
) -> Result<Json<BundleFiles>, ApiError> {
    let files = off_the_workers(move || request.files())
        .await?
        .map_err(|error| ApiError::Internal(Box::new(error)))?;
    Ok(Json(BundleFiles { files }))
}

/// `POST /api/render`: the bundle (docs/deploy.md) as a zip; its README lists the open findings.
async fn render_bundle(JsonBody(spec): JsonBody<Spec>) -> Result<Response, ApiError> {
    bundle_zip(BundleRequest {
        spec,
        checks: Vec::new(),
        facts: None,
    })
    .await
}
