//! eksctl's self-managed node groups (`nodeGroups`) read back from what eksctl made for
//! them: EKS does not list them, so their CloudFormation stack's template (its launch
//! template's data and Auto Scaling group, `pkg/cfn/builder/nodegroup.go`), its tags
//! and the Auto Scaling group's sizes now are what the read has, as `eksctl get
//! nodegroup` reads them (`pkg/actions/nodegroup/get.go`). What the stack does not hold
//! in a form that says the design (IAM, bootstrap commands, a custom AMI's choice) is
//! left to the design and named.

use std::collections::BTreeMap;

use base64::Engine;
use yaml_serde::{Mapping, Value};

use crate::upstream::eks::{NotRead, SelfManagedStack};
use crate::upstream::node_group_keys::{GROUP_KEYS, group_key};

/// Whether a read takes `key` of a self-managed group from its stack (its row in
/// [`crate::upstream::node_group_keys`]); the design's other keys stand, named as not
/// compared.
fn from_stack(key: &str) -> bool {
    group_key(key).is_some_and(|row| row.from_stack)
}

/// Where the cluster's subnets are, for telling a group's own subnets from "the cluster's".
pub(crate) struct Places<'a> {
    /// The cluster's subnets, in EKS's order.
    pub cluster_subnets: &'a [&'a str],
    /// The cluster's zones, in order.
    pub cluster_zones: &'a [&'a str],
    /// Each known subnet's zone.
    pub zone_of: &'a BTreeMap<&'a str, &'a str>,
    /// Whether each known subnet is public.
    pub public_of: &'a BTreeMap<&'a str, bool>,
    /// Whether eksctl made the VPC (its places are zones, not subnet ids).
    pub eksctl_vpc: bool,
    /// The cluster's own tags, which eksctl merges into every group's.
    pub cluster_tags: &'a BTreeMap<String, String>,
}

fn put(mapping: &mut Mapping, key: &str, value: impl Into<Value>) {
    mapping.insert(Value::from(key), value.into());
}

fn literal<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

fn size(value: Option<&Value>) -> Option<u64> {
    match value? {
        Value::String(text) => text.parse().ok(),
        other => other.as_u64(),
    }
}

