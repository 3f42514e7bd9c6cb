//! Rules that need AWS's answers. The backend asks EC2 and hands the answers in as plain
//! data ([`LiveFacts`]); with no answer about something, its rule stays quiet.

use crate::fields;
use serde::{Deserialize, Serialize};

use super::node_groups::reservation_id;
use super::{Check, Context, Report, Rule, Severity, Stage};
use crate::catalog::versions::UtcMinute;
use crate::model::spec::{Capacity, GroupPlacement, Network, NodeGroup, Spec};
use crate::upstream::karpenter::NodePool;

/// What EC2 said, as plain data.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveFacts {
    /// Where instance types are offered (DescribeInstanceTypeOfferings).
    #[serde(default)]
    pub offerings: Vec<OfferingFact>,
    /// Capacity reservations and blocks that were looked up (DescribeCapacityReservations).
    #[serde(default)]
    pub reservations: Vec<ReservationFact>,
    /// Reservation ids that were asked for and do not exist.
    #[serde(default)]
    pub missing_reservations: Vec<String>,
    /// Subnets that were looked up (DescribeSubnets).
    #[serde(default)]
    pub subnets: Vec<SubnetFact>,
    /// Subnet ids that were asked for and do not exist.
    #[serde(default)]
    pub missing_subnets: Vec<String>,
    /// VPC ids that were asked for and do not exist (DescribeVpcs).
    #[serde(default)]
    pub missing_vpcs: Vec<String>,
    /// Placement groups that were looked up (DescribePlacementGroups).
    #[serde(default)]
    pub placement_groups: Vec<PlacementGroupFact>,
    /// Placement group names or ids that were asked for and do not exist.
    #[serde(default)]
    pub missing_placement_groups: Vec<String>,
    /// What EC2 says about the instance types it was asked about (DescribeInstanceTypes).
    #[serde(default)]
    pub instance_types: Vec<InstanceTypeFact>,
    /// Instance types EC2 was asked about and does not know.
    #[serde(default)]
    pub unknown_instance_types: Vec<String>,
    /// Spot placement scores (GetSpotPlacementScores).
    #[serde(default)]
    pub spot_scores: Vec<SpotScoreFact>,
    /// The latest Linux Spot price of each type in each zone (DescribeSpotPriceHistory,
    /// the last day).
    #[serde(default)]
    pub spot_prices: Vec<SpotPriceFact>,
    /// The Kubernetes versions EKS lists in the spec's region (DescribeClusterVersions, every
    /// status); `None` when it was not asked. Version rules prefer it to the calendar.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_versions: Option<Vec<ClusterVersionFact>>,
    /// Today's date (UTC), as the shell's clock says; without it, rules that depend on the
    /// day (Kubernetes version support) judge as of the day their calendar was checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub today: Option<crate::catalog::versions::Date>,
}

impl LiveFacts {
    /// No answers from AWS, only today's date.
    pub fn on(today: crate::catalog::versions::Date) -> LiveFacts {
        LiveFacts {
            today: Some(today),
            ..LiveFacts::default()
        }
    }

    /// The lowest latest Spot price EC2 gave for `instance_type`, in whichever zone.
    pub fn cheapest_spot(&self, instance_type: &str) -> Option<&SpotPriceFact> {
        cheapest_spot(&self.spot_prices, instance_type)
    }
}

/// The lowest of `prices` for `instance_type`, in whichever zone.
pub fn cheapest_spot<'a>(
    prices: &'a [SpotPriceFact],
    instance_type: &str,
) -> Option<&'a SpotPriceFact> {
    prices
        .iter()
        .filter(|fact| fact.instance_type == instance_type)
        .filter_map(|fact| Some((fact.per_hour()?, fact)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, fact)| fact)
}

/// The latest Spot price of one instance type in one zone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpotPriceFact {
    /// Instance type.
    pub instance_type: String,
    /// Zone name.
    pub availability_zone: String,
    /// US dollars per hour, as EC2 writes it (`"0.412300"`).
    pub price_per_hour: String,
}

impl SpotPriceFact {
    /// The price as a number, when EC2's text is one.
    pub fn per_hour(&self) -> Option<f64> {
        self.price_per_hour.trim().parse().ok()
    }

    /// `$0.4123/h in us-east-2a`: the price with the trailing zeros EC2 writes cut off.
    pub fn said(&self) -> String {
        let price = self.price_per_hour.trim();
        let price = if price.contains('.') {
            price.trim_end_matches('0').trim_end_matches('.')
        } else {
            price
        };
        format!("${price}/h in {}", self.availability_zone)
    }
}

/// One placement group as EC2 describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacementGroupFact {
    /// Its name.
    pub name: String,
    /// `pg-…`.
    pub id: String,
    /// `cluster`, `spread` or `partition`.
    pub strategy: String,
    /// `available`, `pending`, `deleting` or `deleted`.
    pub state: String,
}

/// The zones where an instance type is offered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OfferingFact {
    /// Instance type.
    pub instance_type: String,
    /// Zone names where it is offered.
    pub availability_zones: Vec<String>,
}

/// One capacity reservation (ODCR or Capacity Block).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReservationFact {
    /// `cr-…`.
    pub id: String,
    /// Reserved instance type.
    pub instance_type: String,
    /// Zone it lives in.
    pub availability_zone: String,
    /// `active`, `scheduled`, `expired`, `cancelled`, `pending`, `failed`, …
    pub state: String,
    /// `default` (ODCR) or `capacity-block`.
    pub reservation_type: String,
    /// Instances reserved.
    pub total_instances: u32,
    /// Instances still free to launch into.
    pub available_instances: u32,
    /// When it starts (RFC 3339); a Capacity Block starts on a set day.
    #[serde(default)]
    pub start_date: Option<String>,
    /// When it ends (RFC 3339), if it does.
    #[serde(default)]
    pub end_date: Option<String>,
}

/// One subnet as EC2 describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubnetFact {
    /// `subnet-…`.
    pub id: String,
    /// The VPC it belongs to.
    pub vpc_id: String,
    /// Its zone.
    pub availability_zone: String,
    /// Free IPv4 addresses.
    pub available_addresses: u32,
}

/// What EC2 says about an instance type, as far as the catalog also says it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceTypeFact {
    /// Instance type.
    pub instance_type: String,
    /// Elastic Fabric Adapter support.
    pub efa_supported: bool,
    /// Most EFA interfaces an instance can have.
    pub efa_interfaces: u32,
    /// GPUs per instance.
    pub gpu_count: u32,
    /// Memory of one GPU, MiB.
    #[serde(default)]
    pub gpu_memory_mib: Option<u32>,
    /// Neuron accelerators per instance.
    pub neuron_count: u32,
    /// Network cards (`MaximumNetworkCards`); 0 when EC2 did not say.
    #[serde(default)]
    pub network_cards: u32,
}

