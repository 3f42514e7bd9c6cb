//! Import followed by render gives back the same data, for the seed manifests, the
//! templates' own output and a varied set of real-world style manifests.

use std::path::{Path, PathBuf};

use shared::documents::import::{self, DocumentKind};
use shared::documents::render;
use yaml_serde::Value;

fn data_dir(folder: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(folder)
}

fn yaml_files(folder: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(data_dir(folder))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "yaml")
        })
        .collect();
    files.sort();
    files
}

fn documents(text: &str) -> Vec<Value> {
    use serde::Deserialize;
    yaml_serde::Deserializer::from_str(text)
        .map(|document| Value::deserialize(document).unwrap())
        .filter(|document| !document.is_null())
        .collect()
}

/// Karpenter documents in a stable order (kubectl applies them as a set).
fn sorted(mut documents: Vec<Value>) -> Vec<Value> {
    let key = |document: &Value| {
        (
            document["kind"].as_str().unwrap_or_default().to_owned(),
            document["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        )
    };
    documents.sort_by_key(key);
    documents
}

fn check_round_trip(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let originals = documents(&text);
    match import::document_kind(&originals[0]).unwrap() {
        DocumentKind::ClusterConfig => {
            let spec = import::import_cluster_config(&originals[0]).unwrap();
            let rendered = render::cluster_document(&spec).unwrap();
            assert_eq!(
                rendered,
                originals[0],
                "{} changed in the round trip",
                path.display()
            );
            let text = render::render_cluster_yaml(&spec).unwrap();
            assert_eq!(
                documents(&text),
                originals,
                "{} text differs",
                path.display()
            );
        }
        DocumentKind::NodePool
        | DocumentKind::Ec2NodeClass
        | DocumentKind::NodeOverlay
        | DocumentKind::Unknown { .. } => {
            let imported = import::import_karpenter(&originals).unwrap();
            let rendered = render::karpenter_documents(&imported.settings).unwrap();
            assert_eq!(
                sorted(rendered),
                sorted(originals),
                "{} changed in the round trip",
                path.display()
            );
        }
    }
}

#[test]
fn seed_manifests_round_trip() {
    for path in yaml_files("seeds") {
        check_round_trip(&path);
    }
}

#[test]
fn varied_manifests_round_trip() {
    let files = yaml_files("manifests");
    assert!(files.len() >= 8, "only {} manifests", files.len());
    for path in files {
        check_round_trip(&path);
    }
}

#[test]
fn template_output_imports_to_the_same_spec() {
    for template in shared::TEMPLATES {
        let spec = template.spec();
        let cluster = render::cluster_document(&spec).unwrap();
        let mut imported = import::import_cluster_config(&cluster).unwrap();
        imported.karpenter = spec.karpenter.clone();
        import::settle_leftovers(&mut imported);
        // The volumes and Auto Mode's pools read back from their own files.
        for file in [
            shared::documents::storage::render(&spec).unwrap(),
            shared::documents::auto_mode::render(&spec).unwrap(),
        ]
        .into_iter()
        .flatten()
        {
            imported = import::import_text(&file, &imported).unwrap().0;
        }
        assert_eq!(imported, spec, "{}", template.id);
        if let Some(karpenter) = &spec.karpenter {
            let rendered = render::karpenter_documents(karpenter).unwrap();
            let imported = import::import_karpenter(&rendered).unwrap();
            assert_eq!(
                imported.settings.node_pools, karpenter.node_pools,
                "{}",
                template.id
            );
            assert_eq!(
                imported.settings.node_classes, karpenter.node_classes,
                "{}",
                template.id
            );
        }
    }
}

#[test]
fn unmodelled_keys_survive_an_edit_in_the_studio() {
    let original = documents(
        "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: research
  region: us-west-2
  version: '1.33'
  tags:
    team: vision
managedNodeGroups:
  - name: gpu
    instanceType: p4d.24xlarge
    privateNetworking: false
    volumeSize: 500
    iam:
      withAddonPolicies:
        imageBuilder: true
        ebs: true
",
    );
    let mut spec = import::import_cluster_config(&original[0]).unwrap();
    spec.node_groups[0].instance_type = "p5.48xlarge".into();
    spec.cluster.name = "research-p5".into();
    let rendered = render::cluster_document(&spec).unwrap();
    assert_eq!(rendered["metadata"]["name"], "research-p5");
    assert_eq!(rendered["metadata"]["tags"]["team"], "vision");
    let group = &rendered["managedNodeGroups"][0];
    assert_eq!(group["instanceType"], "p5.48xlarge");
    assert_eq!(group["volumeSize"], 500);
    assert_eq!(group["privateNetworking"], false);
    assert_eq!(group["iam"]["withAddonPolicies"]["imageBuilder"], true);
    assert_eq!(group["iam"]["withAddonPolicies"]["ebs"], true);
}

#[test]
fn documents_of_other_kinds_are_refused_by_name() {
    let service = documents("apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n");
    let error = import::document_kind(&service[0]).unwrap_err();
    assert_eq!(error.path, "kind");
    assert!(
        error.message.contains("`Service` in `v1`"),
        "{}",
        error.message
    );
    let list = documents("- a\n- b\n");
    assert!(import::document_kind(&list[0]).is_err());
}

#[test]
fn strict_import_refuses_unknown_keys_and_wrong_types_with_positions() {
    let text = "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: research
  region: us-west-2
managedNodeGroups:
  - name: gpu
    instanceTyp: p5.48xlarge
    desiredCapacity: two
";
    let failures = shared::lint::import_yaml(text).err().expect("refused");
    let located: Vec<(usize, usize)> = failures
        .iter()
        .map(|failure| (failure.line, failure.column))
        .collect();
    assert_eq!(located, [(8, 5), (9, 5)], "{failures:?}");
    assert!(
        failures[0].message.contains("instanceTyp"),
        "{}",
        failures[0].message
    );

    let truncated =
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: \"research\n";
    let failures = shared::lint::import_yaml(truncated).err().expect("refused");
    assert_eq!(failures.len(), 1);
    assert!(failures[0].line >= 4, "{failures:?}");

    let good =
        std::fs::read_to_string(data_dir("seeds").join("eks-g5-node-autorepair.yaml")).unwrap();
    let file = shared::lint::import_yaml(&good).unwrap();
    assert_eq!(file.spec.node_groups[1].instance_type, "g5.8xlarge");
}

/// The studio's own import of pasted text: what it reads, and where it says a problem is.
mod import_text {
    use shared::documents::import::import_text;

    fn current() -> shared::Spec {
        shared::template("karpenter-spot-inference").unwrap().spec()
    }

    #[test]
    fn a_cluster_config_replaces_the_design() {
        let text = std::fs::read_to_string(super::data_dir("seeds").join("eks-g4dn.yaml")).unwrap();
        let (spec, summary) = import_text(&text, &current()).unwrap();
        assert_eq!(spec.cluster.name, "eks-g4dn");
        assert!(spec.karpenter.is_none());
        assert!(
            summary.starts_with("Imported cluster eks-g4dn with"),
            "{summary}"
        );
    }

    #[test]
    fn karpenter_documents_replace_only_the_pools_and_classes() {
        let text =
            std::fs::read_to_string(super::data_dir("manifests").join("karpenter-default.yaml"))
                .unwrap();
        let before = current();
        let (spec, summary) = import_text(&text, &before).unwrap();
        assert_eq!(spec.cluster, before.cluster);
        let karpenter = spec.karpenter.unwrap();
        assert_eq!(karpenter.node_pools.len(), 1);
        assert_eq!(karpenter.node_pools[0].metadata.name, "default");
        assert_eq!(
            karpenter.interruption_queue,
            before.karpenter.unwrap().interruption_queue
        );
        assert_eq!(summary, "Imported 1 NodePool(s) and 1 EC2NodeClass(es).");
    }

    #[test]
    fn problems_are_placed_in_the_text() {
        let error = import_text("a: [1, 2\nb: 3\n", &current()).unwrap_err();
        assert!(error.syntax);
        assert!(
            error.to_string().starts_with(&format!(
                "YAML error at line {}, column {}",
                error.line, error.column
            )),
            "{error}"
        );

        let text = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: a}\n      requirements: []\n---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: b}\nspec:\n  weight: many\n";
        let error = import_text(text, &current()).unwrap_err();
        assert_eq!(error.document, Some(2));
        assert!(!error.syntax);
        assert!(error.line >= 10, "{error:?}");
        assert!(
            error.to_string().starts_with("document 2, line "),
            "{error}"
        );

        let twice = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: a, region: us-east-1}\n---\napiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: b, region: us-east-1}\n";
        let error = import_text(twice, &current()).unwrap_err();
        assert_eq!(error.line, 0);
        assert!(
            error.to_string().contains("one cluster at a time"),
            "{error}"
        );

        let error = import_text("# only a comment\n", &current()).unwrap_err();
        assert!(
            error.to_string().starts_with("Nothing to import"),
            "{error}"
        );
    }

    /// A NodePool that leaves out a field the CRD requires (Karpenter's docs show static
    /// pools without `nodeClassRef`) is said as the API server's refusal, at the mapping
    /// that lacks it, not in serde's words at `spec`.
    #[test]
    fn a_required_field_left_out_is_named_where_it_belongs() {
        let text = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\nspec:\n  replicas: 10\n  template:\n    spec:\n      requirements:\n        - key: karpenter.sh/capacity-type\n          operator: In\n          values: [\"spot\"]\n";
        let error = import_text(text, &current()).unwrap_err();
        assert_eq!(
            error.message,
            "missing required field `nodeClassRef`: the API server refuses the object without it"
        );
        assert_eq!((error.line, error.column), (8, 5), "{error}");
        // An object with no metadata has no name, which kubectl needs first.
        let nameless = "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nspec:\n  role: KarpenterNodeRole\n";
        let error = import_text(nameless, &current()).unwrap_err();
        assert!(
            error.message.contains("no metadata, so no name")
                && error.message.contains("resource name may not be empty"),
            "{error}"
        );
        assert_eq!(error.line, 2, "{error}");
        // A value of the wrong type is still serde's words.
        let wrong = text.replace("replicas: 10", "replicas: ten");
        let error = import_text(&wrong, &current()).unwrap_err();
        assert!(!error.message.contains("missing"), "{error}");
    }
}

