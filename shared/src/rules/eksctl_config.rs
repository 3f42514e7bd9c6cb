//! eksctl's own config validation, read as the facts: `ValidateClusterConfig`,
//! `ValidateNodeGroup` and `ValidateManagedNodeGroup` in eksctl's
//! `pkg/apis/eksctl.io/v1alpha5/validation.go`, with the defaults eksctl applies before them
//! (`SetClusterConfigDefaults` before the cluster checks, `SetManagedNodeGroupDefaults`
//! before the managed group checks, self-managed groups checked before their defaults).
//! Each rule here is one that eksctl refuses the file for, checked on the document as
//! written; what the spec models is checked by the spec rules instead.

use crate::fields;
use crate::yaml::node::{Node, Seq};

use super::eksctl_node_groups::{
    ami_family, instances_distribution_invalid, is_amazon_linux,
    managed_nodegroup_unsupported_field, managed_nodegroup_update_config_invalid,
    nodegroup_ami_invalid, nodegroup_field_conflict, nodegroup_label_invalid,
    nodegroup_taint_malformed, nodegroup_volume_invalid, self_managed_nodegroup_invalid,
};
use super::reading::{
    Kind, enabled, flag, groups, has, is_cluster_config, list, non_empty, number, text,
};
use super::syntax::{is_arn, is_cidr};
use super::{Check, Report, Rule, Severity, Stage};

macro_rules! eksctl_rule {
    ($id:literal, $summary:literal, $help:literal, $where:literal, $check:ident) => {
        Rule {
            id: $id,
            severity: Severity::Error,
            summary: $summary,
            help: $help,
            reference: concat!(
                "eksctl pkg/apis/eksctl.io/v1alpha5/validation.go ",
                $where,
                "; eksctl refuses the file before calling AWS"
            ),
            live: false,
            stage: Stage::EksctlValidation,
            check: Check::Document($check),
        }
    };
}

