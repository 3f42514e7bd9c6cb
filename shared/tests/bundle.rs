//! The bundle holds the rendered files, the spec, scripts and a README of what is open.

mod common;

use std::io::Read;

use shared::deploy::bundle::{self, CheckLine};
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
    // Findings are placed in the page's words, not the spec's paths.
    assert!(readme.contains("`placeholder-left` at Region:"), "{readme}");
    assert!(!readme.contains("`cluster.region`"), "{readme}");
    assert!(readme.contains("No live checks ran"), "{readme}");
    assert!(readme.contains("- On your `PATH`: `eksctl`."), "{readme}");
}

/// The README names every file of the bundle with what it is for, for every template.
#[test]
fn the_readme_lists_every_file_of_the_bundle_with_what_it_is_for() {
    for template in shared::TEMPLATES {
        let spec = template.spec();
        let files = bundle::bundle_files(&spec, &[], &[]).unwrap();
        let readme = file(&files, "README.md");
        for bundled in &files {
            let line = readme
                .lines()
                .find(|line| line.starts_with(&format!("- `{}` — ", bundled.path)))
                .unwrap_or_else(|| {
                    panic!("{}: README does not list {}", template.id, bundled.path)
                });
            assert!(
                !line.ends_with("a file the deploy uses"),
                "{}: {line}",
                template.id
            );
        }
        assert!(readme.contains("## Before you run it"), "{}", template.id);
        assert!(readme.contains("`./deploy.sh`"), "{}", template.id);
    }
}

fn file<'a>(files: &'a [bundle::BundleFile], path: &str) -> &'a str {
    &files
        .iter()
        .find(|file| file.path == path)
        .unwrap_or_else(|| panic!("the bundle has {path}"))
        .contents
}

/// Positions of `needles` in `text`, which must come in that order.
fn in_order(text: &str, needles: &[&str]) {
    let mut at = 0;
    for needle in needles {
        let found = text[at..]
            .find(needle)
            .unwrap_or_else(|| panic!("`{needle}` after byte {at} of:\n{text}"));
        at += found + needle.len();
    }
}

