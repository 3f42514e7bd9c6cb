//! Each seed template is the spec that renders back to its reference manifest from
//! aws-samples/awsome-distributed-training; placeholders stay placeholders so the rules
//! can ask the user to fill them in.

use std::collections::BTreeMap;

use crate::model::spec::{
    Addon, AddonPolicies, Capacity, ClusterSettings, GroupPlacement, KarpenterSettings, Labels,
    Network, NodeGroup, NodeTaint, Spec, Subnet,
};
use crate::upstream::karpenter::{
    Budget, Disruption, Ec2NodeClass, Ec2NodeClassSpec, NodePool, ObjectMeta, Requirement,
    SelectorTerm,
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
    Template {
        id: "karpenter-spot-inference",
        name: "Karpenter Spot GPU inference",
        summary: "Karpenter NodePool for GPU inference on Spot: g/p families, >20 GiB GPU memory, consolidation",
        build: karpenter_spot_inference,
    },
    Template {
        id: "karpenter-reserved-training",
        name: "Karpenter training on reserved capacity",
        summary: "Karpenter NodePool on an ODCR or Capacity Block for p5 training; never evicts running jobs",
        build: karpenter_reserved_training,
    },
    Template {
        id: "p5-placement-group",
        name: "p5 in a cluster placement group",
        summary: "New VPC, 2 × p5.48xlarge with EFA on every network card, in a cluster placement group you name, one AZ",
        build: p5_placement_group,
    },
    Template {
        id: "g6-bottlerocket",
        name: "Bottlerocket GPU node group",
        summary: "New VPC, g6.12xlarge on Bottlerocket (eksctl picks its NVIDIA variant), tainted for GPUs",
        build: g6_bottlerocket,
    },
    Template {
        id: "karpenter-static-capacity-block",
        name: "Static Karpenter pool on a Capacity Block",
        summary: "Karpenter keeps 2 × p5.48xlarge running on a Capacity Block (static NodePool), with node repair",
        build: karpenter_static_capacity_block,
    },
    Template {
        id: "p5-checkpoint-storage",
        name: "p5 with FSx for Lustre and S3 for checkpoints",
        summary: "Existing VPC, 2 × p5.48xlarge with EFA in one subnet, an FSx for Lustre file system there and an S3 bucket mounted by Mountpoint, through their CSI add-ons",
        build: p5_checkpoint_storage,
    },
    Template {
        id: "auto-mode-reserved-training",
        name: "EKS Auto Mode training on reserved capacity",
        summary: "Existing VPC, EKS Auto Mode (no node groups), a NodePool of p5.48xlarge on a NodeClass that selects your ODCR or Capacity Block; never evicts running jobs",
        build: auto_mode_reserved_training,
    },
    Template {
        id: "p6e-gb200-ultraserver",
        name: "P6e-GB200 UltraServer on a Capacity Block",
        summary: "Existing VPC, one u-p6e-gb200x36 UltraServer (9 × p6e-gb200.36xlarge, arm64) from a Capacity Block, on the EKS AL2023 arm64 NVIDIA AMI you give, Kubernetes 1.33 or later",
        build: p6e_gb200_ultraserver,
    },
];

/// An add-on as the studio adds it: conflicts overwritten, and the IAM policies AWS's
/// guides give its service account's role (eksctl creates the role through the cluster's
/// OIDC provider). Mountpoint's is a policy on the user's own bucket, so it starts as a
/// placeholder to fill in.
pub fn starting_addon(name: &str) -> Addon {
    Addon {
        name: name.to_owned(),
        resolve_conflicts: Some("overwrite".into()),
        attach_policy_arns: match name {
            "amazon-cloudwatch-observability" => {
                vec!["arn:aws:iam::aws:policy/CloudWatchFullAccess".into()]
            }
            crate::documents::storage::FSX_ADDON => {
                vec!["arn:aws:iam::aws:policy/AmazonFSxFullAccess".into()]
            }
            crate::documents::storage::S3_ADDON => vec!["PLACEHOLDER_S3_POLICY_ARN".into()],
            _ => Vec::new(),
        },
        ..Addon::default()
    }
}

