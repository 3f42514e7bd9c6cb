//! The spec holds what the user typed, as typed: a half-filled form is still a spec,
//! and nothing the user entered is lost while rules point at what is wrong.

/// Kubernetes labels as a node group keeps them: sorted by key, each key once.
pub type Labels = litemap::LiteMap<String, String>;

use serde::{Deserialize, Serialize};
use yaml_serde::{Mapping, Value};

use crate::fields::{self, declare_fields};
use crate::upstream::karpenter::{Ec2NodeClass, NodeOverlay, NodePool};
pub use crate::upstream::karpenter_releases::KarpenterRelease;

fn is_empty_mapping(mapping: &Mapping) -> bool {
    mapping.is_empty()
}

fn is_false(value: &bool) -> bool {
    !value
}

/// The whole cluster design. Round-trips through JSON (`studio.json`, drafts, share links).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    /// Cluster-wide settings.
    pub cluster: ClusterSettings,
    /// Where the cluster's subnets come from.
    pub network: Network,
    /// EKS managed node groups, system and GPU.
    #[serde(default)]
    pub node_groups: Vec<NodeGroup>,
    /// EKS add-ons installed with the cluster.
    #[serde(default)]
    pub addons: Vec<Addon>,
    /// Karpenter node pools and node classes, when Karpenter launches nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub karpenter: Option<KarpenterSettings>,
    /// Shared volumes for datasets and checkpoints, created with the cluster.
    #[serde(default, skip_serializing_if = "Storage::is_empty")]
    pub storage: Storage,
    /// EKS Auto Mode's NodePools and NodeClasses, applied once the cluster is up.
    #[serde(
        default,
        skip_serializing_if = "crate::upstream::auto_mode::AutoModePools::is_empty"
    )]
    pub auto_mode_pools: crate::upstream::auto_mode::AutoModePools,
    /// `ClusterConfig` keys the studio does not model, kept from an import and written back
    /// unchanged (nested as in the file, e.g. `metadata.tags`, `iam.serviceAccounts`).
    #[serde(default, skip_serializing_if = "is_empty_mapping")]
    pub eksctl_extra: Mapping,
}

declare_fields! {
    Spec;
    FSX_VOLUME: fields::DESIGN, "storage.fsx", "Create an FSx for Lustre file system (StorageClass and claim fsx-claim)";
    S3_VOLUME: fields::DESIGN, "storage.s3", "Mount an S3 bucket (volume s3-pv and claim s3-claim)";
    VPC: fields::DESIGN, "network", "VPC";
    VPC_CIDR: fields::DESIGN, "eksctl_extra.vpc.cidr", "VPC CIDR block";
    KARPENTER_ON: fields::DESIGN, "karpenter", "Launch nodes with Karpenter";
}

/// Volumes the deploy creates for datasets and checkpoints through the storage add-ons'
/// CSI drivers (`storage/volumes.yaml`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Storage {
    /// An FSx for Lustre file system the FSx CSI driver creates for a claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsx: Option<FsxVolume>,
    /// An S3 bucket the Mountpoint for S3 CSI driver mounts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s3: Option<S3Volume>,
}

impl Storage {
    /// Whether no volume is asked for.
    pub fn is_empty(&self) -> bool {
        self.fsx.is_none() && self.s3.is_none()
    }
}

/// An FSx for Lustre file system made by dynamic provisioning: a StorageClass with the
/// driver's parameters and a claim that asks for its size.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FsxVolume {
    /// The subnet the file system is created in (one zone).
    pub subnet_id: String,
    /// Security groups of the file system's interfaces.
    #[serde(default)]
    pub security_group_ids: Vec<String>,
    /// `SCRATCH_1`, `SCRATCH_2`, `PERSISTENT_1` or `PERSISTENT_2`.
    pub deployment_type: String,
    /// Throughput per TiB of storage, MB/s (persistent file systems only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_unit_storage_throughput: Option<u32>,
    /// Size asked for, GiB (the driver rounds it up to a size FSx sells).
    pub storage_gib: u32,
}

declare_fields! {
    FsxVolume;
    SUBNET: fields::FSX, "subnet_id", "FSx subnet ID";
    SECURITY_GROUPS: fields::FSX, "security_group_ids", "FSx security group IDs";
    DEPLOYMENT_TYPE: fields::FSX, "deployment_type", "FSx deployment type";
    THROUGHPUT: fields::FSX, "per_unit_storage_throughput", "FSx throughput (MB/s per TiB)";
    STORAGE: fields::FSX, "storage_gib", "FSx storage (GiB)";
}

/// An S3 bucket mounted by Mountpoint for S3 (static provisioning: a volume and its claim).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct S3Volume {
    /// The bucket's name.
    pub bucket: String,
    /// Only keys under this prefix, e.g. `checkpoints/` (empty: the whole bucket).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prefix: String,
}

declare_fields! {
    S3Volume;
    BUCKET: fields::S3, "bucket", "S3 bucket";
    PREFIX: fields::S3, "prefix", "S3 prefix";
}

