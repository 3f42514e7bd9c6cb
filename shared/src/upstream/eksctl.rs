//! Field names and nesting follow `schemas/eksctl-clusterconfig-v1alpha5.schema.json`;
//! every field is optional on output so only what the spec sets is written, and a field of
//! another shape reads as nothing (see [`lenient`]). Which spec field each one carries is
//! in [`crate::documents::cluster`].

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};

/// Reads a value of the expected shape, or the type's default for any other shape: import
/// then keeps the value among its leftovers (and lint reports it) rather than refusing the
/// whole file for one field.
fn lenient<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    let value = yaml_serde::Value::deserialize(deserializer)?;
    Ok(yaml_serde::from_value(value).unwrap_or_default())
}

/// The eksctl API version this studio writes.
pub const API_VERSION: &str = "eksctl.io/v1alpha5";

/// `ClusterConfig`, the document `eksctl create cluster -f` reads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterConfig {
    /// Always [`API_VERSION`].
    #[serde(default, deserialize_with = "lenient")]
    pub api_version: String,
    /// Always `ClusterConfig`.
    #[serde(default, deserialize_with = "lenient")]
    pub kind: String,
    /// Name, region and version.
    #[serde(default, deserialize_with = "lenient")]
    pub metadata: ClusterMeta,
    /// Zones for a new VPC's subnets.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub availability_zones: Option<Vec<String>>,
    /// Cluster IAM settings.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub iam: Option<ClusterIam>,
    /// An existing VPC.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub vpc: Option<Vpc>,
    /// EKS managed node groups.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub managed_node_groups: Vec<ManagedNodeGroup>,
    /// EKS add-ons.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub addons: Vec<Addon>,
    /// EKS Auto Mode.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub auto_mode_config: Option<AutoModeConfig>,
    /// Who may reach the Kubernetes API: authentication mode and access entries.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub access_config: Option<AccessConfig>,
}

/// `accessConfig` (eksctl `pkg/apis/eksctl.io/v1alpha5/types.go`, `access_entry.go`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessConfig {
    /// `CONFIG_MAP`, `API` or `API_AND_CONFIG_MAP` (eksctl's default).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub authentication_mode: Option<String>,
    /// Whether the identity creating the cluster gets cluster-admin (EKS's default: yes).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub bootstrap_cluster_creator_admin_permissions: Option<bool>,
    /// Access entries created with the cluster.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub access_entries: Vec<AccessEntry>,
}

/// One entry of `accessConfig.accessEntries`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessEntry {
    /// The IAM principal (role or user) the entry lets in.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "String::is_empty",
        rename = "principalARN"
    )]
    pub principal_arn: String,
    /// `STANDARD` (the default), `EC2` (Auto Mode nodes), `EC2_LINUX`, `EC2_WINDOWS`,
    /// `FARGATE_LINUX` or `HYBRID_LINUX`.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "String::is_empty"
    )]
    pub r#type: String,
    /// Kubernetes groups the principal is mapped into.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub kubernetes_groups: Vec<String>,
    /// Kubernetes user name of the principal.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "String::is_empty"
    )]
    pub kubernetes_username: String,
    /// EKS access policies associated with the entry.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub access_policies: Vec<AccessPolicy>,
}

/// One entry of an access entry's `accessPolicies`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessPolicy {
    /// An EKS cluster access policy, `arn:aws:eks::aws:cluster-access-policy/…`.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "String::is_empty",
        rename = "policyARN"
    )]
    pub policy_arn: String,
    /// Where the policy applies.
    #[serde(default, deserialize_with = "lenient")]
    pub access_scope: AccessScope,
}

/// An access policy's `accessScope`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessScope {
    /// `cluster` or `namespace`.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "String::is_empty"
    )]
    pub r#type: String,
    /// The namespaces, for `namespace`.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub namespaces: Vec<String>,
}

/// `autoModeConfig` (eksctl `pkg/apis/eksctl.io/v1alpha5/auto_mode.go`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AutoModeConfig {
    /// Auto Mode on (eksctl's default: off).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub enabled: Option<bool>,
    /// The role of the nodes Auto Mode launches; eksctl creates one when absent.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none",
        rename = "nodeRoleARN"
    )]
    pub node_role_arn: Option<String>,
    /// The permissions boundary of the node role eksctl creates.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none",
        rename = "permissionsBoundaryARN"
    )]
    pub permissions_boundary_arn: Option<String>,
    /// The built-in node pools to create (`general-purpose`, `system`); absent means
    /// both, empty means none.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub node_pools: Option<Vec<String>>,
}

