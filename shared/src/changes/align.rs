//! A running cluster's design made comparable with the design planned against it: what a
//! read cannot see (IAM policies of node roles, bootstrap commands, what eksctl keeps in
//! its launch templates and stacks) is taken from the planned design and listed as not
//! compared, never guessed; names only the design knows replace the ids they stand for.

use yaml_serde::{Mapping, Value};

use std::collections::BTreeMap;

use super::read::{Reading, put};
use crate::model::spec::{GroupPlacement, Network, Spec};
use crate::upstream::node_group_keys::{GROUP_KEYS, ManagedRead};

/// The read design made comparable with `design`, the one being planned: what a read
/// cannot see is taken from the design (and listed, as not compared), and names only the
/// design knows (an existing VPC's subnet names) replace the ids they stand for.
pub fn aligned(reading: &Reading, design: &Spec) -> (Spec, Vec<String>) {
    let mut spec = reading.spec.clone();
    let mut not_compared = Vec::new();
    // Subnet names: the design's name for each id the cluster uses.
    if let (
        Network::ExistingVpc {
            public_subnets: read_public,
            private_subnets: read_private,
            ..
        },
        Network::ExistingVpc {
            public_subnets,
            private_subnets,
            ..
        },
    ) = (&mut spec.network, &design.network)
    {
        let names: BTreeMap<&str, &str> = public_subnets
            .iter()
            .chain(private_subnets)
            .map(|subnet| (subnet.id.as_str(), subnet.name.as_str()))
            .collect();
        for subnet in read_public.iter_mut().chain(read_private.iter_mut()) {
            if let Some(name) = names.get(subnet.id.as_str()) {
                subnet.name = (*name).to_owned();
            }
        }
    }
    // A group's placement in the design's words when it is the same place: the subnets
    // named or left to eksctl, the zones listed or all of them.
    for group in &mut spec.node_groups {
        if let Some(planned) = design
            .node_groups
            .iter()
            .find(|planned| planned.name == group.name)
            && planned.private_networking == group.private_networking
            && places(design, planned) == places(&reading.spec, group)
        {
            group.placement = planned.placement.clone();
        }
    }
    // eksctl picks the zones of a new VPC when the design names none.
    if let (Network::NewVpc { .. }, Network::NewVpc { availability_zones }) =
        (&spec.network, &design.network)
        && availability_zones.is_empty()
    {
        spec.network = design.network.clone();
    }
    for group in &mut spec.node_groups {
        let Some(planned) = design
            .node_groups
            .iter()
            .find(|planned| planned.name == group.name)
        else {
            continue;
        };
        group.addon_policies = planned.addon_policies.clone();
        // A custom AMI's family is eksctl's to know (it picks the bootstrap format by it).
        if group.ami_family.is_none() && group.extra.contains_key("ami") {
            group.ami_family = planned.ami_family.clone();
        }
        group.instance_prefix = planned.instance_prefix.clone();
        let running = reading.running_groups.get(&group.name);
        let template = running.and_then(|eks| eks.launch_template.as_ref());
        let mut not_looked = Vec::new();
        // Each key where its row says a read finds it (`upstream::node_group_keys`).
        for row in GROUP_KEYS {
            let key = row.key;
            let set = planned.extra.get(key);
            let from_the_design = |group: &mut crate::model::spec::NodeGroup| {
                group.extra.remove(key);
                if let Some(value) = set {
                    group.extra.insert(Value::from(key), value.clone());
                }
            };
            match row.managed_read {
                // EKS's default written out is the default left out.
                ManagedRead::Eks => {
                    if !group.extra.contains_key(key)
                        && let (Some(default), Some(value)) = (row.default, set)
                        && default.is(value)
                    {
                        group.extra.insert(Value::from(key), value.clone());
                    }
                }
                // Pinned by the design: compared with what the nodes run; left out: the
                // newest at creation, which is no change.
                ManagedRead::EksWhereSet(held) => {
                    group.extra.remove(key);
                    if set.is_some()
                        && let Some(value) = running.and_then(held)
                    {
                        group.extra.insert(Value::from(key), value);
                    }
                }
                // What eksctl wrote into the launch template, where the design sets it.
                ManagedRead::LaunchTemplate(held) => {
                    from_the_design(group);
                    if set.is_some()
                        && let Some(value) = template.and_then(held)
                    {
                        group.extra.insert(Value::from(key), value);
                    }
                }
                ManagedRead::Design => from_the_design(group),
                ManagedRead::NotLooked => {
                    from_the_design(group);
                    if set.is_some() {
                        not_looked.push(key);
                    }
                }
            }
        }
        // The bootstrap NodeConfig the studio writes for NVMe is a modelled field.
        group.local_nvme_raid0 = planned.local_nvme_raid0;
        not_compared.push(format!(
            "node group {}: iam, bootstrap commands, max pods, instance name and prefix, additional volumes, security groups (EKS does not hold them)",
            group.name
        ));
        if !not_looked.is_empty() {
            not_compared.push(format!(
                "node group {}: {} (the read does not look for them)",
                group.name,
                not_looked.join(", ")
            ));
        }
    }
    // Add-on versions a design leaves to eksctl ("latest", none) resolve at creation.
    for addon in &mut spec.addons {
        let Some(planned) = design
            .addons
            .iter()
            .find(|planned| planned.name == addon.name)
        else {
            continue;
        };
        let planned_version = planned.extra.get("version").and_then(Value::as_str);
        if matches!(planned_version, None | Some("latest" | "default")) {
            addon.extra.remove("version");
            if let Some(version) = planned.extra.get("version") {
                addon.extra.insert(Value::from("version"), version.clone());
            }
        }
        // How conflicts are resolved and which policies eksctl attaches are said at
        // creation and in IAM; EKS does not hold them.
        for key in [
            "resolveConflicts",
            "attachPolicyARNs",
            "attachPolicy",
            "wellKnownPolicies",
            "tags",
        ] {
            addon.extra.remove(key);
            if let Some(value) = planned.extra.get(key) {
                addon.extra.insert(Value::from(key), value.clone());
            }
        }
        addon.resolve_conflicts = planned.resolve_conflicts.clone();
        addon.attach_policy_arns = planned.attach_policy_arns.clone();
        // Roles eksctl made for the design's permission policies are IAM's to compare.
        for association in &mut addon.pod_identity_associations {
            if let Some(own) = planned
                .pod_identity_associations
                .iter()
                .find(|own| own.service_account_name == association.service_account_name)
                && !own.extra.contains_key("roleARN")
            {
                *association = own.clone();
            }
        }
    }
    for association in &mut spec.cluster.pod_identity_associations {
        if let Some(own) = design.cluster.pod_identity_associations.iter().find(|own| {
            own.service_account_name == association.service_account_name
                && own.namespace == association.namespace
        }) && !own.extra.contains_key("roleARN")
        {
            *association = own.clone();
        }
    }
    // Auto Mode's pools and node role left to eksctl: its defaults, as EKS reports them.
    if let (Some(read_mode), Some(planned)) =
        (&mut spec.cluster.auto_mode, &design.cluster.auto_mode)
    {
        let defaults = ["general-purpose".to_owned(), "system".to_owned()];
        if planned.node_pools.is_none()
            && read_mode
                .node_pools
                .as_deref()
                .is_none_or(|pools| pools == defaults)
        {
            read_mode.node_pools = None;
        }
        if planned.node_role_arn.is_empty() {
            read_mode.node_role_arn.clear();
            not_compared
                .push("Auto Mode's node role (eksctl makes it; the design names none)".into());
        }
    }
    // The entry EKS makes for whoever created the cluster (CreateCluster's
    // `bootstrapClusterCreatorAdminPermissions`, on unless the design turns it off): the
    // one entry the design does not name that has only cluster admin, cluster-wide. More
    // than one such entry and none is guessed at.
    let bootstraps = design
        .cluster
        .access
        .as_ref()
        .and_then(|access| access.bootstrap_cluster_creator_admin_permissions)
        != Some(false);
    if bootstraps && let Some(access) = spec.cluster.access.as_mut() {
        let named = |principal: &str| {
            design.cluster.access.as_ref().is_some_and(|own| {
                own.access_entries
                    .iter()
                    .any(|entry| entry.principal_arn == principal)
            })
        };
        let creators: Vec<usize> = access
            .access_entries
            .iter()
            .enumerate()
            .filter(|(_, entry)| {
                !named(&entry.principal_arn)
                    && entry.kubernetes_groups.is_empty()
                    && matches!(entry.access_policies.as_slice(), [policy]
                        if policy.policy_arn.ends_with(":cluster-access-policy/AmazonEKSClusterAdminPolicy")
                            && policy.scope == "cluster")
            })
            .map(|(index, _)| index)
            .collect();
        if let [creator] = creators.as_slice() {
            let entry = access.access_entries.remove(*creator);
            not_compared.push(format!(
                "the access entry of {} (taken as the cluster creator's, which EKS makes with cluster admin)",
                entry.principal_arn
            ));
        }
        if access.access_entries.is_empty()
            && access.authentication_mode.is_empty()
            && access.bootstrap_cluster_creator_admin_permissions.is_none()
            && design.cluster.access.is_none()
        {
            spec.cluster.access = None;
        }
    }
    // Keys the studio does not model, kept from the design's file: EKS holds only the
    // endpoint access, the logging and the upgrade policy; the rest (IRSA service
    // accounts, log retention, GitOps…) eksctl keeps to itself, so the design's stand.
    let (mut extra, mut unseen) =
        extra_as_planned(&reading.spec.eksctl_extra, &design.eksctl_extra);
    // Self-managed node groups read from their stacks are compared, what the stacks hold
    // of them; the design's stand where they could not be read.
    if reading.self_managed_read {
        unseen.retain(|line| !line.starts_with("`nodeGroups`"));
        let read_groups: &[Value] = reading
            .spec
            .eksctl_extra
            .get("nodeGroups")
            .and_then(Value::as_sequence)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let groups = crate::changes::stacks::aligned_groups(
            read_groups,
            design,
            &reading.not_read,
            &mut not_compared,
        );
        if groups.is_empty() {
            extra.remove("nodeGroups");
        } else {
            put(&mut extra, "nodeGroups", Value::Sequence(groups));
        }
    }
    spec.eksctl_extra = extra;
    not_compared.extend(unseen);
    // The storage is not read, nor Auto Mode's objects when kubectl could not: the
    // design's stand.
    if !reading.auto_mode_read {
        spec.auto_mode_pools = design.auto_mode_pools.clone();
        if !design.auto_mode_pools.is_empty() {
            not_compared.push(
                "EKS Auto Mode's NodePools and NodeClasses (not read from the cluster)".into(),
            );
        }
    }
    spec.storage = design.storage.clone();
    if !reading.objects_read {
        spec.karpenter = design.karpenter.clone();
        if design.karpenter.is_some() {
            not_compared.push("Karpenter's objects (not read from the cluster)".into());
        }
    } else if let Some(planned) = &design.karpenter {
        // The chart's settings are Helm's values, not objects a read sees.
        let read = spec.karpenter.take().unwrap_or_default();
        spec.karpenter = Some(crate::model::spec::KarpenterSettings {
            node_pools: read
                .node_pools
                .iter()
                .map(|pool| {
                    as_planned(
                        pool,
                        planned
                            .node_pools
                            .iter()
                            .find(|own| own.metadata.name == pool.metadata.name),
                    )
                })
                .collect(),
            node_classes: read
                .node_classes
                .iter()
                .map(|class| {
                    as_planned(
                        class,
                        planned
                            .node_classes
                            .iter()
                            .find(|own| own.metadata.name == class.metadata.name),
                    )
                })
                .collect(),
            node_overlays: read
                .node_overlays
                .iter()
                .map(|overlay| {
                    as_planned(
                        overlay,
                        planned
                            .node_overlays
                            .iter()
                            .find(|own| own.metadata.name == overlay.metadata.name),
                    )
                })
                .collect(),
            // The chart's settings as read when its values were, else the design's.
            ..if reading.helm_read {
                crate::model::spec::KarpenterSettings {
                    node_pools: Vec::new(),
                    node_classes: Vec::new(),
                    node_overlays: Vec::new(),
                    ..read.clone()
                }
            } else {
                planned.clone()
            }
        });
        if !reading.helm_read {
            not_compared.push(
                "Karpenter's installation and Helm settings (not read from the cluster)".into(),
            );
        }
    }
    (spec, not_compared)
}

