//! The pure core of EKS Training Studio.
//!
//! Data in, data out: the spec model, the seed templates and the renderers that turn a
//! spec into eksctl and Karpenter YAML. Nothing here does IO, so the same code runs in
//! the browser (wasm32), in the server and in the command-line tool.

/// Typed mirror of eksctl's `ClusterConfig` (`eksctl.io/v1alpha5`), only the fields we emit.
pub mod eksctl;
/// Turns a [`Spec`] into the files of a bundle.
pub mod render;
/// The studio's state: one serialisable value describing the whole cluster design.
pub mod spec;
/// Named starting points, the first seven reproducing the reference manifests.
pub mod templates;

pub use render::{RenderError, render_cluster_yaml};
pub use spec::Spec;
pub use templates::{TEMPLATES, Template, template};
