//! What the page's "Add …" buttons add and the conversions its list fields use: the
//! objects pass the CRDs and eksctl as the real tools read them, and the conversions keep
//! what the user typed.

mod common;

use std::collections::BTreeMap;

use common::*;
use shared::rules::Severity;
use shared::upstream::karpenter::{self, Ec2NodeClass, NodePool, SelectorTerm};
use shared::{deploy::bundle, model::items, templates};

/// Errors `eks-studio lint` reports on the rendered NodePools file.
fn rendered_karpenter_errors(spec: &shared::Spec) -> Vec<String> {
    let yaml = shared::documents::render::render_karpenter_yaml(spec)
        .expect("renders")
        .expect("has Karpenter");
    shared::lint::lint_text("nodepools.yaml", &yaml)
        .expect("reads")
        .into_iter()
        .filter(|finding| finding.severity == Severity::Error)
        .map(|finding| format!("{}: {} ({})", finding.path, finding.message, finding.rule))
        .collect()
}

#[test]
fn an_added_pool_and_class_pass_the_crds_schema_and_cel_rules() {
    let mut spec = karpenter_spot();
    let karpenter = spec.karpenter.as_mut().unwrap();
    let class = Ec2NodeClass::discovering(2, &spec.cluster.name);
    assert_eq!(class.metadata.name, "gpu-2");
    let pool = NodePool::gpu(3, &class.metadata.name);
    assert_eq!(pool.metadata.name, "gpu-3");
    assert_eq!(pool.spec.template.spec.node_class_ref.name, "gpu-2");
    karpenter.node_classes.push(class);
    karpenter.node_pools.push(pool);
    assert_eq!(rendered_karpenter_errors(&spec), Vec::<String>::new());
    assert_eq!(
        Ec2NodeClass::discovering(1, "c").metadata.name,
        "gpu",
        "the first class is `gpu`"
    );
}

#[test]
fn an_added_node_overlay_passes_its_crd_and_brings_no_error_of_its_own() {
    let mut spec = karpenter_spot();
    let karpenter = spec.karpenter.as_mut().unwrap();
    let overlay = karpenter::NodeOverlay::price_adjustment(1);
    assert_eq!(overlay.metadata.name, "overlay-1");
    karpenter.node_overlays.push(overlay);
    assert_eq!(rendered_karpenter_errors(&spec), Vec::<String>::new());
    let errors: Vec<String> = shared::rules::validate(&spec)
        .into_iter()
        .filter(|finding| {
            finding.severity == Severity::Error
                && finding.path.starts_with("karpenter.node_overlays")
        })
        .map(|finding| format!("{}: {}", finding.path, finding.message))
        .collect();
    assert_eq!(errors, Vec::<String>::new());
    // The chart values turn on the gate that makes Karpenter read it.
    let values = shared::documents::render::render_karpenter_values(&spec)
        .unwrap()
        .unwrap();
    assert!(values.contains("nodeOverlay: true"), "{values}");
}

#[test]
fn every_operator_the_page_offers_is_one_the_crd_allows() {
    let schema: serde_json::Value = serde_json::from_str(include_str!(
        "../data/schemas/karpenter-nodepool-v1.min.json"
    ))
    .unwrap();
    let mut allowed: Vec<&str> = schema
        .pointer("/properties/spec/properties/template/properties/spec/properties/requirements/items/properties/operator/enum")
        .and_then(|values| values.as_array())
        .expect("the CRD lists the operators")
        .iter()
        .filter_map(|value| value.as_str())
        .collect();
    allowed.sort_unstable();
    let mut offered = karpenter::OPERATORS.to_vec();
    offered.sort_unstable();
    assert_eq!(offered, allowed);
}

