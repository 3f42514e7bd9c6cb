//! Rules on what a Karpenter design needs on AWS and in the cluster beyond its own objects:
//! the controller's identity and a place to run, the node role the bundle creates, and
//! the discovery tags its node classes look for (see `crate::karpenter_aws`).

use super::{Check, Context, Report, Rule, Severity, Stage};
use crate::karpenter::discovery_value;
use crate::karpenter_aws::{self, POD_IDENTITY_AGENT};
use crate::spec::Network;

const GETTING_STARTED: &str =
    "Karpenter v1.14 getting started: cloudformation.yaml, step02-create-cluster.sh";

pub(super) static RULES: &[Rule] = &[
    Rule {
        id: "karpenter-pod-identity-agent-missing",
        severity: Severity::Error,
        summary: "Karpenter is on but the eks-pod-identity-agent add-on is not: its controller gets no AWS credentials",
        help: "add the eks-pod-identity-agent add-on; the bundle gives the controller its role through EKS Pod Identity",
        reference: GETTING_STARTED,
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(pod_identity_agent_missing),
    },
    Rule {
        id: "karpenter-controller-has-no-nodes",
        severity: Severity::Error,
        summary: "Karpenter is on but the cluster has no node group for its controller to run on",
        help: "add a small CPU node group (e.g. two m6i.large): the chart keeps the controller off the nodes it launches itself",
        reference: "Karpenter chart values.yaml: affinity karpenter.sh/nodepool DoesNotExist",
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(controller_has_no_nodes),
    },
    Rule {
        id: "karpenter-node-role-not-created",
        severity: Severity::Warning,
        summary: "an EC2NodeClass names a node role the bundle neither creates nor gives cluster access",
        help: "use the role the bundle creates (KarpenterNodeRole-<cluster>), or make sure the role exists and has an EC2_LINUX access entry",
        reference: GETTING_STARTED,
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(node_role_not_created),
    },
    Rule {
        id: "karpenter-discovery-tag-not-applied",
        severity: Severity::Warning,
        summary: "an EC2NodeClass discovers subnets or security groups by a karpenter.sh/discovery value the bundle does not tag",
        help: "discover by the value the cluster is tagged with (the first EC2NodeClass's), or tag those resources yourself",
        reference: GETTING_STARTED,
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(discovery_tag_not_applied),
    },
    Rule {
        id: "karpenter-subnet-cannot-be-tagged",
        severity: Severity::Warning,
        summary: "an existing subnet Karpenter should launch into has no id, so the deploy cannot tag it for discovery",
        help: "give the subnet's id, so the deploy can tag it with karpenter.sh/discovery",
        reference: GETTING_STARTED,
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(subnet_cannot_be_tagged),
    },
];

fn pod_identity_agent_missing(context: &Context<'_>, report: &mut Report<'_>) {
    let spec = context.spec;
    if spec.karpenter.is_none()
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

fn controller_has_no_nodes(context: &Context<'_>, report: &mut Report<'_>) {
    let spec = context.spec;
    // A Fargate profile (kept from an import) can run the controller instead.
    if spec.karpenter.is_none()
        || !spec.node_groups.is_empty()
        || spec.eksctl_extra.contains_key("fargateProfiles")
    {
        return;
    }
    report.fire(
        "node_groups",
        "Karpenter is on, but there is no node group: its controller may not run on the nodes it launches, so it stays Pending and no NodePool launches anything",
    );
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
                format!("karpenter.node_classes[{index}].spec.role"),
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
