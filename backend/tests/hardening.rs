//! What a hostile page, a slow client, a huge file or a crowd of followers can do to the
//! real `eks-studio` binary, on loopback. Every test is bounded in count and time.

mod deploy_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use deploy_support::*;
use serde_json::Value;

/// One raw HTTP/1.1 request with exactly these headers (and a body); the status and body.
fn raw(addr: &str, request_head: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let request = format!(
        "{request_head}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
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
    (status, body.to_owned())
}

fn spec_text() -> String {
    g5_spec("eks-guarded").to_string()
}

#[test]
fn requests_for_another_host_or_from_another_site_are_refused() {
    let server = Server::start(&[], &[("EKS_STUDIO_DEPLOY_TOKEN", TOKEN)]);
    let port = server.addr.rsplit(':').next().unwrap().to_owned();
    let spec = spec_text();

    // DNS rebinding: the browser names the attacker's host.
    for (method, path) in [
        ("GET", "/api/health"),
        ("POST", "/api/checks"),
        ("POST", "/api/capacity-block-offerings"),
        ("POST", "/api/validate"),
        ("GET", "/"),
    ] {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: evil.example:{port}\r\nContent-Type: application/json\r\n"
        );
        let (status, body) = raw(&server.addr, &head, &spec);
        assert_eq!(status, 403, "{method} {path}: {body}");
        assert!(body.contains("does not answer to the host"), "{body}");
    }

    // A page of another site posting to the studio (the browser sends its Origin).
    for path in ["/api/validate", "/api/checks", "/api/deploys"] {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nOrigin: http://evil.example\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n",
            server.addr
        );
        let (status, body) = raw(&server.addr, &head, &spec);
        assert_eq!(status, 403, "{path}: {body}");
        assert!(body.contains("another site"), "{body}");
    }

    // The studio's own page, a terminal and `localhost` are fine.
    for extra in [format!("Origin: http://{}\r\n", server.addr), String::new()] {
        let head = format!(
            "POST /api/validate HTTP/1.1\r\nHost: {}\r\n{extra}Content-Type: application/json\r\n",
            server.addr
        );
        let (status, body) = raw(&server.addr, &head, &spec);
        assert_eq!(status, 200, "{extra}: {body}");
    }
    let head = format!("GET /api/health HTTP/1.1\r\nHost: localhost:{port}\r\n");
    assert_eq!(raw(&server.addr, &head, "").0, 200);

    // A name given with --allowed-host is answered.
    let named = Server::start(&["--allowed-host".into(), "studio.internal".into()], &[]);
    let head = "GET /api/health HTTP/1.1\r\nHost: studio.internal\r\n";
    assert_eq!(raw(&named.addr, head, "").0, 200);
}

/// Reads until the server closes the connection (or `limit` passes); whether it closed.
fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    stream.set_read_timeout(Some(limit)).unwrap();
    let started = Instant::now();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => return true,
            Err(_) => return false,
        }
        if started.elapsed() > limit {
            return false;
        }
    }
}

#[test]
fn partial_headers_and_idle_keep_alive_connections_are_closed() {
    let server = Server::start(&[], &[("EKS_STUDIO_HEADER_TIMEOUT_SECONDS", "1")]);

    let mut partial = TcpStream::connect(&server.addr).unwrap();
    partial
        .write_all(b"GET /api/health HTTP/1.1\r\nHost: ")
        .unwrap();
    assert!(
        closed_within(&mut partial, Duration::from_secs(10)),
        "a request whose headers never end keeps its connection"
    );

    let mut idle = TcpStream::connect(&server.addr).unwrap();
    write!(
        idle,
        "GET /api/health HTTP/1.1\r\nHost: {}\r\n\r\n",
        server.addr
    )
    .unwrap();
    assert!(
        closed_within(&mut idle, Duration::from_secs(10)),
        "an idle keep-alive connection stays open"
    );

    let mut silent = TcpStream::connect(&server.addr).unwrap();
    assert!(
        closed_within(&mut silent, Duration::from_secs(10)),
        "a connection that never sends anything stays open"
    );
}

