//! Each seed template is the spec that renders back to its reference manifest from
//! aws-samples/awsome-distributed-training; placeholders stay placeholders so the rules
//! can ask the user to fill them in.

use crate::spec::{
    Addon, AddonPolicies, Capacity, ClusterSettings, GroupPlacement, Network, NodeGroup, Spec,
    Subnet,
};

/// A named starting point for a design.
#[derive(Clone, Copy, Debug)]
pub struct Template {
    /// Stable id, as the CLI and the API know it.
    pub id: &'static str,
    /// Short human name.
    pub name: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    build: fn() -> Spec,
}

impl Template {
    /// A fresh copy of the template's spec.
    pub fn spec(&self) -> Spec {
        (self.build)()
    }
}

/// Every template, in the order the studio lists them.
pub static TEMPLATES: &[Template] = &[
    Template {
        id: "g4dn-vpc",
        name: "g4dn in an existing VPC",
        summary: "Existing VPC, 2 × g4dn.8xlarge with EFA in one private subnet",
        build: g4dn_vpc,
    },
    Template {
        id: "g4dn",
        name: "g4dn in a new VPC",
        summary: "New VPC, 2 × g4dn.8xlarge with EFA pinned to one AZ",
        build: g4dn,
    },
    Template {
        id: "p4de-odcr-vpc",
        name: "p4de ODCR in an existing VPC",
        summary: "Existing VPC, 2 × p4de.24xlarge from an On-Demand Capacity Reservation",
        build: p4de_odcr_vpc,
    },
    Template {
        id: "p4de-odcr",
        name: "p4de ODCR in a new VPC",
        summary: "New VPC, 2 × p4de.24xlarge from an ODCR, AZ pinned to the reservation",
        build: p4de_odcr,
    },
    Template {
        id: "p5-odcr-vpc",
        name: "p5 ODCR in an existing VPC",
        summary: "Existing VPC, p5.48xlarge from an On-Demand Capacity Reservation",
        build: p5_odcr_vpc,
    },
    Template {
        id: "p5-capacity-block",
        name: "p5 Capacity Block for ML",
        summary: "Existing VPC, p5.48xlarge from a Capacity Block (marketType capacity-block)",
        build: p5_capacity_block,
    },
    Template {
        id: "g5-node-autorepair",
        name: "g5 with node auto-repair",
        summary: "g5.8xlarge with node auto-repair, node monitoring agent and CloudWatch add-ons",
        build: g5_node_autorepair,
    },
];

/// The template with this id.
pub fn template(id: &str) -> Option<&'static Template> {
    TEMPLATES.iter().find(|template| template.id == id)
}

const PLACEHOLDER_RESERVATION: &str = "PLACEHOLDER_CAPACITY_RESERVATION_ID";
const EXAMPLE_RESERVATION: &str = "cr-xxxxxxxxxx";

fn cluster(name: &str) -> ClusterSettings {
    ClusterSettings {
        name: name.into(),
        region: "PLACEHOLDER_AWS_REGION".into(),
        kubernetes_version: "1.32".into(),
        with_oidc: true,
    }
}

fn new_vpc() -> Network {
    Network::NewVpc {
        availability_zones: vec!["PLACEHOLDER_AZ_1".into(), "PLACEHOLDER_AZ_2".into()],
    }
}

fn existing_vpc() -> Network {
    let subnet = |name: &str, id: &str| Subnet {
        name: name.into(),
        id: id.into(),
        availability_zone: None,
    };
    Network::ExistingVpc {
        vpc_id: "PLACEHOLDER_VPC_ID".into(),
        public_subnets: vec![
            subnet("public-one", "PLACEHOLDER_SUBNET_PUBLIC_1"),
            subnet("public-two", "PLACEHOLDER_SUBNET_PUBLIC_2"),
        ],
        private_subnets: vec![
            subnet("private-one", "PLACEHOLDER_SUBNET_PRIVATE_1"),
            subnet("private-two", "PLACEHOLDER_SUBNET_PRIVATE_2"),
        ],
    }
}

/// The CPU group that runs system pods (CoreDNS, controllers) off the GPU nodes.
fn system_group() -> NodeGroup {
    NodeGroup {
        name: "sys".into(),
        instance_type: "c5.2xlarge".into(),
        instance_prefix: None,
        private_networking: false,
        efa_enabled: false,
        min_size: None,
        desired_capacity: Some(1),
        max_size: None,
        placement: GroupPlacement::Cluster,
        capacity: Capacity::OnDemand,
        local_nvme_raid0: false,
        addon_policies: AddonPolicies {
            auto_scaler: true,
            cloud_watch: true,
            ebs: false,
            fsx: false,
        },
        node_repair: false,
    }
}