#[test]
fn added_groups_are_named_by_their_number_and_pass_eksctl() {
    let mut spec = new_vpc();
    let gpu = templates::added_group(&spec, true);
    assert_eq!(gpu.name, format!("gpu-{}", spec.node_groups.len() + 1));
    assert!(gpu.efa_enabled && gpu.private_networking);
    spec.node_groups.push(gpu);
    let system = templates::added_group(&spec, false);
    assert_eq!(
        system.name,
        format!("system-{}", spec.node_groups.len() + 1)
    );
    assert!(system.private_networking, "a new VPC has private subnets");
    spec.node_groups.push(system);
    let yaml = shared::render_cluster_yaml(&spec).expect("renders");
    let eksctl_errors: Vec<String> = shared::lint::lint_text("cluster.yaml", &yaml)
        .expect("reads")
        .into_iter()
        .filter(|finding| {
            finding.severity == Severity::Error
                && shared::rules::rule(&finding.rule).is_some_and(|rule| {
                    rule.stage == shared::rules::Stage::EksctlValidation
                        || rule.stage == shared::rules::Stage::ApiServer
                })
        })
        .map(|finding| format!("{}: {}", finding.path, finding.message))
        .collect();
    assert_eq!(eksctl_errors, Vec::<String>::new());
}

#[test]
fn a_group_added_to_any_template_brings_no_error_of_its_own() {
    for template in shared::TEMPLATES {
        let mut spec = template.spec();
        // With Auto Mode on, eksctl refuses any node group in the file
        // (auto-mode-create-conflict); the page says so above the groups.
        if spec.cluster.auto_mode_enabled() {
            continue;
        }
        let errors = |spec: &shared::Spec| -> Vec<(String, String)> {
            shared::rules::validate(spec)
                .into_iter()
                .filter(|finding| finding.severity == Severity::Error)
                .map(|finding| (finding.rule.into_owned(), finding.path))
                .collect()
        };
        let before = errors(&spec);
        for gpu in [true, false, true] {
            let group = templates::added_group(&spec, gpu);
            assert!(
                spec.node_groups
                    .iter()
                    .all(|other| other.name != group.name),
                "{}: `{}` is taken",
                template.id,
                group.name
            );
            spec.node_groups.push(group);
            // A zone still a placeholder is copied as that placeholder: one value to fill.
            let added: Vec<(String, String)> = errors(&spec)
                .into_iter()
                .filter(|error| !before.contains(error) && error.0 != "placeholder-left")
                .collect();
            assert_eq!(added, [], "{}: an added group errs", template.id);
        }
    }
}

#[test]
fn limits_items_keep_numbers_as_numbers_and_quantities_as_text() {
    let limits = items::items_to_limits(vec![
        "nvidia.com/gpu=16".into(),
        "cpu = 1000".into(),
        "memory=1000Gi".into(),
    ]);
    assert_eq!(limits["nvidia.com/gpu"], yaml_serde::Value::from(16));
    assert_eq!(limits["cpu"], yaml_serde::Value::from(1000));
    assert_eq!(limits["memory"], yaml_serde::Value::from("1000Gi"));
    let mut items = items::limits_to_items(&limits);
    items.sort();
    assert_eq!(items, ["cpu=1000", "memory=1000Gi", "nvidia.com/gpu=16"]);
    let twice = items::items_to_limits(vec!["cpu=1".into(), "cpu=2".into()]);
    assert_eq!(twice, BTreeMap::from([("cpu".to_owned(), 2.into())]));
}

#[test]
fn the_discovery_field_edits_only_the_discovery_term() {
    let mut terms = vec![
        SelectorTerm::tag("team", "ml"),
        SelectorTerm::tag(karpenter::DISCOVERY_TAG, "old"),
    ];
    assert_eq!(karpenter::discovery_value(&terms), "old");
    karpenter::set_discovery(&mut terms, "training".into());
    assert_eq!(karpenter::discovery_value(&terms), "training");
    assert_eq!(terms.len(), 2);
    assert_eq!(terms[1].tags.get("team").map(String::as_str), Some("ml"));
    karpenter::set_discovery(&mut terms, String::new());
    assert_eq!(karpenter::discovery_value(&terms), "");
    assert_eq!(
        terms.len(),
        1,
        "an empty value removes the discovery term only"
    );
}