/// Karpenter: the pools and classes it launches nodes from, and controller settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KarpenterSettings {
    /// The Karpenter release the bundle installs: its chart, and the CRDs the objects
    /// must fit.
    #[serde(default, skip_serializing_if = "is_default_release")]
    pub release: KarpenterRelease,
    /// SQS queue for Spot interruption events (`settings.interruptionQueue`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interruption_queue: Option<String>,
    /// Turn on the `SpotToSpotConsolidation` feature gate.
    #[serde(default)]
    pub spot_to_spot_consolidation: bool,
    /// Turn on the `NodeRepair` feature gate: Karpenter replaces nodes whose health
    /// conditions (set by the node monitoring agent) stay bad.
    #[serde(default, skip_serializing_if = "is_false")]
    pub node_repair: bool,
    /// How the controller gets its AWS role.
    #[serde(default, skip_serializing_if = "ControllerIdentity::is_default")]
    pub controller_identity: ControllerIdentity,
    /// `NodePool` objects.
    #[serde(default)]
    pub node_pools: Vec<NodePool>,
    /// `EC2NodeClass` objects.
    #[serde(default)]
    pub node_classes: Vec<Ec2NodeClass>,
    /// `NodeOverlay` objects, kept from an import (the page lists them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node_overlays: Vec<NodeOverlay>,
}

declare_fields! {
    KarpenterSettings;
    RELEASE: fields::KARPENTER, "release", "Karpenter release";
    INTERRUPTION_QUEUE: fields::KARPENTER, "interruption_queue", "Spot interruption queue (SQS)";
    CONTROLLER_IDENTITY: fields::KARPENTER, "controller_identity", "Controller's AWS role";
    SPOT_TO_SPOT: fields::KARPENTER, "spot_to_spot_consolidation", "Spot-to-Spot consolidation";
    NODE_REPAIR: fields::KARPENTER, "node_repair", "Node repair (Karpenter)";
}

fn is_default_release(release: &KarpenterRelease) -> bool {
    *release == KarpenterRelease::default()
}

/// How the Karpenter controller gets its AWS role.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ControllerIdentity {
    /// EKS Pod Identity: the role trusts `pods.eks.amazonaws.com`, an association names the
    /// service account (Karpenter's getting-started default).
    #[default]
    PodIdentity,
    /// IAM roles for service accounts: the role trusts the cluster's OIDC provider, the
    /// service account is annotated with the role.
    Irsa,
}

impl ControllerIdentity {
    fn is_default(&self) -> bool {
        *self == ControllerIdentity::default()
    }
}

/// Name, region, Kubernetes version and IAM settings of the cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterSettings {
    /// Cluster name (letters, digits and hyphens).
    pub name: String,
    /// AWS region, e.g. `us-east-1`.
    pub region: String,
    /// Kubernetes minor version, e.g. `1.32`.
    pub kubernetes_version: String,
    /// Create an IAM OIDC provider for service-account roles.
    #[serde(default)]
    pub with_oidc: bool,
    /// EKS Auto Mode (`autoModeConfig`); `None` when the file does not mention it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_mode: Option<AutoMode>,
    /// EKS Pod Identity associations eksctl creates after the cluster, its node groups and
    /// add-ons (`iam.podIdentityAssociations`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pod_identity_associations: Vec<PodIdentityAssociation>,
    /// Who may reach the Kubernetes API (`accessConfig`); `None` when the file does not
    /// say (eksctl: `API_AND_CONFIG_MAP`, the creator an admin, no access entries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<AccessConfig>,
}

declare_fields! {
    ClusterSettings;
    NAME: fields::CLUSTER, "name", "Cluster name";
    REGION: fields::CLUSTER, "region", "Region";
    KUBERNETES_VERSION: fields::CLUSTER, "kubernetes_version", "Kubernetes version";
    WITH_OIDC: fields::CLUSTER, "with_oidc", "IAM OIDC provider (roles for service accounts)";
    AUTO_MODE_ON: fields::CLUSTER, "auto_mode", "EKS Auto Mode (AWS launches and runs the nodes)";
    POD_IDENTITY_ASSOCIATIONS: fields::CLUSTER, "pod_identity_associations", "Pod Identity associations";
    ACCESS_CONFIG: fields::CLUSTER, "access", "Access to the cluster";
}

/// `accessConfig`: the cluster's authentication mode and the access entries created with
/// it (EKS user guide, "Grant IAM users access to Kubernetes with EKS access entries").
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AccessConfig {
    /// `API`, `API_AND_CONFIG_MAP` or `CONFIG_MAP`; empty: eksctl's default,
    /// `API_AND_CONFIG_MAP`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub authentication_mode: String,
    /// Whether the identity creating the cluster gets cluster-admin; `None`: yes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bootstrap_cluster_creator_admin_permissions: Option<bool>,
    /// The access entries.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub access_entries: Vec<AccessEntry>,
}

declare_fields! {
    AccessConfig;
    AUTHENTICATION_MODE: fields::ACCESS, "authentication_mode", "Authentication mode";
    CREATOR_IS_ADMIN: fields::ACCESS, "bootstrap_cluster_creator_admin_permissions", "The identity that creates the cluster is its admin";
    ACCESS_ENTRIES: fields::ACCESS, "access_entries", "Access entries";
}

