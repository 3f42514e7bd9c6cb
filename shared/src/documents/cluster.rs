//! The one mapping between the spec and eksctl's `ClusterConfig`: how each modelled field
//! is written ([`cluster_config`]), read back ([`node_group`], [`addon`], …) and where it
//! lies in the file ([`yaml_path`]). The keys themselves are spelled once, by the serde
//! attributes of [`crate::upstream::eksctl`]; [`yaml_path`]'s tables repeat them for positions, and
//! `shared/tests/positions.rs` fails when a written key and its table row disagree.
//!
//! Reading goes through the same typed structs as writing; a value of another shape reads
//! as nothing (see `eksctl::lenient`), so import keeps it among the leftovers and lint
//! reports it.

use crate::model::spec::{AccessConfig, AccessEntry, AccessPolicy, AutoMode};
use crate::model::spec::{
    Addon, AddonPolicies, Capacity, ClusterSettings, GroupPlacement, Network, NodeGroup,
    NodeRepairSettings, NodeTaint, RepairOverride, Spec, Subnet,
};
use crate::upstream::eksctl::{self, ClusterConfig, ManagedNodeGroup, NodeConfig};
use crate::yaml::source::PathSegment;

/// The spec's eksctl `ClusterConfig` as a typed value (modelled fields only).
pub fn cluster_config(spec: &Spec) -> ClusterConfig {
    let (availability_zones, vpc) = match &spec.network {
        Network::NewVpc { availability_zones } => (
            (!availability_zones.is_empty()).then(|| availability_zones.clone()),
            None,
        ),
        Network::ExistingVpc {
            vpc_id,
            public_subnets,
            private_subnets,
        } => {
            // Extended rather than collected, which would sort (see `items::items_to_map`).
            let by_name = |subnets: &[crate::model::spec::Subnet]| {
                let mut by_name = std::collections::BTreeMap::new();
                by_name.extend(
                    subnets
                        .iter()
                        .map(|subnet| (subnet.name.clone(), subnet_spec(subnet))),
                );
                by_name
            };
            let subnets = eksctl::VpcSubnets {
                public: by_name(public_subnets),
                private: by_name(private_subnets),
            };
            let has_subnets = !subnets.public.is_empty() || !subnets.private.is_empty();
            let vpc = eksctl::Vpc {
                id: (!vpc_id.is_empty()).then(|| vpc_id.clone()),
                subnets: has_subnets.then_some(subnets),
            };
            (None, Some(vpc))
        }
    };
    ClusterConfig {
        api_version: eksctl::API_VERSION.into(),
        kind: "ClusterConfig".into(),
        metadata: eksctl::ClusterMeta {
            name: spec.cluster.name.clone(),
            region: spec.cluster.region.clone(),
            version: (!spec.cluster.kubernetes_version.is_empty())
                .then(|| spec.cluster.kubernetes_version.clone()),
            tags: crate::documents::karpenter_aws::cluster_tags(spec),
        },
        availability_zones,
        iam: (spec.cluster.with_oidc || !spec.cluster.pod_identity_associations.is_empty()).then(
            || eksctl::ClusterIam {
                with_oidc: spec.cluster.with_oidc.then_some(true),
                pod_identity_associations: spec
                    .cluster
                    .pod_identity_associations
                    .iter()
                    .map(pod_identity_association_spec)
                    .collect(),
            },
        ),
        vpc,
        managed_node_groups: spec.node_groups.iter().map(managed_node_group).collect(),
        addons: spec.addons.iter().map(addon_spec).collect(),
        auto_mode_config: spec.cluster.auto_mode.as_ref().map(auto_mode_config),
        access_config: spec.cluster.access.as_ref().map(access_config_spec),
    }
}

/// How the spec writes `accessConfig` (without the entries' leftovers).
fn access_config_spec(access: &crate::model::spec::AccessConfig) -> eksctl::AccessConfig {
    eksctl::AccessConfig {
        authentication_mode: (!access.authentication_mode.is_empty())
            .then(|| access.authentication_mode.clone()),
        bootstrap_cluster_creator_admin_permissions: access
            .bootstrap_cluster_creator_admin_permissions,
        access_entries: access
            .access_entries
            .iter()
            .map(access_entry_spec)
            .collect(),
    }
}