impl InstanceTypeFact {
    /// Where EC2 and the catalog disagree: `(field, EC2's value, the catalog's)`; empty
    /// when they agree or the catalog does not list the type.
    pub fn differences(&self) -> Vec<(&'static str, String, String)> {
        let Some(catalog) = crate::catalog::instances::lookup(&self.instance_type) else {
            return Vec::new();
        };
        let mut differences = Vec::new();
        let mut compare = |field, live: String, listed: String| {
            if live != listed {
                differences.push((field, live, listed));
            }
        };
        compare(
            "efa_supported",
            self.efa_supported.to_string(),
            catalog.efa_supported.to_string(),
        );
        compare(
            "efa_interfaces",
            self.efa_interfaces.to_string(),
            catalog.efa_interfaces.to_string(),
        );
        compare(
            "gpu_count",
            self.gpu_count.to_string(),
            catalog.gpu_count.to_string(),
        );
        if catalog.gpu_count > 0 {
            compare(
                "gpu_memory_mib",
                self.gpu_memory_mib.unwrap_or(0).to_string(),
                catalog.gpu_memory_mib.unwrap_or(0).to_string(),
            );
        }
        if catalog.network_cards > 0 && self.network_cards > 0 {
            compare(
                "network_cards",
                self.network_cards.to_string(),
                catalog.network_cards.to_string(),
            );
        }
        if catalog.neuron {
            compare(
                "neuron_count",
                self.neuron_count.to_string(),
                catalog.accelerator_count.to_string(),
            );
        }
        differences
    }
}

/// One Kubernetes version as EKS lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterVersionFact {
    /// `1.35`.
    pub version: String,
    /// EKS's `versionStatus`: `STANDARD_SUPPORT`, `EXTENDED_SUPPORT` or `UNSUPPORTED`.
    pub status: String,
    /// The first day of extended support, if EKS says.
    #[serde(default)]
    pub end_of_standard_support: Option<crate::catalog::versions::Date>,
    /// The day EKS stops offering it, if EKS says.
    #[serde(default)]
    pub end_of_extended_support: Option<crate::catalog::versions::Date>,
}

/// A Spot placement score for an instance type in a region or zone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpotScoreFact {
    /// Instance type scored.
    pub instance_type: String,
    /// Zone, or none for the whole region.
    #[serde(default)]
    pub availability_zone: Option<String>,
    /// 1 (unlikely to succeed) to 10 (very likely).
    pub score: u32,
}

const DESCRIBE_RESERVATIONS: &str = "EC2 DescribeCapacityReservations";
const DESCRIBE_PLACEMENT_GROUPS: &str = "EC2 DescribePlacementGroups; AWS EC2 User Guide, Placement strategies (a spread group holds at most seven running instances per zone)";

