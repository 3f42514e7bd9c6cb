//! The studio server, as the page calls it.

/// HTTP calls to the studio server: health, offerings, live checks, bundles, deploys.
pub mod api;
