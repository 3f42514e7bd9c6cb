use std::collections::BTreeSet;

use yaml_serde::Value;

use super::step::{CLUSTER_UPGRADE_WAIT, EKSCTL_WAIT, NODEGROUP_UPGRADE_WAIT, Step};
use super::{Action, Change, Plan};
use crate::catalog::versions::minor_of;
use crate::deploy::sequence::Tool;
use crate::documents::render::{cluster_document, karpenter_documents};
use crate::model::spec::Spec;
use crate::rules::changes;
use crate::upstream::node_group_keys::{TakesChange, takes_change};

/// The bundle's file every eksctl step reads.
const CLUSTER_FILE: &str = "cluster.yaml";

/// The file the interim groups of a replacement under the same name are made from: the
/// design's `ClusterConfig` with only those groups (see [`interim_name`]).
pub const INTERIM_FILE: &str = "cluster-interim.yaml";

/// The file `kubectl apply` reads for Karpenter's objects.
const KARPENTER_FILE: &str = "karpenter/nodepools.yaml";

/// The file `kubectl apply` reads for Auto Mode's objects.
const AUTO_MODE_FILE: &str = "auto-mode/nodepools.yaml";

/// The field of a node group's change when the cluster's upgrade rolls it to the new
/// Kubernetes version (`eksctl upgrade nodegroup`).
pub const UPGRADE_FIELD: &str = "version";

/// Whether a running group takes a change of `field` the way `how` says, as the key's row
/// in [`crate::upstream::node_group_keys`] says.
fn taken(field: &str, how: TakesChange) -> bool {
    takes_change(field) == how
}

/// The cluster the steps act on.
struct Target {
    cluster: String,
    region: String,
}

impl Target {
    /// `tool` with `args` followed by `--cluster NAME --region REGION`.
    fn command(&self, tool: Tool, args: &[&str]) -> Step {
        Step::new(tool, args).with_args(["--cluster", &self.cluster, "--region", &self.region])
    }
}

/// The keys (one level down) whose values differ between two mappings, with those only
/// one of them has; `prefix` goes before each.
fn changed_keys(before: &Value, after: &Value, prefix: &str) -> Vec<String> {
    let empty = yaml_serde::Mapping::new();
    let before = before.as_mapping().unwrap_or(&empty);
    let after = after.as_mapping().unwrap_or(&empty);
    let mut keys: BTreeSet<String> = BTreeSet::new();
    for (key, value) in before {
        if after.get(key) != Some(value) {
            keys.insert(key_text(key));
        }
    }
    for (key, value) in after {
        if before.get(key) != Some(value) {
            keys.insert(key_text(key));
        }
    }
    keys.into_iter()
        .map(|key| format!("{prefix}{key}"))
        .collect()
}

fn key_text(key: &Value) -> String {
    crate::yaml::source::mapping_key_text(key).unwrap_or_else(|| "?".to_owned())
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn number(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}

/// Items of a sequence under `key`, each with its identity.
fn items_by<'a>(
    document: &'a Value,
    key: &str,
    identity: impl Fn(&Value) -> String,
) -> Vec<(String, &'a Value)> {
    match document.get(key) {
        Some(Value::Sequence(items)) => items.iter().map(|item| (identity(item), item)).collect(),
        _ => Vec::new(),
    }
}

/// The design's cluster and Karpenter and Auto Mode documents, as the peers read them.
struct Rendered {
    cluster: Value,
    objects: Vec<Value>,
}

fn rendered(spec: &Spec) -> Rendered {
    let mut cluster = cluster_document(spec).unwrap_or(Value::Null);
    with_eksctl_sizes(&mut cluster);
    let mut objects = spec
        .karpenter
        .as_ref()
        .and_then(|karpenter| karpenter_documents(karpenter).ok())
        .unwrap_or_default();
    objects
        .extend(crate::documents::auto_mode::documents(&spec.auto_mode_pools).unwrap_or_default());
    Rendered { cluster, objects }
}

/// Every managed node group's sizes as eksctl sets them before it creates the group, so a
/// size left to eksctl and the same size written out are no change: `minSize` is
/// `desiredCapacity`, else 2; `maxSize` is `desiredCapacity`, else `minSize`, and at least
/// 1; `desiredCapacity` is `minSize` (eksctl-io/eksctl `pkg/apis/eksctl.io/v1alpha5/
/// validation.go`, `validateManagedNodeGroup`, at 99984adb).
///
/// A self-managed group's the same, without the floor of 1 (`pkg/cfn/builder/
/// nodegroup.go`, `AddAllResources`); its Auto Scaling group's desired capacity is its
/// minimum when the stack gives none.
fn with_eksctl_sizes(cluster: &mut Value) {
    for (list, floor) in [("managedNodeGroups", 1), ("nodeGroups", 0)] {
        let Some(groups) = cluster.get_mut(list).and_then(Value::as_sequence_mut) else {
            continue;
        };
        with_sizes(groups, floor);
    }
}

fn with_sizes(groups: &mut [Value], floor: u64) {
    for group in groups.iter_mut().filter_map(Value::as_mapping_mut) {
        let size = |key: &str| group.get(key).and_then(Value::as_u64);
        let desired = size("desiredCapacity");
        let min = size("minSize").or(desired).unwrap_or(2);
        let max = size("maxSize").or(desired).unwrap_or(min).max(floor);
        let desired = desired.unwrap_or(min);
        for (key, value) in [
            ("minSize", min),
            ("desiredCapacity", desired),
            ("maxSize", max),
        ] {
            group.insert(Value::from(key), Value::from(value));
        }
    }
}

/// The plan of changing the cluster `before` describes into the one `after` describes.
pub fn diff(before: &Spec, after: &Spec) -> Plan {
    let old = rendered(before);
    let new = rendered(after);
    let mut plan = Plan::default();
    let cluster = after.cluster.name.trim().to_owned();
    let region = after.cluster.region.trim().to_owned();
    if before.cluster.name.trim() != cluster || before.cluster.region.trim() != region {
        plan.findings.push(changes::ANOTHER_CLUSTER.finding(
            "cluster.name",
            format!(
                "the designs describe two clusters (`{}` in {} and `{cluster}` in {region}): a plan changes one cluster; a new name or region is a new cluster, made with eksctl create cluster",
                before.cluster.name.trim(),
                before.cluster.region.trim()
            ),
        ));
        return plan;
    }
    let target = Target { cluster, region };
    cluster_changes(&old.cluster, &new.cluster, &target, &mut plan);
    node_group_changes(&old.cluster, &new.cluster, &target, &mut plan);
    self_managed_changes(&old.cluster, &new.cluster, &target, &mut plan);
    addon_changes(&old.cluster, &new.cluster, &target, &mut plan);
    access_changes(&old.cluster, &new.cluster, &target, &mut plan);
    service_account_changes(&old.cluster, &new.cluster, &target, &mut plan);
    chart_changes(before, after, &mut plan);
    object_changes(&old.objects, &new.objects, &mut plan);
    accelerators_left(before, after, &mut plan);
    // Creations first, then changes in place, replacements, deletions: what is new exists
    // before what it replaces goes.
    // The control plane's upgrade first, the add-ons' after it and the node groups' last.
    // A newer Karpenter comes before everything: its CRDs take what the new objects use,
    // and Karpenter's matrix asks for it before a newer Kubernetes.
    plan.changes.sort_by_key(|change| match change.action {
        Action::Update if change.kind == "helm release" && karpenter_upgrade(change) => -1,
        Action::Create => 1,
        Action::Update if change.kind == "cluster" => 0,
        Action::Update if change.fields == [UPGRADE_FIELD] && change.kind == "nodegroup" => 3,
        Action::Update => 2,
        Action::Replace => 4,
        Action::Delete => 5,
    });
    plan
}

/// Whether a change of the Karpenter chart brings a newer release (its CRDs' chart).
fn karpenter_upgrade(change: &Change) -> bool {
    change.steps.iter().any(|step| {
        step.tool == Tool::Helm && step.has(crate::deploy::sequence::KARPENTER_CRD_CHART)
    })
}

