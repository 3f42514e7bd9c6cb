//! The EC2 API emulator (moto's server plus the fixture actions in
//! `tests/fixtures/ec2_emulator.py`) on a free loopback port, for tests that point the
//! studio server at it. It is killed by its process id when the handle is dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

/// Region the fixtures are seeded in.
pub const REGION: &str = "us-east-1";

/// A running emulator.
pub struct Ec2Emulator {
    child: Child,
    port: u16,
    /// `http://127.0.0.1:PORT`, for `AWS_ENDPOINT_URL_EC2`.
    pub endpoint: String,
}

impl Ec2Emulator {
    /// Starts the emulator with the Python named by `EC2_EMULATOR_PYTHON` (set by
    /// `cargo xtask test`) and waits until it listens.
    pub fn start() -> Ec2Emulator {
        let python = std::env::var_os("EC2_EMULATOR_PYTHON")
            .map(PathBuf::from)
            .expect(
                "EC2_EMULATOR_PYTHON is not set: it names the Python that has moto[server]; \
             `cargo xtask test` creates target/tools/ec2-emulator-venv and sets it",
            );
        let script =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/ec2_emulator.py");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map(|address| address.port())
            .expect("a free loopback port");
        let mut child = Command::new(&python)
            .arg(&script)
            .args(["--port", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {}: {error}", python.display()));
        let stdout = child.stdout.take().expect("stdout is piped");
        let (ready_sender, ready) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let first = lines.next().and_then(Result::ok).unwrap_or_default();
            let _ = ready_sender.send(first);
            // Keep draining so the emulator never blocks on a full pipe.
            for _ in lines {}
        });
        let emulator = Ec2Emulator {
            child,
            port,
            endpoint: format!("http://127.0.0.1:{port}"),
        };
        match ready.recv_timeout(Duration::from_secs(60)) {
            Ok(line) if line.contains("listening on") => emulator,
            other => panic!("the EC2 emulator did not start: {other:?}"),
        }
    }

    /// `POST /_fixture/{what}` with a JSON body: fixture data the emulator then serves.
    pub fn seed(&self, what: &str, body: &Value) {
        let body = body.to_string();
        let mut stream =
            TcpStream::connect(("127.0.0.1", self.port)).expect("the emulator accepts connections");
        let request = format!(
            "POST /_fixture/{what} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        assert!(
            response.starts_with("HTTP/1.1 200") || response.starts_with("HTTP/1.0 200"),
            "seeding {what} failed: {response}"
        );
    }
}

impl Drop for Ec2Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
