//! Applying a plan against the emulator: `eks-studio apply` and the server's applies run
//! the approved plan's steps with the stand-in tools, in the order that keeps running work
//! alive, and the cluster reads back with no changes.

mod deploy_support;
mod emulator;
mod running_support;

use running_support::*;

/// The apply the issue asks for, end to end against the emulator with the stand-ins
/// changing it as the real tools change AWS: refused without consent to the drain, run
/// with it in the plan's order (the new group before the replaced one goes), the cluster
/// read again with no changes left, and a plan approved before the apply now stale.
#[test]
fn apply_runs_the_approved_plan_in_order_and_the_cluster_reads_back_with_no_changes() {
    let emulator = Emulator::start();
    let dir = temp_dir("apply");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    let changed = changed_design(&file, &dir);
    let calls = dir.join("apply-calls.jsonl");
    let calls_text = calls.to_str().unwrap();
    let log = [("EKSCTL_STANDIN_ARGV_LOG", calls_text)];

    // The plan, reviewed: its bundle with apply.sh and plan.json.
    let reviewed = dir.join("reviewed");
    let plan = eks_studio(
        &emulator,
        &[
            "plan",
            changed.to_str().unwrap(),
            "--cluster",
            &cluster,
            "--region",
            REGION,
            "--out",
            reviewed.to_str().unwrap(),
        ],
    );
    assert_eq!(plan.status.code(), Some(1), "{}", text(&plan.stderr));
    for file in [
        "apply.sh",
        "plan.txt",
        "plan.json",
        "cluster.yaml",
        "studio.json",
    ] {
        assert!(reviewed.join(file).is_file(), "{file} is written");
    }
    let apply_sh = std::fs::read_to_string(reviewed.join("apply.sh")).unwrap();
    assert!(apply_sh.contains("--allow-disruption"), "{apply_sh}");

    // --auto-approve alone does not consent to draining `sys`: nothing runs.
    let approved = reviewed.join("plan.json");
    let base = [
        "apply",
        changed.to_str().unwrap(),
        "--cluster",
        &cluster,
        "--region",
        REGION,
        "--approved-plan",
        approved.to_str().unwrap(),
        "--auto-approve",
    ];
    let refused = eks_studio_with(&emulator, &base, &log);
    assert_eq!(refused.status.code(), Some(4), "{}", text(&refused.stderr));
    let said = text(&refused.stderr);
    assert!(said.contains("-/+ nodegroup sys: drains"), "{said}");
    assert!(
        calls_in(&calls).is_empty(),
        "nothing ran: {:?}",
        calls_in(&calls)
    );
    // Without a terminal and without --auto-approve, nobody was asked: nothing runs.
    let unasked = eks_studio_with(&emulator, &base[..base.len() - 1], &log);
    assert_eq!(unasked.status.code(), Some(4), "{}", text(&unasked.stderr));

    // With consent: every step, in the plan's order, then the cluster read again.
    let work = dir.join("work");
    let mut args = base.to_vec();
    args.extend(["--allow-disruption", "--out", work.to_str().unwrap()]);
    let applied = eks_studio_with(&emulator, &args, &log);
    assert_eq!(
        applied.status.code(),
        Some(0),
        "{}\n{}",
        text(&applied.stdout),
        text(&applied.stderr)
    );
    assert!(
        text(&applied.stdout).contains("Apply complete: 2 to create, 1 to update, 1 to replace"),
        "{}",
        text(&applied.stdout)
    );
    let ran: Vec<String> = calls_in(&calls)
        .iter()
        .filter(|argv| argv[0] != "kubectl" && argv[2] != "update-kubeconfig")
        .map(|argv| argv[..3].join(" "))
        .collect();
    assert_eq!(
        ran,
        [
            "eksctl create nodegroup",
            "eksctl create accessentry",
            "eksctl scale nodegroup",
            "aws eks update-nodegroup-config",
            "eksctl create nodegroup",
            "eksctl delete nodegroup",
            "eksctl create nodegroup",
            "eksctl delete nodegroup",
        ],
        "the plan's order: creations, changes in place, then the replacement through an interim group"
    );
    let groups_named: Vec<String> = calls_in(&calls)
        .iter()
        .filter(|argv| argv[0] == "eksctl" && argv[2] == "nodegroup")
        .map(|argv| {
            let value = |flag: &str| {
                argv.iter()
                    .position(|arg| arg == flag)
                    .map(|at| argv[at + 1].clone())
            };
            format!(
                "{} {}",
                argv[1],
                value("--include").or(value("--name")).unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(
        groups_named[groups_named.len() - 4..],
        [
            "create sys-interim",
            "delete sys",
            "create sys",
            "delete sys-interim"
        ],
        "sys's pods always have a group to run on"
    );
    // apply.sh of the reviewed plan holds the same vectors the apply ran.
    let script_steps: Vec<String> = apply_sh
        .lines()
        .filter(|line| line.starts_with("eksctl ") || line.starts_with("aws eks update-nodegroup"))
        .map(|line| line.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(script_steps, ran);

    // Read again: nothing left, and the group's labels and sizes are EKS's now.
    let after = plan_on(&emulator, &changed, &cluster, &[]);
    assert_eq!(after.status.code(), Some(0), "{}", text(&after.stdout));
    let out = dir.join("read-after");
    read_into(&emulator, &cluster, &out);
    let read: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(out.join("cluster.yaml")).unwrap()).unwrap();
    let group = |name: &str| {
        read["managedNodeGroups"]
            .as_sequence()
            .unwrap()
            .iter()
            .find(|group| group["name"] == name)
            .unwrap_or_else(|| panic!("group {name} is read"))
            .clone()
    };
    assert_eq!(group("g4dn")["desiredCapacity"], 3);
    assert_eq!(group("g4dn")["labels"]["team"], "vision");
    assert_eq!(group("sys")["instanceType"], "m5.2xlarge");
    assert_eq!(group("infer")["instanceType"], "g5.xlarge");

    // The plan approved before the apply no longer holds: refused, saying what changed.
    let stale = eks_studio_with(&emulator, &args, &log);
    assert_eq!(stale.status.code(), Some(5), "{}", text(&stale.stderr));
    assert!(
        text(&stale.stderr).contains("approved, no longer planned: create nodegroup infer"),
        "{}",
        text(&stale.stderr)
    );
}

/// A step that fails stops the steps after it; the apply says what was done and what
/// was not, and a new plan shows exactly what is left.
#[test]
fn a_failed_step_stops_the_apply_and_a_new_plan_shows_what_is_left() {
    let emulator = Emulator::start();
    let dir = temp_dir("apply-fails");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    let changed = changed_design(&file, &dir);
    let calls = dir.join("calls.jsonl");
    let failed = eks_studio_with(
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
            ("AWS_STANDIN_FAIL", "addOrUpdateLabels"),
            ("EKSCTL_STANDIN_ARGV_LOG", calls.to_str().unwrap()),
        ],
    );
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed.stderr));
    let said = text(&failed.stderr);
    assert!(
        said.contains("error: step 4 (aws eks update-nodegroup-config")
            && said.contains("steps 1 to 3 were done, 4 to 8 were not run"),
        "{said}"
    );
    assert!(
        !calls_in(&calls).iter().any(|argv| argv[1] == "delete"),
        "nothing after the failed step ran"
    );
    // What is left: the labels, and the replacement; the new group and the scale are done.
    let left = plan_on(&emulator, &changed, &cluster, &["--format", "json"]);
    let left: serde_json::Value = serde_json::from_slice(&left.stdout).unwrap();
    let changes: Vec<(String, String, Vec<String>)> = left["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|change| {
            (
                change["action"].as_str().unwrap().to_owned(),
                change["name"].as_str().unwrap().to_owned(),
                change["fields"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|field| field.as_str().unwrap().to_owned())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        changes,
        [
            (
                "update".to_owned(),
                "g4dn".to_owned(),
                vec!["labels".to_owned()]
            ),
            (
                "replace".to_owned(),
                "sys".to_owned(),
                vec!["instanceType".to_owned()]
            ),
        ],
        "{left}"
    );
}

/// Karpenter's docs ("NodePools", "Disruption › Drift"): a pool tightened and a pool
/// added are one server-side apply of the file, each new or changed pool waited for
/// until Karpenter reports it `Ready`; a pool removed is deleted by name, last.
#[test]
fn apply_changes_karpenter_s_objects_with_one_server_side_apply_and_waits_for_the_pools() {
    let emulator = Emulator::start();
    let dir = temp_dir("apply-karpenter");
    let (design, cluster, spec) = deployed_template(&emulator, "karpenter-reserved-training", &dir);
    let kept = spec.karpenter.as_ref().unwrap().node_pools[0]
        .metadata
        .name
        .clone();
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&design).unwrap()).unwrap();
    let node_pools = json["karpenter"]["node_pools"].as_array_mut().unwrap();
    node_pools[0]["spec"]["template"]["spec"]["requirements"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": ["4"]}));
    let mut extra = node_pools[0].clone();
    extra["metadata"]["name"] = "extra".into();
    node_pools.push(extra);
    let changed = dir.join("changed.studio.json");
    std::fs::write(&changed, json.to_string()).unwrap();
    let kubectl = |calls: &[Vec<String>]| -> Vec<String> {
        calls
            .iter()
            .filter(|argv| argv[0] == "kubectl")
            .map(|argv| argv[1..].join(" "))
            .collect()
    };

    let calls = applied(&emulator, &changed, &cluster, &dir.join("first"));
    assert_eq!(
        kubectl(&calls),
        [
            "apply --server-side --field-manager=eks-studio -f karpenter/nodepools.yaml".to_owned(),
            "wait --for=condition=Ready nodepool/extra --timeout=300s".to_owned(),
            format!("wait --for=condition=Ready nodepool/{kept} --timeout=300s"),
        ]
    );
    assert_eq!(
        calls[0][..3],
        ["aws", "eks", "update-kubeconfig"].map(str::to_owned)
    );

    // The extra pool removed again: deleted by name.
    json["karpenter"]["node_pools"]
        .as_array_mut()
        .unwrap()
        .pop();
    let shrunk = dir.join("shrunk.studio.json");
    std::fs::write(&shrunk, json.to_string()).unwrap();
    let calls = applied(&emulator, &shrunk, &cluster, &dir.join("second"));
    assert_eq!(kubectl(&calls), ["delete nodepool.karpenter.sh/extra"]);
}

