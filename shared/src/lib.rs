//! The pure core of EKS Training Studio.
//!
//! Data in, data out: the spec model, the seed templates and the renderers that turn a
//! spec into eksctl and Karpenter YAML. Nothing here does IO, so the same code runs in
//! the browser (wasm32), in the server and in the command-line tool.
//!
//! The folders are layers, lowest first; a module uses its own layer and the ones below,
//! never one above (`cargo xtask layers` checks it):
//! `fields` < `yaml` < `catalog` < `upstream` < `model` < `documents` < `templates` < `rules` <
//! `lint` < `deploy` < `changes`.

/// What AWS sells: instance types, on-demand prices, EKS's Kubernetes versions.
pub mod catalog;
/// What a changed design would do to a running cluster: each change, its steps, whether
/// it disrupts running pods.
pub mod changes;
/// What a deploy runs and shows: the bundle, its steps, the approval's plan, what it carries.
pub mod deploy;
/// One file per bundle document: how each is written from the spec, read back, placed.
pub mod documents;
/// The design's vocabulary: the paths of its objects and the `Field` each object declares
/// beside its type, the studio's own and upstream's alike.
pub mod fields;
/// Linting files: every finding placed at its line and column; the page's editable files.
pub mod lint;
/// The studio's own design: the spec, ids, names and places in words.
pub mod model;
/// The rule catalog: every check the studio runs on a spec.
pub mod rules;
/// Named starting points, the first seven reproducing the reference manifests.
pub mod templates;
/// Typed mirrors of the peers' objects (eksctl's ClusterConfig, Karpenter's and Auto
/// Mode's), their schemas and CEL rules, and how Karpenter matches requirements.
pub mod upstream;
/// YAML text: read with the position of every value, written so YAML 1.1 readers agree.
pub mod yaml;

pub use documents::render::{RenderError, render_cluster_yaml};
pub use model::spec::Spec;
pub use templates::{TEMPLATES, Template, template};
