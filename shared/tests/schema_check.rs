//! Documents checked against the upstream schemas, each issue with its path and position.

use std::path::Path;

use serde_json::Value as Json;
use shared::upstream::schema_check::{self, DocumentKind, SchemaIssue, SchemaIssueKind};
use shared::yaml::node::Node;
use shared::yaml::source::parse_documents;

// The checks read a document where it was parsed; these read it as the tests hand it over.
fn check_cluster_config(document: Node<'_>) -> Vec<SchemaIssue> {
    schema_check::check_cluster_config(document)
}

fn check_karpenter(document: Node<'_>) -> Vec<SchemaIssue> {
    schema_check::check_karpenter(document)
}

fn check_document(document: Node<'_>) -> Vec<SchemaIssue> {
    schema_check::check_document(document)
}

/// `(path, "line:col", kind)` of every issue `check` finds in every document of `text`.
fn issues(
    text: &str,
    check: fn(Node<'_>) -> Vec<SchemaIssue>,
) -> Vec<(String, String, SchemaIssueKind)> {
    parse_documents(text)
        .unwrap()
        .iter()
        .flat_map(|document| {
            check(document.node()).into_iter().map(|issue| {
                let position = document.position(&issue.path).to_string();
                (issue.path.to_string(), position, issue.kind)
            })
        })
        .collect()
}

/// The issues of `text` are exactly `expected`, in document order.
fn check(
    text: &str,
    check: fn(Node<'_>) -> Vec<SchemaIssue>,
    expected: &[(&str, &str, SchemaIssueKind)],
) {
    let expected: Vec<(String, String, SchemaIssueKind)> = expected
        .iter()
        .map(|(path, position, kind)| ((*path).to_owned(), (*position).to_owned(), kind.clone()))
        .collect();
    assert_eq!(issues(text, check), expected, "for\n{text}");
}

/// The one issue of `text`, for tests about its message.
fn only_message(text: &str, check: fn(Node<'_>) -> Vec<SchemaIssue>) -> String {
    let document = &parse_documents(text).unwrap()[0];
    let issues = check(document.node());
    assert_eq!(issues.len(), 1, "{issues:?}");
    issues[0].to_string()
}

fn wrong_type(expected: &str, found: &str) -> SchemaIssueKind {
    SchemaIssueKind::WrongType {
        expected: expected.to_owned(),
        found: found.to_owned(),
    }
}

const CLUSTER_HEADER: &str = include_str!("data/examples/cluster-header.yaml");

#[test]
fn the_seven_seed_manifests_have_no_schema_issues() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/seeds");
    let mut n_seeds = 0;
    for entry in std::fs::read_dir(seeds).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let documents = parse_documents(&text).unwrap();
        assert_eq!(documents.len(), 1);
        assert_eq!(
            DocumentKind::of(&documents[0].to_value()),
            DocumentKind::ClusterConfig
        );
        assert_eq!(
            check_cluster_config(documents[0].node()),
            [],
            "{}",
            path.display()
        );
        assert_eq!(
            check_document(documents[0].node()),
            [],
            "{}",
            path.display()
        );
        n_seeds += 1;
    }
    assert_eq!(n_seeds, 7);
}

#[test]
fn a_misspelt_key_in_a_managed_node_group_is_unknown() {
    let text = format!(
        "{CLUSTER_HEADER}managedNodeGroups:\n  - name: gpu\n    instanceTyp: p5.48xlarge\n"
    );
    check(
        &text,
        check_cluster_config,
        &[(
            "managedNodeGroups[0].instanceTyp",
            "9:5",
            SchemaIssueKind::UnknownKey,
        )],
    );
    assert_eq!(
        only_message(&text, check_cluster_config),
        "managedNodeGroups[0].instanceTyp: unknown field `instanceTyp` (did you mean \
         `instanceType`?): eksctl rejects fields its ClusterConfig schema does not have"
    );
}

#[test]
fn a_string_desired_capacity_is_the_wrong_type() {
    let text = format!(
        "{CLUSTER_HEADER}managedNodeGroups:\n  - name: gpu\n    desiredCapacity: \"two\"\n"
    );
    check(
        &text,
        check_cluster_config,
        &[(
            "managedNodeGroups[0].desiredCapacity",
            "9:5",
            wrong_type("integer", "string"),
        )],
    );
    assert_eq!(
        only_message(&text, check_cluster_config),
        "managedNodeGroups[0].desiredCapacity: expected integer, found string `two`"
    );
}

/// eksctl's schema lists values its validation checks itself, without regard to case and
/// beyond the list (Windows families for self-managed groups): the walker leaves `enum` to
/// the rules for eksctl, which read the family as eksctl does.
#[test]
fn an_unknown_ami_family_is_the_rules_not_the_schemas() {
    let text =
        format!("{CLUSTER_HEADER}managedNodeGroups:\n  - name: gpu\n    amiFamily: Ubuntu9000\n");
    assert_eq!(issues(&text, check_cluster_config), Vec::new());
    let findings = shared::rules::check_document(&yaml_serde::from_str(&text).unwrap());
    let unsupported: Vec<_> = findings
        .iter()
        .filter(|finding| finding.rule == "nodegroup-ami-invalid")
        .collect();
    assert_eq!(unsupported.len(), 1, "{findings:#?}");
    assert_eq!(unsupported[0].path, "managedNodeGroups[0].amiFamily");
    assert!(unsupported[0].message.contains("AmazonLinux2023"));
    let lower = text.replace("Ubuntu9000", "amazonlinux2023");
    assert!(shared::rules::check_document(&yaml_serde::from_str(&lower).unwrap()).is_empty());
}

#[test]
fn every_issue_is_reported_not_only_the_first() {
    let text = "\
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  region: us-west-2
  version: 1.30
availabilityZones: us-west-2a
managedNodeGroups:
  - name: gpu
    instanceTyp: p5.48xlarge
    desiredCapacity: \"two\"
    amiFamily: AmazonLinux2023
    efaEnabled: yes
    taints:
      - key: nvidia.com/gpu
        effect: NoSchedule
        valeu: \"true\"
  - name: cpu
    minSize: 1.0
    maxSize: 2.5
iam:
  withOIDC: true
  serviceRoleARN:
vpc:
";
    check(
        text,
        check_cluster_config,
        &[
            // No issue for the missing metadata.name: eksctl never reads the schema's
            // `required`; the rule cluster-name-invalid reports the empty name.
            ("metadata.version", "5:3", wrong_type("string", "number")),
            ("availabilityZones", "6:1", wrong_type("array", "string")),
            (
                "managedNodeGroups[0].instanceTyp",
                "9:5",
                SchemaIssueKind::UnknownKey,
            ),
            (
                "managedNodeGroups[0].desiredCapacity",
                "10:5",
                wrong_type("integer", "string"),
            ),
            // `efaEnabled: yes` is no issue: eksctl reads YAML 1.1, where `yes` is true.
            (
                "managedNodeGroups[0].taints[0].valeu",
                "16:9",
                SchemaIssueKind::UnknownKey,
            ),
            (
                "managedNodeGroups[1].maxSize",
                "19:5",
                wrong_type("integer", "number"),
            ),
        ],
    );
}

#[test]
fn an_oidc_identity_provider_is_accepted() {
    // The upstream schema closes the `oneOf` branch without `type`; eksctl reads `type` to
    // choose the branch, so the enclosing schema's properties count as known in the branch.
    let text = format!(
        "{CLUSTER_HEADER}identityProviders:
  - type: oidc
    name: corp
    issuerURL: https://issuer.example.com
    clientID: kubernetes
  - type: oidc
    name: broken
    clientId: kubernetes
"
    );
    check(
        &text,
        check_cluster_config,
        &[
            // `clientId`: eksctl's identity provider decoder (Go's, case-insensitive)
            // reads it as `clientID`: no issue.
            // The missing issuerURL and clientID are the rule identity-provider-invalid's
            // (eksctl's validateIdentityProvider), not the schema's: eksctl never reads
            // the schema's `required`.
        ],
    );
}

#[test]
fn a_document_of_another_kind_is_named_at_kind() {
    let text = "\
apiVersion: karpenter.sh/v1
kind: NodeClaim
---
apiVersion: karpenter.sh/v1beta1
kind: NodePool
---
metadata: {name: x}
---
- just a list
";
    check(
        text,
        check_karpenter,
        &[
            (
                "kind",
                "2:1",
                SchemaIssueKind::NotInEnum {
                    allowed: vec![
                        "NodePool".to_owned(),
                        "EC2NodeClass".to_owned(),
                        "NodeOverlay".to_owned(),
                    ],
                },
            ),
            (
                "apiVersion",
                "4:1",
                SchemaIssueKind::NotInEnum {
                    allowed: vec!["karpenter.sh/v1".to_owned()],
                },
            ),
            (
                "kind",
                "7:1",
                SchemaIssueKind::MissingRequired("kind".to_owned()),
            ),
            ("", "9:1", wrong_type("object", "array")),
        ],
    );
    check(
        "apiVersion: v1\nkind: ConfigMap\n",
        check_document,
        &[(
            "kind",
            "2:1",
            SchemaIssueKind::NotInEnum {
                allowed: vec![
                    "ClusterConfig".to_owned(),
                    "NodePool".to_owned(),
                    "EC2NodeClass".to_owned(),
                    "NodeOverlay".to_owned(),
                ],
            },
        )],
    );
    check(
        "apiVersion: eksctl.io/v1alpha4\nkind: ClusterConfig\nmetadata: {name: a, region: b}\n",
        check_cluster_config,
        &[(
            "apiVersion",
            "1:1",
            SchemaIssueKind::NotInEnum {
                allowed: vec!["eksctl.io/v1alpha5".to_owned()],
            },
        )],
    );
}

#[test]
fn document_kinds_come_from_api_version_and_kind() {
    let kinds: Vec<DocumentKind> = parse_documents(
        "\
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
---
apiVersion: karpenter.sh/v1
kind: NodePool
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
---
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
---
kind: 12
",
    )
    .unwrap()
    .iter()
    .map(|document| DocumentKind::of(&document.to_value()))
    .collect();
    assert_eq!(
        kinds,
        [
            DocumentKind::ClusterConfig,
            DocumentKind::NodePool,
            DocumentKind::Ec2NodeClass,
            DocumentKind::Unknown {
                api_version: Some("karpenter.k8s.aws/v1beta1".to_owned()),
                kind: Some("EC2NodeClass".to_owned()),
            },
            DocumentKind::Unknown {
                api_version: None,
                kind: None,
            },
        ]
    );
}

/// A GPU training pool: reserved capacity first, on-demand after, GPUs tainted.
const GPU_NODE_POOL: &str = include_str!("data/examples/gpu-node-pool.yaml");

/// The node class for [`GPU_NODE_POOL`]: AL2023, discovery tags, one capacity reservation.
const GPU_NODE_CLASS: &str = include_str!("data/examples/gpu-node-class.yaml");

#[test]
fn a_realistic_gpu_node_pool_and_node_class_have_no_issues() {
    let text = format!("{GPU_NODE_POOL}---\n{GPU_NODE_CLASS}");
    let documents = parse_documents(&text).unwrap();
    let kinds: Vec<DocumentKind> = documents
        .iter()
        .map(|document| DocumentKind::of(&document.to_value()))
        .collect();
    assert_eq!(kinds, [DocumentKind::NodePool, DocumentKind::Ec2NodeClass]);
    check(&text, check_karpenter, &[]);
    check(&text, check_document, &[]);
}

#[test]
fn an_unknown_key_under_the_node_pool_template_spec_would_be_pruned() {
    let text = GPU_NODE_POOL.replace(
        "      expireAfter: 720h\n",
        "      expireAfter: 720h\n      instanceTypes: [p5.48xlarge]\n",
    );
    check(
        &text,
        check_karpenter,
        &[(
            "spec.template.spec.instanceTypes",
            "38:7",
            SchemaIssueKind::UnknownKey,
        )],
    );
    assert_eq!(
        only_message(&text, check_karpenter),
        "spec.template.spec.instanceTypes: unknown field `instanceTypes`: the NodePool schema \
         does not have it, so `kubectl apply` refuses the object (kubectl validates fields \
         strictly unless told `--validate=false`), and a client that does not validate (Helm) \
         has the API server drop the field"
    );
}

#[test]
fn karpenter_types_enums_bounds_and_required_fields_are_checked() {
    let text = "\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: broken
  lables: {team: ml}
spec:
  template:
    spec:
      requirements:
        - key: karpenter.sh/capacity-type
          operator: Equals
          values: [spot]
      taints:
        - key: nvidia.com/gpu
          effect: NoScheduling
  limits:
    cpu: true
    nvidia.com/gpu: 8
  disruption:
    consolidationPolicy: WhenUnderutilized
  weight: 101
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: broken
spec:
  instanceProfile: KarpenterInstanceProfile
  amiSelectorTerms: []
  subnetSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
  metadataOptions:
    httpPutResponseHopLimit: \"2\"
";
    check(
        text,
        check_karpenter,
        &[
            ("metadata.lables", "5:3", SchemaIssueKind::UnknownKey),
            (
                "spec.template.spec.requirements[0].operator",
                "11:11",
                SchemaIssueKind::NotInEnum {
                    allowed: [
                        "Gte",
                        "Lte",
                        "In",
                        "NotIn",
                        "Exists",
                        "DoesNotExist",
                        "Gt",
                        "Lt",
                    ]
                    .map(str::to_owned)
                    .to_vec(),
                },
            ),
            (
                "spec.template.spec.taints[0].effect",
                "15:11",
                SchemaIssueKind::NotInEnum {
                    allowed: ["NoSchedule", "PreferNoSchedule", "NoExecute"]
                        .map(str::to_owned)
                        .to_vec(),
                },
            ),
            (
                "spec.template.spec.nodeClassRef",
                "8:5",
                SchemaIssueKind::MissingRequired("nodeClassRef".to_owned()),
            ),
            (
                "spec.limits.cpu",
                "17:5",
                wrong_type("integer or string", "boolean"),
            ),
            (
                "spec.disruption.consolidationPolicy",
                "20:5",
                SchemaIssueKind::NotInEnum {
                    allowed: ["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"]
                        .map(str::to_owned)
                        .to_vec(),
                },
            ),
            (
                "spec.disruption.consolidateAfter",
                "19:3",
                SchemaIssueKind::MissingRequired("consolidateAfter".to_owned()),
            ),
            (
                "spec.weight",
                "21:3",
                SchemaIssueKind::NumberOutOfRange {
                    minimum: Some(1.0),
                    maximum: Some(100.0),
                    found: 101.0,
                },
            ),
            (
                "spec",
                "27:1",
                SchemaIssueKind::RuleBroken {
                    rule:
                        "self.amiSelectorTerms.exists(x, has(x.alias)) ? true : has(self.amiFamily)"
                            .to_owned(),
                },
            ),
            (
                "spec.amiSelectorTerms",
                "29:3",
                SchemaIssueKind::CountOutOfRange {
                    minimum: Some(1),
                    maximum: Some(30),
                    found: 0,
                },
            ),
            (
                "spec.metadataOptions.httpPutResponseHopLimit",
                "33:5",
                wrong_type("integer", "string"),
            ),
            (
                "spec.securityGroupSelectorTerms",
                "27:1",
                SchemaIssueKind::MissingRequired("securityGroupSelectorTerms".to_owned()),
            ),
        ],
    );
}

#[test]
fn nulls_and_tags_pass_where_values_may_be() {
    let text = format!(
        "{CLUSTER_HEADER}vpc:\niam:\n  withOIDC: !!bool true\nmanagedNodeGroups:\n  - name: a\n    labels:\n"
    );
    check(&text, check_cluster_config, &[]);
}

/// Keywords the walker evaluates; everything else (descriptions, defaults, patterns, CEL
/// rules) is dropped from the embedded copies.
const EVALUATED_KEYWORDS: &[&str] = &[
    "$ref",
    "definitions",
    "type",
    "properties",
    "additionalProperties",
    "required",
    "enum",
    "items",
    "oneOf",
    "anyOf",
    "allOf",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-int-or-string",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "pattern",
    "format",
    "default",
    "x-kubernetes-validations",
];

/// `schema` with only the evaluated keywords, at every level.
fn reduce_schema(schema: &Json) -> Json {
    let Json::Object(schema) = schema else {
        return schema.clone();
    };
    let reduced = schema
        .iter()
        .filter(|(keyword, _)| EVALUATED_KEYWORDS.contains(&keyword.as_str()))
        .map(|(keyword, value)| {
            let value = match (keyword.as_str(), value) {
                ("properties" | "definitions", Json::Object(named)) => Json::Object(
                    named
                        .iter()
                        .map(|(name, schema)| (name.clone(), reduce_schema(schema)))
                        .collect(),
                ),
                ("items" | "additionalProperties", schema) => reduce_schema(schema),
                ("oneOf" | "anyOf" | "allOf", Json::Array(branches)) => {
                    Json::Array(branches.iter().map(reduce_schema).collect())
                }
                (_, value) => value.clone(),
            };
            (keyword.clone(), value)
        })
        .collect();
    Json::Object(reduced)
}

/// The OpenAPI schema of a CRD file's served storage version (`v1`, or `v1alpha1` for
/// NodeOverlay).
fn crd_schema(text: &str) -> Json {
    let crd: Json = yaml_serde::from_str(text).unwrap();
    let versions = crd["spec"]["versions"].as_array().unwrap();
    let stored = versions
        .iter()
        .find(|version| version["storage"] == true)
        .unwrap();
    stored["schema"]["openAPIV3Schema"].clone()
}

#[test]
fn embedded_schemas_are_the_upstream_schemas_reduced() {
    // Regenerate with `UPDATE_EXPECT=1 cargo test -p eks-studio-shared --test schema_check`
    // after replacing an upstream file in tests/data/schemas/.
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let upstream = |file: &str| {
        std::fs::read_to_string(manifest_dir.join("tests/data/schemas").join(file)).unwrap()
    };
    let cases = [
        (
            "eksctl-clusterconfig-v1alpha5.min.json",
            serde_json::from_str(&upstream("eksctl-clusterconfig-v1alpha5.schema.json")).unwrap(),
        ),
        (
            "karpenter-nodepool-v1.min.json",
            crd_schema(&upstream("karpenter.sh_nodepools.aws-provider.yaml")),
        ),
        (
            "karpenter-ec2nodeclass-v1.min.json",
            crd_schema(&upstream("karpenter.k8s.aws_ec2nodeclasses.yaml")),
        ),
        (
            "karpenter-nodeoverlay-v1alpha1.min.json",
            crd_schema(&upstream("karpenter.sh_nodeoverlays.yaml")),
        ),
    ];
    for (embedded_file, upstream_schema) in cases {
        let expected = reduce_schema(&upstream_schema);
        let embedded_path = manifest_dir.join("data/schemas").join(embedded_file);
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            let text = serde_json::to_string(&expected).unwrap() + "\n";
            std::fs::write(&embedded_path, text).unwrap();
        }
        let embedded: Json =
            serde_json::from_str(&std::fs::read_to_string(&embedded_path).unwrap()).unwrap();
        assert!(
            embedded == expected,
            "{} is stale; run with UPDATE_EXPECT=1",
            embedded_path.display()
        );
    }
}