/// The template with this id.
pub fn template(id: &str) -> Option<&'static Template> {
    TEMPLATES.iter().find(|template| template.id == id)
}

const PLACEHOLDER_RESERVATION: &str = "PLACEHOLDER_CAPACITY_RESERVATION_ID";
const EXAMPLE_RESERVATION: &str = "cr-xxxxxxxxxx";

/// The version templates other than the seven seeds use: the newest in standard support
/// on the day the version calendar was checked (a test keeps the two in step).
pub const NEWEST_STANDARD_VERSION: &str = "1.35";

/// The seed manifests' settings (they name Kubernetes 1.32, as the reference files do).
fn cluster(name: &str) -> ClusterSettings {
    ClusterSettings {
        name: name.into(),
        region: "PLACEHOLDER_AWS_REGION".into(),
        kubernetes_version: "1.32".into(),
        with_oidc: true,
        auto_mode: None,
        pod_identity_associations: Vec::new(),
        access: None,
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
        ..Subnet::default()
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
        ..NodeGroup::default()
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
        ..NodeGroup::default()
    }
}

/// The group the page's "Add GPU group" / "Add CPU system group" adds to `spec`, valid as
/// added: a private EFA p5.48xlarge tainted for GPUs, pinned to the cluster's first zone
/// (eksctl keeps an EFA group in one zone) or first private subnet; or a small CPU system
/// group, private when the cluster has private subnets. Named `gpu-N` / `system-N` by the
/// first number no group uses.
pub fn added_group(spec: &Spec, gpu: bool) -> NodeGroup {
    let prefix = if gpu { "gpu" } else { "system" };
    let name = (spec.node_groups.len() + 1..)
        .map(|number| format!("{prefix}-{number}"))
        .find(|name| spec.node_groups.iter().all(|group| &group.name != name))
        .expect("some number is free");
    let private = match &spec.network {
        Network::NewVpc { .. } => true,
        Network::ExistingVpc {
            private_subnets, ..
        } => !private_subnets.is_empty(),
    };
    if gpu {
        let placement = match &spec.network {
            Network::NewVpc { availability_zones } => availability_zones
                .first()
                .map_or(GroupPlacement::Cluster, |zone| in_zone(zone)),
            Network::ExistingVpc {
                private_subnets,
                public_subnets,
                ..
            } => private_subnets
                .first()
                .or(public_subnets.first())
                .map(|subnet| {
                    if subnet.name.trim().is_empty() {
                        &subnet.id
                    } else {
                        &subnet.name
                    }
                })
                .map_or(GroupPlacement::Cluster, |subnet| in_subnet(subnet)),
        };
        NodeGroup {
            name,
            instance_type: "p5.48xlarge".into(),
            efa_enabled: true,
            private_networking: private,
            min_size: Some(0),
            desired_capacity: Some(1),
            max_size: Some(2),
            placement,
            taints: vec![crate::model::spec::NodeTaint {
                key: "nvidia.com/gpu".into(),
                value: None,
                effect: "NoSchedule".into(),
            }],
            ..NodeGroup::default()
        }
    } else {
        NodeGroup {
            name,
            instance_type: "m6i.xlarge".into(),
            private_networking: private,
            min_size: Some(2),
            desired_capacity: Some(2),
            max_size: Some(3),
            ..NodeGroup::default()
        }
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
        ..Spec::default()
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
        ..Spec::default()
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
        ..Spec::default()
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
        ..Spec::default()
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
        ..Spec::default()
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
        ..Spec::default()
    }
}

/// EFA groups want their nodes close: a cluster placement group the team made (eksctl's
/// `placement.groupName`; without one eksctl makes its own for an EFA group). eksctl gives
/// every network card of p5.48xlarge an EFA interface.
fn p5_placement_group() -> Spec {
    let mut gpu = gpu_group("p5", "p5.48xlarge", 2);
    gpu.instance_prefix = None;
    gpu.placement = in_zone("PLACEHOLDER_AZ_1");
    gpu.placement_group = "PLACEHOLDER_PLACEMENT_GROUP".into();
    gpu.taints = vec![gpu_taint()];
    Spec {
        cluster: ClusterSettings {
            // Not a seed manifest: the newest version in standard support.
            kubernetes_version: NEWEST_STANDARD_VERSION.into(),
            ..cluster("eks-p5-placement-group")
        },
        network: new_vpc(),
        node_groups: vec![system_group(), gpu],
        ..Spec::default()
    }
}