impl AccessConfig {
    /// The authentication modes EKS has.
    pub const MODES: [&'static str; 3] = ["API", "API_AND_CONFIG_MAP", "CONFIG_MAP"];
}

/// An access entry: an IAM principal let into the cluster, as Kubernetes groups, a user
/// name, EKS access policies, or (by type) as nodes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AccessEntry {
    /// The IAM role or user ARN.
    #[serde(default)]
    pub principal_arn: String,
    /// `STANDARD` (empty: the default), `EC2` (EKS Auto Mode nodes), `EC2_LINUX`,
    /// `EC2_WINDOWS`, `FARGATE_LINUX` or `HYBRID_LINUX`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub entry_type: String,
    /// Kubernetes groups the principal is in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kubernetes_groups: Vec<String>,
    /// Its Kubernetes user name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kubernetes_username: String,
    /// EKS access policies and where they apply.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub access_policies: Vec<AccessPolicy>,
    /// Keys the studio does not model, kept as imported.
    #[serde(default, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

declare_fields! {
    AccessEntry;
    PRINCIPAL_ARN: fields::ACCESS_ENTRY, "principal_arn", "Principal ARN (IAM role or user)";
    ENTRY_TYPE: fields::ACCESS_ENTRY, "entry_type", "Entry type";
    KUBERNETES_GROUPS: fields::ACCESS_ENTRY, "kubernetes_groups", "Kubernetes groups";
    KUBERNETES_USERNAME: fields::ACCESS_ENTRY, "kubernetes_username", "Kubernetes user name";
    ACCESS_POLICIES: fields::ACCESS_ENTRY, "access_policies", "Access policies";
}

impl AccessEntry {
    /// The entry types: `STANDARD` for people and tools, the others for nodes.
    pub const TYPES: [&'static str; 6] = [
        "STANDARD",
        "EC2",
        "EC2_LINUX",
        "EC2_WINDOWS",
        "FARGATE_LINUX",
        "HYBRID_LINUX",
    ];

    /// The access policy EKS Auto Mode's nodes need on their entry.
    pub const AUTO_NODE_POLICY: &'static str =
        "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy";

    /// The entry a custom Auto Mode NodeClass's node role needs: type `EC2` with
    /// AmazonEKSAutoNodePolicy on the whole cluster (EKS user guide, "Create a Node Class
    /// for Amazon EKS").
    pub fn for_auto_mode_nodes(role_arn: &str) -> AccessEntry {
        AccessEntry {
            principal_arn: role_arn.to_owned(),
            entry_type: "EC2".into(),
            access_policies: vec![AccessPolicy {
                policy_arn: Self::AUTO_NODE_POLICY.into(),
                scope: "cluster".into(),
                ..AccessPolicy::default()
            }],
            ..AccessEntry::default()
        }
    }

    /// A person or tool's entry, as the page adds one: cluster-admin on the whole cluster.
    pub fn admin(principal_arn: &str) -> AccessEntry {
        AccessEntry {
            principal_arn: principal_arn.to_owned(),
            access_policies: vec![AccessPolicy {
                policy_arn: "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
                    .into(),
                scope: "cluster".into(),
                ..AccessPolicy::default()
            }],
            ..AccessEntry::default()
        }
    }
}

/// An EKS access policy associated with an access entry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AccessPolicy {
    /// `arn:aws:eks::aws:cluster-access-policy/…`.
    #[serde(default)]
    pub policy_arn: String,
    /// `cluster` or `namespace`.
    #[serde(default)]
    pub scope: String,
    /// The namespaces, for a `namespace` scope.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub namespaces: Vec<String>,
    /// Keys the studio does not model, kept as imported.
    #[serde(default, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

declare_fields! {
    AccessPolicy;
    ARN: fields::ACCESS_POLICY, "policy_arn", "Access policy ARN";
    SCOPE: fields::ACCESS_POLICY, "scope", "Scope";
    NAMESPACES: fields::ACCESS_POLICY, "namespaces", "Namespaces";
}

/// EKS Auto Mode: AWS runs the nodes, from built-in node pools and any NodePools on its
/// `eks.amazonaws.com` NodeClass.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AutoMode {
    /// Auto Mode on.
    #[serde(default)]
    pub enabled: bool,
    /// The built-in node pools (`general-purpose`, `system`); `None` is eksctl's default
    /// (both), an empty list none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_pools: Option<Vec<String>>,
    /// The nodes' IAM role ARN; empty: eksctl creates one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub node_role_arn: String,
    /// The permissions boundary of the role eksctl creates; empty: none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub permissions_boundary_arn: String,
}

declare_fields! {
    AutoMode;
    ENABLED: fields::AUTO_MODE, "enabled", "EKS Auto Mode (AWS launches and runs the nodes)";
    BUILT_IN_POOLS: fields::AUTO_MODE, "node_pools", "Auto Mode built-in node pools";
    NODE_ROLE: fields::AUTO_MODE, "node_role_arn", "Auto Mode node role ARN";
    BOUNDARY: fields::AUTO_MODE, "permissions_boundary_arn", "Auto Mode node role permissions boundary";
}

impl AutoMode {
    /// The built-in node pools Auto Mode knows (eksctl `AutoModeKnownNodePools`).
    pub const NODE_POOLS: [&'static str; 2] = ["general-purpose", "system"];
}

impl ClusterSettings {
    /// Whether Auto Mode is on.
    pub fn auto_mode_enabled(&self) -> bool {
        self.auto_mode.as_ref().is_some_and(|auto| auto.enabled)
    }

