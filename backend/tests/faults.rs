//! The data directory failing under the real server: read-only, and full. Deploys are
//! refused or recorded with a clear error, nothing accepted is lost, nothing panics, and
//! the rest of the server keeps serving.
//!
//! Root ignores file permissions, so neither fault is a `chmod`:
//! - *full*: the server runs with `RLIMIT_FSIZE` (bash's `ulimit -f`) and `SIGXFSZ` ignored,
//!   so a write past the limit fails as on a full disk; no privileges needed.
//! - *read-only*: the server runs in its own user and mount namespace (`unshare`) where the
//!   data directory is bind-mounted read-only. The mount exists only in that namespace and
//!   goes with the server's process, so nothing is left mounted even if a test panics.
//!   Without user namespaces the test fails and says so.

mod deploy_support;

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use deploy_support::*;
use nix::sys::signal::Signal;
use serde_json::json;

/// Only a guard against a hang.
const HANG_GUARD: Duration = Duration::from_secs(90);

fn os(parts: &[&str]) -> Vec<OsString> {
    parts.iter().map(OsString::from).collect()
}

fn validate_still_answers(server: &Server) {
    let spec = template_json("p5-capacity-block");
    let (status, body) = server.call("POST", "/api/validate", TOKEN, Some(&spec));
    assert_eq!(status, 200, "{body}");
    assert!(body["errors"].as_u64().unwrap() > 0, "{body}");
    let (status, body) = server.call("GET", "/api/health", TOKEN, None);
    assert_eq!((status, &body["status"]), (200, &json!("ok")));
}

/// `unshare` with a user and mount namespace, or a clear failure.
fn require_mount_namespaces() {
    let probe = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "true"])
        .output();
    match probe {
        Ok(output) if output.status.success() => {}
        Ok(output) => panic!(
            "this test needs user and mount namespaces (`unshare --user --map-root-user --mount`) to make a read-only data directory: {}",
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(error) => panic!("this test needs `unshare` (util-linux): {error}"),
    }
}

#[test]
fn a_read_only_data_directory_turns_deploys_off_and_the_rest_keeps_serving() {
    require_mount_namespaces();
    let data_dir = scratch_dir("read-only").join("data");
    // A data directory with history in it.
    drop(Harness::with("read-only-history", |config| {
        config.data_dir = data_dir.clone()
    }));
    let before = std::fs::read(data_dir.join("deploys.sqlite3")).unwrap();

    let wrapper = [
        os(&[
            "unshare",
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
        ]),
        vec![OsString::from(
            "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && shift && exec \"$@\"",
        )],
        vec![OsString::from("sh"), data_dir.clone().into_os_string()],
    ]
    .concat();
    let args = [os(&["--data-dir"]), vec![data_dir.clone().into_os_string()]].concat();
    let server = Server::start_wrapped(&wrapper, &args, DEPLOY_ENV);

    let (status, body) = server.call("POST", "/api/deploys", TOKEN, Some(&g5_spec("eks-ro")));
    assert_eq!(status, 503, "{body}");
    let error = body["error"].as_str().unwrap();
    assert!(
        error.contains("deploys are disabled on this server"),
        "{error}"
    );
    assert!(error.contains("Read-only file system"), "{error}");
    assert!(error.contains(&data_dir.display().to_string()), "{error}");
    // Without the token the answer says deploys are off, not where the server keeps data.
    let (status, body) = server.call("GET", "/api/deploys", "not-the-token-0123456789", None);
    assert_eq!(status, 503, "{body}");
    let error = body["error"].as_str().unwrap();
    assert!(
        error.contains("deploys are disabled on this server"),
        "{error}"
    );
    assert!(!error.contains(&data_dir.display().to_string()), "{error}");
    assert!(!error.contains("Read-only"), "{error}");
    let (status, body) = server.call("GET", "/api/deploys", TOKEN, None);
    assert_eq!(status, 503, "{body}");
    validate_still_answers(&server);
    drop(server);

    assert_eq!(
        std::fs::read(data_dir.join("deploys.sqlite3")).unwrap(),
        before,
        "nothing was written"
    );
}

