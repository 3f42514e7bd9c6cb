//! Day two against the emulator: a design is created by the eksctl stand-in (which makes in
//! moto's EC2 and EKS what eksctl makes in AWS), read back with `eks-studio read`, and
//! planned against with `eks-studio plan` — the real binary, the real emulator.

mod emulator;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use emulator::{Emulator, REGION};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("eks-studio-running-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The binary, pointed at the emulator with test credentials.
fn eks_studio(emulator: &Emulator, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eks-studio"))
        .args(args)
        .env("AWS_ENDPOINT_URL", &emulator.endpoint)
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("EKS_STUDIO_EC2_TIMEOUT_SECONDS", "30")
        .output()
        .expect("eks-studio runs")
}

/// `eks-studio plan DESIGN --cluster CLUSTER --region us-east-1`, with `more` arguments.
fn plan_on(emulator: &Emulator, design: &Path, cluster: &str, more: &[&str]) -> Output {
    let mut args = vec![
        "plan",
        design.to_str().unwrap(),
        "--cluster",
        cluster,
        "--region",
        REGION,
    ];
    args.extend_from_slice(more);
    eks_studio(emulator, &args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `eksctl create cluster -f FILE` by the stand-in, with the emulator's Python (boto3 and
/// PyYAML) so it makes the cluster in the emulator.
fn eksctl_create(emulator: &Emulator, file: &Path) {
    let output = Command::new(studio_e2e::ec2_emulator::python())
        .arg(root().join("tests/fixtures/eksctl"))
        .args(["create", "cluster", "-f"])
        .arg(file)
        .env("AWS_ENDPOINT_URL", &emulator.endpoint)
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("EKSCTL_STANDIN_DELAY_MS", "0")
        .env(
            "EKSCTL_STANDIN_ARGV_LOG",
            file.with_extension("calls.jsonl"),
        )
        .output()
        .expect("the eksctl stand-in runs");
    assert!(
        output.status.success(),
        "eksctl create cluster -f {} failed:\n{}",
        file.display(),
        text(&output.stderr)
    );
}

/// A VPC with a public and a private subnet in each of two zones, tagged as EKS's docs
/// ask of an existing VPC, made with boto3 in the emulator; the ids by placeholder name.
fn existing_vpc(emulator: &Emulator) -> Vec<(&'static str, String)> {
    const SCRIPT: &str = r#"
import json, sys, boto3
ec2 = boto3.client("ec2", region_name="us-east-1", endpoint_url=sys.argv[1],
                   aws_access_key_id="testing", aws_secret_access_key="testing")
vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
ids = {"PLACEHOLDER_VPC_ID": vpc}
for index, (name, zone, role) in enumerate([
        ("PUBLIC_1", "us-east-1a", "kubernetes.io/role/elb"),
        ("PUBLIC_2", "us-east-1b", "kubernetes.io/role/elb"),
        ("PRIVATE_1", "us-east-1a", "kubernetes.io/role/internal-elb"),
        ("PRIVATE_2", "us-east-1b", "kubernetes.io/role/internal-elb")]):
    subnet = ec2.create_subnet(VpcId=vpc, AvailabilityZone=zone, CidrBlock=f"10.0.{index}.0/24",
        TagSpecifications=[{"ResourceType": "subnet", "Tags": [{"Key": role, "Value": "1"}]}])
    ids["PLACEHOLDER_SUBNET_" + name] = subnet["Subnet"]["SubnetId"]
print(json.dumps(ids))
"#;
    let output = Command::new(studio_e2e::ec2_emulator::python())
        .args(["-c", SCRIPT, &emulator.endpoint])
        .output()
        .expect("the emulator's Python runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let ids: std::collections::BTreeMap<String, String> =
        serde_json::from_slice(&output.stdout).unwrap();
    [
        "PLACEHOLDER_VPC_ID",
        "PLACEHOLDER_SUBNET_PUBLIC_1",
        "PLACEHOLDER_SUBNET_PUBLIC_2",
        "PLACEHOLDER_SUBNET_PRIVATE_1",
        "PLACEHOLDER_SUBNET_PRIVATE_2",
    ]
    .into_iter()
    .map(|placeholder| (placeholder, ids[placeholder].clone()))
    .collect()
}

/// A template's cluster.yaml with its placeholders filled as a user fills them, and its
/// cluster's name.
fn filled_template(emulator: &Emulator, id: &str, dir: &Path) -> (PathBuf, String) {
    let spec = shared::template(id).unwrap().spec();
    let mut yaml = shared::documents::render::render_cluster_yaml(&spec).unwrap();
    let mut values: Vec<(&str, String)> = vec![
        ("PLACEHOLDER_AWS_REGION", REGION.into()),
        ("PLACEHOLDER_AZ_1", "us-east-1a".into()),
        ("PLACEHOLDER_AZ_2", "us-east-1b".into()),
        (
            "PLACEHOLDER_CAPACITY_RESERVATION_ID",
            "cr-0123456789abcdef0".into(),
        ),
        ("PLACEHOLDER_PLACEMENT_GROUP", "training-pg".into()),
        (
            "PLACEHOLDER_S3_POLICY_ARN",
            "arn:aws:iam::123456789012:policy/s3".into(),
        ),
        ("PLACEHOLDER_AMI_ID", "ami-0123456789abcdef0".into()),
    ];
    if yaml.contains("PLACEHOLDER_VPC_ID") {
        values.extend(existing_vpc(emulator));
    }
    for (placeholder, value) in values {
        yaml = yaml.replace(placeholder, &value);
    }
    assert!(
        !yaml.contains("PLACEHOLDER_"),
        "template {id} has a placeholder this test does not fill:\n{yaml}"
    );
    let file = dir.join(format!("{id}.yaml"));
    std::fs::write(&file, &yaml).unwrap();
    (file, spec.cluster.name)
}

#[test]
fn every_template_created_by_eksctl_reads_back_with_no_changes() {
    let emulator = Emulator::start();
    let dir = temp_dir("round-trip");
    let mut failures = Vec::new();
    for template in shared::TEMPLATES {
        let (file, cluster) = filled_template(&emulator, template.id, &dir);
        eksctl_create(&emulator, &file);
        let plan = plan_on(&emulator, &file, &cluster, &[]);
        let said = text(&plan.stdout);
        if plan.status.code() != Some(0) || !said.starts_with("No changes") {
            failures.push(format!(
                "{}: exit {:?}\n{said}{}",
                template.id,
                plan.status.code(),
                text(&plan.stderr)
            ));
        }
        // What a read could not see is said, never guessed.
        assert!(
            said.contains("not read: Karpenter's NodePools"),
            "{}: {said}",
            template.id
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_changed_design_plans_a_scale_a_new_group_and_a_replacement_against_the_running_cluster() {
    let emulator = Emulator::start();
    let dir = temp_dir("changes");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);

    // Read: the bundle of the running cluster, with what EKS keeps.
    let out = dir.join("read");
    let read = eks_studio(
        &emulator,
        &[
            "read",
            "--cluster",
            &cluster,
            "--region",
            REGION,
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(read.status.code(), Some(0), "{}", text(&read.stderr));
    let cluster_yaml = std::fs::read_to_string(out.join("cluster.yaml")).unwrap();
    let document: yaml_serde::Value = yaml_serde::from_str(&cluster_yaml).unwrap();
    let groups = document["managedNodeGroups"].as_sequence().unwrap();
    let g4dn = groups
        .iter()
        .find(|group| group["name"] == "g4dn")
        .expect("the GPU group is read");
    assert_eq!(g4dn["instanceType"], "g4dn.8xlarge");
    assert_eq!(
        g4dn["efaEnabled"], true,
        "EFA is read from the launch template"
    );
    assert_eq!(g4dn["privateNetworking"], true);
    assert_eq!(g4dn["desiredCapacity"], 2);
    assert_eq!(g4dn["availabilityZones"][0], "us-east-1b");
    assert_eq!(document["iam"]["withOIDC"], true);
    assert!(out.join("studio.json").is_file());
    assert!(text(&read.stderr).contains("not read: every managed node group: iam"));

    // Plan a changed design: one group scaled, one added, one whose type changes.
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let groups = design["managedNodeGroups"].as_sequence_mut().unwrap();
    for group in groups.iter_mut() {
        if group["name"] == "g4dn" {
            group["desiredCapacity"] = 4.into();
        }
        if group["name"] == "sys" {
            group["instanceType"] = "m5.2xlarge".into();
        }
    }
    groups.push(
        yaml_serde::from_str(
            "{name: infer, instanceType: g5.xlarge, spot: true, minSize: 0, maxSize: 4}",
        )
        .unwrap(),
    );
    let changed = dir.join("changed.yaml");
    std::fs::write(&changed, yaml_serde::to_string(&design).unwrap()).unwrap();
    let plan = plan_on(&emulator, &changed, &cluster, &["--format", "json"]);
    assert_eq!(plan.status.code(), Some(1), "{}", text(&plan.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let change = |name: &str| {
        plan["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|change| change["name"] == name)
            .unwrap_or_else(|| panic!("no change for {name}: {plan}"))
            .clone()
    };
    assert_eq!(change("infer")["action"], "create");
    assert_eq!(change("g4dn")["action"], "update");
    assert_eq!(change("g4dn")["disruptive"], false);
    assert!(
        change("g4dn")["steps"][0]
            .as_array()
            .unwrap()
            .iter()
            .any(|word| word == "--nodes=4"),
        "{plan}"
    );
    assert_eq!(change("sys")["action"], "replace");
    assert_eq!(change("sys")["disruptive"], true);
    assert_eq!(plan["changes"].as_array().unwrap().len(), 3, "{plan}");
    assert!(
        plan["not_read"]
            .as_array()
            .unwrap()
            .iter()
            .any(|gap| gap["what"].as_str().unwrap().contains("Karpenter"))
    );

    // The human plan keeps its lines.
    let human = plan_on(&emulator, &changed, &cluster, &[]);
    let said = text(&human.stdout);
    assert!(
        said.contains("\n-/+ nodegroup sys (instanceType)\n"),
        "{said}"
    );
    assert!(said.contains("Plan: 1 to create, 1 to update, 1 to replace, 0 to delete"));
}

#[test]
fn a_cluster_that_does_not_exist_is_an_error_naming_it() {
    let emulator = Emulator::start();
    let read = eks_studio(
        &emulator,
        &["read", "--cluster", "nowhere", "--region", REGION],
    );
    assert_eq!(read.status.code(), Some(2));
    let said = text(&read.stderr);
    assert!(said.contains("cannot read cluster nowhere"), "{said}");
    assert!(said.contains("DescribeCluster"), "{said}");
}

#[test]
fn the_iam_policy_in_the_docs_names_every_call_a_read_makes() {
    let docs = std::fs::read_to_string(root().join("docs/day-two.md")).unwrap();
    for action in backend::aws::running::READ_ACTIONS {
        assert!(
            docs.contains(&format!("\"{action}\"")),
            "docs/day-two.md's policy lacks {action}"
        );
    }
}

async fn post_json(
    router: &axum::Router,
    uri: &str,
    body: &serde_json::Value,
) -> (axum::http::StatusCode, serde_json::Value) {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let response = router
        .clone()
        .oneshot(
            axum::http::Request::builder()
                .method("POST")
                .uri(uri)
                .header("content-type", "application/json")
                .body(axum::body::Body::from(body.to_string()))
                .unwrap(),
        )
        .await
        .unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|error| panic!("{uri} answered {bytes:?}: {error}"));
    (status, value)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_api_lists_reads_and_plans_against_a_running_cluster() {
    let emulator = Emulator::start();
    let dir = temp_dir("api");
    let (file, cluster) = filled_template(&emulator, "p4de-odcr", &dir);
    eksctl_create(&emulator, &file);
    let router = backend::app(backend::AppState {
        aws: emulator.live_aws().await,
        ..backend::AppState::default()
    });

    let (status, listed) = post_json(
        &router,
        "/api/clusters",
        &serde_json::json!({"region": REGION}),
    )
    .await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["clusters"], serde_json::json!([cluster]));

    let (status, read) = post_json(
        &router,
        "/api/clusters/read",
        &serde_json::json!({"region": REGION, "cluster": cluster}),
    )
    .await;
    assert_eq!(status, 200, "{read}");
    let groups = read["spec"]["node_groups"].as_array().unwrap();
    let gpu = groups
        .iter()
        .find(|group| group["name"] == "p4de-odcr")
        .expect("the reserved group is read");
    assert_eq!(gpu["efa_enabled"], true);
    assert!(
        gpu["capacity"].to_string().contains("cr-0123456789abcdef0"),
        "the reservation is read from the launch template: {gpu}"
    );
    assert!(!read["not_read"].as_array().unwrap().is_empty());

    // The design as the page holds it, one group scaled: one update, no disruption.
    let mut design: serde_json::Value = serde_json::from_str(
        &shared::lint::parse_yaml_file(&std::fs::read_to_string(&file).unwrap())
            .unwrap()
            .spec
            .to_json(),
    )
    .unwrap();
    for group in design["node_groups"].as_array_mut().unwrap() {
        if group["name"] == "p4de-odcr" {
            group["desired_capacity"] = 1.into();
        }
    }
    let (status, plan) = post_json(
        &router,
        "/api/plan",
        &serde_json::json!({"region": REGION, "cluster": cluster, "spec": design}),
    )
    .await;
    assert_eq!(status, 200, "{plan}");
    assert_eq!(plan["changes"].as_array().unwrap().len(), 1, "{plan}");
    assert_eq!(plan["changes"][0]["action"], "update");
    assert_eq!(
        plan["changes"][0]["disruptive"], true,
        "scaling in drains a node: {plan}"
    );
    assert!(plan["not_compared"].as_array().is_some());

    let (status, missing) = post_json(
        &router,
        "/api/clusters/read",
        &serde_json::json!({"region": REGION, "cluster": "nowhere"}),
    )
    .await;
    assert_eq!(status, 404, "{missing}");
    let (status, bad) = post_json(
        &router,
        "/api/clusters/read",
        &serde_json::json!({"region": "mars-1", "cluster": "x"}),
    )
    .await;
    assert_eq!(status, 422, "{bad}");
}
