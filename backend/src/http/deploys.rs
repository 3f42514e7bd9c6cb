//! `/api/deploys…`. Every route needs the deploy token; request bodies are size-limited.
//!
//! | route | answer |
//! |---|---|
//! | `POST /deploys` (a spec) | 202 and the new job; 422 with the findings when the rules find errors; 409 when the cluster already has an active deploy; 429 at the concurrency limit |
//! | `GET /deploys` | every job, newest first |
//! | `GET /deploys/{id}` | one job, with the plan's output once the plan ran |
//! | `GET /deploys/{id}/events` | server-sent events after `Last-Event-ID` (or all), ending with the job |
//! | `POST /deploys/{id}/cancel` | stops the job's processes; the job, `cancelled` |
//! | `POST /applies` (`{"cluster","region","spec","approved_plan"?,"allow_disruption"?}`) | 202 and the new job, waiting for `POST /deploys/{id}/approve`; 409 when the cluster's plan now differs from `approved_plan` (each difference named); 422 when a peer refuses a change, nothing changes, or a change disrupts running pods without `allow_disruption` |

use axum::extract::{Path, State};
use axum::http::header::{CONTENT_TYPE, LOCATION};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Json, Router, middleware};
use futures_util::{Stream, StreamExt};
use shared::Spec;
use tower_http::limit::RequestBodyLimitLayer;

use crate::deploy::{DeployError, Deployer, Deploys, Job};
use crate::http::error::ApiError;
use crate::http::extract::JsonBody;

/// Largest request body accepted: far above any real spec, far below harm.
pub const MAX_REQUEST_BYTES: usize = 1024 * 1024;

/// The deploy routes, under `/api/deploys`. Without a deployer every deploy route
/// answers 503; the reason deploys could not be set up (which names the server's data
/// directory) only to callers that present the deploy token.
pub fn router(deploys: Deploys, aws: crate::aws::LiveAws) -> Router {
    let (deployer, unavailable) = match deploys {
        Deploys::Enabled(deployer) => (Some(deployer), None),
        Deploys::Unavailable(unavailable) => (None, Some(unavailable)),
        Deploys::NotEnabled => (None, None),
    };
    let Some(deployer) = deployer else {
        let not_enabled = move |headers: HeaderMap| {
            let message = match &unavailable {
                Some(unavailable) if crate::deploy::auth::presents(&headers, &unavailable.token) => {
                    format!(
                        "deploys are disabled on this server: {}; fix it and restart the server",
                        unavailable.reason
                    )
                }
                Some(_) => "deploys are disabled on this server: its data directory cannot be used; the server's log says why".to_owned(),
                None => "deploys are not enabled on this server".to_owned(),
            };
            async move { ApiError::Unavailable(message) }
        };
        return Router::new()
            .route("/api/deploys", any(not_enabled.clone()))
            .route("/api/deploys/{*rest}", any(not_enabled));
    };
    Router::new()
        .route("/api/deploys", get(list).post(create))
        .route("/api/deploys/{id}", get(show))
        .route("/api/deploys/{id}/events", get(events))
        .route("/api/deploys/{id}/cancel", post(cancel))
        .route("/api/deploys/{id}/approve", post(approve))
        .route("/api/applies", post(create_apply))
        .route_layer(RequestBodyLimitLayer::new(MAX_REQUEST_BYTES))
        .route_layer(middleware::map_response(payload_too_large_as_json))
        .route_layer(middleware::from_fn_with_state(
            Some(deployer.token().clone()),
            crate::http::token::require_token,
        ))
        .layer(axum::Extension(aws))
        .with_state(deployer)
}

/// The body limit answers a declared oversize body in plain text; say it in JSON like
/// every other refusal.
async fn payload_too_large_as_json(response: Response) -> Response {
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
    if response.status() != StatusCode::PAYLOAD_TOO_LARGE || is_json {
        return response;
    }
    ApiError::BadRequest {
        status: StatusCode::PAYLOAD_TOO_LARGE,
        message: format!("the request body is larger than {MAX_REQUEST_BYTES} bytes"),
    }
    .into_response()
}

/// `POST /api/deploys?confirm_server_files=true`: the user has seen which files of the
/// server's the design makes eksctl read (the 422's `server_files`) and allows it.
/// `POST /api/deploys?review=true`: the job waits after the plan until
/// `POST /api/deploys/{id}/approve`.
#[derive(serde::Deserialize)]
struct CreateQuery {
    #[serde(default)]
    confirm_server_files: bool,
    #[serde(default)]
    review: bool,
}

