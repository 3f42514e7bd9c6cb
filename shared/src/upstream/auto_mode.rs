//! EKS Auto Mode's objects as EKS reads them: NodePools on an `eks.amazonaws.com/v1`
//! NodeClass, and the NodeClass itself (EKS user guide, "Create a Node Pool for EKS Auto
//! Mode" and "Create a Node Class for Amazon EKS"). How they are written to and read from
//! the bundle is `documents::auto_mode`.

use crate::fields::{self, declare_fields};
use serde::{Deserialize, Serialize};
use yaml_serde::Mapping;

use crate::upstream::karpenter::{NodePool, ObjectMeta, SelectorTerm};

/// The NodeClass's API group.
pub const GROUP: &str = "eks.amazonaws.com";
/// The NodeClass's `apiVersion`.
pub const NODE_CLASS_API_VERSION: &str = "eks.amazonaws.com/v1";
/// The NodeClass's `kind`.
pub const NODE_CLASS_KIND: &str = "NodeClass";
/// The NodeClass EKS makes with the built-in node pools.
pub const BUILT_IN_NODE_CLASS: &str = "default";

fn is_empty_mapping(mapping: &Mapping) -> bool {
    mapping.is_empty()
}

/// Auto Mode's NodePools and the NodeClasses they name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AutoModePools {
    /// NodePools on an `eks.amazonaws.com` NodeClass.
    #[serde(default)]
    pub node_pools: Vec<NodePool>,
    /// `eks.amazonaws.com/v1` NodeClasses.
    #[serde(default)]
    pub node_classes: Vec<NodeClass>,
}

impl AutoModePools {
    /// Whether there is nothing to apply.
    pub fn is_empty(&self) -> bool {
        self.node_pools.is_empty() && self.node_classes.is_empty()
    }
}

/// An `eks.amazonaws.com/v1` NodeClass.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeClass {
    /// Name and other metadata.
    pub metadata: ObjectMeta,
    /// The class's settings.
    pub spec: NodeClassSpec,
    /// Unmodelled top-level keys (e.g. `status`), kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

declare_fields! {
    NodeClass;
    NAME: fields::AUTO_MODE_NODE_CLASS, "metadata.name", "NodeClass name";
    ROLE: fields::AUTO_MODE_NODE_CLASS, "spec.role", "Node IAM role";
    SUBNETS: fields::AUTO_MODE_NODE_CLASS, "spec.subnetSelectorTerms", "Subnet IDs";
    SECURITY_GROUPS: fields::AUTO_MODE_NODE_CLASS, "spec.securityGroupSelectorTerms", "Security group IDs";
    RESERVATIONS: fields::AUTO_MODE_NODE_CLASS, "spec.capacityReservationSelectorTerms", "Capacity reservation IDs (ODCR or Capacity Block)";
}

/// `NodeClass.spec`: the settings the studio edits; the others (`ephemeralStorage`,
/// `networkPolicy`, `snatPolicy`, `tags`, …) are kept as given.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeClassSpec {
    /// The nodes' IAM role; absent: Auto Mode's node role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Which subnets to launch into.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subnet_selector_terms: Vec<SelectorTerm>,
    /// Which security groups the nodes get.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub security_group_selector_terms: Vec<SelectorTerm>,
    /// Which ODCRs and Capacity Blocks the nodes may launch into.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capacity_reservation_selector_terms: Vec<SelectorTerm>,
    /// Unmodelled keys, kept as given.
    #[serde(flatten, skip_serializing_if = "is_empty_mapping")]
    pub extra: Mapping,
}

/// The NodeClass a pool names, when it names one of Auto Mode's and the design has it.
pub fn class_of<'a>(pools: &'a AutoModePools, pool: &NodePool) -> Option<&'a NodeClass> {
    let reference = &pool.spec.template.spec.node_class_ref;
    (reference.group == GROUP)
        .then(|| {
            pools
                .node_classes
                .iter()
                .find(|class| class.metadata.name == reference.name)
        })
        .flatten()
}
