//! Import reads what the studio models into the spec and keeps everything else, per
//! object, in the spec's `extra` mappings; rendering merges those back. The leftovers
//! are computed against what rendering the imported spec would write, so a value the
//! model would write differently (an explicit `false`, an empty list) is kept as well.
//!
//! A spec must always be writable as JSON (`studio.json`, drafts, share links), whose keys
//! are strings; so a document with any other key (`1:`, `~:`, `!tag key:`, `[a, b]:`) is
//! refused at that key rather than imported into a spec that could not be saved.

use serde::de::DeserializeOwned;
use yaml_serde::{Mapping, Value};

use crate::documents::cluster;
use crate::documents::render;
use crate::model::spec::{
    Addon, KarpenterSettings, Network, NodeGroup, PodIdentityAssociation, Spec, Subnet,
};
use crate::upstream::eksctl;
use crate::upstream::karpenter::{Ec2NodeClass, NodeOverlay, NodePool};
use crate::upstream::schema_check::SchemaIssueKind;
use crate::yaml::node::{Kind, Node};
use crate::yaml::source::YamlPath;

/// Why a document could not be imported; `path` is the path inside the document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    /// Path inside the document, e.g. `managedNodeGroups[1].taints`.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            formatter.write_str(&self.message)
        } else {
            write!(formatter, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ImportError {}

fn error(path: impl Into<String>, message: impl Into<String>) -> ImportError {
    ImportError {
        path: path.into(),
        message: message.into(),
    }
}

pub use crate::upstream::schema_check::DocumentKind;

/// Recognises a document the studio imports, or says plainly what it is instead.
pub fn document_kind<'a>(document: impl Into<Node<'a>>) -> Result<DocumentKind, ImportError> {
    let document = document.into();
    if !document.is_mapping() {
        return Err(error(
            "",
            "a document must be a mapping with apiVersion and kind",
        ));
    }
    match DocumentKind::of(document) {
        DocumentKind::Unknown { api_version, kind } => match (api_version, kind) {
            (None, _) => Err(error("apiVersion", "the document has no apiVersion")),
            (_, None) => Err(error("kind", "the document has no kind")),
            (Some(api_version), Some(kind)) => Err(match retired_karpenter(&api_version, &kind) {
                Some(message) => error("apiVersion", message),
                None => error(
                    "kind",
                    format!(
                        "`{kind}` in `{api_version}` is not an eksctl ClusterConfig (eksctl.io/v1alpha5), a Karpenter NodePool (karpenter.sh/v1), an EC2NodeClass (karpenter.k8s.aws/v1) or a NodeOverlay (karpenter.sh/v1alpha1)"
                    ),
                ),
            }),
        },
        known => Ok(known),
    }
}

/// What the API server says of a Karpenter kind in a version Karpenter no longer serves,
/// and what it became. The provider's CRDs (aws/karpenter-provider-aws
/// `pkg/apis/crds/`): v0.33.0 dropped `Provisioner` (karpenter.sh/v1alpha5) and
/// `AWSNodeTemplate` (karpenter.k8s.aws/v1alpha1); v1.0 served v1beta1 beside v1 for the
/// move, and v1.1.0 serves v1 alone.
fn retired_karpenter(api_version: &str, kind: &str) -> Option<String> {
    let (last, now) = match (api_version, kind) {
        ("karpenter.sh/v1alpha5", "Provisioner") => ("0.32", "a NodePool in karpenter.sh/v1"),
        ("karpenter.k8s.aws/v1alpha1", "AWSNodeTemplate") => {
            ("0.32", "an EC2NodeClass in karpenter.k8s.aws/v1")
        }
        ("karpenter.sh/v1beta1", "NodePool") => ("1.0", "a NodePool in karpenter.sh/v1"),
        ("karpenter.k8s.aws/v1beta1", "EC2NodeClass") => {
            ("1.0", "an EC2NodeClass in karpenter.k8s.aws/v1")
        }
        _ => return None,
    };
    Some(format!(
        "Karpenter serves `{kind}` in `{api_version}` up to release {last} only: on a cluster with a newer Karpenter, `kubectl apply` fails (`no matches for kind \"{kind}\" in version \"{api_version}\"`). Write it as {now} (Karpenter's upgrade guide lists what moved)"
    ))
}

/// What the model would write for `original`, removed from it: the keys the model does
/// not cover, and the values it would write differently.
pub fn leftover(original: &Value, rendered: &Value) -> Option<Value> {
    match (original, rendered) {
        (Value::Mapping(original), Value::Mapping(rendered)) => {
            let mut kept = Mapping::new();
            for (key, value) in original {
                match rendered.get(key) {
                    None => {
                        kept.insert(key.clone(), value.clone());
                    }
                    Some(rendered_value) => {
                        if let Some(rest) = leftover(value, rendered_value) {
                            kept.insert(key.clone(), rest);
                        }
                    }
                }
            }
            (!kept.is_empty()).then_some(Value::Mapping(kept))
        }
        (original, rendered) if original == rendered => None,
        (original, _) => Some(original.clone()),
    }
}

fn leftover_mapping(original: &Value, rendered: &Value) -> Mapping {
    match leftover(original, rendered) {
        Some(Value::Mapping(mapping)) => mapping,
        _ => Mapping::new(),
    }
}

/// The first mapping key under `value` that is not a plain string: an error at the entry
/// it opens (or at its mapping, for a key that is itself a collection). `path` is where
/// `value` is; it is walked in place, so a large document costs no path per key.
fn non_string_key(value: Node<'_>, path: &mut YamlPath) -> Option<ImportError> {
    match value.kind() {
        Kind::Mapping(mapping) => mapping.iter().find_map(|(key, item)| match key.kind() {
            Kind::String(name) => {
                path.push_key(name);
                let found = non_string_key(item, path);
                path.pop();
                found
            }
            other => {
                let described = match other {
                    Kind::Null => "a null key".to_owned(),
                    Kind::Bool(boolean) => format!("the key `{boolean}`"),
                    Kind::Number(number) => format!("the key `{number}`"),
                    Kind::Tagged(..) => "a tagged key".to_owned(),
                    Kind::Sequence(_) => "a sequence used as a key".to_owned(),
                    _ => "a mapping used as a key".to_owned(),
                };
                let entry = match key.key_text() {
                    Some(text) => path.with_key(text.into_owned()),
                    None => path.clone(),
                };
                Some(error(
                    entry.to_string(),
                    format!(
                        "{described} is not a string; the studio saves designs as JSON, whose keys are strings (quote it)"
                    ),
                ))
            }
        }),
        Kind::Sequence(items) => items.iter().enumerate().find_map(|(index, item)| {
            path.push_index(index);
            let found = non_string_key(item, path);
            path.pop();
            found
        }),
        Kind::Tagged(_, inner) => non_string_key(inner, path),
        Kind::Null | Kind::Bool(_) | Kind::Number(_) | Kind::String(_) => None,
    }
}

/// Refuses a document with a key the spec could not keep (see the module docs).
fn string_keys_only(document: Node<'_>) -> Result<(), ImportError> {
    match non_string_key(document, &mut YamlPath::root()) {
        Some(refused) => Err(refused),
        None => Ok(()),
    }
}

/// Reads `value` through the typed eksctl structs, which read a field of another shape
/// as nothing (it then stays in the leftovers).
fn typed<T: DeserializeOwned + Default>(value: &Value) -> T {
    yaml_serde::from_value(value.clone()).unwrap_or_default()
}

/// The cluster-wide settings of a `ClusterConfig` through the typed structs, without the
/// lists of node groups and add-ons (read one by one elsewhere): a design of thousands of
/// groups is not copied and read a second time for its name and version.
fn typed_cluster(document: &Value) -> eksctl::ClusterConfig {
    let Some(mapping) = document.as_mapping() else {
        return eksctl::ClusterConfig::default();
    };
    let settings: Mapping = mapping
        .iter()
        .filter(|(key, _)| {
            !matches!(
                key.as_str(),
                Some("managedNodeGroups" | "nodeGroups" | "addons")
            )
        })
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    typed(&Value::Mapping(settings))
}

/// Imports an eksctl `ClusterConfig` document into a spec.
///
/// The managed node groups and add-ons are read one at a time, each copied out of the
/// document only while it is read: a design of thousands of groups is not held twice.
pub fn import_cluster_config<'a>(document: impl Into<Node<'a>>) -> Result<Spec, ImportError> {
    let document = document.into();
    readable_cluster_config(document)?;
    let read_one_by_one = |key: Node<'_>, item: Node<'_>| {
        matches!(key.as_str(), Some("managedNodeGroups" | "addons")) && item.is_sequence()
    };
    let top_level: Mapping = document
        .as_mapping()
        .into_iter()
        .flatten()
        .filter(|(key, item)| !read_one_by_one(*key, *item))
        .map(|(key, item)| (key.to_value(), item.to_value()))
        .collect();
    let mut spec = read_cluster_config(&Value::Mapping(top_level))?;
    let list = |key: &str| document.get(key).and_then(Node::as_sequence);
    if let Some(groups) = list("managedNodeGroups") {
        spec.node_groups.reserve_exact(groups.len());
        for group in groups {
            spec.node_groups.push(import_node_group(&group.to_value()));
        }
    }
    if let Some(addons) = list("addons") {
        for addon in addons {
            spec.addons.push(import_addon(&addon.to_value()));
        }
    }
    Ok(spec)
}