/// Bottlerocket for GPU nodes: eksctl chooses the NVIDIA variant for a GPU type, and
/// Bottlerocket takes its settings in TOML, not a bootstrap command, so the local NVMe is
/// left to Bottlerocket's own ephemeral-storage setting.
fn g6_bottlerocket() -> Spec {
    let mut gpu = gpu_group("g6", "g6.12xlarge", 1);
    gpu.instance_prefix = None;
    gpu.ami_family = Some("Bottlerocket".into());
    gpu.local_nvme_raid0 = false;
    gpu.efa_enabled = false;
    gpu.placement = in_zone("PLACEHOLDER_AZ_1");
    gpu.taints = vec![gpu_taint()];
    Spec {
        cluster: ClusterSettings {
            // Not a seed manifest: the newest version in standard support.
            kubernetes_version: NEWEST_STANDARD_VERSION.into(),
            ..cluster("eks-g6-bottlerocket")
        },
        network: new_vpc(),
        node_groups: vec![system_group(), gpu],
        ..Spec::default()
    }
}

/// Checkpoints on shared storage: the FSx for Lustre file system goes into the subnet the
/// EFA group is pinned to (its zone), the S3 bucket is mounted under a prefix.
fn p5_checkpoint_storage() -> Spec {
    let mut gpu = gpu_group("p5", "p5.48xlarge", 2);
    gpu.placement = GroupPlacement::Subnets {
        subnets: vec!["private-one".into()],
    };
    gpu.taints = vec![gpu_taint()];
    let mut spec = Spec {
        cluster: ClusterSettings {
            // Not a seed manifest: the newest version in standard support.
            kubernetes_version: NEWEST_STANDARD_VERSION.into(),
            // Both drivers get their roles through EKS Pod Identity: no OIDC provider.
            with_oidc: false,
            ..cluster("eks-p5-checkpoints")
        },
        network: existing_vpc(),
        node_groups: vec![system_group(), gpu],
        addons: vec![
            starting_addon(crate::documents::storage::FSX_ADDON),
            starting_addon(crate::documents::storage::S3_ADDON),
        ],
        storage: crate::model::spec::Storage {
            fsx: Some(crate::model::spec::FsxVolume {
                // The same token as the private subnet the GPU nodes use: one value.
                subnet_id: "PLACEHOLDER_SUBNET_PRIVATE_1".into(),
                security_group_ids: vec!["PLACEHOLDER_FSX_SECURITY_GROUP_ID".into()],
                deployment_type: "PERSISTENT_2".into(),
                per_unit_storage_throughput: Some(250),
                storage_gib: 2400,
            }),
            s3: Some(crate::model::spec::S3Volume {
                bucket: "PLACEHOLDER_S3_BUCKET".into(),
                prefix: "checkpoints/".into(),
            }),
        },
        ..Spec::default()
    };
    for driver in &crate::documents::storage::DRIVERS {
        driver.set_identity(
            &mut spec,
            crate::documents::storage::DriverIdentity::PodIdentity,
        );
    }
    spec
}

