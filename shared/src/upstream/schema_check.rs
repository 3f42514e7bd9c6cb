//! Documents checked against the upstream schemas: eksctl's `ClusterConfig` JSON schema and
//! the OpenAPI schemas of Karpenter's `NodePool` and `EC2NodeClass` CRDs.
//!
//! One small walker evaluates the keywords those schemas use (`$ref`, `properties`,
//! `additionalProperties`, `required`, `type`, `enum`, `items`, `oneOf`/`anyOf`/`allOf`, the
//! Kubernetes `x-kubernetes-preserve-unknown-fields` and `x-kubernetes-int-or-string`, and
//! the cheap bounds `min`/`maxItems`, `min`/`maxProperties`, `min`/`maxLength`,
//! `minimum`/`maximum`) and reports every problem, not the first. `pattern`, `format` and
//! the CEL `x-kubernetes-validations` are not evaluated here; the rules check those facts.
//!
//! The two dialects differ on keys a schema does not list: eksctl rejects them (its schema
//! closes every object with `additionalProperties: false`), the Kubernetes API server
//! silently prunes them (a structural schema is closed unless it says otherwise). Both are
//! [`SchemaIssueKind::UnknownKey`](crate::upstream::schema_check::SchemaIssueKind::UnknownKey), worded
//! for what happens to the key.
//!
//! A null value passes wherever a value may be: eksctl reads it as Go's zero value and the
//! API server drops nulls of fields that are not nullable.
//!
//! The schemas are embedded from `shared/data/schemas/`: the upstream files reduced to the
//! keywords evaluated here (a test keeps them equal to the upstream files), about a sixth of
//! their size, parsed once on first use.

use std::fmt;
use std::sync::OnceLock;

use crate::yaml::node::{Kind, Node};
use serde_json::{Map, Value as Json};

use crate::yaml::source::{PathSegment, YamlPath};

const CLUSTER_CONFIG_SCHEMA: &str =
    include_str!("../../data/schemas/eksctl-clusterconfig-v1alpha5.min.json");
const NODE_POOL_SCHEMA: &str = include_str!("../../data/schemas/karpenter-nodepool-v1.min.json");
const EC2_NODE_CLASS_SCHEMA: &str =
    include_str!("../../data/schemas/karpenter-ec2nodeclass-v1.min.json");
const NODE_OVERLAY_SCHEMA: &str =
    include_str!("../../data/schemas/karpenter-nodeoverlay-v1alpha1.min.json");

/// The Kubernetes `ObjectMeta` fields a manifest may set at the top-level `metadata`; the
/// CRD schemas only say `type: object` there because the API server checks it itself.
const OBJECT_META_SCHEMA: &str = r#"{"type":"object","properties":{
"name":{"type":"string"},"generateName":{"type":"string"},"namespace":{"type":"string"},
"selfLink":{"type":"string"},"uid":{"type":"string"},"resourceVersion":{"type":"string"},
"generation":{"type":"integer"},"creationTimestamp":{"type":"string"},
"deletionTimestamp":{"type":"string"},"deletionGracePeriodSeconds":{"type":"integer"},
"labels":{"type":"object","additionalProperties":{"type":"string"}},
"annotations":{"type":"object","additionalProperties":{"type":"string"}},
"finalizers":{"type":"array","items":{"type":"string"}},
"ownerReferences":{"type":"array","items":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},
"managedFields":{"type":"array","items":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}"#;

/// `apiVersion` and `kind` of the documents the studio reads and writes.
const CLUSTER_CONFIG_TYPE: (&str, &str) = ("eksctl.io/v1alpha5", "ClusterConfig");
const NODE_POOL_TYPE: (&str, &str) = ("karpenter.sh/v1", "NodePool");
const EC2_NODE_CLASS_TYPE: (&str, &str) = ("karpenter.k8s.aws/v1", "EC2NodeClass");
const NODE_OVERLAY_TYPE: (&str, &str) = ("karpenter.sh/v1alpha1", "NodeOverlay");

/// A chain of `$ref`s longer than this is a loop in the schema, not a deeper definition.
const MAX_REFERENCE_CHAIN: usize = 32;

/// What kind of document a YAML document is, from its `apiVersion` and `kind`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DocumentKind {
    /// eksctl's `ClusterConfig`, `eksctl.io/v1alpha5`.
    ClusterConfig,
    /// Karpenter's `NodePool`, `karpenter.sh/v1`.
    NodePool,
    /// Karpenter's AWS `EC2NodeClass`, `karpenter.k8s.aws/v1`.
    Ec2NodeClass,
    /// Karpenter's `NodeOverlay`, `karpenter.sh/v1alpha1`.
    NodeOverlay,
    /// Anything else, with what the document says (`None` when absent or not a string).
    Unknown {
        /// The document's `apiVersion`.
        api_version: Option<String>,
        /// The document's `kind`.
        kind: Option<String>,
    },
}

