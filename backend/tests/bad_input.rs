//! Bad input through every door: the HTTP API on a real loopback listener and the
//! `eks-studio` command line. Each row of [`ROWS`] is one input, where it goes, the status
//! or exit code expected and a piece of the message, which must say where the problem is
//! (a field path or a line and column). Small inputs are files in `tests/data/bad-input/`;
//! bombs and oversize bodies are made here. After every row the server must still answer.

mod deploy_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use deploy_support::*;

/// Only a guard against a hang; no row comes near it.
const HANG_GUARD: Duration = Duration::from_secs(20);

/// The command line runs with at most this much address space (`ulimit -v`, KiB): a bomb
/// that expanded would be stopped by it instead of passing.
const CLI_ADDRESS_SPACE_KIB: u64 = 2 * 1024 * 1024;

/// Where an input goes.
#[derive(Clone, Copy, Debug)]
enum Door {
    /// `POST /api/{route}`, with the deploy token.
    Api(&'static str),
    /// `eks-studio ARGS… FILE [--out DIR]`.
    Cli(&'static [&'static str]),
}

use Door::{Api, Cli};

/// What goes in: a file of the corpus, or bytes made by a function.
#[derive(Clone, Copy, Debug)]
enum Input {
    File(&'static str),
    Made(&'static str, fn() -> Vec<u8>),
}

use Input::{File, Made};

struct Row {
    input: Input,
    door: Door,
    /// HTTP status, or the process's exit code.
    expected: u16,
    /// A piece of the message that says what and where.
    message: &'static str,
}

const fn row(input: Input, door: Door, expected: u16, message: &'static str) -> Row {
    Row {
        input,
        door,
        expected,
        message,
    }
}

const VALIDATE: Door = Api("validate");
const RENDER: Door = Api("render");
const CHECKS: Door = Api("checks");
const DEPLOYS: Door = Api("deploys");
const OFFERINGS: Door = Api("capacity-block-offerings");
const LINT: Door = Cli(&["lint"]);
const CONVERT: Door = Cli(&["convert"]);
const RENDER_SPEC: Door = Cli(&["render", "--spec"]);
const CHECK_SPEC: Door = Cli(&["check", "--spec"]);

const SPEC_ROUTES: [Door; 4] = [VALIDATE, RENDER, CHECKS, DEPLOYS];

const ROWS: &[Row] = &[
    // Truncated text.
    row(
        File("truncated.json"),
        VALIDATE,
        400,
        "EOF while parsing a string at line 4 column",
    ),
    row(
        File("truncated.json"),
        DEPLOYS,
        400,
        "EOF while parsing a string at line 4 column",
    ),
    row(File("truncated.json"), RENDER_SPEC, 2, "truncated.json:4:"),
    row(File("truncated.json"), CHECK_SPEC, 2, "truncated.json:4:"),
    row(File("truncated.json"), LINT, 2, "truncated.json:4:"),
    row(
        File("truncated.yaml"),
        LINT,
        2,
        "truncated.yaml:8:19: error: while scanning a quoted scalar",
    ),
    row(
        File("truncated.yaml"),
        CONVERT,
        2,
        "truncated.yaml:8:19: error: while scanning a quoted scalar",
    ),
    // Wrong types.
    row(
        File("wrong-type.json"),
        VALIDATE,
        422,
        "cluster.name: invalid type: integer `12`, expected a string at line 2 column",
    ),
    row(
        File("wrong-type.json"),
        RENDER,
        422,
        "cluster.name: invalid type: integer `12`",
    ),
    row(
        File("wrong-type.json"),
        CHECKS,
        422,
        "cluster.name: invalid type: integer `12`",
    ),
    row(
        File("wrong-type.json"),
        DEPLOYS,
        422,
        "cluster.name: invalid type: integer `12`",
    ),
    row(
        File("wrong-type.json"),
        RENDER_SPEC,
        2,
        "wrong-type.json:2:",
    ),
    row(File("wrong-type.json"), CHECK_SPEC, 2, "wrong-type.json:2:"),
    row(
        File("negative-count.json"),
        OFFERINGS,
        422,
        "instance_count: invalid value: integer `-1`, expected u32",
    ),
    // lint reports a schema violation as a finding (exit 1, docs/command-line.md); convert refuses it.
    row(
        File("wrong-type.yaml"),
        LINT,
        1,
        "wrong-type.yaml:4:3: error[eksctl-schema]: expected string, found array",
    ),
    row(
        File("wrong-type.yaml"),
        CONVERT,
        2,
        "wrong-type.yaml:4:3: error: metadata.name: expected string, found array",
    ),
    // Unknown kinds.
    row(
        File("unknown-kind.yaml"),
        LINT,
        2,
        "unknown-kind.yaml:2:1: error: `ConfigMap` in `v1` is not an eksctl ClusterConfig",
    ),
    row(
        File("unknown-kind.yaml"),
        CONVERT,
        2,
        "unknown-kind.yaml:2:1: error: `ConfigMap` in `v1` is not an eksctl ClusterConfig",
    ),
    row(
        File("unknown-kind.json"),
        VALIDATE,
        422,
        "node_groups[0].capacity.kind: unknown variant `magic`",
    ),
    row(
        File("unknown-kind.json"),
        DEPLOYS,
        422,
        "node_groups[0].capacity.kind: unknown variant `magic`",
    ),
    row(
        File("unknown-kind.json"),
        RENDER_SPEC,
        2,
        "unknown-kind.json:4:",
    ),
    // Huge numbers.
    row(
        File("number-out-of-range.json"),
        VALIDATE,
        400,
        "node_groups[0].min_size: number out of range at line 3 column",
    ),
    row(
        File("number-out-of-range.json"),
        CHECKS,
        400,
        "node_groups[0].min_size: number out of range",
    ),
    row(
        File("number-out-of-range.json"),
        CHECK_SPEC,
        2,
        "number-out-of-range.json:3:",
    ),
    row(
        File("count-beyond-u32.json"),
        OFFERINGS,
        422,
        "duration_hours: invalid type: floating point `1e+20`, expected u32 at line 1 column 116",
    ),
    // go-yaml v2 reads an integer beyond 64 bits as a float; eksctl then cannot put it
    // in an integer field, and neither does the studio.
    row(
        File("number-beyond-64-bits.yaml"),
        LINT,
        1,
        "number-beyond-64-bits.yaml:9:5: error[eksctl-schema]: `1e29` does not fit in a 64-bit integer",
    ),
    row(
        File("number-beyond-64-bits.yaml"),
        CONVERT,
        2,
        "number-beyond-64-bits.yaml:9:5: error: managedNodeGroups[0].desiredCapacity: `1e29` does not fit in a 64-bit integer",
    ),
    row(
        File("number-beyond-int64.yaml"),
        LINT,
        1,
        "number-beyond-int64.yaml:9:5: error[eksctl-schema]: `18446744073709551615` does not fit in a 64-bit integer",
    ),
    row(
        File("number-beyond-int64.yaml"),
        CONVERT,
        2,
        "number-beyond-int64.yaml:10:5: error: managedNodeGroups[0].maxSize: `1e308` does not fit in a 64-bit integer",
    ),
    // Binary junk.
    row(
        Made("binary.yaml", binary_junk),
        LINT,
        2,
        "binary.yaml:2:118: error: the file is not UTF-8 text",
    ),
    row(
        Made("binary.yaml", binary_junk),
        CONVERT,
        2,
        "binary.yaml:2:118: error: the file is not UTF-8 text",
    ),
    row(
        Made("control-bytes.yaml", control_bytes),
        LINT,
        2,
        "control-bytes.yaml:1:1: error: control character U+0000 is not allowed in YAML",
    ),
    row(
        Made("control-bytes.yaml", control_bytes),
        CONVERT,
        2,
        "control-bytes.yaml:1:1: error: control character U+0000",
    ),
    row(
        Made("control-character.yaml", control_character_in_value),
        LINT,
        2,
        "control-character.yaml:4:12: error: control character U+001B",
    ),
    row(
        Made("not-utf8.yaml", not_utf8),
        LINT,
        2,
        "not-utf8.yaml:4:11: error: the file is not UTF-8 text",
    ),
    row(
        Made("binary.json", binary_junk),
        VALIDATE,
        400,
        "expected value at line 1 column 1",
    ),
    row(
        Made("binary.json", binary_junk),
        OFFERINGS,
        400,
        "expected value at line 1 column 1",
    ),
    row(
        Made("binary.json", binary_junk),
        RENDER_SPEC,
        2,
        "error: cannot read",
    ),
    row(
        Made("control-bytes.json", control_bytes),
        RENDER_SPEC,
        2,
        "control-bytes.json:1:1: error: expected value",
    ),
    row(
        Made("not-utf8.json", not_utf8_json),
        VALIDATE,
        400,
        "invalid unicode code point at line 2 column",
    ),
    row(
        Made("not-utf8.json", not_utf8_json),
        CHECK_SPEC,
        2,
        "error: cannot read",
    ),
    // YAML bombs.
    row(
        Made("deep.yaml", deep_yaml),
        LINT,
        2,
        "deep.yaml:1:259: error: nesting deeper than 128 levels",
    ),
    row(
        Made("deep.yaml", deep_yaml),
        CONVERT,
        2,
        "deep.yaml:1:259: error: nesting deeper than 128 levels",
    ),
    row(
        Made("deep-block.yaml", deep_block_yaml),
        LINT,
        2,
        "deep-block.yaml:129:130: error: nesting deeper than 128 levels",
    ),
    row(
        Made("laughs.yaml", billion_laughs),
        LINT,
        2,
        "laughs.yaml:6:8: error: aliases expand to more than 100000 nodes",
    ),
    row(
        Made("laughs.yaml", billion_laughs),
        CONVERT,
        2,
        "laughs.yaml:6:8: error: aliases expand to more than 100000 nodes",
    ),
    row(
        Made("recursive-alias.yaml", recursive_alias),
        LINT,
        2,
        "recursive-alias.yaml:1:11: error: alias refers to a node that contains it",
    ),
    // JSON bombs: nesting where the spec keeps unmodelled keys.
    row(
        Made("deep.json", deep_json),
        VALIDATE,
        400,
        "recursion limit exceeded at line 1 column",
    ),
    row(
        Made("deep.json", deep_json),
        DEPLOYS,
        400,
        "recursion limit exceeded at line 1 column",
    ),
    row(Made("deep.json", deep_json), RENDER_SPEC, 2, "deep.json:1:"),
    row(Made("deep.json", deep_json), LINT, 2, "deep.json:1:"),
    // Oversize bodies, declared in Content-Length: refused before any byte is read.
    row(
        Made("oversize.json", oversize_json),
        VALIDATE,
        413,
        "the studio reads at most 2097152",
    ),
    row(
        Made("oversize.json", oversize_json),
        RENDER,
        413,
        "the studio reads at most 2097152",
    ),
    row(
        Made("oversize.json", oversize_json),
        CHECKS,
        413,
        "the studio reads at most 2097152",
    ),
    row(
        Made("oversize.json", oversize_json),
        OFFERINGS,
        413,
        "the studio reads at most 2097152",
    ),
    row(
        Made("oversize.json", oversize_json),
        DEPLOYS,
        413,
        "the studio reads at most 2097152",
    ),
];

/// Every byte value: not UTF-8 from the first byte above 127.
fn binary_junk() -> Vec<u8> {
    (0..=255u8).cycle().take(4096).collect()
}

/// ASCII control bytes, valid UTF-8: the YAML parser alone would read the NUL as the end
/// of the text, and the file as empty.
fn control_bytes() -> Vec<u8> {
    (0..128u8).cycle().take(4096).collect()
}

fn control_character_in_value() -> Vec<u8> {
    b"apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: red\x1b[31m\n"
        .to_vec()
}

fn not_utf8() -> Vec<u8> {
    b"apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: ab\xff\xfe\n".to_vec()
}

fn not_utf8_json() -> Vec<u8> {
    b"{\n  \"cluster\": { \"name\": \"ab\xff\xfe\" }\n}\n".to_vec()
}

fn deep_yaml() -> Vec<u8> {
    format!("a: {}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes()
}

/// Block mappings nested 10 000 deep, one level per line.
fn deep_block_yaml() -> Vec<u8> {
    // A thousand levels (half a megabyte): deep past the limit, under lint's size cap.
    (0..1_000)
        .map(|depth| format!("{}k:\n", " ".repeat(depth)))
        .collect::<String>()
        .into_bytes()
}

/// Nine levels of nine aliases each: a billion strings once expanded.
fn billion_laughs() -> Vec<u8> {
    let mut lines =
        vec![r#"a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]"#.to_owned()];
    let names: Vec<char> = ('a'..='j').collect();
    for pair in names.windows(2) {
        let (previous, name) = (pair[0], pair[1]);
        let aliases = vec![format!("*{previous}"); 9].join(",");
        lines.push(format!("{name}: &{name} [{aliases}]"));
    }
    lines.join("\n").into_bytes()
}

fn recursive_alias() -> Vec<u8> {
    b"a: &loop [*loop]\n".to_vec()
}

/// A spec whose first node group's unmodelled keys nest 100 000 deep.
fn deep_json() -> Vec<u8> {
    format!(
        r#"{{"cluster":{{"name":"deep","region":"us-east-1","kubernetes_version":"1.32"}},"node_groups":[{{"name":"gpu","extra":{}1{}}}]}}"#,
        r#"{"k":"#.repeat(100_000),
        "}".repeat(100_000)
    )
    .into_bytes()
}

/// 3 MiB: above every body limit, yet valid JSON.
fn oversize_json() -> Vec<u8> {
    format!(r#"{{"padding":"{}"}}"#, "x".repeat(3 * 1024 * 1024)).into_bytes()
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/bad-input")
        .join(name)
}

fn bytes_and_name(input: Input) -> (Vec<u8>, &'static str) {
    match input {
        File(name) => (std::fs::read(corpus(name)).unwrap(), name),
        Made(name, make) => (make(), name),
    }
}

/// `eks-studio` with the arguments and the file, in `scratch`, under an address-space
/// limit; its exit code and everything it printed.
async fn run_cli(args: &[&str], file: &Path, scratch: &Path) -> (i32, String) {
    let mut command_line: Vec<String> = vec![env!("CARGO_BIN_EXE_eks-studio").to_owned()];
    command_line.extend(args.iter().map(|arg| (*arg).to_owned()));
    command_line.push(file.display().to_string());
    if args[0] != "lint" && args[0] != "check" {
        command_line.push("--out".into());
        command_line.push(scratch.join("out").display().to_string());
    }
    let output = tokio::process::Command::new("bash")
        .arg("-c")
        .arg(format!("ulimit -v {CLI_ADDRESS_SPACE_KIB} && exec \"$@\""))
        .arg("bash")
        .args(&command_line)
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_CONFIG_FILE", "/nonexistent/aws-config")
        .env(
            "AWS_SHARED_CREDENTIALS_FILE",
            "/nonexistent/aws-credentials",
        )
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("eks-studio runs");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code().unwrap_or(-1), printed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_bad_input_gets_a_located_refusal_and_the_server_keeps_serving() {
    let harness = Harness::new("bad-input");
    let server = LoopbackServer::start(harness.app()).await;
    let client = http_client();
    let scratch = scratch_dir("bad-input");
    let mut failures = Vec::new();
    for (index, row) in ROWS.iter().enumerate() {
        let (bytes, name) = bytes_and_name(row.input);
        let answer = async {
            match row.door {
                Api(route) => {
                    let path = format!("/api/{route}");
                    let (status, body) = if matches!(row.input, Made("oversize.json", _)) {
                        send_oversize(server.addr, &path, bytes).await
                    } else {
                        send(&client, "POST", &server.url(&path), bytes).await
                    };
                    let body: serde_json::Value = serde_json::from_slice(&body)
                        .unwrap_or_else(|_| panic!("{name} → {route}: not JSON: {body:?}"));
                    let message = body["error"].as_str().unwrap_or_default().to_owned();
                    (status.as_u16(), message)
                }
                Cli(args) => {
                    let directory = scratch.join(format!("row-{index}"));
                    std::fs::create_dir_all(&directory).unwrap();
                    let file = directory.join(name);
                    std::fs::write(&file, &bytes).unwrap();
                    let (code, printed) = run_cli(args, &file, &directory).await;
                    (u16::try_from(code).unwrap_or(u16::MAX), printed)
                }
            }
        };
        let (got, message) = tokio::time::timeout(HANG_GUARD, answer)
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "{name} → {:?} did not answer within {HANG_GUARD:?}",
                    row.door
                )
            });
        if got != row.expected || !message.contains(row.message) {
            failures.push(format!(
                "{name} → {:?}: expected {} with `{}`, got {got}: {message}",
                row.door, row.expected, row.message
            ));
        }
        let (status, _) = tokio::time::timeout(
            HANG_GUARD,
            send(&client, "GET", &server.url("/api/health"), Vec::new()),
        )
        .await
        .expect("the server still answers");
        assert_eq!(
            status, 200,
            "the server stopped serving after {name} → {:?}",
            row.door
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // Nothing any row sent became a job.
    let (status, jobs) = send(&client, "GET", &server.url("/api/deploys"), Vec::new()).await;
    assert_eq!(status, 200);
    assert_eq!(jobs, b"[]");
}

#[test]
fn every_corpus_file_has_a_row_and_every_door_is_tried() {
    let files: Vec<String> = std::fs::read_dir(corpus(""))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for file in &files {
        assert!(
            ROWS.iter()
                .any(|row| matches!(row.input, File(name) if name == file)),
            "{file} is in the corpus but no row sends it"
        );
    }
    for door in SPEC_ROUTES
        .iter()
        .chain(&[OFFERINGS, LINT, CONVERT, RENDER_SPEC, CHECK_SPEC])
    {
        let shown = format!("{door:?}");
        assert!(
            ROWS.iter().any(|row| format!("{:?}", row.door) == shown),
            "no row goes to {shown}"
        );
    }
}