/// A cluster that runs Karpenter 1.9 reads back as 1.9 (`helm list` gives the chart's
/// version); a design on 1.14 applies the newer CRDs through the karpenter-crd chart and
/// then upgrades the controller, and the cluster then reads back as 1.14, with no changes
/// left.
#[test]
fn the_karpenter_release_is_read_from_helm_and_a_newer_one_is_applied_crds_first() {
    use shared::model::spec::KarpenterRelease;
    let emulator = Emulator::start();
    let dir = temp_dir("karpenter-release");
    let (design, cluster, _) =
        deployed_design(&emulator, "karpenter-spot-inference", &dir, |spec| {
            spec.karpenter.as_mut().unwrap().release = KarpenterRelease::V1_9;
        });
    let out = dir.join("read");
    let read = read_into(&emulator, &cluster, &out);
    assert_eq!(read.status.code(), Some(0), "{}", text(&read.stderr));
    let json = studio_json(&out);
    assert_eq!(json["karpenter"]["release"], "1.9", "{}", json["karpenter"]);
    let unchanged = plan_on(&emulator, &design, &cluster, &[]);
    assert!(
        text(&unchanged.stdout).contains("No changes"),
        "{}",
        text(&unchanged.stdout)
    );

    let mut newer: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&design).unwrap()).unwrap();
    newer["karpenter"]
        .as_object_mut()
        .unwrap()
        .remove("release");
    let newer_file = dir.join("newer.studio.json");
    std::fs::write(&newer_file, newer.to_string()).unwrap();
    let calls = applied(&emulator, &newer_file, &cluster, &dir.join("apply"));
    let karpenter: Vec<String> = calls
        .iter()
        .filter(|argv| argv[0] != "aws")
        .map(|argv| argv[..4.min(argv.len())].join(" "))
        .collect();
    assert_eq!(
        karpenter,
        [
            "kubectl label crd ec2nodeclasses.karpenter.k8s.aws",
            "kubectl annotate crd ec2nodeclasses.karpenter.k8s.aws",
            "helm upgrade --install karpenter-crd",
            "helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter",
        ]
    );
    let upgrade = calls.last().unwrap();
    assert!(
        upgrade
            .windows(2)
            .any(|pair| pair == ["--version", "1.14.1"]),
        "{upgrade:?}"
    );
    let again = dir.join("read-again");
    assert_eq!(
        read_into(&emulator, &cluster, &again).status.code(),
        Some(0)
    );
    let json = studio_json(&again);
    assert!(
        json["karpenter"].get("release").is_none(),
        "{}",
        json["karpenter"]
    );
}