/// The group `stack` describes, as a `nodeGroups` entry, or `None` (named in `not_read`)
/// when its template is not eksctl's.
pub(crate) fn self_managed_group(
    stack: &SelfManagedStack,
    places: &Places,
    not_read: &mut Vec<NotRead>,
) -> Option<Value> {
    let name = stack.name.as_str();
    let template: Value = match yaml_serde::from_str(&stack.template) {
        Ok(template) => template,
        Err(error) => {
            not_read.push(NotRead {
                what: format!("self-managed node group {name}"),
                why: format!(
                    "the template of stack {} does not parse: {error}",
                    stack.stack_name
                ),
            });
            return None;
        }
    };
    let resources = template.get("Resources");
    let data = resources
        .and_then(|resources| resources.get("NodeGroupLaunchTemplate"))
        .and_then(|template| template.get("Properties"))
        .and_then(|properties| properties.get("LaunchTemplateData"));
    let group = resources
        .and_then(|resources| resources.get("NodeGroup"))
        .and_then(|group| group.get("Properties"));
    let (Some(data), Some(group)) = (data, group) else {
        not_read.push(NotRead {
            what: format!("self-managed node group {name}"),
            why: format!(
                "stack {} has no NodeGroupLaunchTemplate and NodeGroup resources, which every eksctl node group stack has",
                stack.stack_name
            ),
        });
        return None;
    };
    let mut unread: Vec<&str> = Vec::new();
    let mut entry = Mapping::new();
    put(&mut entry, "name", name);

    // eksctl's stack description: "EKS nodes (AMI family: F, SSH access: B, private
    // networking: B) [created and managed by eksctl]".
    let description = literal(&template, "Description").unwrap_or_default();
    let family = description
        .split_once("AMI family: ")
        .and_then(|(_, rest)| rest.split_once(','))
        .map(|(family, _)| family.trim())
        .filter(|family| !family.is_empty());
    match family {
        Some(family) => put(&mut entry, "amiFamily", family),
        None => unread.push("amiFamily"),
    }

    let overrides: Vec<&str> = group
        .get("MixedInstancesPolicy")
        .and_then(|policy| policy.get("LaunchTemplate"))
        .and_then(|template| template.get("Overrides"))
        .and_then(Value::as_sequence)
        .map(|items| {
            items
                .iter()
                .filter_map(|item| literal(item, "InstanceType"))
                .collect()
        })
        .unwrap_or_default();
    if overrides.is_empty() {
        match literal(data, "InstanceType") {
            Some(instance_type) => put(&mut entry, "instanceType", instance_type),
            None => unread.push("instanceType"),
        }
    } else {
        let mut distribution = Mapping::new();
        put(
            &mut distribution,
            "instanceTypes",
            Value::Sequence(overrides.iter().map(|item| Value::from(*item)).collect()),
        );
        put(
            &mut entry,
            "instancesDistribution",
            Value::Mapping(distribution),
        );
        unread.push("instancesDistribution's on-demand and Spot settings");
    }

    let (min, desired, max) = match stack.sizes {
        Some(sizes) => (
            Some(u64::from(sizes.min)),
            Some(u64::from(sizes.desired)),
            Some(u64::from(sizes.max)),
        ),
        None => {
            unread
                .push("the sizes now (the Auto Scaling group was not read; the stack's are shown)");
            let min = size(group.get("MinSize"));
            (
                min,
                size(group.get("DesiredCapacity")).or(min),
                size(group.get("MaxSize")),
            )
        }
    };
    for (key, value) in [
        ("minSize", min),
        ("desiredCapacity", desired),
        ("maxSize", max),
    ] {
        if let Some(value) = value {
            put(&mut entry, key, value);
        }
    }

    let subnets: Option<Vec<&str>> = group
        .get("VPCZoneIdentifier")
        .and_then(Value::as_sequence)
        .and_then(|items| items.iter().map(Value::as_str).collect());
    match subnets {
        Some(subnets) if !subnets.is_empty() => place(&mut entry, &subnets, places),
        _ => unread.push("subnets (the stack's are not a list of subnet ids)"),
    }

    let interfaces = data
        .get("NetworkInterfaces")
        .and_then(Value::as_sequence)
        .map(Vec::as_slice)
        .unwrap_or_default();
    if interfaces
        .iter()
        .any(|interface| literal(interface, "InterfaceType") == Some("efa"))
    {
        put(&mut entry, "efaEnabled", true);
    }
    let root = data
        .get("BlockDeviceMappings")
        .and_then(Value::as_sequence)
        .and_then(|mappings| mappings.first())
        .and_then(|mapping| mapping.get("Ebs"));
    if let Some(volume_size) = size(root.and_then(|ebs| ebs.get("VolumeSize"))) {
        put(&mut entry, "volumeSize", volume_size);
    }
    if let Some(volume_type) = root.and_then(|ebs| literal(ebs, "VolumeType")) {
        put(&mut entry, "volumeType", volume_type);
    }

    if let Some(specification) = data.get("CapacityReservationSpecification") {
        let mut reservation = Mapping::new();
        if let Some(preference) = literal(specification, "CapacityReservationPreference") {
            put(
                &mut reservation,
                "capacityReservationPreference",
                preference,
            );
        }
        if let Some(target) = specification.get("CapacityReservationTarget") {
            let mut own = Mapping::new();
            if let Some(id) = literal(target, "CapacityReservationId") {
                put(&mut own, "capacityReservationID", id);
            }
            if let Some(arn) = literal(target, "CapacityReservationResourceGroupArn") {
                put(&mut own, "capacityReservationResourceGroupARN", arn);
            }
            put(
                &mut reservation,
                "capacityReservationTarget",
                Value::Mapping(own),
            );
        }
        put(
            &mut entry,
            "capacityReservation",
            Value::Mapping(reservation),
        );
    }
    if let Some(market) = data
        .get("InstanceMarketOptions")
        .and_then(|options| literal(options, "MarketType"))
    {
        let mut options = Mapping::new();
        put(&mut options, "marketType", market);
        put(&mut entry, "instanceMarketOptions", Value::Mapping(options));
    }
    // A placement group the design named is a literal; eksctl's own for EFA is a
    // reference to the stack's NodeGroupPlacementGroup, not the design's.
    if let Some(group_name) = data
        .get("Placement")
        .and_then(|placement| literal(placement, "GroupName"))
    {
        let mut placement = Mapping::new();
        put(&mut placement, "groupName", group_name);
        put(&mut entry, "placement", Value::Mapping(placement));
    }

    let flags = literal(data, "UserData").and_then(kubelet_flags);
    match flags {
        Some(flags) => {
            let labels: Mapping = flags
                .labels
                .into_iter()
                .filter(|(key, _)| !key.starts_with("alpha.eksctl.io/"))
                .map(|(key, value)| (Value::from(key), Value::from(value)))
                .collect();
            if !labels.is_empty() {
                put(&mut entry, "labels", Value::Mapping(labels));
            }
            let taints: Vec<Value> = flags
                .taints
                .into_iter()
                .map(|(key, value, effect)| {
                    let mut taint = Mapping::new();
                    put(&mut taint, "key", key);
                    if !value.is_empty() {
                        put(&mut taint, "value", value);
                    }
                    put(&mut taint, "effect", effect);
                    Value::Mapping(taint)
                })
                .collect();
            if !taints.is_empty() {
                put(&mut entry, "taints", Value::Sequence(taints));
            }
        }
        None => {
            unread.push("labels and taints (its user data passes no kubelet flags the read knows)")
        }
    }

    // eksctl tags the stack with the group's tags, the cluster's merged in where the
    // group has none of that key.
    let tags: Mapping = stack
        .tags
        .iter()
        .filter(|(key, value)| {
            !crate::upstream::eksctl::made_by_the_peers(key)
                && places.cluster_tags.get(*key) != Some(value)
        })
        .map(|(key, value)| (Value::from(key.as_str()), Value::from(value.as_str())))
        .collect();
    if !tags.is_empty() {
        put(&mut entry, "tags", Value::Mapping(tags));
    }

    if !unread.is_empty() {
        not_read.push(NotRead {
            what: format!("self-managed node group {name}: {}", unread.join(", ")),
            why: format!(
                "stack {} does not hold them in a form the read takes",
                stack.stack_name
            ),
        });
    }
    Some(Value::Mapping(entry))
}

