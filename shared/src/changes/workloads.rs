//! What runs on a cluster's nodes now, so a plan can say which running jobs a change
//! disrupts, from one `kubectl get nodes,pods,poddisruptionbudgets --all-namespaces -o
//! json`: the nodes with the node group or NodePool that made them, the pods on them
//! grouped by the workload that owns them, and the PodDisruptionBudgets that guard them.
//!
//! A node's group is the label EKS puts on a managed node group's nodes
//! (`eks.amazonaws.com/nodegroup`) or eksctl on its self-managed ones
//! (`alpha.eksctl.io/nodegroup-name`); its NodePool and node class are the labels
//! Karpenter (and Auto Mode) put on the nodes they launch. A drain evicts every pod but a
//! DaemonSet's and a finished one; an eviction that would leave a PodDisruptionBudget's
//! pods below its minimum is refused by the API server (the Eviction API), so a drain
//! waits for it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a read names the workloads when it could not read them.
pub const WHAT: &str = "the nodes, the pods on them and their PodDisruptionBudgets (which running jobs a change disrupts)";

/// The node labels that say what launched a node: a managed node group (EKS), a
/// self-managed one (eksctl), a NodePool (Karpenter, Auto Mode), a node class.
const GROUP_LABELS: &[&str] = &[
    "eks.amazonaws.com/nodegroup",
    "alpha.eksctl.io/nodegroup-name",
];
const POOL_LABEL: &str = "karpenter.sh/nodepool";
const CLASS_LABELS: &[&str] = &[
    "karpenter.k8s.aws/ec2nodeclass",
    "eks.amazonaws.com/nodeclass",
];
const INSTANCE_TYPE_LABEL: &str = "node.kubernetes.io/instance-type";

/// Extended resources a training pod asks for: GPUs, Neuron devices, EFA interfaces.
const ACCELERATOR_RESOURCES: &[&str] = &[
    "nvidia.com/gpu",
    "aws.amazon.com/neuron",
    "aws.amazon.com/neuroncore",
    "aws.amazon.com/neurondevice",
    "vpc.amazonaws.com/efa",
];

/// Owners whose pods are a run to completion: a batch Job and the training operators'
/// jobs (Kubeflow's PyTorchJob, MPIJob, TFJob, TrainJob; JobSet; KubeRay's RayJob).
const TRAINING_OWNERS: &[&str] = &[
    "Job",
    "PyTorchJob",
    "MPIJob",
    "TFJob",
    "XGBoostJob",
    "PaddleJob",
    "JAXJob",
    "TrainJob",
    "JobSet",
    "RayJob",
];

/// One node, by what launched it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// Its name.
    pub name: String,
    /// The node group (managed or eksctl's self-managed) that launched it.
    pub group: Option<String>,
    /// The NodePool that launched it.
    pub pool: Option<String>,
    /// The EC2NodeClass or Auto Mode NodeClass it was launched from.
    pub class: Option<String>,
    /// Its instance type.
    pub instance_type: String,
}

/// One pod that a drain would evict.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pod {
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// The node it runs on.
    pub node: String,
    /// The kind of the workload that owns it (`Deployment`, `PyTorchJob`), or `Pod`.
    pub owner_kind: String,
    /// That workload's name (the pod's own when nothing owns it).
    pub owner: String,
    /// Its labels, for the PodDisruptionBudgets' selectors.
    pub labels: BTreeMap<String, String>,
    /// The accelerators it asks for, by resource (`nvidia.com/gpu` → 8).
    pub accelerators: BTreeMap<String, u64>,
}

/// A PodDisruptionBudget: its namespace, name and selector.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// `spec.selector` as the API server keeps it; `None` selects no pod.
    pub selector: Option<Value>,
}

/// What runs on the cluster's nodes now.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workloads {
    /// Every node.
    pub nodes: Vec<Node>,
    /// Every pod a drain would evict (running or waiting, not a DaemonSet's, not a
    /// static pod's), with its node.
    pub pods: Vec<Pod>,
    /// Every PodDisruptionBudget.
    pub budgets: Vec<Budget>,
}

/// The `items` of a `kubectl get … -o json` answer.
fn items(list: &Value) -> Result<&[Value], String> {
    list.get("items")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .ok_or_else(|| "kubectl's answer has no `items` list".to_owned())
}