#[test]
fn half_open_sockets_beyond_the_descriptor_budget_neither_stop_the_server_nor_its_shutdown() {
    // The server gets 256 file descriptors; this test opens twice as many half-open sockets.
    let wrapper = ["prlimit".into(), "--nofile=256:256".into(), "--".into()];
    let mut server =
        Server::start_wrapped(&wrapper, &[], &[("EKS_STUDIO_HEADER_TIMEOUT_SECONDS", "2")]);
    let mut sockets = Vec::new();
    for _ in 0..512 {
        if let Ok(mut socket) = TcpStream::connect(&server.addr) {
            let _ = socket.write_all(b"GET /api/health HTTP/1.1\r\n");
            sockets.push(socket);
        }
    }
    // The health check answers once the header deadline has closed the half-open ones
    // holding the budget (it may be refused until then, never timed out for good).
    let deadline = Instant::now() + Duration::from_secs(20);
    let answered = loop {
        let head = format!("GET /api/health HTTP/1.1\r\nHost: {}\r\n", server.addr);
        let attempt = std::panic::catch_unwind(|| raw(&server.addr, &head, ""));
        if let Ok((200, _)) = attempt {
            break true;
        }
        if Instant::now() > deadline {
            break false;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        answered,
        "/api/health never answered beside 512 half-open sockets"
    );

    // A fresh batch of half-open sockets does not hold up SIGTERM.
    for _ in 0..50 {
        if let Ok(mut socket) = TcpStream::connect(&server.addr) {
            let _ = socket.write_all(b"GET / HTTP/1.1\r\n");
            sockets.push(socket);
        }
    }
    let started = Instant::now();
    server.signal(nix::sys::signal::Signal::SIGTERM);
    let status = server.wait(Duration::from_secs(15));
    assert!(status.success(), "{status:?}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "shutdown waited on half-open sockets"
    );
    drop(sockets);
}

#[test]
fn lint_reads_at_most_its_cap_and_says_how_to_read_more() {
    let started = Instant::now();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_eks-studio"))
        .args(["lint", "/dev/zero"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("larger than 8388608 bytes"), "{stdout}");
    assert!(stdout.contains("--max-bytes"), "{stdout}");
    assert!(started.elapsed() < Duration::from_secs(60));

    let scratch = scratch_dir("lint-cap");
    let file = scratch.join("cluster.yaml");
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/tests/data/seeds/eks-p5-odcr-vpc.yaml"),
    )
    .unwrap();
    std::fs::write(&file, &text).unwrap();
    let small = std::process::Command::new(env!("CARGO_BIN_EXE_eks-studio"))
        .args(["lint", "--max-bytes", "100"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(small.status.code(), Some(2));
    let raised = std::process::Command::new(env!("CARGO_BIN_EXE_eks-studio"))
        .args(["lint", "--max-bytes"])
        .arg((text.len() + 1).to_string())
        .arg(&file)
        .output()
        .unwrap();
    // The seed has placeholders: error findings, exit 1, but read.
    assert_eq!(raised.status.code(), Some(1), "{raised:?}");
}

#[test]
fn terminal_control_characters_in_a_file_are_printed_escaped() {
    let scratch = scratch_dir("lint-escape");
    let file = scratch.join("evil\u{1b}[2Jname.yaml");
    std::fs::write(
        &file,
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: \"x\\e]0;owned\\a\"\n  region: us-east-1\n",
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_eks-studio"))
        .arg("lint")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        !output.stdout.contains(&0x1b) && !output.stdout.contains(&0x07),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("\\u{1b}"));
}

#[test]
fn a_huge_cluster_name_gets_a_bounded_download_name() {
    let server = Server::start(&[], &[]);
    let mut spec = g5_spec("eks-long");
    spec["cluster"]["name"] = Value::from("a".repeat(200_000));
    let body = spec.to_string();
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    write!(
        stream,
        "POST /api/render HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        server.addr,
        body.len()
    )
    .unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let split = answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    assert!(
        head.starts_with("HTTP/1.1 200"),
        "{}",
        &head[..head.len().min(300)]
    );
    let disposition = head
        .lines()
        .find(|line| line.to_ascii_lowercase().starts_with("content-disposition"))
        .unwrap();
    assert!(disposition.len() < 200, "{} bytes", disposition.len());
}

/// Threads of a process, from `/proc`.
fn threads(pid: u32) -> usize {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("Threads:"))
        .and_then(|count| count.trim().parse().ok())
        .unwrap()
}

#[test]
fn hundreds_of_event_stream_followers_cost_few_threads() {
    let scratch = scratch_dir("followers");
    let data_dir = scratch.join("data");
    let args = standin_server_args(&data_dir);
    let server = Server::start(&args, DEPLOY_ENV);
    let (status, job) = server.call("POST", "/api/deploys", TOKEN, Some(&g5_spec("eks-g5-hang")));
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_owned();
    let mut followers = Vec::new();
    for _ in 0..300 {
        let mut stream = TcpStream::connect(&server.addr).unwrap();
        write!(
            stream,
            "GET /api/deploys/{id}/events HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\n\r\n",
            server.addr
        )
        .unwrap();
        followers.push(stream);
    }
    // Let every follower reach the live part of the stream.
    std::thread::sleep(Duration::from_secs(3));
    for follower in &mut followers {
        follower
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut first = [0u8; 12];
        follower.read_exact(&mut first).unwrap();
        assert_eq!(&first, b"HTTP/1.1 200");
    }
    let busy = threads(server.pid());
    assert!(busy < 64, "{busy} threads for 300 followers");
    let (status, cancelled) =
        server.call("POST", &format!("/api/deploys/{id}/cancel"), TOKEN, None);
    assert_eq!(status, 200, "{cancelled}");
}