/// The group's place in the design's terms: nothing when it is all of the cluster's
/// subnets of its kind (eksctl's default), else its zones (eksctl's VPC) or subnet ids.
fn place(entry: &mut Mapping, subnets: &[&str], places: &Places) {
    let private = subnets
        .iter()
        .all(|subnet| places.public_of.get(subnet) == Some(&false));
    if private {
        put(entry, "privateNetworking", true);
    }
    let mut theirs: Vec<&str> = subnets.to_vec();
    let mut same_kind: Vec<&str> = places
        .cluster_subnets
        .iter()
        .copied()
        .filter(|subnet| places.public_of.get(subnet) == Some(&!private))
        .collect();
    theirs.sort_unstable();
    same_kind.sort_unstable();
    if theirs == same_kind {
        return;
    }
    if places.eksctl_vpc
        && subnets
            .iter()
            .all(|subnet| places.zone_of.contains_key(subnet))
    {
        let zones: Vec<Value> = places
            .cluster_zones
            .iter()
            .filter(|zone| {
                subnets
                    .iter()
                    .any(|subnet| places.zone_of.get(subnet) == Some(zone))
            })
            .map(|zone| Value::from(*zone))
            .collect();
        put(entry, "availabilityZones", Value::Sequence(zones));
    } else {
        put(
            entry,
            "subnets",
            Value::Sequence(subnets.iter().map(|subnet| Value::from(*subnet)).collect()),
        );
    }
}

