//! What a deploy will create, in a few lines a person approves before anything is
//! created: the region and zones, the CloudFormation stacks, each node group's instance
//! type and counts, the NodePools, and what the node groups cost an hour at on-demand
//! rates where the price table knows it. The page shows it beside the plan; the one-click
//! deploy's approval step carries it.

use serde::Serialize;

use crate::catalog::prices;
use crate::documents::karpenter_aws::{access_stack, prerequisites_stack};
use crate::model::spec::{Capacity, Spec};

/// One node group as it will be created.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupPlan {
    /// Its name.
    pub name: String,
    /// Its instance type, or its types joined with commas.
    pub instance_type: String,
    /// Nodes at creation (eksctl's default of 2 when unset).
    pub desired: u32,
    /// Most nodes it may grow to.
    pub max: u32,
    /// How its instances are paid for, in words.
    pub capacity: &'static str,
    /// On-demand USD per hour of one node, when known.
    pub usd_per_hour: Option<f64>,
}

/// The whole plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanSummary {
    /// The region.
    pub region: String,
    /// Its zones, as the design names them.
    pub zones: Vec<String>,
    /// The CloudFormation stacks that will exist afterwards.
    pub stacks: Vec<String>,
    /// Every node group.
    pub node_groups: Vec<GroupPlan>,
    /// Karpenter NodePools, by name, with how many instance types each can launch.
    pub node_pools: Vec<(String, usize)>,
    /// USD per hour of the node groups at their desired sizes at on-demand rates, when
    /// every type has a price; with the region the prices are for.
    pub hourly: Option<(f64, &'static str)>,
    /// The volumes the deploy makes or mounts, in words (an FSx file system bills until
    /// its claim is deleted).
    pub volumes: Vec<String>,
    /// EKS Auto Mode's NodePools, in words.
    pub auto_mode_pools: Vec<String>,
    /// What grants access to the cluster or the account (access entries, roles of service
    /// accounts, a public endpoint, SSH), one sentence each
    /// ([`crate::deploy::keys::grants`]).
    pub grants: Vec<String>,
}

/// What deploying `spec` creates.
pub fn summary(spec: &Spec) -> PlanSummary {
    let cluster = spec.cluster.name.trim();
    let region = spec.cluster.region.trim();
    let mut stacks = Vec::new();
    if spec.karpenter.is_some() {
        stacks.push(prerequisites_stack(cluster));
    }
    stacks.push(format!("eksctl-{cluster}-cluster"));
    let mut price_region = None;
    let node_groups: Vec<GroupPlan> = spec
        .node_groups
        .iter()
        .map(|group| {
            stacks.push(format!("eksctl-{cluster}-nodegroup-{}", group.name));
            let types: Vec<&str> = if group.instance_types.is_empty() {
                vec![group.instance_type.trim()]
            } else {
                group
                    .instance_types
                    .iter()
                    .map(|name| name.trim())
                    .collect()
            };
            let price = types
                .first()
                .and_then(|name| prices::on_demand(region, name));
            if let Some(price) = price {
                price_region = Some(price.region);
            }
            let desired = group.desired_capacity.or(group.min_size).unwrap_or(2);
            GroupPlan {
                name: group.name.clone(),
                instance_type: types.join(", "),
                desired,
                max: group.max_size.unwrap_or(desired).max(desired),
                capacity: match group.capacity {
                    Capacity::OnDemand => "On-Demand",
                    Capacity::Reservation { .. } => "ODCR",
                    Capacity::CapacityBlock { .. } => "Capacity Block",
                    Capacity::Spot => "Spot",
                },
                usd_per_hour: price.map(|price| price.usd_per_hour),
            }
        })
        .collect();
    if spec.karpenter.is_some() {
        stacks.push(access_stack(cluster));
    }
    let hourly = node_groups
        .iter()
        .map(|group| {
            group
                .usd_per_hour
                .map(|price| price * f64::from(group.desired))
        })
        .sum::<Option<f64>>()
        .zip(price_region);
    PlanSummary {
        region: region.to_owned(),
        zones: spec.network.zones(),
        stacks,
        node_groups,
        node_pools: crate::model::resolve::resolve(spec)
            .into_iter()
            .map(|pool| (pool.name, pool.count))
            .collect(),
        hourly,
        volumes: volumes(spec),
        auto_mode_pools: auto_mode_pools(spec),
        grants: crate::documents::render::cluster_document(spec)
            .map(|cluster| crate::deploy::keys::grants(&cluster))
            .unwrap_or_default(),
    }
}

