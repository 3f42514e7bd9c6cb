//! Rendering goes spec → typed upstream structs → YAML; there are no string templates,
//! so what we write always has the shape the upstream schema describes.

use crate::eksctl::{self, ClusterConfig, ManagedNodeGroup};
use crate::spec::{Capacity, GroupPlacement, Network, NodeGroup, Spec};

/// A spec that could not be turned into YAML.
#[derive(Debug)]
pub struct RenderError(serde_yaml::Error);

impl std::fmt::Display for RenderError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "could not render YAML: {}", self.0)
    }
}

impl std::error::Error for RenderError {}

/// Renders the spec's eksctl `ClusterConfig` as YAML (`cluster.yaml`).
pub fn render_cluster_yaml(spec: &Spec) -> Result<String, RenderError> {
    serde_yaml::to_string(&cluster_config(spec)).map_err(RenderError)
}

/// The spec's eksctl `ClusterConfig` as a typed value.
pub fn cluster_config(spec: &Spec) -> ClusterConfig {
    let (availability_zones, vpc) = match &spec.network {
        Network::NewVpc { availability_zones } => (Some(availability_zones.clone()), None),
        Network::ExistingVpc {
            vpc_id,
            public_subnets,
            private_subnets,
        } => {
            let by_name = |subnets: &[crate::spec::Subnet]| {
                subnets
                    .iter()
                    .map(|subnet| {
                        let rendered = eksctl::SubnetSpec {
                            id: Some(subnet.id.clone()),
                            az: subnet.availability_zone.clone(),
                        };
                        (subnet.name.clone(), rendered)
                    })
                    .collect()
            };
            let vpc = eksctl::Vpc {
                id: Some(vpc_id.clone()),
                subnets: Some(eksctl::VpcSubnets {
                    public: by_name(public_subnets),
                    private: by_name(private_subnets),
                }),
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
            version: Some(spec.cluster.kubernetes_version.clone()),
        },
        availability_zones,
        iam: spec.cluster.with_oidc.then_some(eksctl::ClusterIam {
            with_oidc: Some(true),
        }),
        vpc,
        managed_node_groups: spec.node_groups.iter().map(managed_node_group).collect(),
        addons: spec
            .addons
            .iter()
            .map(|addon| eksctl::Addon {
                name: addon.name.clone(),
                resolve_conflicts: addon.resolve_conflicts.clone(),
                attach_policy_arns: addon.attach_policy_arns.clone(),
            })
            .collect(),
    }
}

fn managed_node_group(group: &NodeGroup) -> ManagedNodeGroup {
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
        instance_type: Some(group.instance_type.clone()),
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
        instance_market_options,
        override_bootstrap_command: group.local_nvme_raid0.then(|| {
            serde_yaml::to_string(&eksctl::NodeConfig::local_nvme_raid0())
                .expect("NodeConfig always serialises")
        }),
        iam,
        node_repair_config: group.node_repair.then_some(eksctl::NodeRepairConfig {
            enabled: Some(true),
        }),
    }
}