/// `metadata` of a `ClusterConfig`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterMeta {
    /// Cluster name.
    #[serde(default, deserialize_with = "lenient")]
    pub name: String,
    /// AWS region.
    #[serde(default, deserialize_with = "lenient")]
    pub region: String,
    /// Kubernetes version, written as a string (`"1.32"`).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub version: Option<String>,
    /// Tags on everything eksctl creates.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub tags: Option<BTreeMap<String, String>>,
}

/// Cluster-level `iam`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterIam {
    /// Create the OIDC provider.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none",
        rename = "withOIDC"
    )]
    pub with_oidc: Option<bool>,
    /// Pod Identity associations created after the cluster.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub pod_identity_associations: Vec<PodIdentityAssociation>,
}

/// One entry of `iam.podIdentityAssociations` or of an add-on's `podIdentityAssociations`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodIdentityAssociation {
    /// The service account's namespace.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "String::is_empty"
    )]
    pub namespace: String,
    /// The service account.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "String::is_empty"
    )]
    pub service_account_name: String,
    /// Policies attached to the role eksctl creates.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Vec::is_empty",
        rename = "permissionPolicyARNs"
    )]
    pub permission_policy_arns: Vec<String>,
}

/// `vpc`: an existing VPC and its subnets.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Vpc {
    /// VPC id.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub id: Option<String>,
    /// Public and private subnets by local name.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub subnets: Option<VpcSubnets>,
}

/// `vpc.subnets`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VpcSubnets {
    /// Public subnets by local name.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub public: BTreeMap<String, SubnetSpec>,
    /// Private subnets by local name.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub private: BTreeMap<String, SubnetSpec>,
}

/// One subnet under `vpc.subnets.public|private`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubnetSpec {
    /// Subnet id.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub id: Option<String>,
    /// Availability zone.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub az: Option<String>,
}

/// One entry of `managedNodeGroups`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManagedNodeGroup {
    /// Node group name.
    #[serde(default, deserialize_with = "lenient")]
    pub name: String,
    /// Single instance type.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub instance_type: Option<String>,
    /// Several instance types (exclusive with `instance_type`).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub instance_types: Option<Vec<String>>,
    /// AMI family.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub ami_family: Option<String>,
    /// Prefix of instance names.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub instance_prefix: Option<String>,
    /// Private addresses only.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub private_networking: Option<bool>,
    /// Attach EFA interfaces.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub efa_enabled: Option<bool>,
    /// Spot instances.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub spot: Option<bool>,
    /// Minimum size.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_size: Option<u32>,
    /// Desired size.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub desired_capacity: Option<u32>,
    /// Maximum size.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_size: Option<u32>,
    /// Subnets (ids or local names) the group is limited to.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub subnets: Option<Vec<String>>,
    /// Availability zones the group is limited to.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub availability_zones: Option<Vec<String>>,
    /// ODCR or Capacity Block.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub capacity_reservation: Option<CapacityReservation>,
    /// The placement group the group's instances launch into.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub placement: Option<Placement>,
    /// Market options (Capacity Blocks).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub instance_market_options: Option<InstanceMarketOptions>,
    /// Replaces the node bootstrap; on AL2023 a `NodeConfig` document.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub override_bootstrap_command: Option<String>,
    /// Node group IAM settings.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub iam: Option<NodeGroupIam>,
    /// Node auto-repair.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub node_repair_config: Option<NodeRepairConfig>,
    /// Node labels.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub labels: Option<BTreeMap<String, String>>,
    /// Node taints.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub taints: Option<Vec<Taint>>,
}

/// One entry of a node group's `taints`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Taint {
    /// Taint key. Missing is empty, which eksctl refuses; the rules say so at the taint.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key: String,
    /// Optional value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Effect. Missing is empty, which eksctl refuses; the rules say so at the taint.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub effect: String,
}

/// `capacityReservation`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CapacityReservation {
    /// The reservation to launch into.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub capacity_reservation_target: Option<CapacityReservationTarget>,
}

/// `capacityReservation.capacityReservationTarget`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CapacityReservationTarget {
    /// Reservation id.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none",
        rename = "capacityReservationID"
    )]
    pub capacity_reservation_id: Option<String>,
}

/// `instanceMarketOptions`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstanceMarketOptions {
    /// Only `capacity-block` is accepted by eksctl.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub market_type: Option<String>,
}

