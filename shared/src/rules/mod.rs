//! One catalog of rules, used by the browser, the server and the CLI alike.
//!
//! Each rule is one function over a [`Context`] (the spec plus any live AWS answers,
//! given as plain data) that reports findings at spec field paths. Validation collects
//! every finding; it never stops at the first.

/// Rules on `accessConfig`: access entries and the entries Auto Mode's node roles need.
mod access;
/// Rules on EKS Auto Mode's own NodePools and NodeClasses.
mod auto_mode;
/// Rules of the `change` stage, judged on the pair of designs by the plan.
pub mod changes;
/// Rules on the cluster, network and identifiers.
mod cluster;
/// Rules on YAML documents as written: schemas and eksctl structure the spec cannot hold.
mod documents;
/// eksctl's config validation (`validation.go`) on ClusterConfig documents as written.
mod eksctl_config;
/// eksctl's validation of node groups, on ClusterConfig documents as written.
mod eksctl_node_groups;
/// Rules on Karpenter node pools and node classes.
mod karpenter;
/// Rules on what a Karpenter design needs on AWS: identity, node role, discovery tags.
mod karpenter_aws;
/// Rules on Karpenter's EC2NodeClasses and NodeOverlays.
mod karpenter_node_classes;
/// Rules that need answers from AWS, fed in as [`LiveFacts`].
mod live;
/// Rules on managed node groups: sizes, EFA, capacity, GPUs, Spot.
mod node_groups;
/// How the rules read a document: its node groups, keys' values, a child's path.
mod reading;
/// Rules on the volumes for datasets and checkpoints (FSx for Lustre, Mountpoint for S3).
mod storage;
/// Every string of the spec with its path, for the placeholder rule.
pub(crate) mod strings;
/// ARNs, CIDRs, Kubernetes names, label values and taints, as the peers check them.
mod syntax;
/// Imported keys eksctl does not know, checked against a table of its schema's keys.
mod unknown_fields;

use crate::yaml::node::Node;
use serde::{Deserialize, Serialize};

use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt;

use crate::catalog::instances::{self, InstanceType};
use crate::model::ids::Region;
use crate::model::spec::{Network, Spec, Subnet};
use crate::upstream::schema_check::SchemaIssue;

pub(crate) use live::block_ending_minutes;
pub use live::{
    ClusterVersionFact, InstanceTypeFact, LiveFacts, NamedPlacementGroup, OfferingFact,
    PlacementGroupFact, ReservationFact, SpotPriceFact, SpotScoreFact, SubnetFact, cheapest_spot,
    named_placement_groups, node_group_zones, readable_time,
};

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// eksctl, Karpenter or AWS will refuse or fail.
    Error,
    /// Works, but probably not as intended.
    Warning,
    /// Worth knowing.
    Info,
}

impl Severity {
    /// `error`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// When the peer refuses what a rule finds: what the studio saves a user from waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// eksctl's own config validation refuses the file before it calls AWS.
    EksctlValidation,
    /// It stops while eksctl creates the cluster: AWS refuses it (EKS, EC2 or
    /// CloudFormation), or eksctl's stack builder does after its config validation, or the
    /// live answers show it would.
    AwsCreate,
    /// The Kubernetes API server refuses the object at `kubectl apply` (CRD schema, CEL).
    ApiServer,
    /// Everything is accepted, and the cluster does not work: nodes never launch, pods
    /// never schedule.
    Runtime,
    /// Nothing refuses it: advice on cost, reliability or best practice.
    Advice,
    /// A change to a running cluster, judged on the cluster as it runs and the design
    /// that would change it: EKS, eksctl or the API server refuses the change, or it
    /// costs running work.
    Change,
}

impl Stage {
    /// Every stage, in the order a deploy meets them.
    pub const ALL: [Stage; 6] = [
        Stage::EksctlValidation,
        Stage::AwsCreate,
        Stage::ApiServer,
        Stage::Runtime,
        Stage::Advice,
        Stage::Change,
    ];

    /// `eksctl-validation`, `aws-create`, `api-server`, `runtime`, `advice` or `change`.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::EksctlValidation => "eksctl-validation",
            Stage::AwsCreate => "aws-create",
            Stage::ApiServer => "api-server",
            Stage::Runtime => "runtime",
            Stage::Advice => "advice",
            Stage::Change => "change",
        }
    }

    /// Where a deploy would fail without the studio, as a phrase.
    pub fn describe(self) -> &'static str {
        match self {
            Stage::EksctlValidation => "eksctl's config validation, before any AWS call",
            Stage::AwsCreate => {
                "cluster creation: EKS, EC2, CloudFormation or eksctl's stack builder refuses it"
            }
            Stage::ApiServer => "kubectl apply: the Kubernetes API server refuses it",
            Stage::Runtime => "run time: accepted, but nodes never launch or pods never schedule",
            Stage::Advice => "nowhere: advice on cost, reliability or practice",
            Stage::Change => {
                "a change to the running cluster (plan, diff): EKS, eksctl or the API server refuses it, or it costs running work"
            }
        }
    }
}

