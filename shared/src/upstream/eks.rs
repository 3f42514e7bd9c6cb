//! A running cluster as EKS and EC2 describe it: the answers of `DescribeCluster`,
//! `DescribeNodegroup` (with the launch template eksctl made for the group),
//! `DescribeAddon`, `DescribeAccessEntry` with `ListAssociatedAccessPolicies`,
//! `DescribePodIdentityAssociation` and `DescribeSubnets`, in the fields the studio reads
//! (EKS API reference; EC2 `DescribeLaunchTemplateVersions`), and eksctl's self-managed
//! node groups as their CloudFormation stacks and Auto Scaling groups hold them. The
//! server fills it from the SDK; `changes::read` turns it into a design.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Everything read of one cluster, and what could not be read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunningCluster {
    /// The region it runs in.
    pub region: String,
    /// `DescribeCluster`.
    pub cluster: EksCluster,
    /// The cluster's and its node groups' subnets (`DescribeSubnets`).
    pub subnets: Vec<RunningSubnet>,
    /// Managed node groups.
    pub node_groups: Vec<EksNodegroup>,
    /// eksctl's self-managed node groups (`nodeGroups`), one stack each; `None` when the
    /// stacks could not be listed (named in `not_read`).
    #[serde(default)]
    pub self_managed: Option<Vec<SelfManagedStack>>,
    /// EKS add-ons.
    pub addons: Vec<EksAddon>,
    /// Access entries with their policies.
    pub access_entries: Vec<EksAccessEntry>,
    /// Pod Identity associations, the add-ons' own among them.
    pub pod_identity_associations: Vec<EksPodIdentityAssociation>,
    /// What could not be read, each with why.
    pub not_read: Vec<NotRead>,
}

/// One thing the studio could not read, by name, with the reason.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotRead {
    /// What (`node group gpu: iam.withAddonPolicies`, `Karpenter NodePools`).
    pub what: String,
    /// Why (`IAM is not read`, `eks:ListAddons was refused: AccessDenied`).
    pub why: String,
}

/// The cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EksCluster {
    /// Its name.
    pub name: String,
    /// Kubernetes version (`1.35`).
    pub version: String,
    /// `ACTIVE`, `CREATING`, …
    pub status: String,
    /// Its tags (eksctl's stack tags among them).
    pub tags: BTreeMap<String, String>,
    /// `resourcesVpcConfig.vpcId`.
    pub vpc_id: String,
    /// `resourcesVpcConfig.subnetIds`, in EKS's order.
    pub subnet_ids: Vec<String>,
    /// `accessConfig.authenticationMode`, when EKS says.
    pub authentication_mode: Option<String>,
    /// `computeConfig.enabled`: EKS Auto Mode.
    pub auto_mode: bool,
    /// `computeConfig.nodePools` (`general-purpose`, `system`).
    pub auto_mode_node_pools: Vec<String>,
    /// `computeConfig.nodeRoleArn`.
    pub auto_mode_node_role_arn: Option<String>,
    /// `resourcesVpcConfig.endpointPublicAccess`, when EKS says.
    #[serde(default)]
    pub endpoint_public_access: Option<bool>,
    /// `resourcesVpcConfig.endpointPrivateAccess`, when EKS says.
    #[serde(default)]
    pub endpoint_private_access: Option<bool>,
    /// `resourcesVpcConfig.publicAccessCidrs`.
    #[serde(default)]
    pub public_access_cidrs: Vec<String>,
    /// The control plane's log types that are on (`logging.clusterLogging`).
    #[serde(default)]
    pub enabled_log_types: Vec<String>,
    /// `upgradePolicy.supportType` (`STANDARD`, `EXTENDED`), when EKS says.
    #[serde(default)]
    pub support_type: Option<String>,
    /// The KMS key of the `encryptionConfig` that encrypts the cluster's secrets.
    #[serde(default)]
    pub secrets_key_arn: Option<String>,
    /// `zonalShiftConfig.enabled`.
    #[serde(default)]
    pub zonal_shift: bool,
}

/// A subnet of the cluster's VPC.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunningSubnet {
    /// `subnet-…`.
    pub id: String,
    /// Its zone's name.
    pub availability_zone: String,
    /// Whether it is public: tagged `kubernetes.io/role/elb`, as eksctl tags the public
    /// subnets it makes, or giving instances public addresses.
    pub public: bool,
    /// Its `alpha.eksctl.io/cluster-name` tag: the cluster whose eksctl stack made it.
    pub eksctl_cluster: Option<String>,
}

/// A managed node group.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EksNodegroup {
    /// Its name.
    pub name: String,
    /// `ACTIVE`, `CREATING`, …
    pub status: String,
    /// `instanceTypes`.
    pub instance_types: Vec<String>,
    /// `amiType` (`AL2023_x86_64_NVIDIA`).
    pub ami_type: String,
    /// `capacityType`: `ON_DEMAND`, `SPOT` or `CAPACITY_BLOCK`.
    pub capacity_type: String,
    /// `scalingConfig.minSize`.
    pub min_size: u32,
    /// `scalingConfig.maxSize`.
    pub max_size: u32,
    /// `scalingConfig.desiredSize`.
    pub desired_size: u32,
    /// Kubernetes labels EKS puts on the nodes.
    pub labels: BTreeMap<String, String>,
    /// Taints, effects as EKS spells them (`NO_SCHEDULE`).
    pub taints: Vec<EksTaint>,
    /// `subnets`.
    pub subnets: Vec<String>,
    /// Its tags (eksctl's stack tags among them).
    pub tags: BTreeMap<String, String>,
    /// What its launch template says, when it has one and it was read.
    pub launch_template: Option<LaunchTemplateFacts>,
    /// `nodeRepairConfig.enabled`.
    pub node_repair: Option<bool>,
    /// `nodeRole`.
    pub node_role: String,
    /// `releaseVersion`: the EKS-optimized AMI's release its nodes run.
    #[serde(default)]
    pub release_version: Option<String>,
    /// `updateConfig.maxUnavailable`.
    #[serde(default)]
    pub max_unavailable: Option<i32>,
    /// `updateConfig.maxUnavailablePercentage`.
    #[serde(default)]
    pub max_unavailable_percentage: Option<i32>,
}

