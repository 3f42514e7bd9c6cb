//! Every rule fires on a spec that breaks it, at the right field, and stays quiet on a
//! correct spec. The cases are data: one row per rule.

mod common;

mod rule_cases;

use rule_cases::*;

#[test]
fn ec2_agreeing_with_the_catalog_is_no_finding_and_a_type_offered_nowhere_is_one() {
    let (spec, mut live) = block();
    let catalog = shared::catalog::instances::lookup("p5.48xlarge").unwrap();
    live.instance_types.push(InstanceTypeFact {
        instance_type: "p5.48xlarge".into(),
        efa_supported: catalog.efa_supported,
        efa_interfaces: catalog.efa_interfaces,
        gpu_count: catalog.gpu_count,
        gpu_memory_mib: catalog.gpu_memory_mib,
        neuron_count: 0,
        network_cards: catalog.network_cards,
    });
    assert!(fired_paths(&spec, &live, "instance-type-catalog-disagrees").is_empty());
    // EC2 counting other network cards than Karpenter's table is said; not saying is not.
    live.instance_types[0].network_cards = 16;
    assert_eq!(
        fired_paths(&spec, &live, "instance-type-catalog-disagrees"),
        ["node_groups[1].instance_type"]
    );
    live.instance_types[0].network_cards = 0;
    assert!(fired_paths(&spec, &live, "instance-type-catalog-disagrees").is_empty());
    live.offerings[0].availability_zones.clear();
    // Offered nowhere is said once, not once per zone of the group.
    assert!(fired_paths(&spec, &live, "instance-type-not-offered").is_empty());
    assert_eq!(
        fired_paths(&spec, &live, "instance-type-offered-nowhere"),
        ["node_groups[1].instance_type"]
    );
}

/// Without live checks, the window the user typed is judged: a block that starts on a
/// later day waits for its start, a block crossing the end of standard support says so
/// at its start field, and the usable time is the block less the 30 minutes (60 for
/// UltraServers) in which EC2 ends its instances.
#[test]
fn a_typed_capacity_block_window_is_judged_without_live_checks() {
    let (mut spec, _) = block();
    let today = LiveFacts::on(shared::catalog::versions::Date::parse("2026-12-04").unwrap());
    let fired = |spec: &Spec, rule: &str| {
        rules::validate_with(spec, &today)
            .into_iter()
            .filter(|finding| finding.rule == rule)
            .map(|finding| (finding.path, finding.message))
            .collect::<Vec<_>>()
    };
    let window = &mut spec.node_groups[1].block_window;
    window.starts = "2026-12-10 11:30".into();
    window.ends = "2026-12-17 11:30".into();
    let waiting = fired(&spec, "capacity-block-not-started");
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(waiting[0].0, "node_groups[1].desired_capacity");
    assert!(
        waiting[0]
            .1
            .contains("starts 2026-12-10 11:30 UTC (as the design says)"),
        "{}",
        waiting[0].1
    );
    // Started yesterday: nothing to wait for.
    spec.node_groups[1].block_window.starts = "2026-12-03".into();
    assert!(fired(&spec, "capacity-block-not-started").is_empty());
    // A week checkpointed every 10078 minutes: 10080 − 30 usable, so the first checkpoint
    // comes in time; every 10050 minutes it does not.
    let window = &mut spec.node_groups[1].block_window;
    window.starts = "2026-12-10 11:30".into();
    window.checkpoint_minutes = Some(10_049);
    assert!(fired(&spec, "capacity-block-shorter-than-checkpoint").is_empty());
    spec.node_groups[1].block_window.checkpoint_minutes = Some(10_050);
    let short = fired(&spec, "capacity-block-shorter-than-checkpoint");
    assert!(short[0].1.contains("10050 usable minutes"), "{short:?}");
    // An older Kubernetes that leaves standard support inside the typed window.
    spec.cluster.kubernetes_version = "1.34".into();
    let window = &mut spec.node_groups[1].block_window;
    window.starts = "2026-11-25 11:30".into();
    window.ends = "2026-12-09 11:30".into();
    let crossing = fired(&spec, "capacity-block-crosses-support-end");
    assert_eq!(
        crossing[0].0, "node_groups[1].block_window.starts",
        "{crossing:?}"
    );
    // Ends before it starts, and a time that does not read.
    let window = &mut spec.node_groups[1].block_window;
    window.ends = "2026-11-20".into();
    window.needed_until = "2026-02-30".into();
    let unreadable: Vec<String> = fired(&spec, "capacity-block-window-unreadable")
        .into_iter()
        .map(|(path, _)| path)
        .collect();
    assert_eq!(
        unreadable,
        [
            "node_groups[1].block_window.ends",
            "node_groups[1].block_window.needed_until"
        ]
    );
}

#[test]
fn a_capacity_block_says_when_it_starts_and_a_scheduled_one_waits_for_its_start() {
    let (mut spec, mut live) = block();
    live.reservations[0].state = "scheduled".into();
    live.reservations[0].start_date = Some("2026-12-10T11:30:00Z".into());
    live.reservations[0].end_date = Some("2026-12-17T11:30:00.000Z".into());
    let message = |spec: &Spec, live: &LiveFacts, rule: &str| {
        rules::validate_with(spec, live)
            .into_iter()
            .find(|finding| finding.rule == rule)
            .map(|finding| finding.message)
    };
    assert_eq!(
        message(&spec, &live, "reservation-end-date").unwrap(),
        format!(
            "Capacity Block {}: 2 × p5.48xlarge in us-east-1a, scheduled, 2 free, from 2026-12-10 11:30 UTC to 2026-12-17 11:30 UTC",
            live.reservations[0].id
        )
    );
    let waiting = message(&spec, &live, "capacity-block-not-started").unwrap();
    assert!(waiting.contains("starts 2026-12-10 11:30 UTC"), "{waiting}");
    // What to run once it starts, in full.
    assert!(
        waiting.ends_with(&format!(
            "run `eksctl scale nodegroup --cluster {} --region {} --name {} --nodes 1`",
            spec.cluster.name, spec.cluster.region, spec.node_groups[1].name
        )),
        "{waiting}"
    );
    // 1.35 stays in standard support until 2027-03-27: not inside this week's block.
    assert_eq!(
        message(&spec, &live, "capacity-block-crosses-support-end"),
        None
    );
    let mut old_version = spec.clone();
    old_version.cluster.kubernetes_version = "1.34".into();
    let mut over_the_end = live.clone();
    over_the_end.reservations[0].start_date = Some("2026-11-25T11:30:00Z".into());
    over_the_end.reservations[0].end_date = Some("2026-12-09T11:30:00Z".into());
    let crossing = message(
        &old_version,
        &over_the_end,
        "capacity-block-crosses-support-end",
    )
    .unwrap();
    assert!(
        crossing.starts_with("Kubernetes 1.34 leaves standard support on 2026-12-02: ")
            && crossing.contains("(2026-11-25 11:30 UTC to 2026-12-09 11:30 UTC)")
            && crossing.ends_with("upgrade before 2026-11-25 11:30 UTC"),
        "{crossing}"
    );
    // A group created with no nodes waits for the block without a finding.
    let gpu = &mut spec.node_groups[1];
    gpu.desired_capacity = Some(0);
    gpu.min_size = Some(0);
    assert_eq!(message(&spec, &live, "capacity-block-not-started"), None);
    // An ODCR reads "ends", not a start.
    live.reservations[0].reservation_type = "default".into();
    live.reservations[0].state = "active".into();
    let odcr = message(&spec, &live, "reservation-end-date").unwrap();
    assert!(
        odcr.starts_with("reservation ") && odcr.ends_with("ends 2026-12-17 11:30 UTC"),
        "{odcr}"
    );
}

#[test]
fn auto_mode_is_judged_as_eksctl_judges_it() {
    let messages = |spec: &Spec, rule: &str| -> Vec<(String, String)> {
        rules::validate(spec)
            .into_iter()
            .filter(|finding| finding.rule == rule)
            .map(|finding| (finding.path, finding.message))
            .collect()
    };
    let mut spec = auto_mode();
    // eksctl's own cases (auto_mode_validation_test.go): both node pools, none, a role.
    for pools in [Some(vec![]), Some(vec!["system".to_owned()]), None] {
        auto_mode_of(&mut spec).node_pools = pools;
        assert!(messages(&spec, "auto-mode-config-invalid").is_empty());
    }
    auto_mode_of(&mut spec).node_pools = Some(vec!["system".into(), "system".into()]);
    assert_eq!(
        messages(&spec, "auto-mode-config-invalid"),
        [(
            "cluster.auto_mode.node_pools[1]".to_owned(),
            "node pool `system` is listed twice".to_owned()
        )]
    );
    auto_mode_of(&mut spec).node_pools = Some(vec![]);
    auto_mode_of(&mut spec).node_role_arn = "arn:aws:iam::111122223333:role/auto-nodes".into();
    assert_eq!(
        messages(&spec, "auto-mode-config-invalid")[0].0,
        "cluster.auto_mode.node_pools"
    );
    auto_mode_of(&mut spec).node_pools = None;
    auto_mode_of(&mut spec).permissions_boundary_arn =
        "arn:aws:iam::111122223333:policy/boundary".into();
    assert_eq!(
        messages(&spec, "auto-mode-config-invalid")[0].0,
        "cluster.auto_mode.permissions_boundary_arn"
    );
    // Settings with Auto Mode off.
    auto_mode_of(&mut spec).permissions_boundary_arn.clear();
    auto_mode_of(&mut spec).enabled = false;
    assert_eq!(
        messages(&spec, "auto-mode-config-invalid")[0].0,
        "cluster.auto_mode"
    );
    // Off and empty says nothing; neither does a cluster without Auto Mode.
    auto_mode_of(&mut spec).node_role_arn.clear();
    assert!(messages(&spec, "auto-mode-config-invalid").is_empty());

    // Karpenter beside Auto Mode (a migration): its controller runs on Auto Mode's
    // built-in pools, so no node group is needed for it; with no built-in pool it is.
    let mut spec = auto_mode();
    spec.karpenter = karpenter_spot().karpenter;
    assert!(messages(&spec, "karpenter-controller-has-no-nodes").is_empty());
    assert!(messages(&spec, "karpenter-controller-one-node").is_empty());
    auto_mode_of(&mut spec).node_pools = Some(vec![]);
    assert_eq!(
        messages(&spec, "karpenter-controller-has-no-nodes").len(),
        1
    );

    // At creation: core networking add-ons are refused, metrics-server is not, and
    // Fargate profiles make them allowed again.
    let mut spec = auto_mode();
    for name in ["metrics-server", "coredns"] {
        spec.addons.push(shared::model::spec::Addon {
            name: name.into(),
            ..shared::model::spec::Addon::default()
        });
    }
    let core = messages(&spec, "auto-mode-create-conflict");
    assert_eq!(core.len(), 1, "{core:?}");
    assert_eq!(core[0].0, format!("addons[{}].name", spec.addons.len() - 1));
    spec.eksctl_extra.insert(
        "fargateProfiles".into(),
        yaml_serde::from_str("[{name: fp-default, selectors: [{namespace: default}]}]").unwrap(),
    );
    assert!(messages(&spec, "auto-mode-create-conflict").is_empty());
    spec.eksctl_extra.insert(
        "nodeGroups".into(),
        yaml_serde::from_str("[{name: ng-1, instanceType: m5.large}]").unwrap(),
    );
    assert_eq!(
        messages(&spec, "auto-mode-create-conflict"),
        [(
            "cluster.auto_mode".to_owned(),
            "Auto Mode is on: eksctl does not create the self-managed nodeGroups with the cluster; create them after it".to_owned()
        )]
    );
}