/// A P6e-GB200 UltraServer, as the EKS user guide's page on them has it: sold only as
/// Capacity Blocks (one u-p6e-gb200x36 is nine instances), Kubernetes 1.33 or later for
/// Dynamic Resource Allocation, a managed node group on the AL2023 arm64 NVIDIA AMI.
/// eksctl's instance table does not list the type, so eksctl would give the group an
/// x86-64 AMI type: the group names its image (`ami`, filled in from the SSM parameter
/// the rule's help gives), which leaves the AMI type out.
fn p6e_gb200_ultraserver() -> Spec {
    let mut gpu = gpu_group("gb200", "p6e-gb200.36xlarge", 9);
    gpu.instance_prefix = None;
    gpu.max_size = Some(9);
    // The block's zone: the subnet the user gives for it.
    gpu.placement = GroupPlacement::Subnets {
        subnets: vec!["private-one".into()],
    };
    gpu.capacity = Capacity::CapacityBlock {
        reservation_id: PLACEHOLDER_RESERVATION.into(),
    };
    gpu.ami_family = Some("AmazonLinux2023".into());
    gpu.extra.insert("ami".into(), "PLACEHOLDER_AMI_ID".into());
    gpu.taints = vec![gpu_taint()];
    Spec {
        cluster: ClusterSettings {
            // Not a seed manifest: the newest version in standard support (1.33 or later).
            kubernetes_version: NEWEST_STANDARD_VERSION.into(),
            ..cluster("eks-gb200-ultraserver")
        },
        network: existing_vpc(),
        node_groups: vec![system_group(), gpu],
        ..Spec::default()
    }
}

fn gpu_taint() -> NodeTaint {
    NodeTaint {
        key: "nvidia.com/gpu".into(),
        value: None,
        effect: "NoSchedule".into(),
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
                ..Addon::default()
            },
            Addon {
                name: "amazon-cloudwatch-observability".into(),
                resolve_conflicts: Some("overwrite".into()),
                attach_policy_arns: vec!["arn:aws:iam::aws:policy/CloudWatchFullAccess".into()],
                ..Addon::default()
            },
        ],
        ..Spec::default()
    }
}

/// The cluster Karpenter runs in: a new VPC and only the CPU system group, since
/// Karpenter launches the GPU nodes itself.
fn karpenter_cluster(name: &str) -> Spec {
    let mut system = system_group();
    system.min_size = Some(1);
    system.desired_capacity = Some(2);
    system.max_size = Some(3);
    Spec {
        cluster: ClusterSettings {
            // Not a seed manifest: the newest version in standard support.
            kubernetes_version: NEWEST_STANDARD_VERSION.into(),
            ..cluster(name)
        },
        network: new_vpc(),
        node_groups: vec![system],
        // Hands the Karpenter controller its role (EKS Pod Identity).
        addons: vec![Addon {
            name: crate::documents::karpenter_aws::POD_IDENTITY_AGENT.into(),
            ..Addon::default()
        }],
        ..Spec::default()
    }
}

/// An EC2NodeClass finding its subnets and security groups by the cluster's discovery tag.
fn discovered_node_class(name: &str, cluster_name: &str) -> Ec2NodeClass {
    Ec2NodeClass {
        metadata: ObjectMeta {
            name: name.into(),
            ..ObjectMeta::default()
        },
        spec: Ec2NodeClassSpec {
            role: Some(format!("KarpenterNodeRole-{cluster_name}")),
            ami_selector_terms: vec![SelectorTerm::alias("al2023@latest")],
            subnet_selector_terms: vec![SelectorTerm::tag("karpenter.sh/discovery", cluster_name)],
            security_group_selector_terms: vec![SelectorTerm::tag(
                "karpenter.sh/discovery",
                cluster_name,
            )],
            ..Ec2NodeClassSpec::default()
        },
        ..Ec2NodeClass::default()
    }
}

/// The training node class on reserved capacity for p5.48xlarge: discovered subnets and
/// security groups, the example reservation, local NVMe striped as RAID0, and an EFA
/// device on every network card the type has.
fn reserved_node_class(cluster_name: &str) -> Ec2NodeClass {
    let mut class = discovered_node_class("gpu-training", cluster_name);
    class.spec.capacity_reservation_selector_terms =
        vec![SelectorTerm::id(EXAMPLE_RESERVATION)].into();
    class.spec.instance_store_policy = Some("RAID0".into());
    let efa = crate::catalog::instances::lookup("p5.48xlarge").map_or(0, |p5| p5.efa_interfaces);
    class.spec.network_interfaces = crate::upstream::karpenter::efa_layout(efa, true).into();
    class
}

