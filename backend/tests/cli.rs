//! The `eks-studio` command line, run as a user runs it: the real binary, real files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn eks_studio(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eks-studio"))
        .args(args)
        .output()
        .expect("eks-studio runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn data(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/tests/data")
        .join(relative)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("eks-studio-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn yaml(path: &Path) -> Vec<yaml_serde::Value> {
    use serde::Deserialize;
    let text = std::fs::read_to_string(path).unwrap();
    yaml_serde::Deserializer::from_str(&text)
        .map(|document| yaml_serde::Value::deserialize(document).unwrap())
        .collect()
}

const SEEDS: &[(&str, &str)] = &[
    ("g4dn-vpc", "eks-g4dn-vpc.yaml"),
    ("g4dn", "eks-g4dn.yaml"),
    ("p4de-odcr-vpc", "eks-p4de-odcr-vpc.yaml"),
    ("p4de-odcr", "eks-p4de-odcr.yaml"),
    ("p5-odcr-vpc", "eks-p5-odcr-vpc.yaml"),
    ("p5-capacity-block", "eks-p5-capacity-block.yaml"),
    ("g5-node-autorepair", "eks-g5-node-autorepair.yaml"),
];

#[test]
fn templates_list_one_line_each_and_rules_their_stage_and_source() {
    let templates = stdout(&eks_studio(&["templates"]));
    assert_eq!(templates.lines().count(), shared::TEMPLATES.len());
    assert!(
        templates
            .lines()
            .any(|line| line.starts_with("p5-capacity-block "))
    );

    // Each rule is a line `ID severity stage summary` and a line `source: ...`, then the
    // count per stage and in all.
    let rules = stdout(&eks_studio(&["rules"]));
    let (listing, counts) = rules
        .split_once("\n\n")
        .expect("a blank line before the counts");
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines.len(), 2 * shared::rules::catalog().len(), "{rules}");
    for pair in lines.chunks(2) {
        let fields: Vec<&str> = pair[0].split_whitespace().collect();
        assert!(
            fields.len() >= 4,
            "`{}` is not `ID severity stage summary`",
            pair[0]
        );
        assert!(
            ["error", "warning", "info"].contains(&fields[1]),
            "{}",
            pair[0]
        );
        assert!(
            shared::rules::Stage::ALL
                .iter()
                .any(|stage| stage.as_str() == fields[2]),
            "{}",
            pair[0]
        );
        assert!(pair[1].trim_start().starts_with("source: "), "{}", pair[1]);
    }
    let total: usize = counts
        .lines()
        .filter(|line| !line.ends_with(" rules"))
        .map(|line| {
            line.split_whitespace()
                .next()
                .unwrap()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!(total, shared::rules::catalog().len(), "{counts}");
    assert!(counts.ends_with(&format!("{total} rules\n")), "{counts}");
}

/// Files and directories given together are one design: a NodePool finds its EC2NodeClass
/// in another file, directories are walked for `*.yaml` and `*.yml`, and a class in none
/// of them is a warning that says so.
#[test]
fn lint_reads_files_and_directories_as_one_design() {
    let directory = temp_dir("one-design");
    std::fs::create_dir_all(directory.join("classes/.hidden")).unwrap();
    let pool = |name: &str, class: &str| {
        format!(
            "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {name}\nspec:\n  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: {class}}}\n      requirements:\n        - {{key: karpenter.k8s.aws/instance-family, operator: In, values: [g6]}}\n"
        )
    };
    std::fs::write(
        directory.join("pools.yaml"),
        format!("{}---\n{}", pool("a", "gpu"), pool("b", "gone")),
    )
    .unwrap();
    std::fs::write(
        directory.join("classes/gpu.yml"),
        "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: gpu\nspec:\n  role: KarpenterNodeRole-demo\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]\n  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]\n",
    )
    .unwrap();
    std::fs::write(directory.join("classes/.hidden/broken.yaml"), "{").unwrap();
    std::fs::write(directory.join("classes/notes.txt"), "{").unwrap();

    let output = eks_studio(&["lint", "--format", "json", directory.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let files: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["path"].as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(
        files[0].ends_with("classes/gpu.yml") && files[1].ends_with("pools.yaml"),
        "{files:?}"
    );
    let missing: Vec<&serde_json::Value> = report["files"][1]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["rule"] == "karpenter-node-class-missing")
        .collect();
    assert_eq!(missing.len(), 1, "only `gone` is missing: {missing:?}");
    assert_eq!(missing[0]["severity"], "warning");
    assert!(
        missing[0]["message"].as_str().unwrap().contains("`gone`"),
        "{missing:?}"
    );
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));

    // The pool file alone cannot see the class: both references are warnings.
    let alone = eks_studio(&[
        "lint",
        "--format",
        "json",
        directory.join("pools.yaml").to_str().unwrap(),
    ]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&alone)).unwrap();
    let missing = report["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["rule"] == "karpenter-node-class-missing")
        .count();
    assert_eq!(missing, 2);

    let empty = temp_dir("one-design-empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert_eq!(
        eks_studio(&["lint", empty.to_str().unwrap()]).status.code(),
        Some(2)
    );
}

