//! Day two against the emulator: a design is created by the eksctl stand-in (which makes in
//! moto's EC2 and EKS what eksctl makes in AWS), read back with `eks-studio read`, and
//! planned against with `eks-studio plan` — the real binary, the real emulator.

mod deploy_support;
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

/// A directory where `eksctl`, `aws`, `kubectl` and `helm` are the stand-ins, to put
/// first on `PATH` (a read and an apply find them by name, as they find the real ones).
/// Each runs with the emulator's Python (boto3, PyYAML), so what it does changes the
/// emulator's state as the real tool changes AWS's.
fn stand_ins_on_path() -> std::ffi::OsString {
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
fn eks_studio(emulator: &Emulator, args: &[&str]) -> Output {
    eks_studio_with(emulator, args, &[])
}

/// `eks_studio` with more environment (a stand-in told to fail).
fn eks_studio_with(emulator: &Emulator, args: &[&str], more: &[(&str, &str)]) -> Output {
    eks_studio_command(emulator, args, more)
        .output()
        .expect("eks-studio runs")
}

/// The command [`eks_studio_with`] runs, to start it and go on (`more` comes last, so it
/// may slow the stand-ins down).
fn eks_studio_command(emulator: &Emulator, args: &[&str], more: &[(&str, &str)]) -> Command {
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
fn read_into(emulator: &Emulator, cluster: &str, out: &Path) -> Output {
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

/// Each change of a plan's JSON as (action, name).
fn actions_of(plan: &serde_json::Value) -> Vec<(String, String)> {
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
fn design_json(file: &Path) -> serde_json::Value {
    let spec = shared::lint::parse_yaml_file(&std::fs::read_to_string(file).unwrap())
        .unwrap()
        .spec;
    serde_json::from_str(&spec.to_json()).unwrap()
}

/// The design a read wrote into `out` (its `studio.json`).
fn studio_json(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("studio.json")).unwrap()).unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `eksctl create cluster -f FILE` by the stand-in, with the emulator's Python (boto3 and
/// PyYAML) so it makes the cluster in the emulator; its kubeconfig is written beside the
/// file (`FILE.kubeconfig`).
fn eksctl_create(emulator: &Emulator, file: &Path) {
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
fn standin(tool: &str, emulator: &Emulator, design: &Path, args: &[&str]) -> Output {
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
fn kubectl(emulator: &Emulator, design: &Path, args: &[&str]) -> String {
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
fn kubectl_apply(emulator: &Emulator, design: &Path, file: &Path) -> String {
    kubectl(emulator, design, &["apply", "-f", file.to_str().unwrap()])
}

/// `helm upgrade --install karpenter … --values FILE` by the stand-in, with the emulator's
/// Python (PyYAML), on the cluster `eksctl_create` made from `design`: the deploy's chart
/// install, its values kept in the emulator.
fn helm_install(emulator: &Emulator, design: &Path, values: &Path, irsa: bool, version: &str) {
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
fn helm(emulator: &Emulator, design: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = standin("helm", emulator, design, args);
    (
        output.status.code(),
        text(&output.stdout),
        text(&output.stderr),
    )
}

/// `helm uninstall` removes the release, as helm does: it is no longer listed and its
/// values cannot be read; uninstalling it again fails with helm's words, unless
/// `--ignore-not-found`, which the teardown's steps pass.
#[test]
fn the_helm_stand_in_uninstalls_a_release_as_helm_does() {
    let emulator = Emulator::start();
    let dir = temp_dir("helm-uninstall");
    deployed_template(&emulator, "karpenter-spot-inference", &dir);
    // The cluster's file, beside which the deploy's kubeconfig is.
    let design = dir.join("karpenter-spot-inference.yaml");
    let list = ["list", "--namespace", "kube-system", "--output", "json"];
    let (code, listed, _) = helm(&emulator, &design, &list);
    assert_eq!(code, Some(0));
    assert!(listed.contains("\"name\": \"karpenter\""), "{listed}");

    let uninstall = [
        "uninstall",
        "karpenter",
        "--namespace",
        "kube-system",
        "--wait",
    ];
    let (code, said, _) = helm(&emulator, &design, &uninstall);
    assert_eq!(code, Some(0));
    assert_eq!(said.trim(), "release \"karpenter\" uninstalled");
    let (_, listed, _) = helm(&emulator, &design, &list);
    assert_eq!(listed.trim(), "[]");
    let values = [
        "get",
        "values",
        "karpenter",
        "--namespace",
        "kube-system",
        "--output",
        "json",
    ];
    assert_eq!(helm(&emulator, &design, &values).0, Some(1));

    let (code, _, error) = helm(&emulator, &design, &uninstall);
    assert_eq!(code, Some(1));
    assert_eq!(
        error.trim(),
        "Error: uninstall: Release not loaded: karpenter: release: not found"
    );
    let ignoring = [&uninstall[..], &["--ignore-not-found"]].concat();
    assert_eq!(helm(&emulator, &design, &ignoring).0, Some(0));
}

/// Creates the template's cluster as its deploy does: eksctl, then Karpenter's chart with
/// helm and its objects with kubectl. The whole design (`studio.json`), the cluster's name and the design.
fn deployed_template(emulator: &Emulator, id: &str, dir: &Path) -> (PathBuf, String, shared::Spec) {
    deployed_design(emulator, id, dir, |_| {})
}

/// [`deployed_template`] of the template as `edit` changes it.
fn deployed_design(
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
    let (file, spec) = filled_design(emulator, id, dir);
    (file, spec.cluster.name)
}

/// The template's cluster.yaml (written) and its whole design, placeholders filled.
fn filled_design(emulator: &Emulator, id: &str, dir: &Path) -> (PathBuf, shared::Spec) {
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

#[test]
fn every_template_created_by_eksctl_reads_back_with_no_changes() {
    let emulator = Emulator::start();
    let dir = temp_dir("round-trip");
    let mut failures = Vec::new();
    for template in shared::TEMPLATES {
        let (file, cluster, _) = deployed_template(&emulator, template.id, &dir);
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
        // Karpenter's objects and chart values are read from the cluster: not a gap.
        assert!(
            !said.contains("not read: Karpenter's") && !said.contains("Karpenter's installation"),
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
    let read = read_into(&emulator, &cluster, &out);
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
    // The entry EKS made for the cluster's creator is read as it is.
    assert!(
        cluster_yaml.contains("principalARN: arn:aws:iam::123456789012:user/moto"),
        "{cluster_yaml}"
    );
    assert!(text(&read.stderr).contains(
        "not read: every managed node group: what eksctl wrote into its launch template"
    ));

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
        change("g4dn")["steps"][0]["args"]
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
        !plan["not_read"]
            .as_array()
            .unwrap()
            .iter()
            .any(|gap| gap["what"].as_str().unwrap().contains("Karpenter")),
        "a cluster without Karpenter has none of its objects, which is no gap: {plan}"
    );

    // The human plan keeps its lines.
    let human = plan_on(&emulator, &changed, &cluster, &[]);
    let said = text(&human.stdout);
    assert!(
        said.contains("\n-/+ nodegroup sys (instanceType)\n"),
        "{said}"
    );
    assert!(said.contains("Plan: 1 to create, 1 to update, 1 to replace, 0 to delete"));
    // … and a plan does not remove it: it is the creator's, said so.
    assert!(
        said.contains("not compared: the access entry of arn:aws:iam::123456789012:user/moto (taken as the cluster creator's"),
        "{said}"
    );
}

#[test]
fn a_self_managed_group_whose_nodes_run_is_named_as_not_read_and_left_alone_by_the_plan() {
    let emulator = Emulator::start();
    let dir = temp_dir("self-managed");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    // Two nodes of an eksctl self-managed group (`nodeGroups`), registered as its kubelets
    // label them; EKS does not list such a group.
    let node = |index: u32| {
        format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: ip-10-9-9-{index}.{REGION}.compute.internal\n  labels:\n    alpha.eksctl.io/cluster-name: {cluster}\n    alpha.eksctl.io/nodegroup-name: legacy-cpu\n    node.kubernetes.io/instance-type: m5.large\n"
        )
    };
    let nodes_file = dir.join("nodes.yaml");
    std::fs::write(&nodes_file, format!("{}---\n{}", node(1), node(2))).unwrap();
    kubectl_apply(&emulator, &file, &nodes_file);

    let plan = plan_on(&emulator, &file, &cluster, &["--format", "json"]);
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", text(&plan.stderr)));
    let gaps: Vec<&str> = plan["not_read"]
        .as_array()
        .unwrap()
        .iter()
        .map(|gap| gap["what"].as_str().unwrap())
        .collect();
    assert!(
        gaps.contains(&"self-managed node group legacy-cpu (2 nodes run)"),
        "{plan:#}"
    );
    // The managed groups EKS listed are not taken for self-managed ones.
    assert_eq!(
        gaps.iter()
            .filter(|gap| gap.starts_with("self-managed"))
            .count(),
        1,
        "{plan:#}"
    );
    let why = plan["not_read"]
        .as_array()
        .unwrap()
        .iter()
        .find(|gap| gap["what"] == "self-managed node group legacy-cpu (2 nodes run)")
        .unwrap()["why"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        why.contains(&format!("eksctl-{cluster}-nodegroup-legacy-cpu")),
        "{why}"
    );
    // Nothing is planned for it: the design does not hold it, and the plan does not delete
    // what it could not read.
    assert!(
        !plan["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|change| change.to_string().contains("legacy-cpu")),
        "{plan:#}"
    );
}

/// eksctl's self-managed groups (`nodeGroups`) live in CloudFormation stacks, not in EKS:
/// the read takes each from its stack's template (type, volume, EFA, the labels and
/// taints in the node's user data) and its Auto Scaling group (the sizes now, which
/// `eksctl scale nodegroup` changes without the stack); the plan scales, creates and
/// deletes them with eksctl's commands, and apply leaves nothing to plan.
#[test]
fn self_managed_groups_are_read_from_their_stacks_then_scaled_created_and_deleted() {
    let emulator = Emulator::start();
    let dir = temp_dir("self-managed-stacks");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    design["nodeGroups"] = yaml_serde::from_str(
        r#"
- name: build
  instanceType: m5.xlarge
  minSize: 1
  desiredCapacity: 2
  maxSize: 3
  volumeSize: 120
  privateNetworking: true
  labels: {role: build, tier: "2"}
  taints:
    - {key: dedicated, value: build, effect: NoSchedule}
  iam:
    withAddonPolicies: {imageBuilder: true}
- name: legacy
  instanceType: c5.large
  availabilityZones: [us-east-1b]
  taints:
    legacy: "true:NoSchedule"
"#,
    )
    .unwrap();
    std::fs::write(&file, yaml_serde::to_string(&design).unwrap()).unwrap();
    eksctl_create(&emulator, &file);

    let out = dir.join("read");
    let read = read_into(&emulator, &cluster, &out);
    let document: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(out.join("cluster.yaml")).unwrap()).unwrap();
    let groups = document["nodeGroups"]
        .as_sequence()
        .unwrap_or_else(|| panic!("no nodeGroups read: {}", text(&read.stderr)));
    let group = |name: &str| {
        groups
            .iter()
            .find(|group| group["name"] == name)
            .unwrap_or_else(|| panic!("{name} is not read: {document:?}"))
    };
    let build = group("build");
    assert_eq!(build["instanceType"], "m5.xlarge");
    assert_eq!(
        (
            &build["minSize"],
            &build["desiredCapacity"],
            &build["maxSize"]
        ),
        (
            &yaml_serde::Value::from(1),
            &yaml_serde::Value::from(2),
            &yaml_serde::Value::from(3)
        )
    );
    assert_eq!(build["volumeSize"], 120);
    assert_eq!(build["privateNetworking"], true);
    assert_eq!(build["labels"]["role"], "build");
    assert_eq!(build["taints"][0]["effect"], "NoSchedule");
    assert_eq!(build["amiFamily"], "AmazonLinux2023");
    // eksctl's defaults: minSize 2, no desired given so the group's is its minimum.
    let legacy = group("legacy");
    assert_eq!(legacy["desiredCapacity"], 2);
    assert_eq!(legacy["availabilityZones"][0], "us-east-1b");
    assert_eq!(legacy["taints"][0]["key"], "legacy");
    assert!(
        !text(&read.stderr).contains("self-managed node group build"),
        "everything the design said of it is read or named: {}",
        text(&read.stderr)
    );

    // The unchanged design: no changes; what the stack does not hold is named.
    let same = plan_on(&emulator, &file, &cluster, &["--format", "json"]);
    let same_plan: serde_json::Value = serde_json::from_slice(&same.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", text(&same.stderr)));
    assert_eq!(same.status.code(), Some(0), "{same_plan:#}");
    assert!(
        same_plan["not_compared"]
            .as_array()
            .unwrap()
            .iter()
            .any(|line| line
                .as_str()
                .unwrap()
                .starts_with("self-managed node group build: iam")),
        "{same_plan:#}"
    );

    // eksctl scaled the group outside the design: the read sees the Auto Scaling group's
    // sizes, not the stack's.
    let scaled = standin(
        "eksctl",
        &emulator,
        &file,
        &[
            "scale",
            "nodegroup",
            "--cluster",
            &cluster,
            "--region",
            REGION,
            "--name",
            "build",
            "--nodes=3",
        ],
    );
    assert_eq!(scaled.status.code(), Some(0), "{}", text(&scaled.stderr));
    let drifted = plan_on(&emulator, &file, &cluster, &["--format", "json"]);
    let drifted: serde_json::Value = serde_json::from_slice(&drifted.stdout).unwrap();
    let changes = drifted["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{drifted:#}");
    assert_eq!(changes[0]["name"], "build");
    assert_eq!(changes[0]["action"], "update");
    assert!(
        changes[0]["disruption"]
            .as_str()
            .unwrap()
            .contains("from 3 to 2 nodes: the Auto Scaling group terminates 1 of them, undrained"),
        "{drifted:#}"
    );

    // A changed design: build scaled to 3, legacy gone, a new group, and a label changed on
    // the new group's neighbour (a replacement, eksctl changes only sizes).
    let groups = design["nodeGroups"].as_sequence_mut().unwrap();
    groups.retain(|group| group["name"] != "legacy");
    groups[0]["desiredCapacity"] = 3.into();
    groups.push(
        yaml_serde::from_str("{name: tools, instanceType: t3.large, desiredCapacity: 1}").unwrap(),
    );
    let changed = dir.join("changed.yaml");
    std::fs::write(&changed, yaml_serde::to_string(&design).unwrap()).unwrap();
    let plan = plan_on(&emulator, &changed, &cluster, &["--format", "json"]);
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let action = |name: &str| {
        plan["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|change| change["name"] == name)
            .map(|change| change["action"].as_str().unwrap().to_owned())
    };
    assert_eq!(action("tools").as_deref(), Some("create"), "{plan:#}");
    assert_eq!(action("legacy").as_deref(), Some("delete"), "{plan:#}");
    assert_eq!(action("build"), None, "build is at 3 already: {plan:#}");

    let mut relabelled = design.clone();
    relabelled["nodeGroups"][0]["labels"]["role"] = "ci".into();
    let relabelled_file = dir.join("relabelled.yaml");
    std::fs::write(
        &relabelled_file,
        yaml_serde::to_string(&relabelled).unwrap(),
    )
    .unwrap();
    let replace = plan_on(&emulator, &relabelled_file, &cluster, &["--format", "json"]);
    let replace: serde_json::Value = serde_json::from_slice(&replace.stdout).unwrap();
    let build_change = replace["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|change| change["name"] == "build")
        .unwrap_or_else(|| panic!("{replace:#}"));
    assert_eq!(build_change["action"], "replace", "{replace:#}");
    assert_eq!(build_change["fields"], serde_json::json!(["labels"]));

    // Applied, the cluster reads back as the design: `applied` plans again and wants none.
    let calls = applied(&emulator, &changed, &cluster, &dir.join("apply"));
    let eksctl: Vec<String> = calls
        .iter()
        .filter(|call| call[0].ends_with("eksctl"))
        .map(|call| call[1..3].join(" "))
        .collect();
    assert_eq!(
        eksctl,
        ["create nodegroup", "delete nodegroup"],
        "{calls:?}"
    );
}

#[test]
fn a_plan_names_the_running_jobs_a_drain_would_stop_and_whether_a_budget_guards_them() {
    let emulator = Emulator::start();
    let dir = temp_dir("workloads");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);

    // The nodes the node groups launched, as the cluster lists them.
    let nodes: serde_json::Value =
        serde_json::from_str(&kubectl(&emulator, &file, &["get", "nodes", "-o", "json"])).unwrap();
    let gpu_nodes: Vec<&str> = nodes["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|node| node["metadata"]["labels"]["eks.amazonaws.com/nodegroup"] == "g4dn")
        .map(|node| node["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(gpu_nodes.len(), 2, "the g4dn group's desired size: {nodes}");

    // A training run of two workers on the GPU nodes, a web server beside it, and a
    // DaemonSet's pod, which a drain leaves.
    let pod = |namespace: &str, name: &str, node: &str, owner: &str, labels: &str, gpus: u32| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: {namespace}\n  labels: {labels}\n  ownerReferences: [{owner}]\nspec:\n  nodeName: {node}\n  containers:\n  - name: main\n    image: public.ecr.aws/docker/library/busybox:latest\n    resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}\n"
        )
    };
    let job =
        "{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: llama, uid: 1, controller: true}";
    let job_labels = "{training.kubeflow.org/job-name: llama}";
    let pods = [
        pod("training", "llama-worker-0", gpu_nodes[0], job, job_labels, 1),
        pod("training", "llama-worker-1", gpu_nodes[1], job, job_labels, 1),
        pod(
            "default",
            "web-5d8f9c7b6-abcde",
            gpu_nodes[0],
            "{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f9c7b6, uid: 2, controller: true}",
            "{app: web, pod-template-hash: 5d8f9c7b6}",
            0,
        ),
        pod(
            "kube-system",
            "aws-node-x1y2z",
            gpu_nodes[1],
            "{apiVersion: apps/v1, kind: DaemonSet, name: aws-node, uid: 3, controller: true}",
            "{k8s-app: aws-node}",
            0,
        ),
    ]
    .join("---\n");
    let pods_file = dir.join("pods.yaml");
    std::fs::write(&pods_file, pods).unwrap();
    kubectl_apply(&emulator, &file, &pods_file);

    // The GPU group's instance type changes: a replacement, which drains its nodes.
    let design = std::fs::read_to_string(&file)
        .unwrap()
        .replace("g4dn.8xlarge", "g4dn.12xlarge");
    let changed = dir.join("changed.yaml");
    std::fs::write(&changed, design).unwrap();
    let planned = |what: &str| -> serde_json::Value {
        let plan = plan_on(&emulator, &changed, &cluster, &["--format", "json"]);
        assert_eq!(
            plan.status.code(),
            Some(1),
            "{what}: {}",
            text(&plan.stderr)
        );
        serde_json::from_slice(&plan.stdout).unwrap()
    };
    let plan = planned("no budget");
    let change = plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|change| change["name"] == "g4dn")
        .unwrap_or_else(|| panic!("{plan}"))
        .clone();
    assert_eq!(change["action"], "replace", "{plan}");
    let disruption = change["disruption"].as_str().unwrap();
    assert!(
        disruption.contains("on its 2 nodes now: PyTorchJob training/llama (2 pods, 2 nvidia.com/gpu), Deployment default/web (1 pod)"),
        "{disruption}"
    );
    assert!(!disruption.contains("aws-node"), "{disruption}");
    assert_eq!(change["workloads"][0]["training"], true, "{change}");
    assert!(change["workloads"][0]["budget"].is_null(), "{change}");
    let unguarded: Vec<&serde_json::Value> = plan["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["rule"] == "change-drains-unguarded-training")
        .collect();
    assert_eq!(unguarded.len(), 1, "{plan}");
    assert_eq!(unguarded[0]["path"], "node_groups[g4dn]");
    assert!(
        unguarded[0]["message"]
            .as_str()
            .unwrap()
            .contains("PyTorchJob training/llama"),
        "{plan}"
    );
    // The human plan says it under the change.
    let human = text(&plan_on(&emulator, &changed, &cluster, &[]).stdout);
    assert!(
        human.contains("PyTorchJob training/llama (2 pods"),
        "{human}"
    );

    // A PodDisruptionBudget over the run's pods: named, and no advice.
    let budget = dir.join("budget.yaml");
    std::fs::write(
        &budget,
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: llama\n  namespace: training\nspec:\n  minAvailable: 2\n  selector:\n    matchExpressions:\n    - {key: training.kubeflow.org/job-name, operator: In, values: [llama]}\n",
    )
    .unwrap();
    kubectl_apply(&emulator, &file, &budget);
    let plan = planned("a budget");
    let change = plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|change| change["name"] == "g4dn")
        .unwrap()
        .clone();
    assert_eq!(
        change["workloads"][0]["budget"], "training/llama",
        "{change}"
    );
    assert!(
        !plan["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|finding| finding["rule"] == "change-drains-unguarded-training"),
        "{plan}"
    );
}

#[test]
fn auto_mode_pools_are_read_as_kubectl_applied_them_and_a_changed_pool_is_planned() {
    let emulator = Emulator::start();
    let dir = temp_dir("auto-mode");
    let (design, cluster, spec) = deployed_template(&emulator, "auto-mode-reserved-training", &dir);
    assert!(!spec.auto_mode_pools.node_pools.is_empty());
    // Read back: the pools as applied, in the bundle's Auto Mode file.
    let out = dir.join("read");
    let read = read_into(&emulator, &cluster, &out);
    let pools = std::fs::read_to_string(out.join("auto-mode/nodepools.yaml"))
        .unwrap_or_else(|error| panic!("{error}: {}\n{}", text(&read.stdout), text(&read.stderr)));
    let pool = &spec.auto_mode_pools.node_pools[0].metadata.name;
    assert!(pools.contains(&format!("name: {pool}")), "{pools}");
    assert!(
        !text(&read.stderr).contains("Auto Mode's NodePools and NodeClasses"),
        "{}",
        text(&read.stderr)
    );

    // A pool's limits tightened in the design: a change in place.
    let mut changed = spec.clone();
    changed.auto_mode_pools.node_pools[0]
        .spec
        .limits
        .insert("cpu".to_owned(), "64".into());
    let changed_file = dir.join("changed.studio.json");
    std::fs::write(&changed_file, serde_json::to_string(&changed).unwrap()).unwrap();
    let plan = plan_on(&emulator, &changed_file, &cluster, &["--format", "json"]);
    assert_eq!(plan.status.code(), Some(1), "{}", text(&plan.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let changes = plan["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{plan}");
    assert_eq!(changes[0]["kind"], "NodePool");
    assert_eq!(changes[0]["name"], pool.as_str());
    assert_eq!(changes[0]["action"], "update");
    // Unchanged, nothing to do.
    let same = plan_on(&emulator, &design, &cluster, &[]);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stdout));

    // Applied (client-side, so the read still finds the pool as applied): nothing left.
    let calls = applied(&emulator, &changed_file, &cluster, &dir.join("apply"));
    let kubectl: Vec<String> = calls
        .iter()
        .filter(|argv| argv[0] == "kubectl")
        .map(|argv| argv[1..].join(" "))
        .collect();
    assert_eq!(
        kubectl,
        [
            "apply -f auto-mode/nodepools.yaml".to_owned(),
            format!("wait --for=condition=Ready nodepool/{pool} --timeout=300s"),
        ]
    );
}

#[test]
fn karpenter_objects_are_read_from_the_cluster_and_a_tightened_nodepool_plans_a_drift() {
    let emulator = Emulator::start();
    let dir = temp_dir("karpenter");
    let (_, cluster, spec) = deployed_template(&emulator, "karpenter-reserved-training", &dir);
    let karpenter = spec.karpenter.as_ref().unwrap();

    // Read: the objects as a manifest writes them, without what the API server and
    // Karpenter keep about them.
    let out = dir.join("read");
    let read = read_into(&emulator, &cluster, &out);
    assert!(
        !text(&read.stderr).contains("Karpenter's NodePools"),
        "{}",
        text(&read.stderr)
    );
    let objects = std::fs::read_to_string(out.join("karpenter/nodepools.yaml")).unwrap();
    for pool in &karpenter.node_pools {
        assert!(
            objects.contains(&format!("name: {}", pool.metadata.name)),
            "{objects}"
        );
    }
    for server_field in [
        "uid:",
        "resourceVersion",
        "last-applied-configuration",
        "nodepool-hash",
        "status:",
        "finalizers",
    ] {
        assert!(
            !objects.contains(server_field),
            "{server_field} in\n{objects}"
        );
    }
    // The API server's defaults are in what it answers.
    assert!(
        objects.contains("expireAfter: 720h") || objects.contains("expireAfter:"),
        "{objects}"
    );

    // Tighten the first pool (a CPU limit, and only instance types with at least 8 GPUs)
    // and drop the last one: an update that drifts nodes, and a deletion.
    let mut changed = spec.clone();
    let settings = changed.karpenter.as_mut().unwrap();
    let first = settings.node_pools[0].metadata.name.clone();
    settings.node_pools[0]
        .spec
        .limits
        .insert("cpu".into(), yaml_serde::Value::from("1000"));
    settings.node_pools[0].spec.template.spec.requirements.push(
        shared::upstream::karpenter::Requirement {
            key: "karpenter.k8s.aws/instance-gpu-count".into(),
            operator: "Gt".into(),
            values: vec!["7".to_owned()].into(),
            ..Default::default()
        },
    );
    let dropped =
        (settings.node_pools.len() > 1).then(|| settings.node_pools.pop().unwrap().metadata.name);
    let changed_file = dir.join("changed.json");
    std::fs::write(&changed_file, serde_json::to_string(&changed).unwrap()).unwrap();
    let plan = plan_on(&emulator, &changed_file, &cluster, &["--format", "json"]);
    let said = text(&plan.stdout);
    assert_eq!(plan.status.code(), Some(1), "{said}{}", text(&plan.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let changes = plan["changes"].as_array().unwrap();
    let tightened = changes
        .iter()
        .find(|change| change["name"] == first.as_str())
        .unwrap_or_else(|| panic!("no change for NodePool {first}: {plan}"));
    assert_eq!(tightened["action"], "update", "{plan}");
    assert_eq!(tightened["disruptive"], true, "{plan}");
    assert!(
        tightened["disruption"]
            .as_str()
            .unwrap()
            .contains("drifted"),
        "{plan}"
    );
    if let Some(dropped) = dropped {
        let gone = changes
            .iter()
            .find(|change| change["name"] == dropped.as_str())
            .unwrap_or_else(|| panic!("no change for NodePool {dropped}: {plan}"));
        assert_eq!(gone["action"], "delete", "{plan}");
    }
    // Only what changed: the defaults the API server filled in are no change.
    assert_eq!(
        changes.len(),
        1 + usize::from(karpenter.node_pools.len() > 1),
        "{plan}"
    );
    // The chart's values were read: its settings are compared too.
    assert!(
        !plan["not_compared"]
            .as_array()
            .unwrap()
            .iter()
            .any(|what| what.as_str().unwrap().contains("Helm settings")),
        "{plan}"
    );
    let read_design: shared::Spec =
        serde_json::from_str(&std::fs::read_to_string(out.join("studio.json")).unwrap()).unwrap();
    let read_settings = read_design.karpenter.unwrap();
    assert_eq!(
        read_settings.interruption_queue,
        karpenter.interruption_queue
    );
    assert_eq!(read_settings.node_repair, karpenter.node_repair);
    assert_eq!(
        read_settings.controller_identity,
        karpenter.controller_identity
    );
}

#[test]
fn endpoint_access_logging_and_support_round_trip_through_eks() {
    let emulator = Emulator::start();
    let dir = temp_dir("cluster-settings");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let settings: yaml_serde::Value = yaml_serde::from_str(
        "{clusterEndpoints: {publicAccess: true, privateAccess: true}, publicAccessCIDRs: [203.0.113.0/24]}",
    )
    .unwrap();
    let vpc = design
        .as_mapping_mut()
        .unwrap()
        .entry("vpc".into())
        .or_insert_with(|| yaml_serde::Value::Mapping(Default::default()));
    for (key, value) in settings.as_mapping().unwrap() {
        vpc.as_mapping_mut()
            .unwrap()
            .insert(key.clone(), value.clone());
    }
    design["cloudWatch"] = yaml_serde::from_str(
        "{clusterLogging: {enableTypes: [audit, api], logRetentionInDays: 7}}",
    )
    .unwrap();
    design["upgradePolicy"] = yaml_serde::from_str("{supportType: STANDARD}").unwrap();
    std::fs::write(&file, yaml_serde::to_string(&design).unwrap()).unwrap();
    eksctl_create(&emulator, &file);

    let read = eks_studio(
        &emulator,
        &["read", "--cluster", &cluster, "--region", REGION],
    );
    let said = text(&read.stdout);
    assert!(said.contains("privateAccess: true"), "{said}");
    assert!(said.contains("203.0.113.0/24"), "{said}");
    assert!(said.contains("supportType: STANDARD"), "{said}");
    let plan = plan_on(&emulator, &file, &cluster, &[]);
    let said = text(&plan.stdout);
    assert_eq!(plan.status.code(), Some(0), "{said}{}", text(&plan.stderr));
    assert!(said.starts_with("No changes"), "{said}");
    // The log retention is CloudWatch's, which eksctl sets and a read does not see.
    assert!(
        said.contains("not compared: `cloudWatch` of the ClusterConfig"),
        "{said}"
    );
}

#[test]
fn an_upgrade_plan_judges_add_on_versions_by_what_eks_offers() {
    let emulator = Emulator::start();
    let dir = temp_dir("addon-versions");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    design["metadata"]["version"] = "1.34".into();
    design["addons"] =
        yaml_serde::from_str("[{name: vpc-cni, version: v1.19.0-eksbuild.1}]").unwrap();
    std::fs::write(&file, yaml_serde::to_string(&design).unwrap()).unwrap();
    eksctl_create(&emulator, &file);
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(emulator.seed(
            "addon-versions",
            serde_json::json!({"addons": [{"addonName": "vpc-cni", "versions": [
                {"addonVersion": "v1.21.0-eksbuild.1", "clusterVersions": ["1.35"]},
                {"addonVersion": "v1.19.0-eksbuild.1", "clusterVersions": ["1.33", "1.34"]}
            ]}]}),
        ));
    let plan_of = |design: &yaml_serde::Value, name: &str| {
        let changed = dir.join(name);
        std::fs::write(&changed, yaml_serde::to_string(design).unwrap()).unwrap();
        let plan = plan_on(&emulator, &changed, &cluster, &["--format", "json"]);
        let answer: serde_json::Value = serde_json::from_slice(&plan.stdout)
            .unwrap_or_else(|_| panic!("{}{}", text(&plan.stdout), text(&plan.stderr)));
        (plan.status.code(), answer)
    };
    let rules = |plan: &serde_json::Value| -> Vec<String> {
        plan["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|finding| finding["rule"].as_str().unwrap().to_owned())
            .collect()
    };

    // 1.34 → 1.35 with the add-on still pinned to a version EKS offers only up to 1.34.
    design["metadata"]["version"] = "1.35".into();
    let (code, plan) = plan_of(&design, "pinned.yaml");
    assert_eq!(code, Some(3), "a change the peers refuse: {plan}");
    assert!(
        rules(&plan).contains(&"change-addon-version-not-offered".to_owned()),
        "{plan}"
    );

    // Left to EKS's newest: a warning to update it after the control plane.
    design["addons"][0]["version"] = "latest".into();
    let (code, plan) = plan_of(&design, "latest.yaml");
    assert_eq!(code, Some(1), "{plan}");
    assert!(
        rules(&plan).contains(&"change-addon-update-after-upgrade".to_owned()),
        "{plan}"
    );
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

/// The deploy token of the servers these tests build: reads and plans of running
/// clusters need it as deploys and applies do.
const API_TOKEN: &str = "apply-token-0123456789abcdef";

/// A server's deploys as far as the cluster routes go: the token, nothing deployed.
fn reads_only() -> backend::deploy::Deploys {
    backend::deploy::Deploys::Unavailable(backend::deploy::DeploysUnavailable {
        reason: "these tests read and plan only".into(),
        token: backend::deploy::DeployToken::new(API_TOKEN).unwrap(),
    })
}

/// POSTs `body` with the deploy token.
async fn post_json(
    router: &axum::Router,
    uri: &str,
    body: &serde_json::Value,
) -> (axum::http::StatusCode, serde_json::Value) {
    post_json_as(router, uri, body, Some(API_TOKEN)).await
}

/// POSTs `body`, with `token` as the bearer when given.
async fn post_json_as(
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

#[tokio::test(flavor = "multi_thread")]
async fn the_api_lists_reads_and_plans_against_a_running_cluster() {
    let emulator = Emulator::start();
    let dir = temp_dir("api");
    let (file, cluster) = filled_template(&emulator, "p4de-odcr", &dir);
    eksctl_create(&emulator, &file);
    let router = backend::app(backend::AppState {
        aws: emulator.live_aws().await,
        deploys: reads_only(),
        ..backend::AppState::default()
    });

    // The account's clusters, a cluster's access entries and workloads are the deploy
    // token's holders' only: without it, or with another, each route says so and reads
    // nothing.
    for uri in ["/api/clusters", "/api/clusters/read", "/api/plan"] {
        let body = serde_json::json!({"region": REGION, "cluster": cluster});
        for (token, said) in [
            (None, "needs the deploy token"),
            (Some("not-the-token-0123456789"), "wrong deploy token"),
        ] {
            let (status, refused) = post_json_as(&router, uri, &body, token).await;
            assert_eq!(status, 401, "{uri}: {refused}");
            assert!(refused.to_string().contains(said), "{uri}: {refused}");
        }
    }
    let calls_before = emulator.all_calls().await;
    let (status, _) = post_json_as(
        &router,
        "/api/clusters/read",
        &serde_json::json!({"region": REGION, "cluster": cluster}),
        None,
    )
    .await;
    assert_eq!(status, 401);
    assert_eq!(
        emulator.all_calls().await,
        calls_before,
        "a refused read calls no AWS API"
    );

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
    let mut design: serde_json::Value = design_json(&file);
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

/// The median of `samples`.
fn median(mut samples: Vec<std::time::Duration>) -> std::time::Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// How long `plan` against a running cluster takes beside its slowest single AWS call, with
/// every call of the emulator answering after the same delay (as a distant region does).
/// A measurement, not a behaviour test: `cargo xtask bench --only plan` runs it in the
/// release build and takes the `plan-latency:` lines into docs/performance.md.
#[test]
#[ignore = "a measurement: cargo xtask bench --only plan"]
fn plan_latency_beside_the_slowest_single_call() {
    use std::time::{Duration, Instant};
    const DELAY_SECONDS: f64 = 0.25;
    let emulator = Emulator::start();
    let dir = temp_dir("latency");
    // The template with the most to read: node groups and add-ons.
    let template = shared::TEMPLATES
        .iter()
        .max_by_key(|template| {
            let spec = template.spec();
            spec.node_groups.len() + spec.addons.len()
        })
        .unwrap();
    let (file, cluster) = filled_template(&emulator, template.id, &dir);
    eksctl_create(&emulator, &file);
    let warm = plan_on(&emulator, &file, &cluster, &[]);
    assert_eq!(warm.status.code(), Some(0), "{}", text(&warm.stderr));

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let eks = emulator.eks_client();
    let ec2 = emulator.ec2_client();
    runtime.block_on(emulator.delay(DELAY_SECONDS));
    let single = |call: &str| -> Duration {
        let samples = (0..3)
            .map(|_| {
                let started = Instant::now();
                runtime
                    .block_on(async {
                        match call {
                            "DescribeCluster" => eks
                                .describe_cluster()
                                .name(&cluster)
                                .send()
                                .await
                                .map(drop)
                                .map_err(|e| e.to_string()),
                            "ListNodegroups" => eks
                                .list_nodegroups()
                                .cluster_name(&cluster)
                                .send()
                                .await
                                .map(drop)
                                .map_err(|e| e.to_string()),
                            "ListAddons" => eks
                                .list_addons()
                                .cluster_name(&cluster)
                                .send()
                                .await
                                .map(drop)
                                .map_err(|e| e.to_string()),
                            "DescribeSubnets" => ec2
                                .describe_subnets()
                                .send()
                                .await
                                .map(drop)
                                .map_err(|e| e.to_string()),
                            other => panic!("no such call here: {other}"),
                        }
                    })
                    .unwrap_or_else(|error| panic!("{call}: {error}"));
                started.elapsed()
            })
            .collect();
        median(samples)
    };
    let calls = [
        "DescribeCluster",
        "ListNodegroups",
        "ListAddons",
        "DescribeSubnets",
    ];
    let timed: Vec<(&str, Duration)> = calls.iter().map(|call| (*call, single(call))).collect();
    let (slowest_call, slowest) = timed.iter().max_by_key(|(_, time)| *time).copied().unwrap();
    let plans: Vec<Duration> = (0..5)
        .map(|_| {
            let started = Instant::now();
            let plan = plan_on(&emulator, &file, &cluster, &[]);
            assert_eq!(plan.status.code(), Some(0), "{}", text(&plan.stderr));
            started.elapsed()
        })
        .collect();
    let plan = median(plans);
    let groups = template.spec().node_groups.len();
    let addons = template.spec().addons.len();
    println!(
        "plan-latency: eks-studio plan of template {} ({groups} node groups, {addons} add-ons), every call {:.0} ms away (median of 5): {:.0} ms; slowest single call ({slowest_call}, median of 3) {:.0} ms; {:.2}x",
        template.id,
        DELAY_SECONDS * 1000.0,
        plan.as_secs_f64() * 1000.0,
        slowest.as_secs_f64() * 1000.0,
        plan.as_secs_f64() / slowest.as_secs_f64()
    );
}

#[tokio::test]
async fn a_name_eks_would_not_give_a_cluster_never_reaches_the_tools() {
    let tools = backend::deploy::Tools {
        aws: root().join("tests/fixtures/aws"),
        kubectl: root().join("tests/fixtures/kubectl"),
        ..backend::deploy::Tools::default()
    };
    for name in [
        "--kubeconfig=/etc/passwd",
        "-x",
        "a b",
        "",
        &"a".repeat(101),
    ] {
        let access = backend::aws::running::ApiAccess {
            arn: format!("arn:aws:eks:{REGION}:123456789012:cluster/any"),
            endpoint: "https://127.0.0.1:9".into(),
            certificate_authority: "Y2E=".into(),
        };
        let answer = backend::deploy::objects::read_objects(&tools, REGION, name, &access).await;
        let why = answer.expect_err(name);
        assert!(
            why.contains("is not a name EKS gives a cluster"),
            "{name}: {why}"
        );
    }
}

/// A design changed four ways against a cluster eksctl made: a group scaled and labelled
/// in place, a group added, a group whose type changed (replaced: drained), an access
/// entry added.
fn changed_design(file: &Path, dir: &Path) -> PathBuf {
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
fn calls_in(log: &Path) -> Vec<Vec<String>> {
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
fn all_calls_in(log: &Path) -> Vec<Vec<String>> {
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

/// A plan describes the design's managed groups while it asks EKS for the list: a group
/// the design names that the cluster lacks is still a creation, and a group the cluster
/// runs that the design no longer names is still read, and deleted.
#[test]
fn a_plan_reads_groups_the_design_lacks_and_drops_the_ones_the_cluster_lacks() {
    let emulator = Emulator::start();
    let dir = temp_dir("guessed-groups");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let groups = design["managedNodeGroups"].as_sequence_mut().unwrap();
    groups.retain(|group| group["name"] != "sys");
    groups.push(yaml_serde::from_str("{name: extra, instanceType: m5.large}").unwrap());
    let changed = dir.join("changed.yaml");
    std::fs::write(&changed, yaml_serde::to_string(&design).unwrap()).unwrap();
    let plan = plan_on(&emulator, &changed, &cluster, &["--format", "json"]);
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let changes = actions_of(&plan);
    assert_eq!(
        changes,
        [
            ("create".to_owned(), "extra".to_owned()),
            ("delete".to_owned(), "sys".to_owned())
        ],
        "{plan:#}"
    );
    assert!(
        !plan["not_read"]
            .as_array()
            .unwrap()
            .iter()
            .any(|gap| gap.to_string().contains("extra")),
        "a guess the cluster does not hold is no gap: {plan:#}"
    );
}

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

/// `apply` with `--auto-approve --allow-disruption` of `design` on `cluster`: it must
/// succeed. The stand-ins' calls that changed the cluster, in order.
fn applied(emulator: &Emulator, design: &Path, cluster: &str, dir: &Path) -> Vec<Vec<String>> {
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

/// A wrapper script in `bin` that runs `command…` with the emulator's endpoint and test
/// credentials in its environment, as a server's tools would find AWS's; its path.
fn pointed_at_emulator(emulator: &Emulator, bin: &Path, name: &str, command: &[&Path]) -> PathBuf {
    pointed_at_emulator_with(emulator, bin, name, command, "")
}

/// Like [`pointed_at_emulator`], exporting `more` (`NAME=value …`) as well.
fn pointed_at_emulator_with(
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
async fn call_with_token(
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

/// What the emulator holds for a cluster, by boto3: the subnets of a node group, the
/// security group EKS made for the cluster (with its VPC and whether a rule lets its members
/// reach each other on every port), and the VPC of each subnet.
fn cluster_network(emulator: &Emulator, cluster: &str, group: &str) -> serde_json::Value {
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

/// The cluster's apply lock (its Lease), as kubectl reads it on the cluster made from
/// `file`; `None` when there is none yet.
fn read_lease(emulator: &Emulator, file: &Path) -> Option<serde_json::Value> {
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
fn held_lease(emulator: &Emulator, file: &Path) -> serde_json::Value {
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
fn resized(
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

/// `bash DIR/apply.sh` with the stand-ins on `PATH`, pointed at the emulator.
fn apply_sh(emulator: &Emulator, bundle: &Path) -> Output {
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

/// Owned arguments as the `&str`s a command takes.
fn words(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// The API with deploys on a fresh data directory in `dir`, its tools the stand-ins
/// pointed at the emulator, and the deploy token [`API_TOKEN`].
async fn api_with_deployer(emulator: &Emulator, dir: &Path) -> axum::Router {
    api_with_deployer_and(emulator, dir, "").await
}

/// [`api_with_deployer`], its tools exporting `more` (`NAME=value …`) as well.
async fn api_with_deployer_and(emulator: &Emulator, dir: &Path, more: &str) -> axum::Router {
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
fn land_training(emulator: &Emulator, file: &Path, dir: &Path, group: &str, job: &str) {
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
fn training_pods(nodes: &[&str], job: &str) -> String {
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

/// The design of `file` with an access entry more (made first, and slowly when the
/// stand-in is slowed) and its GPU group on a larger type (replaced, its drain last).
fn entry_then_replacement(file: &Path, dir: &Path) -> PathBuf {
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
