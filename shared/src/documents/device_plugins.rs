//! The device plugins the nodes Karpenter launches need, chosen from what each NodePool can
//! launch (the same matcher the rules use). eksctl installs the NVIDIA, EFA and Neuron
//! plugins only on the node groups it manages, so without these a pod asking for
//! `nvidia.com/gpu`, `vpc.amazonaws.com/efa` or `aws.amazon.com/neuron` on a Karpenter node
//! stays Pending.
//!
//! Each plugin is a Helm release at a pinned chart version whose values keep it on the
//! nodes of the pools that need it (by `karpenter.sh/nodepool`, a label only Karpenter's
//! nodes carry, so eksctl's own plugins on managed groups are never doubled) and tolerate
//! those pools' taints. Bottlerocket's accelerated variants bring the NVIDIA and Neuron
//! plugins themselves, so pools whose node class runs Bottlerocket are left out of those.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::model::spec::KarpenterSettings;
use crate::upstream::karpenter::{Ec2NodeClass, NodePool};
use crate::upstream::matching::matching_instance_types;

/// A device plugin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Plugin {
    /// NVIDIA's device plugin: `nvidia.com/gpu`.
    Nvidia,
    /// The EFA device plugin: `vpc.amazonaws.com/efa`.
    Efa,
    /// The Neuron device plugin: `aws.amazon.com/neuron`.
    Neuron,
}

/// Where a chart comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartSource {
    /// A chart repository URL (`helm --repo`).
    Repository(&'static str),
    /// An OCI reference, which is the chart itself.
    Oci,
}

/// A plugin's Helm release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chart {
    /// Release name.
    pub release: &'static str,
    /// Chart name, or its OCI reference.
    pub chart: &'static str,
    /// Where it is published.
    pub source: ChartSource,
    /// The pinned chart version.
    pub version: &'static str,
    /// The values file in the bundle.
    pub values_path: &'static str,
    /// The resource it advertises.
    pub resource: &'static str,
}

impl Plugin {
    /// Every plugin, in install order.
    pub const ALL: [Plugin; 3] = [Plugin::Nvidia, Plugin::Efa, Plugin::Neuron];

    /// Its chart, as published by its maintainers.
    pub fn chart(self) -> Chart {
        match self {
            // NVIDIA/k8s-device-plugin deployments/helm, tag v0.20.0.
            Plugin::Nvidia => Chart {
                release: "nvidia-device-plugin",
                chart: "nvidia-device-plugin",
                source: ChartSource::Repository("https://nvidia.github.io/k8s-device-plugin"),
                version: "0.20.0",
                values_path: "plugins/nvidia-device-plugin.yaml",
                resource: "nvidia.com/gpu",
            },
            // aws/eks-charts stable/aws-efa-k8s-device-plugin.
            Plugin::Efa => Chart {
                release: "aws-efa-k8s-device-plugin",
                chart: "aws-efa-k8s-device-plugin",
                source: ChartSource::Repository("https://aws.github.io/eks-charts"),
                version: "v0.5.30",
                values_path: "plugins/aws-efa-k8s-device-plugin.yaml",
                resource: "vpc.amazonaws.com/efa",
            },
            // aws-neuron/neuron-helm-charts, published to Amazon ECR Public.
            Plugin::Neuron => Chart {
                release: "neuron-helm-chart",
                chart: "oci://public.ecr.aws/neuron/neuron-helm-chart",
                source: ChartSource::Oci,
                version: "1.10.0",
                values_path: "plugins/neuron-helm-chart.yaml",
                resource: "aws.amazon.com/neuron",
            },
        }
    }

    /// What it is, in words.
    pub fn title(self) -> &'static str {
        match self {
            Plugin::Nvidia => "the NVIDIA device plugin",
            Plugin::Efa => "the EFA device plugin",
            Plugin::Neuron => "the Neuron device plugin",
        }
    }
}

/// Whether a node class runs Bottlerocket (by its AMI alias).
fn runs_bottlerocket(class: Option<&Ec2NodeClass>) -> bool {
    class.is_some_and(|class| {
        class.spec.ami_selector_terms.iter().any(|term| {
            term.alias
                .as_deref()
                .is_some_and(|alias| alias.starts_with("bottlerocket"))
        })
    })
}

/// The pools that need `plugin`: those that can launch a type with its device (and, for
/// NVIDIA and Neuron, do not run Bottlerocket, which brings its own).
pub fn pools_needing(karpenter: &KarpenterSettings, plugin: Plugin) -> Vec<&NodePool> {
    karpenter
        .node_pools
        .iter()
        .filter(|pool| {
            let class = karpenter
                .node_classes
                .iter()
                .find(|class| class.metadata.name == pool.spec.template.spec.node_class_ref.name);
            let types = matching_instance_types(pool);
            match plugin {
                Plugin::Nvidia => {
                    !runs_bottlerocket(class) && types.iter().any(|instance| instance.nvidia_gpu)
                }
                Plugin::Efa => types.iter().any(|instance| instance.efa_supported),
                Plugin::Neuron => {
                    !runs_bottlerocket(class) && types.iter().any(|instance| instance.neuron)
                }
            }
        })
        .collect()
}

