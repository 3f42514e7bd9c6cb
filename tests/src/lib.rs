//! Harness for the end-to-end tests: the real `eks-studio` binary serving the built page
//! on a free loopback port, and headless Chromium (Debian's, through its chromedriver)
//! with a fresh profile. Everything started here stops when its handle is dropped.

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};

/// The EC2 API emulator, for tests that run live checks.
pub mod ec2_emulator;

fn required_env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: end-to-end tests run through `cargo xtask test`, which builds what they need")
    })
}

/// Kills a child process and reaps it.
fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// The studio server, started from the built binary.
pub struct Studio {
    child: Child,
    /// `http://127.0.0.1:PORT/`.
    pub base_url: String,
    /// The deploy token the server printed at start.
    pub deploy_token: Option<String>,
    data_dir: PathBuf,
}

static DATA_DIR_COUNTER: AtomicU32 = AtomicU32::new(0);

impl Studio {
    /// Starts `eks-studio serve` on a free loopback port with the built page, its own
    /// data directory, and the stand-in eksctl, helm and kubectl for deploys.
    pub fn start() -> Studio {
        Studio::start_with_env(&[])
    }

    /// Like [`Studio::start`], with extra environment variables for the server and the
    /// tools it runs, e.g. `EKSCTL_STANDIN_MODE=hang` for the stand-in eksctl.
    pub fn start_with_env(env: &[(&str, &str)]) -> Studio {
        Studio::start_serving(&PathBuf::from(required_env("EKS_STUDIO_DIST")), env)
    }

