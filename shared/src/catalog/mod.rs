//! What AWS sells, as data embedded at build time.

/// The embedded EC2 instance-type catalog: GPUs, EFA, Capacity Blocks, per type.
pub mod instances;
/// The policies AWS manages in IAM, for checking a policy ARN as written.
pub mod policies;
/// On-demand prices per hour, from Karpenter's initial price table.
pub mod prices;
/// The Kubernetes versions EKS offers and their support dates, from AWS's calendar.
pub mod versions;
