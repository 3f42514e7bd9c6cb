//! Rules of the `change` stage: judged on a pair of designs (the cluster as it runs, and
//! the design that would change it) by the plan ([`crate::changes`]), which fires them
//! where it meets what they find. Here they are declared once, with their sources, so the
//! catalog lists them beside the other rules and a finding's severity and help come from
//! one place.

use super::{Check, Rule, Severity, Stage, described};

macro_rules! change_rules {
    ($($name:ident = $id:literal, $severity:ident, summary: $summary:literal, help: $help:literal, reference: $reference:literal;)+) => {
        $(
            #[doc = $summary]
            pub static $name: Rule = Rule {
                id: $id,
                severity: Severity::$severity,
                summary: described($summary),
                help: $help,
                reference: described($reference),
                live: false,
                stage: Stage::Change,
                check: Check::Change,
            };
        )+
        /// Every rule of the `change` stage.
        pub(super) static RULES: &[&Rule] = &[$(&$name),+];
    };
}

change_rules! {
    ANOTHER_CLUSTER = "change-another-cluster", Error,
        summary: "the two designs name two clusters (another name or region): a plan changes one cluster",
        help: "compare a design with the design of the same cluster",
        reference: "EKS names a cluster by its name within a region (DescribeCluster); another name or region is another cluster, made with eksctl create cluster";
    VERSION_LOWERED = "change-version-lowered", Error,
        summary: "the design asks for a Kubernetes version more than one minor version below the cluster's",
        help: "roll back one minor version at a time, each within EKS's rollback window, or make a new cluster on the older version",
        reference: "eksctl pkg/eks/versions_manager.go ResolveUpgradeVersion (\"downgrading more than one version at a time is not supported\"); EKS user guide, rollback-cluster: a rollback goes to the previous minor version only";
    VERSION_ROLLBACK = "change-version-rollback", Warning,
        summary: "the design asks for the previous minor version: a rollback, which EKS allows only within 7 days of the in-place upgrade",
        help: "roll back the managed node groups first (UpdateNodegroupVersion): EKS rolls back the control plane, not them; after the 7 days, fix forward",
        reference: "EKS user guide, rollback-cluster (7-day window, an upgraded cluster only, managed node groups rolled back separately); eksctl pkg/actions/cluster/upgrade.go rolls back with upgrade cluster --version";
    VERSION_SKIPS_MINOR = "change-version-skips-minor", Info,
        summary: "the upgrade crosses more than one minor version: the plan upgrades one at a time",
        help: "each upgrade takes about 10 minutes; add-ons and nodes follow the control plane",
        reference: "eksctl pkg/eks/versions_manager.go ResolveUpgradeVersion (\"upgrading more than one version at a time is not supported\"); EKS UpdateClusterVersion";
    CLUSTER_VPC = "change-cluster-network", Error,
        summary: "the design puts the running cluster in another VPC",
        help: "keep the running cluster's VPC, or make a new cluster",
        reference: "EKS UpdateClusterConfig: a cluster's subnets can change, their VPC cannot (the subnets must be in the VPC the cluster was made with); eksctl utils update-cluster-vpc-config";
    ENCRYPTION_FIXED = "change-secrets-encryption-fixed", Error,
        summary: "the design changes or removes the running cluster's secrets encryption, which EKS keeps with its key for the cluster's life",
        help: "keep the cluster's `secretsEncryption.keyARN`, or make a new cluster with the other key",
        reference: "eksctl pkg/eks/update.go EnableKMSEncryption (\"changing the key is not supported\"); EKS AssociateEncryptionConfig: encryption cannot be turned off or its key changed once on";
    AUTHENTICATION_MODE_BACK = "change-authentication-mode-back", Error,
        summary: "the design moves the cluster's authentication mode back: EKS moves it one way only, CONFIG_MAP → API_AND_CONFIG_MAP → API",
        help: "keep the cluster's mode or move it forward; a cluster without the `aws-auth` ConfigMap cannot get it back",
        reference: "EKS user guide, setting-up-access-entries (\"you can't change the authentication mode back to a mode that removes the EKS API and access entries\"); eksctl utils update-authentication-mode (UpdateClusterConfig accessConfig)";
    NO_STEP = "change-no-step", Warning,
        summary: "a field changes that no eksctl command changes on a running cluster: the plan leaves it as it is",
        help: "change it with the AWS console or CLI, or keep it as the cluster has it",
        reference: "eksctl pkg/ctl (upgrade, update, scale, utils) at 99984adb: the commands that change a running cluster";
    NODEGROUP_REPLACED_UNDER_ITS_NAME = "change-nodegroup-replaced-under-its-name", Warning,
        summary: "a node group changes what cannot change on a running group (a managed group's creation settings; anything but a self-managed group's sizes) and keeps its name, which eksctl cannot give a second group: its pods move through an interim group (evicted twice, both groups paid for meanwhile), or, on a capacity reservation, it is deleted before its replacement exists",
        help: "give the changed group a new name in the design: the plan then creates it first and drains the old one once, when the new nodes are ready",
        reference: "EKS UpdateNodegroupConfig and UpdateNodegroupVersion (what changes in place); eksctl scale nodegroup (all it changes of a self-managed group); eksctl create nodegroup refuses a name the cluster already has";
    SELF_MANAGED_KEEPS_VERSION = "change-self-managed-keeps-version", Warning,
        summary: "the control plane is upgraded and a self-managed node group keeps its nodes: they stay on the Kubernetes version of the AMI they were launched from",
        help: "after the upgrade, add the group again under a new name (the plan creates it on the new version's AMI, then drains and deletes the old one); a kubelet may be at most three minor versions older than the control plane",
        reference: "eksctl pkg/actions/nodegroup/upgrade.go (\"upgrade is only supported for managed nodegroups\"); eksctl docs, usage/cluster-upgrade (replace each node group by a new one); Kubernetes version skew policy (kubelet up to three minor versions older than kube-apiserver)";
    NODEGROUP_LEAVES_RESERVATION = "change-nodegroup-leaves-reservation", Warning,
        summary: "a node group on a capacity reservation is replaced or deleted: its reserved instances are released",
        help: "target the same reservation with the group that follows it, and change it when the reserved instances are idle",
        reference: "EC2 capacity reservations: an instance released from a targeted reservation frees the capacity, which another launch may take";
    NODEGROUP_BLOCK_SCALED_TO_ZERO = "change-capacity-block-scaled-to-zero", Warning,
        summary: "a node group on a Capacity Block is rolled (an upgrade, a new AMI release): the plan scales it to 0 first, which stops the work on it",
        help: "checkpoint the training on the group first, and roll it while the block has time left to bring its instances back",
        reference: "EKS user guide, Capacity Blocks for ML with managed node groups (\"When upgrading managed node groups with Capacity Blocks, make sure that the desired size of the node group is set to 0\"): a block holds exactly the instances bought, so a rolling update has no spare instance to launch";
    SIZE_BEYOND_RESERVATION = "change-size-beyond-reservation", Warning,
        summary: "a node group may run more nodes than the capacity reservation it runs on holds (as EC2 describes it when the plan is made)",
        help: "keep max and desired size within the reservation, or add capacity for the rest (another reservation, on-demand, a longer block)",
        reference: "EC2 DescribeCapacityReservations (TotalInstanceCount): a targeted reservation launches at most that many instances; a Capacity Block sells no more";
    CAPACITY_BLOCK_CLOCK = "change-capacity-block-clock", Info,
        summary: "a node group runs on a Capacity Block: its end and the time left when the plan is made",
        help: "scale the group to 0 and checkpoint before EC2 begins ending the block's instances, 30 minutes before its end (60 for UltraServers)",
        reference: "EC2 DescribeCapacityReservations (EndDate); EC2 User Guide, Capacity Blocks for ML (instances end 30 minutes before the block's end, 60 for UltraServers); EKS User Guide, Capacity Blocks for ML with managed node groups";
    CAPACITY_BLOCK_ENDS_DURING_STEP = "change-capacity-block-ends-during-step", Warning,
        summary: "a Capacity Block ends before a step of the plan on its node group may be done waiting",
        help: "apply well before the block ends, or extend the block first (EC2 offers extensions of an active block)",
        reference: "EC2 DescribeCapacityReservations (EndDate); EC2 User Guide, Capacity Blocks for ML (instances end 30 minutes before the block's end); eksctl's waits (pkg/ctl: 25 minutes, 45 for upgrade nodegroup)";
    NODEPOOL_STATIC_DYNAMIC = "change-nodepool-static-dynamic", Error,
        summary: "a NodePool switches between static (replicas) and dynamic: Karpenter's CRD refuses the change",
        help: "make a new NodePool of the other kind and delete this one once its replacement is ready",
        reference: "kubernetes-sigs/karpenter NodePool CRD, spec's x-kubernetes-validations: has(self.replicas) == has(oldSelf.replicas) (\"Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes\")";
    LEAVES_ACCELERATOR_PODS_NOWHERE = "change-leaves-accelerator-pods-nowhere", Warning,
        summary: "after the plan no node group or NodePool offers an accelerator some pods ask for: they stay Pending",
        help: "keep one group or pool with the accelerator until its pods have moved, or scale their workloads down first",
        reference: "Kubernetes scheduling: a pod that asks for an extended resource (nvidia.com/gpu, aws.amazon.com/neuron) only fits a node that offers it";
    DRAINS_UNGUARDED_TRAINING = "change-drains-unguarded-training", Warning,
        summary: "a change drains nodes that run a training job no PodDisruptionBudget guards: its pods are evicted at once",
        help: "make the change between runs or right after a checkpoint; a PodDisruptionBudget over the run's pods makes the drain wait (the API server refuses an eviction that breaks it)",
        reference: "Kubernetes API-initiated eviction (the Eviction API honours PodDisruptionBudgets); eksctl delete nodegroup --drain and EKS's managed node group updates evict through it";
    ADDON_VERSION_NOT_OFFERED = "change-addon-version-not-offered", Error,
        summary: "a pinned add-on version EKS does not offer for the Kubernetes version asked for",
        help: "pin a version EKS offers for this Kubernetes version, or write `latest` for the newest",
        reference: "EKS DescribeAddonVersions (what it offers per Kubernetes version); CreateAddon and UpdateAddon refuse another version (InvalidParameterException)";
    ADDON_UPDATE_AFTER_UPGRADE = "change-addon-update-after-upgrade", Warning,
        summary: "a running add-on version EKS does not offer for the Kubernetes version the plan upgrades to",
        help: "upgrade in EKS's order: the control plane, then the add-ons, then the nodes",
        reference: "EKS user guide, update-cluster (update add-ons after the control plane); DescribeAddonVersions";
}