/// A typo in an imported file is kept (nothing the user wrote is dropped) and is an error
/// the page shows: eksctl refuses a field it does not know. Fields eksctl knows but the
/// studio does not model are kept without a word.
#[test]
fn an_imported_typo_is_kept_and_found_and_known_unmodelled_fields_are_quiet() {
    let text = "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: demo
  region: us-east-1
  version: \"1.35\"
  tags: {team: ml}
cloudWatch:
  clusterLoging: {enableTypes: [api]}
managedNodeGroups:
  - name: gpu
    instanceType: p5.48xlarge
    efaEnable: true
    volumeSize: 200
";
    let (spec, _) = shared::documents::import::import_text(text, &shared::Spec::default()).unwrap();
    assert!(spec.node_groups[0].extra.contains_key("efaEnable"));
    let findings: Vec<_> = shared::rules::validate(&spec)
        .into_iter()
        .filter(|finding| finding.rule == "eksctl-unknown-field")
        .collect();
    let messages: Vec<&str> = findings
        .iter()
        .map(|finding| finding.message.as_str())
        .collect();
    assert_eq!(findings.len(), 2, "{messages:#?}");
    assert_eq!(findings[0].path, "cloudWatch");
    assert!(
        messages[0].contains("`clusterLoging`")
            && messages[0].contains("did you mean `clusterLogging`"),
        "{messages:?}"
    );
    assert_eq!(findings[1].path, "node_groups[0]");
    assert!(
        messages[1].contains("did you mean `efaEnabled`"),
        "{messages:?}"
    );
}