/// Whether `document` is a ClusterConfig the import can read.
fn readable_cluster_config(document: Node<'_>) -> Result<(), ImportError> {
    if document_kind(document)? != DocumentKind::ClusterConfig {
        return Err(error("kind", "expected an eksctl ClusterConfig"));
    }
    string_keys_only(document)
}

/// A ClusterConfig found readable ([`readable_cluster_config`]) as a spec.
fn read_cluster_config(document: &Value) -> Result<Spec, ImportError> {
    let mut cluster = cluster::cluster_settings(&typed_cluster(document));
    cluster.pod_identity_associations = document
        .get("iam")
        .map(import_associations)
        .unwrap_or_default();
    if let Some(access) = &mut cluster.access {
        import_access_leftovers(document, access);
    }
    let network = import_network(document);
    let node_groups: Vec<NodeGroup> = match document.get("managedNodeGroups") {
        Some(Value::Sequence(groups)) => groups.iter().map(import_node_group).collect(),
        _ => Vec::new(),
    };
    let addons: Vec<Addon> = match document.get("addons") {
        Some(Value::Sequence(addons)) => addons.iter().map(import_addon).collect(),
        _ => Vec::new(),
    };
    // The top level's leftovers do not depend on the groups and add-ons (they are compared
    // without them), so they are found before those are read in.
    let mut spec = Spec {
        cluster,
        network,
        ..Spec::default()
    };
    spec.eksctl_extra = top_level_leftover(document, &spec)?;
    spec.node_groups = node_groups;
    spec.addons = addons;
    Ok(spec)
}