pub(super) static RULES: &[Rule] = &[
    Rule {
        id: "vpc-not-found",
        severity: Severity::Error,
        summary: super::described("the existing VPC does not exist in this account and region"),
        help: "check the VPC id and the region; VPCs are regional",
        reference: super::described(
            "EC2 DescribeVpcs; eksctl create cluster fails looking up the VPC before any stack",
        ),
        live: true,
        stage: Stage::AwsCreate,
        check: Check::Spec(vpc_not_found),
    },
    Rule {
        id: "instance-type-unknown-to-ec2",
        severity: Severity::Error,
        summary: super::described("EC2 does not know the instance type in this region"),
        help: "check the type's spelling, or pick a region that has it",
        reference: super::described(
            "EC2 DescribeInstanceTypes (InvalidInstanceType); the launch template or the Auto Scaling group is refused at create",
        ),
        live: true,
        stage: Stage::AwsCreate,
        check: Check::Spec(instance_type_unknown_to_ec2),
    },
    Rule {
        id: "instance-type-offered-nowhere",
        severity: Severity::Error,
        summary: super::described(
            "the instance type is offered in no availability zone of the region",
        ),
        help: "pick a region that offers it, or another type",
        reference: super::described(
            "EC2 DescribeInstanceTypeOfferings; the Auto Scaling group cannot launch it anywhere",
        ),
        live: true,
        stage: Stage::AwsCreate,
        check: Check::Spec(instance_type_offered_nowhere),
    },
    Rule {
        id: "instance-type-catalog-disagrees",
        severity: Severity::Warning,
        summary: super::described(
            "EC2 describes the instance type otherwise than the studio's catalog (EFA, network cards, GPUs, Neuron devices)",
        ),
        help: "trust EC2's answer; the rules that read the catalog (EFA, GPU counts) may judge this type wrongly until the catalog is updated",
        reference: super::described(
            "EC2 DescribeInstanceTypes against shared/data/instance-catalog.csv",
        ),
        live: true,
        stage: Stage::Advice,
        check: Check::Spec(instance_type_catalog_disagrees),
    },
    Rule {
        id: "instance-type-not-offered",
        severity: Severity::Error,
        summary: super::described(
            "the instance type is not offered in an availability zone the group may use",
        ),
        help: "pick a zone where the type is offered, or another type",
        reference: super::described("EC2 DescribeInstanceTypeOfferings"),
        live: true,
        stage: Stage::AwsCreate,
        check: Check::Spec(instance_type_not_offered),
    },
    Rule {
        id: "reservation-not-found",
        severity: Severity::Error,
        summary: super::described(
            "the capacity reservation does not exist in this account and region",
        ),
        help: "check the id and the region; reservations are regional",
        reference: super::described(DESCRIBE_RESERVATIONS),
        live: true,
        stage: Stage::AwsCreate,
        check: Check::Spec(reservation_not_found),
    },
    Rule {
        id: "reservation-not-active",
        severity: Severity::Error,
        summary: super::described(
            "the capacity reservation is not active (or scheduled, for a Capacity Block)",
        ),
        help: "use an active reservation; an expired or cancelled one launches nothing",
        reference: super::described(DESCRIBE_RESERVATIONS),
        live: true,
        stage: Stage::AwsCreate,
        check: Check::Spec(reservation_not_active),
    },
    Rule {
        id: "reservation-instance-type-mismatch",
        severity: Severity::Error,
        summary: super::described(
            "the reservation is for another instance type than the node group's",
        ),
        help: "set the group's instance type to the reservation's",
        reference: super::described(DESCRIBE_RESERVATIONS),
        live: true,
        stage: Stage::AwsCreate,
        check: Check::Spec(reservation_instance_type_mismatch),
    },
    Rule {
        id: "reservation-zone-mismatch",
        severity: Severity::Error,
        summary: super::described(
            "the node group may launch outside the reservation's availability zone",
        ),
        help: "pin the group to the reservation's zone (or a subnet in it)",
        reference: super::described(
            "DescribeCapacityReservations; eksctl does not check this (A4.8)",
        ),
        live: true,
        stage: Stage::AwsCreate,
        check: Check::Spec(reservation_zone_mismatch),
    },
    Rule {
        id: "reservation-capacity-short",
        severity: Severity::Error,
        summary: super::described("the node group wants more nodes than the reservation has free"),
        help: "lower the desired capacity or extend the reservation",
        reference: super::described(DESCRIBE_RESERVATIONS),
        live: true,
        stage: Stage::AwsCreate,
        check: Check::Spec(reservation_capacity_short),
    },
    Rule {
        id: "reservation-smaller-than-max-size",
        severity: Severity::Warning,
        summary: super::described("the node group may grow past the reservation it launches into"),
        help: "keep maxSize at or below the reservation's instance count, or grow the reservation first",
        reference: super::described(DESCRIBE_RESERVATIONS),
        live: true,
        stage: Stage::Advice,
        check: Check::Spec(reservation_smaller_than_max_size),
    },
    Rule {
        id: "reservation-end-date",
        severity: Severity::Info,
        summary: super::described("the capacity reservation ends on a fixed date"),
        help: "plan checkpoints before the end: instances in a Capacity Block are terminated when it ends",
        reference: super::described(DESCRIBE_RESERVATIONS),
        live: true,
        stage: Stage::Advice,
        check: Check::Spec(reservation_end_date),
    },
    Rule {
        id: "capacity-block-not-started",
        severity: Severity::Warning,
        summary: super::described(
            "the node group asks for nodes at creation from a Capacity Block that has not started",
        ),
        help: "create the group with 0 desired nodes (and min 0) and scale it up once the block is active, or deploy after it starts",
        reference: super::described(
            "EC2 DescribeCapacityReservations (state scheduled, startDate), else the block's start as typed in the design; EKS User Guide, Capacity Blocks for ML: a node group created before its reservation is active is set to 0 desired nodes; eksctl waits for a new group's nodes",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(capacity_block_not_started),
    },
    Rule {
        id: "capacity-block-crosses-support-end",
        severity: Severity::Warning,
        summary: super::described(
            "the cluster's Kubernetes version leaves standard (or extended) support while a Capacity Block it uses runs",
        ),
        help: "upgrade before the block starts: an upgrade inside the block replaces its nodes, and the block holds no spare instance for the new ones",
        reference: super::described(
            "EC2 DescribeCapacityReservations (startDate, endDate); the EKS Kubernetes release calendar (end of standard and extended support; EKS upgrades a cluster whose extended support ends); EKS User Guide, Capacity Blocks for ML (scale a block's node group to 0 before upgrading it)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(capacity_block_crosses_support_end),
    },
    Rule {
        id: "capacity-block-window-unreadable",
        severity: Severity::Warning,
        summary: super::described(
            "a Capacity Block's start, end or needed-until time does not read as a UTC time, or the block ends before it starts",
        ),
        help: "write UTC times as 2026-12-10, 2026-12-10 11:30 or 2026-12-10T11:30:00Z, as EC2's purchase shows them",
        reference: super::described(
            "EC2 Capacity Blocks for ML: a block starts and ends at 11:30 UTC on the days bought",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(capacity_block_window_unreadable),
    },
    Rule {
        id: "capacity-block-shorter-than-checkpoint",
        severity: Severity::Warning,
        summary: super::described(
            "the training run checkpoints less often than the Capacity Block lets it run",
        ),
        help: "checkpoint more often than the block's usable time (its length less the 30 minutes, 60 for UltraServers, in which EC2 ends its instances), or buy a longer block",
        reference: super::described(
            "EC2 User Guide, Capacity Blocks for ML: EC2 begins terminating a block's instances 30 minutes before its end time (60 for UltraServers); Karpenter drains them 10 minutes before that",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(capacity_block_shorter_than_checkpoint),
    },
    Rule {
        id: "capacity-block-ends-before-needed",
        severity: Severity::Warning,
        summary: super::described(
            "the Capacity Block's instances end before the training run needs them to",
        ),
        help: "extend the block (EC2 offers extensions of an active block) or buy a following one, and plan the move with a checkpoint",
        reference: super::described(
            "EC2 User Guide, Capacity Blocks for ML: instances end 30 minutes before the block's end time (60 for UltraServers); a block can be extended before it ends",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(capacity_block_ends_before_needed),
    },
    Rule {
        id: "capacity-block-market-type-mismatch",
        severity: Severity::Error,
        summary: super::described(
            "a Capacity Block needs marketType capacity-block, and only a Capacity Block may have it",
        ),
        help: "choose Capacity Block for a block's id, On-Demand Capacity Reservation for an ODCR's id",
        reference: super::described(
            "eksctl validation.go:959-969 (A4.4-A4.5); managed_nodegroup.go:173-178",
        ),
        live: true,
        stage: Stage::AwsCreate,
        check: Check::Spec(capacity_block_market_type_mismatch),
    },
    Rule {
        id: "subnet-not-found",
        severity: Severity::Error,
        summary: super::described("a subnet does not exist in this account and region"),
        help: "check the subnet id and the region",
        reference: super::described("EC2 DescribeSubnets"),
        live: true,
        stage: Stage::AwsCreate,
        check: Check::Spec(subnet_not_found),
    },
    Rule {
        id: "subnet-wrong-vpc",
        severity: Severity::Error,
        summary: super::described("a subnet belongs to another VPC"),
        help: "list only subnets of the cluster's VPC",
        reference: super::described("EC2 DescribeSubnets"),
        live: true,
        stage: Stage::AwsCreate,
        check: Check::Spec(subnet_wrong_vpc),
    },
    Rule {
        id: "subnet-zone-mismatch",
        severity: Severity::Error,
        summary: super::described("a subnet is in another availability zone than the spec says"),
        help: "correct the zone, or pick the subnet that is in the zone you meant",
        reference: super::described("EC2 DescribeSubnets"),
        live: true,
        stage: Stage::AwsCreate,
        check: Check::Spec(subnet_zone_mismatch),
    },
    Rule {
        id: "subnet-few-free-addresses",
        severity: Severity::Warning,
        summary: super::described("a subnet has few free IP addresses left for nodes and pods"),
        help: "each GPU node takes many addresses (pods and EFA interfaces); use a larger subnet",
        reference: super::described("EC2 DescribeSubnets AvailableIpAddressCount"),
        live: true,
        stage: Stage::Advice,
        check: Check::Spec(subnet_few_free_addresses),
    },
    Rule {
        id: "spot-placement-score-low",
        severity: Severity::Warning,
        summary: super::described(
            "Spot capacity for the group's instance types is unlikely to be available",
        ),
        help: "allow more instance types or zones, or use On-Demand",
        reference: super::described("EC2 GetSpotPlacementScores"),
        live: true,
        stage: Stage::Advice,
        check: Check::Spec(spot_placement_score_low),
    },
    Rule {
        id: "karpenter-pool-offered-nowhere",
        severity: Severity::Error,
        summary: super::described(
            "none of the instance types a NodePool allows is offered in the zones it may use",
        ),
        help: "allow other types or zones: Karpenter finds nothing to launch for this pool",
        reference: super::described("EC2 DescribeInstanceTypeOfferings"),
        live: true,
        stage: Stage::Runtime,
        check: Check::Spec(karpenter_pool_offered_nowhere),
    },
    Rule {
        id: "karpenter-spot-placement-score-low",
        severity: Severity::Warning,
        summary: super::described(
            "a NodePool allows Spot, but EC2 scores Spot capacity for its types low",
        ),
        help: "allow more instance types or zones, or On-Demand as a fallback",
        reference: super::described("EC2 GetSpotPlacementScores"),
        live: true,
        stage: Stage::Advice,
        check: Check::Spec(karpenter_spot_placement_score_low),
    },
    Rule {
        id: "karpenter-reservation-not-found",
        severity: Severity::Error,
        summary: super::described(
            "an EC2NodeClass selects a capacity reservation id that does not exist",
        ),
        help: "check the id and the region; Karpenter finds no such reservation, so its reserved pools launch nothing into it",
        reference: super::described(DESCRIBE_RESERVATIONS),
        live: true,
        stage: Stage::Runtime,
        check: Check::Spec(karpenter_reservation_not_found),
    },
    Rule {
        id: "karpenter-reservation-not-active",
        severity: Severity::Error,
        summary: super::described(
            "an EC2NodeClass selects a capacity reservation that is expired, cancelled or failed",
        ),
        help: "select an active reservation (or a Capacity Block that is scheduled or active)",
        reference: super::described(DESCRIBE_RESERVATIONS),
        live: true,
        stage: Stage::Runtime,
        check: Check::Spec(karpenter_reservation_not_active),
    },
    Rule {
        id: "karpenter-reservation-type-not-launched",
        severity: Severity::Warning,
        summary: super::described(
            "no NodePool on the EC2NodeClass can launch the instance type of a reservation it selects",
        ),
        help: "allow the reservation's instance type in the pool's requirements, or select a reservation for a type the pool launches",
        reference: super::described(DESCRIBE_RESERVATIONS),
        live: true,
        stage: Stage::Advice,
        check: Check::Spec(karpenter_reservation_type_not_launched),
    },
    Rule {
        id: "placement-group-not-found",
        severity: Severity::Error,
        summary: super::described(
            "a node group or EC2NodeClass names a placement group that does not exist",
        ),
        help: "create the placement group in the cluster's region first (aws ec2 create-placement-group --strategy cluster), or fix its name",
        reference: super::described(DESCRIBE_PLACEMENT_GROUPS),
        live: true,
        stage: Stage::AwsCreate,
        check: Check::Spec(placement_group_not_found),
    },
    Rule {
        id: "placement-group-spread-too-small",
        severity: Severity::Error,
        summary: super::described(
            "a node group may grow past the seven instances per zone a spread placement group holds",
        ),
        help: "use a cluster placement group (the one for EFA training), or keep the group at seven nodes per zone",
        reference: super::described(DESCRIBE_PLACEMENT_GROUPS),
        live: true,
        stage: Stage::Runtime,
        check: Check::Spec(placement_group_spread_too_small),
    },
    Rule {
        id: "placement-group-efa-not-cluster",
        severity: Severity::Warning,
        summary: super::described(
            "an EFA node group or node class uses a placement group whose strategy is not `cluster`",
        ),
        help: "EFA's low latency needs the nodes close together: use a cluster placement group",
        reference: super::described(DESCRIBE_PLACEMENT_GROUPS),
        live: true,
        stage: Stage::Advice,
        check: Check::Spec(placement_group_efa_not_cluster),
    },
    Rule {
        id: "karpenter-static-pool-exceeds-reservations",
        severity: Severity::Warning,
        summary: super::described(
            "a static NodePool that launches only into reservations keeps more nodes than its reservations hold",
        ),
        help: "lower the replicas to the reservations' instance count, or select another reservation (a Capacity Block sells no more instances)",
        reference: super::described(DESCRIBE_RESERVATIONS),
        live: true,
        stage: Stage::Advice,
        check: Check::Spec(karpenter_static_pool_exceeds_reservations),
    },
];

fn reservation<'a>(
    context: &'a Context<'_>,
    group: &NodeGroup,
) -> Option<&'a crate::rules::ReservationFact> {
    let id = reservation_id(group)?;
    context.live.reservations.iter().find(|fact| fact.id == id)
}

fn reserved_groups<'a>(
    context: &'a Context<'_>,
) -> impl Iterator<Item = (usize, &'a NodeGroup, &'a ReservationFact)> {
    context
        .spec
        .node_groups
        .iter()
        .enumerate()
        .filter_map(|(index, group)| reservation(context, group).map(|fact| (index, group, fact)))
}

/// The zone of a subnet named by id or local name, from the spec or from EC2.
fn subnet_zone(context: &Context<'_>, reference: &str) -> Option<String> {
    if let Network::ExistingVpc {
        public_subnets,
        private_subnets,
        ..
    } = &context.spec.network
        && let Some(subnet) = public_subnets
            .iter()
            .chain(private_subnets)
            .find(|subnet| subnet.id == reference || subnet.name == reference)
    {
        let live_zone = context
            .live
            .subnets
            .iter()
            .find(|fact| fact.id == subnet.id)
            .map(|fact| fact.availability_zone.clone());
        return live_zone.or_else(|| subnet.availability_zone.clone());
    }
    context
        .live
        .subnets
        .iter()
        .find(|fact| fact.id == reference)
        .map(|fact| fact.availability_zone.clone())
}

/// The zones a node group may launch into, when they can be known.
/// The zones node group `index` may launch in, as the design and EC2's answers say;
/// `None` when a subnet's zone is not known (or there is no such group).
pub fn node_group_zones(spec: &Spec, live: &LiveFacts, index: usize) -> Option<Vec<String>> {
    let group = spec.node_groups.get(index)?;
    group_zones(&Context::new(spec, live), group)
}

fn group_zones(context: &Context<'_>, group: &NodeGroup) -> Option<Vec<String>> {
    match &group.placement {
        GroupPlacement::AvailabilityZones { availability_zones } => {
            Some(availability_zones.clone())
        }
        GroupPlacement::Subnets { subnets } => subnets
            .iter()
            .map(|subnet| subnet_zone(context, subnet))
            .collect(),
        GroupPlacement::Cluster => match &context.spec.network {
            Network::NewVpc { availability_zones } => Some(availability_zones.clone()),
            Network::ExistingVpc {
                public_subnets,
                private_subnets,
                ..
            } => {
                let subnets = if group.private_networking {
                    private_subnets
                } else {
                    public_subnets
                };
                subnets
                    .iter()
                    .map(|subnet| subnet_zone(context, &subnet.id))
                    .collect()
            }
        },
    }
}

fn instance_type_not_offered(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in context.spec.node_groups.iter().enumerate() {
        let Some(offering) = context
            .live
            .offerings
            .iter()
            .find(|offering| offering.instance_type == group.instance_type)
            .filter(|offering| !offering.availability_zones.is_empty())
        else {
            continue;
        };
        // Facts list each zone by name and by id; the message names them by name.
        let offered_names: Vec<&str> = offering
            .availability_zones
            .iter()
            .map(String::as_str)
            .filter(|zone| !zone.contains("-az"))
            .collect();
        for zone in group_zones(context, group).unwrap_or_default() {
            // A placeholder zone is the placeholder rule's to report.
            if zone.trim().is_empty() || crate::model::ids::is_placeholder(&zone) {
                continue;
            }
            if !offering.availability_zones.contains(&zone) {
                report.fire(
                    NodeGroup::INSTANCE_TYPE.at(&[index]),
                    format!(
                        "{} is not offered in {zone} (offered in: {})",
                        group.instance_type,
                        offered_names.join(", ")
                    ),
                );
            }
        }
    }
}

fn reservation_not_found(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in context.spec.node_groups.iter().enumerate() {
        if let Some(id) = reservation_id(group)
            && context
                .live
                .missing_reservations
                .iter()
                .any(|missing| missing == id)
        {
            report.fire(
                NodeGroup::RESERVATION_ID.at(&[index]),
                format!("capacity reservation {id} was not found"),
            );
        }
    }
}

fn reservation_not_active(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group, fact) in reserved_groups(context) {
        let block_scheduled =
            fact.reservation_type == "capacity-block" && fact.state == "scheduled";
        if fact.state != "active" && !block_scheduled {
            report.fire(
                NodeGroup::RESERVATION_ID.at(&[index]),
                format!("capacity reservation {} is {}", fact.id, fact.state),
            );
        }
        let _ = group;
    }
}

fn reservation_instance_type_mismatch(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group, fact) in reserved_groups(context) {
        if !group.instance_type.is_empty() && group.instance_type != fact.instance_type {
            report.fire(
                NodeGroup::INSTANCE_TYPE.at(&[index]),
                format!(
                    "reservation {} is for {}, but the group uses {}",
                    fact.id, fact.instance_type, group.instance_type
                ),
            );
        }
    }
}

