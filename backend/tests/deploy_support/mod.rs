//! Helpers for the deploy tests: a deployer on a fresh data directory with the stand-in
//! tools, requests through `app(state).oneshot`, a server-sent-events reader, the real
//! `eks-studio serve` binary on a free loopback port, and process checks by PID.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use backend::deploy::{DeployConfig, DeployToken, Deployer, Tools};
use backend::{AppState, app};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

/// The token every harness uses.
pub const TOKEN: &str = "test-token-0123456789abcdef";

/// The environment of a server that deploys with the stand-ins: the token, and AWS
/// credentials for the tools (the stand-ins call no AWS), without which deploys are
/// refused up front.
pub const DEPLOY_ENV: &[(&str, &str)] = &[
    ("EKS_STUDIO_DEPLOY_TOKEN", TOKEN),
    ("AWS_ACCESS_KEY_ID", "testing"),
    ("AWS_SECRET_ACCESS_KEY", "testing"),
];

/// `tests/fixtures/` at the workspace root.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .canonicalize()
        .expect("tests/fixtures exists")
}

/// A fresh directory for one test under Cargo's test scratch space.
pub fn scratch_dir(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("deploy-{name}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The stand-in tools.
pub fn standin_tools() -> Tools {
    Tools {
        eksctl: fixtures().join("eksctl"),
        helm: fixtures().join("helm"),
        kubectl: fixtures().join("kubectl"),
        aws: fixtures().join("aws"),
    }
}

/// A deployer on its own data directory, driven through `app(state).oneshot`.
pub struct Harness {
    /// The deployer every request shares.
    pub deployer: Deployer,
    /// Its data directory.
    pub data_dir: PathBuf,
}

impl Harness {
    /// Stand-in tools, a 2 s stop grace, the default limits.
    pub fn new(name: &str) -> Harness {
        Harness::with(name, |_| {})
    }

    /// Like [`Harness::new`], then `adjust` the configuration.
    pub fn with(name: &str, adjust: impl FnOnce(&mut DeployConfig)) -> Harness {
        let data_dir = scratch_dir(name).join("data");
        let mut config = DeployConfig::new(
            data_dir.clone(),
            standin_tools(),
            DeployToken::new(TOKEN).unwrap(),
        );
        config.stop_grace = Duration::from_secs(2);
        adjust(&mut config);
        let data_dir = config.data_dir.clone();
        Harness {
            deployer: Deployer::open(config).expect("the deployer opens"),
            data_dir,
        }
    }

    /// The whole application with this deployer.
    pub fn app(&self) -> Router {
        app(AppState {
            deploys: backend::deploy::Deploys::Enabled(self.deployer.clone()),
            ..AppState::default()
        })
    }

    /// A request with the right token; the answer's status and JSON body.
    pub async fn call(&self, method: &str, uri: &str, body: Option<&Value>) -> (StatusCode, Value) {
        self.call_with(method, uri, body, Some(&format!("Bearer {TOKEN}")))
            .await
    }

    /// A request with the given `Authorization` header (or none).
    pub async fn call_with(
        &self,
        method: &str,
        uri: &str,
        body: Option<&Value>,
        authorization: Option<&str>,
    ) -> (StatusCode, Value) {
        let mut request = Request::builder().method(method).uri(uri);
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization);
        }
        let request = match body {
            Some(body) => request
                .header("content-type", "application/json")
                .body(Body::from(body.to_string())),
            None => request.body(Body::empty()),
        }
        .unwrap();
        let response = self.app().oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let value = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| json!({ "not-json": String::from_utf8_lossy(&bytes) }));
        (status, value)
    }

    /// `POST /api/deploys` with `Content-Length` set, as a real client sends it.
    pub async fn post_declared_length(&self, body: &str) -> (StatusCode, Value) {
        let request = Request::post("/api/deploys")
            .header("authorization", format!("Bearer {TOKEN}"))
            .header("content-type", "application/json")
            .header("content-length", body.len())
            .body(Body::from(body.to_owned()))
            .unwrap();
        let response = self.app().oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// `POST /api/deploys` with `spec`; asserts 202 and answers the job.
    pub async fn deploy(&self, spec: &Value) -> Value {
        let (status, job) = self.call("POST", "/api/deploys", Some(spec)).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{job}");
        job
    }

    /// The job as `GET /api/deploys/{id}` shows it.
    pub async fn job(&self, id: &str) -> Value {
        let (status, job) = self.call("GET", &format!("/api/deploys/{id}"), None).await;
        assert_eq!(status, StatusCode::OK, "{job}");
        job
    }

    /// Opens `GET /api/deploys/{id}/events`, after `last_event_id` when given.
    pub async fn events(&self, id: &str, last_event_id: Option<&str>) -> SseReader {
        let mut request = Request::get(format!("/api/deploys/{id}/events"))
            .header("authorization", format!("Bearer {TOKEN}"));
        if let Some(last) = last_event_id {
            request = request.header("last-event-id", last);
        }
        let response = self
            .app()
            .oneshot(request.body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            response.headers()["content-type"],
            "text/event-stream",
            "an event stream"
        );
        SseReader {
            body: response.into_body(),
            buffer: Vec::new(),
        }
    }

    /// `GET /api/deploys/{id}/events` with this `Last-Event-ID`, for answers that are not streams.
    pub async fn events_status(&self, id: &str, last_event_id: &str) -> (StatusCode, Value) {
        let request = Request::get(format!("/api/deploys/{id}/events"))
            .header("authorization", format!("Bearer {TOKEN}"))
            .header("last-event-id", last_event_id)
            .body(Body::empty())
            .unwrap();
        let response = self.app().oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// Every event of a job from the start until the stream ends with the job.
    pub async fn all_events(&self, id: &str) -> Vec<SseMessage> {
        self.events(id, None).await.rest().await
    }

    /// The job's directory.
    pub fn job_dir(&self, id: &str) -> PathBuf {
        self.data_dir.join("jobs").join(id)
    }
}

/// One server-sent event.
#[derive(Clone, Debug, PartialEq)]
pub struct SseMessage {
    /// `id:`.
    pub id: i64,
    /// `event:`.
    pub event: String,
    /// `data:` as JSON.
    pub data: Value,
}

/// Reads server-sent events from a response body.
pub struct SseReader {
    body: Body,
    /// Bytes read but not yet parsed; an event (or a character) may span frames.
    buffer: Vec<u8>,
}

impl SseReader {
    /// The next event, or `None` when the stream ended.
    pub async fn next(&mut self) -> Option<SseMessage> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|pair| pair == b"\n\n") {
                let block: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let block = String::from_utf8(block).expect("events are UTF-8");
                let (mut id, mut event, mut data) = (None, String::new(), String::new());
                for line in block.lines() {
                    if let Some(value) = line.strip_prefix("id:") {
                        id = Some(value.trim().parse().expect("a numeric id"));
                    } else if let Some(value) = line.strip_prefix("event:") {
                        event = value.trim().to_owned();
                    } else if let Some(value) = line.strip_prefix("data:") {
                        data.push_str(value.trim_start());
                    }
                }
                // Comments (keep-alives) carry no id.
                if let Some(id) = id {
                    let data = serde_json::from_str(&data).expect("JSON data");
                    return Some(SseMessage { id, event, data });
                }
                continue;
            }
            let frame = self.body.frame().await?.expect("the stream reads");
            if let Ok(bytes) = frame.into_data() {
                self.buffer.extend_from_slice(&bytes);
            }
        }
    }

    /// Every remaining event until the stream ends.
    pub async fn rest(mut self) -> Vec<SseMessage> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            events.push(event);
        }
        events
    }

    /// Reads until an event satisfies `found`; returns everything read, that one last.
    pub async fn until(&mut self, found: impl Fn(&SseMessage) -> bool) -> Vec<SseMessage> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            let done = found(&event);
            events.push(event);
            if done {
                return events;
            }
        }
        panic!("the stream ended before the event looked for: {events:#?}");
    }
}