/// How the spec writes one access entry (without its leftovers).
pub fn access_entry_spec(entry: &crate::model::spec::AccessEntry) -> eksctl::AccessEntry {
    eksctl::AccessEntry {
        principal_arn: entry.principal_arn.clone(),
        r#type: entry.entry_type.clone(),
        kubernetes_groups: entry.kubernetes_groups.clone(),
        kubernetes_username: entry.kubernetes_username.clone(),
        access_policies: entry
            .access_policies
            .iter()
            .map(access_policy_spec)
            .collect(),
    }
}

/// How the spec writes one access policy (without its leftovers).
pub fn access_policy_spec(policy: &crate::model::spec::AccessPolicy) -> eksctl::AccessPolicy {
    eksctl::AccessPolicy {
        policy_arn: policy.policy_arn.clone(),
        access_scope: eksctl::AccessScope {
            r#type: policy.scope.clone(),
            namespaces: policy.namespaces.clone(),
        },
    }
}

/// `accessConfig` as the spec models it (no leftovers).
pub fn access_config(config: &eksctl::AccessConfig) -> crate::model::spec::AccessConfig {
    crate::model::spec::AccessConfig {
        authentication_mode: config.authentication_mode.clone().unwrap_or_default(),
        bootstrap_cluster_creator_admin_permissions: config
            .bootstrap_cluster_creator_admin_permissions,
        access_entries: config
            .access_entries
            .iter()
            .map(|entry| crate::model::spec::AccessEntry {
                principal_arn: entry.principal_arn.clone(),
                entry_type: entry.r#type.clone(),
                kubernetes_groups: entry.kubernetes_groups.clone(),
                kubernetes_username: entry.kubernetes_username.clone(),
                access_policies: entry
                    .access_policies
                    .iter()
                    .map(|policy| crate::model::spec::AccessPolicy {
                        policy_arn: policy.policy_arn.clone(),
                        scope: policy.access_scope.r#type.clone(),
                        namespaces: policy.access_scope.namespaces.clone(),
                        extra: yaml_serde::Mapping::new(),
                    })
                    .collect(),
                extra: yaml_serde::Mapping::new(),
            })
            .collect(),
    }
}

/// How the spec writes `autoModeConfig`: `enabled` only when on (absent is off, and an
/// explicit `enabled: false` read from a file stays among the leftovers).
fn auto_mode_config(auto: &crate::model::spec::AutoMode) -> eksctl::AutoModeConfig {
    let given = |text: &str| (!text.is_empty()).then(|| text.to_owned());
    eksctl::AutoModeConfig {
        enabled: auto.enabled.then_some(true),
        node_role_arn: given(&auto.node_role_arn),
        permissions_boundary_arn: given(&auto.permissions_boundary_arn),
        node_pools: auto.node_pools.clone(),
    }
}

