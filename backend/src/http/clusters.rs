//! Running clusters over HTTP: `POST /api/clusters` (the region's clusters),
//! `POST /api/clusters/read` (one read into a design) and `POST /api/plan` (what a design
//! would change on it). Read-only AWS calls, but what they answer (access entries, node
//! classes' user data, every workload on the nodes) is the cluster's: each route needs
//! the deploy token. They do not take the live checks' turns; a plan's comparison takes
//! one of the heavy-work turns.

use axum::Extension;
use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router, middleware};
use serde::{Deserialize, Serialize};
use shared::Spec;
use shared::changes::plan::LivePlan;
use shared::model::ids::Region;
use shared::upstream::eks::NotRead;

use crate::aws::{AwsError, LiveAws};
use crate::deploy::objects::read_running;
use crate::deploy::planning::PlanError;
use crate::deploy::{DeployToken, Tools};
use crate::http::error::ApiError;
use crate::http::extract::JsonBody;

/// The routes, under `/api`, open to holders of `token` only.
pub fn router(aws: LiveAws, tools: Tools, token: Option<DeployToken>) -> Router {
    Router::new()
        .route("/api/clusters", post(list))
        .route("/api/clusters/read", post(read))
        .route("/api/plan", post(plan))
        .route_layer(middleware::from_fn_with_state(
            token,
            crate::http::token::require_token,
        ))
        .layer(Extension(tools))
        .with_state(aws)
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
    let region = region(&request.region)?;
    let (_, live) = plan_running(&aws, &tools, &region, &request.cluster, request.spec).await?;
    Ok(Json(live))
}

/// Reads cluster `cluster` and plans `spec` against it (the one read-then-plan,
/// [`crate::deploy::planning`]), its failure as the answer.
pub(crate) async fn plan_running(
    aws: &LiveAws,
    tools: &Tools,
    region: &Region,
    cluster: &str,
    spec: Spec,
) -> Result<(Spec, LivePlan), ApiError> {
    crate::deploy::planning::plan_running(aws, tools, region, cluster, spec)
        .await
        .map_err(|error| match error {
            PlanError::Beyond(reason) => ApiError::unprocessable(reason),
            PlanError::Aws(error) => aws_error(cluster, error),
            PlanError::Work(error) => error.into(),
        })
}