#[test]
fn a_karpenter_bundle_adds_what_karpenter_needs_and_its_steps() {
    let spec = shared::template("karpenter-reserved-training")
        .unwrap()
        .spec();
    let checks = [CheckLine {
        id: "reservation".into(),
        status: shared::model::live_checks::CheckStatus::Ok,
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
            "karpenter/cloudformation.yaml",
            "karpenter/cluster-access.yaml",
            "plugins/nvidia-device-plugin.yaml",
            "plugins/aws-efa-k8s-device-plugin.yaml",
            "studio.json",
            "deploy.sh",
            "teardown.sh",
            "README.md"
        ]
    );
    let values: yaml_serde::Value =
        yaml_serde::from_str(file(&files, "karpenter/values.yaml")).unwrap();
    assert_eq!(values["settings"]["clusterName"], "eks-p5-training");
    assert_eq!(values["settings"]["interruptionQueue"], "eks-p5-training");
    assert_eq!(values["settings"]["featureGates"]["reservedCapacity"], true);
    let cluster: yaml_serde::Value = yaml_serde::from_str(file(&files, "cluster.yaml")).unwrap();
    assert_eq!(
        cluster["metadata"]["tags"]["karpenter.sh/discovery"], "eks-p5-training",
        "eksctl tags its subnets and security groups for the node classes"
    );
    assert!(
        cluster["addons"]
            .as_sequence()
            .unwrap()
            .iter()
            .any(|addon| addon["name"] == "eks-pod-identity-agent")
    );

    let stack: yaml_serde::Value =
        yaml_serde::from_str(file(&files, "karpenter/cloudformation.yaml")).unwrap();
    let resources = stack["Resources"].as_mapping().unwrap();
    let of_type = |kind: &str| {
        resources
            .iter()
            .filter(|(_, resource)| resource["Type"] == kind)
            .count()
    };
    assert_eq!(
        of_type("AWS::IAM::Role"),
        2,
        "the node role and the controller's"
    );
    assert_eq!(of_type("AWS::IAM::ManagedPolicy"), 6);
    assert_eq!(of_type("AWS::SQS::Queue"), 1);
    assert_eq!(of_type("AWS::Events::Rule"), 5);
    assert_eq!(
        stack["Resources"]["KarpenterInterruptionQueue"]["Properties"]["QueueName"],
        values["settings"]["interruptionQueue"],
        "the chart reads the queue the stack creates"
    );
    assert_eq!(
        stack["Resources"]["KarpenterNodeRole"]["Properties"]["RoleName"]["Fn::Sub"],
        "KarpenterNodeRole-${ClusterName}"
    );
    assert_eq!(
        stack["Parameters"]["ClusterName"]["Default"],
        "eks-p5-training"
    );
    let nodepools = file(&files, "karpenter/nodepools.yaml");
    assert!(
        nodepools.contains("role: KarpenterNodeRole-eks-p5-training"),
        "the node class uses the role the stack creates"
    );
    let controller = &stack["Resources"]["KarpenterControllerRole"]["Properties"];
    assert_eq!(
        controller["AssumeRolePolicyDocument"]["Statement"][0]["Principal"]["Service"],
        "pods.eks.amazonaws.com"
    );
    assert_eq!(
        controller["ManagedPolicyArns"].as_sequence().unwrap().len(),
        6
    );
    let access: yaml_serde::Value =
        yaml_serde::from_str(file(&files, "karpenter/cluster-access.yaml")).unwrap();
    let entry = &access["Resources"]["NodeAccessEntry"]["Properties"];
    assert_eq!(entry["Type"], "EC2_LINUX");
    assert_eq!(
        entry["PrincipalArn"]["Fn::ImportValue"],
        "Karpenter-eks-p5-training-NodeRoleArn"
    );
    let identity = &access["Resources"]["ControllerPodIdentity"]["Properties"];
    assert_eq!(identity["Namespace"], "kube-system");
    assert_eq!(identity["ServiceAccount"], "karpenter");

    in_order(
        file(&files, "deploy.sh"),
        &[
            "eksctl create cluster -f cluster.yaml --dry-run",
            "aws cloudformation deploy --region PLACEHOLDER_AWS_REGION --stack-name Karpenter-eks-p5-training --template-file karpenter/cloudformation.yaml --capabilities CAPABILITY_NAMED_IAM",
            "eksctl create cluster -f cluster.yaml\n",
            "--stack-name Karpenter-eks-p5-training-access --template-file karpenter/cluster-access.yaml",
            "helm upgrade --install karpenter",
            "kubectl apply -f karpenter/nodepools.yaml",
        ],
    );
    in_order(
        file(&files, "teardown.sh"),
        &[
            "kubectl delete -f karpenter/nodepools.yaml",
            "helm uninstall karpenter",
            "delete-stack --region PLACEHOLDER_AWS_REGION --stack-name Karpenter-eks-p5-training-access",
            "eksctl delete cluster",
            "delete-stack --region PLACEHOLDER_AWS_REGION --stack-name Karpenter-eks-p5-training\n",
        ],
    );
    assert!(
        file(&files, "README.md").contains("`reservation`: ok — cr-0123456789abcdef0 is active")
    );
}

#[test]
fn without_an_interruption_queue_the_stack_creates_none_and_the_chart_reads_none() {
    let mut spec = shared::template("karpenter-spot-inference").unwrap().spec();
    spec.karpenter.as_mut().unwrap().interruption_queue = None;
    let files = bundle::bundle_files(&spec, &[], &[]).unwrap();
    let stack = file(&files, "karpenter/cloudformation.yaml");
    for absent in ["AWS::SQS::Queue", "AWS::Events::Rule", "InterruptionPolicy"] {
        assert!(!stack.contains(absent), "{absent}:\n{stack}");
    }
    assert!(!file(&files, "karpenter/values.yaml").contains("interruptionQueue"));
}

#[test]
fn an_existing_vpcs_subnets_are_tagged_on_deploy_and_untagged_on_teardown() {
    let mut spec = shared::template("p5-odcr-vpc").unwrap().spec();
    spec.karpenter = shared::template("karpenter-reserved-training")
        .unwrap()
        .spec()
        .karpenter;
    let files = bundle::bundle_files(&spec, &[], &[]).unwrap();
    let tag = "--resources PLACEHOLDER_SUBNET_PRIVATE_1 PLACEHOLDER_SUBNET_PRIVATE_2 --tags Key=karpenter.sh/discovery,Value=eks-p5-training";
    in_order(
        file(&files, "deploy.sh"),
        &[
            "eksctl create cluster -f cluster.yaml\n",
            &format!("aws ec2 create-tags --region PLACEHOLDER_AWS_REGION {tag}"),
            "helm upgrade",
        ],
    );
    in_order(
        file(&files, "teardown.sh"),
        &[
            "helm uninstall",
            &format!("aws ec2 delete-tags --region PLACEHOLDER_AWS_REGION {tag}"),
            "eksctl delete cluster",
        ],
    );
}

