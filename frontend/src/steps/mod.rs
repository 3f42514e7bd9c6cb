//! The eight steps of the wizard, and the field groups only they use.

/// Who may reach the cluster (`accessConfig`), in the Cluster step.
pub mod access_fields;
/// The Add-ons and storage step.
pub mod addons;
/// EKS Auto Mode's NodePools and NodeClasses, edited under Auto Mode in the Cluster step.
pub mod auto_mode_pools;
/// The Capacity step: how each node group's instances are paid for and where they live.
pub mod capacity;
/// The Review step's plan against the running cluster the design was read from.
pub mod changes;
/// The Cluster step: name, region, Kubernetes version, OIDC.
pub mod cluster;
/// The Karpenter step: NodePools, EC2NodeClasses and controller settings.
pub mod karpenter;
/// The Network step: new or existing VPC.
pub mod network;
/// The Node groups step, with the instance-type picker.
pub mod node_groups;
/// One NodePool's inputs, shared by Karpenter's and EKS Auto Mode's pools.
pub mod pool_fields;
/// The Review and ship step: all findings, live checks, bundle, deploy.
pub mod review;
/// "Open a running cluster" on the Start step, loaded when first opened.
pub mod running_cluster;
/// The Start step: templates, import, drafts.
pub mod start;
