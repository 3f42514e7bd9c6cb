//! YAML text in and out, below everything else.

/// A document's values read where they are, as `yaml_serde::Value` reads.
pub mod node;
/// YAML text into documents that remember the line and column of every path.
pub mod source;
/// YAML text that YAML 1.1 readers (eksctl, kubectl) read as YAML 1.2 ones do.
pub mod text;
/// A document's values and places in a few flat vectors.
pub mod tree;
