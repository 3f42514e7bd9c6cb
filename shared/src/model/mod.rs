//! The studio's design of a cluster and the words and names around it.

/// Identifiers and names that are known to be well formed once parsed.
pub mod ids;
/// The one-line text forms of labels, tags and taints in the studio's list fields.
pub mod items;
/// The JSON API's vocabulary for live checks: kinds, statuses, reports.
pub mod live_checks;
/// Where a finding is, in the page's words ("Node group `gpu` › Maximum size").
pub mod places;
/// Which instance types each NodePool can launch, by the rules' own matcher.
pub mod resolve;
/// The studio's state: one serialisable value describing the whole cluster design.
pub mod spec;