    /// Whether Auto Mode is on with a built-in node pool, whose nodes run pods such as
    /// controllers (`general-purpose` untainted, `system` tainted `CriticalAddonsOnly`).
    pub fn auto_mode_runs_pods(&self) -> bool {
        self.auto_mode.as_ref().is_some_and(|auto| {
            auto.enabled
                && auto
                    .node_pools
                    .as_ref()
                    .is_none_or(|pools| !pools.is_empty())
        })
    }
}

/// A new VPC created by eksctl, or an existing one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "mode",
    rename_all = "kebab-case",
    try_from = "tagged::NetworkFields"
)]
pub enum Network {
    /// eksctl creates the VPC with subnets in these availability zones.
    NewVpc {
        /// Availability zones for the cluster's subnets (at least two).
        availability_zones: Vec<String>,
    },
    /// The cluster goes into a VPC that already exists.
    ExistingVpc {
        /// VPC id, `vpc-…`.
        vpc_id: String,
        /// Public subnets, keyed by a local name.
        #[serde(default)]
        public_subnets: Vec<Subnet>,
        /// Private subnets, keyed by a local name.
        #[serde(default)]
        private_subnets: Vec<Subnet>,
    },
}

declare_fields! {
    Network;
    VPC_MODE: fields::NETWORK, "mode", "VPC";
    VPC_ID: fields::NETWORK, "vpc_id", "VPC ID";
    AVAILABILITY_ZONES: fields::NETWORK, "availability_zones", "Availability zones";
}

/// One subnet of an existing VPC.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Subnet {
    /// The local name eksctl uses as the map key (e.g. `private-one`).
    pub name: String,
    /// Subnet id, `subnet-…`.
    pub id: String,
    /// The subnet's availability zone, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability_zone: Option<String>,
    /// Keys the studio does not model (e.g. `cidr`), kept as imported.
    #[serde(default, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

declare_fields! {
    Subnet;
    NAME: fields::SUBNET, "name", "Subnet name";
    ID: fields::SUBNET, "id", "Subnet ID";
    ZONE: fields::SUBNET, "availability_zone", "Subnet availability zone";
}

/// An EKS managed node group.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeGroup {
    /// Node group name, unique in the cluster.
    pub name: String,
    /// EC2 instance type, e.g. `p5.48xlarge` (`instanceType`).
    #[serde(default)]
    pub instance_type: String,
    /// Several instance types (`instanceTypes`), e.g. for Spot; exclusive with `instance_type`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instance_types: Vec<String>,
    /// AMI family, e.g. `AmazonLinux2023` (eksctl's default when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ami_family: Option<String>,
    /// Prefix of the instances' names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_prefix: Option<String>,
    /// Nodes get private addresses only.
    #[serde(default)]
    pub private_networking: bool,
    /// Attach Elastic Fabric Adapter interfaces.
    #[serde(default)]
    pub efa_enabled: bool,
    /// Smallest number of nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_size: Option<u32>,
    /// Number of nodes to start with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desired_capacity: Option<u32>,
    /// Largest number of nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_size: Option<u32>,
    /// Where the group's nodes may launch.
    #[serde(default)]
    pub placement: GroupPlacement,
    /// How the group's instances are paid for.
    #[serde(default)]
    pub capacity: Capacity,
    /// A Capacity Block's window and what the training run needs of it, as the user knows
    /// them (the studio's own: eksctl has no such field). EC2's answer wins when live
    /// checks ran.
    #[serde(default, skip_serializing_if = "BlockWindow::is_empty")]
    pub block_window: BlockWindow,
    /// An existing EC2 placement group the instances launch into (eksctl
    /// `placement.groupName`); empty leaves it to eksctl, which makes a cluster placement
    /// group for an EFA group that uses no reservation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub placement_group: String,
    /// Stripe the local NVMe instance store into one RAID0 volume (AL2023 `NodeConfig`).
    #[serde(default)]
    pub local_nvme_raid0: bool,
    /// IAM add-on policies attached to the node role.
    #[serde(default)]
    pub addon_policies: AddonPolicies,
    /// Let EKS replace unhealthy nodes.
    #[serde(default)]
    pub node_repair: bool,
    /// Auto-repair's limits and per-condition actions (eksctl `nodeRepairConfig`).
    #[serde(default, skip_serializing_if = "NodeRepairSettings::is_empty")]
    pub node_repair_config: NodeRepairSettings,
    /// Kubernetes labels on the nodes.
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub labels: Labels,
    /// Taints on the nodes, e.g. `nvidia.com/gpu` so only GPU pods land there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub taints: Vec<NodeTaint>,
    /// Keys the studio does not model (e.g. `volumeSize`, `tags`), kept as imported.
    #[serde(default, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

