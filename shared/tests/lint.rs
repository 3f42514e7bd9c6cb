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
            finding.message.contains("another file"),
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