/// How the spec writes one managed node group (without its leftovers).
pub fn managed_node_group(group: &NodeGroup) -> ManagedNodeGroup {
    let (subnets, availability_zones) = match &group.placement {
        GroupPlacement::Cluster => (None, None),
        GroupPlacement::Subnets { subnets } => (Some(subnets.clone()), None),
        GroupPlacement::AvailabilityZones { availability_zones } => {
            (None, Some(availability_zones.clone()))
        }
    };
    let reservation = |reservation_id: &str| eksctl::CapacityReservation {
        capacity_reservation_target: Some(eksctl::CapacityReservationTarget {
            capacity_reservation_id: Some(reservation_id.to_owned()),
        }),
    };
    let (capacity_reservation, instance_market_options, spot) = match &group.capacity {
        Capacity::OnDemand => (None, None, None),
        Capacity::Reservation { reservation_id } => (Some(reservation(reservation_id)), None, None),
        Capacity::CapacityBlock { reservation_id } => (
            Some(reservation(reservation_id)),
            Some(eksctl::InstanceMarketOptions {
                market_type: Some("capacity-block".into()),
            }),
            None,
        ),
        Capacity::Spot => (None, None, Some(true)),
    };
    let policies = &group.addon_policies;
    let addon_policies = eksctl::AddonPolicies {
        auto_scaler: policies.auto_scaler.then_some(true),
        cloud_watch: policies.cloud_watch.then_some(true),
        ebs: policies.ebs.then_some(true),
        fsx: policies.fsx.then_some(true),
    };
    let iam =
        (addon_policies != eksctl::AddonPolicies::default()).then_some(eksctl::NodeGroupIam {
            with_addon_policies: Some(addon_policies),
        });
    ManagedNodeGroup {
        name: group.name.clone(),
        instance_type: (!group.instance_type.is_empty()).then(|| group.instance_type.clone()),
        instance_types: (!group.instance_types.is_empty()).then(|| group.instance_types.clone()),
        ami_family: group.ami_family.clone(),
        instance_prefix: group.instance_prefix.clone(),
        private_networking: group.private_networking.then_some(true),
        efa_enabled: group.efa_enabled.then_some(true),
        spot,
        min_size: group.min_size,
        desired_capacity: group.desired_capacity,
        max_size: group.max_size,
        subnets,
        availability_zones,
        capacity_reservation,
        placement: (!group.placement_group.is_empty()).then(|| eksctl::Placement {
            group_name: Some(group.placement_group.clone()),
        }),
        instance_market_options,
        override_bootstrap_command: group.local_nvme_raid0.then(|| {
            crate::yaml::text::to_string(&eksctl::NodeConfig::local_nvme_raid0())
                .expect("NodeConfig always serialises")
        }),
        iam,
        node_repair_config: node_repair_config(group),
        labels: (!group.labels.is_empty()).then(|| {
            group
                .labels
                .iter()
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect()
        }),
        taints: (!group.taints.is_empty()).then(|| {
            group
                .taints
                .iter()
                .map(|taint| eksctl::Taint {
                    key: taint.key.clone(),
                    value: taint.value.clone(),
                    effect: taint.effect.clone(),
                })
                .collect()
        }),
    }
}

/// The cluster settings a `ClusterConfig` names.
pub fn cluster_settings(config: &ClusterConfig) -> ClusterSettings {
    ClusterSettings {
        name: config.metadata.name.clone(),
        region: config.metadata.region.clone(),
        kubernetes_version: config.metadata.version.clone().unwrap_or_default(),
        with_oidc: config.iam.as_ref().and_then(|iam| iam.with_oidc) == Some(true),
        auto_mode: config
            .auto_mode_config
            .as_ref()
            .map(|auto| crate::model::spec::AutoMode {
                enabled: auto.enabled == Some(true),
                node_pools: auto.node_pools.clone(),
                node_role_arn: auto.node_role_arn.clone().unwrap_or_default(),
                permissions_boundary_arn: auto.permissions_boundary_arn.clone().unwrap_or_default(),
            }),
        pod_identity_associations: config
            .iam
            .as_ref()
            .map(|iam| {
                iam.pod_identity_associations
                    .iter()
                    .map(pod_identity_association)
                    .collect()
            })
            .unwrap_or_default(),
        access: config.access_config.as_ref().map(access_config),
    }
}

/// One Pod Identity association as the spec models it (no leftovers).
pub fn pod_identity_association(
    written: &eksctl::PodIdentityAssociation,
) -> crate::model::spec::PodIdentityAssociation {
    crate::model::spec::PodIdentityAssociation {
        namespace: written.namespace.clone(),
        service_account_name: written.service_account_name.clone(),
        permission_policy_arns: written.permission_policy_arns.clone(),
        extra: yaml_serde::Mapping::new(),
    }
}

/// How the spec writes one Pod Identity association.
pub fn pod_identity_association_spec(
    association: &crate::model::spec::PodIdentityAssociation,
) -> eksctl::PodIdentityAssociation {
    eksctl::PodIdentityAssociation {
        namespace: association.namespace.clone(),
        service_account_name: association.service_account_name.clone(),
        permission_policy_arns: association.permission_policy_arns.clone(),
    }
}

/// One subnet of `vpc.subnets.public|private`, by its local name (no leftovers).
pub fn subnet(name: &str, written: &eksctl::SubnetSpec) -> Subnet {
    Subnet {
        name: name.to_owned(),
        id: written.id.clone().unwrap_or_default(),
        availability_zone: written.az.clone(),
        ..Subnet::default()
    }
}

/// How the spec writes one subnet.
pub fn subnet_spec(subnet: &Subnet) -> eksctl::SubnetSpec {
    eksctl::SubnetSpec {
        id: (!subnet.id.is_empty()).then(|| subnet.id.clone()),
        az: subnet.availability_zone.clone(),
    }
}