declare_fields! {
    NodeGroup;
    NAME: fields::NODE_GROUP, "name", "Node group name";
    INSTANCE_TYPE: fields::NODE_GROUP, "instance_type", "Instance type";
    INSTANCE_TYPES: fields::NODE_GROUP, "instance_types", "Instance types (several, instead of one)";
    INSTANCE_PREFIX: fields::NODE_GROUP, "instance_prefix", "Instance name prefix";
    ADDON_POLICIES_FIELD: fields::NODE_GROUP, "addon_policies", "IAM add-on policies";
    AMI_FAMILY: fields::NODE_GROUP, "ami_family", "AMI family";
    CUSTOM_AMI: fields::NODE_GROUP, "extra.ami", "Custom AMI ID";
    MIN_SIZE: fields::NODE_GROUP, "min_size", "Minimum size";
    DESIRED_CAPACITY: fields::NODE_GROUP, "desired_capacity", "Desired capacity";
    MAX_SIZE: fields::NODE_GROUP, "max_size", "Maximum size";
    EFA: fields::NODE_GROUP, "efa_enabled", "EFA (Elastic Fabric Adapter)";
    PRIVATE_NETWORKING: fields::NODE_GROUP, "private_networking", "Private networking";
    LOCAL_NVME_RAID0: fields::NODE_GROUP, "local_nvme_raid0", "Local NVMe as RAID0";
    NODE_REPAIR: fields::NODE_GROUP, "node_repair", "Node auto-repair";
    LABELS: fields::NODE_GROUP, "labels", "Labels";
    TAINTS: fields::NODE_GROUP, "taints", "Taints";
    CAPACITY: fields::NODE_GROUP, "capacity", "Capacity type";
    RESERVATION_ID: fields::NODE_GROUP, "capacity.reservation_id", "Capacity reservation ID";
    BLOCK_STARTS: fields::NODE_GROUP, "block_window.starts", "Block starts (UTC)";
    BLOCK_ENDS: fields::NODE_GROUP, "block_window.ends", "Block ends (UTC)";
    BLOCK_CHECKPOINT: fields::NODE_GROUP, "block_window.checkpoint_minutes", "Checkpoint every (minutes)";
    BLOCK_NEEDED_UNTIL: fields::NODE_GROUP, "block_window.needed_until", "Training needs it until (UTC)";
    PLACEMENT: fields::NODE_GROUP, "placement", "Placement";
    PLACEMENT_SUBNETS: fields::NODE_GROUP, "placement.subnets", "Subnets";
    PLACEMENT_ZONES: fields::NODE_GROUP, "placement.availability_zones", "Availability zone";
    PLACEMENT_GROUP: fields::NODE_GROUP, "placement_group", "Placement group";
    REPAIR_SETTINGS: fields::NODE_GROUP, "node_repair_config", "Node auto-repair settings";
}

/// A node taint of a managed node group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeTaint {
    /// Taint key.
    pub key: String,
    /// Optional value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// `NoSchedule`, `PreferNoSchedule` or `NoExecute`.
    pub effect: String,
}

/// Where a node group's instances may be launched.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    try_from = "tagged::PlacementFields"
)]
pub enum GroupPlacement {
    /// Any of the cluster's subnets.
    #[default]
    Cluster,
    /// Only these subnets (ids or local names of an existing VPC).
    Subnets {
        /// Subnet ids or local names.
        subnets: Vec<String>,
    },
    /// Only these availability zones.
    AvailabilityZones {
        /// Availability zone names.
        availability_zones: Vec<String>,
    },
}

/// How a node group's instances are obtained.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    try_from = "tagged::CapacityFields"
)]
pub enum Capacity {
    /// Regular On-Demand instances.
    #[default]
    OnDemand,
    /// An On-Demand Capacity Reservation (ODCR).
    Reservation {
        /// Capacity reservation id, `cr-…`.
        reservation_id: String,
    },
    /// A Capacity Block for ML (`marketType: capacity-block`).
    CapacityBlock {
        /// Capacity reservation id of the block, `cr-…`.
        reservation_id: String,
    },
    /// Spot instances.
    Spot,
}

/// When a Capacity Block runs, and what the training run on it needs. Times are UTC, as
/// `2026-12-10`, `2026-12-10 11:30` or RFC 3339 (`2026-12-10T11:30:00Z`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockWindow {
    /// When the block starts.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub starts: String,
    /// When it ends.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ends: String,
    /// How often the training run writes a checkpoint, in minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_minutes: Option<u32>,
    /// Until when the training run needs the nodes.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub needed_until: String,
}

impl BlockWindow {
    /// Whether nothing is said.
    pub fn is_empty(&self) -> bool {
        *self == BlockWindow::default()
    }
}

/// How far node auto-repair goes: EKS stops repairing above the unhealthy threshold
/// (a count or a percentage, not both), repairs at most so many nodes at once (likewise),
/// and acts per condition as the overrides say. Unset values are EKS's defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeRepairSettings {
    /// Unhealthy nodes, in percent, above which repairs stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_unhealthy_node_threshold_percentage: Option<u32>,
    /// Unhealthy nodes, as a count, above which repairs stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_unhealthy_node_threshold_count: Option<u32>,
    /// Most nodes repaired at once, in percent of the unhealthy ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_parallel_nodes_repaired_percentage: Option<u32>,
    /// Most nodes repaired at once, as a count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_parallel_nodes_repaired_count: Option<u32>,
    /// Per-condition repair actions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node_repair_config_overrides: Vec<RepairOverride>,
}

declare_fields! {
    NodeRepairSettings;
    UNHEALTHY_COUNT: fields::REPAIR, "max_unhealthy_node_threshold_count", "Stop repairs above unhealthy nodes (count)";
    UNHEALTHY_PERCENTAGE: fields::REPAIR, "max_unhealthy_node_threshold_percentage", "Stop repairs above unhealthy nodes (%)";
    PARALLEL_COUNT: fields::REPAIR, "max_parallel_nodes_repaired_count", "Nodes repaired at once (count)";
    PARALLEL_PERCENTAGE: fields::REPAIR, "max_parallel_nodes_repaired_percentage", "Nodes repaired at once (%)";
    REPAIR_OVERRIDES: fields::REPAIR, "node_repair_config_overrides", "Repair overrides";
}