/// The same for Karpenter: a NodePool or EC2NodeClass field its CRD does not have is kept
/// and is an error the page shows; fields the CRD has but the studio does not model are quiet.
#[test]
fn an_imported_karpenter_typo_is_kept_and_found() {
    let text = "apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [p5], minValue: 1}
      terminationGracePeriod: 24h
      expireAftr: 720h
  disruption:
    consolidateAfter: 0s
    budgets:
      - {nodes: \"10%\", nodez: 1}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: gpu
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}, zone: a}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  blockDeviceMappings:
    - {deviceName: /dev/xvda, ebs: {volumeSize: 200Gi}}
  amiFamliy: AL2023
";
    let (spec, _) = shared::documents::import::import_text(text, &shared::Spec::default()).unwrap();
    let findings: Vec<_> = shared::rules::validate(&spec)
        .into_iter()
        .filter(|finding| finding.rule == "karpenter-unknown-field")
        .collect();
    let messages: Vec<&str> = findings
        .iter()
        .map(|finding| finding.message.as_str())
        .collect();
    assert_eq!(findings.len(), 5, "{messages:#?}");
    assert!(
        messages.iter().any(|message| message.contains("`minValue`")
            && message.contains("did you mean `minValues`")),
        "{messages:#?}"
    );
    assert!(
        messages.iter().any(|message| message.contains("`nodez`")),
        "{messages:#?}"
    );
    // Nothing the file said is lost: the pool renders back with the unknown keys.
    let rendered = shared::documents::render::render_karpenter_yaml(&spec)
        .unwrap()
        .unwrap();
    assert!(
        rendered.contains("nodez") && rendered.contains("minValue:"),
        "{rendered}"
    );
    assert!(
        messages
            .iter()
            .any(|message| message.contains("`expireAftr`")
                && message.contains("did you mean `expireAfter`")),
        "{messages:#?}"
    );
    assert!(
        messages
            .iter()
            .any(|message| message.contains("`amiFamliy`")
                && message.contains("did you mean `amiFamily`")),
        "{messages:#?}"
    );
    assert!(
        messages.iter().any(|message| message.contains("`zone`")),
        "{messages:#?}"
    );
}

