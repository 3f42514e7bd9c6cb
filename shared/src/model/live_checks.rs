//! The JSON API's vocabulary, shared by the server that answers and the page that asks, so
//! the two cannot disagree about a check or a status.

use serde::{Deserialize, Serialize};

/// How a live check went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckStatus {
    /// AWS's answer agrees with the spec.
    Ok,
    /// AWS's answer shows a problem.
    Failed,
    /// No answer: offline, unreachable, refused, or the spec's value is not usable yet.
    #[default]
    CouldNotRun,
}

impl std::fmt::Display for CheckStatus {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.as_str())
    }
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

/// The outcome of one live check, as `POST /api/checks` answers it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveCheck {
    /// What was checked, e.g. `capacity-reservation` (one of [`LIVE_CHECKS`]).
    pub id: String,
    /// How it went.
    pub status: CheckStatus,
    /// The spec field it concerns, e.g. `node_groups[1].capacity.reservation_id`.
    pub path: String,
    /// One sentence: what AWS said, or why the check could not run.
    pub message: String,
    /// AWS's answer as data, and the ids of the rules that fired.
    #[serde(default)]
    pub detail: serde_json::Value,
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
    /// The rules whose findings decide its result (see `shared::rules::live`).
    pub judged_by: &'static [&'static str],
}

/// The live check with this id.
pub fn live_check(id: &str) -> Option<&'static LiveCheckKind> {
    LIVE_CHECKS.iter().find(|kind| kind.id == id)
}

/// EKS offers the spec's Kubernetes version in the region.
pub const KUBERNETES_VERSION: &str = "kubernetes-version";
/// An existing VPC exists.
pub const VPC_EXISTS: &str = "vpc-exists";
/// Live check kind: a placement group a node group or EC2NodeClass names (DescribePlacementGroups).
pub const PLACEMENT_GROUP: &str = "placement-group";
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
        judged_by: &[
            "kubernetes-version-unsupported",
            "kubernetes-version-extended-support",
            "kubernetes-version-newer-than-calendar",
        ],
    },
    LiveCheckKind {
        id: VPC_EXISTS,
        asks: &["ec2:DescribeVpcs"],
        looks_at: "the existing VPC",
        judged_by: &["vpc-not-found"],
    },
    LiveCheckKind {
        id: PLACEMENT_GROUP,
        asks: &["ec2:DescribePlacementGroups"],
        looks_at: "placement groups the node groups and node classes name (strategy, state)",
        judged_by: &[
            "placement-group-not-found",
            "placement-group-spread-too-small",
            "placement-group-efa-not-cluster",
        ],
    },
    LiveCheckKind {
        id: SUBNET,
        asks: &["ec2:DescribeSubnets"],
        looks_at: "subnets, their VPC, zones and free addresses",
        judged_by: &[
            "subnet-not-found",
            "subnet-wrong-vpc",
            "subnet-zone-mismatch",
            "subnet-few-free-addresses",
        ],
    },
    LiveCheckKind {
        id: INSTANCE_TYPE_OFFERED,
        asks: &[
            "ec2:DescribeAvailabilityZones",
            "ec2:DescribeInstanceTypeOfferings",
        ],
        looks_at: "instance types offered in the zones",
        judged_by: &[
            "instance-type-offered-nowhere",
            "instance-type-not-offered",
            "karpenter-pool-offered-nowhere",
        ],
    },
    LiveCheckKind {
        id: INSTANCE_TYPE_FACTS,
        asks: &["ec2:DescribeInstanceTypes"],
        looks_at: "instance type facts (GPUs, EFA)",
        judged_by: &[
            "instance-type-unknown-to-ec2",
            "instance-type-catalog-disagrees",
        ],
    },
    LiveCheckKind {
        id: CAPACITY_RESERVATION,
        asks: &["ec2:DescribeCapacityReservations"],
        looks_at: "capacity reservations (state, type, zone, size)",
        judged_by: &[
            "reservation-not-found",
            "reservation-not-active",
            "reservation-instance-type-mismatch",
            "reservation-zone-mismatch",
            "reservation-capacity-short",
            "reservation-smaller-than-max-size",
            "reservation-end-date",
            "capacity-block-not-started",
            "capacity-block-crosses-support-end",
            "capacity-block-market-type-mismatch",
            "karpenter-reservation-not-found",
            "karpenter-reservation-not-active",
            "karpenter-reservation-type-not-launched",
            "karpenter-static-pool-exceeds-reservations",
        ],
    },
    LiveCheckKind {
        id: SPOT_PLACEMENT_SCORE,
        asks: &["ec2:GetSpotPlacementScores"],
        looks_at: "Spot placement scores",
        judged_by: &[
            "spot-placement-score-low",
            "karpenter-spot-placement-score-low",
        ],
    },
    LiveCheckKind {
        id: SPOT_PRICE,
        asks: &["ec2:DescribeSpotPriceHistory"],
        looks_at: "Spot prices",
        judged_by: &[],
    },
];