/// The read self-managed groups made comparable with the design's: each group the design
/// also names takes the design's keys the stack does not hold (named in `not_compared`),
/// the design's words where they mean what was read (a default left out, the same zones
/// or subnets by name, the legacy taint map), and the read's value of every other key.
/// Groups only one side has stay as they are: a creation or a deletion.
pub(crate) fn aligned_groups(
    read: &[Value],
    design: &crate::model::spec::Spec,
    not_read: &[NotRead],
    not_compared: &mut Vec<String>,
) -> Vec<Value> {
    let planned: &[Value] = design
        .eksctl_extra
        .get("nodeGroups")
        .and_then(Value::as_sequence)
        .map(Vec::as_slice)
        .unwrap_or_default();
    read.iter()
        .map(|group| {
            let name = literal(group, "name").unwrap_or_default();
            let Some(own) = planned
                .iter()
                .find(|own| literal(own, "name") == Some(name))
            else {
                return group.clone();
            };
            let (Some(read_keys), Some(own_keys)) = (group.as_mapping(), own.as_mapping()) else {
                return group.clone();
            };
            let unread = |key: &str| {
                let prefix = format!("self-managed node group {name}: ");
                not_read.iter().any(|gap| {
                    gap.what
                        .strip_prefix(&prefix)
                        .is_some_and(|keys| keys.contains(key))
                })
            };
            let mut aligned = own_keys.clone();
            for row in GROUP_KEYS.iter().filter(|row| row.from_stack) {
                let key = row.key;
                let placement = matches!(key, "subnets" | "availabilityZones" | "privateNetworking");
                if unread(key) || (placement && unread("subnets")) {
                    continue;
                }
                aligned.remove(key);
                if let Some(value) = read_keys.get(key) {
                    aligned.insert(Value::from(key), value.clone());
                }
                // What the design leaves to eksctl and eksctl's default are the same.
                if !own_keys.contains_key(key)
                    && let Some(default) = row.default
                    && aligned.get(key).is_some_and(|value| default.is(value))
                {
                    aligned.remove(key);
                }
            }
            // The same labels, taints, tags or place in the design's words.
            for key in ["labels", "tags"] {
                if string_map(own_keys.get(key)) == string_map(read_keys.get(key))
                    && let Some(value) = own_keys.get(key)
                {
                    aligned.insert(Value::from(key), value.clone());
                }
            }
            if taint_set(own_keys.get("taints")) == taint_set(read_keys.get("taints"))
                && let Some(value) = own_keys.get("taints")
            {
                aligned.insert(Value::from("taints"), value.clone());
            }
            if !unread("subnets") && same_place(own, group, design) {
                for key in ["subnets", "availabilityZones"] {
                    aligned.remove(key);
                    if let Some(value) = own_keys.get(key) {
                        aligned.insert(Value::from(key), value.clone());
                    }
                }
            }
            // The Spot and on-demand shares of a mixed group are the design's.
            if let (Some(Value::Mapping(own_distribution)), Some(read_distribution)) = (
                own_keys.get("instancesDistribution"),
                read_keys.get("instancesDistribution"),
            ) {
                let mut distribution = own_distribution.clone();
                if let Some(types) = read_distribution.get("instanceTypes") {
                    distribution.insert(Value::from("instanceTypes"), types.clone());
                }
                aligned.insert(
                    Value::from("instancesDistribution"),
                    Value::Mapping(distribution),
                );
            }
            let kept: Vec<&str> = own_keys
                .keys()
                .filter_map(Value::as_str)
                .filter(|key| !from_stack(key))
                .collect();
            if !kept.is_empty() {
                not_compared.push(format!(
                    "self-managed node group {name}: {} (its stack does not hold them as the design says them)",
                    kept.join(", ")
                ));
            }
            Value::Mapping(aligned)
        })
        .collect()
}

/// A mapping's entries as text (`8` and `"8"` alike), sorted.
fn string_map(value: Option<&Value>) -> Vec<(String, String)> {
    let text = |value: &Value| match value {
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        Value::Bool(flag) => flag.to_string(),
        _ => String::new(),
    };
    let mut entries: Vec<(String, String)> = value
        .and_then(Value::as_mapping)
        .map(|mapping| {
            mapping
                .iter()
                .map(|(key, value)| (text(key), text(value)))
                .collect()
        })
        .unwrap_or_default();
    entries.sort();
    entries
}

/// Taints as (key, value, effect), sorted: eksctl's list, or the legacy map of
/// `key: "value:Effect"` its decoder still takes.
fn taint_set(value: Option<&Value>) -> Vec<(String, String, String)> {
    let mut taints: Vec<(String, String, String)> = match value {
        Some(Value::Sequence(items)) => items
            .iter()
            .map(|item| {
                (
                    literal(item, "key").unwrap_or_default().to_owned(),
                    literal(item, "value").unwrap_or_default().to_owned(),
                    literal(item, "effect").unwrap_or_default().to_owned(),
                )
            })
            .collect(),
        Some(Value::Mapping(map)) => map
            .iter()
            .map(|(key, value)| {
                let value = value.as_str().unwrap_or_default();
                let (value, effect) = value.rsplit_once(':').unwrap_or((value, ""));
                (
                    key.as_str().unwrap_or_default().to_owned(),
                    value.to_owned(),
                    effect.to_owned(),
                )
            })
            .collect(),
        _ => Vec::new(),
    };
    taints.sort();
    taints
}

