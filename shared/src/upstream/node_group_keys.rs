//! What day two does with each key of an eksctl node group (`managedNodeGroups[]`,
//! `nodeGroups[]`), said once: whether a deploy or an apply on the server carries it, how a
//! running group takes a change of it, where a read of a running cluster finds it, and
//! eksctl's default. The server's allow-list (`deploy/keys.rs`), the plan's diff
//! (`changes/diff.rs`), the read's alignment (`changes/align.rs`) and the stack reader
//! (`changes/stacks.rs`) all ask [`GROUP_KEYS`]; a test fails on a key of eksctl's
//! schema, or one the renderer writes, that has no row.
//!
//! Sources: eksctl's `pkg/apis/eksctl.io/v1alpha5/types.go` and `defaults.go` (keys and
//! defaults), `pkg/ctl/scale`, `pkg/ctl/upgrade` (what eksctl changes in place), EKS's
//! `UpdateNodegroupConfig` and `UpdateNodegroupVersion` (what EKS changes in place) and
//! `DescribeNodegroup` (what EKS holds), eksctl's `pkg/cfn/builder/managed_launch_template.go`
//! and `nodegroup.go` (what it writes into launch templates and stacks), at 99984adb.

use super::eks::{EksNodegroup, LaunchTemplateFacts};

/// Whether the server's deploys and applies carry a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnServer {
    /// Carried whole: it sends data to AWS or the node and nothing else.
    Carried,
    /// Only these keys below it (the rest make eksctl act on the server).
    Below(&'static [&'static str]),
}

/// How a running group takes a change of a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TakesChange {
    /// `eksctl scale nodegroup`, managed or self-managed.
    Scale,
    /// `eksctl upgrade nodegroup --release-version` (EKS's `UpdateNodegroupVersion`),
    /// managed groups only.
    ReleaseVersion,
    /// `aws eks update-nodegroup-config` (EKS's `UpdateNodegroupConfig`), managed groups
    /// only.
    NodegroupConfig,
    /// Fixed when the group is made: a new group replaces it.
    Replacement,
}

/// Where a read of a running cluster finds a managed group's key.
#[derive(Clone, Copy, Debug)]
pub enum ManagedRead {
    /// EKS's or EC2's description of the group (`DescribeNodegroup`, its launch template).
    Eks,
    /// EKS holds it (what the function takes from its description), but a design that
    /// leaves it out took the newest at creation: it is compared only where the design
    /// sets it.
    EksWhereSet(fn(&EksNodegroup) -> Option<yaml_serde::Value>),
    /// The launch template eksctl made holds it (the read), compared where the design
    /// sets it and the template holds it; otherwise taken from the design.
    LaunchTemplate(fn(&LaunchTemplateFacts) -> Option<yaml_serde::Value>),
    /// EKS does not hold it (IAM, user data, eksctl's stack): taken from the design, and
    /// said as not compared in every plan.
    Design,
    /// The read does not look for it: taken from the design, and said as not compared
    /// when the design sets it.
    NotLooked,
}

/// A key's eksctl default: what a group gets when the file leaves the key out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyDefault {
    /// A string.
    Text(&'static str),
    /// A whole number.
    Number(u64),
    /// A boolean.
    Flag(bool),
    /// A mapping of whole numbers (EKS's default `updateConfig`).
    Numbers(&'static [(&'static str, u64)]),
}

impl KeyDefault {
    /// Whether `value` is this default.
    pub fn is(self, value: &yaml_serde::Value) -> bool {
        *value == self.value()
    }

    /// The default as a YAML value.
    pub fn value(self) -> yaml_serde::Value {
        use yaml_serde::Value;
        match self {
            KeyDefault::Text(text) => Value::from(text),
            KeyDefault::Number(number) => Value::from(number),
            KeyDefault::Flag(flag) => Value::from(flag),
            KeyDefault::Numbers(pairs) => Value::Mapping(
                pairs
                    .iter()
                    .map(|(key, number)| (Value::from(*key), Value::from(*number)))
                    .collect(),
            ),
        }
    }
}

/// One key of a node group.
#[derive(Clone, Copy, Debug)]
pub struct GroupKey {
    /// The key, as eksctl spells it.
    pub key: &'static str,
    /// Whether the server's deploys and applies carry it.
    pub on_server: OnServer,
    /// How a running group takes a change of it (a self-managed group takes only
    /// [`TakesChange::Scale`] in place; every other change is a replacement).
    pub change: TakesChange,
    /// Where a read finds it on a managed group.
    pub managed_read: ManagedRead,
    /// Whether a read finds it in a self-managed group's stack (else it is the design's,
    /// said as not compared).
    pub from_stack: bool,
    /// eksctl's default, where a read must tell "left to eksctl" from "set to the
    /// default".
    pub default: Option<KeyDefault>,
}

const fn key(key: &'static str) -> GroupKey {
    GroupKey {
        key,
        on_server: OnServer::Carried,
        change: TakesChange::Replacement,
        managed_read: ManagedRead::Eks,
        from_stack: false,
        default: None,
    }
}

impl GroupKey {
    const fn taken(mut self, change: TakesChange) -> GroupKey {
        self.change = change;
        self
    }

    const fn read(mut self, read: ManagedRead) -> GroupKey {
        self.managed_read = read;
        self
    }

    const fn stack(mut self) -> GroupKey {
        self.from_stack = true;
        self
    }

    const fn defaults_to(mut self, default: KeyDefault) -> GroupKey {
        self.default = Some(default);
        self
    }

    const fn below(mut self, keys: &'static [&'static str]) -> GroupKey {
        self.on_server = OnServer::Below(keys);
        self
    }
}

