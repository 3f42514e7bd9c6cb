//! The live checks for one spec: plan which checks apply, ask EC2 for everything at once
//! (through the cache), hand the answers to the shared rules as [`LiveFacts`], and read each
//! check's outcome off the findings of its rules. A judgement about the spec lives in
//! `shared`; this file only says which answers and which findings belong to which check.

use shared::fields;
use std::collections::BTreeSet;
use std::sync::Arc;

use futures_util::future::{try_join, try_join_all};
use serde::Serialize;
use serde_json::{Value, json};
use shared::Spec;
use shared::model::ids::{self, Region};
use shared::model::spec::{self, Capacity, ClusterSettings, Network, NodeGroup};
use shared::rules::{
    ClusterVersionFact, Finding, LiveFacts, OfferingFact, Severity, SpotPriceFact, SpotScoreFact,
    cheapest_spot, validate_with,
};

use super::calls::{InstanceTypeFacts, Reservation, SpotPrice, SpotScore, Subnet, Vpc, Zone};
use super::{AwsError, LiveAws};

pub use shared::model::live_checks::CheckStatus;
use shared::model::live_checks::LiveCheck;
use shared::upstream::karpenter::Ec2NodeClass;

/// The outcome of one live check.
pub type CheckResult = shared::model::live_checks::LiveCheck;

/// Everything `POST /api/checks` answers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveReport {
    /// One result per check that applies to the spec.
    pub checks: Vec<CheckResult>,
    /// EC2's answers, as the shared rules read them.
    pub facts: LiveFacts,
    /// Every finding of every rule, offline and live, given those facts.
    pub findings: Vec<Finding>,
}

pub use shared::model::live_checks::{
    CAPACITY_RESERVATION, INSTANCE_TYPE_FACTS, INSTANCE_TYPE_OFFERED, KUBERNETES_VERSION,
    PLACEMENT_GROUP, SPOT_PLACEMENT_SCORE, SPOT_PRICE, SUBNET, VPC_EXISTS,
};

/// What one check asks EC2.
#[derive(Clone, Debug)]
enum Question {
    /// The versions EKS lists; `version` is the spec's, which the answer is judged for.
    ClusterVersions {
        version: String,
    },
    Offered {
        instance_types: Vec<String>,
    },
    /// Where the types a NodePool allows are offered, in one call per hundred types.
    PoolOffered {
        instance_types: Vec<String>,
    },
    Facts {
        instance_type: String,
    },
    Reservation {
        id: String,
    },
    Vpc {
        id: String,
    },
    /// A placement group by name or `pg-` id.
    PlacementGroup {
        name: String,
    },
    Subnet {
        id: String,
    },
    SpotScore {
        instance_types: Vec<String>,
        target_capacity: u32,
    },
    SpotPrice {
        instance_types: Vec<String>,
    },
}

impl Question {
    /// The EC2 calls answering this question may make, each named by its action and
    /// arguments: identical calls are made once (the cache shares them).
    fn calls(&self) -> Vec<String> {
        match self {
            Question::ClusterVersions { .. } => vec!["cluster-versions".to_owned()],
            Question::Offered { instance_types } => std::iter::once("zones".to_owned())
                .chain(
                    instance_types
                        .iter()
                        .map(|name| format!("offerings {name}")),
                )
                .collect(),
            Question::PoolOffered { instance_types } => std::iter::once("zones".to_owned())
                .chain(
                    instance_types
                        .chunks(100)
                        .map(|chunk| format!("offerings of {}", chunk.join(","))),
                )
                .collect(),
            Question::Facts { instance_type } => vec![format!("types {instance_type}")],
            Question::Reservation { id } => vec![format!("reservation {id}")],
            Question::Vpc { id } => vec![format!("vpc {id}")],
            Question::PlacementGroup { name } => vec![format!("placement-group {name}")],
            Question::Subnet { id } => vec![format!("subnet {id}")],
            Question::SpotScore {
                instance_types,
                target_capacity,
            } => vec![
                "zones".to_owned(),
                format!("spot-score {} {target_capacity}", instance_types.join(",")),
            ],
            Question::SpotPrice { instance_types } => {
                vec![format!("spot-price {}", instance_types.join(","))]
            }
        }
    }
}

/// Most distinct EC2 calls one request's checks may make. A real design needs a few
/// dozen; past this the remaining checks answer `could-not-run`, so one huge spec cannot
/// make the server spend its AWS quota (and its credentials' standing) by the thousand.
pub const MAX_EC2_CALLS_PER_REQUEST: usize = 100;

