//! One catalog of rules, used by the browser, the server and the CLI alike.
//!
//! Each rule is one function over a [`Context`] (the spec plus any live AWS answers,
//! given as plain data) that reports findings at spec field paths. Validation collects
//! every finding; it never stops at the first.

/// Rules on the cluster, network and identifiers.
mod cluster;
/// Rules on YAML documents as written: schemas and eksctl structure the spec cannot hold.
mod documents;
/// Rules on Karpenter node pools and node classes.
mod karpenter;
/// Rules that need answers from AWS, fed in as [`LiveFacts`].
mod live;
/// Rules on managed node groups: sizes, EFA, capacity, GPUs, Spot.
mod node_groups;
/// Every string of the spec with its path, for the placeholder rule.
mod strings;

use serde::{Deserialize, Serialize};

use crate::catalog::InstanceType;
use crate::ids::Region;
use crate::spec::Spec;

pub use live::{LiveFacts, OfferingFact, ReservationFact, SpotScoreFact, SubnetFact};

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

/// One problem found in a spec.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable rule id, e.g. `efa-unsupported-instance-type`.
    pub rule: String,
    /// How serious it is.
    pub severity: Severity,
    /// Spec field path, e.g. `node_groups[1].instance_type`.
    pub path: String,
    /// What is wrong, naming the value.
    pub message: String,
    /// How to fix it.
    pub help: String,
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
    check: Check,
}

/// What a rule looks at.
#[derive(Clone, Copy)]
pub(crate) enum Check {
    /// The spec (with live answers).
    Spec(fn(&Context<'_>, &mut Report<'_>)),
    /// One YAML document as written; paths are paths inside the document.
    Document(fn(&serde_yaml::Value, &mut Report<'_>)),
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
    pool_instance_types: std::cell::OnceCell<Vec<Vec<&'static InstanceType>>>,
}

impl Context<'_> {
    /// The catalog's instance types Karpenter pool `index` may launch.
    pub(crate) fn pool_instance_types(&self, index: usize) -> &[&'static InstanceType] {
        let all = self.pool_instance_types.get_or_init(|| {
            self.spec
                .karpenter
                .iter()
                .flat_map(|karpenter| &karpenter.node_pools)
                .map(karpenter::matching_instance_types)
                .collect()
        });
        all.get(index).map(Vec::as_slice).unwrap_or_default()
    }
}

/// Collects one rule's findings.
pub struct Report<'a> {
    rule: &'a Rule,
    findings: &'a mut Vec<Finding>,
}

impl Report<'_> {
    /// Reports a finding at `path`.
    pub fn fire(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.findings.push(Finding {
            rule: self.rule.id.to_owned(),
            severity: self.rule.severity,
            path: path.into(),
            message: message.into(),
            help: self.rule.help.to_owned(),
        });
    }
}

/// The rules that read the spec, offline and live.
fn spec_rules() -> impl Iterator<Item = &'static Rule> {
    cluster::RULES
        .iter()
        .chain(node_groups::RULES)
        .chain(karpenter::RULES)
        .chain(live::RULES)
}

/// Every rule, offline and live.
pub fn catalog() -> Vec<&'static Rule> {
    spec_rules().chain(documents::RULES).collect()
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
    let context = Context {
        spec,
        live,
        region: Region::parse(&spec.cluster.region).ok(),
        pool_instance_types: std::cell::OnceCell::new(),
    };
    let mut findings = Vec::new();
    // Not the whole catalog: naming the document rules here would pull the schema walker
    // and the embedded schemas into the browser bundle, which never checks documents.
    for rule in spec_rules() {
        if let Check::Spec(check) = rule.check {
            check(
                &context,
                &mut Report {
                    rule,
                    findings: &mut findings,
                },
            );
        }
    }
    sort(&mut findings);
    findings
}

/// Runs the rules that read a YAML document as written (schema, eksctl structure).
/// Paths of the findings are paths inside the document.
pub fn check_document(document: &serde_yaml::Value) -> Vec<Finding> {
    let mut findings = Vec::new();
    for rule in catalog() {
        if let Check::Document(check) = rule.check {
            check(
                document,
                &mut Report {
                    rule,
                    findings: &mut findings,
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

/// Whether any finding is an error.
pub fn has_errors(findings: &[Finding]) -> bool {
    findings
        .iter()
        .any(|finding| finding.severity == Severity::Error)
}
