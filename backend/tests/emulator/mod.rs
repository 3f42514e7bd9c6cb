//! The EC2 API emulator (moto's server plus the fixture actions in
//! `tests/fixtures/ec2_emulator.py`) on a free loopback port, one per test. It is killed by
//! its process id when the handle is dropped.

#![allow(dead_code)] // each test binary uses a different part of the harness

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use backend::aws::{AwsOptions, LiveAws};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Region every fixture lives in.
pub const REGION: &str = "us-east-1";

/// Call timeout for tests that are not about timeouts.
pub const GENEROUS_TIMEOUT: Duration = Duration::from_secs(30);

fn python() -> PathBuf {
    match std::env::var_os("EC2_EMULATOR_PYTHON") {
        Some(python) => PathBuf::from(python),
        None => panic!(
            "EC2_EMULATOR_PYTHON is not set: it names the Python that has moto[server] \
             (the EC2 emulator). Run the tests through `cargo xtask test`, which creates \
             target/tools/ec2-emulator-venv and sets it, or set it to \
             target/tools/ec2-emulator-venv/bin/python yourself."
        ),
    }
}

fn free_loopback_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free loopback port")
}

/// A running emulator.
pub struct Emulator {
    child: Option<Child>,
    port: u16,
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
}

impl Emulator {
    /// Starts the emulator and waits until it accepts connections.
    pub fn start() -> Emulator {
        let script =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/ec2_emulator.py");
        let port = free_loopback_port();
        let log_path =
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ec2-emulator-{port}.log"));
        let log = std::fs::File::create(&log_path).expect("emulator log file");
        let mut child = Command::new(python())
            .arg(&script)
            .args(["--port", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|error| {
                panic!(
                    "cannot start the EC2 emulator with {}: {error}",
                    python().display()
                )
            });
        let stdout = child.stdout.take().expect("stdout is piped");
        let (ready_sender, ready) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let first = lines.next().and_then(Result::ok).unwrap_or_default();
            let _ = ready_sender.send(first);
            // Keep draining so the emulator never blocks on a full pipe.
            for _ in lines {}
        });
        let mut emulator = Emulator {
            child: Some(child),
            port,
            endpoint: format!("http://127.0.0.1:{port}"),
        };
        match ready.recv_timeout(Duration::from_secs(60)) {
            Ok(line) if line.contains("listening on") => emulator,
            Ok(line) => {
                emulator.stop();
                panic!(
                    "the EC2 emulator did not start (first line {line:?}); see {}",
                    log_path.display()
                )
            }
            Err(_) => {
                emulator.stop();
                panic!(
                    "the EC2 emulator did not start within 60 s; see {}",
                    log_path.display()
                )
            }
        }
    }

    /// Kills the emulator (by its process id) and reaps it.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Server EC2 access with static test credentials, pointed at this emulator. The call
    /// timeout is generous: moto reads its data files on first use, slowly on a busy machine.
    pub async fn live_aws(&self) -> LiveAws {
        self.live_aws_with(AwsOptions {
            call_timeout: GENEROUS_TIMEOUT,
            ..AwsOptions::default()
        })
        .await
    }

    /// Like [`Emulator::live_aws`] with other options; the endpoint is this emulator's.
    pub async fn live_aws_with(&self, options: AwsOptions) -> LiveAws {
        let credentials = aws_sdk_ec2::config::Credentials::new(
            "testing",
            "testing",
            None,
            None,
            "ec2-emulator-test",
        );
        LiveAws::with_credentials(
            credentials,
            AwsOptions {
                ec2_endpoint: Some(self.endpoint.clone()),
                ..options
            },
        )
        .await
    }

    /// A plain EC2 client on the emulator, to create VPCs and subnets as fixture data.
    pub fn ec2_client(&self) -> aws_sdk_ec2::Client {
        let credentials = aws_sdk_ec2::config::Credentials::new(
            "testing",
            "testing",
            None,
            None,
            "ec2-emulator-test",
        );
        let http_client = aws_smithy_http_client::Builder::new()
            .tls_provider(aws_smithy_http_client::tls::Provider::Rustls(
                aws_smithy_http_client::tls::rustls_provider::CryptoMode::Ring,
            ))
            .build_https();
        let config = aws_sdk_ec2::Config::builder()
            .behavior_version(aws_sdk_ec2::config::BehaviorVersion::latest())
            .http_client(http_client)
            .credentials_provider(credentials)
            .region(aws_sdk_ec2::config::Region::from_static(REGION))
            .endpoint_url(&self.endpoint)
            .build();
        aws_sdk_ec2::Client::from_conf(config)
    }

    async fn request(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", self.port))
            .await
            .expect("the emulator accepts connections");
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).await.unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        assert!(
            head.starts_with("HTTP/1.1 200") || head.starts_with("HTTP/1.0 200"),
            "{method} {path} failed: {head}\n{body}"
        );
        serde_json::from_str(body)
            .unwrap_or_else(|error| panic!("{path} answered {body:?}: {error}"))
    }

    /// `POST /_fixture/{what}` with a JSON body.
    pub async fn seed(&self, what: &str, body: Value) {
        self.request("POST", &format!("/_fixture/{what}"), Some(&body))
            .await;
    }

    /// Makes every EC2 action wait this long before answering.
    pub async fn delay(&self, seconds: f64) {
        self.seed("delay", serde_json::json!({ "seconds": seconds }))
            .await;
    }

    /// Clears moto's state, the fixture data, the counters and the delay.
    pub async fn reset(&self) {
        self.request("POST", "/_fixture/reset", None).await;
    }

    /// How many times the emulator answered `action` since the last reset.
    pub async fn calls(&self, action: &str) -> u64 {
        self.request("GET", "/_fixture/calls", None).await[action]
            .as_u64()
            .unwrap_or(0)
    }

    /// Every action's call count since the last reset.
    pub async fn all_calls(&self) -> Value {
        self.request("GET", "/_fixture/calls", None).await
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.stop();
    }
}