fn cluster_changes(old: &Value, new: &Value, target: &Target, plan: &mut Plan) {
    let (cluster, region) = (target.cluster.as_str(), target.region.as_str());
    let lists = [
        "managedNodeGroups",
        "nodeGroups",
        "addons",
        "accessConfig",
        "iam",
    ];
    let mut fields: Vec<String> = changed_keys(old, new, "")
        .into_iter()
        .filter(|key| !lists.contains(&key.as_str()) && key != "metadata")
        .collect();
    let metadata = changed_keys(
        old.get("metadata").unwrap_or(&Value::Null),
        new.get("metadata").unwrap_or(&Value::Null),
        "metadata.",
    );
    fields.extend(metadata);
    let access_mode = changed_keys(
        old.get("accessConfig").unwrap_or(&Value::Null),
        new.get("accessConfig").unwrap_or(&Value::Null),
        "accessConfig.",
    );
    fields.extend(
        access_mode
            .into_iter()
            .filter(|key| key != "accessConfig.accessEntries"),
    );
    if with_oidc(old) != with_oidc(new) {
        fields.push("iam.withOIDC".into());
    }
    // A field written out as its default on one side only is no change.
    fields.retain(|field| match field.as_str() {
        "accessConfig.authenticationMode" => authentication_mode(old) != authentication_mode(new),
        "autoModeConfig" => auto_mode_on(old) || auto_mode_on(new),
        "zonalShiftConfig" => zonal_shift_on(old) != zonal_shift_on(new),
        _ => true,
    });
    if fields.is_empty() {
        return;
    }
    let mut steps = Vec::new();
    let mut disruption = Vec::new();
    for field in &fields {
        match field.as_str() {
            "metadata.version" => {
                let from = minor_of(text(old.get("metadata").unwrap_or(&Value::Null), "version"));
                let to = minor_of(text(new.get("metadata").unwrap_or(&Value::Null), "version"));
                match (from, to) {
                    (Some(from), Some(to)) if to + 1 < from => plan.findings.push(changes::VERSION_LOWERED.finding(
                        "cluster.kubernetes_version",
                        format!("Kubernetes 1.{from} → 1.{to}: eksctl refuses it (\"downgrading more than one version at a time is not supported. Found downgrade from \\\"1.{from}\\\" to \\\"1.{to}\\\". Please downgrade to \\\"1.{}\\\" first\"), and EKS rolls a control plane back to the previous minor version only", from - 1),
                    )),
                    (Some(from), Some(to)) if to + 1 == from => {
                        let version = format!("1.{to}");
                        // EKS rolls back the control plane, not the managed node groups,
                        // and nodes may not be newer than it: they go first.
                        for (name, _) in items_by(old, "managedNodeGroups", |group| text(group, "name").to_owned()) {
                            steps.push(Step::aws(&["eks", "update-nodegroup-version", "--cluster-name", cluster, "--nodegroup-name", &name, "--kubernetes-version", &version, "--region", region]).moving_pods());
                        }
                        steps.push(Step::eksctl(&["upgrade", "cluster", "--name", cluster, "--region", region, "--version", &version, "--approve"]).waits("the control plane's upgrade", CLUSTER_UPGRADE_WAIT));
                        disruption.push(format!("a rollback: the managed node groups are rolled back to {version} first, draining their nodes a few at a time, then the control plane"));
                        plan.findings.push(changes::VERSION_ROLLBACK.finding(
                            "cluster.kubernetes_version",
                            format!("Kubernetes 1.{from} → 1.{to} is a rollback: EKS rolls a control plane back one minor version only within 7 days of the in-place upgrade to 1.{from} (a cluster made at 1.{from} cannot), and rolls back neither the managed node groups nor the add-ons"),
                        ));
                    }
                    (Some(from), Some(to)) if to > from => {
                        // EKS upgrades one minor version at a time: one step each.
                        for minor in from + 1..=to {
                            let version = format!("1.{minor}");
                            steps.push(Step::eksctl(&["upgrade", "cluster", "--name", cluster, "--region", region, "--version", &version, "--approve"]).waits("the control plane's upgrade", CLUSTER_UPGRADE_WAIT));
                        }
                        if to > from + 1 {
                            plan.findings.push(changes::VERSION_SKIPS_MINOR.finding(
                                "cluster.kubernetes_version",
                                format!("Kubernetes 1.{from} → 1.{to}: EKS upgrades a control plane one minor version at a time, so the plan upgrades {} times, and the node groups after the last", to - from),
                            ));
                        }
                    }
                    _ => {}
                }
            }
            "vpc" => {
                let old_vpc = old.get("vpc").unwrap_or(&Value::Null);
                let new_vpc = new.get("vpc").unwrap_or(&Value::Null);
                let changed = changed_keys(old_vpc, new_vpc, "vpc.");
                for key in &changed {
                    match key.as_str() {
                        "vpc.id" => plan.findings.push(changes::CLUSTER_VPC.finding(
                            "network",
                            "vpc.id changes: EKS keeps a running cluster in the VPC it was made in (UpdateClusterConfig takes other subnets of that VPC only), and eksctl has no command that moves it",
                        )),
                        "vpc.cidr" => plan.findings.push(changes::NO_STEP.finding(
                            "network",
                            "`vpc.cidr` changes, and no eksctl command changes the CIDR of a running cluster's VPC: the plan leaves it as it is",
                        )),
                        "vpc.subnets" => plan.findings.push(changes::NO_STEP.finding(
                            "network",
                            "`vpc.subnets` changes: no eksctl command changes the running cluster for it (eksctl reads it when it makes node groups later); the control plane's own subnets are `vpc.controlPlaneSubnetIDs`, which eksctl utils update-cluster-vpc-config changes",
                        )),
                        _ => {}
                    }
                }
                let in_place = changed
                    .iter()
                    .any(|key| !matches!(key.as_str(), "vpc.id" | "vpc.cidr" | "vpc.subnets"));
                let moved = changed.iter().any(|key| key == "vpc.id");
                if in_place && !moved {
                    steps.push(Step::eksctl(&["utils", "update-cluster-vpc-config", "--config-file", CLUSTER_FILE, "--approve"]));
                }
            }
            "cloudWatch" => steps.push(Step::eksctl(&["utils", "update-cluster-logging", "--config-file", CLUSTER_FILE, "--approve"])),
            "zonalShiftConfig" => steps.push(Step::eksctl(&["utils", "update-zonal-shift-config", "--config-file", CLUSTER_FILE])),
            "kubeAPIServerConfig" | "kubeSchedulerConfig" | "kubeControllerManagerConfig" => {
                // One UpdateClusterConfig takes all three components.
                let step = Step::eksctl(&["utils", "update-control-plane-component-config", "--config-file", CLUSTER_FILE]);
                if !steps.contains(&step) {
                    steps.push(step);
                }
            }
            "iam.withOIDC" if with_oidc(new) => steps.push(Step::eksctl(&["utils", "associate-iam-oidc-provider", "--config-file", CLUSTER_FILE, "--approve"])),
            "iam.withOIDC" => plan.findings.push(changes::NO_STEP.finding(
                "cluster.with_oidc",
                "`iam.withOIDC` is turned off, and eksctl has no command that removes a cluster's IAM OIDC provider (eksctl utils associate-iam-oidc-provider only adds one): the plan leaves it, and the roles for service accounts that trust it keep working",
            )),
            "autoModeConfig" => {
                let step = Step::eksctl(&["update", "auto-mode-config", "--config-file", CLUSTER_FILE]);
                if auto_mode_on(old) && !auto_mode_on(new) {
                    steps.push(step.moving_pods());
                    disruption.push("EKS Auto Mode is turned off: EKS terminates every instance Auto Mode runs, without draining it, and deletes the load balancers Auto Mode made".to_owned());
                } else {
                    steps.push(step);
                }
            }
            "secretsEncryption" => match (secrets_key(old), secrets_key(new)) {
                (None, Some(_)) => steps.push(Step::eksctl(&["utils", "enable-secrets-encryption", "--config-file", CLUSTER_FILE, "--approve"])),
                (Some(key), Some(_)) => plan.findings.push(changes::ENCRYPTION_FIXED.finding(
                    "cluster",
                    format!("`secretsEncryption.keyARN` changes: eksctl refuses it (\"KMS encryption is already enabled with key \\\"{key}\\\", changing the key is not supported\"), and EKS keeps a cluster's secrets encryption and its key for the cluster's life"),
                )),
                (Some(_), None) => plan.findings.push(changes::ENCRYPTION_FIXED.finding(
                    "cluster",
                    "`secretsEncryption` is removed: EKS cannot turn a cluster's secrets encryption off once it is on, and no eksctl command does",
                )),
                (None, None) => {}
            },
            "accessConfig.authenticationMode" => {
                match authentication_steps(&authentication_mode(old), &authentication_mode(new)) {
                    Ok(modes) => {
                        for mode in modes {
                            steps.push(target.command(Tool::Eksctl, &["utils", "update-authentication-mode", "--authentication-mode", mode]));
                        }
                    }
                    Err(why) => plan.findings.push(changes::AUTHENTICATION_MODE_BACK.finding("cluster.access.authentication_mode", why)),
                }
            }
            other => plan.findings.push(changes::NO_STEP.finding(
                "cluster",
                format!("`{other}` changes, and the studio knows no eksctl command that changes it on a running cluster: the plan leaves it as it is"),
            )),
        }
    }
    let upgraded = match (
        minor_of(text(old.get("metadata").unwrap_or(&Value::Null), "version")),
        minor_of(text(new.get("metadata").unwrap_or(&Value::Null), "version")),
    ) {
        (Some(from), Some(to)) => to > from,
        _ => false,
    };
    let mut group_upgrades = Vec::new();
    if upgraded {
        // The control plane first, in place; each node group after the add-ons (the plan's
        // order), rolling its nodes to the new version a few at a time.
        let version = text(new.get("metadata").unwrap_or(&Value::Null), "version").to_owned();
        let kept = items_by(old, "managedNodeGroups", |group| {
            text(group, "name").to_owned()
        });
        for (name, group) in items_by(new, "managedNodeGroups", |group| {
            text(group, "name").to_owned()
        }) {
            if !kept.iter().any(|(old_name, _)| *old_name == name) {
                continue;
            }
            let step = Step::eksctl(&[
                "upgrade",
                "nodegroup",
                "--cluster",
                cluster,
                "--region",
                region,
                "--name",
                &name,
                "--kubernetes-version",
                &version,
            ])
            .waits("the group's nodes to roll", NODEGROUP_UPGRADE_WAIT)
            .moving_pods();
            let mut disruption = format!(
                "rolls its {} to Kubernetes {version}, draining a few at a time",
                nodes_of(group)
            );
            let mut steps = vec![step];
            let mut disruptive = true;
            let previous = kept
                .iter()
                .find(|(old_name, _)| *old_name == name)
                .map(|(_, previous)| *previous)
                .unwrap_or(group);
            if capacity_block_of(previous).is_some() {
                let (rolled, stopped) =
                    rolled_on_block(&name, previous, group, steps.remove(0), target);
                steps = rolled;
                if let Some(block) = stopped_on_block(previous) {
                    let why = format!("the upgrade to Kubernetes {version} rolls its nodes");
                    block_scaled_to_zero(&name, &block, group, &why, plan);
                }
                match stopped {
                    Some(stopped) => disruption = stopped,
                    None => {
                        disruptive = false;
                        disruption.clear();
                    }
                }
            }
            group_upgrades.push(Change {
                kind: "nodegroup".into(),
                name: name.clone(),
                action: Action::Update,
                fields: vec![UPGRADE_FIELD.to_owned()],
                disruptive,
                disruption,
                steps,
                interim: None,
                workloads: Vec::new(),
            });
        }
    }
    if upgraded {
        self_managed_kept_through_upgrade(old, new, plan);
    }
    plan.changes.push(Change {
        kind: "cluster".into(),
        name: cluster.to_owned(),
        action: Action::Update,
        fields,
        disruptive: !disruption.is_empty(),
        disruption: disruption.join("; "),
        steps,
        interim: None,
        workloads: Vec::new(),
    });
    plan.changes.extend(group_upgrades);
}

