//! Correct specs to test rules against: the templates with their placeholders filled in
//! the way a user would, and the live answers AWS would give for them.
#![allow(dead_code)]

pub mod upstream;

use shared::model::spec::{Capacity, GroupPlacement, Network, NodeTaint, Spec};
use shared::rules::{LiveFacts, OfferingFact, ReservationFact, SubnetFact};
use shared::upstream::karpenter::Taint as PoolTaint;

pub const RESERVATION: &str = "cr-0123456789abcdef0";
pub const VPC: &str = "vpc-0a1b2c3d4e5f67890";
pub const PRIVATE_ONE: &str = "subnet-0aaaaaaaaaaaaaaa1";
pub const PRIVATE_TWO: &str = "subnet-0aaaaaaaaaaaaaaa2";
pub const PUBLIC_ONE: &str = "subnet-0bbbbbbbbbbbbbbb1";
pub const PUBLIC_TWO: &str = "subnet-0bbbbbbbbbbbbbbb2";

fn gpu_taint() -> NodeTaint {
    NodeTaint {
        key: "nvidia.com/gpu".into(),
        value: None,
        effect: "NoSchedule".into(),
    }
}

/// `p5-capacity-block` filled in: us-east-1, Kubernetes 1.35 (in standard support, where
/// the seed's 1.32 is in extended support), real ids, the GPU group pinned to the
/// reservation's subnet, a CPU system group and a GPU taint.
pub fn capacity_block() -> Spec {
    let mut spec = shared::template("p5-capacity-block").unwrap().spec();
    spec.cluster.region = "us-east-1".into();
    spec.cluster.kubernetes_version = "1.35".into();
    let Network::ExistingVpc {
        vpc_id,
        public_subnets,
        private_subnets,
    } = &mut spec.network
    else {
        unreachable!("p5-capacity-block uses an existing VPC")
    };
    *vpc_id = VPC.into();
    for (subnet, (id, zone)) in public_subnets
        .iter_mut()
        .chain(private_subnets.iter_mut())
        .zip([
            (PUBLIC_ONE, "us-east-1a"),
            (PUBLIC_TWO, "us-east-1b"),
            (PRIVATE_ONE, "us-east-1a"),
            (PRIVATE_TWO, "us-east-1b"),
        ])
    {
        subnet.id = id.into();
        subnet.availability_zone = Some(zone.into());
    }
    let gpu = &mut spec.node_groups[0];
    gpu.capacity = Capacity::CapacityBlock {
        reservation_id: RESERVATION.into(),
    };
    gpu.placement = GroupPlacement::Subnets {
        subnets: vec![PRIVATE_ONE.into()],
    };
    gpu.taints = vec![gpu_taint()];
    // The block holds two instances: the group grows no further.
    gpu.max_size = Some(2);
    let system = shared::template("g4dn-vpc").unwrap().spec().node_groups[0].clone();
    spec.node_groups.insert(0, system);
    spec
}

/// What EC2 answers for [`capacity_block`]: the block is active in us-east-1a with two
/// free instances, p5.48xlarge is offered in both zones, the subnets are where stated.
pub fn capacity_block_facts() -> LiveFacts {
    let subnet = |id: &str, zone: &str| SubnetFact {
        id: id.into(),
        vpc_id: VPC.into(),
        availability_zone: zone.into(),
        available_addresses: 4000,
    };
    LiveFacts {
        offerings: vec![OfferingFact {
            instance_type: "p5.48xlarge".into(),
            availability_zones: vec!["us-east-1a".into(), "us-east-1b".into()],
        }],
        reservations: vec![ReservationFact {
            id: RESERVATION.into(),
            instance_type: "p5.48xlarge".into(),
            availability_zone: "us-east-1a".into(),
            state: "active".into(),
            reservation_type: "capacity-block".into(),
            total_instances: 2,
            available_instances: 2,
            start_date: None,
            end_date: None,
        }],
        subnets: vec![
            subnet(PUBLIC_ONE, "us-east-1a"),
            subnet(PUBLIC_TWO, "us-east-1b"),
            subnet(PRIVATE_ONE, "us-east-1a"),
            subnet(PRIVATE_TWO, "us-east-1b"),
        ],
        ..LiveFacts::default()
    }
}

