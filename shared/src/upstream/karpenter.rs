//! Field names and nesting follow the Karpenter CRDs in `tests/data/schemas/`. The studio
//! edits these structs directly (a NodePool *is* the user's intent), and every level keeps
//! the keys it does not model in `extra`, so an imported document renders back unchanged.

use crate::fields::{self, declare_fields};
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use yaml_serde::Mapping;

/// The label Karpenter sets to a node's capacity type (`on-demand`, `spot`, `reserved`).
pub const CAPACITY_TYPE: &str = "karpenter.sh/capacity-type";

/// `apiVersion` of `NodePool`.
pub const NODE_POOL_API_VERSION: &str = "karpenter.sh/v1";
/// `apiVersion` of `EC2NodeClass`.
pub const NODE_CLASS_API_VERSION: &str = "karpenter.k8s.aws/v1";
/// API version of `NodeOverlay` objects (alpha, behind the `NodeOverlay` feature gate).
pub const NODE_OVERLAY_API_VERSION: &str = "karpenter.sh/v1alpha1";
/// The tag Karpenter's getting-started guide uses to discover subnets and security groups.
pub const DISCOVERY_TAG: &str = "karpenter.sh/discovery";
/// The operators a NodePool requirement may use (the CRD's enum).
pub const OPERATORS: &[&str] = &[
    "In",
    "NotIn",
    "Exists",
    "DoesNotExist",
    "Gt",
    "Lt",
    "Gte",
    "Lte",
];

fn is_empty_mapping(mapping: &Mapping) -> bool {
    mapping.is_empty()
}

/// A list or map that remembers whether the source wrote it out. Karpenter accepts
/// `taints: []` or `limits: {}` as well as leaving the key out; the studio writes an empty
/// one only when the imported file did, so import → render keeps the file's data. It reads
/// and changes like the collection it holds.
#[derive(Clone, Debug, Default)]
pub struct Explicit<C> {
    items: C,
    written: bool,
}

impl<C: Collection> Explicit<C> {
    /// Whether rendering leaves the key out: empty, and not written out by the source.
    pub fn is_absent(&self) -> bool {
        self.items.is_empty() && !self.written
    }
}

/// Equal when they hold the same and render the same: whether the source wrote the key
/// out only matters while the collection is empty.
impl<C: Collection + PartialEq> PartialEq for Explicit<C> {
    fn eq(&self, other: &Explicit<C>) -> bool {
        self.items == other.items && self.is_absent() == other.is_absent()
    }
}

impl<C> From<C> for Explicit<C> {
    fn from(items: C) -> Explicit<C> {
        Explicit {
            items,
            written: false,
        }
    }
}

impl<C> std::ops::Deref for Explicit<C> {
    type Target = C;
    fn deref(&self) -> &C {
        &self.items
    }
}

impl<C> std::ops::DerefMut for Explicit<C> {
    fn deref_mut(&mut self) -> &mut C {
        &mut self.items
    }
}

impl<'a, C> IntoIterator for &'a Explicit<C>
where
    &'a C: IntoIterator,
{
    type Item = <&'a C as IntoIterator>::Item;
    type IntoIter = <&'a C as IntoIterator>::IntoIter;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<C: Serialize> Serialize for Explicit<C> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.items.serialize(serializer)
    }
}

impl<'de, C: Deserialize<'de>> Deserialize<'de> for Explicit<C> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        C::deserialize(deserializer).map(|items| Explicit {
            items,
            written: true,
        })
    }
}

/// The collections an [`Explicit`] can hold.
pub trait Collection {
    /// Whether it holds nothing.
    fn is_empty(&self) -> bool;
}

impl<T> Collection for Vec<T> {
    fn is_empty(&self) -> bool {
        Vec::is_empty(self)
    }
}

impl<K, V> Collection for BTreeMap<K, V> {
    fn is_empty(&self) -> bool {
        BTreeMap::is_empty(self)
    }
}

/// Object metadata: the name and anything else (labels, annotations) kept as given.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ObjectMeta {
    /// Object name.
    #[serde(default)]
    pub name: String,
    /// Unmodelled keys, kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