/// Whether a design switches a cluster setting on (`iam.withOIDC`,
/// `autoModeConfig.enabled`, `zonalShiftConfig.enabled`): off when it says nothing.
fn switched_on(design: &Value, section: &str, key: &str) -> bool {
    design
        .get(section)
        .and_then(|settings| settings.get(key))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn with_oidc(design: &Value) -> bool {
    switched_on(design, "iam", "withOIDC")
}

fn auto_mode_on(design: &Value) -> bool {
    switched_on(design, "autoModeConfig", "enabled")
}

fn zonal_shift_on(design: &Value) -> bool {
    switched_on(design, "zonalShiftConfig", "enabled")
}

/// The authentication mode a design gives the cluster: eksctl's default,
/// API_AND_CONFIG_MAP, when it names none.
fn authentication_mode(design: &Value) -> String {
    design
        .get("accessConfig")
        .map(|access| text(access, "authenticationMode"))
        .filter(|mode| !mode.is_empty())
        .unwrap_or("API_AND_CONFIG_MAP")
        .to_owned()
}

/// The KMS key a design encrypts the cluster's secrets with (`secretsEncryption.keyARN`).
fn secrets_key(design: &Value) -> Option<String> {
    design
        .get("secretsEncryption")
        .map(|encryption| text(encryption, "keyARN").to_owned())
        .filter(|key| !key.is_empty())
}

/// The authentication modes a running cluster goes through from `from` to `to`, or why
/// EKS refuses it. EKS adds the access-entry API once and never removes it, and never adds
/// the `aws-auth` ConfigMap to a cluster without it: CONFIG_MAP → API_AND_CONFIG_MAP → API,
/// one step at a time.
fn authentication_steps(from: &str, to: &str) -> Result<Vec<&'static str>, String> {
    const MODES: [&str; 3] = ["CONFIG_MAP", "API_AND_CONFIG_MAP", "API"];
    let rank = |mode: &str| MODES.iter().position(|known| *known == mode);
    match (rank(from), rank(to)) {
        (Some(from), Some(to)) if to >= from => Ok(MODES[from + 1..=to].to_vec()),
        (Some(from), Some(to)) => Err(format!(
            "`accessConfig.authenticationMode` {} → {}: EKS refuses it: it never takes the access-entry API away from a cluster, nor adds the `aws-auth` ConfigMap to one made without it (CONFIG_MAP → API_AND_CONFIG_MAP → API, one way)",
            MODES[from], MODES[to]
        )),
        _ => Ok(Vec::new()),
    }
}

/// The self-managed groups an upgrade leaves on their nodes: eksctl upgrades managed groups
/// only, so a kept group's kubelets stay on their AMI's version. A group the plan replaces
/// anyway is made again after the control plane, on the new version's AMI.
fn self_managed_kept_through_upgrade(old: &Value, new: &Value, plan: &mut Plan) {
    let metadata = |design: &Value| design.get("metadata").cloned().unwrap_or(Value::Null);
    let from = text(&metadata(old), "version").to_owned();
    let to = text(&metadata(new), "version").to_owned();
    let by_name = |group: &Value| text(group, "name").to_owned();
    let before = items_by(old, "nodeGroups", by_name);
    let after = items_by(new, "nodeGroups", by_name);
    for pairing in pair_up(&before, &after) {
        let Pairing::Kept(name, _, _, fields) = pairing else {
            continue;
        };
        if fields.iter().any(|field| !taken(field, TakesChange::Scale)) {
            continue;
        }
        plan.findings.push(changes::SELF_MANAGED_KEEPS_VERSION.finding(
            format!("nodeGroups[{name}]"),
            format!(
                "self-managed node group `{name}` keeps its nodes through the upgrade to Kubernetes {to}: eksctl upgrades managed node groups only (\"upgrade is only supported for managed nodegroups\"), so its kubelets stay on the AMI they were launched from (Kubernetes {from} if launched for the cluster's current version), which Kubernetes supports up to three minor versions behind the control plane"
            ),
        ));
    }
}

/// What the nodes of a group are, in words (`2 p5.48xlarge nodes`), from its sizes.
fn nodes_of(group: &Value) -> String {
    let count = number(group, "desiredCapacity")
        .or(number(group, "minSize"))
        .unwrap_or(2);
    let instance = match group.get("instanceTypes") {
        Some(Value::Sequence(types)) if !types.is_empty() => types
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("/"),
        _ => text(group, "instanceType").to_owned(),
    };
    let noun = if count == 1 { "node" } else { "nodes" };
    format!("{count} {instance} {noun}")
}