#[test]
fn a_value_of_another_shape_is_kept_as_written_and_its_neighbours_are_read() {
    let original = documents(
        "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: research
  region: us-west-2
  version: 1.30
managedNodeGroups:
  - name: gpu
    instanceType: p4d.24xlarge
    minSize: \"2\"
    maxSize: 4
    efaEnabled: yes
    capacityReservation:
      capacityReservationTarget:
        capacityReservationID: 12
    iam:
      withAddonPolicies:
        ebs: true
        fsx: \"true\"
addons:
  - name: vpc-cni
    attachPolicyARNs: arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy
",
    );
    let spec = import::import_cluster_config(&original[0]).unwrap();
    assert_eq!(spec.cluster.kubernetes_version, "", "1.30 is a number");
    let group = &spec.node_groups[0];
    assert_eq!(group.min_size, None);
    assert_eq!(group.max_size, Some(4));
    assert!(!group.efa_enabled, "`yes` is a string in YAML 1.2");
    assert_eq!(group.capacity, shared::model::spec::Capacity::OnDemand);
    assert!(group.addon_policies.ebs);
    assert!(!group.addon_policies.fsx);
    assert!(spec.addons[0].attach_policy_arns.is_empty());
    let rendered = render::cluster_document(&spec).unwrap();
    assert_eq!(
        rendered, original[0],
        "every value is written back as it was"
    );
}

/// `placement.groupName` is a field of the design: read, edited and written back, with
/// any other key eksctl's `placement` has kept as written.
#[test]
fn a_node_groups_placement_group_is_read_edited_and_written_back() {
    let original = documents(
        "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: research
  region: us-west-2
managedNodeGroups:
  - name: gpu
    instanceType: p5.48xlarge
    efaEnabled: true
    placement:
      groupName: p5-training
      spreadLevel: rack
",
    );
    let mut spec = import::import_cluster_config(&original[0]).unwrap();
    assert_eq!(spec.node_groups[0].placement_group, "p5-training");
    let rendered = render::cluster_document(&spec).unwrap();
    assert_eq!(sorted(vec![rendered]), sorted(original.clone()));
    spec.node_groups[0].placement_group = "p5-training-2".into();
    let rendered = render::cluster_document(&spec).unwrap();
    let placement = &rendered["managedNodeGroups"][0]["placement"];
    assert_eq!(placement["groupName"], "p5-training-2");
    assert_eq!(placement["spreadLevel"], "rack");
    spec.node_groups[0].placement_group.clear();
    let rendered = render::cluster_document(&spec).unwrap();
    assert_eq!(
        rendered["managedNodeGroups"][0]["placement"]["spreadLevel"],
        "rack"
    );
    assert!(
        rendered["managedNodeGroups"][0]["placement"]
            .get("groupName")
            .is_none()
    );
}