fn import_network(document: &Value) -> Network {
    let vpc = document.get("vpc");
    let subnets = vpc.and_then(|vpc| vpc.get("subnets"));
    let has_vpc_id = vpc.and_then(|vpc| vpc.get("id")).is_some();
    if !has_vpc_id && subnets.is_none() {
        let availability_zones: Option<Vec<String>> = document
            .get("availabilityZones")
            .map(typed)
            .unwrap_or_default();
        return Network::NewVpc {
            availability_zones: availability_zones.unwrap_or_default(),
        };
    }
    let read = |kind: &str| -> Vec<Subnet> {
        let Some(Value::Mapping(by_name)) = subnets.and_then(|subnets| subnets.get(kind)) else {
            return Vec::new();
        };
        by_name
            .iter()
            .map(|(name, original)| {
                let mut subnet =
                    cluster::subnet(name.as_str().unwrap_or_default(), &typed(original));
                let rendered = yaml_serde::to_value(cluster::subnet_spec(&subnet))
                    .expect("a subnet serialises");
                subnet.extra = leftover_mapping(original, &rendered);
                subnet
            })
            .collect()
    };
    Network::ExistingVpc {
        vpc_id: vpc
            .map(|vpc| typed::<eksctl::Vpc>(vpc).id.unwrap_or_default())
            .unwrap_or_default(),
        public_subnets: read("public"),
        private_subnets: read("private"),
    }
}