/// Events of a job read until the stream goes quiet for `quiet` (the job cannot record its
/// end) or ends.
async fn events_until_quiet(reader: &mut SseReader, quiet: Duration) -> (Vec<SseMessage>, bool) {
    let mut events = Vec::new();
    loop {
        match tokio::time::timeout(quiet, reader.next()).await {
            Ok(Some(event)) => events.push(event),
            Ok(None) => return (events, true),
            Err(_) => return (events, false),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_directory_that_fills_during_a_deploy_loses_nothing_it_accepted() {
    tokio::time::timeout(HANG_GUARD, async {
        let scratch = scratch_dir("full");
        let data_dir = scratch.join("data");
        let eksctl = chatty_eksctl(&scratch, 5_000, 0);
        let args = [
            os(&["--data-dir"]),
            vec![data_dir.clone().into_os_string()],
            os(&["--eksctl"]),
            vec![eksctl.clone().into_os_string()],
        ]
        .concat();
        // 512 KiB per file: the job store opens and takes the job, then its log fills it.
        let full_at_512_kib = os(&[
            "bash",
            "-c",
            "trap '' XFSZ; ulimit -f 512 && exec \"$@\"",
            "bash",
        ]);
        let mut server = Server::start_wrapped(&full_at_512_kib, &args, DEPLOY_ENV);
        let (status, job) = server.call("POST", "/api/deploys", TOKEN, Some(&g5_spec("eks-full")));
        assert_eq!(status, 202, "{job}");
        let id = job["id"].as_str().unwrap().to_owned();

        let client = http_client();
        let mut reader = open_events(
            &client,
            &format!("http://{}/api/deploys/{id}/events", server.addr),
        )
        .await;
        let (accepted, ended) = events_until_quiet(&mut reader, Duration::from_secs(5)).await;
        assert!(
            !ended,
            "the job's end could not be stored, so its stream stays open"
        );
        assert!(!accepted.is_empty());
        let lines = log_lines(&accepted);
        assert!(
            lines.len() < 5_000,
            "the store filled before the chatty eksctl ended ({} lines stored)",
            lines.len()
        );

        // New jobs are refused, plainly; everything else answers.
        let (status, refused) =
            server.call("POST", "/api/deploys", TOKEN, Some(&g5_spec("eks-other")));
        assert_eq!(status, 503, "{refused}");
        let error = refused["error"].as_str().unwrap();
        assert!(error.contains("cannot store the deploy job"), "{error}");
        assert!(error.contains("full or read-only"), "{error}");
        assert!(error.contains(&data_dir.display().to_string()), "{error}");
        validate_still_answers(&server);
        let (status, shown) = server.call("GET", &format!("/api/deploys/{id}"), TOKEN, None);
        assert_eq!(status, 200, "{shown}");
        assert_eq!(shown["last_event_id"], json!(accepted.last().unwrap().id));

        // The server stops cleanly, without panicking.
        server.signal(Signal::SIGTERM);
        let status = server.wait(Duration::from_secs(30));
        assert!(status.success(), "{status:?}");
        drop(server);

        // With room again, every event that was accepted is still there, in order, and the
        // job ends `interrupted` instead of staying active.
        let server = Server::start(&args, DEPLOY_ENV);
        let mut reader = open_events(
            &client,
            &format!("http://{}/api/deploys/{id}/events", server.addr),
        )
        .await;
        let (after_restart, ended) = events_until_quiet(&mut reader, Duration::from_secs(10)).await;
        assert!(ended);
        assert_eq!(&after_restart[..accepted.len()], &accepted[..]);
        assert_eq!(job_states(&after_restart).last().unwrap(), "interrupted");
        let (status, again) =
            server.call("POST", "/api/deploys", TOKEN, Some(&g5_spec("eks-full")));
        assert_eq!(status, 202, "the cluster is free to deploy again: {again}");
        drop(server);
        assert_no_panic_in(&data_dir);
    })
    .await
    .expect("the test ends within its guard");
}

/// The stand-ins ran in job directories under `data_dir`; none of them left a core dump
/// or a panic message behind.
fn assert_no_panic_in(data_dir: &Path) {
    let jobs = std::fs::read_dir(data_dir.join("jobs")).unwrap();
    for job in jobs {
        let job = job.unwrap().path();
        assert!(
            !job.join("core").exists(),
            "a core dump in {}",
            job.display()
        );
    }
}
