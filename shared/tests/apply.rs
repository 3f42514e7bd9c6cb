//! A plan as the ordered steps that make it (`shared::changes::apply`): the order that
//! keeps running jobs alive, consent to what disrupts them, and `apply.sh` running
//! exactly the steps `eks-studio apply` runs.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use shared::Spec;
use shared::changes::apply::{ALLOW_DISRUPTION, ApplyStep, apply_script, apply_steps, disruptions};
use shared::changes::{Plan, diff};

fn template(id: &str) -> Spec {
    shared::template(id).unwrap().spec()
}

fn edited(spec: &Spec, edit: impl FnOnce(&mut Value)) -> Spec {
    let mut json: Value = serde_json::from_str(&spec.to_json()).unwrap();
    edit(&mut json);
    Spec::from_json(&json.to_string()).unwrap()
}

fn steps_of(before: &Spec, plan: &Plan) -> Vec<ApplyStep> {
    apply_steps(plan, &before.cluster.name, &before.cluster.region)
}

/// The first three words of each step (`eksctl upgrade cluster`).
fn heads(steps: &[ApplyStep]) -> Vec<String> {
    steps
        .iter()
        .map(|step| step.argv()[..3].join(" "))
        .collect()
}

/// EKS's upgrade order (EKS user guide, "Update existing cluster to new Kubernetes
/// version"): the control plane one minor version at a time, then the add-ons, then the
/// node groups.
#[test]
fn an_upgrade_runs_the_control_plane_then_the_add_ons_then_the_node_groups() {
    let before = edited(&template("g5-node-autorepair"), |spec| {
        spec["cluster"]["kubernetes_version"] = json!("1.33")
    });
    let after = edited(&before, |spec| {
        spec["cluster"]["kubernetes_version"] = json!("1.35");
        spec["addons"][0]["extra"] = json!({ "version": "v1.21.0-eksbuild.1" });
    });
    let plan = diff(&before, &after);
    let steps = steps_of(&before, &plan);
    let mut expected = vec![
        "eksctl upgrade cluster".to_owned(),
        "eksctl upgrade cluster".to_owned(),
        "eksctl update addon".to_owned(),
    ];
    expected.extend(
        before
            .node_groups
            .iter()
            .map(|_| "eksctl upgrade nodegroup".to_owned()),
    );
    assert_eq!(heads(&steps), expected);
    // Each step waits as long as eksctl does by default, and the plan says so.
    let waits: Vec<Option<String>> = steps
        .iter()
        .map(|step| step.step.wait.as_ref().map(|wait| wait.up_to.clone()))
        .collect();
    assert_eq!(
        waits[..3],
        [Some("65m".into()), Some("65m".into()), Some("25m".into())]
    );
    assert!(waits[3..].iter().all(|wait| wait.as_deref() == Some("45m")));
    let text = shared::changes::human(&plan);
    assert!(
        text.contains("--version 1.34 --approve    # waits up to 65m\n"),
        "{text}"
    );
    assert!(
        steps[0].title().ends_with(", waits up to 65m"),
        "{}",
        steps[0].title()
    );
    assert!(steps[2].step.has("--wait"), "{:?}", steps[2]);
    // Only the node groups' steps drain nodes, and consent names each group.
    assert!(steps[..3].iter().all(|step| step.disruption.is_none()));
    let consent = disruptions(&plan);
    assert_eq!(consent.len(), before.node_groups.len(), "{consent:?}");
    for (line, group) in consent.iter().zip(&before.node_groups) {
        assert!(
            line.starts_with(&format!("~ nodegroup {}: rolls its", group.name)),
            "{line}"
        );
    }
}

/// A new NodePool exists and is `Ready` before a pool it replaces is deleted; the file
/// both are in is applied once; kubectl gets the cluster's kubeconfig first.
#[test]
fn karpenter_objects_are_applied_once_waited_for_and_deleted_last() {
    let before = template("karpenter-spot-inference");
    let old_pool = before.karpenter.as_ref().unwrap().node_pools[0]
        .metadata
        .name
        .clone();
    let after = edited(&before, |spec| {
        let pools = spec["karpenter"]["node_pools"].as_array_mut().unwrap();
        let mut replacement = pools[0].clone();
        replacement["metadata"]["name"] = json!("inference-v2");
        pools.remove(0);
        pools.push(replacement);
    });
    let plan = diff(&before, &after);
    let steps = steps_of(&before, &plan);
    let argvs: Vec<Vec<String>> = steps.iter().map(ApplyStep::argv).collect();
    assert_eq!(
        argvs[0],
        [
            "aws",
            "eks",
            "update-kubeconfig",
            "--name",
            &before.cluster.name,
            "--region",
            &before.cluster.region,
            "--kubeconfig",
            "kubeconfig"
        ]
    );
    let applies = argvs
        .iter()
        .filter(|argv| argv[..2] == ["kubectl", "apply"])
        .count();
    assert_eq!(applies, 1, "{argvs:?}");
    let wait = argvs
        .iter()
        .position(|argv| argv[1] == "wait")
        .expect("a wait for the new pool");
    assert_eq!(
        argvs[wait],
        [
            "kubectl",
            "wait",
            "--for=condition=Ready",
            "nodepool/inference-v2",
            "--timeout=300s"
        ]
    );
    let delete = argvs
        .iter()
        .position(|argv| argv[..2] == ["kubectl", "delete"])
        .expect("the old pool deleted");
    assert_eq!(
        argvs[delete][2],
        format!("nodepool.karpenter.sh/{old_pool}")
    );
    assert!(wait < delete, "{argvs:?}");
    assert_eq!(delete, argvs.len() - 1);
}