/// Blocks, in plan order, the checks whose calls would take the request past
/// [`MAX_EC2_CALLS_PER_REQUEST`].
fn within_call_budget(planned: &mut [Planned]) {
    let mut calls = std::collections::HashSet::new();
    for check in planned.iter_mut().filter(|check| check.blocked.is_none()) {
        let new: Vec<String> = check
            .question
            .calls()
            .into_iter()
            .filter(|call| !calls.contains(call))
            .collect();
        if calls.len() + new.len() > MAX_EC2_CALLS_PER_REQUEST {
            check.blocked = Some(format!(
                "not run: this design's checks need more than {MAX_EC2_CALLS_PER_REQUEST} EC2 calls, the most one request may make; check a smaller part of it"
            ));
            check.over_budget = true;
        } else {
            calls.extend(new);
        }
    }
}

/// A check that applies to the spec; `blocked` says why it cannot ask (a placeholder id).
#[derive(Clone, Debug)]
struct Planned {
    id: &'static str,
    path: String,
    question: Question,
    blocked: Option<String>,
    /// Blocked because the request's EC2 call budget was spent, not for a spec value.
    over_budget: bool,
}

/// EC2's answer to one question.
#[derive(Clone, Debug)]
enum Answer {
    ClusterVersions(Arc<Vec<ClusterVersionFact>>),
    Offered {
        zones: Arc<Vec<Zone>>,
        offered: Vec<(String, Arc<Vec<String>>)>,
    },
    PoolOffered {
        zones: Arc<Vec<Zone>>,
        offered: Arc<Vec<super::calls::TypeZones>>,
    },
    Facts(Option<InstanceTypeFacts>),
    Reservation(Option<Reservation>),
    Vpc(Option<Vpc>),
    PlacementGroup(Option<shared::rules::PlacementGroupFact>),
    Subnet(Option<Subnet>),
    SpotScore {
        zones: Arc<Vec<Zone>>,
        scores: Arc<Vec<SpotScore>>,
    },
    SpotPrice(Arc<Vec<SpotPrice>>),
}

fn group_types(group: &shared::model::spec::NodeGroup) -> Vec<String> {
    let mut types: Vec<String> = if group.instance_types.is_empty() {
        vec![group.instance_type.clone()]
    } else {
        group.instance_types.clone()
    };
    types.retain(|instance_type| !instance_type.trim().is_empty());
    types
}

/// Why an id cannot be asked about yet, if it cannot.
fn unusable(
    what: &str,
    value: &str,
    parse: impl Fn(&str) -> Result<(), ids::IdError>,
) -> Option<String> {
    parse(value)
        .err()
        .map(|error| format!("the {what} `{value}` {error}: fix it before checking it against EC2"))
}

