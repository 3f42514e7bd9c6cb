//! The planner's entry point: a design planned against a running cluster as read, the
//! read aligned to it, the two compared, the running work each change disrupts named, and
//! the add-on versions EKS offers checked.

use super::addons::{AddonOffer, addon_findings};
use super::align::aligned;
use super::read::Reading;
use crate::model::spec::Spec;
use crate::upstream::eks::NotRead;

/// A plan against a running cluster: the changes, and what was not read or not compared.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LivePlan {
    /// The changes and the findings about them.
    #[serde(flatten)]
    pub plan: crate::changes::Plan,
    /// What the plan took from the design because a read cannot see it.
    pub not_compared: Vec<String>,
    /// What the read could not see, with why.
    pub not_read: Vec<NotRead>,
}

/// What `design` would change on the cluster `reading` read.
pub fn plan_against(reading: &Reading, design: &Spec) -> LivePlan {
    let (before, not_compared) = aligned(reading, design);
    let mut plan = crate::changes::diff(&before, design);
    if let Some(workloads) = &reading.workloads {
        crate::changes::workloads::annotate(&mut plan, workloads);
    }
    LivePlan {
        plan,
        not_compared,
        not_read: reading.not_read.clone(),
    }
}

/// [`plan_against`], with what EKS offers of the design's add-ons for its Kubernetes
/// version (`None`: not asked; `Err`: the call failed, named as not read).
pub fn plan_against_offered(
    reading: &Reading,
    design: &Spec,
    offer: Option<Result<&AddonOffer, String>>,
) -> LivePlan {
    let mut live = plan_against(reading, design);
    match offer {
        Some(Ok(offer)) => live
            .plan
            .findings
            .extend(addon_findings(reading, design, offer)),
        Some(Err(why)) => live.not_read.push(NotRead {
            what: format!(
                "the add-on versions EKS offers for Kubernetes {}",
                design.cluster.kubernetes_version.trim()
            ),
            why,
        }),
        None => {}
    }
    live
}
