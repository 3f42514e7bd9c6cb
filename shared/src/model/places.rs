//! Where a finding is, in the words of the page (its findings list): "Node group `gpu` › Capacity reservation
//! ID" for `node_groups[0].capacity.reservation_id`. Items are named by their name in the
//! design; fields by the label their input has.

use crate::Spec;

/// Labels of fields by their path with indices left out (`node_groups[].max_size`).
const FIELDS: &[(&str, &str)] = &[
    ("cluster.name", "Cluster name"),
    ("cluster.region", "Region"),
    ("cluster.kubernetes_version", "Kubernetes version"),
    ("cluster.with_oidc", "IAM OIDC provider"),
    ("cluster.auto_mode", "EKS Auto Mode"),
    ("cluster.auto_mode.enabled", "EKS Auto Mode"),
    (
        "cluster.auto_mode.node_pools",
        "Auto Mode built-in node pools",
    ),
    (
        "cluster.auto_mode.node_pools[]",
        "Auto Mode built-in node pools",
    ),
    ("cluster.auto_mode.node_role_arn", "Auto Mode node role ARN"),
    (
        "cluster.auto_mode.permissions_boundary_arn",
        "Auto Mode node role permissions boundary",
    ),
    ("storage.fsx", "FSx for Lustre file system"),
    ("storage.fsx.subnet_id", "FSx subnet ID"),
    ("storage.fsx.security_group_ids", "FSx security group IDs"),
    ("storage.fsx.security_group_ids[]", "FSx security group IDs"),
    ("storage.fsx.deployment_type", "FSx deployment type"),
    (
        "storage.fsx.per_unit_storage_throughput",
        "FSx throughput (MB/s per TiB)",
    ),
    ("storage.fsx.storage_gib", "FSx storage (GiB)"),
    ("storage.s3", "S3 bucket volume"),
    ("storage.s3.bucket", "S3 bucket"),
    ("storage.s3.prefix", "S3 prefix"),
    ("network", "VPC"),
    ("network.mode", "VPC"),
    ("network.vpc_id", "VPC ID"),
    ("network.availability_zones", "Availability zones"),
    ("network.availability_zones[]", "Availability zones"),
    ("network.private_subnets[].name", "Subnet name"),
    ("network.private_subnets[].id", "Subnet ID"),
    (
        "network.private_subnets[].availability_zone",
        "Subnet availability zone",
    ),
    ("network.public_subnets[].name", "Subnet name"),
    ("network.public_subnets[].id", "Subnet ID"),
    (
        "network.public_subnets[].availability_zone",
        "Subnet availability zone",
    ),
    ("node_groups[].name", "Node group name"),
    ("node_groups[].instance_type", "Instance type"),
    ("node_groups[].instance_types", "Instance types"),
    ("node_groups[].ami_family", "AMI family"),
    ("node_groups[].min_size", "Min size"),
    ("node_groups[].desired_capacity", "Desired capacity"),
    ("node_groups[].max_size", "Max size"),
    ("node_groups[].efa_enabled", "EFA"),
    ("node_groups[].private_networking", "Private networking"),
    ("node_groups[].capacity", "Capacity type"),
    (
        "node_groups[].capacity.reservation_id",
        "Capacity reservation ID",
    ),
    ("node_groups[].placement", "Placement"),
    (
        "node_groups[].placement.availability_zones",
        "Availability zone",
    ),
    (
        "node_groups[].placement.availability_zones[]",
        "Availability zone",
    ),
    ("node_groups[].placement.subnets", "Subnets"),
    ("node_groups[].placement.subnets[]", "Subnets"),
    ("node_groups[].placement_group", "Placement group"),
    ("node_groups[].labels", "Labels"),
    ("node_groups[].taints", "Taints"),
    ("node_groups[].node_repair", "Node auto-repair"),
    (
        "node_groups[].node_repair_config.max_unhealthy_node_threshold_count",
        "Stop repairs above unhealthy nodes (count)",
    ),
    (
        "node_groups[].node_repair_config.max_unhealthy_node_threshold_percentage",
        "Stop repairs above unhealthy nodes (%)",
    ),
    (
        "node_groups[].node_repair_config.max_parallel_nodes_repaired_count",
        "Nodes repaired at once (count)",
    ),
    (
        "node_groups[].node_repair_config.max_parallel_nodes_repaired_percentage",
        "Nodes repaired at once (%)",
    ),
    (
        "node_groups[].node_repair_config.node_repair_config_overrides[]",
        "Repair override",
    ),
    (
        "node_groups[].node_repair_config.node_repair_config_overrides[].repair_action",
        "Action",
    ),
    ("node_groups[].local_nvme_raid0", "Local NVMe as RAID0"),
    ("addons[].name", "Add-on name"),
    ("addons[].version", "Version"),
    ("addons[].attach_policy_arns", "IAM policy ARNs"),
    (
        "karpenter.interruption_queue",
        "Spot interruption queue (SQS)",
    ),
    ("karpenter.controller_identity", "Controller's AWS role"),
    (
        "karpenter.spot_to_spot_consolidation",
        "Spot-to-Spot consolidation",
    ),
    (
        "karpenter.node_pools[].spec.template.spec.requirements",
        "Requirements",
    ),
    (
        "karpenter.node_pools[].spec.template.spec.nodeClassRef",
        "EC2NodeClass",
    ),
    (
        "karpenter.node_pools[].spec.template.spec.nodeClassRef.name",
        "EC2NodeClass",
    ),
    ("karpenter.node_pools[].spec.template.spec.taints", "Taints"),
    ("karpenter.node_pools[].spec.limits", "Limits"),
    ("karpenter.node_pools[].spec.replicas", "Static node count"),
    ("karpenter.node_repair", "Node repair (Karpenter)"),
    ("karpenter.node_pools[].spec.disruption", "Disruption"),
    ("karpenter.node_classes[].spec.role", "Node role"),
    (
        "karpenter.node_classes[].spec.amiSelectorTerms",
        "AMI selector",
    ),
    (
        "karpenter.node_classes[].spec.subnetSelectorTerms",
        "Subnet discovery",
    ),
    (
        "karpenter.node_classes[].spec.securityGroupSelectorTerms",
        "Security group discovery",
    ),
    (
        "karpenter.node_classes[].spec.capacityReservationSelectorTerms",
        "Capacity reservations",
    ),
    (
        "karpenter.node_classes[].spec.networkInterfaces",
        "EFA devices",
    ),
];

