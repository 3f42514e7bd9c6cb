//! Every HTTP call the page makes, to its own server. Nothing here is needed to design or
//! validate: these are the parts that need AWS (live checks, deploys) and the bundle,
//! which the server builds so the page does not carry its writers; each failure comes
//! back as a sentence the page can show as it is.

use gloo_net::http::{Request, RequestBuilder, Response};
use js_sys::Uint8Array;
use serde::Deserialize;
use shared::Spec;
use shared::deploy::bundle::{BundleFile, CheckLine};
use shared::rules::LiveFacts;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

pub use shared::model::live_checks::{
    DeployEvent, EventBody, Job, JobState, LiveCheck, OutputStream, RegionOfferings, Stage,
    StageKind, WhereSold,
};

#[derive(Deserialize)]
struct ChecksAnswer {
    checks: Vec<LiveCheck>,
    /// EC2's answers as plain data, for the shared rules in the page.
    #[serde(default)]
    facts: LiveFacts,
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

/// The server's answer to a call that failed: `{"error": "…"}` and maybe more.
#[derive(Deserialize)]
struct ErrorAnswer {
    error: Option<String>,
}

/// The reason a call failed, in words: the server's own message when it gave one.
async fn failure(response: Response) -> String {
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    let message = crate::codec::json::from_str::<ErrorAnswer>(&text)
        .ok()
        .and_then(|body| body.error)
        .unwrap_or(text);
    match status {
        401 => format!(
            "the server refused the deploy token (401: {}); use the token it printed at start (\"Deploy token: …\")",
            message.trim()
        ),
        404 if message.trim().is_empty() || message.trim_start().starts_with('<') => {
            "the server has no such endpoint yet (404)".to_owned()
        }
        _ if message.trim().is_empty() => format!("the server answered {status}"),
        _ => format!("the server answered {status}: {}", message.trim()),
    }
}

/// A successful answer's JSON body as a `T`.
async fn answer<T: serde::de::DeserializeOwned>(response: Response) -> Result<T, String> {
    let text = response.text().await.map_err(|error| error.to_string())?;
    crate::codec::json::from_str(&text)
}

fn unreachable(error: gloo_net::Error) -> String {
    format!("server unreachable ({error})")
}

async fn post_spec(url: &str, spec: &Spec) -> Result<Response, String> {
    let body = crate::codec::reading::json_later(spec).await?;
    Request::post(url)
        .header("content-type", "application/json")
        .body(body)
        .map_err(|error| error.to_string())?
        .send()
        .await
        .map_err(unreachable)
}

/// The body of `POST /api/bundle` and `POST /api/bundle/files`.
async fn bundle_request(
    spec: &Spec,
    checks: &[CheckLine],
    facts: &LiveFacts,
) -> Result<String, String> {
    let text = |error: serde_json::Error| error.to_string();
    Ok(format!(
        "{{\"spec\":{},\"checks\":{},\"facts\":{}}}",
        crate::codec::reading::json_later(spec).await?,
        serde_json::to_string(checks).map_err(text)?,
        serde_json::to_string(facts).map_err(text)?
    ))
}

/// A JSON `body` posted to `url`: the answer when it succeeded, else why not in words.
async fn post_body(url: &str, body: String) -> Result<Response, String> {
    post_body_as(Request::post(url), body).await
}

/// A JSON `body` posted by `request`: the answer when it succeeded, else why not in words.
async fn post_body_as(request: RequestBuilder, body: String) -> Result<Response, String> {
    let response = request
        .header("content-type", "application/json")
        .body(body)
        .map_err(|error| error.to_string())?
        .send()
        .await
        .map_err(unreachable)?;
    if !response.ok() {
        return Err(failure(response).await);
    }
    Ok(response)
}

/// `POST /api/bundle`: the zip of the design's bundle, whose README lists `checks` and
/// the findings `facts` lead to, and how many files it holds.
pub async fn bundle(
    spec: &Spec,
    checks: &[CheckLine],
    facts: &LiveFacts,
) -> Result<(Vec<u8>, usize), String> {
    let response = post_body("/api/bundle", bundle_request(spec, checks, facts).await?).await?;
    let count = response
        .headers()
        .get("x-bundle-files")
        .and_then(|count| count.parse().ok())
        .unwrap_or_default();
    let bytes = response
        .binary()
        .await
        .map_err(|error| format!("the bundle did not arrive whole ({error})"))?;
    Ok((bytes, count))
}

#[derive(Deserialize)]
struct BundleFilesAnswer {
    files: Vec<BundleFile>,
}

/// `POST /api/bundle/files`: the design's bundle as text files.
pub async fn bundle_files(spec: &Spec) -> Result<Vec<BundleFile>, String> {
    // The preview's files need neither checks nor facts: without them, a first visit
    // carries no JSON writer for the facts.
    let body = format!(
        "{{\"spec\":{}}}",
        crate::codec::reading::json_later(spec).await?
    );
    let response = post_body("/api/bundle/files", body).await?;
    answer::<BundleFilesAnswer>(response)
        .await
        .map(|answer| answer.files)
        .map_err(|error| format!("unexpected answer for the bundle's files: {error}"))
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
    answer::<Health>(response)
        .await
        .map_err(|error| format!("unexpected health answer: {error}"))
}

/// `POST /api/checks` with the spec: each check's outcome, and what EC2 answered.
pub async fn run_checks(spec: &Spec) -> Result<(Vec<LiveCheck>, LiveFacts), String> {
    let response = post_spec("/api/checks", spec).await?;
    if !response.ok() {
        return Err(failure(response).await);
    }
    answer::<ChecksAnswer>(response)
        .await
        .map(|answer| (answer.checks, answer.facts))
        .map_err(|error| format!("unexpected live-check answer: {error}"))
}

async fn post_json<T: serde::de::DeserializeOwned>(url: &str, body: String) -> Result<T, String> {
    let response = post_body(url, body).await?;
    answer::<T>(response)
        .await
        .map_err(|error| format!("unexpected answer from {url}: {error}"))
}

/// [`post_json`] with the deploy token: the routes that read inside a running cluster.
async fn post_json_with_token<T: serde::de::DeserializeOwned>(
    url: &str,
    token: &str,
    body: String,
) -> Result<T, String> {
    let response = post_body_as(with_token(Request::post(url), token), body).await?;
    answer::<T>(response)
        .await
        .map_err(|error| format!("unexpected answer from {url}: {error}"))
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// `POST /api/offerings`: every instance type EC2 offers in the region, by zone.
pub async fn offerings(region: &str) -> Result<RegionOfferings, String> {
    post_json(
        "/api/offerings",
        format!("{{\"region\":{}}}", quoted(region)),
    )
    .await
}

/// `POST /api/where-sold`: the regions that offer each type, and where Capacity Blocks
/// for it are on sale.
pub async fn where_sold(region: &str, instance_types: &[String]) -> Result<WhereSold, String> {
    let types: Vec<String> = instance_types.iter().map(|name| quoted(name)).collect();
    post_json(
        "/api/where-sold",
        format!(
            "{{\"region\":{},\"instance_types\":[{}]}}",
            quoted(region),
            types.join(",")
        ),
    )
    .await
}

/// What `POST /api/clusters/read` answers: the running cluster's design as JSON (read
/// into a design by the lazily loaded reader, like a saved design: its code is not in a
/// first visit), and what could not be read.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterRead {
    /// The design, as the server wrote it (studio.json).
    pub spec_json: String,
    /// What could not be read, each with why.
    pub not_read: Vec<shared::upstream::eks::NotRead>,
}

#[derive(serde::Deserialize)]
struct ClusterList {
    clusters: Vec<String>,
}

/// `POST /api/clusters`: the names of the region's clusters.
pub async fn list_clusters(token: &str, region: &str) -> Result<Vec<String>, String> {
    post_json_with_token::<ClusterList>(
        "/api/clusters",
        token,
        format!("{{\"region\":{}}}", quoted(region)),
    )
    .await
    .map(|list| list.clusters)
}

/// `POST /api/clusters/read`: a running cluster read into a design.
pub async fn read_cluster(token: &str, region: &str, cluster: &str) -> Result<ClusterRead, String> {
    let answer: serde_json::Value = post_json_with_token(
        "/api/clusters/read",
        token,
        format!(
            "{{\"region\":{},\"cluster\":{}}}",
            quoted(region),
            quoted(cluster)
        ),
    )
    .await?;
    let text = |value: &serde_json::Value, key: &str| {
        value
            .get(key)
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Ok(ClusterRead {
        spec_json: answer
            .get("spec")
            .map(serde_json::Value::to_string)
            .ok_or("the server's answer holds no design")?,
        not_read: answer
            .get("not_read")
            .and_then(serde_json::Value::as_array)
            .map(|gaps| {
                gaps.iter()
                    .map(|gap| shared::upstream::eks::NotRead {
                        what: text(gap, "what"),
                        why: text(gap, "why"),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// One change of a plan, as `POST /api/plan` answers it.
#[derive(Clone, Debug, PartialEq, serde::Deserialize, serde::Serialize)]
pub struct PlannedChange {
    /// `cluster`, `nodegroup`, `addon`, `NodePool`, …
    pub kind: String,
    /// Its name.
    pub name: String,
    /// `create`, `update`, `replace` or `delete`.
    pub action: String,
    /// The keys that change.
    pub fields: Vec<String>,
    /// Whether running pods are moved.
    pub disruptive: bool,
    /// How, in words.
    pub disruption: String,
    /// The commands, in order.
    pub steps: Vec<shared::changes::Step>,
}

/// What `POST /api/plan` answers.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct LivePlan {
    /// Every change, in the order it would be made.
    pub changes: Vec<PlannedChange>,
    /// What the peers would refuse, and what to know first.
    pub findings: Vec<shared::rules::Finding>,
    /// What the plan took from the design because a read cannot see it.
    pub not_compared: Vec<String>,
    /// What the read could not see.
    pub not_read: Vec<shared::upstream::eks::NotRead>,
}

/// `POST /api/plan`: what the design would change on the running cluster.
pub async fn plan(
    token: &str,
    region: &str,
    cluster: &str,
    spec: &Spec,
) -> Result<LivePlan, String> {
    let json = crate::codec::reading::json_later(spec).await?;
    post_json_with_token(
        "/api/plan",
        token,
        format!(
            "{{\"region\":{},\"cluster\":{},\"spec\":{json}}}",
            quoted(region),
            quoted(cluster)
        ),
    )
    .await
}

fn with_token(request: RequestBuilder, token: &str) -> RequestBuilder {
    request.header("authorization", &format!("Bearer {}", token.trim()))
}

async fn job_answer<T: serde::de::DeserializeOwned>(
    sent: Result<Response, gloo_net::Error>,
) -> Result<T, String> {
    let response = sent.map_err(unreachable)?;
    if !response.ok() {
        return Err(failure(response).await);
    }
    answer::<T>(response)
        .await
        .map_err(|error| format!("unexpected deploy answer: {error}"))
}

/// Why a deploy did not start.
pub enum DeployRefusal {
    /// The design makes eksctl read these files of the server's (`key: file` each); the
    /// user may confirm them and ask again.
    ServerFiles(Vec<String>),
    /// Anything else, in a sentence.
    Other(String),
}

/// `POST /api/deploys?review=true` with the spec: the new job, which waits after its plan
/// for [`approve_deploy`]. `confirm_server_files` is the user's yes to eksctl reading the
/// files of the server's an earlier answer listed.
pub async fn start_deploy(
    token: &str,
    spec: &Spec,
    confirm_server_files: bool,
) -> Result<Job, DeployRefusal> {
    let url = if confirm_server_files {
        "/api/deploys?review=true&confirm_server_files=true"
    } else {
        "/api/deploys?review=true"
    };
    let body = crate::codec::reading::json_later(spec)
        .await
        .map_err(DeployRefusal::Other)?;
    let request = with_token(Request::post(url), token)
        .header("content-type", "application/json")
        .body(body)
        .map_err(|error| DeployRefusal::Other(error.to_string()))?;
    let response = request
        .send()
        .await
        .map_err(|error| DeployRefusal::Other(unreachable(error)))?;
    if response.status() == 422 {
        let text = response.text().await.unwrap_or_default();
        let body = crate::codec::json::from_str::<serde_json::Value>(&text).unwrap_or_default();
        if let Some(files) = body.get("server_files").and_then(|files| files.as_array()) {
            return Err(DeployRefusal::ServerFiles(
                files
                    .iter()
                    .filter_map(|file| file.as_str().map(str::to_owned))
                    .collect(),
            ));
        }
        let message = body
            .get("error")
            .and_then(|error| error.as_str())
            .map(str::to_owned)
            .unwrap_or(text);
        return Err(DeployRefusal::Other(format!(
            "the server answered 422: {}",
            message.trim()
        )));
    }
    if !response.ok() {
        return Err(DeployRefusal::Other(failure(response).await));
    }
    answer::<Job>(response)
        .await
        .map_err(|error| DeployRefusal::Other(format!("unexpected deploy answer: {error}")))
}

/// `POST /api/applies`: `plan` (the one on screen, which the user approves) applied to the
/// running cluster as a job that waits for approval; the server refuses it when the
/// cluster's plan now differs from it, or when it drains nodes and `allow_disruption` is
/// not given, and says why.
pub async fn start_apply(
    token: &str,
    region: &str,
    cluster: &str,
    spec: &Spec,
    plan: &LivePlan,
    allow_disruption: bool,
) -> Result<Job, String> {
    let json = crate::codec::reading::json_later(spec).await?;
    let changes = serde_json::to_string(&plan.changes).map_err(|error| error.to_string())?;
    let body = format!(
        "{{\"region\":{},\"cluster\":{},\"spec\":{json},\"approved_plan\":{{\"changes\":{changes}}},\"allow_disruption\":{allow_disruption}}}",
        quoted(region),
        quoted(cluster)
    );
    let request = with_token(Request::post("/api/applies"), token)
        .header("content-type", "application/json")
        .body(body)
        .map_err(|error| error.to_string())?;
    let response = request.send().await.map_err(unreachable)?;
    if !response.ok() {
        return Err(failure(response).await);
    }
    answer::<Job>(response)
        .await
        .map_err(|error| format!("unexpected apply answer: {error}"))
}

/// `GET /api/deploys`: every job, newest first.
pub async fn deploy_history(token: &str) -> Result<Vec<Job>, String> {
    job_answer(with_token(Request::get("/api/deploys"), token).send().await).await
}

/// `POST /api/deploys/{id}/approve`: the job, going on to create what its plan showed.
pub async fn approve_deploy(token: &str, job_id: &str) -> Result<Job, String> {
    let url = format!("/api/deploys/{job_id}/approve");
    job_answer(with_token(Request::post(&url), token).send().await).await
}

/// `POST /api/deploys/{id}/cancel`: the stopped job.
pub async fn cancel_deploy(token: &str, job_id: &str) -> Result<Job, String> {
    let url = format!("/api/deploys/{job_id}/cancel");
    job_answer(with_token(Request::post(&url), token).send().await).await
}

/// Splits complete server-sent-event frames off the front of `buffer` and returns each
/// frame's `data` (its lines joined); comments and keep-alives have none and are skipped.
pub fn take_sse_data(buffer: &mut String) -> Vec<String> {
    if buffer.contains('\r') {
        *buffer = buffer.replace("\r\n", "\n").replace('\r', "\n");
    }
    let mut data = Vec::new();
    while let Some(end) = buffer.find("\n\n") {
        let frame: String = buffer.drain(..end + 2).collect();
        let lines: Vec<&str> = frame
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|line| line.strip_prefix(' ').unwrap_or(line))
            .collect();
        if !lines.is_empty() {
            data.push(lines.join("\n"));
        }
    }
    data
}

/// Reads `GET /api/deploys/{id}/events` after event `after` with fetch (an `EventSource`
/// cannot send the token), calling `on_event` for each event. `Ok(true)` when the job
/// ended, `Ok(false)` when the stream stopped early (resume after the last id seen).
pub async fn follow_deploy(
    token: &str,
    job_id: &str,
    after: i64,
    abort: &web_sys::AbortSignal,
    mut on_event: impl FnMut(DeployEvent),
) -> Result<bool, String> {
    let url = format!("/api/deploys/{job_id}/events");
    let mut request = with_token(Request::get(&url), token)
        .header("accept", "text/event-stream")
        .abort_signal(Some(abort));
    if after > 0 {
        request = request.header("last-event-id", &after.to_string());
    }
    let response = request.send().await.map_err(unreachable)?;
    if !response.ok() {
        return Err(failure(response).await);
    }
    let body = response.body().ok_or("the event stream has no body")?;
    let reader = web_sys::ReadableStreamDefaultReader::new(&body)
        .map_err(|_| "the browser cannot read the event stream".to_owned())?;
    let decoder = web_sys::TextDecoder::new().map_err(|_| "no TextDecoder".to_owned())?;
    let options = web_sys::TextDecodeOptions::new();
    options.set_stream(true);
    let mut buffer = String::new();
    loop {
        let Ok(chunk) = JsFuture::from(reader.read()).await else {
            return Ok(false);
        };
        let done = js_sys::Reflect::get(&chunk, &"done".into())
            .ok()
            .and_then(|done| done.as_bool())
            .unwrap_or(true);
        if done {
            return Ok(false);
        }
        let Ok(bytes) = js_sys::Reflect::get(&chunk, &"value".into())
            .map(|value| value.unchecked_into::<Uint8Array>())
        else {
            return Ok(false);
        };
        buffer.push_str(
            &decoder
                .decode_with_js_u8_array_and_options(&bytes, &options)
                .unwrap_or_default(),
        );
        for data in take_sse_data(&mut buffer) {
            if let Ok(event) = crate::codec::json::from_str::<DeployEvent>(&data) {
                let ends_job = event.ends_job();
                on_event(event);
                if ends_job {
                    let _ = reader.cancel();
                    return Ok(true);
                }
            }
        }
    }
}