/// A `karpenter.sh/v1` `NodePool`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NodePool {
    /// Name and other metadata.
    pub metadata: ObjectMeta,
    /// The pool's settings.
    pub spec: NodePoolSpec,
    /// Unmodelled top-level keys (e.g. `status`), kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

declare_fields! {
    NodePool;
    NAME: fields::NODE_POOL, "metadata.name", "NodePool name";
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

/// `NodePool.spec`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NodePoolSpec {
    /// What every node of the pool looks like.
    pub template: NodeClaimTemplate,
    /// How Karpenter may remove nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disruption: Option<Disruption>,
    /// Resource ceilings for the whole pool (e.g. `nvidia.com/gpu: 64`).
    #[serde(default, skip_serializing_if = "Explicit::is_absent")]
    pub limits: Explicit<BTreeMap<String, yaml_serde::Value>>,
    /// A static pool's fixed node count: Karpenter keeps this many nodes whatever the pods
    /// ask for (the `StaticCapacity` feature gate; only `limits.nodes`, no weight).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<u64>,
    /// Priority among pools, 1–100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<u32>,
    /// Unmodelled keys, kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

/// `NodePool.spec.template`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeClaimTemplate {
    /// Labels and annotations for the nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<TemplateMeta>,
    /// The node claim settings.
    pub spec: NodeClaimSpec,
    /// Unmodelled keys, kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

/// `NodePool.spec.template.metadata`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TemplateMeta {
    /// Labels put on every node.
    #[serde(default, skip_serializing_if = "Explicit::is_absent")]
    pub labels: Explicit<BTreeMap<String, String>>,
    /// Unmodelled keys (annotations), kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

/// `NodePool.spec.template.spec`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeClaimSpec {
    /// The `EC2NodeClass` the nodes use.
    pub node_class_ref: NodeClassRef,
    /// Scheduling requirements that select instance types.
    #[serde(default)]
    pub requirements: Vec<Requirement>,
    /// Taints put on every node.
    #[serde(default, skip_serializing_if = "Explicit::is_absent")]
    pub taints: Explicit<Vec<Taint>>,
    /// How long a node lives before it is replaced, or `Never`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expire_after: Option<String>,
    /// Unmodelled keys, kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

/// `nodeClassRef`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeClassRef {
    /// API group, `karpenter.k8s.aws`. Read also when missing (a v1beta1 reference names
    /// an `apiVersion` instead, kept in `extra`), so the schema check can say so at its
    /// line; written only when set.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub group: String,
    /// Kind, `EC2NodeClass`.
    pub kind: String,
    /// Name of the node class.
    pub name: String,
    /// Unmodelled keys, kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

impl Default for NodeClassRef {
    fn default() -> NodeClassRef {
        NodeClassRef {
            group: "karpenter.k8s.aws".into(),
            kind: "EC2NodeClass".into(),
            name: String::new(),
            extra: Mapping::new(),
        }
    }
}

/// One scheduling requirement (`key operator values`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Requirement {
    /// Label key, e.g. `karpenter.sh/capacity-type`.
    pub key: String,
    /// `In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`, `Gte` or `Lte`.
    pub operator: String,
    /// Values the operator compares with.
    #[serde(default, skip_serializing_if = "Explicit::is_absent")]
    pub values: Explicit<Vec<String>>,
    /// Least number of distinct values of the key the scheduler must keep open among the
    /// instance types it may launch (1-50; with `In`, at least that many values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_values: Option<u32>,
    /// Unmodelled keys, kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

declare_fields! {
    Requirement;
    KEY: fields::REQUIREMENT, "key", "Key";
    OPERATOR: fields::REQUIREMENT, "operator", "Operator";
    VALUES: fields::REQUIREMENT, "values", "Values";
    MIN_VALUES: fields::REQUIREMENT, "minValues", "Min values";
}

impl NodePool {
    /// A GPU pool named `name` on `node_class` with these requirements: tainted
    /// `nvidia.com/gpu:NoSchedule`, nodes replaced after 30 days (720h).
    pub fn tainted_for_gpus(
        name: &str,
        node_class: &str,
        requirements: Vec<Requirement>,
    ) -> NodePool {
        NodePool {
            metadata: ObjectMeta {
                name: name.into(),
                ..ObjectMeta::default()
            },
            spec: NodePoolSpec {
                template: NodeClaimTemplate {
                    metadata: None,
                    extra: Default::default(),
                    spec: NodeClaimSpec {
                        node_class_ref: NodeClassRef {
                            name: node_class.into(),
                            ..NodeClassRef::default()
                        },
                        requirements,
                        taints: vec![Taint {
                            key: "nvidia.com/gpu".into(),
                            effect: "NoSchedule".into(),
                            ..Taint::default()
                        }]
                        .into(),
                        expire_after: Some("720h".into()),
                        ..NodeClaimSpec::default()
                    },
                },
                ..NodePoolSpec::default()
            },
            ..NodePool::default()
        }
    }

    /// The node pool the page's "Add NodePool" adds: `gpu-N`, GPU categories g and p
    /// On-Demand, tainted for GPUs, at most 16 GPUs, emptied after 10 minutes, on `class_name`.
    pub fn gpu(number: usize, class_name: &str) -> NodePool {
        let mut pool = NodePool::tainted_for_gpus(
            &format!("gpu-{number}"),
            class_name,
            vec![
                Requirement::new("karpenter.sh/capacity-type", "In", &["on-demand"]),
                Requirement::new("karpenter.k8s.aws/instance-category", "In", &["g", "p"]),
            ],
        );
        pool.spec.disruption = Some(Disruption {
            consolidation_policy: Some("WhenEmpty".into()),
            consolidate_after: Some("10m".into()),
            ..Disruption::default()
        });
        pool.spec.limits =
            BTreeMap::from([("nvidia.com/gpu".to_owned(), yaml_serde::Value::from(16))]).into();
        pool
    }
}

impl Requirement {
    /// A requirement from its parts.
    pub fn new(key: &str, operator: &str, values: &[&str]) -> Requirement {
        Requirement {
            key: key.into(),
            operator: operator.into(),
            values: values
                .iter()
                .map(|value| value.to_string())
                .collect::<Vec<_>>()
                .into(),
            min_values: None,
            extra: Mapping::new(),
        }
    }
}

/// A node taint.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Taint {
    /// Taint key.
    pub key: String,
    /// Optional value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// `NoSchedule`, `PreferNoSchedule` or `NoExecute`.
    pub effect: String,
    /// Unmodelled keys (e.g. `timeAdded`), kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

declare_fields! {
    Taint;
    KEY: fields::TAINT, "key", "Taint key";
    VALUE: fields::TAINT, "value", "Taint value";
    EFFECT: fields::TAINT, "effect", "Effect";
}

/// `NodePool.spec.disruption`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Disruption {
    /// `WhenEmpty`, `WhenEmptyOrUnderutilized` or `Balanced`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consolidation_policy: Option<String>,
    /// Wait before consolidating, e.g. `5m`, or `Never`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consolidate_after: Option<String>,
    /// How many nodes may be disrupted at once, and when.
    #[serde(default, skip_serializing_if = "Explicit::is_absent")]
    pub budgets: Explicit<Vec<Budget>>,
    /// Unmodelled keys, kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

/// One disruption budget.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// `N` or `N%` nodes.
    pub nodes: String,
    /// Which disruption reasons the budget limits (`Underutilized`, `Empty`, `Drifted`).
    #[serde(default, skip_serializing_if = "Explicit::is_absent")]
    pub reasons: Explicit<Vec<String>>,
    /// Cron schedule when the budget applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// How long it applies after each scheduled start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<String>,
    /// Unmodelled keys, kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

declare_fields! {
    Budget;
    NODES: fields::BUDGET, "nodes", "Nodes";
    REASONS: fields::BUDGET, "reasons", "Reasons";
    SCHEDULE: fields::BUDGET, "schedule", "Schedule (cron)";
    DURATION: fields::BUDGET, "duration", "Duration";
}

/// A `karpenter.k8s.aws/v1` `EC2NodeClass`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ec2NodeClass {
    /// Name and other metadata.
    pub metadata: ObjectMeta,
    /// The class's settings.
    pub spec: Ec2NodeClassSpec,
    /// Unmodelled top-level keys (e.g. `status`), kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

declare_fields! {
    Ec2NodeClass;
    NAME: fields::NODE_CLASS, "metadata.name", "EC2NodeClass name";
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

/// `EC2NodeClass.spec`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ec2NodeClassSpec {
    /// IAM role of the nodes (exclusive with `instance_profile`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Instance profile of the nodes (exclusive with `role`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_profile: Option<String>,
    /// Which AMIs to use, e.g. `alias: al2023@latest`.
    #[serde(default)]
    pub ami_selector_terms: Vec<SelectorTerm>,
    /// Which subnets to launch into.
    #[serde(default)]
    pub subnet_selector_terms: Vec<SelectorTerm>,
    /// Which security groups to attach.
    #[serde(default)]
    pub security_group_selector_terms: Vec<SelectorTerm>,
    /// Which ODCRs and Capacity Blocks the nodes may use.
    #[serde(default, skip_serializing_if = "Explicit::is_absent")]
    pub capacity_reservation_selector_terms: Explicit<Vec<SelectorTerm>>,
    /// `RAID0` to stripe local NVMe into ephemeral storage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_store_policy: Option<String>,
    /// The one placement group every node of the class goes into.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement_group_selector: Option<PlacementGroupSelector>,
    /// The network interfaces each node gets, EFA devices among them; absent for
    /// Karpenter's default of one ENA interface and no EFA.
    #[serde(default, skip_serializing_if = "Explicit::is_absent")]
    pub network_interfaces: Explicit<Vec<NetworkInterface>>,
    /// Unmodelled keys, kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

/// One of `EC2NodeClass.spec.networkInterfaces`: an interface on a network card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkInterface {
    /// The network card it is on (from 0).
    pub network_card_index: u32,
    /// Its place on that card (from 0; card 0's device 0 is the primary interface).
    pub device_index: u32,
    /// `interface` (ENA, with an IP address) or `efa-only` (an EFA device, no IP address).
    pub interface_type: String,
    /// Unmodelled keys, kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

/// `interface`: an ENA interface with an IP address.
pub const INTERFACE: &str = "interface";
/// `efa-only`: an EFA device without an IP address.
pub const EFA_ONLY: &str = "efa-only";

impl NetworkInterface {
    fn on(network_card_index: u32, device_index: u32, interface_type: &str) -> NetworkInterface {
        NetworkInterface {
            network_card_index,
            device_index,
            interface_type: interface_type.to_owned(),
            extra: Mapping::new(),
        }
    }
}

/// The layout with `efa` EFA devices, one per network card. When card 0 takes an EFA
/// device (`card_zero`, every EFA type but p6-b300): the primary ENA interface on card 0,
/// an `efa-only` device beside it, then one `efa-only` device on each next card; it is
/// the layout of Karpenter's own tests of EFA interfaces
/// (pkg/providers/instancetype/compatibility/suite_test.go) and its docs' example
/// (website/content/en/docs/concepts/nodeclasses.md, spec.networkInterfaces), and the EC2
/// User Guide's ("Maximize network bandwidth on instances with multiple network cards").
/// Otherwise card 0 keeps only the primary interface and the devices go on cards 1 to
/// `efa` (the same guide: an EFA-only device on card 0 only "if the network card index 0
/// supports EFA"; p6-b300's card 0 is ENA only). Empty for 0: Karpenter's default
/// interface, no EFA.
pub fn efa_layout(efa: u32, card_zero: bool) -> Vec<NetworkInterface> {
    if efa == 0 {
        return Vec::new();
    }
    let mut layout = vec![NetworkInterface::on(0, 0, INTERFACE)];
    if card_zero {
        layout.push(NetworkInterface::on(0, 1, EFA_ONLY));
        layout.extend((1..efa).map(|card| NetworkInterface::on(card, 0, EFA_ONLY)));
    } else {
        layout.extend((1..=efa).map(|card| NetworkInterface::on(card, 0, EFA_ONLY)));
    }
    layout
}

/// Whether an EFA layout for `types` should put a device on card 0: yes unless every one
/// of them with EFA has an ENA-only card 0 (a class whose pools launch only p6-b300).
pub fn efa_on_card_zero(types: &[&crate::catalog::instances::InstanceType]) -> bool {
    let with_efa: Vec<_> = types
        .iter()
        .filter(|instance_type| instance_type.efa_interfaces > 0)
        .collect();
    with_efa.is_empty()
        || with_efa
            .iter()
            .any(|instance_type| instance_type.efa_on_card_zero)
}

/// How many EFA devices a class's interfaces ask for: Karpenter launches only instance
/// types with at least as many EFA interfaces.
pub fn efa_devices(interfaces: &[NetworkInterface]) -> usize {
    interfaces
        .iter()
        .filter(|interface| interface.interface_type == EFA_ONLY)
        .count()
}

/// A `karpenter.sh/v1alpha1` `NodeOverlay`: changes the price or the extended resources
/// Karpenter assumes for the instance types its requirements select, when it chooses what
/// to launch.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeOverlay {
    /// Name and other metadata.
    pub metadata: ObjectMeta,
    /// The overlay's settings.
    pub spec: NodeOverlaySpec,
    /// Unmodelled top-level keys (e.g. `status`), kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

declare_fields! {
    NodeOverlay;
    NAME: fields::NODE_OVERLAY, "metadata.name", "NodeOverlay name";
    SPEC: fields::NODE_OVERLAY, "spec", "NodeOverlay";
    REQUIREMENTS: fields::NODE_OVERLAY, "spec.requirements", "Requirements";
    PRICE_ADJUSTMENT: fields::NODE_OVERLAY, "spec.priceAdjustment", "Price adjustment";
    PRICE: fields::NODE_OVERLAY, "spec.price", "Price (replaces the instance price)";
    WEIGHT: fields::NODE_OVERLAY, "spec.weight", "Weight";
    CAPACITY: fields::NODE_OVERLAY, "spec.capacity", "Extended resources the nodes have";
}

/// `NodeOverlay.spec`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeOverlaySpec {
    /// Which instance types (and pools) the overlay applies to.
    #[serde(default)]
    pub requirements: Vec<Requirement>,
    /// A change to the price: `-0.5`, `+1.2`, `+10%`, `-15%`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_adjustment: Option<String>,
    /// A price that replaces the instance type's (exclusive with `price_adjustment`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<String>,
    /// Extended resources the nodes are assumed to have (e.g. `smarter-devices/fuse: 1`).
    #[serde(default, skip_serializing_if = "Explicit::is_absent")]
    pub capacity: Explicit<BTreeMap<String, yaml_serde::Value>>,
    /// Order among overlays that select the same types, 1–10000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<u32>,
    /// Unmodelled keys, kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

impl NodeOverlay {
    /// The overlay the page adds: `overlay-N`, 10% off p5 instances (a Savings Plan's
    /// discount, so Karpenter weighs them at what they cost), weight 10.
    pub fn price_adjustment(number: usize) -> NodeOverlay {
        NodeOverlay {
            metadata: ObjectMeta {
                name: format!("overlay-{number}"),
                extra: Mapping::new(),
            },
            spec: NodeOverlaySpec {
                requirements: vec![Requirement::new(
                    "karpenter.k8s.aws/instance-family",
                    "In",
                    &["p5"],
                )],
                price_adjustment: Some("-10%".into()),
                weight: Some(10),
                ..NodeOverlaySpec::default()
            },
            extra: Mapping::new(),
        }
    }
}

/// `EC2NodeClass.spec.placementGroupSelector`: a placement group by name or by id, not both.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlacementGroupSelector {
    /// The group's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The group's id, `pg-…`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Unmodelled keys, kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

/// A selector term of any of the `*SelectorTerms` lists; each list accepts a subset
/// of these fields, which the rules check.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectorTerm {
    /// AMI alias, `family@version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    /// Resource id (`ami-`, `subnet-`, `sg-`, `cr-`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Resource name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Owning account (12 digits) of a capacity reservation.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "ownerID")]
    pub owner_id: Option<String>,
    /// `open` or `targeted` reservations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_match_criteria: Option<String>,
    /// Tags to match.
    #[serde(default, skip_serializing_if = "Explicit::is_absent")]
    pub tags: Explicit<BTreeMap<String, String>>,
    /// Unmodelled keys, kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

impl Ec2NodeClass {
    /// The node class the page adds: AL2023, `KarpenterNodeRole-<cluster>`, and subnets
    /// and security groups discovered by the cluster's [`DISCOVERY_TAG`].
    pub fn discovering(number: usize, cluster_name: &str) -> Ec2NodeClass {
        Ec2NodeClass {
            metadata: ObjectMeta {
                name: if number == 1 {
                    "gpu".to_owned()
                } else {
                    format!("gpu-{number}")
                },
                ..ObjectMeta::default()
            },
            spec: Ec2NodeClassSpec {
                role: Some(format!("KarpenterNodeRole-{cluster_name}")),
                ami_selector_terms: vec![SelectorTerm::alias("al2023@latest")],
                subnet_selector_terms: vec![SelectorTerm::tag(DISCOVERY_TAG, cluster_name)],
                security_group_selector_terms: vec![SelectorTerm::tag(DISCOVERY_TAG, cluster_name)],
                ..Ec2NodeClassSpec::default()
            },
            ..Ec2NodeClass::default()
        }
    }
}

impl SelectorTerm {
    /// The modelled fields this term sets, by their YAML names.
    pub fn fields_given(&self) -> Vec<&'static str> {
        [
            ("alias", self.alias.is_some()),
            ("id", self.id.is_some()),
            ("name", self.name.is_some()),
            ("ownerID", self.owner_id.is_some()),
            (
                "instanceMatchCriteria",
                self.instance_match_criteria.is_some(),
            ),
            ("tags", !self.tags.is_absent()),
        ]
        .into_iter()
        .filter_map(|(field, given)| given.then_some(field))
        .collect()
    }

    /// A term matching one tag.
    pub fn tag(key: &str, value: &str) -> SelectorTerm {
        SelectorTerm {
            tags: BTreeMap::from([(key.to_owned(), value.to_owned())]).into(),
            ..SelectorTerm::default()
        }
    }

    /// A term matching one id.
    pub fn id(id: &str) -> SelectorTerm {
        SelectorTerm {
            id: Some(id.into()),
            ..SelectorTerm::default()
        }
    }

    /// An AMI alias term.
    pub fn alias(alias: &str) -> SelectorTerm {
        SelectorTerm {
            alias: Some(alias.into()),
            ..SelectorTerm::default()
        }
    }
}

/// The IDs among `terms` (the terms by tag are not listed).
pub fn term_ids(terms: &[SelectorTerm]) -> Vec<String> {
    terms.iter().filter_map(|term| term.id.clone()).collect()
}

/// Replaces the terms by ID with one term per ID of `ids`, keeping the terms by tag.
pub fn set_term_ids(terms: &mut Vec<SelectorTerm>, ids: &[String]) {
    terms.retain(|term| term.id.is_none());
    terms.extend(ids.iter().map(|id| SelectorTerm::id(id)));
}

/// Sets the owning account (`ownerID`) of the capacity-reservation terms that do not
/// select by `id` (an `id` term may not name an owner). With no such term, a term of the
/// owner alone keeps it until tags are added; an empty `owner` takes it off every term
/// and drops a term that held nothing else.
pub fn set_reservation_owner(terms: &mut Vec<SelectorTerm>, owner: &str) {
    let owner = (!owner.is_empty()).then(|| owner.to_owned());
    let mut found = false;
    terms.retain_mut(|term| {
        if term.id.is_some() {
            return true;
        }
        found = true;
        let had_owner = term.owner_id.is_some();
        term.owner_id.clone_from(&owner);
        !(had_owner && *term == SelectorTerm::default())
    });
    if !found && owner.is_some() {
        terms.push(SelectorTerm {
            owner_id: owner,
            ..SelectorTerm::default()
        });
    }
}

/// A document with `apiVersion` and `kind`, as written to YAML.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Document<'a, T: Serialize> {
    /// API version.
    pub api_version: &'a str,
    /// Kind.
    pub kind: &'a str,
    /// Metadata and spec, flattened beside apiVersion and kind.
    #[serde(flatten)]
    pub body: &'a T,
}

