//! The rule cases as data, one row per rule: a correct design, what breaks it, and the
//! field the finding is at; with the designs and facts the rows start from.

#![allow(dead_code)]

pub use crate::common::*;
pub use shared::model::spec::{
    Addon, Capacity, GroupPlacement, KarpenterRelease, Network, NodeTaint, Spec,
};
pub use shared::rules::{
    self, ClusterVersionFact, InstanceTypeFact, LiveFacts, Severity, SpotScoreFact,
};
pub use shared::upstream::karpenter::{Budget, Requirement, SelectorTerm};

pub type Base = fn() -> (Spec, LiveFacts);
pub type Breaker = fn(&mut Spec, &mut LiveFacts);

pub struct Case {
    pub rule: &'static str,
    pub base: Base,
    pub breaks: Breaker,
    pub path: &'static str,
}

/// The P6e-GB200 UltraServer template, its placeholders filled as a user would.
pub fn ultraserver() -> (Spec, LiveFacts) {
    let template = shared::templates::template("p6e-gb200-ultraserver").unwrap();
    let mut spec = template.spec();
    for placeholder in shared::lint::placeholders::list(&template.spec()) {
        let value = match placeholder.label.as_str() {
            "AWS region" => "us-east-2".to_owned(),
            "VPC ID" => "vpc-0123456789abcdef0".to_owned(),
            "Capacity reservation ID" => "cr-0123456789abcdef0".to_owned(),
            "AMI ID" => "ami-0123456789abcdef0".to_owned(),
            label => {
                let number = label.split(' ').nth(2).unwrap_or("9");
                let kind = if label.starts_with("Public") { 1 } else { 0 };
                format!("subnet-{kind}{number:0>16}")
            }
        };
        spec = shared::lint::placeholders::fill(&spec, &placeholder.token, &value);
    }
    (spec, LiveFacts::default())
}
/// The same design on p5.48xlarge, a type eksctl knows.
pub fn ultraserver_on_p5() -> (Spec, LiveFacts) {
    let (mut spec, live) = ultraserver();
    gpu(&mut spec).instance_type = "p5.48xlarge".into();
    (spec, live)
}
/// The Auto Mode reserved-capacity template.
pub fn auto_mode_reserved() -> (Spec, LiveFacts) {
    let spec = shared::templates::template("auto-mode-reserved-training")
        .unwrap()
        .spec();
    (spec, LiveFacts::default())
}
pub fn block() -> (Spec, LiveFacts) {
    (capacity_block(), capacity_block_facts())
}
pub fn new_vpc_base() -> (Spec, LiveFacts) {
    (new_vpc(), LiveFacts::default())
}
pub fn storage_base() -> (Spec, LiveFacts) {
    (with_storage(), LiveFacts::default())
}
pub fn fsx_of(spec: &mut Spec) -> &mut shared::model::spec::FsxVolume {
    spec.storage.fsx.as_mut().unwrap()
}
pub fn auto_mode_base() -> (Spec, LiveFacts) {
    (auto_mode(), LiveFacts::default())
}
pub fn auto_mode_of(spec: &mut Spec) -> &mut shared::model::spec::AutoMode {
    spec.cluster.auto_mode.as_mut().unwrap()
}
pub fn spot_pool() -> (Spec, LiveFacts) {
    (karpenter_spot(), LiveFacts::default())
}
/// The Spot pool with its controller's role given through IRSA.
pub fn irsa_pool() -> (Spec, LiveFacts) {
    let mut spec = karpenter_spot();
    spec.cluster.with_oidc = true;
    spec.karpenter.as_mut().unwrap().controller_identity =
        shared::model::spec::ControllerIdentity::Irsa;
    // IRSA needs no Pod Identity agent.
    spec.addons.clear();
    (spec, LiveFacts::default())
}
pub fn reserved_pool() -> (Spec, LiveFacts) {
    (karpenter_reserved(), LiveFacts::default())
}
/// The reserved Karpenter pool, with EC2's answer for its reservation: an active p5 ODCR.
pub fn reserved_pool_live() -> (Spec, LiveFacts) {
    let mut facts = capacity_block_facts();
    facts.reservations[0].reservation_type = "default".into();
    let mut spec = karpenter_reserved();
    spec.cluster.region = "us-east-1".into();
    spec.network = Network::NewVpc {
        availability_zones: vec!["us-east-1a".into(), "us-east-1b".into()],
    };
    (spec, facts)
}
/// The g5 design (OIDC on) whose only add-on is `name` with IAM policy `policy`.
pub fn only_addon(name: &str, policy: &str) -> (Spec, LiveFacts) {
    let mut spec = new_vpc();
    spec.cluster.with_oidc = true;
    spec.addons = vec![Addon {
        name: name.into(),
        attach_policy_arns: vec![policy.into()],
        ..Addon::default()
    }];
    (spec, LiveFacts::default())
}
pub fn fsx_with_its_policy() -> (Spec, LiveFacts) {
    only_addon(
        "aws-fsx-csi-driver",
        "arn:aws:iam::aws:policy/AmazonFSxFullAccess",
    )
}
/// Both storage drivers given their roles through EKS Pod Identity, with the agent.
pub fn storage_through_pod_identity() -> (Spec, LiveFacts) {
    let (mut spec, live) = mountpoint_with_its_policy();
    spec.addons.push(Addon {
        name: "aws-fsx-csi-driver".into(),
        attach_policy_arns: vec!["arn:aws:iam::aws:policy/AmazonFSxFullAccess".into()],
        ..Addon::default()
    });
    for driver in &shared::documents::storage::DRIVERS {
        driver.set_identity(
            &mut spec,
            shared::documents::storage::DriverIdentity::PodIdentity,
        );
    }
    (spec, live)
}
pub fn mountpoint_with_its_policy() -> (Spec, LiveFacts) {
    only_addon(
        "aws-mountpoint-s3-csi-driver",
        "arn:aws:iam::123456789012:policy/training-bucket",
    )
}
/// The g5 design with its GPU group in EC2's cluster placement group `training`.
pub fn in_placement_group() -> (Spec, LiveFacts) {
    let mut spec = new_vpc();
    let group = gpu(&mut spec);
    group.placement_group = "training".into();
    group.efa_enabled = true;
    group.max_size = Some(4);
    let live = LiveFacts {
        placement_groups: vec![shared::rules::PlacementGroupFact {
            name: "training".into(),
            id: "pg-0123456789abcdef0".into(),
            strategy: "cluster".into(),
            state: "available".into(),
        }],
        ..LiveFacts::default()
    };
    (spec, live)
}
/// A NodeOverlay on g6e instances with this price adjustment.
pub fn overlay(adjustment: &str) -> shared::upstream::karpenter::NodeOverlay {
    shared::upstream::karpenter::NodeOverlay {
        metadata: shared::upstream::karpenter::ObjectMeta {
            name: "g6e-savings".into(),
            ..Default::default()
        },
        spec: shared::upstream::karpenter::NodeOverlaySpec {
            requirements: vec![Requirement::new(
                "karpenter.k8s.aws/instance-family",
                "In",
                &["g6e"],
            )],
            price_adjustment: Some(adjustment.into()),
            ..Default::default()
        },
        ..Default::default()
    }
}
/// The reserved pool made static at the two nodes its ODCR holds.
pub fn static_reserved_pool_live() -> (Spec, LiveFacts) {
    let (mut spec, live) = reserved_pool_live();
    let pool = pool(&mut spec);
    pool.spec.replicas = Some(2);
    pool.spec.limits = std::collections::BTreeMap::from([("nodes".to_owned(), 3.into())]).into();
    (spec, live)
}
/// The reserved Karpenter pool on the Capacity Block design's existing VPC.
pub fn karpenter_existing_vpc() -> (Spec, LiveFacts) {
    let mut spec = capacity_block();
    let karpenter = karpenter_reserved();
    spec.karpenter = karpenter.karpenter;
    spec.addons.extend(karpenter.addons);
    (spec, LiveFacts::default())
}