fn reservation_of(group: &Value) -> Option<String> {
    group
        .get("capacityReservation")
        .and_then(|reservation| reservation.get("capacityReservationTarget"))
        .and_then(|target| target.get("capacityReservationID"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The Capacity Block a managed group runs on (`instanceMarketOptions.marketType:
/// capacity-block`), by its reservation id.
fn capacity_block_of(group: &Value) -> Option<String> {
    let market = group
        .get("instanceMarketOptions")
        .map(|options| text(options, "marketType"));
    (market == Some("capacity-block")).then(|| reservation_of(group).unwrap_or_default())
}

/// `eksctl scale nodegroup` of group `name` to the sizes `group` gives.
fn scaled_to(name: &str, group: &Value, target: &Target) -> Step {
    let mut command = target.command(Tool::Eksctl, &["scale", "nodegroup", "--name", name]);
    for (flag, key) in [
        ("--nodes", "desiredCapacity"),
        ("--nodes-min", "minSize"),
        ("--nodes-max", "maxSize"),
    ] {
        if let Some(value) = number(group, key) {
            command = command.arg(format!("{flag}={value}"));
        }
    }
    command
}

/// The Capacity Block a managed group runs on, when it has nodes on it: a roll stops them.
fn stopped_on_block(group: &Value) -> Option<String> {
    capacity_block_of(group).filter(|_| number(group, "desiredCapacity").unwrap_or(0) > 0)
}

/// `roll`, a step that rolls the nodes of group `name` (an upgrade, a new AMI release), as
/// a group on a Capacity Block takes it: EKS rolls a group a few nodes at a time by
/// launching new ones first, and a block holds exactly the instances bought, so there is
/// no spare one to launch ("When upgrading managed node groups with Capacity Blocks, make
/// sure that the desired size of the node group is set to 0", EKS user guide, Capacity
/// Blocks for ML). The group is scaled to 0 (every pod on it stops), rolled with no nodes,
/// then scaled back to `group`'s sizes. A group already at 0 is rolled as it is. Returns
/// the steps, and the disruption in words when the group had nodes.
fn rolled_on_block(
    name: &str,
    previous: &Value,
    group: &Value,
    roll: Step,
    target: &Target,
) -> (Vec<Step>, Option<String>) {
    if stopped_on_block(previous).is_none() {
        return (vec![roll], None);
    }
    let running = number(previous, "desiredCapacity").unwrap_or(0);
    let stop = target
        .command(Tool::Eksctl, &["scale", "nodegroup", "--name", name])
        .with_args(["--nodes=0", "--nodes-min=0", "--wait"])
        .waits("the group's nodes to drain and go", EKSCTL_WAIT)
        .moving_pods();
    let back = scaled_to(name, group, target)
        .arg("--wait")
        .waits("the block's instances to join again", EKSCTL_WAIT);
    let roll = Step {
        moves_pods: false,
        ..roll
    };
    let size = number(group, "desiredCapacity").unwrap_or(running);
    (
        vec![stop, roll, back],
        Some(format!(
            "scales to 0, stopping every pod on its {} (its Capacity Block has no spare instance for a rolling update), then back to {size}",
            nodes_of(previous)
        )),
    )
}

/// The finding of a group on a Capacity Block that a roll scales to 0.
fn block_scaled_to_zero(name: &str, block: &str, group: &Value, why: &str, plan: &mut Plan) {
    let size = number(group, "desiredCapacity").unwrap_or(0);
    plan.findings.push(changes::NODEGROUP_BLOCK_SCALED_TO_ZERO.finding(
        format!("node_groups[{name}]"),
        format!(
            "node group `{name}` runs on Capacity Block {block}: {why}, and EKS rolls a group on a Capacity Block only at desired size 0 (the block holds exactly the instances bought, so a rolling update has no spare instance to launch). The plan scales it to 0, which stops every pod on it, rolls it, then scales it back to {size}: checkpoint the training on it first; the block's instances come back only while the block is active"
        ),
    ));
}

fn node_group_changes(old: &Value, new: &Value, target: &Target, plan: &mut Plan) {
    let by_name = |group: &Value| text(group, "name").to_owned();
    let before = items_by(old, "managedNodeGroups", by_name);
    let after = items_by(new, "managedNodeGroups", by_name);
    let mut names = GroupNames::of(old, new, "managedNodeGroups");
    for pairing in pair_up(&before, &after) {
        let Pairing::Kept(name, group, previous, fields) = pairing else {
            if let Pairing::Added(name, _) = pairing {
                plan.changes.push(group_created(name));
            }
            continue;
        };
        if fields.is_empty() {
            continue;
        }
        let in_place = fields.iter().all(|field| in_place_on_managed(field));
        if in_place {
            plan.changes
                .push(update_node_group(name, previous, group, &fields, target));
            if let Some(block) = stopped_on_block(previous)
                && fields
                    .iter()
                    .any(|field| taken(field, TakesChange::ReleaseVersion))
            {
                let why = "its new AMI release rolls its nodes";
                block_scaled_to_zero(name, &block, group, why, plan);
            }
            continue;
        }
        // What EKS fixes at creation changed: a new group, and the old one drained.
        let why = replacement_reason(&fields, in_place_on_managed, |fixed| {
            format!("{fixed} of node group `{name}` cannot change on a live managed node group")
        });
        let replacing = Replacing {
            name,
            previous,
            group,
            list: "node_groups",
        };
        replaced_under_its_name(&replacing, fields, &why, &mut names, target, plan);
    }
    groups_deleted(&before, &after, "node_groups", &names, target, plan);
}

/// Whether a live managed node group changes `field` in place: its sizes, or what
/// `UpdateNodegroupConfig` takes.
fn in_place_on_managed(field: &str) -> bool {
    !taken(field, TakesChange::Replacement)
}

/// Why a group is replaced: `fixed` names the changed fields the running group cannot take,
/// and the ones it could take are said to come with the new group.
fn replacement_reason(
    fields: &[String],
    in_place: impl Fn(&str) -> bool,
    fixed: impl FnOnce(&str) -> String,
) -> String {
    let (could, cannot): (Vec<&str>, Vec<&str>) = fields
        .iter()
        .map(String::as_str)
        .partition(|field| in_place(field));
    let mut why = fixed(&cannot.join(", "));
    if !could.is_empty() {
        why.push_str(&format!(
            " ({} change with it, on the new group)",
            could.join(", ")
        ));
    }
    why
}

/// eksctl's self-managed groups (`nodeGroups`): eksctl changes a running one's sizes only
/// (`eksctl scale nodegroup` sets its Auto Scaling group's); every other change is a new
/// group, and a group gone is deleted with its stack, nodes drained.
fn self_managed_changes(old: &Value, new: &Value, target: &Target, plan: &mut Plan) {
    let by_name = |group: &Value| text(group, "name").to_owned();
    let before = items_by(old, "nodeGroups", by_name);
    let after = items_by(new, "nodeGroups", by_name);
    let mut names = GroupNames::of(old, new, "nodeGroups");
    for pairing in pair_up(&before, &after) {
        let Pairing::Kept(name, group, previous, fields) = pairing else {
            if let Pairing::Added(name, _) = pairing {
                plan.changes.push(group_created(name));
            }
            continue;
        };
        if fields.is_empty() {
            continue;
        }
        if fields.iter().all(|field| taken(field, TakesChange::Scale)) {
            let mut change = update_node_group(name, previous, group, &fields, target);
            // No EKS here: the Auto Scaling group terminates the instances it picks, and
            // eksctl drains none of them.
            if let (Some(was), Some(will)) = (
                number(previous, "desiredCapacity"),
                number(group, "desiredCapacity"),
            ) && will < was
            {
                change.disruption = format!(
                    "scales in from {was} to {will} nodes: the Auto Scaling group terminates {} of them, undrained",
                    was - will
                );
            }
            plan.changes.push(change);
            continue;
        }
        let why = replacement_reason(
            &fields,
            |field| taken(field, TakesChange::Scale),
            |fixed| {
                format!(
                    "{fixed} of self-managed node group `{name}` cannot change on a running group (eksctl changes only its sizes)"
                )
            },
        );
        let replacing = Replacing {
            name,
            previous,
            group,
            list: "nodeGroups",
        };
        replaced_under_its_name(&replacing, fields, &why, &mut names, target, plan);
    }
    groups_deleted(&before, &after, "nodeGroups", &names, target, plan);
}

/// The names of the groups (managed and self-managed: eksctl names both kinds' stacks
/// alike) the cluster runs, in the list at hand and in the other one, and the design
/// names; and the leftover interim groups a replacement takes over.
struct GroupNames {
    running: BTreeSet<String>,
    running_elsewhere: BTreeSet<String>,
    designed: BTreeSet<String>,
    taken_over: BTreeSet<String>,
}

impl GroupNames {
    /// The names for the groups of `list` (`managedNodeGroups` or `nodeGroups`).
    fn of(old: &Value, new: &Value, list: &str) -> GroupNames {
        let names = |document: &Value, lists: &[&str]| -> BTreeSet<String> {
            lists
                .iter()
                .flat_map(|list| items_by(document, list, |group| text(group, "name").to_owned()))
                .map(|(name, _)| name)
                .collect()
        };
        let both = ["managedNodeGroups", "nodeGroups"];
        let other: Vec<&str> = both.into_iter().filter(|other| *other != list).collect();
        GroupNames {
            running: names(old, &[list]),
            running_elsewhere: names(old, &other),
            designed: names(new, &both),
            taken_over: BTreeSet::new(),
        }
    }
}

/// The group that holds a replaced group's pods while it is made again under its name:
/// `NAME-interim` (`NAME-interim-2`… when the design or a group of the other kind has
/// that name), and whether the cluster already runs it (left by an apply that stopped
/// half-way). `None` when no such name fits a node label's 63 characters (EKS labels
/// each node with its group's name).
fn interim_name(name: &str, names: &GroupNames) -> Option<(String, bool)> {
    (1..10)
        .map(|count| match count {
            1 => format!("{name}-interim"),
            _ => format!("{name}-interim-{count}"),
        })
        .find(|candidate| {
            !names.designed.contains(candidate) && !names.running_elsewhere.contains(candidate)
        })
        .filter(|candidate| candidate.len() <= 63)
        .map(|candidate| {
            let running = names.running.contains(&candidate);
            (candidate, running)
        })
}

/// A group the plan replaces under its name: its name, as it runs, as the design has it,
/// and the list it is in (as findings name it).
struct Replacing<'a> {
    name: &'a str,
    previous: &'a Value,
    group: &'a Value,
    list: &'a str,
}

/// A group changed where it cannot change, kept under its name. eksctl refuses a second
/// group of a name, so its pods move to an interim group made from the design's settings
/// (`INTERIM_FILE`), the group is drained and deleted, made again, and the interim group
/// drained and deleted: something runs the pods throughout. A group on a capacity
/// reservation, before or after, is deleted first instead (an interim group would take
/// the reserved capacity the group needs), with a warning for the reservation it leaves;
/// `why` says what cannot change.
fn replaced_under_its_name(
    replacing: &Replacing<'_>,
    fields: Vec<String>,
    why: &str,
    names: &mut GroupNames,
    target: &Target,
    plan: &mut Plan,
) {
    let Replacing {
        name,
        previous,
        group,
        list,
    } = *replacing;
    let reserved =
        previous.get("capacityReservation").is_some() || group.get("capacityReservation").is_some();
    let interim = if reserved {
        None
    } else {
        interim_name(name, names)
    };
    let nodes = nodes_of(previous);
    let mut made_first = None;
    let (message, disruption, steps) = match interim {
        Some((interim, running)) => {
            let mut steps = Vec::new();
            if running {
                names.taken_over.insert(interim.clone());
            } else {
                steps.push(create_interim_group(&interim));
                made_first = Some(interim.clone());
            }
            steps.extend([
                delete_node_group(name, target),
                create_node_group(name),
                delete_node_group(&interim, target),
            ]);
            let made = if running {
                "already runs"
            } else {
                "is made first"
            };
            (
                format!(
                    "{why}, and eksctl cannot create a second group named `{name}`: an interim group `{interim}` with the new settings {made}, `{name}` is drained and made again, then `{interim}` is drained and deleted. The pods are evicted twice, both groups' instances run (and are paid for) meanwhile, and a pod that selects the group by its name (`eks.amazonaws.com/nodegroup`, `alpha.eksctl.io/nodegroup-name`) waits for the new group"
                ),
                format!(
                    "drains {nodes} running pods onto interim group `{interim}`, then back onto the new group"
                ),
                steps,
            )
        }
        None => {
            let reason = if reserved {
                "and it runs on a capacity reservation an interim group would take"
            } else {
                "and no interim name fits"
            };
            (
                format!(
                    "{why}, eksctl cannot create a second group named `{name}`, {reason}: the plan deletes it before the new one exists, and its pods have nowhere to run meanwhile"
                ),
                format!("drains {nodes} running pods, then makes the new group"),
                vec![delete_node_group(name, target), create_node_group(name)],
            )
        }
    };
    plan.findings.push(
        changes::NODEGROUP_REPLACED_UNDER_ITS_NAME.finding(format!("{list}[{name}]"), message),
    );
    if let Some(reservation) = reservation_of(previous) {
        plan.findings.push(changes::NODEGROUP_LEAVES_RESERVATION.finding(
            format!("{list}[{name}]"),
            format!("node group `{name}` runs on capacity reservation {reservation}: while it is replaced, the reservation's instances are released and another account's launch may take them"),
        ));
    }
    plan.changes.push(Change {
        kind: "nodegroup".into(),
        name: name.to_owned(),
        action: Action::Replace,
        fields,
        disruptive: true,
        disruption,
        steps,
        interim: made_first,
        workloads: Vec::new(),
    });
}

/// `eksctl create nodegroup --config-file cluster-interim.yaml --include NAME`.
fn create_interim_group(name: &str) -> Step {
    Step::eksctl(&[
        "create",
        "nodegroup",
        "--config-file",
        INTERIM_FILE,
        "--include",
        name,
    ])
    .waits("the group's nodes to join", EKSCTL_WAIT)
}

/// A node group made from the design's file.
fn group_created(name: &str) -> Change {
    Change {
        kind: "nodegroup".into(),
        name: name.to_owned(),
        action: Action::Create,
        fields: Vec::new(),
        disruptive: false,
        disruption: String::new(),
        steps: vec![create_node_group(name)],
        interim: None,
        workloads: Vec::new(),
    }
}

/// `eksctl create nodegroup --config-file cluster.yaml --include NAME`.
fn create_node_group(name: &str) -> Step {
    Step::eksctl(&[
        "create",
        "nodegroup",
        "--config-file",
        CLUSTER_FILE,
        "--include",
        name,
    ])
    .waits("the group's nodes to join", EKSCTL_WAIT)
}

/// Every group of `before` that `after` does not name, drained and deleted; a finding
/// (at `list[name]`) for each that leaves a capacity reservation.
fn groups_deleted(
    before: &[(String, &Value)],
    after: &[(String, &Value)],
    list: &str,
    names: &GroupNames,
    target: &Target,
    plan: &mut Plan,
) {
    for (name, group) in before {
        if after.iter().any(|(new_name, _)| new_name == name) || names.taken_over.contains(name) {
            continue;
        }
        plan.changes.push(Change {
            kind: "nodegroup".into(),
            name: name.clone(),
            action: Action::Delete,
            fields: Vec::new(),
            disruptive: true,
            disruption: format!("drains {} running pods, then deletes them", nodes_of(group)),
            steps: vec![delete_node_group(name, target)],
            interim: None,
            workloads: Vec::new(),
        });
        if let Some(reservation) = reservation_of(group) {
            plan.findings.push(changes::NODEGROUP_LEAVES_RESERVATION.finding(
                format!("{list}[{name}]"),
                format!("node group `{name}` runs on capacity reservation {reservation}, which no group of the new design targets: its instances are released"),
            ));
        }
    }
}

fn delete_node_group(name: &str, target: &Target) -> Step {
    target
        .command(
            Tool::Eksctl,
            &[
                "delete",
                "nodegroup",
                "--name",
                name,
                "--drain=true",
                "--approve",
                "--wait",
            ],
        )
        .waits(
            "the group's nodes to drain and its stack to go",
            EKSCTL_WAIT,
        )
        .moving_pods()
        .deleting(format!("nodegroup {name}"))
}

fn update_node_group(
    name: &str,
    previous: &Value,
    group: &Value,
    fields: &[String],
    target: &Target,
) -> Change {
    let mut steps = Vec::new();
    let mut disruption = String::new();
    if fields.iter().any(|field| taken(field, TakesChange::Scale)) {
        let mut command = scaled_to(name, group, target);
        // eksctl waits for the scaling to finish (a scale-in's drain) only when told to.
        command = command
            .arg("--wait")
            .waits("the group to reach its new size", EKSCTL_WAIT);
        let was = number(previous, "desiredCapacity");
        let will = number(group, "desiredCapacity");
        if let (Some(was), Some(will)) = (was, will)
            && will < was
        {
            disruption = format!(
                "scales in from {was} to {will} nodes: EKS drains and removes {} of them",
                was - will
            );
            command = command.moving_pods();
        }
        steps.push(command);
    }
    if let Some(field) = fields
        .iter()
        .find(|field| taken(field, TakesChange::ReleaseVersion))
    {
        let release = text(group, field);
        let roll = target
            .command(
                Tool::Eksctl,
                &[
                    "upgrade",
                    "nodegroup",
                    "--name",
                    name,
                    "--release-version",
                    release,
                ],
            )
            .waits("the group's nodes to roll", NODEGROUP_UPGRADE_WAIT)
            .moving_pods();
        let (rolled, stopped) = match capacity_block_of(previous) {
            Some(_) => rolled_on_block(name, previous, group, roll, target),
            None => (
                vec![roll],
                Some(format!(
                    "rolls its {} to AMI release {release}, draining a few at a time",
                    nodes_of(group)
                )),
            ),
        };
        steps.extend(rolled);
        if let Some(stopped) = stopped {
            disruption = if disruption.is_empty() {
                stopped
            } else {
                format!("{disruption}; {stopped}")
            };
        }
    }
    let config: Vec<&String> = fields
        .iter()
        .filter(|field| taken(field, TakesChange::NodegroupConfig))
        .collect();
    if !config.is_empty() {
        let mut command = Step::aws(&[
            "eks",
            "update-nodegroup-config",
            "--cluster-name",
            &target.cluster,
            "--nodegroup-name",
            name,
            "--region",
            &target.region,
        ]);
        for field in config {
            let (flag, value) = match field.as_str() {
                "labels" => ("--labels", labels_update(previous, group)),
                "taints" => ("--taints", taints_update(previous, group)),
                "updateConfig" => ("--update-config", json_of(group.get("updateConfig"))),
                "nodeRepairConfig" => (
                    "--node-repair-config",
                    json_of(group.get("nodeRepairConfig")),
                ),
                _ => continue,
            };
            command = command.arg(flag).arg(value);
        }
        steps.push(command);
    }
    Change {
        kind: "nodegroup".into(),
        name: name.to_owned(),
        action: Action::Update,
        fields: fields.to_vec(),
        disruptive: !disruption.is_empty(),
        disruption,
        steps,
        interim: None,
        workloads: Vec::new(),
    }
}

/// A value as compact JSON (the AWS CLI's structure arguments).
fn json_of(value: Option<&Value>) -> String {
    value
        .and_then(|value| serde_json::to_string(value).ok())
        .unwrap_or_else(|| "{}".to_owned())
}

/// `UpdateNodegroupConfig`'s labels argument: labels to add or change, labels to remove.
fn labels_update(previous: &Value, group: &Value) -> String {
    let empty = yaml_serde::Mapping::new();
    let old = previous
        .get("labels")
        .and_then(Value::as_mapping)
        .unwrap_or(&empty);
    let new = group
        .get("labels")
        .and_then(Value::as_mapping)
        .unwrap_or(&empty);
    let mut add = serde_json::Map::new();
    for (key, value) in new {
        if old.get(key) != Some(value) {
            add.insert(
                key_text(key),
                serde_json::Value::String(value.as_str().unwrap_or_default().to_owned()),
            );
        }
    }
    let remove: Vec<serde_json::Value> = old
        .keys()
        .filter(|key| !new.contains_key(*key))
        .map(|key| serde_json::Value::String(key_text(key)))
        .collect();
    serde_json::json!({ "addOrUpdateLabels": add, "removeLabels": remove }).to_string()
}

/// `UpdateNodegroupConfig`'s taints argument, effects in EKS's spelling.
fn taints_update(previous: &Value, group: &Value) -> String {
    let taints = |value: &Value| -> Vec<serde_json::Value> {
        match value.get("taints") {
            Some(Value::Sequence(items)) => items
                .iter()
                .map(|taint| {
                    let effect = match text(taint, "effect") {
                        "NoSchedule" => "NO_SCHEDULE",
                        "PreferNoSchedule" => "PREFER_NO_SCHEDULE",
                        "NoExecute" => "NO_EXECUTE",
                        other => other,
                    };
                    let mut entry =
                        serde_json::json!({ "key": text(taint, "key"), "effect": effect });
                    if let Some(value) = taint.get("value").and_then(Value::as_str) {
                        entry["value"] = serde_json::Value::String(value.to_owned());
                    }
                    entry
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    let old = taints(previous);
    let new = taints(group);
    let add: Vec<&serde_json::Value> = new.iter().filter(|taint| !old.contains(taint)).collect();
    let remove: Vec<&serde_json::Value> = old
        .iter()
        .filter(|taint| {
            !new.iter()
                .any(|kept| kept["key"] == taint["key"] && kept["effect"] == taint["effect"])
        })
        .collect();
    serde_json::json!({ "addOrUpdateTaints": add, "removeTaints": remove }).to_string()
}

/// What became of one object of two lists matched by identity.
enum Pairing<'a> {
    /// Only the new list has it.
    Added(&'a str, &'a Value),
    /// Both have it: the new one, the old one, and the keys that changed (possibly none).
    Kept(&'a str, &'a Value, &'a Value, Vec<String>),
    /// Only the old list has it.
    Removed(&'a str),
}

/// Each object of `after` (added or kept), then each of `before` that `after` lacks.
fn pair_up<'a>(
    before: &[(String, &'a Value)],
    after: &'a [(String, &'a Value)],
) -> Vec<Pairing<'a>> {
    let pairs: Vec<Pairing<'a>> = after
        .iter()
        .map(
            |(name, value)| match before.iter().find(|(old, _)| old == name) {
                None => Pairing::Added(name, value),
                Some((_, previous)) => {
                    Pairing::Kept(name, value, previous, changed_keys(previous, value, ""))
                }
            },
        )
        .collect();
    pairs
}

/// The identities of `before` that `after` lacks.
fn removed<'a>(before: &'a [(String, &'a Value)], after: &[(String, &Value)]) -> Vec<Pairing<'a>> {
    before
        .iter()
        .filter(|(name, _)| !after.iter().any(|(new, _)| new == name))
        .map(|(name, _)| Pairing::Removed(name))
        .collect()
}

fn addon_changes(old: &Value, new: &Value, target: &Target, plan: &mut Plan) {
    let by_name = |addon: &Value| text(addon, "name").to_owned();
    let before = items_by(old, "addons", by_name);
    let after = items_by(new, "addons", by_name);
    // eksctl waits for an add-on to be active only when told to (`--wait`, off by
    // default in `create addon` and `update addon`): the node groups come after.
    let with_version = |mut command: Step, addon: &Value| {
        if let Some(version) = addon.get("version").and_then(Value::as_str) {
            command = command.arg(format!("--version={version}"));
        }
        command
            .arg("--wait")
            .waits("the add-on to be active", EKSCTL_WAIT)
    };
    for pairing in pair_up(&before, &after)
        .into_iter()
        .chain(removed(&before, &after))
    {
        let change = match pairing {
            Pairing::Added(name, addon) => {
                let command = target.command(Tool::Eksctl, &["create", "addon", "--name", name]);
                simple(
                    Action::Create,
                    "addon",
                    name,
                    Vec::new(),
                    vec![with_version(command, addon)],
                )
            }
            Pairing::Kept(_, _, _, fields) if fields.is_empty() => continue,
            Pairing::Kept(name, addon, _, fields) => {
                let command = if fields.iter().all(|field| field == "version") {
                    let command =
                        target.command(Tool::Eksctl, &["update", "addon", "--name", name]);
                    with_version(command, addon)
                } else {
                    // Configuration values, identities: from the file, as eksctl reads them.
                    Step::eksctl(&["update", "addon", "--config-file", CLUSTER_FILE, "--wait"])
                        .waits("the add-on to be active", EKSCTL_WAIT)
                };
                simple(Action::Update, "addon", name, fields, vec![command])
            }
            Pairing::Removed(name) => {
                let command = target
                    .command(Tool::Eksctl, &["delete", "addon", "--name", name])
                    .deleting(format!("addon {name}"));
                simple(Action::Delete, "addon", name, Vec::new(), vec![command])
            }
        };
        plan.changes.push(change);
    }
}

fn simple(action: Action, kind: &str, name: &str, fields: Vec<String>, steps: Vec<Step>) -> Change {
    Change {
        kind: kind.into(),
        name: name.into(),
        action,
        fields,
        disruptive: false,
        disruption: String::new(),
        steps,
        interim: None,
        workloads: Vec::new(),
    }
}

fn access_changes(old: &Value, new: &Value, target: &Target, plan: &mut Plan) {
    let principal = |entry: &Value| text(entry, "principalARN").to_owned();
    let null = Value::Null;
    let old_access = old.get("accessConfig").unwrap_or(&null);
    let new_access = new.get("accessConfig").unwrap_or(&null);
    let before = items_by(old_access, "accessEntries", principal);
    let after = items_by(new_access, "accessEntries", principal);
    let create = || Step::eksctl(&["create", "accessentry", "--config-file", CLUSTER_FILE]);
    let delete = |principal: &str| {
        target
            .command(
                Tool::Eksctl,
                &["delete", "accessentry", "--principal-arn", principal],
            )
            .deleting(format!("accessentry {principal}"))
    };
    for pairing in pair_up(&before, &after)
        .into_iter()
        .chain(removed(&before, &after))
    {
        let change = match pairing {
            Pairing::Added(principal, _) => simple(
                Action::Create,
                "accessentry",
                principal,
                Vec::new(),
                vec![create()],
            ),
            Pairing::Kept(_, _, _, fields) if fields.is_empty() => continue,
            // eksctl has no update of an access entry: it is deleted and made again.
            Pairing::Kept(principal, _, _, fields) => simple(
                Action::Replace,
                "accessentry",
                principal,
                fields,
                vec![delete(principal), create()],
            ),
            Pairing::Removed(principal) => simple(
                Action::Delete,
                "accessentry",
                principal,
                Vec::new(),
                vec![delete(principal)],
            ),
        };
        plan.changes.push(change);
    }
    let account = |association: &Value| {
        format!(
            "{}/{}",
            text(association, "namespace"),
            text(association, "serviceAccountName")
        )
    };
    let old_iam = old.get("iam").unwrap_or(&null);
    let new_iam = new.get("iam").unwrap_or(&null);
    let before = items_by(old_iam, "podIdentityAssociations", account);
    let after = items_by(new_iam, "podIdentityAssociations", account);
    let from_file = |verb: &str| {
        Step::eksctl(&[
            verb,
            "podidentityassociation",
            "--config-file",
            CLUSTER_FILE,
        ])
    };
    by_account(
        &before,
        &after,
        "podidentityassociation",
        plan,
        |action, account| match action {
            Action::Create => from_file("create"),
            Action::Update => from_file("update"),
            _ => {
                let (namespace, service_account) = account.split_once('/').unwrap_or((account, ""));
                target
                    .command(
                        Tool::Eksctl,
                        &[
                            "delete",
                            "podidentityassociation",
                            "--namespace",
                            namespace,
                            "--service-account-name",
                            service_account,
                        ],
                    )
                    .deleting(format!("podidentityassociation {account}"))
            }
        },
    );
}

/// Objects named by `NAMESPACE/NAME` (Pod Identity associations, service account roles):
/// each added one created, each changed one updated and each removed one deleted, by the
/// command `step` gives for the action and the object.
fn by_account(
    before: &[(String, &Value)],
    after: &[(String, &Value)],
    kind: &str,
    plan: &mut Plan,
    step: impl Fn(Action, &str) -> Step,
) {
    for pairing in pair_up(before, after)
        .into_iter()
        .chain(removed(before, after))
    {
        let (action, account, fields) = match pairing {
            Pairing::Added(account, _) => (Action::Create, account, Vec::new()),
            Pairing::Kept(_, _, _, fields) if fields.is_empty() => continue,
            Pairing::Kept(account, _, _, fields) => (Action::Update, account, fields),
            Pairing::Removed(account) => (Action::Delete, account, Vec::new()),
        };
        let steps = vec![step(action, account)];
        plan.changes
            .push(simple(action, kind, account, fields, steps));
    }
}

/// IAM roles for service accounts (`iam.serviceAccounts`), by namespace and name: eksctl
/// creates and updates them from the file (`--include NAMESPACE/NAME`, pkg/ctl/create and
/// update iamserviceaccount) and deletes one by name.
fn service_account_changes(old: &Value, new: &Value, target: &Target, plan: &mut Plan) {
    let null = Value::Null;
    let account = |entry: &Value| {
        let metadata = entry.get("metadata").unwrap_or(&null);
        let namespace = match text(metadata, "namespace") {
            "" => "default",
            namespace => namespace,
        };
        format!("{namespace}/{}", text(metadata, "name"))
    };
    let before = items_by(old.get("iam").unwrap_or(&null), "serviceAccounts", account);
    let after = items_by(new.get("iam").unwrap_or(&null), "serviceAccounts", account);
    let from_file = |verb: &str, account: &str| {
        Step::eksctl(&[
            verb,
            "iamserviceaccount",
            "--config-file",
            CLUSTER_FILE,
            "--include",
            account,
            "--approve",
        ])
    };
    by_account(
        &before,
        &after,
        "iamserviceaccount",
        plan,
        |action, account| match action {
            Action::Create => from_file("create", account),
            Action::Update => from_file("update", account),
            _ => {
                let (namespace, name) = account.split_once('/').unwrap_or(("default", account));
                target
                    .command(
                        Tool::Eksctl,
                        &[
                            "delete",
                            "iamserviceaccount",
                            "--namespace",
                            namespace,
                            "--name",
                            name,
                            "--wait",
                        ],
                    )
                    .deleting(format!("iamserviceaccount {account}"))
            }
        },
    );
}

fn object_changes(old: &[Value], new: &[Value], plan: &mut Plan) {
    let identity = |object: &Value| -> (String, String) {
        let kind = text(object, "kind").to_owned();
        let name = object
            .get("metadata")
            .map(|metadata| text(metadata, "name").to_owned())
            .unwrap_or_default();
        (kind, name)
    };
    let file_of = |object: &Value| {
        if text(object, "apiVersion").starts_with("eks.amazonaws.com/")
            || object
                .get("spec")
                .and_then(|spec| spec.get("template"))
                .and_then(|template| template.get("spec"))
                .and_then(|spec| spec.get("nodeClassRef"))
                .is_some_and(|reference| text(reference, "group") == "eks.amazonaws.com")
        {
            AUTO_MODE_FILE
        } else {
            KARPENTER_FILE
        }
    };
    // Karpenter's objects by server-side apply under the studio's field manager (kubectl
    // moves the fields a client-side apply owned to it, kubernetes/kubernetes#112905);
    // Auto Mode's by client-side apply, whose last-applied annotation is what a read
    // takes them from (EKS's NodeClass schema, which fills in the rest, is not public).
    let apply = |object: &Value| match file_of(object) {
        AUTO_MODE_FILE => Step::kubectl(&["apply", "-f", AUTO_MODE_FILE]),
        file => Step::kubectl(&[
            "apply",
            "--server-side",
            "--field-manager=eks-studio",
            "-f",
            file,
        ]),
    };
    for object in new {
        let (kind, name) = identity(object);
        match old
            .iter()
            .find(|previous| identity(previous) == (kind.clone(), name.clone()))
        {
            None => plan.changes.push(simple(
                Action::Create,
                &kind,
                &name,
                Vec::new(),
                with_wait(&kind, &name, apply(object)),
            )),
            Some(previous) => {
                let mut fields = changed_keys(
                    previous.get("spec").unwrap_or(&Value::Null),
                    object.get("spec").unwrap_or(&Value::Null),
                    "spec.",
                );
                fields.extend(changed_keys(
                    previous.get("metadata").unwrap_or(&Value::Null),
                    object.get("metadata").unwrap_or(&Value::Null),
                    "metadata.",
                ));
                if fields.is_empty() {
                    continue;
                }
                let mut change = simple(
                    Action::Update,
                    &kind,
                    &name,
                    fields.clone(),
                    with_wait(&kind, &name, apply(object)),
                );
                if kind == "NodePool" {
                    let was_static = previous
                        .get("spec")
                        .and_then(|spec| spec.get("replicas"))
                        .is_some();
                    let is_static = object
                        .get("spec")
                        .and_then(|spec| spec.get("replicas"))
                        .is_some();
                    if was_static != is_static {
                        plan.findings.push(changes::NODEPOOL_STATIC_DYNAMIC.finding(
                            format!("karpenter.node_pools[{name}]"),
                            format!("NodePool `{name}` switches between static (`replicas`) and dynamic: Karpenter's CRD refuses the change on an existing NodePool"),
                        ));
                    }
                    let template = |pool: &Value| {
                        pool.get("spec")
                            .and_then(|spec| spec.get("template"))
                            .cloned()
                            .unwrap_or(Value::Null)
                    };
                    let (before, after) = (template(previous), template(object));
                    if before != after {
                        match template_drift(&before, &after) {
                            Drift::Every => {
                                change.disruptive = true;
                                change.disruption = format!(
                                    "Karpenter finds the nodes of NodePool `{name}` drifted and replaces them, within the pool's disruption budgets"
                                );
                            }
                            Drift::Unmet => {
                                change.disruptive = true;
                                change.disruption = format!(
                                    "Karpenter finds drifted the nodes of NodePool `{name}` whose labels no longer meet its requirements, and replaces them within the pool's disruption budgets"
                                );
                            }
                            Drift::None => {}
                        }
                    }
                } else if kind == "EC2NodeClass" {
                    // Karpenter's EC2NodeClass hash (pkg/apis/v1/ec2nodeclass.go) leaves out
                    // the selector terms, `amiFamily` and `ipPrefixCount`: a change of those
                    // drifts only the nodes whose AMI, subnet, security groups or reservation
                    // the selectors no longer resolve to; any other field drifts every node.
                    const RESOLVED: &[&str] = &[
                        "spec.subnetSelectorTerms",
                        "spec.securityGroupSelectorTerms",
                        "spec.capacityReservationSelectorTerms",
                        "spec.amiSelectorTerms",
                        "spec.amiFamily",
                        "spec.ipPrefixCount",
                    ];
                    let hashed = fields.iter().any(|field| {
                        field.starts_with("spec.") && !RESOLVED.contains(&field.as_str())
                    });
                    let resolved = fields.iter().any(|field| {
                        RESOLVED.contains(&field.as_str()) && field != "spec.ipPrefixCount"
                    });
                    if hashed {
                        change.disruptive = true;
                        change.disruption = format!(
                            "Karpenter finds the nodes launched from EC2NodeClass `{name}` drifted and replaces them, within their pools' disruption budgets"
                        );
                    } else if resolved {
                        change.disruptive = true;
                        change.disruption = format!(
                            "Karpenter finds drifted the nodes launched from EC2NodeClass `{name}` whose AMI, subnet, security groups or capacity reservation the changed selectors no longer resolve to, and replaces them within their pools' disruption budgets"
                        );
                    }
                } else if kind == "NodeClass" {
                    change.disruptive = true;
                    change.disruption = format!(
                        "EKS Auto Mode finds the nodes launched from NodeClass `{name}` drifted (their subnets, security groups or launch settings) and replaces them, within their pools' disruption budgets"
                    );
                }
                if change.disruptive {
                    // The apply is what Karpenter (or Auto Mode) replaces nodes for.
                    change.steps[0].moves_pods = true;
                }
                plan.changes.push(change);
            }
        }
    }
    for object in old {
        let (kind, name) = identity(object);
        if !new
            .iter()
            .any(|candidate| identity(candidate) == (kind.clone(), name.clone()))
        {
            // `KIND.GROUP/NAME`, one word: a name read from the cluster is never taken for
            // one of kubectl's flags (`--all`), and the kind is the one of that group.
            let group = object
                .get("apiVersion")
                .and_then(Value::as_str)
                .and_then(|version| version.rsplit_once('/'))
                .map(|(group, _)| group)
                .unwrap_or_default();
            let mut resource = kind.to_ascii_lowercase();
            if !group.is_empty() {
                resource = format!("{resource}.{group}");
            }
            let step = Step::kubectl(&["delete", &format!("{resource}/{name}")])
                .deleting(format!("{kind} {name}"));
            let mut change = simple(Action::Delete, &kind, &name, Vec::new(), vec![step]);
            if kind == "NodePool" {
                change.disruptive = true;
                change.disruption =
                    format!("Karpenter drains and terminates every node of NodePool `{name}`");
                change.steps[0].moves_pods = true;
            }
            plan.changes.push(change);
        }
    }
}

/// Which nodes of a NodePool a change of its template drifts.
enum Drift {
    /// Every node: the template's hash changed (labels, annotations, taints, startup taints,
    /// the node class, expireAfter, terminationGracePeriod).
    Every,
    /// The nodes whose labels no longer meet the requirements.
    Unmet,
    /// None: the requirements only widened, so every node still meets them.
    None,
}

/// Karpenter (pkg/apis/v1/nodeclaim.go, `NodePool.Hash`; the drift controller): a node
/// is drifted when the template's hash changes, which leaves out `requirements` and
/// `resources` (`hash:"ignore"`); the requirements drift only the nodes whose labels no
/// longer meet them.
fn template_drift(before: &Value, after: &Value) -> Drift {
    let without_requirements = |template: &Value| {
        let mut template = template.clone();
        if let Some(Value::Mapping(spec)) = template.get_mut("spec") {
            spec.remove("requirements");
            spec.remove("resources");
        }
        template
    };
    if without_requirements(before) != without_requirements(after) {
        return Drift::Every;
    }
    let requirements = |template: &Value| -> Vec<Value> {
        template
            .get("spec")
            .and_then(|spec| spec.get("requirements"))
            .and_then(Value::as_sequence)
            .cloned()
            .unwrap_or_default()
    };
    let (old, new) = (requirements(before), requirements(after));
    // Widened: each requirement now is one that was there (minValues aside), or an `In`
    // whose values hold all the values it had.
    let values = |requirement: &Value| -> Vec<String> {
        requirement
            .get("values")
            .and_then(Value::as_sequence)
            .map(|values| {
                values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let bare = |requirement: &Value| {
        (
            text(requirement, "key").to_owned(),
            text(requirement, "operator").to_owned(),
            values(requirement),
        )
    };
    let widened = new.iter().all(|now| {
        old.iter().any(|was| {
            let (key, operator, had) = bare(was);
            let (now_key, now_operator, has) = bare(now);
            key == now_key
                && operator == now_operator
                && (had == has || (operator == "In" && had.iter().all(|value| has.contains(value))))
        })
    });
    if widened { Drift::None } else { Drift::Unmet }
}

/// How long an apply waits for a NodePool Karpenter has accepted (its `Ready`
/// condition, set once its NodeClass is ready).
pub const NODEPOOL_READY_TIMEOUT: &str = "300s";

/// `kubectl apply` of an object, and for a NodePool `kubectl wait` until Karpenter reports
/// it `Ready`: what replaces a pool exists before the old one goes.
fn with_wait(kind: &str, name: &str, apply: Step) -> Vec<Step> {
    let mut steps = vec![apply];
    if kind == "NodePool" {
        steps.push(
            Step::kubectl(&["wait", "--for=condition=Ready"])
                .arg(format!("nodepool/{name}"))
                .arg(format!("--timeout={NODEPOOL_READY_TIMEOUT}"))
                .waits(
                    &format!("NodePool `{name}` to be Ready"),
                    NODEPOOL_READY_TIMEOUT,
                ),
        );
    }
    steps
}

/// The accelerators a design can run pods on (`nvidia.com/gpu`, `aws.amazon.com/neuron`),
/// each with the node groups and NodePools that offer it.
fn accelerators(spec: &Spec) -> std::collections::BTreeMap<&'static str, Vec<String>> {
    use crate::catalog::instances::InstanceType;
    let resource = |instance: &InstanceType| {
        if instance.nvidia_gpu {
            Some("nvidia.com/gpu")
        } else if instance.neuron {
            Some("aws.amazon.com/neuron")
        } else {
            None
        }
    };
    // Each place that can launch instances, with the types it can launch.
    let groups = spec.node_groups.iter().map(|group| {
        let types: Vec<&InstanceType> = std::iter::once(&group.instance_type)
            .chain(&group.instance_types)
            .filter_map(|name| crate::catalog::instances::lookup(name))
            .collect();
        (format!("node group `{}`", group.name), types)
    });
    let pools = spec
        .karpenter
        .iter()
        .flat_map(|karpenter| &karpenter.node_pools)
        .map(|pool| {
            (
                format!("NodePool `{}`", pool.metadata.name),
                crate::upstream::matching::matching_instance_types(pool),
            )
        });
    let mut offered: std::collections::BTreeMap<&'static str, Vec<String>> = Default::default();
    for (place, types) in groups.chain(pools) {
        let kinds: BTreeSet<&'static str> = types.into_iter().filter_map(resource).collect();
        for kind in kinds {
            offered.entry(kind).or_default().push(place.clone());
        }
    }
    offered
}

/// A plan after which no node group or NodePool offers an accelerator the cluster had:
/// pods that ask for it stay Pending (the scheduler has no node with the resource, and
/// Karpenter no pool that could launch one).
fn accelerators_left(before: &Spec, after: &Spec, plan: &mut Plan) {
    let remaining = accelerators(after);
    for (resource, places) in accelerators(before) {
        if remaining.contains_key(resource) {
            continue;
        }
        plan.findings.push(changes::LEAVES_ACCELERATOR_PODS_NOWHERE.finding(
            "node_groups",
            format!(
                "after this plan no node group or NodePool offers {resource} (today: {}): pods that ask for it stay Pending",
                places.join(", ")
            ),
        ));
    }
}

/// The settings of the Karpenter chart's values, one level down and the feature gates one
/// further (`interruptionQueue`, `featureGates.nodeRepair`), with their values.
fn chart_settings(spec: &Spec) -> Option<Vec<(String, Value)>> {
    let values = crate::documents::render::karpenter_values(spec)?;
    let values = yaml_serde::to_value(values).ok()?;
    let mut flat = Vec::new();
    for (key, value) in values.get("settings")?.as_mapping()? {
        let key = key_text(key);
        match value.as_mapping() {
            Some(inner) if key == "featureGates" => flat.extend(
                inner
                    .iter()
                    .map(|(gate, on)| (format!("featureGates.{}", key_text(gate)), on.clone())),
            ),
            _ => flat.push((key, value.clone())),
        }
    }
    Some(flat)
}

/// The Karpenter chart's settings or release changed on a cluster that runs Karpenter:
/// `helm upgrade` of the release with the new `karpenter/values.yaml` over the values it
/// runs with (`--reuse-values` keeps what the deploy set, such as an IRSA role's
/// annotation), and each setting the new file drops set to `null`, which helm takes as
/// removing it. The controller restarts; the nodes it launched keep running. (Installing
/// or removing Karpenter itself is a deploy's, not a plan's.)
///
/// A newer release first brings its CRDs: `helm upgrade` does not change the CRDs a chart
/// installed from its `crds/` folder, so they are handed to the `karpenter-crd` chart (the
/// labels and annotations Karpenter's troubleshooting guide gives for "invalid ownership
/// metadata") and upgraded with it, as Karpenter's upgrade guide says. An older release
/// leaves the newer CRDs in place.
fn chart_changes(before: &Spec, after: &Spec, plan: &mut Plan) {
    use crate::deploy::sequence::{KARPENTER_CHART, KARPENTER_CRD_CHART};
    let (Some(old), Some(new)) = (chart_settings(before), chart_settings(after)) else {
        return;
    };
    let release = |spec: &Spec| {
        spec.karpenter
            .as_ref()
            .map(|karpenter| karpenter.release)
            .unwrap_or_default()
    };
    let (from, to) = (release(before), release(after));
    let mut fields: Vec<String> = Vec::new();
    let mut dropped: Vec<String> = Vec::new();
    for (key, value) in &old {
        match new.iter().find(|(new_key, _)| new_key == key) {
            None => {
                fields.push(format!("settings.{key}"));
                dropped.push(key.clone());
            }
            Some((_, new_value)) if new_value != value => fields.push(format!("settings.{key}")),
            Some(_) => {}
        }
    }
    for (key, _) in &new {
        if !old.iter().any(|(old_key, _)| old_key == key) {
            fields.push(format!("settings.{key}"));
        }
    }
    fields.sort();
    if from != to {
        fields.insert(
            0,
            format!("version {} → {}", from.chart_version(), to.chart_version()),
        );
    }
    if fields.is_empty() {
        return;
    }
    let namespace = crate::documents::karpenter_aws::NAMESPACE;
    let mut steps = Vec::new();
    if to > from {
        let crds = crate::documents::karpenter_aws::CRDS;
        let label = Step::kubectl(&["label", "crd"])
            .with_args(crds.iter().copied())
            .with_args(["app.kubernetes.io/managed-by=Helm", "--overwrite"]);
        let annotate = Step::kubectl(&["annotate", "crd"])
            .with_args(crds.iter().copied())
            .with_args([
                "meta.helm.sh/release-name=karpenter-crd".to_owned(),
                format!("meta.helm.sh/release-namespace={namespace}"),
                "--overwrite".to_owned(),
            ]);
        steps.extend([
            label,
            annotate,
            Step::helm(&[
                "upgrade",
                "--install",
                "karpenter-crd",
                KARPENTER_CRD_CHART,
                "--version",
                to.chart_version(),
                "--namespace",
                namespace,
                "--wait",
            ]),
        ]);
    }
    let mut step = Step::helm(&[
        "upgrade",
        "karpenter",
        KARPENTER_CHART,
        "--version",
        to.chart_version(),
        "--namespace",
        namespace,
        "--reuse-values",
        "--values",
        crate::documents::render::KARPENTER_VALUES_PATH,
    ]);
    for key in dropped {
        step = step.arg("--set").arg(format!("settings.{key}=null"));
    }
    steps.push(step.arg("--wait"));
    plan.changes.push(simple(
        Action::Update,
        "helm release",
        "karpenter",
        fields,
        steps,
    ));
}