pub(super) static RULES: &[Rule] = &[
    eksctl_rule!(
        "nodegroup-name-missing",
        "every node group needs a name",
        "give the group a `name`",
        "(validateNg)",
        nodegroup_name_missing
    ),
    eksctl_rule!(
        "service-account-invalid",
        "an IAM service account lacks its name or policies, is listed twice, or OIDC is off",
        "set `iam.withOIDC: true`, a name, and one of wellKnownPolicies, attachPolicyARNs, attachPolicy or attachRoleARN",
        "(ValidateClusterConfig, iam.serviceAccounts)",
        service_account_invalid
    ),
    eksctl_rule!(
        "pod-identity-association-invalid",
        "a pod identity association lacks its namespace, service account or role, or its permissionPolicyName or an add-on's pod identity settings are not allowed",
        "give each association a namespace, a serviceAccountName and either roleARN or policies for the role eksctl creates; permissionPolicyName together with permissionPolicy; on add-ons, useDefaultPodIdentityAssociations or podIdentityAssociations, not both",
        "(validatePermissionPolicyName, validateAddonPodIdentityAssociations); pkg/ctl/cmdutils/pod_identity_association.go (validatePodIdentityAssociations, from the create-cluster loader) and addon.go (Addon.Validate)",
        pod_identity_association_invalid
    ),
    eksctl_rule!(
        "cluster-logging-invalid",
        "CloudWatch log types or retention are not ones EKS and CloudWatch accept",
        "enable api, audit, authenticator, controllerManager or scheduler (or all), and a retention CloudWatch offers",
        "(validateCloudWatchLogging)",
        cluster_logging_invalid
    ),
    eksctl_rule!(
        "upgrade-policy-invalid",
        "upgradePolicy.supportType or rollbackConfig.timeoutMinutes is out of range",
        "supportType is STANDARD or EXTENDED; timeoutMinutes is 120 to 10080",
        "(validateSupportType, validateRollbackConfig)",
        upgrade_policy_invalid
    ),
    eksctl_rule!(
        "vpc-config-invalid",
        "the VPC settings contradict each other (CIDRs, security groups, IPv6, endpoints, hostname type)",
        "fix the field the message names",
        "(ValidateVPCConfig, ValidateClusterEndpointConfig, ValidatePrivateCluster)",
        vpc_config_invalid
    ),
    eksctl_rule!(
        "control-plane-private-subnets-invalid",
        "controlPlaneOnPrivateSubnets needs two private subnets in two zones and no controlPlaneSubnetIDs",
        "list at least two private subnets in different zones, or drop controlPlaneSubnetIDs",
        "(validateControlPlaneOnPrivateSubnets)",
        control_plane_private_subnets_invalid
    ),
    eksctl_rule!(
        "kubernetes-network-config-invalid",
        "kubernetesNetworkConfig has an unknown ipFamily, a malformed service CIDR, or IPv6 without its add-ons",
        "ipFamily is IPv4 or IPv6; IPv6 needs the coredns add-on (or Auto Mode) and no serviceIPv4CIDR",
        "(validateKubernetesNetworkConfig)",
        kubernetes_network_config_invalid
    ),
    eksctl_rule!(
        "secrets-encryption-invalid",
        "secretsEncryption needs a KMS key ARN",
        "set secretsEncryption.keyARN to the key's full ARN",
        "(ValidateSecretsEncryption)",
        secrets_encryption_invalid
    ),
    eksctl_rule!(
        "outposts-unsupported-setting",
        "a setting eksctl refuses for a control plane on AWS Outposts (add-ons, Fargate, Karpenter, IPv6, OIDC, zones...)",
        "remove the setting, or create the cluster outside Outposts",
        "(ValidateClusterConfig, Outposts; validateNodeGroupBase, local clusters)",
        outposts_unsupported_setting
    ),
    eksctl_rule!(
        "remote-network-config-invalid",
        "remoteNetworkConfig (hybrid nodes) is missing its networks, has more than one, or a gateway or IAM provider eksctl refuses",
        "one remoteNodeNetworks entry (and at most one remotePodNetworks); vpcGatewayID tgw-* or vgw-* for a new VPC only; iam.provider SSM or IRA",
        "(validateRemoteNetworkingConfig)",
        remote_network_config_invalid
    ),
    eksctl_rule!(
        "iam-identity-mapping-invalid",
        "an iamIdentityMappings entry mixes account, serviceName and ARN options eksctl keeps apart",
        "give an account alone, a serviceName with its namespace, or an arn with username and groups",
        "(validateIAMIdentityMappings, IAMIdentityMapping.Validate)",
        iam_identity_mapping_invalid
    ),
    eksctl_rule!(
        "addon-config-invalid",
        "an add-on has no name, unreadable configurationValues, a bad namespace, or IAM settings eksctl refuses together",
        "name the add-on; give configurationValues as JSON or YAML; use IRSA (one of its policy fields) or pod identity associations, not both",
        "(Addon.Validate, checkAtMostOnePolicyProviderIsSet)",
        addon_config_invalid
    ),
    eksctl_rule!(
        "gitops-flux-invalid",
        "gitops.flux needs its gitProvider and flags",
        "set gitops.flux.gitProvider (github, gitlab…) and gitops.flux.flags for flux bootstrap",
        "(pkg/ctl/cmdutils/configfile.go, create cluster loader)",
        gitops_flux_invalid
    ),
    eksctl_rule!(
        "karpenter-block-invalid",
        "eksctl's karpenter block needs a version of at least v0.20.0 and iam.withOIDC: true",
        "set karpenter.version and iam.withOIDC: true, or install Karpenter with Helm as the studio's bundle does",
        "(validateKarpenterConfig)",
        karpenter_block_invalid
    ),
    eksctl_rule!(
        "identity-provider-invalid",
        "an OIDC identity provider lacks its name, clientID or issuerURL",
        "set name, clientID and issuerURL",
        "(validateIdentityProvider)",
        identity_provider_invalid
    ),
    eksctl_rule!(
        "fargate-profile-invalid",
        "a Fargate profile has no name, an `eks-` name, or a selector without a namespace",
        "name the profile (not starting with eks-) and give each selector a namespace",
        "(FargateProfile.Validate)",
        fargate_profile_invalid
    ),
    eksctl_rule!(
        "nodegroup-volume-invalid",
        "a node group's volume settings do not fit its volume type (IOPS, throughput, KMS key, size)",
        "IOPS only on gp3/io1/io2 within their ranges, throughput only on gp3 (125-1000), a KMS key only with volumeEncrypted: true",
        "(validateNodeGroupBase, validateVolumeOpts)",
        nodegroup_volume_invalid
    ),
    eksctl_rule!(
        "self-managed-nodegroup-label-invalid",
        "a self-managed group's node label is not a valid Kubernetes label, or uses a reserved kubernetes.io/k8s.io prefix",
        "keys are `[prefix/]name` (name up to 63 characters of letters, digits, `-_.`); kubernetes.io and k8s.io prefixes are only for the kubelet's own labels",
        "(validateLabels)",
        nodegroup_label_invalid
    ),
    eksctl_rule!(
        "self-managed-nodegroup-taint-invalid",
        "a self-managed group's taint has no key, a malformed key or value, or an unknown effect",
        "keys are `[prefix/]name`, values up to 63 characters of letters, digits, `-_.`; effects NoSchedule, PreferNoSchedule or NoExecute",
        "(validateTaints, k8s taints.Validate)",
        nodegroup_taint_malformed
    ),
    eksctl_rule!(
        "nodegroup-field-conflict",
        "two node group settings eksctl refuses together",
        "keep one of the two fields the message names",
        "(validateNodeGroupBase, validateNodeGroupIAM, validateNodeGroupSSH, ValidateManagedNodeGroup)",
        nodegroup_field_conflict
    ),
    eksctl_rule!(
        "nodegroup-ami-invalid",
        "an `ami` value, custom AMI, AMI family or Bottlerocket setting eksctl does not accept for this group",
        "write `ami` as an AMI id (or `auto`/`auto-ssm` on a self-managed group); set amiFamily with a custom ami, overrideBootstrapCommand where eksctl needs it, and Bottlerocket fields only on Bottlerocket",
        "(ValidateNodeGroup, ValidateManagedNodeGroup: \"invalid AMI\", checkBottlerocketSettings; defaults.go for AmazonLinux2 from Kubernetes 1.33); pkg/eks/api.go ResolveAMI (\"invalid AMI value\", a self-managed group's, before any stack)",
        nodegroup_ami_invalid
    ),
    eksctl_rule!(
        "managed-nodegroup-unsupported-field",
        "a field managed node groups do not take, or one a launch template replaces",
        "remove the field, or use a self-managed nodeGroups entry",
        "(ValidateManagedNodeGroup)",
        managed_nodegroup_unsupported_field
    ),
    eksctl_rule!(
        "managed-nodegroup-update-config-invalid",
        "updateConfig needs exactly one of maxUnavailable and maxUnavailablePercentage, within maxSize",
        "set maxUnavailable (at most maxSize) or maxUnavailablePercentage",
        "(ValidateManagedNodeGroup, updateConfig)",
        managed_nodegroup_update_config_invalid
    ),
    eksctl_rule!(
        "instances-distribution-invalid",
        "a self-managed group's instancesDistribution or instance selector settings are out of range",
        "instanceType `mixed` or unset; 1-20 instance types; percentages 0-100; spotInstancePools 1-20 and not with capacity-optimized strategies",
        "(validateInstancesDistribution)",
        instances_distribution_invalid
    ),
    eksctl_rule!(
        "self-managed-nodegroup-invalid",
        "a self-managed group's name, cpuCredits, asgSuspendProcesses, containerRuntime, lifetime or kubelet settings are not accepted",
        "fix the field the message names",
        "(validateNodeGroupName, validateCPUCredits, validateASGSuspendProcesses, ValidateNodeGroup, validateNodeGroupKubeletExtraConfig)",
        self_managed_nodegroup_invalid
    ),
];

// --- cluster-level rules

fn nodegroup_name_missing(document: Node<'_>, report: &mut Report<'_>) {
    for (path, _, group) in groups(document) {
        // An empty item (`-` alone) is refused by eksctl's loader before validation
        // (pkg/ctl/cmdutils/configfile.go).
        if group.is_null() {
            report.fire(
                path.clone(),
                format!("{path} is empty: eksctl refuses the file (\"invalid ClusterConfig: {path} is not set\")"),
            );
        } else if non_empty(group, "name").is_none() {
            report.fire(format!("{path}.name"), format!("{path}.name must be set"));
        }
    }
}

