//! What a changed design does to a running cluster (`shared::changes`), on the changes
//! eksctl's and Karpenter's own docs describe: each row says which action, which steps
//! and which disruption the peer's command brings, with its source.

use serde_json::{Value, json};
use shared::Spec;
use shared::changes::{Action, Plan, diff, human};

fn template(id: &str) -> Spec {
    shared::template(id).unwrap().spec()
}

/// A design edited as JSON (the studio.json a pull request changes).
fn edited(spec: &Spec, edit: impl FnOnce(&mut Value)) -> Spec {
    let mut json: Value = serde_json::from_str(&spec.to_json()).unwrap();
    edit(&mut json);
    Spec::from_json(&json.to_string()).unwrap()
}

/// A change's steps as the argument vectors they run, program first.
fn argvs(steps: &[shared::changes::Step]) -> Vec<Vec<String>> {
    steps.iter().map(shared::changes::Step::argv).collect()
}

fn only_change(plan: &Plan) -> &shared::changes::Change {
    assert_eq!(plan.changes.len(), 1, "{}", human(plan));
    &plan.changes[0]
}

fn rules_of(plan: &Plan) -> Vec<&str> {
    plan.findings
        .iter()
        .map(|finding| finding.rule.as_ref())
        .collect()
}

#[test]
fn a_design_against_itself_and_against_its_own_files_read_back_has_no_changes() {
    for template in shared::TEMPLATES {
        let spec = template.spec();
        let plan = diff(&spec, &spec);
        assert!(plan.is_empty(), "{}: {}", template.id, human(&plan));
        // The cluster as its files say it: cluster.yaml and the Karpenter file read back.
        let cluster = shared::render_cluster_yaml(&spec).unwrap();
        let mut read = shared::lint::import_yaml(&cluster).unwrap().spec;
        if let Some(karpenter) = shared::documents::render::render_karpenter_yaml(&spec).unwrap() {
            read.karpenter = shared::lint::import_yaml(&karpenter)
                .unwrap()
                .spec
                .karpenter;
        }
        // … and the chart's values, read as `helm get values` answers them.
        if let (Some(values), Some(karpenter)) = (
            shared::documents::render::render_karpenter_values(&spec).unwrap(),
            read.karpenter.as_mut(),
        ) {
            let values: serde_json::Value = yaml_serde::from_str(&values).unwrap();
            let settings = shared::changes::objects::karpenter_settings_of(&values);
            karpenter.interruption_queue = settings.interruption_queue;
            karpenter.spot_to_spot_consolidation = settings.spot_to_spot_consolidation;
            karpenter.node_repair = settings.node_repair;
            karpenter.controller_identity = spec.karpenter.as_ref().unwrap().controller_identity;
        }
        read.auto_mode_pools = spec.auto_mode_pools.clone();
        let plan = diff(&read, &spec);
        assert!(
            plan.is_empty(),
            "{} read back: {}",
            template.id,
            human(&plan)
        );
    }
    assert_eq!(
        human(&Plan::default()).lines().next(),
        Some("No changes: the cluster already is what the design says.")
    );
}

/// eksctl docs, "Scaling Managed Nodegroups": `eksctl scale nodegroup --cluster=<name>
/// --nodes=<n> --name=<ng> [--nodes-min] [--nodes-max]`.
#[test]
fn scaling_a_group_is_eksctl_scale_and_only_scaling_in_drains_nodes() {
    let before = template("g4dn");
    let out = edited(&before, |spec| {
        spec["node_groups"][1]["max_size"] = json!(8)
    });
    let grow = edited(&out, |spec| {
        spec["node_groups"][1]["desired_capacity"] = json!(4)
    });
    let plan = diff(&out, &grow);
    let change = only_change(&plan);
    assert_eq!(
        (change.kind.as_str(), change.action),
        ("nodegroup", Action::Update)
    );
    assert_eq!(change.fields, ["desiredCapacity"]);
    assert!(!change.disruptive);
    let name = before.node_groups[1].name.clone();
    assert_eq!(
        argvs(&change.steps),
        [[
            "eksctl",
            "scale",
            "nodegroup",
            "--name",
            &name,
            "--cluster",
            &before.cluster.name,
            "--region",
            &before.cluster.region,
            "--nodes=4",
            "--nodes-min=0",
            "--nodes-max=8",
            "--wait"
        ]
        .map(str::to_owned)
        .to_vec()]
        .to_vec(),
        "{}",
        human(&plan)
    );
    let plan = diff(&grow, &out);
    let change = only_change(&plan);
    assert!(change.disruptive);
    assert!(
        change.disruption.contains("scales in from 4 to 2 nodes"),
        "{}",
        change.disruption
    );
}

/// eksctl's self-managed groups (`nodeGroups`, kept as written): eksctl scales a running
/// one (`eksctl scale nodegroup` sets its Auto Scaling group, `pkg/actions/nodegroup/
/// scale.go`) and changes nothing else of it, so another change is a replacement; a new
/// one is `create nodegroup --include`, a removed one `delete nodegroup --drain`.
#[test]
fn self_managed_groups_are_scaled_created_replaced_and_deleted_as_eksctl_can() {
    let with_groups = |groups: Value| {
        edited(&template("g4dn"), |spec| {
            spec["eksctl_extra"]["nodeGroups"] = groups;
        })
    };
    let before = with_groups(json!([
        {"name": "build", "instanceType": "m5.xlarge", "minSize": 1, "maxSize": 4},
        {"name": "legacy", "instanceType": "c5.large", "taints": {"legacy": "true:NoSchedule"}}
    ]));
    assert!(diff(&before, &before).is_empty());
    // eksctl's defaults and the same sizes written out are no change.
    let spelled = with_groups(json!([
        {"name": "build", "instanceType": "m5.xlarge", "minSize": 1, "desiredCapacity": 1, "maxSize": 4},
        {"name": "legacy", "instanceType": "c5.large", "minSize": 2, "maxSize": 2,
         "taints": {"legacy": "true:NoSchedule"}}
    ]));
    assert!(
        diff(&before, &spelled).is_empty(),
        "{}",
        human(&diff(&before, &spelled))
    );

    let scaled_in = with_groups(json!([
        {"name": "build", "instanceType": "m5.xlarge", "minSize": 0, "desiredCapacity": 0, "maxSize": 4},
        {"name": "legacy", "instanceType": "c5.large", "taints": {"legacy": "true:NoSchedule"}}
    ]));
    let plan = diff(&before, &scaled_in);
    let change = only_change(&plan);
    assert_eq!(change.action, Action::Update);
    assert_eq!(
        change.steps[0].argv()[..4],
        ["eksctl", "scale", "nodegroup", "--name"]
    );
    assert!(change.steps[0].argv().contains(&"--nodes=0".to_owned()));
    assert!(
        change
            .disruption
            .contains("the Auto Scaling group terminates 1 of them, undrained"),
        "{}",
        change.disruption
    );

    let changed = with_groups(json!([
        {"name": "build", "instanceType": "m5.2xlarge", "minSize": 1, "maxSize": 4},
        {"name": "tools", "instanceType": "t3.large"}
    ]));
    let plan = diff(&before, &changed);
    let action = |name: &str| {
        plan.changes
            .iter()
            .find(|change| change.name == name)
            .map(|change| change.action)
    };
    assert_eq!(action("build"), Some(Action::Replace), "{}", human(&plan));
    assert_eq!(action("tools"), Some(Action::Create));
    assert_eq!(action("legacy"), Some(Action::Delete));
    let replaced = plan
        .changes
        .iter()
        .find(|change| change.name == "build")
        .unwrap();
    assert_eq!(replaced.fields, ["instanceType"]);
    // eksctl cannot make a second `build`: its pods wait on an interim group meanwhile.
    assert_eq!(
        verbs_of(replaced),
        [
            "create build-interim from cluster-interim.yaml",
            "delete build",
            "create build from cluster.yaml",
            "delete build-interim",
        ]
    );
    let interim = shared::changes::apply::interim_file(&plan, &changed)
        .unwrap()
        .expect("the interim group's file");
    let interim: Value = yaml_serde::from_str(&interim).unwrap();
    assert_eq!(
        interim["nodeGroups"],
        json!([{"name": "build-interim", "instanceType": "m5.2xlarge", "minSize": 1, "maxSize": 4}])
    );
    assert!(
        interim
            .get("managedNodeGroups")
            .is_none_or(|groups| groups == &json!([]))
    );
    assert_eq!(interim["metadata"]["name"], json!(changed.cluster.name));
    assert!(
        rules_of(&plan).contains(&"change-nodegroup-replaced-under-its-name"),
        "{:?}",
        rules_of(&plan)
    );
}

/// Each eksctl step of a change in short: `delete NAME`, `create NAME from FILE`.
fn verbs_of(change: &shared::changes::Change) -> Vec<String> {
    argvs(&change.steps)
        .iter()
        .map(|step| {
            let after = |flag: &str| {
                step.iter()
                    .position(|arg| arg == flag)
                    .map(|at| step[at + 1].clone())
                    .unwrap_or_default()
            };
            match step[1].as_str() {
                "create" => format!(
                    "create {} from {}",
                    after("--include"),
                    after("--config-file")
                ),
                verb => format!("{verb} {}", after("--name")),
            }
        })
        .collect()
}