#[test]
fn auto_mode_is_read_edited_and_written_back_with_what_the_studio_does_not_model() {
    // eksctl's own example, then one with Auto Mode off and a key the studio does not know.
    let corpus = data_dir("corpus/eksctl").join("42-auto-mode.yaml");
    let original = documents(&std::fs::read_to_string(&corpus).unwrap());
    let spec = import::import_cluster_config(&original[0]).unwrap();
    assert_eq!(
        spec.cluster.auto_mode,
        Some(shared::model::spec::AutoMode {
            enabled: true,
            node_pools: Some(vec!["general-purpose".into(), "system".into()]),
            ..shared::model::spec::AutoMode::default()
        })
    );
    assert!(spec.eksctl_extra.get("autoModeConfig").is_none());
    assert_eq!(render::cluster_document(&spec).unwrap(), original[0]);

    let original = documents(
        "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: research
  region: us-west-2
autoModeConfig:
  enabled: false
  nodeRoleARN: arn:aws:iam::111122223333:role/auto-nodes
  futureSetting: 3
",
    );
    let mut spec = import::import_cluster_config(&original[0]).unwrap();
    let auto = spec.cluster.auto_mode.clone().unwrap();
    assert!(!auto.enabled);
    assert_eq!(
        auto.node_role_arn,
        "arn:aws:iam::111122223333:role/auto-nodes"
    );
    assert_eq!(auto.node_pools, None);
    assert_eq!(render::cluster_document(&spec).unwrap(), original[0]);
    // Turned on in the studio: `enabled` follows, the unknown key stays.
    spec.cluster.auto_mode.as_mut().unwrap().enabled = true;
    spec.cluster.auto_mode.as_mut().unwrap().node_pools = Some(vec!["system".into()]);
    let rendered = render::cluster_document(&spec).unwrap();
    let auto = &rendered["autoModeConfig"];
    assert_eq!(auto["enabled"], true);
    assert_eq!(auto["nodePools"], Value::Sequence(vec!["system".into()]));
    assert_eq!(auto["futureSetting"], 3);
    // The studio's JSON keeps it too.
    let json = spec.to_json();
    assert_eq!(shared::Spec::from_json(&json).unwrap(), spec);
}

