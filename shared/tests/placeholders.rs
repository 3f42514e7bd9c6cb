//! The placeholder checklist: each token once with every field that holds it, and filling
//! a token in once fills every use.

use shared::lint::placeholders::{fill, label, list};
use shared::model::spec::{GroupPlacement, Network};

#[test]
fn a_zone_used_by_the_network_and_a_group_is_one_item_filled_once() {
    let mut spec = shared::template("g4dn").unwrap().spec();
    spec.node_groups[1].placement = GroupPlacement::AvailabilityZones {
        availability_zones: vec!["PLACEHOLDER_AZ_1".into()],
    };
    let items = list(&spec);
    let tokens: Vec<&str> = items.iter().map(|item| item.token.as_str()).collect();
    assert_eq!(
        tokens,
        [
            "PLACEHOLDER_AWS_REGION",
            "PLACEHOLDER_AZ_1",
            "PLACEHOLDER_AZ_2"
        ]
    );
    let zone = &items[1];
    assert_eq!(zone.label, "Availability zone 1");
    assert_eq!(
        zone.paths,
        [
            "network.availability_zones[0]",
            "node_groups[1].placement.availability_zones[0]"
        ]
    );
    let placeholder_errors = |spec: &shared::Spec| {
        shared::rules::validate(spec)
            .into_iter()
            .filter(|finding| finding.rule == "placeholder-left")
            .count()
    };
    assert_eq!(placeholder_errors(&spec), 4);

    let filled = fill(&spec, "PLACEHOLDER_AZ_1", " us-west-2a ");
    let Network::NewVpc { availability_zones } = &filled.network else {
        panic!("still a new VPC");
    };
    assert_eq!(availability_zones, &["us-west-2a", "PLACEHOLDER_AZ_2"]);
    assert_eq!(
        filled.node_groups[1].placement,
        GroupPlacement::AvailabilityZones {
            availability_zones: vec!["us-west-2a".into()]
        }
    );
    assert_eq!(placeholder_errors(&filled), 2);
    assert_eq!(list(&filled).len(), 2);
    // Everything else is as it was.
    let mut back = filled.clone();
    back.network = spec.network.clone();
    back.node_groups[1].placement = spec.node_groups[1].placement.clone();
    assert_eq!(back, spec);
}

#[test]
fn a_token_inside_a_longer_one_or_text_is_replaced_only_where_it_is_whole() {
    let mut spec = shared::template("g4dn").unwrap().spec();
    spec.node_groups[0]
        .labels
        .insert("zone".into(), "PLACEHOLDER_AZ_12".into());
    spec.node_groups[0]
        .labels
        .insert("note".into(), "in-PLACEHOLDER_AZ_1-only".into());
    let filled = fill(&spec, "PLACEHOLDER_AZ_1", "eu-west-1a");
    assert_eq!(
        filled.node_groups[0].labels.get("zone").unwrap(),
        "PLACEHOLDER_AZ_12"
    );
    assert_eq!(
        filled.node_groups[0].labels.get("note").unwrap(),
        "in-eu-west-1a-only"
    );
    // An empty answer changes nothing.
    assert_eq!(fill(&spec, "PLACEHOLDER_AZ_1", "  "), spec);
}

#[test]
fn every_templates_placeholders_have_a_label_in_words() {
    for template in shared::TEMPLATES {
        for item in list(&template.spec()) {
            assert!(
                !item.label.contains("PLACEHOLDER") && !item.label.contains('_'),
                "{}: {} is labelled `{}`",
                template.id,
                item.token,
                item.label
            );
        }
    }
    assert_eq!(label("PLACEHOLDER_SUBNET_PRIVATE_2"), "Private subnet 2 ID");
    assert_eq!(label("PLACEHOLDER_SOMETHING_NEW"), "Something new");
}

#[test]
fn every_region_has_its_console_name_and_zone_hints_follow_the_region() {
    use shared::model::ids::{REGION_NAMES, REGIONS, example_zones, region_name};
    let named: Vec<&str> = REGION_NAMES.iter().map(|(code, _)| *code).collect();
    assert_eq!(named, REGIONS);
    assert_eq!(region_name("us-west-2"), Some("US West (Oregon)"));
    assert_eq!(region_name("us-west-9"), None);
    assert_eq!(example_zones("us-west-2", 2), "us-west-2a, us-west-2b");
    assert_eq!(example_zones(" eu-north-1 ", 1), "eu-north-1a");
    assert_eq!(example_zones("PLACEHOLDER_AWS_REGION", 1), "us-east-1a");
}

#[test]
fn a_placeholder_in_keys_the_studio_does_not_model_is_found_at_its_own_line() {
    // eks-workshop-v2's cluster/eksctl/cluster-auto.yaml: the name's placeholder again in
    // `metadata.tags`, which the studio keeps as written.
    let text = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: ${EKS_CLUSTER_NAME}\n  region: us-west-2\n  version: \"1.35\"\n  tags:\n    karpenter.sh/discovery: ${EKS_CLUSTER_NAME}\n    env: ${EKS_CLUSTER_NAME}\n";
    let findings = shared::lint::lint_text("cluster.yaml", text).unwrap();
    let places: Vec<(usize, usize, &str)> = findings
        .iter()
        .filter(|finding| finding.rule == "placeholder-left")
        .map(|finding| (finding.line, finding.column, finding.path.as_str()))
        .collect();
    assert_eq!(
        places,
        [
            (4, 3, "metadata.name"),
            (8, 5, "metadata.tags[\"karpenter.sh/discovery\"]"),
            (9, 5, "metadata.tags.env"),
        ]
    );
}