fn service_account_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    let Some(iam) = document.get("iam") else {
        return;
    };
    let accounts = list(iam, "serviceAccounts");
    // eksctl defaults withOIDC to false before validating, so unset counts as off.
    if !accounts.is_empty() && !enabled(iam, "withOIDC") {
        report.fire(
            "iam.withOIDC",
            "iam.withOIDC must be true for iam.serviceAccounts to be created",
        );
    }
    let mut seen = std::collections::HashMap::new();
    for (index, account) in accounts.iter().enumerate() {
        let path = format!("iam.serviceAccounts[{index}]");
        let metadata = account.get("metadata").unwrap_or(Node::null());
        let Some(name) = non_empty(metadata, "name") else {
            report.fire(
                format!("{path}.metadata.name"),
                format!("{path}.name must be set"),
            );
            continue;
        };
        let namespace = non_empty(metadata, "namespace").unwrap_or("default");
        let key = format!("{namespace}/{name}");
        if let Some(first) = seen.get(&key) {
            report.fire(
                format!("{path}.metadata.name"),
                format!("service account `{key}` is already listed at {first}"),
            );
        } else {
            seen.insert(key, path.clone());
        }
        let well_known = account
            .get("wellKnownPolicies")
            .and_then(Node::as_mapping)
            .is_some_and(|policies| policies.values().any(|on| on.as_bool() == Some(true)));
        if !well_known
            && !has(account, "attachPolicyARNs")
            && account.get("attachPolicy").is_none()
            && !has(account, "attachRoleARN")
        {
            report.fire(
                path.clone(),
                format!("{path} needs wellKnownPolicies, attachPolicyARNs, attachPolicy or attachRoleARN"),
            );
        }
    }
}

fn permission_policy_name_problem(association: Node<'_>) -> Option<String> {
    let name = non_empty(association, "permissionPolicyName")?;
    if !has(association, "permissionPolicy") {
        return Some("permissionPolicyName requires permissionPolicy to be set".into());
    }
    (!name.bytes().any(|byte| byte.is_ascii_alphanumeric()))
        .then(|| format!("permissionPolicyName `{name}` must contain at least one letter or digit"))
}

fn pod_identity_association_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    if let Some(iam) = document.get("iam") {
        for (index, association) in list(iam, "podIdentityAssociations").iter().enumerate() {
            association_incomplete(
                &format!("iam.podIdentityAssociations[{index}]"),
                association,
                report,
            );
            if let Some(problem) = permission_policy_name_problem(association) {
                report.fire(
                    format!("iam.podIdentityAssociations[{index}].permissionPolicyName"),
                    problem,
                );
            }
        }
    }
    for (index, addon) in list(document, "addons").iter().enumerate() {
        let path = fields::item(fields::ADDON_ITEM, &[index]);
        let name = text(addon, "name").unwrap_or("");
        let associations = list(addon, "podIdentityAssociations");
        for (item, association) in associations.iter().enumerate() {
            let at = format!("{path}.podIdentityAssociations[{item}]");
            association_incomplete(&at, association, report);
            if has(association, "wellKnownPolicies") {
                report.fire(
                    format!("{at}.wellKnownPolicies"),
                    format!("wellKnownPolicies is not supported for addon.podIdentityAssociations (addon {name}); use useDefaultPodIdentityAssociations"),
                );
            }
            if association.get("tags").is_some_and(|tags| !tags.is_null()) {
                report.fire(
                    format!("{at}.tags"),
                    format!(
                        "tags is not supported for addon.podIdentityAssociations (addon {name})"
                    ),
                );
            }
            if let Some(problem) = permission_policy_name_problem(association) {
                report.fire(format!("{at}.permissionPolicyName"), problem);
            }
        }
        if enabled(addon, "useDefaultPodIdentityAssociations") {
            if !associations.is_empty() {
                report.fire(
                    format!("{path}.useDefaultPodIdentityAssociations"),
                    format!("addon {name} sets both useDefaultPodIdentityAssociations and podIdentityAssociations"),
                );
            }
            if has(addon, "serviceAccountRoleARN")
                || has(addon, "wellKnownPolicies")
                || has(addon, "attachPolicy")
                || has(addon, "attachPolicyARNs")
            {
                report.fire(
                    format!("{path}.useDefaultPodIdentityAssociations"),
                    format!("addon {name}: serviceAccountRoleARN, wellKnownPolicies, attachPolicy and attachPolicyARNs cannot be set with useDefaultPodIdentityAssociations"),
                );
            }
        }
    }
}

/// What eksctl asks of every association it creates with the cluster, in its order, and
/// its first refusal: a namespace and a service account, and a role to use, given as
/// `roleARN` or as policies for the role eksctl makes, never both
/// (`pkg/ctl/cmdutils/pod_identity_association.go` validatePodIdentityAssociations, run by
/// the create-cluster loader; `addon.go` Addon.Validate for an add-on's own).
fn association_incomplete(at: &str, association: Node<'_>, report: &mut Report<'_>) {
    let well_known = association
        .get("wellKnownPolicies")
        .and_then(Node::as_mapping)
        .is_some_and(|policies| policies.values().any(|on| on.as_bool() == Some(true)));
    let policies = [
        ("permissionPolicy", has(association, "permissionPolicy")),
        (
            "permissionPolicyARNs",
            has(association, "permissionPolicyARNs"),
        ),
        ("wellKnownPolicies", well_known),
    ];
    let role = has(association, "roleARN");
    let refusal = if non_empty(association, "namespace").is_none() {
        Some(("namespace", format!("{at}.namespace must be set")))
    } else if non_empty(association, "serviceAccountName").is_none() {
        Some((
            "serviceAccountName",
            format!("{at}.serviceAccountName must be set"),
        ))
    } else if !role && policies.iter().all(|(_, given)| !given) {
        Some((
            "roleARN",
            format!(
                "at least one of the following must be specified: {at}.roleARN, {at}.permissionPolicy, {at}.permissionPolicyARNs, {at}.wellKnownPolicies"
            ),
        ))
    } else if role {
        policies.iter().find(|(_, given)| *given).map(|(key, _)| {
            (
                *key,
                format!("{at}.{key} cannot be specified when {at}.roleARN is set"),
            )
        })
    } else {
        None
    };
    if let Some((key, message)) = refusal {
        report.fire(format!("{at}.{key}"), message);
    }
}