/// The text of every `log` event, in order.
pub fn log_lines(events: &[SseMessage]) -> Vec<String> {
    events
        .iter()
        .filter(|event| event.event == "log")
        .map(|event| event.data["text"].as_str().unwrap().to_owned())
        .collect()
}

/// The `state` of every `state` event, in order.
pub fn job_states(events: &[SseMessage]) -> Vec<String> {
    events
        .iter()
        .filter(|event| event.event == "state")
        .map(|event| event.data["state"].as_str().unwrap().to_owned())
        .collect()
}

/// The g5 template made deployable: us-west-2, two zones, the GPU group in us-west-2b.
pub fn g5_spec(cluster: &str) -> Value {
    let mut spec = template_json("g5-node-autorepair");
    spec["cluster"]["name"] = json!(cluster);
    spec["cluster"]["region"] = json!("us-west-2");
    spec["network"]["availability_zones"] = json!(["us-west-2a", "us-west-2b"]);
    for group in spec["node_groups"].as_array_mut().unwrap() {
        if group["placement"]["kind"] == "availability-zones" {
            group["placement"]["availability_zones"] = json!(["us-west-2b"]);
        }
    }
    spec
}

/// The Karpenter Spot template made deployable in us-east-2.
pub fn karpenter_spec(cluster: &str) -> Value {
    let mut spec = template_json("karpenter-spot-inference");
    spec["cluster"]["name"] = json!(cluster);
    spec["cluster"]["region"] = json!("us-east-2");
    spec["network"]["availability_zones"] = json!(["us-east-2a", "us-east-2b"]);
    spec
}