/// EKS's DescribeClusterVersions answer for the region, as (version, versionStatus).
pub fn eks_lists(live: &mut LiveFacts, versions: &[(&str, &str)]) {
    live.cluster_versions = Some(
        versions
            .iter()
            .map(|(version, status)| ClusterVersionFact {
                version: (*version).into(),
                status: (*status).into(),
                end_of_standard_support: None,
                end_of_extended_support: None,
            })
            .collect(),
    );
}

pub const EKS_TODAY: &[(&str, &str)] = &[
    ("1.35", "STANDARD_SUPPORT"),
    ("1.34", "STANDARD_SUPPORT"),
    ("1.33", "EXTENDED_SUPPORT"),
    ("1.32", "EXTENDED_SUPPORT"),
    ("1.31", "UNSUPPORTED"),
];

pub fn existing_subnets(
    spec: &mut Spec,
) -> (
    &mut Vec<shared::model::spec::Subnet>,
    &mut Vec<shared::model::spec::Subnet>,
) {
    match &mut spec.network {
        Network::ExistingVpc {
            public_subnets,
            private_subnets,
            ..
        } => (public_subnets, private_subnets),
        Network::NewVpc { .. } => panic!("base has an existing VPC"),
    }
}

pub fn gpu(spec: &mut Spec) -> &mut shared::model::spec::NodeGroup {
    spec.node_groups.last_mut().unwrap()
}

pub fn pool(spec: &mut Spec) -> &mut shared::upstream::karpenter::NodePool {
    &mut spec.karpenter.as_mut().unwrap().node_pools[0]
}

/// The g5 design with two access entries eksctl takes: an admin role, and a viewer in
/// two namespaces.
pub fn with_access_entries() -> (Spec, LiveFacts) {
    let mut spec = new_vpc();
    let mut viewer =
        shared::model::spec::AccessEntry::admin("arn:aws:iam::111122223333:role/viewers");
    viewer.access_policies[0].policy_arn =
        "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy".into();
    viewer.access_policies[0].scope = "namespace".into();
    viewer.access_policies[0].namespaces = vec!["training".into(), "eval".into()];
    spec.cluster.access = Some(shared::model::spec::AccessConfig {
        authentication_mode: "API".into(),
        bootstrap_cluster_creator_admin_permissions: Some(false),
        access_entries: vec![
            shared::model::spec::AccessEntry::admin("arn:aws:iam::111122223333:role/ml-admins"),
            viewer,
        ],
    });
    (spec, LiveFacts::default())
}

pub fn access(spec: &mut Spec) -> &mut shared::model::spec::AccessConfig {
    spec.cluster.access.as_mut().unwrap()
}

/// Narrows the first pool's instance types to `name` alone.
pub fn only_type(spec: &mut Spec, name: &str) {
    for requirement in &mut pool(spec).spec.template.spec.requirements {
        if requirement.key == "node.kubernetes.io/instance-type" {
            requirement.values = vec![name.into()].into();
        }
    }
}

pub fn class(spec: &mut Spec) -> &mut shared::upstream::karpenter::Ec2NodeClass {
    &mut spec.karpenter.as_mut().unwrap().node_classes[0]
}