impl DocumentKind {
    /// Reads `apiVersion` and `kind` of a document.
    pub fn of<'a>(document: impl Into<Node<'a>>) -> DocumentKind {
        let document = document.into();
        let field = |name: &str| document.get(name).and_then(Node::as_str).map(str::to_owned);
        let (api_version, kind) = (field("apiVersion"), field("kind"));
        let type_pair = (api_version.as_deref(), kind.as_deref());
        match type_pair {
            _ if type_pair == (Some(CLUSTER_CONFIG_TYPE.0), Some(CLUSTER_CONFIG_TYPE.1)) => {
                DocumentKind::ClusterConfig
            }
            _ if type_pair == (Some(NODE_POOL_TYPE.0), Some(NODE_POOL_TYPE.1)) => {
                DocumentKind::NodePool
            }
            _ if type_pair == (Some(EC2_NODE_CLASS_TYPE.0), Some(EC2_NODE_CLASS_TYPE.1)) => {
                DocumentKind::Ec2NodeClass
            }
            _ if type_pair == (Some(NODE_OVERLAY_TYPE.0), Some(NODE_OVERLAY_TYPE.1)) => {
                DocumentKind::NodeOverlay
            }
            _ => DocumentKind::Unknown { api_version, kind },
        }
    }
}

/// What is wrong at a [`SchemaIssue`]'s path.
#[derive(Clone, Debug, PartialEq)]
pub enum SchemaIssueKind {
    /// A key the schema does not have: eksctl rejects the file, the Kubernetes API server
    /// prunes the key (the message says which).
    UnknownKey,
    /// A ClusterConfig key eksctl accepts and then drops: a known key in another case
    /// (`cloudwatch`), or an unknown key inside an identity provider, which eksctl reads
    /// with a decoder of its own that ignores what it does not know.
    AcceptedAndDropped {
        /// The key as eksctl spells it, when the key is one in another case.
        known: Option<String>,
    },
    /// A value of the wrong JSON type, such as a string where an integer belongs.
    WrongType {
        /// The type or types the schema allows, as in `integer` or `integer or string`.
        expected: String,
        /// The JSON type of the value found: `null`, `boolean`, `integer`, `number`,
        /// `string`, `array` or `object`.
        found: String,
    },
    /// A value outside the schema's `enum`.
    NotInEnum {
        /// The values the schema allows, strings as they are, others as JSON.
        allowed: Vec<String>,
    },
    /// A required field that is absent; the path ends with the field's key.
    MissingRequired(String),
    /// A sequence, mapping or string with fewer or more entries (items, keys, characters)
    /// than the schema allows.
    CountOutOfRange {
        /// The least allowed, if bounded below.
        minimum: Option<u64>,
        /// The most allowed, if bounded above.
        maximum: Option<u64>,
        /// How many there are.
        found: u64,
    },
    /// A string that does not match the schema's `pattern`.
    PatternMismatch {
        /// The pattern, as the schema writes it.
        pattern: String,
        /// The string that does not match it.
        found: String,
    },
    /// A string that is not of the schema's `format` (`date-time`).
    FormatMismatch {
        /// The format's name.
        format: String,
    },
    /// A value that breaks one of the CRD's CEL validation rules (`x-kubernetes-validations`).
    RuleBroken {
        /// The rule, as the CRD writes it.
        rule: String,
    },
    /// A number below the schema's `minimum` or above its `maximum`.
    NumberOutOfRange {
        /// The least allowed, if bounded below.
        minimum: Option<f64>,
        /// The most allowed, if bounded above.
        maximum: Option<f64>,
        /// The number found.
        found: f64,
    },
}

/// One place where a document disagrees with its schema.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaIssue {
    /// Where in the document: the offending key or value, or for a missing field the path
    /// it should have (which [`crate::yaml::source::SourceDocument::position`] places at the
    /// mapping that lacks it).
    pub path: YamlPath,
    /// What is wrong, as data.
    pub kind: SchemaIssueKind,
    /// What is wrong, in a sentence for people (without the path).
    pub message: String,
}

impl fmt::Display for SchemaIssue {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_root() {
            formatter.write_str(&self.message)
        } else {
            write!(formatter, "{}: {}", self.path, self.message)
        }
    }
}

/// Checks any document the studio knows, choosing the schema from `apiVersion` and `kind`;
/// any other document gets one issue naming the kinds that are understood.
pub fn check_document<'a>(document: impl Into<Node<'a>>) -> Vec<SchemaIssue> {
    let document = document.into();
    match DocumentKind::of(document) {
        DocumentKind::ClusterConfig => check_cluster_config(document),
        DocumentKind::NodePool | DocumentKind::Ec2NodeClass | DocumentKind::NodeOverlay => {
            check_karpenter(document)
        }
        DocumentKind::Unknown { .. } => unknown_type_issues(
            document,
            &[
                CLUSTER_CONFIG_TYPE,
                NODE_POOL_TYPE,
                EC2_NODE_CLASS_TYPE,
                NODE_OVERLAY_TYPE,
            ],
        ),
    }
}