/// The ClusterConfig keys a read can see in EKS's answers, by their path.
const HELD_BY_EKS: &[&[&str]] = &[
    &["vpc", "clusterEndpoints"],
    &["vpc", "publicAccessCIDRs"],
    &["cloudWatch", "clusterLogging", "enableTypes"],
    &["upgradePolicy", "supportType"],
    &["secretsEncryption", "keyARN"],
    &["zonalShiftConfig", "enabled"],
];

fn at<'a>(mut value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    for key in path {
        value = value.get(*key)?;
    }
    Some(value)
}

/// Removes `path` from `mapping`, and every mapping left empty on the way.
fn remove_at(mapping: &mut Mapping, path: &[&str]) {
    match path {
        [] => {}
        [key] => {
            mapping.remove(*key);
        }
        [key, rest @ ..] => {
            if let Some(Value::Mapping(inner)) = mapping.get_mut(*key) {
                remove_at(inner, rest);
                if inner.is_empty() {
                    mapping.remove(*key);
                }
            }
        }
    }
}

fn put_at(mapping: &mut Mapping, path: &[&str], value: Value) {
    match path {
        [] => {}
        [key] => put(mapping, key, value),
        [key, rest @ ..] => {
            let inner = mapping
                .entry(Value::from(*key))
                .or_insert_with(|| Value::Mapping(Mapping::new()));
            if !inner.is_mapping() {
                *inner = Value::Mapping(Mapping::new());
            }
            if let Value::Mapping(inner) = inner {
                put_at(inner, rest, value);
            }
        }
    }
}