/// The checks that apply to a spec, in display order.
fn plan(spec: &Spec) -> Vec<Planned> {
    let mut planned = Vec::new();
    let version = spec.cluster.kubernetes_version.trim();
    // Unset or a placeholder: eksctl picks its default version, nothing to ask.
    if !version.is_empty() && !ids::is_placeholder(version) {
        planned.push(Planned {
            id: KUBERNETES_VERSION,
            path: ClusterSettings::KUBERNETES_VERSION.path(),
            question: Question::ClusterVersions {
                version: version.to_owned(),
            },
            blocked: shared::catalog::versions::minor_of(version).is_none().then(|| {
                format!(
                    "the Kubernetes version `{version}` is not `1.NN`: fix it before checking it against EKS"
                )
            }),
            over_budget: false,
        });
    }
    if let Network::ExistingVpc {
        vpc_id,
        public_subnets,
        private_subnets,
    } = &spec.network
    {
        planned.push(Planned {
            id: VPC_EXISTS,
            path: Network::VPC_ID.path(),
            question: Question::Vpc { id: vpc_id.clone() },
            blocked: unusable("VPC id", vpc_id, ids::VpcId::check),
            over_budget: false,
        });
        let subnets = public_subnets
            .iter()
            .enumerate()
            .map(|(index, subnet)| {
                (
                    spec::Subnet::ID.at_in(fields::PUBLIC_SUBNET, &[index]),
                    subnet,
                )
            })
            .chain(private_subnets.iter().enumerate().map(|(index, subnet)| {
                (
                    spec::Subnet::ID.at_in(fields::PRIVATE_SUBNET, &[index]),
                    subnet,
                )
            }));
        for (path, subnet) in subnets {
            planned.push(Planned {
                id: SUBNET,
                path,
                question: Question::Subnet {
                    id: subnet.id.clone(),
                },
                blocked: unusable("subnet id", &subnet.id, ids::SubnetId::check),
                over_budget: false,
            });
        }
        // A node group's subnet that the cluster does not list: eksctl looks it up and
        // uses it only when it is in the VPC, so EC2 is asked where it is (once per id).
        let mut asked = BTreeSet::new();
        for (path, id) in spec.unlisted_group_subnet_ids() {
            if asked.insert(id) {
                planned.push(Planned {
                    id: SUBNET,
                    path,
                    question: Question::Subnet { id: id.to_owned() },
                    blocked: None,
                    over_budget: false,
                });
            }
        }
    }
    let mut facts_asked = BTreeSet::new();
    for (index, group) in spec.node_groups.iter().enumerate() {
        let instance_types = group_types(group);
        if instance_types.is_empty() {
            continue;
        }
        let type_path = if group.instance_types.is_empty() {
            NodeGroup::INSTANCE_TYPE.at(&[index])
        } else {
            NodeGroup::INSTANCE_TYPES.at(&[index])
        };
        planned.push(Planned {
            id: INSTANCE_TYPE_OFFERED,
            path: type_path.clone(),
            question: Question::Offered {
                instance_types: instance_types.clone(),
            },
            blocked: None,
            over_budget: false,
        });
        for instance_type in &instance_types {
            if facts_asked.insert(instance_type.clone()) {
                planned.push(Planned {
                    id: INSTANCE_TYPE_FACTS,
                    path: type_path.clone(),
                    question: Question::Facts {
                        instance_type: instance_type.clone(),
                    },
                    blocked: None,
                    over_budget: false,
                });
            }
        }
    }
    let pools = spec
        .karpenter
        .iter()
        .flat_map(|karpenter| karpenter.node_pools.iter().enumerate());
    for (index, pool) in pools {
        let instance_types: Vec<String> = shared::upstream::matching::matching_instance_types(pool)
            .iter()
            .map(|instance| instance.name.to_owned())
            .collect();
        if instance_types.is_empty() {
            continue;
        }
        planned.push(Planned {
            id: INSTANCE_TYPE_OFFERED,
            path: fields::item(fields::KARPENTER_POOL, &[index]),
            question: Question::PoolOffered {
                instance_types: instance_types.clone(),
            },
            blocked: None,
            over_budget: false,
        });
        if shared::upstream::matching::capacity_types(pool).contains("spot") {
            planned.push(Planned {
                id: SPOT_PLACEMENT_SCORE,
                path: fields::item(fields::KARPENTER_POOL, &[index]),
                question: Question::SpotScore {
                    instance_types: instance_types.clone(),
                    target_capacity: 1,
                },
                blocked: None,
                over_budget: false,
            });
            planned.push(Planned {
                id: SPOT_PRICE,
                path: fields::item(fields::KARPENTER_POOL, &[index]),
                question: Question::SpotPrice { instance_types },
                blocked: None,
                over_budget: false,
            });
        }
    }
    for (index, group) in spec.node_groups.iter().enumerate() {
        if let Capacity::Reservation { reservation_id }
        | Capacity::CapacityBlock { reservation_id } = &group.capacity
        {
            planned.push(Planned {
                id: CAPACITY_RESERVATION,
                path: NodeGroup::RESERVATION_ID.at(&[index]),
                question: Question::Reservation {
                    id: reservation_id.clone(),
                },
                blocked: unusable(
                    "capacity reservation id",
                    reservation_id,
                    ids::ReservationId::check,
                ),
                over_budget: false,
            });
        }
    }
    // A placeholder is the placeholder rule's finding; nothing to ask EC2.
    for named in shared::rules::named_placement_groups(spec)
        .into_iter()
        .filter(|named| !ids::is_placeholder(&named.name))
    {
        let malformed_id = named.name.starts_with("pg-")
            && !shared::upstream::karpenter::is_placement_group_id(&named.name);
        planned.push(Planned {
            id: PLACEMENT_GROUP,
            blocked: malformed_id.then(|| {
                format!(
                    "`{}` is not a placement group id: fix it before looking it up",
                    named.name
                )
            }),
            path: named.path,
            question: Question::PlacementGroup { name: named.name },
            over_budget: false,
        });
    }
    let classes = spec
        .karpenter
        .iter()
        .flat_map(|karpenter| karpenter.node_classes.iter().enumerate());
    for (class_index, class) in classes {
        let terms = class
            .spec
            .capacity_reservation_selector_terms
            .iter()
            .enumerate();
        for (term, id) in terms.filter_map(|(term, selector)| Some((term, selector.id.as_ref()?))) {
            planned.push(Planned {
                id: CAPACITY_RESERVATION,
                path: format!(
                    "{}[{term}].id",
                    Ec2NodeClass::RESERVATIONS.at(&[class_index])
                ),
                question: Question::Reservation { id: id.clone() },
                blocked: unusable("capacity reservation id", id, ids::ReservationId::check),
                over_budget: false,
            });
        }
    }
    for (index, group) in spec.node_groups.iter().enumerate() {
        let instance_types = group_types(group);
        if group.capacity != Capacity::Spot || instance_types.is_empty() {
            continue;
        }
        let target_capacity = group
            .desired_capacity
            .or(group.min_size)
            .unwrap_or(1)
            .max(1);
        planned.push(Planned {
            id: SPOT_PLACEMENT_SCORE,
            path: NodeGroup::CAPACITY.at(&[index]),
            question: Question::SpotScore {
                instance_types: instance_types.clone(),
                target_capacity,
            },
            blocked: None,
            over_budget: false,
        });
        planned.push(Planned {
            id: SPOT_PRICE,
            path: NodeGroup::CAPACITY.at(&[index]),
            question: Question::SpotPrice { instance_types },
            blocked: None,
            over_budget: false,
        });
    }
    planned
}