/// EKS's upgrade order: the control plane one minor version at a time, the add-on it
/// runs, then each node group; the emulator refuses a jump of two minor versions, so the
/// apply's success shows the steps went one at a time.
#[test]
fn apply_upgrades_the_control_plane_one_minor_at_a_time_then_add_ons_then_node_groups() {
    let emulator = Emulator::start();
    let dir = temp_dir("apply-upgrade");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    design["metadata"]["version"] = "1.33".into();
    design["addons"] =
        yaml_serde::from_str("[{name: vpc-cni, version: v1.19.0-eksbuild.1}]").unwrap();
    std::fs::write(&file, yaml_serde::to_string(&design).unwrap()).unwrap();
    eksctl_create(&emulator, &file);
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(emulator.seed(
            "addon-versions",
            serde_json::json!({"addons": [{"addonName": "vpc-cni", "versions": [
                {"addonVersion": "v1.21.0-eksbuild.1", "clusterVersions": ["1.34", "1.35"]},
                {"addonVersion": "v1.19.0-eksbuild.1", "clusterVersions": ["1.33", "1.34"]}
            ]}]}),
        ));
    design["metadata"]["version"] = "1.35".into();
    design["addons"][0]["version"] = "v1.21.0-eksbuild.1".into();
    let changed = dir.join("upgraded.yaml");
    std::fs::write(&changed, yaml_serde::to_string(&design).unwrap()).unwrap();

    let calls = applied(&emulator, &changed, &cluster, &dir);
    let ran: Vec<String> = calls
        .iter()
        .map(|argv| {
            let version = argv
                .iter()
                .find(|word| word.starts_with("1.") || word.starts_with("--version="))
                .cloned()
                .unwrap_or_default();
            format!("{} {} {version}", argv[1], argv[2])
        })
        .collect();
    assert_eq!(
        ran,
        [
            "upgrade cluster 1.34",
            "upgrade cluster 1.35",
            "update addon --version=v1.21.0-eksbuild.1",
            "upgrade nodegroup 1.35",
            "upgrade nodegroup 1.35",
        ]
    );
}

