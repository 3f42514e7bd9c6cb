//! The EC2 API emulator (moto's server plus the fixture actions in
//! `tests/fixtures/ec2_emulator.py`) on a free loopback port, for tests that point the
//! studio at it: the backend's live-check tests and the end-to-end tests. It is killed by
//! its process id when the handle is dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

/// Region the fixtures are seeded in.
pub const REGION: &str = "us-east-1";

/// The Python of the emulator's environment (moto, and cfn-lint for the templates' tests).
pub fn python() -> PathBuf {
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

/// A running emulator.
pub struct Ec2Emulator {
    child: Option<Child>,
    port: u16,
    /// `http://127.0.0.1:PORT`, for `AWS_ENDPOINT_URL_EC2` or `--ec2-endpoint`.
    pub endpoint: String,
}

impl Ec2Emulator {
    /// Starts the emulator and waits until it listens; its log goes to a file in the
    /// system's temporary directory, named in any failure.
    pub fn start() -> Ec2Emulator {
        let script =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/ec2_emulator.py");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map(|address| address.port())
            .expect("a free loopback port");
        let log_path = std::env::temp_dir().join(format!("ec2-emulator-{port}.log"));
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
        let mut emulator = Ec2Emulator {
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

    /// One request to the emulator's fixture endpoints; the JSON it answers.
    pub fn request(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut stream =
            TcpStream::connect(("127.0.0.1", self.port)).expect("the emulator accepts connections");
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        assert!(
            head.starts_with("HTTP/1.1 200") || head.starts_with("HTTP/1.0 200"),
            "{method} {path} failed: {head}\n{body}"
        );
        serde_json::from_str(body)
            .unwrap_or_else(|error| panic!("{path} answered {body:?}: {error}"))
    }

    /// `POST /_fixture/{what}` with a JSON body: fixture data the emulator then serves.
    pub fn seed(&self, what: &str, body: &Value) {
        self.request("POST", &format!("/_fixture/{what}"), Some(body));
    }

    /// Clears moto's state, the fixture data, the counters and the delay.
    pub fn reset(&self) {
        self.request("POST", "/_fixture/reset", None);
    }

    /// Every action's call count since the last reset.
    pub fn all_calls(&self) -> Value {
        self.request("GET", "/_fixture/calls", None)
    }
}

impl Drop for Ec2Emulator {
    fn drop(&mut self) {
        self.stop();
    }
}