/// A private EFA GPU group striping its local NVMe, as every seed has one.
fn gpu_group(name: &str, instance_type: &str, desired_capacity: u32) -> NodeGroup {
    NodeGroup {
        name: name.into(),
        instance_type: instance_type.into(),
        instance_prefix: Some(name.into()),
        private_networking: true,
        efa_enabled: true,
        min_size: Some(0),
        desired_capacity: Some(desired_capacity),
        max_size: Some(10),
        placement: GroupPlacement::Cluster,
        capacity: Capacity::OnDemand,
        local_nvme_raid0: true,
        addon_policies: AddonPolicies {
            auto_scaler: false,
            cloud_watch: true,
            ebs: true,
            fsx: true,
        },
        node_repair: false,
    }
}

fn in_subnet(subnet: &str) -> GroupPlacement {
    GroupPlacement::Subnets {
        subnets: vec![subnet.into()],
    }
}

fn in_zone(zone: &str) -> GroupPlacement {
    GroupPlacement::AvailabilityZones {
        availability_zones: vec![zone.into()],
    }
}

fn g4dn_vpc() -> Spec {
    let mut gpu = gpu_group("g4dn", "g4dn.8xlarge", 2);
    gpu.instance_prefix = Some("g4dn-vpc".into());
    gpu.placement = in_subnet("PLACEHOLDER_SUBNET_PRIVATE_2");
    gpu.addon_policies.auto_scaler = true;
    Spec {
        cluster: cluster("eks-g4dn-vpc"),
        network: existing_vpc(),
        node_groups: vec![system_group(), gpu],
        addons: vec![],
    }
}

fn g4dn() -> Spec {
    let mut gpu = gpu_group("g4dn", "g4dn.8xlarge", 2);
    gpu.placement = in_zone("PLACEHOLDER_AZ_2");
    gpu.addon_policies.auto_scaler = true;
    Spec {
        cluster: cluster("eks-g4dn"),
        network: new_vpc(),
        node_groups: vec![system_group(), gpu],
        addons: vec![],
    }
}

fn p4de_odcr_vpc() -> Spec {
    let mut gpu = gpu_group("p4de-odcr-vpc", "p4de.24xlarge", 2);
    gpu.placement = in_subnet("PLACEHOLDER_SUBNET_PRIVATE_2");
    gpu.capacity = Capacity::Reservation {
        reservation_id: PLACEHOLDER_RESERVATION.into(),
    };
    Spec {
        cluster: cluster("eks-p4de-odcr-vpc"),
        network: existing_vpc(),
        node_groups: vec![system_group(), gpu],
        addons: vec![],
    }
}

fn p4de_odcr() -> Spec {
    let mut gpu = gpu_group("p4de-odcr", "p4de.24xlarge", 2);
    gpu.placement = in_zone("PLACEHOLDER_AZ_2");
    gpu.capacity = Capacity::Reservation {
        reservation_id: PLACEHOLDER_RESERVATION.into(),
    };
    Spec {
        cluster: cluster("eks-p4de-odcr"),
        network: new_vpc(),
        node_groups: vec![system_group(), gpu],
        addons: vec![],
    }
}

fn p5_odcr_vpc() -> Spec {
    let mut gpu = gpu_group("p5-ocdr", "p5.48xlarge", 1);
    gpu.instance_prefix = Some("p5-odcr-nodes".into());
    gpu.capacity = Capacity::Reservation {
        reservation_id: EXAMPLE_RESERVATION.into(),
    };
    Spec {
        cluster: cluster("eks-p5-odcr-vpc"),
        network: existing_vpc(),
        node_groups: vec![gpu],
        addons: vec![],
    }
}

fn p5_capacity_block() -> Spec {
    let mut gpu = gpu_group("p5-cbr", "p5.48xlarge", 1);
    gpu.instance_prefix = None;
    gpu.capacity = Capacity::CapacityBlock {
        reservation_id: EXAMPLE_RESERVATION.into(),
    };
    Spec {
        cluster: cluster("eks-p5-cbr-vpc"),
        network: existing_vpc(),
        node_groups: vec![gpu],
        addons: vec![],
    }
}

fn g5_node_autorepair() -> Spec {
    let mut system = system_group();
    system.node_repair = true;
    let mut gpu = gpu_group("g5", "g5.8xlarge", 2);
    gpu.placement = in_zone("PLACEHOLDER_AZ_2");
    gpu.addon_policies.auto_scaler = true;
    gpu.node_repair = true;
    Spec {
        cluster: cluster("eks-g5-autorepair"),
        network: new_vpc(),
        node_groups: vec![system, gpu],
        addons: vec![
            Addon {
                name: "eks-node-monitoring-agent".into(),
                resolve_conflicts: Some("overwrite".into()),
                attach_policy_arns: vec![],
            },
            Addon {
                name: "amazon-cloudwatch-observability".into(),
                resolve_conflicts: Some("overwrite".into()),
                attach_policy_arns: vec!["arn:aws:iam::aws:policy/CloudWatchFullAccess".into()],
            },
        ],
    }
}