/// `POST /api/applies`: the plan computed again on the server, a stale approved plan
/// refused with the difference, drains refused without consent, then a job that waits
/// for approval, runs the steps with the server's tools and ends by reading the cluster
/// again: no changes left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_applies_an_approved_plan_as_a_job_that_waits_for_approval() {
    let emulator = Emulator::start();
    let dir = temp_dir("api-apply");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    let changed = changed_design(&file, &dir);
    let design: serde_json::Value = design_json(&changed);

    let router = api_with_deployer(&emulator, &dir).await;
    const TOKEN: &str = API_TOKEN;

    // The plan the user reviews.
    let (status, reviewed) = post_json(
        &router,
        "/api/plan",
        &serde_json::json!({"region": REGION, "cluster": cluster, "spec": design}),
    )
    .await;
    assert_eq!(status, 200, "{reviewed}");
    let request = |approved: &serde_json::Value, allow: bool| {
        serde_json::json!({"region": REGION, "cluster": cluster, "spec": design,
                           "approved_plan": approved, "allow_disruption": allow})
    };

    // Drains need consent.
    let (status, refused) = call_with_token(
        &router,
        "POST",
        "/api/applies",
        Some(&request(&reviewed, false)),
        TOKEN,
    )
    .await;
    assert_eq!(status, 422, "{refused}");
    assert!(
        refused.to_string().contains("-/+ nodegroup sys"),
        "{refused}"
    );
    // A plan that no longer matches the cluster is refused, saying how.
    let mut stale = reviewed.clone();
    stale["changes"].as_array_mut().unwrap().pop();
    let (status, conflict) = call_with_token(
        &router,
        "POST",
        "/api/applies",
        Some(&request(&stale, true)),
        TOKEN,
    )
    .await;
    assert_eq!(status, 409, "{conflict}");
    assert!(
        conflict.to_string().contains("planned now, not approved"),
        "{conflict}"
    );

    let (status, job) = call_with_token(
        &router,
        "POST",
        "/api/applies",
        Some(&request(&reviewed, true)),
        TOKEN,
    )
    .await;
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_owned();
    assert_eq!(job["steps"][0]["name"], "approve");
    let title = job["steps"][0]["title"].as_str().unwrap();
    assert!(
        title.starts_with(&format!(
            "apply to {cluster}: 2 to create, 1 to update, 1 to replace"
        )) && title.contains("disrupts running pods: -/+ nodegroup sys: drains"),
        "{title}"
    );
    assert_eq!(
        job["steps"].as_array().unwrap().last().unwrap()["name"],
        "read-again"
    );
    // The plan adds an access entry: the approval says what the design then grants.
    assert!(
        title
            .lines()
            .any(|line| line.starts_with("grants, once applied:") && line.contains("role/ml-team")),
        "{title}"
    );

    // Waits for approval, then runs to the end.
    let state_of = |job: &serde_json::Value| job["state"].as_str().unwrap_or_default().to_owned();
    let mut approved = false;
    let mut last = serde_json::Value::Null;
    for _ in 0..600 {
        let (_, now) =
            call_with_token(&router, "GET", &format!("/api/deploys/{id}"), None, TOKEN).await;
        let waiting = now["steps"][0]["state"] == "running";
        if waiting && !approved {
            assert!(
                now["steps"].as_array().unwrap()[1..]
                    .iter()
                    .all(|step| step["state"] == "pending"),
                "nothing runs before approval: {now}"
            );
            let (status, answer) = call_with_token(
                &router,
                "POST",
                &format!("/api/deploys/{id}/approve"),
                None,
                TOKEN,
            )
            .await;
            assert_eq!(status, 200, "{answer}");
            approved = true;
        }
        last = now;
        if ["succeeded", "failed", "cancelled", "interrupted"].contains(&state_of(&last).as_str()) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(approved);
    assert_eq!(state_of(&last), "succeeded", "{last:#}");
    let after = plan_on(&emulator, &changed, &cluster, &[]);
    assert_eq!(after.status.code(), Some(0), "{}", text(&after.stdout));
}