#[test]
fn fsx_and_s3_volumes_are_judged_as_fsx_and_s3_judge_them() {
    let fired = |spec: &Spec, rule: &str| -> Vec<(String, String)> {
        rules::validate(spec)
            .into_iter()
            .filter(|finding| finding.rule == rule)
            .map(|finding| (finding.path, finding.message))
            .collect()
    };
    let mut spec = with_storage();
    // Scratch file systems take no throughput; persistent ones need one FSx sells.
    fsx_of(&mut spec).deployment_type = "SCRATCH_2".into();
    assert_eq!(
        fired(&spec, "storage-fsx-deployment-invalid"),
        [(
            "storage.fsx.per_unit_storage_throughput".to_owned(),
            "a SCRATCH_2 file system takes no throughput per TiB (FSx refuses 250)".to_owned()
        )]
    );
    fsx_of(&mut spec).per_unit_storage_throughput = None;
    assert!(fired(&spec, "storage-fsx-deployment-invalid").is_empty());
    fsx_of(&mut spec).deployment_type = "PERSISTENT_1".into();
    assert!(
        fired(&spec, "storage-fsx-deployment-invalid")[0]
            .1
            .contains("needs its throughput per TiB: one of 12, 40, 50, 100, 200")
    );
    fsx_of(&mut spec).per_unit_storage_throughput = Some(100);
    fsx_of(&mut spec).storage_gib = 1000;
    assert_eq!(
        fired(&spec, "storage-fsx-deployment-invalid")[0].0,
        "storage.fsx.storage_gib"
    );
    fsx_of(&mut spec).deployment_type = "PERSISTENT_3".into();
    assert_eq!(
        fired(&spec, "storage-fsx-deployment-invalid")[0].0,
        "storage.fsx.deployment_type"
    );

    // Placeholders are the placeholder rule's, not a second finding.
    let mut spec = with_storage();
    fsx_of(&mut spec).subnet_id = "PLACEHOLDER_FSX_SUBNET_ID".into();
    spec.storage.s3.as_mut().unwrap().bucket = "PLACEHOLDER_S3_BUCKET".into();
    assert!(fired(&spec, "storage-fsx-network-invalid").is_empty());
    assert!(fired(&spec, "storage-s3-bucket-invalid").is_empty());
    let placeholders: Vec<String> = fired(&spec, "placeholder-left")
        .into_iter()
        .map(|(path, _)| path)
        .collect();
    assert!(
        placeholders.contains(&"storage.fsx.subnet_id".to_owned()),
        "{placeholders:?}"
    );
    assert!(
        placeholders.contains(&"storage.s3.bucket".to_owned()),
        "{placeholders:?}"
    );
    fsx_of(&mut spec).subnet_id.clear();
    fsx_of(&mut spec).security_group_ids.clear();
    // In a new VPC the ids do not exist yet: empty ones are the deploy's to find, not an
    // error; in an existing VPC both are missing; a malformed one is always an error.
    let new_vpc = spec.network.clone();
    assert!(matches!(
        new_vpc,
        shared::model::spec::Network::NewVpc { .. }
    ));
    assert!(fired(&spec, "storage-fsx-network-invalid").is_empty());
    spec.network = shared::model::spec::Network::ExistingVpc {
        vpc_id: "vpc-0123456789abcdef0".into(),
        public_subnets: Vec::new(),
        private_subnets: Vec::new(),
    };
    assert_eq!(fired(&spec, "storage-fsx-network-invalid").len(), 2);
    spec.network = new_vpc;
    fsx_of(&mut spec).security_group_ids = vec!["sg-12".into()];
    assert_eq!(fired(&spec, "storage-fsx-network-invalid").len(), 1);

    // S3's naming rules.
    for (bucket, problem) in [
        ("ab", "3 to 63"),
        ("training..data", "two dots"),
        ("192.168.5.4", "IP address"),
        ("-training", "start and end"),
        ("xn--training", "reserves"),
        ("training-s3alias", "reserves"),
    ] {
        let mut spec = with_storage();
        spec.storage.s3.as_mut().unwrap().bucket = bucket.into();
        let found = fired(&spec, "storage-s3-bucket-invalid");
        assert!(
            found.len() == 1 && found[0].1.contains(problem),
            "{bucket}: {found:?}"
        );
    }
    for bucket in ["my.training-data.2026", "abc", "a".repeat(63).as_str()] {
        let mut spec = with_storage();
        spec.storage.s3.as_mut().unwrap().bucket = bucket.into();
        assert!(
            fired(&spec, "storage-s3-bucket-invalid").is_empty(),
            "{bucket}"
        );
    }
}

#[test]
fn times_read_as_people_read_them() {
    use shared::rules::readable_time;
    assert_eq!(
        readable_time("2026-12-14T11:30:00Z"),
        "2026-12-14 11:30 UTC"
    );
    assert_eq!(
        readable_time("2026-12-14T11:30:15+00:00"),
        "2026-12-14 11:30:15 UTC"
    );
    assert_eq!(
        readable_time("2026-12-14T11:30:00.000Z"),
        "2026-12-14 11:30 UTC"
    );
    // Another offset is kept as given rather than converted.
    assert_eq!(
        readable_time("2026-12-14T11:30:00-05:00"),
        "2026-12-14T11:30:00-05:00"
    );
}

#[test]
fn a_placeholder_zone_is_not_also_a_type_not_offered_there() {
    let (mut spec, mut live) = block();
    live.offerings[0].availability_zones = vec!["us-east-1a".into(), "use1-az4".into()];
    spec.node_groups[1].placement = GroupPlacement::AvailabilityZones {
        availability_zones: vec!["PLACEHOLDER_AZ_1".into(), "us-east-1b".into()],
    };
    let messages: Vec<String> = rules::validate_with(&spec, &live)
        .into_iter()
        .filter(|finding| finding.rule == "instance-type-not-offered")
        .map(|finding| finding.message)
        .collect();
    assert_eq!(
        messages,
        ["p5.48xlarge is not offered in us-east-1b (offered in: us-east-1a)"]
    );
}

#[test]
fn a_version_eks_lists_is_judged_by_eks_not_the_calendar() {
    let (mut spec, mut live) = block();
    spec.cluster.kubernetes_version = "1.36".into();
    eks_lists(
        &mut live,
        &[("1.36", "STANDARD_SUPPORT"), ("1.35", "STANDARD_SUPPORT")],
    );
    let version_findings: Vec<_> = rules::validate_with(&spec, &live)
        .into_iter()
        .filter(|finding| finding.path == "cluster.kubernetes_version")
        .collect();
    assert!(version_findings.is_empty(), "{version_findings:?}");

    eks_lists(&mut live, EKS_TODAY);
    let refusal = rules::validate_with(&spec, &live)
        .into_iter()
        .find(|finding| finding.rule == "kubernetes-version-unsupported")
        .expect("a version EKS does not list is refused");
    assert_eq!(
        refusal.message,
        "EKS in us-east-1 does not offer Kubernetes 1.36; it offers 1.35, 1.34, 1.33, 1.32 (DescribeClusterVersions)"
    );
}

fn fired_paths(spec: &Spec, live: &LiveFacts, rule: &str) -> Vec<String> {
    rules::validate_with(spec, live)
        .into_iter()
        .filter(|finding| finding.rule == rule)
        .map(|finding| finding.path)
        .collect()
}

#[test]
fn every_rule_has_a_case_and_the_catalog_has_at_least_forty() {
    let catalog = rules::catalog();
    assert!(catalog.len() >= 40, "only {} rules", catalog.len());
    // The change stage's rules are judged on pairs of designs, in changes.rs.
    let change_cases = include_str!("changes.rs");
    for rule in &catalog {
        let has_case = if rule.stage == shared::rules::Stage::Change {
            change_cases.contains(&format!("\"{}\"", rule.id))
        } else if rule.checks_documents() {
            DOCUMENT_CASES.iter().any(|case| case.rule == rule.id)
        } else {
            CASES.iter().any(|case| case.rule == rule.id)
        };
        assert!(has_case, "rule {} has no case", rule.id);
    }
    for rule_id in CASES
        .iter()
        .map(|case| case.rule)
        .chain(DOCUMENT_CASES.iter().map(|case| case.rule))
    {
        assert!(
            rules::rule(rule_id).is_some(),
            "case for unknown rule {rule_id}"
        );
    }
    let mut ids: Vec<&str> = catalog.iter().map(|rule| rule.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), catalog.len(), "rule ids are unique");
}