async fn create(
    State(deployer): State<Deployer>,
    peer: crate::http::token::Peer,
    query: Result<axum::extract::Query<CreateQuery>, axum::extract::rejection::QueryRejection>,
    JsonBody(spec): JsonBody<Spec>,
) -> Result<(StatusCode, [(axum::http::HeaderName, String); 1], Json<Job>), ApiError> {
    let axum::extract::Query(query) = query?;
    let job = deployer
        .start_with(
            &spec,
            query.confirm_server_files,
            query.review,
            &crate::http::token::requester(crate::http::token::peer_address(&peer)),
        )
        .await?;
    let location = format!("/api/deploys/{}", job.id);
    Ok((StatusCode::ACCEPTED, [(LOCATION, location)], Json(job)))
}

/// `POST /api/applies` input.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApplyRequest {
    /// The cluster's name.
    pub cluster: String,
    /// Its region.
    pub region: String,
    /// The design to apply.
    pub spec: Spec,
    /// The plan the user reviewed (`POST /api/plan`'s answer): the apply is refused when
    /// the cluster's plan now differs from it.
    #[serde(default)]
    pub approved_plan: Option<serde_json::Value>,
    /// Consent to steps that drain nodes or let Karpenter replace them.
    #[serde(default)]
    pub allow_disruption: bool,
    /// Take the cluster's lock even from a live holder (its holder is gone); logged in
    /// the job and the server's log, and written into the Lease.
    #[serde(default)]
    pub break_lock: bool,
}

async fn create_apply(
    State(deployer): State<Deployer>,
    peer: crate::http::token::Peer,
    axum::Extension(aws): axum::Extension<crate::aws::LiveAws>,
    JsonBody(request): JsonBody<ApplyRequest>,
) -> Result<(StatusCode, [(axum::http::HeaderName, String); 1], Json<Job>), ApiError> {
    if let Some(reason) = request.spec.beyond_what_eks_runs() {
        return Err(ApiError::unprocessable(reason));
    }
    if request.spec.cluster.name.trim() != request.cluster.trim()
        || request.spec.cluster.region.trim() != request.region.trim()
    {
        return Err(ApiError::unprocessable(format!(
            "the design is of cluster `{}` in {}, not `{}` in {}",
            request.spec.cluster.name, request.spec.cluster.region, request.cluster, request.region
        )));
    }
    let region = shared::model::ids::Region::parse(request.region.trim()).map_err(|_| {
        ApiError::unprocessable(format!("`{}` is not a known AWS region", request.region))
    })?;
    // Held to a deploy's rules before the cluster is read: no job, no AWS call for a
    // design the server would not carry.
    let admitted = deployer.admit_design(&request.spec)?;
    let tools = deployer.config().tools.clone();
    let (spec, live) =
        crate::http::clusters::plan_running(&aws, &tools, &region, &request.cluster, request.spec)
            .await?;
    if let Some(approved) = request.approved_plan {
        // Linear in both plans, and off the async workers: a large plan does not hold
        // up the health check or anyone's event stream.
        let now = live.plan.clone();
        let differences = crate::http::extract::off_the_workers(move || {
            shared::changes::apply::differences(&approved, &now)
        })
        .await?;
        if !differences.is_empty() {
            let mut detail = serde_json::Map::new();
            detail.insert("differences".into(), serde_json::json!(differences));
            return Err(ApiError::Conflict {
                message: format!(
                    "the cluster changed since the plan was approved; plan again: {}",
                    differences.join("; ")
                ),
                detail,
            });
        }
    }
    let disruptions = shared::changes::apply::disruptions(&live.plan);
    if !disruptions.is_empty() && !request.allow_disruption {
        return Err(ApiError::unprocessable(format!(
            "{}; apply with `allow_disruption` to consent: {}",
            shared::changes::apply::disrupting(disruptions.len()),
            disruptions.join("; ")
        )));
    }
    let kubeconfig =
        crate::deploy::objects::private_kubeconfig(&aws, &tools, &region, &request.cluster)
            .await
            .map_err(|why| DeployError::Locked(crate::deploy::lock::LockError::Failed(why)))?;
    let lock = crate::deploy::LockRequest {
        kubeconfig,
        break_lock: request.break_lock,
        asked_by: crate::http::token::requester(crate::http::token::peer_address(&peer)),
        drains: None,
    };
    let guard = drain_guard(
        aws,
        tools,
        region,
        request.cluster.clone(),
        spec.clone(),
        live.plan.clone(),
    );
    let job = deployer
        .start_apply(&spec, admitted, &live, lock, guard)
        .await?;
    let location = format!("/api/deploys/{}", job.id);
    Ok((StatusCode::ACCEPTED, [(LOCATION, location)], Json(job)))
}