/// The server killed (SIGKILL) while an apply job runs a step: restarted on the same data
/// directory it keeps the job, marked interrupted with the steps it did, stops what the
/// job left running, and a new plan shows exactly what is left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_apply_keeps_the_job_interrupted_and_a_new_plan_shows_what_is_left() {
    let emulator = Emulator::start();
    let dir = temp_dir("apply-killed");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    let changed = changed_design(&file, &dir);
    let design: serde_json::Value = design_json(&changed);
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let python = studio_e2e::ec2_emulator::python();
    let fixture = |name: &str| root().join("tests/fixtures").join(name);
    // eksctl hangs on the drain of the replaced group, after four steps and its interim group.
    let eksctl = pointed_at_emulator_with(
        &emulator,
        &bin,
        "eksctl",
        &[&python, &fixture("eksctl")],
        "EKSCTL_STANDIN_HANG=--drain=true",
    );
    let mut args: Vec<std::ffi::OsString> = vec![
        "--data-dir".into(),
        dir.join("data").into(),
        "--eksctl".into(),
        eksctl.into(),
    ];
    for tool in ["aws", "kubectl", "helm"] {
        args.push(format!("--{tool}").into());
        args.push(pointed_at_emulator(&emulator, &bin, tool, &[&python, &fixture(tool)]).into());
    }
    const TOKEN: &str = "killed-token-0123456789abcdef";
    let environment = [
        ("EKS_STUDIO_DEPLOY_TOKEN", TOKEN),
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_ENDPOINT_URL", emulator.endpoint.as_str()),
    ];
    let mut server = deploy_support::Server::start(&args, &environment);
    let (status, reviewed) = server.call(
        "POST",
        "/api/plan",
        TOKEN,
        Some(&serde_json::json!({"region": REGION, "cluster": cluster, "spec": design})),
    );
    assert_eq!(status, 200, "{reviewed}");
    let (status, job) = server.call(
        "POST",
        "/api/applies",
        TOKEN,
        Some(
            &serde_json::json!({"region": REGION, "cluster": cluster, "spec": design,
                                 "approved_plan": reviewed, "allow_disruption": true}),
        ),
    );
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_owned();
    // Approved once it waits for approval.
    loop {
        let (_, job) = server.call("GET", &format!("/api/deploys/{id}"), TOKEN, None);
        if job["steps"][0]["state"] == "running" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let (status, answer) = server.call("POST", &format!("/api/deploys/{id}/approve"), TOKEN, None);
    assert_eq!(status, 200, "{answer}");
    // Who asked for it and who approved it, as the job keeps them.
    for who in ["requested_by", "approved_by"] {
        assert_eq!(
            answer[who], "the deploy token's holder at 127.0.0.1",
            "{who}: {answer}"
        );
    }
    let job_dir = dir.join("data").join("jobs").join(&id);
    let (standin, child) = deploy_support::wait_for_hanging("eksctl", &job_dir).await;
    let _cleanup = deploy_support::KillOnDrop(vec![standin, child]);

    server.crash();
    let restarted = deploy_support::Server::start(&args, &environment);
    let job = loop {
        let (status, job) = restarted.call("GET", &format!("/api/deploys/{id}"), TOKEN, None);
        assert_eq!(status, 200, "{job}");
        if job["state"] == "interrupted" {
            break job;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!(
        job["approved_by"], "the deploy token's holder at 127.0.0.1",
        "kept across the restart: {job}"
    );
    let listed = eks_studio(
        &emulator,
        &["jobs", "--data-dir", dir.join("data").to_str().unwrap()],
    );
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed.stderr));
    let line = text(&listed.stdout);
    assert!(
        line.contains(&id)
            && line.contains("interrupted")
            && line.contains("asked by the deploy token's holder at 127.0.0.1")
            && line.contains("approved by the deploy token's holder at 127.0.0.1"),
        "{line}"
    );
    let states: Vec<(String, String)> = job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| {
            (
                step["title"]
                    .as_str()
                    .unwrap()
                    .split(':')
                    .next()
                    .unwrap()
                    .to_owned(),
                step["state"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let done = states
        .iter()
        .filter(|(_, state)| state == "succeeded")
        .count();
    assert_eq!(
        done, 6,
        "approval, four steps and the interim group were done: {states:?}"
    );
    assert_eq!(
        states[6],
        ("-/+ nodegroup sys".to_owned(), "interrupted".to_owned())
    );
    deploy_support::wait_until_gone(&[standin, child]).await;

    // What is left: the replacement, and nothing else.
    let left = plan_on(&emulator, &changed, &cluster, &["--format", "json"]);
    let left: serde_json::Value = serde_json::from_slice(&left.stdout).unwrap();
    let changes = actions_of(&left);
    assert_eq!(
        changes,
        [("replace".to_owned(), "sys".to_owned())],
        "{left}"
    );
    // The interim group the job made runs: the plan carries on with it.
    let steps: Vec<String> = left["changes"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| {
            let words: Vec<&str> = std::iter::once(&step["tool"])
                .chain(step["args"].as_array().unwrap())
                .filter_map(|word| word.as_str())
                .collect();
            words.join(" ")
        })
        .collect();
    assert_eq!(steps.len(), 3, "{steps:?}");
    assert!(
        steps[0].starts_with("eksctl delete nodegroup --name sys "),
        "{steps:?}"
    );
    assert!(
        steps[2].starts_with("eksctl delete nodegroup --name sys-interim "),
        "{steps:?}"
    );
}

/// Karpenter's chart settings changed: `helm upgrade --reuse-values` with the bundle's
/// values, and the release read back with the new settings.
#[test]
fn apply_upgrades_the_karpenter_chart_with_the_changed_settings() {
    let emulator = Emulator::start();
    let dir = temp_dir("apply-chart");
    let (design, cluster, _) = deployed_template(&emulator, "karpenter-spot-inference", &dir);
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&design).unwrap()).unwrap();
    let was = json["karpenter"]["spot_to_spot_consolidation"]
        .as_bool()
        .unwrap_or(false);
    json["karpenter"]["spot_to_spot_consolidation"] = (!was).into();
    let changed = dir.join("changed.studio.json");
    std::fs::write(&changed, json.to_string()).unwrap();
    let calls = applied(&emulator, &changed, &cluster, &dir.join("apply"));
    let helm: Vec<String> = calls
        .iter()
        .filter(|argv| argv[0] == "helm")
        .map(|argv| argv[1..3].join(" "))
        .collect();
    assert_eq!(helm, ["upgrade karpenter"]);
}

/// The cluster's other objects, each by the command eksctl has for it on a running
/// cluster: logging (`utils update-cluster-logging`), endpoint access (`utils
/// update-cluster-vpc-config`), an add-on created and then deleted (`create | delete
/// addon`), a Pod Identity association (`create podidentityassociation`) — all read
/// back with no changes left.
#[test]
fn apply_changes_logging_endpoints_add_ons_and_pod_identity_with_eksctl_s_own_commands() {
    let emulator = Emulator::start();
    let dir = temp_dir("apply-cluster");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    design["cloudWatch"] =
        yaml_serde::from_str("{clusterLogging: {enableTypes: [api, audit]}}").unwrap();
    design["vpc"]["clusterEndpoints"] =
        yaml_serde::from_str("{publicAccess: true, privateAccess: true}").unwrap();
    design["addons"] = yaml_serde::from_str("[{name: metrics-server}]").unwrap();
    design["iam"]["podIdentityAssociations"] = yaml_serde::from_str(
        "[{namespace: training, serviceAccountName: trainer, roleARN: 'arn:aws:iam::123456789012:role/trainer'}]",
    )
    .unwrap();
    let changed = dir.join("changed.yaml");
    std::fs::write(&changed, yaml_serde::to_string(&design).unwrap()).unwrap();
    let heads = |calls: &[Vec<String>]| -> Vec<String> {
        calls.iter().map(|argv| argv[..3].join(" ")).collect()
    };
    let calls = applied(&emulator, &changed, &cluster, &dir.join("first"));
    let mut ran = heads(&calls);
    ran.sort();
    assert_eq!(
        ran,
        [
            "eksctl create addon",
            "eksctl create podidentityassociation",
            "eksctl utils update-cluster-logging",
            "eksctl utils update-cluster-vpc-config",
        ]
    );

    // The add-on and the association removed again: deleted by name.
    design["addons"] = yaml_serde::Value::Sequence(Vec::new());
    design["iam"]
        .as_mapping_mut()
        .unwrap()
        .remove("podIdentityAssociations");
    let shrunk = dir.join("shrunk.yaml");
    std::fs::write(&shrunk, yaml_serde::to_string(&design).unwrap()).unwrap();
    let calls = applied(&emulator, &shrunk, &cluster, &dir.join("second"));
    let mut ran = heads(&calls);
    ran.sort();
    assert_eq!(
        ran,
        [
            "eksctl delete addon",
            "eksctl delete podidentityassociation"
        ]
    );
}

/// The cluster settings eksctl changes on a running cluster, each by its own command: the
/// IAM OIDC provider (`utils associate-iam-oidc-provider`, which tags the cluster), secrets
/// encryption (`utils enable-secrets-encryption`), the authentication mode (`utils
/// update-authentication-mode`), zonal shift (`utils update-zonal-shift-config`) — read
/// back with no changes left; then the mode moved back and the KMS key changed are refused
/// by the plan, as EKS and eksctl refuse them.
#[test]
fn apply_changes_oidc_encryption_authentication_mode_and_zonal_shift_with_eksctl_s_own_commands() {
    let emulator = Emulator::start();
    let dir = temp_dir("apply-settings");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    design["iam"]["withOIDC"] = yaml_serde::Value::Bool(false);
    let created = dir.join("created.yaml");
    std::fs::write(&created, yaml_serde::to_string(&design).unwrap()).unwrap();
    eksctl_create(&emulator, &created);

    design["iam"]["withOIDC"] = yaml_serde::Value::Bool(true);
    let key = |name: &str| -> yaml_serde::Value {
        yaml_serde::from_str(&format!(
            "{{keyARN: 'arn:aws:kms:us-east-1:123456789012:key/{name}'}}"
        ))
        .unwrap()
    };
    design["secretsEncryption"] = key("first");
    design["accessConfig"]["authenticationMode"] = "API".into();
    design["zonalShiftConfig"] = yaml_serde::from_str("{enabled: true}").unwrap();
    let changed = dir.join("changed.yaml");
    std::fs::write(&changed, yaml_serde::to_string(&design).unwrap()).unwrap();
    let calls = applied(&emulator, &changed, &cluster, &dir.join("first"));
    let mut ran: Vec<String> = calls.iter().map(|argv| argv[..3].join(" ")).collect();
    ran.sort();
    assert_eq!(
        ran,
        [
            "eksctl utils associate-iam-oidc-provider",
            "eksctl utils enable-secrets-encryption",
            "eksctl utils update-authentication-mode",
            "eksctl utils update-zonal-shift-config",
        ]
    );

    // Back to API_AND_CONFIG_MAP, and another key: both refused before anything runs.
    design["accessConfig"]["authenticationMode"] = "API_AND_CONFIG_MAP".into();
    design["secretsEncryption"] = key("second");
    let back = dir.join("back.yaml");
    std::fs::write(&back, yaml_serde::to_string(&design).unwrap()).unwrap();
    let plan = plan_on(&emulator, &back, &cluster, &[]);
    let shown = text(&plan.stdout);
    assert_ne!(plan.status.code(), Some(0), "{shown}");
    for rule in [
        "change-authentication-mode-back",
        "change-secrets-encryption-fixed",
    ] {
        assert!(shown.contains(rule), "{rule} missing from:\n{shown}");
    }
}

/// A managed group pinned to an AMI release: a design that keeps the pin plans no change,
/// and a new release is `eksctl upgrade nodegroup --release-version`, rolled in place
/// (EKS's UpdateNodegroupVersion), not a new group.
#[test]
fn a_pinned_ami_release_is_compared_and_rolled_in_place() {
    let emulator = Emulator::start();
    let dir = temp_dir("apply-release");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    design["managedNodeGroups"][0]["releaseVersion"] = "1.35.0-20251101".into();
    let pinned = dir.join("pinned.yaml");
    std::fs::write(&pinned, yaml_serde::to_string(&design).unwrap()).unwrap();
    eksctl_create(&emulator, &pinned);
    let unchanged = plan_on(&emulator, &pinned, &cluster, &[]);
    assert_eq!(
        unchanged.status.code(),
        Some(0),
        "{}",
        text(&unchanged.stdout)
    );

    design["managedNodeGroups"][0]["releaseVersion"] = "1.35.0-20251201".into();
    let newer = dir.join("newer.yaml");
    std::fs::write(&newer, yaml_serde::to_string(&design).unwrap()).unwrap();
    let calls = applied(&emulator, &newer, &cluster, &dir.join("apply"));
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0][..3], ["eksctl", "upgrade", "nodegroup"]);
    let release = calls[0]
        .iter()
        .position(|word| word == "--release-version")
        .unwrap();
    assert_eq!(calls[0][release + 1], "1.35.0-20251201");
}

