//! The peers' own objects and the checks they run on them, mirrored.

/// EKS Auto Mode's NodePools and `eks.amazonaws.com` NodeClasses, as EKS reads them.
pub mod auto_mode;
/// The CRDs' CEL validation rules, evaluated on documents as the API server does.
#[cfg(feature = "documents")]
pub(crate) mod crd_cel;
/// The defaults the API server fills in from a CRD's schema, and the way back.
pub mod crd_defaults;
/// A running cluster as EKS and EC2 describe it, in the fields the studio reads.
pub mod eks;
/// Typed mirror of eksctl's `ClusterConfig` (`eksctl.io/v1alpha5`), only the fields we emit.
pub mod eksctl;
/// Typed mirror of Karpenter's `NodePool` and `EC2NodeClass` and its Helm values.
pub mod karpenter;
/// The Karpenter releases a design can install, and what each one's CRDs accept.
pub mod karpenter_releases;
/// Which instance types a NodePool can launch, and which capacity types it allows, as
/// Karpenter and Auto Mode match requirements.
pub mod matching;
/// What day two does with each key of an eksctl node group.
pub mod node_group_keys;
/// Checks YAML documents against the upstream eksctl and Karpenter schemas, every problem with its path.
pub mod schema_check;