/// Steps a later deletion undoes are not taken for done: an access entry replaced (eksctl
/// has no update of one) is created again after its deletion even though a new entry's
/// creation ran the same command before.
#[test]
fn a_shared_command_runs_again_after_a_deletion() {
    let before = edited(&template("g4dn"), |spec| {
        spec["cluster"]["access"] = json!({ "access_entries": [
            { "principal_arn": "arn:aws:iam::111122223333:role/ops", "kubernetes_groups": ["ops"] }
        ] })
    });
    let after = edited(&before, |spec| {
        spec["cluster"]["access"] = json!({ "access_entries": [
            { "principal_arn": "arn:aws:iam::111122223333:role/ops", "kubernetes_groups": ["admins"] },
            { "principal_arn": "arn:aws:iam::111122223333:role/ml", "kubernetes_groups": ["ml"] }
        ] })
    });
    let plan = diff(&before, &after);
    let heads = heads(&steps_of(&before, &plan));
    assert_eq!(
        heads,
        [
            "eksctl create accessentry",
            "eksctl delete accessentry",
            "eksctl create accessentry"
        ],
        "{}",
        shared::changes::human(&plan)
    );
}

/// Each step says what it does as a value made where the plan is made: the consent of a
/// disruptive change is on the step that moves its pods (a scale that only grows moves
/// none; the roll of a new AMI release does), a deletion names what it deletes, and a
/// wait says for what and for how long. A program the studio does not run cannot be a
/// step: a plan naming one is refused when it is read, not skipped when it runs.
#[test]
fn a_step_says_what_it_waits_for_what_it_moves_and_what_it_deletes() {
    let before = template("g4dn");
    let group = before.node_groups[0].name.clone();
    let after = edited(&before, |spec| {
        let group = &mut spec["node_groups"][0];
        let max = group["max_size"].as_u64().unwrap_or(4);
        group["max_size"] = json!(max + 2);
        group["extra"]["releaseVersion"] = json!("1.33.0-20250101");
    });
    let plan = diff(&before, &after);
    let change = plan
        .changes
        .iter()
        .find(|change| change.kind == "nodegroup" && change.name == group)
        .unwrap();
    assert!(change.disruptive, "{}", shared::changes::human(&plan));
    let [scale, roll] = &change.steps[..] else {
        panic!("{:?}", change.steps)
    };
    assert_eq!(scale.args[..2], ["scale", "nodegroup"]);
    assert!(!scale.moves_pods, "a scale-out moves no pods");
    assert_eq!(roll.args[..2], ["upgrade", "nodegroup"]);
    assert!(roll.moves_pods);
    assert_eq!(roll.wait.as_ref().unwrap().up_to, "45m");
    let steps = steps_of(&before, &plan);
    let carrying: Vec<String> = steps
        .iter()
        .filter(|step| step.disruption.is_some())
        .map(|step| step.argv()[..3].join(" "))
        .collect();
    assert_eq!(carrying, ["eksctl upgrade nodegroup"]);

    // Deleting the group: the one step drains it, deletes it and waits for eksctl.
    let after = edited(&before, |spec| {
        spec["node_groups"].as_array_mut().unwrap().remove(0);
    });
    let plan = diff(&before, &after);
    let deleted = &plan.changes[0].steps[0];
    assert!(deleted.moves_pods);
    assert_eq!(
        deleted.deletes.as_deref(),
        Some(format!("nodegroup {group}").as_str())
    );
    let wait = deleted.wait.as_ref().unwrap();
    assert_eq!(wait.up_to, "25m");
    assert!(wait.until.contains("drain"), "{wait:?}");

    // In a plan's JSON a step is its tool, its arguments and these facts; an unknown
    // program does not read.
    let json = serde_json::to_value(&plan).unwrap();
    let step = &json["changes"][0]["steps"][0];
    assert_eq!(step["tool"], "eksctl");
    assert_eq!(step["args"][0], "delete");
    assert_eq!(step["moves_pods"], true);
    let read: shared::changes::Step = serde_json::from_value(step.clone()).unwrap();
    assert_eq!(&read, deleted);
    let mut unknown = step.clone();
    unknown["tool"] = json!("rm");
    assert!(serde_json::from_value::<shared::changes::Step>(unknown).is_err());
}

