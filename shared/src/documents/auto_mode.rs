//! EKS Auto Mode's own node pools: `karpenter.sh/v1` NodePools whose `nodeClassRef` names an
//! `eks.amazonaws.com/v1` NodeClass, which EKS's managed Karpenter acts on (EKS user guide,
//! "Create a Node Pool for EKS Auto Mode" and "Create a Node Class for Amazon EKS"). They
//! are written to their own file (`auto-mode/nodepools.yaml`), applied with `kubectl` once
//! the cluster is up and deleted before it goes; no Karpenter controller is installed for
//! them.
//!
//! A NodeClass reaches reserved capacity only through `capacityReservationSelectorTerms`:
//! Capacity Blocks for ML are never used without them, and nodes launched into a selected
//! reservation carry `karpenter.sh/capacity-type: reserved` (EKS user guide, "Control
//! deployment of workloads into Capacity Reservations with EKS Auto Mode").

use yaml_serde::Value;

use crate::yaml::node::Node;

use crate::documents::render::RenderError;
use crate::model::spec::Spec;
use crate::upstream::auto_mode::{
    AutoModePools, GROUP, NODE_CLASS_API_VERSION, NODE_CLASS_KIND, NodeClass,
};
use crate::upstream::karpenter::{Document, NodePool, ObjectMeta};

/// Where the bundle keeps Auto Mode's NodePools and NodeClasses.
pub const PATH: &str = "auto-mode/nodepools.yaml";
/// The NodePool the page's "Add Auto Mode NodePool" adds: Karpenter's GPU pool (`gpu-N`,
/// GPU categories g and p, On-Demand, tainted for GPUs, at most 16 GPUs) on the Auto Mode
/// NodeClass `class_name`, its category read from Auto Mode's own label.
pub fn gpu_pool(number: usize, class_name: &str) -> NodePool {
    let mut pool = NodePool::gpu(number, class_name);
    pool.metadata.name = format!("auto-gpu-{number}");
    let claim = &mut pool.spec.template.spec;
    claim.node_class_ref.group = GROUP.into();
    claim.node_class_ref.kind = NODE_CLASS_KIND.into();
    for requirement in claim.requirements.iter_mut() {
        if let Some(label) = requirement.key.strip_prefix("karpenter.k8s.aws/") {
            requirement.key = format!("{GROUP}/{label}");
        }
    }
    pool
}

/// The NodeClass the page's "Add Auto Mode NodeClass" adds: `class-N`, Auto Mode's node
/// role, and no selector yet (the page asks for subnet, security group and reservation
/// IDs).
pub fn node_class(number: usize) -> NodeClass {
    NodeClass {
        metadata: ObjectMeta {
            name: format!("class-{number}"),
            ..ObjectMeta::default()
        },
        ..NodeClass::default()
    }
}

fn text<'a>(document: Node<'a>, path: &[&str]) -> Option<&'a str> {
    let mut value = document;
    for key in path {
        value = value.get(key)?;
    }
    value.as_str()
}

/// Whether a document is an `eks.amazonaws.com/v1` NodeClass.
pub fn is_node_class<'a>(document: impl Into<Node<'a>>) -> bool {
    let document = document.into();
    text(document, &["apiVersion"]) == Some(NODE_CLASS_API_VERSION)
        && text(document, &["kind"]) == Some(NODE_CLASS_KIND)
}

/// Whether a document is a NodePool on an `eks.amazonaws.com` NodeClass.
pub fn is_auto_mode_pool<'a>(document: impl Into<Node<'a>>) -> bool {
    let document = document.into();
    text(document, &["apiVersion"]) == Some(crate::upstream::karpenter::NODE_POOL_API_VERSION)
        && text(document, &["kind"]) == Some("NodePool")
        && text(
            document,
            &["spec", "template", "spec", "nodeClassRef", "group"],
        ) == Some(GROUP)
}

/// The documents of `auto-mode/nodepools.yaml`: every NodePool, then every NodeClass.
pub fn documents(pools: &AutoModePools) -> Result<Vec<Value>, RenderError> {
    let mut documents = Vec::with_capacity(pools.node_pools.len() + pools.node_classes.len());
    for pool in &pools.node_pools {
        documents.push(yaml_serde::to_value(Document {
            api_version: crate::upstream::karpenter::NODE_POOL_API_VERSION,
            kind: "NodePool",
            body: pool,
        })?);
    }
    for class in &pools.node_classes {
        documents.push(yaml_serde::to_value(Document {
            api_version: NODE_CLASS_API_VERSION,
            kind: NODE_CLASS_KIND,
            body: class,
        })?);
    }
    Ok(documents)
}

/// `auto-mode/nodepools.yaml`, or nothing when the design has no Auto Mode pool or class.
pub fn render(spec: &Spec) -> Result<Option<String>, RenderError> {
    if spec.auto_mode_pools.is_empty() {
        return Ok(None);
    }
    let texts = documents(&spec.auto_mode_pools)?
        .iter()
        .map(crate::yaml::text::to_string)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(texts.join("---\n")))
}

/// Which of Auto Mode's objects a document is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Object {
    /// A NodePool on an `eks.amazonaws.com` NodeClass.
    NodePool,
    /// An `eks.amazonaws.com/v1` NodeClass.
    NodeClass,
}

/// Reads `document` into `pools` when it is one of Auto Mode's objects, saying which;
/// `None` for any other document, serde's words for one that does not read.
pub fn read_into<'a>(
    document: impl Into<Node<'a>>,
    pools: &mut AutoModePools,
) -> Result<Option<Object>, String> {
    let document = document.into();
    let body = || crate::upstream::karpenter::object_body(&document.to_value());
    if is_auto_mode_pool(document) {
        let pool = yaml_serde::from_value(body()).map_err(|error| error.to_string())?;
        pools.node_pools.push(pool);
        Ok(Some(Object::NodePool))
    } else if is_node_class(document) {
        let class = yaml_serde::from_value(body()).map_err(|error| error.to_string())?;
        pools.node_classes.push(class);
        Ok(Some(Object::NodeClass))
    } else {
        Ok(None)
    }
}
