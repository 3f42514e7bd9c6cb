//! `lint` on files as users keep them: NodePools in one file, their EC2NodeClass in another.

#[test]
fn a_nodepool_file_without_its_node_class_gets_a_warning_not_an_error() {
    let both = include_str!("data/manifests/karpenter-default.yaml");
    let pools_only: String = both
        .split("\n---")
        .filter(|document| document.contains("kind: NodePool"))
        .collect::<Vec<_>>()
        .join("\n---");
    assert!(!pools_only.contains("\nkind: EC2NodeClass"), "{pools_only}");
    let findings = shared::lint::lint_text("nodepools.yaml", &pools_only).unwrap();
    let missing: Vec<_> = findings
        .iter()
        .filter(|finding| finding.rule == "karpenter-node-class-missing")
        .collect();
    assert!(!missing.is_empty(), "{findings:#?}");
    for finding in missing {
        assert_eq!(finding.severity, shared::rules::Severity::Warning);
        assert!(
            finding.message.contains("must come from elsewhere"),
            "{}",
            finding.message
        );
    }
    // With the class in the same file nothing is missing.
    let findings = shared::lint::lint_text("karpenter.yaml", both).unwrap();
    assert!(
        findings
            .iter()
            .all(|finding| finding.rule != "karpenter-node-class-missing"),
        "{findings:#?}"
    );
}

/// Several files are one design: the pools find their class in the other file, and a
/// class in none of them is a warning naming where it was looked for.
#[test]
fn files_linted_together_resolve_references_across_them() {
    let both = include_str!("data/manifests/karpenter-default.yaml");
    let (pools, classes): (Vec<&str>, Vec<&str>) = both
        .split("\n---")
        .partition(|document| document.contains("kind: NodePool"));
    let files = vec![
        ("pools.yaml".to_owned(), pools.join("\n---")),
        ("classes.yaml".to_owned(), classes.join("\n---")),
    ];
    let linted = shared::lint::lint_files_with(&files, &shared::rules::LiveFacts::default());
    assert_eq!(linted.len(), 2);
    for file in &linted {
        let findings = file.outcome.as_ref().unwrap();
        assert!(
            findings
                .iter()
                .all(|finding| finding.rule != "karpenter-node-class-missing"),
            "{}: {findings:#?}",
            file.name
        );
    }
    // A ClusterConfig in a third file joins the design; two ClusterConfigs are two
    // clusters, each file of one linted on its own, and the Karpenter files still
    // together: the pools find their class beside them.
    let cluster = include_str!("data/seeds/eks-g4dn.yaml").to_owned();
    let mut three = files.clone();
    three.push(("cluster.yaml".to_owned(), cluster.clone()));
    let linted = shared::lint::lint_files_with(&three, &shared::rules::LiveFacts::default());
    assert!(linted.iter().all(|file| file.outcome.is_ok()));
    let mut four = three.clone();
    four.push(("cluster-2.yaml".to_owned(), cluster));
    // And a file that cannot be read at all: named, and no reason to lint the rest apart.
    four.push(("broken.yaml".to_owned(), "kind: [unclosed\n".to_owned()));
    let linted = shared::lint::lint_files_with(&four, &shared::rules::LiveFacts::default());
    let pools = linted[0].outcome.as_ref().unwrap();
    assert!(
        pools
            .iter()
            .all(|finding| finding.rule != "karpenter-node-class-missing"),
        "{pools:#?}"
    );
    assert!(linted[2].outcome.is_ok() && linted[3].outcome.is_ok());
    assert!(linted[4].outcome.is_err());
}