/// The design's unmodelled keys with what EKS holds of them taken from the read, and the
/// rest named as not compared.
fn extra_as_planned(read: &Mapping, planned: &Mapping) -> (Mapping, Vec<String>) {
    let mut unseen = planned.clone();
    for path in HELD_BY_EKS {
        remove_at(&mut unseen, path);
    }
    let not_compared = unseen
        .iter()
        .filter_map(|(key, _)| key.as_str())
        .map(|key| format!("`{key}` of the ClusterConfig (eksctl keeps it; EKS does not hold it)"))
        .collect();
    let mut extra = unseen;
    let read = Value::Mapping(read.clone());
    let planned = Value::Mapping(planned.clone());
    for path in HELD_BY_EKS {
        let Some(value) = at(&read, path) else {
            continue;
        };
        // The same log types in another order, or as eksctl's `all` / `*`, are the same.
        let value = match at(&planned, path) {
            Some(own)
                if path.last() == Some(&"enableTypes") && log_types(own) == log_types(value) =>
            {
                own.clone()
            }
            _ => value.clone(),
        };
        put_at(&mut extra, path, value);
    }
    (extra, not_compared)
}

/// The control plane's log types a `cloudWatch.clusterLogging.enableTypes` turns on
/// (eksctl: `all` and `*` are every type), sorted.
fn log_types(value: &Value) -> Vec<String> {
    const ALL: [&str; 5] = [
        "api",
        "audit",
        "authenticator",
        "controllerManager",
        "scheduler",
    ];
    let named: Vec<&str> = value
        .as_sequence()
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut types: Vec<String> = if named.iter().any(|name| matches!(*name, "all" | "*")) {
        ALL.iter().map(|name| (*name).to_owned()).collect()
    } else {
        named.iter().map(|name| (*name).to_owned()).collect()
    };
    types.sort();
    types.dedup();
    types
}

