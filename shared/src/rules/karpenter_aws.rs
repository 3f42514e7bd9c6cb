//! Rules on what a Karpenter design needs on AWS and in the cluster beyond its own objects:
//! the controller's identity and a place to run, the node role the bundle creates, and
//! the discovery tags its node classes look for (see `crate::documents::karpenter_aws`).

use super::{Check, Context, Report, Rule, Severity, Stage};
use crate::documents::karpenter_aws::{self, POD_IDENTITY_AGENT};
use crate::model::spec::ClusterSettings;
use crate::model::spec::{ControllerIdentity, Network, NodeGroup, Spec};
use crate::upstream::karpenter::Ec2NodeClass;
use crate::upstream::karpenter::discovery_value;

const GETTING_STARTED: &str =
    "Karpenter v1.14 getting started: cloudformation.yaml, step02-create-cluster.sh";

pub(super) static RULES: &[Rule] = &[
    Rule {
        id: "karpenter-pod-identity-agent-missing",
        severity: Severity::Error,
        summary: super::described(
            "Karpenter is on but the eks-pod-identity-agent add-on is not: its controller gets no AWS credentials",
        ),
        help: "add the eks-pod-identity-agent add-on; the bundle gives the controller its role through EKS Pod Identity",
        reference: super::described(GETTING_STARTED),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(pod_identity_agent_missing),
    },
    Rule {
        id: "karpenter-controller-has-no-nodes",
        severity: Severity::Error,
        summary: super::described(
            "Karpenter is on but the cluster has no node group for its controller to run on",
        ),
        help: "add a small CPU node group (e.g. two m6i.large): the chart keeps the controller off the nodes it launches itself",
        reference: super::described(
            "Karpenter chart values.yaml: affinity karpenter.sh/nodepool DoesNotExist",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(controller_has_no_nodes),
    },
    Rule {
        id: "karpenter-without-nodepools",
        severity: Severity::Warning,
        summary: super::described("Karpenter is on but has no NodePool: it launches no node"),
        help: "add a NodePool (the Karpenter step offers Spot inference, on-demand general-purpose and reserved training pools), or turn Karpenter off",
        reference: super::described(
            "Karpenter concepts, NodePools: Karpenter launches nodes only from the NodePools the cluster holds",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(without_nodepools),
    },
    Rule {
        id: "karpenter-controller-cannot-schedule",
        severity: Severity::Error,
        summary: super::described(
            "every node group is tainted against the Karpenter controller, which tolerates only CriticalAddonsOnly",
        ),
        help: "add an untainted CPU node group, or give one group only the CriticalAddonsOnly taint, for the controller and other cluster add-ons",
        reference: super::described(
            "Karpenter chart values.yaml: tolerations CriticalAddonsOnly Exists, nodeSelector kubernetes.io/os linux",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(controller_cannot_schedule),
    },
    Rule {
        id: "karpenter-controller-one-node",
        severity: Severity::Warning,
        summary: super::described(
            "the node groups the Karpenter controller can run on have room for one node; the chart runs two replicas on different nodes",
        ),
        help: "let the controller's node group grow to two nodes (maxSize 2), so a node's loss or upgrade does not stop Karpenter",
        reference: super::described(
            "Karpenter chart values.yaml: replicas 2, podAntiAffinity on kubernetes.io/hostname",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(controller_one_node),
    },
    Rule {
        id: "karpenter-irsa-without-oidc",
        severity: Severity::Error,
        summary: super::described(
            "the Karpenter controller gets its role through IRSA, but the cluster has no IAM OIDC provider",
        ),
        help: "turn on the cluster's OIDC provider (iam.withOIDC), or give the controller its role through EKS Pod Identity",
        reference: super::described(
            "EKS user guide: Create an IAM OIDC provider for your cluster; eksctl iam.withOIDC",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(irsa_without_oidc),
    },
    Rule {
        id: "karpenter-node-role-not-created",
        severity: Severity::Warning,
        summary: super::described(
            "an EC2NodeClass names a node role the bundle neither creates nor gives cluster access",
        ),
        help: "use the role the bundle creates (KarpenterNodeRole-<cluster>), or make sure the role exists and has an EC2_LINUX access entry",
        reference: super::described(GETTING_STARTED),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(node_role_not_created),
    },
    Rule {
        id: "karpenter-discovery-tag-not-applied",
        severity: Severity::Warning,
        summary: super::described(
            "an EC2NodeClass discovers subnets or security groups by a karpenter.sh/discovery value the bundle does not tag",
        ),
        help: "discover by the value the cluster is tagged with (the first EC2NodeClass's), or tag those resources yourself",
        reference: super::described(GETTING_STARTED),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(discovery_tag_not_applied),
    },
    Rule {
        id: "karpenter-subnet-cannot-be-tagged",
        severity: Severity::Warning,
        summary: super::described(
            "an existing subnet Karpenter should launch into has no id, so the deploy cannot tag it for discovery",
        ),
        help: "give the subnet's id, so the deploy can tag it with karpenter.sh/discovery",
        reference: super::described(GETTING_STARTED),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(subnet_cannot_be_tagged),
    },
];

fn pod_identity_agent_missing(context: &Context<'_>, report: &mut Report<'_>) {
    let spec = context.spec;
    let Some(karpenter) = &spec.karpenter else {
        return;
    };
    if karpenter.controller_identity != ControllerIdentity::PodIdentity
        || spec
            .addons
            .iter()
            .any(|addon| addon.name.trim() == POD_IDENTITY_AGENT)
    {
        return;
    }
    report.fire(
        "addons",
        format!(
            "Karpenter is on, but the add-ons do not include {POD_IDENTITY_AGENT}: the bundle gives the controller its role through EKS Pod Identity, so without the agent it has no AWS credentials and launches no node"
        ),
    );
}

fn without_nodepools(context: &Context<'_>, report: &mut Report<'_>) {
    if context
        .spec
        .karpenter
        .as_ref()
        .is_some_and(|karpenter| karpenter.node_pools.is_empty())
    {
        report.fire(
            "karpenter.node_pools",
            "Karpenter is on but has no NodePool, so it launches no node",
        );
    }
}

fn controller_has_no_nodes(context: &Context<'_>, report: &mut Report<'_>) {
    let spec = context.spec;
    // A Fargate profile (kept from an import) or Auto Mode's built-in pools can run the
    // controller instead.
    if spec.karpenter.is_none()
        || !spec.node_groups.is_empty()
        || spec.eksctl_extra.contains_key("fargateProfiles")
        || spec.cluster.auto_mode_runs_pods()
    {
        return;
    }
    report.fire(
        "node_groups",
        "Karpenter is on, but there is no node group: its controller may not run on the nodes it launches, so it stays Pending and no NodePool launches anything",
    );
}

/// The taint the Karpenter chart's controller tolerates.
const TOLERATED_TAINT: &str = "CriticalAddonsOnly";

/// The node groups the Karpenter controller can be scheduled on: Linux, and tainted only by
/// what it tolerates (or by `PreferNoSchedule`, which only discourages).
fn controller_groups(spec: &Spec) -> impl Iterator<Item = &NodeGroup> {
    spec.node_groups.iter().filter(|group| {
        let linux = !group
            .ami_family
            .as_deref()
            .is_some_and(|family| family.starts_with("Windows"));
        let tolerated = group.taints.iter().all(|taint| {
            taint.key.trim() == TOLERATED_TAINT || taint.effect.trim() == "PreferNoSchedule"
        });
        linux && tolerated
    })
}

/// "`sys`, `gpu`".
fn group_names<'a>(groups: impl Iterator<Item = &'a NodeGroup>) -> String {
    groups
        .map(|group| format!("`{}`", group.name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn controller_cannot_schedule(context: &Context<'_>, report: &mut Report<'_>) {
    let spec = context.spec;
    if spec.karpenter.is_none()
        || spec.node_groups.is_empty()
        || spec.eksctl_extra.contains_key("fargateProfiles")
        || controller_groups(spec).next().is_some()
    {
        return;
    }
    report.fire(
        "node_groups",
        format!(
            "Karpenter is on, but its controller tolerates only the {TOLERATED_TAINT} taint and runs on Linux: node group(s) {} are tainted against it (or run Windows), so it stays Pending and no NodePool launches anything",
            group_names(spec.node_groups.iter())
        ),
    );
}

fn controller_one_node(context: &Context<'_>, report: &mut Report<'_>) {
    let spec = context.spec;
    if spec.karpenter.is_none()
        || spec.eksctl_extra.contains_key("fargateProfiles")
        || spec.cluster.auto_mode_runs_pods()
    {
        return;
    }
    let groups: Vec<&NodeGroup> = controller_groups(spec).collect();
    // eksctl gives a group with no sizes two nodes.
    let room: u32 = groups
        .iter()
        .map(|group| group.max_size.or(group.desired_capacity).unwrap_or(2))
        .sum();
    if groups.is_empty() || room >= 2 {
        return;
    }
    report.fire(
        "node_groups",
        format!(
            "the Karpenter controller can run only on node group(s) {}, with room for {room} node: the chart runs two replicas that must be on different nodes, so one stays Pending and Karpenter stops with that node",
            group_names(groups.into_iter())
        ),
    );
}

fn irsa_without_oidc(context: &Context<'_>, report: &mut Report<'_>) {
    let spec = context.spec;
    if spec
        .karpenter
        .as_ref()
        .is_some_and(|karpenter| karpenter.controller_identity == ControllerIdentity::Irsa)
        && !spec.cluster.with_oidc
    {
        report.fire(
            ClusterSettings::WITH_OIDC.path(),
            "the Karpenter controller's role is given through IRSA, which trusts the cluster's IAM OIDC provider, but the cluster has none (iam.withOIDC is off): the controller gets no AWS credentials and launches no node",
        );
    }
}

fn node_role_not_created(context: &Context<'_>, report: &mut Report<'_>) {
    // Without a cluster (Karpenter files linted alone) there is no role the bundle makes.
    let (Some(karpenter), false) = (
        &context.spec.karpenter,
        context.spec.cluster.name.trim().is_empty(),
    ) else {
        return;
    };
    let created = karpenter_aws::node_role(&context.spec.cluster.name);
    for (index, class) in karpenter.node_classes.iter().enumerate() {
        if let Some(role) = class.spec.role.as_deref().filter(|role| {
            let name = role.rsplit('/').next().unwrap_or(role);
            !role.trim().is_empty() && name != created
        }) {
            report.fire(
                Ec2NodeClass::NODE_ROLE.at(&[index]),
                format!(
                    "EC2NodeClass `{}` uses role `{role}`; the bundle creates `{created}` and gives only that role access to the cluster, so `{role}` must exist and have an EC2_LINUX access entry, or its nodes never join",
                    class.metadata.name
                ),
            );
        }
    }
}

fn discovery_tag_not_applied(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(karpenter) = &context.spec.karpenter else {
        return;
    };
    let Some(tagged) = karpenter_aws::discovery(karpenter) else {
        return;
    };
    for (index, class) in karpenter.node_classes.iter().enumerate() {
        let lists = [
            (
                "subnetSelectorTerms",
                "subnets",
                &class.spec.subnet_selector_terms,
            ),
            (
                "securityGroupSelectorTerms",
                "security groups",
                &class.spec.security_group_selector_terms,
            ),
        ];
        for (field, what, terms) in lists {
            let value = discovery_value(terms);
            if !value.is_empty() && value != tagged {
                report.fire(
                    format!("karpenter.node_classes[{index}].spec.{field}"),
                    format!(
                        "EC2NodeClass `{}` looks for {what} tagged karpenter.sh/discovery={value}, but the bundle tags the cluster's with {tagged}: it finds none unless you tag them",
                        class.metadata.name
                    ),
                );
            }
        }
    }
}

fn subnet_cannot_be_tagged(context: &Context<'_>, report: &mut Report<'_>) {
    let spec = context.spec;
    let (
        Some(karpenter),
        Network::ExistingVpc {
            public_subnets,
            private_subnets,
            ..
        },
    ) = (&spec.karpenter, &spec.network)
    else {
        return;
    };
    if karpenter_aws::discovery(karpenter).is_none() {
        return;
    }
    let (kind, subnets) = if private_subnets.is_empty() {
        ("public_subnets", public_subnets)
    } else {
        ("private_subnets", private_subnets)
    };
    for (index, subnet) in subnets.iter().enumerate() {
        if subnet.id.trim().is_empty() {
            report.fire(
                format!("network.{kind}[{index}].id"),
                format!(
                    "subnet `{}` has no id, so the deploy cannot tag it with karpenter.sh/discovery and Karpenter will not launch into it",
                    subnet.name
                ),
            );
        }
    }
}