#[test]
fn the_bundle_is_named_alike_in_the_page_and_the_server() {
    assert_eq!(bundle::file_name("p5-training"), "p5-training.zip");
    assert_eq!(bundle::file_name(" p5 training/2 "), "p5-training-2.zip");
    assert_eq!(bundle::file_name("v1.2_x"), "v1.2_x.zip");
    assert_eq!(bundle::file_name(""), "eks-cluster.zip");
    assert_eq!(bundle::file_name("..."), "eks-cluster.zip");
    assert_eq!(bundle::file_name(".hidden"), "hidden.zip");
    assert_eq!(bundle::file_name(&"a".repeat(300)).len(), 104);
}

#[test]
fn an_existing_vpcs_zones_are_listed_once_each_in_the_order_they_appear() {
    use shared::model::spec::{Network, Subnet};
    let subnet = |zone: &str| Subnet {
        availability_zone: Some(zone.into()),
        ..Subnet::default()
    };
    let network = Network::ExistingVpc {
        vpc_id: String::new(),
        public_subnets: vec![subnet("us-east-1a"), subnet("us-east-1b")],
        private_subnets: vec![subnet("us-east-1b"), subnet("us-east-1a")],
    };
    assert_eq!(network.zones(), ["us-east-1b", "us-east-1a"]);
}

#[test]
fn each_pool_preset_passes_the_crds_and_brings_no_error_of_its_own_but_what_it_asks_for() {
    use shared::templates::PoolPreset;
    for preset in PoolPreset::ALL {
        let mut spec = karpenter_spot();
        let cluster_name = spec.cluster.name.clone();
        let karpenter = spec.karpenter.as_mut().unwrap();
        let (pools, classes) = (karpenter.node_pools.len(), karpenter.node_classes.len());
        preset.add_to(karpenter, &cluster_name);
        preset.add_to(karpenter, &cluster_name);
        // Two pools under their own names, one class between them.
        assert_eq!(karpenter.node_pools.len(), pools + 2, "{preset:?}");
        assert!(karpenter.node_classes.len() <= classes + 1, "{preset:?}");
        let mut names: Vec<&str> = karpenter
            .node_pools
            .iter()
            .map(|pool| pool.metadata.name.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), pools + 2, "{preset:?}: names repeat");
        // Rendered, the file passes the CRDs; the reserved class's example reservation ID
        // is the one placeholder left for the user.
        let rendered: Vec<String> = rendered_karpenter_errors(&spec)
            .into_iter()
            .filter(|error| {
                !(preset == PoolPreset::ReservedTraining && error.ends_with("(placeholder-left)"))
            })
            .collect();
        assert_eq!(rendered, Vec::<String>::new(), "{preset:?}");
        // The pool launches what it says: never a type older than its generation, g3 or
        // p3, nor an arm64 type.
        let resolved = shared::model::resolve::resolve(&spec);
        for pool in &resolved[pools..] {
            assert!(pool.count > 0, "{preset:?} launches nothing");
            for instance in &pool.instance_types {
                assert!(
                    !["g3", "p3", "g3s"].contains(&instance.family)
                        && instance.architecture == shared::catalog::instances::Architecture::Amd64,
                    "{preset:?} launches {}",
                    instance.name
                );
            }
        }
        // The only errors are what the user must still give: the reservation's ID.
        let errors: Vec<String> = shared::rules::validate(&spec)
            .into_iter()
            .filter(|finding| finding.severity == Severity::Error)
            .filter(|finding| finding.rule != "placeholder-left")
            .map(|finding| format!("{}: {} ({})", finding.path, finding.message, finding.rule))
            .collect();
        let allowed = |error: &String| {
            preset == PoolPreset::ReservedTraining && error.contains("reservation")
        };
        let unexpected: Vec<&String> = errors.iter().filter(|error| !allowed(error)).collect();
        assert!(unexpected.is_empty(), "{preset:?}: {unexpected:#?}");
    }
}