fn volume_number(
    facts: &LaunchTemplateFacts,
    field: fn(&super::eks::VolumeFacts) -> Option<i32>,
) -> Option<yaml_serde::Value> {
    facts
        .volume
        .as_ref()
        .and_then(field)
        .map(yaml_serde::Value::from)
}

/// Every key of eksctl's `ManagedNodeGroup` and `NodeGroup`, by name.
pub const GROUP_KEYS: &[GroupKey] = {
    use ManagedRead::{Design, EksWhereSet, LaunchTemplate, NotLooked};
    use TakesChange::{NodegroupConfig, ReleaseVersion, Scale};
    &[
        key("additionalVolumes").read(Design),
        key("ami"),
        key("amiFamily")
            .stack()
            .defaults_to(KeyDefault::Text("AmazonLinux2023")),
        key("asgMetricsCollection").read(NotLooked),
        key("asgSuspendProcesses").read(NotLooked),
        key("availabilityZones").stack(),
        key("bottlerocket").read(NotLooked),
        key("capacityReservation").stack(),
        key("classicLoadBalancerNames").read(NotLooked),
        key("clusterDNS").read(NotLooked),
        key("containerRuntime").read(NotLooked),
        key("cpuCredits").read(NotLooked),
        key("desiredCapacity").taken(Scale).stack(),
        key("disableIMDSv1")
            .read(LaunchTemplate(|facts| {
                facts.imds_v1_disabled.map(yaml_serde::Value::from)
            }))
            .defaults_to(KeyDefault::Flag(true)),
        key("disablePodIMDS")
            .read(Design)
            .defaults_to(KeyDefault::Flag(false)),
        key("ebsOptimized").read(NotLooked),
        key("efaEnabled")
            .stack()
            .defaults_to(KeyDefault::Flag(false)),
        key("enableDetailedMonitoring").read(LaunchTemplate(|facts| {
            facts.detailed_monitoring.map(yaml_serde::Value::from)
        })),
        key("enclaveEnabled").read(NotLooked),
        key("iam").read(Design),
        key("instanceMarketOptions").stack(),
        key("instanceName").read(Design),
        key("instancePrefix").read(Design),
        key("instanceSelector").read(NotLooked),
        key("instanceType").stack(),
        key("instanceTypes"),
        key("instancesDistribution").stack(),
        key("kubeletExtraConfig").read(NotLooked),
        key("labels").taken(NodegroupConfig).stack(),
        key("launchTemplate").read(NotLooked),
        key("localZones").read(NotLooked),
        key("maxInstanceLifetime").read(NotLooked),
        key("maxPodsPerNode").read(Design),
        key("maxSize").taken(Scale).stack(),
        key("minSize").taken(Scale).stack(),
        key("name").stack(),
        key("nodeRepairConfig").taken(NodegroupConfig),
        key("outpostARN").read(NotLooked),
        key("overrideBootstrapCommand").read(Design),
        key("placement").stack(),
        key("preBootstrapCommands").read(Design),
        key("privateNetworking")
            .stack()
            .defaults_to(KeyDefault::Flag(false)),
        key("propagateASGTags").read(Design),
        key("releaseVersion")
            .taken(ReleaseVersion)
            .read(EksWhereSet(|group| {
                group.release_version.clone().map(yaml_serde::Value::from)
            })),
        key("securityGroups").read(Design),
        key("spot"),
        key("ssh").read(Design).below(&[
            "allow",
            "enableSsm",
            "publicKey",
            "publicKeyName",
            "sourceSecurityGroupIds",
            // A file of the server's: a deploy asks to confirm it (`server_files`).
            "publicKeyPath",
        ]),
        key("subnets").stack(),
        key("tags").stack(),
        key("taints").taken(NodegroupConfig).stack(),
        key("targetGroupARNs").read(NotLooked),
        // EKS's default (`UpdateConfig`), which eksctl leaves to it.
        key("updateConfig")
            .taken(NodegroupConfig)
            .defaults_to(KeyDefault::Numbers(&[("maxUnavailable", 1)])),
        key("volumeEncrypted").read(LaunchTemplate(|facts| {
            facts
                .volume
                .as_ref()
                .and_then(|volume| volume.encrypted)
                .map(yaml_serde::Value::from)
        })),
        key("volumeIOPS").read(LaunchTemplate(|facts| {
            volume_number(facts, |volume| volume.iops)
        })),
        key("volumeKmsKeyID").read(LaunchTemplate(|facts| {
            facts
                .volume
                .as_ref()
                .and_then(|volume| volume.kms_key_id.clone())
                .map(yaml_serde::Value::from)
        })),
        key("volumeName").read(Design),
        key("volumeSize")
            .read(LaunchTemplate(|facts| {
                volume_number(facts, |volume| volume.size)
            }))
            .stack()
            .defaults_to(KeyDefault::Number(80)),
        key("volumeThroughput").read(LaunchTemplate(|facts| {
            volume_number(facts, |volume| volume.throughput)
        })),
        key("volumeType")
            .read(LaunchTemplate(|facts| {
                facts
                    .volume
                    .as_ref()
                    .and_then(|volume| volume.kind.clone())
                    .map(yaml_serde::Value::from)
            }))
            .stack()
            .defaults_to(KeyDefault::Text("gp3")),
    ]
};

/// The row of `key`, if eksctl has such a node group key.
pub fn group_key(key: &str) -> Option<&'static GroupKey> {
    GROUP_KEYS.iter().find(|row| row.key == key)
}

/// How a running managed group takes a change of `key`: a key with no row is taken for
/// fixed (eksctl refuses a key it does not know before it changes anything).
pub fn takes_change(key: &str) -> TakesChange {
    group_key(key).map_or(TakesChange::Replacement, |row| row.change)
}