fn reservation_zone_mismatch(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group, fact) in reserved_groups(context) {
        let Some(zones) = group_zones(context, group) else {
            continue;
        };
        let outside: Vec<&String> = zones
            .iter()
            .filter(|zone| **zone != fact.availability_zone)
            .collect();
        if !outside.is_empty() {
            report.fire(
                NodeGroup::PLACEMENT.at(&[index]),
                format!(
                    "reservation {} is in {}, but the group may launch in {}",
                    fact.id,
                    fact.availability_zone,
                    outside
                        .iter()
                        .map(|zone| zone.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
    }
}

fn reservation_capacity_short(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group, fact) in reserved_groups(context) {
        let wanted = group.desired_capacity.or(group.min_size).unwrap_or(0);
        if wanted > fact.available_instances {
            report.fire(
                NodeGroup::DESIRED_CAPACITY.at(&[index]),
                format!(
                    "{wanted} nodes wanted, but reservation {} has {} of {} instances free",
                    fact.id, fact.available_instances, fact.total_instances
                ),
            );
        }
    }
}

fn reservation_smaller_than_max_size(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group, fact) in reserved_groups(context) {
        if let Some(max) = group.max_size.filter(|max| *max > fact.total_instances) {
            let what = if fact.reservation_type == "capacity-block" {
                "Capacity Block"
            } else {
                "reservation"
            };
            report.fire(
                NodeGroup::MAX_SIZE.at(&[index]),
                format!(
                    "node group `{}` may grow to {max} nodes, but {what} {} holds {}: {} of them can never launch into it (a Capacity Block sells no more; an ODCR's extra nodes fail or run outside it)",
                    group.name,
                    fact.id,
                    fact.total_instances,
                    max - fact.total_instances
                ),
            );
        }
    }
}

/// An RFC 3339 time as people read it: `2026-12-14T11:30:00Z` → `2026-12-14 11:30 UTC`;
/// anything else as given.
pub fn readable_time(rfc3339: &str) -> String {
    let utc = rfc3339
        .strip_suffix('Z')
        .or_else(|| rfc3339.strip_suffix("+00:00"));
    match utc.and_then(|time| time.split_once('T')) {
        Some((day, clock)) if day.len() == 10 && clock.len() >= 5 => {
            let clock = clock.split('.').next().unwrap_or(clock);
            let clock = clock
                .strip_suffix(":00")
                .filter(|hm| hm.len() == 5)
                .unwrap_or(clock);
            format!("{day} {clock} UTC")
        }
        _ => rfc3339.to_owned(),
    }
}

fn reservation_end_date(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, _, fact) in reserved_groups(context) {
        if let Some(end) = &fact.end_date {
            let when = match &fact.start_date {
                Some(start) if fact.reservation_type == "capacity-block" => {
                    format!("from {} to {}", readable_time(start), readable_time(end))
                }
                _ => format!("ends {}", readable_time(end)),
            };
            let kind = if fact.reservation_type == "capacity-block" {
                "Capacity Block"
            } else {
                "reservation"
            };
            report.fire(
                NodeGroup::RESERVATION_ID.at(&[index]),
                format!(
                    "{kind} {}: {} × {} in {}, {}, {} free, {when}",
                    fact.id,
                    fact.total_instances,
                    fact.instance_type,
                    fact.availability_zone,
                    fact.state,
                    fact.available_instances
                ),
            );
        }
    }
}