/// Helm values for the Karpenter controller chart (`karpenter/values.yaml`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HelmValues {
    /// Controller settings.
    pub settings: HelmSettings,
}

/// `settings` of the Karpenter chart.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HelmSettings {
    /// The cluster Karpenter manages.
    pub cluster_name: String,
    /// SQS queue with Spot interruption and rebalance events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interruption_queue: Option<String>,
    /// Feature gates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feature_gates: Option<FeatureGates>,
}

/// `settings.featureGates`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeatureGates {
    /// Replace Spot nodes with cheaper Spot nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spot_to_spot_consolidation: Option<bool>,
    /// Launch into ODCRs and Capacity Blocks selected by the node classes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved_capacity: Option<bool>,
    /// Replace nodes whose status conditions stay unhealthy (alpha, off by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_repair: Option<bool>,
    /// Keep static NodePools (`spec.replicas`) at their node count (alpha, off by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_capacity: Option<bool>,
    /// Read NodeOverlays when choosing instance types (alpha, off by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_overlay: Option<bool>,
}

/// `^pg-[0-9a-z]+$`, the CRD's pattern for a placement group id.
pub fn is_placement_group_id(id: &str) -> bool {
    id.strip_prefix("pg-").is_some_and(|rest| {
        !rest.is_empty()
            && rest
                .bytes()
                .all(|byte| byte.is_ascii_digit() || byte.is_ascii_lowercase())
    })
}