/// Auto Mode's NodePools, one line each (no full stop inside).
fn auto_mode_pools(spec: &Spec) -> Vec<String> {
    let pools = &spec.auto_mode_pools;
    pools
        .node_pools
        .iter()
        .map(|pool| {
            let class = &pool.spec.template.spec.node_class_ref.name;
            let reservations: Vec<&str> = crate::upstream::auto_mode::class_of(pools, pool)
                .map(|class| {
                    class
                        .spec
                        .capacity_reservation_selector_terms
                        .iter()
                        .filter_map(|term| term.id.as_deref())
                        .collect()
                })
                .unwrap_or_default();
            let into = if reservations.is_empty() {
                String::new()
            } else {
                format!(", into reservation {}", reservations.join(", "))
            };
            format!(
                "Auto Mode NodePool {}: EKS launches nodes as pods need them, on NodeClass {class}{into}",
                pool.metadata.name
            )
        })
        .collect()
}

/// The design's volumes, one line each, without a full stop inside (the approval title
/// joins lines with ". ").
fn volumes(spec: &Spec) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(fsx) = &spec.storage.fsx {
        let throughput = fsx
            .per_unit_storage_throughput
            .map(|throughput| format!(" at {throughput} MB/s per TiB"))
            .unwrap_or_default();
        lines.push(format!(
            "FSx for Lustre file system: {}, {} GiB{throughput}, in subnet {}, made by the FSx CSI driver for claim {} and billed until that claim is deleted",
            fsx.deployment_type,
            fsx.storage_gib,
            fsx.subnet_id,
            crate::documents::storage::FSX_CLAIM
        ));
    }
    if let Some(s3) = &spec.storage.s3 {
        let prefix = if s3.prefix.is_empty() {
            String::new()
        } else {
            format!(" under {}", s3.prefix)
        };
        lines.push(format!(
            "S3 bucket {}{prefix}: mounted by Mountpoint through claim {} (the bucket must exist)",
            s3.bucket,
            crate::documents::storage::S3_CLAIM
        ));
    }
    lines
}

/// The name of the one-click deploy's step that waits for approval of the plan.
pub const APPROVAL_STEP: &str = "approve";
/// What the approval step is, in the step list.
pub const APPROVAL_TITLE: &str = "Wait for approval of the plan";

/// The approval step's title: [`APPROVAL_TITLE`] and the plan's lines, as one text.
pub fn approval_title(plan: &PlanSummary) -> String {
    format!("{APPROVAL_TITLE}. {}", lines(plan).join(". "))
}

/// The plan's lines back out of an approval step's title.
pub fn lines_of_approval_title(title: &str) -> Vec<&str> {
    title
        .strip_prefix(APPROVAL_TITLE)
        .unwrap_or(title)
        .trim_start_matches(". ")
        .split(". ")
        .map(|line| line.trim_end_matches('.'))
        .filter(|line| !line.trim().is_empty())
        .collect()
}

/// The plan in lines of text.
pub fn lines(plan: &PlanSummary) -> Vec<String> {
    let mut lines = vec![if plan.zones.is_empty() {
        format!("Region {}", plan.region)
    } else {
        format!("Region {}, zones {}", plan.region, plan.zones.join(", "))
    }];
    lines.push(format!("Stacks: {}", plan.stacks.join(", ")));
    for group in &plan.node_groups {
        let price = group
            .usd_per_hour
            .map(|price| format!(", ${price:.2}/h each on-demand"))
            .unwrap_or_default();
        lines.push(format!(
            "Node group {}: {} × {} (up to {}), {}{price}",
            group.name, group.desired, group.instance_type, group.max, group.capacity
        ));
    }
    for (name, count) in &plan.node_pools {
        let noun = if *count == 1 { "type" } else { "types" };
        lines.push(format!(
            "NodePool {name}: Karpenter launches nodes as pods need them, from {count} instance {noun}"
        ));
    }
    lines.extend(plan.auto_mode_pools.iter().cloned());
    lines.extend(plan.volumes.iter().cloned());
    lines.extend(plan.grants.iter().cloned());
    if let Some((total, region)) = plan.hourly {
        lines.push(format!(
            "Node groups at their desired sizes: about ${total:.2} an hour at on-demand rates ({region} prices; reservations and Spot are billed otherwise)"
        ));
    }
    lines
}