/// Before a step of an apply drains the nodes of an object, the cluster read and planned
/// again: training that landed on them since `approved` was made stops the job there.
fn drain_guard(
    aws: crate::aws::LiveAws,
    tools: crate::deploy::Tools,
    region: shared::model::ids::Region,
    cluster: String,
    spec: Spec,
    approved: shared::changes::Plan,
) -> crate::deploy::DrainGuard {
    std::sync::Arc::new(move |kind: String, name: String| {
        let (aws, tools, region, cluster, spec, approved) = (
            aws.clone(),
            tools.clone(),
            region.clone(),
            cluster.clone(),
            spec.clone(),
            approved.clone(),
        );
        Box::pin(async move {
            let (_, now) =
                crate::http::clusters::plan_running(&aws, &tools, &region, &cluster, spec)
                    .await
                    .map_err(|error| {
                        format!("the cluster could not be read before the drain: {error}")
                    })?;
            let landed = shared::changes::apply::landed_since(&approved, &now.plan, &kind, &name);
            if landed.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "since the plan was approved, training work landed on the nodes it drains ({kind} {}): {}; plan again, review what it stops and apply that plan",
                    shared::changes::visible(&name),
                    landed.join("; ")
                ))
            }
        })
    })
}

async fn list(State(deployer): State<Deployer>) -> Result<Json<Vec<Job>>, ApiError> {
    Ok(Json(deployer.jobs().await?))
}

async fn show(
    State(deployer): State<Deployer>,
    Path(id): Path<String>,
) -> Result<Json<Job>, ApiError> {
    Ok(Json(deployer.job(&id).await?))
}

/// An apply's approval plans again against the cluster as it is now: when anything
/// differs from the plan the job shows (its changes, its steps, the running work a drain
/// would stop), the job is cancelled and the answer is 409 with each difference; the
/// person reviews the new plan.
async fn approve(
    State(deployer): State<Deployer>,
    peer: crate::http::token::Peer,
    axum::Extension(aws): axum::Extension<crate::aws::LiveAws>,
    Path(id): Path<String>,
) -> Result<Json<Job>, ApiError> {
    if let Some((spec, shown)) = deployer.waiting_apply(&id).await? {
        let job = deployer.job(&id).await?;
        let region = shared::model::ids::Region::parse(&job.region).map_err(|_| {
            ApiError::unprocessable(format!("`{}` is not a known AWS region", job.region))
        })?;
        let tools = deployer.config().tools.clone();
        let (_, now) =
            crate::http::clusters::plan_running(&aws, &tools, &region, &job.cluster, spec).await?;
        let differences = crate::http::extract::off_the_workers(move || {
            shared::changes::apply::differences(&shown, &now.plan)
        })
        .await?;
        if !differences.is_empty() {
            let said = differences.join("; ");
            deployer
                .refuse_approval(
                    &id,
                    &format!("the cluster changed since this plan was made: {said}"),
                )
                .await?;
            let mut detail = serde_json::Map::new();
            detail.insert("differences".into(), serde_json::json!(differences));
            return Err(ApiError::Conflict {
                message: format!(
                    "the cluster changed since this job's plan was made, so it was cancelled; plan again and apply the new plan: {said}"
                ),
                detail,
            });
        }
    }
    let by = crate::http::token::requester(crate::http::token::peer_address(&peer));
    Ok(Json(deployer.approve(&id, &by).await?))
}

async fn cancel(
    State(deployer): State<Deployer>,
    Path(id): Path<String>,
) -> Result<Json<Job>, ApiError> {
    Ok(Json(deployer.cancel(&id).await?))
}

/// Each event is `id: <event id>`, `event: log|stage|step|state` and the event as JSON.
async fn events(
    State(deployer): State<Deployer>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, std::convert::Infallible>>>, ApiError> {
    let after = match headers.get("last-event-id") {
        None => 0,
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|value| value.trim().parse::<i64>().ok())
            .ok_or_else(|| ApiError::BadRequest {
                status: StatusCode::BAD_REQUEST,
                message: "Last-Event-ID must be an event id (a number)".into(),
            })?,
    };
    deployer.job(&id).await?;
    let stream = deployer.follow(&id, after).map(|event| {
        Ok(SseEvent::default()
            .id(event.id.to_string())
            .event(event.body.kind())
            .json_data(&event)
            .expect("an event serialises"))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}
