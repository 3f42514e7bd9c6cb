//! An independent cross-check: the upstream schema files, validated by the `jsonschema`
//! crate instead of our own walker (`shared::upstream::schema_check`), accept the seed manifests and
//! realistic Karpenter documents and reject the broken ones; and both validators agree.
//!
//! `upstream_errors` with `cluster_config_schema` / `crd_json_schema` is the helper to
//! copy into other tests that must prove a rendered document valid upstream.

mod common;

use shared::rules;
use std::path::Path;

use common::upstream::*;
fn seed_texts() -> Vec<(String, String)> {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/seeds");
    let mut texts: Vec<(String, String)> = std::fs::read_dir(seeds)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    texts.sort();
    texts
}

const NODE_POOL_CRD: &str = "karpenter.sh_nodepools.aws-provider.yaml";
const EC2_NODE_CLASS_CRD: &str = "karpenter.k8s.aws_ec2nodeclasses.yaml";

/// A GPU training pool (the same as in `schema_check.rs`).
const GPU_NODE_POOL: &str = include_str!("data/examples/gpu-node-pool.yaml");

/// The node class for [`GPU_NODE_POOL`].
const GPU_NODE_CLASS: &str = include_str!("data/examples/gpu-node-class.yaml");

const CLUSTER_HEADER: &str = include_str!("data/examples/cluster-header.yaml");

#[test]
fn the_seed_manifests_are_valid_upstream() {
    let schema = cluster_config_schema();
    let seeds = seed_texts();
    assert_eq!(seeds.len(), 7);
    for (name, text) in seeds {
        assert_eq!(
            upstream_errors(&schema, &text),
            Vec::<String>::new(),
            "{name}"
        );
    }
}

#[test]
fn a_misspelt_key_is_invalid_upstream() {
    let text = format!(
        "{CLUSTER_HEADER}managedNodeGroups:\n  - name: gpu\n    instanceTyp: p5.48xlarge\n"
    );
    let errors = upstream_errors(&cluster_config_schema(), &text);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("/managedNodeGroups/0: "),
        "{errors:?}"
    );
    assert!(errors[0].contains("instanceTyp"), "{errors:?}");
}

#[test]
fn the_karpenter_examples_are_valid_upstream_even_when_strict() {
    for strict in [false, true] {
        let node_pool_schema = crd_json_schema(NODE_POOL_CRD, strict);
        let node_class_schema = crd_json_schema(EC2_NODE_CLASS_CRD, strict);
        assert_eq!(
            upstream_errors(&node_pool_schema, GPU_NODE_POOL),
            Vec::<String>::new()
        );
        assert_eq!(
            upstream_errors(&node_class_schema, GPU_NODE_CLASS),
            Vec::<String>::new()
        );
    }
}

#[test]
fn a_key_the_api_server_would_prune_is_invalid_for_the_strict_crd_schema() {
    let text = GPU_NODE_POOL.replace(
        "      expireAfter: 720h\n",
        "      expireAfter: 720h\n      instanceTypes: [p5.48xlarge]\n",
    );
    assert_eq!(
        upstream_errors(&crd_json_schema(NODE_POOL_CRD, false), &text),
        Vec::<String>::new()
    );
    let errors = upstream_errors(&crd_json_schema(NODE_POOL_CRD, true), &text);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].starts_with("/spec/template/spec: "), "{errors:?}");
    assert!(errors[0].contains("instanceTypes"), "{errors:?}");
}