/// One managed node group as the spec models it (no leftovers).
pub fn node_group(written: &ManagedNodeGroup) -> NodeGroup {
    let reservation_id = written
        .capacity_reservation
        .as_ref()
        .and_then(|reservation| reservation.capacity_reservation_target.as_ref())
        .and_then(|target| target.capacity_reservation_id.clone());
    let market_type = written
        .instance_market_options
        .as_ref()
        .and_then(|options| options.market_type.as_deref());
    let capacity = match (reservation_id, market_type) {
        (Some(reservation_id), Some("capacity-block")) => {
            Capacity::CapacityBlock { reservation_id }
        }
        (Some(reservation_id), None) => Capacity::Reservation { reservation_id },
        _ if written.spot == Some(true) => Capacity::Spot,
        _ => Capacity::OnDemand,
    };
    let placement = if let Some(subnets) = &written.subnets {
        GroupPlacement::Subnets {
            subnets: subnets.clone(),
        }
    } else if let Some(availability_zones) = &written.availability_zones {
        GroupPlacement::AvailabilityZones {
            availability_zones: availability_zones.clone(),
        }
    } else {
        GroupPlacement::Cluster
    };
    static RAID0_BOOTSTRAP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let raid0_bootstrap = RAID0_BOOTSTRAP.get_or_init(|| {
        crate::yaml::text::to_string(&NodeConfig::local_nvme_raid0())
            .expect("NodeConfig serialises")
    });
    let policies = written
        .iam
        .as_ref()
        .and_then(|iam| iam.with_addon_policies.clone())
        .unwrap_or_default();
    let on = |flag: Option<bool>| flag == Some(true);
    NodeGroup {
        name: written.name.clone(),
        instance_type: written.instance_type.clone().unwrap_or_default(),
        instance_types: written.instance_types.clone().unwrap_or_default(),
        ami_family: written.ami_family.clone(),
        instance_prefix: written.instance_prefix.clone(),
        private_networking: on(written.private_networking),
        efa_enabled: on(written.efa_enabled),
        min_size: written.min_size,
        desired_capacity: written.desired_capacity,
        max_size: written.max_size,
        placement,
        capacity,
        block_window: crate::model::spec::BlockWindow::default(),
        placement_group: written
            .placement
            .as_ref()
            .and_then(|placement| placement.group_name.clone())
            .unwrap_or_default(),
        local_nvme_raid0: written.override_bootstrap_command.as_deref()
            == Some(raid0_bootstrap.as_str()),
        addon_policies: AddonPolicies {
            auto_scaler: on(policies.auto_scaler),
            cloud_watch: on(policies.cloud_watch),
            ebs: on(policies.ebs),
            fsx: on(policies.fsx),
        },
        node_repair: written
            .node_repair_config
            .as_ref()
            .and_then(|repair| repair.enabled)
            == Some(true),
        node_repair_config: written
            .node_repair_config
            .as_ref()
            .map(node_repair_settings)
            .unwrap_or_default(),
        // From a sorted map, so each label is appended, and the vector sized exactly.
        labels: written
            .labels
            .iter()
            .flatten()
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect(),
        // From a slice, so the vector is sized exactly (a flattened option would start
        // it at four).
        taints: written
            .taints
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|taint| NodeTaint {
                key: taint.key.clone(),
                value: taint.value.clone(),
                effect: taint.effect.clone(),
            })
            .collect(),
        extra: yaml_serde::Mapping::new(),
    }
}

/// How the spec writes `nodeRepairConfig`: when auto-repair is on or any limit is set.
fn node_repair_config(group: &NodeGroup) -> Option<eksctl::NodeRepairConfig> {
    let settings = &group.node_repair_config;
    (group.node_repair || !settings.is_empty()).then(|| eksctl::NodeRepairConfig {
        enabled: group.node_repair.then_some(true),
        max_unhealthy_node_threshold_percentage: settings.max_unhealthy_node_threshold_percentage,
        max_unhealthy_node_threshold_count: settings.max_unhealthy_node_threshold_count,
        max_parallel_nodes_repaired_percentage: settings.max_parallel_nodes_repaired_percentage,
        max_parallel_nodes_repaired_count: settings.max_parallel_nodes_repaired_count,
        node_repair_config_overrides: (!settings.node_repair_config_overrides.is_empty()).then(
            || {
                settings
                    .node_repair_config_overrides
                    .iter()
                    .map(|entry| eksctl::NodeRepairConfigOverride {
                        node_monitoring_condition: entry.node_monitoring_condition.clone(),
                        node_unhealthy_reason: entry.node_unhealthy_reason.clone(),
                        min_repair_wait_time_mins: entry.min_repair_wait_time_mins,
                        repair_action: entry.repair_action.clone(),
                    })
                    .collect()
            },
        ),
    })
}