fn import_node_group(original: &Value) -> NodeGroup {
    let mut group = cluster::node_group(&typed(original));
    let rendered =
        yaml_serde::to_value(cluster::managed_node_group(&group)).expect("a node group serialises");
    group.extra = leftover_mapping(original, &rendered);
    group
}

fn import_addon(original: &Value) -> Addon {
    let mut addon = cluster::addon(&typed(original));
    addon.pod_identity_associations = import_associations(original);
    let mut rendered =
        yaml_serde::to_value(cluster::addon_spec(&addon)).expect("an add-on serialises");
    render::merge_associations(&mut rendered, &addon.pod_identity_associations);
    addon.extra = leftover_mapping(original, &rendered);
    addon
}

/// The `podIdentityAssociations` under `parent`, each with its own leftovers; none when the
/// list holds anything but mappings (it then stays, whole, in the parent's leftovers).
fn import_associations(parent: &Value) -> Vec<PodIdentityAssociation> {
    let Some(Value::Sequence(items)) = parent.get("podIdentityAssociations") else {
        return Vec::new();
    };
    if !items.iter().all(Value::is_mapping) {
        return Vec::new();
    }
    items
        .iter()
        .map(|original| {
            let mut association = cluster::pod_identity_association(&typed(original));
            let rendered =
                yaml_serde::to_value(cluster::pod_identity_association_spec(&association))
                    .expect("an association serialises");
            association.extra = leftover_mapping(original, &rendered);
            association
        })
        .collect()
}

/// Gives each access entry, and each of its access policies, the keys it had that the model
/// does not write back the same. A list holding anything but mappings keeps nothing here:
/// it stays, whole, among the ClusterConfig's leftovers.
fn import_access_leftovers(document: &Value, access: &mut crate::model::spec::AccessConfig) {
    let Some(Value::Sequence(items)) = document
        .get("accessConfig")
        .and_then(|config| config.get("accessEntries"))
    else {
        return;
    };
    if !items.iter().all(Value::is_mapping) || items.len() != access.access_entries.len() {
        return;
    }
    for (entry, original) in access.access_entries.iter_mut().zip(items) {
        if let Some(Value::Sequence(policies)) = original.get("accessPolicies")
            && policies.iter().all(Value::is_mapping)
        {
            for (policy, original_policy) in entry.access_policies.iter_mut().zip(policies) {
                let rendered = yaml_serde::to_value(cluster::access_policy_spec(policy))
                    .expect("an access policy serialises");
                policy.extra = leftover_mapping(original_policy, &rendered);
            }
        }
        let mut rendered = yaml_serde::to_value(cluster::access_entry_spec(entry))
            .expect("an access entry serialises");
        render::merge_access_policies(&mut rendered, &entry.access_policies);
        entry.extra = leftover_mapping(original, &rendered);
    }
}

/// The document's keys outside node groups, add-ons and subnets (those keep their own
/// leftovers) that the model does not write back the same.
fn top_level_leftover(document: &Value, spec: &Spec) -> Result<Mapping, ImportError> {
    let rendered = render::cluster_document(spec)
        .map_err(|render_error| error("", render_error.to_string()))?;
    // The lists read item by item are left out before copying: a design of thousands of
    // node groups is not copied to be compared at the top level.
    let strip = |value: &Value| {
        let mut value = match value.as_mapping() {
            Some(mapping) => Value::Mapping(
                mapping
                    .iter()
                    .filter(|(key, item)| {
                        !(matches!(key.as_str(), Some("managedNodeGroups" | "addons"))
                            && item.is_sequence())
                    })
                    .map(|(key, item)| (key.clone(), item.clone()))
                    .collect(),
            ),
            None => value.clone(),
        };
        if let Some(mapping) = value.as_mapping_mut() {
            // Access entries keep their own leftovers when each was read as one.
            let entries_read = spec
                .cluster
                .access
                .as_ref()
                .is_some_and(|access| !access.access_entries.is_empty());
            if entries_read
                && let Some(access) = mapping
                    .get_mut("accessConfig")
                    .and_then(Value::as_mapping_mut)
                && access
                    .get("accessEntries")
                    .and_then(Value::as_sequence)
                    .is_some_and(|items| items.iter().all(Value::is_mapping))
            {
                access.remove("accessEntries");
            }
            if let Network::ExistingVpc { .. } = spec.network
                && let Some(vpc) = mapping.get_mut("vpc").and_then(Value::as_mapping_mut)
                && let Some(subnets) = vpc.get_mut("subnets").and_then(Value::as_mapping_mut)
            {
                for kind in ["public", "private"] {
                    if subnets.get(kind).is_some_and(Value::is_mapping) {
                        subnets.remove(kind);
                    }
                }
                if subnets.is_empty() {
                    vpc.remove("subnets");
                }
            }
        }
        value
    };
    let original = strip(document);
    let rendered = strip(&rendered);
    Ok(leftover_mapping(&original, &rendered))
}