/// A managed group with the keys eksctl writes into its launch template or keeps itself
/// (volume, IMDS, monitoring, max pods, instance name, tags, update config): the cluster
/// made from the design plans no change; a new update config is UpdateNodegroupConfig in
/// place, and a new volume IOPS (the launch template's) a replacement.
#[test]
fn a_group_s_launch_template_keys_plan_no_change_until_they_change() {
    let emulator = Emulator::start();
    let dir = temp_dir("apply-template-keys");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let keys: yaml_serde::Value = yaml_serde::from_str(
        "{updateConfig: {maxUnavailable: 1}, maxPodsPerNode: 50, disableIMDSv1: true, volumeEncrypted: true, volumeType: gp3, volumeIOPS: 4000, volumeThroughput: 250, enableDetailedMonitoring: true, propagateASGTags: true, tags: {team: ml}, instanceName: trainer}",
    )
    .unwrap();
    for (key, value) in keys.as_mapping().unwrap() {
        design["managedNodeGroups"][0][key.as_str().unwrap()] = value.clone();
    }
    let written = |name: &str, design: &yaml_serde::Value| {
        let path = dir.join(name);
        std::fs::write(&path, yaml_serde::to_string(design).unwrap()).unwrap();
        path
    };
    let rich = written("rich.yaml", &design);
    eksctl_create(&emulator, &rich);
    let unchanged = plan_on(&emulator, &rich, &cluster, &[]);
    assert_eq!(
        unchanged.status.code(),
        Some(0),
        "{}",
        text(&unchanged.stdout)
    );

    design["managedNodeGroups"][0]["updateConfig"] =
        yaml_serde::from_str("{maxUnavailable: 2}").unwrap();
    let updated = written("updated.yaml", &design);
    let calls = applied(&emulator, &updated, &cluster, &dir.join("update"));
    let heads: Vec<String> = calls.iter().map(|argv| argv[..3].join(" ")).collect();
    assert_eq!(heads, ["aws eks update-nodegroup-config"]);

    design["managedNodeGroups"][0]["volumeIOPS"] = 5000.into();
    let faster = written("faster.yaml", &design);
    let plan = plan_on(&emulator, &faster, &cluster, &["--format", "json"]);
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let group = design["managedNodeGroups"][0]["name"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(actions_of(&plan), [("replace".to_owned(), group)]);
}

/// Access entries (eksctl has no update of one): created from the file, a changed one
/// deleted and made again, a removed one deleted by principal — read back with no
/// changes left.
#[test]
fn apply_creates_replaces_and_deletes_access_entries() {
    let emulator = Emulator::start();
    let dir = temp_dir("apply-access");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let entries = |yaml: &str| -> yaml_serde::Value { yaml_serde::from_str(yaml).unwrap() };
    design["accessConfig"]["accessEntries"] = entries(
        "[{principalARN: 'arn:aws:iam::123456789012:role/ml', kubernetesGroups: [ml]},
          {principalARN: 'arn:aws:iam::123456789012:role/ops', kubernetesGroups: [ops]}]",
    );
    let first = dir.join("first.yaml");
    std::fs::write(&first, yaml_serde::to_string(&design).unwrap()).unwrap();
    let heads = |calls: &[Vec<String>]| -> Vec<String> {
        calls.iter().map(|argv| argv[..3].join(" ")).collect()
    };
    let calls = applied(&emulator, &first, &cluster, &dir.join("first"));
    assert_eq!(
        heads(&calls),
        ["eksctl create accessentry"],
        "one command for both"
    );

    design["accessConfig"]["accessEntries"] = entries(
        "[{principalARN: 'arn:aws:iam::123456789012:role/ml', kubernetesGroups: [ml, admins]}]",
    );
    let second = dir.join("second.yaml");
    std::fs::write(&second, yaml_serde::to_string(&design).unwrap()).unwrap();
    let calls = applied(&emulator, &second, &cluster, &dir.join("second"));
    assert_eq!(
        heads(&calls),
        [
            "eksctl delete accessentry",
            "eksctl create accessentry",
            "eksctl delete accessentry"
        ]
    );
}