/// The EKS best-practice GPU inference pool: Spot first, recent g/p types with more than
/// 20 GiB of GPU memory, nodes consolidated after five minutes, replaced after 30 days.
fn karpenter_spot_inference() -> Spec {
    let cluster_name = "eks-gpu-inference";
    let pool = spot_inference_pool("gpu-inference-spot", "gpu-inference");
    Spec {
        karpenter: Some(KarpenterSettings {
            interruption_queue: Some(cluster_name.into()),
            spot_to_spot_consolidation: true,
            node_pools: vec![pool],
            node_classes: vec![discovered_node_class("gpu-inference", cluster_name)],
            ..KarpenterSettings::default()
        }),
        ..karpenter_cluster(cluster_name)
    }
}

/// The best-practice Spot GPU inference pool of [`karpenter_spot_inference`].
fn spot_inference_pool(name: &str, class_name: &str) -> NodePool {
    let mut pool = NodePool::tainted_for_gpus(
        name,
        class_name,
        vec![
            Requirement::new("karpenter.k8s.aws/instance-category", "In", &["g", "p"]),
            Requirement::new("karpenter.k8s.aws/instance-generation", "Gt", &["3"]),
            Requirement::new("karpenter.k8s.aws/instance-gpu-memory", "Gt", &["20480"]),
            Requirement::new("kubernetes.io/arch", "In", &["amd64"]),
            Requirement::new("karpenter.sh/capacity-type", "In", &["spot", "on-demand"]),
        ],
    );
    pool.spec.limits = BTreeMap::from([
        ("cpu".to_owned(), 1000.into()),
        ("nvidia.com/gpu".to_owned(), 64.into()),
    ])
    .into();
    pool.spec.disruption = Some(Disruption {
        consolidation_policy: Some("WhenEmptyOrUnderutilized".into()),
        consolidate_after: Some("5m".into()),
        ..Disruption::default()
    });
    pool
}

/// A starting point for a NodePool, offered when Karpenter is turned on and beside "Add
/// NodePool": each a pool the studio's templates use, with the EC2NodeClass it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolPreset {
    /// Spot first, recent g/p types with more than 20 GiB of GPU memory, consolidated.
    SpotInference,
    /// On-demand c, m and r types of generation 6 or newer, amd64, consolidated.
    OnDemandGeneral,
    /// p5.48xlarge on reserved capacity only, never disrupted mid-job.
    ReservedTraining,
}

impl PoolPreset {
    /// Every preset, in the order the page offers them.
    pub const ALL: [PoolPreset; 3] = [
        PoolPreset::SpotInference,
        PoolPreset::OnDemandGeneral,
        PoolPreset::ReservedTraining,
    ];

    /// The page's button: "Add Spot GPU inference pool".
    pub fn label(self) -> &'static str {
        match self {
            PoolPreset::SpotInference => "Add Spot GPU inference pool",
            PoolPreset::OnDemandGeneral => "Add on-demand general-purpose pool",
            PoolPreset::ReservedTraining => "Add reserved GPU training pool",
        }
    }

    /// What it launches, in one line.
    pub fn summary(self) -> &'static str {
        match self {
            PoolPreset::SpotInference => {
                "Spot, then on-demand: g and p types of generation 4 or newer with more than 20 GiB of GPU memory, amd64; tainted for GPUs; consolidated after 5 minutes"
            }
            PoolPreset::OnDemandGeneral => {
                "On-demand c, m and r types of generation 6 or newer, amd64; consolidated after a minute; at most 1000 vCPU"
            }
            PoolPreset::ReservedTraining => {
                "p5.48xlarge on your ODCR or Capacity Block only (fill in its ID on the class); nodes never expire, drift or consolidate while busy"
            }
        }
    }

    /// Adds the preset's pool to `karpenter`, named by the first free `name`, `name-2`…,
    /// with the EC2NodeClass it uses when the design has none of that name.
    pub fn add_to(self, karpenter: &mut KarpenterSettings, cluster_name: &str) {
        let (pool_name, class) = match self {
            PoolPreset::SpotInference => (
                "gpu-inference-spot",
                discovered_node_class("gpu-inference", cluster_name),
            ),
            PoolPreset::OnDemandGeneral => (
                "general-purpose",
                discovered_node_class("default", cluster_name),
            ),
            PoolPreset::ReservedTraining => {
                ("gpu-training-reserved", reserved_node_class(cluster_name))
            }
        };
        let pool_name = std::iter::once(pool_name.to_owned())
            .chain((2..).map(|number| format!("{pool_name}-{number}")))
            .find(|name| {
                karpenter
                    .node_pools
                    .iter()
                    .all(|pool| &pool.metadata.name != name)
            })
            .expect("some name is free");
        let class_name = class.metadata.name.clone();
        let pool = match self {
            PoolPreset::SpotInference => spot_inference_pool(&pool_name, &class_name),
            PoolPreset::OnDemandGeneral => general_purpose_pool(&pool_name, &class_name),
            PoolPreset::ReservedTraining => reserved_training_pool(&pool_name, &class_name),
        };
        if karpenter
            .node_classes
            .iter()
            .all(|known| known.metadata.name != class_name)
        {
            karpenter.node_classes.push(class);
        }
        karpenter.node_pools.push(pool);
    }
}