/// A static NodePool with a weight and a CPU limit breaks two of the CRD's CEL rules; each
/// is said once, at the field it is about, not again at `spec` where the CEL rule sits.
#[test]
fn a_static_pools_cel_refusals_are_said_once_at_their_fields() {
    let text = "\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: static
spec:
  replicas: 2
  weight: 10
  limits:
    cpu: 100
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: [on-demand]
";
    let findings = shared::lint::lint_text("static.yaml", text).unwrap();
    let static_findings: Vec<_> = findings
        .iter()
        .filter(|finding| finding.message.contains("static NodePools"))
        .map(|finding| (finding.rule.as_ref(), finding.line))
        .collect();
    assert_eq!(
        static_findings,
        vec![
            ("karpenter-static-pool-weight", 7),
            ("karpenter-static-pool-limits", 8),
        ],
        "{findings:#?}"
    );
    // Without the spec rules' words the CEL rule would still say it: the rule is evaluated.
    let cel = shared::upstream::schema_check::check_karpenter(&yaml_serde::from_str(text).unwrap());
    assert_eq!(
        cel.iter()
            .filter(|issue| issue.message.contains("static NodePools"))
            .count(),
        2,
        "{cel:#?}"
    );
}

/// NodeOverlays are read with their pools, judged by their CRD, written back as they came,
/// and turn on the controller's NodeOverlay feature gate.
#[test]
fn node_overlays_are_imported_checked_and_written_back() {
    let text = include_str!("data/manifests/karpenter-node-overlays.yaml");
    let findings = shared::lint::lint_text("overlays.yaml", text).unwrap();
    assert!(
        findings
            .iter()
            .all(|finding| finding.severity != shared::rules::Severity::Error),
        "{findings:#?}"
    );
    let file = shared::lint::parse_yaml_file(text).unwrap();
    let karpenter = file.spec.karpenter.as_ref().unwrap();
    let names: Vec<&str> = karpenter
        .node_overlays
        .iter()
        .map(|overlay| overlay.metadata.name.as_str())
        .collect();
    assert_eq!(names, ["g6e-savings-plan", "fuse-devices"]);
    assert_eq!(file.node_overlay_documents, [2, 3]);
    let values = shared::documents::render::render_karpenter_values(&file.spec)
        .unwrap()
        .unwrap();
    assert!(values.contains("nodeOverlay: true"), "{values}");
    // Both a price and an adjustment: the CEL rule's refusal, said once, on the overlay.
    let both = text.replace(
        "  priceAdjustment: \"-15%\"",
        "  priceAdjustment: \"-15%\"\n  price: \"1.50\"",
    );
    let findings = shared::lint::lint_text("overlays.yaml", &both).unwrap();
    let refusals: Vec<_> = findings
        .iter()
        .filter(|finding| {
            finding
                .message
                .contains("cannot set both 'price' and 'priceAdjustment'")
        })
        .map(|finding| (finding.severity, finding.line))
        .collect();
    let spec_line = both
        .lines()
        .position(|line| line == "  name: g6e-savings-plan")
        .unwrap()
        + 2;
    assert_eq!(
        refusals,
        [(shared::rules::Severity::Error, spec_line)],
        "{findings:#?}"
    );
}

/// The EKS user guide's Auto Mode examples ("Create a Node Pool for EKS Auto Mode",
/// "Create a Node Class for Amazon EKS", the capacity reservation terms of "Control
/// deployment of workloads into Capacity Reservations with EKS Auto Mode"), as one file.
const AUTO_MODE_GUIDE: &str = r#"apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: my-node-pool
spec:
  template:
    metadata:
      labels:
        billing-team: my-team
    spec:
      nodeClassRef:
        group: eks.amazonaws.com
        kind: NodeClass
        name: private-compute
      requirements:
        - key: "eks.amazonaws.com/instance-category"
          operator: In
          values: ["c", "m", "r"]
        - key: "eks.amazonaws.com/instance-cpu"
          operator: In
          values: ["4", "8", "16", "32"]
        - key: "topology.kubernetes.io/zone"
          operator: In
          values: ["us-west-2a", "us-west-2b"]
        - key: "kubernetes.io/arch"
          operator: In
          values: ["arm64", "amd64"]
  limits:
    cpu: "1000"
    memory: 1000Gi