/// The plugins a design's pools need, each with the pools that need it.
pub fn needed(karpenter: &KarpenterSettings) -> Vec<(Plugin, Vec<&NodePool>)> {
    Plugin::ALL
        .into_iter()
        .map(|plugin| (plugin, pools_needing(karpenter, plugin)))
        .filter(|(_, pools)| !pools.is_empty())
        .collect()
}

/// A toleration.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Toleration {
    /// Taint key.
    pub key: String,
    /// Always `Exists`: any value.
    pub operator: String,
    /// Taint effect (none: every effect).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<String>,
}

fn exists(key: &str, effect: Option<&str>) -> Toleration {
    Toleration {
        key: key.to_owned(),
        operator: "Exists".into(),
        effect: effect.map(str::to_owned),
    }
}

/// A node affinity that requires every expression.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Affinity {
    /// `nodeAffinity`.
    pub node_affinity: NodeAffinity,
}

/// `nodeAffinity`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeAffinity {
    /// `requiredDuringSchedulingIgnoredDuringExecution`.
    #[serde(rename = "requiredDuringSchedulingIgnoredDuringExecution")]
    pub required: NodeSelector,
}

/// A node selector of terms.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSelector {
    /// Terms (any may match).
    pub node_selector_terms: Vec<SelectorTerm>,
}

/// One term: every expression must match.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectorTerm {
    /// The expressions.
    pub match_expressions: Vec<Expression>,
}

/// `key operator values`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Expression {
    /// Label key.
    pub key: String,
    /// `In`.
    pub operator: String,
    /// Label values.
    pub values: Vec<String>,
}

/// The NVIDIA chart's values.
#[derive(Clone, Debug, PartialEq, Serialize)]
struct NvidiaValues {
    affinity: Affinity,
    tolerations: Vec<Toleration>,
}

/// The EFA chart's values: its affinity is built from `supportedInstanceLabels`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct EfaValues {
    supported_instance_labels: SupportedLabels,
    tolerations: Vec<Toleration>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
struct SupportedLabels {
    keys: Vec<String>,
    values: Vec<String>,
}

/// The Neuron chart's values: its device plugin's tolerations (its affinity already
/// names the Neuron instance types).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct NeuronValues {
    device_plugin: NeuronDevicePlugin,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
struct NeuronDevicePlugin {
    tolerations: Vec<Toleration>,
}

/// Tolerations for the chart's own defaults and every taint of `pools`.
fn tolerations(defaults: &[(&str, Option<&str>)], pools: &[&NodePool]) -> Vec<Toleration> {
    let mut all: BTreeSet<Toleration> = defaults
        .iter()
        .map(|(key, effect)| exists(key, *effect))
        .collect();
    for pool in pools {
        for taint in pool.spec.template.spec.taints.iter() {
            if !taint.key.trim().is_empty() {
                all.insert(exists(&taint.key, Some(&taint.effect)).clone());
            }
        }
    }
    all.into_iter().collect()
}

fn pool_names(pools: &[&NodePool]) -> Vec<String> {
    pools
        .iter()
        .map(|pool| pool.metadata.name.clone())
        .collect()
}

/// The values file of `plugin` for `pools`, as YAML.
pub fn values(plugin: Plugin, pools: &[&NodePool]) -> yaml_serde::Value {
    let critical = ("CriticalAddonsOnly", None);
    let rendered = match plugin {
        Plugin::Nvidia => yaml_serde::to_value(NvidiaValues {
            affinity: Affinity {
                node_affinity: NodeAffinity {
                    required: NodeSelector {
                        node_selector_terms: vec![SelectorTerm {
                            match_expressions: vec![
                                Expression {
                                    key: "karpenter.sh/nodepool".into(),
                                    operator: "In".into(),
                                    values: pool_names(pools),
                                },
                                Expression {
                                    key: "karpenter.k8s.aws/instance-gpu-manufacturer".into(),
                                    operator: "In".into(),
                                    values: vec!["nvidia".into()],
                                },
                            ],
                        }],
                    },
                },
            },
            tolerations: tolerations(&[critical, ("nvidia.com/gpu", Some("NoSchedule"))], pools),
        }),
        Plugin::Efa => yaml_serde::to_value(EfaValues {
            supported_instance_labels: SupportedLabels {
                keys: vec!["karpenter.sh/nodepool".into()],
                values: pool_names(pools),
            },
            tolerations: tolerations(&[], pools),
        }),
        Plugin::Neuron => yaml_serde::to_value(NeuronValues {
            device_plugin: NeuronDevicePlugin {
                tolerations: tolerations(
                    &[critical, ("aws.amazon.com/neuron", Some("NoSchedule"))],
                    pools,
                ),
            },
        }),
    };
    rendered.expect("plugin values serialise")
}