/// `tests/fixtures/`, whose stand-ins record their arguments.
fn fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

/// Runs the bundle's own `deploy.sh` for `spec` with the stand-ins; returns the argument
/// vectors it ran (program by name) and those of the sequence, a value read from an earlier
/// step shown as `<NAME>` and a filled copy of a file as `<filled>`.
fn run_deploy_sh(spec: &shared::Spec, case: &str) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let files = bundle::bundle_files(spec, &[], &[]).unwrap();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("deploy-sh-{case}-{}", std::process::id()));
    for file in &files {
        let path = dir.join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &file.contents).unwrap();
    }
    let log = dir.join("calls.jsonl");
    let path = format!(
        "{}:{}",
        fixtures().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = std::process::Command::new("bash")
        .arg(dir.join("deploy.sh"))
        .env("PATH", path)
        .env("EKSCTL_STANDIN_ARGV_LOG", &log)
        .env("EKSCTL_STANDIN_DELAY_MS", "0")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!dir.join("pwned").exists(), "a name never becomes code");
    let calls: Vec<Vec<String>> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter_map(|call| serde_json::from_value(call["argv"].clone()).ok())
        .collect();
    let expected: Vec<Vec<String>> = shared::deploy::sequence::deploy_steps(spec)
        .iter()
        .map(|step| {
            std::iter::once(step.tool.command().to_owned())
                .chain(step.args.iter().map(|arg| match arg {
                    shared::deploy::sequence::Arg::Text(text) => text.clone(),
                    shared::deploy::sequence::Arg::File(path) => (*path).to_owned(),
                    shared::deploy::sequence::Arg::Read { prefix, name } => {
                        format!("{prefix}<{name}>")
                    }
                    shared::deploy::sequence::Arg::Filled { .. } => "<filled>".to_owned(),
                }))
                .collect()
        })
        .collect();
    let ran: Vec<Vec<String>> = calls
        .into_iter()
        .map(|mut argv| {
            argv[0] = argv[0].rsplit('/').next().unwrap().to_owned();
            // A filled copy reaches the program through bash's process substitution.
            for arg in &mut argv[1..] {
                if arg.starts_with("/dev/fd/") {
                    *arg = "<filled>".to_owned();
                }
            }
            argv
        })
        .collect();
    (ran, expected)
}

#[test]
fn deploy_sh_runs_the_one_click_sequence_with_every_argument_as_written() {
    let mut spec = shared::template("karpenter-spot-inference").unwrap().spec();
    spec.cluster.name = "x'; touch pwned #".into();
    spec.cluster.region = "us-east-2".into();
    let (ran, expected) = run_deploy_sh(&spec, "pod-identity");
    assert_eq!(ran, expected);
}

#[test]
fn with_irsa_deploy_sh_hands_the_issuer_and_the_role_it_reads_to_the_steps_after() {
    let mut spec = shared::template("karpenter-spot-inference").unwrap().spec();
    spec.cluster.name = "x'; touch pwned #".into();
    spec.cluster.region = "us-east-2".into();
    spec.cluster.with_oidc = true;
    spec.karpenter.as_mut().unwrap().controller_identity =
        shared::model::spec::ControllerIdentity::Irsa;
    let (ran, expected) = run_deploy_sh(&spec, "irsa");
    assert_eq!(ran.len(), expected.len());
    let issuer = "https://oidc.eks.us-east-2.amazonaws.com/id/";
    let role = "arn:aws:iam::123456789012:role/x'; touch pwned #-karpenter";
    for (ran, expected) in ran.iter().zip(&expected) {
        let shown: Vec<String> = ran
            .iter()
            .map(|arg| {
                if let Some(read) = arg.strip_prefix("OidcIssuer=") {
                    assert!(read.starts_with(issuer), "{read}");
                    "OidcIssuer=<OIDC_ISSUER>".to_owned()
                } else {
                    arg.replace(role, "<CONTROLLER_ROLE_ARN>")
                }
            })
            .collect();
        assert_eq!(&shown, expected);
    }
    assert!(
        expected
            .iter()
            .any(|argv| argv.contains(&"OidcIssuer=<OIDC_ISSUER>".to_owned())),
        "{expected:?}"
    );
    assert!(
        expected.iter().any(|argv| argv.contains(
            &r"serviceAccount.annotations.eks\.amazonaws\.com/role-arn=<CONTROLLER_ROLE_ARN>"
                .to_owned()
        )),
        "{expected:?}"
    );
}

