//! The deploy and teardown sequences, as one list of steps each: the bundle writes them as
//! `deploy.sh` and `teardown.sh`, and the one-click deploy runs the same steps with the
//! server's tools and the bundle's files. A step is one program with its arguments, so
//! the server never goes through a shell. A step may print a value a later step needs (the
//! cluster's OIDC issuer, a role's ARN): its output, trimmed, is kept under a name
//! ([`Step::output_into`]) that later arguments read ([`Arg::Read`]).
//!
//! Deploy: plan (eksctl `--dry-run`) → what Karpenter needs on AWS → the cluster → the
//! discovery tags on an existing VPC's subnets → the access of Karpenter's nodes and
//! controller → Karpenter → the NodePools. Teardown undoes it in reverse: the NodePools
//! first, so Karpenter terminates its nodes while it still can, the prerequisites last.

use crate::documents::device_plugins::{self, ChartSource, Plugin};
use crate::documents::karpenter_aws::{
    self, CLUSTER_ACCESS_PATH, NAMESPACE, PREREQUISITES_PATH, access_stack, prerequisites_stack,
};
use crate::documents::render::{KARPENTER_VALUES_PATH, NODEPOOLS_PATH};
use crate::documents::storage;
use crate::model::spec::{ControllerIdentity, Spec};
use crate::upstream::karpenter::DISCOVERY_TAG;

/// Where the Karpenter chart is published.
pub const KARPENTER_CHART: &str = "oci://public.ecr.aws/karpenter/karpenter";
/// Where the chart of Karpenter's CRDs alone is published (its upgrade guide's way to
/// upgrade them).
pub const KARPENTER_CRD_CHART: &str = "oci://public.ecr.aws/karpenter/karpenter-crd";

/// The programs a sequence runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tool {
    /// `eksctl`.
    Eksctl,
    /// `aws`, the AWS CLI.
    Aws,
    /// `helm`.
    Helm,
    /// `kubectl`.
    Kubectl,
}

impl Tool {
    /// The command's name on `PATH`.
    pub fn command(self) -> &'static str {
        match self {
            Tool::Eksctl => "eksctl",
            Tool::Aws => "aws",
            Tool::Helm => "helm",
            Tool::Kubectl => "kubectl",
        }
    }
}

/// One argument: text as it is, or a file of the bundle (relative in the scripts,
/// absolute in the one-click deploy).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// Passed as it is.
    Text(String),
    /// A path inside the bundle.
    File(&'static str),
    /// `prefix` followed by what an earlier step printed into `name`.
    Read {
        /// Text before the value.
        prefix: String,
        /// The name the earlier step's output is kept under.
        name: &'static str,
    },
    /// A copy of a bundle file in which each `(text, name)` of `fills` has the text
    /// replaced by what an earlier step printed into `name` (an id that exists only once
    /// an earlier step made it).
    Filled {
        /// A path inside the bundle.
        path: &'static str,
        /// What to replace, and the name of the value that replaces it.
        fills: Vec<(&'static str, &'static str)>,
    },
}

/// The cluster's OIDC issuer URL, read after the cluster is created (IRSA).
pub const OIDC_ISSUER: &str = "OIDC_ISSUER";
/// The controller role's ARN, read after the access stack is created (IRSA).
pub const CONTROLLER_ROLE_ARN: &str = "CONTROLLER_ROLE_ARN";
/// The subnet of the FSx file system, read after eksctl made the VPC.
pub const FSX_SUBNET_ID: &str = "FSX_SUBNET_ID";
/// The cluster security group, read after EKS made it, for the FSx file system.
pub const FSX_SECURITY_GROUP_ID: &str = "FSX_SECURITY_GROUP_ID";

/// One step of a sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Short machine name (`create-cluster`).
    pub name: &'static str,
    /// What it does, in words.
    pub title: String,
    /// The program.
    pub tool: Tool,
    /// Its arguments.
    pub args: Vec<Arg>,
    /// The name its output (trimmed, which must not be empty nor the AWS CLI's `None`) is kept under for later steps.
    pub output_into: Option<&'static str>,
}

fn step(name: &'static str, title: impl Into<String>, tool: Tool, args: &[Arg]) -> Step {
    Step {
        name,
        title: title.into(),
        tool,
        args: args.to_vec(),
        output_into: None,
    }
}

fn read(prefix: &str, name: &'static str) -> Arg {
    Arg::Read {
        prefix: prefix.to_owned(),
        name,
    }
}