fn bash() -> &'static str {
    "bash"
}

/// Programs named eksctl, aws, kubectl and helm that log their arguments, one JSON array
/// per call, and succeed.
fn recorders(dir: &Path) -> std::ffi::OsString {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["eksctl", "aws", "kubectl", "helm"] {
        let path = bin.join(tool);
        std::fs::write(
            &path,
            format!(
                "#!/usr/bin/env python3\nimport json, os, sys\nwith open(os.environ['CALLS'], 'a') as log:\n    log.write(json.dumps(['{tool}'] + sys.argv[1:]) + '\\n')\n"
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut path = bin.into_os_string();
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    path
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("eks-studio-apply-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `apply.sh` runs the same argument vectors, in the same order, as `apply_steps` gives
/// the CLI and the server, however its words need quoting; and it runs nothing that
/// disrupts running pods without `--allow-disruption`.
#[test]
fn apply_sh_runs_exactly_the_plan_s_argument_vectors_after_consent() {
    let before = template("g4dn");
    let after = edited(&before, |spec| {
        spec["node_groups"][0]["labels"] = json!({ "team": "vision's", "tier": "a b" });
        spec["node_groups"][1]["instance_type"] = json!("m5.2xlarge");
    });
    let plan = diff(&before, &after);
    assert!(!disruptions(&plan).is_empty());
    // The replacement's deletion is the step that drains, and says so; its creation not.
    let replaced = &before.node_groups[1].name;
    let carrying: Vec<String> = steps_of(&before, &plan)
        .iter()
        .filter(|step| step.disruption.is_some())
        .map(ApplyStep::title)
        .collect();
    assert_eq!(carrying.len(), 1, "{carrying:?}");
    assert!(
        carrying[0].starts_with(&format!(
            "-/+ nodegroup {replaced}: eksctl delete nodegroup {replaced}, waits up to 25m (disrupts: drains"
        )),
        "{carrying:?}"
    );
    let dir = temp_dir("script");
    let script = dir.join("apply.sh");
    std::fs::write(
        &script,
        apply_script(&plan, &before.cluster.name, &before.cluster.region),
    )
    .unwrap();
    let calls = dir.join("calls.jsonl");
    let run = |args: &[&str]| {
        Command::new(bash())
            .arg(&script)
            .args(args)
            .env("PATH", recorders(&dir))
            .env("CALLS", &calls)
            .output()
            .unwrap()
    };
    let refused = run(&[]);
    assert_eq!(refused.status.code(), Some(4));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("1 of the plan's changes disrupts running pods:"),
        "{said}"
    );
    assert!(
        said.contains(&format!("-/+ nodegroup {}", before.node_groups[1].name)),
        "{said}"
    );
    assert!(!calls.exists(), "nothing ran without consent");

    let ran = run(&[ALLOW_DISRUPTION]);
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let logged: Vec<Vec<String>> = std::fs::read_to_string(&calls)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    // First the cluster's lock: its kubeconfig, then the Lease read and written.
    assert_eq!(
        logged[0][..3],
        ["aws", "eks", "update-kubeconfig"],
        "{logged:?}"
    );
    let lease_call = |argv: &Vec<String>| {
        argv[0] == "kubectl"
            && (argv[1..3] == ["get", "lease"]
                || argv.iter().any(|word| word.ends_with("/lease.json")))
    };
    assert!(logged[1..].iter().any(lease_call), "{logged:?}");
    let logged: Vec<Vec<String>> = logged[1..]
        .iter()
        .filter(|argv| !lease_call(argv))
        .cloned()
        .collect();
    let expected: Vec<Vec<String>> = steps_of(&before, &plan)
        .iter()
        .map(ApplyStep::argv)
        .collect();
    assert_eq!(logged, expected);
}

/// A plan a peer refuses is not run by apply.sh at all.
#[test]
fn apply_sh_of_a_refused_plan_runs_nothing() {
    let before = edited(&template("g4dn"), |spec| {
        spec["cluster"]["kubernetes_version"] = json!("1.35")
    });
    let after = edited(&before, |spec| {
        spec["cluster"]["kubernetes_version"] = json!("1.33")
    });
    let plan = diff(&before, &after);
    assert!(plan.refused());
    let dir = temp_dir("refused");
    let script = dir.join("apply.sh");
    std::fs::write(
        &script,
        apply_script(&plan, &before.cluster.name, &before.cluster.region),
    )
    .unwrap();
    let calls = dir.join("calls.jsonl");
    let run = Command::new(bash())
        .arg(&script)
        .arg(ALLOW_DISRUPTION)
        .env("PATH", recorders(&dir))
        .env("CALLS", &calls)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&run.stderr).contains("change-version-lowered"));
    assert!(!calls.exists());
}