/// A Karpenter object as read, without the defaults the API server filled in where
/// `planned` (the design's object of that name) leaves them out: what the design would
/// read back as, once applied, is not a change.
fn as_planned<T>(read: &T, planned: Option<&T>) -> T
where
    T: Clone + serde::Serialize + serde::de::DeserializeOwned + KarpenterKind,
{
    let Some(planned) = planned else {
        return read.clone();
    };
    let (Ok(read_value), Ok(planned_value)) =
        (yaml_serde::to_value(read), yaml_serde::to_value(planned))
    else {
        return read.clone();
    };
    let mut typed = Mapping::new();
    put(&mut typed, "apiVersion", T::API_VERSION);
    put(&mut typed, "kind", T::KIND);
    let Some((schema, _)) = crate::upstream::schema_check::karpenter_schema(&Value::Mapping(typed))
    else {
        return read.clone();
    };
    let stripped =
        crate::upstream::crd_defaults::without_defaults(&read_value, Some(&planned_value), schema);
    yaml_serde::from_value(stripped).unwrap_or_else(|_| read.clone())
}

/// The type of a Karpenter object, for its schema.
trait KarpenterKind {
    const API_VERSION: &'static str;
    const KIND: &'static str;
}

impl KarpenterKind for crate::upstream::karpenter::NodePool {
    const API_VERSION: &'static str = crate::upstream::karpenter::NODE_POOL_API_VERSION;
    const KIND: &'static str = "NodePool";
}