---
apiVersion: eks.amazonaws.com/v1
kind: NodeClass
metadata:
  name: private-compute
spec:
  subnetSelectorTerms:
    - tags:
        Name: "private-subnet"
        kubernetes.io/role/internal-elb: "1"
  securityGroupSelectorTerms:
    - tags:
        Name: "eks-cluster-sg"
  ephemeralStorage:
    size: "160Gi"
  capacityReservationSelectorTerms:
    - id: cr-56fac701cc1951b03
    - tags:
        app: "my-app"
      owner: "012345678901"
"#;

#[test]
fn the_user_guides_auto_mode_pool_and_class_lint_without_error_and_read_back_unchanged() {
    use shared::rules::Severity;
    let findings = shared::lint::lint_text("auto-mode.yaml", AUTO_MODE_GUIDE).unwrap();
    let errors: Vec<_> = findings
        .iter()
        .filter(|finding| finding.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The class selects reservations the pool (on-demand by default) never uses: said.
    assert!(
        findings
            .iter()
            .any(|finding| finding.rule == "auto-mode-reservation-unused"),
        "{findings:#?}"
    );
    let file = shared::lint::parse_yaml_file(AUTO_MODE_GUIDE).unwrap();
    assert!(file.spec.karpenter.is_none(), "not Karpenter's");
    assert_eq!(file.auto_mode_pool_documents, [0]);
    assert_eq!(file.auto_mode_class_documents, [1]);
    let rendered = shared::documents::auto_mode::documents(&file.spec.auto_mode_pools).unwrap();
    let originals: Vec<yaml_serde::Value> = file
        .documents
        .iter()
        .map(|document| document.to_value().clone())
        .collect();
    assert_eq!(rendered, originals);
    // A pool naming a class the file lacks is said at the name; as with Karpenter's, the
    // class may be applied from elsewhere, so a file alone gets a warning.
    let renamed = AUTO_MODE_GUIDE.replacen("name: private-compute", "name: elsewhere", 1);
    let findings = shared::lint::lint_text("auto-mode.yaml", &renamed).unwrap();
    let line = renamed
        .lines()
        .position(|line| line.trim() == "name: elsewhere")
        .unwrap()
        + 1;
    assert!(
        findings.iter().any(|finding| {
            finding.rule == "auto-mode-node-class-missing"
                && finding.line == line
                && finding.severity == Severity::Warning
                && finding.message.contains("apply it from elsewhere")
        }),
        "{findings:#?}"
    );
}

/// The same objects in two files of one design: identical, kubectl applies them twice and
/// the cluster holds them once (no finding); different, the one applied last wins.
#[test]
fn an_object_written_twice_is_one_object_and_twice_differently_is_an_error() {
    let both = include_str!("data/manifests/karpenter-default.yaml");
    let files = vec![
        ("a.yaml".to_owned(), both.to_owned()),
        ("b.yaml".to_owned(), both.to_owned()),
    ];
    let linted = shared::lint::lint_files_with(&files, &shared::rules::LiveFacts::default());
    for file in &linted {
        let findings = file.outcome.as_ref().unwrap();
        assert!(
            findings
                .iter()
                .all(|finding| finding.rule != "karpenter-name-invalid"),
            "{}: {findings:#?}",
            file.name
        );
    }
    let changed = both.replacen("consolidateAfter: 1m", "consolidateAfter: 5m", 1);
    assert_ne!(changed, both);
    let files = vec![
        ("a.yaml".to_owned(), both.to_owned()),
        ("b.yaml".to_owned(), changed),
    ];
    let linted = shared::lint::lint_files_with(&files, &shared::rules::LiveFacts::default());
    let twice: Vec<_> = linted[1]
        .outcome
        .as_ref()
        .unwrap()
        .iter()
        .filter(|finding| finding.rule == "karpenter-name-invalid")
        .collect();
    assert_eq!(twice.len(), 1, "only the NodePool differs: {twice:#?}");
    assert!(
        twice[0]
            .message
            .contains("kubectl apply keeps the one applied last"),
        "{}",
        twice[0].message
    );
}

#[test]
fn an_empty_node_group_item_is_refused_in_eksctls_words_at_its_line() {
    // eksctl's own test data (pkg/ctl/cmdutils/test_data/unset-nodegroups.yaml): its loader
    // answers "invalid ClusterConfig: nodeGroups[1] is not set".
    let text = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: unset-nodegroups\n  region: us-west-2\n  version: \"1.35\"\nnodeGroups:\n  - name: test\n  -\n  - name: test2\n";
    let findings = shared::lint::lint_text("cluster.yaml", text).unwrap();
    let finding = findings
        .iter()
        .find(|finding| finding.rule == "nodegroup-name-missing")
        .expect("the empty item is refused");
    assert_eq!(finding.severity, shared::rules::Severity::Error);
    assert_eq!(finding.line, 9, "{finding:?}");
    assert!(
        finding
            .message
            .contains("\"invalid ClusterConfig: nodeGroups[1] is not set\""),
        "{}",
        finding.message
    );
}

/// Spot pools in several files without an interruption queue: one warning for the design,
/// naming each pool, not one per pool placed in whichever file came first.
#[test]
fn spot_pools_without_an_interruption_queue_are_one_warning_naming_them() {
    let pool = |name: &str| {
        format!(
            "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {name}\nspec:\n  template:\n    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: default\n      requirements:\n      - key: karpenter.sh/capacity-type\n        operator: In\n        values: [spot]\n"
        )
    };
    let files = vec![
        ("a.yaml".to_owned(), pool("first")),
        ("b.yaml".to_owned(), pool("second")),
    ];
    let linted = shared::lint::lint_files_with(&files, &shared::rules::LiveFacts::default());
    let warnings: Vec<&shared::lint::LintFinding> = linted
        .iter()
        .flat_map(|file| file.outcome.as_ref().unwrap())
        .filter(|finding| finding.rule == "karpenter-spot-without-interruption-queue")
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0]
            .message
            .starts_with("NodePools `first`, `second` allow Spot"),
        "{}",
        warnings[0].message
    );
}

