//! The design's vocabulary, below everything else: the paths of the design's objects and
//! the [`Field`], written once, that each object declares beside its type with
//! [`declare_fields!`] (`NodeGroup::MIN_SIZE` in `model/spec.rs`, `NodePool::WEIGHT` in
//! `upstream/karpenter.rs`): where the field is in the spec and what the page calls it.
//! The page's inputs take their label and path from it, the rules name the place of a
//! finding with it, and `model::places` reads a finding's place back in these words. A
//! field belongs to an object of the design (the cluster, a node group, a NodePool of
//! Karpenter or of EKS Auto Mode…); an object is named by its path with each list index
//! left out (`node_groups[]`).

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
            $($(#[$doc])* #[doc = concat!("`", $key, "`: ", $label, ".")] pub const $name: $crate::fields::Field = $crate::fields::Field { within: $within, key: $key, label: $label };)*
            /// Every field of this object.
            pub const FIELDS: &'static [&'static $crate::fields::Field] = &[$(&Self::$name),*];
        }
    };
}
pub(crate) use declare_fields;