/// Karpenter's general-purpose example (`examples/v1/general-purpose.yaml`), held to
/// recent generations: on-demand c, m and r, amd64, at most 1000 vCPU.
fn general_purpose_pool(name: &str, class_name: &str) -> NodePool {
    let mut pool = NodePool::tainted_for_gpus(
        name,
        class_name,
        vec![
            Requirement::new("karpenter.sh/capacity-type", "In", &["on-demand"]),
            Requirement::new(
                "karpenter.k8s.aws/instance-category",
                "In",
                &["c", "m", "r"],
            ),
            Requirement::new("karpenter.k8s.aws/instance-generation", "Gt", &["5"]),
            Requirement::new("kubernetes.io/arch", "In", &["amd64"]),
        ],
    );
    pool.spec.template.spec.taints = Default::default();
    pool.spec.limits = BTreeMap::from([("cpu".to_owned(), 1000.into())]).into();
    pool.spec.disruption = Some(Disruption {
        consolidation_policy: Some("WhenEmptyOrUnderutilized".into()),
        consolidate_after: Some("1m".into()),
        ..Disruption::default()
    });
    pool
}

/// Training on capacity that is already paid for: the pool may only launch into the
/// reservation, removes nodes only once they are empty, and neither expires nor
/// drifts nodes out from under a running job.
/// A pool of p5.48xlarge on reserved capacity only that never evicts a running job: nodes
/// never expire, drift and consolidation of busy nodes are blocked, empty ones go after
/// 30 minutes; at most 16 GPUs.
fn reserved_training_pool(name: &str, class_name: &str) -> NodePool {
    let mut pool = NodePool::tainted_for_gpus(
        name,
        class_name,
        vec![
            Requirement::new("karpenter.sh/capacity-type", "In", &["reserved"]),
            Requirement::new("node.kubernetes.io/instance-type", "In", &["p5.48xlarge"]),
        ],
    );
    pool.spec.template.spec.expire_after = Some("Never".into());
    pool.spec.limits = BTreeMap::from([("nvidia.com/gpu".to_owned(), 16.into())]).into();
    pool.spec.disruption = Some(Disruption {
        consolidation_policy: Some("WhenEmpty".into()),
        consolidate_after: Some("30m".into()),
        budgets: vec![Budget {
            nodes: "0".into(),
            reasons: vec!["Drifted".into(), "Underutilized".into()].into(),
            ..Budget::default()
        }]
        .into(),
        ..Disruption::default()
    });
    pool
}

fn karpenter_reserved_training() -> Spec {
    let cluster_name = "eks-p5-training";
    let pool = reserved_training_pool("gpu-training-reserved", "gpu-training");
    let class = reserved_node_class(cluster_name);
    Spec {
        karpenter: Some(KarpenterSettings {
            interruption_queue: Some(cluster_name.into()),
            spot_to_spot_consolidation: false,
            node_pools: vec![pool],
            node_classes: vec![class],
            ..KarpenterSettings::default()
        }),
        ..karpenter_cluster(cluster_name)
    }
}