    /// Like [`Studio::start_with_env`], serving the page from `dist` instead of the build.
    pub fn start_serving(dist: &std::path::Path, env: &[(&str, &str)]) -> Studio {
        let data_dir = std::env::temp_dir().join(format!(
            "eks-studio-e2e-data-{}-{}",
            std::process::id(),
            DATA_DIR_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut child = Command::new(required_env("EKS_STUDIO_BIN"))
            .args(["serve", "--addr", "127.0.0.1:0", "--static-dir"])
            .arg(dist)
            .arg("--data-dir")
            .arg(&data_dir)
            .arg("--eksctl")
            .arg(fixtures.join("eksctl"))
            .arg("--helm")
            .arg(fixtures.join("helm"))
            .arg("--kubectl")
            .arg(fixtures.join("kubectl"))
            .arg("--aws")
            .arg(fixtures.join("aws"))
            .env_remove("AWS_ACCESS_KEY_ID")
            .env_remove("AWS_PROFILE")
            .env_remove("EKS_STUDIO_DEPLOY_TOKEN")
            // The SDK's default chain would otherwise ask the instance metadata service
            // (a link-local address) for credentials; tests only talk to loopback.
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("eks-studio starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        // The server may print other lines (e.g. a deploy token) before its address.
        let mut reader = BufReader::new(stdout);
        let mut seen = String::new();
        let mut deploy_token = None;
        let base_url = loop {
            let mut line = String::new();
            let read = reader
                .read_line(&mut line)
                .expect("eks-studio prints its address");
            if read == 0 {
                stop(&mut child);
                panic!("eks-studio exited before printing its address; it printed:\n{seen}");
            }
            if let Some(url) = line
                .split_whitespace()
                .find(|word| word.starts_with("http://127.0.0.1:"))
            {
                break url.to_owned();
            }
            if let Some(token) = line.trim().strip_prefix("Deploy token: ") {
                deploy_token = Some(token.to_owned());
            }
            seen.push_str(&line);
        };
        // Keep reading so the server never writes into a closed pipe.
        std::thread::spawn(move || {
            let mut sink = String::new();
            while reader.read_line(&mut sink).is_ok_and(|read| read > 0) {
                sink.clear();
            }
        });
        Studio {
            child,
            base_url,
            deploy_token,
            data_dir,
        }
    }
}

impl Drop for Studio {
    fn drop(&mut self) {
        stop(&mut self.child);
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}

/// A blocking HTTP/1.1 POST of JSON to chromedriver on loopback; the answer's `value`.
fn post_json(port: u16, path: &str, body: &serde_json::Value) -> serde_json::Value {
    use std::io::{Read, Write};
    let body = body.to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("chromedriver answers");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // chromedriver may keep the connection open: read the head, then Content-Length bytes.
    let mut answer = Vec::new();
    let mut buffer = [0u8; 8192];
    let (head_end, body_length) = loop {
        let read = stream.read(&mut buffer).unwrap();
        assert!(
            read > 0,
            "chromedriver closed the connection before answering {path}"
        );
        answer.extend_from_slice(&buffer[..read]);
        if let Some(end) = answer.windows(4).position(|window| window == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .and_then(|value| value.trim().parse::<usize>().ok())
                .unwrap_or_else(|| panic!("chromedriver's answer to {path} has no length: {head}"));
            break (end + 4, length);
        }
    };
    while answer.len() < head_end + body_length {
        let read = stream.read(&mut buffer).unwrap();
        assert!(
            read > 0,
            "chromedriver closed the connection mid-answer to {path}"
        );
        answer.extend_from_slice(&buffer[..read]);
    }
    let head = String::from_utf8_lossy(&answer[..head_end]).into_owned();
    let json = String::from_utf8_lossy(&answer[head_end..head_end + body_length]).into_owned();
    let json = json.as_str();
    let value: serde_json::Value = serde_json::from_str(json).unwrap_or_else(|error| {
        panic!("chromedriver's answer to {path} ({head}) is not JSON: {error}")
    });
    if !head.starts_with("HTTP/1.1 200") {
        panic!("chromedriver refused {path}: {head}\n{value}");
    }
    value["value"].clone()
}

fn free_loopback_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free loopback port")
}

/// Whether something listens on the loopback `port`. A connection from the port to
/// itself (which Linux makes when the port is free and picked as the client's own
/// ephemeral port) does not count.
fn listens(port: u16) -> bool {
    TcpStream::connect(("127.0.0.1", port))
        .is_ok_and(|stream| stream.local_addr().ok() != stream.peer_addr().ok())
}

static PROFILE_COUNTER: AtomicU32 = AtomicU32::new(0);

/// Headless Chromium driven over WebDriver.
pub struct Browser {
    /// The WebDriver session.
    pub client: Client,
    driver: Child,
    driver_port: u16,
    profile_dir: PathBuf,
}

/// The flags Chromium needs to run headless as root on a machine with no network.
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,800",
];

impl Browser {
    /// Starts chromedriver on a free port and opens a session with a fresh profile.
    pub async fn start() -> Browser {
        Browser::start_with(None, false).await
    }

    /// Like [`Browser::start`], with downloads saved into `download_dir` without asking.
    pub async fn start_with_downloads(download_dir: &std::path::Path) -> Browser {
        Browser::start_with(Some(download_dir), false).await
    }

    /// Like [`Browser::start`], with Chromium's network events kept for
    /// [`Browser::network_events`].
    pub async fn start_with_network_log() -> Browser {
        Browser::start_with(None, true).await
    }

    async fn start_with(download_dir: Option<&std::path::Path>, network_log: bool) -> Browser {
        let port = free_loopback_port();
        let mut driver = Command::new(required_env("CHROMEDRIVER"))
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let deadline = Instant::now() + Duration::from_secs(20);
        while !listens(port) {
            if Instant::now() > deadline {
                stop(&mut driver);
                panic!("chromedriver did not listen on port {port} within 20 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile_dir = std::env::temp_dir().join(format!(
            "eks-studio-e2e-profile-{}-{}",
            std::process::id(),
            PROFILE_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|flag| flag.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile_dir.display()));
        let mut options = serde_json::json!({ "args": args });
        if let Some(dir) = download_dir {
            options["prefs"] = serde_json::json!({
                "download.default_directory": dir.display().to_string(),
                "download.prompt_for_download": false,
            });
        }
        if let Ok(binary) = std::env::var("CHROMIUM") {
            options["binary"] = binary.into();
        }
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("goog:chromeOptions".into(), options);
        if network_log {
            capabilities.insert(
                "goog:loggingPrefs".into(),
                serde_json::json!({ "performance": "ALL" }),
            );
        }
        // A loaded machine can answer the port before chromedriver serves HTTP on it:
        // a refused session request is tried again, for up to 20 s.
        let client = loop {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            let attempt = ClientBuilder::new(connector)
                .capabilities(capabilities.clone())
                .connect(&format!("http://127.0.0.1:{port}"))
                .await;
            match attempt {
                Ok(client) => break client,
                Err(
                    fantoccini::error::NewSessionError::FailedC(_)
                    | fantoccini::error::NewSessionError::Failed(_)
                    | fantoccini::error::NewSessionError::Lost(_),
                ) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(error) => {
                    stop(&mut driver);
                    panic!("cannot open a WebDriver session: {error}");
                }
            }
        };
        Browser {
            client,
            driver,
            driver_port: port,
            profile_dir,
        }
    }

    /// POSTs `body` to chromedriver's `/session/{id}/{command}` and returns the answer's
    /// `value` (chromedriver's own commands, which fantoccini does not speak).
    pub async fn driver_command(
        &self,
        command: &str,
        body: serde_json::Value,
    ) -> serde_json::Value {
        let session = self
            .client
            .session_id()
            .await
            .unwrap()
            .expect("a session is open");
        let path = format!("/session/{session}/{command}");
        let port = self.driver_port;
        tokio::task::spawn_blocking(move || post_json(port, &path, &body))
            .await
            .unwrap()
    }

    /// Runs a Chrome DevTools Protocol command in the page's target.
    pub async fn cdp(&self, method: &str, params: serde_json::Value) -> serde_json::Value {
        self.driver_command(
            "goog/cdp/execute",
            serde_json::json!({ "cmd": method, "params": params }),
        )
        .await
    }

    /// The DevTools network events since the last call (`Network.*` messages of
    /// Chromium's performance log; needs [`Browser::start_with_network_log`]).
    pub async fn network_events(&self) -> Vec<serde_json::Value> {
        let entries = self
            .driver_command("se/log", serde_json::json!({ "type": "performance" }))
            .await;
        entries
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|entry| entry["message"].as_str())
            .filter_map(|message| serde_json::from_str::<serde_json::Value>(message).ok())
            .map(|message| message["message"].clone())
            .filter(|message| {
                message["method"]
                    .as_str()
                    .is_some_and(|method| method.starts_with("Network."))
            })
            .collect()
    }

    /// Waits until the element's text satisfies `predicate`, returning the text.
    pub async fn wait_for_text(
        &self,
        locator: Locator<'_>,
        predicate: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + Duration::from_secs(15);
        let mut last = String::new();
        loop {
            if let Ok(element) = self.client.find(locator).await
                && let Ok(text) = element.text().await
            {
                if predicate(&text) {
                    return text;
                }
                last = text;
            }
            if Instant::now() > deadline {
                panic!("text of {locator:?} never matched; last seen:\n{last}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Opens the studio and waits for the first template's preview.
    pub async fn open(&self, studio: &Studio) {
        self.client.goto(&studio.base_url).await.unwrap();
        self.wait_for_text(Locator::Id("preview-cluster-yaml"), |text| {
            text.contains("kind: ClusterConfig")
        })
        .await;
    }

    /// Chooses a template on the Start step, as a person clicks its card.
    pub async fn choose_template(&self, id: &str) {
        self.go_to_step(1).await;
        self.client
            .find(Locator::Css(&format!("label[for='template-{id}']")))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
    }

    /// Clicks the button a person would by its visible name.
    pub async fn click_button(&self, name: &str) {
        self.client
            .find(Locator::XPath(&format!(
                "//button[normalize-space()='{name}']"
            )))
            .await
            .unwrap_or_else(|error| panic!("no button `{name}`: {error}"))
            .click()
            .await
            .unwrap();
    }

    /// The input a visible label names, found the way a person would find it.
    pub async fn field_by_label(&self, label: &str) -> fantoccini::elements::Element {
        let label_element = self
            .client
            .find(Locator::XPath(&format!(
                "//label[normalize-space()='{label}']"
            )))
            .await
            .unwrap_or_else(|error| panic!("no label `{label}`: {error}"));
        let target = label_element
            .attr("for")
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("label `{label}` is not bound to a control"));
        self.client
            .find(Locator::Id(&target))
            .await
            .unwrap_or_else(|error| panic!("label `{label}` points at missing #{target}: {error}"))
    }

    /// The element with this DOM id.
    pub async fn by_id(&self, id: &str) -> fantoccini::elements::Element {
        self.client
            .find(Locator::Id(id))
            .await
            .unwrap_or_else(|error| panic!("no element #{id}: {error}"))
    }

    /// Clicks a step in the step list (1-based) and waits until its heading shows. The
    /// list is waited for too: a test may go to a step right after loading the page,
    /// before the page's code has drawn it.
    pub async fn go_to_step(&self, number: usize) {
        self.wait_for_element(&format!("step-button-{number}"))
            .await
            .click()
            .await
            .unwrap();
        self.wait_for_element(&format!("step-title-{number}")).await;
    }

    /// Waits until an element with this id exists.
    pub async fn wait_for_element(&self, id: &str) -> fantoccini::elements::Element {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Ok(element) = self.client.find(Locator::Id(id)).await {
                return element;
            }
            if Instant::now() > deadline {
                panic!("#{id} never appeared");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Replaces the text of the input with this id, typing it as a person would.
    pub async fn fill(&self, id: &str, text: &str) {
        let input = self.by_id(id).await;
        input.clear().await.unwrap();
        input.send_keys(text).await.unwrap();
    }

    /// Pastes `text` into the Start step's empty import box, imports it, and returns the
    /// result line once it shows.
    pub async fn import_yaml(&self, text: &str) -> String {
        let area = self.field_by_label("YAML to import").await;
        area.send_keys(text).await.unwrap();
        self.by_id("import-button").await.click().await.unwrap();
        self.wait_for_text(Locator::Id("import-result"), |result| !result.is_empty())
            .await
    }

    /// Replaces the text of the input a visible label names.
    pub async fn fill_by_label(&self, label: &str, text: &str) {
        let input = self.field_by_label(label).await;
        input.clear().await.unwrap();
        input.send_keys(text).await.unwrap();
    }

    /// Empties the input a visible label names as a person would: select all, then
    /// Backspace (WebDriver's clear fires no input event, so the page would not hear it).
    pub async fn empty_by_label(&self, label: &str) {
        let input = self.field_by_label(label).await;
        input.send_keys("\u{E009}a").await.unwrap();
        input.send_keys("\u{E003}").await.unwrap();
    }

    /// Runs a script returning a value.
    pub async fn eval(&self, script: &str, args: Vec<serde_json::Value>) -> serde_json::Value {
        self.client
            .execute(script, args)
            .await
            .unwrap_or_else(|error| panic!("script failed: {error}\n{script}"))
    }

    /// Saves a screenshot under `target/e2e-screenshots/NAME.png`.
    pub async fn screenshot(&self, name: &str) {
        let png = self.client.screenshot().await.expect("screenshot");
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/e2e-screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    }

    /// Ends the WebDriver session (closing Chromium) and stops chromedriver.
    pub async fn close(mut self) {
        let _ = self.client.clone().close().await;
        stop(&mut self.driver);
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        stop(&mut self.driver);
        let _ = std::fs::remove_dir_all(&self.profile_dir);
    }
}