/// `nodeRepairConfig`'s limits as the spec models them.
fn node_repair_settings(written: &eksctl::NodeRepairConfig) -> NodeRepairSettings {
    NodeRepairSettings {
        max_unhealthy_node_threshold_percentage: written.max_unhealthy_node_threshold_percentage,
        max_unhealthy_node_threshold_count: written.max_unhealthy_node_threshold_count,
        max_parallel_nodes_repaired_percentage: written.max_parallel_nodes_repaired_percentage,
        max_parallel_nodes_repaired_count: written.max_parallel_nodes_repaired_count,
        node_repair_config_overrides: written
            .node_repair_config_overrides
            .iter()
            .flatten()
            .map(|entry| RepairOverride {
                node_monitoring_condition: entry.node_monitoring_condition.clone(),
                node_unhealthy_reason: entry.node_unhealthy_reason.clone(),
                min_repair_wait_time_mins: entry.min_repair_wait_time_mins,
                repair_action: entry.repair_action.clone(),
            })
            .collect(),
    }
}

/// One add-on as the spec models it (no leftovers).
pub fn addon(written: &eksctl::Addon) -> Addon {
    Addon {
        name: written.name.clone(),
        resolve_conflicts: written.resolve_conflicts.clone(),
        attach_policy_arns: written.attach_policy_arns.clone(),
        pod_identity_associations: written
            .pod_identity_associations
            .iter()
            .map(pod_identity_association)
            .collect(),
        extra: yaml_serde::Mapping::new(),
    }
}

/// How the spec writes one add-on.
pub fn addon_spec(addon: &Addon) -> eksctl::Addon {
    eksctl::Addon {
        name: addon.name.clone(),
        resolve_conflicts: addon.resolve_conflicts.clone(),
        attach_policy_arns: addon.attach_policy_arns.clone(),
        pod_identity_associations: addon
            .pod_identity_associations
            .iter()
            .map(pod_identity_association_spec)
            .collect(),
    }
}

/// How the sub-keys under a field are written.
#[derive(Clone, Copy)]
enum Below {
    /// As they are: list indexes, label keys.
    AsGiven,
    /// In camelCase, as eksctl spells struct fields (`cloud_watch` → `cloudWatch`).
    CamelCase,
}

/// Spec field of `cluster` → its keys in the document.
const CLUSTER_KEYS: &[(&str, &[&str])] = &[
    (ClusterSettings::NAME.key, &["metadata", "name"]),
    (ClusterSettings::REGION.key, &["metadata", "region"]),
    (
        ClusterSettings::KUBERNETES_VERSION.key,
        &["metadata", "version"],
    ),
    (ClusterSettings::WITH_OIDC.key, &["iam", "withOIDC"]),
    (ClusterSettings::AUTO_MODE_ON.key, &["autoModeConfig"]),
    (
        ClusterSettings::POD_IDENTITY_ASSOCIATIONS.key,
        &["iam", "podIdentityAssociations"],
    ),
    (ClusterSettings::ACCESS_CONFIG.key, &["accessConfig"]),
];

/// Spec field of `cluster.access` → its key under `accessConfig`.
const ACCESS_KEYS: &[(&str, &[&str])] = &[
    (
        AccessConfig::AUTHENTICATION_MODE.key,
        &["authenticationMode"],
    ),
    (
        AccessConfig::CREATOR_IS_ADMIN.key,
        &["bootstrapClusterCreatorAdminPermissions"],
    ),
    (AccessConfig::ACCESS_ENTRIES.key, &["accessEntries"]),
];

