//! The running cluster a design was read from, when it was: the page then plans the
//! design against it.

/// A cluster read with "Open a running cluster".
#[derive(Clone, Debug, PartialEq)]
pub struct RunningCluster {
    /// Its region.
    pub region: String,
    /// Its name.
    pub cluster: String,
    /// What the read could not see.
    pub not_read: Vec<shared::upstream::eks::NotRead>,
}