/// `POST /api/offerings` answer: every instance type EC2 offers in the region's zones,
/// for the instance picker.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RegionOfferings {
    /// `ok` or `could-not-run`.
    pub status: CheckStatus,
    /// How many types were found, or why EC2 could not be asked.
    pub message: String,
    /// The region asked about.
    pub region: String,
    /// The region's zone names (DescribeAvailabilityZones).
    #[serde(default)]
    pub zones: Vec<String>,
    /// Each offered instance type with the zone names it is offered in, by type name.
    #[serde(default)]
    pub instance_types: std::collections::BTreeMap<String, Vec<String>>,
}

/// `POST /api/where-sold` answer: in which regions each instance type is offered, and
/// where Capacity Blocks for it are on sale.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WhereSold {
    /// `ok` or `could-not-run`.
    pub status: CheckStatus,
    /// What was asked, or why EC2 could not be asked.
    pub message: String,
    /// One entry per instance type asked about, in the order asked.
    #[serde(default)]
    pub instance_types: Vec<TypeRegions>,
}

/// Where one instance type is sold.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TypeRegions {
    /// The instance type.
    pub instance_type: String,
    /// Regions that offer it (DescribeInstanceTypeOfferings by region), sorted.
    #[serde(default)]
    pub regions: Vec<String>,
    /// Regions with Capacity Blocks for it on sale now (DescribeCapacityBlockOfferings for
    /// one instance for a day), each with its earliest start; empty for a type the
    /// catalog does not sell as Capacity Blocks.
    #[serde(default)]
    pub capacity_blocks: Vec<BlockRegion>,
    /// Regions that could not be asked, with the reason (one line).
    #[serde(default)]
    pub unanswered: Vec<String>,
}

/// A region where Capacity Blocks for a type are on sale.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BlockRegion {
    /// The region.
    pub region: String,
    /// The earliest start on offer (RFC 3339), if EC2 says.
    #[serde(default)]
    pub earliest_start: Option<String>,
    /// The UltraServer type on sale, for a type EC2 sells only in UltraServers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ultraserver_type: Option<String>,
}

/// What the live checks look at, as one phrase for a sentence ("… cannot run: …").
pub fn live_checks_in_words() -> String {
    LIVE_CHECKS
        .iter()
        .map(|kind| kind.looks_at)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Defines a text enum's `as_str`, `parse` and `Display` from one table, so the JSON,
/// the database and the page's words use the same names.
macro_rules! text_enum {
    ($name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        impl $name {
            /// The lowercase name used in JSON and in the job store.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }

            /// The value named `text`, if it is one.
            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $($text => Some($name::$variant),)*
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str(self.as_str())
            }
        }
    };
}

/// Where a deploy job is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    /// Accepted; no step has started yet.
    Pending,
    /// A step is running.
    Running,
    /// Every step succeeded.
    Succeeded,
    /// A step failed or could not start.
    Failed,
    /// Stopped on request.
    Cancelled,
    /// The server stopped while it ran; its logs are kept.
    Interrupted,
}

text_enum!(JobState {
    Pending = "pending",
    Running = "running",
    Succeeded = "succeeded",
    Failed = "failed",
    Cancelled = "cancelled",
    Interrupted = "interrupted",
});

impl JobState {
    /// Whether the job is over: nothing more will be written for it.
    pub fn is_finished(self) -> bool {
        !matches!(self, JobState::Pending | JobState::Running)
    }
}

/// Where a step of a job is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepState {
    /// Not started yet.
    Pending,
    /// Its process runs.
    Running,
    /// Exited 0.
    Succeeded,
    /// Exited non-zero, was killed by a signal, or could not start.
    Failed,
    /// Stopped on request.
    Cancelled,
    /// The server stopped while it ran.
    Interrupted,
    /// Never ran because an earlier step did not succeed.
    Skipped,
}

text_enum!(StepState {
    Pending = "pending",
    Running = "running",
    Succeeded = "succeeded",
    Failed = "failed",
    Cancelled = "cancelled",
    Interrupted = "interrupted",
    Skipped = "skipped",
});

/// Which of a process's outputs a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

text_enum!(OutputStream {
    Stdout = "stdout",
    Stderr = "stderr",
});

