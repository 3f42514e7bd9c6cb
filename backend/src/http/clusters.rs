//! Running clusters over HTTP: `POST /api/clusters` (the region's clusters),
//! `POST /api/clusters/read` (one read into a design) and `POST /api/plan` (what a design
//! would change on it). Read-only AWS calls; they share the live checks' turns.

use axum::Extension;
use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use shared::Spec;
use shared::changes::addons::plan_against_offered;
use shared::changes::read::LivePlan;
use shared::model::ids::Region;
use shared::upstream::eks::NotRead;

use crate::aws::{AwsError, LiveAws};
use crate::deploy::Tools;
use crate::deploy::objects::{read_for_plan, read_running};
use crate::http::error::ApiError;
use crate::http::extract::JsonBody;

/// The routes, under `/api`.
pub fn routes(tools: Tools) -> Router<LiveAws> {
    Router::new()
        .route("/api/clusters", post(list))
        .route("/api/clusters/read", post(read))
        .route("/api/plan", post(plan))
        .layer(Extension(tools))
}

/// `POST /api/clusters` input.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionRequest {
    /// The region to list.
    pub region: String,
}

/// `POST /api/clusters` answer.
#[derive(Debug, Serialize)]
pub struct ClusterList {
    /// The region asked about.
    pub region: String,
    /// Its clusters' names.
    pub clusters: Vec<String>,
}

/// `POST /api/clusters/read` input.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadRequest {
    /// The cluster's region.
    pub region: String,
    /// The cluster's name.
    pub cluster: String,
}

/// `POST /api/clusters/read` answer.
#[derive(Debug, Serialize)]
pub struct ReadAnswer {
    /// The running cluster as a design.
    pub spec: Spec,
    /// What could not be read, each with why.
    pub not_read: Vec<NotRead>,
}

/// `POST /api/plan` input.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanRequest {
    /// The cluster's region.
    pub region: String,
    /// The cluster's name.
    pub cluster: String,
    /// The design to plan.
    pub spec: Spec,
}

fn region(text: &str) -> Result<Region, ApiError> {
    Region::parse(text.trim())
        .map_err(|_| ApiError::unprocessable(format!("`{text}` is not a known AWS region")))
}

/// An AWS failure as the answer: no credentials 503, a cluster EKS does not have 404,
/// a refused call 422 with EKS's words, anything else 502-like as 503.
pub(crate) fn aws_error(cluster: &str, error: AwsError) -> ApiError {
    match &error {
        AwsError::Refused { code, .. } if code == "ResourceNotFoundException" => {
            ApiError::NotFound(format!("no cluster named `{cluster}`: {error}"))
        }
        AwsError::Refused { .. } | AwsError::UnknownRegion(_) => {
            ApiError::unprocessable(error.to_string())
        }
        _ => ApiError::Unavailable(error.to_string()),
    }
}

async fn list(
    State(aws): State<LiveAws>,
    JsonBody(request): JsonBody<RegionRequest>,
) -> Result<Json<ClusterList>, ApiError> {
    let region = region(&request.region)?;
    let clusters = aws
        .cluster_names(&region)
        .await
        .map_err(|error| aws_error("", error))?;
    Ok(Json(ClusterList {
        region: region.as_str().to_owned(),
        clusters,
    }))
}

async fn read(
    State(aws): State<LiveAws>,
    Extension(tools): Extension<Tools>,
    JsonBody(request): JsonBody<ReadRequest>,
) -> Result<Json<ReadAnswer>, ApiError> {
    let region = region(&request.region)?;
    let reading = read_running(&aws, &tools, &region, &request.cluster, &[])
        .await
        .map_err(|error| aws_error(&request.cluster, error))?;
    Ok(Json(ReadAnswer {
        spec: reading.spec,
        not_read: reading.not_read,
    }))
}

async fn plan(
    State(aws): State<LiveAws>,
    Extension(tools): Extension<Tools>,
    JsonBody(request): JsonBody<PlanRequest>,
) -> Result<Json<LivePlan>, ApiError> {
    if let Some(reason) = request.spec.beyond_what_eks_runs() {
        return Err(ApiError::unprocessable(reason));
    }
    let region = region(&request.region)?;
    let (reading, offer) = read_for_plan(&aws, &tools, &region, &request.cluster, &request.spec)
        .await
        .map_err(|error| aws_error(&request.cluster, error))?;
    // Comparing renders both designs: off the async workers, like other work that grows
    // with the input.
    let answer = tokio::task::spawn_blocking(move || {
        plan_against_offered(
            &reading,
            &request.spec,
            offer
                .as_ref()
                .map(|offer| offer.as_ref().map_err(Clone::clone)),
        )
    })
    .await
    .map_err(|error| ApiError::Internal(Box::new(error)))?;
    Ok(Json(answer))
}
