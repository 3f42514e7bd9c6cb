//! Every seed template renders to the same data as its reference manifest.

use std::path::Path;

fn seed_file(template_id: &str) -> &'static str {
    match template_id {
        "g4dn-vpc" => "eks-g4dn-vpc.yaml",
        "g4dn" => "eks-g4dn.yaml",
        "p4de-odcr-vpc" => "eks-p4de-odcr-vpc.yaml",
        "p4de-odcr" => "eks-p4de-odcr.yaml",
        "p5-odcr-vpc" => "eks-p5-odcr-vpc.yaml",
        "p5-capacity-block" => "eks-p5-capacity-block.yaml",
        "g5-node-autorepair" => "eks-g5-node-autorepair.yaml",
        other => panic!("no seed manifest for template {other}"),
    }
}

fn check_same_data(template_id: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/seeds")
        .join(seed_file(template_id));
    let expected_text = std::fs::read_to_string(&path).unwrap();
    let expected: yaml_serde::Value = yaml_serde::from_str(&expected_text).unwrap();
    let spec = shared::template(template_id).unwrap().spec();
    let rendered_text = shared::render_cluster_yaml(&spec).unwrap();
    let rendered: yaml_serde::Value = yaml_serde::from_str(&rendered_text).unwrap();
    assert_eq!(
        rendered,
        expected,
        "template {template_id} differs from {}:\n{rendered_text}",
        path.display()
    );
}

#[test]
fn seven_seed_templates_reproduce_their_reference_manifests() {
    let seed_ids: Vec<&str> = shared::TEMPLATES
        .iter()
        .map(|template| template.id)
        .take(7)
        .collect();
    assert_eq!(
        seed_ids,
        [
            "g4dn-vpc",
            "g4dn",
            "p4de-odcr-vpc",
            "p4de-odcr",
            "p5-odcr-vpc",
            "p5-capacity-block",
            "g5-node-autorepair"
        ]
    );
    for template_id in seed_ids {
        check_same_data(template_id);
    }
}

#[test]
fn spec_round_trips_through_json() {
    for template in shared::TEMPLATES {
        let spec = template.spec();
        let json = spec.to_json();
        assert_eq!(
            shared::Spec::from_json(&json).unwrap(),
            spec,
            "{}",
            template.id
        );
    }
}
