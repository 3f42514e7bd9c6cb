//! The JSON API's vocabulary, shared by the server that answers and the page that asks, so
//! the two cannot disagree about a check or a status.

use serde::{Deserialize, Serialize};

/// How a live check went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckStatus {
    /// AWS's answer agrees with the spec.
    Ok,
    /// AWS's answer shows a problem.
    Failed,
    /// No answer: offline, unreachable, refused, or the spec's value is not usable yet.
    CouldNotRun,
}

impl CheckStatus {
    /// `ok`, `failed` or `could-not-run`.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Ok => "ok",
            CheckStatus::Failed => "failed",
            CheckStatus::CouldNotRun => "could-not-run",
        }
    }
}

/// One kind of live check `POST /api/checks` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveCheckKind {
    /// The id results carry, e.g. `capacity-reservation`.
    pub id: &'static str,
    /// The AWS actions it calls.
    pub asks: &'static [&'static str],
    /// What it looks at, in a few words.
    pub looks_at: &'static str,
}

/// EKS offers the spec's Kubernetes version in the region.
pub const KUBERNETES_VERSION: &str = "kubernetes-version";
/// An existing VPC exists.
pub const VPC_EXISTS: &str = "vpc-exists";
/// A subnet exists, is in the VPC and the stated zone, and has free addresses.
pub const SUBNET: &str = "subnet";
/// The instance type is offered in each zone a node group may use.
pub const INSTANCE_TYPE_OFFERED: &str = "instance-type-offered";
/// EC2's facts about an instance type agree with the studio's catalog.
pub const INSTANCE_TYPE_FACTS: &str = "instance-type-facts";
/// A named ODCR or Capacity Block exists and fits the node group.
pub const CAPACITY_RESERVATION: &str = "capacity-reservation";
/// Spot capacity is likely for a Spot group.
pub const SPOT_PLACEMENT_SCORE: &str = "spot-placement-score";
/// Recent Spot prices for a Spot group, as a cost hint.
pub const SPOT_PRICE: &str = "spot-price";

/// Every live check, in the order results are listed.
pub const LIVE_CHECKS: &[LiveCheckKind] = &[
    LiveCheckKind {
        id: KUBERNETES_VERSION,
        asks: &["eks:DescribeClusterVersions"],
        looks_at: "the Kubernetes version EKS offers in the region",
    },
    LiveCheckKind {
        id: VPC_EXISTS,
        asks: &["ec2:DescribeVpcs"],
        looks_at: "the existing VPC",
    },
    LiveCheckKind {
        id: SUBNET,
        asks: &["ec2:DescribeSubnets"],
        looks_at: "subnets, their VPC, zones and free addresses",
    },
    LiveCheckKind {
        id: INSTANCE_TYPE_OFFERED,
        asks: &[
            "ec2:DescribeAvailabilityZones",
            "ec2:DescribeInstanceTypeOfferings",
        ],
        looks_at: "instance types offered in the zones",
    },
    LiveCheckKind {
        id: INSTANCE_TYPE_FACTS,
        asks: &["ec2:DescribeInstanceTypes"],
        looks_at: "instance type facts (GPUs, EFA)",
    },
    LiveCheckKind {
        id: CAPACITY_RESERVATION,
        asks: &["ec2:DescribeCapacityReservations"],
        looks_at: "capacity reservations (state, type, zone, size)",
    },
    LiveCheckKind {
        id: SPOT_PLACEMENT_SCORE,
        asks: &["ec2:GetSpotPlacementScores"],
        looks_at: "Spot placement scores",
    },
    LiveCheckKind {
        id: SPOT_PRICE,
        asks: &["ec2:DescribeSpotPriceHistory"],
        looks_at: "Spot prices",
    },
];

/// What the live checks look at, as one phrase for a sentence ("… cannot run: …").
pub fn live_checks_in_words() -> String {
    LIVE_CHECKS
        .iter()
        .map(|kind| kind.looks_at)
        .collect::<Vec<_>>()
        .join(", ")
}
