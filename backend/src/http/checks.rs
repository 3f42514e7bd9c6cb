//! Live AWS checks over HTTP (`POST /api/checks`, `POST /api/capacity-block-offerings`)
//! and from the terminal (`eks-studio check`). Both are thin: [`aws::live::run`] does the work.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use shared::Spec;
use tokio::sync::Semaphore;

use futures_util::StreamExt;
use shared::model::live_checks::{BlockRegion, RegionOfferings, TypeRegions, WhereSold};

use crate::aws::LiveAws;
use crate::aws::calls::{CapacityBlockOffering, CapacityBlockQuery};
use crate::aws::live::{self, CheckStatus, LiveReport};
use crate::http::error::ApiError;
use crate::http::extract::JsonBody;

/// Live-check requests (`/api/checks`, `/api/capacity-block-offerings`) that may run at
/// once; more wait up to [`CHECK_QUEUE_WAIT`] for a turn, then get 429, so no client can
/// pile up EC2 work.
pub const MAX_CONCURRENT_CHECKS: usize = 4;

/// How long a live-check request waits for one of the [`MAX_CONCURRENT_CHECKS`] turns.
pub const CHECK_QUEUE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The live-check routes, under `/api`.
pub fn router(aws: LiveAws) -> Router {
    let running = Arc::new(Semaphore::new(MAX_CONCURRENT_CHECKS));
    Router::new()
        .route("/api/checks", post(run_checks))
        .route(
            "/api/capacity-block-offerings",
            post(capacity_block_offerings),
        )
        .route("/api/offerings", post(region_offerings))
        .route("/api/where-sold", post(where_sold))
        .route_layer(middleware::from_fn_with_state(running, one_of_few))
        .with_state(aws)
}

async fn one_of_few(
    State(running): State<Arc<Semaphore>>,
    request: Request,
    next: Next,
) -> Response {
    match tokio::time::timeout(CHECK_QUEUE_WAIT, running.acquire()).await {
        Ok(Ok(_permit)) => next.run(request).await,
        _ => ApiError::TooManyRequests(format!(
            "{MAX_CONCURRENT_CHECKS} live checks have been running for {} s; try again when one has answered",
            CHECK_QUEUE_WAIT.as_secs()
        ))
        .into_response(),
    }
}

/// `POST /api/checks`: a spec in, every live check's result, EC2's answers as facts and
/// the findings of every rule given those facts out.
async fn run_checks(
    State(aws): State<LiveAws>,
    JsonBody(spec): JsonBody<Spec>,
) -> Result<Json<LiveReport>, ApiError> {
    if let Some(reason) = spec.beyond_what_eks_runs() {
        return Err(ApiError::unprocessable(reason));
    }
    Ok(Json(live::run(&aws, &spec).await))
}

/// `POST /api/capacity-block-offerings` input: where and what to look for.
///
/// The query's fields are spelt out rather than flattened: serde reads a flattened struct
/// through a buffer that forgets field names, so a bad `instance_count` would be reported
/// without saying which field it was.
#[derive(Debug, Deserialize)]
pub struct CapacityBlockRequest {
    /// Region to search, e.g. `us-east-1`.
    pub region: String,
    /// Instance type, e.g. `p5.48xlarge`.
    pub instance_type: String,
    /// Instances in the block.
    pub instance_count: u32,
    /// Length of the block, hours.
    pub duration_hours: u32,
    /// Earliest start (RFC 3339), if any.
    #[serde(default)]
    pub start_after: Option<String>,
    /// Latest end (RFC 3339), if any.
    #[serde(default)]
    pub end_before: Option<String>,
    /// An UltraServer type to search for instead of `instance_type` (`u-p6e-gb200x72`).
    #[serde(default)]
    pub ultraserver_type: Option<String>,
    /// UltraServers in the block, with `ultraserver_type` (default 1).
    #[serde(default)]
    pub ultraserver_count: Option<u32>,
}

impl CapacityBlockRequest {
    /// The EC2 search it asks for.
    pub fn query(&self) -> CapacityBlockQuery {
        CapacityBlockQuery {
            instance_type: self.instance_type.clone(),
            instance_count: self.instance_count,
            duration_hours: self.duration_hours,
            start_after: self.start_after.clone(),
            end_before: self.end_before.clone(),
            ultraserver_type: self.ultraserver_type.clone(),
            ultraserver_count: self
                .ultraserver_type
                .as_ref()
                .map(|_| self.ultraserver_count.unwrap_or(1)),
        }
    }
}

