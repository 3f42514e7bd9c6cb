//! YAML text in and out, below everything else.

/// YAML text into `yaml_serde` values that remember the line and column of every path.
pub mod source;
/// YAML text that YAML 1.1 readers (eksctl, kubectl) read as YAML 1.2 ones do.
pub mod text;
