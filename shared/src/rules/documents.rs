//! Rules on YAML documents as written. The spec cannot hold these mistakes (a group with
//! both subnets and zones, a reservation with both a preference and a target), so they
//! are caught where they can be seen: in the imported file, at their path in it.

use crate::yaml::node::{Kind as NodeKind, Node, Seq};

use super::reading::{Kind, groups, is_cluster_config, number, text};
use super::{Check, Report, Rule, Severity, Stage};
use crate::upstream::schema_check::{self, DocumentKind, SchemaIssueKind};

pub(super) static RULES: &[Rule] = &[
    Rule {
        id: "self-managed-nodegroup-size-order",
        severity: Severity::Error,
        summary: "a self-managed group's sizes are out of order (min ≤ desired ≤ max, after eksctl's defaults)",
        help: "make minSize ≤ desiredCapacity ≤ maxSize; an unset minSize is desiredCapacity or 2, an unset maxSize is desiredCapacity or minSize",
        reference: "eksctl pkg/cfn/builder/nodegroup.go (NodeGroupResourceSet.AddAllResources: MinSize, MaxSize and their defaults; DefaultNodeCount 2 in pkg/apis/eksctl.io/v1alpha5/types.go); checked when eksctl builds the group's stack, after its config validation, so the cluster is created first",
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Document(self_managed_nodegroup_size_order),
    },
    Rule {
        id: "control-plane-tier-invalid",
        severity: Severity::Error,
        summary: "controlPlaneScalingConfig.tier is not a tier EKS offers (standard, tier-xl, tier-2xl, tier-4xl)",
        help: "write standard, tier-xl, tier-2xl or tier-4xl, or leave the tier out (standard)",
        reference: "EKS API ProvisionedControlPlaneTier (aws-sdk-eks 1.122: standard, tier-xl, tier-2xl, tier-4xl); eksctl pkg/cfn/builder/cluster.go passes the tier to CloudFormation unchecked, so the cluster's stack fails",
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Document(control_plane_tier_invalid),
    },
    Rule {
        id: "eksctl-schema",
        severity: Severity::Error,
        summary: "the ClusterConfig does not match eksctl's schema (unknown key, wrong type, value not allowed)",
        help: "fix the key or value; eksctl refuses any key its schema does not list",
        reference: "eksctl pkg/apis/eksctl.io/v1alpha5/assets/schema.json (A1.1-A1.3)",
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Document(eksctl_schema),
    },
    Rule {
        id: "eksctl-key-dropped",
        severity: Severity::Error,
        summary: "a ClusterConfig key eksctl accepts and drops: a known key in another case (`cloudwatch`), or an unknown key inside an identity provider",
        help: "spell the key as eksctl does; until then the cluster does not get what it says",
        reference: "eksctl pkg/eks/api.go ParseConfig: UnmarshalStrict (Go's JSON decoder matches field names whatever their case) then runtime.Decode (case-sensitive); pkg/apis/eksctl.io/v1alpha5/identity_provider.go UnmarshalJSON",
        live: false,
        stage: Stage::Runtime,
        check: Check::Document(eksctl_key_dropped),
    },
    Rule {
        id: "karpenter-schema",
        severity: Severity::Error,
        summary: "a NodePool or EC2NodeClass does not match its CRD schema (unknown key, wrong type, value not allowed)",
        help: "fix the key or value; the API server rejects wrong types, and an unknown key is refused by `kubectl apply` (strict field validation, its default) or silently dropped by a client that does not validate",
        reference: "karpenter-provider-aws pkg/apis/crds (B1, B2)",
        live: false,
        stage: Stage::ApiServer,
        check: Check::Document(karpenter_schema),
    },
    Rule {
        id: "karpenter-crd-rule",
        severity: Severity::Error,
        summary: "a NodePool or EC2NodeClass breaks one of its CRD's CEL validation rules",
        help: "change the value as the message says; the API server refuses the object",
        reference: "x-kubernetes-validations in karpenter-provider-aws pkg/apis/crds, evaluated as the API server does on create",
        live: false,
        stage: Stage::ApiServer,
        check: Check::Document(karpenter_crd_rule),
    },
    Rule {
        id: "cluster-zones-with-vpc-subnets",
        severity: Severity::Error,
        summary: "top-level availabilityZones and vpc.subnets cannot both be set",
        help: "with an existing VPC the zones come from its subnets: remove availabilityZones",
        reference: "eksctl pkg/ctl/cmdutils/configfile.go:295 (A2.4)",
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Document(cluster_zones_with_vpc_subnets),
    },
    Rule {
        id: "nodegroup-subnets-and-zones",
        severity: Severity::Error,
        summary: "a node group may set subnets or availabilityZones, not both",
        help: "keep `subnets` for an existing VPC, `availabilityZones` for a new one",
        reference: "eksctl validation.go:872-874 (A2.6)",
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Document(nodegroup_subnets_and_zones),
    },
    Rule {
        id: "private-cluster-needs-private-networking",
        severity: Severity::Error,
        summary: "in a fully private cluster every node group needs privateNetworking: true",
        help: "set privateNetworking: true on the group",
        reference: "eksctl validation.go:260-262 (A2.7)",
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Document(private_cluster_needs_private_networking),
    },
    Rule {
        id: "nodegroup-name-collision",
        severity: Severity::Error,
        summary: "names must be unique across nodeGroups and managedNodeGroups together",
        help: "rename one of the groups",
        reference: "eksctl validation.go:251-259 (A2.2)",
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Document(nodegroup_name_collision),
    },
    Rule {
        id: "capacity-reservation-preference-and-target",
        severity: Severity::Error,
        summary: "capacityReservation takes a preference or a target, not both",
        help: "keep capacityReservationTarget to launch into one reservation",
        reference: "eksctl validation.go:942-946 (A4.1)",
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Document(capacity_reservation_preference_and_target),
    },
    Rule {
        id: "capacity-reservation-preference-value",
        severity: Severity::Error,
        summary: "capacityReservationPreference must be open or none",
        help: "use `open` to use any matching open reservation, `none` to avoid them",
        reference: "eksctl validation.go:948-950 (A4.2)",
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Document(capacity_reservation_preference_value),
    },
    Rule {
        id: "capacity-reservation-id-and-arn",
        severity: Severity::Error,
        summary: "a reservation target takes an id or a resource group ARN, not both",
        help: "keep capacityReservationID for a single reservation or Capacity Block",
        reference: "eksctl validation.go:953-957 (A4.3)",
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Document(capacity_reservation_id_and_arn),
    },
    Rule {
        id: "market-type-invalid",
        severity: Severity::Error,
        summary: "instanceMarketOptions.marketType may only be capacity-block",
        help: "use `capacity-block` for a Capacity Block, or remove instanceMarketOptions",
        reference: "eksctl validation.go:959-965 (A4.4)",
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Document(market_type_invalid),
    },
    Rule {
        id: "market-type-without-reservation",
        severity: Severity::Error,
        summary: "instanceMarketOptions needs a capacityReservation",
        help: "add capacityReservation.capacityReservationTarget.capacityReservationID with the block's id",
        reference: "eksctl validation.go:966-969 (A4.5)",
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Document(market_type_without_reservation),
    },
    Rule {
        id: "spot-with-reservation",
        severity: Severity::Warning,
        summary: "spot: true together with a capacity reservation",
        help: "reserved capacity is On-Demand: remove `spot` or the reservation",
        reference: "eksctl leaves this to AWS (A4.8)",
        live: false,
        stage: Stage::Advice,
        check: Check::Document(spot_with_reservation),
    },
    Rule {
        id: "windows-only-node-groups",
        severity: Severity::Warning,
        summary: "every node group runs Windows: CoreDNS and the other Linux system pods have no node",
        help: "add a small Linux node group (AmazonLinux2023) for the system pods; Windows workloads also need the VPC resource controller",
        reference: "eksctl pkg/eks/nodegroup.go LogWindowsCompatibility (only logs \"a Linux node group is required to support Windows workloads\"); CoreDNS's deployment selects kubernetes.io/os: linux",
        live: false,
        stage: Stage::Advice,
        check: Check::Document(windows_only_node_groups),
    },
    Rule {
        id: "override-bootstrap-needs-ami",
        severity: Severity::Error,
        summary: "a managed group's overrideBootstrapCommand needs a custom ami, except on AmazonLinux2023",
        help: "set `ami`, or use amiFamily AmazonLinux2023 with a NodeConfig document",
        reference: "eksctl validation.go:1574-1576 (A5.4); Bottlerocket 1479-1493 (A5.5)",
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Document(override_bootstrap_needs_ami),
    },
    Rule {
        id: "iam-policy-not-found",
        severity: Severity::Error,
        summary: "an AWS managed policy ARN IAM does not have: an AWS policy's name under another path, or a near miss of one's name",
        help: "write the ARN as IAM lists the policy, its path included (arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy)",
        reference: "IAM: an AWS managed policy is arn:aws:iam::aws:policy/<path><name>, its name unique in the aws account; eksctl passes the ARNs to its roles' ManagedPolicyArns, and a stack whose role names a policy IAM does not have fails (NoSuchEntity: \"does not exist or is not attachable\"); AWS's policies from shared/data/aws-managed-policies.txt (moto 5.2.6's copy of AWS's list, 2026-10-31)",
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Document(iam_policy_not_found),
    },
    Rule {
        id: "iam-policy-unlisted",
        severity: Severity::Warning,
        summary: "an AWS managed policy ARN whose name is not among AWS's managed policies of 2026-10-31",
        help: "check the name in IAM: if AWS published it since, nothing is wrong; a policy of your own has your account id in its ARN, not `aws`",
        reference: "AWS's managed policies from shared/data/aws-managed-policies.txt (moto 5.2.6's copy of AWS's list, 2026-10-31); a stack whose role names a policy IAM does not have fails (NoSuchEntity)",
        live: false,
        stage: Stage::Advice,
        check: Check::Document(iam_policy_unlisted),
    },
    Rule {
        id: "self-managed-efa-placement",
        severity: Severity::Error,
        summary: "a self-managed EFA group lists more than one subnet or zone",
        help: "give the group one entry of availabilityZones or subnets: EFA traffic stays within one zone",
        reference: "eksctl pkg/apis/eksctl.io/v1alpha5/validation.go validateNodeGroupBase, for both kinds of group (\"efaEnabled nodegroups must have only one subnet or one availability zone\")",
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Document(self_managed_efa_placement),
    },
    Rule {
        id: "self-managed-efa-instance-type",
        severity: Severity::Error,
        summary: "a self-managed EFA group has an instance type without EFA",
        help: "use instance types with EFA (p4d, p5, trn1 and others the catalog marks), or set efaEnabled to false",
        reference: "eksctl pkg/cfn/builder/nodegroup.go calls network_interfaces.go buildNetworkInterfaces for a self-managed group: DescribeInstanceTypes, then \"instance type %s does not support EFA\", before the group's stack is made (after the cluster's)",
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Document(self_managed_efa_instance_type),
    },
    Rule {
        id: "self-managed-no-subnet-of-its-kind",
        severity: Severity::Error,
        summary: "a self-managed group is public (or private) in a VPC given without public (or private) subnets",
        help: "set privateNetworking to match the subnets the VPC has, or list subnets of the group's kind",
        reference: "eksctl pkg/cfn/builder/nodegroup.go AssignSubnets: a group that names no zone or subnet gets the VPC's subnets of its kind (public unless privateNetworking), so an empty list for its Auto Scaling group; one that names zones gets pkg/vpc/vpc.go SelectNodeGroupSubnets' \"could not find public subnets for zones\"; either way after the cluster's stack; a private group is refused before anything is made by ClusterConfig.CanUseForPrivateNodeGroups (pkg/apis/eksctl.io/v1alpha5/vpc.go, from pkg/ctl/create/cluster.go createOrImportVPC: fewer than MinRequiredSubnets, 2)",
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Document(self_managed_no_subnet_of_its_kind),
    },
    Rule {
        id: "iam-policy-not-attachable",
        severity: Severity::Error,
        summary: "a service-linked role's AWS managed policy (path aws-service-role/) is attached to a role eksctl makes",
        help: "attach the service's ordinary managed policy instead: AWS attaches aws-service-role/ policies to its service-linked roles only",
        reference: "IAM AttachRolePolicy, and CloudFormation's ManagedPolicyArns through it, refuse an aws-service-role/ policy on a role an account makes (PolicyNotAttachable: \"Cannot attach a Service Role Policy to a Customer Role.\"); eksctl puts attachPolicyARNs and permissionPolicyARNs in its roles' ManagedPolicyArns",
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Document(iam_policy_not_attachable),
    },
];

