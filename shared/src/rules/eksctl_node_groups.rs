//! eksctl's validation of node groups (`ValidateNodeGroup`, `ValidateManagedNodeGroup` and
//! the checks they call in `pkg/apis/eksctl.io/v1alpha5/validation.go`), on the document
//! as written: volumes, taints and labels, fields that conflict or that a managed group
//! does not take, AMIs, update settings, instance distributions. Their rows are in
//! [`super::eksctl_config::RULES`].

use super::Report;
use super::reading::{
    Kind, child, enabled, flag, groups, has, kubernetes_version, list, non_empty, number, text,
};
use super::syntax::{is_arn, node_label_problem, taint_syntax_problem};
use crate::yaml::node::{Kind as NodeKind, Node};

pub(super) fn nodegroup_volume_invalid(document: Node<'_>, report: &mut Report<'_>) {
    for (path, kind, group) in groups(document) {
        let launch_template = group
            .get("launchTemplate")
            .is_some_and(|value| !value.is_null());
        // A managed group gets volumeSize 80 before validation unless a launch template
        // brings its own; a self-managed group is validated before its defaults.
        let has_size = group.get("volumeSize").is_some_and(|size| !size.is_null())
            || (kind == Kind::Managed && !launch_template);
        if !has_size {
            for key in ["volumeName", "volumeKmsKeyID"] {
                if non_empty(group, key).is_some() {
                    report.fire(
                        format!("{path}.{key}"),
                        format!("{path}.{key} cannot be set without {path}.volumeSize"),
                    );
                }
            }
            if enabled(group, "volumeEncrypted") {
                report.fire(
                    format!("{path}.volumeEncrypted"),
                    format!("{path}.volumeEncrypted cannot be set without {path}.volumeSize"),
                );
            }
        }
        if non_empty(group, "volumeKmsKeyID").is_some() && !enabled(group, "volumeEncrypted") {
            report.fire(
                format!("{path}.volumeKmsKeyID"),
                format!("{path}.volumeKmsKeyID needs {path}.volumeEncrypted: true"),
            );
        }
        let volume_type = text(group, "volumeType");
        let iops = number(group, "volumeIOPS");
        let throughput = number(group, "volumeThroughput");
        if let Some(volume_type) = volume_type {
            if iops.is_some() && !matches!(volume_type, "io1" | "io2" | "gp3") {
                report.fire(
                    format!("{path}.volumeIOPS"),
                    format!("{path}.volumeIOPS is only supported for io1, io2 and gp3 volumes, not {volume_type}"),
                );
            }
            let range = match volume_type {
                "io1" => Some((100, 64_000)),
                "io2" => Some((100, 256_000)),
                _ => None,
            };
            if let (Some((low, high)), Some(iops)) = (range, iops)
                && !(low..=high).contains(&iops)
            {
                report.fire(
                    format!("{path}.volumeIOPS"),
                    format!("{path}.volumeIOPS {iops} is outside {low}-{high} for {volume_type}"),
                );
            }
            if throughput.is_some() && volume_type != "gp3" {
                report.fire(
                    format!("{path}.volumeThroughput"),
                    format!("{path}.volumeThroughput is only supported for gp3 volumes, not {volume_type}"),
                );
            }
        }
        if volume_type.is_none_or(|volume_type| volume_type == "gp3") {
            if let Some(iops) = iops
                && !(3_000..=16_000).contains(&iops)
            {
                report.fire(
                    format!("{path}.volumeIOPS"),
                    format!("{path}.volumeIOPS {iops} is outside 3000-16000 for gp3"),
                );
            }
            if let Some(throughput) = throughput
                && !(125..=1_000).contains(&throughput)
            {
                report.fire(
                    format!("{path}.volumeThroughput"),
                    format!("{path}.volumeThroughput {throughput} is outside 125-1000 for gp3"),
                );
            }
        }
    }
}

pub(super) fn nodegroup_label_invalid(document: Node<'_>, report: &mut Report<'_>) {
    // Managed groups' labels are the spec rule nodegroup-label-invalid's.
    for (path, kind, group) in groups(document) {
        if kind != Kind::SelfManaged {
            continue;
        }
        let Some(labels) = group.get("labels").and_then(Node::as_mapping) else {
            continue;
        };
        for (key, value) in labels {
            let Some(key) = key.as_str() else { continue };
            // A non-string value is the schema's finding (eksctl-schema).
            let value_text = value.as_str().unwrap_or("");
            if let Some(problem) = node_label_problem(key, value_text) {
                report.fire(child(&format!("{path}.labels"), key), problem);
            }
        }
    }
}