async fn ask(aws: &LiveAws, region: &Region, question: &Question) -> Result<Answer, AwsError> {
    match question {
        Question::ClusterVersions { .. } => aws
            .cluster_versions(region)
            .await
            .map(Answer::ClusterVersions),
        Question::Offered { instance_types } => {
            let offered = try_join_all(instance_types.iter().map(|instance_type| async move {
                let zones = aws.offered_zones(region, instance_type).await?;
                Ok::<_, AwsError>((instance_type.clone(), zones))
            }));
            let (zones, offered) = try_join(aws.zones(region), offered).await?;
            Ok(Answer::Offered { zones, offered })
        }
        Question::PoolOffered { instance_types } => {
            let (zones, offered) = try_join(
                aws.zones(region),
                aws.offered_zones_of(region, instance_types),
            )
            .await?;
            Ok(Answer::PoolOffered { zones, offered })
        }
        Question::Facts { instance_type } => aws
            .instance_type_facts(region, instance_type)
            .await
            .map(Answer::Facts),
        Question::Reservation { id } => aws.reservation(region, id).await.map(Answer::Reservation),
        Question::Vpc { id } => aws.vpc(region, id).await.map(Answer::Vpc),
        Question::PlacementGroup { name } => aws
            .placement_group(region, name)
            .await
            .map(Answer::PlacementGroup),
        Question::Subnet { id } => aws.subnet(region, id).await.map(Answer::Subnet),
        Question::SpotScore {
            instance_types,
            target_capacity,
        } => {
            let (zones, scores) = try_join(
                aws.zones(region),
                aws.spot_scores(region, instance_types, *target_capacity),
            )
            .await?;
            Ok(Answer::SpotScore { zones, scores })
        }
        Question::SpotPrice { instance_types } => aws
            .spot_prices(region, instance_types)
            .await
            .map(Answer::SpotPrice),
    }
}

/// The first eight items joined, and how many more there are (a NodePool may allow dozens
/// of types).
fn listed(items: &[String], separator: &str) -> String {
    const SHOWN: usize = 8;
    let shown = items[..items.len().min(SHOWN)].join(separator);
    match items.len().checked_sub(SHOWN) {
        Some(more) if more > 0 => format!("{shown} and {more} more"),
        _ => shown,
    }
}

fn zone_name(zones: &[Zone], zone_id: &str) -> Option<String> {
    zones
        .iter()
        .find(|zone| zone.id == zone_id)
        .map(|zone| zone.name.clone())
}

/// Several checks can share an answer; each fact is listed once.
fn push_new<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// Where one type is offered, by zone name and id (the spec may name a zone either way),
/// once per type.
fn add_offering(facts: &mut LiveFacts, zones: &[Zone], instance_type: &str, names: &[String]) {
    if facts
        .offerings
        .iter()
        .any(|fact| fact.instance_type == instance_type)
    {
        return;
    }
    let mut availability_zones: Vec<String> = Vec::new();
    for name in names {
        availability_zones.push(name.clone());
        if let Some(zone) = zones.iter().find(|zone| &zone.name == name) {
            availability_zones.push(zone.id.clone());
        }
    }
    facts.offerings.push(OfferingFact {
        instance_type: instance_type.to_owned(),
        availability_zones,
    });
}