/// The keys each object of a `ClusterConfig` may have, as a tree (`{key: subtree}`, `0`
/// where any value goes): what the page checks imported files' unmodelled keys against,
/// without carrying the schema.
fn key_tree(root: &Json, schema: &Json, depth: usize) -> Json {
    let mut schema = schema;
    while let Some(reference) = schema.get("$ref").and_then(Json::as_str) {
        schema = root.pointer(reference.trim_start_matches('#')).unwrap();
    }
    if depth > 12 {
        return Json::from(0);
    }
    if let Some(items) = schema.get("items") {
        return key_tree(root, items, depth + 1);
    }
    let mut properties = serde_json::Map::new();
    for keyword in ["oneOf", "anyOf", "allOf"] {
        for branch in schema
            .get(keyword)
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            let mut branch = branch;
            while let Some(reference) = branch.get("$ref").and_then(Json::as_str) {
                branch = root.pointer(reference.trim_start_matches('#')).unwrap();
            }
            if let Some(branch_properties) = branch.get("properties").and_then(Json::as_object) {
                properties.extend(branch_properties.clone());
            }
        }
    }
    if let Some(own) = schema.get("properties").and_then(Json::as_object) {
        properties.extend(own.clone());
    }
    if properties.is_empty() {
        return Json::from(0);
    }
    Json::Object(
        properties
            .iter()
            .map(|(key, value)| (key.clone(), key_tree(root, value, depth + 1)))
            .collect(),
    )
}