pub(super) fn nodegroup_taint_malformed(document: Node<'_>, report: &mut Report<'_>) {
    // Managed groups' taints are the spec rule taint-effect-invalid's.
    for (path, kind, group) in groups(document) {
        if kind != Kind::SelfManaged {
            continue;
        }
        // The legacy form eksctl still reads for self-managed groups, `key: "value:Effect"`
        // (its taintsWrapper, pkg/apis/eksctl.io/v1alpha5/types.go, and
        // pkg/utils/taints.parseTaint): one part is the effect, two are value and effect,
        // more leave both empty, so the effect is refused.
        if let Some(by_key) = group.get("taints").and_then(Node::as_mapping) {
            for (key, written) in by_key {
                let (Some(key), Some(written)) = (key.as_str(), written.as_str()) else {
                    continue;
                };
                let mut at = format!("{path}.taints");
                super::push_key(&mut at, key);
                let parts: Vec<&str> = written.split(':').collect();
                let (value, effect) = match parts.as_slice() {
                    [effect] => (None, *effect),
                    [value, effect] => ((!value.is_empty()).then_some(*value), *effect),
                    _ => (None, ""),
                };
                if let Some((_, problem)) = taint_syntax_problem(key, value) {
                    report.fire(at.clone(), problem);
                }
                if !matches!(effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
                    report.fire(
                        at,
                        format!(
                            "taint `{key}: {written}` has the effect `{effect}`, not NoSchedule, PreferNoSchedule or NoExecute (eksctl reads `value:Effect` or `:Effect`)"
                        ),
                    );
                }
            }
        }
        for (index, taint) in list(group, "taints").iter().enumerate() {
            let at = format!("{path}.taints[{index}]");
            let key = text(taint, "key").unwrap_or("");
            if let Some((field, problem)) = taint_syntax_problem(key, text(taint, "value")) {
                report.fire(format!("{at}.{field}"), problem);
            }
            if key.is_empty() {
                report.fire(format!("{at}.key"), "a taint needs a key");
            }
            let effect = text(taint, "effect").unwrap_or("");
            if !matches!(effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
                report.fire(
                    format!("{at}.effect"),
                    format!(
                        "taint effect `{effect}` is not NoSchedule, PreferNoSchedule or NoExecute"
                    ),
                );
            }
        }
    }
}
const ADDON_POLICIES: &[&str] = &[
    "autoScaler",
    "externalDNS",
    "certManager",
    "imageBuilder",
    "appMesh",
    "appMeshPreview",
    "ebs",
    "fsx",
    "efs",
    "awsLoadBalancerController",
    "albIngress",
    "xRay",
    "cloudWatch",
];

