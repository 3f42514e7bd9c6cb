//! The documents of a bundle, one file each: written from the spec, read back into it,
//! and placed (which spec field is which line).

/// EKS Auto Mode's NodePools and `eks.amazonaws.com` NodeClasses.
pub mod auto_mode;
/// The cluster's `cluster.yaml`: the one mapping between spec fields and eksctl's keys.
pub mod cluster;
/// The device plugins Karpenter's nodes need (NVIDIA, EFA, Neuron), chosen from the pools.
pub mod device_plugins;
/// Reads eksctl and Karpenter YAML into a spec, keeping every key it does not model.
pub mod import;
/// What Karpenter needs on AWS (roles, policies, interruption queue, cluster access), as
/// CloudFormation templates.
pub mod karpenter_aws;
/// Turns a spec into the YAML documents of a bundle.
pub mod render;
/// The FSx for Lustre and S3 volumes a design asks for, as the CSI drivers' objects.
pub mod storage;
