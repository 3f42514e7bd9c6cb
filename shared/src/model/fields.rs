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

/// Declares the fields of an object (`NodeGroup`) as its associated constants
/// (`NodeGroup::MIN_SIZE`), and `FIELDS`, every one of them.
macro_rules! declare_fields {
    ($owner:ident; $($(#[$doc:meta])* $name:ident: $within:expr, $key:literal, $label:literal;)*) => {
        impl $owner {
            $($(#[$doc])* #[doc = concat!("`", $key, "`: ", $label, ".")] pub const $name: $crate::model::fields::Field = $crate::model::fields::Field { within: $within, key: $key, label: $label };)*
            /// Every field of this object.
            pub const FIELDS: &'static [&'static $crate::model::fields::Field] = &[$(&Self::$name),*];
        }
    };
}
pub(crate) use declare_fields;

// Karpenter's and EKS Auto Mode's objects are upstream's types; their fields are declared
// here, since the upstream mirrors sit below the studio's vocabulary.
mod upstream_objects {
    use super::{self as fields};
    use crate::upstream::auto_mode::NodeClass;
    use crate::upstream::karpenter::{
        Budget, Ec2NodeClass, NodeOverlay, NodePool, Requirement, Taint,
    };

    declare_fields! {
        NodePool;
        NODE_POOL_NAME: fields::NODE_POOL, "metadata.name", "NodePool name";
        NODE_CLASS_REF: fields::NODE_POOL, "spec.template.spec.nodeClassRef", "Node class";
        NODE_CLASS_REF_NAME: fields::NODE_POOL, "spec.template.spec.nodeClassRef.name", "Node class";
        REPLICAS: fields::NODE_POOL, "spec.replicas", "Static node count";
        WEIGHT: fields::NODE_POOL, "spec.weight", "Weight";
        EXPIRE_AFTER: fields::NODE_POOL, "spec.template.spec.expireAfter", "Expire after";
        NODE_LABELS: fields::NODE_POOL, "spec.template.metadata.labels", "Node labels";
        REQUIREMENTS: fields::NODE_POOL, "spec.template.spec.requirements", "Requirements";
        POOL_TAINTS: fields::NODE_POOL, "spec.template.spec.taints", "Taints";
        LIMITS: fields::NODE_POOL, "spec.limits", "Limits";
        DISRUPTION: fields::NODE_POOL, "spec.disruption", "Disruption";
        CONSOLIDATION_POLICY: fields::NODE_POOL, "spec.disruption.consolidationPolicy", "Consolidation policy";
        CONSOLIDATE_AFTER: fields::NODE_POOL, "spec.disruption.consolidateAfter", "Consolidate after";
        BUDGETS: fields::NODE_POOL, "spec.disruption.budgets", "Disruption budgets";
    }

    declare_fields! {
        Requirement;
        REQUIREMENT_KEY: fields::REQUIREMENT, "key", "Key";
        REQUIREMENT_OPERATOR: fields::REQUIREMENT, "operator", "Operator";
        REQUIREMENT_VALUES: fields::REQUIREMENT, "values", "Values";
        REQUIREMENT_MIN_VALUES: fields::REQUIREMENT, "minValues", "Min values";
    }

    declare_fields! {
        Taint;
        TAINT_KEY: fields::TAINT, "key", "Taint key";
        TAINT_VALUE: fields::TAINT, "value", "Taint value";
        TAINT_EFFECT: fields::TAINT, "effect", "Effect";
    }

    declare_fields! {
        Budget;
        BUDGET_NODES: fields::BUDGET, "nodes", "Nodes";
        BUDGET_REASONS: fields::BUDGET, "reasons", "Reasons";
        BUDGET_SCHEDULE: fields::BUDGET, "schedule", "Schedule (cron)";
        BUDGET_DURATION: fields::BUDGET, "duration", "Duration";
    }

    declare_fields! {
        NodeOverlay;
        OVERLAY_NAME: fields::NODE_OVERLAY, "metadata.name", "NodeOverlay name";
        OVERLAY_SPEC: fields::NODE_OVERLAY, "spec", "NodeOverlay";
        OVERLAY_REQUIREMENTS: fields::NODE_OVERLAY, "spec.requirements", "Requirements";
        PRICE_ADJUSTMENT: fields::NODE_OVERLAY, "spec.priceAdjustment", "Price adjustment";
        PRICE: fields::NODE_OVERLAY, "spec.price", "Price (replaces the instance price)";
        OVERLAY_WEIGHT: fields::NODE_OVERLAY, "spec.weight", "Weight";
        OVERLAY_CAPACITY: fields::NODE_OVERLAY, "spec.capacity", "Extended resources the nodes have";
    }

    declare_fields! {
        Ec2NodeClass;
        NODE_CLASS_NAME: fields::NODE_CLASS, "metadata.name", "EC2NodeClass name";
        NODE_ROLE: fields::NODE_CLASS, "spec.role", "Node IAM role";
        AMI_SELECTOR: fields::NODE_CLASS, "spec.amiSelectorTerms", "AMI selector";
        AMI_ALIAS: fields::NODE_CLASS, "spec.amiSelectorTerms[0].alias", "AMI alias";
        SUBNET_DISCOVERY: fields::NODE_CLASS, "spec.subnetSelectorTerms", "Subnet discovery tag (karpenter.sh/discovery)";
        SECURITY_GROUP_DISCOVERY: fields::NODE_CLASS, "spec.securityGroupSelectorTerms", "Security group discovery tag (karpenter.sh/discovery)";
        RESERVATIONS: fields::NODE_CLASS, "spec.capacityReservationSelectorTerms", "Capacity reservation IDs";
        RESERVATION_TAGS: fields::NODE_CLASS, "spec.capacityReservationSelectorTerms.tags", "Capacity reservation tags (one term each)";
        RESERVATION_OWNER: fields::NODE_CLASS, "spec.capacityReservationSelectorTerms.ownerID", "Capacity reservation owner account (ownerID)";
        PLACEMENT_GROUP_SELECTOR: fields::NODE_CLASS, "spec.placementGroupSelector", "Placement group";
        PLACEMENT_GROUP_NAME: fields::NODE_CLASS, "spec.placementGroupSelector.name", "Placement group name";
        PLACEMENT_GROUP_ID: fields::NODE_CLASS, "spec.placementGroupSelector.id", "Placement group ID";
        EFA_DEVICES: fields::NODE_CLASS, "spec.networkInterfaces", "EFA devices, one per network card";
        INSTANCE_STORE_POLICY: fields::NODE_CLASS, "spec.instanceStorePolicy", "Local NVMe as RAID0 (instanceStorePolicy)";
    }

    declare_fields! {
        NodeClass;
        AUTO_MODE_CLASS_NAME: fields::AUTO_MODE_NODE_CLASS, "metadata.name", "NodeClass name";
        AUTO_MODE_CLASS_ROLE: fields::AUTO_MODE_NODE_CLASS, "spec.role", "Node IAM role";
        AUTO_MODE_SUBNETS: fields::AUTO_MODE_NODE_CLASS, "spec.subnetSelectorTerms", "Subnet IDs";
        AUTO_MODE_SECURITY_GROUPS: fields::AUTO_MODE_NODE_CLASS, "spec.securityGroupSelectorTerms", "Security group IDs";
        AUTO_MODE_RESERVATIONS: fields::AUTO_MODE_NODE_CLASS, "spec.capacityReservationSelectorTerms", "Capacity reservation IDs (ODCR or Capacity Block)";
    }
}
