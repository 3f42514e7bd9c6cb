//! A design planned against a running cluster: the one read-then-plan of the server
//! (`/api/plan`, `/api/applies`, an approval's plan again, the look before a drain) and of
//! the command line (`plan`, `apply`). The reads run on the async workers, beside each
//! other; the comparison, which renders both designs, takes one of the heavy-work turns
//! ([`crate::work`]).

use shared::Spec;
use shared::changes::plan::{LivePlan, plan_against_offered};
use shared::changes::read::Reading;
use shared::model::ids::Region;

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
    let (reading, offer) = read_for_plan(aws, tools, region, cluster, &spec).await?;
    let planned = off_the_workers(move || {
        let live = plan_against_offered(
            &reading,
            &spec,
            offer
                .as_ref()
                .map(|offer| offer.as_ref().map_err(Clone::clone)),
        );
        (spec, live)
    })
    .await?;
    Ok(planned)
}

/// What a plan of `design` against the running cluster `name` needs, read at the same
/// time: the cluster ([`read_running`]) and the versions EKS offers of the design's
/// add-ons for the Kubernetes version it asks for (`None` when it names none).
async fn read_for_plan(
    aws: &LiveAws,
    tools: &Tools,
    region: &Region,
    name: &str,
    design: &shared::Spec,
) -> Result<
    (
        Reading,
        Option<Result<shared::changes::addons::AddonOffer, String>>,
    ),
    AwsError,
> {
    let addons: Vec<String> = design
        .addons
        .iter()
        .map(|addon| addon.name.clone())
        .collect();
    let version = design.cluster.kubernetes_version.trim().to_owned();
    let offer = async {
        if addons.is_empty() || version.is_empty() {
            return None;
        }
        // Only once EKS has the cluster: a plan against one it does not have is a 404
        // that asks nothing else. Beside the read, so no longer than its own chain.
        if let Err(error) = aws.api_access(region, name).await {
            return Some(Err(error.to_string()));
        }
        Some(
            aws.addon_versions(region, &addons, &version)
                .await
                .map_err(|error| error.to_string()),
        )
    };
    let groups: Vec<String> = design
        .node_groups
        .iter()
        .map(|group| group.name.trim().to_owned())
        .collect();
    let (reading, offer) = tokio::join!(read_running(aws, tools, region, name, &groups), offer);
    Ok((reading?, offer))
}
