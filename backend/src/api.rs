//! Small per-area routers merged into one; each handler is a thin call into `shared`.

use axum::extract::{Path, State};
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use shared::Spec;

use crate::error::ApiError;
use crate::{AppState, AwsStatus};

/// The `/api` router.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/health", get(health))
        .route("/templates", get(list_templates))
        .route("/templates/{id}", get(get_template))
        .with_state(state)
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

async fn health(State(state): State<AppState>) -> Json<Health> {
    Json(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
        aws: state.aws.status(),
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