/// "maxSize" or "max_size" as "Max size".
fn words(key: &str) -> String {
    let mut text = String::new();
    for (index, character) in key.chars().enumerate() {
        if character == '_' {
            text.push(' ');
        } else if character.is_ascii_uppercase() && index > 0 {
            text.push(' ');
            text.push(character.to_ascii_lowercase());
        } else {
            text.push(character);
        }
    }
    let mut characters = text.chars();
    characters
        .next()
        .map(|first| first.to_uppercase().chain(characters).collect())
        .unwrap_or_default()
}

/// An item of a list named by its name: "Node group `gpu`", "NodePool 2".
fn item(spec: &Spec, list: &str, index: usize) -> Option<String> {
    let named = |noun: &str, name: Option<&str>| match name.filter(|name| !name.trim().is_empty()) {
        Some(name) => format!("{noun} `{name}`"),
        None => format!("{noun} {}", index + 1),
    };
    let karpenter = spec.karpenter.as_ref();
    Some(match list {
        "node_groups" => named(
            "Node group",
            spec.node_groups.get(index).map(|group| group.name.as_str()),
        ),
        "addons" => named(
            "Add-on",
            spec.addons.get(index).map(|addon| addon.name.as_str()),
        ),
        "karpenter.node_pools" => named(
            "NodePool",
            karpenter
                .and_then(|karpenter| karpenter.node_pools.get(index))
                .map(|pool| pool.metadata.name.as_str()),
        ),
        "karpenter.node_classes" => named(
            "EC2NodeClass",
            karpenter
                .and_then(|karpenter| karpenter.node_classes.get(index))
                .map(|class| class.metadata.name.as_str()),
        ),
        "auto_mode_pools.node_pools" => named(
            "Auto Mode NodePool",
            spec.auto_mode_pools
                .node_pools
                .get(index)
                .map(|pool| pool.metadata.name.as_str()),
        ),
        "auto_mode_pools.node_classes" => named(
            "Auto Mode NodeClass",
            spec.auto_mode_pools
                .node_classes
                .get(index)
                .map(|class| class.metadata.name.as_str()),
        ),
        "network.private_subnets" => format!("Private subnet {}", index + 1),
        "network.public_subnets" => format!("Public subnet {}", index + 1),
        _ => return None,
    })
}