/// A ClusterConfig whose node groups all run Windows (eksctl's amiFamily
/// `WindowsServer…`) and that has no EKS Auto Mode, which would run the system pods itself.
fn windows_only_node_groups(document: Node<'_>, report: &mut Report<'_>) {
    let groups = all_groups(document);
    let windows = |group: Node<'_>| {
        text(group, "amiFamily").is_some_and(|family| family.starts_with("WindowsServer"))
    };
    let auto_mode = document
        .get("autoModeConfig")
        .and_then(|config| config.get("enabled"))
        .and_then(Node::as_bool)
        == Some(true);
    if groups.is_empty() || auto_mode || !groups.iter().all(|(_, group)| windows(*group)) {
        return;
    }
    report.fire(
        format!("{}.amiFamily", groups[0].0),
        "every node group runs Windows: CoreDNS and the other system pods need a Linux node, so they stay Pending (eksctl only warns: \"a Linux node group is required to support Windows workloads\")",
    );
}

/// Managed and self-managed node groups, each with its path.
fn all_groups(document: Node<'_>) -> Vec<(String, Node<'_>)> {
    groups(document)
        .into_iter()
        .map(|(path, _, group)| (path, group))
        .collect()
}

fn eksctl_schema(document: Node<'_>, report: &mut Report<'_>) {
    if is_cluster_config(document) {
        for issue in report.schema_issues(|| schema_check::check_cluster_config(document)) {
            if !matches!(issue.kind, SchemaIssueKind::AcceptedAndDropped { .. }) {
                report.fire(issue.path.to_string(), issue.message.clone());
            }
        }
    }
}