fn text(value: &str) -> Arg {
    Arg::Text(value.to_owned())
}

fn texts(values: &[&str]) -> Vec<Arg> {
    values.iter().map(|value| text(value)).collect()
}

/// `aws eks describe-cluster` printing one value of the cluster as text.
fn describe_cluster(region: &str, cluster: &str, query: &str) -> Vec<Arg> {
    texts(&[
        "eks",
        "describe-cluster",
        "--region",
        region,
        "--name",
        cluster,
        "--query",
        query,
        "--output",
        "text",
    ])
}

/// `aws cloudformation deploy` of one of the bundle's templates.
fn deploy_stack(region: &str, stack: &str, template: &'static str, iam: bool) -> Vec<Arg> {
    let mut args = texts(&[
        "cloudformation",
        "deploy",
        "--region",
        region,
        "--stack-name",
        stack,
    ]);
    args.extend([text("--template-file"), Arg::File(template)]);
    if iam {
        args.extend(texts(&["--capabilities", "CAPABILITY_NAMED_IAM"]));
    }
    args
}

/// The step name of installing or uninstalling a plugin (`install-nvidia-device-plugin`).
fn plugin_step(plugin: Plugin, action: &str) -> &'static str {
    match (plugin, action) {
        (Plugin::Nvidia, "install") => "install-nvidia-device-plugin",
        (Plugin::Efa, "install") => "install-efa-device-plugin",
        (Plugin::Neuron, "install") => "install-neuron-device-plugin",
        (Plugin::Nvidia, _) => "uninstall-nvidia-device-plugin",
        (Plugin::Efa, _) => "uninstall-efa-device-plugin",
        (Plugin::Neuron, _) => "uninstall-neuron-device-plugin",
    }
}

/// The discovery tag as `aws ec2 create-tags` reads it.
fn discovery_tag(spec: &Spec) -> Option<String> {
    let value = karpenter_aws::discovery(spec.karpenter.as_ref()?)?;
    Some(format!("Key={DISCOVERY_TAG},Value={value}"))
}

/// The steps that read what a new VPC's FSx file system goes in (see
/// [`storage::fsx_at_deploy`]), pushed onto `steps`; the volumes file to apply, filled
/// with what they read.
fn fsx_network_steps(spec: &Spec, steps: &mut Vec<Step>) -> Arg {
    let at_deploy = storage::fsx_at_deploy(spec);
    if !at_deploy.any() {
        return Arg::File(storage::STORAGE_PATH);
    }
    let cluster = spec.cluster.name.as_str();
    let region = spec.cluster.region.as_str();
    let mut fills = Vec::new();
    if at_deploy.subnet {
        let (title, args) = match storage::fsx_node_group(spec) {
            Some(group) => (
                format!(
                    "Read the subnet of node group {} that the FSx file system goes in",
                    group.name
                ),
                texts(&[
                    "eks",
                    "describe-nodegroup",
                    "--region",
                    region,
                    "--cluster-name",
                    cluster,
                    "--nodegroup-name",
                    group.name.as_str(),
                    "--query",
                    "nodegroup.subnets[0]",
                    "--output",
                    "text",
                ]),
            ),
            None => (
                "Read a private subnet eksctl made, which the FSx file system goes in".to_owned(),
                texts(&[
                    "ec2",
                    "describe-subnets",
                    "--region",
                    region,
                    "--filters",
                    format!("Name=tag:alpha.eksctl.io/cluster-name,Values={cluster}").as_str(),
                    "Name=tag:kubernetes.io/role/internal-elb,Values=1",
                    "--query",
                    "Subnets[0].SubnetId",
                    "--output",
                    "text",
                ]),
            ),
        };
        steps.push(Step {
            output_into: Some(FSX_SUBNET_ID),
            ..step("read-fsx-subnet", title, Tool::Aws, &args)
        });
        fills.push((storage::FSX_SUBNET_AT_DEPLOY, FSX_SUBNET_ID));
    }
    if at_deploy.security_group {
        steps.push(Step {
            output_into: Some(FSX_SECURITY_GROUP_ID),
            ..step(
                "read-fsx-security-group",
                "Read the cluster security group, which every node has and which allows Lustre's traffic between its members, for the FSx file system",
                Tool::Aws,
                &describe_cluster(region, cluster, "cluster.resourcesVpcConfig.clusterSecurityGroupId"),
            )
        });
        fills.push((storage::FSX_SECURITY_GROUP_AT_DEPLOY, FSX_SECURITY_GROUP_ID));
    }
    Arg::Filled {
        path: storage::STORAGE_PATH,
        fills,
    }
}