/// eksctl's first refusal of `privateCluster.additionalEndpointServices`: only its
/// optional services may be added (`endpoint_service.go`: logs, cloudformation,
/// autoscaling; the others it always creates), each once (ValidateAdditionalEndpointServices).
fn endpoint_services_problem(services: Seq<'_>) -> Option<(usize, String)> {
    const OPTIONAL: [&str; 3] = ["logs", "cloudformation", "autoscaling"];
    let mut seen: Vec<&str> = Vec::new();
    for (index, service) in services.iter().enumerate() {
        let name = service.as_str().unwrap_or_default();
        if !OPTIONAL.contains(&name) {
            return Some((index, format!("unsupported endpoint service {name:?}")));
        }
        if seen.contains(&name) {
            return Some((index, format!("found duplicate endpoint service: {name:?}")));
        }
        seen.push(name);
    }
    None
}

fn cluster_logging_invalid(document: Node<'_>, report: &mut Report<'_>) {
    const TYPES: &[&str] = &[
        "api",
        "audit",
        "authenticator",
        "controllerManager",
        "scheduler",
    ];
    const RETENTION_DAYS: &[i64] = &[
        1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1827, 3653,
    ];
    if !is_cluster_config(document) {
        return;
    }
    let Some(logging) = document
        .get("cloudWatch")
        .and_then(|cloud_watch| cloud_watch.get("clusterLogging"))
    else {
        return;
    };
    let types = list(logging, "enableTypes");
    let retention = number(logging, "logRetentionInDays").unwrap_or(0);
    if types.is_empty() {
        if retention != 0 {
            report.fire(
                "cloudWatch.clusterLogging.logRetentionInDays",
                "logRetentionInDays cannot be set without enabling log types",
            );
        }
        return;
    }
    // `all` or `*` anywhere turns on every type before validation.
    let wildcard = types
        .iter()
        .any(|kind| matches!(kind.as_str(), Some("all" | "*")));
    if !wildcard {
        for (index, kind) in types.iter().enumerate() {
            let name = kind.as_str().unwrap_or("");
            if !TYPES.contains(&name) {
                report.fire(
                    format!("cloudWatch.clusterLogging.enableTypes[{index}]"),
                    format!("log type `{name}` is unknown: EKS has {}", TYPES.join(", ")),
                );
            }
        }
    }
    if retention != 0 && !RETENTION_DAYS.contains(&retention) {
        report.fire(
            "cloudWatch.clusterLogging.logRetentionInDays",
            format!(
                "logRetentionInDays {retention} is not one CloudWatch offers ({RETENTION_DAYS:?})"
            ),
        );
    }
}

fn upgrade_policy_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    if let Some(support) = document
        .get("upgradePolicy")
        .and_then(|policy| non_empty(policy, "supportType"))
        && !matches!(support, "STANDARD" | "EXTENDED")
    {
        report.fire(
            "upgradePolicy.supportType",
            format!("upgradePolicy.supportType `{support}` is not STANDARD or EXTENDED"),
        );
    }
    if let Some(timeout) = document
        .get("metadata")
        .and_then(|metadata| metadata.get("rollbackConfig"))
        .and_then(|rollback| number(rollback, "timeoutMinutes"))
        && !(120..=10080).contains(&timeout)
    {
        report.fire(
            "metadata.rollbackConfig.timeoutMinutes",
            format!("metadata.rollbackConfig.timeoutMinutes must be between 120 and 10080, got {timeout}"),
        );
    }
}

fn ipv6(document: Node<'_>) -> bool {
    document
        .get("kubernetesNetworkConfig")
        .and_then(|config| text(config, "ipFamily"))
        .is_some_and(|family| family.eq_ignore_ascii_case("IPv6"))
}