/// Drops from the ClusterConfig's leftovers what the spec now writes itself. A ClusterConfig
/// read before its Karpenter documents keeps the `metadata.tags` the design derives from
/// them (see `karpenter_aws::cluster_tags`); once the documents are in, they are the
/// spec's own again.
pub fn settle_leftovers(spec: &mut Spec) {
    let rendered =
        yaml_serde::to_value(cluster::cluster_config(spec)).expect("a ClusterConfig serialises");
    spec.eksctl_extra = leftover_mapping(&Value::Mapping(spec.eksctl_extra.clone()), &rendered);
}

/// Karpenter objects read from a multi-document file, with the index of the document
/// each came from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImportedKarpenter {
    /// Pools and classes, in file order.
    pub settings: KarpenterSettings,
    /// Document index of each node pool.
    pub node_pool_documents: Vec<usize>,
    /// Document index of each node class.
    pub node_class_documents: Vec<usize>,
    /// Document index of each node overlay.
    pub node_overlay_documents: Vec<usize>,
}

/// What kubectl says of an object with no name: it looks the object up by name before it
/// applies it.
pub const NO_NAME_REFUSED: &str = "`kubectl apply` refuses it (\"resource name may not be empty\")";

/// The field an import failure says is missing: serde's "missing field `x`", or the
/// schema's "missing required field `x`" that [`import_karpenter`] says instead.
pub fn missing_field(message: &str) -> Option<&str> {
    ["missing field `", "missing required field `"]
        .iter()
        .find_map(|said| message.split_once(said))
        .and_then(|(_, rest)| rest.split_once('`'))
        .map(|(field, _)| field)
}

/// Why a Karpenter document does not read into its type. A field the CRD requires and
/// the document leaves out is the API server's refusal, said at the mapping that lacks
/// it; no `metadata` is kubectl's; anything else is serde's words at `spec`.
fn not_read(document: &Value, serde_error: &yaml_serde::Error) -> ImportError {
    let message = serde_error.to_string();
    let missing = missing_field(&message);
    if missing == Some("metadata") {
        return error(
            "kind",
            format!("the object has no metadata, so no name: {NO_NAME_REFUSED}"),
        );
    }
    let required = missing.and_then(|field| {
        crate::upstream::schema_check::check_karpenter(document)
            .into_iter()
            .find(|issue| {
                matches!(&issue.kind, SchemaIssueKind::MissingRequired(name) if name == field)
            })
    });
    match required {
        Some(issue) => error(
            issue.path.to_string(),
            format!(
                "{}: the API server refuses the object without it",
                issue.message
            ),
        ),
        None => error("spec", message),
    }
}