#[test]
fn each_rule_is_quiet_on_its_correct_spec() {
    for case in CASES {
        let (spec, live) = (case.base)();
        let fired = fired_paths(&spec, &live, case.rule);
        assert!(
            fired.is_empty(),
            "{} fired on the correct spec at {fired:?}",
            case.rule
        );
    }
}

#[test]
fn each_rule_fires_at_its_field_when_broken() {
    for case in CASES {
        let (mut spec, mut live) = (case.base)();
        (case.breaks)(&mut spec, &mut live);
        let fired = fired_paths(&spec, &live, case.rule);
        assert!(
            fired.iter().any(|path| path == case.path),
            "{} should fire at {}, fired at {fired:?}",
            case.rule,
            case.path
        );
    }
}

#[test]
fn correct_specs_have_no_errors_or_warnings() {
    let bases: [(&str, Base); 6] = [
        ("capacity block", block),
        ("new VPC", new_vpc_base),
        ("checkpoint storage", storage_base),
        ("Auto Mode", auto_mode_base),
        ("Karpenter Spot", spot_pool),
        ("Karpenter reserved", reserved_pool),
    ];
    for (name, base) in bases {
        let (spec, live) = base();
        let serious: Vec<_> = rules::validate_with(&spec, &live)
            .into_iter()
            .filter(|finding| finding.severity != Severity::Info)
            .collect();
        assert!(serious.is_empty(), "{name}: {serious:#?}");
    }
}

#[test]
fn seed_templates_report_their_placeholders_and_the_unpinned_efa_group() {
    let spec = shared::template("p5-odcr-vpc").unwrap().spec();
    let findings = rules::validate(&spec);
    let placeholders: Vec<&str> = findings
        .iter()
        .filter(|finding| finding.rule == "placeholder-left")
        .map(|finding| finding.path.as_str())
        .collect();
    assert_eq!(
        placeholders,
        [
            "cluster.region",
            "network.private_subnets[0].id",
            "network.private_subnets[1].id",
            "network.public_subnets[0].id",
            "network.public_subnets[1].id",
            "network.vpc_id",
            "node_groups[0].capacity.reservation_id",
        ]
    );
    let unpinned = findings
        .iter()
        .find(|finding| finding.rule == "efa-group-not-pinned")
        .expect("the p5 group is not pinned");
    // eksctl spreads an unpinned group over every offering zone (AssignSubnets): it is
    // accepted, so a warning.
    assert_eq!(unpinned.severity, Severity::Warning);
    assert!(
        unpinned.message.contains("2 private subnets"),
        "{}",
        unpinned.message
    );
    assert!(
        unpinned.message.contains("reservation's zone"),
        "{}",
        unpinned.message
    );
}

#[test]
fn a_budget_of_zero_nodes_keeps_underutilised_training_nodes() {
    let mut spec = karpenter_reserved();
    let disruption = pool(&mut spec).spec.disruption.as_mut().unwrap();
    disruption.consolidation_policy = Some("WhenEmptyOrUnderutilized".into());
    disruption.budgets = vec![Budget {
        nodes: "0".into(),
        reasons: vec!["Underutilized".into()].into(),
        ..Budget::default()
    }]
    .into();
    let fired = fired_paths(
        &spec,
        &LiveFacts::default(),
        "karpenter-consolidation-evicts-training",
    );
    assert!(fired.is_empty(), "{fired:?}");
}

/// A document rule's case: a small file that breaks it, and where.
struct DocumentCase {
    rule: &'static str,
    yaml: &'static str,
    path: &'static str,
}

const CLUSTER_HEAD: &str = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: demo\n  region: us-east-1\n";