/// Checks a document against eksctl's `ClusterConfig` schema (`eksctl.io/v1alpha5`).
pub fn check_cluster_config<'a>(document: impl Into<Node<'a>>) -> Vec<SchemaIssue> {
    let document = document.into();
    static SCHEMA: OnceLock<Json> = OnceLock::new();
    let schema = embedded_schema(&SCHEMA, CLUSTER_CONFIG_SCHEMA);
    Walker::new(schema, Dialect::Eksctl).run(document)
}

/// Checks a Karpenter `NodePool` (`karpenter.sh/v1`) or `EC2NodeClass`
/// (`karpenter.k8s.aws/v1`) against its CRD schema; any other document gets an issue at
/// `kind` or `apiVersion`.
pub fn check_karpenter<'a>(document: impl Into<Node<'a>>) -> Vec<SchemaIssue> {
    let document = document.into();
    match karpenter_schema(document) {
        Some((schema, kind)) => Walker::new(schema, Dialect::Kubernetes { kind }).run(document),
        None => unknown_type_issues(
            document,
            &[NODE_POOL_TYPE, EC2_NODE_CLASS_TYPE, NODE_OVERLAY_TYPE],
        ),
    }
}

/// The CRD schema (`openAPIV3Schema`) of a Karpenter `NodePool`, `EC2NodeClass` or
/// `NodeOverlay`, and the kind; `None` for any other document.
pub fn karpenter_schema<'a>(
    document: impl Into<Node<'a>>,
) -> Option<(&'static Json, &'static str)> {
    let document = document.into();
    static NODE_POOL: OnceLock<Json> = OnceLock::new();
    static EC2_NODE_CLASS: OnceLock<Json> = OnceLock::new();
    static NODE_OVERLAY: OnceLock<Json> = OnceLock::new();
    match DocumentKind::of(document) {
        DocumentKind::NodePool => Some((
            embedded_schema(&NODE_POOL, NODE_POOL_SCHEMA),
            NODE_POOL_TYPE.1,
        )),
        DocumentKind::Ec2NodeClass => Some((
            embedded_schema(&EC2_NODE_CLASS, EC2_NODE_CLASS_SCHEMA),
            EC2_NODE_CLASS_TYPE.1,
        )),
        DocumentKind::NodeOverlay => Some((
            embedded_schema(&NODE_OVERLAY, NODE_OVERLAY_SCHEMA),
            NODE_OVERLAY_TYPE.1,
        )),
        _ => None,
    }
}

fn embedded_schema(cell: &'static OnceLock<Json>, text: &'static str) -> &'static Json {
    cell.get_or_init(|| serde_json::from_str(text).expect("embedded schemas are JSON (tested)"))
}

fn object_meta_schema() -> &'static Json {
    static SCHEMA: OnceLock<Json> = OnceLock::new();
    embedded_schema(&SCHEMA, OBJECT_META_SCHEMA)
}

