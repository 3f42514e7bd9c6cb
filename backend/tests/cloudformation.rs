//! The CloudFormation templates of Karpenter bundles, read by CloudFormation's own linter
//! (cfn-lint, installed beside the EC2 emulator): it knows every resource type's
//! properties, required fields, allowed values and references, as CloudFormation does.

use std::path::Path;
use std::process::Command;

use shared::Spec;
use shared::deploy::bundle::bundle_files;
use shared::documents::karpenter_aws::{CLUSTER_ACCESS_PATH, PREREQUISITES_PATH};
use studio_e2e::ec2_emulator::python;

/// Runs cfn-lint on `files`; its exit status and what it printed.
fn cfn_lint(files: &[&Path]) -> (bool, String) {
    let output = Command::new(python())
        .args([
            "-c",
            "import sys; from cfnlint.runner import main; sys.exit(main())",
        ])
        .args(files)
        .output()
        .expect("the emulator's Python runs");
    let printed = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), printed)
}

/// The Karpenter designs whose templates differ: each template, one without an
/// interruption queue, one on an existing VPC, and IRSA with and without a queue.
fn karpenter_designs() -> Vec<(String, Spec)> {
    let mut designs: Vec<(String, Spec)> =
        ["karpenter-spot-inference", "karpenter-reserved-training"]
            .iter()
            .map(|id| (id.to_string(), shared::template(id).unwrap().spec()))
            .collect();
    let mut quiet = designs[0].1.clone();
    quiet.karpenter.as_mut().unwrap().interruption_queue = None;
    designs.push(("no interruption queue".into(), quiet));
    let mut existing = shared::template("p5-odcr-vpc").unwrap().spec();
    existing.karpenter = designs[1].1.karpenter.clone();
    designs.push(("existing VPC".into(), existing));
    for (index, queue) in [(0, "with a queue"), (2, "without a queue")] {
        let mut irsa = designs[index].1.clone();
        irsa.cluster.with_oidc = true;
        irsa.karpenter.as_mut().unwrap().controller_identity =
            shared::model::spec::ControllerIdentity::Irsa;
        designs.push((format!("IRSA {queue}"), irsa));
    }
    designs
}

#[test]
fn every_karpenter_bundles_templates_pass_cloudformations_linter() {
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cfn-lint-{}", std::process::id()));
    for (name, spec) in karpenter_designs() {
        let files = bundle_files(&spec, &[], &[]).unwrap();
        let mut written = Vec::new();
        for path in [PREREQUISITES_PATH, CLUSTER_ACCESS_PATH] {
            let file = files
                .iter()
                .find(|file| file.path == path)
                .unwrap_or_else(|| panic!("{name}: the bundle has {path}"));
            let target = dir.join(name.replace(' ', "-")).join(path);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(&target, &file.contents).unwrap();
            written.push(target);
        }
        let paths: Vec<&Path> = written.iter().map(|path| path.as_path()).collect();
        let (passed, printed) = cfn_lint(&paths);
        assert!(passed, "{name}: cfn-lint refuses the templates:\n{printed}");
    }
}

#[test]
fn the_linter_refuses_a_template_cloudformation_would_refuse() {
    let spec = shared::template("karpenter-spot-inference").unwrap().spec();
    let access = bundle_files(&spec, &[], &[])
        .unwrap()
        .into_iter()
        .find(|file| file.path == CLUSTER_ACCESS_PATH)
        .unwrap();
    let broken = access.contents.replace("ServiceAccount:", "ServiceAcount:");
    assert_ne!(broken, access.contents);
    let path = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cfn-broken-{}.yaml", std::process::id()));
    std::fs::write(&path, broken).unwrap();
    let (passed, printed) = cfn_lint(&[&path]);
    assert!(!passed, "{printed}");
    assert!(
        printed.contains("'ServiceAccount' is a required property"),
        "{printed}"
    );
}
