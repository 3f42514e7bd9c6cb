//! Inputs made to cost: a design far beyond what EKS runs, a key of a megabyte, aliases
//! of a long string, mappings of a hundred thousand keys, a body declared at 10 GB, a FIFO
//! where a file should be. Each is generated here, run against the real `eks-studio`
//! binary, and bounded: a wait that would only end in a hang fails instead.

mod deploy_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use deploy_support::*;
use serde_json::{Value, json};

/// Runs the CLI, killed (and the test failed) if it has not ended within `limit`. Its
/// output goes to files, so a long report never fills a pipe no one reads yet.
fn eks_studio_within(limit: Duration, args: &[&std::ffi::OsStr]) -> Output {
    let scratch = scratch_dir("cli-output");
    let (stdout_path, stderr_path) = (scratch.join("stdout"), scratch.join("stderr"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_eks-studio"))
        .args(args)
        .stdout(Stdio::from(std::fs::File::create(&stdout_path).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(&stderr_path).unwrap()))
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "eks-studio {args:?} did not end within {limit:?}: {}",
                std::fs::read_to_string(&stderr_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: std::fs::read(&stdout_path).unwrap(),
        stderr: std::fs::read(&stderr_path).unwrap(),
    }
}

fn os(text: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(text)
}

const CLUSTER_HEAD: &str = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: big\n  region: us-east-1\n  version: \"1.35\"\n";

/// One raw HTTP/1.1 request to the real server; the status line's code and the body.
fn request(addr: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_owned())
}

#[test]
fn a_megabyte_key_is_reported_without_a_suggestion_search_that_grows_with_it() {
    let scratch = scratch_dir("long-key");
    let file = scratch.join("cluster.yaml");
    // An explicit key (`? key`): a plain one may not be longer than 1024 characters.
    let key = "k".repeat(1024 * 1024);
    std::fs::write(&file, format!("{CLUSTER_HEAD}? {key}\n: 1\n")).unwrap();
    let output = eks_studio_within(Duration::from_secs(60), &[os("lint"), file.as_os_str()]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("unknown field `kkkk"),
        "{}",
        &stdout[..stdout.len().min(300)]
    );
    assert!(
        !stdout.contains("did you mean"),
        "no suggestion for a 1 MB key"
    );
}

#[test]
fn validating_a_long_key_leaves_the_server_answering_others() {
    let server = Server::start(&[], &[]);
    let mut spec = g5_spec("eks-long-key");
    let mut extra = serde_json::Map::new();
    extra.insert("k".repeat(1_900_000), json!(1));
    spec["eksctl_extra"] = Value::Object(extra);
    let body = spec.to_string();
    let addr = server.addr.clone();
    let heavy = std::thread::spawn(move || request(&addr, "POST", "/api/validate", &body));
    // The health check answers while (or after) the long key is checked.
    let (status, health) = request(&server.addr, "GET", "/api/health", "");
    assert_eq!(status, 200, "{health}");
    let (status, answer) = heavy.join().unwrap();
    assert_eq!(status, 200, "{}", &answer[..answer.len().min(300)]);
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert!(
        answer["errors"].as_u64().unwrap() >= 1,
        "the unknown key is an error"
    );
}

#[test]
fn a_design_far_beyond_what_eks_runs_is_refused_before_any_check_is_planned() {
    let server = Server::start(&[], &[]);
    let mut spec = g5_spec("eks-huge");
    let group = spec["node_groups"][0].clone();
    spec["node_groups"] = Value::Array(
        (0..301)
            .map(|index| {
                let mut group = group.clone();
                group["name"] = json!(format!("g{index}"));
                group
            })
            .collect(),
    );
    let (status, body) = request(&server.addr, "POST", "/api/checks", &spec.to_string());
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("301 node groups"), "{body}");
    assert!(
        body.contains("30 managed node groups per cluster"),
        "{body}"
    );

    let scratch = scratch_dir("huge-check");
    let file = scratch.join("studio.json");
    std::fs::write(&file, spec.to_string()).unwrap();
    let output = eks_studio_within(
        Duration::from_secs(60),
        &[os("check"), os("--spec"), file.as_os_str()],
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("301 node groups"));
}