/// One problem found in a spec.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable rule id, e.g. `efa-unsupported-instance-type` (borrowed from the catalog
    /// when the finding was made here, owned when it was read back from JSON).
    pub rule: Cow<'static, str>,
    /// How serious it is.
    pub severity: Severity,
    /// Spec field path, e.g. `node_groups[1].instance_type`.
    pub path: String,
    /// What is wrong, naming the value.
    pub message: String,
    /// How to fix it.
    pub help: Cow<'static, str>,
}

/// A rule of the catalog.
pub struct Rule {
    /// Stable id.
    pub id: &'static str,
    /// Severity of its findings.
    pub severity: Severity,
    /// One line on what it checks.
    pub summary: &'static str,
    /// How to fix what it finds.
    pub help: &'static str,
    /// Where the fact comes from (eksctl or Karpenter source, AWS docs, best practices).
    pub reference: &'static str,
    /// Whether the rule needs live AWS answers.
    pub live: bool,
    /// When the peer would refuse what it finds.
    pub stage: Stage,
    check: Check,
}

/// What a rule looks at.
#[derive(Clone, Copy)]
pub(crate) enum Check {
    /// The spec (with live answers).
    Spec(fn(&Context<'_>, &mut Report<'_>)),
    /// One YAML document as written; paths are paths inside the document.
    Document(fn(Node<'_>, &mut Report<'_>)),
    /// A change from one design to another: the plan ([`crate::changes`]) fires it where
    /// it meets what the rule finds.
    Change,
}

impl Rule {
    /// Whether the rule reads YAML documents as written rather than the spec.
    pub fn checks_documents(&self) -> bool {
        matches!(self.check, Check::Document(_))
    }
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Rule")
            .field("id", &self.id)
            .finish()
    }
}

/// What a rule looks at.
pub struct Context<'a> {
    /// The spec being checked.
    pub spec: &'a Spec,
    /// Answers from AWS, when live checks ran.
    pub live: &'a LiveFacts,
    /// The spec's region, when it parses.
    pub region: Option<Region>,
    /// Instance types each Karpenter pool's requirements allow, worked out once per
    /// validation because several rules ask.
    pool_instance_types: OnceCell<Vec<Vec<&'static InstanceType>>>,
    /// Each node group's instance types found in the catalog, looked up once per validation.
    group_instance_types: OnceCell<Vec<Vec<&'static InstanceType>>>,
}

/// Where a subnet of an existing VPC sits in the spec (`network.private_subnets[1]`);
/// written out only when a finding names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SubnetPath {
    list: &'static str,
    index: usize,
}

impl fmt::Display for SubnetPath {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "network.{}[{}]", self.list, self.index)
    }
}

impl<'a> Context<'a> {
    fn new(spec: &'a Spec, live: &'a LiveFacts) -> Context<'a> {
        Context {
            spec,
            live,
            region: Region::parse(&spec.cluster.region).ok(),
            pool_instance_types: OnceCell::new(),
            group_instance_types: OnceCell::new(),
        }
    }

    /// Today, as the shell said in the live facts, else the day the version calendar was
    /// checked (so tests and the CLI without a clock judge the same way every run).
    pub(crate) fn today(&self) -> crate::catalog::versions::Date {
        self.live
            .today
            .unwrap_or(crate::catalog::versions::CALENDAR_CHECKED)
    }

    /// The subnets of an existing VPC, public then private, with their paths.
    pub(crate) fn subnets(
        &self,
    ) -> impl Iterator<Item = (SubnetPath, &'a Subnet)> + Clone + use<'a> {
        let (public, private): (&'a [Subnet], &'a [Subnet]) = match &self.spec.network {
            Network::NewVpc { .. } => (&[], &[]),
            Network::ExistingVpc {
                public_subnets,
                private_subnets,
                ..
            } => (public_subnets, private_subnets),
        };
        let listed = |list: &'static str, subnets: &'a [Subnet]| {
            subnets
                .iter()
                .enumerate()
                .map(move |(index, subnet)| (SubnetPath { list, index }, subnet))
        };
        listed("public_subnets", public).chain(listed("private_subnets", private))
    }

    /// The catalog entries of node group `index`'s instance types (unknown names left out).
    pub(crate) fn group_instance_types(&self, index: usize) -> &[&'static InstanceType] {
        let all = self.group_instance_types.get_or_init(|| {
            self.spec
                .node_groups
                .iter()
                .map(|group| {
                    node_groups::instance_type_names(group)
                        .filter_map(instances::lookup)
                        .collect()
                })
                .collect()
        });
        all.get(index).map(Vec::as_slice).unwrap_or_default()
    }

    /// The catalog's instance types Karpenter pool `index` may launch.
    pub(crate) fn pool_instance_types(&self, index: usize) -> &[&'static InstanceType] {
        let all = self.pool_instance_types.get_or_init(|| {
            self.spec
                .karpenter
                .iter()
                .flat_map(|karpenter| &karpenter.node_pools)
                .map(crate::upstream::matching::matching_instance_types)
                .collect()
        });
        all.get(index).map(Vec::as_slice).unwrap_or_default()
    }
}