/// How long before a Capacity Block's end EC2 begins ending the instances of `group` (EC2
/// User Guide, Capacity Blocks for ML: 30 minutes; 60 for UltraServers, the types sold
/// in Capacity Blocks only).
pub(crate) fn block_ending_minutes(group: &crate::model::spec::NodeGroup) -> i64 {
    let ultraserver = std::iter::once(&group.instance_type)
        .chain(&group.instance_types)
        .any(|name| {
            crate::catalog::instances::lookup(name).is_some_and(|known| known.capacity_blocks_only)
        });
    if ultraserver { 60 } else { 30 }
}

/// A Capacity Block group's window: EC2's answer when live checks read the block, else
/// what the design says of it.
struct BlockTimes {
    /// The block's id, as the group names it.
    id: String,
    starts: Option<UtcMinute>,
    ends: Option<UtcMinute>,
    /// Whether it has not started: EC2's `scheduled`, or a typed start on a later day.
    not_started: bool,
    /// EC2 answered (else the times are the design's).
    from_ec2: bool,
    /// Minutes before the end at which EC2 starts ending its instances.
    reclaimed_minutes: i64,
}

fn block_times<'a>(
    context: &'a Context<'_>,
) -> impl Iterator<Item = (usize, &'a NodeGroup, BlockTimes)> + 'a {
    context
        .spec
        .node_groups
        .iter()
        .enumerate()
        .filter_map(move |(index, group)| {
            let Capacity::CapacityBlock { reservation_id } = &group.capacity else {
                return None;
            };
            let reclaimed_minutes = block_ending_minutes(group);
            // EC2's answer wins; what it did not say, the design may.
            let fact = reservation(context, group)
                .filter(|fact| fact.reservation_type == "capacity-block");
            let window = &group.block_window;
            let from_ec2 = fact
                .and_then(|fact| fact.start_date.as_deref())
                .and_then(UtcMinute::parse);
            let starts = from_ec2.or_else(|| UtcMinute::parse(&window.starts));
            let ends = fact
                .and_then(|fact| fact.end_date.as_deref())
                .and_then(UtcMinute::parse)
                .or_else(|| UtcMinute::parse(&window.ends));
            let not_started = match fact {
                Some(fact) => fact.state == "scheduled",
                None => starts.is_some_and(|starts| starts.date() > context.today()),
            };
            let times = BlockTimes {
                id: fact.map_or_else(|| reservation_id.trim().to_owned(), |fact| fact.id.clone()),
                starts,
                ends,
                not_started,
                from_ec2: from_ec2.is_some(),
                reclaimed_minutes,
            };
            Some((index, group, times))
        })
}

fn capacity_block_not_started(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group, times) in block_times(context) {
        if !times.not_started {
            continue;
        }
        let wanted = group.desired_capacity.or(group.min_size).unwrap_or(0);
        if wanted == 0 {
            continue;
        }
        let starts = match times.starts {
            Some(start) if times.from_ec2 => format!("starts {start}"),
            Some(start) => format!("starts {start} (as the design says)"),
            None => "has not started".to_owned(),
        };
        let (nodes, them) = if wanted == 1 {
            ("node", "it")
        } else {
            ("nodes", "them")
        };
        report.fire(
            NodeGroup::DESIRED_CAPACITY.at(&[index]),
            format!(
                "Capacity Block {} {starts}: node group `{}` asks for {wanted} {nodes} at creation, which cannot launch before then, and eksctl waits for {them}; create the group with 0 (desired and min) and, once the block is active, run `eksctl scale nodegroup --cluster {} --region {} --name {} --nodes {wanted}`",
                times.id,
                group.name,
                context.spec.cluster.name,
                context.spec.cluster.region,
                group.name
            ),
        );
    }
}