const DOCUMENT_CASES: &[DocumentCase] = &[
    DocumentCase {
        rule: "iam-policy-not-attachable",
        yaml: "managedNodeGroups:\n  - name: ng\n    instanceType: m5.large\n    iam:\n      attachPolicyARNs: [arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy, arn:aws:iam::aws:policy/aws-service-role/AWSServiceRoleForAmazonEKSNodegroup]\n",
        path: "managedNodeGroups[0].iam.attachPolicyARNs[1]",
    },
    DocumentCase {
        rule: "self-managed-no-subnet-of-its-kind",
        yaml: "vpc:\n  id: vpc-0123456789abcdef0\n  subnets:\n    private:\n      us-east-1a: {id: subnet-0123456789abcdef0}\n      us-east-1b: {id: subnet-0123456789abcdef1}\nnodeGroups:\n  - name: public\n    instanceType: m5.large\n  - name: private\n    instanceType: m5.large\n    privateNetworking: true\n",
        path: "nodeGroups[0]",
    },
    DocumentCase {
        rule: "nodegroup-ami-invalid",
        yaml: "managedNodeGroups:\n  - name: ng\n    instanceType: m5.large\n    ami: auto-ssm\n",
        path: "managedNodeGroups[0].ami",
    },
    DocumentCase {
        rule: "self-managed-efa-placement",
        yaml: "nodeGroups:\n  - name: efa\n    instanceType: p4d.24xlarge\n    efaEnabled: true\n    availabilityZones: [us-east-1a, us-east-1b]\n",
        path: "nodeGroups[0].availabilityZones",
    },
    DocumentCase {
        rule: "self-managed-efa-instance-type",
        yaml: "nodeGroups:\n  - name: efa\n    instanceType: m5.large\n    efaEnabled: true\n    availabilityZones: [us-east-1a]\n",
        path: "nodeGroups[0].instanceType",
    },
    DocumentCase {
        rule: "iam-policy-not-found",
        yaml: "managedNodeGroups:\n  - name: ng\n    instanceType: m5.large\n    iam:\n      attachPolicyARNs: [arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy, arn:aws:iam::aws:policy/AmazonEBSCSIDriverPolicy]\n",
        path: "managedNodeGroups[0].iam.attachPolicyARNs[1]",
    },
    DocumentCase {
        rule: "iam-policy-unlisted",
        yaml: "iam:\n  podIdentityAssociations:\n    - namespace: default\n      serviceAccountName: app\n      permissionPolicyARNs: [arn:aws:iam::aws:policy/AWSLoadBalancerControllerIAMPolicy]\n",
        path: "iam.podIdentityAssociations[0].permissionPolicyARNs[0]",
    },
    DocumentCase {
        rule: "control-plane-tier-invalid",
        yaml: "controlPlaneScalingConfig:\n  tier: tier-8xl\n",
        path: "controlPlaneScalingConfig.tier",
    },
    DocumentCase {
        rule: "gitops-flux-invalid",
        yaml: "gitops:\n  flux:\n    gitProvider: github\n",
        path: "gitops.flux.flags",
    },
    DocumentCase {
        rule: "addon-config-invalid",
        yaml: "addons:\n  - name: aws-ebs-csi-driver\n    namespaceConfig: {namespace: Storage_NS}\n",
        path: "addons[0].namespaceConfig.namespace",
    },
    DocumentCase {
        rule: "iam-identity-mapping-invalid",
        yaml: "iamIdentityMappings:\n  - serviceName: emr-containers\n",
        path: "iamIdentityMappings[0]",
    },
    DocumentCase {
        rule: "outposts-unsupported-setting",
        yaml: "outpost:\n  controlPlaneOutpostARN: arn:aws:outposts:us-west-2:1234:outpost/op-1234\nfargateProfiles:\n  - name: fp\n    selectors: [{namespace: default}]\n",
        path: "fargateProfiles",
    },
    DocumentCase {
        rule: "remote-network-config-invalid",
        yaml: "remoteNetworkConfig:\n  remoteNodeNetworks:\n    - cidrs: [10.80.146.0/24]\n  iam:\n    provider: saml\n",
        path: "remoteNetworkConfig.iam.provider",
    },
    DocumentCase {
        rule: "nodegroup-name-missing",
        yaml: "managedNodeGroups:\n  - instanceType: m5.large\n",
        path: "managedNodeGroups[0].name",
    },
    DocumentCase {
        rule: "service-account-invalid",
        yaml: "iam:\n  serviceAccounts:\n    - metadata: {name: s3-reader}\n      attachPolicyARNs: [arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess]\n",
        path: "iam.withOIDC",
    },
    DocumentCase {
        rule: "pod-identity-association-invalid",
        yaml: "iam:\n  podIdentityAssociations:\n    - namespace: default\n      serviceAccountName: reader\n      permissionPolicyName: reader-policy\n",
        path: "iam.podIdentityAssociations[0].permissionPolicyName",
    },
    DocumentCase {
        rule: "cluster-logging-invalid",
        yaml: "cloudWatch:\n  clusterLogging:\n    enableTypes: [api, controllermanager]\n",
        path: "cloudWatch.clusterLogging.enableTypes[1]",
    },
    DocumentCase {
        rule: "upgrade-policy-invalid",
        yaml: "upgradePolicy:\n  supportType: LONG\n",
        path: "upgradePolicy.supportType",
    },
    DocumentCase {
        rule: "vpc-config-invalid",
        yaml: "vpc:\n  clusterEndpoints:\n    publicAccess: false\n    privateAccess: false\n",
        path: "vpc.clusterEndpoints",
    },
    DocumentCase {
        rule: "control-plane-private-subnets-invalid",
        yaml: "vpc:\n  controlPlaneOnPrivateSubnets: true\n  subnets:\n    private:\n      us-east-1a: {id: subnet-0aaaaaaaaaaaaaaa1}\n",
        path: "vpc.subnets.private",
    },
    DocumentCase {
        rule: "kubernetes-network-config-invalid",
        yaml: "kubernetesNetworkConfig:\n  ipFamily: IPv5\n",
        path: "kubernetesNetworkConfig.ipFamily",
    },
    DocumentCase {
        rule: "secrets-encryption-invalid",
        yaml: "secretsEncryption:\n  keyARN: my-key\n",
        path: "secretsEncryption.keyARN",
    },
    DocumentCase {
        rule: "karpenter-block-invalid",
        yaml: "karpenter:\n  version: v0.19.0\n",
        path: "karpenter.version",
    },
    DocumentCase {
        rule: "identity-provider-invalid",
        yaml: "identityProviders:\n  - type: oidc\n    name: corp\n    issuerURL: https://example.com\n",
        path: "identityProviders[0].clientID",
    },
    DocumentCase {
        rule: "fargate-profile-invalid",
        yaml: "fargateProfiles:\n  - name: eks-default\n    selectors:\n      - namespace: default\n",
        path: "fargateProfiles[0].name",
    },
    DocumentCase {
        rule: "nodegroup-volume-invalid",
        yaml: "managedNodeGroups:\n  - name: gpu\n    volumeType: gp3\n    volumeIOPS: 20000\n",
        path: "managedNodeGroups[0].volumeIOPS",
    },
    DocumentCase {
        rule: "self-managed-nodegroup-label-invalid",
        yaml: "nodeGroups:\n  - name: gpu\n    labels:\n      node-role.kubernetes.io/worker: \"true\"\n",
        path: "nodeGroups[0].labels[\"node-role.kubernetes.io/worker\"]",
    },
    DocumentCase {
        rule: "self-managed-nodegroup-taint-invalid",
        yaml: "nodeGroups:\n  - name: gpu\n    taints:\n      - key: nvidia.com/gpu\n        value: \"yes please\"\n        effect: NoSchedule\n",
        path: "nodeGroups[0].taints[0].value",
    },
    DocumentCase {
        rule: "windows-only-node-groups",
        yaml: "nodeGroups:\n  - name: win\n    amiFamily: WindowsServer2022FullContainer\n    instanceType: m5.large\n",
        path: "nodeGroups[0].amiFamily",
    },
    DocumentCase {
        rule: "self-managed-nodegroup-size-order",
        yaml: "nodeGroups:\n  - name: workers\n    minSize: 3\n    desiredCapacity: 1\n    maxSize: 4\n",
        path: "nodeGroups[0].desiredCapacity",
    },
    DocumentCase {
        rule: "nodegroup-field-conflict",
        yaml: "managedNodeGroups:\n  - name: gpu\n    placement: {}\n",
        path: "managedNodeGroups[0].placement.groupName",
    },
    DocumentCase {
        rule: "nodegroup-ami-invalid",
        yaml: "managedNodeGroups:\n  - name: gpu\n    ami: ami-0123456789abcdef0\n",
        path: "managedNodeGroups[0].amiFamily",
    },
    DocumentCase {
        rule: "managed-nodegroup-unsupported-field",
        yaml: "managedNodeGroups:\n  - name: gpu\n    launchTemplate:\n      id: lt-0123456789abcdef0\n    instanceType: p5.48xlarge\n",
        path: "managedNodeGroups[0].instanceType",
    },
    DocumentCase {
        rule: "managed-nodegroup-update-config-invalid",
        yaml: "managedNodeGroups:\n  - name: gpu\n    updateConfig: {}\n",
        path: "managedNodeGroups[0].updateConfig",
    },
    DocumentCase {
        rule: "instances-distribution-invalid",
        yaml: "nodeGroups:\n  - name: spot\n    instanceType: m5.large\n    instancesDistribution:\n      instanceTypes: [m5.large, m5a.large]\n",
        path: "nodeGroups[0].instanceType",
    },
    DocumentCase {
        rule: "self-managed-nodegroup-invalid",
        yaml: "nodeGroups:\n  - name: cpu\n    instanceType: m5.large\n    maxInstanceLifetime: 3600\n",
        path: "nodeGroups[0].maxInstanceLifetime",
    },
    DocumentCase {
        rule: "eksctl-schema",
        yaml: "managedNodeGroups:\n  - name: gpu\n    instanceTyp: p5.48xlarge\n",
        path: "managedNodeGroups[0].instanceTyp",
    },
    DocumentCase {
        rule: "eksctl-key-dropped",
        yaml: "cloudwatch:\n  clusterLogging:\n    enableTypes: [api]\n",
        path: "cloudwatch",
    },
    DocumentCase {
        rule: "karpenter-schema",
        yaml: "",
        path: "spec.template.spec.gpuCount",
    },
    DocumentCase {
        rule: "karpenter-crd-rule",
        yaml: "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: gpu\nspec:\n  role: KarpenterNodeRole-demo\n  instanceProfile: KarpenterNodeInstanceProfile-demo\n  amiSelectorTerms:\n    - alias: al2023@latest\n  subnetSelectorTerms:\n    - tags: {karpenter.sh/discovery: demo}\n  securityGroupSelectorTerms:\n    - tags: {karpenter.sh/discovery: demo}\n",
        path: "spec",
    },
    DocumentCase {
        rule: "cluster-zones-with-vpc-subnets",
        yaml: "availabilityZones: [us-east-1a, us-east-1b]\nvpc:\n  subnets:\n    private:\n      a: {id: subnet-0aaaaaaaaaaaaaaa1}\n      b: {id: subnet-0aaaaaaaaaaaaaaa2}\n",
        path: "availabilityZones",
    },
    DocumentCase {
        rule: "nodegroup-subnets-and-zones",
        yaml: "managedNodeGroups:\n  - name: gpu\n    subnets: [a]\n    availabilityZones: [us-east-1a]\n",
        path: "managedNodeGroups[0].availabilityZones",
    },
    DocumentCase {
        rule: "private-cluster-needs-private-networking",
        yaml: "privateCluster:\n  enabled: true\nmanagedNodeGroups:\n  - name: gpu\n",
        path: "managedNodeGroups[0].privateNetworking",
    },
    DocumentCase {
        rule: "nodegroup-name-collision",
        yaml: "nodeGroups:\n  - name: gpu\nmanagedNodeGroups:\n  - name: gpu\n",
        path: "managedNodeGroups[0].name",
    },
    DocumentCase {
        rule: "capacity-reservation-preference-and-target",
        yaml: "managedNodeGroups:\n  - name: gpu\n    capacityReservation:\n      capacityReservationPreference: open\n      capacityReservationTarget:\n        capacityReservationID: cr-0123456789abcdef0\n",
        path: "managedNodeGroups[0].capacityReservation",
    },
    DocumentCase {
        rule: "capacity-reservation-preference-value",
        yaml: "managedNodeGroups:\n  - name: gpu\n    capacityReservation:\n      capacityReservationPreference: always\n",
        path: "managedNodeGroups[0].capacityReservation.capacityReservationPreference",
    },
    DocumentCase {
        rule: "capacity-reservation-id-and-arn",
        yaml: "managedNodeGroups:\n  - name: gpu\n    capacityReservation:\n      capacityReservationTarget:\n        capacityReservationID: cr-0123456789abcdef0\n        capacityReservationResourceGroupARN: arn:aws:resource-groups:us-east-1:123456789012:group/gpus\n",
        path: "managedNodeGroups[0].capacityReservation.capacityReservationTarget",
    },
    DocumentCase {
        rule: "market-type-invalid",
        yaml: "managedNodeGroups:\n  - name: gpu\n    capacityReservation:\n      capacityReservationTarget:\n        capacityReservationID: cr-0123456789abcdef0\n    instanceMarketOptions:\n      marketType: spot\n",
        path: "managedNodeGroups[0].instanceMarketOptions.marketType",
    },
    DocumentCase {
        rule: "market-type-without-reservation",
        yaml: "managedNodeGroups:\n  - name: gpu\n    instanceMarketOptions:\n      marketType: capacity-block\n",
        path: "managedNodeGroups[0].instanceMarketOptions",
    },
    DocumentCase {
        rule: "spot-with-reservation",
        yaml: "managedNodeGroups:\n  - name: gpu\n    spot: true\n    capacityReservation:\n      capacityReservationTarget:\n        capacityReservationID: cr-0123456789abcdef0\n",
        path: "managedNodeGroups[0].spot",
    },
    DocumentCase {
        rule: "override-bootstrap-needs-ami",
        yaml: "managedNodeGroups:\n  - name: gpu\n    amiFamily: AmazonLinux2\n    overrideBootstrapCommand: |\n      #!/bin/bash\n      /etc/eks/bootstrap.sh demo\n",
        path: "managedNodeGroups[0].overrideBootstrapCommand",
    },
];

const PRUNED_NODE_POOL: &str = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: gpu\nspec:\n  template:\n    spec:\n      gpuCount: 8\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: gpu\n      requirements: []\n  disruption:\n    consolidateAfter: 5m\n";

fn document(case: &DocumentCase) -> yaml_serde::Value {
    let text = if case.rule == "karpenter-schema" {
        PRUNED_NODE_POOL.to_owned()
    } else if case.yaml.starts_with("apiVersion:") {
        case.yaml.to_owned()
    } else {
        format!("{CLUSTER_HEAD}{}", case.yaml)
    };
    yaml_serde::from_str(&text).unwrap()
}

fn correct_documents() -> Vec<(std::path::PathBuf, yaml_serde::Value)> {
    use serde::Deserialize;
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut documents = Vec::new();
    for folder in ["seeds", "manifests"] {
        for entry in std::fs::read_dir(data.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            if path
                .extension()
                .is_some_and(|extension| extension == "yaml")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                for document in yaml_serde::Deserializer::from_str(&text) {
                    documents.push((
                        path.clone(),
                        yaml_serde::Value::deserialize(document).unwrap(),
                    ));
                }
            }
        }
    }
    documents
}

#[test]
fn each_document_rule_fires_at_its_path() {
    for case in DOCUMENT_CASES {
        let fired: Vec<String> = rules::check_document(&document(case))
            .into_iter()
            .filter(|finding| finding.rule == case.rule)
            .map(|finding| finding.path)
            .collect();
        assert!(
            fired.iter().any(|path| path == case.path),
            "{} should fire at {}, fired at {fired:?}",
            case.rule,
            case.path
        );
    }
}

#[test]
fn document_rules_are_quiet_on_correct_manifests() {
    for (path, document) in correct_documents() {
        let findings = rules::check_document(&document);
        assert!(findings.is_empty(), "{}: {findings:#?}", path.display());
    }
}