impl NodeRepairSettings {
    /// Whether nothing is set (EKS's defaults throughout).
    pub fn is_empty(&self) -> bool {
        *self == NodeRepairSettings::default()
    }
}

/// What auto-repair does for one condition the node monitoring agent reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RepairOverride {
    /// The condition, e.g. `AcceleratedHardwareReady`.
    #[serde(default)]
    pub node_monitoring_condition: String,
    /// The reason, e.g. `NvidiaXID13Error`.
    #[serde(default)]
    pub node_unhealthy_reason: String,
    /// Minutes to wait before repairing.
    #[serde(default)]
    pub min_repair_wait_time_mins: u32,
    /// `Replace`, `Reboot` or `NoAction`.
    #[serde(default)]
    pub repair_action: String,
}

declare_fields! {
    RepairOverride;
    REPAIR_CONDITION: fields::REPAIR_OVERRIDE, "node_monitoring_condition", "Condition";
    REPAIR_REASON: fields::REPAIR_OVERRIDE, "node_unhealthy_reason", "Reason";
    REPAIR_WAIT: fields::REPAIR_OVERRIDE, "min_repair_wait_time_mins", "Wait (minutes)";
    REPAIR_ACTION: fields::REPAIR_OVERRIDE, "repair_action", "Action";
}

/// IAM add-on policies eksctl attaches to a node group's role.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AddonPolicies {
    /// Cluster Autoscaler permissions.
    #[serde(default)]
    pub auto_scaler: bool,
    /// CloudWatch agent permissions.
    #[serde(default)]
    pub cloud_watch: bool,
    /// EBS CSI driver permissions.
    #[serde(default)]
    pub ebs: bool,
    /// FSx for Lustre CSI driver permissions.
    #[serde(default)]
    pub fsx: bool,
}

declare_fields! {
    AddonPolicies;
    AUTO_SCALER_POLICY: fields::ADDON_POLICIES, "auto_scaler", "Cluster Autoscaler";
    CLOUD_WATCH_POLICY: fields::ADDON_POLICIES, "cloud_watch", "CloudWatch";
    EBS_POLICY: fields::ADDON_POLICIES, "ebs", "EBS";
    FSX_POLICY: fields::ADDON_POLICIES, "fsx", "FSx for Lustre";
}

/// An EKS add-on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Addon {
    /// Add-on name, e.g. `eks-node-monitoring-agent`.
    pub name: String,
    /// How to resolve conflicts with existing resources (`overwrite`, `none`, `preserve`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolve_conflicts: Option<String>,
    /// IAM policy ARNs attached to the add-on's role (IRSA: the role trusts the cluster's
    /// OIDC provider).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attach_policy_arns: Vec<String>,
    /// EKS Pod Identity associations EKS creates with the add-on (`podIdentityAssociations`),
    /// for add-ons whose configuration supports them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pod_identity_associations: Vec<PodIdentityAssociation>,
    /// Keys the studio does not model (e.g. `version`), kept as imported.
    #[serde(default, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

declare_fields! {
    Addon;
    NAME: fields::ADDON, "name", "Add-on name";
    RESOLVE_CONFLICTS: fields::ADDON, "resolve_conflicts", "Resolve conflicts";
    VERSION: fields::ADDON, "version", "Version";
    POLICY_ARNS: fields::ADDON, "attach_policy_arns", "IAM policy ARNs";
    ASSOCIATIONS: fields::ADDON, "pod_identity_associations", "Pod Identity associations";
}

/// An EKS Pod Identity association: a Kubernetes service account and the IAM role eksctl
/// makes for it (trusting `pods.eks.amazonaws.com`) with these policies.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PodIdentityAssociation {
    /// The service account's namespace, e.g. `kube-system`.
    #[serde(default)]
    pub namespace: String,
    /// The service account, e.g. `fsx-csi-controller-sa`.
    #[serde(default)]
    pub service_account_name: String,
    /// Managed or customer policy ARNs attached to the role.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permission_policy_arns: Vec<String>,
    /// Keys the studio does not model (`roleARN`, an inline `permissionPolicy`, …), kept as
    /// imported.
    #[serde(default, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

impl PodIdentityAssociation {
    /// `namespace/name` of the service account.
    pub fn service_account(&self) -> String {
        format!("{}/{}", self.namespace, self.service_account_name)
    }
}

impl Network {
    /// The cluster's zones: a new VPC's, or an existing VPC's subnets' (private first), each
    /// once, in the order they appear.
    pub fn zones(&self) -> Vec<String> {
        match self {
            Network::NewVpc { availability_zones } => availability_zones.clone(),
            Network::ExistingVpc {
                public_subnets,
                private_subnets,
                ..
            } => {
                let mut zones: Vec<String> = Vec::new();
                let named = private_subnets
                    .iter()
                    .chain(public_subnets)
                    .filter_map(|subnet| subnet.availability_zone.clone());
                for zone in named {
                    if !zones.contains(&zone) {
                        zones.push(zone);
                    }
                }
                zones
            }
        }
    }