fn eksctl_key_dropped(document: Node<'_>, report: &mut Report<'_>) {
    if is_cluster_config(document) {
        for issue in report.schema_issues(|| schema_check::check_cluster_config(document)) {
            if matches!(issue.kind, SchemaIssueKind::AcceptedAndDropped { .. }) {
                report.fire(issue.path.to_string(), issue.message.clone());
            }
        }
    }
}

fn karpenter_schema(document: Node<'_>, report: &mut Report<'_>) {
    if matches!(
        DocumentKind::of(document),
        DocumentKind::NodePool | DocumentKind::Ec2NodeClass | DocumentKind::NodeOverlay
    ) {
        for issue in report.schema_issues(|| schema_check::check_karpenter(document)) {
            match &issue.kind {
                SchemaIssueKind::RuleBroken { .. } => {}
                // A template's `<<AMI_ID>>` or `${CLUSTER_NAME}` is named as what it is.
                SchemaIssueKind::PatternMismatch { pattern, found }
                    if crate::model::ids::is_placeholder(found) =>
                {
                    report.fire(
                        issue.path.to_string(),
                        format!(
                            "`{found}` is a placeholder; fill in the real value (as written, the API server refuses it: it does not match the pattern `{pattern}`)"
                        ),
                    );
                }
                _ => report.fire(issue.path.to_string(), issue.message.clone()),
            }
        }
    }
}