/// The answers as the shared rules read them.
fn facts_from(answered: &[(&Planned, &Answer)]) -> LiveFacts {
    let mut facts = crate::clock::todays_facts();
    for (planned, answer) in answered {
        match (answer, &planned.question) {
            (Answer::ClusterVersions(versions), _) => {
                facts.cluster_versions = Some(versions.as_ref().clone());
            }
            (Answer::PoolOffered { zones, offered }, _) => {
                for (instance_type, names) in offered.iter() {
                    add_offering(&mut facts, zones, instance_type, names);
                }
            }
            (Answer::Offered { zones, offered }, _) => {
                for (instance_type, names) in offered {
                    add_offering(&mut facts, zones, instance_type, names);
                }
            }
            (Answer::Reservation(Some(reservation)), _) => {
                push_new(&mut facts.reservations, reservation.fact.clone());
            }
            (Answer::Reservation(None), Question::Reservation { id }) => {
                push_new(&mut facts.missing_reservations, id.clone());
            }
            (Answer::Vpc(None), Question::Vpc { id }) => {
                push_new(&mut facts.missing_vpcs, id.clone());
            }
            (Answer::PlacementGroup(Some(group)), _) => {
                push_new(&mut facts.placement_groups, group.clone());
            }
            (Answer::PlacementGroup(None), Question::PlacementGroup { name }) => {
                push_new(&mut facts.missing_placement_groups, name.clone());
            }
            (Answer::Facts(Some(live)), _) => {
                push_new(&mut facts.instance_types, live.fact());
            }
            (Answer::Facts(None), Question::Facts { instance_type }) => {
                push_new(&mut facts.unknown_instance_types, instance_type.clone());
            }
            (Answer::Subnet(Some(subnet)), _) => {
                push_new(&mut facts.subnets, subnet.fact.clone());
            }
            (Answer::Subnet(None), Question::Subnet { id }) => {
                push_new(&mut facts.missing_subnets, id.clone());
            }
            (Answer::SpotScore { zones, scores }, Question::SpotScore { instance_types, .. }) => {
                for score in scores.iter() {
                    let zone = score
                        .availability_zone_id
                        .as_deref()
                        .map(|id| zone_name(zones, id).unwrap_or_else(|| id.to_owned()));
                    // EC2 scores the set of types together; each type gets the set's score.
                    for instance_type in instance_types {
                        let fact = SpotScoreFact {
                            instance_type: instance_type.clone(),
                            availability_zone: zone.clone(),
                            score: score.score,
                        };
                        push_new(&mut facts.spot_scores, fact);
                    }
                }
            }
            (Answer::SpotPrice(prices), _) => {
                for price in prices.iter() {
                    push_new(&mut facts.spot_prices, price.fact());
                }
            }
            _ => {}
        }
    }
    facts
}

/// The findings of the rules that judge check `check` at or under `path_prefix`.
fn findings_for<'a>(findings: &'a [Finding], check: &str, path_prefix: &str) -> Vec<&'a Finding> {
    let rules =
        shared::model::live_checks::live_check(check).map_or(&[][..], |kind| kind.judged_by);
    findings
        .iter()
        .filter(|finding| rules.contains(&&*finding.rule))
        .filter(|finding| {
            finding.path == path_prefix || finding.path.starts_with(&format!("{path_prefix}."))
        })
        .collect()
}

/// A result from the rules' findings: failed when an error or warning fired, else `ok_message`.
fn judged(planned: &Planned, fired: &[&Finding], ok_message: String, detail: Value) -> CheckResult {
    judged_failing_at(planned, fired, ok_message, detail, Severity::Warning)
}

/// A result from the rules' findings: failed when one of at least `failing` severity
/// fired, else `ok_message` with the others as notes.
fn judged_failing_at(
    planned: &Planned,
    fired: &[&Finding],
    ok_message: String,
    mut detail: Value,
    failing: Severity,
) -> CheckResult {
    let fails = |finding: &Finding| match failing {
        Severity::Error => finding.severity == Severity::Error,
        _ => finding.severity != Severity::Info,
    };
    let (failing, notes): (Vec<&Finding>, Vec<&Finding>) =
        fired.iter().copied().partition(|finding| fails(finding));
    let notes: Vec<&str> = notes
        .iter()
        .map(|finding| finding.message.as_str())
        .collect();
    if let Value::Object(map) = &mut detail {
        map.insert(
            "findings".into(),
            json!(
                fired
                    .iter()
                    .map(|finding| &finding.rule)
                    .collect::<Vec<_>>()
            ),
        );
    }
    let (status, mut message) = if failing.is_empty() {
        (CheckStatus::Ok, ok_message)
    } else {
        (
            CheckStatus::Failed,
            failing
                .iter()
                .map(|finding| finding.message.as_str())
                .collect::<Vec<_>>()
                .join("; "),
        )
    };
    if !notes.is_empty() {
        message = format!("{message} ({})", notes.join("; "));
    }
    LiveCheck {
        id: planned.id.to_owned(),
        status,
        path: planned.path.clone(),
        message,
        detail,
    }
}