    /// Whether a node group's subnet reference names a subnet this network lists: by id or
    /// local name in an existing VPC; in a new VPC by zone, the name eksctl gives each of
    /// the subnets it creates (`pkg/vpc/vpc.go` `SetSubnets`).
    pub fn lists_subnet(&self, reference: &str) -> bool {
        match self {
            Network::NewVpc { availability_zones } => {
                availability_zones.iter().any(|zone| zone == reference)
            }
            Network::ExistingVpc {
                public_subnets,
                private_subnets,
                ..
            } => public_subnets
                .iter()
                .chain(private_subnets)
                .any(|subnet| subnet.id == reference || subnet.name == reference),
        }
    }
}

impl Spec {
    /// The subnet ids node groups name in an existing VPC that the cluster's subnets do
    /// not list, with the path of each use. eksctl asks EC2 for such a subnet and uses it
    /// when it is in the cluster's VPC (`pkg/vpc/vpc.go` `selectNodeGroupSubnetsFromIDs`).
    pub fn unlisted_group_subnet_ids(&self) -> Vec<(String, &str)> {
        if !matches!(self.network, Network::ExistingVpc { .. }) {
            return Vec::new();
        }
        let mut found: Vec<(String, &str)> = Vec::new();
        for (index, group) in self.node_groups.iter().enumerate() {
            let GroupPlacement::Subnets { subnets } = &group.placement else {
                continue;
            };
            for (subnet_index, subnet) in subnets.iter().enumerate() {
                if !self.network.lists_subnet(subnet)
                    && crate::model::ids::SubnetId::check(subnet).is_ok()
                {
                    found.push((
                        format!("node_groups[{index}].placement.subnets[{subnet_index}]"),
                        subnet,
                    ));
                }
            }
        }
        found
    }
}

impl Default for Network {
    fn default() -> Network {
        Network::NewVpc {
            availability_zones: Vec::new(),
        }
    }
}

/// Most node groups, and most Karpenter NodePools, a design may have to be checked against
/// AWS or deployed: ten times EKS's default quota of 30 managed node groups per cluster.
/// Past it a design is no cluster anyone runs, and its checks and deploy would only cost.
pub const MOST_NODE_GROUPS: usize = 300;

/// Most add-ons a design may name to be planned against a running cluster (each asks EKS
/// which versions it offers): more than EKS's whole catalog of add-ons.
pub const MOST_ADDONS: usize = 64;

impl Spec {
    /// The CIDR block of the VPC eksctl creates (`vpc.cidr`, kept with the keys the studio
    /// writes as given); `None` when unset (eksctl's default, 192.168.0.0/16).
    pub fn vpc_cidr(&self) -> Option<&str> {
        self.eksctl_extra.get("vpc")?.get("cidr")?.as_str()
    }

    /// Sets `vpc.cidr` as typed, or removes it for a blank `cidr`, keeping the rest of `vpc`.
    pub fn set_vpc_cidr(&mut self, cidr: &str) {
        let vpc = self
            .eksctl_extra
            .entry(Value::from("vpc"))
            .or_insert_with(|| Value::Mapping(Mapping::new()));
        if !vpc.is_mapping() {
            *vpc = Value::Mapping(Mapping::new());
        }
        if let Some(vpc) = vpc.as_mapping_mut() {
            if cidr.trim().is_empty() {
                vpc.remove("cidr");
            } else {
                vpc.insert(Value::from("cidr"), Value::from(cidr));
            }
        }
        if self
            .eksctl_extra
            .get("vpc")
            .and_then(Value::as_mapping)
            .is_some_and(Mapping::is_empty)
        {
            self.eksctl_extra.remove("vpc");
        }
    }

    /// Why the design is too large to check against AWS or deploy, when it is: more node
    /// groups or NodePools than [`MOST_NODE_GROUPS`].
    pub fn beyond_what_eks_runs(&self) -> Option<String> {
        let pools = self
            .karpenter
            .as_ref()
            .map_or(0, |karpenter| karpenter.node_pools.len())
            + self.auto_mode_pools.node_pools.len();
        if self.node_groups.len() > MOST_NODE_GROUPS {
            Some(format!(
                "the design has {} node groups; EKS allows 30 managed node groups per cluster unless the quota is raised, and the studio checks and deploys at most {MOST_NODE_GROUPS}",
                self.node_groups.len()
            ))
        } else if pools > MOST_NODE_GROUPS {
            Some(format!(
                "the design has {pools} NodePools; the studio checks and deploys at most {MOST_NODE_GROUPS}"
            ))
        } else if self.addons.len() > MOST_ADDONS {
            Some(format!(
                "the design has {} add-ons; EKS's catalog has fewer than {MOST_ADDONS}, and the studio plans at most {MOST_ADDONS}",
                self.addons.len()
            ))
        } else {
            None
        }
    }

    /// Reads a spec from its JSON form (`studio.json`).
    pub fn from_json(text: &str) -> Result<Spec, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The same spec without Karpenter (what `cluster.yaml` alone describes).
    pub fn without_karpenter(mut self) -> Spec {
        self.karpenter = None;
        self
    }

    /// Writes the spec as pretty JSON (`studio.json`).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a spec always serialises to JSON")
    }
}

/// How the tagged enums above are read. serde reads an internally tagged enum by first
/// copying the whole object into a buffer (the tag may come last), which made those
/// buffers most of the cost of reading a spec. Here every variant's fields are read side
/// by side in one pass and the tag picks the variant; a missing tag, an unknown tag or a
/// variant's missing field is refused with serde's own words for it.
mod tagged {
    use serde::Deserialize;
    use serde::de::Error as _;

    use super::{Capacity, GroupPlacement, Network, Subnet};