#[test]
fn pod_identity_associations_are_read_edited_and_written_back_with_what_the_studio_does_not_model()
{
    // eksctl's own example: five associations with roles, inline policies, target roles.
    let corpus = data_dir("corpus/eksctl").join("39-pod-identity-association.yaml");
    let original = documents(&std::fs::read_to_string(&corpus).unwrap());
    let mut spec = import::import_cluster_config(&original[0]).unwrap();
    let associations = &spec.cluster.pod_identity_associations;
    assert_eq!(associations.len(), 5);
    assert_eq!(associations[1].service_account(), "dev/app-cache-access");
    assert_eq!(
        associations[1].permission_policy_arns,
        [
            "arn:aws:iam::111122223333:policy/permission-policy-1",
            "arn:aws:iam::111122223333:policy/permission-policy-2"
        ]
    );
    assert!(associations[2].extra.contains_key("permissionPolicy"));
    assert!(spec.eksctl_extra.get("iam").is_none());
    assert_eq!(render::cluster_document(&spec).unwrap(), original[0]);
    // Edited in the studio: the policy list follows, the role name and boundary stay.
    spec.cluster.pod_identity_associations[1].permission_policy_arns =
        vec!["arn:aws:iam::111122223333:policy/other".into()];
    let rendered = render::cluster_document(&spec).unwrap();
    let edited = &rendered["iam"]["podIdentityAssociations"][1];
    assert_eq!(
        edited["permissionPolicyARNs"][0],
        "arn:aws:iam::111122223333:policy/other"
    );
    assert_eq!(edited["roleName"], "pod-identity-role-app-cache");
    assert_eq!(edited["wellKnownPolicies"]["externalDNS"], true);

    // On an add-on, beside keys the studio does not model; a list holding something other
    // than mappings stays whole among the add-on's leftovers.
    let original = documents(
        "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: research
  region: us-west-2
iam:
  withOIDC: false
addons:
  - name: eks-pod-identity-agent
  - name: aws-fsx-csi-driver
    version: latest
    podIdentityAssociations:
      - namespace: kube-system
        serviceAccountName: fsx-csi-controller-sa
        permissionPolicyARNs: [arn:aws:iam::aws:policy/AmazonFSxFullAccess]
        permissionPolicyName: fsx
  - name: aws-ebs-csi-driver
    podIdentityAssociations: [not-a-mapping]
",
    );
    let spec = import::import_cluster_config(&original[0]).unwrap();
    let fsx = &spec.addons[1];
    assert_eq!(fsx.pod_identity_associations.len(), 1);
    assert_eq!(
        fsx.pod_identity_associations[0].service_account(),
        "kube-system/fsx-csi-controller-sa"
    );
    assert!(!fsx.extra.contains_key("podIdentityAssociations"));
    assert!(spec.addons[2].pod_identity_associations.is_empty());
    assert!(spec.addons[2].extra.contains_key("podIdentityAssociations"));
    assert_eq!(render::cluster_document(&spec).unwrap(), original[0]);
    let driver = shared::documents::storage::driver("aws-fsx-csi-driver").unwrap();
    assert_eq!(
        driver.identity(&spec),
        shared::documents::storage::DriverIdentity::PodIdentity
    );
    assert_eq!(
        driver.policies(&spec).unwrap().0,
        "addons[1].pod_identity_associations[0].permission_policy_arns"
    );
}

#[test]
fn access_entries_are_read_edited_and_written_back_with_what_the_studio_does_not_model() {
    // eksctl's own example: four entries, groups, namespace and cluster scopes, a node role.
    let corpus = data_dir("corpus/eksctl").join("40-access-entries.yaml");
    let original = documents(&std::fs::read_to_string(&corpus).unwrap());
    let mut spec = import::import_cluster_config(&original[0]).unwrap();
    let access = spec.cluster.access.as_ref().unwrap();
    assert_eq!(access.authentication_mode, "API");
    assert_eq!(
        access.bootstrap_cluster_creator_admin_permissions,
        Some(false)
    );
    assert_eq!(access.access_entries.len(), 4);
    assert_eq!(
        access.access_entries[0].kubernetes_groups,
        ["group1", "group2"]
    );
    let viewer = &access.access_entries[1].access_policies[0];
    assert_eq!(viewer.scope, "namespace");
    assert_eq!(viewer.namespaces, ["default", "my-namespace", "dev-*"]);
    assert_eq!(access.access_entries[3].entry_type, "EC2_LINUX");
    assert!(spec.eksctl_extra.get("accessConfig").is_none());
    assert_eq!(render::cluster_document(&spec).unwrap(), original[0]);
    // Edited in the studio: the scope follows, and the file says it where eksctl reads it.
    let entry = &mut spec.cluster.access.as_mut().unwrap().access_entries[1];
    entry.access_policies[0].scope = "cluster".into();
    entry.access_policies[0].namespaces.clear();
    let rendered = render::cluster_document(&spec).unwrap();
    let scope = &rendered["accessConfig"]["accessEntries"][1]["accessPolicies"][0]["accessScope"];
    assert_eq!(scope["type"], "cluster");
    assert!(scope.get("namespaces").is_none());

    // Keys the studio does not model, in an entry and in a policy, are kept; a list that
    // holds something other than mappings stays whole among the leftovers.
    let original = documents(
        "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: research
  region: us-west-2
accessConfig:
  authenticationMode: API_AND_CONFIG_MAP
  accessEntries:
    - principalARN: arn:aws:iam::111122223333:role/ml-admins
      tags: {team: ml}
      accessPolicies:
        - policyARN: arn:aws:eks::aws:cluster-access-policy/AmazonEKSAdminPolicy
          accessScope: {type: namespace, namespaces: [training], note: kept}
          comment: kept too
",
    );
    let spec = import::import_cluster_config(&original[0]).unwrap();
    let entry = &spec.cluster.access.as_ref().unwrap().access_entries[0];
    assert!(entry.extra.contains_key("tags"));
    assert!(entry.access_policies[0].extra.contains_key("comment"));
    assert_eq!(render::cluster_document(&spec).unwrap(), original[0]);
    let odd = documents(
        "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: research
  region: us-west-2
accessConfig:
  accessEntries: [not-a-mapping]
",
    );
    let spec = import::import_cluster_config(&odd[0]).unwrap();
    assert_eq!(render::cluster_document(&spec).unwrap(), odd[0]);
}