pub(super) fn enabled_addon_policy(iam: Node<'_>) -> Option<&'static str> {
    let policies = iam.get("withAddonPolicies")?;
    ADDON_POLICIES
        .iter()
        .copied()
        .find(|policy| enabled(policies, policy))
}

pub(super) fn nodegroup_field_conflict(document: Node<'_>, report: &mut Report<'_>) {
    for (path, kind, group) in groups(document) {
        let iam = group.get("iam").filter(|iam| iam.is_mapping());
        if enabled(group, "disablePodIMDS")
            && let Some(policy) = iam.and_then(enabled_addon_policy)
        {
            report.fire(
                format!("{path}.disablePodIMDS"),
                format!("{path}.disablePodIMDS and {path}.iam.withAddonPolicies.{policy} cannot be set together"),
            );
        }
        if let Some(iam) = iam {
            let arn_fields: &[&str] = match kind {
                Kind::SelfManaged => &["instanceProfileARN", "instanceRoleARN"],
                Kind::Managed => &["instanceRoleARN"],
            };
            for field in arn_fields {
                if non_empty(iam, field).is_none() {
                    continue;
                }
                let conflict = [
                    "instanceRoleName",
                    "attachPolicy",
                    "attachPolicyARNs",
                    "instanceRolePermissionsBoundary",
                ]
                .into_iter()
                .find(|other| has(iam, other))
                .map(str::to_owned)
                .or_else(|| {
                    enabled_addon_policy(iam).map(|policy| format!("withAddonPolicies.{policy}"))
                });
                if let Some(conflict) = conflict {
                    report.fire(
                        format!("{path}.iam.{field}"),
                        format!(
                            "{path}.iam.{field} and {path}.iam.{conflict} cannot be set together"
                        ),
                    );
                }
            }
            if kind == Kind::SelfManaged {
                for (index, policy) in list(iam, "attachPolicyARNs").iter().enumerate() {
                    let policy = policy.as_str().unwrap_or("");
                    if !is_arn(policy) {
                        report.fire(
                            format!("{path}.iam.attachPolicyARNs[{index}]"),
                            format!("`{policy}` is not an ARN"),
                        );
                    }
                }
                if let Some(policies) = iam.get("withAddonPolicies")
                    && enabled(policies, "albIngress")
                    && enabled(policies, "awsLoadBalancerController")
                {
                    report.fire(
                        format!("{path}.iam.withAddonPolicies.albIngress"),
                        "awsLoadBalancerController and the deprecated albIngress cannot both be set",
                    );
                }
            }
        }
        if let Some(placement) = group.get("placement").filter(|value| !value.is_null())
            && non_empty(placement, "groupName").is_none()
        {
            report.fire(
                format!("{path}.placement.groupName"),
                format!("{path}.placement.groupName must be set and non-empty"),
            );
        }
        if let Some(ssh) = group.get("ssh").filter(|value| value.is_mapping()) {
            if flag(ssh, "enableSSM") == Some(false) {
                report.fire(
                    format!("{path}.ssh.enableSSM"),
                    "the SSM agent is built into EKS AMIs and cannot be disabled",
                );
            }
            let keys = ["publicKeyName", "publicKeyPath", "publicKey"]
                .iter()
                .filter(|key| non_empty(ssh, key).is_some())
                .count();
            if keys > 1 && kind == Kind::SelfManaged {
                report.fire(
                    format!("{path}.ssh"),
                    "only one of publicKeyName, publicKeyPath or publicKey can be given",
                );
            }
        }
        if number(group, "maxPodsPerNode").is_some_and(|pods| pods < 0) {
            report.fire(
                format!("{path}.maxPodsPerNode"),
                format!("{path}.maxPodsPerNode cannot be negative"),
            );
        }
        if kind == Kind::Managed
            && non_empty(group, "instanceType").is_some()
            && group
                .get("instanceSelector")
                .and_then(Node::as_mapping)
                .is_some_and(|selector| selector.values().any(|value| !is_zero(value)))
        {
            report.fire(
                format!("{path}.instanceType"),
                format!("{path}: instanceType cannot be set with instanceSelector"),
            );
        }
        if kind == Kind::SelfManaged && has(group, "localZones") && has(group, "availabilityZones")
        {
            report.fire(
                format!("{path}.localZones"),
                "localZones and availabilityZones cannot both be set",
            );
        }
    }
}

/// A Go zero value: eksctl's `InstanceSelector.IsZero`.
pub(super) fn is_zero(value: Node<'_>) -> bool {
    match value.kind() {
        NodeKind::Null => true,
        NodeKind::Bool(boolean) => !boolean,
        NodeKind::Number(number) => number.as_f64() == Some(0.0),
        NodeKind::String(text) => text.is_empty(),
        NodeKind::Sequence(items) => items.is_empty(),
        NodeKind::Mapping(map) => map.is_empty(),
        NodeKind::Tagged(..) => false,
    }
}

pub(super) fn nodegroup_ami_invalid(document: Node<'_>, report: &mut Report<'_>) {
    ami_value_invalid(document, report);
    let version = kubernetes_version(document);
    for (path, kind, group) in groups(document) {
        let family = ami_family(group);
        if !family.is_empty() && !SUPPORTED_AMI_FAMILIES.contains(&family) {
            let deprecated = matches!(
                family,
                "WindowsServer2004CoreContainer" | "WindowsServer20H2CoreContainer"
            );
            report.fire(
                format!("{path}.amiFamily"),
                if deprecated {
                    format!("AMI family {family} is deprecated and no longer supported")
                } else {
                    format!(
                        "AMI family `{family}` is not supported; use one of {}",
                        SUPPORTED_AMI_FAMILIES.join(", ")
                    )
                },
            );
            continue;
        }
        // Only a custom image (eksctl's IsAMI); any other value is nodegroup-ami-invalid's.
        let ami = non_empty(group, "ami").filter(|ami| ami.starts_with("ami-"));
        // Family names are matched without case, as eksctl normalises them first.
        // Managed groups' AmazonLinux2 is the spec rule ami-family-al2-unsupported's.
        if family.eq_ignore_ascii_case("AmazonLinux2")
            && version.is_some_and(|version| version >= (1, 33))
            && kind == Kind::SelfManaged
        {
            report.fire(
                format!("{path}.amiFamily"),
                "AmazonLinux2 is not supported from Kubernetes 1.33: use AmazonLinux2023 or Bottlerocket",
            );
        }
        let override_bootstrap = group
            .get("overrideBootstrapCommand")
            .is_some_and(|value| !value.is_null());
        if let Some(ami) = ami {
            if family.is_empty() {
                report.fire(
                    format!("{path}.amiFamily"),
                    format!("{path} uses a custom AMI, so amiFamily must be set"),
                );
            } else if kind == Kind::Managed {
                if !is_amazon_linux(family) && !is_bottlerocket(family) && !is_ubuntu(family) {
                    report.fire(
                        format!("{path}.amiFamily"),
                        format!(
                            "a managed group's custom AMI `{ami}` cannot have amiFamily {family}"
                        ),
                    );
                }
                for (key, shown) in [
                    ("maxPodsPerNode", "maxPodsPerNode"),
                    ("releaseVersion", "releaseVersion"),
                ] {
                    if has(group, key) {
                        report.fire(
                            format!("{path}.{key}"),
                            format!("{path}.{shown} is not supported with a custom AMI"),
                        );
                    }
                }
                if group
                    .get("ssh")
                    .is_some_and(|ssh| enabled(ssh, "enableSSM"))
                {
                    report.fire(
                        format!("{path}.ssh.enableSSM"),
                        format!("{path}.ssh.enableSSM is not supported with a custom AMI"),
                    );
                }
            }
            let needs_override = family != "AmazonLinux2023"
                && !is_bottlerocket(family)
                && (kind == Kind::Managed || !is_windows(family));
            if !family.is_empty() && needs_override && !override_bootstrap {
                report.fire(
                    format!("{path}.overrideBootstrapCommand"),
                    format!("{path}.overrideBootstrapCommand is required with a custom AMI based on {family}"),
                );
            }
        }
        let bottlerocket = is_bottlerocket(family);
        if kind == Kind::SelfManaged {
            if group
                .get("bottlerocket")
                .is_some_and(|value| !value.is_null())
                && !bottlerocket
            {
                report.fire(
                    format!("{path}.bottlerocket"),
                    format!("bottlerocket settings need amiFamily Bottlerocket or BottlerocketFips, not `{family}`"),
                );
            }
            if bottlerocket
                && let Some(kubernetes) = group
                    .get("bottlerocket")
                    .and_then(|bottlerocket| bottlerocket.get("settings"))
                    .and_then(|settings| settings.get("kubernetes"))
            {
                for (setting, field) in [
                    ("node-labels", "labels"),
                    ("node-taints", "taints"),
                    ("max-pods", "maxPodsPerNode"),
                ] {
                    if kubernetes.get(setting).is_some() {
                        report.fire(
                            child(&format!("{path}.bottlerocket.settings.kubernetes"), setting),
                            format!(
                                "use {path}.{field} instead of the Bottlerocket setting {setting}"
                            ),
                        );
                    }
                }
                if kubernetes.get("cluster-dns-ip").is_some() && has(group, "clusterDNS") {
                    report.fire(
                        format!("{path}.clusterDNS"),
                        "only one of bottlerocket.settings.kubernetes.cluster-dns-ip and clusterDNS can be set",
                    );
                }
            }
        }
        let unsupported: &[&str] = match (kind, bottlerocket, is_windows(family)) {
            (Kind::SelfManaged, true, _) => &[
                "kubeletExtraConfig",
                "preBootstrapCommands",
                "overrideBootstrapCommand",
            ],
            (Kind::SelfManaged, false, true) => &["kubeletExtraConfig"],
            (Kind::Managed, true, _) => &["preBootstrapCommands"],
            (Kind::Managed, false, true) => &["overrideBootstrapCommand"],
            _ => &[],
        };
        for field in unsupported {
            if group.get(field).is_some_and(|value| !value.is_null()) {
                report.fire(
                    format!("{path}.{field}"),
                    format!("{field} is not supported for {family} node groups"),
                );
            }
        }
    }
}

pub(super) fn managed_nodegroup_unsupported_field(document: Node<'_>, report: &mut Report<'_>) {
    for (path, kind, group) in groups(document) {
        if kind != Kind::Managed {
            continue;
        }
        if group
            .get("iam")
            .is_some_and(|iam| non_empty(iam, "instanceProfileARN").is_some())
        {
            report.fire(
                format!("{path}.iam.instanceProfileARN"),
                "instanceProfileARN is not supported for managed node groups",
            );
        }
        if non_empty(group, "outpostARN").is_some() {
            report.fire(
                format!("{path}.outpostARN"),
                "Outposts are not supported for managed node groups",
            );
        }
        if let Some(groups) = group.get("securityGroups") {
            for key in ["withLocal", "withShared"] {
                if enabled(groups, key) {
                    report.fire(
                        format!("{path}.securityGroups.{key}"),
                        format!("securityGroups.{key} is not supported for managed node groups"),
                    );
                }
            }
        }
        let Some(template) = group.get("launchTemplate").filter(|value| !value.is_null()) else {
            continue;
        };
        if non_empty(template, "id").is_none() {
            report.fire(
                format!("{path}.launchTemplate.id"),
                "launchTemplate.id is required when launchTemplate is set",
            );
        }
        if let Some(version) = template.get("version") {
            let version_text = match version.untagged().kind() {
                NodeKind::String(text) => text.to_owned(),
                NodeKind::Number(number) => number.to_string(),
                _ => String::new(),
            };
            match version_text.parse::<i64>() {
                Ok(number) if number >= 1 => {}
                Ok(_) => report.fire(
                    format!("{path}.launchTemplate.version"),
                    "launchTemplate.version must be 1 or more",
                ),
                Err(_) => report.fire(
                    format!("{path}.launchTemplate.version"),
                    format!("launchTemplate.version `{version_text}` is not a version number"),
                ),
            }
        }
        let ssh = group.get("ssh").unwrap_or(Node::null());
        let mut clashing: Vec<&str> = [
            "instanceType",
            "ami",
            "volumeSize",
            "preBootstrapCommands",
            "instanceName",
            "instancePrefix",
            "maxPodsPerNode",
        ]
        .into_iter()
        .filter(|key| {
            has(group, key) && !(*key == "maxPodsPerNode" && number(group, key) == Some(0))
        })
        .collect();
        if group
            .get("overrideBootstrapCommand")
            .is_some_and(|value| !value.is_null())
        {
            clashing.push("overrideBootstrapCommand");
        }
        if group.get("placement").is_some_and(|value| !value.is_null()) {
            clashing.push("placement");
        }
        if enabled(ssh, "allow") {
            clashing.push("ssh.allow");
        }
        if enabled(ssh, "enableSSM") {
            clashing.push("ssh.enableSSM");
        }
        if has(ssh, "sourceSecurityGroupIds") {
            clashing.push("ssh.sourceSecurityGroupIds");
        }
        if group
            .get("securityGroups")
            .is_some_and(|groups| has(groups, "attachIDs"))
        {
            clashing.push("securityGroups.attachIDs");
        }
        if flag(group, "disableIMDSv1") == Some(false) {
            clashing.push("disableIMDSv1");
        }
        if enabled(group, "disablePodIMDS") {
            clashing.push("disablePodIMDS");
        }
        for field in clashing {
            report.fire(
                format!("{path}.{field}"),
                format!("{field} cannot be set in a managed node group that has a launch template"),
            );
        }
    }
}

pub(super) fn managed_nodegroup_update_config_invalid(document: Node<'_>, report: &mut Report<'_>) {
    for (path, kind, group) in groups(document) {
        if kind != Kind::Managed {
            continue;
        }
        let Some(update) = group.get("updateConfig").filter(|value| !value.is_null()) else {
            continue;
        };
        let count = number(update, "maxUnavailable");
        let percentage = number(update, "maxUnavailablePercentage");
        match (count, percentage) {
            (None, None) => report.fire(
                format!("{path}.updateConfig"),
                "updateConfig needs maxUnavailable or maxUnavailablePercentage",
            ),
            (Some(_), Some(_)) => report.fire(
                format!("{path}.updateConfig.maxUnavailablePercentage"),
                "maxUnavailable and maxUnavailablePercentage cannot both be set",
            ),
            (Some(count), None) => {
                // eksctl fills maxSize from desiredCapacity or minSize (default 2) first.
                let max_size = number(group, "maxSize")
                    .or_else(|| number(group, "desiredCapacity"))
                    .or_else(|| number(group, "minSize"))
                    .filter(|size| *size != 0)
                    .unwrap_or(2);
                if count > max_size {
                    report.fire(
                        format!("{path}.updateConfig.maxUnavailable"),
                        format!("maxUnavailable {count} cannot be greater than maxSize {max_size}"),
                    );
                }
            }
            (None, Some(_)) => {}
        }
    }
}

pub(super) fn instances_distribution_invalid(document: Node<'_>, report: &mut Report<'_>) {
    for (path, kind, group) in groups(document) {
        if kind != Kind::SelfManaged {
            continue;
        }
        let selector = group
            .get("instanceSelector")
            .and_then(Node::as_mapping)
            .is_some_and(|selector| selector.values().any(|value| !is_zero(value)));
        let distribution = group
            .get("instancesDistribution")
            .filter(|value| !value.is_null());
        if distribution.is_none() && !selector {
            continue;
        }
        if let Some(instance_type) = non_empty(group, "instanceType")
            && instance_type != "mixed"
        {
            let feature = if distribution.is_some() {
                "instancesDistribution"
            } else {
                "instanceSelector"
            };
            report.fire(
                format!("{path}.instanceType"),
                format!("instanceType must be `mixed` or unset with {feature}"),
            );
        }
        let Some(distribution) = distribution else {
            continue;
        };
        let at = format!("{path}.instancesDistribution");
        let types = list(distribution, "instanceTypes");
        if types.is_empty() && !selector {
            report.fire(
                format!("{at}.instanceTypes"),
                "a mixed node group needs instance types",
            );
        }
        if !selector {
            let unique: std::collections::HashSet<&str> =
                types.iter().filter_map(Node::as_str).collect();
            if unique.len() > 20 {
                report.fire(
                    format!("{at}.instanceTypes"),
                    format!(
                        "a mixed node group may have 1 to 20 instance types, not {}",
                        unique.len()
                    ),
                );
            }
        }
        if number(distribution, "onDemandBaseCapacity").is_some_and(|base| base < 0) {
            report.fire(
                format!("{at}.onDemandBaseCapacity"),
                "onDemandBaseCapacity must be 0 or more",
            );
        }
        if number(distribution, "onDemandPercentageAboveBaseCapacity")
            .is_some_and(|percentage| !(0..=100).contains(&percentage))
        {
            report.fire(
                format!("{at}.onDemandPercentageAboveBaseCapacity"),
                "onDemandPercentageAboveBaseCapacity must be between 0 and 100",
            );
        }
        let pools = number(distribution, "spotInstancePools");
        if pools.is_some_and(|pools| !(1..=20).contains(&pools)) {
            report.fire(
                format!("{at}.spotInstancePools"),
                "spotInstancePools must be between 1 and 20",
            );
        }
        if let Some(strategy) = text(distribution, "spotAllocationStrategy") {
            if pools.is_some() && strategy.starts_with("capacity-optimized") {
                report.fire(
                    format!("{at}.spotInstancePools"),
                    format!(
                        "spotInstancePools cannot be given with spotAllocationStrategy {strategy}"
                    ),
                );
            }
            const STRATEGIES: &[&str] = &[
                "lowest-price",
                "diversified",
                "capacity-optimized",
                "capacity-optimized-prioritized",
                "price-capacity-optimized",
            ];
            if !STRATEGIES.contains(&strategy) {
                report.fire(
                    format!("{at}.spotAllocationStrategy"),
                    format!(
                        "spotAllocationStrategy `{strategy}` is not one of {}",
                        STRATEGIES.join(", ")
                    ),
                );
            }
        }
    }
}

pub(super) fn self_managed_nodegroup_invalid(document: Node<'_>, report: &mut Report<'_>) {
    let version = kubernetes_version(document);
    for (path, kind, group) in groups(document) {
        if kind != Kind::SelfManaged {
            continue;
        }
        // Managed groups' names are the spec rule nodegroup-name-invalid's.
        if let Some(name) = non_empty(group, "name")
            && !name
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
        {
            report.fire(
                format!("{path}.name"),
                format!("node group name `{name}` must match [a-zA-Z][-a-zA-Z0-9]*"),
            );
        }
        instance_type_without_ami_type(&path, group, report);
        if let Some(credits) = text(group, "cpuCredits") {
            let types: Vec<&str> = match group
                .get("instancesDistribution")
                .filter(|value| !value.is_null())
            {
                Some(distribution) => list(distribution, "instanceTypes")
                    .iter()
                    .filter_map(Node::as_str)
                    .collect(),
                None => text(group, "instanceType").into_iter().collect(),
            };
            if !types
                .iter()
                .any(|instance_type| instance_type.starts_with('t'))
            {
                report.fire(
                    format!("{path}.cpuCredits"),
                    "cpuCredits is set, but the group has no burstable (t2/t3) instance types",
                );
            } else if !credits.eq_ignore_ascii_case("standard")
                && !credits.eq_ignore_ascii_case("unlimited")
            {
                report.fire(
                    format!("{path}.cpuCredits"),
                    format!("cpuCredits `{credits}` is not standard or unlimited"),
                );
            }
        }
        const PROCESSES: &[&str] = &[
            "Launch",
            "Terminate",
            "AddToLoadBalancer",
            "AlarmNotification",
            "AZRebalance",
            "HealthCheck",
            "InstanceRefresh",
            "ReplaceUnhealthy",
            "ScheduledActions",
        ];
        for (index, process) in list(group, "asgSuspendProcesses").iter().enumerate() {
            let process = process.as_str().unwrap_or("");
            if !PROCESSES.contains(&process) {
                report.fire(
                    format!("{path}.asgSuspendProcesses[{index}]"),
                    format!("`{process}` is not an Auto Scaling process eksctl can suspend"),
                );
            }
        }
        if let Some(runtime) = text(group, "containerRuntime") {
            let family = ami_family(group);
            if family == "AmazonLinux2023" && runtime != "containerd" {
                report.fire(
                    format!("{path}.containerRuntime"),
                    "only containerd is supported on AmazonLinux2023 nodes",
                );
            } else if !matches!(runtime, "containerd" | "dockerd" | "docker") {
                report.fire(
                    format!("{path}.containerRuntime"),
                    format!("containerRuntime `{runtime}` is not containerd, dockerd or docker"),
                );
            } else if runtime != "containerd" && version.is_some_and(|version| version >= (1, 24)) {
                report.fire(
                    format!("{path}.containerRuntime"),
                    "only containerd is supported from Kubernetes 1.24",
                );
            }
            if group
                .get("overrideBootstrapCommand")
                .is_some_and(|value| !value.is_null())
            {
                report.fire(
                    format!("{path}.containerRuntime"),
                    "overrideBootstrapCommand overrides containerRuntime; set the runtime in the bootstrap script",
                );
            }
        }
        if let Some(lifetime) = number(group, "maxInstanceLifetime")
            && lifetime < 86_400
        {
            report.fire(
                format!("{path}.maxInstanceLifetime"),
                format!(
                    "maxInstanceLifetime must be at least 86400 seconds (one day), not {lifetime}"
                ),
            );
        }
        let family = ami_family(group);
        if !is_bottlerocket(family)
            && !is_windows(family)
            && let Some(kubelet) = group.get("kubeletExtraConfig").and_then(Node::as_mapping)
        {
            for key in kubelet.keys().filter_map(Node::as_str) {
                if matches!(
                    key,
                    "kind"
                        | "apiVersion"
                        | "address"
                        | "clusterDomain"
                        | "authentication"
                        | "authorization"
                        | "serverTLSBootstrap"
                ) {
                    report.fire(
                        child(&format!("{path}.kubeletExtraConfig"), key),
                        format!("kubeletExtraConfig cannot override `{key}`, which eksctl needs"),
                    );
                }
            }
        }
    }
}

/// eksctl's `validateInstanceTypeSupport` for self-managed groups: the AMI family must have
/// an EKS image for the instance type's architecture and accelerator (`GetAMIType` with
/// `strict`): no Arm NVIDIA image for AmazonLinux2, no Arm or Neuron image for Windows,
/// no Arm Neuron image for AmazonLinux2023. A custom `ami` skips the check.
pub(super) fn instance_type_without_ami_type(path: &str, group: Node<'_>, report: &mut Report<'_>) {
    use crate::catalog::instances::{self, Architecture};
    if non_empty(group, "ami").is_some_and(|ami| ami.starts_with("ami-")) {
        return;
    }
    let name = non_empty(group, "instanceType")
        .filter(|name| *name != "mixed")
        .or_else(|| {
            group
                .get("instancesDistribution")
                .and_then(|distribution| list(distribution, "instanceTypes").first())
                .and_then(Node::as_str)
        });
    let Some(instance) = name.and_then(instances::lookup) else {
        return;
    };
    // Checked before eksctl's defaults: no family yet means no image type to miss.
    let family = ami_family(group);
    let arm = instance.architecture == Architecture::Arm64;
    let missing = match family {
        "AmazonLinux2" => arm && (instance.nvidia_gpu || instance.neuron),
        "AmazonLinux2023" => arm && instance.neuron,
        family if is_windows(family) => arm || instance.neuron,
        _ => false,
    };
    // validateNodeGroupBase: only AmazonLinux2, AmazonLinux2023 and Bottlerocket run
    // Trainium and Inferentia (managed groups: the spec rule neuron-ami-unsupported).
    if instance.neuron && !family.is_empty() && !is_amazon_linux(family) && !is_bottlerocket(family)
    {
        report.fire(
            format!("{path}.amiFamily"),
            format!(
                "{} needs the Neuron driver, which only AmazonLinux2, AmazonLinux2023 and Bottlerocket images have; not {family}",
                instance.name
            ),
        );
        return;
    }
    if missing {
        report.fire(
            format!("{path}.instanceType"),
            format!(
                "{} instance types are not supported for self-managed node groups with amiFamily {family}: EKS publishes no such image",
                instance.name
            ),
        );
    }
}

fn ami_value_invalid(document: Node<'_>, report: &mut Report<'_>) {
    for (path, kind, group) in groups(document) {
        let Some(ami) = non_empty(group, "ami") else {
            continue;
        };
        // eksctl's IsAMI: the prefix alone. A placeholder is placeholder-left's.
        if ami.starts_with("ami-") || crate::model::ids::is_placeholder(ami) {
            continue;
        }
        match kind {
            Kind::Managed => report.fire(
                format!("{path}.ami"),
                format!("eksctl refuses `ami: {ami}` on a managed group (its error: `invalid AMI \"{ami}\" ({path}.ami)`): a managed group takes an AMI id or none"),
            ),
            Kind::SelfManaged if ami != "auto" && ami != "auto-ssm" => report.fire(
                format!("{path}.ami"),
                format!("eksctl refuses `ami: {ami}` before it makes any stack (its error: `invalid AMI value: \"{ami}\"`): a self-managed group takes an AMI id, `auto` or `auto-ssm`"),
            ),
            Kind::SelfManaged => {}
        }
    }
}

/// The AMI families eksctl supports (`SupportedAMIFamilies`).
const SUPPORTED_AMI_FAMILIES: &[&str] = &[
    "AmazonLinux2023",
    "AmazonLinux2",
    "UbuntuPro2604",
    "Ubuntu2604",
    "UbuntuPro2404",
    "Ubuntu2404",
    "UbuntuPro2204",
    "Ubuntu2204",
    "UbuntuPro2004",
    "Ubuntu2004",
    "Bottlerocket",
    "BottlerocketFips",
    "WindowsServer2019CoreContainer",
    "WindowsServer2019FullContainer",
    "WindowsServer2022CoreContainer",
    "WindowsServer2022FullContainer",
    "WindowsServer2025CoreContainer",
    "WindowsServer2025FullContainer",
];

/// The group's AMI family as eksctl normalises it (matched without case), or as written
/// when it is none eksctl knows.
pub(super) fn ami_family(group: Node<'_>) -> &str {
    let written = text(group, "amiFamily").unwrap_or("");
    SUPPORTED_AMI_FAMILIES
        .iter()
        .copied()
        .find(|family| family.eq_ignore_ascii_case(written))
        .unwrap_or(written)
}

fn is_bottlerocket(family: &str) -> bool {
    family.eq_ignore_ascii_case("Bottlerocket") || family.eq_ignore_ascii_case("BottlerocketFips")
}

fn is_windows(family: &str) -> bool {
    family.starts_with("WindowsServer")
}

pub(super) fn is_amazon_linux(family: &str) -> bool {
    matches!(family, "AmazonLinux2" | "AmazonLinux2023")
}

fn is_ubuntu(family: &str) -> bool {
    family.starts_with("Ubuntu")
}