#[test]
fn aliases_of_a_long_string_are_refused_by_the_bytes_they_copy_at_the_alias() {
    let scratch = scratch_dir("alias-bytes");
    let file = scratch.join("cluster.yaml");
    let mut text = format!(
        "{CLUSTER_HEAD}  tags:\n    big: &big \"{}\"\n",
        "x".repeat(100_000)
    );
    for index in 0..2_000 {
        text.push_str(&format!("    t{index}: *big\n"));
    }
    std::fs::write(&file, &text).unwrap();
    for command in ["lint", "resolve"] {
        let output = eks_studio_within(Duration::from_secs(60), &[os(command), file.as_os_str()]);
        assert_eq!(output.status.code(), Some(2), "{command}: {output:?}");
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        // Line 9 holds the first alias; the 42nd, on line 50, copies past 4 MiB.
        assert!(said.contains("cluster.yaml:50:"), "{command}: {said}");
        assert!(said.contains("aliases copy more than"), "{command}: {said}");
    }
}

#[test]
fn a_hundred_thousand_tags_or_top_level_keys_lint_in_linear_time() {
    let scratch = scratch_dir("wide-mappings");
    let tags = scratch.join("tags.yaml");
    let mut text = format!("{CLUSTER_HEAD}  tags:\n");
    for index in 0..100_000 {
        text.push_str(&format!("    tag{index}: v{index}\n"));
    }
    std::fs::write(&tags, &text).unwrap();
    let output = eks_studio_within(Duration::from_secs(180), &[os("lint"), tags.as_os_str()]);
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "read, with or without findings: {output:?}"
    );

    // Each an unknown field: a finding placed at its line, a hundred thousand times.
    let keys = scratch.join("keys.yaml");
    let mut text = CLUSTER_HEAD.to_owned();
    for index in 0..100_000 {
        text.push_str(&format!("key{index}: {index}\n"));
    }
    std::fs::write(&keys, &text).unwrap();
    let output = eks_studio_within(Duration::from_secs(180), &[os("lint"), keys.as_os_str()]);
    assert_eq!(output.status.code(), Some(1), "unknown fields: {output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("keys.yaml:100006:1"),
        "the last key is placed at its line"
    );

    text.push_str("key5: again\n");
    std::fs::write(&keys, &text).unwrap();
    let output = eks_studio_within(Duration::from_secs(180), &[os("lint"), keys.as_os_str()]);
    assert_eq!(output.status.code(), Some(2), "a duplicate key: {output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("keys.yaml:100007:1"),
        "{}",
        &stdout[..stdout.len().min(500)]
    );
    assert!(
        stdout.contains("duplicate entry with key \"key5\""),
        "{stdout}"
    );
}

#[test]
fn a_body_declared_at_ten_gigabytes_is_refused_at_once() {
    let server = Server::start(&[], &[]);
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST /api/validate HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n{{",
        server.addr
    )
    .unwrap();
    let mut answer = vec![0; 4096];
    let read = stream
        .read(&mut answer)
        .expect("an answer before the body arrives, not after the request timeout");
    let answer = String::from_utf8_lossy(&answer[..read]);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("at most 2097152"), "{answer}");
}