/// The plugins a design with one pool of `requirements` installs, by values file.
fn plugins_for(
    requirements: Vec<shared::upstream::karpenter::Requirement>,
    alias: &str,
) -> Vec<String> {
    let mut spec = shared::template("karpenter-spot-inference").unwrap().spec();
    let karpenter = spec.karpenter.as_mut().unwrap();
    karpenter.node_pools[0].spec.template.spec.requirements = requirements;
    karpenter.node_classes[0].spec.ami_selector_terms =
        vec![shared::upstream::karpenter::SelectorTerm::alias(alias)];
    bundle::bundle_files(&spec, &[], &[])
        .unwrap()
        .into_iter()
        .filter(|file| file.path.starts_with("plugins/"))
        .map(|file| file.path)
        .collect()
}

#[test]
fn device_plugins_follow_what_each_pool_can_launch() {
    use shared::upstream::karpenter::Requirement;
    let types = |names: &[&str]| {
        vec![Requirement::new(
            "node.kubernetes.io/instance-type",
            "In",
            names,
        )]
    };
    assert_eq!(
        plugins_for(types(&["g6.xlarge"]), "al2023@latest"),
        ["plugins/nvidia-device-plugin.yaml"],
        "an NVIDIA type without EFA"
    );
    assert_eq!(
        plugins_for(types(&["p5.48xlarge"]), "al2023@latest"),
        [
            "plugins/nvidia-device-plugin.yaml",
            "plugins/aws-efa-k8s-device-plugin.yaml"
        ]
    );
    assert_eq!(
        plugins_for(types(&["trn1.32xlarge"]), "al2023@latest"),
        [
            "plugins/aws-efa-k8s-device-plugin.yaml",
            "plugins/neuron-helm-chart.yaml"
        ]
    );
    assert!(plugins_for(types(&["m6i.large"]), "al2023@latest").is_empty());
    assert_eq!(
        plugins_for(types(&["p5.48xlarge"]), "bottlerocket@latest"),
        ["plugins/aws-efa-k8s-device-plugin.yaml"],
        "Bottlerocket's NVIDIA variant brings its own device plugin"
    );
}