/// The issues of a document whose `apiVersion`/`kind` is none of `accepted`.
fn unknown_type_issues(document: Node<'_>, accepted: &[(&str, &str)]) -> Vec<SchemaIssue> {
    let root = YamlPath::root();
    if !document.is_mapping() {
        return vec![wrong_type(&root, "object", document)];
    }
    let kinds: Vec<String> = accepted
        .iter()
        .map(|(_, kind)| (*kind).to_owned())
        .collect();
    let Some(kind_value) = document.get("kind") else {
        return vec![missing_required(&root, "kind")];
    };
    let kind_path = root.with_key("kind");
    let Some(&(api_version, kind)) = accepted
        .iter()
        .find(|(_, kind)| kind_value.as_str() == Some(kind))
    else {
        return vec![not_in_enum(kind_path, kind_value, kinds)];
    };
    match document.get("apiVersion") {
        None => vec![missing_required(&root, "apiVersion")],
        Some(found) => vec![SchemaIssue {
            path: root.with_key("apiVersion"),
            message: format!(
                "{kind} is served as apiVersion `{api_version}`, not {}",
                short_repr(found)
            ),
            kind: SchemaIssueKind::NotInEnum {
                allowed: vec![api_version.to_owned()],
            },
        }],
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dialect {
    /// JSON Schema as eksctl publishes it.
    Eksctl,
    /// A CRD's structural OpenAPI schema, for the named kind.
    Kubernetes { kind: &'static str },
}

struct Walker<'schema> {
    root: &'schema Json,
    dialect: Dialect,
    issues: Vec<SchemaIssue>,
}

static ANYTHING: Json = Json::Bool(true);

impl<'schema> Walker<'schema> {
    fn new(root: &'schema Json, dialect: Dialect) -> Walker<'schema> {
        Walker {
            root,
            dialect,
            issues: Vec::new(),
        }
    }

    fn run(mut self, document: Node<'_>) -> Vec<SchemaIssue> {
        self.check(self.root, document, &mut YamlPath::root(), None);
        self.issues
    }

    /// Follows `$ref`s; a `$ref` replaces its siblings (draft 7).
    fn resolve(&self, mut schema: &'schema Json) -> &'schema Json {
        for _ in 0..MAX_REFERENCE_CHAIN {
            let Some(reference) = schema.get("$ref").and_then(Json::as_str) else {
                return schema;
            };
            let target = reference
                .strip_prefix('#')
                .and_then(|pointer| self.root.pointer(pointer));
            match target {
                Some(target) => schema = target,
                None => return &ANYTHING,
            }
        }
        &ANYTHING
    }

    /// Checks `value` at `path` against `schema`. `inherited_properties` are properties an
    /// enclosing schema declares beside the `oneOf`/`anyOf` this schema is a branch of.
    fn check(
        &mut self,
        schema: &'schema Json,
        value: Node<'_>,
        path: &mut YamlPath,
        inherited_properties: Option<&'schema Map<String, Json>>,
    ) {
        // eksctl's decoder reads a self-managed group's taints as a list or as the legacy
        // map `key: "value:Effect"` (its taintsWrapper's UnmarshalJSON, pkg/apis/eksctl.io/
        // v1alpha5/types.go); its schema lists only the list. A map of strings is read.
        if let Dialect::Eksctl = self.dialect
            && schema.get("$ref").and_then(Json::as_str) == Some("#/definitions/taintsWrapper")
            && let Some(taints) = value.as_mapping()
            && taints
                .iter()
                .all(|(key, value)| key.is_string() && value.is_string())
        {
            return;
        }
        let schema = self.resolve(schema);
        let value = value.untagged();
        let schema = match schema {
            Json::Object(schema) => schema,
            Json::Bool(false) => {
                self.issues.push(SchemaIssue {
                    path: path.clone(),
                    kind: SchemaIssueKind::UnknownKey,
                    message: "no value is allowed here".to_owned(),
                });
                return;
            }
            _ => return,
        };
        if value.is_null() {
            return;
        }

        let mut expected_types: Vec<&str> = match schema.get("type") {
            Some(Json::String(name)) => vec![name.as_str()],
            Some(Json::Array(names)) => names.iter().filter_map(Json::as_str).collect(),
            _ => Vec::new(),
        };
        if flag(schema, "x-kubernetes-int-or-string") {
            expected_types = vec!["integer", "string"];
        }
        // eksctl's schema gives its Go structs (`NodeGroupSSH`, `ClusterIAM`…) properties
        // but no type, yet its strict decoder refuses anything but an object for one:
        // `ssh: true` is "cannot unmarshal bool into Go struct field". Its types with their
        // own decoding (taints, `CustomStringSlice`, subnet maps) declare no properties.
        if let Dialect::Eksctl = self.dialect
            && expected_types.is_empty()
            && schema.contains_key("properties")
        {
            expected_types = vec!["object"];
        }
        if expected_types.contains(&"integer")
            && let Some(issue) = beyond_64_bits(path, value)
        {
            self.issues.push(issue);
            return;
        }
        if !expected_types.is_empty() && !expected_types.iter().any(|name| has_type(value, name)) {
            self.issues
                .push(wrong_type(path, &expected_types.join(" or "), value));
            return;
        }

        // eksctl's schema documents values its validation checks itself, often without
        // regard to case (`iPv6`, `amazonlinux2023`) or more than the schema lists (Windows
        // families): for eksctl the rules check values, not the schema's `enum` (but for
        // the document's apiVersion and kind, which eksctl's decoder does check).
        if let Some(Json::Array(allowed)) = schema.get("enum").filter(|_| {
            matches!(self.dialect, Dialect::Kubernetes { .. })
                || (path.segments().len() == 1
                    && matches!(path.last_key(), Some("apiVersion" | "kind")))
        }) && !allowed
            .iter()
            .any(|candidate| yaml_equals_json(value, candidate))
        {
            let allowed = allowed.iter().map(json_text).collect();
            self.issues.push(not_in_enum(path.clone(), value, allowed));
        }

        #[cfg(feature = "documents")]
        self.check_written_form(schema, value, path);

        match value.kind() {
            Kind::Mapping(mapping) => {
                self.check_mapping(schema, mapping, path, inherited_properties);
            }
            Kind::Sequence(items) => {
                if let Some(item_schema) = schema.get("items").filter(|items| items.is_object()) {
                    for (item_idx, item) in items.iter().enumerate() {
                        path.push_index(item_idx);
                        self.check(item_schema, item, path, None);
                        path.pop();
                    }
                }
                self.check_count(schema, "minItems", "maxItems", items.len(), "items", path);
            }
            Kind::String(text) => {
                let n_chars = text.chars().count();
                self.check_count(
                    schema,
                    "minLength",
                    "maxLength",
                    n_chars,
                    "characters",
                    path,
                );
            }
            Kind::Number(number) => self.check_number(schema, number.as_f64(), path),
            _ => {}
        }

        if let Some(Json::Array(branches)) = schema.get("allOf") {
            for branch in branches {
                self.check(branch, value, path, None);
            }
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Json::Array(branches)) = schema.get(keyword) {
                let properties = schema.get("properties").and_then(Json::as_object);
                self.check_branches(branches, value, path, properties);
            }
        }
    }

    /// What the schema says beyond shapes: `pattern`, `format` and, for CRDs, the CEL rules.
    #[cfg(feature = "documents")]
    fn check_written_form(&mut self, schema: &Map<String, Json>, value: Node<'_>, path: &YamlPath) {
        if let Kind::String(text) = value.kind() {
            if let Some(pattern) = schema.get("pattern").and_then(Json::as_str)
                && let Some(regex) = crate::upstream::crd_cel::regex(pattern)
                && !regex.is_match(text)
            {
                self.issues.push(SchemaIssue {
                    path: path.clone(),
                    message: format!(
                        "{} does not match the pattern `{pattern}`",
                        short_repr(value)
                    ),
                    kind: SchemaIssueKind::PatternMismatch {
                        pattern: pattern.to_owned(),
                        found: text.to_owned(),
                    },
                });
            }
            if schema.get("format").and_then(Json::as_str) == Some("date-time")
                && !is_rfc3339_date_time(text)
            {
                self.issues.push(SchemaIssue {
                    path: path.clone(),
                    message: format!(
                        "{} is not an RFC 3339 date-time such as `2026-12-01T09:30:00Z`",
                        short_repr(value)
                    ),
                    kind: SchemaIssueKind::FormatMismatch {
                        format: "date-time".to_owned(),
                    },
                });
            }
        }
        if matches!(self.dialect, Dialect::Kubernetes { .. }) {
            for broken in crate::upstream::crd_cel::broken_rules(schema, value) {
                let mut at = path.clone();
                for field in broken
                    .field_path
                    .iter()
                    .flat_map(|field_path| field_path.split('.'))
                    .filter(|field| !field.is_empty())
                {
                    at.push_key(field);
                }
                self.issues.push(SchemaIssue {
                    path: at,
                    message: broken.message,
                    kind: SchemaIssueKind::RuleBroken { rule: broken.rule },
                });
            }
        }
    }

    fn check_mapping(
        &mut self,
        schema: &'schema Map<String, Json>,
        mapping: crate::yaml::node::Map<'_>,
        path: &mut YamlPath,
        inherited_properties: Option<&'schema Map<String, Json>>,
    ) {
        let properties = schema.get("properties").and_then(Json::as_object);
        let additional = schema.get("additionalProperties");
        let preserves_unknown = flag(schema, "x-kubernetes-preserve-unknown-fields");
        let is_kubernetes_root_metadata =
            matches!(self.dialect, Dialect::Kubernetes { .. }) && path.is_root();
        for (key, item) in mapping {
            let Some(key_text) = key.key_text() else {
                self.issues
                    .push(wrong_type(path, "object with string keys", key));
                continue;
            };
            path.push_key(key_text.as_ref());
            let property = properties.and_then(|properties| properties.get(key_text.as_ref()));
            match (property, additional) {
                _ if is_kubernetes_root_metadata && key_text == "metadata" => {
                    self.check(object_meta_schema(), item, path, None);
                }
                (Some(property_schema), _) => self.check(property_schema, item, path, None),
                _ if inherited_properties
                    .is_some_and(|inherited| inherited.contains_key(key_text.as_ref())) => {}
                (None, Some(additional_schema @ Json::Object(_))) => {
                    self.check(additional_schema, item, path, None);
                }
                (None, Some(Json::Bool(false))) => self.unknown_key(path, &key_text, properties),
                (None, Some(_)) => {}
                (None, None) => {
                    if matches!(self.dialect, Dialect::Kubernetes { .. }) && !preserves_unknown {
                        self.unknown_key(path, &key_text, properties);
                    }
                }
            }
            path.pop();
        }
        // eksctl decodes the file strictly into its Go types and never reads the schema's
        // `required` (its own validation checks the fields it needs, and the rules here
        // follow it): only the Kubernetes API server enforces `required`.
        let enforces_required = matches!(self.dialect, Dialect::Kubernetes { .. });
        if enforces_required && let Some(Json::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Json::as_str) {
                if mapping_key(mapping, name).is_none() {
                    self.issues.push(missing_required(path, name));
                }
            }
        }
        let n_keys = mapping.len();
        self.check_count(
            schema,
            "minProperties",
            "maxProperties",
            n_keys,
            "keys",
            path,
        );
    }

    fn unknown_key(&mut self, path: &YamlPath, key: &str, properties: Option<&Map<String, Json>>) {
        // eksctl's strict pass decodes with Go's JSON decoder, which matches field names
        // whatever their case, and accepts the file; its second, case-sensitive decode
        // then drops the field (pkg/eks/api.go ParseConfig). An identity provider is read
        // by its own UnmarshalJSON (identity_provider.go) with Go's plain decoder in both
        // passes: a key in another case is read as the known one, an unknown key ignored.
        if let Dialect::Eksctl = self.dialect {
            let in_another_case = properties
                .into_iter()
                .flat_map(|properties| properties.keys())
                .find(|known| known.eq_ignore_ascii_case(key));
            let in_identity_provider = matches!(
                path.segments().first(),
                Some(PathSegment::Key(first)) if first == "identityProviders"
            );
            match (in_identity_provider, in_another_case) {
                (true, Some(_)) => return,
                (true, None) => {
                    self.issues.push(SchemaIssue {
                        path: path.clone(),
                        kind: SchemaIssueKind::AcceptedAndDropped { known: None },
                        message: format!(
                            "identity providers have no field `{key}`: eksctl reads them with a decoder that ignores fields it does not know, so it accepts the file and drops the field"
                        ),
                    });
                    return;
                }
                (false, Some(known)) => {
                    self.issues.push(SchemaIssue {
                        path: path.clone(),
                        kind: SchemaIssueKind::AcceptedAndDropped {
                            known: Some(known.clone()),
                        },
                        message: format!(
                            "`{key}` is eksctl's `{known}` in another case: eksctl accepts the file (its strict check matches field names whatever their case), then drops the field, so the cluster does not get it"
                        ),
                    });
                    return;
                }
                (false, None) => {}
            }
        }
        let known_keys = properties
            .into_iter()
            .flat_map(|properties| properties.keys())
            .map(String::as_str);
        let suggestion = closest_key(key, known_keys)
            .map(|known| format!(" (did you mean `{known}`?)"))
            .unwrap_or_default();
        let message = match self.dialect {
            Dialect::Eksctl => format!(
                "unknown field `{key}`{suggestion}: eksctl rejects fields its ClusterConfig schema does not have"
            ),
            Dialect::Kubernetes { kind } => format!(
                "unknown field `{key}`{suggestion}: the {kind} schema does not have it, so `kubectl apply` refuses the object (kubectl validates fields strictly unless told `--validate=false`), and a client that does not validate (Helm) has the API server drop the field"
            ),
        };
        self.issues.push(SchemaIssue {
            path: path.clone(),
            kind: SchemaIssueKind::UnknownKey,
            message,
        });
    }

    /// `anyOf`/`oneOf`: fine when any branch accepts the value. Otherwise the issues of the
    /// closest branch, or one type issue when every branch only wanted another type.
    fn check_branches(
        &mut self,
        branches: &'schema [Json],
        value: Node<'_>,
        path: &mut YamlPath,
        properties: Option<&'schema Map<String, Json>>,
    ) {
        let mut branch_issues = Vec::new();
        for branch in branches {
            let mut walker = Walker::new(self.root, self.dialect);
            walker.check(branch, value, path, properties);
            if walker.issues.is_empty() {
                return;
            }
            branch_issues.push(walker.issues);
        }
        let only_types: Option<Vec<String>> = branch_issues
            .iter()
            .map(|issues| match issues.as_slice() {
                [
                    SchemaIssue {
                        path: issue_path,
                        kind: SchemaIssueKind::WrongType { expected, .. },
                        ..
                    },
                ] if issue_path == path => Some(expected.clone()),
                _ => None,
            })
            .collect();
        match only_types {
            Some(types) if !types.is_empty() => {
                self.issues
                    .push(wrong_type(path, &types.join(" or "), value));
            }
            _ => {
                if let Some(closest) = branch_issues.into_iter().min_by_key(Vec::len) {
                    self.issues.extend(closest);
                }
            }
        }
    }

    fn check_count(
        &mut self,
        schema: &Map<String, Json>,
        minimum_keyword: &str,
        maximum_keyword: &str,
        found: usize,
        noun: &str,
        path: &YamlPath,
    ) {
        let minimum = schema.get(minimum_keyword).and_then(Json::as_u64);
        let maximum = schema.get(maximum_keyword).and_then(Json::as_u64);
        let found = found as u64;
        let message = match (minimum, maximum) {
            (Some(minimum), _) if found < minimum => {
                format!("has {found} {noun}, at least {minimum} required")
            }
            (_, Some(maximum)) if found > maximum => {
                format!("has {found} {noun}, at most {maximum} allowed")
            }
            _ => return,
        };
        self.issues.push(SchemaIssue {
            path: path.clone(),
            kind: SchemaIssueKind::CountOutOfRange {
                minimum,
                maximum,
                found,
            },
            message,
        });
    }

    fn check_number(&mut self, schema: &Map<String, Json>, found: Option<f64>, path: &YamlPath) {
        let Some(found) = found else { return };
        let minimum = schema.get("minimum").and_then(Json::as_f64);
        let maximum = schema.get("maximum").and_then(Json::as_f64);
        let message = match (minimum, maximum) {
            (Some(minimum), _) if found < minimum => {
                format!("{found} is below the minimum {minimum}")
            }
            (_, Some(maximum)) if found > maximum => {
                format!("{found} is above the maximum {maximum}")
            }
            _ => return,
        };
        self.issues.push(SchemaIssue {
            path: path.clone(),
            kind: SchemaIssueKind::NumberOutOfRange {
                minimum,
                maximum,
                found,
            },
            message,
        });
    }
}

/// RFC 3339 `date-time` as Kubernetes' OpenAPI `date-time` format takes it:
/// `YYYY-MM-DDThh:mm:ss[.frac](Z|±hh:mm)`, `t`/`z`/space allowed for `T`/`Z`.
#[cfg(feature = "documents")]
fn is_rfc3339_date_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes
            .get(range)
            .is_some_and(|part| part.iter().all(u8::is_ascii_digit))
    };
    let number = |range: std::ops::Range<usize>| {
        text.get(range)
            .and_then(|part| part.parse::<u32>().ok())
            .unwrap_or(u32::MAX)
    };
    if bytes.len() < 20
        || !digits(0..4)
        || bytes[4] != b'-'
        || !digits(5..7)
        || bytes[7] != b'-'
        || !digits(8..10)
        || !matches!(bytes[10], b'T' | b't' | b' ')
        || !digits(11..13)
        || bytes[13] != b':'
        || !digits(14..16)
        || bytes[16] != b':'
        || !digits(17..19)
    {
        return false;
    }
    let (month, day, hour, minute, second) = (
        number(5..7),
        number(8..10),
        number(11..13),
        number(14..16),
        number(17..19),
    );
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return false;
    }
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return false;
        }
        rest = &fraction[digits..];
    }
    match rest.as_bytes() {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            [h1, h2, m1, m2].iter().all(|byte| byte.is_ascii_digit())
        }
        _ => false,
    }
}