fn vpc_config_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    // eksctl gives every cluster a VPC by default; a file without one has nothing of its
    // own to check there, but its private cluster still is.
    let no_vpc = yaml_serde::Value::Mapping(yaml_serde::Mapping::new());
    let vpc = document
        .get("vpc")
        .filter(|vpc| vpc.is_mapping())
        .unwrap_or(Node::from(&no_vpc));
    let ipv6 = ipv6(document);
    if let Some(private) = document
        .get("privateCluster")
        .filter(|private| enabled(*private, "enabled"))
    {
        let private_subnets = vpc
            .get("subnets")
            .and_then(|subnets| subnets.get("private"))
            .and_then(Node::as_mapping)
            .is_some_and(|subnets| !subnets.is_empty());
        if has(vpc, "id") && !private_subnets {
            report.fire(
                "vpc.subnets.private",
                "a fully-private cluster in an existing VPC needs vpc.subnets.private",
            );
        }
        if has(private, "additionalEndpointServices") && enabled(private, "skipEndpointCreation") {
            report.fire(
                "privateCluster.additionalEndpointServices",
                "privateCluster.additionalEndpointServices cannot be set when privateCluster.skipEndpointCreation is true",
            );
        } else if let Some((index, problem)) =
            endpoint_services_problem(list(private, "additionalEndpointServices"))
        {
            report.fire(
                format!("privateCluster.additionalEndpointServices[{index}]"),
                format!("invalid value in privateCluster.additionalEndpointServices: {problem}"),
            );
        }
        if has(document, "localZones") {
            report.fire(
                "localZones",
                "localZones cannot be used in a fully-private cluster",
            );
        }
        if vpc.get("clusterEndpoints").is_some_and(|endpoints| {
            flag(endpoints, "publicAccess").is_some() || flag(endpoints, "privateAccess").is_some()
        }) {
            report.fire(
                "vpc.clusterEndpoints",
                "vpc.clusterEndpoints cannot be set for a fully-private cluster: the endpoint is private-only",
            );
        }
    } else if let Some(endpoints) = vpc
        .get("clusterEndpoints")
        .filter(|endpoints| endpoints.is_mapping())
    {
        // eksctl defaults publicAccess to true and privateAccess to false.
        let public = flag(endpoints, "publicAccess").unwrap_or(true);
        let private = flag(endpoints, "privateAccess").unwrap_or(false);
        if !public && !private {
            report.fire(
                "vpc.clusterEndpoints",
                "Kubernetes API access must have one of public or private clusterEndpoints enabled",
            );
        }
    }
    for key in ["extraCIDRs", "publicAccessCIDRs", "extraIPv6CIDRs"] {
        for (index, cidr) in list(vpc, key).iter().enumerate() {
            let cidr_text = cidr.as_str().unwrap_or("");
            if !is_cidr(cidr_text) {
                report.fire(
                    format!("vpc.{key}[{index}]"),
                    format!("`{cidr_text}` is not a CIDR block such as 10.1.0.0/16"),
                );
            }
        }
    }
    if has(vpc, "extraIPv6CIDRs") && !ipv6 {
        report.fire(
            "vpc.extraIPv6CIDRs",
            "vpc.extraIPv6CIDRs cannot be given for an IPv4 cluster",
        );
    }
    if has(vpc, "securityGroup") && has(vpc, "controlPlaneSecurityGroupIDs") {
        report.fire(
            "vpc.controlPlaneSecurityGroupIDs",
            "only one of vpc.securityGroup and vpc.controlPlaneSecurityGroupIDs can be set",
        );
    }
    if (has(vpc, "ipv6Cidr") || has(vpc, "ipv6Pool")) && !ipv6 {
        report.fire(
            "vpc.ipv6Cidr",
            "ipv6Cidr and ipv6Pool are only supported when ipFamily is IPv6",
        );
    }
    if ipv6 {
        if enabled(vpc, "autoAllocateIPv6") {
            report.fire(
                "vpc.autoAllocateIPv6",
                "autoAllocateIPv6 is not supported with IPv6",
            );
        }
        match (has(vpc, "ipv6Cidr"), has(vpc, "ipv6Pool")) {
            (true, true) if has(vpc, "id") => report.fire(
                "vpc.ipv6Cidr",
                "vpc.ipv6Cidr cannot be given with an existing vpc.id",
            ),
            (true, false) | (false, true) => report.fire(
                "vpc.ipv6Cidr",
                "ipv6Cidr and ipv6Pool must both be set to use a custom IPv6 CIDR and pool",
            ),
            _ => {}
        }
        if vpc.get("nat").is_some_and(|nat| !nat.is_null()) {
            report.fire("vpc.nat", "setting NAT is not supported with IPv6");
        }
        if has(document, "localZones") {
            report.fire("localZones", "localZones are not supported with IPv6");
        }
    }
    if !has(vpc, "sharedNodeSecurityGroup")
        && flag(vpc, "manageSharedNodeSecurityGroupRules") == Some(false)
    {
        report.fire(
            "vpc.manageSharedNodeSecurityGroupRules",
            "vpc.manageSharedNodeSecurityGroupRules must stay enabled with eksctl-managed security groups",
        );
    }
    if let Some(gateway) = vpc.get("nat").and_then(|nat| text(nat, "gateway"))
        && !matches!(gateway, "HighlyAvailable" | "Single" | "Disable")
    {
        report.fire(
            "vpc.nat.gateway",
            format!("`{gateway}` is not a NAT gateway mode (HighlyAvailable, Single, Disable)"),
        );
    }
    if let Some(hostname) = non_empty(vpc, "hostnameType") {
        if vpc.get("subnets").is_some_and(|subnets| !subnets.is_null()) {
            report.fire(
                "vpc.hostnameType",
                "vpc.hostnameType is not supported with an existing VPC's subnets",
            );
        } else if !matches!(hostname, "ip-name" | "resource-name") {
            report.fire(
                "vpc.hostnameType",
                format!("vpc.hostnameType `{hostname}` is not ip-name or resource-name"),
            );
        }
    }
    if has(document, "localZones") {
        if has(vpc, "id") {
            report.fire(
                "localZones",
                "localZones are not supported with an existing VPC",
            );
        }
        if vpc
            .get("nat")
            .and_then(|nat| text(nat, "gateway"))
            .is_some_and(|gateway| gateway == "HighlyAvailable")
        {
            report.fire(
                "vpc.nat.gateway",
                "a HighlyAvailable NAT gateway is not supported for localZones",
            );
        }
    }
}

fn control_plane_private_subnets_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    let Some(vpc) = document
        .get("vpc")
        .filter(|vpc| enabled(*vpc, "controlPlaneOnPrivateSubnets"))
    else {
        return;
    };
    if has(vpc, "controlPlaneSubnetIDs") {
        report.fire(
            "vpc.controlPlaneSubnetIDs",
            "only one of vpc.controlPlaneSubnetIDs and vpc.controlPlaneOnPrivateSubnets can be set",
        );
        return;
    }
    if document
        .get("outpost")
        .is_some_and(|outpost| !outpost.is_null())
    {
        return;
    }
    match vpc.get("subnets").filter(|subnets| !subnets.is_null()) {
        None => {
            let zones: std::collections::HashSet<&str> = list(document, "availabilityZones")
                .iter()
                .filter_map(Node::as_str)
                .collect();
            if !list(document, "availabilityZones").is_empty() && zones.len() < 2 {
                report.fire(
                    "availabilityZones",
                    "vpc.controlPlaneOnPrivateSubnets needs at least 2 distinct availability zones",
                );
            }
        }
        Some(subnets) => {
            let private = subnets.get("private").and_then(Node::as_mapping);
            let count = private.map(|private| private.len()).unwrap_or(0);
            if count < 2 {
                report.fire(
                    "vpc.subnets.private",
                    format!("vpc.controlPlaneOnPrivateSubnets needs at least 2 private subnets, got {count}"),
                );
                return;
            }
            let zones: std::collections::HashSet<String> = private
                .into_iter()
                .flatten()
                .map(|(key, subnet)| {
                    non_empty(subnet, "az")
                        .map(str::to_owned)
                        .unwrap_or_else(|| key.as_str().unwrap_or("").to_owned())
                })
                .collect();
            if zones.len() < 2 {
                report.fire(
                    "vpc.subnets.private",
                    "vpc.controlPlaneOnPrivateSubnets needs private subnets in at least 2 availability zones",
                );
            }
        }
    }
}

