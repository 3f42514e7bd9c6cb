//! The imperative shell around `shared`: the HTTP server and the `eks-studio` CLI.
//!
//! The folders are layers, lowest first (`cargo xtask layers` checks it): `clock` and
//! `work` < `aws` < `deploy` < `http` < `cli`. `http::app` builds the whole router; `main.rs` only
//! hands the command line to [`cli`].

/// EC2 and EKS access: SDK configuration, per-call timeouts, the answer cache, the live checks.
pub mod aws;
/// The `eks-studio` command line, one module per command.
pub mod cli;
/// Today's date, for the rules that depend on the day.
pub mod clock;
/// One-click deploy: jobs that run eksctl, helm and kubectl, stored in SQLite.
pub mod deploy;
/// The HTTP server: routes by area, extractors, errors, the guard, the accept loop.
pub mod http;
/// Heavy CPU work on blocking threads, a bounded number at a time.
pub mod work;

pub use aws::AwsStatus;
pub use clock::{today, todays_facts};
pub use http::{AppState, app};
