//! One-click deploy through its boundaries: `app(state).oneshot` for the API and the event
//! stream, the real `eks-studio serve` binary where a restart is needed. The tools are the
//! stand-ins in `tests/fixtures/` (real processes printing eksctl's lines), never a mock.

mod deploy_support;

use std::future::Future;
use std::time::Duration;

use axum::http::StatusCode;
use deploy_support::*;
use nix::sys::signal::Signal;
use serde_json::{Value, json};

/// Every test ends within a minute, whatever happens.
async fn bounded<T>(test: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), test)
        .await
        .expect("the test finished within 60 s")
}

fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_valid_spec_deploys_end_to_end_with_every_line_stored_and_streamed() {
    bounded(async {
        let harness = Harness::new("success");
        let job = harness.deploy(&g5_spec("eks-g5-ok")).await;
        let id = text(&job["id"]).to_owned();
        assert_eq!(job["cluster"], "eks-g5-ok");
        assert_eq!(job["region"], "us-west-2");
        assert_eq!(job["state"], "pending");
        assert!(job["created_at"].as_str().unwrap().ends_with('Z'), "{job}");
        let job_dir = harness.job_dir(&id);
        let cluster_yaml = job_dir.join("cluster.yaml").display().to_string();
        let eksctl = standin_tools().eksctl.display().to_string();
        let names: Vec<&str> = job["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|step| text(&step["name"]))
            .collect();
        assert_eq!(
            names,
            ["plan", "create-cluster"],
            "no Karpenter, no helm: {job}"
        );
        assert_eq!(
            job["steps"][0]["command"],
            json!([eksctl, "create", "cluster", "-f", cluster_yaml, "--dry-run"])
        );
        assert_eq!(
            job["steps"][1]["command"],
            json!([eksctl, "create", "cluster", "-f", cluster_yaml])
        );
        for file in [
            "cluster.yaml",
            "studio.json",
            "deploy.sh",
            "teardown.sh",
            "README.md",
        ] {
            assert!(job_dir.join(file).is_file(), "the bundle has {file}");
        }

        let events = harness.all_events(&id).await;
        let ids: Vec<i64> = events.iter().map(|event| event.id).collect();
        assert!(
            ids.windows(2).all(|pair| pair[0] < pair[1]),
            "ids grow: {ids:?}"
        );
        assert_eq!(job_states(&events), ["running", "succeeded"]);
        let last = events.last().unwrap();
        assert_eq!(
            (last.event.as_str(), &last.data["state"]),
            ("state", &json!("succeeded"))
        );

        // Every line the tool printed is stored and streamed: compare with a direct run of
        // the same stand-in on the same file (timestamps aside).
        let direct = std::process::Command::new(&eksctl)
            .args(["create", "cluster", "-f", &cluster_yaml])
            .env("EKSCTL_STANDIN_DELAY_MS", "0")
            .env("KUBECONFIG", job_dir.join("kubeconfig"))
            .env(
                "EKSCTL_STANDIN_ARGV_LOG",
                scratch_dir("direct").join("calls.jsonl"),
            )
            .output()
            .unwrap();
        let strip_time = |line: &str| line.get(20..).unwrap_or(line).to_owned();
        let expected: Vec<String> = String::from_utf8(direct.stderr)
            .unwrap()
            .lines()
            .map(strip_time)
            .collect();
        let streamed: Vec<String> = events
            .iter()
            .filter(|event| event.event == "log" && event.data["step"] == 1)
            .map(|event| strip_time(text(&event.data["text"])))
            .collect();
        assert_eq!(streamed, expected);
        assert!(expected.len() >= 15, "{expected:#?}");
        let kubeconfig_line = format!(
            r#"[✔]  saved kubeconfig as "{}""#,
            job_dir.join("kubeconfig").display()
        );
        assert!(
            streamed.contains(&kubeconfig_line),
            "each job has its own kubeconfig"
        );
        assert!(streamed.contains(
            &r#"[✔]  EKS cluster "eks-g5-ok" in "us-west-2" region is ready"#.to_owned()
        ));

        // Progress stages come from eksctl's lines: the cluster stack, each node group's, ready.
        let stages: Vec<(String, Option<String>)> = events
            .iter()
            .filter(|event| event.event == "stage")
            .map(|event| {
                (
                    text(&event.data["stage"]["kind"]).to_owned(),
                    event.data["stage"]["stack"].as_str().map(str::to_owned),
                )
            })
            .collect();
        let stage = |kind: &str, stack: Option<&str>| (kind.to_owned(), stack.map(str::to_owned));
        for expected in [
            stage("stack-building", Some("eksctl-eks-g5-ok-cluster")),
            stage("stack-deploying", Some("eksctl-eks-g5-ok-cluster")),
            stage("stack-waiting", Some("eksctl-eks-g5-ok-cluster")),
            stage("stack-waiting", Some("eksctl-eks-g5-ok-nodegroup-sys")),
            stage("stack-waiting", Some("eksctl-eks-g5-ok-nodegroup-g5")),
            stage("cluster-ready", None),
        ] {
            assert!(stages.contains(&expected), "{expected:?} in {stages:#?}");
        }
        let nodegroup_stage = events
            .iter()
            .find(|event| event.event == "stage" && event.data["stage"]["nodegroup"] == "g5")
            .expect("a stage names the g5 node group");
        assert_eq!(nodegroup_stage.data["step"], 1);

        // The stored job agrees, and the plan's output is the ClusterConfig.
        let job = harness.job(&id).await;
        assert_eq!(job["state"], "succeeded");
        assert!(job["finished_at"].is_string());
        assert_eq!(job["last_event_id"], json!(last.id));
        for step in job["steps"].as_array().unwrap() {
            assert_eq!(
                (&step["state"], &step["exit_code"]),
                (&json!("succeeded"), &json!(0))
            );
        }
        let plan = text(&job["plan_output"]);
        assert_eq!(plan, std::fs::read_to_string(&cluster_yaml).unwrap());
        let plan_step_done = events
            .iter()
            .position(|event| {
                event.event == "step"
                    && event.data["step"] == 0
                    && event.data["state"] == "succeeded"
            })
            .unwrap();
        let real_run_starts = events
            .iter()
            .position(|event| {
                event.event == "step" && event.data["step"] == 1 && event.data["state"] == "running"
            })
            .unwrap();
        assert!(
            plan_step_done < real_run_starts,
            "the plan ends before the real run"
        );

        // The stand-in ran in the job directory with exactly these arguments.
        let calls = standin_calls(&job_dir);
        let argvs: Vec<&Value> = calls.iter().map(|call| &call["argv"]).collect();
        assert_eq!(
            argvs,
            [&job["steps"][0]["command"], &job["steps"][1]["command"]]
        );
        assert!(
            calls
                .iter()
                .all(|call| call["cwd"] == json!(job_dir.display().to_string()))
        );

        // History lists it; a second deploy of the same cluster is fine once this one ended.
        let (status, history) = harness.call("GET", "/api/deploys", None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(history[0]["id"], json!(id));
        assert_eq!(history[0]["state"], "succeeded");
        assert!(
            history[0].get("plan_output").is_none(),
            "only single jobs carry the plan"
        );
        let again = harness.deploy(&g5_spec("eks-g5-ok")).await;
        assert_ne!(again["id"], json!(id));
        harness.all_events(text(&again["id"])).await;
    })
    .await;
}

/// The names of a job's steps and their states.
fn steps_of(job: &Value) -> Vec<(String, String)> {
    job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| {
            (
                text(&step["name"]).to_owned(),
                text(&step["state"]).to_owned(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_karpenter_bundle_creates_what_karpenter_needs_then_installs_it_and_applies_the_nodepools()
 {
    bounded(async {
        let harness = Harness::new("karpenter");
        let job = harness.deploy(&karpenter_spec("eks-gpu-inference")).await;
        let id = text(&job["id"]).to_owned();
        let events = harness.all_events(&id).await;
        assert_eq!(job_states(&events), ["running", "succeeded"], "{events:#?}");

        let job_dir = harness.job_dir(&id);
        let path = |file: &str| job_dir.join(file).display().to_string();
        let calls = standin_calls(&job_dir);
        let tools = standin_tools();
        let argv: Vec<Value> = calls.iter().map(|call| call["argv"].clone()).collect();
        let aws = tools.aws.display().to_string();
        assert_eq!(
            argv[1],
            json!([
                aws,
                "cloudformation",
                "deploy",
                "--region",
                "us-east-2",
                "--stack-name",
                "Karpenter-eks-gpu-inference",
                "--template-file",
                path("karpenter/cloudformation.yaml"),
                "--capabilities",
                "CAPABILITY_NAMED_IAM"
            ])
        );
        assert_eq!(
            argv[2][1], "create",
            "the cluster comes after the prerequisites"
        );
        assert_eq!(
            argv[3],
            json!([
                aws,
                "cloudformation",
                "deploy",
                "--region",
                "us-east-2",
                "--stack-name",
                "Karpenter-eks-gpu-inference-access",
                "--template-file",
                path("karpenter/cluster-access.yaml")
            ])
        );
        assert_eq!(
            argv[4],
            json!([
                tools.helm.display().to_string(),
                "upgrade",
                "--install",
                "karpenter",
                "oci://public.ecr.aws/karpenter/karpenter",
                "--version",
                "1.14.1",
                "--namespace",
                "kube-system",
                "--values",
                path("karpenter/values.yaml"),
                "--wait"
            ])
        );
        assert_eq!(
            argv[5],
            json!([
                tools.helm.display().to_string(),
                "upgrade",
                "--install",
                "nvidia-device-plugin",
                "nvidia-device-plugin",
                "--repo",
                "https://nvidia.github.io/k8s-device-plugin",
                "--version",
                "0.20.0",
                "--namespace",
                "kube-system",
                "--values",
                path("plugins/nvidia-device-plugin.yaml"),
                "--wait"
            ]),
            "the pool launches NVIDIA GPUs"
        );
        assert_eq!(argv[6][3], "aws-efa-k8s-device-plugin", "and EFA types");
        assert_eq!(
            argv[7],
            json!([
                tools.kubectl.display().to_string(),
                "apply",
                "-f",
                path("karpenter/nodepools.yaml")
            ])
        );
        assert_eq!(argv.len(), 8, "{argv:#?}");
        let lines = log_lines(&events);
        for line in [
            "Successfully created/updated stack - Karpenter-eks-gpu-inference",
            "Successfully created/updated stack - Karpenter-eks-gpu-inference-access",
            "STATUS: deployed",
            "nodepool.karpenter.sh/gpu-inference-spot created",
        ] {
            assert!(lines.contains(&line.to_owned()), "{line}: {lines:#?}");
        }
        let job = harness.job(&id).await;
        let names: Vec<String> = steps_of(&job).into_iter().map(|(name, _)| name).collect();
        assert_eq!(
            names,
            [
                "plan",
                "karpenter-prerequisites",
                "create-cluster",
                "karpenter-access",
                "install-karpenter",
                "install-nvidia-device-plugin",
                "install-efa-device-plugin",
                "apply-nodepools"
            ]
        );
        let deploy_sh = std::fs::read_to_string(job_dir.join("deploy.sh")).unwrap();
        let mut at = 0;
        for name in &names[1..] {
            let title = text(&job["steps"][names.iter().position(|n| n == name).unwrap()]["title"]);
            let found = deploy_sh[at..]
                .find(&shared::deploy::sequence::shell_quote(title))
                .unwrap_or_else(|| panic!("deploy.sh runs `{title}` in the same order"));
            at += found;
        }
    })
    .await;
}

/// A Karpenter design on an existing VPC, whose subnets the deploy tags.
fn karpenter_on_existing_vpc(cluster: &str, discovery: &str) -> Value {
    let mut spec = karpenter_spec(cluster);
    spec["network"] = json!({
        "mode": "existing-vpc",
        "vpc_id": "vpc-0123456789abcdef0",
        "private_subnets": [
            {"name": "private-a", "id": "subnet-0aaaaaaaaaaaaaaa1", "availability_zone": "us-east-2a"},
            {"name": "private-b", "id": "subnet-0bbbbbbbbbbbbbbb2", "availability_zone": "us-east-2b"}
        ]
    });
    // The VPC has private subnets only: eksctl gives a group the VPC's subnets of its kind,
    // so every group uses private networking.
    for group in spec["node_groups"].as_array_mut().unwrap() {
        group["private_networking"] = json!(true);
    }
    for terms in ["subnetSelectorTerms", "securityGroupSelectorTerms"] {
        spec["karpenter"]["node_classes"][0]["spec"][terms] =
            json!([{"tags": {"karpenter.sh/discovery": discovery}}]);
    }
    spec
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_existing_vpcs_subnets_are_tagged_for_discovery_after_the_cluster() {
    bounded(async {
        let harness = Harness::new("tags");
        let job = harness
            .deploy(&karpenter_on_existing_vpc("eks-existing", "eks-existing"))
            .await;
        let id = text(&job["id"]).to_owned();
        let events = harness.all_events(&id).await;
        assert_eq!(job_states(&events), ["running", "succeeded"], "{events:#?}");
        let calls = standin_calls(&harness.job_dir(&id));
        assert_eq!(
            calls[3]["argv"],
            json!([
                standin_tools().aws.display().to_string(),
                "ec2",
                "create-tags",
                "--region",
                "us-east-2",
                "--resources",
                "subnet-0aaaaaaaaaaaaaaa1",
                "subnet-0bbbbbbbbbbbbbbb2",
                "--tags",
                "Key=karpenter.sh/discovery,Value=eks-existing"
            ])
        );
        let job = harness.job(&id).await;
        assert_eq!(steps_of(&job)[3].0, "tag-subnets");
    })
    .await;
}

/// Deploys `spec`, which fails at step `failing`: the job fails there, every later step
/// is skipped and never runs, and the tool's error is in the log.
async fn fails_at(harness: &Harness, spec: &Value, failing: &str, error_line: &str) {
    let job = harness.deploy(spec).await;
    let id = text(&job["id"]).to_owned();
    let events = harness.all_events(&id).await;
    assert_eq!(job_states(&events), ["running", "failed"], "{events:#?}");
    let lines = log_lines(&events);
    assert!(
        lines.iter().any(|line| line.contains(error_line)),
        "{error_line}: {lines:#?}"
    );
    let job = harness.job(&id).await;
    let steps = steps_of(&job);
    let at = steps.iter().position(|(name, _)| name == failing).unwrap();
    assert_eq!(steps[at].1, "failed", "{steps:?}");
    assert!(
        steps[..at].iter().all(|(_, state)| state == "succeeded"),
        "{steps:?}"
    );
    assert!(
        steps[at + 1..].iter().all(|(_, state)| state == "skipped"),
        "{steps:?}"
    );
    assert!(text(&events.last().unwrap().data["text"]).contains(failing));
    assert_eq!(
        standin_calls(&harness.job_dir(&id))
            .iter()
            .filter(|call| call["argv"].is_array())
            .count(),
        at + 1,
        "nothing after `{failing}` ran"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failure_in_each_karpenter_step_fails_the_job_there_and_skips_the_rest() {
    bounded(async {
        let harness = Harness::new("karpenter-failures");
        let refused = "Failed to create/update the stack";
        fails_at(
            &harness,
            &karpenter_spec("eks-fail-cloudformation"),
            "karpenter-prerequisites",
            refused,
        )
        .await;
        fails_at(
            &harness,
            &karpenter_spec("eks-fail-cluster-access"),
            "karpenter-access",
            refused,
        )
        .await;
        fails_at(
            &harness,
            &karpenter_on_existing_vpc("eks-tags", "fail-create-tags"),
            "tag-subnets",
            "when calling the CreateTags operation",
        )
        .await;
        let mut plugin_fails = karpenter_spec("eks-plugin");
        plugin_fails["karpenter"]["node_pools"][0]["metadata"]["name"] =
            json!("fail-nvidia-device-plugin");
        fails_at(
            &harness,
            &plugin_fails,
            "install-nvidia-device-plugin",
            "Error: UPGRADE FAILED",
        )
        .await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_during_the_prerequisites_stops_the_aws_cli_and_creates_no_cluster() {
    bounded(async {
        let harness = Harness::new("cancel-aws");
        let job = harness
            .deploy(&karpenter_spec("eks-hang-cloudformation"))
            .await;
        let id = text(&job["id"]).to_owned();
        let (standin, child) = wait_for_hanging("aws", &harness.job_dir(&id)).await;
        let _stop_standin = KillOnDrop(vec![standin, child]);
        let (status, cancelled) = harness
            .call("POST", &format!("/api/deploys/{id}/cancel"), None)
            .await;
        assert_eq!(status, StatusCode::OK, "{cancelled}");
        wait_until_gone(&[standin, child]).await;
        let steps = steps_of(&cancelled);
        assert_eq!(steps[0], ("plan".to_owned(), "succeeded".to_owned()));
        assert_eq!(
            steps[1],
            ("karpenter-prerequisites".to_owned(), "cancelled".to_owned())
        );
        assert!(
            steps[2..].iter().all(|(_, state)| state == "skipped"),
            "{steps:?}"
        );
        let tools: Vec<Value> = standin_calls(&harness.job_dir(&id))
            .iter()
            .filter(|call| call["argv"].is_array())
            .map(|call| call["tool"].clone())
            .collect();
        assert_eq!(
            tools,
            [json!("eksctl"), json!("aws")],
            "eksctl never created the cluster"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_eksctl_fails_the_job_with_its_error_output_and_skips_the_rest() {
    bounded(async {
        let harness = Harness::new("failure");
        // The stand-in fails for cluster names ending in `-fail`.
        let job = harness.deploy(&karpenter_spec("eks-spot-fail")).await;
        let id = text(&job["id"]).to_owned();
        let events = harness.all_events(&id).await;
        assert_eq!(job_states(&events), ["running", "failed"]);
        let lines = log_lines(&events);
        assert!(
            lines.contains(&r#"Error: failed to create cluster "eks-spot-fail""#.to_owned()),
            "{lines:#?}"
        );
        assert!(
            events
                .iter()
                .any(|event| event.event == "stage" && event.data["stage"]["kind"] == "failed")
        );
        let step_end = events
            .iter()
            .find(|event| {
                event.event == "step" && event.data["step"] == 2 && event.data["state"] == "failed"
            })
            .expect("the create step failed");
        assert_eq!(step_end.data["exit_code"], 1);
        assert!(text(&events.last().unwrap().data["text"]).contains("create-cluster"));

        let job = harness.job(&id).await;
        assert_eq!(job["state"], "failed");
        let states: Vec<String> = steps_of(&job).into_iter().map(|(_, state)| state).collect();
        assert_eq!(
            states,
            [
                "succeeded",
                "succeeded",
                "failed",
                "skipped",
                "skipped",
                "skipped",
                "skipped",
                "skipped"
            ]
        );
        assert_eq!(job["steps"][2]["exit_code"], 1);
        let tools: Vec<Value> = standin_calls(&harness.job_dir(&id))
            .iter()
            .map(|call| call["tool"].clone())
            .collect();
        assert_eq!(
            tools,
            [json!("eksctl"), json!("aws"), json!("eksctl")],
            "helm and kubectl never ran"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deploy_is_refused_up_front_when_a_tool_it_needs_is_missing_or_aws_has_no_credentials() {
    bounded(async {
        let harness = Harness::with("missing-tool", |config| {
            config.tools.eksctl = "/nonexistent/eksctl".into();
        });
        let (status, body) = harness
            .call("POST", "/api/deploys", Some(&g5_spec("eks-g5-missing")))
            .await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        let error = text(&body["error"]);
        assert!(
            error.contains("eksctl (`/nonexistent/eksctl` is not an executable file)"),
            "{error}"
        );
        // Only the tools the design's steps run are needed: helm for Karpenter designs.
        let harness = Harness::with("missing-helm", |config| {
            config.tools.helm = "no-such-helm-anywhere".into();
        });
        harness.deploy(&g5_spec("eks-g5-no-helm")).await;
        let (status, body) = harness
            .call(
                "POST",
                "/api/deploys",
                Some(&karpenter_spec("eks-karpenter-no-helm")),
            )
            .await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert!(
            text(&body["error"])
                .contains("helm (`no-such-helm-anywhere` is not on the server's PATH)"),
            "{body}"
        );
        let harness = Harness::with("no-credentials", |config| {
            config.missing_credentials = Some("no credentials in the environment".into());
        });
        let (status, body) = harness
            .call(
                "POST",
                "/api/deploys",
                Some(&g5_spec("eks-g5-no-credentials")),
            )
            .await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert!(
            text(&body["error"]).contains("no AWS credentials (no credentials in the environment)"),
            "{body}"
        );
        let (status, jobs) = harness.call("GET", "/api/deploys", None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(jobs, json!([]), "no job was created");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_a_hanging_run_and_leaves_no_process_behind() {
    bounded(async {
        let harness = Harness::new("cancel");
        // The stand-in hangs (on a `sleep` child) for cluster names ending in `-hang`.
        let job = harness.deploy(&g5_spec("eks-g5-hang")).await;
        let id = text(&job["id"]).to_owned();
        let (standin, child) = wait_for_hanging_standin(&harness.job_dir(&id)).await;
        let _stop_standin = KillOnDrop(vec![standin, child]);
        assert!(
            !process_is_gone(standin) && !process_is_gone(child),
            "both run"
        );

        let (status, cancelled) = harness
            .call("POST", &format!("/api/deploys/{id}/cancel"), None)
            .await;
        assert_eq!(status, StatusCode::OK, "{cancelled}");
        assert_eq!(cancelled["state"], "cancelled");
        assert_eq!(cancelled["steps"][0]["state"], "succeeded");
        assert_eq!(cancelled["steps"][1]["state"], "cancelled");
        wait_until_gone(&[standin, child]).await;

        let events = harness.all_events(&id).await;
        assert_eq!(job_states(&events), ["running", "cancelled"]);
        let lines = log_lines(&events);
        assert!(
            lines
                .iter()
                .any(|line| line.contains("waiting for CloudFormation stack")),
            "the logs up to the cancel are kept: {lines:#?}"
        );
        assert!(
            lines
                .iter()
                .any(|line| line.starts_with("cancelled: sending SIGTERM"))
        );

        let (status, again) = harness
            .call("POST", &format!("/api/deploys/{id}/cancel"), None)
            .await;
        assert_eq!(status, StatusCode::CONFLICT, "{again}");
        assert_eq!(again["state"], "cancelled");
        let (status, unknown) = harness
            .call("POST", "/api/deploys/0000000000000000/cancel", None)
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{unknown}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_deploy_of_an_active_cluster_gets_409() {
    bounded(async {
        let harness = Harness::new("conflict");
        let first = harness.deploy(&g5_spec("eks-g5-hang")).await;
        let first_id = text(&first["id"]).to_owned();
        let (standin, child) = wait_for_hanging_standin(&harness.job_dir(&first_id)).await;
        let _stop_standin = KillOnDrop(vec![standin, child]);

        let (status, refused) = harness
            .call("POST", "/api/deploys", Some(&g5_spec("eks-g5-hang")))
            .await;
        assert_eq!(status, StatusCode::CONFLICT, "{refused}");
        assert_eq!(refused["job"], json!(first_id));
        assert!(text(&refused["error"]).contains("eks-g5-hang"), "{refused}");

        // Same name in another region is another cluster.
        let mut elsewhere = g5_spec("eks-g5-hang");
        elsewhere["cluster"]["region"] = json!("us-east-2");
        elsewhere["network"]["availability_zones"] = json!(["us-east-2a", "us-east-2b"]);
        elsewhere["node_groups"][1]["placement"]["availability_zones"] = json!(["us-east-2b"]);
        let other = harness.deploy(&elsewhere).await;
        let other_id = text(&other["id"]).to_owned();
        let (other_standin, other_child) =
            wait_for_hanging_standin(&harness.job_dir(&other_id)).await;
        let _stop_other_standin = KillOnDrop(vec![other_standin, other_child]);

        for id in [&first_id, &other_id] {
            let (status, job) = harness
                .call("POST", &format!("/api/deploys/{id}/cancel"), None)
                .await;
            assert_eq!(
                (status, &job["state"]),
                (StatusCode::OK, &json!("cancelled"))
            );
        }
        wait_until_gone(&[standin, child, other_standin, other_child]).await;
        let (status, history) = harness.call("GET", "/api/deploys", None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            history.as_array().unwrap().len(),
            2,
            "the refused one left no job"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deploys_beyond_the_concurrency_limit_get_429() {
    bounded(async {
        let harness = Harness::with("limit", |config| config.max_active_deploys = 1);
        let first = harness.deploy(&g5_spec("eks-g5-hang")).await;
        let id = text(&first["id"]).to_owned();
        let (standin, child) = wait_for_hanging_standin(&harness.job_dir(&id)).await;
        let _stop_standin = KillOnDrop(vec![standin, child]);
        let (status, refused) = harness
            .call("POST", "/api/deploys", Some(&g5_spec("eks-g5-other")))
            .await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{refused}");
        assert!(refused["error"].is_string());

        harness
            .call("POST", &format!("/api/deploys/{id}/cancel"), None)
            .await;
        wait_until_gone(&[standin, child]).await;
        // The slot is free again once the job ended.
        let next = harness.deploy(&g5_spec("eks-g5-other")).await;
        let events = harness.all_events(text(&next["id"])).await;
        assert_eq!(job_states(&events), ["running", "succeeded"]);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_deploy_route_needs_the_token() {
    bounded(async {
        let harness = Harness::new("token");
        let spec = g5_spec("eks-g5-token");
        let routes = [
            ("POST", "/api/deploys", Some(&spec)),
            ("GET", "/api/deploys", None),
            ("GET", "/api/deploys/0123456789abcdef", None),
            ("GET", "/api/deploys/0123456789abcdef/events", None),
            ("POST", "/api/deploys/0123456789abcdef/cancel", None),
        ];
        let wrong = format!("Bearer {TOKEN}x");
        let not_bearer = format!("Basic {TOKEN}");
        for (method, uri, body) in routes {
            for authorization in [
                None,
                Some(wrong.as_str()),
                Some(not_bearer.as_str()),
                Some("Bearer "),
            ] {
                let (status, answer) = harness.call_with(method, uri, body, authorization).await;
                assert_eq!(
                    status,
                    StatusCode::UNAUTHORIZED,
                    "{method} {uri} {authorization:?}"
                );
                assert!(answer["error"].is_string(), "a JSON error: {answer}");
            }
        }
        // The scheme is case-insensitive, the token is not.
        let (status, history) = harness
            .call_with(
                "GET",
                "/api/deploys",
                None,
                Some(&format!("bearer {TOKEN}")),
            )
            .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(history, json!([]), "nothing was deployed without the token");
        let (status, _) = harness
            .call_with(
                "GET",
                "/api/deploys",
                None,
                Some(&format!("Bearer {}", TOKEN.to_uppercase())),
            )
            .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spec_with_rule_errors_or_a_bad_body_is_refused() {
    bounded(async {
        let harness = Harness::new("refused");
        // The templates as shipped still hold PLACEHOLDER_* values.
        let (status, refused) = harness
            .call(
                "POST",
                "/api/deploys",
                Some(&template_json("g5-node-autorepair")),
            )
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
        let findings = refused["findings"].as_array().unwrap();
        assert!(
            findings
                .iter()
                .any(|finding| finding["rule"] == "placeholder-left"
                    && finding["path"] == "cluster.region"),
            "{refused}"
        );
        assert!(
            text(&refused["error"]).contains("error finding"),
            "{refused}"
        );

        let (status, refused) = harness
            .call(
                "POST",
                "/api/deploys",
                Some(&json!({ "cluster": "not a spec" })),
            )
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
        assert!(refused["error"].is_string());

        // Too large, whether the length is declared up front or only found while reading.
        let huge = json!({ "padding": "x".repeat(2 * 1024 * 1024) });
        let (status, refused) = harness.call("POST", "/api/deploys", Some(&huge)).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{refused}");
        assert!(refused["error"].is_string(), "{refused}");
        let (status, refused) = harness.post_declared_length(&huge.to_string()).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{refused}");
        assert!(refused["error"].is_string(), "{refused}");

        let (status, history) = harness.call("GET", "/api/deploys", None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(history, json!([]), "no job was created");
        assert!(
            std::fs::read_dir(harness.data_dir.join("jobs"))
                .unwrap()
                .next()
                .is_none(),
            "no bundle was written"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_stream_resumes_after_last_event_id_without_gaps_or_repeats() {
    bounded(async {
        let harness = Harness::new("resume");
        let job = harness.deploy(&g5_spec("eks-g5-hang")).await;
        let id = text(&job["id"]).to_owned();

        // Read live until eksctl waits for its stack, then drop the connection.
        let mut first = harness.events(&id, None).await;
        let before = first
            .until(|event| event.event == "stage" && event.data["stage"]["kind"] == "stack-waiting")
            .await;
        drop(first);
        let resume_from = before.last().unwrap().id.to_string();
        let (standin, child) = wait_for_hanging_standin(&harness.job_dir(&id)).await;
        let _stop_standin = KillOnDrop(vec![standin, child]);

        // Resume while the job still runs; cancel it so the stream ends.
        let mut resumed = harness.events(&id, Some(&resume_from)).await;
        let next = resumed.next().await.expect("more events follow");
        assert!(next.id > before.last().unwrap().id);
        harness
            .call("POST", &format!("/api/deploys/{id}/cancel"), None)
            .await;
        let mut after = vec![next];
        after.extend(resumed.rest().await);
        wait_until_gone(&[standin, child]).await;

        let everything = harness.all_events(&id).await;
        let joined: Vec<i64> = before.iter().chain(&after).map(|event| event.id).collect();
        let all: Vec<i64> = everything.iter().map(|event| event.id).collect();
        assert_eq!(joined, all, "resuming gave every event exactly once");
        assert_eq!(
            before.iter().chain(&after).cloned().collect::<Vec<_>>(),
            everything
        );
        assert_eq!(job_states(&everything), ["running", "cancelled"]);

        // Resuming a finished job replays exactly what came after; at its end, nothing.
        let middle = &everything[everything.len() / 2];
        let rest = harness
            .events(&id, Some(&middle.id.to_string()))
            .await
            .rest()
            .await;
        assert_eq!(rest, everything[everything.len() / 2 + 1..]);
        let last = everything.last().unwrap().id.to_string();
        assert!(
            harness
                .events(&id, Some(&last))
                .await
                .rest()
                .await
                .is_empty()
        );

        let (status, bad) = harness.events_status(&id, "yesterday").await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        let (status, _) = harness
            .call("GET", "/api/deploys/ffffffffffffffff/events", None)
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_with_spaces_and_shell_metacharacters_arrive_literally() {
    bounded(async {
        let scratch = scratch_dir("literal");
        let data_dir = scratch.join("data dir $(touch pwned) `touch pwned`; touch pwned");
        let tools_dir = scratch.join("tools & bin | $HOME");
        std::fs::create_dir_all(&tools_dir).unwrap();
        let eksctl = tools_dir.join("eks ctl $(touch pwned) 'quoted' \"double\"");
        std::os::unix::fs::symlink(standin_tools().eksctl, &eksctl).unwrap();
        let harness = Harness::with("literal-unused", |config| {
            config.data_dir = data_dir.clone();
            config.tools.eksctl = eksctl.clone();
        });
        let job = harness.deploy(&g5_spec("eks-g5-literal")).await;
        let id = text(&job["id"]).to_owned();
        let events = harness.all_events(&id).await;
        assert_eq!(job_states(&events), ["running", "succeeded"], "{events:#?}");

        let job_dir = data_dir.join("jobs").join(&id);
        let cluster_yaml = job_dir.join("cluster.yaml").display().to_string();
        let calls = standin_calls(&job_dir);
        assert_eq!(calls.len(), 2, "{calls:?}");
        assert_eq!(
            calls[1]["argv"],
            json!([
                eksctl.display().to_string(),
                "create",
                "cluster",
                "-f",
                cluster_yaml
            ])
        );
        assert_eq!(calls[1]["cwd"], json!(job_dir.display().to_string()));
        for dir in [
            std::env::current_dir().unwrap(),
            scratch.clone(),
            data_dir.clone(),
            job_dir.clone(),
            tools_dir.clone(),
        ] {
            assert!(
                !dir.join("pwned").exists(),
                "no shell ran the text in {}",
                dir.display()
            );
        }
    })
    .await;
}

/// Waits (up to 20 s) for the job to reach `state` through the real server.
async fn wait_for_state(server: &Server, token: &str, id: &str, state: &str) -> Value {
    for _ in 0..400 {
        let (status, job) = server.call("GET", &format!("/api/deploys/{id}"), token, None);
        assert_eq!(status, 200, "{job}");
        if job["state"] == state {
            return job;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("job {id} never reached {state}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_restarted_during_a_run_marks_the_job_interrupted_and_keeps_its_logs() {
    bounded(async {
        let scratch = scratch_dir("restart");
        let data_dir = scratch.join("data");
        let args = standin_server_args(&data_dir);
        let mut server = Server::start(&args, &DEPLOY_ENV[1..]);
        let token = server
            .printed_token
            .clone()
            .expect("the server printed a generated token");
        assert_eq!(token.len(), 64, "32 random bytes in hex: {token}");

        let (status, job) = server.call(
            "POST",
            "/api/deploys",
            &token,
            Some(&g5_spec("eks-g5-hang")),
        );
        assert_eq!(status, 202, "{job}");
        let id = text(&job["id"]).to_owned();
        let job_dir = data_dir.join("jobs").join(&id);
        let (standin, child) = wait_for_hanging_standin(&job_dir).await;
        let _stop_standin = KillOnDrop(vec![standin, child]);
        let running = wait_for_state(&server, &token, &id, "running").await;
        assert_eq!(running["steps"][1]["state"], "running");

        // A crash: nothing gets to clean up. The stand-in and its child live on.
        server.crash();
        assert!(!process_is_gone(standin), "the stand-in outlived the crash");

        let restarted = Server::start(&args, DEPLOY_ENV);
        assert_eq!(
            restarted.printed_token, None,
            "a token from the environment is not printed"
        );
        let (status, wrong) = restarted.call("GET", "/api/deploys", &token, None);
        assert_eq!(status, 401, "the old generated token is gone: {wrong}");
        let job = wait_for_state(&restarted, TOKEN, &id, "interrupted").await;
        assert_eq!(job["steps"][0]["state"], "succeeded");
        assert_eq!(job["steps"][1]["state"], "interrupted");
        assert!(
            job["plan_output"]
                .as_str()
                .unwrap()
                .contains("kind: ClusterConfig")
        );
        wait_until_gone(&[standin, child]).await;

        // The logs from before the crash are intact; the last event says what happened.
        let (status, history) = restarted.call("GET", "/api/deploys", TOKEN, None);
        assert_eq!(status, 200);
        assert_eq!(history[0]["state"], "interrupted");
        drop(restarted);
        let harness_view = Harness::with("restart-reader", |config| {
            config.data_dir = data_dir.clone()
        });
        let events = harness_view.all_events(&id).await;
        let lines = log_lines(&events);
        assert!(
            lines
                .iter()
                .any(|line| line.contains("eksctl version 0.230.0")),
            "{lines:#?}"
        );
        assert!(
            lines
                .iter()
                .any(|line| line.contains("waiting for CloudFormation stack"))
        );
        let last = events.last().unwrap();
        assert_eq!(last.data["state"], "interrupted");
        assert!(
            text(&last.data["text"]).contains("process(es) it left running were stopped"),
            "{last:?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_stops_running_deploys_and_records_them_interrupted() {
    bounded(async {
        let scratch = scratch_dir("sigterm");
        let data_dir = scratch.join("data");
        let args = standin_server_args(&data_dir);
        let mut server = Server::start(&args, DEPLOY_ENV);
        let (status, job) =
            server.call("POST", "/api/deploys", TOKEN, Some(&g5_spec("eks-g5-hang")));
        assert_eq!(status, 202, "{job}");
        let id = text(&job["id"]).to_owned();
        let (standin, child) = wait_for_hanging_standin(&data_dir.join("jobs").join(&id)).await;
        let _stop_standin = KillOnDrop(vec![standin, child]);

        server.signal(Signal::SIGTERM);
        let status = server.wait(Duration::from_secs(20));
        assert!(status.success(), "a clean exit: {status}");
        wait_until_gone(&[standin, child]).await;

        let harness_view = Harness::with("sigterm-reader", |config| {
            config.data_dir = data_dir.clone()
        });
        let job = harness_view.job(&id).await;
        assert_eq!(job["state"], "interrupted");
        assert_eq!(job["steps"][1]["state"], "interrupted");
        let events = harness_view.all_events(&id).await;
        assert_eq!(
            text(&events.last().unwrap().data["text"]),
            "interrupted: the server is stopping"
        );
    })
    .await;
}

#[tokio::test]
async fn a_server_without_deploys_answers_503_in_json() {
    use axum::body::Body;
    use axum::http::Request;
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    for (method, uri) in [
        ("POST", "/api/deploys"),
        ("GET", "/api/deploys/0123/events"),
    ] {
        let request = Request::builder()
            .method(method)
            .uri(uri)
            .body(Body::empty())
            .unwrap();
        let response = backend::app(backend::AppState::default())
            .oneshot(request)
            .await
            .unwrap();
        assert_eq!(
            response.status(),
            StatusCode::SERVICE_UNAVAILABLE,
            "{method} {uri}"
        );
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(body["error"], "deploys are not enabled on this server");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_server_on_the_same_data_directory_refuses_to_start_and_leaves_the_first_alone() {
    bounded(async {
        let scratch = scratch_dir("second-server");
        let data_dir = scratch.join("data");
        let args = standin_server_args(&data_dir);
        let first = Server::start(&args, DEPLOY_ENV);
        let (status, job) =
            first.call("POST", "/api/deploys", TOKEN, Some(&g5_spec("eks-g5-hang")));
        assert_eq!(status, 202, "{job}");
        let id = text(&job["id"]).to_owned();
        let job_dir = data_dir.join("jobs").join(&id);
        let (standin, child) = wait_for_hanging_standin(&job_dir).await;
        let _stop_standin = KillOnDrop(vec![standin, child]);
        wait_for_state(&first, TOKEN, &id, "running").await;

        // The second server says who holds the directory and exits non-zero.
        let second = std::process::Command::new(env!("CARGO_BIN_EXE_eks-studio"))
            .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
            .arg(&data_dir)
            .env("EKS_STUDIO_DEPLOY_TOKEN", TOKEN)
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(second.status.code(), Some(2), "{second:?}");
        let stderr = String::from_utf8_lossy(&second.stderr);
        assert!(
            stderr.contains("is in use by another eks-studio server (process"),
            "{stderr}"
        );
        assert!(stderr.contains(&data_dir.display().to_string()), "{stderr}");

        // The first server's deploy runs on, untouched.
        assert!(!process_is_gone(standin), "the running step was stopped");
        let (status, job) = first.call("GET", &format!("/api/deploys/{id}"), TOKEN, None);
        assert_eq!(status, 200);
        assert_eq!(job["state"], "running", "{job}");
    })
    .await;
}

#[tokio::test]
async fn the_store_and_the_data_directory_are_the_server_users_alone() {
    use std::os::unix::fs::PermissionsExt;
    let harness = Harness::new("private-files");
    let job = harness.deploy(&g5_spec("eks-private")).await;
    let id = text(&job["id"]).to_owned();
    harness.all_events(&id).await;
    let data_dir = harness
        .job_dir(&id)
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data_dir), 0o700);
    assert_eq!(mode(&data_dir.join("jobs")), 0o700);
    let mut store_files = 0;
    for entry in std::fs::read_dir(&data_dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("deploys.sqlite3") || name == "server.lock" {
            assert_eq!(mode(&entry.path()), 0o600, "{name}");
            store_files += 1;
        }
    }
    assert!(
        store_files >= 3,
        "the store, its journal and the lock: {store_files}"
    );
}

#[tokio::test]
async fn a_design_that_makes_eksctl_read_a_server_file_is_not_deployed() {
    let harness = Harness::new("server-files");
    let mut spec = g5_spec("eks-ssh-path");
    spec["node_groups"][0]["extra"] = json!({ "ssh": { "publicKeyPath": "/etc/shadow" } });
    let (status, body) = harness.call("POST", "/api/deploys", Some(&spec)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let error = text(&body["error"]);
    assert!(error.contains("publicKeyPath: `/etc/shadow`"), "{error}");
    assert!(error.contains("ssh.publicKeyName"), "{error}");
    assert_eq!(
        body["server_files"],
        json!(["managedNodeGroups[0].ssh.publicKeyPath: `/etc/shadow`"]),
        "the page lists what it asks the user to confirm"
    );
    let (status, history) = harness.call("GET", "/api/deploys", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(history, json!([]), "no job was created");

    // Once the user has confirmed the files in the page, the deploy starts.
    let (status, body) = harness
        .call(
            "POST",
            "/api/deploys?confirm_server_files=true",
            Some(&spec),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let (status, body) = harness
        .call(
            "POST",
            "/api/deploys?confirm_server_files=maybe",
            Some(&spec),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    spec["cluster"]["name"] = json!("eks-ssh-inline");

    // The same key inline (`ssh.publicKey`) reads nothing of the server's and deploys.
    spec["node_groups"][0]["extra"] = json!({ "ssh": { "publicKey": "ssh-ed25519 AAAAC3Nza" } });
    let (status, body) = harness.call("POST", "/api/deploys", Some(&spec)).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
}

/// The Karpenter design with its controller's role given through IRSA.
fn irsa_spec(cluster: &str) -> Value {
    let mut spec = karpenter_spec(cluster);
    spec["cluster"]["with_oidc"] = json!(true);
    spec["karpenter"]["controller_identity"] = json!("irsa");
    spec
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_irsa_the_deploy_reads_the_issuer_and_the_role_and_hands_them_on() {
    bounded(async {
        let harness = Harness::new("irsa");
        let job = harness.deploy(&irsa_spec("eks-irsa")).await;
        let id = text(&job["id"]).to_owned();
        let events = harness.all_events(&id).await;
        assert_eq!(job_states(&events), ["running", "succeeded"], "{events:#?}");
        let job = harness.job(&id).await;
        let names: Vec<String> = steps_of(&job).into_iter().map(|(name, _)| name).collect();
        assert_eq!(
            names[2..6],
            [
                "create-cluster",
                "read-oidc-issuer",
                "karpenter-access",
                "read-controller-role"
            ]
        );
        let job_dir = harness.job_dir(&id);
        let argv: Vec<Vec<String>> = standin_calls(&job_dir)
            .iter()
            .filter_map(|call| serde_json::from_value(call["argv"].clone()).ok())
            .collect();
        let access = &argv[4];
        let at = access
            .iter()
            .position(|arg| arg == "--parameter-overrides")
            .expect("the access stack is given the issuer");
        assert!(
            access[at + 1].starts_with("OidcIssuer=https://oidc.eks.us-east-2.amazonaws.com/id/"),
            "{access:?}"
        );
        assert!(access.contains(&"CAPABILITY_NAMED_IAM".to_owned()), "the stack creates a role");
        let helm = &argv[6];
        assert_eq!(helm[3], "karpenter");
        assert_eq!(
            helm[helm.len() - 2..],
            [
                "--set".to_owned(),
                r"serviceAccount.annotations.eks\.amazonaws\.com/role-arn=arn:aws:iam::123456789012:role/eks-irsa-karpenter".to_owned()
            ]
        );
        // The job's record shows where a value came from, not a value of one run.
        let recorded: Vec<String> =
            serde_json::from_value(job["steps"][4]["command"].clone()).unwrap_or_default();
        assert!(
            recorded.iter().any(|arg| arg == "OidcIssuer=${OIDC_ISSUER}"),
            "{recorded:?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_irsa_an_empty_issuer_fails_its_step_before_anything_reads_it() {
    bounded(async {
        let harness = Harness::new("irsa-empty");
        fails_at(
            &harness,
            &irsa_spec("eks-quiet-describe-cluster"),
            "read-oidc-issuer",
            "",
        )
        .await;
        fails_at(
            &harness,
            &irsa_spec("eks-fail-get-role"),
            "read-controller-role",
            "when calling the GetRole operation",
        )
        .await;
    })
    .await;
}

/// Polls the job until its approval step waits; its steps then.
async fn wait_for_approval_step(harness: &Harness, id: &str) -> Vec<(String, String)> {
    for _ in 0..500 {
        let steps = steps_of(&harness.job(id).await);
        if steps
            .iter()
            .any(|(name, state)| name == "approve" && state == "running")
        {
            return steps;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("the job never waited for approval");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reviewed_deploy_plans_then_waits_for_approval_before_it_creates_anything() {
    bounded(async {
        let harness = Harness::new("review");
        let (status, job) = harness
            .call(
                "POST",
                "/api/deploys?review=true",
                Some(&karpenter_spec("eks-reviewed")),
            )
            .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{job}");
        let id = text(&job["id"]).to_owned();
        let approve_step = &job["steps"][1];
        assert_eq!(approve_step["name"], "approve");
        let title = text(&approve_step["title"]);
        for said in [
            "Region us-east-2, zones us-east-2a, us-east-2b",
            "Stacks: Karpenter-eks-reviewed, eksctl-eks-reviewed-cluster",
            "NodePool gpu-inference-spot",
        ] {
            assert!(title.contains(said), "{said}: {title}");
        }
        let steps = wait_for_approval_step(&harness, &id).await;
        assert_eq!(steps[0], ("plan".to_owned(), "succeeded".to_owned()));
        assert!(
            steps[2..].iter().all(|(_, state)| state == "pending"),
            "{steps:?}"
        );
        let tools: Vec<Value> = standin_calls(&harness.job_dir(&id))
            .iter()
            .filter(|call| call["argv"].is_array())
            .map(|call| call["tool"].clone())
            .collect();
        assert_eq!(tools, [json!("eksctl")], "only the plan ran");

        let (status, approved) = harness
            .call("POST", &format!("/api/deploys/{id}/approve"), None)
            .await;
        assert_eq!(status, StatusCode::OK, "{approved}");
        let events = harness.all_events(&id).await;
        assert_eq!(job_states(&events), ["running", "succeeded"], "{events:#?}");
        let job = harness.job(&id).await;
        assert_eq!(
            steps_of(&job)[1],
            ("approve".to_owned(), "succeeded".to_owned())
        );
        let (status, again) = harness
            .call("POST", &format!("/api/deploys/{id}/approve"), None)
            .await;
        assert_eq!(status, StatusCode::CONFLICT, "{again}");
        assert!(
            text(&again["error"]).contains("not waiting for approval"),
            "{again}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_deploy_that_waits_for_approval_creates_nothing() {
    bounded(async {
        let harness = Harness::new("review-cancel");
        let (status, job) = harness
            .call(
                "POST",
                "/api/deploys?review=true",
                Some(&g5_spec("eks-not-approved")),
            )
            .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{job}");
        let id = text(&job["id"]).to_owned();
        wait_for_approval_step(&harness, &id).await;
        let (status, cancelled) = harness
            .call("POST", &format!("/api/deploys/{id}/cancel"), None)
            .await;
        assert_eq!(status, StatusCode::OK, "{cancelled}");
        assert_eq!(cancelled["state"], "cancelled");
        let steps = steps_of(&cancelled);
        assert_eq!(steps[1], ("approve".to_owned(), "cancelled".to_owned()));
        assert!(
            steps[2..].iter().all(|(_, state)| state == "skipped"),
            "{steps:?}"
        );
        let calls = standin_calls(&harness.job_dir(&id))
            .iter()
            .filter(|call| call["argv"].is_array())
            .count();
        assert_eq!(calls, 1, "only the plan ran");
    })
    .await;
}

/// What a user would type for each of the templates' placeholders, by what it asks for.
fn filled_in(label: &str) -> String {
    let numbered = |prefix: &str| {
        label
            .strip_prefix(prefix)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|number| number.parse::<usize>().ok())
    };
    if let Some(number) = numbered("Availability zone ") {
        return format!("us-east-2{}", ["a", "b", "c"][number - 1]);
    }
    if let Some(number) = numbered("Private subnet ") {
        return format!("subnet-0{number:016x}");
    }
    if let Some(number) = numbered("Public subnet ") {
        return format!("subnet-1{number:016x}");
    }
    match label {
        "AWS region" => "us-east-2".into(),
        "VPC ID" => "vpc-0123456789abcdef0".into(),
        "Capacity reservation ID" => "cr-0123456789abcdef0".into(),
        "AWS account ID" => "123456789012".into(),
        "Placement group" => "training-pg".into(),
        "FSx security group ID" => "sg-0123456789abcdef0".into(),
        "S3 bucket name" => "training-checkpoints".into(),
        "AMI ID" => "ami-0123456789abcdef0".into(),
        "Node security group ID" => "sg-0fedcba9876543210".into(),
        "S3 bucket policy ARN" => "arn:aws:iam::123456789012:policy/training-checkpoints".into(),
        other => panic!("no value to fill in for the placeholder `{other}`"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_template_with_its_placeholders_filled_deploys_with_the_tools() {
    bounded(async {
        for template in shared::TEMPLATES {
            let mut spec = template.spec();
            for placeholder in shared::lint::placeholders::list(&template.spec()) {
                spec = shared::lint::placeholders::fill(
                    &spec,
                    &placeholder.token,
                    &filled_in(&placeholder.label),
                );
            }
            assert!(
                shared::lint::placeholders::list(&spec).is_empty(),
                "{}: {:?}",
                template.id,
                shared::lint::placeholders::list(&spec)
            );
            // The p5 ODCR seed leaves its EFA group on both private subnets; a user pins it
            // to the reservation's, as the finding asks.
            for finding in shared::rules::validate(&spec) {
                if finding.rule == "efa-group-not-pinned"
                    && let shared::model::spec::Network::ExistingVpc {
                        private_subnets, ..
                    } = &spec.network
                {
                    let first = private_subnets[0].name.clone();
                    let index: usize = finding.path["node_groups[".len()..]
                        .split(']')
                        .next()
                        .unwrap()
                        .parse()
                        .unwrap();
                    spec.node_groups[index].placement =
                        shared::model::spec::GroupPlacement::Subnets {
                            subnets: vec![first],
                        };
                }
            }
            let errors: Vec<_> = shared::rules::validate(&spec)
                .into_iter()
                .filter(|finding| finding.severity == shared::rules::Severity::Error)
                .collect();
            assert!(errors.is_empty(), "{}: {errors:#?}", template.id);
            let harness = Harness::new(template.id);
            let job = harness
                .deploy(&serde_json::from_str(&spec.to_json()).unwrap())
                .await;
            let id = text(&job["id"]).to_owned();
            let events = harness.all_events(&id).await;
            assert_eq!(
                job_states(&events),
                ["running", "succeeded"],
                "{}: {events:#?}",
                template.id
            );
            let lines = log_lines(&events);
            if let Some(karpenter) = &spec.karpenter {
                for pool in &karpenter.node_pools {
                    let created = format!("nodepool.karpenter.sh/{} created", pool.metadata.name);
                    assert!(lines.contains(&created), "{}: {lines:#?}", template.id);
                }
            }
            if spec.storage.fsx.is_some() {
                let created = "storageclass.storage.k8s.io/fsx-lustre created".to_owned();
                assert!(lines.contains(&created), "{}: {lines:#?}", template.id);
                let claimed = "persistentvolumeclaim/fsx-claim created".to_owned();
                assert!(lines.contains(&claimed), "{}: {lines:#?}", template.id);
            }
            if spec.storage.s3.is_some() {
                let created = "persistentvolume/s3-pv created".to_owned();
                assert!(lines.contains(&created), "{}: {lines:#?}", template.id);
            }
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tools_never_see_the_deploy_token_or_another_secret_of_the_servers() {
    bounded(async {
        let scratch = scratch_dir("tool-env");
        let data_dir = scratch.join("data");
        let mut environment = DEPLOY_ENV.to_vec();
        environment.push(("DATABASE_PASSWORD", "not-for-tools"));
        environment.push(("EKSCTL_STANDIN_DELAY_MS", "0"));
        let server = Server::start(&standin_server_args(&data_dir), &environment);
        let (status, job) = server.call("POST", "/api/deploys", TOKEN, Some(&g5_spec("eks-env")));
        assert_eq!(status, 202, "{job}");
        let id = text(&job["id"]).to_owned();
        wait_for_state(&server, TOKEN, &id, "succeeded").await;
        let calls = standin_calls(&data_dir.join("jobs").join(&id));
        assert_eq!(calls.len(), 2, "plan and create: {calls:?}");
        for call in calls {
            let names: Vec<&str> = call["env_names"]
                .as_array()
                .unwrap()
                .iter()
                .map(text)
                .collect();
            for secret in ["EKS_STUDIO_DEPLOY_TOKEN", "DATABASE_PASSWORD"] {
                assert!(
                    !names.contains(&secret),
                    "{secret} reached eksctl: {names:?}"
                );
            }
            for needed in [
                "PATH",
                "AWS_ACCESS_KEY_ID",
                "AWS_SECRET_ACCESS_KEY",
                "KUBECONFIG",
            ] {
                assert!(names.contains(&needed), "{needed} missing: {names:?}");
            }
        }
    })
    .await;
}

#[tokio::test]
async fn a_design_whose_keys_would_act_on_the_server_is_refused_naming_each_key() {
    let harness = Harness::new("refused-keys");
    let mut spec = g5_spec("eks-gitops");
    spec["eksctl_extra"] = json!({
        "gitops": { "flux": {
            "gitProvider": "github",
            "flags": { "hostname": "git.attacker.test", "private-key-file": "~/.ssh/id_rsa" }
        } },
        "metadata": { "tags": { "team": "ml" } },
        "someFutureKey": true,
    });
    spec["node_groups"][0]["extra"] = json!({ "ssh": { "allow": true } });
    let (status, body) = harness.call("POST", "/api/deploys", Some(&spec)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let paths: Vec<&str> = body["refused_keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|key| text(&key["path"]))
        .collect();
    assert_eq!(
        paths,
        ["gitops", "someFutureKey", "managedNodeGroups[0].ssh.allow"],
        "{body}"
    );
    let error = text(&body["error"]);
    assert!(error.contains("`flux` program"), "{error}");
    assert!(error.contains("~/.ssh/id_rsa.pub"), "{error}");
    let (_, history) = harness.call("GET", "/api/deploys", None).await;
    assert_eq!(history, json!([]), "no job was created");

    // Tags and an SSH key given inline act on AWS alone: the same design without the
    // refused keys deploys.
    spec["eksctl_extra"] = json!({ "metadata": { "tags": { "team": "ml" } } });
    spec["node_groups"][0]["extra"] =
        json!({ "ssh": { "allow": true, "publicKey": "ssh-ed25519 AAAAC3Nza" } });
    let (status, body) = harness.call("POST", "/api/deploys", Some(&spec)).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_approval_names_who_gets_access_to_the_cluster() {
    bounded(async {
        let harness = Harness::new("grants");
        let mut spec = g5_spec("eks-grants");
        spec["cluster"]["access"] = json!({
            "access_entries": [{
                "principal_arn": "arn:aws:iam::999988887777:role/contractor",
                "access_policies": [{
                    "policy_arn": "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy",
                    "scope": "cluster"
                }]
            }]
        });
        spec["eksctl_extra"] = json!({ "iam": { "serviceAccounts": [{
            "metadata": { "name": "ci", "namespace": "default" },
            "attachPolicyARNs": ["arn:aws:iam::aws:policy/AdministratorAccess"]
        }] } });
        let (status, job) = harness
            .call("POST", "/api/deploys?review=true", Some(&spec))
            .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{job}");
        let id = text(&job["id"]).to_owned();
        let steps = wait_for_approval_step(&harness, &id).await;
        let job = harness.job(&id).await;
        let title = job["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|step| step["name"] == "approve")
            .map(|step| text(&step["title"]).to_owned())
            .unwrap_or_else(|| panic!("an approval step: {steps:?}"));
        assert!(
            title.contains("Access entry for arn:aws:iam::999988887777:role/contractor (account 999988887777): AmazonEKSClusterAdminPolicy (cluster-admin) on the whole cluster"),
            "{title}"
        );
        assert!(
            title.contains("Service account default/ci gets an IAM role with AdministratorAccess — administrator rights on the AWS account"),
            "{title}"
        );
        assert!(title.contains("The Kubernetes API endpoint is public"), "{title}");
        let (status, _) = harness
            .call("POST", &format!("/api/deploys/{id}/cancel"), None)
            .await;
        assert_eq!(status, StatusCode::OK);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fsx_in_a_new_vpc_is_applied_as_a_copy_filled_with_the_subnet_and_group_read_after_the_cluster()
 {
    bounded(async {
        let harness = Harness::new("fsx-new-vpc");
        let mut spec: shared::Spec = serde_json::from_value(g5_spec("eks-fsx")).unwrap();
        spec.addons.push(shared::templates::starting_addon(
            shared::documents::storage::FSX_ADDON,
        ));
        spec.storage.fsx = Some(shared::model::spec::FsxVolume {
            subnet_id: String::new(),
            security_group_ids: Vec::new(),
            deployment_type: "SCRATCH_2".into(),
            per_unit_storage_throughput: None,
            storage_gib: 1200,
        });
        for driver in &shared::documents::storage::DRIVERS {
            driver.set_identity(
                &mut spec,
                shared::documents::storage::DriverIdentity::PodIdentity,
            );
        }
        let job = harness.deploy(&serde_json::to_value(&spec).unwrap()).await;
        let id = text(&job["id"]).to_owned();
        let events = harness.all_events(&id).await;
        assert_eq!(job_states(&events), ["running", "succeeded"], "{events:#?}");
        let job = harness.job(&id).await;
        let names: Vec<String> = steps_of(&job).into_iter().map(|(name, _)| name).collect();
        let at = |name: &str| names.iter().position(|step| step == name).unwrap();
        assert!(at("create-cluster") < at("read-fsx-subnet"), "{names:?}");
        assert!(
            at("read-fsx-subnet") < at("read-fsx-security-group"),
            "{names:?}"
        );
        assert!(
            at("read-fsx-security-group") < at("apply-storage"),
            "{names:?}"
        );
        // What the stand-in `aws` printed for the two reads (ids made from the names, as no
        // emulator runs here) is what the applied copy holds; the bundle's file is unchanged.
        let job_dir = harness.job_dir(&id);
        let calls: Vec<Vec<String>> = standin_calls(&job_dir)
            .iter()
            .filter_map(|call| serde_json::from_value(call["argv"].clone()).ok())
            .collect();
        let apply = calls
            .iter()
            .find(|argv| argv.len() > 3 && argv[1] == "apply" && argv[3].ends_with(".yaml"))
            .expect("kubectl apply ran");
        assert!(
            apply[3].ends_with("storage/volumes.filled.yaml"),
            "{apply:?}"
        );
        let filled = std::fs::read_to_string(&apply[3]).unwrap();
        let subnet = filled
            .lines()
            .find_map(|line| line.trim().strip_prefix("subnetId: "))
            .unwrap();
        let group = filled
            .lines()
            .find_map(|line| line.trim().strip_prefix("securityGroupIds: "))
            .unwrap();
        assert!(
            subnet.starts_with("subnet-") && group.starts_with("sg-"),
            "{filled}"
        );
        let lines = log_lines(&events).join("\n");
        assert!(lines.contains(subnet) && lines.contains(group), "{lines}");
        let written = std::fs::read_to_string(job_dir.join("storage/volumes.yaml")).unwrap();
        assert!(
            written.contains("FILLED_AT_DEPLOY_FSX_SUBNET_ID"),
            "{written}"
        );
    })
    .await;
}