/// Imports Karpenter `NodePool` and `EC2NodeClass` documents.
pub fn import_karpenter(documents: &[Value]) -> Result<ImportedKarpenter, ImportError> {
    let mut imported = ImportedKarpenter::default();
    for (index, document) in documents.iter().enumerate() {
        let prefix = if documents.len() > 1 {
            format!("document {}: ", index + 1)
        } else {
            String::new()
        };
        let located = |import_error: ImportError| ImportError {
            message: format!("{prefix}{}", import_error.message),
            ..import_error
        };
        let kind = document_kind(document).map_err(located)?;
        string_keys_only(document.into()).map_err(located)?;
        match kind {
            DocumentKind::NodePool => {
                let pool: NodePool =
                    yaml_serde::from_value(crate::upstream::karpenter::object_body(document))
                        .map_err(|serde_error| located(not_read(document, &serde_error)))?;
                // The same object written twice, identically (in two files of one
                // design): kubectl applies it twice and the cluster holds one.
                if !imported.settings.node_pools.contains(&pool) {
                    imported.settings.node_pools.push(pool);
                    imported.node_pool_documents.push(index);
                }
            }
            DocumentKind::Ec2NodeClass => {
                let class: Ec2NodeClass =
                    yaml_serde::from_value(crate::upstream::karpenter::object_body(document))
                        .map_err(|serde_error| located(not_read(document, &serde_error)))?;
                if !imported.settings.node_classes.contains(&class) {
                    imported.settings.node_classes.push(class);
                    imported.node_class_documents.push(index);
                }
            }
            DocumentKind::NodeOverlay => {
                let overlay: NodeOverlay =
                    yaml_serde::from_value(crate::upstream::karpenter::object_body(document))
                        .map_err(|serde_error| located(not_read(document, &serde_error)))?;
                if !imported.settings.node_overlays.contains(&overlay) {
                    imported.settings.node_overlays.push(overlay);
                    imported.node_overlay_documents.push(index);
                }
            }
            DocumentKind::ClusterConfig | DocumentKind::Unknown { .. } => {
                return Err(located(error(
                    "kind",
                    "expected a Karpenter NodePool, EC2NodeClass or NodeOverlay",
                )));
            }
        }
    }
    Ok(imported)
}