fn kubernetes_network_config_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    let Some(config) = document
        .get("kubernetesNetworkConfig")
        .filter(|config| config.is_mapping())
    else {
        return;
    };
    let ipv6 = ipv6(document);
    if let Some(cidr) = non_empty(config, "serviceIPv4CIDR") {
        if ipv6 {
            report.fire(
                "kubernetesNetworkConfig.serviceIPv4CIDR",
                "a service IPv4 CIDR is not supported with IPv6",
            );
        } else if !is_cidr(cidr) {
            report.fire(
                "kubernetesNetworkConfig.serviceIPv4CIDR",
                format!("`{cidr}` is not a CIDR block such as 10.100.0.0/16"),
            );
        }
    }
    match text(config, "ipFamily") {
        None | Some("") => {}
        Some(family) if family.eq_ignore_ascii_case("IPv4") => {}
        Some(family) if family.eq_ignore_ascii_case("IPv6") => {
            let auto_mode = document
                .get("autoModeConfig")
                .is_some_and(|auto| enabled(auto, "enabled"));
            let has_coredns = list(document, "addons").iter().any(|addon| {
                text(addon, "name").is_some_and(|name| name.eq_ignore_ascii_case("coredns"))
            });
            if !auto_mode && !has_coredns {
                report.fire(
                    "addons",
                    "IPv6 needs the default core add-ons listed; missing: coredns (or use EKS Auto Mode)",
                );
            }
            let addon = |wanted: &str| {
                list(document, "addons").iter().find(|addon| {
                    text(*addon, "name").is_some_and(|name| name.eq_ignore_ascii_case(wanted))
                })
            };
            if let (false, Some(cni)) = (auto_mode, addon("vpc-cni")) {
                let pod_identity = addon("eks-pod-identity-agent").is_some();
                let oidc = document
                    .get("iam")
                    .is_some_and(|iam| enabled(iam, "withOIDC"));
                if !pod_identity && !oidc {
                    report.fire(
                        "iam.withOIDC",
                        "IPv6 with the vpc-cni add-on needs iam.withOIDC or the eks-pod-identity-agent add-on (or EKS Auto Mode)",
                    );
                }
                let auto_apply = document
                    .get("addonsConfig")
                    .is_some_and(|config| enabled(config, "autoApplyPodIdentityAssociations"));
                if pod_identity
                    && !auto_apply
                    && !enabled(cni, "useDefaultPodIdentityAssociations")
                    && !has(cni, "podIdentityAssociations")
                {
                    report.fire(
                        "addons",
                        "with IPv6 and the pod identity agent, set addonsConfig.autoApplyPodIdentityAssociations, useDefaultPodIdentityAssociations on vpc-cni, or a pod identity association for it",
                    );
                }
            }
            if let Some(version) = addon("vpc-cni").and_then(|cni| non_empty(cni, "version"))
                && version != "latest"
                && semantic_version(version).is_some_and(|parts| parts < vec![1, 10, 0])
            {
                report.fire(
                    "addons",
                    format!("vpc-cni {version} is older than 1.10.0, the first that supports IPv6"),
                );
            }
        }
        Some(family) => report.fire(
            "kubernetesNetworkConfig.ipFamily",
            format!("ipFamily `{family}` is not IPv4 or IPv6"),
        ),
    }
}

fn secrets_encryption_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    let Some(encryption) = document
        .get("secretsEncryption")
        .filter(|value| !value.is_null())
    else {
        return;
    };
    match non_empty(encryption, "keyARN") {
        None => report.fire(
            "secretsEncryption.keyARN",
            "secretsEncryption.keyARN is required for secrets encryption",
        ),
        Some(key) if !is_arn(key) => {
            report.fire("secretsEncryption.keyARN", format!("`{key}` is not an ARN"))
        }
        Some(_) => {}
    }
}

fn outposts_unsupported_setting(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    let Some(outpost) = document.get("outpost").filter(|value| value.is_mapping()) else {
        // Node groups on an Outpost in a fully private cluster without one.
        let private = document
            .get("privateCluster")
            .is_some_and(|private| enabled(private, "enabled"));
        for (path, kind, group) in groups(document) {
            if private && kind == Kind::SelfManaged && has(group, "outpostARN") {
                report.fire(
                    format!("{path}.outpostARN"),
                    "nodeGroup.outpostARN is not supported on a fully-private cluster",
                );
            }
        }
        return;
    };
    let mut refuse = |path: &str, message: &str| report.fire(path, message);
    if !has(outpost, "controlPlaneOutpostARN") {
        refuse(
            "outpost.controlPlaneOutpostARN",
            "outpost.controlPlaneOutpostARN is required for Outposts",
        );
    } else if !text(outpost, "controlPlaneOutpostARN")
        .is_some_and(|arn| is_arn(arn) && arn.split(':').nth(2) == Some("outposts"))
    {
        refuse(
            "outpost.controlPlaneOutpostARN",
            "outpost.controlPlaneOutpostARN is not an Outposts ARN",
        );
    }
    if document
        .get("accessConfig")
        .and_then(|access| flag(access, "bootstrapClusterCreatorAdminPermissions"))
        == Some(false)
    {
        refuse(
            "accessConfig.bootstrapClusterCreatorAdminPermissions",
            "bootstrapClusterCreatorAdminPermissions cannot be false on Outposts",
        );
    }
    if ipv6(document) {
        refuse(
            "kubernetesNetworkConfig.ipFamily",
            "IPv6 is not supported on Outposts",
        );
    }
    for (key, what) in [
        ("addons", "add-ons are"),
        ("identityProviders", "identity providers are"),
        ("fargateProfiles", "Fargate is"),
        (
            "availabilityZones",
            "availabilityZones are (the zone is the Outpost's)",
        ),
        ("localZones", "localZones are (the zone is the Outpost's)"),
    ] {
        if has(document, key) {
            refuse(key, &format!("{what} not supported on Outposts"));
        }
    }
    for (key, what) in [("karpenter", "Karpenter is"), ("gitops", "GitOps is")] {
        if document.get(key).is_some_and(|value| !value.is_null()) {
            refuse(key, &format!("{what} not supported on Outposts"));
        }
    }
    if document
        .get("secretsEncryption")
        .is_some_and(|encryption| non_empty(encryption, "keyARN").is_some())
    {
        refuse(
            "secretsEncryption",
            "KMS encryption is not supported on Outposts",
        );
    }
    if document
        .get("iam")
        .is_some_and(|iam| enabled(iam, "withOIDC"))
    {
        refuse("iam.withOIDC", "iam.withOIDC is not supported on Outposts");
    }
    if let Some(vpc) = document.get("vpc") {
        if enabled(vpc, "autoAllocateIPv6") {
            refuse(
                "vpc.autoAllocateIPv6",
                "autoAllocateIPv6 is not supported on Outposts",
            );
        }
        if has(vpc, "publicAccessCIDRs") {
            refuse(
                "vpc.publicAccessCIDRs",
                "publicAccessCIDRs is not supported on Outposts",
            );
        }
    }
    if has(document, "managedNodeGroups") {
        refuse(
            "managedNodeGroups",
            "managed node groups are not supported on Outposts",
        );
    }
    if let Some(endpoints) = document
        .get("vpc")
        .and_then(|vpc| vpc.get("clusterEndpoints"))
    {
        if flag(endpoints, "publicAccess") == Some(true) {
            refuse(
                "vpc.clusterEndpoints.publicAccess",
                "clusterEndpoints.publicAccess cannot be enabled for a cluster on Outposts",
            );
        }
        if flag(endpoints, "privateAccess") == Some(false) {
            refuse(
                "vpc.clusterEndpoints.privateAccess",
                "clusterEndpoints.privateAccess cannot be disabled for a cluster on Outposts",
            );
        }
    }
    for (path, kind, group) in groups(document) {
        let family = ami_family(group);
        if !family.is_empty() && !is_amazon_linux(family) {
            refuse(
                &format!("{path}.amiFamily"),
                "only AmazonLinux2 and AmazonLinux2023 are supported on local clusters",
            );
        }
        if kind == Kind::SelfManaged {
            if let (Some(own), Some(control)) = (
                non_empty(group, "outpostARN"),
                non_empty(outpost, "controlPlaneOutpostARN"),
            ) && own != control
            {
                refuse(
                    &format!("{path}.outpostARN"),
                    "nodeGroup.outpostARN must be empty or the control plane's Outpost ARN",
                );
            }
            for key in ["availabilityZones", "localZones"] {
                if has(group, key) {
                    refuse(
                        &format!("{path}.{key}"),
                        &format!(
                            "{key} cannot be given for a node group on Outposts; the zone is the Outpost's"
                        ),
                    );
                }
            }
        }
    }
}

