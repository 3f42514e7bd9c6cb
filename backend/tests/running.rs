//! Day two against the emulator: a design is created by the eksctl stand-in (which makes in
//! moto's EC2 and EKS what eksctl makes in AWS), read back with `eks-studio read`, and
//! planned against with `eks-studio plan` — the real binary, the real emulator.

mod deploy_support;
mod emulator;
mod running_support;

use running_support::*;

/// `helm uninstall` removes the release, as helm does: it is no longer listed and its
/// values cannot be read; uninstalling it again fails with helm's words, unless
/// `--ignore-not-found`, which the teardown's steps pass.
#[test]
fn the_helm_stand_in_uninstalls_a_release_as_helm_does() {
    let emulator = Emulator::start();
    let dir = temp_dir("helm-uninstall");
    deployed_template(&emulator, "karpenter-spot-inference", &dir);
    // The cluster's file, beside which the deploy's kubeconfig is.
    let design = dir.join("karpenter-spot-inference.yaml");
    let list = ["list", "--namespace", "kube-system", "--output", "json"];
    let (code, listed, _) = helm(&emulator, &design, &list);
    assert_eq!(code, Some(0));
    assert!(listed.contains("\"name\": \"karpenter\""), "{listed}");

    let uninstall = [
        "uninstall",
        "karpenter",
        "--namespace",
        "kube-system",
        "--wait",
    ];
    let (code, said, _) = helm(&emulator, &design, &uninstall);
    assert_eq!(code, Some(0));
    assert_eq!(said.trim(), "release \"karpenter\" uninstalled");
    let (_, listed, _) = helm(&emulator, &design, &list);
    assert_eq!(listed.trim(), "[]");
    let values = [
        "get",
        "values",
        "karpenter",
        "--namespace",
        "kube-system",
        "--output",
        "json",
    ];
    assert_eq!(helm(&emulator, &design, &values).0, Some(1));

    let (code, _, error) = helm(&emulator, &design, &uninstall);
    assert_eq!(code, Some(1));
    assert_eq!(
        error.trim(),
        "Error: uninstall: Release not loaded: karpenter: release: not found"
    );
    let ignoring = [&uninstall[..], &["--ignore-not-found"]].concat();
    assert_eq!(helm(&emulator, &design, &ignoring).0, Some(0));
}

