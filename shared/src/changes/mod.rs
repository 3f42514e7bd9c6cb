//! What a changed design would do to the cluster the first one describes: each object
//! matched by its identity (the cluster by name and region, node groups and add-ons by
//! name, access entries by principal, Pod Identity associations by service account,
//! Karpenter and Auto Mode objects by kind and name), each change one of create, update
//! in place, replace or delete, with the fields that changed, the peer's commands for it
//! as argument vectors, and whether it disrupts running pods.
//!
//! Objects are compared as eksctl and Kubernetes read them: the rendered `cluster.yaml`
//! and Karpenter documents, key by key, so a change the studio does not model (a key kept
//! from an import) is seen too. What the peers can change in place is read from their
//! commands: `eksctl scale nodegroup`, `eksctl upgrade cluster | nodegroup`,
//! `eksctl create | update | delete iamserviceaccount`, `eksctl update addon |
//! podidentityassociation | auto-mode-config`, `eksctl utils
//! update-cluster-logging | update-cluster-vpc-config | associate-iam-oidc-provider |
//! enable-secrets-encryption | update-authentication-mode | update-zonal-shift-config`,
//! `aws eks update-nodegroup-config` (labels, taints, update
//! and repair settings: `UpdateNodegroupConfig`), `kubectl apply` (eksctl-io/eksctl
//! `pkg/ctl` at 99984adb; EKS API reference). Every other field of a live managed node
//! group is fixed at creation: changing it is a replacement.

/// Add-on versions against what EKS offers for the design's Kubernetes version.
pub mod addons;
/// A running cluster's design made comparable with the design planned against it.
pub mod align;
/// A plan as the ordered steps that make it, and `apply.sh`.
pub mod apply;
/// The capacity a plan's groups run on, read live: sizes beyond a reservation, a block's clock.
pub mod capacity;
/// Comparing the two designs' objects and classifying each change.
mod diff;
/// The apply lock's names, and `apply.sh`'s way of taking it.
pub mod lock;
/// The objects inside a running cluster (Karpenter's), read into its design.
pub mod objects;
/// A design planned against a running cluster as read: the planner's entry point.
pub mod plan;
/// A running cluster read back into a design.
pub mod read;
/// eksctl's self-managed node groups read back from their stacks.
mod stacks;
/// One command of a plan, as a value.
pub mod step;
/// The plan as text, in the manner of `terraform plan`.
mod words;
/// What runs on a cluster's nodes, so a plan names the jobs a change disrupts.
pub mod workloads;

use serde::Serialize;

use crate::rules::Finding;

pub use crate::model::items::visible;
pub use diff::{INTERIM_FILE, diff};
pub use step::Step;
pub use words::{human, summary};

/// What happens to one object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// It is made.
    Create,
    /// It is changed in place.
    Update,
    /// A new one is made and the old one removed: the peer cannot change what changed.
    Replace,
    /// It is removed.
    Delete,
}

impl Action {
    /// `+`, `~`, `-/+` or `-`, as `terraform plan` marks them.
    pub fn mark(self) -> &'static str {
        match self {
            Action::Create => "+",
            Action::Update => "~",
            Action::Replace => "-/+",
            Action::Delete => "-",
        }
    }
}

/// One object's change.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// `cluster`, `nodegroup`, `addon`, `accessentry`, `podidentityassociation`,
    /// `NodePool`, `EC2NodeClass`, `NodeOverlay`, `NodeClass` (Auto Mode).
    pub kind: String,
    /// Its name (a principal ARN, `namespace/service-account`).
    pub name: String,
    /// What happens to it.
    pub action: Action,
    /// The keys that change, as the peer spells them (`instanceType`, `spec.limits`).
    pub fields: Vec<String>,
    /// Whether running pods are moved: nodes drained, or replaced by Karpenter.
    pub disruptive: bool,
    /// How, in words; empty when not disruptive.
    pub disruption: String,
    /// The commands that make the change, in order.
    pub steps: Vec<Step>,
    /// The interim node group a replacement makes first, under another name, from
    /// [`INTERIM_FILE`] (none when it runs already, or the change makes none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interim: Option<String>,
    /// The workloads running on the nodes it drains or replaces, when the cluster's pods
    /// were read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<workloads::Disrupted>,
}

/// The whole plan: the changes, and what the peers would refuse or what to know first.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Plan {
    /// Every change, in the order it would be made.
    pub changes: Vec<Change>,
    /// Findings about the changes (rules of the `change` stage).
    pub findings: Vec<Finding>,
}

impl Plan {
    /// Whether nothing changes.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// How many changes take this action.
    pub fn count(&self, action: Action) -> usize {
        self.changes
            .iter()
            .filter(|change| change.action == action)
            .count()
    }

    /// Whether a peer would refuse a change (an error finding).
    pub fn refused(&self) -> bool {
        crate::rules::has_errors(&self.findings)
    }
}