/// `g5-node-autorepair` filled in: us-west-2, Kubernetes 1.35, the GPU group in us-west-2b,
/// tainted.
pub fn new_vpc() -> Spec {
    let mut spec = shared::template("g5-node-autorepair").unwrap().spec();
    spec.cluster.region = "us-west-2".into();
    spec.cluster.kubernetes_version = "1.35".into();
    spec.network = Network::NewVpc {
        availability_zones: vec!["us-west-2a".into(), "us-west-2b".into()],
    };
    spec.node_groups[1].placement = GroupPlacement::AvailabilityZones {
        availability_zones: vec!["us-west-2b".into()],
    };
    spec.node_groups[1].taints = vec![gpu_taint()];
    spec
}

/// [`new_vpc`] as an Auto Mode cluster: Auto Mode on with eksctl's default node pools, no
/// node groups, and the add-ons Auto Mode leaves to the user.
pub fn auto_mode() -> Spec {
    let mut spec = new_vpc();
    spec.cluster.auto_mode = Some(shared::model::spec::AutoMode {
        enabled: true,
        ..shared::model::spec::AutoMode::default()
    });
    spec.node_groups.clear();
    spec.addons
        .retain(|addon| !["vpc-cni", "kube-proxy", "coredns"].contains(&addon.name.as_str()));
    spec
}

/// [`new_vpc`] with checkpoints on an FSx for Lustre file system and an S3 bucket, each
/// through its CSI add-on.
pub fn with_storage() -> Spec {
    let mut spec = new_vpc();
    for name in [
        shared::documents::storage::FSX_ADDON,
        shared::documents::storage::S3_ADDON,
    ] {
        let mut addon = shared::templates::starting_addon(name);
        addon.attach_policy_arns = vec!["arn:aws:iam::111122223333:policy/training-data".into()];
        spec.addons.push(addon);
    }
    spec.storage = shared::model::spec::Storage {
        fsx: Some(shared::model::spec::FsxVolume {
            subnet_id: "subnet-0123456789abcdef0".into(),
            security_group_ids: vec!["sg-0123456789abcdef0".into()],
            deployment_type: "PERSISTENT_2".into(),
            per_unit_storage_throughput: Some(250),
            storage_gib: 2400,
        }),
        s3: Some(shared::model::spec::S3Volume {
            bucket: "training-checkpoints".into(),
            prefix: "run-7/".into(),
        }),
    };
    spec
}

fn fill_karpenter_cluster(spec: &mut Spec) {
    spec.cluster.region = "us-west-2".into();
    spec.network = Network::NewVpc {
        availability_zones: vec!["us-west-2a".into(), "us-west-2b".into()],
    };
}

/// `karpenter-spot-inference` filled in.
pub fn karpenter_spot() -> Spec {
    let mut spec = shared::template("karpenter-spot-inference").unwrap().spec();
    fill_karpenter_cluster(&mut spec);
    spec
}

/// `karpenter-reserved-training` filled in.
pub fn karpenter_reserved() -> Spec {
    let mut spec = shared::template("karpenter-reserved-training")
        .unwrap()
        .spec();
    fill_karpenter_cluster(&mut spec);
    let karpenter = spec.karpenter.as_mut().unwrap();
    karpenter.node_classes[0]
        .spec
        .capacity_reservation_selector_terms[0]
        .id = Some(RESERVATION.into());
    spec
}

/// A pool taint, for tests that edit Karpenter taints.
pub fn pool_taint(key: &str, effect: &str) -> PoolTaint {
    PoolTaint {
        key: key.into(),
        value: None,
        effect: effect.into(),
        extra: Default::default(),
    }
}