/// Why pasted or chosen YAML could not be imported, placed in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextImportError {
    /// Which document (from 1), when the text has several.
    pub document: Option<usize>,
    /// Line of the problem, from 1; 0 when the problem is the text as a whole.
    pub line: usize,
    /// Column of the problem, from 1; 0 when the problem is the text as a whole.
    pub column: usize,
    /// The text is not YAML at all (rather than YAML the studio cannot import).
    pub syntax: bool,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for TextImportError {
    /// "YAML error at line 4, column 3: …" or "document 2, line 4, column 3: …", as the
    /// studio shows it.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            return formatter.write_str(&self.message);
        }
        if self.syntax {
            return write!(
                formatter,
                "YAML error at line {}, column {}: {}",
                self.line, self.column, self.message
            );
        }
        if let Some(document) = self.document {
            write!(formatter, "document {document}, ")?;
        }
        write!(
            formatter,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for TextImportError {}

/// The text as a whole is refused (no document, two clusters).
pub(crate) fn whole_text(message: impl Into<String>) -> TextImportError {
    TextImportError {
        document: None,
        line: 0,
        column: 0,
        syntax: false,
        message: message.into(),
    }
}

/// An import problem at a path of document `index` (of `count`), placed in the text.
pub(crate) fn placed(
    document: &crate::yaml::source::SourceDocument,
    index: usize,
    count: usize,
    error: &ImportError,
) -> TextImportError {
    let path = error
        .path
        .parse::<YamlPath>()
        .unwrap_or_else(|_| YamlPath::root());
    let position = document.position(&path);
    let message = error
        .message
        .strip_prefix(&format!("document {}: ", index + 1))
        .unwrap_or(&error.message);
    TextImportError {
        document: (count > 1).then_some(index + 1),
        line: position.line,
        column: position.column,
        syntax: false,
        message: message.to_owned(),
    }
}

/// Reads pasted or chosen YAML the way the studio's import does: a `ClusterConfig`
/// replaces the design, NodePools and EC2NodeClasses replace the Karpenter objects of
/// `current` (or of the imported cluster). Unmodelled keys are kept, not refused (the
/// strict reading of `eks-studio convert` is [`crate::lint::import_yaml`]). Returns the
/// design and a sentence on what was read.
pub fn import_text(text: &str, current: &Spec) -> Result<(Spec, String), TextImportError> {
    let documents =
        crate::yaml::source::parse_documents(text).map_err(|error| TextImportError {
            document: None,
            line: error.line,
            column: error.column,
            syntax: true,
            message: error.message,
        })?;
    if documents.is_empty() {
        return Err(whole_text(
            "Nothing to import: the text holds no YAML document.",
        ));
    }
    let count = documents.len();
    let mut cluster: Option<Spec> = None;
    let mut pools = Vec::new();
    let mut classes = Vec::new();
    let mut overlays = Vec::new();
    let mut volumes = Vec::new();
    let mut auto_mode = crate::upstream::auto_mode::AutoModePools::default();
    for (index, document) in documents.iter().enumerate() {
        if crate::documents::storage::is_storage_document(document.node()) {
            volumes.push(index);
            continue;
        }
        let unreadable =
            |message: String| placed(document, index, count, &self::error("spec", message));
        if crate::documents::auto_mode::read_into(document.node(), &mut auto_mode)
            .map_err(unreadable)?
            .is_some()
        {
            continue;
        }
        let kind = document_kind(document.node())
            .map_err(|error| placed(document, index, count, &error))?;
        match kind {
            DocumentKind::ClusterConfig => {
                if cluster.is_some() {
                    return Err(whole_text(format!(
                        "document {}: a second ClusterConfig; import one cluster at a time",
                        index + 1
                    )));
                }
                let spec = import_cluster_config(document.node())
                    .map_err(|error| placed(document, index, count, &error))?;
                cluster = Some(spec);
            }
            _ => {
                let imported = import_karpenter(&[document.to_value()])
                    .map_err(|error| placed(document, index, count, &error))?;
                pools.extend(imported.settings.node_pools);
                classes.extend(imported.settings.node_classes);
                overlays.extend(imported.settings.node_overlays);
            }
        }
    }
    let read_cluster = cluster.is_some();
    let mut spec = cluster.unwrap_or_else(|| current.clone());
    let mut parts = Vec::new();
    if read_cluster {
        parts.push(format!(
            "cluster {} with {} node group(s)",
            spec.cluster.name,
            spec.node_groups.len()
        ));
    }
    if !pools.is_empty() || !classes.is_empty() || !overlays.is_empty() {
        let mut karpenter = format!(
            "{} NodePool(s) and {} EC2NodeClass(es)",
            pools.len(),
            classes.len()
        );
        if !overlays.is_empty() {
            karpenter = format!(
                "{} NodePool(s), {} EC2NodeClass(es) and {} NodeOverlay(s)",
                pools.len(),
                classes.len(),
                overlays.len()
            );
        }
        parts.push(karpenter);
        let settings = spec
            .karpenter
            .get_or_insert_with(|| current.karpenter.clone().unwrap_or_default());
        settings.node_pools = pools;
        settings.node_classes = classes;
        settings.node_overlays = overlays;
        settle_leftovers(&mut spec);
    }
    if !auto_mode.is_empty() {
        parts.push(format!(
            "{} Auto Mode NodePool(s) and {} NodeClass(es)",
            auto_mode.node_pools.len(),
            auto_mode.node_classes.len()
        ));
        spec.auto_mode_pools = auto_mode;
    }
    if !volumes.is_empty() {
        let owned: Vec<Value> = volumes
            .iter()
            .map(|index| documents[*index].to_value())
            .collect();
        let values: Vec<&Value> = owned.iter().collect();
        spec.storage =
            crate::documents::storage::import(&values, &spec.cluster.region).map_err(|error| {
                let index = volumes[error.document];
                placed(
                    &documents[index],
                    index,
                    count,
                    &self::error(error.path, error.message),
                )
            })?;
        let mut read = Vec::new();
        if spec.storage.fsx.is_some() {
            read.push("an FSx for Lustre file system");
        }
        if spec.storage.s3.is_some() {
            read.push("an S3 bucket volume");
        }
        parts.push(read.join(" and "));
    }
    // A design far beyond what EKS runs would stall the page on every keystroke: it is
    // refused before it replaces anything.
    if let Some(why) = spec.beyond_what_eks_runs() {
        return Err(whole_text(format!(
            "Not imported: {why}. The current design was kept."
        )));
    }
    Ok((spec, format!("Imported {}.", parts.join(" and "))))
}