#[test]
fn every_template_created_by_eksctl_reads_back_with_no_changes() {
    let emulator = Emulator::start();
    let dir = temp_dir("round-trip");
    let mut failures = Vec::new();
    for template in shared::TEMPLATES {
        let (file, cluster, _) = deployed_template(&emulator, template.id, &dir);
        let plan = plan_on(&emulator, &file, &cluster, &[]);
        let said = text(&plan.stdout);
        if plan.status.code() != Some(0) || !said.starts_with("No changes") {
            failures.push(format!(
                "{}: exit {:?}\n{said}{}",
                template.id,
                plan.status.code(),
                text(&plan.stderr)
            ));
        }
        // Karpenter's objects and chart values are read from the cluster: not a gap.
        assert!(
            !said.contains("not read: Karpenter's") && !said.contains("Karpenter's installation"),
            "{}: {said}",
            template.id
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_changed_design_plans_a_scale_a_new_group_and_a_replacement_against_the_running_cluster() {
    let emulator = Emulator::start();
    let dir = temp_dir("changes");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);

    // Read: the bundle of the running cluster, with what EKS keeps.
    let out = dir.join("read");
    let read = read_into(&emulator, &cluster, &out);
    let cluster_yaml = std::fs::read_to_string(out.join("cluster.yaml")).unwrap();
    let document: yaml_serde::Value = yaml_serde::from_str(&cluster_yaml).unwrap();
    let groups = document["managedNodeGroups"].as_sequence().unwrap();
    let g4dn = groups
        .iter()
        .find(|group| group["name"] == "g4dn")
        .expect("the GPU group is read");
    assert_eq!(g4dn["instanceType"], "g4dn.8xlarge");
    assert_eq!(
        g4dn["efaEnabled"], true,
        "EFA is read from the launch template"
    );
    assert_eq!(g4dn["privateNetworking"], true);
    assert_eq!(g4dn["desiredCapacity"], 2);
    assert_eq!(g4dn["availabilityZones"][0], "us-east-1b");
    assert_eq!(document["iam"]["withOIDC"], true);
    assert!(out.join("studio.json").is_file());
    // The entry EKS made for the cluster's creator is read as it is.
    assert!(
        cluster_yaml.contains("principalARN: arn:aws:iam::123456789012:user/moto"),
        "{cluster_yaml}"
    );
    assert!(text(&read.stderr).contains(
        "not read: every managed node group: what eksctl wrote into its launch template"
    ));

    // Plan a changed design: one group scaled, one added, one whose type changes.
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let groups = design["managedNodeGroups"].as_sequence_mut().unwrap();
    for group in groups.iter_mut() {
        if group["name"] == "g4dn" {
            group["desiredCapacity"] = 4.into();
        }
        if group["name"] == "sys" {
            group["instanceType"] = "m5.2xlarge".into();
        }
    }
    groups.push(
        yaml_serde::from_str(
            "{name: infer, instanceType: g5.xlarge, spot: true, minSize: 0, maxSize: 4}",
        )
        .unwrap(),
    );
    let changed = dir.join("changed.yaml");
    std::fs::write(&changed, yaml_serde::to_string(&design).unwrap()).unwrap();
    let plan = plan_on(&emulator, &changed, &cluster, &["--format", "json"]);
    assert_eq!(plan.status.code(), Some(1), "{}", text(&plan.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let change = |name: &str| {
        plan["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|change| change["name"] == name)
            .unwrap_or_else(|| panic!("no change for {name}: {plan}"))
            .clone()
    };
    assert_eq!(change("infer")["action"], "create");
    assert_eq!(change("g4dn")["action"], "update");
    assert_eq!(change("g4dn")["disruptive"], false);
    assert!(
        change("g4dn")["steps"][0]["args"]
            .as_array()
            .unwrap()
            .iter()
            .any(|word| word == "--nodes=4"),
        "{plan}"
    );
    assert_eq!(change("sys")["action"], "replace");
    assert_eq!(change("sys")["disruptive"], true);
    assert_eq!(plan["changes"].as_array().unwrap().len(), 3, "{plan}");
    assert!(
        !plan["not_read"]
            .as_array()
            .unwrap()
            .iter()
            .any(|gap| gap["what"].as_str().unwrap().contains("Karpenter")),
        "a cluster without Karpenter has none of its objects, which is no gap: {plan}"
    );

    // The human plan keeps its lines.
    let human = plan_on(&emulator, &changed, &cluster, &[]);
    let said = text(&human.stdout);
    assert!(
        said.contains("\n-/+ nodegroup sys (instanceType)\n"),
        "{said}"
    );
    assert!(said.contains("Plan: 1 to create, 1 to update, 1 to replace, 0 to delete"));
    // … and a plan does not remove it: it is the creator's, said so.
    assert!(
        said.contains("not compared: the access entry of arn:aws:iam::123456789012:user/moto (taken as the cluster creator's"),
        "{said}"
    );
}

#[test]
fn a_self_managed_group_whose_nodes_run_is_named_as_not_read_and_left_alone_by_the_plan() {
    let emulator = Emulator::start();
    let dir = temp_dir("self-managed");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    // Two nodes of an eksctl self-managed group (`nodeGroups`), registered as its kubelets
    // label them; EKS does not list such a group.
    let node = |index: u32| {
        format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: ip-10-9-9-{index}.{REGION}.compute.internal\n  labels:\n    alpha.eksctl.io/cluster-name: {cluster}\n    alpha.eksctl.io/nodegroup-name: legacy-cpu\n    node.kubernetes.io/instance-type: m5.large\n"
        )
    };
    let nodes_file = dir.join("nodes.yaml");
    std::fs::write(&nodes_file, format!("{}---\n{}", node(1), node(2))).unwrap();
    kubectl_apply(&emulator, &file, &nodes_file);

    let plan = plan_on(&emulator, &file, &cluster, &["--format", "json"]);
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", text(&plan.stderr)));
    let gaps: Vec<&str> = plan["not_read"]
        .as_array()
        .unwrap()
        .iter()
        .map(|gap| gap["what"].as_str().unwrap())
        .collect();
    assert!(
        gaps.contains(&"self-managed node group legacy-cpu (2 nodes run)"),
        "{plan:#}"
    );
    // The managed groups EKS listed are not taken for self-managed ones.
    assert_eq!(
        gaps.iter()
            .filter(|gap| gap.starts_with("self-managed"))
            .count(),
        1,
        "{plan:#}"
    );
    let why = plan["not_read"]
        .as_array()
        .unwrap()
        .iter()
        .find(|gap| gap["what"] == "self-managed node group legacy-cpu (2 nodes run)")
        .unwrap()["why"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        why.contains(&format!("eksctl-{cluster}-nodegroup-legacy-cpu")),
        "{why}"
    );
    // Nothing is planned for it: the design does not hold it, and the plan does not delete
    // what it could not read.
    assert!(
        !plan["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|change| change.to_string().contains("legacy-cpu")),
        "{plan:#}"
    );
}

/// eksctl's self-managed groups (`nodeGroups`) live in CloudFormation stacks, not in EKS:
/// the read takes each from its stack's template (type, volume, EFA, the labels and
/// taints in the node's user data) and its Auto Scaling group (the sizes now, which
/// `eksctl scale nodegroup` changes without the stack); the plan scales, creates and
/// deletes them with eksctl's commands, and apply leaves nothing to plan.
#[test]
fn self_managed_groups_are_read_from_their_stacks_then_scaled_created_and_deleted() {
    let emulator = Emulator::start();
    let dir = temp_dir("self-managed-stacks");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    design["nodeGroups"] = yaml_serde::from_str(
        r#"
- name: build
  instanceType: m5.xlarge
  minSize: 1
  desiredCapacity: 2
  maxSize: 3
  volumeSize: 120
  privateNetworking: true
  labels: {role: build, tier: "2"}
  taints:
    - {key: dedicated, value: build, effect: NoSchedule}
  iam:
    withAddonPolicies: {imageBuilder: true}
- name: legacy
  instanceType: c5.large
  availabilityZones: [us-east-1b]
  taints:
    legacy: "true:NoSchedule"
"#,
    )
    .unwrap();
    std::fs::write(&file, yaml_serde::to_string(&design).unwrap()).unwrap();
    eksctl_create(&emulator, &file);

    let out = dir.join("read");
    let read = read_into(&emulator, &cluster, &out);
    let document: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(out.join("cluster.yaml")).unwrap()).unwrap();
    let groups = document["nodeGroups"]
        .as_sequence()
        .unwrap_or_else(|| panic!("no nodeGroups read: {}", text(&read.stderr)));
    let group = |name: &str| {
        groups
            .iter()
            .find(|group| group["name"] == name)
            .unwrap_or_else(|| panic!("{name} is not read: {document:?}"))
    };
    let build = group("build");
    assert_eq!(build["instanceType"], "m5.xlarge");
    assert_eq!(
        (
            &build["minSize"],
            &build["desiredCapacity"],
            &build["maxSize"]
        ),
        (
            &yaml_serde::Value::from(1),
            &yaml_serde::Value::from(2),
            &yaml_serde::Value::from(3)
        )
    );
    assert_eq!(build["volumeSize"], 120);
    assert_eq!(build["privateNetworking"], true);
    assert_eq!(build["labels"]["role"], "build");
    assert_eq!(build["taints"][0]["effect"], "NoSchedule");
    assert_eq!(build["amiFamily"], "AmazonLinux2023");
    // eksctl's defaults: minSize 2, no desired given so the group's is its minimum.
    let legacy = group("legacy");
    assert_eq!(legacy["desiredCapacity"], 2);
    assert_eq!(legacy["availabilityZones"][0], "us-east-1b");
    assert_eq!(legacy["taints"][0]["key"], "legacy");
    assert!(
        !text(&read.stderr).contains("self-managed node group build"),
        "everything the design said of it is read or named: {}",
        text(&read.stderr)
    );

    // The unchanged design: no changes; what the stack does not hold is named.
    let same = plan_on(&emulator, &file, &cluster, &["--format", "json"]);
    let same_plan: serde_json::Value = serde_json::from_slice(&same.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", text(&same.stderr)));
    assert_eq!(same.status.code(), Some(0), "{same_plan:#}");
    assert!(
        same_plan["not_compared"]
            .as_array()
            .unwrap()
            .iter()
            .any(|line| line
                .as_str()
                .unwrap()
                .starts_with("self-managed node group build: iam")),
        "{same_plan:#}"
    );

    // eksctl scaled the group outside the design: the read sees the Auto Scaling group's
    // sizes, not the stack's.
    let scaled = standin(
        "eksctl",
        &emulator,
        &file,
        &[
            "scale",
            "nodegroup",
            "--cluster",
            &cluster,
            "--region",
            REGION,
            "--name",
            "build",
            "--nodes=3",
        ],
    );
    assert_eq!(scaled.status.code(), Some(0), "{}", text(&scaled.stderr));
    let drifted = plan_on(&emulator, &file, &cluster, &["--format", "json"]);
    let drifted: serde_json::Value = serde_json::from_slice(&drifted.stdout).unwrap();
    let changes = drifted["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{drifted:#}");
    assert_eq!(changes[0]["name"], "build");
    assert_eq!(changes[0]["action"], "update");
    assert!(
        changes[0]["disruption"]
            .as_str()
            .unwrap()
            .contains("from 3 to 2 nodes: the Auto Scaling group terminates 1 of them, undrained"),
        "{drifted:#}"
    );

    // A changed design: build scaled to 3, legacy gone, a new group, and a label changed on
    // the new group's neighbour (a replacement, eksctl changes only sizes).
    let groups = design["nodeGroups"].as_sequence_mut().unwrap();
    groups.retain(|group| group["name"] != "legacy");
    groups[0]["desiredCapacity"] = 3.into();
    groups.push(
        yaml_serde::from_str("{name: tools, instanceType: t3.large, desiredCapacity: 1}").unwrap(),
    );
    let changed = dir.join("changed.yaml");
    std::fs::write(&changed, yaml_serde::to_string(&design).unwrap()).unwrap();
    let plan = plan_on(&emulator, &changed, &cluster, &["--format", "json"]);
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let action = |name: &str| {
        plan["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|change| change["name"] == name)
            .map(|change| change["action"].as_str().unwrap().to_owned())
    };
    assert_eq!(action("tools").as_deref(), Some("create"), "{plan:#}");
    assert_eq!(action("legacy").as_deref(), Some("delete"), "{plan:#}");
    assert_eq!(action("build"), None, "build is at 3 already: {plan:#}");

    let mut relabelled = design.clone();
    relabelled["nodeGroups"][0]["labels"]["role"] = "ci".into();
    let relabelled_file = dir.join("relabelled.yaml");
    std::fs::write(
        &relabelled_file,
        yaml_serde::to_string(&relabelled).unwrap(),
    )
    .unwrap();
    let replace = plan_on(&emulator, &relabelled_file, &cluster, &["--format", "json"]);
    let replace: serde_json::Value = serde_json::from_slice(&replace.stdout).unwrap();
    let build_change = replace["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|change| change["name"] == "build")
        .unwrap_or_else(|| panic!("{replace:#}"));
    assert_eq!(build_change["action"], "replace", "{replace:#}");
    assert_eq!(build_change["fields"], serde_json::json!(["labels"]));

    // Applied, the cluster reads back as the design: `applied` plans again and wants none.
    let calls = applied(&emulator, &changed, &cluster, &dir.join("apply"));
    let eksctl: Vec<String> = calls
        .iter()
        .filter(|call| call[0].ends_with("eksctl"))
        .map(|call| call[1..3].join(" "))
        .collect();
    assert_eq!(
        eksctl,
        ["create nodegroup", "delete nodegroup"],
        "{calls:?}"
    );
}

#[test]
fn a_plan_names_the_running_jobs_a_drain_would_stop_and_whether_a_budget_guards_them() {
    let emulator = Emulator::start();
    let dir = temp_dir("workloads");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);

    // The nodes the node groups launched, as the cluster lists them.
    let nodes: serde_json::Value =
        serde_json::from_str(&kubectl(&emulator, &file, &["get", "nodes", "-o", "json"])).unwrap();
    let gpu_nodes: Vec<&str> = nodes["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|node| node["metadata"]["labels"]["eks.amazonaws.com/nodegroup"] == "g4dn")
        .map(|node| node["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(gpu_nodes.len(), 2, "the g4dn group's desired size: {nodes}");

    // A training run of two workers on the GPU nodes, a web server beside it, and a
    // DaemonSet's pod, which a drain leaves.
    let pod = |namespace: &str, name: &str, node: &str, owner: &str, labels: &str, gpus: u32| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: {namespace}\n  labels: {labels}\n  ownerReferences: [{owner}]\nspec:\n  nodeName: {node}\n  containers:\n  - name: main\n    image: public.ecr.aws/docker/library/busybox:latest\n    resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}\n"
        )
    };
    let job =
        "{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: llama, uid: 1, controller: true}";
    let job_labels = "{training.kubeflow.org/job-name: llama}";
    let pods = [
        pod("training", "llama-worker-0", gpu_nodes[0], job, job_labels, 1),
        pod("training", "llama-worker-1", gpu_nodes[1], job, job_labels, 1),
        pod(
            "default",
            "web-5d8f9c7b6-abcde",
            gpu_nodes[0],
            "{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f9c7b6, uid: 2, controller: true}",
            "{app: web, pod-template-hash: 5d8f9c7b6}",
            0,
        ),
        pod(
            "kube-system",
            "aws-node-x1y2z",
            gpu_nodes[1],
            "{apiVersion: apps/v1, kind: DaemonSet, name: aws-node, uid: 3, controller: true}",
            "{k8s-app: aws-node}",
            0,
        ),
    ]
    .join("---\n");
    let pods_file = dir.join("pods.yaml");
    std::fs::write(&pods_file, pods).unwrap();
    kubectl_apply(&emulator, &file, &pods_file);

    // The GPU group's instance type changes: a replacement, which drains its nodes.
    let design = std::fs::read_to_string(&file)
        .unwrap()
        .replace("g4dn.8xlarge", "g4dn.12xlarge");
    let changed = dir.join("changed.yaml");
    std::fs::write(&changed, design).unwrap();
    let planned = |what: &str| -> serde_json::Value {
        let plan = plan_on(&emulator, &changed, &cluster, &["--format", "json"]);
        assert_eq!(
            plan.status.code(),
            Some(1),
            "{what}: {}",
            text(&plan.stderr)
        );
        serde_json::from_slice(&plan.stdout).unwrap()
    };
    let plan = planned("no budget");
    let change = plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|change| change["name"] == "g4dn")
        .unwrap_or_else(|| panic!("{plan}"))
        .clone();
    assert_eq!(change["action"], "replace", "{plan}");
    let disruption = change["disruption"].as_str().unwrap();
    assert!(
        disruption.contains("on its 2 nodes now: PyTorchJob training/llama (2 pods, 2 nvidia.com/gpu), Deployment default/web (1 pod)"),
        "{disruption}"
    );
    assert!(!disruption.contains("aws-node"), "{disruption}");
    assert_eq!(change["workloads"][0]["training"], true, "{change}");
    assert!(change["workloads"][0]["budget"].is_null(), "{change}");
    let unguarded: Vec<&serde_json::Value> = plan["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["rule"] == "change-drains-unguarded-training")
        .collect();
    assert_eq!(unguarded.len(), 1, "{plan}");
    assert_eq!(unguarded[0]["path"], "node_groups[g4dn]");
    assert!(
        unguarded[0]["message"]
            .as_str()
            .unwrap()
            .contains("PyTorchJob training/llama"),
        "{plan}"
    );
    // The human plan says it under the change.
    let human = text(&plan_on(&emulator, &changed, &cluster, &[]).stdout);
    assert!(
        human.contains("PyTorchJob training/llama (2 pods"),
        "{human}"
    );

    // A PodDisruptionBudget over the run's pods: named, and no advice.
    let budget = dir.join("budget.yaml");
    std::fs::write(
        &budget,
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: llama\n  namespace: training\nspec:\n  minAvailable: 2\n  selector:\n    matchExpressions:\n    - {key: training.kubeflow.org/job-name, operator: In, values: [llama]}\n",
    )
    .unwrap();
    kubectl_apply(&emulator, &file, &budget);
    let plan = planned("a budget");
    let change = plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|change| change["name"] == "g4dn")
        .unwrap()
        .clone();
    assert_eq!(
        change["workloads"][0]["budget"], "training/llama",
        "{change}"
    );
    assert!(
        !plan["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|finding| finding["rule"] == "change-drains-unguarded-training"),
        "{plan}"
    );
}

#[test]
fn auto_mode_pools_are_read_as_kubectl_applied_them_and_a_changed_pool_is_planned() {
    let emulator = Emulator::start();
    let dir = temp_dir("auto-mode");
    let (design, cluster, spec) = deployed_template(&emulator, "auto-mode-reserved-training", &dir);
    assert!(!spec.auto_mode_pools.node_pools.is_empty());
    // Read back: the pools as applied, in the bundle's Auto Mode file.
    let out = dir.join("read");
    let read = read_into(&emulator, &cluster, &out);
    let pools = std::fs::read_to_string(out.join("auto-mode/nodepools.yaml"))
        .unwrap_or_else(|error| panic!("{error}: {}\n{}", text(&read.stdout), text(&read.stderr)));
    let pool = &spec.auto_mode_pools.node_pools[0].metadata.name;
    assert!(pools.contains(&format!("name: {pool}")), "{pools}");
    assert!(
        !text(&read.stderr).contains("Auto Mode's NodePools and NodeClasses"),
        "{}",
        text(&read.stderr)
    );

    // A pool's limits tightened in the design: a change in place.
    let mut changed = spec.clone();
    changed.auto_mode_pools.node_pools[0]
        .spec
        .limits
        .insert("cpu".to_owned(), "64".into());
    let changed_file = dir.join("changed.studio.json");
    std::fs::write(&changed_file, serde_json::to_string(&changed).unwrap()).unwrap();
    let plan = plan_on(&emulator, &changed_file, &cluster, &["--format", "json"]);
    assert_eq!(plan.status.code(), Some(1), "{}", text(&plan.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let changes = plan["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{plan}");
    assert_eq!(changes[0]["kind"], "NodePool");
    assert_eq!(changes[0]["name"], pool.as_str());
    assert_eq!(changes[0]["action"], "update");
    // Unchanged, nothing to do.
    let same = plan_on(&emulator, &design, &cluster, &[]);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stdout));

    // Applied (client-side, so the read still finds the pool as applied): nothing left.
    let calls = applied(&emulator, &changed_file, &cluster, &dir.join("apply"));
    let kubectl: Vec<String> = calls
        .iter()
        .filter(|argv| argv[0] == "kubectl")
        .map(|argv| argv[1..].join(" "))
        .collect();
    assert_eq!(
        kubectl,
        [
            "apply -f auto-mode/nodepools.yaml".to_owned(),
            format!("wait --for=condition=Ready nodepool/{pool} --timeout=300s"),
        ]
    );
}

#[test]
fn karpenter_objects_are_read_from_the_cluster_and_a_tightened_nodepool_plans_a_drift() {
    let emulator = Emulator::start();
    let dir = temp_dir("karpenter");
    let (_, cluster, spec) = deployed_template(&emulator, "karpenter-reserved-training", &dir);
    let karpenter = spec.karpenter.as_ref().unwrap();

    // Read: the objects as a manifest writes them, without what the API server and
    // Karpenter keep about them.
    let out = dir.join("read");
    let read = read_into(&emulator, &cluster, &out);
    assert!(
        !text(&read.stderr).contains("Karpenter's NodePools"),
        "{}",
        text(&read.stderr)
    );
    let objects = std::fs::read_to_string(out.join("karpenter/nodepools.yaml")).unwrap();
    for pool in &karpenter.node_pools {
        assert!(
            objects.contains(&format!("name: {}", pool.metadata.name)),
            "{objects}"
        );
    }
    for server_field in [
        "uid:",
        "resourceVersion",
        "last-applied-configuration",
        "nodepool-hash",
        "status:",
        "finalizers",
    ] {
        assert!(
            !objects.contains(server_field),
            "{server_field} in\n{objects}"
        );
    }
    // The API server's defaults are in what it answers.
    assert!(
        objects.contains("expireAfter: 720h") || objects.contains("expireAfter:"),
        "{objects}"
    );

    // Tighten the first pool (a CPU limit, and only instance types with at least 8 GPUs)
    // and drop the last one: an update that drifts nodes, and a deletion.
    let mut changed = spec.clone();
    let settings = changed.karpenter.as_mut().unwrap();
    let first = settings.node_pools[0].metadata.name.clone();
    settings.node_pools[0]
        .spec
        .limits
        .insert("cpu".into(), yaml_serde::Value::from("1000"));
    settings.node_pools[0].spec.template.spec.requirements.push(
        shared::upstream::karpenter::Requirement {
            key: "karpenter.k8s.aws/instance-gpu-count".into(),
            operator: "Gt".into(),
            values: vec!["7".to_owned()].into(),
            ..Default::default()
        },
    );
    let dropped =
        (settings.node_pools.len() > 1).then(|| settings.node_pools.pop().unwrap().metadata.name);
    let changed_file = dir.join("changed.json");
    std::fs::write(&changed_file, serde_json::to_string(&changed).unwrap()).unwrap();
    let plan = plan_on(&emulator, &changed_file, &cluster, &["--format", "json"]);
    let said = text(&plan.stdout);
    assert_eq!(plan.status.code(), Some(1), "{said}{}", text(&plan.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let changes = plan["changes"].as_array().unwrap();
    let tightened = changes
        .iter()
        .find(|change| change["name"] == first.as_str())
        .unwrap_or_else(|| panic!("no change for NodePool {first}: {plan}"));
    assert_eq!(tightened["action"], "update", "{plan}");
    assert_eq!(tightened["disruptive"], true, "{plan}");
    assert!(
        tightened["disruption"]
            .as_str()
            .unwrap()
            .contains("drifted"),
        "{plan}"
    );
    if let Some(dropped) = dropped {
        let gone = changes
            .iter()
            .find(|change| change["name"] == dropped.as_str())
            .unwrap_or_else(|| panic!("no change for NodePool {dropped}: {plan}"));
        assert_eq!(gone["action"], "delete", "{plan}");
    }
    // Only what changed: the defaults the API server filled in are no change.
    assert_eq!(
        changes.len(),
        1 + usize::from(karpenter.node_pools.len() > 1),
        "{plan}"
    );
    // The chart's values were read: its settings are compared too.
    assert!(
        !plan["not_compared"]
            .as_array()
            .unwrap()
            .iter()
            .any(|what| what.as_str().unwrap().contains("Helm settings")),
        "{plan}"
    );
    let read_design: shared::Spec =
        serde_json::from_str(&std::fs::read_to_string(out.join("studio.json")).unwrap()).unwrap();
    let read_settings = read_design.karpenter.unwrap();
    assert_eq!(
        read_settings.interruption_queue,
        karpenter.interruption_queue
    );
    assert_eq!(read_settings.node_repair, karpenter.node_repair);
    assert_eq!(
        read_settings.controller_identity,
        karpenter.controller_identity
    );
}

#[test]
fn endpoint_access_logging_and_support_round_trip_through_eks() {
    let emulator = Emulator::start();
    let dir = temp_dir("cluster-settings");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let settings: yaml_serde::Value = yaml_serde::from_str(
        "{clusterEndpoints: {publicAccess: true, privateAccess: true}, publicAccessCIDRs: [203.0.113.0/24]}",
    )
    .unwrap();
    let vpc = design
        .as_mapping_mut()
        .unwrap()
        .entry("vpc".into())
        .or_insert_with(|| yaml_serde::Value::Mapping(Default::default()));
    for (key, value) in settings.as_mapping().unwrap() {
        vpc.as_mapping_mut()
            .unwrap()
            .insert(key.clone(), value.clone());
    }
    design["cloudWatch"] = yaml_serde::from_str(
        "{clusterLogging: {enableTypes: [audit, api], logRetentionInDays: 7}}",
    )
    .unwrap();
    design["upgradePolicy"] = yaml_serde::from_str("{supportType: STANDARD}").unwrap();
    std::fs::write(&file, yaml_serde::to_string(&design).unwrap()).unwrap();
    eksctl_create(&emulator, &file);

    let read = eks_studio(
        &emulator,
        &["read", "--cluster", &cluster, "--region", REGION],
    );
    let said = text(&read.stdout);
    assert!(said.contains("privateAccess: true"), "{said}");
    assert!(said.contains("203.0.113.0/24"), "{said}");
    assert!(said.contains("supportType: STANDARD"), "{said}");
    let plan = plan_on(&emulator, &file, &cluster, &[]);
    let said = text(&plan.stdout);
    assert_eq!(plan.status.code(), Some(0), "{said}{}", text(&plan.stderr));
    assert!(said.starts_with("No changes"), "{said}");
    // The log retention is CloudWatch's, which eksctl sets and a read does not see.
    assert!(
        said.contains("not compared: `cloudWatch` of the ClusterConfig"),
        "{said}"
    );
}

#[test]
fn an_upgrade_plan_judges_add_on_versions_by_what_eks_offers() {
    let emulator = Emulator::start();
    let dir = temp_dir("addon-versions");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    design["metadata"]["version"] = "1.34".into();
    design["addons"] =
        yaml_serde::from_str("[{name: vpc-cni, version: v1.19.0-eksbuild.1}]").unwrap();
    std::fs::write(&file, yaml_serde::to_string(&design).unwrap()).unwrap();
    eksctl_create(&emulator, &file);
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(emulator.seed(
            "addon-versions",
            serde_json::json!({"addons": [{"addonName": "vpc-cni", "versions": [
                {"addonVersion": "v1.21.0-eksbuild.1", "clusterVersions": ["1.35"]},
                {"addonVersion": "v1.19.0-eksbuild.1", "clusterVersions": ["1.33", "1.34"]}
            ]}]}),
        ));
    let plan_of = |design: &yaml_serde::Value, name: &str| {
        let changed = dir.join(name);
        std::fs::write(&changed, yaml_serde::to_string(design).unwrap()).unwrap();
        let plan = plan_on(&emulator, &changed, &cluster, &["--format", "json"]);
        let answer: serde_json::Value = serde_json::from_slice(&plan.stdout)
            .unwrap_or_else(|_| panic!("{}{}", text(&plan.stdout), text(&plan.stderr)));
        (plan.status.code(), answer)
    };
    let rules = |plan: &serde_json::Value| -> Vec<String> {
        plan["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|finding| finding["rule"].as_str().unwrap().to_owned())
            .collect()
    };

    // 1.34 → 1.35 with the add-on still pinned to a version EKS offers only up to 1.34.
    design["metadata"]["version"] = "1.35".into();
    let (code, plan) = plan_of(&design, "pinned.yaml");
    assert_eq!(code, Some(3), "a change the peers refuse: {plan}");
    assert!(
        rules(&plan).contains(&"change-addon-version-not-offered".to_owned()),
        "{plan}"
    );

    // Left to EKS's newest: a warning to update it after the control plane.
    design["addons"][0]["version"] = "latest".into();
    let (code, plan) = plan_of(&design, "latest.yaml");
    assert_eq!(code, Some(1), "{plan}");
    assert!(
        rules(&plan).contains(&"change-addon-update-after-upgrade".to_owned()),
        "{plan}"
    );
}

#[test]
fn a_cluster_that_does_not_exist_is_an_error_naming_it() {
    let emulator = Emulator::start();
    let read = eks_studio(
        &emulator,
        &["read", "--cluster", "nowhere", "--region", REGION],
    );
    assert_eq!(read.status.code(), Some(2));
    let said = text(&read.stderr);
    assert!(said.contains("cannot read cluster nowhere"), "{said}");
    assert!(said.contains("DescribeCluster"), "{said}");
}

#[test]
fn the_iam_policy_in_the_docs_names_every_call_a_read_makes() {
    let docs = std::fs::read_to_string(root().join("docs/day-two.md")).unwrap();
    for action in backend::aws::running::READ_ACTIONS {
        assert!(
            docs.contains(&format!("\"{action}\"")),
            "docs/day-two.md's policy lacks {action}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_api_lists_reads_and_plans_against_a_running_cluster() {
    let emulator = Emulator::start();
    let dir = temp_dir("api");
    let (file, cluster) = filled_template(&emulator, "p4de-odcr", &dir);
    eksctl_create(&emulator, &file);
    let router = backend::app(backend::AppState {
        aws: emulator.live_aws().await,
        deploys: reads_only(),
        ..backend::AppState::default()
    });

    // The account's clusters, a cluster's access entries and workloads are the deploy
    // token's holders' only: without it, or with another, each route says so and reads
    // nothing.
    for uri in ["/api/clusters", "/api/clusters/read", "/api/plan"] {
        let body = serde_json::json!({"region": REGION, "cluster": cluster});
        for (token, said) in [
            (None, "needs the deploy token"),
            (Some("not-the-token-0123456789"), "wrong deploy token"),
        ] {
            let (status, refused) = post_json_as(&router, uri, &body, token).await;
            assert_eq!(status, 401, "{uri}: {refused}");
            assert!(refused.to_string().contains(said), "{uri}: {refused}");
        }
    }
    let calls_before = emulator.all_calls().await;
    let (status, _) = post_json_as(
        &router,
        "/api/clusters/read",
        &serde_json::json!({"region": REGION, "cluster": cluster}),
        None,
    )
    .await;
    assert_eq!(status, 401);
    assert_eq!(
        emulator.all_calls().await,
        calls_before,
        "a refused read calls no AWS API"
    );

    let (status, listed) = post_json(
        &router,
        "/api/clusters",
        &serde_json::json!({"region": REGION}),
    )
    .await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["clusters"], serde_json::json!([cluster]));

    let (status, read) = post_json(
        &router,
        "/api/clusters/read",
        &serde_json::json!({"region": REGION, "cluster": cluster}),
    )
    .await;
    assert_eq!(status, 200, "{read}");
    let groups = read["spec"]["node_groups"].as_array().unwrap();
    let gpu = groups
        .iter()
        .find(|group| group["name"] == "p4de-odcr")
        .expect("the reserved group is read");
    assert_eq!(gpu["efa_enabled"], true);
    assert!(
        gpu["capacity"].to_string().contains("cr-0123456789abcdef0"),
        "the reservation is read from the launch template: {gpu}"
    );
    assert!(!read["not_read"].as_array().unwrap().is_empty());

    // The design as the page holds it, one group scaled: one update, no disruption.
    let mut design: serde_json::Value = design_json(&file);
    for group in design["node_groups"].as_array_mut().unwrap() {
        if group["name"] == "p4de-odcr" {
            group["desired_capacity"] = 1.into();
        }
    }
    let (status, plan) = post_json(
        &router,
        "/api/plan",
        &serde_json::json!({"region": REGION, "cluster": cluster, "spec": design}),
    )
    .await;
    assert_eq!(status, 200, "{plan}");
    assert_eq!(plan["changes"].as_array().unwrap().len(), 1, "{plan}");
    assert_eq!(plan["changes"][0]["action"], "update");
    assert_eq!(
        plan["changes"][0]["disruptive"], true,
        "scaling in drains a node: {plan}"
    );
    assert!(plan["not_compared"].as_array().is_some());

    let (status, missing) = post_json(
        &router,
        "/api/clusters/read",
        &serde_json::json!({"region": REGION, "cluster": "nowhere"}),
    )
    .await;
    assert_eq!(status, 404, "{missing}");
    let (status, bad) = post_json(
        &router,
        "/api/clusters/read",
        &serde_json::json!({"region": "mars-1", "cluster": "x"}),
    )
    .await;
    assert_eq!(status, 422, "{bad}");
}

/// How long `plan` against a running cluster takes beside its slowest single AWS call, with
/// every call of the emulator answering after the same delay (as a distant region does).
/// A measurement, not a behaviour test: `cargo xtask bench --only plan` runs it in the
/// release build and takes the `plan-latency:` lines into docs/performance.md.
#[test]
#[ignore = "a measurement: cargo xtask bench --only plan"]
fn plan_latency_beside_the_slowest_single_call() {
    use std::time::{Duration, Instant};
    const DELAY_SECONDS: f64 = 0.25;
    let emulator = Emulator::start();
    let dir = temp_dir("latency");
    // The template with the most to read: node groups and add-ons.
    let template = shared::TEMPLATES
        .iter()
        .max_by_key(|template| {
            let spec = template.spec();
            spec.node_groups.len() + spec.addons.len()
        })
        .unwrap();
    let (file, cluster) = filled_template(&emulator, template.id, &dir);
    eksctl_create(&emulator, &file);
    let warm = plan_on(&emulator, &file, &cluster, &[]);
    assert_eq!(warm.status.code(), Some(0), "{}", text(&warm.stderr));

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let eks = emulator.eks_client();
    let ec2 = emulator.ec2_client();
    runtime.block_on(emulator.delay(DELAY_SECONDS));
    let single = |call: &str| -> Duration {
        let samples = (0..3)
            .map(|_| {
                let started = Instant::now();
                runtime
                    .block_on(async {
                        match call {
                            "DescribeCluster" => eks
                                .describe_cluster()
                                .name(&cluster)
                                .send()
                                .await
                                .map(drop)
                                .map_err(|e| e.to_string()),
                            "ListNodegroups" => eks
                                .list_nodegroups()
                                .cluster_name(&cluster)
                                .send()
                                .await
                                .map(drop)
                                .map_err(|e| e.to_string()),
                            "ListAddons" => eks
                                .list_addons()
                                .cluster_name(&cluster)
                                .send()
                                .await
                                .map(drop)
                                .map_err(|e| e.to_string()),
                            "DescribeSubnets" => ec2
                                .describe_subnets()
                                .send()
                                .await
                                .map(drop)
                                .map_err(|e| e.to_string()),
                            other => panic!("no such call here: {other}"),
                        }
                    })
                    .unwrap_or_else(|error| panic!("{call}: {error}"));
                started.elapsed()
            })
            .collect();
        median(samples)
    };
    let calls = [
        "DescribeCluster",
        "ListNodegroups",
        "ListAddons",
        "DescribeSubnets",
    ];
    let timed: Vec<(&str, Duration)> = calls.iter().map(|call| (*call, single(call))).collect();
    let (slowest_call, slowest) = timed.iter().max_by_key(|(_, time)| *time).copied().unwrap();
    let plans: Vec<Duration> = (0..5)
        .map(|_| {
            let started = Instant::now();
            let plan = plan_on(&emulator, &file, &cluster, &[]);
            assert_eq!(plan.status.code(), Some(0), "{}", text(&plan.stderr));
            started.elapsed()
        })
        .collect();
    let plan = median(plans);
    let groups = template.spec().node_groups.len();
    let addons = template.spec().addons.len();
    println!(
        "plan-latency: eks-studio plan of template {} ({groups} node groups, {addons} add-ons), every call {:.0} ms away (median of 5): {:.0} ms; slowest single call ({slowest_call}, median of 3) {:.0} ms; {:.2}x",
        template.id,
        DELAY_SECONDS * 1000.0,
        plan.as_secs_f64() * 1000.0,
        slowest.as_secs_f64() * 1000.0,
        plan.as_secs_f64() / slowest.as_secs_f64()
    );
}

#[tokio::test]
async fn a_name_eks_would_not_give_a_cluster_never_reaches_the_tools() {
    let tools = backend::deploy::Tools {
        aws: root().join("tests/fixtures/aws"),
        kubectl: root().join("tests/fixtures/kubectl"),
        ..backend::deploy::Tools::default()
    };
    for name in [
        "--kubeconfig=/etc/passwd",
        "-x",
        "a b",
        "",
        &"a".repeat(101),
    ] {
        let access = backend::aws::running::ApiAccess {
            arn: format!("arn:aws:eks:{REGION}:123456789012:cluster/any"),
            endpoint: "https://127.0.0.1:9".into(),
            certificate_authority: "Y2E=".into(),
        };
        let answer = backend::deploy::objects::read_objects(&tools, REGION, name, &access).await;
        let why = answer.expect_err(name);
        assert!(
            why.contains("is not a name EKS gives a cluster"),
            "{name}: {why}"
        );
    }
}

/// A plan describes the design's managed groups while it asks EKS for the list: a group
/// the design names that the cluster lacks is still a creation, and a group the cluster
/// runs that the design no longer names is still read, and deleted.
#[test]
fn a_plan_reads_groups_the_design_lacks_and_drops_the_ones_the_cluster_lacks() {
    let emulator = Emulator::start();
    let dir = temp_dir("guessed-groups");
    let (file, cluster) = filled_template(&emulator, "g4dn", &dir);
    eksctl_create(&emulator, &file);
    let mut design: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let groups = design["managedNodeGroups"].as_sequence_mut().unwrap();
    groups.retain(|group| group["name"] != "sys");
    groups.push(yaml_serde::from_str("{name: extra, instanceType: m5.large}").unwrap());
    let changed = dir.join("changed.yaml");
    std::fs::write(&changed, yaml_serde::to_string(&design).unwrap()).unwrap();
    let plan = plan_on(&emulator, &changed, &cluster, &["--format", "json"]);
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let changes = actions_of(&plan);
    assert_eq!(
        changes,
        [
            ("create".to_owned(), "extra".to_owned()),
            ("delete".to_owned(), "sys".to_owned())
        ],
        "{plan:#}"
    );
    assert!(
        !plan["not_read"]
            .as_array()
            .unwrap()
            .iter()
            .any(|gap| gap.to_string().contains("extra")),
        "a guess the cluster does not hold is no gap: {plan:#}"
    );
}

/// A plan asks EC2 about the reservation each group of the design runs on, beside the
/// read: a group that may run more nodes than its reservation holds is warned with how many
/// can never launch, and a reservation EC2 cannot describe is named as not read.
#[test]
fn a_plan_reads_the_reservation_a_group_runs_on_and_counts_the_nodes_past_it() {
    let emulator = Emulator::start();
    let dir = temp_dir("plan-reservation");
    let (file, cluster) = filled_template(&emulator, "p4de-odcr", &dir);
    eksctl_create(&emulator, &file);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(emulator.seed(
        "capacity-reservations",
        serde_json::json!({
            "region": REGION,
            "capacity_reservations": [{
                "CapacityReservationId": "cr-0123456789abcdef0",
                "InstanceType": "p4de.24xlarge",
                "AvailabilityZone": "us-east-1b",
                "TotalInstanceCount": 4,
                "AvailableInstanceCount": 2,
            }],
        }),
    ));
    let plan = plan_on(&emulator, &file, &cluster, &[]);
    let said = text(&plan.stdout);
    assert_eq!(plan.status.code(), Some(0), "{said}{}", text(&plan.stderr));
    assert!(said.contains("No changes"), "{said}");
    assert!(
        said.contains("change-size-beyond-reservation")
            && said.contains("holds 4 (EC2, now): 6 of them can never launch"),
        "{said}"
    );

    // EC2 refusing the call: the plan says what it could not read, and plans the rest.
    runtime.block_on(
        emulator
            .refuse(serde_json::json!({"DescribeCapacityReservations": "UnauthorizedOperation"})),
    );
    let plan = plan_on(&emulator, &file, &cluster, &[]);
    let said = text(&plan.stdout);
    assert_eq!(plan.status.code(), Some(0), "{said}{}", text(&plan.stderr));
    assert!(
        said.contains("capacity reservation cr-0123456789abcdef0"),
        "{said}"
    );
    assert!(!said.contains("change-size-beyond-reservation"), "{said}");
}