fn remote_network_config_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    let Some(remote) = document
        .get("remoteNetworkConfig")
        .filter(|value| value.is_mapping())
    else {
        return;
    };
    if ipv6(document) {
        report.fire(
            "remoteNetworkConfig",
            "remoteNetworkConfig is not supported with the IPv6 address family",
        );
    }
    if document
        .get("accessConfig")
        .and_then(|access| text(access, "authenticationMode"))
        == Some("CONFIG_MAP")
    {
        report.fire(
            "accessConfig.authenticationMode",
            "remoteNetworkConfig needs authenticationMode API_AND_CONFIG_MAP or API",
        );
    }
    let nodes = list(remote, "remoteNodeNetworks");
    let pods = list(remote, "remotePodNetworks");
    if nodes.len() > 1 {
        report.fire(
            "remoteNetworkConfig.remoteNodeNetworks",
            "only one remoteNodeNetwork is allowed",
        );
    }
    if pods.len() > 1 {
        report.fire(
            "remoteNetworkConfig.remotePodNetworks",
            "only one remotePodNetwork is allowed",
        );
    }
    let pods_written_empty = remote
        .get("remotePodNetworks")
        .and_then(Node::as_sequence)
        .is_some_and(Seq::is_empty);
    let on_outposts = document.get("outpost").is_some_and(Node::is_mapping);
    if nodes.is_empty() && !pods_written_empty && !on_outposts {
        report.fire(
            "remoteNetworkConfig.remoteNodeNetworks",
            "remoteNetworkConfig.remoteNodeNetworks must be set and non-empty",
        );
    }
    if let Some(gateway) = non_empty(remote, "vpcGatewayID") {
        if document.get("vpc").is_some_and(|vpc| has(vpc, "id")) {
            report.fire(
                "remoteNetworkConfig.vpcGatewayID",
                "vpcGatewayID is not supported with an existing VPC",
            );
        } else if !gateway.starts_with("tgw-") && !gateway.starts_with("vgw-") {
            report.fire(
                "remoteNetworkConfig.vpcGatewayID",
                format!("`{gateway}` is neither a transit gateway (tgw-*) nor a virtual private gateway (vgw-*)"),
            );
        }
    }
    if let Some(iam) = remote.get("iam").filter(|value| value.is_mapping()) {
        // eksctl defaults the provider to SSM.
        let provider = text(iam, "provider").unwrap_or("SSM");
        let ssm = provider.eq_ignore_ascii_case("SSM");
        let roles_anywhere = provider.eq_ignore_ascii_case("IRA");
        if !ssm && !roles_anywhere {
            report.fire(
                "remoteNetworkConfig.iam.provider",
                format!("iam.provider `{provider}` is not SSM or IRA"),
            );
        }
        let ca_bundle = iam
            .get("caBundleCert")
            .is_some_and(|value| !value.is_null());
        if ssm && ca_bundle {
            report.fire(
                "remoteNetworkConfig.iam.caBundleCert",
                "caBundleCert is not supported with the SSM provider",
            );
        }
        if roles_anywhere && !ca_bundle {
            report.fire(
                "remoteNetworkConfig.iam.caBundleCert",
                "caBundleCert is required with the IAM Roles Anywhere (IRA) provider",
            );
        }
    }
}

fn iam_identity_mapping_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    for (index, mapping) in list(document, "iamIdentityMappings").iter().enumerate() {
        let path = format!("iamIdentityMappings[{index}]");
        let arn_options = has(mapping, "arn") || has(mapping, "username") || has(mapping, "groups");
        let service = has(mapping, "serviceName");
        let namespace = has(mapping, "namespace");
        let problem = if service && arn_options {
            Some("arn, username and groups cannot be used with serviceName")
        } else if service && !namespace {
            Some("namespace is required with serviceName")
        } else if !service && namespace {
            Some("serviceName is required with namespace")
        } else if has(mapping, "account") && (arn_options || service || namespace) {
            Some("account cannot be given with any other option")
        } else {
            None
        };
        if let Some(problem) = problem {
            report.fire(path, problem);
        }
    }
}

