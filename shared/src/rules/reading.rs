//! How the rules read a document as eksctl decodes it: whether it is a `ClusterConfig`,
//! its node groups with their kind and path, a key's text, number, flag or list, whether
//! a key holds anything (eksctl's `!= nil`), the Kubernetes version it asks for, and a
//! child's path; a design's Karpenter NodePools and EC2NodeClasses with their places.

use super::Context;
use crate::fields;
use crate::upstream::karpenter::{Ec2NodeClass, NodePool};
use crate::upstream::schema_check::DocumentKind;
use crate::yaml::node::{Kind as NodeKind, Node, Seq};

pub(super) fn is_cluster_config(document: Node<'_>) -> bool {
    DocumentKind::of(document) == DocumentKind::ClusterConfig
}

/// Self-managed (`nodeGroups`) or managed (`managedNodeGroups`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    SelfManaged,
    Managed,
}

pub(super) fn groups(document: Node<'_>) -> Vec<(String, Kind, Node<'_>)> {
    if !is_cluster_config(document) {
        return Vec::new();
    }
    let mut all = Vec::new();
    for (key, kind) in [
        ("nodeGroups", Kind::SelfManaged),
        ("managedNodeGroups", Kind::Managed),
    ] {
        if let Some(list) = document.get(key).and_then(Node::as_sequence) {
            for (index, group) in list.iter().enumerate() {
                all.push((format!("{key}[{index}]"), kind, group));
            }
        }
    }
    all
}

/// `base` followed by `key` as a path segment: `.key`, or `["key"]` for keys with dots.
pub(super) fn child(base: &str, key: &str) -> String {
    let segment = crate::yaml::source::YamlPath::root()
        .with_key(key)
        .to_string();
    if segment.starts_with('[') {
        format!("{base}{segment}")
    } else {
        format!("{base}.{segment}")
    }
}

pub(super) fn text<'a>(value: Node<'a>, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Node::as_str)
}

pub(super) fn non_empty<'a>(value: Node<'a>, key: &str) -> Option<&'a str> {
    text(value, key).filter(|text| !text.is_empty())
}

pub(super) fn flag(value: Node<'_>, key: &str) -> Option<bool> {
    value.get(key).and_then(Node::as_bool)
}

pub(super) fn enabled(value: Node<'_>, key: &str) -> bool {
    flag(value, key) == Some(true)
}

pub(super) fn number(value: Node<'_>, key: &str) -> Option<i64> {
    value.get(key).and_then(Node::as_i64)
}

pub(super) fn list<'a>(value: Node<'a>, key: &str) -> Seq<'a> {
    value
        .get(key)
        .and_then(Node::as_sequence)
        .unwrap_or_default()
}

/// A key that is present with something in it (eksctl's `!= nil` / `len > 0` on the Go
/// value): null and empty collections count as absent.
pub(super) fn has(value: Node<'_>, key: &str) -> bool {
    match value.get(key).map(|found| found.untagged().kind()) {
        None | Some(NodeKind::Null) => false,
        Some(NodeKind::Sequence(items)) => !items.is_empty(),
        Some(NodeKind::Mapping(map)) => !map.is_empty(),
        Some(NodeKind::String(text)) => !text.is_empty(),
        Some(_) => true,
    }
}

pub(super) fn kubernetes_version(document: Node<'_>) -> Option<(u32, u32)> {
    let version = document.get("metadata")?.get("version")?;
    let text = match version.untagged().kind() {
        NodeKind::String(text) => text.to_owned(),
        NodeKind::Number(number) => number.to_string(),
        _ => return None,
    };
    let (major, minor) = text.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

pub(super) fn pools<'a>(
    context: &Context<'a>,
) -> impl Iterator<Item = (usize, &'a NodePool)> + use<'a> {
    context
        .spec
        .karpenter
        .iter()
        .flat_map(|karpenter| karpenter.node_pools.iter().enumerate())
}

pub(super) fn classes<'a>(
    context: &Context<'a>,
) -> impl Iterator<Item = (usize, &'a Ec2NodeClass)> + use<'a> {
    context
        .spec
        .karpenter
        .iter()
        .flat_map(|karpenter| karpenter.node_classes.iter().enumerate())
}

pub(super) fn pool_path(index: usize) -> String {
    fields::item(fields::KARPENTER_POOL, &[index])
}

pub(super) fn class_path(index: usize) -> String {
    fields::item(fields::NODE_CLASS_ITEM, &[index])
}