/// Every step of a deploy, in order.
pub fn deploy_steps(spec: &Spec) -> Vec<Step> {
    let cluster = spec.cluster.name.as_str();
    let region = spec.cluster.region.as_str();
    let create = [
        text("create"),
        text("cluster"),
        text("-f"),
        Arg::File("cluster.yaml"),
    ];
    let mut plan = create.to_vec();
    plan.push(text("--dry-run"));
    let mut steps = vec![step(
        "plan",
        "Plan: eksctl resolves the ClusterConfig without creating anything (--dry-run)",
        Tool::Eksctl,
        &plan,
    )];
    let karpenter = spec.karpenter.is_some();
    let interruption = spec
        .karpenter
        .as_ref()
        .and_then(|karpenter| karpenter.interruption_queue.as_deref())
        .is_some_and(|queue| !queue.is_empty());
    if karpenter {
        steps.push(step(
            "karpenter-prerequisites",
            format!(
                "Create what Karpenter needs on AWS: stack {} (node role, controller policies and role{})",
                prerequisites_stack(cluster),
                if interruption { ", interruption queue" } else { "" }
            ),
            Tool::Aws,
            &deploy_stack(region, &prerequisites_stack(cluster), PREREQUISITES_PATH, true),
        ));
    }
    steps.push(step(
        "create-cluster",
        "Create the cluster: CloudFormation stacks for the control plane, then the node groups",
        Tool::Eksctl,
        &create,
    ));
    if !spec.auto_mode_pools.is_empty() {
        steps.push(step(
            "apply-auto-mode-pools",
            "Create EKS Auto Mode's NodePools and NodeClasses",
            Tool::Kubectl,
            &[
                text("apply"),
                text("-f"),
                Arg::File(crate::documents::auto_mode::PATH),
            ],
        ));
    }
    if !spec.storage.is_empty() {
        let volumes = fsx_network_steps(spec, &mut steps);
        steps.push(step(
            "apply-storage",
            "Create the volumes for datasets and checkpoints (the CSI drivers' StorageClass, volume and claims)",
            Tool::Kubectl,
            &[text("apply"), text("-f"), volumes],
        ));
    }
    if !karpenter {
        return steps;
    }
    let subnets = karpenter_aws::subnets_to_tag(spec);
    if let (false, Some(tag)) = (subnets.is_empty(), discovery_tag(spec)) {
        let mut args = texts(&["ec2", "create-tags", "--region", region, "--resources"]);
        args.extend(subnets.iter().map(|subnet| text(subnet)));
        args.extend([text("--tags"), Arg::Text(tag)]);
        steps.push(step(
            "tag-subnets",
            format!(
                "Tag the existing VPC's subnets {} so the node classes find them ({DISCOVERY_TAG})",
                subnets.join(", ")
            ),
            Tool::Aws,
            &args,
        ));
    }
    let irsa = spec
        .karpenter
        .as_ref()
        .is_some_and(|karpenter| karpenter.controller_identity == ControllerIdentity::Irsa);
    let chart_version = spec
        .karpenter
        .as_ref()
        .map(|karpenter| karpenter.release)
        .unwrap_or_default()
        .chart_version();
    let mut access = deploy_stack(region, &access_stack(cluster), CLUSTER_ACCESS_PATH, irsa);
    if irsa {
        steps.push(Step {
            output_into: Some(OIDC_ISSUER),
            ..step(
                "read-oidc-issuer",
                "Read the cluster's OIDC issuer, which the controller's IRSA role trusts",
                Tool::Aws,
                &describe_cluster(region, cluster, "cluster.identity.oidc.issuer"),
            )
        });
        access.extend([
            text("--parameter-overrides"),
            read(
                &format!("{}=", karpenter_aws::OIDC_ISSUER_PARAMETER),
                OIDC_ISSUER,
            ),
        ]);
    }
    steps.push(step(
        "karpenter-access",
        format!(
            "Let Karpenter's nodes join and its controller call AWS: stack {} (access entry, {})",
            access_stack(cluster),
            if irsa {
                "the controller's IRSA role"
            } else {
                "Pod Identity"
            }
        ),
        Tool::Aws,
        &access,
    ));
    let mut helm = texts(&[
        "upgrade",
        "--install",
        "karpenter",
        KARPENTER_CHART,
        "--version",
        chart_version,
        "--namespace",
        NAMESPACE,
        "--values",
    ]);
    helm.extend([Arg::File(KARPENTER_VALUES_PATH), text("--wait")]);
    if irsa {
        let role = karpenter_aws::controller_role(cluster);
        steps.push(Step {
            output_into: Some(CONTROLLER_ROLE_ARN),
            ..step(
                "read-controller-role",
                format!("Read the ARN of the controller's role {role}, for its service account"),
                Tool::Aws,
                &texts(&[
                    "iam",
                    "get-role",
                    "--role-name",
                    &role,
                    "--query",
                    "Role.Arn",
                    "--output",
                    "text",
                ]),
            )
        });
        helm.extend([
            text("--set"),
            read(
                r"serviceAccount.annotations.eks\.amazonaws\.com/role-arn=",
                CONTROLLER_ROLE_ARN,
            ),
        ]);
    }
    steps.push(step(
        "install-karpenter",
        format!("Install Karpenter {chart_version} with Helm"),
        Tool::Helm,
        &helm,
    ));
    for (plugin, pools) in device_plugins::needed(spec.karpenter.as_ref().expect("Karpenter is on"))
    {
        let chart = plugin.chart();
        let mut args = texts(&["upgrade", "--install", chart.release, chart.chart]);
        if let ChartSource::Repository(repository) = chart.source {
            args.extend(texts(&["--repo", repository]));
        }
        args.extend(texts(&[
            "--version",
            chart.version,
            "--namespace",
            NAMESPACE,
            "--values",
        ]));
        args.extend([Arg::File(chart.values_path), text("--wait")]);
        let names: Vec<&str> = pools
            .iter()
            .map(|pool| pool.metadata.name.as_str())
            .collect();
        steps.push(step(
            plugin_step(plugin, "install"),
            format!(
                "Install {} {} for NodePool(s) {} ({})",
                plugin.title(),
                chart.version,
                names.join(", "),
                chart.resource
            ),
            Tool::Helm,
            &args,
        ));
    }
    steps.push(step(
        "apply-nodepools",
        "Apply the NodePools and EC2NodeClasses",
        Tool::Kubectl,
        &[text("apply"), text("-f"), Arg::File(NODEPOOLS_PATH)],
    ));
    steps
}