fn flag(schema: &Map<String, Json>, keyword: &str) -> bool {
    schema.get(keyword) == Some(&Json::Bool(true))
}

fn mapping_key<'a>(mapping: crate::yaml::node::Map<'a>, name: &str) -> Option<Node<'a>> {
    mapping
        .iter()
        .find(|(key, _)| key.key_text().as_deref() == Some(name))
        .map(|(_, value)| value)
}

/// A whole number that eksctl and Kubernetes, which read integers as 64-bit, cannot hold:
/// the schema says only `integer`, but the tools refuse the file.
fn beyond_64_bits(path: &YamlPath, value: Node<'_>) -> Option<SchemaIssue> {
    let Kind::Number(number) = value.untagged().kind() else {
        return None;
    };
    // 2^63 is exact as a float; every whole float below it in magnitude fits.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    let too_large = match (number.as_i64(), number.as_u64(), number.as_f64()) {
        (Some(_), _, _) => false,
        (None, Some(_), _) => true,
        (None, None, Some(float)) => float.fract() == 0.0 && float.abs() >= LIMIT,
        (None, None, None) => false,
    };
    too_large.then(|| {
        let found = number.as_f64().unwrap_or(f64::INFINITY);
        SchemaIssue {
            path: path.clone(),
            kind: SchemaIssueKind::NumberOutOfRange {
                minimum: Some(i64::MIN as f64),
                maximum: Some(i64::MAX as f64),
                found,
            },
            message: format!(
                "{} does not fit in a 64-bit integer, which is how eksctl and Kubernetes read it",
                short_repr(value)
            ),
        }
    })
}