#[test]
fn plugin_values_keep_to_the_pools_that_need_them_and_tolerate_their_taints() {
    let mut spec = shared::template("karpenter-reserved-training")
        .unwrap()
        .spec();
    let karpenter = spec.karpenter.as_mut().unwrap();
    karpenter.node_pools[0]
        .spec
        .template
        .spec
        .taints
        .push(shared::upstream::karpenter::Taint {
            key: "dedicated".into(),
            value: Some("training".into()),
            effect: "NoExecute".into(),
            ..Default::default()
        });
    let files = bundle::bundle_files(&spec, &[], &[]).unwrap();
    let nvidia: yaml_serde::Value =
        yaml_serde::from_str(file(&files, "plugins/nvidia-device-plugin.yaml")).unwrap();
    let terms = &nvidia["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        ["nodeSelectorTerms"];
    assert_eq!(
        terms[0]["matchExpressions"][0]["key"],
        "karpenter.sh/nodepool"
    );
    assert_eq!(
        terms[0]["matchExpressions"][0]["values"][0],
        "gpu-training-reserved"
    );
    let tolerations = nvidia["tolerations"].as_sequence().unwrap();
    for (key, effect) in [("nvidia.com/gpu", "NoSchedule"), ("dedicated", "NoExecute")] {
        assert!(
            tolerations
                .iter()
                .any(|toleration| toleration["key"] == key && toleration["effect"] == effect),
            "{key}:{effect} in {tolerations:?}"
        );
    }
    let efa: yaml_serde::Value =
        yaml_serde::from_str(file(&files, "plugins/aws-efa-k8s-device-plugin.yaml")).unwrap();
    assert_eq!(
        efa["supportedInstanceLabels"]["keys"][0],
        "karpenter.sh/nodepool"
    );
    assert_eq!(
        efa["supportedInstanceLabels"]["values"][0],
        "gpu-training-reserved"
    );
    in_order(
        file(&files, "deploy.sh"),
        &[
            "helm upgrade --install karpenter",
            "helm upgrade --install nvidia-device-plugin nvidia-device-plugin --repo https://nvidia.github.io/k8s-device-plugin --version 0.20.0",
            "helm upgrade --install aws-efa-k8s-device-plugin",
            "kubectl apply",
        ],
    );
    in_order(
        file(&files, "teardown.sh"),
        &[
            "kubectl delete",
            "helm uninstall aws-efa-k8s-device-plugin",
            "helm uninstall nvidia-device-plugin",
            "helm uninstall karpenter",
        ],
    );
}

/// The FSx file system and the S3 bucket of a design with checkpoint storage.
fn storage_spec() -> shared::Spec {
    let mut spec = shared::template("p5-checkpoint-storage").unwrap().spec();
    for placeholder in shared::lint::placeholders::list(&spec.clone()) {
        let value = match placeholder.label.as_str() {
            "AWS region" => "us-east-2",
            "Private subnet 1 ID" => "subnet-0123456789abcdef0",
            "FSx security group ID" => "sg-0123456789abcdef0",
            "S3 bucket name" => "training-checkpoints",
            _ => "x",
        };
        spec = shared::lint::placeholders::fill(&spec, &placeholder.token, value);
    }
    spec
}

#[test]
fn checkpoint_volumes_are_the_csi_drivers_objects_applied_after_the_cluster_and_deleted_first() {
    let spec = storage_spec();
    let files = bundle::bundle_files(&spec, &[], &[]).unwrap();
    let volumes = file(&files, shared::documents::storage::STORAGE_PATH);
    let documents: Vec<yaml_serde::Value> = yaml_serde::Deserializer::from_str(volumes)
        .map(|document| serde::Deserialize::deserialize(document).unwrap())
        .collect();
    let kinds: Vec<&str> = documents
        .iter()
        .map(|document| document["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "StorageClass",
            "PersistentVolumeClaim",
            "PersistentVolume",
            "PersistentVolumeClaim"
        ]
    );
    // The FSx driver's dynamic provisioning: its parameters are strings, the claim asks
    // for the size in the file system's subnet.
    let class = &documents[0];
    assert_eq!(class["provisioner"], "fsx.csi.aws.com");
    assert_eq!(class["parameters"]["subnetId"], "subnet-0123456789abcdef0");
    assert_eq!(
        class["parameters"]["securityGroupIds"],
        "sg-0123456789abcdef0"
    );
    assert_eq!(class["parameters"]["deploymentType"], "PERSISTENT_2");
    assert_eq!(class["parameters"]["perUnitStorageThroughput"], "250");
    assert_eq!(documents[1]["spec"]["storageClassName"], "fsx-lustre");
    assert_eq!(
        documents[1]["spec"]["resources"]["requests"]["storage"],
        "2400Gi"
    );
    // Mountpoint's static provisioning: no StorageClass, the volume bound to its claim.
    let volume = &documents[2];
    assert_eq!(volume["spec"]["csi"]["driver"], "s3.csi.aws.com");
    assert_eq!(
        volume["spec"]["csi"]["volumeAttributes"]["bucketName"],
        "training-checkpoints"
    );
    assert_eq!(volume["spec"]["storageClassName"], "");
    assert_eq!(volume["spec"]["claimRef"]["name"], "s3-claim");
    let options: Vec<&str> = volume["spec"]["mountOptions"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|option| option.as_str().unwrap())
        .collect();
    assert_eq!(
        options,
        ["allow-delete", "region us-east-2", "prefix checkpoints/"]
    );
    assert_eq!(documents[3]["spec"]["volumeName"], "s3-pv");
    // The throughput stays a string for YAML 1.1 readers too (kubectl), and the empty
    // StorageClass name stays an empty string, not null.
    assert!(
        volumes.contains("perUnitStorageThroughput: '250'"),
        "{volumes}"
    );
    assert!(volumes.contains("storageClassName: ''"), "{volumes}");

    let deploy = file(&files, "deploy.sh");
    in_order(
        deploy,
        &["create cluster -f", "apply -f storage/volumes.yaml"],
    );
    let teardown = file(&files, "teardown.sh");
    in_order(
        teardown,
        &["delete -f storage/volumes.yaml", "delete cluster -f"],
    );
    assert!(file(&files, "README.md").contains("storage/volumes.yaml"));

    let (ran, expected) = run_deploy_sh(&spec, "storage");
    assert_eq!(ran, expected);
    assert_eq!(
        ran.last().unwrap(),
        &["kubectl", "apply", "-f", "storage/volumes.yaml"]
    );

    // A design without volumes has no file and no step.
    let plain = shared::template("p5-odcr-vpc").unwrap().spec();
    let files = bundle::bundle_files(&plain, &[], &[]).unwrap();
    assert!(files.iter().all(|file| !file.path.starts_with("storage/")));
    assert!(!file(&files, "deploy.sh").contains("storage"));
}

/// A bundle whose design has open errors: `deploy.sh` lists them and stops before its
/// first step, unless told to go on.
#[test]
fn deploy_sh_refuses_to_start_while_the_design_has_open_errors() {
    // The template as it comes: its placeholders are open errors.
    let spec = shared::template("p5-checkpoint-storage").unwrap().spec();
    let findings = shared::rules::validate(&spec);
    assert!(shared::rules::has_errors(&findings));
    let files = bundle::bundle_files(&spec, &findings, &[]).unwrap();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("deploy-sh-open-errors-{}", std::process::id()));
    for file in &files {
        let path = dir.join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &file.contents).unwrap();
    }
    let readme = &files
        .iter()
        .find(|file| file.path == "README.md")
        .unwrap()
        .contents;
    assert!(
        readme.contains("./deploy.sh --despite-open-errors"),
        "{readme}"
    );
    let log = dir.join("calls.jsonl");
    let run = |args: &[&str]| {
        std::process::Command::new("bash")
            .arg(dir.join("deploy.sh"))
            .args(args)
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    fixtures().display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .env("EKSCTL_STANDIN_ARGV_LOG", &log)
            .env("EKSCTL_STANDIN_DELAY_MS", "0")
            .output()
            .unwrap()
    };
    let refused = run(&[]);
    assert_eq!(refused.status.code(), Some(3));
    let said = String::from_utf8_lossy(&refused.stderr);
    let errors = findings
        .iter()
        .filter(|finding| finding.severity == shared::rules::Severity::Error)
        .count();
    assert!(
        said.contains(&format!("the design has {errors} open error")),
        "{said}"
    );
    for finding in findings
        .iter()
        .filter(|finding| finding.severity == shared::rules::Severity::Error)
    {
        assert!(said.contains(finding.rule.as_ref()), "{said}");
    }
    assert!(!log.exists(), "no tool ran");
    // Told to go on, it runs its steps (the stand-in eksctl creates nothing here).
    let forced = run(&["--despite-open-errors"]);
    assert!(
        forced.status.success(),
        "{}",
        String::from_utf8_lossy(&forced.stderr)
    );
    assert!(log.exists(), "the steps ran");
    // Without open errors there is no guard at all.
    let clean = bundle::bundle_files(&spec, &[], &[]).unwrap();
    let script = &clean
        .iter()
        .find(|file| file.path == "deploy.sh")
        .unwrap()
        .contents;
    assert!(!script.contains("--despite-open-errors"), "{script}");
}

