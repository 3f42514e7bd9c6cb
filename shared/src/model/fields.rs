//! The design's fields, each written once: where it is in the spec and what the page calls
//! it. The page's inputs take their label and path from here, the rules name the place of
//! a finding with it, and [`crate::model::places`] reads a finding's place back in these
//! words. A field belongs to an object of the design (the cluster, a node group, a NodePool
//! of Karpenter or of EKS Auto Mode…); an object is named by its path with each list
//! index left out (`node_groups[]`).

/// A field of the design.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// The objects that have this field, as paths with list indices left out; "" is the
    /// design itself.
    pub within: &'static [&'static str],
    /// Its path inside such an object.
    pub key: &'static str,
    /// The label of its input, and of its findings' place.
    pub label: &'static str,
}

impl Field {
    /// Its path inside the object at `object` (a path with indices, `node_groups[2]`; ""
    /// for the design itself).
    pub fn in_object(&self, object: &str) -> String {
        if object.is_empty() {
            self.key.to_owned()
        } else {
            format!("{object}.{}", self.key)
        }
    }

    /// Its path in the object its first `within` names, each `[]` of which takes the next
    /// of `indices`: `MIN_SIZE.at(&[2])` is `node_groups[2].min_size`.
    pub fn at(&self, indices: &[usize]) -> String {
        self.at_in(self.within.first().copied().unwrap_or_default(), indices)
    }

    /// Its path in `object` (one of its `within`), each `[]` of which takes the next of
    /// `indices`.
    pub fn at_in(&self, object: &str, indices: &[usize]) -> String {
        debug_assert!(
            self.within.contains(&object),
            "{} is not in {object}",
            self.key
        );
        self.in_object(&item(object, indices))
    }

    /// Its path, for a field of an object in no list (`cluster.region`).
    pub fn path(&self) -> String {
        self.at(&[])
    }

    /// Whether `pattern` (a path with its indices left out) is this field.
    pub fn is(&self, pattern: &str) -> bool {
        self.within.iter().any(|object| {
            if object.is_empty() {
                pattern == self::pattern(self.key)
            } else {
                pattern
                    .strip_prefix(object)
                    .and_then(|rest| rest.strip_prefix('.'))
                    .is_some_and(|rest| rest == self::pattern(self.key))
            }
        })
    }
}

/// The path of an object, each `[]` of its pattern taking the next of `indices`:
/// `item(NODE_GROUP_ITEM, &[2])` is `node_groups[2]`.
pub fn item(object: &str, indices: &[usize]) -> String {
    let mut path = String::with_capacity(object.len() + 4 * indices.len());
    let mut indices = indices.iter();
    let mut parts = object.split("[]");
    if let Some(first) = parts.next() {
        path.push_str(first);
    }
    for part in parts {
        let index = indices.next().copied().unwrap_or_default();
        path.push_str(&format!("[{index}]"));
        path.push_str(part);
    }
    path
}

/// The field whose path with indices left out is `pattern`.
pub fn find(pattern: &str) -> Option<&'static Field> {
    ALL.iter().copied().find(|field| field.is(pattern))
}

/// A path with each list index left out: `node_groups[2].taints[0]` is `node_groups[].taints[]`.
pub fn pattern(path: &str) -> String {
    let mut pattern = String::with_capacity(path.len());
    let mut in_index = false;
    for character in path.chars() {
        match character {
            '[' => {
                in_index = true;
                pattern.push('[');
            }
            ']' => {
                in_index = false;
                pattern.push(']');
            }
            _ if in_index => {}
            _ => pattern.push(character),
        }
    }
    pattern
}