fn capacity_block_crosses_support_end(context: &Context<'_>, report: &mut Report<'_>) {
    let version = context.spec.cluster.kubernetes_version.trim();
    let Some(entry) = crate::catalog::versions::minor_of(version).and_then(|minor| {
        crate::catalog::versions::calendar()
            .iter()
            .find(|entry| entry.minor == minor)
    }) else {
        return;
    };
    for (index, group, times) in block_times(context) {
        let (Some(start), Some(end)) = (times.starts, times.ends) else {
            continue;
        };
        let (first, last) = (start.date(), end.date());
        let inside = |date: crate::catalog::versions::Date| first < date && date <= last;
        let what = if inside(entry.end_of_extended_support) {
            format!(
                "Kubernetes {version} leaves extended support on {}, so EKS upgrades the control plane itself that day",
                entry.end_of_extended_support
            )
        } else if inside(entry.end_of_standard_support) {
            format!(
                "Kubernetes {version} leaves standard support on {}: from then the control plane costs the extended-support rate until you upgrade",
                entry.end_of_standard_support
            )
        } else {
            continue;
        };
        let path = if times.from_ec2 {
            NodeGroup::RESERVATION_ID.at(&[index])
        } else {
            NodeGroup::BLOCK_STARTS.at(&[index])
        };
        report.fire(
            path,
            format!(
                "{what}, inside Capacity Block {} ({start} to {end}) that node group `{}` runs on: an upgrade during the block replaces its nodes mid-run, and the block has no spare instance for them; upgrade before {start}",
                times.id, group.name,
            ),
        );
    }
}

fn capacity_block_window_unreadable(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in context.spec.node_groups.iter().enumerate() {
        if !matches!(group.capacity, Capacity::CapacityBlock { .. }) {
            continue;
        }
        let window = &group.block_window;
        let mut read = |text: &str, field: fields::Field, what: &str| {
            if text.trim().is_empty() {
                return None;
            }
            let time = UtcMinute::parse(text);
            if time.is_none() {
                report.fire(
                    field.at(&[index]),
                    format!("`{text}` is not a UTC time the studio reads, so the block's {what} is not judged"),
                );
            }
            time
        };
        let starts = read(&window.starts, NodeGroup::BLOCK_STARTS, "start");
        let ends = read(&window.ends, NodeGroup::BLOCK_ENDS, "end");
        read(
            &window.needed_until,
            NodeGroup::BLOCK_NEEDED_UNTIL,
            "planned use",
        );
        if let (Some(starts), Some(ends)) = (starts, ends)
            && ends <= starts
        {
            report.fire(
                NodeGroup::BLOCK_ENDS.at(&[index]),
                format!("the block ends ({ends}) no later than it starts ({starts})"),
            );
        }
    }
}

fn capacity_block_shorter_than_checkpoint(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group, times) in block_times(context) {
        let (Some(start), Some(end), Some(every)) = (
            times.starts,
            times.ends,
            group.block_window.checkpoint_minutes,
        ) else {
            continue;
        };
        let usable = end.0 - start.0 - times.reclaimed_minutes;
        if end <= start || i64::from(every) < usable {
            continue;
        }
        report.fire(
            NodeGroup::BLOCK_CHECKPOINT.at(&[index]),
            format!(
                "the run checkpoints every {every} minutes, but Capacity Block {} ({start} to {end}) gives node group `{}` {} usable minutes (EC2 begins ending its instances {} minutes before the end): it ends before the first checkpoint, and its work is lost",
                times.id,
                group.name,
                usable.max(0),
                times.reclaimed_minutes
            ),
        );
    }
}

fn capacity_block_ends_before_needed(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group, times) in block_times(context) {
        let (Some(end), Some(needed)) = (
            times.ends,
            UtcMinute::parse(&group.block_window.needed_until),
        ) else {
            continue;
        };
        let last = UtcMinute(end.0 - times.reclaimed_minutes);
        if needed <= last {
            continue;
        }
        report.fire(
            NodeGroup::BLOCK_NEEDED_UNTIL.at(&[index]),
            format!(
                "node group `{}` is needed until {needed}, but Capacity Block {} ends {end}, and EC2 begins ending its instances at {last}: extend the block or buy the next one, and checkpoint before {last}",
                group.name, times.id
            ),
        );
    }
}

fn capacity_block_market_type_mismatch(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group, fact) in reserved_groups(context) {
        let is_block = fact.reservation_type == "capacity-block";
        let message = match (&group.capacity, is_block) {
            (Capacity::Reservation { .. }, true) => Some(format!(
                "{} is a Capacity Block: the group needs marketType capacity-block",
                fact.id
            )),
            (Capacity::CapacityBlock { .. }, false) => Some(format!(
                "{} is an On-Demand Capacity Reservation, not a Capacity Block: remove marketType capacity-block",
                fact.id
            )),
            _ => None,
        };
        if let Some(message) = message {
            report.fire(NodeGroup::CAPACITY.at(&[index]), message);
        }
    }
}

fn subnet_not_found(context: &Context<'_>, report: &mut Report<'_>) {
    for (path, subnet) in context.subnets() {
        if context.live.missing_subnets.contains(&subnet.id) {
            report.fire(
                format!("{path}.id"),
                format!("subnet {} was not found", subnet.id),
            );
        }
    }
    for (path, subnet) in context.spec.unlisted_group_subnet_ids() {
        if context.live.missing_subnets.iter().any(|id| id == subnet) {
            report.fire(
                path,
                format!(
                    "subnet {subnet} was not found: eksctl looks it up when it builds the group's stack, after the control plane is created, and stops there"
                ),
            );
        }
    }
}

fn subnet_wrong_vpc(context: &Context<'_>, report: &mut Report<'_>) {
    let Network::ExistingVpc { vpc_id, .. } = &context.spec.network else {
        return;
    };
    for (path, subnet) in context.subnets() {
        if let Some(fact) = context
            .live
            .subnets
            .iter()
            .find(|fact| fact.id == subnet.id)
            && &fact.vpc_id != vpc_id
        {
            report.fire(
                format!("{path}.id"),
                format!(
                    "subnet {} belongs to {}, not to {vpc_id}",
                    subnet.id, fact.vpc_id
                ),
            );
        }
    }
    for (path, subnet) in context.spec.unlisted_group_subnet_ids() {
        if let Some(fact) = context.live.subnets.iter().find(|fact| fact.id == subnet)
            && &fact.vpc_id != vpc_id
        {
            report.fire(
                path,
                format!(
                    "subnet {subnet} belongs to {}, not to {vpc_id}: eksctl refuses it when it builds the group's stack, after the control plane is created (`subnet with ID \"{subnet}\" is not in the attached VPC with ID \"{vpc_id}\"`)",
                    fact.vpc_id
                ),
            );
        }
    }
}

fn subnet_zone_mismatch(context: &Context<'_>, report: &mut Report<'_>) {
    for (path, subnet) in context.subnets() {
        if let (Some(stated), Some(fact)) = (
            &subnet.availability_zone,
            context
                .live
                .subnets
                .iter()
                .find(|fact| fact.id == subnet.id),
        ) && stated != &fact.availability_zone
        {
            report.fire(
                format!("{path}.availability_zone"),
                format!(
                    "subnet {} is in {}, not in {stated}",
                    subnet.id, fact.availability_zone
                ),
            );
        }
    }
}

/// Below this many free addresses a subnet cannot take a few more GPU nodes and their pods.
const FEW_FREE_ADDRESSES: u32 = 64;