/// Every step of a teardown, in order: the deploy's, undone in reverse.
pub fn teardown_steps(spec: &Spec) -> Vec<Step> {
    let cluster = spec.cluster.name.as_str();
    let region = spec.cluster.region.as_str();
    let delete_stack = |name: &'static str, what: &str, stack: String| {
        let delete = texts(&[
            "cloudformation",
            "delete-stack",
            "--region",
            region,
            "--stack-name",
            &stack,
        ]);
        let wait = texts(&[
            "cloudformation",
            "wait",
            "stack-delete-complete",
            "--region",
            region,
            "--stack-name",
            &stack,
        ]);
        [
            step(
                name,
                format!("Delete {what}: stack {stack}"),
                Tool::Aws,
                &delete,
            ),
            step(
                name,
                format!("Wait until stack {stack} is deleted"),
                Tool::Aws,
                &wait,
            ),
        ]
    };
    let mut steps = Vec::new();
    if !spec.storage.is_empty() {
        // Before the cluster: FSx deletes a file system its driver made only when the
        // claim goes, and a file system left behind keeps costing.
        steps.push(step(
            "delete-storage",
            "Delete the volumes' claims, so FSx deletes the file system the driver made",
            Tool::Kubectl,
            &[
                text("delete"),
                text("-f"),
                Arg::File(crate::documents::storage::STORAGE_PATH),
                text("--ignore-not-found"),
                text("--wait"),
            ],
        ));
    }
    if !spec.auto_mode_pools.is_empty() {
        steps.push(step(
            "delete-auto-mode-pools",
            "Delete EKS Auto Mode's NodePools and NodeClasses, so Auto Mode terminates their nodes",
            Tool::Kubectl,
            &[
                text("delete"),
                text("-f"),
                Arg::File(crate::documents::auto_mode::PATH),
                text("--ignore-not-found"),
                text("--wait"),
            ],
        ));
    }
    let karpenter = spec.karpenter.is_some();
    if karpenter {
        steps.push(step(
            "delete-nodepools",
            "Delete the NodePools and EC2NodeClasses, so Karpenter terminates its nodes",
            Tool::Kubectl,
            &[
                text("delete"),
                text("-f"),
                Arg::File(NODEPOOLS_PATH),
                text("--ignore-not-found"),
                text("--wait"),
            ],
        ));
        let karpenter_settings = spec.karpenter.as_ref().expect("Karpenter is on");
        for (plugin, _) in device_plugins::needed(karpenter_settings).into_iter().rev() {
            let chart = plugin.chart();
            steps.push(step(
                plugin_step(plugin, "uninstall"),
                format!("Uninstall {}", plugin.title()),
                Tool::Helm,
                &texts(&[
                    "uninstall",
                    chart.release,
                    "--namespace",
                    NAMESPACE,
                    "--wait",
                    "--ignore-not-found",
                ]),
            ));
        }
        steps.push(step(
            "uninstall-karpenter",
            "Uninstall Karpenter",
            Tool::Helm,
            &texts(&[
                "uninstall",
                "karpenter",
                "--namespace",
                NAMESPACE,
                "--wait",
                "--ignore-not-found",
            ]),
        ));
        steps.extend(delete_stack(
            "delete-karpenter-access",
            "Karpenter's access to the cluster",
            access_stack(cluster),
        ));
        let subnets = karpenter_aws::subnets_to_tag(spec);
        if let (false, Some(tag)) = (subnets.is_empty(), discovery_tag(spec)) {
            let mut args = texts(&["ec2", "delete-tags", "--region", region, "--resources"]);
            args.extend(subnets.iter().map(|subnet| text(subnet)));
            args.extend([text("--tags"), Arg::Text(tag)]);
            steps.push(step(
                "untag-subnets",
                "Remove the discovery tag from the existing VPC's subnets",
                Tool::Aws,
                &args,
            ));
        }
    }
    steps.push(step(
        "delete-cluster",
        "Delete the cluster and everything eksctl created for it",
        Tool::Eksctl,
        &[
            text("delete"),
            text("cluster"),
            text("-f"),
            Arg::File("cluster.yaml"),
            text("--wait"),
        ],
    ));
    if karpenter {
        steps.extend(delete_stack(
            "delete-karpenter-prerequisites",
            "what Karpenter needed on AWS",
            prerequisites_stack(cluster),
        ));
    }
    steps
}