/// The design itself.
pub const DESIGN: &[&str] = &[""];
/// `cluster`.
pub const CLUSTER: &[&str] = &["cluster"];
/// `cluster.auto_mode`.
pub const AUTO_MODE: &[&str] = &["cluster.auto_mode"];
/// `cluster.access`.
pub const ACCESS: &[&str] = &["cluster.access"];
/// An access entry.
pub const ACCESS_ENTRY: &[&str] = &["cluster.access.access_entries[]"];
/// One access policy of an access entry.
pub const ACCESS_POLICY: &[&str] = &["cluster.access.access_entries[].access_policies[]"];
/// The FSx for Lustre volume.
pub const FSX: &[&str] = &["storage.fsx"];
/// The S3 volume.
pub const S3: &[&str] = &["storage.s3"];
/// `network`.
pub const NETWORK: &[&str] = &["network"];
/// A private subnet of an existing VPC.
pub const PRIVATE_SUBNET: &str = "network.private_subnets[]";
/// A public subnet of an existing VPC.
pub const PUBLIC_SUBNET: &str = "network.public_subnets[]";
/// A subnet of an existing VPC.
pub const SUBNET: &[&str] = &[PRIVATE_SUBNET, PUBLIC_SUBNET];
/// One node group.
pub const NODE_GROUP_ITEM: &str = "node_groups[]";
/// A node group.
pub const NODE_GROUP: &[&str] = &[NODE_GROUP_ITEM];
/// A node group's IAM add-on policies.
pub const ADDON_POLICIES: &[&str] = &["node_groups[].addon_policies"];
/// A node group's auto-repair settings.
pub const REPAIR: &[&str] = &["node_groups[].node_repair_config"];
/// One of a node group's repair overrides.
pub const REPAIR_OVERRIDE: &[&str] =
    &["node_groups[].node_repair_config.node_repair_config_overrides[]"];
/// One add-on.
pub const ADDON_ITEM: &str = "addons[]";
/// An add-on.
pub const ADDON: &[&str] = &[ADDON_ITEM];
/// `karpenter`.
pub const KARPENTER: &[&str] = &["karpenter"];
/// One of Karpenter's NodePools.
pub const KARPENTER_POOL: &str = "karpenter.node_pools[]";
/// One of EKS Auto Mode's NodePools.
pub const AUTO_MODE_POOL: &str = "auto_mode_pools.node_pools[]";
/// A NodePool, Karpenter's or EKS Auto Mode's: the same `karpenter.sh/v1` object.
pub const NODE_POOL: &[&str] = &[KARPENTER_POOL, AUTO_MODE_POOL];
/// A requirement of an EKS Auto Mode NodePool.
pub const AUTO_MODE_REQUIREMENT: &str =
    "auto_mode_pools.node_pools[].spec.template.spec.requirements[]";
/// A requirement of a NodePool or of a NodeOverlay.
pub const REQUIREMENT: &[&str] = &[
    "karpenter.node_pools[].spec.template.spec.requirements[]",
    AUTO_MODE_REQUIREMENT,
    "karpenter.node_overlays[].spec.requirements[]",
];
/// A taint of a NodePool.
pub const TAINT: &[&str] = &[
    "karpenter.node_pools[].spec.template.spec.taints[]",
    "auto_mode_pools.node_pools[].spec.template.spec.taints[]",
];
/// A disruption budget of a NodePool.
pub const BUDGET: &[&str] = &[
    "karpenter.node_pools[].spec.disruption.budgets[]",
    "auto_mode_pools.node_pools[].spec.disruption.budgets[]",
];
/// One NodeOverlay.
pub const NODE_OVERLAY_ITEM: &str = "karpenter.node_overlays[]";
/// A NodeOverlay.
pub const NODE_OVERLAY: &[&str] = &[NODE_OVERLAY_ITEM];
/// One EC2NodeClass.
pub const NODE_CLASS_ITEM: &str = "karpenter.node_classes[]";
/// An EC2NodeClass.
pub const NODE_CLASS: &[&str] = &[NODE_CLASS_ITEM];
/// One EKS Auto Mode NodeClass.
pub const AUTO_MODE_CLASS: &str = "auto_mode_pools.node_classes[]";
/// An EKS Auto Mode NodeClass.
pub const AUTO_MODE_NODE_CLASS: &[&str] = &[AUTO_MODE_CLASS];