#[test]
fn fsx_in_a_new_vpc_goes_in_the_gpu_groups_subnet_with_the_cluster_security_group() {
    let emulator = Emulator::start();
    let dir = temp_dir("fsx-new-vpc");
    // A new VPC (two zones), a CPU system group and the GPU group in the second zone; the
    // FSx file system's subnet and security groups left empty, as the page leaves them.
    let (_, mut spec) = filled_design(&emulator, "g4dn", &dir);
    spec.cluster.name = "eks-fsx-new-vpc".into();
    spec.addons.push(shared::templates::starting_addon(
        shared::documents::storage::FSX_ADDON,
    ));
    spec.storage.fsx = Some(shared::model::spec::FsxVolume {
        subnet_id: String::new(),
        security_group_ids: Vec::new(),
        deployment_type: "PERSISTENT_2".into(),
        per_unit_storage_throughput: Some(250),
        storage_gib: 1200,
    });
    let errors: Vec<String> = shared::rules::validate(&spec)
        .into_iter()
        .filter(|finding| finding.severity == shared::rules::Severity::Error)
        .map(|finding| format!("{}: {}", finding.path, finding.message))
        .collect();
    assert!(errors.is_empty(), "the design has errors: {errors:#?}");
    let bundle = dir.join("bundle");
    for file in shared::deploy::bundle::bundle_files(&spec, &[], &[]).unwrap() {
        let path = bundle.join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &file.contents).unwrap();
    }
    let volumes = std::fs::read_to_string(bundle.join("storage/volumes.yaml")).unwrap();
    assert!(
        volumes.contains(shared::documents::storage::FSX_SUBNET_AT_DEPLOY),
        "{volumes}"
    );
    // The bundle's own script, with the stand-ins against the emulator, as a user runs it.
    let kubeconfig = dir.join("cluster.kubeconfig");
    let run = Command::new("bash")
        .arg(bundle.join("deploy.sh"))
        .env("PATH", stand_ins_on_path())
        .env("KUBECONFIG", &kubeconfig)
        .env("AWS_ENDPOINT_URL", &emulator.endpoint)
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("EKSCTL_STANDIN_DELAY_MS", "0")
        .env("EKSCTL_STANDIN_ARGV_LOG", dir.join("calls.jsonl"))
        .output()
        .unwrap();
    let said = text(&run.stdout);
    assert!(run.status.success(), "{said}\n{}", text(&run.stderr));
    let network = cluster_network(&emulator, "eks-fsx-new-vpc", "g4dn");
    assert_eq!(network["zones"][0], "us-east-1b", "{network}");
    assert!(
        said.contains(&format!(
            "FSX_SUBNET_ID={}",
            network["subnets"][0].as_str().unwrap()
        )),
        "{said}"
    );
    // The StorageClass the cluster holds names what AWS holds: the GPU group's subnet and
    // the cluster security group, in the same VPC, which lets its members reach each other
    // on every port (Lustre's TCP 988 and 1018-1023 among them).
    let design = dir.join("cluster.yaml");
    let classes: serde_json::Value = serde_json::from_str(&kubectl(
        &emulator,
        &design,
        &["get", "storageclasses.storage.k8s.io", "-o", "json"],
    ))
    .unwrap();
    let class = &classes["items"][0];
    assert_eq!(class["metadata"]["name"], "fsx-lustre", "{classes}");
    assert_eq!(
        class["parameters"]["subnetId"], network["subnets"][0],
        "{class}"
    );
    assert_eq!(
        class["parameters"]["securityGroupIds"], network["group"],
        "{class}"
    );
    assert_eq!(network["group_vpc"], network["vpcs"][0], "{network}");
    assert_eq!(network["members_reach_each_other"], true, "{network}");
    let claims: serde_json::Value = serde_json::from_str(&kubectl(
        &emulator,
        &design,
        &["get", "persistentvolumeclaims", "-o", "json"],
    ))
    .unwrap();
    assert_eq!(
        claims["items"][0]["metadata"]["name"], "fsx-claim",
        "{claims}"
    );
    // The bundle's file is left as it was written: the deploy applied a filled copy.
    assert_eq!(
        std::fs::read_to_string(bundle.join("storage/volumes.yaml")).unwrap(),
        volumes
    );
}