/// Spec field of an access entry → its key in the `accessEntries` entry.
const ACCESS_ENTRY_KEYS: &[(&str, &[&str])] = &[
    (AccessEntry::PRINCIPAL_ARN.key, &["principalARN"]),
    (AccessEntry::ENTRY_TYPE.key, &["type"]),
    (AccessEntry::KUBERNETES_GROUPS.key, &["kubernetesGroups"]),
    (
        AccessEntry::KUBERNETES_USERNAME.key,
        &["kubernetesUsername"],
    ),
    (AccessEntry::ACCESS_POLICIES.key, &["accessPolicies"]),
];

/// Spec field of an access policy → its keys in the `accessPolicies` entry.
const ACCESS_POLICY_KEYS: &[(&str, &[&str])] = &[
    (AccessPolicy::ARN.key, &["policyARN"]),
    (AccessPolicy::SCOPE.key, &["accessScope", "type"]),
    (AccessPolicy::NAMESPACES.key, &["accessScope", "namespaces"]),
];

/// `field…` under `cluster.access`: `access_entries[i].access_policies[j].scope` is
/// `accessEntries[i].accessPolicies[j].accessScope.type`.
fn access_path(segments: &[PathSegment]) -> Vec<PathSegment> {
    let field = |position: usize| match segments.get(position) {
        Some(PathSegment::Key(name)) => Some(name.as_str()),
        _ => None,
    };
    let mut path = Vec::new();
    let Some(found) = looked_up(ACCESS_KEYS, field(0)) else {
        return path;
    };
    path.extend(keys(found));
    if field(0) != Some("access_entries") {
        return path;
    }
    path.extend(segments.get(1).cloned());
    let Some(found) = looked_up(ACCESS_ENTRY_KEYS, field(2)) else {
        return path;
    };
    path.extend(keys(found));
    if field(2) == Some("access_policies") {
        path.extend(segments.get(3).cloned());
        if let Some(found) = looked_up(ACCESS_POLICY_KEYS, field(4)) {
            path.extend(keys(found));
            path.extend(segments.get(5..).unwrap_or_default().iter().cloned());
        }
    } else {
        path.extend(segments.get(3..).unwrap_or_default().iter().cloned());
    }
    path
}

/// Spec field of a Pod Identity association → its key in the entry.
const ASSOCIATION_KEYS: &[(&str, &[&str])] = &[
    ("namespace", &["namespace"]),
    ("service_account_name", &["serviceAccountName"]),
    ("permission_policy_arns", &["permissionPolicyARNs"]),
];

/// `[index].field…` under a list of Pod Identity associations.
fn association_path(segments: &[PathSegment]) -> Vec<PathSegment> {
    let mut path: Vec<PathSegment> = segments.iter().take(1).cloned().collect();
    if let Some(PathSegment::Key(field)) = segments.get(1) {
        match looked_up(ASSOCIATION_KEYS, Some(field)) {
            Some(found) => {
                path.extend(keys(found));
                path.extend(segments.get(2..).unwrap_or_default().iter().cloned());
            }
            None => path.push(key(&camel_case(field))),
        }
    }
    path
}

/// Spec field of `cluster.auto_mode` → its key under `autoModeConfig`.
const AUTO_MODE_KEYS: &[(&str, &[&str])] = &[
    (AutoMode::ENABLED.key, &["enabled"]),
    (AutoMode::BUILT_IN_POOLS.key, &["nodePools"]),
    (AutoMode::NODE_ROLE.key, &["nodeRoleARN"]),
    (AutoMode::BOUNDARY.key, &["permissionsBoundaryARN"]),
];

