//! Rendering goes spec → typed upstream structs → YAML values → text; there are no
//! string templates. Keys an import brought in that the studio does not model are merged
//! back under the modelled ones, so import followed by render keeps every key.

use yaml_serde::{Mapping, Value};

use crate::documents::cluster::cluster_config;
use crate::model::spec::{KarpenterSettings, Network, Spec};
use crate::upstream::karpenter::{self, Document, FeatureGates, HelmSettings, HelmValues};

/// A spec that could not be turned into YAML.
#[derive(Debug)]
pub struct RenderError(yaml_serde::Error);

impl std::fmt::Display for RenderError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "could not render YAML: {}", self.0)
    }
}

impl std::error::Error for RenderError {}

impl From<yaml_serde::Error> for RenderError {
    fn from(error: yaml_serde::Error) -> RenderError {
        RenderError(error)
    }
}

/// Where the eksctl `ClusterConfig` lives inside a bundle.
pub const CLUSTER_YAML_PATH: &str = "cluster.yaml";
/// Where the rendered Karpenter files live inside a bundle.
pub const NODEPOOLS_PATH: &str = "karpenter/nodepools.yaml";
/// Where the Karpenter Helm values live inside a bundle.
pub const KARPENTER_VALUES_PATH: &str = "karpenter/values.yaml";

/// Renders the spec's eksctl `ClusterConfig` as YAML (`cluster.yaml`).
pub fn render_cluster_yaml(spec: &Spec) -> Result<String, RenderError> {
    Ok(crate::yaml::text::to_string(&cluster_document(spec)?)?)
}

/// The spec's `ClusterConfig` as a YAML value, with imported unmodelled keys merged back.
pub fn cluster_document(spec: &Spec) -> Result<Value, RenderError> {
    let mut document = yaml_serde::to_value(cluster_config(spec))?;
    if let Some(groups) = document
        .get_mut("managedNodeGroups")
        .and_then(Value::as_sequence_mut)
    {
        for (rendered, group) in groups.iter_mut().zip(&spec.node_groups) {
            merge_under(rendered, &group.extra);
        }
    }
    if let Some(addons) = document.get_mut("addons").and_then(Value::as_sequence_mut) {
        for (rendered, addon) in addons.iter_mut().zip(&spec.addons) {
            merge_associations(rendered, &addon.pod_identity_associations);
            merge_under(rendered, &addon.extra);
        }
    }
    if let Some(iam) = document.get_mut("iam") {
        merge_associations(iam, &spec.cluster.pod_identity_associations);
    }
    if let Some(access) = &spec.cluster.access
        && let Some(entries) = document
            .get_mut("accessConfig")
            .and_then(|config| config.get_mut("accessEntries"))
            .and_then(Value::as_sequence_mut)
    {
        for (rendered, entry) in entries.iter_mut().zip(&access.access_entries) {
            merge_access_policies(rendered, &entry.access_policies);
            merge_under(rendered, &entry.extra);
        }
    }
    if let Network::ExistingVpc {
        public_subnets,
        private_subnets,
        ..
    } = &spec.network
    {
        for (kind, subnets) in [("public", public_subnets), ("private", private_subnets)] {
            for subnet in subnets {
                if let Some(rendered) = document
                    .get_mut("vpc")
                    .and_then(|vpc| vpc.get_mut("subnets"))
                    .and_then(|all| all.get_mut(kind))
                    .and_then(|by_name| by_name.get_mut(subnet.name.as_str()))
                {
                    merge_under(rendered, &subnet.extra);
                }
            }
        }
    }
    merge_under(&mut document, &spec.eksctl_extra);
    Ok(document)
}

/// Merges each access policy's leftovers into its entry of the `accessPolicies` list under
/// an access entry.
pub fn merge_access_policies(entry: &mut Value, policies: &[crate::model::spec::AccessPolicy]) {
    if let Some(items) = entry
        .get_mut("accessPolicies")
        .and_then(Value::as_sequence_mut)
    {
        for (rendered, policy) in items.iter_mut().zip(policies) {
            merge_under(rendered, &policy.extra);
        }
    }
}

/// Merges each Pod Identity association's leftovers into its entry of the
/// `podIdentityAssociations` list under `parent`.
pub fn merge_associations(
    parent: &mut Value,
    associations: &[crate::model::spec::PodIdentityAssociation],
) {
    if let Some(items) = parent
        .get_mut("podIdentityAssociations")
        .and_then(Value::as_sequence_mut)
    {
        for (rendered, association) in items.iter_mut().zip(associations) {
            merge_under(rendered, &association.extra);
        }
    }
}