/// A Capacity Block that has not started: the README says what to run once it does.
#[test]
fn the_readme_says_when_to_scale_a_group_whose_capacity_block_has_not_started() {
    let spec = common::capacity_block();
    let mut live = common::capacity_block_facts();
    live.reservations[0].state = "scheduled".into();
    live.reservations[0].start_date = Some("2026-12-10T11:30:00Z".into());
    let findings = shared::rules::validate_with(&spec, &live);
    let files = bundle::bundle_files(&spec, &findings, &[]).unwrap();
    let readme = file(&files, "README.md");
    in_order(
        readme,
        &[
            "## When to run what",
            "starts 2026-12-10 11:30 UTC",
            &format!(
                "eksctl scale nodegroup --cluster {} --region {} --name {} --nodes {}",
                spec.cluster.name,
                spec.cluster.region,
                spec.node_groups[1].name,
                spec.node_groups[1].desired_capacity.unwrap()
            ),
            "## Findings still open",
        ],
    );
    // Without a block that waits, there is no such section.
    let files = bundle::bundle_files(&spec, &[], &[]).unwrap();
    assert!(!file(&files, "README.md").contains("## When to run what"));
}

/// A design whose FSx file system is in a new VPC, its subnet and security groups left to
/// the deploy.
fn fsx_in_a_new_vpc() -> shared::Spec {
    let mut spec = shared::template("g4dn").unwrap().spec();
    spec.addons.push(shared::templates::starting_addon(
        shared::documents::storage::FSX_ADDON,
    ));
    spec.storage.fsx = Some(shared::model::spec::FsxVolume {
        subnet_id: String::new(),
        security_group_ids: Vec::new(),
        deployment_type: "SCRATCH_2".into(),
        per_unit_storage_throughput: None,
        storage_gib: 1200,
    });
    spec
}