#[test]
fn a_group_whose_types_come_from_a_launch_template_or_a_selector_is_not_flagged() {
    for key in ["launchTemplate", "instanceSelector"] {
        let (mut spec, live) = block();
        let group = gpu(&mut spec);
        group.instance_type.clear();
        group.extra.insert(
            key.into(),
            yaml_serde::from_str("{id: lt-0123, vCPUs: 8}").unwrap(),
        );
        let fired = fired_paths(&spec, &live, "nodegroup-instance-type-missing");
        assert!(fired.is_empty(), "{key}: {fired:?}");
    }
    // Without either, eksctl's default applies: a warning, never an error.
    let (mut spec, live) = block();
    gpu(&mut spec).instance_type.clear();
    let findings = rules::validate_with(&spec, &live);
    let missing = findings
        .iter()
        .find(|finding| finding.rule == "nodegroup-instance-type-missing")
        .unwrap();
    assert_eq!(missing.severity, Severity::Warning);
    assert!(missing.message.contains("m5.large"), "{}", missing.message);
}

#[test]
fn min_values_with_exists_is_karpenters_own_example_and_not_an_error() {
    // kubernetes-sigs/karpenter examples/v1/min-values-family.yaml: `Exists` with minValues.
    let (mut spec, live) = spot_pool();
    pool(&mut spec).spec.template.spec.requirements = vec![Requirement {
        min_values: Some(5),
        ..Requirement::new("karpenter.k8s.aws/instance-family", "Exists", &[])
    }];
    assert!(fired_paths(&spec, &live, "karpenter-requirement-values").is_empty());
    // With `In` it needs that many values; past 50 the CRD refuses it whatever the operator.
    pool(&mut spec).spec.template.spec.requirements = vec![Requirement {
        min_values: Some(3),
        ..Requirement::new("karpenter.k8s.aws/instance-family", "In", &["g5", "g6"])
    }];
    assert_eq!(
        fired_paths(&spec, &live, "karpenter-requirement-values"),
        ["karpenter.node_pools[0].spec.template.spec.requirements[0].minValues"]
    );
    pool(&mut spec).spec.template.spec.requirements = vec![Requirement {
        min_values: Some(51),
        ..Requirement::new("karpenter.k8s.aws/instance-family", "Exists", &[])
    }];
    assert_eq!(
        fired_paths(&spec, &live, "karpenter-requirement-values"),
        ["karpenter.node_pools[0].spec.template.spec.requirements[0].minValues"]
    );
}

#[test]
fn public_and_private_subnets_keyed_by_the_same_zone_are_eksctls_own_layout() {
    // eksctl's docs: `subnets: {public: {us-east-1a: …}, private: {us-east-1a: …}}`.
    let (mut spec, live) = block();
    let (public, private) = existing_subnets(&mut spec);
    for (index, subnet) in public.iter_mut().enumerate() {
        subnet.name = format!("us-east-1{}", ['a', 'b'][index]);
    }
    for (index, subnet) in private.iter_mut().enumerate() {
        subnet.name = format!("us-east-1{}", ['a', 'b'][index]);
    }
    assert!(fired_paths(&spec, &live, "subnet-duplicate").is_empty());
    // Within one list a name is a map key: a repeat is still one.
    let (_, private) = existing_subnets(&mut spec);
    private[1].name = private[0].name.clone();
    assert_eq!(
        fired_paths(&spec, &live, "subnet-duplicate"),
        ["network.private_subnets[1].name"]
    );
}

/// eksctl (`validateLocalConfigAgainstRemote`) finds an imported subnet by its zone's
/// name first, then by id: one id under two keys is ambiguous unless a key is its zone.
#[test]
fn one_subnet_under_two_names_is_refused_unless_one_name_is_its_zone() {
    let (mut spec, live) = block();
    let (_, private) = existing_subnets(&mut spec);
    private[1].id = PRIVATE_ONE.into();
    private[1].availability_zone = Some("us-east-1a".into());
    let fired: Vec<_> = rules::validate_with(&spec, &live)
        .into_iter()
        .filter(|finding| finding.rule == "subnet-id-twice")
        .collect();
    assert_eq!(fired.len(), 1);
    assert!(
        fired[0]
            .message
            .contains("unable to unambiguously import subnet by ID, found both"),
        "{}",
        fired[0].message
    );
    let (_, private) = existing_subnets(&mut spec);
    private[0].name = "us-east-1a".into();
    assert!(fired_paths(&spec, &live, "subnet-id-twice").is_empty());
    // Its zone not given: a key that is a zone of the region may be its own.
    let (_, private) = existing_subnets(&mut spec);
    private[0].availability_zone = None;
    private[1].availability_zone = None;
    assert!(fired_paths(&spec, &live, "subnet-id-twice").is_empty());
    existing_subnets(&mut spec).1[0].name = "first".into();
    assert_eq!(
        fired_paths(&spec, &live, "subnet-id-twice"),
        ["network.private_subnets[1].id"]
    );
}