#[test]
fn a_storage_driver_moves_between_irsa_and_pod_identity_with_its_policies() {
    let mut spec = shared::templates::template("p5-checkpoint-storage")
        .unwrap()
        .spec();
    let s3 = shared::documents::storage::driver("aws-mountpoint-s3-csi-driver").unwrap();
    let (path, policies) = s3.policies(&spec).unwrap();
    assert_eq!(
        path,
        "cluster.pod_identity_associations[0].permission_policy_arns"
    );
    s3.set_identity(&mut spec, shared::documents::storage::DriverIdentity::Irsa);
    assert!(spec.cluster.pod_identity_associations.is_empty());
    let (path, moved) = s3.policies(&spec).unwrap();
    assert!(path.ends_with("].attach_policy_arns"), "{path}");
    assert_eq!(moved, policies);
    s3.set_identity(
        &mut spec,
        shared::documents::storage::DriverIdentity::PodIdentity,
    );
    assert_eq!(
        s3.policies(&spec).unwrap(),
        (
            "cluster.pod_identity_associations[0].permission_policy_arns".to_owned(),
            policies
        )
    );
    // A finding on the policies points at them in the file.
    let text = render::render_cluster_yaml(&spec).unwrap();
    let file = shared::lint::parse_yaml_file(&text).unwrap();
    let fsx_index = spec
        .addons
        .iter()
        .position(|addon| addon.name == "aws-fsx-csi-driver")
        .unwrap();
    for (spec_path, yaml) in [
        (
            format!("addons[{fsx_index}].pod_identity_associations[0].permission_policy_arns[0]"),
            format!("addons[{fsx_index}].podIdentityAssociations[0].permissionPolicyARNs[0]"),
        ),
        (
            "cluster.pod_identity_associations[0].service_account_name".to_owned(),
            "iam.podIdentityAssociations[0].serviceAccountName".to_owned(),
        ),
    ] {
        let (document, path) = shared::lint::file_path(&file, &spec_path);
        assert_eq!(document, 0);
        assert_eq!(path.to_string(), yaml);
    }
}

#[test]
fn a_finding_on_a_kept_node_group_key_points_at_it_in_the_file() {
    let spec = shared::templates::template("p6e-gb200-ultraserver")
        .unwrap()
        .spec();
    let text = render::render_cluster_yaml(&spec).unwrap();
    let file = shared::lint::parse_yaml_file(&text).unwrap();
    let (_, path) = shared::lint::file_path(&file, "node_groups[1].extra.ami");
    assert_eq!(path.to_string(), "managedNodeGroups[1].ami");
    let findings = shared::lint::lint_text("cluster.yaml", &text).unwrap();
    let ami = findings
        .iter()
        .find(|finding| finding.message.contains("PLACEHOLDER_AMI_ID"))
        .expect("the AMI placeholder is a finding");
    let line = text
        .lines()
        .position(|line| line.trim() == "ami: PLACEHOLDER_AMI_ID")
        .unwrap()
        + 1;
    assert_eq!(ami.line, line);
}