impl KarpenterKind for crate::upstream::karpenter::Ec2NodeClass {
    const API_VERSION: &'static str = crate::upstream::karpenter::NODE_CLASS_API_VERSION;
    const KIND: &'static str = "EC2NodeClass";
}

impl KarpenterKind for crate::upstream::karpenter::NodeOverlay {
    const API_VERSION: &'static str = crate::upstream::karpenter::NODE_OVERLAY_API_VERSION;
    const KIND: &'static str = "NodeOverlay";
}

/// Where a group's nodes may go, as subnet ids (an existing VPC) or zones (eksctl's VPC),
/// sorted: the design's names for subnets resolved, "the cluster's" spelled out.
fn places(spec: &Spec, group: &crate::model::spec::NodeGroup) -> Vec<String> {
    let mut places: Vec<String> = match (&spec.network, &group.placement) {
        (
            Network::ExistingVpc {
                public_subnets,
                private_subnets,
                ..
            },
            placement,
        ) => {
            let of_kind = if group.private_networking {
                private_subnets
            } else {
                public_subnets
            };
            let id_of = |name: &str| {
                public_subnets
                    .iter()
                    .chain(private_subnets)
                    .find(|subnet| subnet.name == name)
                    .map_or_else(|| name.to_owned(), |subnet| subnet.id.clone())
            };
            match placement {
                GroupPlacement::Subnets { subnets } => {
                    subnets.iter().map(|subnet| id_of(subnet)).collect()
                }
                GroupPlacement::Cluster => of_kind.iter().map(|subnet| subnet.id.clone()).collect(),
                GroupPlacement::AvailabilityZones { availability_zones } => of_kind
                    .iter()
                    .filter(|subnet| {
                        subnet
                            .availability_zone
                            .as_ref()
                            .is_some_and(|zone| availability_zones.contains(zone))
                    })
                    .map(|subnet| subnet.id.clone())
                    .collect(),
            }
        }
        (Network::NewVpc { availability_zones }, GroupPlacement::Cluster) => {
            availability_zones.clone()
        }
        (_, GroupPlacement::AvailabilityZones { availability_zones }) => availability_zones.clone(),
        (_, GroupPlacement::Subnets { subnets }) => subnets.clone(),
    };
    places.sort();
    places.dedup();
    places
}
