//! Rendered output, checked two ways: against committed golden files (regenerate with
//! `cargo xtask bless`), and against the upstream schemas with both our own walker and
//! the independent `jsonschema` crate, for every template and generated variations.

mod common;

use std::path::{Path, PathBuf};

use common::upstream::{cluster_config_schema, crd_json_schema, upstream_errors};
use shared::model::spec::{Capacity, GroupPlacement, NodeTaint, Spec};
use shared::{deploy::bundle, documents::render, upstream::schema_check};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rendered")
}

/// Compares `actual` with the golden file, or rewrites it when `UPDATE_EXPECT` is set.
fn check(path: &Path, actual: &str) {
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(path)
        .unwrap_or_else(|_| panic!("no golden file {}: run `cargo xtask bless`", path.display()));
    assert_eq!(
        actual,
        expected,
        "{} differs: run `cargo xtask bless` if the change is intended",
        path.display()
    );
}

/// The rendered files of a spec: path inside the bundle and contents.
fn rendered_files(spec: &Spec) -> Vec<(String, String)> {
    bundle::bundle_files(spec, &[], &[])
        .unwrap()
        .into_iter()
        .filter(|file| file.path.ends_with(".yaml"))
        .map(|file| (file.path, file.contents))
        .collect()
}

#[test]
fn every_template_renders_as_its_golden_files() {
    for template in shared::TEMPLATES {
        for (path, contents) in rendered_files(&template.spec()) {
            check(&golden_dir().join(template.id).join(path), &contents);
        }
    }
}

/// An existing VPC with every capacity mode and placement, Spot with several types,
/// taints, labels and an explicit AMI family.
fn every_capacity_mode() -> Spec {
    let mut spec = shared::template("p5-odcr-vpc").unwrap().spec();
    let template = spec.node_groups[0].clone();
    spec.node_groups.clear();
    let modes = [
        Capacity::OnDemand,
        Capacity::Reservation {
            reservation_id: "cr-0123456789abcdef0".into(),
        },
        Capacity::CapacityBlock {
            reservation_id: "cr-0fedcba9876543210".into(),
        },
        Capacity::Spot,
    ];
    for (index, capacity) in modes.into_iter().enumerate() {
        let mut group = template.clone();
        group.name = format!("gpu-{index}");
        group.placement = if index % 2 == 0 {
            GroupPlacement::Subnets {
                subnets: vec!["PLACEHOLDER_SUBNET_PRIVATE_1".into()],
            }
        } else {
            GroupPlacement::Cluster
        };
        if capacity == Capacity::Spot {
            group.instance_type.clear();
            group.instance_types = vec![
                "g5.12xlarge".into(),
                "g5.24xlarge".into(),
                "g6e.12xlarge".into(),
            ];
            group.efa_enabled = false;
        }
        group.capacity = capacity;
        group.ami_family = Some("AmazonLinux2023".into());
        group.taints = vec![NodeTaint {
            key: "nvidia.com/gpu".into(),
            value: Some("true".into()),
            effect: "NoSchedule".into(),
        }];
        group.labels.insert("workload".into(), "training".into());
        group.node_repair = index == 3;
        spec.node_groups.push(group);
    }
    spec
}

fn specs_to_check() -> Vec<(String, Spec)> {
    let mut specs: Vec<(String, Spec)> = shared::TEMPLATES
        .iter()
        .map(|template| (template.id.to_owned(), template.spec()))
        .collect();
    specs.push(("every capacity mode".into(), every_capacity_mode()));
    for (groups, pools) in [(1, 1), (8, 2), (64, 16)] {
        specs.push((
            format!("{groups} groups, {pools} pools"),
            shared::templates::sized_spec(groups, pools),
        ));
    }
    specs
}

#[test]
fn every_rendered_document_passes_the_upstream_schemas() {
    let eksctl = cluster_config_schema();
    let node_pool = crd_json_schema("karpenter.sh_nodepools.aws-provider.yaml", true);
    let node_class = crd_json_schema("karpenter.k8s.aws_ec2nodeclasses.yaml", true);
    for (name, spec) in specs_to_check() {
        let cluster = render::render_cluster_yaml(&spec).unwrap();
        let document: yaml_serde::Value = yaml_serde::from_str(&cluster).unwrap();
        assert_eq!(
            schema_check::check_cluster_config(&document),
            vec![],
            "{name}: cluster.yaml"
        );
        assert_eq!(
            upstream_errors(&eksctl, &cluster),
            Vec::<String>::new(),
            "{name}: cluster.yaml"
        );
        // Auto Mode's NodePools are Karpenter's NodePool API (the core CRD: EKS runs
        // Karpenter, and the AWS provider's label rules are not Auto Mode's).
        let core_pool = crd_json_schema("karpenter.sh_nodepools.yaml", true);
        for document in shared::documents::auto_mode::documents(&spec.auto_mode_pools).unwrap() {
            if document["kind"] != "NodePool" {
                continue;
            }
            let text = yaml_serde::to_string(&document).unwrap();
            assert_eq!(
                upstream_errors(&core_pool, &text),
                Vec::<String>::new(),
                "{name}: {text}"
            );
        }
        let Some(karpenter) = &spec.karpenter else {
            continue;
        };
        for document in render::karpenter_documents(karpenter).unwrap() {
            let text = yaml_serde::to_string(&document).unwrap();
            let schema = if document["kind"] == "NodePool" {
                &node_pool
            } else {
                &node_class
            };
            assert_eq!(
                schema_check::check_karpenter(&document),
                vec![],
                "{name}: {text}"
            );
            assert_eq!(
                upstream_errors(schema, &text),
                Vec::<String>::new(),
                "{name}: nothing pruned in {text}"
            );
        }
    }
}

#[test]
fn the_sized_spec_has_what_it_says() {
    let spec = shared::templates::sized_spec(64, 16);
    assert_eq!(spec.node_groups.len(), 64);
    assert_eq!(spec.karpenter.as_ref().unwrap().node_pools.len(), 16);
    let errors: Vec<_> = shared::rules::validate(&spec)
        .into_iter()
        .filter(|finding| finding.severity == shared::rules::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}
