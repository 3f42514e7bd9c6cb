//! A design planned against a running cluster: the one read-then-plan of the server
//! (`/api/plan`, `/api/applies`, an approval's plan again, the look before a drain) and of
//! the command line (`plan`, `apply`). The reads run on the async workers, beside each
//! other; the comparison, which renders both designs, takes one of the heavy-work turns
//! ([`crate::work`]).

use aws_sdk_eks::primitives::{DateTime, DateTimeFormat};
use futures_util::future::join_all;
use shared::Spec;
use shared::changes::capacity::{ReservationsRead, capacity_findings};
use shared::changes::plan::{LivePlan, plan_against_offered};
use shared::changes::read::Reading;
use shared::model::ids::Region;
use shared::model::spec::Capacity;
use shared::upstream::eks::NotRead;

use super::Tools;
use super::objects::read_running;
use crate::aws::{AwsError, LiveAws};
use crate::work::{WorkError, off_the_workers};

/// Why a plan against a running cluster was not made.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The design asks for more than EKS runs; nothing was read.
    #[error("{0}")]
    Beyond(String),
    /// The cluster could not be read.
    #[error(transparent)]
    Aws(#[from] AwsError),
    /// The comparison did not run.
    #[error(transparent)]
    Work(#[from] WorkError),
}

/// Reads cluster `cluster` in `region` and plans `spec` against it: the design back (it
/// went to the comparison) and the plan.
pub async fn plan_running(
    aws: &LiveAws,
    tools: &Tools,
    region: &Region,
    cluster: &str,
    spec: Spec,
) -> Result<(Spec, LivePlan), PlanError> {
    if let Some(reason) = spec.beyond_what_eks_runs() {
        return Err(PlanError::Beyond(reason));
    }
    let (reading, offer, reservations) = read_for_plan(aws, tools, region, cluster, &spec).await?;
    let planned = off_the_workers(move || {
        let mut live = plan_against_offered(
            &reading,
            &spec,
            offer
                .as_ref()
                .map(|offer| offer.as_ref().map_err(Clone::clone)),
        );
        let (read, unread) = reservations;
        capacity_findings(&spec, &read, &mut live.plan);
        live.not_read.extend(unread);
        (spec, live)
    })
    .await?;
    Ok(planned)
}

/// The ids of the capacity reservations the groups of `design` run on, once each.
fn reservation_ids(design: &Spec) -> Vec<String> {
    let mut ids: Vec<String> = design
        .node_groups
        .iter()
        .filter_map(|group| match &group.capacity {
            Capacity::Reservation { reservation_id }
            | Capacity::CapacityBlock { reservation_id } => Some(reservation_id.trim()),
            _ => None,
        })
        .filter(|id| shared::model::ids::ReservationId::parse(id).is_ok())
        .map(str::to_owned)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The reservations `ids` as EC2 describes them now, and the ones it could not describe
/// (a reservation EC2 does not have is left to the design's live checks, which refuse it).
async fn reservations_of(
    aws: &LiveAws,
    region: &Region,
    ids: &[String],
) -> (ReservationsRead, Vec<NotRead>) {
    let at = DateTime::from(std::time::SystemTime::now())
        .fmt(DateTimeFormat::DateTime)
        .unwrap_or_default();
    let answers = join_all(ids.iter().map(|id| aws.reservation(region, id))).await;
    let mut read = ReservationsRead {
        facts: Vec::new(),
        at,
    };
    let mut unread = Vec::new();
    for (id, answer) in ids.iter().zip(answers) {
        match answer {
            Ok(Some(reservation)) => read.facts.push(reservation.fact),
            Ok(None) => {}
            Err(error) => unread.push(NotRead {
                what: format!("capacity reservation {id}"),
                why: error.to_string(),
            }),
        }
    }
    (read, unread)
}

/// What EKS offers of a design's add-ons (`None`: not asked; `Err`: the call failed).
type Offer = Option<Result<shared::changes::addons::AddonOffer, String>>;

/// What a plan of `design` against the running cluster `name` needs, read at the same
/// time: the cluster ([`read_running`]); once EKS has it, the versions EKS offers of the
/// design's add-ons for the Kubernetes version it asks for, and the reservations its
/// groups run on.
async fn read_for_plan(
    aws: &LiveAws,
    tools: &Tools,
    region: &Region,
    name: &str,
    design: &Spec,
) -> Result<(Reading, Offer, (ReservationsRead, Vec<NotRead>)), AwsError> {
    let addons: Vec<String> = design
        .addons
        .iter()
        .map(|addon| addon.name.clone())
        .collect();
    let version = design.cluster.kubernetes_version.trim().to_owned();
    let reservations = reservation_ids(design);
    let asks = async {
        let offered = !addons.is_empty() && !version.is_empty();
        if !offered && reservations.is_empty() {
            return (None, (ReservationsRead::default(), Vec::new()));
        }
        // Only once EKS has the cluster: a plan against one it does not have is a 404
        // that asks nothing else. Beside the read, so no longer than its own chain.
        if let Err(error) = aws.api_access(region, name).await {
            let offer = offered.then(|| Err(error.to_string()));
            return (offer, (ReservationsRead::default(), Vec::new()));
        }
        let offer = async {
            if !offered {
                return None;
            }
            Some(
                aws.addon_versions(region, &addons, &version)
                    .await
                    .map_err(|error| error.to_string()),
            )
        };
        tokio::join!(offer, reservations_of(aws, region, &reservations))
    };
    let groups: Vec<String> = design
        .node_groups
        .iter()
        .map(|group| group.name.trim().to_owned())
        .collect();
    let (reading, (offer, reservations)) =
        tokio::join!(read_running(aws, tools, region, name, &groups), asks);
    Ok((reading?, offer, reservations))
}