#[test]
fn in_a_new_vpc_deploy_sh_reads_the_gpu_groups_subnet_and_the_cluster_group_then_applies_a_filled_copy()
 {
    let spec = fsx_in_a_new_vpc();
    let files = bundle::bundle_files(&spec, &[], &[]).unwrap();
    let volumes = file(&files, "storage/volumes.yaml");
    assert!(
        volumes.contains("subnetId: FILLED_AT_DEPLOY_FSX_SUBNET_ID"),
        "{volumes}"
    );
    assert!(
        volumes.contains("securityGroupIds: FILLED_AT_DEPLOY_FSX_SECURITY_GROUP_ID"),
        "{volumes}"
    );
    in_order(
        file(&files, "deploy.sh"),
        &[
            "eksctl create cluster -f cluster.yaml\n",
            // The GPU group, not the system group listed first.
            "aws eks describe-nodegroup --region PLACEHOLDER_AWS_REGION --cluster-name eks-g4dn --nodegroup-name g4dn --query 'nodegroup.subnets[0]' --output text",
            "aws eks describe-cluster --region PLACEHOLDER_AWS_REGION --name eks-g4dn --query cluster.resourcesVpcConfig.clusterSecurityGroupId --output text",
            "kubectl apply -f <(sed -e \"s|FILLED_AT_DEPLOY_FSX_SUBNET_ID|${FSX_SUBNET_ID}|g\" -e \"s|FILLED_AT_DEPLOY_FSX_SECURITY_GROUP_ID|${FSX_SECURITY_GROUP_ID}|g\" storage/volumes.yaml)",
        ],
    );
    let (ran, expected) = run_deploy_sh(&spec, "fsx-new-vpc");
    assert_eq!(ran, expected);
    assert!(
        ran.iter()
            .any(|argv| argv[..3] == ["kubectl", "apply", "-f"] && argv[3] == "<filled>"),
        "{ran:?}"
    );
}

#[test]
fn fsx_in_an_existing_vpc_or_with_ids_given_is_applied_as_written() {
    let mut spec = fsx_in_a_new_vpc();
    let fsx = spec.storage.fsx.as_mut().unwrap();
    fsx.subnet_id = "subnet-0123456789abcdef0".into();
    fsx.security_group_ids = vec!["sg-0123456789abcdef0".into()];
    let steps = shared::deploy::sequence::deploy_steps(&spec);
    assert!(!steps.iter().any(|step| step.name.starts_with("read-fsx")));
    let files = bundle::bundle_files(&spec, &[], &[]).unwrap();
    assert!(file(&files, "deploy.sh").contains("kubectl apply -f storage/volumes.yaml"));
    // Only the missing one is read.
    spec.storage
        .fsx
        .as_mut()
        .unwrap()
        .security_group_ids
        .clear();
    let names: Vec<&str> = shared::deploy::sequence::deploy_steps(&spec)
        .iter()
        .map(|step| step.name)
        .filter(|name| name.starts_with("read-fsx"))
        .collect();
    assert_eq!(names, ["read-fsx-security-group"]);
    // An existing VPC: the user names both, as before.
    let spec = shared::template("p5-checkpoint-storage").unwrap().spec();
    assert_eq!(
        shared::documents::storage::fsx_at_deploy(&spec),
        shared::documents::storage::FsxAtDeploy::default()
    );
}