fn wrong_type(path: &YamlPath, expected: &str, value: Node<'_>) -> SchemaIssue {
    let found = json_type(value);
    let shown = match value.untagged().kind() {
        Kind::Sequence(_) | Kind::Mapping(_) | Kind::Tagged(..) => String::new(),
        _ => format!(" {}", short_repr(value)),
    };
    SchemaIssue {
        path: path.clone(),
        message: format!("expected {expected}, found {found}{shown}"),
        kind: SchemaIssueKind::WrongType {
            expected: expected.to_owned(),
            found: found.to_owned(),
        },
    }
}

fn not_in_enum(path: YamlPath, value: Node<'_>, allowed: Vec<String>) -> SchemaIssue {
    SchemaIssue {
        path,
        message: format!(
            "{} is not one of: {}",
            short_repr(value),
            allowed.join(", ")
        ),
        kind: SchemaIssueKind::NotInEnum { allowed },
    }
}

fn missing_required(path: &YamlPath, name: &str) -> SchemaIssue {
    SchemaIssue {
        path: path.with_key(name),
        kind: SchemaIssueKind::MissingRequired(name.to_owned()),
        message: format!("missing required field `{name}`"),
    }
}

/// The JSON type a value has once Kubernetes' YAML-to-JSON conversion has run.
fn json_type(value: Node<'_>) -> &'static str {
    match value.untagged().kind() {
        Kind::Null => "null",
        Kind::Bool(_) => "boolean",
        Kind::Number(number) if number.is_i64() || number.is_u64() => "integer",
        Kind::Number(_) => "number",
        Kind::String(_) => "string",
        Kind::Sequence(_) => "array",
        Kind::Mapping(_) => "object",
        Kind::Tagged(..) => "tagged value",
    }
}

fn has_type(value: Node<'_>, name: &str) -> bool {
    match (name, value.kind()) {
        ("string", Kind::String(_))
        | ("boolean", Kind::Bool(_))
        | ("number", Kind::Number(_))
        | ("array", Kind::Sequence(_))
        | ("object", Kind::Mapping(_))
        | ("null", Kind::Null) => true,
        // `2.0` is an integer to JSON Schema, and becomes `2` in eksctl's and Kubernetes'
        // YAML-to-JSON conversion.
        ("integer", Kind::Number(number)) => {
            number.is_i64()
                || number.is_u64()
                || number
                    .as_f64()
                    .is_some_and(|float| float.is_finite() && float.fract() == 0.0)
        }
        _ => false,
    }
}

fn yaml_equals_json(value: Node<'_>, json: &Json) -> bool {
    match (value.untagged().kind(), json) {
        (Kind::Null, Json::Null) => true,
        (Kind::Bool(left), Json::Bool(right)) => left == *right,
        (Kind::String(left), Json::String(right)) => left == right,
        (Kind::Number(left), Json::Number(right)) => match (left.as_i64(), right.as_i64()) {
            (Some(left), Some(right)) => left == right,
            _ => match (left.as_u64(), right.as_u64()) {
                (Some(left), Some(right)) => left == right,
                _ => left.as_f64() == right.as_f64(),
            },
        },
        _ => false,
    }
}

fn json_text(json: &Json) -> String {
    match json {
        Json::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// A value for a message: scalars in backticks, collections by their type.
fn short_repr(value: Node<'_>) -> String {
    match value.untagged().kind() {
        Kind::String(text) => format!("`{text}`"),
        Kind::Number(number) => format!("`{number}`"),
        Kind::Bool(boolean) => format!("`{boolean}`"),
        Kind::Null => "`null`".to_owned(),
        Kind::Sequence(_) => "a sequence".to_owned(),
        Kind::Mapping(_) => "a mapping".to_owned(),
        Kind::Tagged(..) => "a tagged value".to_owned(),
    }
}

/// Keys longer than this get no suggestion: no schema key is near that long, and comparing
/// a huge key with every known one would cost time in proportion to its length.
const LONGEST_SUGGESTED_KEY: usize = 64;

/// The known key a misspelt one most likely meant: at most two edits away (one for short
/// keys), ignoring ASCII case (schema keys are ASCII; no Unicode tables in the bundle).
/// Bounded work: keys past [`LONGEST_SUGGESTED_KEY`] and known keys whose length alone
/// puts them too far are not compared, and a comparison stops once it exceeds the edits
/// allowed.
pub(crate) fn closest_key<'a>(
    key: &str,
    known_keys: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    if key.len() > LONGEST_SUGGESTED_KEY {
        return None;
    }
    let key_length = key.chars().count();
    let allowed_edits = if key_length <= 4 { 1 } else { 2 };
    let key = key.to_ascii_lowercase();
    known_keys
        .filter(|known| known.len().abs_diff(key.len()) <= allowed_edits * 4)
        .filter_map(|known| {
            bounded_edit_distance(&key, &known.to_ascii_lowercase(), allowed_edits)
                .map(|distance| (distance, known))
        })
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, known)| known)
}

/// Levenshtein distance in characters, when it is at most `limit`.
pub(crate) fn bounded_edit_distance(left: &str, right: &str, limit: usize) -> Option<usize> {
    let left: Vec<char> = left.chars().collect();
    let right: Vec<char> = right.chars().collect();
    if left.len().abs_diff(right.len()) > limit {
        return None;
    }
    let mut previous_row: Vec<usize> = (0..=right.len()).collect();
    for (left_idx, left_char) in left.iter().enumerate() {
        let mut row = vec![left_idx + 1];
        for (right_idx, right_char) in right.iter().enumerate() {
            let substitution = previous_row[right_idx] + usize::from(left_char != right_char);
            let deletion = previous_row[right_idx + 1] + 1;
            let insertion = row[right_idx] + 1;
            row.push(substitution.min(deletion).min(insertion));
        }
        // Every later row is at least this row's smallest value.
        if row.iter().min().is_some_and(|smallest| *smallest > limit) {
            return None;
        }
        previous_row = row;
    }
    Some(previous_row[right.len()]).filter(|distance| *distance <= limit)
}