/// The CLI lints one file without keeping its text: the findings (and failures) are those
/// of a list of that one file, for every kind of file the tests hold.
#[test]
fn one_file_linted_alone_is_linted_as_a_list_of_one() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut checked = 0;
    for folder in ["seeds", "manifests"] {
        for entry in std::fs::read_dir(data.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            let live = shared::rules::LiveFacts::default();
            let listed = shared::lint::lint_files_with(&[(name.clone(), text.clone())], &live);
            let alone = shared::lint::lint_only_file(&name, text, &live);
            assert_eq!(alone, listed[0].outcome, "{name}");
            checked += 1;
        }
    }
    let broken = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: [\n".to_owned();
    let live = shared::rules::LiveFacts::default();
    assert_eq!(
        shared::lint::lint_only_file("broken.yaml", broken.clone(), &live),
        shared::lint::lint_files_with(&[("broken.yaml".to_owned(), broken)], &live)[0].outcome
    );
    assert!(checked > 10, "only {checked} files");
}

/// A NodePool without `nodeClassRef` (as Karpenter's own docs show a static pool, with
/// the reference left out: aws/karpenter-provider-aws `website/content/en/v1.14/concepts/
/// nodepools.md`) is readable YAML of a known kind that the API server refuses: the
/// schema's error at its place, with the file's other findings, not an unreadable file.
/// It is so alone, beside its EC2NodeClass in another file, and in a directory.
#[test]
fn a_required_field_left_out_is_the_schema_s_error_at_its_place() {
    let pool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\nspec:\n  replicas: 10\n  template:\n    spec:\n      requirements:\n        - key: karpenter.sh/capacity-type\n          operator: In\n          values: [\"spot\"]\n  limits:\n    cpu: 1000\n";
    let findings = shared::lint::lint_text("static.yaml", pool).expect("a refusal is a finding");
    let missing = findings
        .iter()
        .find(|finding| finding.message == "missing required field `nodeClassRef`")
        .unwrap_or_else(|| panic!("{findings:#?}"));
    assert_eq!(missing.rule, "karpenter-schema");
    assert_eq!(missing.severity, shared::rules::Severity::Error);
    assert_eq!((missing.line, missing.column), (8, 5), "{missing:#?}");
    // The file's other refusals as written are there too: a static pool limits nodes only.
    assert!(findings.len() > 1, "{findings:#?}");

    let class = include_str!("data/manifests/karpenter-default.yaml")
        .split("\n---")
        .find(|document| document.contains("kind: EC2NodeClass"))
        .unwrap()
        .to_owned();
    let files = vec![
        ("static.yaml".to_owned(), pool.to_owned()),
        ("class.yaml".to_owned(), class),
    ];
    let linted = shared::lint::lint_files_with(&files, &shared::rules::LiveFacts::default());
    let outcome = linted[0]
        .outcome
        .as_ref()
        .expect("still a finding beside its class");
    assert!(
        outcome
            .iter()
            .any(|finding| finding.message == "missing required field `nodeClassRef`"),
        "{outcome:#?}"
    );

    // A field the import needs that no schema requires is still a file that cannot be read.
    let unreadable = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: p\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: 12\n";
    assert!(
        shared::lint::lint_text("bad.yaml", unreadable).is_err(),
        "{:#?}",
        shared::lint::lint_text("bad.yaml", unreadable)
    );
}

/// `version: 1.33` unquoted is a YAML number, which eksctl's decoder refuses for its
/// string field (sigs.k8s.io/yaml turns it into JSON `1.33`): the schema's error at that
/// line says so, and no warning beside it claims the version was left out.
#[test]
fn a_version_written_as_a_number_is_one_error_not_also_a_version_left_out() {
    let text = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: demo\n  region: us-west-2\n  version: 1.33\n";
    let findings = shared::lint::lint_text("cluster.yaml", text).unwrap();
    let at_version: Vec<_> = findings
        .iter()
        .filter(|finding| finding.line == 6)
        .collect();
    assert_eq!(at_version.len(), 1, "{findings:#?}");
    assert_eq!(at_version[0].rule, "eksctl-schema");
    assert_eq!(at_version[0].severity, shared::rules::Severity::Error);
    // Left out, it is still the warning.
    let omitted = text.replace("  version: 1.33\n", "");
    let findings = shared::lint::lint_text("cluster.yaml", &omitted).unwrap();
    assert!(
        findings
            .iter()
            .any(|finding| finding.rule == "kubernetes-version-omitted"),
        "{findings:#?}"
    );
}

/// An object whose metadata names nothing is refused by kubectl before the API server sees
/// it, and the finding says so rather than calling an empty name a malformed one.
#[test]
fn an_empty_name_is_said_as_no_name() {
    let class = "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {}\nspec:\n  role: KarpenterNodeRole\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]\n  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]\n";
    let findings = shared::lint::lint_text("class.yaml", class).unwrap();
    let named = findings
        .iter()
        .find(|finding| finding.rule == "karpenter-name-invalid")
        .unwrap_or_else(|| panic!("{findings:#?}"));
    assert_eq!(
        named.message,
        "the EC2NodeClass has no name: `kubectl apply` refuses it (\"resource name may not be empty\")"
    );
    let bad = class.replace("metadata: {}", "metadata: {name: GPU_Class}");
    let findings = shared::lint::lint_text("class.yaml", &bad).unwrap();
    assert!(
        findings.iter().any(|finding| finding.message
            == "EC2NodeClass name `GPU_Class` is not a lowercase DNS name"),
        "{findings:#?}"
    );
}