/// The JSON file `data/schemas/{file}` holds `expected` (written with `UPDATE_EXPECT=1`).
fn assert_embedded_json(file: &str, expected: &Json) -> Json {
    let table_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/schemas")
        .join(file);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&table_path, serde_json::to_string(expected).unwrap() + "\n").unwrap();
    }
    let table: Json = serde_json::from_str(&std::fs::read_to_string(&table_path).unwrap()).unwrap();
    assert!(
        &table == expected,
        "{} is stale; run with UPDATE_EXPECT=1",
        table_path.display()
    );
    table
}

#[test]
fn the_embedded_key_table_is_the_schemas_keys() {
    // Regenerate with `UPDATE_EXPECT=1` after a schema changes.
    let schema = |file: &str| -> Json {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/schemas")
            .join(file);
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let cluster_config = schema("eksctl-clusterconfig-v1alpha5.min.json");
    let table = assert_embedded_json(
        "eksctl-keys.json",
        &key_tree(&cluster_config, &cluster_config, 0),
    );
    assert!(table["managedNodeGroups"]["efaEnabled"] == 0);

    let node_pool = schema("karpenter-nodepool-v1.min.json");
    let node_class = schema("karpenter-ec2nodeclass-v1.min.json");
    let table = assert_embedded_json(
        "karpenter-keys.json",
        &serde_json::json!({
            "NodePool": key_tree(&node_pool, &node_pool, 0),
            "EC2NodeClass": key_tree(&node_class, &node_class, 0),
        }),
    );
    assert!(table["EC2NodeClass"]["spec"]["blockDeviceMappings"]["ebs"]["volumeSize"] == 0);
}