fn subnet_few_free_addresses(context: &Context<'_>, report: &mut Report<'_>) {
    for (path, subnet) in context.subnets() {
        if let Some(fact) = context
            .live
            .subnets
            .iter()
            .find(|fact| fact.id == subnet.id)
            && fact.available_addresses < FEW_FREE_ADDRESSES
        {
            report.fire(
                format!("{path}.id"),
                format!(
                    "subnet {} has only {} free addresses",
                    subnet.id, fact.available_addresses
                ),
            );
        }
    }
}

/// Scores at or below this are "unlikely to succeed" in AWS's guidance.
const LOW_SPOT_SCORE: u32 = 3;

fn spot_placement_score_low(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in context.spec.node_groups.iter().enumerate() {
        if group.capacity != Capacity::Spot {
            continue;
        }
        let types: Vec<&str> = if group.instance_types.is_empty() {
            vec![group.instance_type.as_str()]
        } else {
            group.instance_types.iter().map(String::as_str).collect()
        };
        let best = context
            .live
            .spot_scores
            .iter()
            .filter(|score| types.contains(&score.instance_type.as_str()))
            .map(|score| score.score)
            .max();
        if let Some(best) = best
            && best <= LOW_SPOT_SCORE
        {
            report.fire(
                NodeGroup::CAPACITY.at(&[index]),
                format!(
                    "best Spot placement score for `{}` is {best} of 10",
                    group.name
                ),
            );
        }
    }
}

/// Each node group's instance types with the path that names them.
fn group_type_paths<'a>(context: &Context<'a>) -> Vec<(String, &'a str)> {
    let mut found = Vec::new();
    for (index, group) in context.spec.node_groups.iter().enumerate() {
        if group.instance_types.is_empty() {
            found.push((
                NodeGroup::INSTANCE_TYPE.at(&[index]),
                group.instance_type.as_str(),
            ));
        } else {
            for instance_type in &group.instance_types {
                found.push((
                    NodeGroup::INSTANCE_TYPES.at(&[index]),
                    instance_type.as_str(),
                ));
            }
        }
    }
    found
}

fn vpc_not_found(context: &Context<'_>, report: &mut Report<'_>) {
    if let Network::ExistingVpc { vpc_id, .. } = &context.spec.network
        && context.live.missing_vpcs.contains(vpc_id)
    {
        report.fire(
            Network::VPC_ID.path(),
            format!(
                "VPC {vpc_id} does not exist in {}",
                context.spec.cluster.region
            ),
        );
    }
}

fn instance_type_unknown_to_ec2(context: &Context<'_>, report: &mut Report<'_>) {
    for (path, instance_type) in group_type_paths(context) {
        if context
            .live
            .unknown_instance_types
            .iter()
            .any(|unknown| unknown == instance_type)
        {
            report.fire(
                path,
                format!(
                    "EC2 does not know the instance type `{instance_type}` in {}",
                    context.spec.cluster.region
                ),
            );
        }
    }
}

fn instance_type_offered_nowhere(context: &Context<'_>, report: &mut Report<'_>) {
    for (path, instance_type) in group_type_paths(context) {
        if context.live.offerings.iter().any(|offering| {
            offering.instance_type == instance_type && offering.availability_zones.is_empty()
        }) {
            report.fire(
                path,
                format!(
                    "{instance_type} is not offered in any zone of {}",
                    context.spec.cluster.region
                ),
            );
        }
    }
}

fn instance_type_catalog_disagrees(context: &Context<'_>, report: &mut Report<'_>) {
    for (path, instance_type) in group_type_paths(context) {
        let Some(fact) = context
            .live
            .instance_types
            .iter()
            .find(|fact| fact.instance_type == instance_type)
        else {
            continue;
        };
        let differences = fact.differences();
        if differences.is_empty() {
            continue;
        }
        let listed = differences
            .iter()
            .map(|(field, live, listed)| format!("{field} is {live} (catalog: {listed})"))
            .collect::<Vec<_>>()
            .join(", ");
        report.fire(
            path,
            format!(
                "EC2 disagrees with the studio's catalog on {instance_type}: {listed}; EC2's answer wins"
            ),
        );
    }
}

/// Every reservation id an EC2NodeClass selects, with its spec path and the class's index.
fn class_reservation_ids<'a>(
    context: &Context<'a>,
) -> impl Iterator<Item = (usize, String, &'a str)> + use<'a> {
    context
        .spec
        .karpenter
        .iter()
        .flat_map(|karpenter| karpenter.node_classes.iter().enumerate())
        .flat_map(|(class_index, class)| {
            class
                .spec
                .capacity_reservation_selector_terms
                .iter()
                .enumerate()
                .filter_map(move |(term, selector)| {
                    let id = selector.id.as_deref()?;
                    Some((
                        class_index,
                        format!(
                            "karpenter.node_classes[{class_index}].spec.capacityReservationSelectorTerms[{term}].id"
                        ),
                        id,
                    ))
                })
        })
}

fn karpenter_reservation_not_found(context: &Context<'_>, report: &mut Report<'_>) {
    for (_, path, id) in class_reservation_ids(context) {
        if context
            .live
            .missing_reservations
            .iter()
            .any(|missing| missing == id)
        {
            report.fire(path, format!("capacity reservation {id} was not found"));
        }
    }
}

fn karpenter_reservation_not_active(context: &Context<'_>, report: &mut Report<'_>) {
    for (_, path, id) in class_reservation_ids(context) {
        let Some(fact) = context.live.reservations.iter().find(|fact| fact.id == id) else {
            continue;
        };
        let block_scheduled =
            fact.reservation_type == "capacity-block" && fact.state == "scheduled";
        if fact.state != "active" && !block_scheduled {
            report.fire(path, format!("capacity reservation {id} is {}", fact.state));
        }
    }
}

fn karpenter_reservation_type_not_launched(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(karpenter) = &context.spec.karpenter else {
        return;
    };
    for (class_index, path, id) in class_reservation_ids(context) {
        let Some(fact) = context.live.reservations.iter().find(|fact| fact.id == id) else {
            continue;
        };
        let class_name = &karpenter.node_classes[class_index].metadata.name;
        let pools: Vec<usize> = karpenter
            .node_pools
            .iter()
            .enumerate()
            .filter(|(_, pool)| &pool.spec.template.spec.node_class_ref.name == class_name)
            .map(|(index, _)| index)
            .collect();
        let launched = pools.iter().any(|index| {
            context
                .pool_instance_types(*index)
                .iter()
                .any(|instance| instance.name == fact.instance_type)
        });
        if !pools.is_empty() && !launched {
            report.fire(
                path,
                format!(
                    "reservation {id} is for {}, which no NodePool on EC2NodeClass `{class_name}` can launch",
                    fact.instance_type
                ),
            );
        }
    }
}

fn karpenter_static_pool_exceeds_reservations(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(karpenter) = &context.spec.karpenter else {
        return;
    };
    for (pool_index, pool, replicas) in super::karpenter::static_pools(context) {
        let capacity_types = crate::upstream::matching::capacity_types(pool);
        if capacity_types.len() != 1 || !capacity_types.contains("reserved") {
            continue;
        }
        let class_name = &pool.spec.template.spec.node_class_ref.name;
        let Some(class_index) = karpenter
            .node_classes
            .iter()
            .position(|class| &class.metadata.name == class_name)
        else {
            continue;
        };
        let terms = &karpenter.node_classes[class_index]
            .spec
            .capacity_reservation_selector_terms;
        // Only reservations named by id can be counted; a tag term may select more.
        if terms.is_empty() || terms.iter().any(|term| term.id.is_none()) {
            continue;
        }
        let launched = context.pool_instance_types(pool_index);
        // An unknown reservation is its own finding; a sum without it would mislead.
        let held: Option<u64> = class_reservation_ids(context)
            .filter(|(index, ..)| *index == class_index)
            .map(|(_, _, id)| {
                let fact = context
                    .live
                    .reservations
                    .iter()
                    .find(|fact| fact.id == id)?;
                let usable = launched
                    .iter()
                    .any(|instance| instance.name == fact.instance_type);
                Some(if usable {
                    u64::from(fact.total_instances)
                } else {
                    0
                })
            })
            .sum();
        if let Some(held) = held.filter(|held| *held < replicas) {
            report.fire(
                NodePool::REPLICAS.at(&[pool_index]),
                format!(
                    "static NodePool `{}` keeps {replicas} nodes on reserved capacity only, but the reservations it can launch into hold {held}: {} stay pending",
                    pool.metadata.name,
                    replicas - held
                ),
            );
        }
    }
}

/// A placement group the design names, and what its rules need to know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedPlacementGroup {
    /// The spec path of the field that names it.
    pub path: String,
    /// Its name or `pg-` id, as written.
    pub name: String,
    /// Whether the nodes going into it use EFA (known for node groups only: Karpenter's
    /// EFA comes from the pods of its pools, which a class cannot say).
    pub efa: bool,
    /// How many nodes a node group may grow to.
    pub size: Option<u32>,
}