/// IAM names an AWS managed policy by its path and name, the name unique in the `aws`
/// account; the list of names is AWS's of 2026-10-31, so only a certain miss is an error.
#[test]
fn an_aws_managed_policy_arn_is_judged_by_awss_list() {
    let findings = |arn: &str| {
        let yaml = format!(
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {{name: demo, region: us-west-2, version: \"1.35\"}}\nmanagedNodeGroups:\n  - name: ng\n    instanceType: m5.large\n    iam:\n      attachPolicyARNs: [\"{arn}\"]\n"
        );
        shared::lint::lint_text("c.yaml", &yaml)
            .unwrap()
            .into_iter()
            .filter(|finding| finding.rule.starts_with("iam-policy-"))
            .map(|finding| (finding.rule.into_owned(), finding.message))
            .collect::<Vec<_>>()
    };
    let rules = |arn: &str| {
        findings(arn)
            .into_iter()
            .map(|(rule, _)| rule)
            .collect::<Vec<_>>()
    };
    for listed in [
        "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
        "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
        "arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy",
        "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
        // Another partition's or an account's own policies are not AWS's list's.
        "arn:aws-cn:iam::aws:policy/AmazonEKSWorkerNodePolicyy",
        "arn:aws:iam::123456789012:policy/my-policy",
    ] {
        assert!(rules(listed).is_empty(), "{listed}: {:?}", findings(listed));
    }
    let typo = findings("arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicyy");
    assert_eq!(typo.len(), 1);
    assert_eq!(typo[0].0, "iam-policy-not-found");
    assert!(
        typo[0]
            .1
            .contains("did you mean `arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy`"),
        "{}",
        typo[0].1
    );
    // Another case may be IAM's own spelling, a numbered sibling a policy published since.
    for unsure in [
        "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadonly",
        "arn:aws:iam::aws:policy/AmazonEKSComputePolicyV2",
        "arn:aws:iam::aws:policy/AmazonEKSBlockStoragePolicyV3",
        "arn:aws:iam::aws:policy/SomethingAWSMadeInNovember",
    ] {
        assert_eq!(rules(unsure), ["iam-policy-unlisted"], "{unsure}");
    }
}

/// eksctl takes an AMI id on a managed group (ValidateManagedNodeGroup's IsAMI), and an AMI
/// id, `auto` or `auto-ssm` on a self-managed one (pkg/eks/api.go ResolveAMI); its schema's
/// `static` and an SSM parameter are refused.
#[test]
fn an_ami_value_is_one_eksctl_resolves() {
    let fired = |kind: &str, ami: &str| {
        let yaml = format!(
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {{name: demo, region: us-west-2, version: \"1.35\"}}\n{kind}:\n  - name: ng\n    instanceType: m5.large\n    amiFamily: AmazonLinux2023\n    ami: \"{ami}\"\n"
        );
        shared::lint::lint_text("c.yaml", &yaml)
            .unwrap()
            .into_iter()
            .filter(|finding| finding.rule == "nodegroup-ami-invalid")
            .map(|finding| finding.message)
            .collect::<Vec<_>>()
    };
    for ami in ["auto", "auto-ssm", "ami-0123456789abcdef0"] {
        assert!(fired("nodeGroups", ami).is_empty(), "{ami}");
    }
    assert!(fired("managedNodeGroups", "ami-0123456789abcdef0").is_empty());
    for ami in [
        "static",
        "resolve:ssm:/aws/service/eks/optimized-ami/1.35/amazon-linux-2023/x86_64/standard/recommended/image_id",
    ] {
        let messages = fired("nodeGroups", ami);
        assert_eq!(messages.len(), 1, "{ami}: {messages:?}");
        assert!(messages[0].contains("invalid AMI value"), "{}", messages[0]);
    }
    for ami in ["auto", "auto-ssm"] {
        let messages = fired("managedNodeGroups", ami);
        assert_eq!(messages.len(), 1, "{ami}: {messages:?}");
        assert!(messages[0].contains("invalid AMI"), "{}", messages[0]);
    }
}

/// A `create nodegroup` file from a workshop names its subnets by shell variables: they are
/// placeholders to fill, said once, not subnets a new VPC lacks.
#[test]
fn placeholder_subnets_are_only_placeholders() {
    let yaml = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: demo, region: us-west-2, version: \"1.35\"}\nmanagedNodeGroups:\n  - name: graviton\n    instanceType: t4g.medium\n    subnets: [$PRIMARY_SUBNET_1, $PRIMARY_SUBNET_2]\n";
    let rules: Vec<String> = shared::lint::lint_text("c.yaml", yaml)
        .unwrap()
        .into_iter()
        .filter(|finding| finding.severity == shared::rules::Severity::Error)
        .map(|finding| finding.rule.into_owned())
        .collect();
    assert_eq!(rules, ["placeholder-left", "placeholder-left"]);
}

/// eksctl gives a self-managed group the VPC's subnets of its kind: a private group in a VPC
/// given with public subnets only is refused before anything is made
/// (`CanUseForPrivateNodeGroups`), a public one in a private-only VPC gets no subnet.
#[test]
fn a_self_managed_group_needs_subnets_of_its_kind() {
    let lint = |lists: &str, private: bool| {
        let yaml = format!(
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {{name: demo, region: us-west-2, version: \"1.35\"}}\nvpc:\n  id: vpc-0123456789abcdef0\n  subnets:\n    {lists}:\n      us-west-2a: {{id: subnet-0123456789abcdef0}}\n      us-west-2b: {{id: subnet-0123456789abcdef1}}\nnodeGroups:\n  - {{name: ng, instanceType: m5.large, privateNetworking: {private}}}\n"
        );
        shared::lint::lint_text("c.yaml", &yaml)
            .unwrap()
            .into_iter()
            .filter(|finding| finding.rule == "self-managed-no-subnet-of-its-kind")
            .map(|finding| finding.message)
            .collect::<Vec<_>>()
    };
    assert!(lint("public", false).is_empty());
    assert!(lint("private", true).is_empty());
    let private_in_public = lint("public", true);
    assert_eq!(private_in_public.len(), 1);
    assert!(private_in_public[0].contains("none or too few private subnets"));
    let public_in_private = lint("private", false);
    assert_eq!(public_in_private.len(), 1);
    assert!(public_in_private[0].contains("stack fails after the cluster's"));
}

/// A NodePool whose instance types are still a placeholder matches nothing only until it is
/// filled in: that is said once, as a placeholder.
#[test]
fn a_placeholder_requirement_is_only_a_placeholder() {
    let pool = |value: &str| {
        format!(
            "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: gpu}}\nspec:\n  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}}\n      requirements:\n        - {{key: node.kubernetes.io/instance-type, operator: In, values: [\"{value}\"]}}\n"
        )
    };
    let rules = |value: &str| {
        shared::lint::lint_text("pool.yaml", &pool(value))
            .unwrap()
            .into_iter()
            .filter(|finding| finding.severity == shared::rules::Severity::Error)
            .map(|finding| finding.rule.into_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(rules("<INSTANCE_TYPE>"), ["placeholder-left"]);
    assert_eq!(
        rules("p5.4xlarge-typo"),
        ["karpenter-requirements-match-nothing"]
    );
}

#[test]
fn a_subnet_named_by_its_zone_or_cidr_needs_no_id() {
    let (mut spec, live) = block();
    let (_, private) = existing_subnets(&mut spec);
    private[0].id.clear();
    private[0]
        .extra
        .insert("cidr".into(), "10.0.128.0/19".into());
    assert!(fired_paths(&spec, &live, "subnet-id-malformed").is_empty());
    let (_, private) = existing_subnets(&mut spec);
    private[0].extra.clear();
    private[0].availability_zone = None;
    assert_eq!(
        fired_paths(&spec, &live, "subnet-id-malformed"),
        ["network.private_subnets[0].id"]
    );
}

/// A stage says when the peer refuses: an error always names one, an opinion never does
/// (but for a change, judged on two designs, whichever its severity).
#[test]
fn errors_name_the_stage_that_refuses_and_opinions_are_advice() {
    use shared::rules::{Severity, Stage};
    for rule in rules::catalog() {
        if rule.stage == Stage::Change {
            assert!(rule.id.starts_with("change-"), "{}", rule.id);
        } else {
            assert_eq!(
                rule.severity == Severity::Error,
                rule.stage != Stage::Advice,
                "{}: severity {} with stage {}",
                rule.id,
                rule.severity,
                rule.stage.as_str()
            );
        }
        assert!(!rule.reference.is_empty(), "{} cites no source", rule.id);
    }
}

#[test]
fn every_live_check_is_judged_by_rules_of_the_catalog_and_every_live_rule_judges_one() {
    let mut judging = std::collections::BTreeSet::new();
    for kind in shared::model::live_checks::LIVE_CHECKS {
        for id in kind.judged_by {
            assert!(
                shared::rules::rule(id).is_some(),
                "{} is judged by `{id}`, which is no rule",
                kind.id
            );
            judging.insert(*id);
        }
    }
    for rule in shared::rules::catalog()
        .into_iter()
        .filter(|rule| rule.live)
    {
        assert!(
            judging.contains(rule.id),
            "live rule `{}` judges no live check, so no check's result shows it",
            rule.id
        );
    }
}

/// The UltraServer types launch from a Capacity Block: a group on one is not flagged, the
/// same group On-Demand is.
#[test]
fn an_ultraserver_group_on_its_capacity_block_is_not_flagged_and_on_demand_it_is() {
    let (mut spec, live) = block();
    gpu(&mut spec).instance_type = "p6e-gb200.36xlarge".into();
    assert!(fired_paths(&spec, &live, "capacity-blocks-only-instance-type").is_empty());
    gpu(&mut spec).capacity = shared::model::spec::Capacity::OnDemand;
    assert_eq!(
        fired_paths(&spec, &live, "capacity-blocks-only-instance-type"),
        ["node_groups[1].instance_type"]
    );
}

#[test]
fn a_disruption_block_without_consolidate_after_is_refused_as_the_aws_crd_requires() {
    let mut spec = karpenter_spot();
    let disruption = pool(&mut spec).spec.disruption.as_mut().unwrap();
    disruption.consolidate_after = None;
    assert_eq!(
        fired_paths(&spec, &LiveFacts::default(), "karpenter-disruption-invalid"),
        vec!["karpenter.node_pools[0].spec.disruption"]
    );
    // No block at all is the CRD's default (`consolidateAfter: 0s`), accepted.
    pool(&mut spec).spec.disruption = None;
    assert!(fired_paths(&spec, &LiveFacts::default(), "karpenter-disruption-invalid").is_empty());
}

#[test]
fn a_placement_group_selector_takes_one_of_a_name_or_a_pg_id() {
    use shared::upstream::karpenter::PlacementGroupSelector;
    let fired = |selector: PlacementGroupSelector| {
        let mut spec = karpenter_spot();
        class(&mut spec).spec.placement_group_selector = Some(selector);
        fired_paths(
            &spec,
            &LiveFacts::default(),
            "karpenter-placement-group-selector-invalid",
        )
    };
    let base = "karpenter.node_classes[0].spec.placementGroupSelector";
    assert_eq!(fired(PlacementGroupSelector::default()), vec![base]);
    let id = |id: &str| PlacementGroupSelector {
        id: Some(id.into()),
        ..PlacementGroupSelector::default()
    };
    assert_eq!(fired(id("pg-0A1b")), vec![format!("{base}.id")]);
    assert_eq!(fired(id("pg-")), vec![format!("{base}.id")]);
    assert!(fired(id("pg-0a1b2c3d4e5f67890")).is_empty());
    let name = PlacementGroupSelector {
        name: Some("training-cluster".into()),
        ..PlacementGroupSelector::default()
    };
    assert!(fired(name).is_empty());
}

#[test]
fn an_fsx_add_on_is_covered_by_the_node_groups_fsx_policy_or_a_kept_role() {
    let mut spec = new_vpc();
    spec.addons.clear();
    for group in &mut spec.node_groups {
        group.addon_policies.fsx = false;
    }
    spec.addons.push(Addon {
        name: "aws-fsx-csi-driver".into(),
        ..Addon::default()
    });
    let fired = |spec: &Spec| fired_paths(spec, &LiveFacts::default(), "storage-addon-without-iam");
    assert_eq!(fired(&spec), vec!["addons[0].attach_policy_arns"]);
    let mut with_node_policy = spec.clone();
    with_node_policy.node_groups[0].addon_policies.fsx = true;
    assert!(fired(&with_node_policy).is_empty());
    let mut with_role = spec.clone();
    with_role.addons[0].extra.insert(
        "serviceAccountRoleARN".into(),
        "arn:aws:iam::123456789012:role/fsx".into(),
    );
    assert!(fired(&with_role).is_empty());
}

/// The page's reading of the CRD's priceAdjustment and price patterns agrees with the
/// patterns themselves, as the schema check (a regex engine) applies them.
#[test]
fn node_overlay_price_patterns_agree_with_the_crd() {
    let adjustments = [
        "-0.5", "+1.2", "+10%", "-15%", "-100%", "-99.5%", "+.5%", "-.5", "10%", "-150%",
        "-100.0%", "+5.%", "+", "-5", "5", "+1.2.3", "-5%", "-05%", "+250%",
    ];
    for adjustment in adjustments {
        let mut spec = karpenter_spot();
        spec.karpenter
            .as_mut()
            .unwrap()
            .node_overlays
            .push(overlay(adjustment));
        let fired = !fired_paths(
            &spec,
            &LiveFacts::default(),
            "karpenter-node-overlay-invalid",
        )
        .is_empty();
        let document: yaml_serde::Value = yaml_serde::from_str(&format!(
            "apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata:\n  name: o\nspec:\n  requirements: []\n  priceAdjustment: {adjustment:?}\n"
        ))
        .unwrap();
        let refused = shared::upstream::schema_check::check_karpenter(&document)
            .iter()
            .any(|issue| issue.path.to_string() == "spec.priceAdjustment");
        assert_eq!(fired, refused, "priceAdjustment {adjustment:?}");
    }
    for price in ["5.00", "5", "0.125", ".5", "5.", "-1", "1e3", "five"] {
        let mut spec = karpenter_spot();
        let mut with_price = overlay("+1");
        with_price.spec.price_adjustment = None;
        with_price.spec.price = Some(price.into());
        spec.karpenter
            .as_mut()
            .unwrap()
            .node_overlays
            .push(with_price);
        let fired = !fired_paths(
            &spec,
            &LiveFacts::default(),
            "karpenter-node-overlay-invalid",
        )
        .is_empty();
        let document: yaml_serde::Value = yaml_serde::from_str(&format!(
            "apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata:\n  name: o\nspec:\n  requirements: []\n  price: {price:?}\n"
        ))
        .unwrap();
        let refused = shared::upstream::schema_check::check_karpenter(&document)
            .iter()
            .any(|issue| issue.path.to_string() == "spec.price");
        assert_eq!(fired, refused, "price {price:?}");
    }
}

/// A Karpenter pool that names P6e-GB200 is told the same as an Auto Mode one; a pool that
/// only allows a broad category is not (it names no UltraServer).
#[test]
fn an_ultraserver_pool_is_told_to_use_a_node_group_on_karpenter_too() {
    let mut spec = shared::templates::template("karpenter-reserved-training")
        .unwrap()
        .spec();
    let fired = |spec: &Spec| fired_paths(spec, &LiveFacts::default(), "ultraserver-on-node-pool");
    assert!(fired(&spec).is_empty());
    let pool = &mut spec.karpenter.as_mut().unwrap().node_pools[0];
    let requirement = pool
        .spec
        .template
        .spec
        .requirements
        .iter_mut()
        .find(|requirement| requirement.key == "node.kubernetes.io/instance-type")
        .unwrap();
    requirement.values = vec!["p6e-gb200.36xlarge".to_owned()].into();
    assert_eq!(
        fired(&spec),
        vec!["karpenter.node_pools[0].spec.template.spec.requirements"]
    );
    let spot = shared::templates::template("karpenter-spot-inference")
        .unwrap()
        .spec();
    assert!(fired(&spot).is_empty());
}

/// Karpenter's compatibility check turns a type away for a network card it lacks or a
/// device index its cards do not take, and the finding says which; the layout the page
/// makes for a class of p6-b300 pools (cards 1 to 16) passes both EFA rules.
#[test]
fn network_interfaces_fit_only_types_with_the_cards_and_devices_they_name() {
    let fit = "karpenter-efa-interfaces-fit-no-type";
    let card_zero = "karpenter-efa-on-card-without-efa";
    let messages = |spec: &Spec, rule: &str| -> Vec<String> {
        rules::validate(spec)
            .into_iter()
            .filter(|finding| finding.rule == rule)
            .map(|finding| finding.message)
            .collect()
    };
    let mut spec = karpenter_reserved();
    only_type(&mut spec, "p5en.48xlarge");
    // 16 devices on cards 1-16: p5en has 16 EFA interfaces but only cards 0-15.
    class(&mut spec).spec.network_interfaces =
        shared::upstream::karpenter::efa_layout(16, false).into();
    let found = messages(&spec, fit);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("network card 16, and p5en.48xlarge has 16 cards"),
        "{found:?}"
    );
    // A device index past the card's interfaces: p5 cards take 2 (0 and 1).
    only_type(&mut spec, "p5.48xlarge");
    let mut layout = shared::upstream::karpenter::efa_layout(2, true);
    layout[2].device_index = 2;
    class(&mut spec).spec.network_interfaces = layout.into();
    let found = messages(&spec, fit);
    assert!(
        found[0].contains("device index 2 on a card, and each card of p5.48xlarge takes 2"),
        "{found:?}"
    );

    only_type(&mut spec, "p6-b300.48xlarge");
    class(&mut spec).spec.network_interfaces =
        shared::upstream::karpenter::efa_layout(16, false).into();
    assert_eq!(messages(&spec, fit), Vec::<String>::new());
    assert_eq!(messages(&spec, card_zero), Vec::<String>::new());
    // With p5 allowed too, Karpenter can launch p5 with the layout from card 0.
    for requirement in &mut pool(&mut spec).spec.template.spec.requirements {
        if requirement.key == "node.kubernetes.io/instance-type" {
            requirement.values = vec!["p6-b300.48xlarge".into(), "p5.48xlarge".into()].into();
        }
    }
    class(&mut spec).spec.network_interfaces =
        shared::upstream::karpenter::efa_layout(16, true).into();
    assert_eq!(messages(&spec, card_zero), Vec::<String>::new());
}

/// An Auto Mode pool is read with Auto Mode's labels: `eks.amazonaws.com/instance-family`
/// narrows its types as `karpenter.k8s.aws/instance-family` narrows a Karpenter pool's,
/// and Karpenter's label narrows nothing there.
#[test]
fn auto_mode_pools_choose_instance_types_by_auto_modes_labels() {
    let mut pool = shared::upstream::karpenter::NodePool::gpu(1, "reserved");
    pool.spec.template.spec.requirements = vec![Requirement::new(
        "eks.amazonaws.com/instance-family",
        "In",
        &["p5en"],
    )];
    let names = |pool: &shared::upstream::karpenter::NodePool| -> Vec<&str> {
        shared::upstream::matching::matching_instance_types(pool)
            .iter()
            .map(|instance_type| instance_type.name)
            .collect()
    };
    // A Karpenter pool does not know Auto Mode's label.
    assert!(names(&pool).len() > 1000, "{}", names(&pool).len());
    pool.spec.template.spec.node_class_ref.group = shared::upstream::auto_mode::GROUP.into();
    pool.spec.template.spec.node_class_ref.kind =
        shared::upstream::auto_mode::NODE_CLASS_KIND.into();
    assert_eq!(names(&pool), ["p5en.48xlarge"]);
    pool.spec.template.spec.requirements[0].key = "karpenter.k8s.aws/instance-family".into();
    assert!(names(&pool).len() > 1000, "{}", names(&pool).len());
}

/// eksctl's access entry checks, each said at the field it is about; an Auto Mode
/// NodeClass's own role is satisfied by an EC2 entry for it, and the page's helper makes one.
#[test]
fn access_entries_are_judged_as_eksctl_does_and_auto_mode_roles_find_their_entry() {
    let fired = |spec: &Spec, rule: &str| -> Vec<String> {
        rules::validate(spec)
            .into_iter()
            .filter(|finding| finding.rule == rule)
            .map(|finding| format!("{}: {}", finding.path, finding.message))
            .collect()
    };
    let (mut spec, _) = with_access_entries();
    assert!(fired(&spec, "access-entry-invalid").is_empty());
    let entries = &mut access(&mut spec).access_entries;
    entries[1].principal_arn = entries[0].principal_arn.clone();
    entries[1].access_policies[0].namespaces.clear();
    entries[0].entry_type = "EC2_LINUX".into();
    let found = fired(&spec, "access-entry-invalid");
    assert_eq!(
        found,
        [
            "cluster.access.access_entries[0].access_policies: accessPolicies cannot be given for an access entry of type EC2_LINUX",
            "cluster.access.access_entries[1].access_policies[0].namespaces: a namespace access scope needs at least one namespace",
            "cluster.access.access_entries[1].principal_arn: principal `arn:aws:iam::111122223333:role/ml-admins` has an access entry already",
        ],
        "{found:#?}"
    );

    let (mut spec, _) = auto_mode_reserved();
    spec.auto_mode_pools.node_classes[0].spec.role = Some("GpuNodeRole".into());
    let rule = "auto-mode-node-role-without-access-entry";
    assert_eq!(fired(&spec, rule).len(), 1);
    let arn = "arn:aws:iam::111122223333:role/training/GpuNodeRole";
    let mut standard = shared::model::spec::AccessEntry::admin(arn);
    standard.access_policies.clear();
    spec.cluster.access = Some(shared::model::spec::AccessConfig {
        access_entries: vec![standard],
        ..Default::default()
    });
    assert!(
        fired(&spec, rule)[0].contains("of type STANDARD, not EC2"),
        "{:?}",
        fired(&spec, rule)
    );
    access(&mut spec).access_entries =
        vec![shared::model::spec::AccessEntry::for_auto_mode_nodes(arn)];
    assert!(fired(&spec, rule).is_empty());
    assert!(fired(&spec, "access-entry-invalid").is_empty());
}

/// Whether a finding's path is a place the studio's vocabulary names (a field, an item or
/// key of a list or map field, or an object), when it lies in the part of the design the
/// studio models itself. Paths below Karpenter's and Auto Mode's objects, in `extra`, or
/// in eksctl's own keys (camelCase, kept as the file had them) are upstream's words.
fn named_by_the_vocabulary(path: &str) -> bool {
    use shared::{fields, model::places};
    let pattern = fields::pattern(path);
    let roots = [
        "cluster",
        "network",
        "storage",
        "node_groups",
        "addons",
        "karpenter",
    ];
    let upstream = [
        fields::KARPENTER_POOL,
        fields::AUTO_MODE_POOL,
        fields::NODE_CLASS_ITEM,
        "karpenter.node_overlays[]",
        "auto_mode_pools.node_classes[]",
    ];
    let root = pattern.split(['.', '[']).next().unwrap_or_default();
    if !roots.contains(&root)
        || pattern
            .chars()
            .any(|character| character.is_ascii_uppercase())
        || pattern.contains(".extra.")
        || upstream
            .iter()
            .any(|object| pattern.starts_with(&format!("{object}.")))
    {
        return true;
    }
    let objects = || places::all_fields().flat_map(|field| field.within.iter());
    if objects().any(|object| *object == pattern || object.strip_suffix("[]") == Some(&pattern))
        || upstream.contains(&pattern.as_str())
    {
        return true;
    }
    // A field, or an item or key inside one.
    let mut end = pattern.len();
    loop {
        let prefix = &pattern[..end];
        if places::find_field(prefix).is_some() {
            return end == pattern.len() || pattern[end..].starts_with('[');
        }
        match prefix.rfind(['.', '[']) {
            Some(at) => end = at,
            None => return false,
        }
    }
}

#[test]
fn every_place_a_rule_names_in_the_studios_own_model_is_in_its_vocabulary() {
    let mut unnamed: Vec<String> = Vec::new();
    for case in CASES {
        let (mut spec, mut live) = (case.base)();
        (case.breaks)(&mut spec, &mut live);
        for finding in rules::validate_with(&spec, &live) {
            if !named_by_the_vocabulary(&finding.path) {
                unnamed.push(format!("{} at {}", finding.rule, finding.path));
            }
        }
    }
    unnamed.sort();
    unnamed.dedup();
    assert!(
        unnamed.is_empty(),
        "places shared::fields does not declare: {unnamed:#?}"
    );
}

/// eksctl's stack builder for self-managed groups (pkg/cfn/builder/nodegroup.go), its
/// defaults included: an unset minSize is desiredCapacity or 2; then desiredCapacity is
/// checked against maxSize, then maxSize against minSize.
#[test]
fn self_managed_sizes_are_judged_after_eksctls_own_defaults() {
    let fired = |sizes: &str, kind: &str| -> Vec<(String, String)> {
        let text = format!("{CLUSTER_HEAD}{kind}:\n  - name: workers\n{sizes}");
        rules::check_document(&yaml_serde::from_str(&text).unwrap())
            .into_iter()
            .filter(|finding| finding.rule == "self-managed-nodegroup-size-order")
            .map(|finding| (finding.path, finding.message))
            .collect()
    };
    let cases: [(&str, Option<(&str, &str)>); 7] = [
        (
            "    minSize: 3\n    desiredCapacity: 1\n    maxSize: 4\n",
            Some((
                "desiredCapacity",
                "--nodes value (1) cannot be lower than --nodes-min value (3)",
            )),
        ),
        (
            "    desiredCapacity: 5\n    maxSize: 4\n",
            Some((
                "desiredCapacity",
                "--nodes value (5) cannot be greater than --nodes-max value (4)",
            )),
        ),
        (
            "    maxSize: 1\n",
            Some((
                "maxSize",
                "--nodes-min value (2) cannot be greater than --nodes-max value (1)",
            )),
        ),
        (
            "    minSize: 2\n    maxSize: 1\n",
            Some((
                "maxSize",
                "--nodes-min value (2) cannot be greater than --nodes-max value (1)",
            )),
        ),
        ("    desiredCapacity: 1\n    maxSize: 1\n", None),
        ("    minSize: 0\n    maxSize: 0\n", None),
        ("    instanceType: m5.large\n", None),
    ];
    for (sizes, expected) in cases {
        let found = fired(sizes, "nodeGroups");
        match expected {
            Some((key, words)) => {
                assert_eq!(found.len(), 1, "{sizes}: {found:?}");
                assert_eq!(found[0].0, format!("nodeGroups[0].{key}"), "{sizes}");
                assert!(found[0].1.contains(words), "{sizes}: {}", found[0].1);
            }
            None => assert!(found.is_empty(), "{sizes}: {found:?}"),
        }
        // Managed groups are the spec rule nodegroup-size-order's.
        assert!(fired(sizes, "managedNodeGroups").is_empty());
    }
}

/// A Capacity Block is placed by AWS in an UltraCluster and bought without a placement
/// group: the placement-group advice for reservations speaks of ODCRs, and tells a block's
/// buyer that a placement group of theirs adds nothing.
#[test]
fn placement_group_advice_tells_capacity_blocks_from_reservations() {
    let (mut spec, live) = block();
    gpu(&mut spec).efa_enabled = true;
    gpu(&mut spec).placement_group.clear();
    assert!(fired_paths(&spec, &live, "efa-reservation-placement-group").is_empty());
    gpu(&mut spec).capacity = Capacity::Reservation {
        reservation_id: RESERVATION.into(),
    };
    assert_eq!(
        fired_paths(&spec, &live, "efa-reservation-placement-group"),
        ["node_groups[1].capacity"]
    );

    let (mut spec, live) = block();
    gpu(&mut spec).placement_group = "p5-training".into();
    let message = |spec: &Spec| {
        rules::validate_with(spec, &live)
            .into_iter()
            .find(|finding| finding.rule == "placement-group-with-reservation")
            .unwrap()
            .message
    };
    assert!(
        message(&spec).contains("EC2 UltraCluster"),
        "{}",
        message(&spec)
    );
    gpu(&mut spec).capacity = Capacity::Reservation {
        reservation_id: RESERVATION.into(),
    };
    assert!(
        message(&spec).contains("make sure the reservation was made in that placement group"),
        "{}",
        message(&spec)
    );
}

#[test]
fn a_new_vpcs_cidr_is_judged_as_eksctl_reads_it_and_written_where_eksctl_reads_it() {
    let (mut spec, live) = new_vpc_base();
    spec.set_vpc_cidr("10.10.0.0/16");
    assert!(fired_paths(&spec, &live, "vpc-cidr-invalid").is_empty());
    let yaml = shared::render_cluster_yaml(&spec).unwrap();
    assert!(yaml.contains("vpc:\n  cidr: 10.10.0.0/16\n"), "{yaml}");
    for (cidr, words) in [
        ("10.0.0.0/25", "VPC CIDR prefix must be between /16 and /24"),
        ("10.0.0.0", "is not an IPv4 CIDR block"),
        ("10.0.0.300/16", "is not an IPv4 CIDR block"),
    ] {
        spec.set_vpc_cidr(cidr);
        let found = rules::validate_with(&spec, &live)
            .into_iter()
            .find(|finding| finding.rule == "vpc-cidr-invalid")
            .unwrap_or_else(|| panic!("{cidr} is refused"));
        assert!(found.message.contains(words), "{cidr}: {}", found.message);
    }
    // Cleared, the key goes and nothing else of `vpc` is touched.
    spec.set_vpc_cidr("");
    assert_eq!(spec.vpc_cidr(), None);
    assert!(!spec.eksctl_extra.contains_key("vpc"));
}

#[test]
fn an_efa_group_in_a_new_vpc_that_lists_no_zone_is_warned_that_eksctl_picks_them() {
    let (mut spec, live) = new_vpc_base();
    let mut group = shared::templates::added_group(&spec, true);
    group.placement = shared::model::spec::GroupPlacement::Cluster;
    spec.node_groups.push(group);
    spec.network = Network::NewVpc {
        availability_zones: Vec::new(),
    };
    let found = rules::validate_with(&spec, &live)
        .into_iter()
        .find(|finding| finding.rule == "efa-group-not-pinned")
        .expect("the unpinned EFA group is warned about");
    assert_eq!(found.severity, Severity::Warning);
    assert!(
        found
            .message
            .contains("eksctl picks the cluster's zones itself"),
        "{}",
        found.message
    );
}

/// A node group's subnets are found as eksctl's `selectNodeGroupSubnetsFromIDs` finds them:
/// by name or id among the cluster's (a new VPC's are named by zone), then by id in the
/// account, where EC2's answer decides.
#[test]
fn a_node_groups_subnet_is_judged_where_eksctl_looks_it_up() {
    let judged = |spec: &Spec, live: &LiveFacts| -> Vec<(String, String, Severity)> {
        rules::validate_with(spec, live)
            .into_iter()
            .filter(|finding| finding.path.contains("placement"))
            .map(|finding| (finding.rule.into_owned(), finding.path, finding.severity))
            .collect()
    };
    let at = |rule: &str, path: &str, severity: Severity| {
        vec![(rule.to_owned(), path.to_owned(), severity)]
    };

    // A new VPC's subnets are named by zone: a zone of the cluster is found.
    let (mut spec, live) = new_vpc_base();
    let zones = spec.network.zones();
    let last = spec.node_groups.len() - 1;
    spec.node_groups[last].placement = GroupPlacement::Subnets {
        subnets: vec![zones[0].clone()],
    };
    assert_eq!(judged(&spec, &live), vec![]);
    // With the zones left to eksctl, it may or may not pick that one.
    spec.network = Network::NewVpc {
        availability_zones: Vec::new(),
    };
    let path = format!("node_groups[{last}].placement.subnets[0]");
    assert_eq!(
        judged(&spec, &live),
        at("nodegroup-subnet-unlisted", &path, Severity::Warning)
    );
    // An id can never be in a VPC eksctl is about to create.
    spec.node_groups[last].placement = GroupPlacement::Subnets {
        subnets: vec!["subnet-0ccccccccccccccc1".into()],
    };
    assert_eq!(
        judged(&spec, &live),
        at(
            "nodegroup-subnet-unknown",
            &format!("node_groups[{last}].placement"),
            Severity::Error
        )
    );

    // An existing VPC: an unlisted id is looked up, and EC2's answer decides.
    let (mut spec, mut live) = block();
    let Network::ExistingVpc { vpc_id, .. } = spec.network.clone() else {
        panic!("the block template has an existing VPC");
    };
    let zone = shared::rules::node_group_zones(&spec, &live, 1).unwrap()[0].clone();
    gpu(&mut spec).placement = GroupPlacement::Subnets {
        subnets: vec!["subnet-0ccccccccccccccc1".into()],
    };
    let path = "node_groups[1].placement.subnets[0]";
    assert_eq!(
        judged(&spec, &live),
        at("nodegroup-subnet-unlisted", path, Severity::Warning)
    );
    let fact = |vpc: &str| shared::rules::SubnetFact {
        id: "subnet-0ccccccccccccccc1".into(),
        vpc_id: vpc.into(),
        availability_zone: zone.clone(),
        available_addresses: 200,
    };
    live.subnets.push(fact(&vpc_id));
    assert_eq!(judged(&spec, &live), vec![]);
    live.subnets = vec![fact("vpc-0ffffffffffffffff")];
    let wrong = judged(&spec, &live);
    assert_eq!(wrong, at("subnet-wrong-vpc", path, Severity::Error));
    live.subnets.clear();
    live.missing_subnets.push("subnet-0ccccccccccccccc1".into());
    assert_eq!(
        judged(&spec, &live),
        at("subnet-not-found", path, Severity::Error)
    );
}

/// eksctl creates add-ons one after another and skips one already present: a second entry
/// is lost only when it asks for something else.
#[test]
fn an_add_on_listed_twice_loses_only_settings_that_differ() {
    let (mut spec, live) = new_vpc_base();
    let first = spec.addons[0].clone();
    spec.addons.push(first.clone());
    let duplicate = |spec: &Spec| {
        rules::validate_with(spec, &live)
            .into_iter()
            .filter(|finding| finding.rule == "addon-duplicate")
            .map(|finding| (finding.path, finding.severity))
            .collect::<Vec<_>>()
    };
    assert_eq!(duplicate(&spec), vec![]);
    let last = spec.addons.len() - 1;
    spec.addons[last].resolve_conflicts = Some("preserve".into());
    assert_eq!(
        duplicate(&spec),
        vec![(format!("addons[{last}].name"), Severity::Error)]
    );
}

/// A group that may grow past its reservation says how many of its nodes can never launch.
#[test]
fn a_group_larger_than_its_reservation_counts_the_nodes_that_never_launch() {
    let (mut spec, mut live) = block();
    live.reservations[0].total_instances = 1;
    live.reservations[0].available_instances = 1;
    spec.node_groups[1].desired_capacity = Some(1);
    spec.node_groups[1].max_size = Some(4);
    let findings = rules::validate_with(&spec, &live);
    let finding = findings
        .iter()
        .find(|finding| finding.rule == "reservation-smaller-than-max-size")
        .expect("the rule fires");
    assert!(
        finding
            .message
            .contains("holds 1: 3 of them can never launch"),
        "{}",
        finding.message
    );
}
