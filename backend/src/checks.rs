//! Live AWS checks over HTTP (`POST /api/checks`, `POST /api/capacity-block-offerings`)
//! and from the terminal (`eks-studio check`). Both are thin: [`aws::live::run`] does the work.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use axum::extract::{FromRequest, Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use shared::Spec;
use tokio::sync::Semaphore;

use futures_util::StreamExt;
use shared::api::{BlockRegion, RegionOfferings, TypeRegions, WhereSold};

use crate::aws::calls::{CapacityBlockOffering, CapacityBlockQuery};
use crate::aws::live::{self, CheckStatus, LiveReport};
use crate::aws::{AwsOptions, LiveAws};
use crate::error::ApiError;

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

/// A JSON body whose rejection is an [`ApiError`] saying what is wrong with it (the
/// field, for a body that does not fit the type).
pub struct JsonBody<T>(pub T);

/// A [`JsonBody`] with the size of the body it was read from, for handlers whose work grows
/// with the input's bytes rather than with anything the type counts (a 1 MB key).
pub struct SizedJsonBody<T>(pub T, pub usize);

/// Bodies larger than this are read off the async workers (see `api::off_the_workers`).
const LARGE_BODY_BYTES: usize = 256 * 1024;

impl<S, T> FromRequest<S> for JsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned + Send + 'static,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<JsonBody<T>, ApiError> {
        let SizedJsonBody(value, _) = SizedJsonBody::from_request(request, state).await?;
        Ok(JsonBody(value))
    }
}

impl<S, T> FromRequest<S> for SizedJsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned + Send + 'static,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<SizedJsonBody<T>, ApiError> {
        let plain_json = request
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split(';').next())
            .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"));
        if !plain_json {
            // axum decides about other content types and says why it refuses them.
            let size = request
                .headers()
                .get(axum::http::header::CONTENT_LENGTH)
                .and_then(|value| value.to_str().ok()?.parse().ok())
                // Not said: counted as large, so its work goes off the async workers.
                .unwrap_or(usize::MAX);
            let Json(value) = Json::<T>::from_request(request, state).await?;
            return Ok(SizedJsonBody(value, size));
        }
        let bytes = axum::body::Bytes::from_request(request, state).await?;
        let size = bytes.len();
        let JsonBody(value) = if size > LARGE_BODY_BYTES {
            crate::api::off_the_workers(move || read_json(&bytes)).await??
        } else {
            read_json(&bytes)?
        };
        Ok(SizedJsonBody(value, size))
    }
}

/// A JSON body read as `T`, or a JSON 4xx naming the field that is wrong.
fn read_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<JsonBody<T>, ApiError> {
    // Read without tracking the path first; only a body that fails is read again
    // through axum, whose message names the field (`node_groups[0].min_size: …`).
    // The body's UTF-8 is checked once, as a whole: read from bytes, serde_json would
    // check each string on its own, a quarter of the reading time.
    if let Ok(text) = std::str::from_utf8(bytes)
        && let Ok(value) = serde_json::from_str(text)
    {
        return Ok(JsonBody(value));
    }
    let Json(value) = Json::<T>::from_bytes(bytes)?;
    Ok(JsonBody(value))
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
    let region = shared::ids::Region::parse(&request.region)
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

fn known_region(name: &str) -> Result<shared::ids::Region, ApiError> {
    shared::ids::Region::parse(name)
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
    let regions: Vec<shared::ids::Region> = regions
        .iter()
        .filter_map(|name| shared::ids::Region::parse(name).ok())
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
                        let sold_as_blocks = shared::catalog::lookup(&entry.instance_type)
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

/// Output format of `eks-studio check`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    /// One line per check, then the live findings as diagnostics.
    #[default]
    Human,
    /// The same JSON object `POST /api/checks` answers.
    Json,
}

/// `eks-studio check --spec FILE`: exit 0 when every check is ok, 1 when any failed,
/// 2 when the spec cannot be read or some check could not run.
pub fn check_command(
    spec_path: &Path,
    ec2_endpoint: Option<String>,
    eks_endpoint: Option<String>,
    format: CheckFormat,
    max_bytes: u64,
) -> ExitCode {
    let text = match crate::lint_cmd::read_capped(spec_path, max_bytes) {
        Ok(text) => text,
        Err(failure) => {
            eprintln!(
                "error: cannot read {}: {}",
                spec_path.display(),
                failure.message
            );
            return ExitCode::from(2);
        }
    };
    let spec = match Spec::from_json(&text) {
        Ok(spec) => spec,
        Err(error) => {
            eprintln!(
                "{}:{}:{}: error: {error}",
                spec_path.display(),
                error.line(),
                error.column()
            );
            return ExitCode::from(2);
        }
    };
    if let Some(reason) = spec.beyond_what_eks_runs() {
        eprintln!("error: {}: {reason}", spec_path.display());
        return ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let (aws, report) = runtime.block_on(async {
        let aws =
            LiveAws::from_default_chain(AwsOptions::from_environment(ec2_endpoint, eks_endpoint))
                .await;
        let report = live::run(&aws, &spec).await;
        (aws, report)
    });
    match format {
        CheckFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("a report serialises to JSON")
        ),
        CheckFormat::Human => print_human(spec_path, &spec, &aws, &report),
    }
    exit_code(&report)
}

fn exit_code(report: &LiveReport) -> ExitCode {
    let any = |status| report.checks.iter().any(|check| check.status == status);
    if any(CheckStatus::Failed) {
        ExitCode::from(1)
    } else if any(CheckStatus::CouldNotRun) {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

fn print_human(spec_path: &Path, spec: &Spec, aws: &LiveAws, report: &LiveReport) {
    let status = aws.status();
    let endpoint = status
        .ec2_endpoint
        .as_deref()
        .map(|endpoint| format!(" (EC2 at {endpoint})"))
        .unwrap_or_default();
    println!(
        "live checks for `{}` in {}{endpoint}",
        spec.cluster.name, spec.cluster.region
    );
    if let Some(reason) = &status.reason {
        println!("offline: {reason}");
    }
    let id_width = report
        .checks
        .iter()
        .map(|check| check.id.len())
        .max()
        .unwrap_or(0);
    for check in &report.checks {
        println!(
            "  {:13}  {:id_width$}  {}: {}",
            check.status.as_str(),
            check.id,
            check.path,
            check.message
        );
    }
    let live_findings = report
        .findings
        .iter()
        .filter(|finding| shared::rules::rule(&finding.rule).is_some_and(|rule| rule.live));
    let mut first = true;
    for finding in live_findings {
        if first {
            println!();
            first = false;
        }
        println!(
            "{}: {}[{}]: {}: {}",
            spec_path.display(),
            finding.severity,
            finding.rule,
            finding.path,
            finding.message
        );
        println!("  = help: {}", finding.help);
    }
    let count = |status| {
        report
            .checks
            .iter()
            .filter(|check| check.status == status)
            .count()
    };
    println!(
        "\n{} ok, {} failed, {} could not run",
        count(CheckStatus::Ok),
        count(CheckStatus::Failed),
        count(CheckStatus::CouldNotRun)
    );
}

/// Builds the server's EC2 access for `serve`: the default chain, `--ec2-endpoint`, and
/// the cache and timeout settings from the environment.
pub async fn server_aws(ec2_endpoint: Option<String>, eks_endpoint: Option<String>) -> LiveAws {
    LiveAws::from_default_chain(AwsOptions::from_environment(ec2_endpoint, eks_endpoint)).await
}