impl Rule {
    /// A finding of this rule at `path`, with its severity and help.
    pub fn finding(&'static self, path: impl Into<String>, message: impl Into<String>) -> Finding {
        Finding {
            rule: Cow::Borrowed(self.id),
            severity: self.severity,
            path: path.into(),
            message: message.into(),
            help: Cow::Borrowed(self.help),
        }
    }
}

/// Collects one rule's findings.
pub struct Report<'a> {
    rule: &'a Rule,
    findings: &'a mut Vec<Finding>,
    /// The document's schema issues, found once for all the rules that report them.
    schema_issues: &'a OnceCell<Vec<SchemaIssue>>,
}

impl<'a> Report<'a> {
    /// The schema issues of the document being checked: `find` runs for the first rule
    /// that asks, and its answer serves every later one (a schema walk of a large
    /// document is the costliest part of checking it).
    pub fn schema_issues(&self, find: impl FnOnce() -> Vec<SchemaIssue>) -> &'a [SchemaIssue] {
        let issues: &'a OnceCell<Vec<SchemaIssue>> = self.schema_issues;
        issues.get_or_init(find)
    }

    /// Reports a finding at `path`.
    pub fn fire(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.findings.push(Finding {
            rule: Cow::Borrowed(self.rule.id),
            severity: self.rule.severity,
            path: path.into(),
            message: message.into(),
            help: Cow::Borrowed(self.rule.help),
        });
    }
}

/// A spec rule's summary or reference. The CLI (`eks-studio rules`) and the server list
/// them; the page only shows findings, so its build carries an empty text instead (the
/// choice is made when the rule tables are built, so the texts are not in its code).
pub(crate) const fn described(text: &'static str) -> &'static str {
    if cfg!(target_arch = "wasm32") {
        ""
    } else {
        text
    }
}

/// The rules that read the spec, offline and live.
fn spec_rules() -> impl Iterator<Item = &'static Rule> {
    cluster::RULES
        .iter()
        .chain(access::RULES)
        .chain(node_groups::RULES)
        .chain(karpenter::RULES)
        .chain(karpenter_aws::RULES)
        .chain(unknown_fields::RULES)
        .chain(storage::RULES)
        .chain(auto_mode::RULES)
        .chain(live::RULES)
}

/// Every rule, offline and live.
pub fn catalog() -> Vec<&'static Rule> {
    spec_rules()
        .chain(documents::RULES)
        .chain(eksctl_config::RULES)
        .chain(changes::RULES.iter().copied())
        .collect()
}

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    catalog().into_iter().find(|rule| rule.id == id)
}

/// Runs every offline rule.
pub fn validate(spec: &Spec) -> Vec<Finding> {
    validate_with(spec, &LiveFacts::default())
}

/// Runs every rule; live rules use `live` and stay quiet about what it does not know.
pub fn validate_with(spec: &Spec, live: &LiveFacts) -> Vec<Finding> {
    let context = Context::new(spec, live);
    // Room for a typical design's findings without regrowing.
    let mut findings = Vec::with_capacity(16);
    let no_document = OnceCell::new();
    // Not the whole catalog: naming the document rules here would pull the schema walker
    // and the embedded schemas into the browser bundle, which never checks documents.
    for rule in spec_rules() {
        if let Check::Spec(check) = rule.check {
            check(
                &context,
                &mut Report {
                    rule,
                    findings: &mut findings,
                    schema_issues: &no_document,
                },
            );
        }
    }
    sort(&mut findings);
    findings
}

/// Runs the rules that read a YAML document as written (schema, eksctl structure).
/// Paths of the findings are paths inside the document.
pub fn check_document<'a>(document: impl Into<Node<'a>>) -> Vec<Finding> {
    let document = document.into();
    let mut findings = Vec::new();
    let schema_issues = OnceCell::new();
    for rule in catalog() {
        if let Check::Document(check) = rule.check {
            check(
                document,
                &mut Report {
                    rule,
                    findings: &mut findings,
                    schema_issues: &schema_issues,
                },
            );
        }
    }
    sort(&mut findings);
    findings
}