/// EKS Auto Mode runs the nodes: its built-in pools take the system pods, and a NodePool
/// on a NodeClass of its own launches p5 into the reservation the class selects (Auto Mode
/// uses an ODCR or Capacity Block only through `capacityReservationSelectorTerms`, and its
/// nodes there are `reserved` capacity). No node group and none of the networking add-ons:
/// eksctl refuses them with Auto Mode, which runs them itself.
fn auto_mode_reserved_training() -> Spec {
    use crate::upstream::auto_mode::{
        AutoModePools, GROUP, NODE_CLASS_KIND, NodeClass, NodeClassSpec,
    };
    let mut pool = reserved_training_pool("p5-reserved", "reserved");
    pool.spec.template.spec.node_class_ref.group = GROUP.into();
    pool.spec.template.spec.node_class_ref.kind = NODE_CLASS_KIND.into();
    let by_id = |id: &str| SelectorTerm {
        id: Some(id.into()),
        ..SelectorTerm::default()
    };
    let class = NodeClass {
        metadata: crate::upstream::karpenter::ObjectMeta {
            name: "reserved".into(),
            ..crate::upstream::karpenter::ObjectMeta::default()
        },
        spec: NodeClassSpec {
            // The reservation's zone: the subnet the user gives for it.
            subnet_selector_terms: vec![by_id("PLACEHOLDER_SUBNET_PRIVATE_1")],
            security_group_selector_terms: vec![by_id("PLACEHOLDER_NODE_SECURITY_GROUP_ID")],
            capacity_reservation_selector_terms: vec![by_id(PLACEHOLDER_RESERVATION)],
            ..NodeClassSpec::default()
        },
        ..NodeClass::default()
    };
    Spec {
        cluster: ClusterSettings {
            // Not a seed manifest: the newest version in standard support.
            kubernetes_version: NEWEST_STANDARD_VERSION.into(),
            with_oidc: false,
            auto_mode: Some(crate::model::spec::AutoMode {
                enabled: true,
                ..crate::model::spec::AutoMode::default()
            }),
            ..cluster("eks-auto-training")
        },
        network: existing_vpc(),
        auto_mode_pools: AutoModePools {
            node_pools: vec![pool],
            node_classes: vec![class],
        },
        ..Spec::default()
    }
}

/// A fixed number of training nodes on a Capacity Block: a static NodePool keeps them
/// running whether or not pods are pending (no consolidation), only `limits.nodes` caps it,
/// and drift never replaces a node mid-job (the block has no spare instance for it).
/// Karpenter's node repair replaces a node whose GPUs or network the monitoring agent
/// reports unhealthy.
fn karpenter_static_capacity_block() -> Spec {
    let cluster_name = "eks-p5-static";
    let mut pool = NodePool::tainted_for_gpus(
        "gpu-training-static",
        "gpu-training",
        vec![
            Requirement::new("karpenter.sh/capacity-type", "In", &["reserved"]),
            Requirement::new("node.kubernetes.io/instance-type", "In", &["p5.48xlarge"]),
            Requirement::new("topology.kubernetes.io/zone", "In", &["PLACEHOLDER_AZ_1"]),
        ],
    );
    pool.spec.replicas = Some(2);
    pool.spec.template.spec.expire_after = Some("Never".into());
    pool.spec.limits = BTreeMap::from([("nodes".to_owned(), 2.into())]).into();
    pool.spec.disruption = Some(Disruption {
        // Required in the block; a static pool does not consolidate, so it only says so.
        consolidate_after: Some("Never".into()),
        budgets: vec![Budget {
            nodes: "0".into(),
            reasons: vec!["Drifted".into()].into(),
            ..Budget::default()
        }]
        .into(),
        ..Disruption::default()
    });
    let class = reserved_node_class(cluster_name);
    let mut spec = karpenter_cluster(cluster_name);
    spec.addons.push(Addon {
        name: "eks-node-monitoring-agent".into(),
        ..Addon::default()
    });
    Spec {
        karpenter: Some(KarpenterSettings {
            interruption_queue: Some(cluster_name.into()),
            node_repair: true,
            node_pools: vec![pool],
            node_classes: vec![class],
            ..KarpenterSettings::default()
        }),
        ..spec
    }
}