/// Adds the keys of `extra` that `rendered` lacks, recursing into mappings both have;
/// where both have a key, the rendered (modelled) value wins.
pub fn merge_under(rendered: &mut Value, extra: &Mapping) {
    let Some(rendered) = rendered.as_mapping_mut() else {
        return;
    };
    for (key, extra_value) in extra {
        match rendered.get_mut(key) {
            None => {
                rendered.insert(key.clone(), extra_value.clone());
            }
            Some(existing) => {
                if let Some(extra_mapping) = extra_value.as_mapping()
                    && existing.is_mapping()
                {
                    merge_under(existing, extra_mapping);
                }
            }
        }
    }
}

/// The Karpenter documents as YAML values: every `NodePool`, then every `EC2NodeClass`.
pub fn karpenter_documents(karpenter: &KarpenterSettings) -> Result<Vec<Value>, RenderError> {
    let pools = karpenter.node_pools.iter().map(|pool| {
        yaml_serde::to_value(Document {
            api_version: karpenter::NODE_POOL_API_VERSION,
            kind: "NodePool",
            body: pool,
        })
    });
    let classes = karpenter.node_classes.iter().map(|class| {
        yaml_serde::to_value(Document {
            api_version: karpenter::NODE_CLASS_API_VERSION,
            kind: "EC2NodeClass",
            body: class,
        })
    });
    let overlays = karpenter.node_overlays.iter().map(|overlay| {
        yaml_serde::to_value(Document {
            api_version: karpenter::NODE_OVERLAY_API_VERSION,
            kind: "NodeOverlay",
            body: overlay,
        })
    });
    Ok(pools
        .chain(classes)
        .chain(overlays)
        .collect::<Result<_, _>>()?)
}

/// Renders Karpenter's `NodePool` and `EC2NodeClass` objects as one multi-document YAML
/// (`karpenter/nodepools.yaml`), or nothing when the spec has no Karpenter pools.
pub fn render_karpenter_yaml(spec: &Spec) -> Result<Option<String>, RenderError> {
    let Some(karpenter) = &spec.karpenter else {
        return Ok(None);
    };
    let documents = karpenter_documents(karpenter)?;
    let texts = documents
        .iter()
        .map(crate::yaml::text::to_string)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(texts.join("---\n")))
}

/// Whether any pool may launch into reserved capacity (ODCRs or Capacity Blocks).
pub fn uses_reserved_capacity(karpenter: &KarpenterSettings) -> bool {
    let pool_allows_reserved = karpenter.node_pools.iter().any(|pool| {
        pool.spec
            .template
            .spec
            .requirements
            .iter()
            .any(|requirement| {
                requirement.key == "karpenter.sh/capacity-type"
                    && requirement.operator == "In"
                    && requirement.values.iter().any(|value| value == "reserved")
            })
    });
    let class_selects_reservations = karpenter
        .node_classes
        .iter()
        .any(|class| !class.spec.capacity_reservation_selector_terms.is_empty());
    pool_allows_reserved || class_selects_reservations
}

/// The Karpenter controller's Helm values the spec needs (`karpenter/values.yaml`).
pub fn karpenter_values(spec: &Spec) -> Option<HelmValues> {
    let karpenter = spec.karpenter.as_ref()?;
    let feature_gates = FeatureGates {
        spot_to_spot_consolidation: karpenter.spot_to_spot_consolidation.then_some(true),
        reserved_capacity: uses_reserved_capacity(karpenter).then_some(true),
        node_repair: karpenter.node_repair.then_some(true),
        static_capacity: karpenter
            .node_pools
            .iter()
            .any(|pool| pool.spec.replicas.is_some())
            .then_some(true),
        node_overlay: (!karpenter.node_overlays.is_empty()).then_some(true),
    };
    Some(HelmValues {
        settings: HelmSettings {
            cluster_name: spec.cluster.name.clone(),
            interruption_queue: karpenter.interruption_queue.clone(),
            feature_gates: (feature_gates != FeatureGates::default()).then_some(feature_gates),
        },
    })
}

/// Renders `karpenter/values.yaml`, or nothing without Karpenter.
pub fn render_karpenter_values(spec: &Spec) -> Result<Option<String>, RenderError> {
    karpenter_values(spec)
        .map(|values| crate::yaml::text::to_string(&values))
        .transpose()
        .map_err(RenderError)
}
