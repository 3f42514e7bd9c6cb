//! The bundle holds the rendered files, the spec, scripts and a README of what is open.

use std::io::Read;

use shared::bundle::{self, CheckLine};
use shared::rules;

fn unzip(bytes: &[u8]) -> Vec<(String, String, u32)> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    (0..archive.len())
        .map(|index| {
            let mut entry = archive.by_index(index).unwrap();
            let mut contents = String::new();
            entry.read_to_string(&mut contents).unwrap();
            (
                entry.name().unwrap().into_owned(),
                contents,
                entry.unix_mode().unwrap_or(0) & 0o777,
            )
        })
        .collect()
}

#[test]
fn an_eksctl_bundle_has_the_cluster_the_spec_and_scripts() {
    let spec = shared::template("p5-capacity-block").unwrap().spec();
    let findings = rules::validate(&spec);
    let files = bundle::bundle_files(&spec, &findings, &[]).unwrap();
    let entries = unzip(&bundle::zip_bundle(&files));
    let names: Vec<&str> = entries.iter().map(|(name, _, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "cluster.yaml",
            "studio.json",
            "deploy.sh",
            "teardown.sh",
            "README.md"
        ]
    );

    let (_, cluster, _) = &entries[0];
    assert_eq!(cluster, &shared::render_cluster_yaml(&spec).unwrap());
    let (_, studio, _) = &entries[1];
    assert_eq!(shared::Spec::from_json(studio).unwrap(), spec);
    let (_, deploy, deploy_mode) = &entries[2];
    assert_eq!(*deploy_mode, 0o755);
    assert!(deploy.contains("set -euo pipefail"));
    assert!(deploy.contains("eksctl create cluster -f cluster.yaml"));
    assert!(!deploy.contains("helm"), "no Karpenter, no helm");
    let (_, teardown, _) = &entries[3];
    assert!(teardown.contains("eksctl delete cluster -f cluster.yaml"));
    let (_, readme, readme_mode) = &entries[4];
    assert_eq!(*readme_mode, 0o644);
    assert!(
        readme.contains("`placeholder-left` at `cluster.region`"),
        "{readme}"
    );
    assert!(readme.contains("No live checks ran"), "{readme}");
}

#[test]
fn a_karpenter_bundle_adds_its_files_and_steps() {
    let spec = shared::template("karpenter-reserved-training")
        .unwrap()
        .spec();
    let checks = [CheckLine {
        id: "reservation".into(),
        status: shared::api::CheckStatus::Ok,
        message: "cr-0123456789abcdef0 is active in us-west-2a".into(),
    }];
    let files = bundle::bundle_files(&spec, &[], &checks).unwrap();
    let names: Vec<&str> = files.iter().map(|file| file.path.as_str()).collect();
    assert_eq!(
        names,
        [
            "cluster.yaml",
            "karpenter/nodepools.yaml",
            "karpenter/values.yaml",
            "studio.json",
            "deploy.sh",
            "teardown.sh",
            "README.md"
        ]
    );
    let values: serde_yaml::Value = serde_yaml::from_str(&files[2].contents).unwrap();
    assert_eq!(values["settings"]["clusterName"], "eks-p5-training");
    assert_eq!(values["settings"]["interruptionQueue"], "eks-p5-training");
    assert_eq!(values["settings"]["featureGates"]["reservedCapacity"], true);
    let deploy = &files[4].contents;
    let create = deploy.find("eksctl create cluster").unwrap();
    let install = deploy.find("helm upgrade --install karpenter").unwrap();
    let apply = deploy
        .find("kubectl apply -f karpenter/nodepools.yaml")
        .unwrap();
    assert!(
        create < install && install < apply,
        "steps run in order:\n{deploy}"
    );
    let teardown = &files[5].contents;
    assert!(teardown.find("kubectl delete").unwrap() < teardown.find("eksctl delete").unwrap());
    assert!(
        files[6]
            .contents
            .contains("`reservation`: ok — cr-0123456789abcdef0 is active")
    );
}

#[test]
fn names_are_quoted_for_the_shell() {
    let mut spec = shared::template("g4dn").unwrap().spec();
    spec.cluster.name = "x'; rm -rf / #".into();
    let files = bundle::bundle_files(&spec, &[], &[]).unwrap();
    let deploy = &files
        .iter()
        .find(|file| file.path == "deploy.sh")
        .unwrap()
        .contents;
    assert!(deploy.contains(r"CLUSTER='x'\''; rm -rf / #'"), "{deploy}");
}