/// A template's spec as JSON.
pub fn template_json(id: &str) -> Value {
    let spec = shared::template(id).expect("a known template").spec();
    serde_json::from_str(&spec.to_json()).unwrap()
}

/// What the stand-ins recorded in a job directory: one JSON value per call (and child).
pub fn standin_calls(job_dir: &Path) -> Vec<Value> {
    match std::fs::read_to_string(job_dir.join("standin-calls.jsonl")) {
        Ok(text) => text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Waits (up to 20 s) for the hanging stand-in to report its child; returns
/// `(stand-in pid, child pid)`.
pub async fn wait_for_hanging_standin(job_dir: &Path) -> (i32, i32) {
    wait_for_hanging("eksctl", job_dir).await
}

/// Like [`wait_for_hanging_standin`], for the stand-in of `tool`.
pub async fn wait_for_hanging(tool: &str, job_dir: &Path) -> (i32, i32) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let calls = standin_calls(job_dir);
        let child = calls.iter().find_map(|call| call["child_pid"].as_i64());
        let standin = calls
            .iter()
            .rfind(|call| call["tool"] == tool && call["pid"].is_i64())
            .and_then(|call| call["pid"].as_i64());
        if let (Some(standin), Some(child)) = (standin, child) {
            return (standin as i32, child as i32);
        }
        assert!(
            Instant::now() < deadline,
            "the stand-in never reported its child: {calls:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether a process is gone (a zombie waiting for a parent that never reaps counts).
pub fn process_is_gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

/// Waits up to 10 s for every process to be gone.
pub async fn wait_until_gone(pids: &[i32]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !pids.iter().all(|pid| process_is_gone(*pid)) {
        assert!(
            Instant::now() < deadline,
            "processes still running: {:?}",
            pids.iter()
                .filter(|pid| !process_is_gone(**pid))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Kills these processes when dropped, so a failed test leaves nothing running.
pub struct KillOnDrop(pub Vec<i32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        for pid in &self.0 {
            kill_if_running(*pid);
        }
    }
}

/// Kills a process if it still runs (cleanup after a failed assertion).
pub fn kill_if_running(pid: i32) {
    if !process_is_gone(pid) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// `serve` arguments for a server on `data_dir` whose deploys run the stand-in eksctl.
pub fn standin_server_args(data_dir: &Path) -> Vec<std::ffi::OsString> {
    vec![
        "--data-dir".into(),
        data_dir.as_os_str().to_owned(),
        "--eksctl".into(),
        standin_tools().eksctl.into_os_string(),
    ]
}

/// The real `eks-studio serve` on a free loopback port; killed when dropped.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// The token it printed, when it generated one.
    pub printed_token: Option<String>,
}

impl Server {
    /// Starts the server with these extra arguments and environment; waits (up to 30 s)
    /// for its listening line.
    pub fn start(args: &[std::ffi::OsString], environment: &[(&str, &str)]) -> Server {
        Server::start_wrapped(&[], args, environment)
    }

    /// Like [`Server::start`], run through `wrapper` (a program and its arguments, which
    /// end by executing the rest of their command line), e.g. to limit it.
    pub fn start_wrapped(
        wrapper: &[std::ffi::OsString],
        args: &[std::ffi::OsString],
        environment: &[(&str, &str)],
    ) -> Server {
        let mut command = match wrapper.split_first() {
            Some((program, wrapper_args)) => {
                let mut command = Command::new(program);
                command
                    .args(wrapper_args)
                    .arg(env!("CARGO_BIN_EXE_eks-studio"));
                command
            }
            None => Command::new(env!("CARGO_BIN_EXE_eks-studio")),
        };
        command
            .args(["serve", "--addr", "127.0.0.1:0", "--static-dir"])
            .arg(scratch_dir("no-static-dir"))
            .args(args);
        // A data directory of its own unless the test names one: one server per directory.
        if !args.iter().any(|arg| arg == "--data-dir") {
            command.arg("--data-dir").arg(scratch_dir("server-data"));
        }
        command
            .env_remove("EKS_STUDIO_DEPLOY_TOKEN")
            .env("RUST_LOG", "error")
            // No instance metadata service here: do not wait for it.
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (name, value) in environment {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("eks-studio starts");
        let stdout = child.stdout.take().unwrap();
        // Owned from here on, so a failed start still kills it when dropped.
        let mut server = Server {
            child,
            addr: String::new(),
            printed_token: None,
        };
        let (lines, received) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        loop {
            let line = received
                .recv_timeout(Duration::from_secs(30))
                .expect("the server prints its address within 30 s");
            if let Some(token) = line.strip_prefix("Deploy token: ") {
                if !token.starts_with("from ") {
                    server.printed_token = Some(token.to_owned());
                }
            } else if let Some(url) = line.strip_prefix("EKS Training Studio listening on http://")
            {
                server.addr = url.trim_end_matches('/').to_owned();
                return server;
            }
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a signal to the server.
    pub fn signal(&self, signal: nix::sys::signal::Signal) {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(self.child.id() as i32), signal).unwrap();
    }

    /// Waits (up to `limit`) for the server to exit; its exit status.
    pub fn wait(&mut self, limit: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills the server at once (SIGKILL), as a crash would.
    pub fn crash(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// A request over real HTTP; the status and the JSON body.
    pub fn call(
        &self,
        method: &str,
        path: &str,
        token: &str,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let body = body.map(Value::to_string).unwrap_or_default();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .expect("a status code");
        (status, serde_json::from_str(body).unwrap_or(Value::Null))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A router served on a free loopback port by this process; stops when dropped.
pub struct LoopbackServer {
    /// `127.0.0.1:PORT`.
    pub addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl LoopbackServer {
    /// Serves `router` on 127.0.0.1 at a free port.
    pub async fn start(router: Router) -> LoopbackServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            axum::serve(listener, router).await.unwrap();
        });
        LoopbackServer { addr, task }
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// An HTTP/1.1 client for loopback servers.
pub type HttpClient =
    hyper_util::client::legacy::Client<hyper_util::client::legacy::connect::HttpConnector, Body>;

/// A client that opens a connection per request: a server may close one after refusing a
/// body it did not read, and a reused one would then fail the next request.
pub fn http_client() -> HttpClient {
    hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .pool_max_idle_per_host(0)
        .build_http()
}

/// Sends one request with the deploy token; the status and the whole body.
pub async fn send(
    client: &HttpClient,
    method: &str,
    url: &str,
    body: Vec<u8>,
) -> (StatusCode, Vec<u8>) {
    let request = Request::builder()
        .method(method)
        .uri(url)
        .header("authorization", format!("Bearer {TOKEN}"))
        .header("content-type", "application/json")
        .body(Body::from(body))
        .unwrap();
    let response = client.request(request).await.expect("the server answers");
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, bytes.to_vec())
}

/// Sends a request whose body the server may refuse before it has all of it (a body over
/// the size limit): the body is written while the answer is read, and a write the server
/// cut short is not an error, because its answer is already on its way. An HTTP client
/// that stops at the failed write would lose that answer. The status and the whole body.
pub async fn send_oversize(addr: SocketAddr, path: &str, body: Vec<u8>) -> (StatusCode, Vec<u8>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .expect("the server accepts connections");
    let (mut reader, mut writer) = stream.into_split();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let writing = tokio::spawn(async move {
        if writer.write_all(head.as_bytes()).await.is_ok() {
            let _ = writer.write_all(&body).await;
        }
    });
    let mut answer = Vec::new();
    // A reset after the answer ends the read; what arrived before it is kept.
    let mut chunk = vec![0; 64 * 1024];
    loop {
        match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(read) => answer.extend_from_slice(&chunk[..read]),
        }
    }
    writing.abort();
    let split = answer
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .unwrap_or_else(|| {
            panic!(
                "no answer to the oversize body: {:?}",
                String::from_utf8_lossy(&answer)
            )
        });
    let head = String::from_utf8_lossy(&answer[..split]);
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse::<u16>().ok())
        .and_then(|code| StatusCode::from_u16(code).ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {head}"));
    (status, answer[split + 4..].to_vec())
}

/// Opens `GET {url}` as an event stream with the deploy token.
pub async fn open_events(client: &HttpClient, url: &str) -> SseReader {
    let request = Request::get(url)
        .header("authorization", format!("Bearer {TOKEN}"))
        .body(Body::empty())
        .unwrap();
    let response = client.request(request).await.expect("the server answers");
    assert_eq!(response.status(), StatusCode::OK);
    SseReader {
        body: Body::new(response.into_body()),
        buffer: Vec::new(),
    }
}

/// A wrapper around the stand-in eksctl that prints `extra_lines` more numbered lines,
/// `delay_ms` apart: a chatty deploy without touching this process's environment.
pub fn chatty_eksctl(directory: &Path, extra_lines: usize, delay_ms: u64) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let wrapper = directory.join("chatty-eksctl");
    let script = format!(
        "#!/bin/sh\nEKSCTL_STANDIN_EXTRA_LINES={extra_lines} EKSCTL_STANDIN_DELAY_MS={delay_ms} exec '{}' \"$@\"\n",
        standin_tools().eksctl.display()
    );
    std::fs::write(&wrapper, script).unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    wrapper
}