/// Node group `iam`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeGroupIam {
    /// Add-on policies.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub with_addon_policies: Option<AddonPolicies>,
}

/// `iam.withAddonPolicies`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddonPolicies {
    /// Cluster Autoscaler.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub auto_scaler: Option<bool>,
    /// CloudWatch.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub cloud_watch: Option<bool>,
    /// EBS CSI.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub ebs: Option<bool>,
    /// FSx for Lustre.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub fsx: Option<bool>,
}

/// `placement` of a node group (eksctl's `Placement`; `spreadLevel` is for Outposts).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Placement {
    /// Name of an existing EC2 placement group.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub group_name: Option<String>,
}

/// `nodeRepairConfig`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeRepairConfig {
    /// Turn auto-repair on.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub enabled: Option<bool>,
    /// Unhealthy nodes, in percent, above which repairs stop.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_unhealthy_node_threshold_percentage: Option<u32>,
    /// Unhealthy nodes, as a count, above which repairs stop.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_unhealthy_node_threshold_count: Option<u32>,
    /// Most nodes repaired at once, in percent of the unhealthy ones.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_parallel_nodes_repaired_percentage: Option<u32>,
    /// Most nodes repaired at once, as a count.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_parallel_nodes_repaired_count: Option<u32>,
    /// Per-condition repair actions and waits.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub node_repair_config_overrides: Option<Vec<NodeRepairConfigOverride>>,
}

/// One entry of `nodeRepairConfig.nodeRepairConfigOverrides`; eksctl writes every key.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeRepairConfigOverride {
    /// The node monitoring agent's condition, e.g. `AcceleratedHardwareReady`.
    #[serde(default, deserialize_with = "lenient")]
    pub node_monitoring_condition: String,
    /// The reason it reports, e.g. `NvidiaXID13Error`.
    #[serde(default, deserialize_with = "lenient")]
    pub node_unhealthy_reason: String,
    /// Minutes to wait before repairing.
    #[serde(default, deserialize_with = "lenient")]
    pub min_repair_wait_time_mins: u32,
    /// `Replace`, `Reboot` or `NoAction`.
    #[serde(default, deserialize_with = "lenient")]
    pub repair_action: String,
}

/// One entry of `addons`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Addon {
    /// Add-on name.
    #[serde(default, deserialize_with = "lenient")]
    pub name: String,
    /// Conflict resolution.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub resolve_conflicts: Option<String>,
    /// Policies for the add-on's role.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Vec::is_empty",
        rename = "attachPolicyARNs"
    )]
    pub attach_policy_arns: Vec<String>,
    /// Pod Identity associations EKS creates with the add-on.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub pod_identity_associations: Vec<PodIdentityAssociation>,
}

/// The AL2023 `NodeConfig` passed through `overrideBootstrapCommand`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeConfig {
    /// `node.eks.aws/v1alpha1`.
    pub api_version: String,
    /// `NodeConfig`.
    pub kind: String,
    /// Settings.
    pub spec: NodeConfigSpec,
}

/// `NodeConfig.spec`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeConfigSpec {
    /// Instance settings.
    pub instance: NodeConfigInstance,
}

/// `NodeConfig.spec.instance`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeConfigInstance {
    /// Local instance-store handling.
    pub local_storage: LocalStorage,
}

/// `NodeConfig.spec.instance.localStorage`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocalStorage {
    /// `RAID0` stripes all NVMe instance-store volumes.
    pub strategy: String,
}

impl NodeConfig {
    /// The `NodeConfig` that stripes local NVMe drives into RAID0.
    pub fn local_nvme_raid0() -> NodeConfig {
        NodeConfig {
            api_version: "node.eks.aws/v1alpha1".into(),
            kind: "NodeConfig".into(),
            spec: NodeConfigSpec {
                instance: NodeConfigInstance {
                    local_storage: LocalStorage {
                        strategy: "RAID0".into(),
                    },
                },
            },
        }
    }
}

/// Tag and label prefixes eksctl and AWS put on what they make; not the user's
/// (`pkg/apis/eksctl.io/v1alpha5/types.go`; AWS reserves `aws:`).
const MADE_BY_THE_PEERS: &[&str] = &["alpha.eksctl.io/", "eksctl.cluster.k8s.io/", "aws:"];

/// Whether a tag or label key is one eksctl or AWS put there.
pub fn made_by_the_peers(key: &str) -> bool {
    MADE_BY_THE_PEERS
        .iter()
        .any(|prefix| key.starts_with(prefix))
}