/// A managed group EKS cannot change in place keeps its name: its pods move to an interim
/// group made with the new settings, so they always have somewhere to run. An apply that
/// stopped after making the interim group leaves it running, and the next plan carries
/// on with it rather than making a second one; a design that names the interim name
/// itself gets another.
#[test]
fn a_replacement_under_the_same_name_moves_the_pods_through_an_interim_group() {
    let before = template("g4dn");
    let name = before.node_groups[0].name.clone();
    let after = edited(&before, |spec| {
        spec["node_groups"][0]["instance_type"] = json!("g5.2xlarge")
    });
    let plan = diff(&before, &after);
    let change = only_change(&plan);
    assert_eq!(change.action, Action::Replace);
    let interim = format!("{name}-interim");
    assert_eq!(
        verbs_of(change),
        [
            format!("create {interim} from cluster-interim.yaml"),
            format!("delete {name}"),
            format!("create {name} from cluster.yaml"),
            format!("delete {interim}"),
        ]
    );
    assert!(
        change
            .disruption
            .contains(&format!("onto interim group `{interim}`")),
        "{}",
        change.disruption
    );
    let file: Value = yaml_serde::from_str(
        &shared::changes::apply::interim_file(&plan, &after)
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    let groups = file["managedNodeGroups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{file}");
    assert_eq!(groups[0]["name"], json!(interim));
    assert_eq!(groups[0]["instanceType"], json!("g5.2xlarge"));
    // The design's own group under the interim name, every other key as the design has it.
    let design: Value =
        yaml_serde::from_str(&shared::render_cluster_yaml(&after).unwrap()).unwrap();
    let mut own = design["managedNodeGroups"][0].clone();
    own["name"] = json!(interim);
    assert_eq!(groups[0], own);
    // The bundle's steps: the interim file is read by the first step only.
    let steps = shared::changes::apply::apply_steps(&plan, "c", "us-east-1");
    assert_eq!(steps[0].step.args[3], "cluster-interim.yaml");
    assert!(
        steps[1].disruption.is_some(),
        "the first drain is consented to"
    );

    // Half-way: the interim group runs beside the old one. Carried on, not made again.
    let half_way = edited(&before, |spec| {
        let mut interim_group = spec["node_groups"][0].clone();
        interim_group["name"] = json!(interim);
        interim_group["instance_type"] = json!("g5.2xlarge");
        spec["node_groups"]
            .as_array_mut()
            .unwrap()
            .push(interim_group);
    });
    let plan = diff(&half_way, &after);
    let change = only_change(&plan);
    assert_eq!(
        verbs_of(change),
        [
            format!("delete {name}"),
            format!("create {name} from cluster.yaml"),
            format!("delete {interim}"),
        ]
    );
    assert!(
        shared::changes::apply::interim_file(&plan, &after)
            .unwrap()
            .is_none()
    );

    // The design names `NAME-interim` itself: the interim group is `NAME-interim-2`.
    let named = |spec: &mut Value| {
        let mut extra = spec["node_groups"][0].clone();
        extra["name"] = json!(format!("{name}-interim"));
        extra["instance_type"] = json!("m5.large");
        spec["node_groups"].as_array_mut().unwrap().push(extra);
    };
    let before_named = edited(&before, named);
    let after_named = edited(&after, named);
    let plan = diff(&before_named, &after_named);
    let change = only_change(&plan);
    assert_eq!(
        verbs_of(change)[0],
        format!("create {name}-interim-2 from cluster-interim.yaml")
    );

    // A self-managed group of the cluster has the name: not taken over, not clashed with.
    let other_kind = edited(&before, |spec| {
        spec["eksctl_extra"]["nodeGroups"] =
            json!([{"name": format!("{name}-interim"), "instanceType": "m5.large"}]);
    });
    let plan = diff(&other_kind, &after);
    let replaced = plan
        .changes
        .iter()
        .find(|change| change.action == Action::Replace)
        .unwrap();
    assert_eq!(
        verbs_of(replaced)[0],
        format!("create {name}-interim-2 from cluster-interim.yaml")
    );
    assert!(
        plan.changes
            .iter()
            .any(|change| change.action == Action::Delete && change.name == interim),
        "{}",
        human(&plan)
    );
}

/// eksctl upgrades managed node groups only (pkg/actions/nodegroup/upgrade.go): a kept
/// self-managed group stays on its AMI through the control plane's upgrade, and the plan
/// says so at the group; one it replaces anyway comes back on the new version.
#[test]
fn an_upgrade_says_which_self_managed_groups_keep_their_nodes() {
    let with = |version: &str, build_type: &str| {
        edited(&template("g4dn"), |spec| {
            spec["cluster"]["kubernetes_version"] = json!(version);
            spec["eksctl_extra"]["nodeGroups"] = json!([
                {"name": "build", "instanceType": build_type, "minSize": 1, "maxSize": 4},
                {"name": "legacy", "instanceType": "c5.large"}
            ]);
        })
    };
    let before = with("1.33", "m5.xlarge");
    let kept = |plan: &Plan| {
        plan.findings
            .iter()
            .filter(|finding| finding.rule == "change-self-managed-keeps-version")
            .map(|finding| finding.path.clone())
            .collect::<Vec<_>>()
    };
    assert!(kept(&diff(&before, &with("1.33", "m5.xlarge"))).is_empty());
    let plan = diff(&before, &with("1.34", "m5.xlarge"));
    assert_eq!(kept(&plan), ["nodeGroups[build]", "nodeGroups[legacy]"]);
    let finding = plan
        .findings
        .iter()
        .find(|finding| finding.rule == "change-self-managed-keeps-version")
        .unwrap();
    assert!(
        finding.message.contains("Kubernetes 1.34") && finding.message.contains("Kubernetes 1.33"),
        "{}",
        finding.message
    );
    // No step upgrades a self-managed group: eksctl has none.
    assert!(
        plan.changes
            .iter()
            .all(|change| change.name != "build" && change.name != "legacy"),
        "{}",
        human(&plan)
    );
    // A group replaced in the same plan is made again after the control plane.
    let plan = diff(&before, &with("1.34", "m5.2xlarge"));
    assert_eq!(kept(&plan), ["nodeGroups[legacy]"]);
}

/// eksctl docs, "Creating a nodegroup from a config file": `eksctl create nodegroup
/// --config-file=<path> --include=<name>`; `eksctl delete nodegroup` drains first.
#[test]
fn a_new_group_is_created_from_the_file_and_a_removed_one_drained_and_deleted() {
    let before = template("g4dn");
    let after = edited(&before, |spec| {
        let mut group = spec["node_groups"][1].clone();
        group["name"] = json!("gpu-2");
        spec["node_groups"].as_array_mut().unwrap().push(group);
    });
    let plan = diff(&before, &after);
    let change = only_change(&plan);
    assert_eq!(
        (change.action, change.name.as_str()),
        (Action::Create, "gpu-2")
    );
    assert_eq!(
        change.steps[0].argv(),
        [
            "eksctl",
            "create",
            "nodegroup",
            "--config-file",
            "cluster.yaml",
            "--include",
            "gpu-2"
        ]
    );
    let plan = diff(&after, &before);
    let change = only_change(&plan);
    assert_eq!(
        (change.action, change.name.as_str()),
        (Action::Delete, "gpu-2")
    );
    assert!(change.disruptive);
    assert!(
        change.disruption.starts_with("drains 2 g4dn.8xlarge nodes"),
        "{}",
        change.disruption
    );
    assert!(change.steps[0].argv().contains(&"--drain=true".to_owned()));
}

/// A renamed group (the blue/green way eksctl's docs advise for changes a managed node
/// group cannot take): the new one is created before the old one is drained.
#[test]
fn a_renamed_group_is_created_before_the_old_one_is_drained() {
    let before = template("p5-odcr-vpc");
    let after = edited(&before, |spec| {
        spec["node_groups"][0]["name"] = json!("p5-v2");
        spec["node_groups"][0]["instance_type"] = json!("p5en.48xlarge");
    });
    let plan = diff(&before, &after);
    let actions: Vec<(Action, &str)> = plan
        .changes
        .iter()
        .map(|change| (change.action, change.name.as_str()))
        .collect();
    let old_name = before.node_groups[0].name.clone();
    assert_eq!(
        actions,
        [
            (Action::Create, "p5-v2"),
            (Action::Delete, old_name.as_str())
        ]
    );
    assert!(
        rules_of(&plan).contains(&"change-nodegroup-leaves-reservation"),
        "{}",
        human(&plan)
    );
}

/// EKS's CreateNodegroup fixes the instance types, AMI type, capacity type and subnets;
/// UpdateNodegroupConfig changes labels, taints, scaling and update settings only.
#[test]
fn a_changed_instance_type_under_the_same_name_is_a_replacement_that_drains_first() {
    let before = template("p5-odcr-vpc");
    let after = edited(&before, |spec| {
        spec["node_groups"][0]["instance_type"] = json!("p5en.48xlarge")
    });
    let plan = diff(&before, &after);
    let change = only_change(&plan);
    assert_eq!(change.action, Action::Replace);
    assert_eq!(change.fields, ["instanceType"]);
    assert!(change.disruptive);
    assert_eq!(
        change.steps[0].argv()[1..3],
        ["delete", "nodegroup"].map(str::to_owned)
    );
    assert_eq!(
        change.steps[1].argv()[1..3],
        ["create", "nodegroup"].map(str::to_owned)
    );
    assert_eq!(
        rules_of(&plan),
        [
            "change-nodegroup-replaced-under-its-name",
            "change-nodegroup-leaves-reservation"
        ]
    );
    assert!(human(&plan).contains("-/+ nodegroup"), "{}", human(&plan));
}

#[test]
fn labels_and_taints_change_in_place_through_update_nodegroup_config() {
    let before = template("g4dn");
    let after = edited(&before, |spec| {
        spec["node_groups"][0]["labels"] = json!({ "team": "vision" });
    });
    let plan = diff(&before, &after);
    let change = only_change(&plan);
    assert_eq!(
        (change.action, change.fields.as_slice()),
        (Action::Update, ["labels".to_owned()].as_slice())
    );
    let step = &change.steps[0].argv();
    assert_eq!(
        step[..3],
        ["aws", "eks", "update-nodegroup-config"].map(str::to_owned)
    );
    let labels = &step[step.iter().position(|word| word == "--labels").unwrap() + 1];
    let labels: Value = serde_json::from_str(labels).unwrap();
    assert_eq!(labels["addOrUpdateLabels"]["team"], "vision");
}

/// `eksctl upgrade nodegroup --release-version` (pkg/ctl/upgrade/nodegroup.go) rolls a
/// managed group to another EKS-optimized AMI release in place.
#[test]
fn a_new_ami_release_is_an_upgrade_in_place_that_rolls_the_nodes() {
    let release = |version: &str| {
        edited(&template("g4dn"), |spec| {
            spec["node_groups"][0]["extra"]["releaseVersion"] = json!(version)
        })
    };
    let plan = diff(&release("1.35.0-20251101"), &release("1.35.0-20251201"));
    let change = only_change(&plan);
    assert_eq!(change.action, Action::Update);
    assert_eq!(change.fields, ["releaseVersion"]);
    assert!(change.disruptive && change.disruption.contains("AMI release 1.35.0-20251201"));
    assert_eq!(
        change.steps[0].argv()[..7],
        [
            "eksctl",
            "upgrade",
            "nodegroup",
            "--name",
            "sys",
            "--release-version",
            "1.35.0-20251201"
        ]
        .map(str::to_owned)
    );
}

#[test]
fn a_replacement_names_only_the_fields_the_running_group_cannot_take_as_its_reason() {
    let before = template("g4dn");
    let after = edited(&before, |spec| {
        spec["node_groups"][0]["labels"] = json!({ "team": "vision" });
        spec["node_groups"][0]["max_size"] = json!(9);
        spec["node_groups"][0]["instance_type"] = json!("g6.12xlarge");
    });
    let plan = diff(&before, &after);
    let change = only_change(&plan);
    assert_eq!(change.action, Action::Replace);
    let reason = &plan
        .findings
        .iter()
        .find(|finding| finding.rule == "change-nodegroup-replaced-under-its-name")
        .unwrap()
        .message;
    // UpdateNodegroupConfig takes labels and eksctl scale takes sizes: only the type is
    // what EKS fixes at creation.
    assert!(
        reason.starts_with("instanceType of node group `")
            && reason.contains("(labels, maxSize change with it, on the new group)"),
        "{reason}"
    );
}

/// The cluster's settings eksctl changes on a running cluster, each with its command
/// (`eksctl utils` and `eksctl update`, pkg/ctl at 99984adb), and the ones EKS keeps.
#[test]
fn cluster_settings_change_with_eksctl_s_own_commands_and_eks_s_one_way_ones_are_refused() {
    let before = edited(&template("g4dn"), |spec| {
        spec["cluster"]["with_oidc"] = json!(false)
    });
    let cluster_steps = |after: &Spec| -> (Vec<Vec<String>>, Vec<String>, String) {
        let plan = diff(&before, after);
        let rules = rules_of(&plan)
            .iter()
            .map(|rule| (*rule).to_owned())
            .collect();
        let cluster = plan.changes.iter().find(|change| change.kind == "cluster");
        (
            cluster
                .map(|change| argvs(&change.steps))
                .unwrap_or_default(),
            rules,
            cluster
                .map(|change| change.disruption.clone())
                .unwrap_or_default(),
        )
    };
    let words = |steps: &[Vec<String>]| -> Vec<String> {
        steps.iter().map(|step| step[..3].join(" ")).collect()
    };

    // The IAM OIDC provider: added by eksctl, never removed by it.
    let with_oidc = edited(&before, |spec| spec["cluster"]["with_oidc"] = json!(true));
    let (steps, rules, _) = cluster_steps(&with_oidc);
    assert_eq!(words(&steps), ["eksctl utils associate-iam-oidc-provider"]);
    assert!(rules.is_empty(), "{rules:?}");
    let plan = diff(&with_oidc, &before);
    assert_eq!(rules_of(&plan), ["change-no-step"]);

    // Secrets encryption: turned on once, then kept with its key.
    let key =
        |name: &str| json!({ "keyARN": format!("arn:aws:kms:us-west-2:111122223333:key/{name}") });
    let encrypted = edited(&before, |spec| {
        spec["eksctl_extra"]["secretsEncryption"] = key("a")
    });
    let (steps, _, _) = cluster_steps(&encrypted);
    assert_eq!(words(&steps), ["eksctl utils enable-secrets-encryption"]);
    let rekeyed = edited(&before, |spec| {
        spec["eksctl_extra"]["secretsEncryption"] = key("b")
    });
    let plan = diff(&encrypted, &rekeyed);
    assert_eq!(rules_of(&plan), ["change-secrets-encryption-fixed"]);
    assert!(
        plan.findings[0]
            .message
            .contains("changing the key is not supported")
    );
    assert_eq!(
        rules_of(&diff(&encrypted, &before)),
        ["change-secrets-encryption-fixed"]
    );

    // The authentication mode moves one way, one mode at a time; eksctl's default is
    // API_AND_CONFIG_MAP, so writing it out is no change.
    let mode = |mode: &str| {
        edited(&before, |spec| {
            spec["cluster"]["access"]["authentication_mode"] = json!(mode)
        })
    };
    let modes = |steps: &[Vec<String>]| -> Vec<String> {
        steps
            .iter()
            .map(|step| {
                step[step
                    .iter()
                    .position(|word| word == "--authentication-mode")
                    .unwrap()
                    + 1]
                .clone()
            })
            .collect()
    };
    let plan = diff(&mode("CONFIG_MAP"), &mode("API"));
    assert_eq!(
        modes(&argvs(&only_change(&plan).steps)),
        ["API_AND_CONFIG_MAP", "API"]
    );
    let plan = diff(&mode("API"), &mode("API_AND_CONFIG_MAP"));
    assert_eq!(rules_of(&plan), ["change-authentication-mode-back"]);
    assert!(only_change(&plan).steps.is_empty());
    assert_eq!(
        rules_of(&diff(&mode("API"), &mode("CONFIG_MAP"))),
        ["change-authentication-mode-back"]
    );
    assert!(
        diff(&mode("API_AND_CONFIG_MAP"), &mode(""))
            .changes
            .is_empty()
    );

    // EKS Auto Mode: eksctl update auto-mode-config; turning it off ends its instances.
    let auto_mode = edited(&before, |spec| {
        spec["cluster"]["auto_mode"]["enabled"] = json!(true)
    });
    let plan = diff(&before, &auto_mode);
    let change = plan
        .changes
        .iter()
        .find(|change| change.kind == "cluster")
        .unwrap();
    assert_eq!(
        words(&argvs(&change.steps)),
        ["eksctl update auto-mode-config"]
    );
    assert!(!change.disruptive);
    let plan = diff(&auto_mode, &before);
    let change = plan
        .changes
        .iter()
        .find(|change| change.kind == "cluster")
        .unwrap();
    assert!(
        change.disruptive
            && change
                .disruption
                .contains("terminates every instance Auto Mode runs")
    );

    // The control plane's components: one command for the three.
    let components = edited(&before, |spec| {
        spec["eksctl_extra"]["kubeAPIServerConfig"] = json!({ "eventTTL": "2h" });
        spec["eksctl_extra"]["kubeSchedulerConfig"] = json!({ "scoringStrategy": "MostAllocated" });
    });
    let (steps, _, _) = cluster_steps(&components);
    assert_eq!(
        words(&steps),
        ["eksctl utils update-control-plane-component-config"]
    );

    // Zonal shift.
    let shifted = edited(&before, |spec| {
        spec["eksctl_extra"]["zonalShiftConfig"] = json!({ "enabled": true })
    });
    let (steps, _, disruption) = cluster_steps(&shifted);
    assert_eq!(words(&steps), ["eksctl utils update-zonal-shift-config"]);
    assert!(disruption.is_empty());
}

/// IAM roles for service accounts: eksctl create | update iamserviceaccount from the file
/// (`--include NAMESPACE/NAME`), delete by name (pkg/ctl/*/iamserviceaccount.go).
#[test]
fn service_account_roles_are_created_updated_and_deleted_by_namespace_and_name() {
    let before = template("g4dn");
    let with_role = |policy: &str| {
        edited(&before, |spec| {
            spec["eksctl_extra"]["iam"]["serviceAccounts"] = json!([{
                "metadata": { "name": "trainer", "namespace": "ml" },
                "attachPolicyARNs": [format!("arn:aws:iam::aws:policy/{policy}")]
            }])
        })
    };
    let verbs = |plan: &Plan| -> Vec<(Action, String)> {
        plan.changes
            .iter()
            .filter(|change| change.kind == "iamserviceaccount")
            .map(|change| (change.action, change.steps[0].argv()[1].clone()))
            .collect()
    };
    let read_only = with_role("AmazonS3ReadOnlyAccess");
    let plan = diff(&before, &read_only);
    assert_eq!(verbs(&plan), [(Action::Create, "create".to_owned())]);
    assert!(
        plan.changes[0].steps[0]
            .argv()
            .contains(&"ml/trainer".to_owned())
    );
    let plan = diff(&read_only, &with_role("AmazonS3FullAccess"));
    assert_eq!(verbs(&plan), [(Action::Update, "update".to_owned())]);
    let plan = diff(&read_only, &before);
    assert_eq!(verbs(&plan), [(Action::Delete, "delete".to_owned())]);
}

/// `eksctl upgrade cluster` moves the control plane one minor version at a time, then
/// `eksctl upgrade nodegroup --kubernetes-version` rolls each group's nodes.
#[test]
fn a_version_upgrade_goes_one_minor_at_a_time_a_rollback_is_one_minor_and_more_is_refused() {
    let before = edited(&template("g4dn"), |spec| {
        spec["cluster"]["kubernetes_version"] = json!("1.33")
    });
    let after = edited(&before, |spec| {
        spec["cluster"]["kubernetes_version"] = json!("1.35")
    });
    let plan = diff(&before, &after);
    let change = &plan.changes[0];
    assert_eq!(
        (change.kind.as_str(), change.action),
        ("cluster", Action::Update)
    );
    let steps = argvs(&change.steps);
    let versions: Vec<&str> = steps
        .iter()
        .map(|step| {
            assert_eq!(&step[..3], ["eksctl", "upgrade", "cluster"]);
            step[step.iter().position(|word| word == "--version").unwrap() + 1].as_str()
        })
        .collect();
    assert_eq!(versions, ["1.34", "1.35"]);
    assert!(!change.disruptive, "the control plane upgrades in place");
    // Then each node group, on its own, rolling its nodes to 1.35.
    let groups: Vec<&str> = plan.changes[1..]
        .iter()
        .map(|change| {
            assert_eq!(
                (change.kind.as_str(), change.action),
                ("nodegroup", Action::Update)
            );
            assert_eq!(change.fields, ["version"]);
            assert!(change.disruptive);
            assert_eq!(
                &change.steps[0].argv()[..3],
                ["eksctl", "upgrade", "nodegroup"]
            );
            assert!(
                change.steps[0]
                    .argv()
                    .ends_with(&["--kubernetes-version".to_owned(), "1.35".to_owned()])
            );
            change.name.as_str()
        })
        .collect();
    let names: Vec<&str> = after
        .node_groups
        .iter()
        .map(|group| group.name.as_str())
        .collect();
    assert_eq!(groups, names);
    assert_eq!(rules_of(&plan), ["change-version-skips-minor"]);
    assert!(!plan.refused());
    // Two minor versions down: eksctl refuses it (versions_manager.go).
    let plan = diff(&after, &before);
    assert_eq!(rules_of(&plan), ["change-version-lowered"]);
    assert!(plan.refused());
    assert!(
        plan.findings[0]
            .message
            .contains("downgrading more than one version at a time is not supported"),
        "{}",
        plan.findings[0].message
    );
    // One minor version down: EKS's rollback, the managed node groups first.
    let previous = edited(&after, |spec| {
        spec["cluster"]["kubernetes_version"] = json!("1.34")
    });
    let plan = diff(&after, &previous);
    assert_eq!(rules_of(&plan), ["change-version-rollback"]);
    assert!(!plan.refused());
    let change = only_change(&plan);
    let steps = argvs(&change.steps);
    let last = steps.last().unwrap();
    assert_eq!(&last[..3], ["eksctl", "upgrade", "cluster"]);
    assert!(last.contains(&"1.34".to_owned()));
    let rolled_back: Vec<&str> = steps[..steps.len() - 1]
        .iter()
        .map(|step| {
            assert_eq!(&step[..3], ["aws", "eks", "update-nodegroup-version"]);
            step[step
                .iter()
                .position(|word| word == "--nodegroup-name")
                .unwrap()
                + 1]
            .as_str()
        })
        .collect();
    let groups: Vec<&str> = after
        .node_groups
        .iter()
        .map(|group| group.name.as_str())
        .collect();
    assert_eq!(rolled_back, groups);
    assert!(change.disruptive);
}

#[test]
fn subnets_of_the_running_cluster_s_vpc_are_no_refusal() {
    let before = template("g4dn-vpc");
    let after = edited(&before, |spec| {
        spec["network"]["private_subnets"][0]["id"] = json!("subnet-0fedcba9876543210")
    });
    let plan = diff(&before, &after);
    assert!(!plan.refused(), "{}", human(&plan));
    assert!(
        rules_of(&plan).iter().all(|rule| *rule == "change-no-step"),
        "{}",
        human(&plan)
    );
}

#[test]
fn another_vpc_or_another_cluster_is_refused() {
    let before = template("g4dn-vpc");
    let after = edited(&before, |spec| {
        spec["network"]["vpc_id"] = json!("vpc-0fedcba9876543210")
    });
    let plan = diff(&before, &after);
    assert_eq!(rules_of(&plan), ["change-cluster-network"]);
    assert!(plan.refused());
    let renamed = edited(&before, |spec| spec["cluster"]["name"] = json!("another"));
    let plan = diff(&before, &renamed);
    assert_eq!(rules_of(&plan), ["change-another-cluster"]);
    assert!(plan.changes.is_empty());
}

/// eksctl docs, "Addons": `eksctl create addon`, `eksctl update addon --version`,
/// `eksctl delete addon`.
#[test]
fn add_ons_are_created_updated_to_a_version_and_deleted_by_name() {
    let before = template("g5-node-autorepair");
    let name = before.addons[0].name.clone();
    let after = edited(&before, |spec| {
        spec["addons"][0]["extra"] = json!({ "version": "v1.2.0-eksbuild.1" })
    });
    let plan = diff(&before, &after);
    let change = only_change(&plan);
    assert_eq!(
        (change.kind.as_str(), change.action),
        ("addon", Action::Update)
    );
    assert_eq!(
        change.steps[0].argv()[..4],
        ["eksctl", "update", "addon", "--name"].map(str::to_owned)
    );
    assert!(
        change.steps[0]
            .argv()
            .contains(&"--version=v1.2.0-eksbuild.1".to_owned())
    );
    let removed = edited(&before, |spec| {
        spec["addons"].as_array_mut().unwrap().remove(0);
    });
    let plan = diff(&before, &removed);
    let change = only_change(&plan);
    assert_eq!(
        (change.action, change.name.as_str()),
        (Action::Delete, name.as_str())
    );
    let plan = diff(&removed, &before);
    assert_eq!(only_change(&plan).action, Action::Create);
}

/// Karpenter's docs, "Disruption › Drift": a changed `spec.template` of a NodePool (or an
/// EC2NodeClass's AMI, subnets, security groups) replaces the nodes; limits and
/// disruption settings do not.
/// Karpenter's template hash (`NodePool.Hash`, pkg/apis/v1) leaves the requirements out
/// (`hash:"ignore"`): widened requirements drift no node, narrowed ones only the nodes
/// whose labels no longer meet them, and a hashed field (a label, `expireAfter`) every node.
#[test]
fn a_widened_nodepool_drifts_no_node_and_a_hashed_field_drifts_every_node() {
    let before = template("karpenter-spot-inference");
    let requirement_values = |spec: &Value| -> (usize, Vec<Value>) {
        let requirements =
            spec["karpenter"]["node_pools"][0]["spec"]["template"]["spec"]["requirements"]
                .as_array()
                .unwrap();
        let index = requirements
            .iter()
            .position(|requirement| requirement["operator"] == "In")
            .unwrap();
        (
            index,
            requirements[index]["values"].as_array().unwrap().clone(),
        )
    };
    let widened = edited(&before, |spec| {
        let (index, mut values) = requirement_values(spec);
        values.push(json!("zz-widened"));
        spec["karpenter"]["node_pools"][0]["spec"]["template"]["spec"]["requirements"][index]["values"] =
            json!(values);
    });
    let plan = diff(&before, &widened);
    let change = only_change(&plan);
    assert_eq!(change.action, Action::Update);
    assert!(!change.disruptive, "{}", human(&plan));

    let plan = diff(&widened, &before);
    let change = only_change(&plan);
    assert!(change.disruptive);
    assert!(
        change
            .disruption
            .contains("whose labels no longer meet its requirements"),
        "{}",
        change.disruption
    );

    let expiring = edited(&before, |spec| {
        spec["karpenter"]["node_pools"][0]["spec"]["template"]["spec"]["expireAfter"] =
            json!("24h");
    });
    let change = diff(&before, &expiring).changes.remove(0);
    assert!(change.disruptive && change.disruption.contains("drifted and replaces them"));
}

#[test]
fn a_tightened_nodepool_drifts_its_nodes_and_its_limits_do_not() {
    let before = template("karpenter-spot-inference");
    let requirements = edited(&before, |spec| {
        let requirements =
            &mut spec["karpenter"]["node_pools"][0]["spec"]["template"]["spec"]["requirements"];
        requirements.as_array_mut().unwrap().push(json!({
            "key": "karpenter.k8s.aws/instance-generation",
            "operator": "Gt",
            "values": ["5"]
        }));
    });
    let plan = diff(&before, &requirements);
    let change = only_change(&plan);
    assert_eq!(
        (change.kind.as_str(), change.action),
        ("NodePool", Action::Update)
    );
    assert!(change.disruptive, "{}", human(&plan));
    assert!(change.disruption.contains("drifted"));
    assert_eq!(
        change.steps[0].argv(),
        [
            "kubectl",
            "apply",
            "--server-side",
            "--field-manager=eks-studio",
            "-f",
            "karpenter/nodepools.yaml"
        ]
    );
    let limits = edited(&before, |spec| {
        spec["karpenter"]["node_pools"][0]["spec"]["limits"] = json!({ "nvidia.com/gpu": "64" });
    });
    let plan = diff(&before, &limits);
    let change = only_change(&plan);
    assert_eq!(change.fields, ["spec.limits"]);
    assert!(!change.disruptive);
    let pool = before.karpenter.as_ref().unwrap().node_pools[0]
        .metadata
        .name
        .clone();
    let gone = edited(&before, |spec| {
        spec["karpenter"]["node_pools"]
            .as_array_mut()
            .unwrap()
            .remove(0);
    });
    let plan = diff(&before, &gone);
    let deleted = plan
        .changes
        .iter()
        .find(|change| change.kind == "NodePool")
        .unwrap();
    assert_eq!(
        deleted.steps[0].argv(),
        [
            "kubectl",
            "delete",
            &format!("nodepool.karpenter.sh/{pool}")
        ],
        "one word, KIND.GROUP/NAME: a name is never read as a flag"
    );
    assert!(deleted.disruptive);
}

#[test]
fn a_nodepool_switched_between_static_and_dynamic_is_refused() {
    let before = template("karpenter-static-capacity-block");
    let after = edited(&before, |spec| {
        spec["karpenter"]["node_pools"][0]["spec"]
            .as_object_mut()
            .unwrap()
            .remove("replicas");
    });
    let plan = diff(&before, &after);
    assert_eq!(
        rules_of(&plan),
        ["change-nodepool-static-dynamic"],
        "{}",
        human(&plan)
    );
    assert!(plan.refused());
}

#[test]
fn the_human_plan_reads_like_terraform_with_a_summary() {
    let before = template("g4dn");
    let after = edited(&before, |spec| {
        spec["node_groups"][1]["instance_type"] = json!("g5.12xlarge");
        let mut group = spec["node_groups"][0].clone();
        group["name"] = json!("cpu");
        group["instance_type"] = json!("m7i.large");
        spec["node_groups"].as_array_mut().unwrap().push(group);
    });
    let text = human(&diff(&before, &after));
    assert!(text.contains("  + nodegroup cpu\n"), "{text}");
    assert!(text.contains("-/+ nodegroup"), "{text}");
    assert!(
        text.contains(
            "      $ eksctl create nodegroup --config-file cluster.yaml --include cpu    # waits up to 25m\n"
        ),
        "{text}"
    );
    assert!(
        text.ends_with(
            "Plan: 1 to create, 0 to update, 1 to replace, 0 to delete; 1 disrupts running pods.\n"
        ),
        "{text}"
    );
}

/// A cluster as EKS describes it, read into a design: EKS's spellings become eksctl's,
/// what EKS makes itself (node role access entries, eksctl's labels and tags) is left
/// out, an add-on's own Pod Identity associations stay with it, and what EKS does not
/// hold is said.
#[test]
fn a_running_cluster_reads_as_the_cluster_config_eksctl_was_given() {
    use shared::changes::read::design_of;
    use shared::upstream::eks::*;
    let node_role = "arn:aws:iam::123456789012:role/eksctl-train-nodegroup-gpu-NodeInstanceRole";
    let running = RunningCluster {
        self_managed: None,
        region: "us-east-2".into(),
        cluster: EksCluster {
            name: "train".into(),
            version: "1.35".into(),
            tags: [
                ("alpha.eksctl.io/cluster-name", "train"),
                ("alpha.eksctl.io/cluster-oidc-enabled", "true"),
                ("team", "ml"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
            vpc_id: "vpc-1".into(),
            subnet_ids: vec![
                "subnet-a".into(),
                "subnet-b".into(),
                "subnet-c".into(),
                "subnet-d".into(),
            ],
            authentication_mode: Some("API".into()),
            ..EksCluster::default()
        },
        subnets: [
            ("subnet-a", "us-east-2a", true),
            ("subnet-b", "us-east-2b", true),
            ("subnet-c", "us-east-2a", false),
            ("subnet-d", "us-east-2b", false),
        ]
        .into_iter()
        .map(|(id, zone, public)| RunningSubnet {
            id: id.into(),
            availability_zone: zone.into(),
            public,
            eksctl_cluster: Some("train".into()),
        })
        .collect(),
        node_groups: vec![EksNodegroup {
            name: "gpu".into(),
            instance_types: vec!["p5.48xlarge".into()],
            ami_type: "BOTTLEROCKET_x86_64_NVIDIA".into(),
            capacity_type: "CAPACITY_BLOCK".into(),
            min_size: 0,
            max_size: 4,
            desired_size: 2,
            labels: [("alpha.eksctl.io/nodegroup-name", "gpu"), ("role", "train")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            taints: vec![EksTaint {
                key: "nvidia.com/gpu".into(),
                value: None,
                effect: "NO_SCHEDULE".into(),
            }],
            subnets: vec!["subnet-d".into()],
            launch_template: Some(LaunchTemplateFacts {
                efa: true,
                capacity_reservation_id: Some("cr-1".into()),
                market_type: Some("capacity-block".into()),
                ..LaunchTemplateFacts::default()
            }),
            node_role: node_role.into(),
            ..EksNodegroup::default()
        }],
        addons: vec![EksAddon {
            name: "vpc-cni".into(),
            version: "v1.20.0-eksbuild.1".into(),
            arn: "arn:aws:eks:us-east-2:123456789012:addon/train/vpc-cni/x".into(),
            ..EksAddon::default()
        }],
        access_entries: vec![
            EksAccessEntry {
                principal_arn: node_role.into(),
                entry_type: "EC2_LINUX".into(),
                ..EksAccessEntry::default()
            },
            EksAccessEntry {
                principal_arn: "arn:aws:iam::123456789012:role/Admin".into(),
                entry_type: "STANDARD".into(),
                username: "arn:aws:sts::123456789012:assumed-role/Admin/{{SessionName}}".into(),
                policies: vec![EksAccessPolicy {
                    policy_arn:
                        "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy".into(),
                    scope: "cluster".into(),
                    namespaces: Vec::new(),
                }],
                ..EksAccessEntry::default()
            },
        ],
        pod_identity_associations: vec![
            EksPodIdentityAssociation {
                namespace: "kube-system".into(),
                service_account: "aws-node".into(),
                role_arn: "arn:aws:iam::123456789012:role/cni".into(),
                owner_arn: Some("arn:aws:eks:us-east-2:123456789012:addon/train/vpc-cni/x".into()),
            },
            EksPodIdentityAssociation {
                namespace: "ml".into(),
                service_account: "trainer".into(),
                role_arn: "arn:aws:iam::123456789012:role/trainer".into(),
                owner_arn: None,
            },
        ],
        not_read: Vec::new(),
    };
    let reading = design_of(&running).unwrap();
    let config = serde_json::to_value(&reading.cluster_config).unwrap();
    assert_eq!(config["metadata"]["tags"], json!({"team": "ml"}));
    assert_eq!(
        config["availabilityZones"],
        json!(["us-east-2a", "us-east-2b"])
    );
    assert_eq!(config["iam"]["withOIDC"], true);
    assert_eq!(
        config["iam"]["podIdentityAssociations"],
        json!([{"namespace": "ml", "serviceAccountName": "trainer", "roleARN": "arn:aws:iam::123456789012:role/trainer"}])
    );
    let gpu = &config["managedNodeGroups"][0];
    assert_eq!(gpu["amiFamily"], "Bottlerocket");
    assert_eq!(gpu["efaEnabled"], true);
    assert_eq!(gpu["privateNetworking"], true);
    assert_eq!(gpu["availabilityZones"], json!(["us-east-2b"]));
    assert_eq!(gpu["labels"], json!({"role": "train"}));
    assert_eq!(
        gpu["taints"],
        json!([{"key": "nvidia.com/gpu", "effect": "NoSchedule"}])
    );
    assert_eq!(gpu["instanceMarketOptions"]["marketType"], "capacity-block");
    assert_eq!(
        gpu["capacityReservation"]["capacityReservationTarget"]["capacityReservationID"],
        "cr-1"
    );
    assert_eq!(
        config["addons"],
        json!([{"name": "vpc-cni", "version": "v1.20.0-eksbuild.1",
                "podIdentityAssociations": [{"serviceAccountName": "aws-node", "roleARN": "arn:aws:iam::123456789012:role/cni"}]}])
    );
    assert_eq!(
        config["accessConfig"],
        json!({"authenticationMode": "API", "accessEntries": [{
            "principalARN": "arn:aws:iam::123456789012:role/Admin",
            "accessPolicies": [{"policyARN": "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy", "accessScope": {"type": "cluster"}}]}]})
    );
    // The design it imports to renders the same ClusterConfig.
    assert_eq!(reading.spec.node_groups[0].instance_type, "p5.48xlarge");
    assert!(
        reading
            .not_read
            .iter()
            .any(|gap| gap.what.contains("Karpenter"))
    );
    assert!(reading.not_read.iter().any(|gap| gap.why.contains("IAM")));
}

#[test]
fn endpoint_access_logging_and_support_are_read_and_what_eks_does_not_hold_is_the_designs() {
    use shared::changes::plan::plan_against;
    use shared::changes::read::design_of;
    use shared::upstream::eks::*;
    let running = RunningCluster {
        region: "us-east-2".into(),
        cluster: EksCluster {
            name: "train".into(),
            version: "1.35".into(),
            tags: [("alpha.eksctl.io/cluster-oidc-enabled", "true")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            vpc_id: "vpc-1".into(),
            subnet_ids: vec!["subnet-a".into(), "subnet-b".into()],
            endpoint_public_access: Some(true),
            endpoint_private_access: Some(true),
            public_access_cidrs: vec!["203.0.113.0/24".into()],
            enabled_log_types: vec!["audit".into(), "api".into()],
            support_type: Some("STANDARD".into()),
            ..EksCluster::default()
        },
        subnets: [("subnet-a", "us-east-2a"), ("subnet-b", "us-east-2b")]
            .into_iter()
            .map(|(id, zone)| RunningSubnet {
                id: id.into(),
                availability_zone: zone.into(),
                public: true,
                eksctl_cluster: Some("train".into()),
            })
            .collect(),
        ..RunningCluster::default()
    };
    let reading = design_of(&running).unwrap();
    let config = serde_json::to_value(&reading.cluster_config).unwrap();
    assert_eq!(
        config["vpc"]["clusterEndpoints"],
        json!({"publicAccess": true, "privateAccess": true})
    );
    assert_eq!(
        config["vpc"]["publicAccessCIDRs"],
        json!(["203.0.113.0/24"])
    );
    assert_eq!(
        config["cloudWatch"]["clusterLogging"]["enableTypes"],
        json!(["audit", "api"])
    );
    assert_eq!(config["upgradePolicy"]["supportType"], "STANDARD");

    // The design as its author wrote it: the same settings in other words (the log types
    // in another order), plus what only eksctl keeps (log retention, IRSA accounts).
    let text = r#"apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: train, region: us-east-2, version: "1.35"}
availabilityZones: [us-east-2a, us-east-2b]
vpc:
  clusterEndpoints: {publicAccess: true, privateAccess: true}
  publicAccessCIDRs: [203.0.113.0/24]
cloudWatch:
  clusterLogging: {enableTypes: [api, audit], logRetentionInDays: 30}
upgradePolicy: {supportType: STANDARD}
iam:
  withOIDC: true
  serviceAccounts:
    - metadata: {name: trainer, namespace: ml}
      attachPolicyARNs: [arn:aws:iam::123456789012:policy/s3]
"#;
    let (design, _) = shared::documents::import::import_text(text, &Spec::default()).unwrap();
    let plan = plan_against(&reading, &design);
    assert!(plan.plan.changes.is_empty(), "{}", human(&plan.plan));
    assert!(
        plan.not_compared
            .iter()
            .any(|what| what.contains("`iam`") && what.contains("EKS does not hold it")),
        "{:?}",
        plan.not_compared
    );

    // Logging turned off in the design is a change the plan shows.
    let quiet = text.replace("enableTypes: [api, audit], ", "");
    let (design, _) = shared::documents::import::import_text(&quiet, &Spec::default()).unwrap();
    let plan = plan_against(&reading, &design);
    assert_eq!(plan.plan.changes.len(), 1, "{}", human(&plan.plan));
}

/// Deleting the last place an accelerator runs leaves the pods that ask for it Pending:
/// advice, not a refusal (eksctl and Karpenter delete what they are told to).
#[test]
fn deleting_the_last_gpu_group_or_pool_warns_that_gpu_pods_stay_pending() {
    let before = template("g4dn");
    let gpu_groups: Vec<usize> = before
        .node_groups
        .iter()
        .enumerate()
        .filter(|(_, group)| group.instance_type.starts_with("g4dn"))
        .map(|(index, _)| index)
        .collect();
    assert_eq!(gpu_groups.len(), 1, "the template has one GPU group");
    let without_gpu = edited(&before, |spec| {
        spec["node_groups"]
            .as_array_mut()
            .unwrap()
            .remove(gpu_groups[0]);
    });
    let plan = diff(&before, &without_gpu);
    assert!(
        rules_of(&plan).contains(&"change-leaves-accelerator-pods-nowhere"),
        "{}",
        human(&plan)
    );
    let said = &plan.findings[0].message;
    assert!(
        said.contains("nvidia.com/gpu") && said.contains("node group `g4dn`"),
        "{said}"
    );
    // Another group kept: nothing to say.
    let without_system = edited(&before, |spec| {
        let groups = spec["node_groups"].as_array_mut().unwrap();
        groups.retain(|group| group["name"] != "sys");
    });
    assert!(
        !rules_of(&diff(&before, &without_system))
            .contains(&"change-leaves-accelerator-pods-nowhere")
    );

    // Karpenter: the pools are the GPU capacity.
    let before = template("karpenter-reserved-training");
    let no_pools = edited(&before, |spec| {
        spec["karpenter"]["node_pools"] = json!([]);
    });
    let plan = diff(&before, &no_pools);
    assert!(
        rules_of(&plan).contains(&"change-leaves-accelerator-pods-nowhere"),
        "{}",
        human(&plan)
    );
}

/// What EKS offers of an add-on for the version a design asks for (DescribeAddonVersions):
/// a pinned version it does not offer is refused; a running one to update after the
/// control plane.
#[test]
fn add_on_versions_are_judged_by_what_eks_offers_for_the_new_kubernetes_version() {
    use shared::changes::addons::{AddonOffer, addon_findings};
    use shared::changes::read::Reading;
    let mut running = template("g4dn");
    running.cluster.kubernetes_version = "1.34".into();
    running.addons.push(shared::model::spec::Addon {
        name: "vpc-cni".into(),
        ..Default::default()
    });
    let with_version = |spec: &mut Spec, version: Option<&str>| {
        let addon = spec
            .addons
            .iter_mut()
            .find(|addon| addon.name == "vpc-cni")
            .expect("the design installs vpc-cni");
        addon.extra.remove("version");
        if let Some(version) = version {
            addon.extra.insert("version".into(), version.into());
        }
    };
    with_version(&mut running, Some("v1.19.0-eksbuild.1"));
    let reading = Reading {
        spec: running.clone(),
        cluster_config: Default::default(),
        not_read: Vec::new(),
        objects_read: false,
        helm_read: false,
        auto_mode_read: false,
        self_managed_read: false,
        workloads: None,
        running_groups: Default::default(),
    };
    let offer = AddonOffer {
        kubernetes_version: "1.35".into(),
        versions: [(
            "vpc-cni".to_owned(),
            vec![
                "v1.21.0-eksbuild.1".to_owned(),
                "v1.20.1-eksbuild.2".to_owned(),
            ],
        )]
        .into_iter()
        .collect(),
    };
    // Upgraded, the running version kept pinned: EKS refuses it.
    let mut pinned = running.clone();
    pinned.cluster.kubernetes_version = "1.35".into();
    let findings = addon_findings(&reading, &pinned, &offer);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].rule, "change-addon-version-not-offered");
    assert_eq!(findings[0].severity, shared::rules::Severity::Error);
    assert!(
        findings[0]
            .message
            .contains("2 versions, v1.21.0-eksbuild.1 to v1.20.1-eksbuild.2")
    );
    // Upgraded, the add-on left to EKS's newest: updated after the control plane.
    let mut latest = pinned.clone();
    with_version(&mut latest, None);
    let findings = addon_findings(&reading, &latest, &offer);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].rule, "change-addon-update-after-upgrade");
    assert_eq!(findings[0].severity, shared::rules::Severity::Warning);
    // A version EKS offers: nothing to say.
    let mut offered = pinned.clone();
    with_version(&mut offered, Some("v1.21.0-eksbuild.1"));
    assert!(addon_findings(&reading, &offered, &offer).is_empty());
}

/// A change of the Karpenter chart's settings is a `helm upgrade` of the release with the
/// new values over the ones it runs with; a dropped setting is set to null (helm's way to
/// remove a key), so the cluster gets what the file says.
#[test]
fn karpenter_settings_are_a_helm_upgrade_that_removes_what_the_design_drops() {
    let before = template("karpenter-spot-inference");
    let queue = before
        .karpenter
        .as_ref()
        .and_then(|karpenter| karpenter.interruption_queue.clone());
    let mut after = before.clone();
    let settings = after.karpenter.as_mut().unwrap();
    settings.node_repair = !settings.node_repair;
    settings.interruption_queue = None;
    let plan = diff(&before, &after);
    let change = only_change(&plan);
    assert_eq!(
        (change.kind.as_str(), change.name.as_str(), change.action),
        ("helm release", "karpenter", Action::Update)
    );
    assert!(!change.disruptive);
    assert!(
        change
            .fields
            .contains(&"settings.featureGates.nodeRepair".to_owned()),
        "{:?}",
        change.fields
    );
    let step = &change.steps[0].argv();
    assert_eq!(step[..3], ["helm", "upgrade", "karpenter"]);
    assert!(step.contains(&"--reuse-values".to_owned()));
    if queue.is_some() {
        assert!(
            step.contains(&"settings.interruptionQueue=null".to_owned()),
            "{step:?}"
        );
    }
    // The same settings: nothing to do.
    assert!(diff(&before, &before.clone()).changes.is_empty());
}

/// A newer Karpenter release is its CRDs first (handed to the karpenter-crd chart, as the
/// upgrade guide says, since `helm upgrade` leaves a chart's `crds/` alone), then the
/// controller, and before anything else in the plan: a NodePool that uses what the new
/// release brought, and a Kubernetes version the old one does not run, come after it.
#[test]
fn a_newer_karpenter_release_upgrades_its_crds_then_the_controller_before_anything_else() {
    use shared::model::spec::KarpenterRelease;
    let mut before = template("karpenter-spot-inference");
    before.karpenter.as_mut().unwrap().release = KarpenterRelease::V1_9;
    let mut after = before.clone();
    after.karpenter.as_mut().unwrap().release = KarpenterRelease::V1_14;
    let plan = diff(&before, &after);
    let change = only_change(&plan);
    assert_eq!(
        (change.kind.as_str(), change.name.as_str(), change.action),
        ("helm release", "karpenter", Action::Update)
    );
    assert_eq!(change.fields, ["version 1.9.2 → 1.14.1"]);
    let verbs: Vec<String> = argvs(&change.steps)
        .iter()
        .map(|step| step[..4].join(" "))
        .collect();
    assert_eq!(
        verbs,
        [
            "kubectl label crd ec2nodeclasses.karpenter.k8s.aws",
            "kubectl annotate crd ec2nodeclasses.karpenter.k8s.aws",
            "helm upgrade --install karpenter-crd",
            "helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter",
        ]
    );
    for step in &argvs(&change.steps)[2..] {
        let version = step.iter().position(|arg| arg == "--version").unwrap();
        assert_eq!(step[version + 1], "1.14.1", "{step:?}");
    }
    // With a new pool and a newer Kubernetes: Karpenter first.
    let mut wider = after.clone();
    wider.cluster.kubernetes_version = next_minor(&before.cluster.kubernetes_version);
    let mut pool = wider.karpenter.as_ref().unwrap().node_pools[0].clone();
    pool.metadata.name = "balanced".into();
    wider.karpenter.as_mut().unwrap().node_pools.push(pool);
    let plan = diff(&before, &wider);
    let kinds: Vec<&str> = plan
        .changes
        .iter()
        .map(|change| change.kind.as_str())
        .collect();
    assert_eq!(kinds.first(), Some(&"helm release"), "{kinds:?}");
    assert!(
        kinds.contains(&"cluster") && kinds.contains(&"NodePool"),
        "{kinds:?}"
    );
    // Back to the older release: the controller only; the newer CRDs stay.
    let plan = diff(&after, &before);
    let change = only_change(&plan);
    assert_eq!(change.fields, ["version 1.14.1 → 1.9.2"]);
    assert_eq!(change.steps.len(), 1);
    assert_eq!(
        change.steps[0].argv()[..3],
        ["helm", "upgrade", "karpenter"]
    );
}

fn next_minor(version: &str) -> String {
    let minor: u32 = version.trim().strip_prefix("1.").unwrap().parse().unwrap();
    format!("1.{}", minor + 1)
}

#[test]
fn the_workloads_a_drain_moves_are_read_as_kubectl_lists_them_and_budgets_select_as_the_api_server_does()
 {
    use shared::changes::workloads::{Workloads, disrupted};
    let nodes = serde_json::json!([
        {"kind": "Node", "metadata": {"name": "a", "labels": {"eks.amazonaws.com/nodegroup": "gpu", "node.kubernetes.io/instance-type": "p5.48xlarge"}}},
        {"kind": "Node", "metadata": {"name": "b", "labels": {"alpha.eksctl.io/nodegroup-name": "efa"}}},
        {"kind": "Node", "metadata": {"name": "c", "labels": {"karpenter.sh/nodepool": "spot", "karpenter.k8s.aws/ec2nodeclass": "default"}}}
    ]);
    let pod = |namespace: &str,
               name: &str,
               node: &str,
               owner: serde_json::Value,
               labels: serde_json::Value,
               phase: &str| {
        serde_json::json!({
            "kind": "Pod",
            "metadata": {"namespace": namespace, "name": name, "labels": labels, "ownerReferences": owner},
            "spec": {"nodeName": node, "containers": [{"resources": {"limits": {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": 32}}}]},
            "status": {"phase": phase}
        })
    };
    let owner = |kind: &str, name: &str| serde_json::json!([{"kind": kind, "name": name, "controller": true}]);
    let pods = serde_json::json!([
        pod(
            "ml",
            "run-0",
            "a",
            owner("Job", "run"),
            serde_json::json!({"team": "a"}),
            "Running"
        ),
        pod(
            "ml",
            "run-1",
            "a",
            owner("Job", "run"),
            serde_json::json!({"team": "a"}),
            "Pending"
        ),
        pod(
            "ml",
            "old-0",
            "a",
            owner("Job", "old"),
            serde_json::json!({}),
            "Succeeded"
        ),
        pod(
            "kube-system",
            "kube-proxy-a",
            "a",
            owner("DaemonSet", "kube-proxy"),
            serde_json::json!({}),
            "Running"
        ),
        pod(
            "kube-system",
            "static-a",
            "a",
            owner("Node", "a"),
            serde_json::json!({}),
            "Running"
        ),
        pod(
            "web",
            "api-7f-x",
            "b",
            owner("ReplicaSet", "api-7f"),
            serde_json::json!({"pod-template-hash": "7f", "tier": "front"}),
            "Running"
        ),
        pod(
            "web",
            "lone",
            "c",
            serde_json::Value::Null,
            serde_json::json!({}),
            "Running"
        )
    ]);
    // One list, as kubectl answers a `get` of three kinds.
    let listed = |selector: serde_json::Value| {
        let mut items: Vec<serde_json::Value> = nodes.as_array().unwrap().clone();
        items.extend(pods.as_array().unwrap().iter().cloned());
        items.push(serde_json::json!({"kind": "PodDisruptionBudget", "metadata": {"namespace": "ml", "name": "guard"}, "spec": {"selector": selector}}));
        serde_json::json!({"kind": "List", "items": items})
    };

    let unguarded = Workloads::from_kubectl(&listed(serde_json::Value::Null)).unwrap();
    let (count, found) = disrupted(&unguarded, |node| node.group.as_deref() == Some("gpu"));
    assert_eq!(count, 1);
    assert_eq!(
        found.len(),
        1,
        "finished, DaemonSet and static pods stay: {found:?}"
    );
    assert_eq!(
        found[0].describe(),
        "Job ml/run (2 pods, 16 nvidia.com/gpu, 64 vpc.amazonaws.com/efa)"
    );
    assert!(found[0].training);
    assert_eq!(
        found[0].budget, None,
        "a budget with no selector selects no pod"
    );

    let (_, found) = disrupted(&unguarded, |node| node.group.as_deref() == Some("efa"));
    assert_eq!(
        found[0].kind, "Deployment",
        "a ReplicaSet named after its pods' hash is a Deployment's"
    );
    assert_eq!(found[0].name, "api");
    let (_, found) = disrupted(&unguarded, |node| node.class.as_deref() == Some("default"));
    assert_eq!(
        (found[0].kind.as_str(), found[0].name.as_str()),
        ("Pod", "lone")
    );

    for (selector, guarded) in [
        (serde_json::json!({}), true),
        (serde_json::json!({"matchLabels": {"team": "a"}}), true),
        (serde_json::json!({"matchLabels": {"team": "b"}}), false),
        (
            serde_json::json!({"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["b"]}]}),
            true,
        ),
        (
            serde_json::json!({"matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]}),
            false,
        ),
        (
            serde_json::json!({"matchLabels": {"team": "a"}, "matchExpressions": [{"key": "team", "operator": "Exists"}]}),
            true,
        ),
    ] {
        let workloads = Workloads::from_kubectl(&listed(selector.clone())).unwrap();
        let (_, found) = disrupted(&workloads, |node| node.name == "a");
        assert_eq!(found[0].budget.is_some(), guarded, "{selector}");
    }
    assert!(Workloads::from_kubectl(&serde_json::json!({})).is_err());
}

/// A plan against a running cluster whose pods were read names the workloads on the nodes
/// a change drains, and advises where a training run has no PodDisruptionBudget.
#[test]
fn a_replacement_names_the_training_run_it_drains_and_its_missing_budget() {
    use shared::changes::plan::plan_against;
    use shared::changes::read::Reading;
    use shared::changes::workloads::Workloads;
    let running = template("g4dn");
    let nodes = json!([
        {"kind": "Node", "metadata": {"name": "n1", "labels": {"eks.amazonaws.com/nodegroup": "g4dn"}}},
        {"kind": "Node", "metadata": {"name": "n2", "labels": {"eks.amazonaws.com/nodegroup": "sys"}}}
    ]);
    let pods = json!([
        {"kind": "Pod", "metadata": {"namespace": "ml", "name": "bert-0", "labels": {"run": "bert"},
                      "ownerReferences": [{"kind": "MPIJob", "name": "bert", "controller": true}]},
         "spec": {"nodeName": "n1", "containers": [{"resources": {"limits": {"nvidia.com/gpu": 1}}}]}},
        {"kind": "Pod", "metadata": {"namespace": "kube-system", "name": "coredns-abc12-x", "labels": {"pod-template-hash": "abc12"},
                      "ownerReferences": [{"kind": "ReplicaSet", "name": "coredns-abc12", "controller": true}]},
         "spec": {"nodeName": "n2", "containers": [{}]}}
    ]);
    let reading = |budgets: Value| Reading {
        spec: running.clone(),
        cluster_config: Default::default(),
        not_read: Vec::new(),
        objects_read: true,
        helm_read: true,
        auto_mode_read: false,
        self_managed_read: false,
        running_groups: Default::default(),
        workloads: Some({
            let mut items = nodes.as_array().unwrap().clone();
            items.extend(pods.as_array().unwrap().iter().cloned());
            items.extend(budgets.as_array().unwrap().iter().cloned());
            Workloads::from_kubectl(&json!({"items": items})).unwrap()
        }),
    };
    let changed = edited(&running, |spec| {
        for group in spec["node_groups"].as_array_mut().unwrap() {
            if group["name"] == "g4dn" {
                group["instance_type"] = json!("g4dn.12xlarge");
            }
        }
    });
    let live = plan_against(&reading(json!([])), &changed);
    let change = live
        .plan
        .changes
        .iter()
        .find(|change| change.name == "g4dn")
        .unwrap();
    assert!(
        change
            .disruption
            .ends_with("; on its 1 node now: MPIJob ml/bert (1 pod, 1 nvidia.com/gpu)"),
        "{}",
        change.disruption
    );
    let advice: Vec<_> = live
        .plan
        .findings
        .iter()
        .filter(|finding| finding.rule == "change-drains-unguarded-training")
        .collect();
    assert_eq!(advice.len(), 1, "{}", human(&live.plan));
    assert_eq!(advice[0].path, "node_groups[g4dn]");
    assert_eq!(advice[0].severity, shared::rules::Severity::Warning);

    let guarded = plan_against(
        &reading(
            json!([{"kind": "PodDisruptionBudget", "metadata": {"namespace": "ml", "name": "bert"},
                         "spec": {"selector": {"matchLabels": {"run": "bert"}}}}]),
        ),
        &changed,
    );
    assert!(
        !guarded
            .plan
            .findings
            .iter()
            .any(|finding| finding.rule == "change-drains-unguarded-training")
    );
    let change = guarded
        .plan
        .changes
        .iter()
        .find(|change| change.name == "g4dn")
        .unwrap();
    assert_eq!(change.workloads[0].budget.as_deref(), Some("ml/bert"));
}

/// Auto Mode's pools and classes are read as kubectl applied them (its last-applied
/// annotation); EKS's own pools are its computeConfig's; one applied another way is named.
#[test]
fn auto_mode_objects_are_read_from_kubectls_last_applied_copy() {
    use shared::changes::objects::read_into;
    use shared::changes::read::Reading;
    let design = template("auto-mode-reserved-training");
    let documents = shared::documents::auto_mode::documents(&design.auto_mode_pools).unwrap();
    // As the API server answers: the object with defaults and status, and the applied copy.
    let served: Vec<yaml_serde::Value> = documents
        .iter()
        .map(|document| {
            let applied = serde_json::to_string(document).unwrap();
            let mut object = document.clone();
            object["metadata"]["annotations"] = yaml_serde::from_str(&format!(
                "{{kubectl.kubernetes.io/last-applied-configuration: {}}}",
                serde_json::to_string(&applied).unwrap()
            ))
            .unwrap();
            object["spec"]["a-default-eks-fills-in"] = "x".into();
            object
        })
        .collect();
    let built_in: yaml_serde::Value = yaml_serde::from_str(
        "{apiVersion: karpenter.sh/v1, kind: NodePool, metadata: {name: general-purpose}, spec: {template: {spec: {nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}}}}}",
    )
    .unwrap();
    let reading = |objects: &[yaml_serde::Value]| {
        let mut reading = Reading {
            spec: template("g4dn"),
            cluster_config: Default::default(),
            not_read: Vec::new(),
            objects_read: false,
            helm_read: false,
            auto_mode_read: false,
            self_managed_read: false,
            workloads: None,
            running_groups: Default::default(),
        };
        // Through kubectl's answer, a List, as the server reads it.
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": objects});
        let items = shared::changes::objects::items_of(&list).unwrap();
        read_into(&mut reading, &items, Vec::new(), None, None);
        reading
    };
    let mut objects = served.clone();
    objects.push(built_in.clone());
    let read = reading(&objects);
    assert!(read.auto_mode_read);
    assert_eq!(read.spec.auto_mode_pools, design.auto_mode_pools);
    assert!(read.not_read.is_empty(), "{:?}", read.not_read);

    // Applied another way: no copy as applied, named, and the design's stand.
    let mut hand_made = built_in;
    hand_made["metadata"]["name"] = "hand-made".into();
    objects.push(hand_made);
    let read = reading(&objects);
    assert!(!read.auto_mode_read);
    assert!(
        read.not_read
            .iter()
            .any(|gap| gap.what == "Auto Mode NodePool hand-made"
                && gap.why.contains("kubectl apply")),
        "{:?}",
        read.not_read
    );
}

/// A name read from a cluster is data when the plan is shown: a line break, a zero-width
/// or a bidirectional character in it is escaped, so it can neither start a line of the
/// plan nor make one read otherwise than it is.
#[test]
fn names_in_a_plan_cannot_start_a_line_or_reorder_it() {
    let before = template("g4dn");
    let after = edited(&before, |spec| {
        spec["node_groups"][0]["name"] = json!("gpu\n  + nodegroup fake\u{202e}\u{200b}");
    });
    let text = shared::changes::human(&diff(&before, &after));
    assert!(
        !text
            .lines()
            .any(|line| line.starts_with("  + nodegroup fake")),
        "{text}"
    );
    assert!(
        text.contains("gpu\\n  + nodegroup fake\\u{202e}\\u{200b}"),
        "{text}"
    );
    assert!(
        !text.contains('\u{202e}') && !text.contains('\u{200b}'),
        "{text}"
    );
}

/// EKS's guide for Capacity Blocks: a group on a block is upgraded at desired size 0, since
/// the block has no spare instance for a rolling update. An upgrade or a new AMI release
/// of a group with nodes on a block scales it to 0 (which stops the work: consent and a
/// warning to checkpoint), rolls it, then scales it back to the design's sizes; a group
/// already at 0 is rolled as it is, disrupting nothing.
#[test]
fn a_group_on_a_capacity_block_is_scaled_to_zero_to_roll_then_scaled_back() {
    let before = template("p5-capacity-block");
    let group = before
        .node_groups
        .iter()
        .find(|group| {
            matches!(
                group.capacity,
                shared::model::spec::Capacity::CapacityBlock { .. }
            )
        })
        .expect("the template has a group on a block");
    let name = group.name.clone();
    let index = before
        .node_groups
        .iter()
        .position(|group| group.name == name)
        .unwrap();
    let before = edited(&before, |spec| {
        spec["node_groups"][index]["desired_capacity"] = json!(2);
        spec["node_groups"][index]["min_size"] = json!(2);
        spec["node_groups"][index]["max_size"] = json!(2);
    });
    let upgraded = edited(&before, |spec| {
        let version = spec["cluster"]["kubernetes_version"]
            .as_str()
            .unwrap()
            .to_owned();
        spec["cluster"]["kubernetes_version"] = json!(next_minor(&version));
    });
    let released = edited(&before, |spec| {
        spec["node_groups"][index]["extra"]["releaseVersion"] = json!("1.33.0-20250101");
    });
    for (after, roll) in [
        (&upgraded, "--kubernetes-version"),
        (&released, "--release-version"),
    ] {
        let plan = diff(&before, after);
        let change = plan
            .changes
            .iter()
            .find(|change| change.kind == "nodegroup" && change.name == name)
            .unwrap_or_else(|| panic!("{}", human(&plan)));
        let steps = argvs(&change.steps);
        assert_eq!(steps.len(), 3, "{steps:?}");
        assert_eq!(steps[0][..3], ["eksctl", "scale", "nodegroup"]);
        assert!(steps[0].contains(&"--nodes=0".to_owned()), "{steps:?}");
        assert!(steps[0].contains(&"--nodes-min=0".to_owned()), "{steps:?}");
        assert!(change.steps[0].moves_pods);
        assert_eq!(steps[1][..3], ["eksctl", "upgrade", "nodegroup"]);
        assert!(steps[1].contains(&roll.to_owned()), "{steps:?}");
        assert!(!change.steps[1].moves_pods);
        assert_eq!(steps[2][..3], ["eksctl", "scale", "nodegroup"]);
        for size in ["--nodes=2", "--nodes-min=2", "--nodes-max=2"] {
            assert!(steps[2].contains(&size.to_owned()), "{steps:?}");
        }
        assert!(change.disruptive);
        assert!(
            change.disruption.contains("scales to 0"),
            "{}",
            change.disruption
        );
        assert!(
            rules_of(&plan).contains(&"change-capacity-block-scaled-to-zero"),
            "{}",
            human(&plan)
        );
        // The consent is asked for the step that stops the work.
        let carrying: Vec<String> = shared::changes::apply::apply_steps(&plan, "c", "us-east-1")
            .iter()
            .filter(|step| step.disruption.is_some())
            .map(|step| step.argv()[..3].join(" "))
            .collect();
        assert!(
            carrying.contains(&"eksctl scale nodegroup".to_owned()),
            "{carrying:?}"
        );
    }

    // A group already at 0 has nothing to stop: the upgrade alone, and no warning.
    let idle = edited(&before, |spec| {
        spec["node_groups"][index]["desired_capacity"] = json!(0);
        spec["node_groups"][index]["min_size"] = json!(0);
    });
    let idle_upgraded = edited(&idle, |spec| {
        let version = spec["cluster"]["kubernetes_version"]
            .as_str()
            .unwrap()
            .to_owned();
        spec["cluster"]["kubernetes_version"] = json!(next_minor(&version));
    });
    let plan = diff(&idle, &idle_upgraded);
    let change = plan
        .changes
        .iter()
        .find(|change| change.kind == "nodegroup" && change.name == name)
        .unwrap();
    assert_eq!(change.steps.len(), 1);
    assert!(!change.disruptive);
    assert!(!rules_of(&plan).contains(&"change-capacity-block-scaled-to-zero"));
}

/// What EC2 says of a group's reservation when the plan is made: a group that may run
/// more nodes than it holds, a block's end and time left, and a block that ends while a
/// step on its group may still be waiting.
#[test]
fn a_plan_says_what_the_reservations_hold_and_when_a_block_ends() {
    use shared::changes::capacity::{ReservationsRead, capacity_findings};
    let before = template("p5-capacity-block");
    let (index, group) = before
        .node_groups
        .iter()
        .enumerate()
        .find(|(_, group)| {
            matches!(
                group.capacity,
                shared::model::spec::Capacity::CapacityBlock { .. }
            )
        })
        .unwrap();
    let shared::model::spec::Capacity::CapacityBlock { reservation_id } = &group.capacity else {
        unreachable!()
    };
    let name = group.name.clone();
    let before = edited(&before, |spec| {
        spec["node_groups"][index]["desired_capacity"] = json!(2);
        spec["node_groups"][index]["max_size"] = json!(10);
    });
    let upgraded = edited(&before, |spec| {
        let version = spec["cluster"]["kubernetes_version"]
            .as_str()
            .unwrap()
            .to_owned();
        spec["cluster"]["kubernetes_version"] = json!(next_minor(&version));
    });
    let fact = |end: &str| shared::rules::ReservationFact {
        id: reservation_id.clone(),
        instance_type: "p5.48xlarge".into(),
        availability_zone: "us-east-1a".into(),
        state: "active".into(),
        reservation_type: "capacity-block".into(),
        total_instances: 2,
        available_instances: 0,
        start_date: Some("2026-12-01T11:30:00Z".into()),
        end_date: Some(end.into()),
    };
    let findings_of = |end: &str| {
        let mut plan = diff(&before, &upgraded);
        let read = ReservationsRead {
            facts: vec![fact(end)],
            at: "2026-12-08T10:00:00Z".into(),
        };
        capacity_findings(&upgraded, &read, &mut plan);
        plan.findings
    };
    let place = format!("node_groups[{name}]");
    let far = findings_of("2026-12-10T11:30:00Z");
    let of = |findings: &[shared::rules::Finding], rule: &str| -> Vec<String> {
        findings
            .iter()
            .filter(|finding| finding.rule == rule && finding.path == place)
            .map(|finding| finding.message.clone())
            .collect()
    };
    let beyond = of(&far, "change-size-beyond-reservation");
    assert_eq!(beyond.len(), 1, "{far:?}");
    assert!(
        beyond[0].contains("holds 2 (EC2, now): 8 of them can never launch"),
        "{beyond:?}"
    );
    let clock = of(&far, "change-capacity-block-clock");
    assert!(
        clock[0].contains("ends 2026-12-10 11:30 UTC, in 2 d 1 h"),
        "{clock:?}"
    );
    assert!(of(&far, "change-capacity-block-ends-during-step").is_empty());
    // Forty minutes left: EC2 begins ending the instances in ten, and the plan's upgrade
    // of the group may wait up to 45.
    let near = findings_of("2026-12-08T10:40:00Z");
    let during = of(&near, "change-capacity-block-ends-during-step");
    assert_eq!(during.len(), 1, "{near:?}");
    assert!(during[0].contains("may wait up to 45m"), "{during:?}");
    assert!(of(&near, "change-capacity-block-clock")[0].contains("in 40 min"));
}

/// EC2 begins ending an UltraServer block's instances 60 minutes before its end, not 30:
/// with 80 minutes left, a 45-minute step on a p5 group finishes in time, on an
/// UltraServer group it does not.
#[test]
fn an_ultraserver_block_ends_its_instances_an_hour_before_its_end() {
    use shared::changes::capacity::{ReservationsRead, capacity_findings};
    for (id, warned) in [
        ("p5-capacity-block", false),
        ("p6e-gb200-ultraserver", true),
    ] {
        let before = template(id);
        let (index, group) = before
            .node_groups
            .iter()
            .enumerate()
            .find(|(_, group)| {
                matches!(
                    group.capacity,
                    shared::model::spec::Capacity::CapacityBlock { .. }
                )
            })
            .unwrap();
        let shared::model::spec::Capacity::CapacityBlock { reservation_id } = &group.capacity
        else {
            unreachable!()
        };
        let before = edited(&before, |spec| {
            spec["node_groups"][index]["desired_capacity"] = json!(1);
        });
        let upgraded = edited(&before, |spec| {
            let version = spec["cluster"]["kubernetes_version"]
                .as_str()
                .unwrap()
                .to_owned();
            spec["cluster"]["kubernetes_version"] = json!(next_minor(&version));
        });
        let mut plan = diff(&before, &upgraded);
        let read = ReservationsRead {
            facts: vec![shared::rules::ReservationFact {
                id: reservation_id.clone(),
                instance_type: group.instance_type.clone(),
                availability_zone: "us-east-1a".into(),
                state: "active".into(),
                reservation_type: "capacity-block".into(),
                total_instances: 1,
                available_instances: 0,
                start_date: Some("2026-12-01T11:30:00Z".into()),
                end_date: Some("2026-12-08T11:20:00Z".into()),
            }],
            at: "2026-12-08T10:00:00Z".into(),
        };
        capacity_findings(&upgraded, &read, &mut plan);
        let during = plan
            .findings
            .iter()
            .filter(|finding| finding.rule == "change-capacity-block-ends-during-step")
            .count();
        assert_eq!(during == 1, warned, "{id}: {:?}", plan.findings);
    }
}