/// Auto Mode's NodePools and NodeClasses lint with the design and convert back to their
/// own file unchanged; a NodeClass's finding points at its line.
#[test]
fn auto_mode_pools_lint_with_the_bundle_and_convert_back_unchanged() {
    let directory = temp_dir("bundle-auto-mode");
    let rendered = eks_studio(&[
        "render",
        "--template",
        "auto-mode-reserved-training",
        "--out",
        directory.to_str().unwrap(),
    ]);
    assert!(rendered.status.success(), "{rendered:?}");
    let pools = directory.join("auto-mode/nodepools.yaml");
    let original = std::fs::read_to_string(&pools).unwrap();
    let output = eks_studio(&["lint", "--format", "json", directory.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let file = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|file| {
            file["path"]
                .as_str()
                .unwrap()
                .ends_with("auto-mode/nodepools.yaml")
        })
        .unwrap_or_else(|| panic!("auto-mode/nodepools.yaml not linted: {report:#}"));
    assert!(file.get("error").is_none(), "{report:#}");
    // The reservation placeholder, on its line in the NodeClass.
    let line = original
        .lines()
        .position(|line| line.contains("id: PLACEHOLDER_CAPACITY_RESERVATION_ID"))
        .unwrap()
        + 1;
    assert!(
        file["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|finding| { finding["rule"] == "placeholder-left" && finding["line"] == line }),
        "{file:#}"
    );
    let out = temp_dir("converted-auto-mode");
    let converted = eks_studio(&[
        "convert",
        pools.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(converted.status.success(), "{converted:?}");
    assert_eq!(
        std::fs::read_to_string(out.join("auto-mode/nodepools.yaml")).unwrap(),
        original
    );
}

/// A bundle the studio wrote lints as a directory: its Helm values, CloudFormation
/// templates and storage objects are skipped and named, its cluster and NodePools are
/// linted, and a document that claims Karpenter's API with a mistyped kind still is.
#[test]
fn a_bundle_directory_lints_its_designs_and_names_the_files_it_skips() {
    for template in ["karpenter-reserved-training", "p5-checkpoint-storage"] {
        let directory = temp_dir(&format!("bundle-{template}"));
        let rendered = eks_studio(&[
            "render",
            "--template",
            template,
            "--out",
            directory.to_str().unwrap(),
        ]);
        assert!(rendered.status.success(), "{rendered:?}");
        let output = eks_studio(&["lint", "--format", "json", directory.to_str().unwrap()]);
        let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
        let linted: Vec<&str> = report["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|file| file["path"].as_str().unwrap())
            .collect();
        assert!(
            linted.iter().any(|path| path.ends_with("cluster.yaml")),
            "{linted:?}"
        );
        assert!(
            report["files"]
                .as_array()
                .unwrap()
                .iter()
                .all(|file| file.get("error").is_none()),
            "{report:#}"
        );
        let skipped: Vec<&str> = report["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .map(|path| path.as_str().unwrap())
            .collect();
        let expected = if template == "p5-checkpoint-storage" {
            vec!["storage/volumes.yaml"]
        } else {
            vec!["karpenter/cloudformation.yaml", "karpenter/values.yaml"]
        };
        for file in expected {
            assert!(
                skipped.iter().any(|path| path.ends_with(file)),
                "{file}: {skipped:?}"
            );
        }
        // Placeholders are left: errors, not unreadable files.
        assert_eq!(output.status.code(), Some(1), "{report:#}");

        std::fs::write(
            directory.join("typo.yaml"),
            "apiVersion: karpenter.sh/v1\nkind: NodePol\nmetadata:\n  name: x\n",
        )
        .unwrap();
        let output = eks_studio(&["lint", directory.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
        assert!(
            stdout(&output).contains("typo.yaml:"),
            "{}",
            stdout(&output)
        );
        let human = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(human.contains("note: skipped"), "{human}");
    }
}

#[test]
fn render_writes_each_seed_template_as_its_reference_manifest() {
    for (template_id, seed) in SEEDS {
        let out = temp_dir(template_id);
        let output = eks_studio(&[
            "render",
            "--template",
            template_id,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(output.status.success(), "{template_id}: {output:?}");
        assert_eq!(
            yaml(&out.join("cluster.yaml")),
            yaml(&data(&format!("seeds/{seed}"))),
            "{template_id}"
        );
        for file in ["studio.json", "deploy.sh", "teardown.sh", "README.md"] {
            assert!(out.join(file).is_file(), "{template_id}: no {file}");
        }
        let _ = std::fs::remove_dir_all(out);
    }
}

#[test]
fn render_from_a_spec_file_and_a_clear_error_for_a_broken_one() {
    let dir = temp_dir("spec");
    let spec_path = dir.join("studio.json");
    std::fs::write(
        &spec_path,
        shared::template("karpenter-spot-inference")
            .unwrap()
            .spec()
            .to_json(),
    )
    .unwrap();
    let out = dir.join("out");
    let output = eks_studio(&[
        "render",
        "--spec",
        spec_path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{output:?}");
    assert!(out.join("karpenter/nodepools.yaml").is_file());
    assert!(out.join("karpenter/values.yaml").is_file());

    std::fs::write(&spec_path, "{\n  \"cluster\": {\n    \"name\": 7\n  }\n}\n").unwrap();
    let output = eks_studio(&[
        "render",
        "--spec",
        spec_path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("studio.json:3:"), "{error}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn lint_of_each_seed_exits_1_with_its_placeholders_located() {
    for (_, seed) in SEEDS {
        let path = data(&format!("seeds/{seed}"));
        let output = eks_studio(&["lint", path.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(1), "{seed}");
        let text = stdout(&output);
        let source = std::fs::read_to_string(&path).unwrap();
        let line = source
            .lines()
            .position(|line| line.contains("region: PLACEHOLDER_AWS_REGION"))
            .unwrap()
            + 1;
        let region_line = format!(
            "{}:{line}:3: error[placeholder-left]: `PLACEHOLDER_AWS_REGION`",
            path.display()
        );
        assert!(text.contains(&region_line), "{seed}:\n{text}");
        assert!(text.contains("  = help: "), "{text}");
    }
    let p5 = data("seeds/eks-p5-capacity-block.yaml");
    let text = stdout(&eks_studio(&["lint", p5.to_str().unwrap()]));
    assert!(
        text.contains(&format!(
            "{}:30:5: warning[efa-group-not-pinned]",
            p5.display()
        )),
        "{text}"
    );
    assert!(
        text.contains("eksctl gives it every one whose zone offers its type"),
        "{text}"
    );
}

#[test]
fn lint_json_reports_rule_severity_path_line_and_column() {
    let path = data("seeds/eks-p5-odcr-vpc.yaml");
    let output = eks_studio(&["lint", "--format", "json", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let findings = report["files"][0]["findings"].as_array().unwrap();
    let reservation = findings
        .iter()
        .find(|finding| {
            finding["path"] == "managedNodeGroups[0].capacityReservation.capacityReservationTarget.capacityReservationID"
        })
        .expect("the example reservation id is reported where it is");
    assert_eq!(reservation["rule"], "placeholder-left");
    assert_eq!(reservation["severity"], "error");
    assert_eq!(reservation["line"], 40);
    assert_eq!(reservation["column"], 9);
    assert!(
        reservation["help"]
            .as_str()
            .is_some_and(|help| !help.is_empty())
    );
}

#[test]
fn lint_exits_0_for_a_correct_file_and_2_for_unreadable_ones() {
    let dir = temp_dir("lint");
    let good = dir.join("good.yaml");
    std::fs::write(
        &good,
        "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: training
  region: us-west-2
  version: \"1.33\"
availabilityZones: [us-west-2a, us-west-2b]
managedNodeGroups:
  - name: sys
    instanceType: c6i.2xlarge
    desiredCapacity: 2
  - name: gpu
    instanceType: p5.48xlarge
    efaEnabled: true
    privateNetworking: true
    availabilityZones: [us-west-2b]
    taints:
      - key: nvidia.com/gpu
        effect: NoSchedule
",
    )
    .unwrap();
    let output = eks_studio(&["lint", good.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));

    let broken = dir.join("broken.yaml");
    std::fs::write(
        &broken,
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: [name: x\n",
    )
    .unwrap();
    let output = eks_studio(&["lint", broken.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stdout(&output).starts_with(&format!("{}:4:1: error:", broken.display())),
        "{}",
        stdout(&output)
    );

    let service = dir.join("service.yaml");
    std::fs::write(
        &service,
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n",
    )
    .unwrap();
    let output = eks_studio(&["lint", service.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stdout(&output).contains(":2:1: error: `Service` in `v1` is not"),
        "{}",
        stdout(&output)
    );

    let missing = dir.join("missing.yaml");
    let output = eks_studio(&["lint", missing.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn lint_never_crashes_on_random_bytes() {
    let dir = temp_dir("random");
    // A fixed xorshift sequence: the same bytes on every run.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..40 {
        let length = (next() % 600) as usize;
        let bytes: Vec<u8> = if round % 2 == 0 {
            (0..length).map(|_| next() as u8).collect()
        } else {
            // Printable YAML-ish noise, to get past the UTF-8 check into the parser.
            let alphabet = b"abc:-[]{}&*!|>'\"#%@` \n\t,?0123";
            (0..length)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect()
        };
        let path = dir.join(format!("noise-{round}.yaml"));
        std::fs::write(&path, &bytes).unwrap();
        let output = eks_studio(&["lint", path.to_str().unwrap()]);
        let code = output.status.code();
        assert!(
            matches!(code, Some(0..=2)),
            "round {round} exited {code:?}: {output:?}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn convert_round_trips_eksctl_and_karpenter_manifests() {
    let manifests = data("manifests");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&manifests)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    for file in files {
        let out = temp_dir(&format!(
            "convert-{}",
            file.file_stem().unwrap().to_string_lossy()
        ));
        let output = eks_studio(&[
            "convert",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(output.status.success(), "{}: {output:?}", file.display());
        let original = yaml(&file);
        let is_eksctl = original[0]["kind"] == "ClusterConfig";
        let written = if is_eksctl {
            out.join("cluster.yaml")
        } else {
            out.join("karpenter/nodepools.yaml")
        };
        assert_eq!(
            yaml(&written),
            original,
            "{} (documents keep their order)",
            file.display()
        );
        let _ = std::fs::remove_dir_all(out);
    }
}

#[test]
fn resolve_lists_each_pools_types_from_a_template_a_spec_or_files() {
    let output = eks_studio(&[
        "resolve",
        "--template",
        "karpenter-spot-inference",
        "--format",
        "json",
    ]);
    assert!(output.status.success(), "{output:?}");
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let pool = &json["node_pools"][0];
    assert_eq!(pool["name"], "gpu-inference-spot");
    let names: Vec<&str> = pool["instance_types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|instance| instance["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len() as u64, pool["count"].as_u64().unwrap());
    assert!(names.contains(&"g5.xlarge") && names.contains(&"g6.xlarge"));
    assert!(
        !names
            .iter()
            .any(|name| name.starts_with("g4dn") || name.starts_with("m"))
    );

    // The same pools, read back from the bundle's own file.
    let dir = temp_dir("resolve");
    assert!(
        eks_studio(&[
            "render",
            "--template",
            "karpenter-reserved-training",
            "--out",
            dir.to_str().unwrap()
        ])
        .status
        .success()
    );
    let nodepools = dir.join("karpenter/nodepools.yaml");
    let human = eks_studio(&["resolve", nodepools.to_str().unwrap()]);
    assert!(human.status.success(), "{human:?}");
    let text = stdout(&human);
    assert!(
        text.starts_with(
            "NodePool gpu-training-reserved (karpenter.node_pools[0]): 1 instance type(s)"
        ),
        "{text}"
    );
    assert!(
        text.contains("p5.48xlarge") && text.contains("8 × H100 80 GiB"),
        "{text}"
    );
    // The template's region is a placeholder: the price shown is us-east-1's, named so.
    assert!(text.contains("$55.04/h in us-east-1"), "{text}");
    let from_spec = eks_studio(&[
        "resolve",
        "--spec",
        dir.join("studio.json").to_str().unwrap(),
    ]);
    assert_eq!(stdout(&from_spec), text);

    let missing = eks_studio(&["resolve", dir.join("nope.yaml").to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2));
    let unknown = eks_studio(&["resolve", "--template", "nope"]);
    assert_eq!(unknown.status.code(), Some(2));
}

/// `eks-studio diff`: two bundles (a design in Git before and after a pull request), each
/// side a directory, a studio.json or a YAML file; exit 0 no changes, 1 changes, 3 a
/// change the peers refuse, 2 unreadable.
#[test]
fn diff_plans_the_change_between_two_bundles_and_exits_by_what_it_found() {
    let before = temp_dir("diff-before");
    let after = temp_dir("diff-after");
    for out in [&before, &after] {
        let rendered = eks_studio(&[
            "render",
            "--template",
            "g4dn",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(rendered.status.success(), "{rendered:?}");
    }
    let same = eks_studio(&["diff", before.to_str().unwrap(), after.to_str().unwrap()]);
    assert_eq!(same.status.code(), Some(0), "{same:?}");
    assert!(stdout(&same).starts_with("No changes"), "{}", stdout(&same));

    // The pull request: the GPU group grows, a CPU group is added.
    let cluster = after.join("cluster.yaml");
    let text = std::fs::read_to_string(&cluster).unwrap();
    assert!(
        text.contains("  desiredCapacity: 2\n  maxSize: 10\n"),
        "{text}"
    );
    let text = text
        .replacen(
            "  desiredCapacity: 2\n  maxSize: 10\n",
            "  desiredCapacity: 3\n  maxSize: 12\n",
            1,
        )
        .replacen(
            "managedNodeGroups:\n",
            "managedNodeGroups:\n- name: cpu\n  instanceType: m7i.large\n  desiredCapacity: 1\n",
            1,
        );
    std::fs::write(&cluster, text).unwrap();
    std::fs::remove_file(after.join("studio.json")).unwrap();
    let changed = eks_studio(&[
        "diff",
        before.join("studio.json").to_str().unwrap(),
        after.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(changed.status.code(), Some(1), "{changed:?}");
    let plan: serde_json::Value = serde_json::from_slice(&changed.stdout).unwrap();
    let changes: Vec<(String, String, String)> = plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|change| {
            (
                change["kind"].as_str().unwrap().to_owned(),
                change["name"].as_str().unwrap().to_owned(),
                change["action"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        changes,
        [
            ("nodegroup".into(), "cpu".into(), "create".into()),
            ("nodegroup".into(), "g4dn".into(), "update".into()),
        ],
        "{plan}"
    );
    assert_eq!(
        plan["changes"][1]["fields"],
        serde_json::json!(["desiredCapacity", "maxSize"])
    );
    // As text, one change a line, as `terraform plan` prints it.
    let human = eks_studio(&["diff", before.to_str().unwrap(), after.to_str().unwrap()]);
    let lines: Vec<String> = stdout(&human).lines().map(str::to_owned).collect();
    assert!(lines.contains(&"  + nodegroup cpu".to_owned()), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("Plan: 1 to create, 1 to update")),
        "{lines:?}"
    );
    assert_eq!(plan["changes"][1]["disruptive"], false);
    assert_eq!(plan["changes"][0]["steps"][0]["tool"], "eksctl");

    // Two minor versions lower: eksctl refuses it (a rollback goes one minor version).
    let lowered = std::fs::read_to_string(&cluster)
        .unwrap()
        .replace("version: '1.32'", "version: '1.30'");
    std::fs::write(&cluster, lowered).unwrap();
    let refused = eks_studio(&["diff", before.to_str().unwrap(), after.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(3), "{refused:?}");
    assert!(
        stdout(&refused).contains("change-version-lowered"),
        "{}",
        stdout(&refused)
    );

    let unreadable = eks_studio(&["diff", before.to_str().unwrap(), "/nonexistent/studio.json"]);
    assert_eq!(unreadable.status.code(), Some(2), "{unreadable:?}");
}

/// eksctl reads a file twice (pkg/eks/api.go ParseConfig): a strict pass whose decoder
/// matches field names whatever their case, then a case-sensitive decode that drops what
/// it does not know. `cloudwatch:` is accepted and dropped: lint says so at its line, and
/// convert keeps the file as it is instead of refusing it.
#[test]
fn a_key_in_another_case_is_accepted_and_dropped_not_refused() {
    let dir = temp_dir("case-key");
    let file = dir.join("cluster.yaml");
    std::fs::write(
        &file,
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: logs\n  region: us-east-1\n  version: \"1.35\"\ncloudwatch:\n  clusterLogging:\n    enableTypes: [api]\nmanagedNodeGroups:\n- name: cpu\n  instanceType: m5.large\n  capacityReservationID: cr-0123456789abcdef0\n",
    )
    .unwrap();
    let linted = eks_studio(&["lint", file.to_str().unwrap()]);
    assert_eq!(linted.status.code(), Some(1), "{linted:?}");
    let text = stdout(&linted);
    assert!(
        text.contains("cluster.yaml:7:1: error[eksctl-key-dropped]: `cloudwatch` is eksctl's `cloudWatch` in another case: eksctl accepts the file"),
        "{text}"
    );
    assert!(text.contains("fails at: run time"), "{text}");
    // Not another case of a known key: still a refusal, the only one.
    let refusals: Vec<&str> = text
        .lines()
        .filter(|line| line.contains("eksctl rejects"))
        .collect();
    assert_eq!(refusals.len(), 1, "{text}");
    assert!(refusals[0].contains("`capacityReservationID`"), "{text}");
    let out = dir.join("out");
    std::fs::write(
        &file,
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: logs\n  region: us-east-1\ncloudwatch:\n  clusterLogging:\n    enableTypes: [api]\n",
    )
    .unwrap();
    let converted = eks_studio(&[
        "convert",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(converted.status.code(), Some(0), "{converted:?}");
    let written = std::fs::read_to_string(out.join("cluster.yaml")).unwrap();
    assert!(
        written.contains("cloudwatch:\n  clusterLogging:"),
        "{written}"
    );
}