/// Quotes a value for a POSIX shell, so names never become code.
pub fn shell_quote(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || "-_./=,:@+".contains(character));
    if plain {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\'', r"'\''"))
    }
}

/// A sequence as a bash script that stops at the first failing step.
pub fn script(purpose: &str, steps: &[Step]) -> String {
    let mut script = format!(
        "#!/usr/bin/env bash\n# {purpose}\n# Each step must succeed before the next one starts; the one-click deploy runs\n# the same steps.\nset -euo pipefail\ncd \"$(dirname \"$0\")\"\nstep() {{ printf '\\n==> %s\\n' \"$*\"; }}\n"
    );
    for step in steps {
        script.push_str(&format!("\nstep {}\n", shell_quote(&step.title)));
        if let Some(name) = step.output_into {
            script.push_str(&format!("{name}=$("));
        }
        script.push_str(step.tool.command());
        for arg in &step.args {
            let shown = match arg {
                Arg::Text(value) => shell_quote(value),
                Arg::File(path) => shell_quote(path),
                Arg::Read { prefix, name } if prefix.is_empty() => format!("\"${name}\""),
                Arg::Read { prefix, name } => format!("{}\"${name}\"", shell_quote(prefix)),
                // Bash's process substitution: the program reads a filled copy.
                Arg::Filled { path, fills } => {
                    let edits: String = fills
                        .iter()
                        .map(|(placeholder, name)| format!(" -e \"s|{placeholder}|${{{name}}}|g\""))
                        .collect();
                    format!("<(sed{edits} {})", shell_quote(path))
                }
            };
            script.push(' ');
            script.push_str(&shown);
        }
        if let Some(name) = step.output_into {
            script.push_str(&format!(
                ")\n[ -n \"${name}\" ] && [ \"${name}\" != None ] || {{ echo {} >&2; exit 1; }}\necho \"{name}=${name}\"",
                shell_quote(&format!("{}: printed nothing (or the AWS CLI's None)", step.name))
            ));
        }
        script.push('\n');
    }
    script
}