/// What an eksctl line says is happening.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StageKind {
    /// eksctl is building a stack's template.
    StackBuilding,
    /// eksctl has asked CloudFormation to create a stack.
    StackDeploying,
    /// eksctl is waiting for CloudFormation to finish a stack.
    StackWaiting,
    /// eksctl reports the cluster ready.
    ClusterReady,
    /// The tool reported a failure (`Error: …`, or eksctl's `[✖]`).
    Failed,
}

/// A progress stage read from one line a deploy step printed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stage {
    /// What is happening.
    pub kind: StageKind,
    /// The CloudFormation stack, e.g. `eksctl-NAME-cluster`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    /// The node group the stack is for, when it is a node group's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodegroup: Option<String>,
}

/// What a deploy event says; the JSON names it by `kind` (`log`, `stage`, `step`, `state`)
/// beside the fields of that kind.
#[derive(Clone, Debug, PartialEq)]
pub enum EventBody {
    /// One line a step's process printed, as printed.
    Log {
        /// The step's position (0 is the plan).
        step: usize,
        /// Which output it came from.
        stream: OutputStream,
        /// The line.
        text: String,
    },
    /// A progress stage read from a line (the line is also a `log` event).
    Stage {
        /// The step's position.
        step: usize,
        /// The line.
        text: String,
        /// The stage it marks.
        stage: Stage,
    },
    /// A step started or ended.
    Step {
        /// The step's position.
        step: usize,
        /// Its new state.
        state: StepState,
        /// Its process's exit code, when it exited with one.
        exit_code: Option<i32>,
        /// What happened, in words.
        text: String,
    },
    /// The job's state changed; a finished state is the job's last event.
    State {
        /// Its new state.
        state: JobState,
        /// What happened, in words.
        text: String,
    },
}

impl EventBody {
    /// A line a step printed.
    pub fn log(step: usize, stream: OutputStream, line: impl Into<String>) -> EventBody {
        EventBody::Log {
            step,
            stream,
            text: line.into(),
        }
    }

    /// A note from the studio itself about a step (it could not start, it was stopped…),
    /// written as a log line on standard error so it reads in order with the tool's own.
    pub fn note(step: usize, text: impl Into<String>) -> EventBody {
        EventBody::log(step, OutputStream::Stderr, text)
    }

    /// `log`, `stage`, `step` or `state`: the SSE event name and the stored kind.
    pub fn kind(&self) -> &'static str {
        match self {
            EventBody::Log { .. } => "log",
            EventBody::Stage { .. } => "stage",
            EventBody::Step { .. } => "step",
            EventBody::State { .. } => "state",
        }
    }
}

/// One event of a deploy job, as stored and as `GET /api/deploys/{id}/events` sends it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "WireEvent", into = "WireEvent")]
pub struct DeployEvent {
    /// Grows with every event of every job; SSE's event id (`Last-Event-ID` resumes).
    pub id: i64,
    /// The job it belongs to.
    pub job_id: String,
    /// When it was stored (RFC 3339, UTC).
    pub at: String,
    /// What happened.
    pub body: EventBody,
}

/// A deploy event's JSON: one flat object whose `kind` says which fields are set. Read
/// through this plain struct rather than serde's tagged and flattened enums, whose
/// generic buffering costs the page about 10 KB of compressed wasm.
#[derive(Serialize, Deserialize)]
struct WireEvent {
    id: i64,
    job_id: String,
    at: String,
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    step: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stream: Option<OutputStream>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stage: Option<Stage>,
}

impl TryFrom<WireEvent> for DeployEvent {
    type Error = String;

    fn try_from(wire: WireEvent) -> Result<DeployEvent, String> {
        let kind = wire.kind.as_str();
        let missing = |field: &str| format!("a `{kind}` event needs `{field}`");
        let step = || wire.step.ok_or_else(|| missing("step"));
        let text = wire.text.unwrap_or_default();
        let state = wire.state.as_deref().unwrap_or_default();
        let body = match kind {
            "log" => EventBody::Log {
                step: step()?,
                stream: wire.stream.ok_or_else(|| missing("stream"))?,
                text,
            },
            "stage" => EventBody::Stage {
                step: step()?,
                text,
                stage: wire.stage.ok_or_else(|| missing("stage"))?,
            },
            "step" => EventBody::Step {
                step: step()?,
                state: StepState::parse(state)
                    .ok_or_else(|| format!("`{state}` is not a step state"))?,
                exit_code: wire.exit_code,
                text,
            },
            "state" => EventBody::State {
                state: JobState::parse(state)
                    .ok_or_else(|| format!("`{state}` is not a job state"))?,
                text,
            },
            other => return Err(format!("`{other}` is not an event kind")),
        };
        Ok(DeployEvent {
            id: wire.id,
            job_id: wire.job_id,
            at: wire.at,
            body,
        })
    }
}

