//! Forms eksctl's decoder and loader still read though its JSON schema is stricter: they
//! are not errors (eksctl-io/eksctl at 99984adb).

use shared::lint::lint_text;
use shared::rules::Severity;

fn errors(yaml: &str) -> Vec<(String, String)> {
    lint_text("cluster.yaml", yaml)
        .unwrap()
        .into_iter()
        .filter(|finding| finding.severity == Severity::Error)
        .map(|finding| (finding.rule.to_string(), finding.path))
        .collect()
}

const HEAD: &str = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: legacy\n  region: us-west-2\n";

/// `taintsWrapper.UnmarshalJSON` (pkg/apis/eksctl.io/v1alpha5/types.go) reads a
/// self-managed group's taints as `key: "value:Effect"` too, as eksctl's own integration
/// tests write them; the schema says array.
#[test]
fn a_self_managed_groups_taints_as_a_map_are_read_and_their_effects_checked() {
    let read = format!(
        "{HEAD}nodeGroups:\n  - name: ng-1\n    instanceType: m5.large\n    taints:\n      special: \"true:NoSchedule\"\n      nvidia.com/gpu: \":NoExecute\"\n"
    );
    assert_eq!(errors(&read), []);

    // parseTaint: one part is the effect; `value:Effect`; a bad effect is refused by
    // validateTaints, at the key.
    let bad = format!(
        "{HEAD}nodeGroups:\n  - name: ng-1\n    instanceType: m5.large\n    taints:\n      special: \"true:NoSchedul\"\n"
    );
    assert_eq!(
        errors(&bad),
        [(
            "self-managed-nodegroup-taint-invalid".to_owned(),
            "nodeGroups[0].taints.special".to_owned()
        )]
    );

    // A managed group's taints are a plain list in eksctl's types: a map is refused.
    let managed = format!(
        "{HEAD}managedNodeGroups:\n  - name: ng-1\n    instanceType: m5.large\n    taints:\n      special: \"true:NoSchedule\"\n"
    );
    assert!(
        errors(&managed)
            .iter()
            .any(|(rule, path)| rule == "eksctl-schema" && path == "managedNodeGroups[0].taints"),
        "{:?}",
        errors(&managed)
    );
}

/// `ImportSubnets` (pkg/vpc/vpc.go): "if VPC wasn't defined, import it based on VPC of
/// the first subnet".
#[test]
fn an_existing_vpc_given_by_its_subnets_only_is_read() {
    let subnets_only = format!(
        "{HEAD}vpc:\n  subnets:\n    private:\n      us-west-2a: {{ id: subnet-0ff156e0c4a6d300c }}\n      us-west-2b: {{ id: subnet-0549cdab573695c03 }}\nmanagedNodeGroups:\n  - name: ng-1\n    instanceType: m5.large\n    privateNetworking: true\n"
    );
    assert_eq!(errors(&subnets_only), []);
    // Subnets named only by zone leave eksctl nothing to find the VPC by.
    let zones_only = format!(
        "{HEAD}vpc:\n  id: \"\"\n  subnets:\n    private:\n      us-west-2a: {{ cidr: 10.0.0.0/24 }}\n"
    );
    assert!(
        errors(&zones_only)
            .iter()
            .any(|(rule, _)| rule == "vpc-id-malformed"),
        "{:?}",
        errors(&zones_only)
    );
}

/// A NodePool written for Karpenter's v1beta1 (`nodeClassRef.apiVersion`, no `group`) is
/// read, and the API server's refusal of it is a finding at its place: `group` is required
/// by the v1 CRD and `apiVersion` is not a field of it.
#[test]
fn a_v1beta1_node_class_reference_is_a_finding_at_its_place_not_an_unreadable_file() {
    let pool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\nspec:\n  template:\n    spec:\n      nodeClassRef:\n        apiVersion: karpenter.k8s.aws/v1beta1\n        kind: EC2NodeClass\n        name: default\n      requirements:\n        - key: karpenter.sh/capacity-type\n          operator: In\n          values: [on-demand]\n";
    let found = lint_text("nodepool.yaml", pool).expect("a v1beta1 reference is read");
    let at = |rule: &str, path: &str| {
        found.iter().any(|finding| {
            finding.rule == rule
                && finding.path.ends_with(path)
                && finding.severity == Severity::Error
        })
    };
    assert!(at("karpenter-schema", "nodeClassRef.group"), "{found:#?}");
    assert!(
        at("karpenter-schema", "nodeClassRef.apiVersion"),
        "{found:#?}"
    );
}

/// A Karpenter kind in an API version Karpenter no longer serves cannot be read, and
/// says so at its `apiVersion`: which release served it last, what `kubectl apply` answers
/// on a newer one, and what it became (aws/karpenter-provider-aws `pkg/apis/crds/`:
/// v0.33.0 dropped v1alpha5 and v1alpha1, v1.1.0 dropped v1beta1). A kind the studio
/// does not read at all is still named as such.
#[test]
fn a_retired_karpenter_version_says_what_the_api_server_answers() {
    for (api_version, kind, last, now) in [
        ("karpenter.sh/v1alpha5", "Provisioner", "0.32", "a NodePool"),
        (
            "karpenter.k8s.aws/v1alpha1",
            "AWSNodeTemplate",
            "0.32",
            "an EC2NodeClass",
        ),
        ("karpenter.sh/v1beta1", "NodePool", "1.0", "a NodePool"),
        (
            "karpenter.k8s.aws/v1beta1",
            "EC2NodeClass",
            "1.0",
            "an EC2NodeClass",
        ),
    ] {
        let text = format!(
            "kind: {kind}\napiVersion: {api_version}\nmetadata:\n  name: default\nspec: {{}}\n"
        );
        let failure = lint_text("old.yaml", &text).expect_err("a retired version is not read");
        assert_eq!((failure.line, failure.column), (2, 1), "{failure}");
        for said in [
            format!("up to release {last} only"),
            format!("no matches for kind \"{kind}\" in version \"{api_version}\""),
            format!(". Write it as {now} in "),
        ] {
            assert!(failure.message.contains(&said), "{said}: {failure}");
        }
    }
    let other = "apiVersion: karpenter.sh/v1beta1\nkind: NodeClaim\nmetadata:\n  name: m\n";
    let failure = lint_text("other.yaml", other).expect_err("not a kind the studio reads");
    assert!(
        failure.message.contains("is not an eksctl ClusterConfig"),
        "{failure}"
    );
}