/// Spec field of a node group → its keys in the `managedNodeGroups` entry. Placement and
/// capacity depend on the variant and are mapped in [`node_group_path`].
const NODE_GROUP_KEYS: &[(&str, &[&str], Below)] = &[
    (NodeGroup::NAME.key, &["name"], Below::AsGiven),
    (
        NodeGroup::INSTANCE_TYPE.key,
        &["instanceType"],
        Below::AsGiven,
    ),
    (
        NodeGroup::INSTANCE_TYPES.key,
        &["instanceTypes"],
        Below::AsGiven,
    ),
    (NodeGroup::AMI_FAMILY.key, &["amiFamily"], Below::AsGiven),
    (
        NodeGroup::INSTANCE_PREFIX.key,
        &["instancePrefix"],
        Below::AsGiven,
    ),
    (
        NodeGroup::PRIVATE_NETWORKING.key,
        &["privateNetworking"],
        Below::AsGiven,
    ),
    (NodeGroup::EFA.key, &["efaEnabled"], Below::AsGiven),
    (NodeGroup::MIN_SIZE.key, &["minSize"], Below::AsGiven),
    (
        NodeGroup::DESIRED_CAPACITY.key,
        &["desiredCapacity"],
        Below::AsGiven,
    ),
    (NodeGroup::MAX_SIZE.key, &["maxSize"], Below::AsGiven),
    (
        NodeGroup::PLACEMENT_GROUP.key,
        &["placement", "groupName"],
        Below::AsGiven,
    ),
    (
        NodeGroup::LOCAL_NVME_RAID0.key,
        &["overrideBootstrapCommand"],
        Below::AsGiven,
    ),
    (
        NodeGroup::ADDON_POLICIES_FIELD.key,
        &["iam", "withAddonPolicies"],
        Below::CamelCase,
    ),
    (
        NodeGroup::NODE_REPAIR.key,
        &["nodeRepairConfig", "enabled"],
        Below::AsGiven,
    ),
    (
        NodeGroup::REPAIR_SETTINGS.key,
        &["nodeRepairConfig"],
        Below::CamelCase,
    ),
    (NodeGroup::LABELS.key, &["labels"], Below::AsGiven),
    (NodeGroup::TAINTS.key, &["taints"], Below::AsGiven),
];

/// Spec field of an add-on → its key in the `addons` entry.
const ADDON_KEYS: &[(&str, &[&str])] = &[
    (Addon::NAME.key, &["name"]),
    (Addon::RESOLVE_CONFLICTS.key, &["resolveConflicts"]),
    (Addon::POLICY_ARNS.key, &["attachPolicyARNs"]),
    (Addon::ASSOCIATIONS.key, &["podIdentityAssociations"]),
];

fn key(name: &str) -> PathSegment {
    PathSegment::Key(name.to_owned())
}

fn keys(names: &[&str]) -> Vec<PathSegment> {
    names.iter().map(|name| key(name)).collect()
}

fn camel_case(snake: &str) -> String {
    let mut words = snake.split('_');
    let mut camel = words.next().unwrap_or_default().to_owned();
    for word in words {
        let mut letters = word.chars();
        if let Some(first) = letters.next() {
            camel.extend(first.to_uppercase());
            camel.push_str(letters.as_str());
        }
    }
    camel
}

fn looked_up<'a>(table: &'a [(&str, &'a [&'a str])], field: Option<&str>) -> Option<&'a [&'a str]> {
    table
        .iter()
        .find(|(name, _)| Some(*name) == field)
        .map(|(_, keys)| *keys)
}

/// Maps a spec path (`node_groups[1].capacity.reservation_id`) onto the eksctl document
/// (`managedNodeGroups[1].capacityReservation.capacityReservationTarget.capacityReservationID`).
/// A field the tables do not know maps onto its nearest known parent.
pub fn yaml_path(spec: &Spec, segments: &[PathSegment]) -> Vec<PathSegment> {
    let name = |position: usize| match segments.get(position) {
        Some(PathSegment::Key(name)) => Some(name.as_str()),
        _ => None,
    };
    let rest = |from: usize| segments.get(from..).unwrap_or_default().to_vec();
    match name(0) {
        Some("cluster") => match looked_up(CLUSTER_KEYS, name(1)) {
            Some(found) if name(1) == Some("auto_mode") => {
                let mut path = keys(found);
                if let Some(below) = looked_up(AUTO_MODE_KEYS, name(2)) {
                    path.extend(keys(below));
                    path.extend(rest(3));
                }
                path
            }
            Some(found) if name(1) == Some("pod_identity_associations") => {
                let mut path = keys(found);
                path.extend(association_path(&rest(2)));
                path
            }
            Some(found) if name(1) == Some("access") => {
                let mut path = keys(found);
                path.extend(access_path(&rest(2)));
                path
            }
            Some(found) => keys(found),
            None => vec![key("metadata")],
        },
        Some("network") => network_path(spec, segments),
        Some("node_groups") => {
            let mut path = vec![key("managedNodeGroups")];
            if let Some(PathSegment::Index(index)) = segments.get(1) {
                path.push(PathSegment::Index(*index));
                path.extend(node_group_path(spec.node_groups.get(*index), &rest(2)));
            }
            path
        }
        Some("addons") => {
            let mut path = vec![key("addons")];
            path.extend(segments.get(1).cloned());
            match looked_up(ADDON_KEYS, name(2)) {
                Some(found) if name(2) == Some("pod_identity_associations") => {
                    path.extend(keys(found));
                    path.extend(association_path(&rest(3)));
                    return path;
                }
                Some(found) => path.extend(keys(found)),
                None => path.extend(rest(2).into_iter().take(1)),
            }
            path.extend(rest(3));
            path
        }
        // What the studio does not model is written back where it was, at the top level.
        Some("eksctl_extra") => rest(1),
        _ => Vec::new(),
    }
}