/// A large, valid-shaped design with `node_groups` managed groups and `pools` Karpenter
/// pools, cycling through instance types, capacity modes and placements. Benchmarks and
/// tests use it to see how cost grows with size.
pub fn sized_spec(node_groups: usize, pools: usize) -> Spec {
    const TYPES: &[&str] = &[
        "p5.48xlarge",
        "g5.8xlarge",
        "g4dn.8xlarge",
        "p4de.24xlarge",
        "trn1.32xlarge",
        "c5.2xlarge",
    ];
    let zones = ["us-east-1a", "us-east-1b", "us-east-1c"];
    let mut spec = Spec {
        cluster: ClusterSettings {
            name: "sized-training".into(),
            region: "us-east-1".into(),
            kubernetes_version: NEWEST_STANDARD_VERSION.into(),
            with_oidc: true,
            auto_mode: None,
            pod_identity_associations: Vec::new(),
            access: None,
        },
        network: Network::NewVpc {
            availability_zones: zones.iter().map(|zone| zone.to_string()).collect(),
        },
        ..Spec::default()
    };
    for index in 0..node_groups {
        let instance_type = TYPES[index % TYPES.len()];
        let mut group = gpu_group(&format!("group-{index}"), instance_type, 1);
        group.placement = in_zone(zones[index % zones.len()]);
        group.efa_enabled = instance_type != "c5.2xlarge";
        group.local_nvme_raid0 = instance_type != "c5.2xlarge";
        group.capacity = match index % 4 {
            0 => Capacity::OnDemand,
            1 => Capacity::Reservation {
                reservation_id: format!("cr-{index:017x}"),
            },
            2 if instance_type.starts_with('p') || instance_type.starts_with("trn") => {
                Capacity::CapacityBlock {
                    reservation_id: format!("cr-{index:017x}"),
                }
            }
            _ => Capacity::OnDemand,
        };
        group.labels = Labels::from_iter([("workload".to_owned(), format!("team-{}", index % 5))]);
        spec.node_groups.push(group);
    }
    if pools > 0 {
        let mut karpenter = KarpenterSettings {
            interruption_queue: Some("sized-training".into()),
            spot_to_spot_consolidation: true,
            ..KarpenterSettings::default()
        };
        for index in 0..pools {
            let class_name = format!("class-{}", index % 4);
            let mut pool = NodePool::tainted_for_gpus(
                &format!("pool-{index}"),
                &class_name,
                vec![
                    Requirement::new("karpenter.k8s.aws/instance-category", "In", &["g", "p"]),
                    Requirement::new("karpenter.k8s.aws/instance-generation", "Gt", &["3"]),
                    Requirement::new("karpenter.sh/capacity-type", "In", &["spot", "on-demand"]),
                ],
            );
            pool.spec.weight = Some((index % 100 + 1) as u32);
            pool.spec.limits = BTreeMap::from([("nvidia.com/gpu".to_owned(), 64.into())]).into();
            pool.spec.disruption = Some(Disruption {
                consolidation_policy: Some("WhenEmptyOrUnderutilized".into()),
                consolidate_after: Some("5m".into()),
                ..Disruption::default()
            });
            karpenter.node_pools.push(pool);
        }
        for index in 0..pools.min(4) {
            karpenter.node_classes.push(discovered_node_class(
                &format!("class-{index}"),
                "sized-training",
            ));
        }
        spec.karpenter = Some(karpenter);
        spec.addons.push(Addon {
            name: crate::documents::karpenter_aws::POD_IDENTITY_AGENT.into(),
            ..Addon::default()
        });
    }
    spec
}

#[cfg(test)]
mod version_tests {
    #[test]
    fn templates_use_the_newest_version_in_standard_support() {
        let newest = crate::catalog::versions::newest_in_standard_support(
            crate::catalog::versions::CALENDAR_CHECKED,
        )
        .expect("a version is in standard support");
        assert_eq!(super::NEWEST_STANDARD_VERSION, newest.version);
    }
}