/// One of eksctl's self-managed node groups: the CloudFormation stack eksctl made for it
/// (`DescribeStacks`, `GetTemplate`) and its Auto Scaling group's sizes now
/// (`DescribeAutoScalingGroups`), which `eksctl scale nodegroup` changes without the stack.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SelfManagedStack {
    /// The group's name (the stack's `alpha.eksctl.io/nodegroup-name` tag).
    pub name: String,
    /// The stack's name (`eksctl-CLUSTER-nodegroup-NAME`).
    pub stack_name: String,
    /// The stack's tags.
    pub tags: BTreeMap<String, String>,
    /// The stack's template as CloudFormation returns it (eksctl writes JSON).
    pub template: String,
    /// The Auto Scaling group's sizes, when it was read.
    pub sizes: Option<GroupSizes>,
}

/// An Auto Scaling group's sizes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupSizes {
    /// `MinSize`.
    pub min: u32,
    /// `DesiredCapacity`.
    pub desired: u32,
    /// `MaxSize`.
    pub max: u32,
}

/// A taint as EKS lists it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EksTaint {
    /// Key.
    pub key: String,
    /// Value (EKS answers none as absent).
    pub value: Option<String>,
    /// `NO_SCHEDULE`, `NO_EXECUTE`, `PREFER_NO_SCHEDULE`.
    pub effect: String,
}

/// What a node group's launch template version says that eksctl wrote into it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchTemplateFacts {
    /// A network interface of type `efa`: eksctl's `efaEnabled`.
    pub efa: bool,
    /// `CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId`.
    pub capacity_reservation_id: Option<String>,
    /// `InstanceMarketOptions.MarketType` (`capacity-block`).
    pub market_type: Option<String>,
    /// `Placement.GroupName`.
    pub placement_group: Option<String>,
    /// `ImageId`: the AMI of a group whose AMI type is `CUSTOM`.
    pub image_id: Option<String>,
    /// The first EBS volume of `BlockDeviceMappings`, where eksctl writes a group's
    /// `volume*` keys.
    #[serde(default)]
    pub volume: Option<VolumeFacts>,
    /// `MetadataOptions.HttpTokens` is `required`: eksctl's `disableIMDSv1`.
    #[serde(default)]
    pub imds_v1_disabled: Option<bool>,
    /// `Monitoring.Enabled`: eksctl's `enableDetailedMonitoring`.
    #[serde(default)]
    pub detailed_monitoring: Option<bool>,
}

/// A launch template's EBS volume, as eksctl's `volume*` keys say it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VolumeFacts {
    /// `VolumeSize` (GiB): `volumeSize`.
    pub size: Option<i32>,
    /// `VolumeType`: `volumeType`.
    pub kind: Option<String>,
    /// `Iops`: `volumeIOPS`.
    pub iops: Option<i32>,
    /// `Throughput` (MiB/s): `volumeThroughput`.
    pub throughput: Option<i32>,
    /// `Encrypted`: `volumeEncrypted`.
    pub encrypted: Option<bool>,
    /// `KmsKeyId`: `volumeKmsKeyID`.
    pub kms_key_id: Option<String>,
}

/// An add-on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EksAddon {
    /// `addonName`.
    pub name: String,
    /// `addonVersion`.
    pub version: String,
    /// `serviceAccountRoleArn`.
    pub service_account_role_arn: Option<String>,
    /// `configurationValues`.
    pub configuration_values: Option<String>,
    /// `addonArn`: its Pod Identity associations name it as their owner.
    pub arn: String,
}

/// An access entry with the policies associated with it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EksAccessEntry {
    /// `principalArn`.
    pub principal_arn: String,
    /// `type`: `STANDARD`, `EC2_LINUX`, …
    pub entry_type: String,
    /// `kubernetesGroups`.
    pub kubernetes_groups: Vec<String>,
    /// `username`.
    pub username: String,
    /// `ListAssociatedAccessPolicies`.
    pub policies: Vec<EksAccessPolicy>,
}

/// An access policy associated with an entry.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EksAccessPolicy {
    /// `policyArn`.
    pub policy_arn: String,
    /// `accessScope.type`: `cluster` or `namespace`.
    pub scope: String,
    /// `accessScope.namespaces`.
    pub namespaces: Vec<String>,
}

/// A Pod Identity association.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EksPodIdentityAssociation {
    /// Kubernetes namespace.
    pub namespace: String,
    /// Service account.
    pub service_account: String,
    /// `roleArn`.
    pub role_arn: String,
    /// `ownerArn`: the add-on that made it, if one did.
    pub owner_arn: Option<String>,
}