/// Every placement group a node group (`placement_group`) or an EC2NodeClass
/// (`placementGroupSelector`, its name or else its id) names, blank ones left out.
pub fn named_placement_groups(spec: &crate::model::spec::Spec) -> Vec<NamedPlacementGroup> {
    let mut named = Vec::new();
    for (index, group) in spec.node_groups.iter().enumerate() {
        named.push(NamedPlacementGroup {
            path: NodeGroup::PLACEMENT_GROUP.at(&[index]),
            name: group.placement_group.trim().to_owned(),
            efa: group.efa_enabled,
            size: group.max_size.or(group.desired_capacity),
        });
    }
    let classes = spec
        .karpenter
        .iter()
        .flat_map(|karpenter| karpenter.node_classes.iter().enumerate());
    for (index, class) in classes {
        let Some(selector) = &class.spec.placement_group_selector else {
            continue;
        };
        let path = format!("karpenter.node_classes[{index}].spec.placementGroupSelector");
        let (field, name) = match (&selector.name, &selector.id) {
            (Some(name), _) => ("name", name),
            (None, Some(id)) => ("id", id),
            (None, None) => continue,
        };
        named.push(NamedPlacementGroup {
            path: format!("{path}.{field}"),
            name: name.trim().to_owned(),
            efa: false,
            size: None,
        });
    }
    named.retain(|group| !group.name.is_empty());
    named
}

/// The fact about a placement group named `name` or with id `name`.
fn placement_group<'a>(context: &Context<'a>, name: &str) -> Option<&'a PlacementGroupFact> {
    context
        .live
        .placement_groups
        .iter()
        .find(|fact| fact.name == name || fact.id == name)
}

fn placement_group_not_found(context: &Context<'_>, report: &mut Report<'_>) {
    for NamedPlacementGroup { path, name, .. } in named_placement_groups(context.spec) {
        if context.live.missing_placement_groups.contains(&name) {
            report.fire(
                path,
                format!(
                    "placement group `{name}` does not exist in {}",
                    context.spec.cluster.region
                ),
            );
        }
    }
}

fn placement_group_spread_too_small(context: &Context<'_>, report: &mut Report<'_>) {
    for NamedPlacementGroup {
        path, name, size, ..
    } in named_placement_groups(context.spec)
    {
        if let (Some(fact), Some(size)) = (placement_group(context, &name), size)
            && fact.strategy == "spread"
            && size > 7
        {
            report.fire(
                path,
                format!("placement group `{name}` spreads its instances, at most seven per zone, but the group may grow to {size}: the rest fail to launch"),
            );
        }
    }
}

fn placement_group_efa_not_cluster(context: &Context<'_>, report: &mut Report<'_>) {
    for NamedPlacementGroup {
        path, name, efa, ..
    } in named_placement_groups(context.spec)
    {
        if let Some(fact) = placement_group(context, &name)
            && efa
            && fact.strategy != "cluster"
        {
            report.fire(
                path,
                format!("EFA nodes go into placement group `{name}`, whose strategy is {}: EFA's low latency needs a cluster placement group", fact.strategy),
            );
        }
    }
}

/// The zones pool `pool` may use: its `topology.kubernetes.io/zone In` values, else the
/// cluster's (a new VPC's zones, an existing VPC's subnets'); empty means any.
fn pool_zones(context: &Context<'_>, pool: &crate::upstream::karpenter::NodePool) -> Vec<String> {
    let required = pool
        .spec
        .template
        .spec
        .requirements
        .iter()
        .find(|requirement| {
            requirement.key == "topology.kubernetes.io/zone" && requirement.operator == "In"
        });
    if let Some(requirement) = required {
        return requirement.values.to_vec();
    }
    context.spec.network.zones()
}

fn karpenter_pool_offered_nowhere(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, pool) in super::reading::pools(context) {
        let allowed = context.pool_instance_types(index);
        let facts: Vec<&OfferingFact> = allowed
            .iter()
            .filter_map(|instance| {
                context
                    .live
                    .offerings
                    .iter()
                    .find(|fact| fact.instance_type == instance.name)
            })
            .collect();
        // Judged only when EC2 answered for every type the pool allows.
        if allowed.is_empty() || facts.len() < allowed.len() {
            continue;
        }
        let zones = pool_zones(context, pool);
        let offered = facts.iter().any(|fact| {
            !fact.availability_zones.is_empty()
                && (zones.is_empty()
                    || fact
                        .availability_zones
                        .iter()
                        .any(|zone| zones.contains(zone)))
        });
        if !offered {
            let place = if zones.is_empty() {
                format!("any zone of {}", context.spec.cluster.region)
            } else {
                zones.join(", ")
            };
            report.fire(
                fields::item(fields::KARPENTER_POOL, &[index]),
                format!(
                    "none of the {} instance type(s) NodePool `{}` allows is offered in {place}: Karpenter can launch nothing for it",
                    allowed.len(),
                    pool.metadata.name
                ),
            );
        }
    }
}

fn karpenter_spot_placement_score_low(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, pool) in super::reading::pools(context) {
        if !crate::upstream::matching::capacity_types(pool).contains("spot") {
            continue;
        }
        let allowed = context.pool_instance_types(index);
        let best = context
            .live
            .spot_scores
            .iter()
            .filter(|score| {
                allowed
                    .iter()
                    .any(|instance| instance.name == score.instance_type)
            })
            .map(|score| score.score)
            .max();
        if let Some(best) = best
            && best <= LOW_SPOT_SCORE
        {
            report.fire(
                fields::item(fields::KARPENTER_POOL, &[index]),
                format!(
                    "best Spot placement score for the {} instance type(s) NodePool `{}` allows is {best} of 10",
                    allowed.len(),
                    pool.metadata.name
                ),
            );
        }
    }
}
