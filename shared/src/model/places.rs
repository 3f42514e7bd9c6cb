//! Where a finding is, in the words of the page (its findings list): "Node group `gpu` › Capacity reservation
//! ID" for `node_groups[0].capacity.reservation_id`. Items are named by their name in the
//! design; fields by the label their input has ([`crate::fields`]).

use crate::Spec;
use crate::fields::Field;
use crate::model::spec::{
    AccessConfig, AccessEntry, AccessPolicy, Addon, AddonPolicies, AutoMode, ClusterSettings,
    FsxVolume, KarpenterSettings, Network, NodeGroup, NodeRepairSettings, RepairOverride, S3Volume,
    Subnet,
};
use crate::upstream::auto_mode::NodeClass;
use crate::upstream::karpenter::{Budget, Ec2NodeClass, NodeOverlay, NodePool, Requirement, Taint};

/// The fields of every object of the design, each declared beside its object.
pub static FIELDS: &[&[&Field]] = &[
    ClusterSettings::FIELDS,
    AutoMode::FIELDS,
    AccessConfig::FIELDS,
    AccessEntry::FIELDS,
    AccessPolicy::FIELDS,
    Spec::FIELDS,
    FsxVolume::FIELDS,
    S3Volume::FIELDS,
    Network::FIELDS,
    Subnet::FIELDS,
    NodeGroup::FIELDS,
    AddonPolicies::FIELDS,
    NodeRepairSettings::FIELDS,
    RepairOverride::FIELDS,
    Addon::FIELDS,
    KarpenterSettings::FIELDS,
    NodePool::FIELDS,
    Requirement::FIELDS,
    Taint::FIELDS,
    Budget::FIELDS,
    NodeOverlay::FIELDS,
    Ec2NodeClass::FIELDS,
    NodeClass::FIELDS,
];

/// Every field of the design.
pub fn all_fields() -> impl Iterator<Item = &'static Field> {
    FIELDS.iter().flat_map(|fields| fields.iter().copied())
}

/// The field whose path with indices left out is `pattern`.
pub fn find_field(pattern: &str) -> Option<&'static Field> {
    all_fields().find(|field| field.is(pattern))
}

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
        // An item of a list field reads as the list (`availability_zones[1]`).
        let label = find_field(&normalized)
            .or_else(|| find_field(normalized.strip_suffix("[]")?))
            .map(|field| field.label.to_owned())
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
    use super::*;
    use crate::fields;

    #[test]
    fn a_field_is_placed_in_its_object_and_found_again_by_its_pattern() {
        assert_eq!(NodeGroup::MIN_SIZE.at(&[2]), "node_groups[2].min_size");
        assert_eq!(ClusterSettings::REGION.at(&[]), "cluster.region");
        assert_eq!(Spec::VPC.at(&[]), "network");
        assert_eq!(
            RepairOverride::REPAIR_ACTION.at(&[1, 3]),
            "node_groups[1].node_repair_config.node_repair_config_overrides[3].repair_action"
        );
        assert_eq!(
            NodePool::WEIGHT.in_object("auto_mode_pools.node_pools[4]"),
            "auto_mode_pools.node_pools[4].spec.weight"
        );
        for field in all_fields() {
            assert_eq!(
                find_field(&fields::pattern(&field.at(&[0, 0, 0]))),
                Some(field)
            );
        }
        assert_eq!(
            find_field("auto_mode_pools.node_pools[].spec.template.spec.requirements[].values"),
            Some(&Requirement::VALUES)
        );
        assert_eq!(find_field("node_groups[].maxPods"), None);
        assert_eq!(
            fields::pattern("node_groups[12].taints[0].key"),
            "node_groups[].taints[].key"
        );
    }

    #[test]
    fn no_two_fields_share_a_path() {
        for field in all_fields() {
            for object in field.within {
                let path = field.in_object(&object.replace("[]", "[0]"));
                let owners: Vec<_> = all_fields()
                    .filter(|other| other.is(&fields::pattern(&path)))
                    .collect();
                assert_eq!(owners, [field], "{path} is declared twice");
            }
        }
    }

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
                "EC2NodeClass `{}` › {}",
                spec.karpenter.as_ref().unwrap().node_classes[0]
                    .metadata
                    .name,
                Ec2NodeClass::NODE_ROLE.label
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
            format!(
                "Auto Mode NodePool `p5-reserved` › {}",
                NodePool::NODE_CLASS_REF_NAME.label
            )
        );
        assert_eq!(place(&spec, ""), "The design");
    }
}