fn karpenter_crd_rule(document: Node<'_>, report: &mut Report<'_>) {
    if matches!(
        DocumentKind::of(document),
        DocumentKind::NodePool | DocumentKind::Ec2NodeClass | DocumentKind::NodeOverlay
    ) {
        for issue in report.schema_issues(|| schema_check::check_karpenter(document)) {
            if matches!(issue.kind, SchemaIssueKind::RuleBroken { .. }) {
                report.fire(issue.path.to_string(), issue.message.clone());
            }
        }
    }
}

fn cluster_zones_with_vpc_subnets(document: Node<'_>, report: &mut Report<'_>) {
    let has_subnets = document
        .get("vpc")
        .and_then(|vpc| vpc.get("subnets"))
        .is_some();
    if is_cluster_config(document) && document.get("availabilityZones").is_some() && has_subnets {
        report.fire(
            "availabilityZones",
            "availabilityZones cannot be set together with vpc.subnets",
        );
    }
}

fn nodegroup_subnets_and_zones(document: Node<'_>, report: &mut Report<'_>) {
    for (path, group) in all_groups(document) {
        if group.get("subnets").is_some() && group.get("availabilityZones").is_some() {
            report.fire(
                format!("{path}.availabilityZones"),
                "the group sets both subnets and availabilityZones",
            );
        }
    }
}

fn private_cluster_needs_private_networking(document: Node<'_>, report: &mut Report<'_>) {
    let private = document
        .get("privateCluster")
        .and_then(|private| private.get("enabled"))
        .and_then(Node::as_bool)
        == Some(true);
    if !private {
        return;
    }
    for (path, group) in all_groups(document) {
        if group.get("privateNetworking").and_then(Node::as_bool) != Some(true) {
            report.fire(
                format!("{path}.privateNetworking"),
                "the cluster is fully private, but this group does not set privateNetworking: true",
            );
        }
    }
}