    /// A variant's required field that the object lacks.
    pub(super) struct Missing(&'static str);

    impl std::fmt::Display for Missing {
        fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            // The message serde gives for a missing field.
            std::fmt::Display::fmt(&serde_json::Error::missing_field(self.0), formatter)
        }
    }

    fn required<T>(value: Option<T>, field: &'static str) -> Result<T, Missing> {
        value.ok_or(Missing(field))
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub(super) enum NetworkMode {
        NewVpc,
        ExistingVpc,
    }

    #[derive(Deserialize)]
    pub(super) struct NetworkFields {
        mode: NetworkMode,
        availability_zones: Option<Vec<String>>,
        vpc_id: Option<String>,
        public_subnets: Option<Vec<Subnet>>,
        private_subnets: Option<Vec<Subnet>>,
    }

    impl TryFrom<NetworkFields> for Network {
        type Error = Missing;

        fn try_from(fields: NetworkFields) -> Result<Network, Missing> {
            Ok(match fields.mode {
                NetworkMode::NewVpc => Network::NewVpc {
                    availability_zones: required(fields.availability_zones, "availability_zones")?,
                },
                NetworkMode::ExistingVpc => Network::ExistingVpc {
                    vpc_id: required(fields.vpc_id, "vpc_id")?,
                    public_subnets: fields.public_subnets.unwrap_or_default(),
                    private_subnets: fields.private_subnets.unwrap_or_default(),
                },
            })
        }
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub(super) enum PlacementKind {
        Cluster,
        Subnets,
        AvailabilityZones,
    }

    #[derive(Deserialize)]
    pub(super) struct PlacementFields {
        kind: PlacementKind,
        subnets: Option<Vec<String>>,
        availability_zones: Option<Vec<String>>,
    }

    impl TryFrom<PlacementFields> for GroupPlacement {
        type Error = Missing;

        fn try_from(fields: PlacementFields) -> Result<GroupPlacement, Missing> {
            Ok(match fields.kind {
                PlacementKind::Cluster => GroupPlacement::Cluster,
                PlacementKind::Subnets => GroupPlacement::Subnets {
                    subnets: required(fields.subnets, "subnets")?,
                },
                PlacementKind::AvailabilityZones => GroupPlacement::AvailabilityZones {
                    availability_zones: required(fields.availability_zones, "availability_zones")?,
                },
            })
        }
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub(super) enum CapacityKind {
        OnDemand,
        Reservation,
        CapacityBlock,
        Spot,
    }

    #[derive(Deserialize)]
    pub(super) struct CapacityFields {
        kind: CapacityKind,
        reservation_id: Option<String>,
    }

    impl TryFrom<CapacityFields> for Capacity {
        type Error = Missing;

        fn try_from(fields: CapacityFields) -> Result<Capacity, Missing> {
            Ok(match fields.kind {
                CapacityKind::OnDemand => Capacity::OnDemand,
                CapacityKind::Reservation => Capacity::Reservation {
                    reservation_id: required(fields.reservation_id, "reservation_id")?,
                },
                CapacityKind::CapacityBlock => Capacity::CapacityBlock {
                    reservation_id: required(fields.reservation_id, "reservation_id")?,
                },
                CapacityKind::Spot => Capacity::Spot,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, String> {
        serde_json::from_str(json).map_err(|error| error.to_string())
    }

    #[test]
    fn tagged_enums_read_with_the_tag_anywhere() {
        let network: Network =
            read(r#"{"private_subnets":[{"name":"a","id":"subnet-1"}],"vpc_id":"vpc-1","mode":"existing-vpc"}"#)
                .unwrap();
        assert_eq!(
            network,
            Network::ExistingVpc {
                vpc_id: "vpc-1".into(),
                public_subnets: Vec::new(),
                private_subnets: vec![Subnet {
                    name: "a".into(),
                    id: "subnet-1".into(),
                    ..Subnet::default()
                }],
            }
        );
        let capacity: Capacity =
            read(r#"{"reservation_id":"cr-1","kind":"capacity-block"}"#).unwrap();
        assert_eq!(
            capacity,
            Capacity::CapacityBlock {
                reservation_id: "cr-1".into()
            }
        );
        let placement: GroupPlacement = read(r#"{"kind":"cluster","subnets":["x"]}"#).unwrap();
        assert_eq!(placement, GroupPlacement::Cluster);
    }

    #[test]
    fn tagged_enums_refuse_like_serde() {
        let missing_tag = read::<Capacity>(r#"{"reservation_id":"cr-1"}"#).unwrap_err();
        assert!(
            missing_tag.starts_with("missing field `kind`"),
            "{missing_tag}"
        );
        let unknown = read::<Network>(r#"{"mode":"shared-vpc"}"#).unwrap_err();
        assert!(
            unknown
                .starts_with("unknown variant `shared-vpc`, expected `new-vpc` or `existing-vpc`"),
            "{unknown}"
        );
        let missing_field = read::<GroupPlacement>(r#"{"kind":"subnets"}"#).unwrap_err();
        assert!(
            missing_field.starts_with("missing field `subnets`"),
            "{missing_field}"
        );
        let wrong_type =
            read::<Network>(r#"{"mode":"new-vpc","availability_zones":"us-east-1a"}"#).unwrap_err();
        assert!(
            wrong_type.starts_with("invalid type: string"),
            "{wrong_type}"
        );
    }
}