/// Whether the design's group and the read one are in the same place: the same zones,
/// or the same subnets once the design's subnet names are its VPC's ids.
fn same_place(own: &Value, read: &Value, design: &crate::model::spec::Spec) -> bool {
    let list = |value: &Value, key: &str| -> Option<Vec<String>> {
        let mut items: Vec<String> = value
            .get(key)?
            .as_sequence()?
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        items.sort();
        items.dedup();
        Some(items)
    };
    let id_of = |name: &str| -> String {
        match &design.network {
            crate::model::spec::Network::ExistingVpc {
                public_subnets,
                private_subnets,
                ..
            } => public_subnets
                .iter()
                .chain(private_subnets)
                .find(|subnet| subnet.name == name)
                .map_or_else(|| name.to_owned(), |subnet| subnet.id.clone()),
            crate::model::spec::Network::NewVpc { .. } => name.to_owned(),
        }
    };
    if let (Some(own_zones), Some(read_zones)) = (
        list(own, "availabilityZones"),
        list(read, "availabilityZones"),
    ) {
        return own_zones == read_zones;
    }
    if let (Some(own_subnets), Some(read_subnets)) = (list(own, "subnets"), list(read, "subnets")) {
        let mut own_ids: Vec<String> = own_subnets.iter().map(|name| id_of(name)).collect();
        own_ids.sort();
        own_ids.dedup();
        return own_ids == read_subnets;
    }
    false
}

/// The labels and taints a node's user data passes to the kubelet.
#[derive(Debug, Default, PartialEq)]
struct KubeletFlags {
    labels: Vec<(String, String)>,
    taints: Vec<(String, String, String)>,
}

/// The `--node-labels` and `--register-with-taints` flags in base64 user data, as eksctl
/// writes them for AmazonLinux2023 (a NodeConfig's `kubelet.flags`), AmazonLinux2 and
/// Ubuntu (`--kubelet-extra-args`): `k=v,k2=v2` and `k=v:Effect,…`
/// (`pkg/nodebootstrap`, `utils.FormatTaints`). `None` when it holds neither flag nor a
/// NodeConfig (Bottlerocket's TOML, Windows' PowerShell), so labels are not guessed.
fn kubelet_flags(user_data: &str) -> Option<KubeletFlags> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(user_data.trim())
        .ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let flag = |name: &str| -> Option<String> {
        let start = text.find(name)? + name.len();
        let rest = &text[start..];
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\''))
            .unwrap_or(rest.len());
        Some(rest[..end].to_owned())
    };
    let labels = flag("--node-labels=");
    let taints = flag("--register-with-taints=");
    if labels.is_none() && taints.is_none() && !text.contains("application/node.eks.aws") {
        return None;
    }
    let mut flags = KubeletFlags::default();
    for pair in labels.iter().flat_map(|labels| labels.split(',')) {
        if let Some((key, value)) = pair.split_once('=') {
            flags.labels.push((key.to_owned(), value.to_owned()));
        }
    }
    for taint in taints.iter().flat_map(|taints| taints.split(',')) {
        let Some((rest, effect)) = taint.rsplit_once(':') else {
            continue;
        };
        let (key, value) = rest.split_once('=').unwrap_or((rest, ""));
        flags
            .taints
            .push((key.to_owned(), value.to_owned(), effect.to_owned()));
    }
    Some(flags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubelet_flags_are_read_from_eksctls_node_config_and_bootstrap_arguments() {
        let encode = |text: &str| base64::engine::general_purpose::STANDARD.encode(text);
        // AmazonLinux2023: a NodeConfig in a MIME message (pkg/nodebootstrap/al2023.go).
        let node_config = "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n    - --node-labels=alpha.eksctl.io/nodegroup-name=gpu,role=train\n    - --register-with-taints=nvidia.com/gpu=true:NoSchedule,spot=:PreferNoSchedule\n\n--//--\n";
        let flags = kubelet_flags(&encode(node_config)).expect("read");
        assert_eq!(
            flags.labels,
            [
                (
                    "alpha.eksctl.io/nodegroup-name".to_owned(),
                    "gpu".to_owned()
                ),
                ("role".to_owned(), "train".to_owned())
            ]
        );
        assert_eq!(
            flags.taints,
            [
                (
                    "nvidia.com/gpu".to_owned(),
                    "true".to_owned(),
                    "NoSchedule".to_owned()
                ),
                (
                    "spot".to_owned(),
                    String::new(),
                    "PreferNoSchedule".to_owned()
                )
            ]
        );
        // AmazonLinux2: bootstrap.sh's --kubelet-extra-args.
        let bootstrap =
            "#!/bin/bash\n/etc/eks/bootstrap.sh demo --kubelet-extra-args '--node-labels=a=b'\n";
        assert_eq!(
            kubelet_flags(&encode(bootstrap)).expect("read").labels,
            [("a".to_owned(), "b".to_owned())]
        );
        // Bottlerocket's TOML holds its labels elsewhere: not read, not guessed empty.
        assert_eq!(
            kubelet_flags(&encode("[settings.kubernetes.node-labels]\na = \"b\"\n")),
            None
        );
    }
}