/// Our walker and `jsonschema` agree on valid/invalid, document by document.
#[test]
fn our_walker_agrees_with_jsonschema() {
    let cluster_config = cluster_config_schema();
    let mut cluster_documents: Vec<String> =
        seed_texts().into_iter().map(|(_, text)| text).collect();
    for body in [
        "managedNodeGroups:\n  - name: gpu\n    instanceTyp: p5.48xlarge\n",
        "managedNodeGroups:\n  - name: gpu\n    desiredCapacity: \"two\"\n",
        "managedNodeGroups:\n  - name: gpu\n    desiredCapacity: 2\n    minSize: 1.0\n",
        "managedNodeGroups:\n  - name: gpu\n    maxSize: 2.5\n",
        "managedNodeGroups:\n  - name: gpu\n    amiFamily: AmazonLinux2023\n    efaEnabled: true\n",
        "availabilityZones: us-west-2a\n",
        "availabilityZones: [us-west-2a, us-west-2b]\n",
        "vpc:\n  subnets:\n    private:\n      us-west-2a: {id: subnet-1}\n",
        "vpc:\n  subnets:\n    private:\n      us-west-2a: {id: subnet-1, zone: a}\n",
        "cloudWatch:\n  clusterLogging:\n    enableTypes: [api, audit]\n",
        "iam:\n  withOIDC: true\n  serviceAccounts:\n    - metadata: {name: a, namespace: b}\n      attachPolicy: {Version: '2012-10-17'}\n",
    ] {
        cluster_documents.push(format!("{CLUSTER_HEADER}{body}"));
    }
    cluster_documents.push(CLUSTER_HEADER.replace("  version: \"1.32\"\n", "  version: 1.32\n"));
    for text in &cluster_documents {
        let ours = shared::upstream::schema_check::check_cluster_config(
            &yaml_serde::from_str(text).unwrap(),
        );
        let theirs = upstream_errors(&cluster_config, text);
        assert_eq!(
            ours.is_empty(),
            theirs.is_empty(),
            "ours: {ours:?}\ntheirs: {theirs:?}\n{text}"
        );
    }

    // The one place the walker differs on purpose: eksctl decodes files into its Go types
    // and never enforces the schema's `required` (jsonschema does); eksctl's own checks
    // for the fields it needs are rules.
    // Likewise eksctl's `enum`s: eksctl's validation checks those values itself (without
    // regard to case, and beyond the list), and the rules follow it.
    for body in [
        "managedNodeGroups:\n  - name: gpu\n    amiFamily: Ubuntu9000\n",
        "cloudWatch:\n  clusterLogging:\n    enableTypes: [api, everything]\n",
    ] {
        let text = format!("{CLUSTER_HEADER}{body}");
        assert!(
            shared::upstream::schema_check::check_cluster_config(
                &yaml_serde::from_str(&text).unwrap()
            )
            .is_empty()
        );
        assert!(!upstream_errors(&cluster_config, &text).is_empty());
        assert!(
            rules::check_document(&yaml_serde::from_str(&text).unwrap())
                .iter()
                .any(|finding| finding.severity == rules::Severity::Error)
        );
    }
    let nameless = CLUSTER_HEADER.replace("  name: demo\n", "");
    assert!(
        shared::upstream::schema_check::check_cluster_config(
            &yaml_serde::from_str(&nameless).unwrap()
        )
        .is_empty()
    );
    assert!(!upstream_errors(&cluster_config, &nameless).is_empty());

    let node_pool = crd_json_schema(NODE_POOL_CRD, true);
    let node_class = crd_json_schema(EC2_NODE_CLASS_CRD, true);
    let karpenter_documents = [
        (&node_pool, GPU_NODE_POOL.to_owned()),
        (
            &node_pool,
            GPU_NODE_POOL.replace("effect: NoSchedule", "effect: NoScheduling"),
        ),
        (
            &node_pool,
            GPU_NODE_POOL.replace("weight: 50", "weight: 101"),
        ),
        (&node_pool, GPU_NODE_POOL.replace("cpu: 2000", "cpu: true")),
        (
            &node_pool,
            GPU_NODE_POOL.replace("cpu: 2000", "cpu: \"2000\""),
        ),
        (
            &node_pool,
            GPU_NODE_POOL.replace("consolidateAfter: 30m", ""),
        ),
        (
            &node_pool,
            GPU_NODE_POOL.replace("      expireAfter", "      expireAftr"),
        ),
        (&node_class, GPU_NODE_CLASS.to_owned()),
        (
            &node_class,
            GPU_NODE_CLASS.replace("    - alias: al2023@latest\n", "    []\n"),
        ),
        (
            &node_class,
            GPU_NODE_CLASS.replace(
                "httpPutResponseHopLimit: 2",
                "httpPutResponseHopLimit: \"2\"",
            ),
        ),
        (
            &node_class,
            GPU_NODE_CLASS.replace("volumeType: gp3", "volumeType: gp4"),
        ),
        (
            &node_class,
            GPU_NODE_CLASS.replace("maxPods: 110", "anything: {goes: here}"),
        ),
    ];
    for (schema, text) in &karpenter_documents {
        let ours =
            shared::upstream::schema_check::check_karpenter(&yaml_serde::from_str(text).unwrap());
        let theirs = upstream_errors(schema, text);
        assert_eq!(
            ours.is_empty(),
            theirs.is_empty(),
            "ours: {ours:?}\ntheirs: {theirs:?}\n{text}"
        );
    }
}