/// Declares each field as a constant, and [`ALL`] of them.
macro_rules! fields {
    ($($(#[$doc:meta])* $name:ident: $within:expr, $key:literal, $label:literal;)*) => {
        $($(#[$doc])* #[doc = concat!("`", $key, "`: ", $label, ".")] pub static $name: Field = Field { within: $within, key: $key, label: $label };)*
        /// Every field of the design.
        pub static ALL: &[&Field] = &[$(&$name),*];
    };
}

fields! {
    CLUSTER_NAME: CLUSTER, "name", "Cluster name";
    REGION: CLUSTER, "region", "Region";
    KUBERNETES_VERSION: CLUSTER, "kubernetes_version", "Kubernetes version";
    WITH_OIDC: CLUSTER, "with_oidc", "IAM OIDC provider (roles for service accounts)";
    AUTO_MODE_ON: CLUSTER, "auto_mode", "EKS Auto Mode (AWS launches and runs the nodes)";
    AUTO_MODE_ENABLED: AUTO_MODE, "enabled", "EKS Auto Mode (AWS launches and runs the nodes)";
    AUTO_MODE_NODE_POOLS: AUTO_MODE, "node_pools", "Auto Mode built-in node pools";
    AUTO_MODE_NODE_ROLE: AUTO_MODE, "node_role_arn", "Auto Mode node role ARN";
    AUTO_MODE_BOUNDARY: AUTO_MODE, "permissions_boundary_arn", "Auto Mode node role permissions boundary";
    POD_IDENTITY_ASSOCIATIONS: CLUSTER, "pod_identity_associations", "Pod Identity associations";
    ACCESS_CONFIG: CLUSTER, "access", "Access to the cluster";
    AUTHENTICATION_MODE: ACCESS, "authentication_mode", "Authentication mode";
    CREATOR_IS_ADMIN: ACCESS, "bootstrap_cluster_creator_admin_permissions", "The identity that creates the cluster is its admin";
    ACCESS_ENTRIES: ACCESS, "access_entries", "Access entries";
    PRINCIPAL_ARN: ACCESS_ENTRY, "principal_arn", "Principal ARN (IAM role or user)";
    ENTRY_TYPE: ACCESS_ENTRY, "entry_type", "Entry type";
    KUBERNETES_GROUPS: ACCESS_ENTRY, "kubernetes_groups", "Kubernetes groups";
    KUBERNETES_USERNAME: ACCESS_ENTRY, "kubernetes_username", "Kubernetes user name";
    ACCESS_POLICIES: ACCESS_ENTRY, "access_policies", "Access policies";
    POLICY_ARN: ACCESS_POLICY, "policy_arn", "Access policy ARN";
    POLICY_SCOPE: ACCESS_POLICY, "scope", "Scope";
    POLICY_NAMESPACES: ACCESS_POLICY, "namespaces", "Namespaces";

    FSX_VOLUME: DESIGN, "storage.fsx", "Create an FSx for Lustre file system (StorageClass and claim fsx-claim)";
    FSX_SUBNET: FSX, "subnet_id", "FSx subnet ID";
    FSX_SECURITY_GROUPS: FSX, "security_group_ids", "FSx security group IDs";
    FSX_DEPLOYMENT_TYPE: FSX, "deployment_type", "FSx deployment type";
    FSX_THROUGHPUT: FSX, "per_unit_storage_throughput", "FSx throughput (MB/s per TiB)";
    FSX_STORAGE: FSX, "storage_gib", "FSx storage (GiB)";
    S3_VOLUME: DESIGN, "storage.s3", "Mount an S3 bucket (volume s3-pv and claim s3-claim)";
    S3_BUCKET: S3, "bucket", "S3 bucket";
    S3_PREFIX: S3, "prefix", "S3 prefix";

    VPC: DESIGN, "network", "VPC";
    VPC_MODE: NETWORK, "mode", "VPC";
    VPC_ID: NETWORK, "vpc_id", "VPC ID";
    AVAILABILITY_ZONES: NETWORK, "availability_zones", "Availability zones";
    VPC_CIDR: DESIGN, "eksctl_extra.vpc.cidr", "VPC CIDR block";
    SUBNET_NAME: SUBNET, "name", "Subnet name";
    SUBNET_ID: SUBNET, "id", "Subnet ID";
    SUBNET_ZONE: SUBNET, "availability_zone", "Subnet availability zone";

    NODE_GROUP_NAME: NODE_GROUP, "name", "Node group name";
    INSTANCE_TYPE: NODE_GROUP, "instance_type", "Instance type";
    INSTANCE_TYPES: NODE_GROUP, "instance_types", "Instance types (several, instead of one)";
    INSTANCE_PREFIX: NODE_GROUP, "instance_prefix", "Instance name prefix";
    ADDON_POLICIES_FIELD: NODE_GROUP, "addon_policies", "IAM add-on policies";
    AMI_FAMILY: NODE_GROUP, "ami_family", "AMI family";
    CUSTOM_AMI: NODE_GROUP, "extra.ami", "Custom AMI ID";
    MIN_SIZE: NODE_GROUP, "min_size", "Minimum size";
    DESIRED_CAPACITY: NODE_GROUP, "desired_capacity", "Desired capacity";
    MAX_SIZE: NODE_GROUP, "max_size", "Maximum size";
    EFA: NODE_GROUP, "efa_enabled", "EFA (Elastic Fabric Adapter)";
    PRIVATE_NETWORKING: NODE_GROUP, "private_networking", "Private networking";
    LOCAL_NVME_RAID0: NODE_GROUP, "local_nvme_raid0", "Local NVMe as RAID0";
    NODE_REPAIR: NODE_GROUP, "node_repair", "Node auto-repair";
    LABELS: NODE_GROUP, "labels", "Labels";
    TAINTS: NODE_GROUP, "taints", "Taints";
    CAPACITY: NODE_GROUP, "capacity", "Capacity type";
    RESERVATION_ID: NODE_GROUP, "capacity.reservation_id", "Capacity reservation ID";
    BLOCK_STARTS: NODE_GROUP, "block_window.starts", "Block starts (UTC)";
    BLOCK_ENDS: NODE_GROUP, "block_window.ends", "Block ends (UTC)";
    BLOCK_CHECKPOINT: NODE_GROUP, "block_window.checkpoint_minutes", "Checkpoint every (minutes)";
    BLOCK_NEEDED_UNTIL: NODE_GROUP, "block_window.needed_until", "Training needs it until (UTC)";
    PLACEMENT: NODE_GROUP, "placement", "Placement";
    PLACEMENT_SUBNETS: NODE_GROUP, "placement.subnets", "Subnets";
    PLACEMENT_ZONES: NODE_GROUP, "placement.availability_zones", "Availability zone";
    PLACEMENT_GROUP: NODE_GROUP, "placement_group", "Placement group";
    REPAIR_SETTINGS: NODE_GROUP, "node_repair_config", "Node auto-repair settings";
    AUTO_SCALER_POLICY: ADDON_POLICIES, "auto_scaler", "Cluster Autoscaler";
    CLOUD_WATCH_POLICY: ADDON_POLICIES, "cloud_watch", "CloudWatch";
    EBS_POLICY: ADDON_POLICIES, "ebs", "EBS";
    FSX_POLICY: ADDON_POLICIES, "fsx", "FSx for Lustre";
    UNHEALTHY_COUNT: REPAIR, "max_unhealthy_node_threshold_count", "Stop repairs above unhealthy nodes (count)";
    UNHEALTHY_PERCENTAGE: REPAIR, "max_unhealthy_node_threshold_percentage", "Stop repairs above unhealthy nodes (%)";
    PARALLEL_COUNT: REPAIR, "max_parallel_nodes_repaired_count", "Nodes repaired at once (count)";
    PARALLEL_PERCENTAGE: REPAIR, "max_parallel_nodes_repaired_percentage", "Nodes repaired at once (%)";
    REPAIR_OVERRIDES: REPAIR, "node_repair_config_overrides", "Repair overrides";
    REPAIR_CONDITION: REPAIR_OVERRIDE, "node_monitoring_condition", "Condition";
    REPAIR_REASON: REPAIR_OVERRIDE, "node_unhealthy_reason", "Reason";
    REPAIR_WAIT: REPAIR_OVERRIDE, "min_repair_wait_time_mins", "Wait (minutes)";
    REPAIR_ACTION: REPAIR_OVERRIDE, "repair_action", "Action";

    ADDON_NAME: ADDON, "name", "Add-on name";
    RESOLVE_CONFLICTS: ADDON, "resolve_conflicts", "Resolve conflicts";
    ADDON_VERSION: ADDON, "version", "Version";
    ADDON_POLICY_ARNS: ADDON, "attach_policy_arns", "IAM policy ARNs";
    ADDON_ASSOCIATIONS: ADDON, "pod_identity_associations", "Pod Identity associations";

    KARPENTER_ON: DESIGN, "karpenter", "Launch nodes with Karpenter";
    KARPENTER_RELEASE: KARPENTER, "release", "Karpenter release";
    INTERRUPTION_QUEUE: KARPENTER, "interruption_queue", "Spot interruption queue (SQS)";
    CONTROLLER_IDENTITY: KARPENTER, "controller_identity", "Controller's AWS role";
    SPOT_TO_SPOT: KARPENTER, "spot_to_spot_consolidation", "Spot-to-Spot consolidation";
    KARPENTER_NODE_REPAIR: KARPENTER, "node_repair", "Node repair (Karpenter)";

    NODE_POOL_NAME: NODE_POOL, "metadata.name", "NodePool name";
    NODE_CLASS_REF: NODE_POOL, "spec.template.spec.nodeClassRef", "Node class";
    NODE_CLASS_REF_NAME: NODE_POOL, "spec.template.spec.nodeClassRef.name", "Node class";
    REPLICAS: NODE_POOL, "spec.replicas", "Static node count";
    WEIGHT: NODE_POOL, "spec.weight", "Weight";
    EXPIRE_AFTER: NODE_POOL, "spec.template.spec.expireAfter", "Expire after";
    NODE_LABELS: NODE_POOL, "spec.template.metadata.labels", "Node labels";
    REQUIREMENTS: NODE_POOL, "spec.template.spec.requirements", "Requirements";
    POOL_TAINTS: NODE_POOL, "spec.template.spec.taints", "Taints";
    LIMITS: NODE_POOL, "spec.limits", "Limits";
    DISRUPTION: NODE_POOL, "spec.disruption", "Disruption";
    CONSOLIDATION_POLICY: NODE_POOL, "spec.disruption.consolidationPolicy", "Consolidation policy";
    CONSOLIDATE_AFTER: NODE_POOL, "spec.disruption.consolidateAfter", "Consolidate after";
    BUDGETS: NODE_POOL, "spec.disruption.budgets", "Disruption budgets";
    REQUIREMENT_KEY: REQUIREMENT, "key", "Key";
    REQUIREMENT_OPERATOR: REQUIREMENT, "operator", "Operator";
    REQUIREMENT_VALUES: REQUIREMENT, "values", "Values";
    REQUIREMENT_MIN_VALUES: REQUIREMENT, "minValues", "Min values";
    TAINT_KEY: TAINT, "key", "Taint key";
    TAINT_VALUE: TAINT, "value", "Taint value";
    TAINT_EFFECT: TAINT, "effect", "Effect";
    BUDGET_NODES: BUDGET, "nodes", "Nodes";
    BUDGET_REASONS: BUDGET, "reasons", "Reasons";
    BUDGET_SCHEDULE: BUDGET, "schedule", "Schedule (cron)";
    BUDGET_DURATION: BUDGET, "duration", "Duration";

    OVERLAY_NAME: NODE_OVERLAY, "metadata.name", "NodeOverlay name";
    OVERLAY_SPEC: NODE_OVERLAY, "spec", "NodeOverlay";
    OVERLAY_REQUIREMENTS: NODE_OVERLAY, "spec.requirements", "Requirements";
    PRICE_ADJUSTMENT: NODE_OVERLAY, "spec.priceAdjustment", "Price adjustment";
    PRICE: NODE_OVERLAY, "spec.price", "Price (replaces the instance price)";
    OVERLAY_WEIGHT: NODE_OVERLAY, "spec.weight", "Weight";
    OVERLAY_CAPACITY: NODE_OVERLAY, "spec.capacity", "Extended resources the nodes have";

    NODE_CLASS_NAME: NODE_CLASS, "metadata.name", "EC2NodeClass name";
    NODE_ROLE: NODE_CLASS, "spec.role", "Node IAM role";
    AMI_SELECTOR: NODE_CLASS, "spec.amiSelectorTerms", "AMI selector";
    AMI_ALIAS: NODE_CLASS, "spec.amiSelectorTerms[0].alias", "AMI alias";
    SUBNET_DISCOVERY: NODE_CLASS, "spec.subnetSelectorTerms", "Subnet discovery tag (karpenter.sh/discovery)";
    SECURITY_GROUP_DISCOVERY: NODE_CLASS, "spec.securityGroupSelectorTerms", "Security group discovery tag (karpenter.sh/discovery)";
    RESERVATIONS: NODE_CLASS, "spec.capacityReservationSelectorTerms", "Capacity reservation IDs";
    RESERVATION_TAGS: NODE_CLASS, "spec.capacityReservationSelectorTerms.tags", "Capacity reservation tags (one term each)";
    RESERVATION_OWNER: NODE_CLASS, "spec.capacityReservationSelectorTerms.ownerID", "Capacity reservation owner account (ownerID)";
    PLACEMENT_GROUP_SELECTOR: NODE_CLASS, "spec.placementGroupSelector", "Placement group";
    PLACEMENT_GROUP_NAME: NODE_CLASS, "spec.placementGroupSelector.name", "Placement group name";
    PLACEMENT_GROUP_ID: NODE_CLASS, "spec.placementGroupSelector.id", "Placement group ID";
    EFA_DEVICES: NODE_CLASS, "spec.networkInterfaces", "EFA devices, one per network card";
    INSTANCE_STORE_POLICY: NODE_CLASS, "spec.instanceStorePolicy", "Local NVMe as RAID0 (instanceStorePolicy)";

    AUTO_MODE_CLASS_NAME: AUTO_MODE_NODE_CLASS, "metadata.name", "NodeClass name";
    AUTO_MODE_CLASS_ROLE: AUTO_MODE_NODE_CLASS, "spec.role", "Node IAM role";
    AUTO_MODE_SUBNETS: AUTO_MODE_NODE_CLASS, "spec.subnetSelectorTerms", "Subnet IDs";
    AUTO_MODE_SECURITY_GROUPS: AUTO_MODE_NODE_CLASS, "spec.securityGroupSelectorTerms", "Security group IDs";
    AUTO_MODE_RESERVATIONS: AUTO_MODE_NODE_CLASS, "spec.capacityReservationSelectorTerms", "Capacity reservation IDs (ODCR or Capacity Block)";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_is_placed_in_its_object_and_found_again_by_its_pattern() {
        assert_eq!(MIN_SIZE.at(&[2]), "node_groups[2].min_size");
        assert_eq!(REGION.at(&[]), "cluster.region");
        assert_eq!(VPC.at(&[]), "network");
        assert_eq!(
            REPAIR_ACTION.at(&[1, 3]),
            "node_groups[1].node_repair_config.node_repair_config_overrides[3].repair_action"
        );
        assert_eq!(
            WEIGHT.in_object("auto_mode_pools.node_pools[4]"),
            "auto_mode_pools.node_pools[4].spec.weight"
        );
        for field in ALL {
            assert_eq!(find(&pattern(&field.at(&[0, 0, 0]))), Some(*field));
        }
        assert_eq!(
            find("auto_mode_pools.node_pools[].spec.template.spec.requirements[].values"),
            Some(&REQUIREMENT_VALUES)
        );
        assert_eq!(find("node_groups[].maxPods"), None);
        assert_eq!(
            pattern("node_groups[12].taints[0].key"),
            "node_groups[].taints[].key"
        );
    }

    #[test]
    fn no_two_fields_share_a_path() {
        for field in ALL {
            for object in field.within {
                let path = field.in_object(&object.replace("[]", "[0]"));
                let owners: Vec<_> = ALL
                    .iter()
                    .filter(|other| other.is(&pattern(&path)))
                    .collect();
                assert_eq!(owners, [field], "{path} is declared twice");
            }
        }
    }
}
