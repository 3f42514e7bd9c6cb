//! What a deploy is made of, before anything runs.

/// The files of a bundle (download and deploy) and their zip.
pub mod bundle;
/// What a deploy's `cluster.yaml` may carry when eksctl runs it on the server, and what in
/// it grants access.
pub mod keys;
/// What a deploy will create, for the user to approve.
pub mod plan;
/// The deploy and teardown sequences, written as scripts and run by the one-click deploy.
pub mod sequence;