#[test]
fn the_page_and_the_api_forbid_being_framed_by_another_site() {
    let server = Server::start(&[], &[]);
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    write!(
        stream,
        "GET /api/health HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        server.addr
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let head = answer
        .split("\r\n\r\n")
        .next()
        .unwrap()
        .to_ascii_lowercase();
    assert!(head.contains("x-frame-options: deny"), "{head}");
    assert!(
        head.contains("content-security-policy: frame-ancestors 'none'"),
        "{head}"
    );
}

#[test]
fn lint_of_a_directory_skips_a_fifo_named_like_yaml() {
    let scratch = scratch_dir("fifo");
    let directory = scratch.join("design");
    std::fs::create_dir_all(&directory).unwrap();
    let fifo = directory.join("trap.yaml");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    std::fs::write(
        directory.join("cluster.yaml"),
        format!("{CLUSTER_HEAD}managedNodeGroups:\n  - name: cpu\n    instanceType: m5.large\n"),
    )
    .unwrap();
    let output = eks_studio_within(
        Duration::from_secs(30),
        &[os("lint"), directory.as_os_str()],
    );
    assert!(matches!(output.status.code(), Some(0 | 1)), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("trap.yaml"), "{stdout}");
}

#[test]
fn a_byte_order_mark_is_no_part_of_the_first_key() {
    let scratch = scratch_dir("bom");
    let file = scratch.join("cluster.yaml");
    std::fs::write(
        &file,
        format!(
            "\u{FEFF}{CLUSTER_HEAD}managedNodeGroups:\n  - name: cpu\n    instanceType: m5.large\n"
        ),
    )
    .unwrap();
    let output = eks_studio_within(Duration::from_secs(30), &[os("lint"), file.as_os_str()]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("apiVersion"), "{stdout}");
    assert!(matches!(output.status.code(), Some(0 | 1)), "{output:?}");

    let spec = scratch.join("studio.json");
    std::fs::write(&spec, format!("\u{FEFF}{}", g5_spec("eks-bom"))).unwrap();
    let out = scratch.join("out");
    let output = eks_studio_within(
        Duration::from_secs(30),
        &[
            os("render"),
            os("--spec"),
            spec.as_os_str(),
            os("--out"),
            out.as_os_str(),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

#[test]
fn invisible_and_direction_changing_characters_are_printed_escaped() {
    let scratch = scratch_dir("bidi");
    let file = scratch.join("cluster.yaml");
    std::fs::write(
        &file,
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: \"a\\u202Eb\\u200Bc\\u2028d\"\n  region: us-east-1\n",
    )
    .unwrap();
    let output = eks_studio_within(Duration::from_secs(30), &[os("lint"), file.as_os_str()]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    for raw in ['\u{202E}', '\u{200B}', '\u{2028}'] {
        assert!(!stdout.contains(raw), "{raw:?} printed raw: {stdout}");
    }
    assert!(stdout.contains("\\u{202e}"), "{stdout}");
}

#[test]
fn every_command_that_reads_a_spec_accepts_the_max_bytes_it_advises() {
    let scratch = scratch_dir("max-bytes");
    let spec = scratch.join("studio.json");
    let text = g5_spec("eks-max-bytes").to_string();
    std::fs::write(&spec, &text).unwrap();
    let small = "10";
    let enough = (text.len() + 1).to_string();
    let out = scratch.join("out");
    for command in ["render", "resolve", "check"] {
        let mut args = vec![os(command), os("--spec"), spec.as_os_str()];
        if command == "render" {
            args.extend([os("--out"), out.as_os_str()]);
        }
        let mut refused = args.clone();
        refused.extend([os("--max-bytes"), os(small)]);
        let output = eks_studio_within(Duration::from_secs(60), &refused);
        assert_eq!(output.status.code(), Some(2), "{command}: {output:?}");
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(said.contains("--max-bytes"), "{command}: {said}");
        if command != "check" {
            let mut read = args.clone();
            read.extend([os("--max-bytes"), os(&enough)]);
            let output = eks_studio_within(Duration::from_secs(60), &read);
            assert_eq!(output.status.code(), Some(0), "{command}: {output:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jobs_directory_and_its_files_are_the_server_users_alone() {
    use std::os::unix::fs::PermissionsExt;
    let harness = Harness::new("job-modes");
    let job = harness.deploy(&g5_spec("eks-modes")).await;
    let directory = harness.job_dir(job["id"].as_str().unwrap());
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&directory), 0o700);
    assert_eq!(mode(&directory.join("cluster.yaml")), 0o600);
    assert_eq!(mode(&directory.join("studio.json")), 0o600);
    assert_eq!(mode(&directory.join("deploy.sh")), 0o700);
}
