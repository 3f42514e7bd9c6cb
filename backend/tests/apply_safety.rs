//! A running cluster changed by a team: one apply at a time through the cluster's Lease
//! (across terminals, servers and `apply.sh`), a dead holder's lock expiring, an approval
//! that plans again, a drain that looks again at what runs on its nodes, and a plan's
//! cost kept in proportion.

mod deploy_support;
mod emulator;
mod running_support;

use running_support::*;

/// One change at a time, whoever makes it: while `eks-studio apply` at one terminal
/// changes the cluster, an apply from another terminal and from two servers on two data
/// directories are each refused before a step runs, naming the holder; the lock lives in
/// the cluster (a Lease, as kubectl reads it) and is free once the first apply ends.
#[tokio::test(flavor = "multi_thread")]
async fn one_apply_at_a_time_across_terminals_and_servers_through_the_cluster_s_lease() {
    let emulator = Emulator::start();
    let dir = temp_dir("lock");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    let first_design = resized(&file, &dir, "first", 3, 4, None);
    let second_design = resized(&file, &dir, "second", 3, 5, None);
    let apply = |design: &Path| {
        vec![
            "apply".to_owned(),
            design.to_str().unwrap().to_owned(),
            "--cluster".to_owned(),
            cluster.clone(),
            "--region".to_owned(),
            REGION.to_owned(),
            "--auto-approve".to_owned(),
        ]
    };
    // The first apply's one step (eksctl scale) takes a while: its lines come slowly.
    let first_args = apply(&first_design);
    let mut first = eks_studio_command(
        &emulator,
        &words(&first_args),
        &[("EKSCTL_STANDIN_DELAY_MS", "15000")],
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let holder_job = format!("terminal run {}", first.id());
    let lease = held_lease(&emulator, &file);
    let identity = lease["spec"]["holderIdentity"].as_str().unwrap();
    assert!(identity.contains(&holder_job), "{lease}");
    assert_eq!(lease["metadata"]["namespace"], "kube-system");
    assert_eq!(
        lease["metadata"]["annotations"]["eks-studio/job"],
        holder_job.as_str()
    );
    assert!(lease["spec"]["leaseDurationSeconds"].as_u64().unwrap() >= 3);

    // Another terminal: refused before any step, naming the holder.
    let calls = dir.join("second-calls.jsonl");
    let second = eks_studio_with(
        &emulator,
        &words(&apply(&second_design)),
        &[("EKSCTL_STANDIN_ARGV_LOG", calls.to_str().unwrap())],
    );
    let said = text(&second.stderr);
    assert_eq!(second.status.code(), Some(6), "{said}");
    assert!(
        said.contains("another apply holds the cluster's lock"),
        "{said}"
    );
    assert!(said.contains(&holder_job), "{said}");
    assert!(
        calls_in(&calls).is_empty(),
        "nothing ran: {:?}",
        calls_in(&calls)
    );

    // Two servers, each on its own data directory: each refuses with 409, naming it.
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let python = studio_e2e::ec2_emulator::python();
    let fixture = |name: &str| root().join("tests/fixtures").join(name);
    let design = design_json(&second_design);
    for data in ["data-a", "data-b"] {
        let mut args: Vec<std::ffi::OsString> = vec!["--data-dir".into(), dir.join(data).into()];
        for tool in ["eksctl", "aws", "kubectl", "helm"] {
            args.push(format!("--{tool}").into());
            args.push(
                pointed_at_emulator(&emulator, &bin, tool, &[&python, &fixture(tool)]).into(),
            );
        }
        let environment = [
            ("EKS_STUDIO_DEPLOY_TOKEN", API_TOKEN),
            ("AWS_ACCESS_KEY_ID", "testing"),
            ("AWS_SECRET_ACCESS_KEY", "testing"),
            ("AWS_ENDPOINT_URL", emulator.endpoint.as_str()),
        ];
        let server = deploy_support::Server::start(&args, &environment);
        let (status, refused) = server.call(
            "POST",
            "/api/applies",
            API_TOKEN,
            Some(&serde_json::json!({"region": REGION, "cluster": cluster, "spec": design})),
        );
        assert_eq!(status, 409, "{data}: {refused}");
        assert_eq!(
            refused["lock"]["holder"]["job"],
            holder_job.as_str(),
            "{refused}"
        );
        assert!(
            refused["error"]
                .as_str()
                .unwrap()
                .contains("nothing was run"),
            "{refused}"
        );
        let (status, jobs) = server.call("GET", "/api/deploys", API_TOKEN, None);
        assert_eq!(status, 200);
        assert_eq!(jobs, serde_json::json!([]), "{data}: no job exists");
    }
    // apply.sh of a reviewed plan, run where the studio is not: refused the same way.
    let bundle = dir.join("second-bundle");
    let planned = plan_on(
        &emulator,
        &second_design,
        &cluster,
        &["--out", bundle.to_str().unwrap()],
    );
    assert_eq!(planned.status.code(), Some(1), "{}", text(&planned.stderr));
    let script = apply_sh(&emulator, &bundle);
    let said = text(&script.stderr);
    assert_eq!(script.status.code(), Some(6), "{said}");
    assert!(said.contains(&holder_job), "{said}");
    assert!(
        first.try_wait().unwrap().is_none(),
        "the first apply still ran while the others were refused"
    );

    // The first apply ends: its change made, the lock freed for the next.
    let output = first.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    let lease = read_lease(&emulator, &file).unwrap();
    assert_eq!(lease["spec"]["holderIdentity"], "", "{lease}");
    // Now apply.sh takes it, runs its steps and frees it; then nothing is left to do.
    let script = apply_sh(&emulator, &bundle);
    assert_eq!(script.status.code(), Some(0), "{}", text(&script.stderr));
    let lease = read_lease(&emulator, &file).unwrap();
    assert_eq!(lease["spec"]["holderIdentity"], "", "{lease}");
    assert!(
        lease["spec"]["leaseTransitions"].as_u64().unwrap() >= 1,
        "{lease}"
    );
    let next = eks_studio(&emulator, &words(&apply(&second_design)));
    assert_eq!(next.status.code(), Some(0), "{}", text(&next.stderr));
}

/// A holder that dies loses the lock when its Lease expires, and nothing waits forever;
/// a forced break (`--break-lock`) takes a live lock, says whose it was (to the person and
/// in the Lease), and the holder it was taken from stops before its next step.
#[test]
fn a_dead_holder_s_lock_expires_and_a_broken_lock_stops_its_holder_before_the_next_step() {
    let emulator = Emulator::start();
    let dir = temp_dir("lock-expiry");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    let apply = |design: &Path, more: &[&str]| {
        let mut args = vec![
            "apply".to_owned(),
            design.to_str().unwrap().to_owned(),
            "--cluster".to_owned(),
            cluster.clone(),
            "--region".to_owned(),
            REGION.to_owned(),
            "--auto-approve".to_owned(),
        ];
        args.extend(more.iter().map(|word| (*word).to_owned()));
        args
    };
    let short = [
        ("EKSCTL_STANDIN_DELAY_MS", "20000"),
        ("EKS_STUDIO_LOCK_SECONDS", "4"),
    ];

    // Killed with SIGKILL while it holds the lock: nothing releases it.
    let doomed_design = resized(&file, &dir, "doomed", 3, 4, None);
    let mut doomed = eks_studio_command(&emulator, &words(&apply(&doomed_design, &[])), &short)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    held_lease(&emulator, &file);
    doomed.kill().unwrap();
    doomed.wait().unwrap();
    let next_design = resized(&file, &dir, "next", 3, 6, None);
    let refused = eks_studio(&emulator, &words(&apply(&next_design, &[])));
    assert_eq!(refused.status.code(), Some(6), "{}", text(&refused.stderr));
    // Past its duration the dead holder's lock has expired: the next apply takes it.
    std::thread::sleep(std::time::Duration::from_secs(5));
    let taken = eks_studio(&emulator, &words(&apply(&next_design, &[])));
    assert_eq!(taken.status.code(), Some(0), "{}", text(&taken.stderr));
    let lease = read_lease(&emulator, &file).unwrap();
    assert!(
        lease["spec"]["leaseTransitions"].as_u64().unwrap() >= 1,
        "{lease}"
    );

    // A live holder, two steps to run (an access entry, then a scale), the first slow.
    let held_design = resized(&file, &dir, "held", 3, 7, Some("held-team"));
    let held_args = apply(&held_design, &[]);
    let holder_calls = dir.join("holder-calls.jsonl");
    let mut holder_env = short.to_vec();
    holder_env.push(("EKSCTL_STANDIN_ARGV_LOG", holder_calls.to_str().unwrap()));
    let holder = eks_studio_command(&emulator, &words(&held_args), &holder_env)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let holder_job = format!("terminal run {}", holder.id());
    held_lease(&emulator, &file);
    // Its first step under way (the entry made, its slow lines still coming): the
    // cluster the breaker plans against stays as it is until the breaker runs.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !calls_in(&holder_calls)
        .iter()
        .any(|argv| argv.get(2).is_some_and(|word| word == "accessentry"))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the holder never began"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let breaker_design = resized(&file, &dir, "breaker", 3, 8, None);
    let broke = eks_studio(
        &emulator,
        &words(&apply(&breaker_design, &["--break-lock"])),
    );
    let said = text(&broke.stderr);
    assert_eq!(broke.status.code(), Some(0), "{said}");
    assert!(said.contains("broke the cluster's lock, held by"), "{said}");
    assert!(said.contains(&holder_job), "{said}");
    let lease = read_lease(&emulator, &file).unwrap();
    assert!(
        lease["metadata"]["annotations"]["eks-studio/broke"]
            .as_str()
            .is_some_and(|note| note.contains(&holder_job)),
        "the Lease says whose lock was broken: {lease}"
    );
    let stopped = holder.wait_with_output().unwrap();
    let said = text(&stopped.stderr);
    assert_eq!(stopped.status.code(), Some(1), "{said}");
    assert!(said.contains("stopped before step"), "{said}");
    assert!(
        said.contains("the lock was taken by eks-studio apply"),
        "{said}"
    );
}

/// The approval sees the cluster as it is: a training job scheduled on the nodes an apply
/// drains, after the plan the job shows was made, makes its approval a 409 naming the
/// job; the apply is cancelled before any step runs. An `approved_plan` made before the
/// job landed is refused the same way.
#[tokio::test(flavor = "multi_thread")]
async fn an_approval_plans_again_and_refuses_when_training_landed_on_a_node_it_drains() {
    let emulator = Emulator::start();
    let dir = temp_dir("approval-replans");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    // The GPU group on a larger type: a replacement, which drains its nodes.
    let changed = dir.join("changed.yaml");
    std::fs::write(
        &changed,
        std::fs::read_to_string(&file)
            .unwrap()
            .replace("g4dn.8xlarge", "g4dn.12xlarge"),
    )
    .unwrap();
    let design = design_json(&changed);
    let router = api_with_deployer(&emulator, &dir).await;
    let (status, reviewed) = post_json(
        &router,
        "/api/plan",
        &serde_json::json!({"region": REGION, "cluster": cluster, "spec": design}),
    )
    .await;
    assert_eq!(status, 200, "{reviewed}");
    assert!(!reviewed.to_string().contains("PyTorchJob"), "{reviewed}");
    let request = serde_json::json!({"region": REGION, "cluster": cluster, "spec": design,
                                     "approved_plan": reviewed, "allow_disruption": true});
    let (status, job) =
        call_with_token(&router, "POST", "/api/applies", Some(&request), API_TOKEN).await;
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_owned();
    loop {
        let (_, job) = call_with_token(
            &router,
            "GET",
            &format!("/api/deploys/{id}"),
            None,
            API_TOKEN,
        )
        .await;
        if job["steps"][0]["state"] == "running" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    // A training run lands on the group's nodes while the job waits.
    land_training(&emulator, &file, &dir, "g4dn", "llama");

    let (status, refused) = call_with_token(
        &router,
        "POST",
        &format!("/api/deploys/{id}/approve"),
        None,
        API_TOKEN,
    )
    .await;
    assert_eq!(status, 409, "{refused}");
    let said = refused.to_string();
    assert!(said.contains("PyTorchJob training/llama"), "{said}");
    assert!(said.contains("nodegroup g4dn"), "{said}");
    let (_, job) = call_with_token(
        &router,
        "GET",
        &format!("/api/deploys/{id}"),
        None,
        API_TOKEN,
    )
    .await;
    assert_eq!(job["state"], "cancelled", "{job}");
    let ran: Vec<&serde_json::Value> = job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .filter(|step| {
            step["state"] != "pending" && step["state"] != "skipped" && step["state"] != "cancelled"
        })
        .collect();
    assert!(ran.is_empty(), "no step ran: {job}");

    // A design with an error finding is held to a deploy's rules: 422 with the findings,
    // no job, and the cluster not read.
    let mut broken = design.clone();
    broken["node_groups"][0]["min_size"] = 5.into();
    broken["node_groups"][0]["desired_capacity"] = 3.into();
    broken["node_groups"][0]["max_size"] = 2.into();
    let before = emulator.all_calls().await;
    let (status, refused) = call_with_token(
        &router,
        "POST",
        "/api/applies",
        Some(
            &serde_json::json!({"region": REGION, "cluster": cluster, "spec": broken,
                                 "allow_disruption": true}),
        ),
        API_TOKEN,
    )
    .await;
    assert_eq!(status, 422, "{refused}");
    assert!(
        refused["findings"]
            .as_array()
            .is_some_and(|findings| findings
                .iter()
                .any(|finding| finding["severity"] == "error")),
        "{refused}"
    );
    assert_eq!(
        emulator.all_calls().await,
        before,
        "the cluster was not read"
    );

    // A new apply of the plan reviewed before the job landed: refused, naming it.
    let (status, stale) =
        call_with_token(&router, "POST", "/api/applies", Some(&request), API_TOKEN).await;
    assert_eq!(status, 409, "{stale}");
    assert!(
        stale.to_string().contains("PyTorchJob training/llama"),
        "{stale}"
    );
}

/// A plan's cost stays in proportion to what it asks: one DescribeAddonVersions per
/// distinct add-on name (and none again while cached), a design of more add-ons than EKS
/// has is refused with 422 before any call, and a cluster EKS does not have is a 404.
#[tokio::test(flavor = "multi_thread")]
async fn a_plan_asks_eks_once_per_distinct_add_on_and_refuses_more_than_eks_has() {
    let emulator = Emulator::start();
    let dir = temp_dir("addon-calls");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    let router = backend::app(backend::AppState {
        aws: emulator.live_aws().await,
        deploys: reads_only(),
        ..backend::AppState::default()
    });
    let mut design = design_json(&file);
    let listed: Vec<serde_json::Value> = (0..60)
        .map(|index| {
            let name = ["vpc-cni", "coredns", "kube-proxy"][index % 3];
            serde_json::json!({"name": name})
        })
        .collect();
    design["addons"] = listed.into();
    let plan = |design: &serde_json::Value, cluster: &str| serde_json::json!({"region": REGION, "cluster": cluster, "spec": design});
    let before = emulator.calls("DescribeAddonVersions").await;
    let (status, answer) = post_json(&router, "/api/plan", &plan(&design, &cluster)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        emulator.calls("DescribeAddonVersions").await - before,
        3,
        "one call per distinct add-on name"
    );
    let (status, _) = post_json(&router, "/api/plan", &plan(&design, &cluster)).await;
    assert_eq!(status, 200);
    assert_eq!(
        emulator.calls("DescribeAddonVersions").await - before,
        3,
        "answers are cached as the live checks' are"
    );
    // A cluster EKS does not have: 404, and no add-on asked about.
    design["addons"] = serde_json::json!([{"name": "aws-ebs-csi-driver"}]);
    let before = emulator.calls("DescribeAddonVersions").await;
    let (status, missing) = post_json(&router, "/api/plan", &plan(&design, "nowhere")).await;
    assert_eq!(status, 404, "{missing}");
    assert_eq!(
        emulator.calls("DescribeAddonVersions").await,
        before,
        "nothing asked before the cluster is found"
    );

    // 300 listed add-ons: refused before any call.
    design["addons"] = (0..300)
        .map(|index| serde_json::json!({"name": format!("addon-{index}")}))
        .collect::<Vec<_>>()
        .into();
    let before = emulator.all_calls().await;
    let (status, refused) = post_json(&router, "/api/plan", &plan(&design, &cluster)).await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused.to_string().contains("300 add-ons"), "{refused}");
    assert_eq!(emulator.all_calls().await, before, "no AWS call");
}

/// Between steps, a step that drains nodes first looks at what runs on them: a training
/// job that landed there after the plan was approved (here while an earlier step ran)
/// stops the apply before the drain, naming the job.
#[test]
fn a_drain_stops_when_training_landed_on_its_nodes_after_the_approval() {
    let emulator = Emulator::start();
    let dir = temp_dir("drain-recheck");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    let changed = entry_then_replacement(&file, &dir);
    let calls = dir.join("calls.jsonl");
    let apply = eks_studio_command(
        &emulator,
        &[
            "apply",
            changed.to_str().unwrap(),
            "--cluster",
            &cluster,
            "--region",
            REGION,
            "--auto-approve",
            "--allow-disruption",
        ],
        &[
            ("EKSCTL_STANDIN_DELAY_MS", "3000"),
            ("EKSCTL_STANDIN_ARGV_LOG", calls.to_str().unwrap()),
        ],
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    // Once the first step runs, a training run lands on the group's nodes.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !calls_in(&calls)
        .iter()
        .any(|argv| argv.get(2).is_some_and(|word| word == "accessentry"))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the apply never reached its first step"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    land_training(&emulator, &file, &dir, "g4dn", "late");

    let stopped = apply.wait_with_output().unwrap();
    let said = text(&stopped.stderr);
    assert_eq!(stopped.status.code(), Some(1), "{said}");
    assert!(
        said.contains("training work landed on the nodes it drains"),
        "{said}"
    );
    assert!(said.contains("PyTorchJob training/late"), "{said}");
    assert!(
        !calls_in(&calls)
            .iter()
            .any(|argv| argv.get(1).is_some_and(|word| word == "delete")),
        "no drain ran: {:?}",
        calls_in(&calls)
    );
}

/// The server's apply looks at the nodes again before it drains them: training that
/// landed there after the approval (while an earlier step ran) fails the job at the
/// drain, naming the job, and nothing is drained.
#[tokio::test(flavor = "multi_thread")]
async fn the_server_s_apply_stops_at_a_drain_when_training_landed_after_the_approval() {
    let emulator = Emulator::start();
    let dir = temp_dir("server-drain-recheck");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    let changed = entry_then_replacement(&file, &dir);
    let design = design_json(&changed);
    let calls = dir.join("server-calls.jsonl");
    let router = api_with_deployer_and(
        &emulator,
        &dir,
        &format!(
            "EKSCTL_STANDIN_DELAY_MS=3000 EKSCTL_STANDIN_ARGV_LOG='{}'",
            calls.display()
        ),
    )
    .await;
    let request = serde_json::json!({"region": REGION, "cluster": cluster, "spec": design,
                                     "allow_disruption": true});
    let (status, job) =
        call_with_token(&router, "POST", "/api/applies", Some(&request), API_TOKEN).await;
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_owned();
    let job_of = |router: axum::Router, id: String| async move {
        call_with_token(
            &router,
            "GET",
            &format!("/api/deploys/{id}"),
            None,
            API_TOKEN,
        )
        .await
        .1
    };
    while job_of(router.clone(), id.clone()).await["steps"][0]["state"] != "running" {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let (status, approved) = call_with_token(
        &router,
        "POST",
        &format!("/api/deploys/{id}/approve"),
        None,
        API_TOKEN,
    )
    .await;
    assert_eq!(status, 200, "{approved}");
    // Once the first step runs, a training run lands on the group's nodes.
    while !calls_in(&calls)
        .iter()
        .any(|argv| argv.get(2).is_some_and(|word| word == "accessentry"))
    {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    land_training(&emulator, &file, &dir, "g4dn", "late");

    let job = loop {
        let job = job_of(router.clone(), id.clone()).await;
        if !matches!(job["state"].as_str(), Some("pending" | "running")) {
            break job;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    assert_eq!(job["state"], "failed", "{job}");
    let drain = &job["steps"][3];
    assert!(
        drain["title"]
            .as_str()
            .unwrap()
            .contains("eksctl delete nodegroup g4dn")
            && drain["state"] == "failed"
            && drain["started_at"].is_null(),
        "the drain was refused, not run: {job}"
    );
    // Why, as the job's events say it (the stream of a finished job ends with it).
    let said = {
        use http_body_util::BodyExt;
        use tower::ServiceExt;
        let request = axum::http::Request::get(format!("/api/deploys/{id}/events"))
            .header("authorization", format!("Bearer {API_TOKEN}"))
            .body(axum::body::Body::empty())
            .unwrap();
        let response = router.clone().oneshot(request).await.unwrap();
        text(&response.into_body().collect().await.unwrap().to_bytes())
    };
    assert!(
        said.contains("training work landed on the nodes it drains"),
        "{said}"
    );
    assert!(said.contains("PyTorchJob training/late"), "{said}");
    assert!(
        !calls_in(&calls)
            .iter()
            .any(|argv| argv.get(1).is_some_and(|word| word == "delete")),
        "no drain ran: {:?}",
        calls_in(&calls)
    );
}
