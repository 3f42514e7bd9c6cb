//! What the day-two tests share: the stand-in tools on `PATH`, the real `eks-studio`
//! binary pointed at the emulator, templates deployed by the eksctl stand-in, designs
//! changed and read back, servers with a deployer, Leases and training pods in the
//! emulator's cluster.

#![allow(dead_code)]

pub use std::path::{Path, PathBuf};
pub use std::process::{Command, Output};

pub use crate::emulator::{Emulator, REGION};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("eks-studio-running-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A directory where `eksctl`, `aws`, `kubectl` and `helm` are the stand-ins, to put
/// first on `PATH` (a read and an apply find them by name, as they find the real ones).
/// Each runs with the emulator's Python (boto3, PyYAML), so what it does changes the
/// emulator's state as the real tool changes AWS's.
pub fn stand_ins_on_path() -> std::ffi::OsString {
    use std::os::unix::fs::PermissionsExt;
    let bin = std::env::temp_dir().join(format!("eks-studio-running-{}-bin", std::process::id()));
    std::fs::create_dir_all(&bin).unwrap();
    let quoted = |path: &Path| format!("'{}'", path.display().to_string().replace('\'', r"'\''"));
    for tool in ["eksctl", "aws", "kubectl", "helm"] {
        let wrapper = bin.join(tool);
        if !wrapper.exists() {
            let partial = bin.join(format!(".{tool}.{:?}.partial", std::thread::current().id()));
            std::fs::write(
                &partial,
                format!(
                    "#!/bin/sh\nexec {} {} \"$@\"\n",
                    quoted(&studio_e2e::ec2_emulator::python()),
                    quoted(&root().join("tests/fixtures").join(tool))
                ),
            )
            .unwrap();
            std::fs::set_permissions(&partial, std::fs::Permissions::from_mode(0o755)).unwrap();
            std::fs::rename(&partial, &wrapper).unwrap();
        }
    }
    let mut path = std::ffi::OsString::from(bin);
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    path
}

/// The binary, pointed at the emulator with test credentials, the stand-ins of `aws` and
/// `kubectl` on its `PATH`.
pub fn eks_studio(emulator: &Emulator, args: &[&str]) -> Output {
    eks_studio_with(emulator, args, &[])
}

/// `eks_studio` with more environment (a stand-in told to fail).
pub fn eks_studio_with(emulator: &Emulator, args: &[&str], more: &[(&str, &str)]) -> Output {
    eks_studio_command(emulator, args, more)
        .output()
        .expect("eks-studio runs")
}

/// The command [`eks_studio_with`] runs, to start it and go on (`more` comes last, so it
/// may slow the stand-ins down).
pub fn eks_studio_command(emulator: &Emulator, args: &[&str], more: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_eks-studio"));
    command
        .args(args)
        .env("EKSCTL_STANDIN_DELAY_MS", "0")
        .env("PATH", stand_ins_on_path())
        .env("AWS_ENDPOINT_URL", &emulator.endpoint)
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("EKS_STUDIO_EC2_TIMEOUT_SECONDS", "30")
        .envs(more.iter().copied());
    command
}

/// `eks-studio read --cluster CLUSTER --region us-east-1 --out OUT`, which must succeed.
pub fn read_into(emulator: &Emulator, cluster: &str, out: &Path) -> Output {
    let read = eks_studio(
        emulator,
        &[
            "read",
            "--cluster",
            cluster,
            "--region",
            REGION,
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(read.status.code(), Some(0), "{}", text(&read.stderr));
    read
}

/// `eks-studio plan DESIGN --cluster CLUSTER --region us-east-1`, with `more` arguments.
pub fn plan_on(emulator: &Emulator, design: &Path, cluster: &str, more: &[&str]) -> Output {
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

/// Each change of a plan's JSON as (action, name).
pub fn actions_of(plan: &serde_json::Value) -> Vec<(String, String)> {
    plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|change| {
            (
                change["action"].as_str().unwrap().to_owned(),
                change["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The design in an eksctl file, as the page holds it (its `studio.json`).
pub fn design_json(file: &Path) -> serde_json::Value {
    let spec = shared::lint::parse_yaml_file(&std::fs::read_to_string(file).unwrap())
        .unwrap()
        .spec;
    serde_json::from_str(&spec.to_json()).unwrap()
}

/// The design a read wrote into `out` (its `studio.json`).
pub fn studio_json(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("studio.json")).unwrap()).unwrap()
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `eksctl create cluster -f FILE` by the stand-in, with the emulator's Python (boto3 and
/// PyYAML) so it makes the cluster in the emulator; its kubeconfig is written beside the
/// file (`FILE.kubeconfig`).
pub fn eksctl_create(emulator: &Emulator, file: &Path) {
    let output = Command::new(studio_e2e::ec2_emulator::python())
        .arg(root().join("tests/fixtures/eksctl"))
        .args(["create", "cluster", "-f"])
        .arg(file)
        .env("KUBECONFIG", file.with_extension("kubeconfig"))
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

/// The stand-in `tool` (`kubectl`, `helm`) with `args`, run by the emulator's Python
/// (PyYAML) on the cluster `eksctl_create` made from `design` (its kubeconfig).
pub fn standin(tool: &str, emulator: &Emulator, design: &Path, args: &[&str]) -> Output {
    Command::new(studio_e2e::ec2_emulator::python())
        .arg(root().join("tests/fixtures").join(tool))
        .args(args)
        .env("KUBECONFIG", design.with_extension("kubeconfig"))
        .env("AWS_ENDPOINT_URL", &emulator.endpoint)
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env(
            "EKSCTL_STANDIN_ARGV_LOG",
            design.with_extension(format!("{tool}-calls.jsonl")),
        )
        .output()
        .unwrap_or_else(|error| panic!("the {tool} stand-in does not run: {error}"))
}

/// `kubectl ARGS…` by the stand-in, with the emulator's Python (PyYAML), on the cluster
/// `eksctl_create` made from `design` (its kubeconfig). kubectl's standard output.
pub fn kubectl(emulator: &Emulator, design: &Path, args: &[&str]) -> String {
    let output = standin("kubectl", emulator, design, args);
    assert!(
        output.status.success(),
        "kubectl {} failed:\n{}",
        args.join(" "),
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// `kubectl apply -f FILE` on the cluster made from `design`: what the deploy's last step
/// does. kubectl's lines.
pub fn kubectl_apply(emulator: &Emulator, design: &Path, file: &Path) -> String {
    kubectl(emulator, design, &["apply", "-f", file.to_str().unwrap()])
}

/// `helm upgrade --install karpenter … --values FILE` by the stand-in, with the emulator's
/// Python (PyYAML), on the cluster `eksctl_create` made from `design`: the deploy's chart
/// install, its values kept in the emulator.
pub fn helm_install(emulator: &Emulator, design: &Path, values: &Path, irsa: bool, version: &str) {
    let mut command = Command::new(studio_e2e::ec2_emulator::python());
    command
        .arg(root().join("tests/fixtures/helm"))
        .args([
            "upgrade",
            "--install",
            "karpenter",
            "oci://public.ecr.aws/karpenter/karpenter",
            "--version",
            version,
            "--namespace",
            "kube-system",
            "--values",
        ])
        .arg(values)
        .arg("--wait");
    if irsa {
        command.args([
            "--set",
            r"serviceAccount.annotations.eks\.amazonaws\.com/role-arn=arn:aws:iam::123456789012:role/karpenter",
        ]);
    }
    let output = command
        .env("KUBECONFIG", design.with_extension("kubeconfig"))
        .env("AWS_ENDPOINT_URL", &emulator.endpoint)
        .env(
            "EKSCTL_STANDIN_ARGV_LOG",
            values.with_extension("calls.jsonl"),
        )
        .output()
        .expect("the helm stand-in runs");
    assert!(
        output.status.success(),
        "helm failed:\n{}",
        text(&output.stderr)
    );
}

/// The helm stand-in with `args` on the cluster made from `design`: its exit code, stdout
/// and stderr.
pub fn helm(emulator: &Emulator, design: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = standin("helm", emulator, design, args);
    (
        output.status.code(),
        text(&output.stdout),
        text(&output.stderr),
    )
}

/// Creates the template's cluster as its deploy does: eksctl, then Karpenter's chart with
/// helm and its objects with kubectl. The whole design (`studio.json`), the cluster's name and the design.
pub fn deployed_template(
    emulator: &Emulator,
    id: &str,
    dir: &Path,
) -> (PathBuf, String, shared::Spec) {
    deployed_design(emulator, id, dir, |_| {})
}

/// [`deployed_template`] of the template as `edit` changes it.
pub fn deployed_design(
    emulator: &Emulator,
    id: &str,
    dir: &Path,
    edit: impl FnOnce(&mut shared::Spec),
) -> (PathBuf, String, shared::Spec) {
    let (file, mut spec) = filled_design(emulator, id, dir);
    edit(&mut spec);
    std::fs::write(
        &file,
        shared::documents::render::render_cluster_yaml(&spec).unwrap(),
    )
    .unwrap();
    eksctl_create(emulator, &file);
    if let Some(values) = shared::documents::render::render_karpenter_values(&spec).unwrap() {
        let values_file = dir.join(format!("{id}-values.yaml"));
        std::fs::write(&values_file, values).unwrap();
        let irsa = spec.karpenter.as_ref().is_some_and(|karpenter| {
            karpenter.controller_identity == shared::model::spec::ControllerIdentity::Irsa
        });
        let release = spec.karpenter.as_ref().unwrap().release;
        helm_install(emulator, &file, &values_file, irsa, release.chart_version());
    }
    if let Some(objects) = shared::documents::render::render_karpenter_yaml(&spec).unwrap() {
        let objects_file = dir.join(format!("{id}-nodepools.yaml"));
        std::fs::write(&objects_file, objects).unwrap();
        kubectl_apply(emulator, &file, &objects_file);
    }
    // Auto Mode's pools and classes, as the deploy applies them once the cluster is up.
    if let Some(objects) = shared::documents::auto_mode::render(&spec).unwrap() {
        let objects_file = dir.join(format!("{id}-auto-mode.yaml"));
        std::fs::write(&objects_file, objects).unwrap();
        kubectl_apply(emulator, &file, &objects_file);
    }
    let design = dir.join(format!("{id}.studio.json"));
    std::fs::write(&design, serde_json::to_string(&spec).unwrap()).unwrap();
    (design, spec.cluster.name.clone(), spec)
}

/// A VPC with a public and a private subnet in each of two zones, tagged as EKS's docs
/// ask of an existing VPC, made with boto3 in the emulator; the ids by placeholder name.
pub fn existing_vpc(emulator: &Emulator) -> Vec<(&'static str, String)> {
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
pub fn filled_template(emulator: &Emulator, id: &str, dir: &Path) -> (PathBuf, String) {
    let (file, spec) = filled_design(emulator, id, dir);
    (file, spec.cluster.name)
}

/// The template's cluster.yaml (written) and its whole design, placeholders filled.
pub fn filled_design(emulator: &Emulator, id: &str, dir: &Path) -> (PathBuf, shared::Spec) {
    let spec = shared::template(id).unwrap().spec();
    let mut yaml = shared::documents::render::render_cluster_yaml(&spec).unwrap();
    let mut json = serde_json::to_string(&spec).unwrap();
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
        json = json.replace(placeholder, &value);
    }
    assert!(
        !yaml.contains("PLACEHOLDER_"),
        "template {id} has a placeholder this test does not fill:\n{yaml}"
    );
    let file = dir.join(format!("{id}.yaml"));
    std::fs::write(&file, &yaml).unwrap();
    (file, serde_json::from_str(&json).unwrap())
}

/// The deploy token of the servers these tests build: reads and plans of running
/// clusters need it as deploys and applies do.
pub const API_TOKEN: &str = "apply-token-0123456789abcdef";

/// A server's deploys as far as the cluster routes go: the token, nothing deployed.
pub fn reads_only() -> backend::deploy::Deploys {
    backend::deploy::Deploys::Unavailable(backend::deploy::DeploysUnavailable {
        reason: "these tests read and plan only".into(),
        token: backend::deploy::DeployToken::new(API_TOKEN).unwrap(),
    })
}

/// POSTs `body` with the deploy token.
pub async fn post_json(
    router: &axum::Router,
    uri: &str,
    body: &serde_json::Value,
) -> (axum::http::StatusCode, serde_json::Value) {
    post_json_as(router, uri, body, Some(API_TOKEN)).await
}

/// POSTs `body`, with `token` as the bearer when given.
pub async fn post_json_as(
    router: &axum::Router,
    uri: &str,
    body: &serde_json::Value,
    token: Option<&str>,
) -> (axum::http::StatusCode, serde_json::Value) {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let mut request = axum::http::Request::builder()
        .method("POST")
        .uri(uri)
        .header("content-type", "application/json");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let response = router
        .clone()
        .oneshot(
            request
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

/// The median of `samples`.
pub fn median(mut samples: Vec<std::time::Duration>) -> std::time::Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// A design changed four ways against a cluster eksctl made: a group scaled and labelled
/// in place, a group added, a group whose type changed (replaced: drained), an access
/// entry added.
pub fn changed_design(file: &Path, dir: &Path) -> PathBuf {
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let groups = design["managedNodeGroups"].as_sequence_mut().unwrap();
    for group in groups.iter_mut() {
        if group["name"] == "g4dn" {
            group["desiredCapacity"] = 3.into();
            group["maxSize"] = 4.into();
            group["labels"] = yaml_serde::from_str("{team: vision}").unwrap();
        }
        if group["name"] == "sys" {
            group["instanceType"] = "m5.2xlarge".into();
        }
    }
    groups.push(
        yaml_serde::from_str(
            "{name: infer, instanceType: g5.xlarge, spot: true, minSize: 0, maxSize: 4, desiredCapacity: 1, privateNetworking: true}",
        )
        .unwrap(),
    );
    let entry: yaml_serde::Value = yaml_serde::from_str(
        "{principalARN: 'arn:aws:iam::123456789012:role/ml-team', kubernetesGroups: [ml]}",
    )
    .unwrap();
    match design["accessConfig"]["accessEntries"].as_sequence_mut() {
        Some(entries) => entries.push(entry),
        None => design["accessConfig"]["accessEntries"] = yaml_serde::Value::Sequence(vec![entry]),
    }
    let changed = dir.join("changed.yaml");
    std::fs::write(&changed, yaml_serde::to_string(&design).unwrap()).unwrap();
    changed
}

/// The argument vectors the stand-ins were run with to change the cluster, from their
/// call log: not the reads (`get`, a kubeconfig for a read).
pub fn calls_in(log: &Path) -> Vec<Vec<String>> {
    all_calls_in(log)
        .into_iter()
        .filter(|argv| {
            let read = matches!(
                argv.get(1).map(String::as_str),
                Some("get" | "version" | "list")
            );
            let read_kubeconfig = argv.get(2).is_some_and(|word| word == "update-kubeconfig")
                && argv.iter().any(|word| word.contains("eks-studio-read-"));
            // The apply lock's writes of its Lease.
            let lock = argv
                .iter()
                .any(|word| word.contains("/lease-create-") || word.contains("/lease-replace-"));
            !(read || read_kubeconfig || lock)
        })
        .collect()
}

/// Every argument vector the stand-ins were run with, from their call log.
pub fn all_calls_in(log: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|call| {
            let argv = call["argv"].as_array()?;
            let mut words: Vec<String> = argv
                .iter()
                .map(|word| word.as_str().unwrap_or_default().to_owned())
                .collect();
            words[0] = call["tool"].as_str()?.to_owned();
            Some(words)
        })
        .collect()
}

/// `apply` with `--auto-approve --allow-disruption` of `design` on `cluster`: it must
/// succeed. The stand-ins' calls that changed the cluster, in order.
pub fn applied(emulator: &Emulator, design: &Path, cluster: &str, dir: &Path) -> Vec<Vec<String>> {
    std::fs::create_dir_all(dir).unwrap();
    let calls = dir.join("applied-calls.jsonl");
    let output = eks_studio_with(
        emulator,
        &[
            "apply",
            design.to_str().unwrap(),
            "--cluster",
            cluster,
            "--region",
            REGION,
            "--auto-approve",
            "--allow-disruption",
        ],
        &[("EKSCTL_STANDIN_ARGV_LOG", calls.to_str().unwrap())],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    let after = plan_on(emulator, design, cluster, &[]);
    assert_eq!(after.status.code(), Some(0), "{}", text(&after.stdout));
    calls_in(&calls)
}

/// A wrapper script in `bin` that runs `command…` with the emulator's endpoint and test
/// credentials in its environment, as a server's tools would find AWS's; its path.
pub fn pointed_at_emulator(
    emulator: &Emulator,
    bin: &Path,
    name: &str,
    command: &[&Path],
) -> PathBuf {
    pointed_at_emulator_with(emulator, bin, name, command, "")
}

/// Like [`pointed_at_emulator`], exporting `more` (`NAME=value …`) as well.
pub fn pointed_at_emulator_with(
    emulator: &Emulator,
    bin: &Path,
    name: &str,
    command: &[&Path],
    more: &str,
) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let quoted = |path: &Path| format!("'{}'", path.display().to_string().replace('\'', r"'\''"));
    let words: Vec<String> = command.iter().map(|path| quoted(path)).collect();
    let path = bin.join(name);
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nexport AWS_ENDPOINT_URL='{}' AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing EKSCTL_STANDIN_DELAY_MS=0 {more}\nexec {} \"$@\"\n",
            emulator.endpoint,
            words.join(" ")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A request to `router` with the deploy token; the status and JSON answer.
pub async fn call_with_token(
    router: &axum::Router,
    method: &str,
    path: &str,
    body: Option<&serde_json::Value>,
    token: &str,
) -> (u16, serde_json::Value) {
    use tower::ServiceExt;
    let request = axum::http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {token}"))
        .body(axum::body::Body::from(
            body.map(ToString::to_string).unwrap_or_default(),
        ))
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await
        .unwrap()
        .to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null),
    )
}

/// What the emulator holds for a cluster, by boto3: the subnets of a node group, the
/// security group EKS made for the cluster (with its VPC and whether a rule lets its members
/// reach each other on every port), and the VPC of each subnet.
pub fn cluster_network(emulator: &Emulator, cluster: &str, group: &str) -> serde_json::Value {
    const SCRIPT: &str = r#"
import json, sys, boto3
endpoint, cluster, group = sys.argv[1:4]
kw = dict(region_name="us-east-1", endpoint_url=endpoint,
          aws_access_key_id="testing", aws_secret_access_key="testing")
ec2, eks = boto3.client("ec2", **kw), boto3.client("eks", **kw)
subnets = eks.describe_nodegroup(clusterName=cluster, nodegroupName=group)["nodegroup"]["subnets"]
described = ec2.describe_subnets(SubnetIds=subnets)["Subnets"]
sg = ec2.describe_security_groups(
    Filters=[{"Name": "tag:aws:eks:cluster-name", "Values": [cluster]}])["SecurityGroups"][0]
members = any(rule["IpProtocol"] == "-1" and any(pair["GroupId"] == sg["GroupId"]
              for pair in rule.get("UserIdGroupPairs", [])) for rule in sg["IpPermissions"])
print(json.dumps({"subnets": subnets, "zones": [s["AvailabilityZone"] for s in described],
                  "vpcs": [s["VpcId"] for s in described], "group": sg["GroupId"],
                  "group_vpc": sg["VpcId"], "members_reach_each_other": members}))
"#;
    let output = Command::new(studio_e2e::ec2_emulator::python())
        .args(["-c", SCRIPT, &emulator.endpoint, cluster, group])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The cluster's apply lock (its Lease), as kubectl reads it on the cluster made from
/// `file`; `None` when there is none yet.
pub fn read_lease(emulator: &Emulator, file: &Path) -> Option<serde_json::Value> {
    let output = standin(
        "kubectl",
        emulator,
        file,
        &[
            "get",
            "lease",
            "eks-studio-apply",
            "-n",
            "kube-system",
            "-o",
            "json",
        ],
    );
    if !output.status.success() {
        assert!(
            text(&output.stderr).contains("(NotFound)"),
            "{}",
            text(&output.stderr)
        );
        return None;
    }
    Some(serde_json::from_slice(&output.stdout).unwrap())
}

/// Waits (up to a minute) until the Lease names a holder, and answers it.
pub fn held_lease(emulator: &Emulator, file: &Path) -> serde_json::Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        if let Some(lease) = read_lease(emulator, file)
            && lease["spec"]["holderIdentity"]
                .as_str()
                .is_some_and(|holder| !holder.is_empty())
        {
            return lease;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no one took the cluster's lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The eksctl file of `file`'s design with its g4dn group's sizes (and an access entry for
/// `role`, when given): a plan of an update in place, and of a creation before it.
pub fn resized(
    file: &Path,
    dir: &Path,
    name: &str,
    desired: u32,
    max: u32,
    role: Option<&str>,
) -> PathBuf {
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    for group in design["managedNodeGroups"].as_sequence_mut().unwrap() {
        if group["name"] == "g4dn" {
            group["desiredCapacity"] = desired.into();
            group["maxSize"] = max.into();
        }
    }
    if let Some(role) = role {
        let entry: yaml_serde::Value = yaml_serde::from_str(&format!(
            "{{principalARN: 'arn:aws:iam::123456789012:role/{role}', kubernetesGroups: [ml]}}"
        ))
        .unwrap();
        match design["accessConfig"]["accessEntries"].as_sequence_mut() {
            Some(entries) => entries.push(entry),
            None => {
                design["accessConfig"]["accessEntries"] = yaml_serde::Value::Sequence(vec![entry])
            }
        }
    }
    let out = dir.join(format!("{name}.yaml"));
    std::fs::write(&out, yaml_serde::to_string(&design).unwrap()).unwrap();
    out
}

/// `bash DIR/apply.sh` with the stand-ins on `PATH`, pointed at the emulator.
pub fn apply_sh(emulator: &Emulator, bundle: &Path) -> Output {
    Command::new("bash")
        .arg(bundle.join("apply.sh"))
        .env("PATH", stand_ins_on_path())
        .env("AWS_ENDPOINT_URL", &emulator.endpoint)
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("EKSCTL_STANDIN_DELAY_MS", "0")
        .output()
        .expect("bash runs apply.sh")
}

/// Owned arguments as the `&str`s a command takes.
pub fn words(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// The API with deploys on a fresh data directory in `dir`, its tools the stand-ins
/// pointed at the emulator, and the deploy token [`API_TOKEN`].
pub async fn api_with_deployer(emulator: &Emulator, dir: &Path) -> axum::Router {
    api_with_deployer_and(emulator, dir, "").await
}

/// [`api_with_deployer`], its tools exporting `more` (`NAME=value …`) as well.
pub async fn api_with_deployer_and(emulator: &Emulator, dir: &Path, more: &str) -> axum::Router {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let python = studio_e2e::ec2_emulator::python();
    let tool = |name: &str| {
        pointed_at_emulator_with(
            emulator,
            &bin,
            name,
            &[&python, &root().join("tests/fixtures").join(name)],
            more,
        )
    };
    let tools = backend::deploy::Tools {
        eksctl: tool("eksctl"),
        aws: tool("aws"),
        kubectl: tool("kubectl"),
        helm: tool("helm"),
    };
    let mut config = backend::deploy::DeployConfig::new(
        dir.join("data"),
        tools.clone(),
        backend::deploy::DeployToken::new(API_TOKEN).unwrap(),
    );
    config.studio = pointed_at_emulator(
        emulator,
        &bin,
        "eks-studio",
        &[Path::new(env!("CARGO_BIN_EXE_eks-studio"))],
    );
    let deployer = backend::deploy::Deployer::open(config).unwrap();
    backend::app(backend::AppState {
        aws: emulator.live_aws().await,
        deploys: backend::deploy::Deploys::Enabled(deployer),
        tools,
        ..backend::AppState::default()
    })
}

/// A PyTorchJob named `job` with a worker on each node of the group `group` of the cluster
/// made from `file`, applied as kubectl applies it.
pub fn land_training(emulator: &Emulator, file: &Path, dir: &Path, group: &str, job: &str) {
    let nodes: serde_json::Value =
        serde_json::from_str(&kubectl(emulator, file, &["get", "nodes", "-o", "json"])).unwrap();
    let on_group: Vec<&str> = nodes["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|node| node["metadata"]["labels"]["eks.amazonaws.com/nodegroup"] == group)
        .map(|node| node["metadata"]["name"].as_str().unwrap())
        .collect();
    let pods = dir.join(format!("{job}-pods.yaml"));
    std::fs::write(&pods, training_pods(&on_group, job)).unwrap();
    kubectl_apply(emulator, file, &pods);
}

/// Two workers of a PyTorchJob, one on each of `nodes`: the training run a drain stops.
pub fn training_pods(nodes: &[&str], job: &str) -> String {
    nodes
        .iter()
        .enumerate()
        .map(|(index, node)| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {job}-worker-{index}\n  namespace: training\n  labels: {{training.kubeflow.org/job-name: {job}}}\n  ownerReferences: [{{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: {job}, uid: 9, controller: true}}]\nspec:\n  nodeName: {node}\n  containers:\n  - name: main\n    image: public.ecr.aws/docker/library/busybox:latest\n    resources: {{limits: {{nvidia.com/gpu: 1}}}}\n"
            )
        })
        .collect::<Vec<_>>()
        .join("---\n")
}

/// The design of `file` with an access entry more (made first, and slowly when the
/// stand-in is slowed) and its GPU group on a larger type (replaced, its drain last).
pub fn entry_then_replacement(file: &Path, dir: &Path) -> PathBuf {
    let changed = dir.join("changed.yaml");
    std::fs::write(
        &changed,
        std::fs::read_to_string(resized(file, dir, "entry", 2, 10, Some("late-team")))
            .unwrap()
            .replace("g4dn.8xlarge", "g4dn.12xlarge"),
    )
    .unwrap();
    changed
}