/// `POST /api/capacity-block-offerings` answer.
#[derive(Debug, Serialize)]
pub struct CapacityBlockAnswer {
    /// `ok` or `could-not-run`.
    pub status: CheckStatus,
    /// How many were found, or why the search could not run.
    pub message: String,
    /// The offerings, soonest first.
    pub offerings: Vec<CapacityBlockOffering>,
}

async fn capacity_block_offerings(
    State(aws): State<LiveAws>,
    JsonBody(request): JsonBody<CapacityBlockRequest>,
) -> Result<Json<CapacityBlockAnswer>, ApiError> {
    let region = shared::model::ids::Region::parse(&request.region)
        .map_err(|error| ApiError::unprocessable(format!("region `{}` {error}", request.region)))?;
    let query = &request.query();
    if let Some(problem) = query.problem() {
        return Err(ApiError::unprocessable(problem));
    }
    let answer = match aws.capacity_block_offerings(&region, query).await {
        Ok(offerings) => CapacityBlockAnswer {
            status: CheckStatus::Ok,
            message: format!(
                "{} Capacity Block offering(s) for {} for {} h in {}",
                offerings.len(),
                query.asked(),
                query.duration_hours,
                region.as_str()
            ),
            offerings: offerings.to_vec(),
        },
        Err(error) => CapacityBlockAnswer {
            status: CheckStatus::CouldNotRun,
            message: error.to_string(),
            offerings: Vec::new(),
        },
    };
    Ok(Json(answer))
}

/// `POST /api/offerings` input.
#[derive(Debug, Deserialize)]
pub struct OfferingsRequest {
    /// Region, e.g. `us-west-2`.
    pub region: String,
}

fn known_region(name: &str) -> Result<shared::model::ids::Region, ApiError> {
    shared::model::ids::Region::parse(name)
        .map_err(|error| ApiError::unprocessable(format!("region `{name}` {error}")))
}

/// `POST /api/offerings`: every instance type offered in the region, with its zones.
async fn region_offerings(
    State(aws): State<LiveAws>,
    JsonBody(request): JsonBody<OfferingsRequest>,
) -> Result<Json<RegionOfferings>, ApiError> {
    let region = known_region(&request.region)?;
    let answer = match tokio::try_join!(aws.zones(&region), aws.offerings_in_region(&region)) {
        Ok((zones, offered)) => RegionOfferings {
            status: CheckStatus::Ok,
            message: format!(
                "{} instance types offered in {}'s {} zones",
                offered.len(),
                region.as_str(),
                zones.len()
            ),
            region: region.as_str().to_owned(),
            zones: zones.iter().map(|zone| zone.name.clone()).collect(),
            instance_types: offered.iter().cloned().collect(),
        },
        Err(error) => RegionOfferings {
            status: CheckStatus::CouldNotRun,
            message: error.to_string(),
            region: region.as_str().to_owned(),
            ..RegionOfferings::default()
        },
    };
    Ok(Json(answer))
}

/// How many EC2 calls one `POST /api/where-sold` has in flight at once.
pub const WHERE_SOLD_AT_ONCE: usize = 8;

/// Most instance types one `POST /api/where-sold` may ask about.
pub const WHERE_SOLD_MAX_TYPES: usize = 4;

/// Most Capacity Block searches one `POST /api/where-sold` makes (one per region offering
/// each Capacity Block type); those past it are reported unanswered, so a request stays
/// within about a hundred EC2 calls.
pub const WHERE_SOLD_BLOCK_SEARCHES: usize = 64;

/// `POST /api/where-sold` input.
#[derive(Debug, Deserialize)]
pub struct WhereSoldRequest {
    /// The region to list the account's regions from (the design's).
    pub region: String,
    /// The instance types to look for.
    pub instance_types: Vec<String>,
}