/// Where `path` is, in the page's words.
pub fn place(spec: &Spec, path: &str) -> String {
    if path.is_empty() {
        return "The design".to_owned();
    }
    // Walk the path: each `[n]` of a named list becomes the item's name.
    let mut parts: Vec<String> = Vec::new();
    let mut normalized = String::new();
    let mut rest = path;
    let mut field_start = 0;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']').map(|close| open + close) else {
            break;
        };
        let list = format!("{normalized}{}", &rest[..open]);
        let index = rest[open + 1..close].parse::<usize>().ok();
        normalized = format!("{list}[]");
        if let Some(name) = index.and_then(|index| item(spec, &list, index)) {
            parts.push(name);
            field_start = normalized.len();
        }
        rest = &rest[close + 1..];
    }
    normalized.push_str(rest);
    let field = normalized[field_start..].trim_start_matches('.');
    if !field.is_empty() {
        let label = FIELDS
            .iter()
            .find(|(known, _)| *known == normalized)
            .map(|(_, label)| (*label).to_owned())
            .unwrap_or_else(|| {
                let last = field
                    .rsplit('.')
                    .find(|part| !part.is_empty() && *part != "[]")
                    .unwrap_or(field)
                    .trim_end_matches("[]");
                words(last)
            });
        parts.push(label);
    }
    parts.join(" › ")
}

#[cfg(test)]
mod tests {
    use super::place;

    #[test]
    fn paths_read_as_the_items_names_and_the_fields_labels() {
        let spec = crate::template("karpenter-reserved-training")
            .unwrap()
            .spec();
        let group = &spec.node_groups[0].name;
        assert_eq!(
            place(&spec, "node_groups[0].capacity.reservation_id"),
            format!("Node group `{group}` › Capacity reservation ID")
        );
        assert_eq!(place(&spec, "cluster.region"), "Region");
        assert_eq!(
            place(&spec, "network.availability_zones[1]"),
            "Availability zones"
        );
        let pool = &spec.karpenter.as_ref().unwrap().node_pools[0].metadata.name;
        assert_eq!(
            place(
                &spec,
                "karpenter.node_pools[0].spec.template.spec.requirements[1].values"
            ),
            format!("NodePool `{pool}` › Values")
        );
        assert_eq!(
            place(&spec, "karpenter.node_classes[0].spec.role"),
            format!(
                "EC2NodeClass `{}` › Node role",
                spec.karpenter.as_ref().unwrap().node_classes[0]
                    .metadata
                    .name
            )
        );
        // A group not in the design any more is named by its number; unknown keys in words.
        assert_eq!(
            place(&spec, "node_groups[7].maxPods"),
            "Node group 8 › Max pods"
        );
        assert_eq!(place(&spec, "node_groups"), "Node groups");
        let auto = crate::template("auto-mode-reserved-training")
            .unwrap()
            .spec();
        assert_eq!(
            place(
                &auto,
                "auto_mode_pools.node_pools[0].spec.template.spec.nodeClassRef.name"
            ),
            "Auto Mode NodePool `p5-reserved` › Name"
        );
        assert_eq!(place(&spec, ""), "The design");
    }
}