fn sort(findings: &mut [Finding]) {
    findings.sort_by(|left, right| {
        (left.severity, &left.path, &left.rule).cmp(&(right.severity, &right.path, &right.rule))
    });
}

/// Appends a key to a field path, quoting keys that are not plain identifiers.
pub(crate) fn push_key(path: &mut String, key: &str) {
    let plain = !key.is_empty()
        && key
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-');
    if plain {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
    } else {
        path.push_str(&format!("[{key:?}]"));
    }
}

/// Calls `repeated(index, first)` for each key equal to an earlier one, `first` being the
/// earlier one's position; `None` keys are never repeats. A design lists a handful of
/// subnets, groups or add-ons, so few keys are compared with each earlier one, which
/// allocates nothing; many go through a map, which keeps the time linear.
pub(crate) fn each_repeat<'a, I>(keys: I, mut repeated: impl FnMut(usize, usize))
where
    I: Iterator<Item = Option<&'a str>> + Clone,
{
    const FEW: usize = 32;
    if keys.clone().nth(FEW).is_none() {
        for (index, key) in keys.clone().enumerate() {
            let Some(key) = key else { continue };
            if let Some(first) = keys
                .clone()
                .take(index)
                .position(|earlier| earlier == Some(key))
            {
                repeated(index, first);
            }
        }
    } else {
        let mut first_at = std::collections::HashMap::new();
        for (index, key) in keys.enumerate() {
            let Some(key) = key else { continue };
            match first_at.entry(key) {
                std::collections::hash_map::Entry::Occupied(entry) => {
                    repeated(index, *entry.get());
                }
                std::collections::hash_map::Entry::Vacant(entry) => {
                    entry.insert(index);
                }
            }
        }
    }
}

/// A list item's path in words: `network.private_subnets[0]` is "private subnet 1",
/// `addons[2]` "add-on 3", `node_groups[1]` "node group 2"; any other path as it is.
pub fn item_in_words(path: &str) -> String {
    const ITEMS: &[(&str, &str)] = &[
        ("network.private_subnets", "private subnet"),
        ("network.public_subnets", "public subnet"),
        ("node_groups", "node group"),
        ("addons", "add-on"),
        ("karpenter.node_pools", "NodePool"),
        ("karpenter.node_classes", "EC2NodeClass"),
    ];
    let item = path
        .strip_suffix(']')
        .and_then(|inner| inner.rsplit_once('['))
        .and_then(|(list, index)| Some((list, index.parse::<usize>().ok()?)));
    match item.and_then(|(list, index)| {
        ITEMS
            .iter()
            .find(|(known, _)| *known == list)
            .map(|(_, noun)| (noun, index))
    }) {
        Some((noun, index)) => format!("{noun} {}", index + 1),
        None => path.to_owned(),
    }
}

/// Whether any finding is an error.
pub fn has_errors(findings: &[Finding]) -> bool {
    findings
        .iter()
        .any(|finding| finding.severity == Severity::Error)
}

#[cfg(test)]
mod tests {
    use super::each_repeat;

    fn repeats(keys: &[Option<&str>]) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        each_repeat(keys.iter().copied(), |index, first| {
            found.push((index, first))
        });
        found
    }

    #[test]
    fn few_keys_report_each_repeat_against_its_first_occurrence() {
        let keys = [
            Some("a"),
            Some("b"),
            None,
            Some("a"),
            None,
            Some("a"),
            Some("b"),
        ];
        assert_eq!(repeats(&keys), vec![(3, 0), (5, 0), (6, 1)]);
        assert_eq!(repeats(&[Some("a"), Some("b"), None, None]), vec![]);
    }

    #[test]
    fn many_keys_give_the_same_answer_as_few() {
        // 100 keys take the map; each name appears every 40 keys, and every tenth is None.
        let names: Vec<String> = (0..100).map(|index| format!("n{}", index % 40)).collect();
        let keys: Vec<Option<&str>> = names
            .iter()
            .enumerate()
            .map(|(index, name)| (index % 10 != 9).then_some(name.as_str()))
            .collect();
        let mut expected = Vec::new();
        for (index, key) in keys.iter().enumerate() {
            if let Some(key) = key
                && let Some(first) = keys[..index]
                    .iter()
                    .position(|earlier| earlier == &Some(*key))
            {
                expected.push((index, first));
            }
        }
        assert!(expected.len() > 40);
        assert_eq!(repeats(&keys), expected);
    }
}
