//! The pure core of EKS Training Studio.
//!
//! Data in, data out: the spec model, the seed templates and the renderers that turn a
//! spec into eksctl and Karpenter YAML. Nothing here does IO, so the same code runs in
//! the browser (wasm32), in the server and in the command-line tool.

/// The JSON API's vocabulary: live check kinds and statuses.
pub mod api;
/// EKS Auto Mode's NodePools and `eks.amazonaws.com` NodeClasses.
pub mod auto_mode;
/// The files of a bundle (download and deploy) and their zip.
pub mod bundle;
/// The embedded EC2 instance-type catalog: GPUs, EFA, Capacity Blocks, per type.
pub mod catalog;
/// The CRDs' CEL validation rules, evaluated on documents as the API server does.
#[cfg(feature = "documents")]
mod crd_cel;
/// What a deploy's `cluster.yaml` may carry when eksctl runs it on the server, and what in
/// it grants access.
pub mod deploy_keys;
/// The device plugins Karpenter's nodes need (NVIDIA, EFA, Neuron), chosen from the pools.
pub mod device_plugins;
/// The files the page edits as text: read back into the design, findings on their lines.
pub mod editable;
/// Typed mirror of eksctl's `ClusterConfig` (`eksctl.io/v1alpha5`), only the fields we emit.
pub mod eksctl;
/// The one mapping between spec fields and eksctl's keys: write, read back, position.
pub mod eksctl_map;
/// Identifiers and names that are known to be well formed once parsed.
pub mod ids;
/// Reads eksctl and Karpenter YAML into a spec, keeping every key it does not model.
pub mod import;
/// The one-line text forms of labels, tags and taints in the studio's list fields.
pub mod items;
/// Typed mirror of Karpenter's `NodePool` and `EC2NodeClass` and its Helm values.
pub mod karpenter;
/// What Karpenter needs on AWS (roles, policies, interruption queue, cluster access), as
/// CloudFormation templates.
pub mod karpenter_aws;
/// Where a finding is, in the page's words ("Node group `gpu` › Max size").
pub mod labels;
/// Linting files: every finding placed at its line and column.
pub mod lint;
/// The placeholders a design still holds, as one checklist; filling one fills every use.
pub mod placeholders;
/// What a deploy will create, for the user to approve.
pub mod plan;
/// On-demand prices per hour, from Karpenter's initial price table.
pub mod prices;
/// Turns a [`Spec`] into the files of a bundle.
pub mod render;
/// Which instance types each NodePool can launch, by the rules' own matcher.
pub mod resolve;
/// The rule catalog: every check the studio runs on a spec.
pub mod rules;
/// Checks YAML documents against the upstream eksctl and Karpenter schemas, every problem with its path.
pub mod schema_check;
/// The deploy and teardown sequences, written as scripts and run by the one-click deploy.
pub mod sequence;
/// The studio's state: one serialisable value describing the whole cluster design.
pub mod spec;
/// The FSx for Lustre and S3 volumes a design asks for, as the CSI drivers' objects.
pub mod storage;
/// Named starting points, the first seven reproducing the reference manifests.
pub mod templates;
/// The Kubernetes versions EKS offers and their support dates, from AWS's calendar.
pub mod versions;
/// YAML text into `serde_yaml` values that remember the line and column of every path.
pub mod yaml_source;
/// YAML text that YAML 1.1 readers (eksctl, kubectl) read as YAML 1.2 ones do.
pub mod yaml_text;

pub use render::{RenderError, render_cluster_yaml};
pub use spec::Spec;
pub use templates::{TEMPLATES, Template, template};