/// Changes a class's placement group selector, creating it when needed and dropping it
/// when the change leaves it empty.
pub fn edit_placement_group(
    selector: &mut Option<PlacementGroupSelector>,
    change: impl FnOnce(&mut PlacementGroupSelector),
) {
    change(selector.get_or_insert_with(PlacementGroupSelector::default));
    if selector.as_ref() == Some(&PlacementGroupSelector::default()) {
        *selector = None;
    }
}

/// The value of the [`DISCOVERY_TAG`] of the first term that has it (empty if none).
pub fn discovery_value(terms: &[SelectorTerm]) -> String {
    terms
        .iter()
        .find_map(|term| term.tags.get(DISCOVERY_TAG).cloned())
        .unwrap_or_default()
}

/// Makes the first term discover by [`DISCOVERY_TAG`] `value` (none when empty), keeping
/// every term that does not use the tag.
pub fn set_discovery(terms: &mut Vec<SelectorTerm>, value: String) {
    terms.retain(|term| !term.tags.contains_key(DISCOVERY_TAG));
    if !value.is_empty() {
        terms.insert(0, SelectorTerm::tag(DISCOVERY_TAG, &value));
    }
}

/// The body of a Kubernetes object (everything but `apiVersion` and `kind`).
pub(crate) fn object_body(document: &yaml_serde::Value) -> yaml_serde::Value {
    let mut body = document.clone();
    if let Some(mapping) = body.as_mapping_mut() {
        mapping.remove("apiVersion");
        mapping.remove("kind");
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reservation_owner_goes_on_tag_terms_and_comes_off_again() {
        let mut terms = vec![
            SelectorTerm::id("cr-0123456789abcdef0"),
            SelectorTerm::tag("purpose", "training"),
            SelectorTerm::default(),
        ];
        set_reservation_owner(&mut terms, "123456789012");
        assert_eq!(terms[0].owner_id, None, "an id term may not name an owner");
        assert_eq!(terms[1].owner_id.as_deref(), Some("123456789012"));
        assert_eq!(terms[2].owner_id.as_deref(), Some("123456789012"));
        set_reservation_owner(&mut terms, "");
        assert_eq!(
            terms,
            vec![
                SelectorTerm::id("cr-0123456789abcdef0"),
                SelectorTerm::tag("purpose", "training"),
            ],
            "the owner is gone, and so is the term that only held it"
        );
    }

    #[test]
    fn an_owner_without_tag_terms_is_kept_in_a_term_of_its_own() {
        let mut terms = vec![SelectorTerm::id("cr-0123456789abcdef0")];
        set_reservation_owner(&mut terms, "12345");
        assert_eq!(terms.len(), 2);
        assert_eq!(terms[1].owner_id.as_deref(), Some("12345"), "kept as typed");
        set_reservation_owner(&mut terms, "");
        assert_eq!(terms, vec![SelectorTerm::id("cr-0123456789abcdef0")]);
    }
}