fn addon_config_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    for (index, addon) in list(document, "addons").iter().enumerate() {
        let path = fields::item(fields::ADDON_ITEM, &[index]);
        let Some(name) = non_empty(addon, "name") else {
            report.fire(format!("{path}.name"), "an add-on needs a name");
            continue;
        };
        if let Some(values) = non_empty(addon, "configurationValues")
            && crate::yaml::source::parse_documents(values).is_err()
        {
            report.fire(
                format!("{path}.configurationValues"),
                format!("configurationValues of `{name}` is neither JSON nor YAML"),
            );
        }
        if let Some(namespace) = addon
            .get("namespaceConfig")
            .and_then(|config| non_empty(config, "namespace"))
        {
            let bytes = namespace.as_bytes();
            let valid = bytes.len() <= 63
                && bytes[0].is_ascii_lowercase()
                && bytes[bytes.len() - 1].is_ascii_alphanumeric()
                && bytes.iter().all(|byte| {
                    byte.is_ascii_lowercase() || byte.is_ascii_digit() || *byte == b'-'
                });
            if !valid {
                report.fire(
                    format!("{path}.namespaceConfig.namespace"),
                    format!("`{namespace}` is not a Kubernetes namespace name (a DNS-1123 label)"),
                );
            }
        }
        let irsa: Vec<&str> = [
            "serviceAccountRoleARN",
            "attachPolicyARNs",
            "attachPolicy",
            "wellKnownPolicies",
        ]
        .into_iter()
        .filter(|field| match *field {
            "wellKnownPolicies" => addon
                .get(field)
                .and_then(Node::as_mapping)
                .is_some_and(|policies| policies.values().any(|on| on.as_bool() == Some(true))),
            "attachPolicy" => addon.get(field).is_some_and(|value| !value.is_null()),
            _ => has(addon, field),
        })
        .collect();
        let associations = list(addon, "podIdentityAssociations");
        if !irsa.is_empty() && !associations.is_empty() {
            report.fire(
                format!("{path}.podIdentityAssociations"),
                format!(
                    "`{name}` sets IRSA ({}) and pod identity associations together",
                    irsa.join(", ")
                ),
            );
        } else if irsa.len() > 1 {
            report.fire(
                path.clone(),
                format!("at most one of wellKnownPolicies, serviceAccountRoleARN, attachPolicyARNs and attachPolicy can be given for `{name}`"),
            );
        }
        if !associations.is_empty() && name.eq_ignore_ascii_case("eks-pod-identity-agent") {
            report.fire(
                format!("{path}.podIdentityAssociations"),
                "the eks-pod-identity-agent add-on cannot have pod identity associations",
            );
        }
        for (item, association) in associations.iter().enumerate() {
            let at = format!("{path}.podIdentityAssociations[{item}]");
            for field in ["namespace", "serviceAccountName"] {
                if non_empty(association, field).is_none() {
                    report.fire(format!("{at}.{field}"), format!("{field} must be set"));
                }
            }
            let role = has(association, "roleARN");
            let others: Vec<&str> = [
                "permissionPolicy",
                "permissionPolicyARNs",
                "wellKnownPolicies",
            ]
            .into_iter()
            .filter(|field| has(association, field))
            .collect();
            if !role && others.is_empty() {
                report.fire(
                    at.clone(),
                    "one of roleARN, permissionPolicy, permissionPolicyARNs or wellKnownPolicies must be given",
                );
            }
            if role && let Some(other) = others.first() {
                report.fire(
                    format!("{at}.{other}"),
                    format!("{other} cannot be given when roleARN is set"),
                );
            }
        }
    }
}

fn gitops_flux_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    let Some(flux) = document
        .get("gitops")
        .and_then(|gitops| gitops.get("flux"))
        .filter(|flux| flux.is_mapping())
    else {
        return;
    };
    if non_empty(flux, "gitProvider").is_none() {
        report.fire(
            "gitops.flux.gitProvider",
            "gitops.flux.gitProvider must be set",
        );
    }
    if !has(flux, "flags") {
        report.fire("gitops.flux.flags", "gitops.flux.flags must be set");
    }
}

/// `v1.2.3` or `1.2.3` as numbers; `None` when it is not a version.
fn semantic_version(text: &str) -> Option<Vec<u64>> {
    let core = text.strip_prefix('v').unwrap_or(text);
    let core = core.split(['-', '+']).next()?;
    core.split('.').map(|part| part.parse().ok()).collect()
}

fn karpenter_block_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    let Some(karpenter) = document.get("karpenter").filter(|value| !value.is_null()) else {
        return;
    };
    match non_empty(karpenter, "version") {
        None => report.fire(
            "karpenter.version",
            "karpenter.version is required when eksctl installs Karpenter",
        ),
        Some(version) => match semantic_version(version) {
            None => report.fire("karpenter.version", format!("`{version}` is not a version")),
            Some(parts) if parts < vec![0, 20, 0] => report.fire(
                "karpenter.version",
                format!("Karpenter {version} is older than the minimum eksctl supports, v0.20.0"),
            ),
            Some(_) => {}
        },
    }
    // eksctl defaults withOIDC to false before validating, so unset counts as off.
    if !document
        .get("iam")
        .is_some_and(|iam| enabled(iam, "withOIDC"))
    {
        report.fire(
            "iam.withOIDC",
            "iam.withOIDC must be true for eksctl to install Karpenter",
        );
    }
}

fn identity_provider_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    for (index, provider) in list(document, "identityProviders").iter().enumerate() {
        match text(provider, "type") {
            Some("oidc") => {}
            other => {
                report.fire(
                    format!("identityProviders[{index}].type"),
                    format!(
                        "identity provider type {} is not `oidc`, the one eksctl knows",
                        other.map_or("(none)".to_owned(), |kind| format!("`{kind}`"))
                    ),
                );
                continue;
            }
        }
        for key in ["name", "clientID", "issuerURL"] {
            if non_empty(provider, key).is_none() {
                report.fire(
                    format!("identityProviders[{index}].{key}"),
                    format!("identityProviders[{index}].{key} must be set and non-empty"),
                );
            }
        }
    }
}

fn fargate_profile_invalid(document: Node<'_>, report: &mut Report<'_>) {
    if !is_cluster_config(document) {
        return;
    }
    for (index, profile) in list(document, "fargateProfiles").iter().enumerate() {
        let path = format!("fargateProfiles[{index}]");
        match non_empty(profile, "name") {
            None => report.fire(format!("{path}.name"), "a Fargate profile needs a name"),
            Some(name) if name.starts_with("eks-") => report.fire(
                format!("{path}.name"),
                format!("Fargate profile name `{name}` must not start with `eks-`"),
            ),
            Some(_) => {}
        }
        let selectors = list(profile, "selectors");
        if selectors.is_empty() {
            report.fire(
                format!("{path}.selectors"),
                "a Fargate profile needs at least one selector",
            );
        }
        for (item, selector) in selectors.iter().enumerate() {
            if non_empty(selector, "namespace").is_none() {
                report.fire(
                    format!("{path}.selectors[{item}].namespace"),
                    "a Fargate profile selector needs a namespace",
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_cites_eksctl_validation() {
        assert!(RULES.iter().all(|rule| {
            rule.reference
                .starts_with("eksctl pkg/apis/eksctl.io/v1alpha5/validation.go")
        }));
    }
}