/// `POST /api/where-sold`: in which regions each type is offered and where Capacity
/// Blocks for it are on sale, asked of every region concurrently.
async fn where_sold(
    State(aws): State<LiveAws>,
    JsonBody(request): JsonBody<WhereSoldRequest>,
) -> Result<Json<WhereSold>, ApiError> {
    let home = known_region(&request.region)?;
    let mut asked: Vec<String> = Vec::new();
    for name in &request.instance_types {
        let name = name.trim();
        if name.is_empty() || asked.iter().any(|known| known == name) {
            continue;
        }
        if !name.contains('.') || name.len() > 64 {
            return Err(ApiError::unprocessable(format!(
                "instance_types: `{name}` is not an instance type name such as `p5.48xlarge`"
            )));
        }
        asked.push(name.to_owned());
    }
    if asked.is_empty() || asked.len() > WHERE_SOLD_MAX_TYPES {
        return Err(ApiError::unprocessable(format!(
            "instance_types: give 1 to {WHERE_SOLD_MAX_TYPES} instance types"
        )));
    }
    let regions = match aws.regions(&home).await {
        Ok(regions) => regions,
        Err(error) => {
            return Ok(Json(WhereSold {
                status: CheckStatus::CouldNotRun,
                message: error.to_string(),
                instance_types: Vec::new(),
            }));
        }
    };
    // The regions the studio knows (and so can deploy to); the account's list may hold
    // newer ones the studio cannot name yet.
    let regions: Vec<shared::model::ids::Region> = regions
        .iter()
        .filter_map(|name| shared::model::ids::Region::parse(name).ok())
        .collect();
    // A few regions at a time: a burst of thirty calls gains little over eight and is what
    // trips an endpoint's rate limits.
    let offered: Vec<_> = futures_util::stream::iter(regions.clone())
        .map(|region| {
            let (aws, asked) = (aws.clone(), asked.clone());
            async move { aws.offered_in_region(&region, &asked).await }
        })
        .buffered(WHERE_SOLD_AT_ONCE)
        .collect()
        .await;
    let mut answer: Vec<TypeRegions> = asked
        .iter()
        .map(|name| TypeRegions {
            instance_type: name.clone(),
            ..TypeRegions::default()
        })
        .collect();
    let mut block_searches = Vec::new();
    for (region, offered) in regions.iter().zip(offered) {
        match offered {
            Ok(offered) => {
                for entry in answer.iter_mut() {
                    if offered.contains(&entry.instance_type) {
                        entry.regions.push(region.as_str().to_owned());
                        let sold_as_blocks =
                            shared::catalog::instances::lookup(&entry.instance_type)
                                .is_some_and(|known| known.capacity_block_eligible);
                        if sold_as_blocks {
                            block_searches.extend(
                                CapacityBlockQuery::for_a_day(&entry.instance_type)
                                    .into_iter()
                                    .map(|query| (query, region.clone())),
                            );
                        }
                    }
                }
            }
            Err(error) => {
                for entry in answer.iter_mut() {
                    entry
                        .unanswered
                        .push(format!("{}: {error}", region.as_str()));
                }
            }
        }
    }
    let over_budget = block_searches.split_off(block_searches.len().min(WHERE_SOLD_BLOCK_SEARCHES));
    for (query, region) in &over_budget {
        if let Some(entry) = answer
            .iter_mut()
            .find(|entry| entry.instance_type == query.instance_type)
        {
            entry.unanswered.push(format!(
                "{} (Capacity Blocks): not asked, past {WHERE_SOLD_BLOCK_SEARCHES} searches in one request",
                region.as_str()
            ));
        }
    }
    let blocks: Vec<_> = futures_util::stream::iter(block_searches.clone())
        .map(|(query, region)| {
            let aws = aws.clone();
            async move { aws.capacity_block_offerings(&region, &query).await }
        })
        .buffered(WHERE_SOLD_AT_ONCE)
        .collect()
        .await;
    for ((query, region), found) in block_searches.iter().zip(blocks) {
        let Some(entry) = answer
            .iter_mut()
            .find(|entry| entry.instance_type == query.instance_type)
        else {
            continue;
        };
        match found {
            Ok(offerings) if !offerings.is_empty() => entry.capacity_blocks.push(BlockRegion {
                region: region.as_str().to_owned(),
                earliest_start: offerings
                    .iter()
                    .filter_map(|offering| offering.start_date.clone())
                    .min(),
                ultraserver_type: query.ultraserver_type.clone(),
            }),
            Ok(_) => {}
            Err(error) => entry
                .unanswered
                .push(format!("{} (Capacity Blocks): {error}", region.as_str())),
        }
    }
    Ok(Json(WhereSold {
        status: CheckStatus::Ok,
        message: format!("asked {} regions about {}", regions.len(), asked.join(", ")),
        instance_types: answer,
    }))
}