#[test]
fn volumes_whose_network_the_deploy_fills_read_back_as_left_to_the_deploy() {
    let mut spec = shared::templates::template("g4dn").unwrap().spec();
    spec.addons.push(shared::templates::starting_addon(
        shared::documents::storage::FSX_ADDON,
    ));
    spec.storage.fsx = Some(shared::model::spec::FsxVolume {
        subnet_id: String::new(),
        security_group_ids: Vec::new(),
        deployment_type: "SCRATCH_2".into(),
        per_unit_storage_throughput: None,
        storage_gib: 2400,
    });
    let volumes = shared::documents::storage::render(&spec).unwrap().unwrap();
    assert!(
        volumes.contains("FILLED_AT_DEPLOY_FSX_SUBNET_ID"),
        "{volumes}"
    );
    let mut without = spec.clone();
    without.storage = shared::model::spec::Storage::default();
    let (read, _) = import::import_text(&volumes, &without).unwrap();
    assert_eq!(read.storage, spec.storage);
}

#[test]
fn the_volumes_the_studio_writes_are_read_back_unchanged_and_others_refused_where_they_differ() {
    let template = shared::templates::template("p5-checkpoint-storage")
        .unwrap()
        .spec();
    let filled = shared::lint::placeholders::fill(&template, "PLACEHOLDER_AWS_REGION", "us-east-2");
    let volumes = shared::documents::storage::render(&filled)
        .unwrap()
        .unwrap();
    let cluster = render::render_cluster_yaml(&filled).unwrap();

    // The volumes alone, into a design that has none: the rest of the design stays.
    let mut without = filled.clone();
    without.storage = shared::model::spec::Storage::default();
    let (read, said) = import::import_text(&volumes, &without).unwrap();
    assert_eq!(read, filled);
    assert_eq!(
        said,
        "Imported an FSx for Lustre file system and an S3 bucket volume."
    );
    // With the cluster in the same text: the whole design back.
    let (read, _) = import::import_text(&format!("{cluster}---\n{volumes}"), &without).unwrap();
    assert_eq!(read.storage, filled.storage);
    assert_eq!(read.cluster, filled.cluster);

    // A key the studio does not write is refused at its line, not dropped.
    let retained = volumes.replacen(
        "provisioner: fsx.csi.aws.com\n",
        "provisioner: fsx.csi.aws.com\nreclaimPolicy: Retain\n",
        1,
    );
    let error = import::import_text(&retained, &without).unwrap_err();
    assert!(error.message.contains("`reclaimPolicy`"), "{error}");
    let line = retained
        .lines()
        .position(|line| line.starts_with("reclaimPolicy"))
        .unwrap()
        + 1;
    assert_eq!(error.line, line, "{error}");
    // A bucket mounted in another region than the design's.
    let mut elsewhere = without.clone();
    elsewhere.cluster.region = "eu-west-1".into();
    let error = import::import_text(&volumes, &elsewhere).unwrap_err();
    assert!(error.message.contains("spec.mountOptions[1]"), "{error}");
    // An object the studio never writes.
    let other =
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: scratch\nspec: {}\n";
    let error = import::import_text(other, &without).unwrap_err();
    assert!(
        error
            .message
            .contains("`scratch` is not one of the volumes"),
        "{error}"
    );
}

#[test]
fn an_import_far_beyond_what_eks_runs_is_refused_before_it_replaces_the_design() {
    let mut text = String::from(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: huge\n  region: us-east-1\n  version: \"1.35\"\nmanagedNodeGroups:\n",
    );
    for index in 0..301 {
        text.push_str(&format!(
            "  - name: group-{index}\n    instanceType: m5.large\n"
        ));
    }
    let current = shared::template("p5-odcr-vpc").unwrap().spec();
    let error = shared::documents::import::import_text(&text, &current).unwrap_err();
    assert!(
        error
            .message
            .starts_with("Not imported: the design has 301 node groups; EKS allows 30"),
        "{}",
        error.message
    );
    assert!(
        error.message.ends_with("The current design was kept."),
        "{}",
        error.message
    );
}