fn result(planned: &Planned, status: CheckStatus, message: String, detail: Value) -> CheckResult {
    LiveCheck {
        id: planned.id.to_owned(),
        status,
        path: planned.path.clone(),
        message,
        detail,
    }
}

fn zone_list(names: &[String]) -> String {
    if names.is_empty() {
        "no zone".to_owned()
    } else {
        names.join(", ")
    }
}

/// The group index in a `node_groups[N]…` path.
fn group_prefix(path: &str) -> &str {
    path.find(']').map_or(path, |end| &path[..=end])
}

fn judge(region: &Region, planned: &Planned, answer: &Answer, findings: &[Finding]) -> CheckResult {
    match answer {
        Answer::ClusterVersions(versions) => {
            let fired = findings_for(findings, KUBERNETES_VERSION, &planned.path);
            let Question::ClusterVersions { version } = &planned.question else {
                unreachable!("a versions answer comes from a versions question")
            };
            let version =
                shared::catalog::versions::minor_of(version).map(|minor| format!("1.{minor}"));
            let listed = versions
                .iter()
                .find(|fact| Some(&fact.version) == version.as_ref());
            let ok_message = match listed {
                Some(fact) => format!(
                    "EKS offers Kubernetes {} in {} ({}{})",
                    fact.version,
                    region.as_str(),
                    match fact.status.as_str() {
                        "STANDARD_SUPPORT" => "standard support",
                        "EXTENDED_SUPPORT" => "extended support",
                        other => other,
                    },
                    fact.end_of_standard_support
                        .map(|day| format!(" until {day}"))
                        .unwrap_or_default()
                ),
                None => format!("EKS answered for {}", region.as_str()),
            };
            let detail = json!({ "region": region.as_str(), "versions": versions.as_ref() });
            // Extended support is a cost to know about, not a version EKS refuses.
            judged_failing_at(planned, &fired, ok_message, detail, Severity::Error)
        }
        Answer::Offered { zones, offered } => {
            let offered_detail: Vec<Value> = offered
                .iter()
                .map(|(instance_type, names)| {
                    json!({
                        "instance_type": instance_type,
                        "zones": names.iter().map(|name| json!({
                            "name": name,
                            "id": zones.iter().find(|zone| &zone.name == name).map(|zone| &zone.id),
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            let detail = json!({ "region": region.as_str(), "offerings": offered_detail });
            let fired = findings_for(findings, INSTANCE_TYPE_OFFERED, &planned.path);
            let ok_message = offered
                .iter()
                .map(|(instance_type, names)| {
                    format!("{instance_type} is offered in {}", zone_list(names))
                })
                .collect::<Vec<_>>()
                .join("; ");
            judged(planned, &fired, ok_message, detail)
        }
        Answer::PoolOffered { offered, .. } => {
            let detail = json!({
                "region": region.as_str(),
                "offerings": offered.iter().map(|(instance_type, names)| json!({
                    "instance_type": instance_type,
                    "zones": names,
                })).collect::<Vec<_>>(),
            });
            let fired = findings_for(findings, INSTANCE_TYPE_OFFERED, &planned.path);
            let somewhere: Vec<String> = offered
                .iter()
                .filter(|(_, names)| !names.is_empty())
                .map(|(instance_type, _)| instance_type.clone())
                .collect();
            let ok_message = format!(
                "{} of the {} instance types the pool allows are offered in {}: {}",
                somewhere.len(),
                offered.len(),
                region.as_str(),
                listed(&somewhere, ", ")
            );
            judged(planned, &fired, ok_message, detail)
        }
        Answer::Facts(None) => {
            let Question::Facts { instance_type } = &planned.question else {
                unreachable!("a facts answer comes from a facts question")
            };
            let fired = findings_for(findings, INSTANCE_TYPE_FACTS, &planned.path);
            judged(
                planned,
                &fired,
                format!("EC2 knows {instance_type}"),
                json!({ "instance_type": instance_type }),
            )
        }
        Answer::Facts(Some(live)) => judge_facts(planned, live, findings),
        Answer::Reservation(reservation) => {
            // A node group's reservation findings land on any of its fields; an
            // EC2NodeClass term's on that term.
            let prefix = if !planned
                .path
                .starts_with(fields::NODE_GROUP_ITEM.trim_end_matches("[]"))
            {
                planned.path.as_str()
            } else {
                group_prefix(&planned.path)
            };
            let fired = findings_for(findings, CAPACITY_RESERVATION, prefix);
            let ok_message = match reservation {
                Some(found) => {
                    let fact = &found.fact;
                    let kind = if fact.reservation_type == "capacity-block" {
                        "Capacity Block"
                    } else {
                        "capacity reservation"
                    };
                    format!(
                        "{} is an {} {kind} for {} in {}, {} of {} instances free",
                        fact.id,
                        fact.state,
                        fact.instance_type,
                        fact.availability_zone,
                        fact.available_instances,
                        fact.total_instances
                    )
                }
                None => "the reservation was not found".to_owned(),
            };
            judged(
                planned,
                &fired,
                ok_message,
                json!({ "reservation": reservation }),
            )
        }
        Answer::PlacementGroup(group) => {
            let fired = findings_for(findings, PLACEMENT_GROUP, &planned.path);
            let ok_message = match group {
                Some(found) => format!(
                    "placement group {} ({}) exists: {} strategy, {}",
                    found.name, found.id, found.strategy, found.state
                ),
                None => "the placement group was not found".to_owned(),
            };
            judged(
                planned,
                &fired,
                ok_message,
                json!({ "placement_group": group }),
            )
        }
        Answer::Vpc(None) => judged(
            planned,
            &findings_for(findings, VPC_EXISTS, &planned.path),
            "the VPC exists".to_owned(),
            json!({ "vpc": null }),
        ),
        Answer::Vpc(Some(vpc)) => result(
            planned,
            CheckStatus::Ok,
            format!(
                "VPC {} exists ({}, {})",
                vpc.id,
                vpc.cidr_block.as_deref().unwrap_or("no IPv4 block"),
                vpc.state.as_deref().unwrap_or("state unknown")
            ),
            json!({ "vpc": vpc }),
        ),
        Answer::Subnet(subnet) => {
            let prefix = planned.path.trim_end_matches(".id");
            let fired = findings_for(findings, SUBNET, prefix);
            let ok_message = match subnet {
                Some(found) => format!(
                    "{} is in {} and {}{}, {} free addresses",
                    found.fact.id,
                    found.fact.vpc_id,
                    found.fact.availability_zone,
                    found
                        .availability_zone_id
                        .as_deref()
                        .map(|id| format!(" ({id})"))
                        .unwrap_or_default(),
                    found.fact.available_addresses
                ),
                None => "the subnet was not found".to_owned(),
            };
            judged(planned, &fired, ok_message, json!({ "subnet": subnet }))
        }
        Answer::SpotScore { zones, scores } => {
            let Question::SpotScore {
                instance_types,
                target_capacity,
            } = &planned.question
            else {
                unreachable!("a score answer comes from a score question")
            };
            let scored: Vec<Value> = scores
                .iter()
                .map(|score| {
                    json!({
                        "availability_zone_id": score.availability_zone_id,
                        "availability_zone": score.availability_zone_id.as_deref().and_then(|id| zone_name(zones, id)),
                        "score": score.score,
                    })
                })
                .collect();
            let detail = json!({
                "instance_types": instance_types,
                "target_capacity": target_capacity,
                "scores": scored,
            });
            let Some(best) = scores.iter().max_by_key(|score| score.score) else {
                return result(
                    planned,
                    CheckStatus::CouldNotRun,
                    format!(
                        "EC2 gave no Spot placement score for {}",
                        instance_types.join(", ")
                    ),
                    detail,
                );
            };
            let where_best = best
                .availability_zone_id
                .as_deref()
                .map(|id| zone_name(zones, id).unwrap_or_else(|| id.to_owned()))
                .unwrap_or_else(|| region.as_str().to_owned());
            let ok_message = format!(
                "best Spot placement score for {target_capacity} × {} is {} of 10 ({where_best})",
                listed(instance_types, " / "),
                best.score
            );
            let fired = findings_for(findings, SPOT_PLACEMENT_SCORE, &planned.path);
            judged(planned, &fired, ok_message, detail)
        }
        Answer::SpotPrice(prices) => {
            let Question::SpotPrice { instance_types } = &planned.question else {
                unreachable!("a price answer comes from a price question")
            };
            // Each type at its cheapest zone, the cheapest types first; a NodePool may
            // allow dozens, so the list is cut after eight.
            let facts: Vec<SpotPriceFact> = prices.iter().map(SpotPrice::fact).collect();
            let mut cheapest: Vec<(f64, &SpotPriceFact)> = instance_types
                .iter()
                .filter_map(|instance_type| cheapest_spot(&facts, instance_type))
                .filter_map(|fact| Some((fact.per_hour()?, fact)))
                .collect();
            cheapest.sort_by(|a, b| a.0.total_cmp(&b.0));
            let unpriced = instance_types.len() - cheapest.len();
            let cheapest: Vec<String> = cheapest
                .iter()
                .map(|(_, fact)| format!("{} {}", fact.instance_type, fact.said()))
                .collect();
            let message = if cheapest.is_empty() {
                format!(
                    "no Spot prices for {} in the last day",
                    instance_types.join(", ")
                )
            } else {
                let unpriced = match unpriced {
                    0 => String::new(),
                    1 => "; 1 type had no price in the last day".to_owned(),
                    more => format!("; {more} types had no price in the last day"),
                };
                format!(
                    "latest Linux Spot prices, cheapest first: {}{unpriced}",
                    listed(&cheapest, "; ")
                )
            };
            result(
                planned,
                CheckStatus::Ok,
                message,
                json!({ "prices": prices.as_slice() }),
            )
        }
    }
}

/// EC2's facts beside the catalog's; the rule `instance-type-catalog-disagrees` says
/// where they differ (EC2's answer wins).
fn judge_facts(planned: &Planned, live: &InstanceTypeFacts, findings: &[Finding]) -> CheckResult {
    let efa = if live.efa_supported {
        format!("supported ({} interfaces)", live.efa_interfaces)
    } else {
        "not supported".to_owned()
    };
    let catalog = shared::catalog::instances::lookup(&live.instance_type);
    let differences: Vec<Value> = live
        .fact()
        .differences()
        .into_iter()
        .map(|(field, live, catalog)| json!({ "field": field, "live": live, "catalog": catalog }))
        .collect();
    let ok_message = match catalog {
        Some(_) => format!(
            "EC2 agrees with the catalog on {}: {} GPU(s), EFA {efa}",
            live.instance_type, live.gpu_count
        ),
        None => format!(
            "{} is not in the studio's catalog; EC2 says {} GPU(s), EFA {efa}",
            live.instance_type, live.gpu_count
        ),
    };
    let fired = findings_for(findings, INSTANCE_TYPE_FACTS, &planned.path);
    let detail = json!({ "live": live, "catalog": catalog, "differences": differences });
    judged(planned, &fired, ok_message, detail)
}

/// Runs every live check that applies to `spec`, asking EC2 in the spec's region.
pub async fn run(aws: &LiveAws, spec: &Spec) -> LiveReport {
    let mut planned = plan(spec);
    within_call_budget(&mut planned);
    // `None`: not asked, because the check is blocked on a value the spec must fix first.
    let answers: Vec<Option<Result<Answer, AwsError>>> = match Region::parse(&spec.cluster.region) {
        Err(_) => planned
            .iter()
            .map(|planned| {
                planned
                    .blocked
                    .is_none()
                    .then(|| Err(AwsError::UnknownRegion(spec.cluster.region.clone())))
            })
            .collect(),
        Ok(region) => {
            let region = &region;
            futures_util::future::join_all(planned.iter().map(|planned| async move {
                match planned.blocked {
                    Some(_) => None,
                    None => Some(ask(aws, region, &planned.question).await),
                }
            }))
            .await
        }
    };
    let answered: Vec<(&Planned, &Answer)> = planned
        .iter()
        .zip(&answers)
        .filter_map(|(planned, answer)| match answer {
            Some(Ok(answer)) => Some((planned, answer)),
            _ => None,
        })
        .collect();
    let facts = facts_from(&answered);
    let findings = validate_with(spec, &facts);
    let region = Region::parse(&spec.cluster.region).ok();
    let checks = planned
        .iter()
        .zip(&answers)
        .map(|(planned, answer)| match (answer, &region) {
            (Some(Ok(answer)), Some(region)) => judge(region, planned, answer, &findings),
            (Some(Err(error)), _) => result(
                planned,
                CheckStatus::CouldNotRun,
                error.to_string(),
                json!({ "reason": error.kind(), "error": error.to_string() }),
            ),
            _ => result(
                planned,
                CheckStatus::CouldNotRun,
                planned.blocked.clone().unwrap_or_default(),
                json!({ "reason": if planned.over_budget { "call-budget" } else { "spec-value" } }),
            ),
        })
        .collect();
    LiveReport {
        checks,
        facts,
        findings,
    }
}