fn nodegroup_name_collision(document: Node<'_>, report: &mut Report<'_>) {
    // Name → where it was first used: one lookup per group, so the rule stays linear in
    // the number of groups (a search of every earlier group was quadratic).
    let mut seen: std::collections::HashMap<&str, String> = std::collections::HashMap::new();
    for (path, group) in all_groups(document) {
        let Some(name) = group.get("name").and_then(Node::as_str) else {
            continue;
        };
        match seen.get(name) {
            Some(first) => report.fire(
                format!("{path}.name"),
                format!("node group name `{name}` is already used at {first}"),
            ),
            None => {
                seen.insert(name, path);
            }
        }
    }
}

fn reservation(group: Node<'_>) -> Option<Node<'_>> {
    group.get("capacityReservation")
}

fn capacity_reservation_preference_and_target(document: Node<'_>, report: &mut Report<'_>) {
    for (path, group) in all_groups(document) {
        if let Some(reservation) = reservation(group)
            && reservation.get("capacityReservationPreference").is_some()
            && reservation.get("capacityReservationTarget").is_some()
        {
            report.fire(
                format!("{path}.capacityReservation"),
                "capacityReservationPreference and capacityReservationTarget are both set",
            );
        }
    }
}

fn capacity_reservation_preference_value(document: Node<'_>, report: &mut Report<'_>) {
    for (path, group) in all_groups(document) {
        if let Some(preference) = reservation(group)
            .and_then(|reservation| reservation.get("capacityReservationPreference"))
            .and_then(Node::as_str)
            && !matches!(preference, "open" | "none")
        {
            report.fire(
                format!("{path}.capacityReservation.capacityReservationPreference"),
                format!("capacityReservationPreference `{preference}` is not open or none"),
            );
        }
    }
}

fn capacity_reservation_id_and_arn(document: Node<'_>, report: &mut Report<'_>) {
    for (path, group) in all_groups(document) {
        if let Some(target) =
            reservation(group).and_then(|reservation| reservation.get("capacityReservationTarget"))
            && target.get("capacityReservationID").is_some()
            && target.get("capacityReservationResourceGroupARN").is_some()
        {
            report.fire(
                format!("{path}.capacityReservation.capacityReservationTarget"),
                "capacityReservationID and capacityReservationResourceGroupARN are both set",
            );
        }
    }
}

fn market_type(group: Node<'_>) -> Option<Node<'_>> {
    group
        .get("instanceMarketOptions")
        .and_then(|options| options.get("marketType"))
}

fn market_type_invalid(document: Node<'_>, report: &mut Report<'_>) {
    for (path, group) in all_groups(document) {
        if let Some(market) = market_type(group)
            && market.as_str() != Some("capacity-block")
        {
            let shown = yaml_serde::to_string(&market.to_value()).unwrap_or_default();
            report.fire(
                format!("{path}.instanceMarketOptions.marketType"),
                format!("marketType `{}` is not capacity-block", shown.trim()),
            );
        }
    }
}

fn market_type_without_reservation(document: Node<'_>, report: &mut Report<'_>) {
    for (path, group) in all_groups(document) {
        if group.get("instanceMarketOptions").is_some() && reservation(group).is_none() {
            report.fire(
                format!("{path}.instanceMarketOptions"),
                "instanceMarketOptions is set without a capacityReservation",
            );
        }
    }
}

fn spot_with_reservation(document: Node<'_>, report: &mut Report<'_>) {
    for (path, group) in all_groups(document) {
        if group.get("spot").and_then(Node::as_bool) == Some(true) && reservation(group).is_some() {
            report.fire(
                format!("{path}.spot"),
                "the group asks for Spot and a capacity reservation",
            );
        }
    }
}

fn override_bootstrap_needs_ami(document: Node<'_>, report: &mut Report<'_>) {
    for (path, kind, group) in groups(document) {
        if kind != Kind::Managed || group.get("overrideBootstrapCommand").is_none() {
            continue;
        }
        let family = group
            .get("amiFamily")
            .and_then(Node::as_str)
            .unwrap_or("AmazonLinux2023");
        let path = format!("{path}.overrideBootstrapCommand");
        if family.starts_with("Bottlerocket") {
            report.fire(
                path,
                format!("{family} does not accept overrideBootstrapCommand"),
            );
        } else if family != "AmazonLinux2023" && group.get("ami").is_none() {
            report.fire(
                path,
                format!("on {family}, overrideBootstrapCommand needs a custom `ami`"),
            );
        }
    }
}

/// eksctl's own words when it builds a self-managed group's stack, in its order: an
/// unset `minSize` becomes `desiredCapacity` or 2 (no error), then `desiredCapacity` is
/// checked against `maxSize`, then `maxSize` against the (defaulted) `minSize`.
/// The control plane tiers EKS offers (`ProvisionedControlPlaneTier`).
const CONTROL_PLANE_TIERS: &[&str] = &["standard", "tier-xl", "tier-2xl", "tier-4xl"];

fn control_plane_tier_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    let Some(tier) = document
        .get("controlPlaneScalingConfig")
        .and_then(|config| config.get("tier"))
        .and_then(Node::as_str)
    else {
        return;
    };
    if !CONTROL_PLANE_TIERS.contains(&tier) {
        report.fire(
            "controlPlaneScalingConfig.tier",
            format!(
                "EKS offers control plane tiers {}; `{tier}` is not one: eksctl passes it on unchecked and the cluster's CloudFormation stack fails",
                CONTROL_PLANE_TIERS.join(", ")
            ),
        );
    }
}

fn self_managed_nodegroup_size_order(document: Node<'_>, report: &mut Report<'_>) {
    const DEFAULT_NODE_COUNT: i64 = 2;
    for (path, kind, group) in groups(document) {
        if kind != Kind::SelfManaged {
            continue;
        }
        let name = text(group, "name").unwrap_or_default();
        let (min, desired, max) = (
            number(group, "minSize"),
            number(group, "desiredCapacity"),
            number(group, "maxSize"),
        );
        let refusal = |key: &str, words: String| {
            (
                format!("{path}.{key}"),
                format!(
                    "eksctl creates the cluster, then fails building node group `{name}`'s stack: {words}"
                ),
            )
        };
        let found = match (min, desired, max) {
            (Some(min), Some(desired), _) if desired < min => Some(refusal(
                "desiredCapacity",
                format!("--nodes value ({desired}) cannot be lower than --nodes-min value ({min})"),
            )),
            (_, Some(desired), Some(max)) if desired > max => Some(refusal(
                "desiredCapacity",
                format!(
                    "--nodes value ({desired}) cannot be greater than --nodes-max value ({max})"
                ),
            )),
            (_, _, Some(max)) => {
                let min = min.or(desired).unwrap_or(DEFAULT_NODE_COUNT);
                (max < min).then(|| {
                    refusal(
                        "maxSize",
                        format!("--nodes-min value ({min}) cannot be greater than --nodes-max value ({max})"),
                    )
                })
            }
            _ => None,
        };
        if let Some((at, message)) = found {
            report.fire(at, message);
        }
    }
}

/// What IAM has for an AWS managed policy ARN's path and name, by AWS's list.
enum PolicyVerdict {
    /// Listed, or the list is not built in.
    Known,
    /// The same name is listed under another path: that one is the policy.
    Elsewhere(&'static str),
    /// Not listed, and one or two edits from a listed name that is not its numbered sibling.
    NearMiss(&'static str),
    /// Not listed; the nearest listed one, if any is near.
    Unlisted(Option<&'static str>),
}

fn policy_verdict(written: &str) -> PolicyVerdict {
    use crate::catalog::policies::{aws_managed, name_of};
    let Some(listed) = aws_managed() else {
        return PolicyVerdict::Known;
    };
    if listed.binary_search(&written).is_ok() {
        return PolicyVerdict::Known;
    }
    let name = name_of(written);
    if let Some(entry) = listed.iter().find(|entry| name_of(entry) == name) {
        return PolicyVerdict::Elsewhere(entry);
    }
    let lowered = name.to_ascii_lowercase();
    let nearest = listed
        .iter()
        .filter(|entry| name_of(entry).len().abs_diff(name.len()) <= 2)
        .filter_map(|entry| {
            schema_check::bounded_edit_distance(&lowered, &name_of(entry).to_ascii_lowercase(), 2)
                .map(|distance| (distance, *entry))
        })
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, entry)| entry);
    match nearest {
        // A name in another case may be IAM's own, and a numbered sibling
        // (`…PolicyV2` beside `…Policy`) may be one AWS published since the list.
        Some(entry)
            if !name.eq_ignore_ascii_case(name_of(entry))
                && !numbered_siblings(name, name_of(entry)) =>
        {
            PolicyVerdict::NearMiss(entry)
        }
        other => PolicyVerdict::Unlisted(other),
    }
}

/// Two names that differ only in a version number: digits in place of digits, or a
/// `V2`-style suffix on one.
fn numbered_siblings(one: &str, other: &str) -> bool {
    let (short, long) = if one.len() <= other.len() {
        (one, other)
    } else {
        (other, one)
    };
    if let Some(suffix) = long.strip_prefix(short) {
        let digits = suffix.strip_prefix(['V', 'v']).unwrap_or(suffix);
        return !digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit());
    }
    short.len() == long.len()
        && short
            .bytes()
            .zip(long.bytes())
            .all(|(a, b)| a == b || (a.is_ascii_digit() && b.is_ascii_digit()))
}

/// Every string of a ClusterConfig that is an AWS managed policy's ARN, with its path:
/// node groups', service accounts', Pod Identity associations' and add-ons' policies and
/// every permissions boundary.
fn aws_policy_arns(document: Node<'_>) -> Vec<(String, &str)> {
    fn walk<'a>(value: Node<'a>, path: &str, found: &mut Vec<(String, &'a str)>) {
        match value.kind() {
            NodeKind::String(text) => {
                if let Some(rest) = text.strip_prefix(crate::catalog::policies::ARN_PREFIX)
                    && !crate::model::ids::is_placeholder(text)
                {
                    found.push((path.to_owned(), rest));
                }
            }
            NodeKind::Sequence(items) => {
                for (index, item) in items.iter().enumerate() {
                    walk(item, &format!("{path}[{index}]"), found);
                }
            }
            NodeKind::Mapping(mapping) => {
                for (key, item) in mapping {
                    if let Some(key) = key.as_str() {
                        let at = if path.is_empty() {
                            key.to_owned()
                        } else {
                            super::reading::child(path, key)
                        };
                        walk(item, &at, found);
                    }
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    if is_cluster_config(document) {
        walk(document, "", &mut found);
    }
    found
}

fn iam_policy_not_found(document: Node<'_>, report: &mut Report<'_>) {
    use crate::catalog::policies::ARN_PREFIX;
    for (path, written) in aws_policy_arns(document) {
        let message = match policy_verdict(written) {
            PolicyVerdict::Elsewhere(entry) => format!(
                "IAM has no policy `{ARN_PREFIX}{written}`: AWS's policy of that name is `{ARN_PREFIX}{entry}`, and the path is part of its ARN, so the stack that makes this role fails (NoSuchEntity: \"does not exist or is not attachable\")"
            ),
            PolicyVerdict::NearMiss(entry) => format!(
                "IAM has no policy `{ARN_PREFIX}{written}` (did you mean `{ARN_PREFIX}{entry}`?): the stack that makes this role fails (NoSuchEntity: \"does not exist or is not attachable\")"
            ),
            PolicyVerdict::Known | PolicyVerdict::Unlisted(_) => continue,
        };
        report.fire(path, message);
    }
}

fn iam_policy_unlisted(document: Node<'_>, report: &mut Report<'_>) {
    use crate::catalog::policies::ARN_PREFIX;
    for (path, written) in aws_policy_arns(document) {
        if let PolicyVerdict::Unlisted(nearest) = policy_verdict(written) {
            let hint = nearest
                .map(|entry| format!(" (the nearest is `{ARN_PREFIX}{entry}`)"))
                .unwrap_or_default();
            report.fire(
                path,
                format!(
                    "`{ARN_PREFIX}{written}` is not among AWS's managed policies of 2026-10-31{hint}: unless AWS published it since, the stack that makes this role fails (NoSuchEntity)"
                ),
            );
        }
    }
}

/// Self-managed groups with `efaEnabled: true`, with their paths.
fn self_managed_efa_groups(document: Node<'_>) -> impl Iterator<Item = (String, Node<'_>)> {
    groups(document)
        .into_iter()
        .filter(|(_, kind, group)| {
            *kind == Kind::SelfManaged
                && group.get("efaEnabled").and_then(Node::as_bool) == Some(true)
        })
        .map(|(path, _, group)| (path, group))
}

fn self_managed_efa_placement(document: Node<'_>, report: &mut Report<'_>) {
    for (path, group) in self_managed_efa_groups(document) {
        for key in ["availabilityZones", "subnets"] {
            let count = group
                .get(key)
                .and_then(Node::as_sequence)
                .map_or(0, Seq::len);
            if count > 1 {
                report.fire(
                    format!("{path}.{key}"),
                    format!(
                        "{path} has efaEnabled and {count} {key}: eksctl refuses it (\"{path}.efaEnabled nodegroups must have only one subnet or one availability zone\")"
                    ),
                );
            }
        }
    }
}

fn self_managed_efa_instance_type(document: Node<'_>, report: &mut Report<'_>) {
    use crate::catalog::instances;
    for (path, group) in self_managed_efa_groups(document) {
        let single = text(group, "instanceType")
            .filter(|name| *name != "mixed")
            .map(|name| (format!("{path}.instanceType"), name));
        let distribution = group
            .get("instancesDistribution")
            .and_then(|distribution| distribution.get("instanceTypes"))
            .and_then(Node::as_sequence)
            .into_iter()
            .flatten()
            .enumerate()
            .filter_map(|(index, name)| {
                name.as_str().map(|name| {
                    (
                        format!("{path}.instancesDistribution.instanceTypes[{index}]"),
                        name,
                    )
                })
            });
        for (at, name) in single.into_iter().chain(distribution) {
            // A type the catalog does not know is the instance-type rules' to judge.
            if instances::lookup(name).is_some_and(|instance| !instance.efa_supported) {
                report.fire(
                    at,
                    format!(
                        "{name} has no EFA, and {path} has efaEnabled: eksctl stops before making the group's stack (\"instance type {name} does not support EFA\")"
                    ),
                );
            }
        }
    }
}

fn self_managed_no_subnet_of_its_kind(document: Node<'_>, report: &mut Report<'_>) {
    let Some(subnets) = document
        .get("vpc")
        .and_then(|vpc| vpc.get("subnets"))
        .filter(|subnets| subnets.is_mapping())
    else {
        // eksctl makes a new VPC with subnets of both kinds.
        return;
    };
    let count = |kind: &str| {
        subnets
            .get(kind)
            .and_then(Node::as_mapping)
            .map_or(0, |mapping| mapping.len())
    };
    let (public, private) = (count("public"), count("private"));
    if public + private == 0 {
        return;
    }
    for (path, kind, group) in groups(document) {
        let names_own = ["subnets", "localZones", "outpostARN"]
            .iter()
            .any(|key| group.get(key).is_some_and(|value| !value.is_null()));
        if kind != Kind::SelfManaged || names_own {
            continue;
        }
        let private_networking =
            group.get("privateNetworking").and_then(Node::as_bool) == Some(true);
        let (own, other) = if private_networking {
            ("private", "public")
        } else {
            ("public", "private")
        };
        if count(own) > 0 {
            continue;
        }
        let zones = group
            .get("availabilityZones")
            .and_then(Node::as_sequence)
            .is_some_and(|zones| !zones.is_empty());
        let outcome = if private_networking {
            "eksctl refuses it before it creates anything (\"none or too few private subnets to use with --node-private-networking\")".to_owned()
        } else if zones {
            format!(
                "eksctl refuses it when it builds the group's stack, after the cluster's (\"could not find {own} subnets for zones …\")"
            )
        } else {
            "eksctl gives its Auto Scaling group the VPC's subnets of its kind, none, and the group's stack fails after the cluster's".to_owned()
        };
        let networking = if private_networking {
            "private (privateNetworking on)"
        } else {
            "public (privateNetworking off)"
        };
        report.fire(
            path.clone(),
            format!(
                "{path} is {networking}, and vpc.subnets lists {other} subnets only: {outcome}"
            ),
        );
    }
}

fn iam_policy_not_attachable(document: Node<'_>, report: &mut Report<'_>) {
    use crate::catalog::policies::ARN_PREFIX;
    for (path, written) in aws_policy_arns(document) {
        // Only the lists eksctl attaches; a permissions boundary is another use.
        let attached = path.contains("PolicyARNs[");
        if attached
            && written.starts_with("aws-service-role/")
            && matches!(policy_verdict(written), PolicyVerdict::Known)
        {
            report.fire(
                path,
                format!(
                    "`{ARN_PREFIX}{written}` is a service-linked role's policy: IAM refuses to attach it to the role eksctl makes (PolicyNotAttachable: \"Cannot attach a Service Role Policy to a Customer Role.\"), and the role's stack fails"
                ),
            );
        }
    }
}