fn network_path(spec: &Spec, segments: &[PathSegment]) -> Vec<PathSegment> {
    let name = |position: usize| match segments.get(position) {
        Some(PathSegment::Key(name)) => Some(name.as_str()),
        _ => None,
    };
    match (name(1), &spec.network) {
        (Some("availability_zones"), _) | (None, Network::NewVpc { .. }) => [
            vec![key("availabilityZones")],
            segments[2.min(segments.len())..].to_vec(),
        ]
        .concat(),
        (Some("vpc_id"), _) => keys(&["vpc", "id"]),
        (
            Some(kind @ ("public_subnets" | "private_subnets")),
            Network::ExistingVpc {
                public_subnets,
                private_subnets,
                ..
            },
        ) => {
            let (kind, subnets) = if kind == "public_subnets" {
                ("public", public_subnets)
            } else {
                ("private", private_subnets)
            };
            let mut path = keys(&["vpc", "subnets", kind]);
            if let Some(PathSegment::Index(index)) = segments.get(2)
                && let Some(subnet) = subnets.get(*index)
            {
                path.push(key(&subnet.name));
                match name(3) {
                    Some("id") => path.push(key("id")),
                    Some("availability_zone") => path.push(key("az")),
                    _ => {}
                }
            }
            path
        }
        (Some(kind @ ("public_subnets" | "private_subnets")), Network::NewVpc { .. }) => {
            keys(&["vpc", "subnets", kind.trim_end_matches("_subnets")])
        }
        (_, Network::NewVpc { .. }) => vec![key("availabilityZones")],
        (_, Network::ExistingVpc { .. }) => vec![key("vpc")],
    }
}

/// The path inside one `managedNodeGroups` entry of a node-group field path.
fn node_group_path(group: Option<&NodeGroup>, segments: &[PathSegment]) -> Vec<PathSegment> {
    let name = |position: usize| match segments.get(position) {
        Some(PathSegment::Key(name)) => Some(name.as_str()),
        _ => None,
    };
    let rest = |from: usize| segments.get(from..).unwrap_or_default().to_vec();
    match name(0) {
        Some("placement") => match (name(1), group.map(|group| &group.placement)) {
            (Some("subnets"), _) | (None, Some(GroupPlacement::Subnets { .. })) => {
                [vec![key("subnets")], rest(2)].concat()
            }
            (Some("availability_zones"), _)
            | (None, Some(GroupPlacement::AvailabilityZones { .. })) => {
                [vec![key("availabilityZones")], rest(2)].concat()
            }
            _ => Vec::new(),
        },
        Some("capacity") => match (name(1), group.map(|group| &group.capacity)) {
            (Some("reservation_id"), _) => keys(&[
                "capacityReservation",
                "capacityReservationTarget",
                "capacityReservationID",
            ]),
            (_, Some(Capacity::Spot)) => vec![key("spot")],
            (_, Some(Capacity::OnDemand) | None) => Vec::new(),
            (_, Some(_)) => vec![key("capacityReservation")],
        },
        // A key the spec keeps as imported is written as it is.
        Some("extra") => rest(1),
        field => match NODE_GROUP_KEYS
            .iter()
            .find(|(name, _, _)| Some(*name) == field)
        {
            Some((_, found, below)) => {
                let below = rest(1).into_iter().map(|segment| match (below, segment) {
                    (Below::CamelCase, PathSegment::Key(name)) => key(&camel_case(&name)),
                    (_, segment) => segment,
                });
                keys(found).into_iter().chain(below).collect()
            }
            None => Vec::new(),
        },
    }
}