impl From<DeployEvent> for WireEvent {
    fn from(event: DeployEvent) -> WireEvent {
        let kind = event.body.kind().to_owned();
        let mut wire = WireEvent {
            id: event.id,
            job_id: event.job_id,
            at: event.at,
            kind,
            step: None,
            stream: None,
            text: None,
            state: None,
            exit_code: None,
            stage: None,
        };
        match event.body {
            EventBody::Log { step, stream, text } => {
                (wire.step, wire.stream, wire.text) = (Some(step), Some(stream), Some(text));
            }
            EventBody::Stage { step, text, stage } => {
                (wire.step, wire.text, wire.stage) = (Some(step), Some(text), Some(stage));
            }
            EventBody::Step {
                step,
                state,
                exit_code,
                text,
            } => {
                wire.step = Some(step);
                wire.state = Some(state.as_str().to_owned());
                (wire.exit_code, wire.text) = (exit_code, Some(text));
            }
            EventBody::State { state, text } => {
                wire.state = Some(state.as_str().to_owned());
                wire.text = Some(text);
            }
        }
        wire
    }
}

impl DeployEvent {
    /// Whether this is the job's final state change, after which nothing follows.
    pub fn ends_job(&self) -> bool {
        matches!(&self.body, EventBody::State { state, .. } if state.is_finished())
    }
}

/// One step of a deploy job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobStep {
    /// Position in the job, from 0 (the plan).
    pub index: usize,
    /// Short machine name: `plan`, `create-cluster`, `install-karpenter`, `apply-nodepools`.
    pub name: String,
    /// What it does, in words.
    pub title: String,
    /// The argument vector it runs (program first), exactly as passed.
    pub command: Vec<String>,
    /// Where it is.
    pub state: StepState,
    /// Its process's exit code once it exited with one.
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// When it started (RFC 3339, UTC).
    #[serde(default)]
    pub started_at: Option<String>,
    /// When it ended (RFC 3339, UTC).
    #[serde(default)]
    pub finished_at: Option<String>,
}

/// A deploy job as `/api/deploys` answers it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Opaque id.
    pub id: String,
    /// The cluster's name.
    pub cluster: String,
    /// The cluster's region.
    pub region: String,
    /// Where the job is.
    pub state: JobState,
    /// When it was accepted (RFC 3339, UTC).
    pub created_at: String,
    /// When it ended (RFC 3339, UTC).
    #[serde(default)]
    pub finished_at: Option<String>,
    /// The job's directory on the server: the bundle it deploys and the kubeconfig eksctl
    /// writes.
    pub directory: String,
    /// Who asked for it, in words (the token's holder and the client's address; a
    /// terminal's user and host).
    #[serde(default)]
    pub requested_by: Option<String>,
    /// Who approved its plan, once someone did.
    #[serde(default)]
    pub approved_by: Option<String>,
    /// Its steps in order.
    #[serde(default)]
    pub steps: Vec<JobStep>,
    /// The newest event's id (0 before any): resume the event stream after it.
    #[serde(default)]
    pub last_event_id: i64,
    /// What the plan step (`eksctl create cluster --dry-run`) printed on standard output,
    /// once it ran: the ClusterConfig eksctl would create. Only in single-job answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_output: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_keep_their_wire_form() {
        let event = DeployEvent {
            id: 7,
            job_id: "j".into(),
            at: "2026-12-01T00:00:00Z".into(),
            body: EventBody::Step {
                step: 1,
                state: StepState::Skipped,
                exit_code: None,
                text: "not run".into(),
            },
        };
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"id": 7, "job_id": "j", "at": "2026-12-01T00:00:00Z",
                "kind": "step", "step": 1, "state": "skipped", "text": "not run"})
        );
        assert_eq!(serde_json::from_value::<DeployEvent>(json).unwrap(), event);
        let end: DeployEvent = serde_json::from_str(
            r#"{"id":8,"job_id":"j","at":"t","kind":"state","state":"failed","text":"x"}"#,
        )
        .unwrap();
        assert!(end.ends_job());
        for state in [
            "pending",
            "running",
            "succeeded",
            "failed",
            "cancelled",
            "interrupted",
        ] {
            assert_eq!(JobState::parse(state).unwrap().as_str(), state);
        }
        assert_eq!(StepState::parse("skipped"), Some(StepState::Skipped));
        assert_eq!(StepState::parse("Skipped"), None);
        let unknown =
            r#"{"id":9,"job_id":"j","at":"t","kind":"step","step":0,"state":"done","text":""}"#;
        assert!(serde_json::from_str::<DeployEvent>(unknown).is_err());
    }
}