fn text<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn label<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object
        .get("metadata")
        .and_then(|metadata| metadata.get("labels"))
        .and_then(|labels| labels.get(key))
        .and_then(Value::as_str)
        .filter(|value| !value.is_empty())
}

/// A quantity of an extended resource (`8`, `"8"`); extended resources are whole numbers.
fn count(quantity: &Value) -> u64 {
    match quantity {
        Value::Number(number) => number.as_u64().unwrap_or_default(),
        Value::String(text) => text.trim().parse().unwrap_or_default(),
        _ => 0,
    }
}

/// One item of kubectl's list, as far as a plan reads it: what a drain and a budget need.
/// Everything else (annotations, managed fields, environment, volumes, status beyond the
/// phase) is skipped as it is read, never held.
#[derive(Deserialize)]
struct ListedItem {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    metadata: ListedMetadata,
    #[serde(default)]
    spec: ListedSpec,
    #[serde(default)]
    status: ListedStatus,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListedMetadata {
    #[serde(default)]
    name: Value,
    #[serde(default)]
    namespace: Value,
    #[serde(default)]
    labels: Value,
    #[serde(default)]
    owner_references: Value,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListedSpec {
    #[serde(default)]
    node_name: Value,
    #[serde(default)]
    containers: Vec<ListedContainer>,
    #[serde(default)]
    selector: Value,
}

#[derive(Deserialize)]
struct ListedContainer {
    #[serde(default)]
    resources: Value,
}

#[derive(Default, Deserialize)]
struct ListedStatus {
    #[serde(default)]
    phase: Value,
}

#[derive(Deserialize)]
struct Listed {
    items: Option<Vec<ListedItem>>,
}

impl ListedItem {
    /// The item as the JSON [`Workloads::from_kubectl`] reads, with only what it reads.
    fn kept(self) -> Value {
        let containers: Vec<Value> = self
            .spec
            .containers
            .into_iter()
            .map(|container| serde_json::json!({ "resources": container.resources }))
            .collect();
        serde_json::json!({
            "kind": self.kind,
            "metadata": {
                "name": self.metadata.name,
                "namespace": self.metadata.namespace,
                "labels": self.metadata.labels,
                "ownerReferences": self.metadata.owner_references,
            },
            "spec": {
                "nodeName": self.spec.node_name,
                "containers": containers,
                "selector": self.spec.selector,
            },
            "status": { "phase": self.status.phase },
        })
    }
}

impl Workloads {
    /// Reads kubectl's answer as it arrives (`reader`), keeping of each item only what a
    /// plan uses: a cluster whose pods carry large annotations costs no more memory than
    /// one whose pods do not.
    pub fn from_kubectl_reader(reader: impl std::io::Read) -> Result<Workloads, String> {
        let listed: Listed = serde_json::from_reader(reader)
            .map_err(|error| format!("kubectl's answer is not a list: {error}"))?;
        let items = listed
            .items
            .ok_or_else(|| "kubectl's answer has no `items` list".to_owned())?;
        let kept: Vec<Value> = items.into_iter().map(ListedItem::kept).collect();
        Workloads::from_kubectl(&serde_json::json!({ "items": kept }))
    }

    /// Reads the answer of `kubectl get nodes,pods,poddisruptionbudgets --all-namespaces
    /// -o json`: one list of the three kinds.
    pub fn from_kubectl(list: &Value) -> Result<Workloads, String> {
        let mut workloads = Workloads::default();
        for item in items(list)? {
            match text(item, "/kind") {
                "Node" => workloads.nodes.push(Node {
                    name: text(item, "/metadata/name").to_owned(),
                    group: GROUP_LABELS
                        .iter()
                        .find_map(|key| label(item, key))
                        .map(str::to_owned),
                    pool: label(item, POOL_LABEL).map(str::to_owned),
                    class: CLASS_LABELS
                        .iter()
                        .find_map(|key| label(item, key))
                        .map(str::to_owned),
                    instance_type: label(item, INSTANCE_TYPE_LABEL)
                        .unwrap_or_default()
                        .to_owned(),
                }),
                "Pod" => workloads.pods.extend(evicted_pod(item)),
                "PodDisruptionBudget" => workloads.budgets.push(Budget {
                    namespace: text(item, "/metadata/namespace").to_owned(),
                    name: text(item, "/metadata/name").to_owned(),
                    selector: item
                        .pointer("/spec/selector")
                        .filter(|selector| !selector.is_null())
                        .cloned(),
                }),
                _ => {}
            }
        }
        Ok(workloads)
    }

    /// The pods on the nodes `on` picks.
    fn pods_on(&self, on: impl Fn(&Node) -> bool) -> (usize, Vec<&Pod>) {
        let nodes: Vec<&str> = self
            .nodes
            .iter()
            .filter(|node| on(node))
            .map(|node| node.name.as_str())
            .collect();
        let pods = self
            .pods
            .iter()
            .filter(|pod| nodes.contains(&pod.node.as_str()))
            .collect();
        (nodes.len(), pods)
    }

    /// The PodDisruptionBudget that guards `pod`, if any.
    fn budget_of(&self, pod: &Pod) -> Option<&Budget> {
        self.budgets
            .iter()
            .filter(|budget| budget.namespace == pod.namespace)
            .find(|budget| {
                budget
                    .selector
                    .as_ref()
                    .is_some_and(|selector| selects(selector, &pod.labels))
            })
    }
}

/// The pod as a drain sees it, or `None` when a drain leaves it: finished, a DaemonSet's
/// (`--ignore-daemonsets`), a static pod (its mirror, owned by the Node), or not placed.
fn evicted_pod(pod: &Value) -> Option<Pod> {
    let node = text(pod, "/spec/nodeName");
    let phase = text(pod, "/status/phase");
    if node.is_empty() || matches!(phase, "Succeeded" | "Failed") {
        return None;
    }
    let name = text(pod, "/metadata/name").to_owned();
    let labels: BTreeMap<String, String> = pod
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|labels| {
            labels
                .iter()
                .filter_map(|(key, value)| Some((key.clone(), value.as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default();
    let controller = pod
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .and_then(|owners| {
            owners
                .iter()
                .find(|owner| owner.get("controller") == Some(&Value::Bool(true)))
                .or_else(|| owners.first())
        });
    let (mut owner_kind, mut owner) = match controller {
        Some(owner) => (
            text(owner, "/kind").to_owned(),
            text(owner, "/name").to_owned(),
        ),
        None => ("Pod".to_owned(), name.clone()),
    };
    if matches!(owner_kind.as_str(), "DaemonSet" | "Node") {
        return None;
    }
    // A Deployment's pods are owned by its ReplicaSet, named after it with the pods'
    // template hash.
    if owner_kind == "ReplicaSet"
        && let Some(hash) = labels.get("pod-template-hash")
        && let Some(deployment) = owner.strip_suffix(&format!("-{hash}"))
    {
        owner_kind = "Deployment".to_owned();
        owner = deployment.to_owned();
    }
    // The training operators' pods carry their job's name; a Job they own is theirs.
    if owner_kind == "Job"
        && let Some(jobset) = labels.get("jobset.sigs.k8s.io/jobset-name")
    {
        owner_kind = "JobSet".to_owned();
        owner = jobset.clone();
    }
    let mut accelerators = BTreeMap::new();
    let containers = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for container in containers {
        for resource in ACCELERATOR_RESOURCES {
            let asked = container
                .pointer("/resources/limits")
                .and_then(|limits| limits.get(*resource))
                .or_else(|| {
                    container
                        .pointer("/resources/requests")
                        .and_then(|requests| requests.get(*resource))
                })
                .map(count)
                .unwrap_or_default();
            if asked > 0 {
                *accelerators.entry((*resource).to_owned()).or_insert(0) += asked;
            }
        }
    }
    Some(Pod {
        namespace: text(pod, "/metadata/namespace").to_owned(),
        name,
        node: node.to_owned(),
        owner_kind,
        owner,
        labels,
        accelerators,
    })
}

/// Whether a label selector (`matchLabels`, `matchExpressions`) selects `labels`. An empty
/// selector selects every pod of its namespace (policy/v1).
fn selects(selector: &Value, labels: &BTreeMap<String, String>) -> bool {
    let matched = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .is_none_or(|wanted| {
            wanted
                .iter()
                .all(|(key, value)| labels.get(key).map(String::as_str) == value.as_str())
        });
    let expressions = selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    matched
        && expressions.iter().all(|expression| {
            let key = text(expression, "/key");
            let values: Vec<&str> = expression
                .get("values")
                .and_then(Value::as_array)
                .map(|values| values.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let have = labels.get(key).map(String::as_str);
            match text(expression, "/operator") {
                "In" => have.is_some_and(|have| values.contains(&have)),
                "NotIn" => have.is_none_or(|have| !values.contains(&have)),
                "Exists" => have.is_some(),
                "DoesNotExist" => have.is_none(),
                _ => false,
            }
        })
}

/// One workload on the nodes a change drains, as the plan names it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disrupted {
    /// `Deployment`, `StatefulSet`, `Job`, `PyTorchJob`, `Pod`…
    pub kind: String,
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// How many of its pods the change evicts.
    pub pods: usize,
    /// The accelerators those pods hold, by resource.
    pub accelerators: BTreeMap<String, u64>,
    /// The PodDisruptionBudget that guards them (`namespace/name`), if any.
    pub budget: Option<String>,
    /// Whether it is a run to completion that holds accelerators or is a job: training.
    pub training: bool,
}

impl Disrupted {
    /// `PyTorchJob training/llama (8 pods, 64 nvidia.com/gpu)`.
    pub fn describe(&self) -> String {
        let noun = if self.pods == 1 { "pod" } else { "pods" };
        let mut held = vec![format!("{} {noun}", self.pods)];
        held.extend(
            self.accelerators
                .iter()
                .map(|(resource, count)| format!("{count} {resource}")),
        );
        format!(
            "{} {}/{} ({})",
            self.kind,
            self.namespace,
            self.name,
            held.join(", ")
        )
    }
}

/// The workloads with pods on the nodes `on` picks, and how many nodes that is.
pub fn disrupted(workloads: &Workloads, on: impl Fn(&Node) -> bool) -> (usize, Vec<Disrupted>) {
    let (nodes, pods) = workloads.pods_on(on);
    let mut by_owner: BTreeMap<(String, String, String), Disrupted> = BTreeMap::new();
    for pod in pods {
        let entry = by_owner
            .entry((
                pod.namespace.clone(),
                pod.owner_kind.clone(),
                pod.owner.clone(),
            ))
            .or_insert_with(|| Disrupted {
                kind: pod.owner_kind.clone(),
                namespace: pod.namespace.clone(),
                name: pod.owner.clone(),
                ..Disrupted::default()
            });
        entry.pods += 1;
        for (resource, count) in &pod.accelerators {
            *entry.accelerators.entry(resource.clone()).or_insert(0) += count;
        }
        if entry.budget.is_none() {
            entry.budget = workloads
                .budget_of(pod)
                .map(|budget| format!("{}/{}", budget.namespace, budget.name));
        }
    }
    let mut found: Vec<Disrupted> = by_owner
        .into_values()
        .map(|mut workload| {
            workload.training = TRAINING_OWNERS.contains(&workload.kind.as_str())
                || !workload.accelerators.is_empty();
            workload
        })
        .collect();
    // Training first, then by namespace and name.
    found.sort_by(|left, right| {
        (!left.training, &left.namespace, &left.name).cmp(&(
            !right.training,
            &right.namespace,
            &right.name,
        ))
    });
    (nodes, found)
}

/// The nodes a plan's change drains or lets Karpenter replace.
enum Drained<'a> {
    Group(&'a str),
    Pool(&'a str),
    Class(&'a str),
    /// A version upgrade rolls every node group's nodes.
    EveryGroup,
}

impl<'a> Drained<'a> {
    fn of(kind: &str, name: &'a str, fields: &[String]) -> Option<Self> {
        match kind {
            "nodegroup" => Some(Self::Group(name)),
            "NodePool" => Some(Self::Pool(name)),
            "EC2NodeClass" | "NodeClass" => Some(Self::Class(name)),
            "cluster" if fields.iter().any(|field| field == "metadata.version") => {
                Some(Self::EveryGroup)
            }
            _ => None,
        }
    }

    fn holds(&self, node: &Node) -> bool {
        match self {
            Self::Group(name) => node.group.as_deref() == Some(*name),
            Self::Pool(name) => node.pool.as_deref() == Some(*name),
            Self::Class(name) => node.class.as_deref() == Some(*name),
            Self::EveryGroup => node.group.is_some(),
        }
    }
}

/// Names, in each disruptive change of `plan`, the workloads running on the nodes it
/// drains, and advises where a training run has no PodDisruptionBudget: the drain evicts
/// all its pods at once.
pub fn annotate(plan: &mut crate::changes::Plan, workloads: &Workloads) {
    for change in &mut plan.changes {
        if !change.disruptive {
            continue;
        }
        let Some(drained) = Drained::of(&change.kind, &change.name, &change.fields) else {
            continue;
        };
        let (nodes, found) = disrupted(workloads, |node| drained.holds(node));
        let noun = if nodes == 1 { "node" } else { "nodes" };
        if found.is_empty() {
            change.disruption.push_str(&format!(
                "; on its {nodes} {noun} now: no pod a drain would move"
            ));
        } else {
            let named: Vec<String> = found.iter().map(Disrupted::describe).collect();
            change.disruption.push_str(&format!(
                "; on its {nodes} {noun} now: {}",
                named.join(", ")
            ));
        }
        for workload in found
            .iter()
            .filter(|workload| workload.training && workload.budget.is_none())
        {
            plan.findings.push(crate::rules::changes::DRAINS_UNGUARDED_TRAINING.finding(
                change_place(&change.kind, &change.name),
                format!(
                    "{} {} runs {} on the nodes this change drains, and no PodDisruptionBudget guards it: the drain evicts its pods at once, and the run stops and restarts from its last checkpoint",
                    change.kind,
                    change.name,
                    workload.describe()
                ),
            ));
        }
        change.workloads = found;
    }
}

/// Where a finding about a change is placed: the design's object.
fn change_place(kind: &str, name: &str) -> String {
    match kind {
        "nodegroup" => format!("node_groups[{name}]"),
        "NodePool" => format!("karpenter.node_pools[{name}]"),
        "cluster" => "cluster.kubernetes_version".to_owned(),
        _ => format!("karpenter[{kind} {name}]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read as it arrives, keeping only what a plan uses, the list reads as the whole
    /// value does: the same nodes, pods (owners, labels, accelerators) and budgets.
    #[test]
    fn a_list_read_as_it_arrives_is_the_list_read_whole() {
        let annotations: serde_json::Map<String, Value> = (0..50)
            .map(|index| (format!("note/{index}"), Value::from("x".repeat(1000))))
            .collect();
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
            {"kind": "Node", "metadata": {"name": "n1", "annotations": annotations,
                "labels": {"eks.amazonaws.com/nodegroup": "gpu", "node.kubernetes.io/instance-type": "p5.48xlarge"}}},
            {"kind": "Pod", "metadata": {"name": "w-0", "namespace": "training", "annotations": annotations,
                "labels": {"training.kubeflow.org/job-name": "llama"},
                "ownerReferences": [{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": "llama", "controller": true}]},
             "spec": {"nodeName": "n1", "containers": [{"name": "main", "env": [{"name": "A", "value": "b"}],
                "resources": {"limits": {"nvidia.com/gpu": "8"}}}]},
             "status": {"phase": "Running", "conditions": []}},
            {"kind": "Pod", "metadata": {"name": "done", "namespace": "default"},
             "spec": {"nodeName": "n1", "containers": []}, "status": {"phase": "Succeeded"}},
            {"kind": "PodDisruptionBudget", "metadata": {"name": "llama", "namespace": "training"},
             "spec": {"selector": {"matchLabels": {"training.kubeflow.org/job-name": "llama"}}}}
        ]});
        let whole = Workloads::from_kubectl(&list).unwrap();
        let text = serde_json::to_vec(&list).unwrap();
        let streamed = Workloads::from_kubectl_reader(text.as_slice()).unwrap();
        assert_eq!(streamed, whole);
        assert_eq!(streamed.pods.len(), 1);
        assert_eq!(streamed.budgets.len(), 1);
        assert!(Workloads::from_kubectl_reader(&b"{\"kind\": \"List\"}"[..]).is_err());
    }
}