pub const CASES: &[Case] = &[
    Case {
        rule: "karpenter-pool-offered-nowhere",
        base: reserved_pool_live,
        breaks: |_, live| {
            live.offerings[0].availability_zones = vec!["us-east-1c".into()];
        },
        path: "karpenter.node_pools[0]",
    },
    Case {
        rule: "karpenter-spot-placement-score-low",
        base: spot_pool,
        breaks: |_, live| {
            live.spot_scores = vec![shared::rules::SpotScoreFact {
                instance_type: "g5.xlarge".into(),
                availability_zone: None,
                score: 2,
            }]
        },
        path: "karpenter.node_pools[0]",
    },
    Case {
        rule: "karpenter-reservation-not-found",
        base: reserved_pool_live,
        breaks: |_, live| {
            live.missing_reservations = vec![live.reservations[0].id.clone()];
            live.reservations.clear();
        },
        path: "karpenter.node_classes[0].spec.capacityReservationSelectorTerms[0].id",
    },
    Case {
        rule: "karpenter-reservation-not-active",
        base: reserved_pool_live,
        breaks: |_, live| live.reservations[0].state = "expired".into(),
        path: "karpenter.node_classes[0].spec.capacityReservationSelectorTerms[0].id",
    },
    Case {
        rule: "karpenter-reservation-type-not-launched",
        base: reserved_pool_live,
        breaks: |_, live| live.reservations[0].instance_type = "p4d.24xlarge".into(),
        path: "karpenter.node_classes[0].spec.capacityReservationSelectorTerms[0].id",
    },
    Case {
        rule: "karpenter-pod-identity-agent-missing",
        base: spot_pool,
        breaks: |spec, _| {
            spec.addons
                .retain(|addon| addon.name != "eks-pod-identity-agent")
        },
        path: "addons",
    },
    Case {
        rule: "karpenter-controller-has-no-nodes",
        base: spot_pool,
        breaks: |spec, _| spec.node_groups.clear(),
        path: "node_groups",
    },
    Case {
        rule: "karpenter-controller-cannot-schedule",
        base: spot_pool,
        breaks: |spec, _| {
            for group in &mut spec.node_groups {
                group.taints.push(shared::model::spec::NodeTaint {
                    key: "dedicated".into(),
                    value: Some("batch".into()),
                    effect: "NoSchedule".into(),
                });
            }
        },
        path: "node_groups",
    },
    Case {
        rule: "nodegroups-beyond-quota",
        base: new_vpc_base,
        breaks: |spec, _| {
            for number in 0..31 {
                let mut group = spec.node_groups[0].clone();
                group.name = format!("copy-{number}");
                spec.node_groups.push(group);
            }
        },
        path: "node_groups",
    },
    Case {
        rule: "vpc-cidr-invalid",
        base: new_vpc_base,
        breaks: |spec, _| spec.set_vpc_cidr("10.0.0.0/12"),
        path: "eksctl_extra.vpc.cidr",
    },
    Case {
        rule: "karpenter-without-nodepools",
        base: spot_pool,
        breaks: |spec, _| spec.karpenter.as_mut().unwrap().node_pools.clear(),
        path: "karpenter.node_pools",
    },
    Case {
        rule: "karpenter-controller-one-node",
        base: spot_pool,
        breaks: |spec, _| {
            let group = &mut spec.node_groups[0];
            (group.min_size, group.desired_capacity, group.max_size) = (Some(1), Some(1), Some(1));
        },
        path: "node_groups",
    },
    Case {
        rule: "karpenter-irsa-without-oidc",
        base: irsa_pool,
        breaks: |spec, _| spec.cluster.with_oidc = false,
        path: "cluster.with_oidc",
    },
    Case {
        rule: "karpenter-node-role-not-created",
        base: spot_pool,
        breaks: |spec, _| {
            spec.karpenter.as_mut().unwrap().node_classes[0].spec.role =
                Some("MyTeamNodeRole".into())
        },
        path: "karpenter.node_classes[0].spec.role",
    },
    Case {
        rule: "karpenter-discovery-tag-not-applied",
        base: spot_pool,
        breaks: |spec, _| {
            let karpenter = spec.karpenter.as_mut().unwrap();
            let mut second = karpenter.node_classes[0].clone();
            second.metadata.name = "other".into();
            shared::upstream::karpenter::set_discovery(
                &mut second.spec.security_group_selector_terms,
                "another-cluster".into(),
            );
            karpenter.node_classes.push(second);
        },
        path: "karpenter.node_classes[1].spec.securityGroupSelectorTerms",
    },
    Case {
        rule: "karpenter-subnet-cannot-be-tagged",
        base: karpenter_existing_vpc,
        breaks: |spec, _| existing_subnets(spec).1[1].id.clear(),
        path: "network.private_subnets[1].id",
    },
    Case {
        rule: "placeholder-left",
        base: block,
        breaks: |spec, _| spec.cluster.region = "PLACEHOLDER_AWS_REGION".into(),
        path: "cluster.region",
    },
    Case {
        rule: "cluster-name-invalid",
        base: block,
        breaks: |spec, _| spec.cluster.name = "p5_training".into(),
        path: "cluster.name",
    },
    Case {
        rule: "region-unknown",
        base: block,
        breaks: |spec, _| spec.cluster.region = "us-central-9".into(),
        path: "cluster.region",
    },
    Case {
        rule: "region-other-partition",
        base: block,
        breaks: |spec, _| spec.cluster.region = "cn-northwest-1".into(),
        path: "cluster.region",
    },
    Case {
        rule: "kubernetes-version-unsupported",
        base: block,
        breaks: |spec, _| spec.cluster.kubernetes_version = "1.19".into(),
        path: "cluster.kubernetes_version",
    },
    // Past extended support on the calendar's day (2026-11-26), and a day too early for
    // a version the shell's clock says is not out yet.
    Case {
        rule: "kubernetes-version-unsupported",
        base: block,
        breaks: |spec, _| spec.cluster.kubernetes_version = "1.31".into(),
        path: "cluster.kubernetes_version",
    },
    Case {
        rule: "kubernetes-version-unsupported",
        base: block,
        breaks: |spec, live| {
            spec.cluster.kubernetes_version = "1.35".into();
            live.today = shared::catalog::versions::Date::parse("2026-01-26");
        },
        path: "cluster.kubernetes_version",
    },
    Case {
        rule: "kubernetes-version-omitted",
        base: block,
        breaks: |spec, _| spec.cluster.kubernetes_version = String::new(),
        path: "cluster.kubernetes_version",
    },
    Case {
        rule: "kubernetes-version-extended-support",
        base: block,
        breaks: |spec, _| spec.cluster.kubernetes_version = "1.32".into(),
        path: "cluster.kubernetes_version",
    },
    Case {
        rule: "kubernetes-version-extended-support",
        base: block,
        // The shell's clock moves 1.35 past its standard support.
        breaks: |_, live| live.today = shared::catalog::versions::Date::parse("2027-04-01"),
        path: "cluster.kubernetes_version",
    },
    // EKS's own answer, when live checks ran, wins over the calendar: a version it does
    // not list, one it lists as unsupported, and one it has moved to extended support.
    Case {
        rule: "kubernetes-version-unsupported",
        base: block,
        breaks: |spec, live| {
            spec.cluster.kubernetes_version = "1.36".into();
            eks_lists(live, EKS_TODAY);
        },
        path: "cluster.kubernetes_version",
    },
    Case {
        rule: "kubernetes-version-unsupported",
        base: block,
        breaks: |spec, live| {
            spec.cluster.kubernetes_version = "1.31".into();
            eks_lists(live, EKS_TODAY);
        },
        path: "cluster.kubernetes_version",
    },
    Case {
        rule: "kubernetes-version-extended-support",
        base: block,
        breaks: |_, live| eks_lists(live, &[("1.35", "EXTENDED_SUPPORT")]),
        path: "cluster.kubernetes_version",
    },
    Case {
        rule: "kubernetes-version-newer-than-calendar",
        base: block,
        breaks: |spec, _| spec.cluster.kubernetes_version = "1.36".into(),
        path: "cluster.kubernetes_version",
    },
    Case {
        rule: "availability-zone-not-in-region",
        base: new_vpc_base,
        breaks: |spec, _| {
            spec.network = Network::NewVpc {
                availability_zones: vec!["us-west-2a".into(), "us-east-1b".into()],
            }
        },
        path: "network.availability_zones[1]",
    },
    Case {
        rule: "new-vpc-zones-too-few",
        base: new_vpc_base,
        breaks: |spec, _| {
            spec.network = Network::NewVpc {
                availability_zones: vec!["us-west-2b".into()],
            }
        },
        path: "network.availability_zones",
    },
    Case {
        rule: "vpc-id-malformed",
        base: block,
        breaks: |spec, _| {
            if let Network::ExistingVpc { vpc_id, .. } = &mut spec.network {
                *vpc_id = "vpc-12345".into()
            }
        },
        path: "network.vpc_id",
    },
    Case {
        rule: "subnet-id-malformed",
        base: block,
        breaks: |spec, _| existing_subnets(spec).1[1].id = "subnet-XYZ".into(),
        path: "network.private_subnets[1].id",
    },
    Case {
        rule: "existing-vpc-subnets-too-few",
        base: block,
        breaks: |spec, _| {
            existing_subnets(spec).0.pop();
        },
        path: "network.public_subnets",
    },
    Case {
        rule: "existing-vpc-no-subnets",
        base: block,
        breaks: |spec, _| {
            let (public, private) = existing_subnets(spec);
            public.clear();
            private.clear();
        },
        path: "network",
    },
    Case {
        rule: "subnet-duplicate",
        base: block,
        breaks: |spec, _| {
            let (_, private) = existing_subnets(spec);
            private[1].name = private[0].name.clone();
        },
        path: "network.private_subnets[1].name",
    },
    Case {
        rule: "subnet-id-twice",
        base: block,
        breaks: |spec, _| existing_subnets(spec).1[1].id = PRIVATE_ONE.into(),
        path: "network.private_subnets[1].id",
    },
    Case {
        rule: "subnet-public-and-private",
        base: block,
        breaks: |spec, _| existing_subnets(spec).0[0].id = PRIVATE_ONE.into(),
        path: "network.private_subnets[0].id",
    },
    Case {
        rule: "existing-vpc-single-zone",
        base: block,
        breaks: |spec, _| {
            let (public, private) = existing_subnets(spec);
            for subnet in public.iter_mut().chain(private.iter_mut()) {
                subnet.availability_zone = Some("us-east-1a".into());
            }
        },
        path: "network",
    },
    Case {
        rule: "addon-duplicate",
        base: new_vpc_base,
        breaks: |spec, _| {
            spec.addons.push(Addon {
                name: "eks-node-monitoring-agent".into(),
                ..Addon::default()
            })
        },
        path: "addons[2].name",
    },
    Case {
        rule: "nodegroup-name-invalid",
        base: block,
        breaks: |spec, _| gpu(spec).name = "p5 block".into(),
        path: "node_groups[1].name",
    },
    Case {
        rule: "nodegroup-name-duplicate",
        base: block,
        breaks: |spec, _| gpu(spec).name = "sys".into(),
        path: "node_groups[1].name",
    },
    Case {
        rule: "nodegroup-size-order",
        base: block,
        breaks: |spec, _| gpu(spec).desired_capacity = Some(12),
        path: "node_groups[1].desired_capacity",
    },
    Case {
        rule: "nodegroup-instance-type-missing",
        base: block,
        breaks: |spec, _| gpu(spec).instance_type.clear(),
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "nodegroup-instance-type-and-types",
        base: block,
        breaks: |spec, _| gpu(spec).instance_types = vec!["p5.48xlarge".into()],
        path: "node_groups[1].instance_types",
    },
    Case {
        rule: "instance-type-unknown",
        base: block,
        breaks: |spec, _| gpu(spec).instance_type = "p5.96xlarge".into(),
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "instance-type-mac",
        base: block,
        breaks: |spec, _| gpu(spec).instance_type = "mac2-m2pro.metal".into(),
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "nodegroup-subnet-unknown",
        base: block,
        breaks: |spec, _| {
            gpu(spec).placement = GroupPlacement::Subnets {
                subnets: vec!["private-c".into()],
            }
        },
        path: "node_groups[1].placement.subnets[0]",
    },
    Case {
        rule: "nodegroup-subnet-unlisted",
        base: block,
        breaks: |spec, _| {
            gpu(spec).placement = GroupPlacement::Subnets {
                subnets: vec!["subnet-0ccccccccccccccc1".into()],
            }
        },
        path: "node_groups[1].placement.subnets[0]",
    },
    Case {
        rule: "local-nvme-needs-al2023",
        base: block,
        breaks: |spec, _| gpu(spec).ami_family = Some("Bottlerocket".into()),
        path: "node_groups[1].local_nvme_raid0",
    },
    Case {
        rule: "local-nvme-without-instance-store",
        base: new_vpc_base,
        breaks: |spec, _| spec.node_groups[0].local_nvme_raid0 = true,
        path: "node_groups[0].local_nvme_raid0",
    },
    Case {
        rule: "efa-unsupported-instance-type",
        base: new_vpc_base,
        breaks: |spec, _| gpu(spec).instance_type = "g5.2xlarge".into(),
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "efa-card-zero-without-efa",
        base: new_vpc_base,
        breaks: |spec, _| gpu(spec).instance_type = "p6-b300.48xlarge".into(),
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "efa-multiple-subnets",
        base: block,
        breaks: |spec, _| {
            gpu(spec).placement = GroupPlacement::Subnets {
                subnets: vec![PRIVATE_ONE.into(), PRIVATE_TWO.into()],
            }
        },
        path: "node_groups[1].placement",
    },
    Case {
        rule: "node-group-no-subnet-of-its-kind",
        base: block,
        breaks: |spec, _| {
            if let Network::ExistingVpc { public_subnets, .. } = &mut spec.network {
                public_subnets.clear();
            }
            spec.node_groups[0].private_networking = false;
            spec.node_groups[0].placement = GroupPlacement::Cluster;
        },
        path: "node_groups[0].placement",
    },
    Case {
        rule: "node-group-private-subnet-public-group",
        base: block,
        breaks: |spec, _| {
            gpu(spec).private_networking = false;
        },
        path: "node_groups[1].placement",
    },
    Case {
        rule: "efa-group-not-pinned",
        base: block,
        breaks: |spec, _| gpu(spec).placement = GroupPlacement::Cluster,
        path: "node_groups[1].placement",
    },
    Case {
        rule: "efa-reservation-placement-group",
        base: new_vpc_base,
        breaks: |spec, _| {
            gpu(spec).capacity = Capacity::Reservation {
                reservation_id: RESERVATION.into(),
            }
        },
        path: "node_groups[1].capacity",
    },
    Case {
        rule: "reservation-id-missing",
        base: block,
        breaks: |spec, _| {
            gpu(spec).capacity = Capacity::CapacityBlock {
                reservation_id: String::new(),
            }
        },
        path: "node_groups[1].capacity.reservation_id",
    },
    Case {
        rule: "reservation-id-malformed",
        base: block,
        breaks: |spec, _| {
            gpu(spec).capacity = Capacity::CapacityBlock {
                reservation_id: "cr-0123".into(),
            }
        },
        path: "node_groups[1].capacity.reservation_id",
    },
    Case {
        rule: "reservation-group-not-pinned",
        base: block,
        breaks: |spec, _| {
            let group = gpu(spec);
            group.efa_enabled = false;
            group.placement = GroupPlacement::Cluster;
        },
        path: "node_groups[1].placement",
    },
    Case {
        rule: "capacity-block-ineligible-instance-type",
        base: block,
        breaks: |spec, _| gpu(spec).instance_type = "g5.48xlarge".into(),
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "node-repair-threshold-count-and-percentage",
        base: new_vpc_base,
        breaks: |spec, _| {
            let group = gpu(spec);
            group.node_repair = true;
            group.node_repair_config.max_unhealthy_node_threshold_count = Some(2);
            group
                .node_repair_config
                .max_unhealthy_node_threshold_percentage = Some(20);
        },
        path: "node_groups[1].node_repair_config.max_unhealthy_node_threshold_count",
    },
    Case {
        rule: "node-repair-parallel-count-and-percentage",
        base: new_vpc_base,
        breaks: |spec, _| {
            let group = gpu(spec);
            group.node_repair = true;
            group.node_repair_config.max_parallel_nodes_repaired_count = Some(1);
            group
                .node_repair_config
                .max_parallel_nodes_repaired_percentage = Some(50);
        },
        path: "node_groups[1].node_repair_config.max_parallel_nodes_repaired_count",
    },
    Case {
        rule: "node-repair-percentage-out-of-range",
        base: new_vpc_base,
        breaks: |spec, _| {
            let group = gpu(spec);
            group.node_repair = true;
            group
                .node_repair_config
                .max_parallel_nodes_repaired_percentage = Some(150);
        },
        path: "node_groups[1].node_repair_config.max_parallel_nodes_repaired_percentage",
    },
    Case {
        rule: "node-repair-override-incomplete",
        base: new_vpc_base,
        breaks: |spec, _| {
            let group = gpu(spec);
            group.node_repair = true;
            group.node_repair_config.node_repair_config_overrides =
                vec![shared::model::spec::RepairOverride {
                    node_monitoring_condition: "AcceleratedHardwareReady".into(),
                    min_repair_wait_time_mins: 10,
                    repair_action: "Reboot".into(),
                    ..Default::default()
                }];
        },
        path: "node_groups[1].node_repair_config.node_repair_config_overrides[0]",
    },
    Case {
        rule: "node-repair-override-action-unknown",
        base: new_vpc_base,
        breaks: |spec, _| {
            let group = gpu(spec);
            group.node_repair = true;
            group.node_repair_config.node_repair_config_overrides =
                vec![shared::model::spec::RepairOverride {
                    node_monitoring_condition: "AcceleratedHardwareReady".into(),
                    node_unhealthy_reason: "NvidiaXID13Error".into(),
                    min_repair_wait_time_mins: 10,
                    repair_action: "reboot".into(),
                }];
        },
        path: "node_groups[1].node_repair_config.node_repair_config_overrides[0].repair_action",
    },
    Case {
        rule: "node-repair-settings-while-off",
        base: new_vpc_base,
        breaks: |spec, _| {
            let group = gpu(spec);
            group.node_repair = false;
            group
                .node_repair_config
                .max_unhealthy_node_threshold_percentage = Some(20);
        },
        path: "node_groups[1].node_repair",
    },
    Case {
        rule: "placement-group-with-reservation",
        base: block,
        breaks: |spec, _| gpu(spec).placement_group = "p5-training".into(),
        path: "node_groups[1].placement_group",
    },
    Case {
        rule: "capacity-blocks-only-instance-type",
        base: new_vpc_base,
        breaks: |spec, _| gpu(spec).instance_type = "p6e-gb200.36xlarge".into(),
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "capacity-block-single-instance-type",
        base: block,
        breaks: |spec, _| {
            let group = gpu(spec);
            group.instance_type.clear();
            group.instance_types = vec!["p5.48xlarge".into(), "p5en.48xlarge".into()];
        },
        path: "node_groups[1].instance_types",
    },
    Case {
        rule: "gpu-ami-without-nvidia-driver",
        base: new_vpc_base,
        breaks: |spec, _| {
            let group = gpu(spec);
            group.ami_family = Some("Ubuntu2204".into());
            group.local_nvme_raid0 = false;
        },
        path: "node_groups[1].ami_family",
    },
    Case {
        rule: "neuron-ami-unsupported",
        base: new_vpc_base,
        breaks: |spec, _| {
            let group = gpu(spec);
            group.instance_type = "trn1.32xlarge".into();
            group.ami_family = Some("Ubuntu2204".into());
            group.local_nvme_raid0 = false;
        },
        path: "node_groups[1].ami_family",
    },
    Case {
        rule: "gpu-group-without-taint",
        base: block,
        breaks: |spec, _| gpu(spec).taints.clear(),
        path: "node_groups[1].taints",
    },
    Case {
        rule: "no-system-node-group",
        base: block,
        breaks: |spec, _| {
            spec.node_groups.remove(0);
        },
        path: "node_groups",
    },
    Case {
        rule: "taint-effect-invalid",
        base: block,
        breaks: |spec, _| {
            gpu(spec).taints = vec![NodeTaint {
                key: "nvidia.com/gpu".into(),
                value: None,
                effect: "NoScheduleEver".into(),
            }]
        },
        path: "node_groups[1].taints[0].effect",
    },
    Case {
        rule: "nodegroup-label-invalid",
        base: block,
        breaks: |spec, _| {
            gpu(spec).labels.insert("team name".into(), "ml".into());
        },
        path: "node_groups[1].labels[\"team name\"]",
    },
    Case {
        rule: "ami-family-al2-unsupported",
        base: block,
        breaks: |spec, _| gpu(spec).ami_family = Some("AmazonLinux2".into()),
        path: "node_groups[1].ami_family",
    },
    Case {
        rule: "eksctl-unknown-field",
        base: block,
        breaks: |spec, _| {
            gpu(spec)
                .extra
                .insert("efaEnable".into(), yaml_serde::Value::Bool(true));
        },
        path: "node_groups[1]",
    },
    // eksctl's strict pass matches field names whatever their case; its decode drops them
    // (pkg/eks/api.go ParseConfig): accepted, and the group gets no EFA.
    Case {
        rule: "eksctl-field-dropped",
        base: block,
        breaks: |spec, _| {
            gpu(spec)
                .extra
                .insert("EFAEnabled".into(), yaml_serde::Value::Bool(true));
        },
        path: "node_groups[1]",
    },
    Case {
        rule: "nodegroup-placement-empty",
        base: block,
        breaks: |spec, _| {
            gpu(spec).placement = GroupPlacement::Subnets {
                subnets: Vec::new(),
            }
        },
        path: "node_groups[1].placement",
    },
    Case {
        rule: "nodegroup-size-invalid",
        base: block,
        breaks: |spec, _| {
            gpu(spec).min_size = None;
            gpu(spec)
                .extra
                .insert("minSize".into(), yaml_serde::Value::Number((-1).into()));
        },
        path: "node_groups[1].min_size",
    },
    Case {
        rule: "karpenter-unknown-field",
        base: spot_pool,
        breaks: |spec, _| {
            pool(spec)
                .spec
                .extra
                .insert("wieght".into(), yaml_serde::Value::Number(10.into()));
        },
        path: "karpenter.node_pools[0]",
    },
    // A field the studio's one selector term models but this list's CRD does not have.
    Case {
        rule: "karpenter-unknown-field",
        base: spot_pool,
        breaks: |spec, _| {
            class(spec).spec.subnet_selector_terms[0].alias = Some("al2023@latest".into());
        },
        path: "karpenter.node_classes[0].spec.subnetSelectorTerms[0]",
    },
    Case {
        rule: "spot-efa-training",
        base: new_vpc_base,
        breaks: |spec, _| gpu(spec).capacity = Capacity::Spot,
        path: "node_groups[1].capacity",
    },
    Case {
        rule: "spot-few-instance-types",
        base: new_vpc_base,
        breaks: |spec, _| {
            let group = gpu(spec);
            group.capacity = Capacity::Spot;
            group.efa_enabled = false;
        },
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "spot-single-zone",
        base: new_vpc_base,
        breaks: |spec, _| gpu(spec).capacity = Capacity::Spot,
        path: "node_groups[1].placement",
    },
    Case {
        rule: "karpenter-name-invalid",
        base: spot_pool,
        breaks: |spec, _| pool(spec).metadata.name = "GPU_Pool".into(),
        path: "karpenter.node_pools[0].metadata.name",
    },
    Case {
        rule: "karpenter-node-class-missing",
        base: spot_pool,
        breaks: |spec, _| pool(spec).spec.template.spec.node_class_ref.name = "missing".into(),
        path: "karpenter.node_pools[0].spec.template.spec.nodeClassRef.name",
    },
    Case {
        rule: "karpenter-requirement-operator",
        base: spot_pool,
        breaks: |spec, _| {
            pool(spec).spec.template.spec.requirements[0].operator = "Contains".into()
        },
        path: "karpenter.node_pools[0].spec.template.spec.requirements[0].operator",
    },
    Case {
        rule: "karpenter-requirement-values",
        base: spot_pool,
        breaks: |spec, _| {
            pool(spec).spec.template.spec.requirements[1].values = vec!["three".into()].into()
        },
        path: "karpenter.node_pools[0].spec.template.spec.requirements[1].values",
    },
    Case {
        rule: "karpenter-restricted-label",
        base: spot_pool,
        breaks: |spec, _| {
            pool(spec)
                .spec
                .template
                .spec
                .requirements
                .push(Requirement::new("karpenter.sh/nodepool", "In", &["other"]))
        },
        path: "karpenter.node_pools[0].spec.template.spec.requirements[5].key",
    },
    Case {
        rule: "karpenter-capacity-type-value",
        base: spot_pool,
        breaks: |spec, _| {
            pool(spec).spec.template.spec.requirements[4].values =
                vec!["spot".into(), "ondemand".into()].into()
        },
        path: "karpenter.node_pools[0].spec.template.spec.requirements[4].values",
    },
    Case {
        rule: "karpenter-taint-invalid",
        base: spot_pool,
        breaks: |spec, _| {
            pool(spec)
                .spec
                .template
                .spec
                .taints
                .push(pool_taint("nvidia.com/gpu", "NoSchedule"))
        },
        path: "karpenter.node_pools[0].spec.template.spec.taints[1]",
    },
    Case {
        rule: "karpenter-disruption-invalid",
        base: spot_pool,
        breaks: |spec, _| {
            pool(spec)
                .spec
                .disruption
                .as_mut()
                .unwrap()
                .consolidate_after = Some("five minutes".into())
        },
        path: "karpenter.node_pools[0].spec.disruption.consolidateAfter",
    },
    Case {
        rule: "karpenter-expire-after-invalid",
        base: spot_pool,
        breaks: |spec, _| pool(spec).spec.template.spec.expire_after = Some("30d".into()),
        path: "karpenter.node_pools[0].spec.template.spec.expireAfter",
    },
    Case {
        rule: "karpenter-limits-invalid",
        base: spot_pool,
        breaks: |spec, _| {
            pool(spec)
                .spec
                .limits
                .insert("memory".into(), "lots".into());
        },
        path: "karpenter.node_pools[0].spec.limits.memory",
    },
    Case {
        rule: "karpenter-static-pool-limits",
        base: static_reserved_pool_live,
        breaks: |spec, _| {
            pool(spec)
                .spec
                .limits
                .insert("nvidia.com/gpu".into(), 16.into());
        },
        path: "karpenter.node_pools[0].spec.limits",
    },
    Case {
        rule: "karpenter-static-pool-weight",
        base: static_reserved_pool_live,
        breaks: |spec, _| pool(spec).spec.weight = Some(10),
        path: "karpenter.node_pools[0].spec.weight",
    },
    Case {
        rule: "karpenter-static-pool-above-node-limit",
        base: static_reserved_pool_live,
        breaks: |spec, _| {
            pool(spec).spec.limits.insert("nodes".into(), "1".into());
        },
        path: "karpenter.node_pools[0].spec.replicas",
    },
    Case {
        rule: "karpenter-static-pool-exceeds-reservations",
        base: static_reserved_pool_live,
        breaks: |spec, _| {
            let pool = pool(spec);
            pool.spec.replicas = Some(3);
        },
        path: "karpenter.node_pools[0].spec.replicas",
    },
    Case {
        rule: "karpenter-node-repair-without-monitoring-agent",
        base: || {
            let mut spec = karpenter_spot();
            spec.karpenter.as_mut().unwrap().node_repair = true;
            spec.addons.push(Addon {
                name: "eks-node-monitoring-agent".into(),
                ..Addon::default()
            });
            (spec, LiveFacts::default())
        },
        breaks: |spec, _| {
            spec.addons
                .retain(|addon| addon.name != "eks-node-monitoring-agent")
        },
        path: "karpenter.node_repair",
    },
    Case {
        rule: "karpenter-placement-group-selector-invalid",
        base: || {
            let mut spec = karpenter_spot();
            class(&mut spec).spec.placement_group_selector =
                Some(shared::upstream::karpenter::PlacementGroupSelector {
                    id: Some("pg-0123456789abcdef0".into()),
                    ..Default::default()
                });
            (spec, LiveFacts::default())
        },
        breaks: |spec, _| {
            let selector = class(spec).spec.placement_group_selector.as_mut().unwrap();
            selector.name = Some("training".into());
        },
        path: "karpenter.node_classes[0].spec.placementGroupSelector",
    },
    Case {
        rule: "karpenter-network-interfaces-invalid",
        base: reserved_pool,
        breaks: |spec, _| {
            // The primary interface dropped: the EFA device on card 0 is left alone.
            class(spec).spec.network_interfaces.remove(0);
        },
        path: "karpenter.node_classes[0].spec.networkInterfaces",
    },
    Case {
        rule: "karpenter-efa-interfaces-fit-no-type",
        base: reserved_pool,
        breaks: |spec, _| {
            // p5.48xlarge has 32 EFA interfaces; 33 fit no type the pool allows.
            class(spec).spec.network_interfaces =
                shared::upstream::karpenter::efa_layout(33, true).into();
        },
        path: "karpenter.node_pools[0].spec.template.spec.requirements",
    },
    Case {
        rule: "karpenter-efa-on-card-without-efa",
        base: reserved_pool,
        breaks: |spec, _| {
            // p6-b300 has 17 cards and 16 EFA interfaces: the 16 devices fit, but the
            // layout from card 0 puts one on its ENA-only card 0.
            only_type(spec, "p6-b300.48xlarge");
            class(spec).spec.network_interfaces =
                shared::upstream::karpenter::efa_layout(16, true).into();
        },
        path: "karpenter.node_classes[0].spec.networkInterfaces",
    },
    Case {
        rule: "karpenter-efa-types-without-efa",
        base: reserved_pool,
        breaks: |spec, _| class(spec).spec.network_interfaces.clear(),
        path: "karpenter.node_pools[0].spec.template.spec.nodeClassRef.name",
    },
    Case {
        rule: "karpenter-placement-group-with-reservation",
        base: reserved_pool,
        breaks: |spec, _| {
            class(spec).spec.placement_group_selector =
                Some(shared::upstream::karpenter::PlacementGroupSelector {
                    name: Some("training".into()),
                    ..Default::default()
                });
        },
        path: "karpenter.node_classes[0].spec.placementGroupSelector",
    },
    Case {
        rule: "addon-irsa-without-oidc",
        base: fsx_with_its_policy,
        breaks: |spec, _| spec.cluster.with_oidc = false,
        path: "addons[0].attach_policy_arns",
    },
    Case {
        rule: "storage-addon-without-iam",
        base: mountpoint_with_its_policy,
        breaks: |spec, _| spec.addons[0].attach_policy_arns.clear(),
        path: "addons[0].attach_policy_arns",
    },
    Case {
        rule: "pod-identity-agent-missing",
        base: storage_through_pod_identity,
        breaks: |spec, _| {
            spec.addons
                .retain(|addon| addon.name != "eks-pod-identity-agent")
        },
        path: "cluster.pod_identity_associations[0]",
    },
    Case {
        rule: "storage-association-after-controller",
        base: storage_through_pod_identity,
        breaks: |spec, _| {
            let fsx = spec
                .addons
                .iter_mut()
                .find(|addon| addon.name == "aws-fsx-csi-driver")
                .unwrap();
            let moved = fsx.pod_identity_associations.remove(0);
            spec.cluster.pod_identity_associations.push(moved);
        },
        path: "cluster.pod_identity_associations[1]",
    },
    Case {
        rule: "eksctl-arm-type-unknown",
        base: ultraserver,
        breaks: |spec, _| {
            gpu(spec).extra.remove("ami");
        },
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "eksctl-accelerated-type-unknown",
        base: ultraserver,
        breaks: |spec, _| {
            let group = gpu(spec);
            group.extra.remove("ami");
            group.instance_type = "trn2u.48xlarge".into();
        },
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "eksctl-device-plugin-not-installed",
        base: ultraserver_on_p5,
        breaks: |spec, _| gpu(spec).instance_type = "p6e-gb200.36xlarge".into(),
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "ultraserver-kubernetes-version",
        base: ultraserver,
        breaks: |spec, _| spec.cluster.kubernetes_version = "1.32".into(),
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "auto-mode-pools-without-auto-mode",
        base: auto_mode_reserved,
        breaks: |spec, _| spec.cluster.auto_mode = None,
        path: "auto_mode_pools",
    },
    Case {
        rule: "auto-mode-node-class-missing",
        base: auto_mode_reserved,
        breaks: |spec, _| {
            spec.auto_mode_pools.node_pools[0]
                .spec
                .template
                .spec
                .node_class_ref
                .name = "gone".into();
        },
        path: "auto_mode_pools.node_pools[0].spec.template.spec.nodeClassRef.name",
    },
    Case {
        rule: "auto-mode-reserved-without-selector",
        base: auto_mode_reserved,
        breaks: |spec, _| {
            spec.auto_mode_pools.node_classes[0]
                .spec
                .capacity_reservation_selector_terms
                .clear();
        },
        path: "auto_mode_pools.node_pools[0].spec.template.spec.requirements",
    },
    Case {
        rule: "auto-mode-reservation-unused",
        base: auto_mode_reserved,
        breaks: |spec, _| {
            spec.auto_mode_pools.node_pools[0]
                .spec
                .template
                .spec
                .requirements[0]
                .values = vec!["on-demand".to_owned()].into();
        },
        path: "auto_mode_pools.node_pools[0].spec.template.spec.requirements",
    },
    Case {
        rule: "access-entry-invalid",
        base: with_access_entries,
        breaks: |spec, _| access(spec).access_entries[0].entry_type = "ec2_linux".into(),
        path: "cluster.access.access_entries[0].entry_type",
    },
    Case {
        rule: "access-entries-need-api-authentication",
        base: with_access_entries,
        breaks: |spec, _| access(spec).authentication_mode = "CONFIG_MAP".into(),
        path: "cluster.access.authentication_mode",
    },
    Case {
        rule: "auto-mode-node-role-without-access-entry",
        base: auto_mode_reserved,
        breaks: |spec, _| {
            spec.auto_mode_pools.node_classes[0].spec.role = Some("GpuNodeRole".into());
        },
        path: "auto_mode_pools.node_classes[0].spec.role",
    },
    Case {
        rule: "auto-mode-pool-label-unknown",
        base: auto_mode_reserved,
        breaks: |spec, _| {
            // Karpenter's label for what Auto Mode calls eks.amazonaws.com/instance-family.
            spec.auto_mode_pools.node_pools[0]
                .spec
                .template
                .spec
                .requirements
                .push(Requirement::new(
                    "karpenter.k8s.aws/instance-family",
                    "In",
                    &["p5"],
                ));
        },
        path: "auto_mode_pools.node_pools[0].spec.template.spec.requirements[2].key",
    },
    Case {
        rule: "ultraserver-on-node-pool",
        base: auto_mode_reserved,
        breaks: |spec, _| {
            spec.auto_mode_pools.node_pools[0]
                .spec
                .template
                .spec
                .requirements[1]
                .values = vec!["p6e-gb200.36xlarge".to_owned()].into();
        },
        path: "auto_mode_pools.node_pools[0].spec.template.spec.requirements",
    },
    Case {
        rule: "karpenter-node-overlay-invalid",
        base: || {
            let mut spec = karpenter_spot();
            spec.karpenter
                .as_mut()
                .unwrap()
                .node_overlays
                .push(overlay("-15%"));
            (spec, LiveFacts::default())
        },
        breaks: |spec, _| {
            spec.karpenter.as_mut().unwrap().node_overlays[0].spec.price = Some("1.50".into());
        },
        path: "karpenter.node_overlays[0].spec",
    },
    Case {
        rule: "placement-group-not-found",
        base: in_placement_group,
        breaks: |_, live| {
            live.placement_groups.clear();
            live.missing_placement_groups.push("training".into());
        },
        path: "node_groups[1].placement_group",
    },
    Case {
        rule: "placement-group-spread-too-small",
        base: in_placement_group,
        breaks: |spec, live| {
            live.placement_groups[0].strategy = "spread".into();
            gpu(spec).max_size = Some(8);
        },
        path: "node_groups[1].placement_group",
    },
    Case {
        rule: "placement-group-efa-not-cluster",
        base: in_placement_group,
        breaks: |_, live| live.placement_groups[0].strategy = "partition".into(),
        path: "node_groups[1].placement_group",
    },
    Case {
        rule: "karpenter-weight-range",
        base: spot_pool,
        breaks: |spec, _| pool(spec).spec.weight = Some(200),
        path: "karpenter.node_pools[0].spec.weight",
    },
    Case {
        rule: "karpenter-capacity-blocks-only-without-reserved",
        base: spot_pool,
        breaks: |spec, _| {
            // A Spot pool narrowed to the Trn2 UltraServer type alone.
            let requirements = &mut pool(spec).spec.template.spec.requirements;
            requirements.retain(|requirement| requirement.key == "karpenter.sh/capacity-type");
            requirements.push(shared::upstream::karpenter::Requirement {
                key: "node.kubernetes.io/instance-type".into(),
                operator: "In".into(),
                values: vec!["trn2u.48xlarge".into()].into(),
                ..Default::default()
            })
        },
        path: "karpenter.node_pools[0].spec.template.spec.requirements",
    },
    Case {
        rule: "karpenter-capacity-block-grace-beyond-drain",
        base: reserved_pool,
        breaks: |spec, _| {
            // The reserved p5 pool pinned to Capacity Blocks, with an hour's grace.
            let template = &mut pool(spec).spec.template.spec;
            template
                .requirements
                .push(shared::upstream::karpenter::Requirement {
                    key: "karpenter.k8s.aws/capacity-reservation-type".into(),
                    operator: "In".into(),
                    values: vec!["capacity-block".into()].into(),
                    ..Default::default()
                });
            template
                .extra
                .insert("terminationGracePeriod".into(), "1h".into());
        },
        path: "karpenter.node_pools[0].spec.template.spec.terminationGracePeriod",
    },
    Case {
        rule: "karpenter-capacity-block-grace-beyond-drain",
        base: reserved_pool_live,
        breaks: |spec, live| {
            // EC2 says the reservation the class selects by id is a Capacity Block.
            live.reservations[0].reservation_type = "capacity-block".into();
            pool(spec)
                .spec
                .template
                .spec
                .extra
                .insert("terminationGracePeriod".into(), "45m".into());
        },
        path: "karpenter.node_pools[0].spec.template.spec.terminationGracePeriod",
    },
    Case {
        rule: "karpenter-requirements-match-nothing",
        base: spot_pool,
        breaks: |spec, _| {
            pool(spec).spec.template.spec.requirements[2].values = vec!["900000".into()].into()
        },
        path: "karpenter.node_pools[0].spec.template.spec.requirements",
    },
    Case {
        rule: "karpenter-spot-single-instance-type",
        base: spot_pool,
        breaks: |spec, _| {
            pool(spec)
                .spec
                .template
                .spec
                .requirements
                .push(Requirement::new(
                    "node.kubernetes.io/instance-type",
                    "In",
                    &["g5.2xlarge"],
                ))
        },
        path: "karpenter.node_pools[0].spec.template.spec.requirements",
    },
    Case {
        rule: "karpenter-spot-without-interruption-queue",
        base: spot_pool,
        breaks: |spec, _| spec.karpenter.as_mut().unwrap().interruption_queue = None,
        path: "karpenter.interruption_queue",
    },
    Case {
        rule: "karpenter-spot-training",
        base: spot_pool,
        breaks: |spec, _| {
            pool(spec).spec.template.spec.requirements[0].values = vec!["p".into()].into()
        },
        path: "karpenter.node_pools[0].spec.template.spec.requirements",
    },
    Case {
        rule: "karpenter-consolidation-evicts-training",
        base: reserved_pool,
        breaks: |spec, _| {
            let disruption = pool(spec).spec.disruption.as_mut().unwrap();
            disruption.consolidation_policy = Some("WhenEmptyOrUnderutilized".into());
            disruption.budgets.clear();
        },
        path: "karpenter.node_pools[0].spec.disruption.consolidationPolicy",
    },
    Case {
        rule: "karpenter-reserved-capacity-type-missing",
        base: reserved_pool,
        breaks: |spec, _| {
            pool(spec).spec.template.spec.requirements[0].values = vec!["on-demand".into()].into()
        },
        path: "karpenter.node_pools[0].spec.template.spec.requirements",
    },
    Case {
        rule: "karpenter-reservation-term-invalid",
        base: reserved_pool,
        breaks: |spec, _| {
            class(spec)
                .spec
                .capacity_reservation_selector_terms
                .push(SelectorTerm {
                    owner_id: Some("1234".into()),
                    ..SelectorTerm::tag("team", "ml")
                })
        },
        path: "karpenter.node_classes[0].spec.capacityReservationSelectorTerms[1].ownerID",
    },
    Case {
        rule: "karpenter-role-or-instance-profile",
        base: reserved_pool,
        breaks: |spec, _| {
            class(spec).spec.instance_profile = Some("KarpenterNodeInstanceProfile".into())
        },
        path: "karpenter.node_classes[0].spec.role",
    },
    Case {
        rule: "karpenter-ami-alias-invalid",
        base: reserved_pool,
        breaks: |spec, _| {
            class(spec).spec.ami_selector_terms = vec![SelectorTerm::alias("amazonlinux@latest")]
        },
        path: "karpenter.node_classes[0].spec.amiSelectorTerms[0].alias",
    },
    Case {
        rule: "karpenter-ami-alias-version-unpublished",
        base: reserved_pool,
        breaks: |spec, _| {
            class(spec).spec.ami_selector_terms = vec![SelectorTerm::alias("al2023@lates")]
        },
        path: "karpenter.node_classes[0].spec.amiSelectorTerms[0].alias",
    },
    Case {
        rule: "karpenter-selector-terms-invalid",
        base: reserved_pool,
        breaks: |spec, _| class(spec).spec.subnet_selector_terms = vec![SelectorTerm::id("sn-123")],
        path: "karpenter.node_classes[0].spec.subnetSelectorTerms[0].id",
    },
    Case {
        rule: "karpenter-instance-store-policy",
        base: reserved_pool,
        breaks: |spec, _| class(spec).spec.instance_store_policy = Some("RAID1".into()),
        path: "karpenter.node_classes[0].spec.instanceStorePolicy",
    },
    Case {
        rule: "karpenter-newer-than-release",
        base: reserved_pool,
        breaks: |spec, _| {
            spec.karpenter.as_mut().unwrap().release = KarpenterRelease::V1_9;
            pool(spec)
                .spec
                .disruption
                .get_or_insert_with(Default::default)
                .consolidation_policy = Some("Balanced".into());
        },
        path: "karpenter.node_pools[0].spec.disruption.consolidationPolicy",
    },
    Case {
        rule: "karpenter-release-kubernetes",
        base: reserved_pool,
        breaks: |spec, _| {
            spec.karpenter.as_mut().unwrap().release = KarpenterRelease::V1_9;
            spec.cluster.kubernetes_version = "1.36".into();
        },
        path: "karpenter.release",
    },
    Case {
        rule: "instance-type-not-offered",
        base: block,
        breaks: |_, live| live.offerings[0].availability_zones = vec!["us-east-1b".into()],
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "vpc-not-found",
        base: block,
        breaks: |_, live| live.missing_vpcs.push(VPC.into()),
        path: "network.vpc_id",
    },
    Case {
        rule: "instance-type-unknown-to-ec2",
        base: block,
        breaks: |_, live| live.unknown_instance_types.push("p5.48xlarge".into()),
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "instance-type-offered-nowhere",
        base: block,
        breaks: |_, live| live.offerings[0].availability_zones.clear(),
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "instance-type-catalog-disagrees",
        base: block,
        breaks: |_, live| {
            live.instance_types.push(InstanceTypeFact {
                instance_type: "p5.48xlarge".into(),
                efa_supported: true,
                efa_interfaces: 16,
                gpu_count: 8,
                gpu_memory_mib: Some(81_920),
                neuron_count: 0,
                network_cards: 32,
            })
        },
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "reservation-not-found",
        base: block,
        breaks: |_, live| {
            live.reservations.clear();
            live.missing_reservations.push(RESERVATION.into());
        },
        path: "node_groups[1].capacity.reservation_id",
    },
    Case {
        rule: "reservation-not-active",
        base: block,
        breaks: |_, live| live.reservations[0].state = "expired".into(),
        path: "node_groups[1].capacity.reservation_id",
    },
    Case {
        rule: "reservation-instance-type-mismatch",
        base: block,
        breaks: |_, live| live.reservations[0].instance_type = "p4d.24xlarge".into(),
        path: "node_groups[1].instance_type",
    },
    Case {
        rule: "reservation-zone-mismatch",
        base: block,
        breaks: |_, live| live.reservations[0].availability_zone = "us-east-1c".into(),
        path: "node_groups[1].placement",
    },
    Case {
        rule: "reservation-capacity-short",
        base: block,
        breaks: |_, live| live.reservations[0].available_instances = 0,
        path: "node_groups[1].desired_capacity",
    },
    Case {
        rule: "reservation-smaller-than-max-size",
        base: block,
        breaks: |spec, live| {
            live.reservations[0].total_instances = 1;
            live.reservations[0].available_instances = 1;
            spec.node_groups[1].desired_capacity = Some(1);
            spec.node_groups[1].max_size = Some(4);
        },
        path: "node_groups[1].max_size",
    },
    Case {
        rule: "auto-mode-config-invalid",
        base: auto_mode_base,
        breaks: |spec, _| {
            auto_mode_of(spec).node_pools = Some(vec!["general-purpose".into(), "gpu".into()]);
        },
        path: "cluster.auto_mode.node_pools[1]",
    },
    Case {
        rule: "auto-mode-create-conflict",
        base: auto_mode_base,
        breaks: |spec, _| spec.node_groups = new_vpc().node_groups,
        path: "node_groups",
    },
    Case {
        rule: "storage-without-csi-driver",
        base: storage_base,
        breaks: |spec, _| {
            spec.addons
                .retain(|addon| addon.name != shared::documents::storage::FSX_ADDON)
        },
        path: "storage.fsx",
    },
    Case {
        rule: "storage-fsx-network-invalid",
        base: storage_base,
        breaks: |spec, _| fsx_of(spec).security_group_ids = vec!["sg-12".into()],
        path: "storage.fsx.security_group_ids[0]",
    },
    Case {
        rule: "storage-fsx-deployment-invalid",
        base: storage_base,
        breaks: |spec, _| fsx_of(spec).per_unit_storage_throughput = Some(200),
        path: "storage.fsx.per_unit_storage_throughput",
    },
    Case {
        rule: "storage-s3-bucket-invalid",
        base: storage_base,
        breaks: |spec, _| spec.storage.s3.as_mut().unwrap().bucket = "Training_Checkpoints".into(),
        path: "storage.s3.bucket",
    },
    Case {
        rule: "reservation-end-date",
        base: block,
        breaks: |_, live| live.reservations[0].end_date = Some("2026-12-14T11:30:00Z".into()),
        path: "node_groups[1].capacity.reservation_id",
    },
    Case {
        rule: "capacity-block-not-started",
        base: block,
        breaks: |_, live| {
            live.reservations[0].state = "scheduled".into();
            live.reservations[0].start_date = Some("2026-12-10T11:30:00Z".into());
        },
        path: "node_groups[1].desired_capacity",
    },
    Case {
        rule: "capacity-block-window-unreadable",
        base: block,
        breaks: |spec, _| spec.node_groups[1].block_window.starts = "next tuesday".into(),
        path: "node_groups[1].block_window.starts",
    },
    Case {
        rule: "capacity-block-shorter-than-checkpoint",
        base: block,
        breaks: |spec, _| {
            let window = &mut spec.node_groups[1].block_window;
            window.starts = "2026-12-10 11:30".into();
            window.ends = "2026-12-11T11:30:00Z".into();
            window.checkpoint_minutes = Some(1420);
        },
        path: "node_groups[1].block_window.checkpoint_minutes",
    },
    Case {
        rule: "capacity-block-ends-before-needed",
        base: block,
        breaks: |spec, _| {
            let window = &mut spec.node_groups[1].block_window;
            window.ends = "2026-12-11 11:30".into();
            window.needed_until = "2026-12-11 11:15".into();
        },
        path: "node_groups[1].block_window.needed_until",
    },
    Case {
        rule: "capacity-block-crosses-support-end",
        base: block,
        breaks: |_, live| {
            live.reservations[0].start_date = Some("2027-03-20T11:30:00Z".into());
            live.reservations[0].end_date = Some("2027-04-03T11:30:00Z".into());
        },
        path: "node_groups[1].capacity.reservation_id",
    },
    Case {
        rule: "capacity-block-market-type-mismatch",
        base: block,
        breaks: |_, live| live.reservations[0].reservation_type = "default".into(),
        path: "node_groups[1].capacity",
    },
    Case {
        rule: "subnet-not-found",
        base: block,
        breaks: |_, live| {
            live.subnets.retain(|subnet| subnet.id != PRIVATE_TWO);
            live.missing_subnets.push(PRIVATE_TWO.into());
        },
        path: "network.private_subnets[1].id",
    },
    Case {
        rule: "subnet-wrong-vpc",
        base: block,
        breaks: |_, live| live.subnets[3].vpc_id = "vpc-0ffffffffffffffff".into(),
        path: "network.private_subnets[1].id",
    },
    Case {
        rule: "subnet-zone-mismatch",
        base: block,
        breaks: |_, live| live.subnets[3].availability_zone = "us-east-1d".into(),
        path: "network.private_subnets[1].availability_zone",
    },
    Case {
        rule: "subnet-few-free-addresses",
        base: block,
        breaks: |_, live| live.subnets[2].available_addresses = 12,
        path: "network.private_subnets[0].id",
    },
    Case {
        rule: "spot-placement-score-low",
        base: new_vpc_base,
        breaks: |spec, live| {
            gpu(spec).capacity = Capacity::Spot;
            live.spot_scores.push(SpotScoreFact {
                instance_type: "g5.8xlarge".into(),
                availability_zone: None,
                score: 2,
            });
        },
        path: "node_groups[1].capacity",
    },
];
