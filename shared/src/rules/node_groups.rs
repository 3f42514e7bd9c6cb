//! Rules on managed node groups: names, sizes, instance types, EFA, capacity, GPUs, Spot.

use super::{Check, Context, Report, Rule, Severity, Stage};
use crate::catalog::instances;
use crate::model::ids::{self, IdError, ReservationId, ResourceName};
use crate::model::spec::RepairOverride;
use crate::model::spec::{Capacity, GroupPlacement, Network, NodeGroup};

pub(super) static RULES: &[Rule] = &[
    Rule {
        id: "nodegroup-name-invalid",
        severity: Severity::Error,
        summary: super::described(
            "node group name must start with a letter and hold only letters, digits and hyphens",
        ),
        help: "use a name such as `gpu-p5`",
        reference: super::described("eksctl validation.go:1052-1066 (A2.1)"),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(nodegroup_name_invalid),
    },
    Rule {
        id: "nodegroup-name-duplicate",
        severity: Severity::Error,
        summary: super::described("node group names must be unique in the cluster"),
        help: "rename one of the groups",
        reference: super::described("eksctl validation.go:251-259 (A2.2)"),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(nodegroup_name_duplicate),
    },
    Rule {
        id: "nodegroup-size-order",
        severity: Severity::Error,
        summary: super::described("node group sizes must satisfy min <= desired <= max"),
        help: "raise the maximum or lower the desired or minimum size",
        reference: super::described("eksctl validation.go:1421-1452 (A5.3)"),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(nodegroup_size_order),
    },
    Rule {
        id: "nodegroup-instance-type-missing",
        severity: Severity::Warning,
        summary: super::described(
            "node group names no instance type, no launch template and no instance selector: eksctl gives it its default, m5.large",
        ),
        help: "pick an instance type, e.g. `p5.48xlarge`",
        reference: super::described(
            "eksctl defaults.go SetManagedNodeGroupDefaults / SetNodeGroupDefaults (DefaultNodeType m5.large); accepted by eksctl, so not an error",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(nodegroup_instance_type_missing),
    },
    Rule {
        id: "nodegroup-instance-type-and-types",
        severity: Severity::Error,
        summary: super::described("`instanceType` and `instanceTypes` cannot both be set"),
        help: "use `instanceType` for one type or `instanceTypes` for several",
        reference: super::described("eksctl validation.go:1470-1477 (A5.1)"),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(nodegroup_instance_type_and_types),
    },
    Rule {
        id: "instance-type-unknown",
        severity: Severity::Warning,
        summary: super::described("instance type is not in the studio's catalog"),
        help: "check the spelling (e.g. `p4de.24xlarge`); very new types may be missing from the catalog",
        reference: super::described(
            "instance catalog from eksctl pkg/utils/instance/instance_types.go and EC2 DescribeInstanceTypes",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(instance_type_unknown),
    },
    Rule {
        id: "instance-type-mac",
        severity: Severity::Error,
        summary: super::described(
            "node group uses an EC2 Mac instance type, which runs macOS on a Dedicated Host: no EKS AMI runs there and the group's instances cannot launch",
        ),
        help: "pick a Linux instance type; macOS build machines are managed outside the cluster",
        reference: super::described(
            "Amazon EC2 User Guide, 'Amazon EC2 Mac instances' (bare metal, launched only onto an allocated Dedicated Host); the EKS optimized AMIs are Amazon Linux, Bottlerocket and Windows; Karpenter's VPC limits table lists the Mac types",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(instance_type_mac),
    },
    Rule {
        id: "nodegroups-beyond-quota",
        severity: Severity::Warning,
        summary: super::described(
            "more managed node groups than EKS allows per cluster by default (30)",
        ),
        help: "merge groups that differ only in size or labels, or raise the service quota \"Managed node groups per cluster\" before deploying",
        reference: super::described(
            "Amazon EKS service quotas: managed node groups per cluster, 30 (adjustable); CreateNodegroup fails past it",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(nodegroups_beyond_quota),
    },
    Rule {
        id: "nodegroup-subnet-unknown",
        severity: Severity::Error,
        summary: super::described("node group names a subnet or zone the cluster does not have"),
        help: "pick one of the cluster's subnets (existing VPC) or zones (new VPC)",
        reference: super::described(
            "eksctl pkg/vpc/vpc.go selectNodeGroupSubnetsFromIDs and selectNodeGroupZoneSubnets, run when the group's stack is built, after the control plane: a subnet is looked up by name or id in vpc.subnets (a new VPC's are named by zone), then by id in the account (\"subnet with ID %q is not in the attached VPC\"); a zone needs a cluster subnet in it (\"mapping does not have subnet with zone\")",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(nodegroup_subnet_unknown),
    },
    Rule {
        id: "nodegroup-subnet-unlisted",
        severity: Severity::Warning,
        summary: super::described(
            "node group names a subnet the cluster's subnets do not list, which eksctl uses only if it is in the cluster's VPC",
        ),
        help: "list the subnet under the cluster's subnets (a zone under the cluster's availabilityZones), or run live checks to see which VPC the subnet is in",
        reference: super::described(
            "eksctl pkg/vpc/vpc.go selectNodeGroupSubnetsFromIDs: a subnet not in vpc.subnets is looked up by id with DescribeSubnets and refused unless it is in the cluster's VPC",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(nodegroup_subnet_unlisted),
    },
    Rule {
        id: "local-nvme-needs-al2023",
        severity: Severity::Error,
        summary: super::described(
            "local NVMe RAID0 uses an AL2023 NodeConfig, which eksctl accepts only on AmazonLinux2023",
        ),
        help: "use amiFamily AmazonLinux2023 (the default) or turn off local NVMe RAID0",
        reference: super::described("eksctl validation.go:1574-1576 (A5.4), 1479-1493 (A5.5)"),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(local_nvme_needs_al2023),
    },
    Rule {
        id: "local-nvme-without-instance-store",
        severity: Severity::Warning,
        summary: super::described(
            "local NVMe RAID0 is asked for on an instance type without instance storage",
        ),
        help: "pick a type with local NVMe (e.g. p4d, p5, g5, g4dn) or turn the option off",
        reference: super::described("eksctl instance_types.go InstanceStorageSupported (A6.4)"),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(local_nvme_without_instance_store),
    },
    Rule {
        id: "efa-unsupported-instance-type",
        severity: Severity::Error,
        summary: super::described("EFA is enabled on an instance type that has no EFA"),
        help: "pick an EFA-capable type (p4d, p5, g5.8xlarge and larger, trn1.32xlarge…) or turn EFA off",
        reference: super::described("eksctl pkg/cfn/builder/network_interfaces.go:37-70 (A3.3)"),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(efa_unsupported_instance_type),
    },
    Rule {
        id: "efa-card-zero-without-efa",
        severity: Severity::Error,
        summary: super::described(
            "eksctl gives an EFA group an EFA interface on network card 0, which this instance type's card 0 does not take (p6-b300)",
        ),
        help: "for p6-b300 with EFA, launch the nodes from a Karpenter pool whose EC2NodeClass puts the EFA devices on cards 1 to 16, or turn EFA off for this group",
        reference: super::described(
            "eksctl pkg/cfn/builder/network_interfaces.go buildNetworkInterfaces (InterfaceType efa on card 0 and on each further card up to MaximumNetworkCards); eksctl-io/eksctl#8685; aws/aws-parallelcluster#7143 (P6-B300: card 0 supports ENA only, EFA on cards 1-16)",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(efa_card_zero_without_efa),
    },
    Rule {
        id: "efa-multiple-subnets",
        severity: Severity::Error,
        summary: super::described(
            "an EFA node group may list at most one subnet or availability zone",
        ),
        help: "keep only the subnet or zone where the instances (and any reservation) live",
        reference: super::described("eksctl validation.go:882-886 (A3.1)"),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(efa_multiple_subnets),
    },
    Rule {
        id: "node-group-no-subnet-of-its-kind",
        severity: Severity::Error,
        summary: super::described(
            "a node group in an existing VPC that has no subnets of its kind (public, or private with privateNetworking)",
        ),
        help: "turn privateNetworking on or off to match the VPC's subnets, or add subnets of the group's kind to the network",
        reference: super::described(
            "eksctl pkg/cfn/builder/nodegroup.go AssignSubnets (a group with no zones or subnets gets the VPC's public subnets, or its private ones with privateNetworking) and pkg/vpc/vpc.go selectNodeGroupZoneSubnets (\"mapping does not have enough subnets\"); EKS CreateNodegroup needs at least one subnet",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(node_group_no_subnet_of_its_kind),
    },
    Rule {
        id: "node-group-private-subnet-public-group",
        severity: Severity::Error,
        summary: super::described(
            "a public node group (privateNetworking off) names a subnet the design lists as private",
        ),
        help: "turn privateNetworking on for the group, or name a public subnet",
        reference: super::described(
            "eksctl pkg/vpc/vpc.go selectNodeGroupSubnetsFromIDs: \"subnet %s is specified as private in ClusterConfig, thus must only be used when `privateNetworking` is enabled\"",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(node_group_private_subnet_public_group),
    },
    Rule {
        id: "efa-group-not-pinned",
        severity: Severity::Warning,
        summary: super::described(
            "an EFA node group names no subnet or zone while the cluster has several: eksctl spreads it over every zone that offers its type",
        ),
        help: "set the group's subnet (existing VPC) or availability zone (new VPC) to the one its capacity lives in, so its nodes share one zone",
        reference: super::described(
            "eksctl pkg/cfn/builder/nodegroup.go AssignSubnets: a group with no zones or subnets gets every cluster subnet whose zone offers its types (only a group that names zones or subnets is cut to the first, pkg/vpc/vpc.go SelectNodeGroupSubnets)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(efa_group_not_pinned),
    },
    Rule {
        id: "efa-reservation-placement-group",
        severity: Severity::Info,
        summary: super::described(
            "eksctl creates no placement group for an EFA group on an On-Demand Capacity Reservation",
        ),
        help: "make sure the capacity reservation was made in a cluster placement group if your jobs need one",
        reference: super::described(
            "eksctl pkg/cfn/builder/managed_launch_template.go:76-107 (A3.4); a Capacity Block needs none: EC2 API reference, CapacityBlock (its instances are placed close together in an EC2 UltraCluster)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(efa_reservation_placement_group),
    },
    Rule {
        id: "node-repair-threshold-count-and-percentage",
        severity: Severity::Error,
        summary: super::described(
            "auto-repair's unhealthy threshold is given both as a count and as a percentage",
        ),
        help: "keep one of Stop repairs above unhealthy nodes (count) and (%)",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/types.go NodeGroupNodeRepairConfig (passed to CloudFormation's AWS::EKS::Nodegroup NodeRepairConfig by pkg/cfn/builder/managed_nodegroup.go); EKS API NodeRepairConfig: \"you cannot also set MaxUnhealthyNodeThresholdCount at the same time\"",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(node_repair_threshold_count_and_percentage),
    },
    Rule {
        id: "node-repair-parallel-count-and-percentage",
        severity: Severity::Error,
        summary: super::described(
            "auto-repair's parallel repairs are limited both by a count and by a percentage",
        ),
        help: "keep one of Nodes repaired at once (count) and (%)",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/types.go NodeGroupNodeRepairConfig (passed to CloudFormation's AWS::EKS::Nodegroup NodeRepairConfig by pkg/cfn/builder/managed_nodegroup.go); EKS API NodeRepairConfig: \"you cannot also set MaxParallelNodesRepairedPercentage at the same time\"",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(node_repair_parallel_count_and_percentage),
    },
    Rule {
        id: "node-repair-percentage-out-of-range",
        severity: Severity::Error,
        summary: super::described("an auto-repair percentage is above 100"),
        help: "give a percentage from 1 to 100",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/types.go NodeGroupNodeRepairConfig (passed to CloudFormation's AWS::EKS::Nodegroup NodeRepairConfig by pkg/cfn/builder/managed_nodegroup.go); EKS API NodeRepairConfig (percentages of the node group's nodes, 1-100)",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(node_repair_percentage_out_of_range),
    },
    Rule {
        id: "node-repair-override-incomplete",
        severity: Severity::Error,
        summary: super::described(
            "an auto-repair override leaves out its condition, reason, wait or action",
        ),
        help: "give the node monitoring condition, the unhealthy reason, the wait and the action of every override",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/types.go NodeGroupNodeRepairConfig (passed to CloudFormation's AWS::EKS::Nodegroup NodeRepairConfig by pkg/cfn/builder/managed_nodegroup.go); EKS API NodeRepairConfig: NodeRepairConfigOverrides, \"If you use this, you must specify all the values\"; EKS API NodeRepairConfigOverrides: minRepairWaitTimeMins minimum 1",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(node_repair_override_incomplete),
    },
    Rule {
        id: "node-repair-override-action-unknown",
        severity: Severity::Error,
        summary: super::described(
            "an auto-repair override's action is not Replace, Reboot or NoAction",
        ),
        help: "use Replace, Reboot or NoAction (spelled so)",
        reference: super::described(
            "EKS API reference, NodeRepairConfigOverrides.repairAction: Valid Values Replace | Reboot | NoAction (eksctl passes the value through unchecked)",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(node_repair_override_action_unknown),
    },
    Rule {
        id: "node-repair-settings-while-off",
        severity: Severity::Warning,
        summary: super::described("auto-repair limits are set while auto-repair is off"),
        help: "turn Node auto-repair on, or clear its limits",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/types.go NodeGroupNodeRepairConfig (passed to CloudFormation's AWS::EKS::Nodegroup NodeRepairConfig by pkg/cfn/builder/managed_nodegroup.go); EKS API NodeRepairConfig: the limits apply to repairs, which run only with enabled: true",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(node_repair_settings_while_off),
    },
    Rule {
        id: "placement-group-with-reservation",
        severity: Severity::Warning,
        summary: super::described("a group on reserved capacity is pinned to a placement group"),
        help: "for a capacity reservation, use the placement group it was made in; for a Capacity Block, leave the placement group empty",
        reference: super::described(
            "AWS EC2 User Guide, Capacity Reservations in cluster placement groups (a reservation made in a cluster placement group serves only launches into it); EC2 API reference, CapacityBlock and PurchaseCapacityBlock (AWS places a block's instances in an EC2 UltraCluster; a block is bought without a placement group); eksctl pkg/cfn/builder/managed_launch_template.go",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(placement_group_with_reservation),
    },
    Rule {
        id: "reservation-id-missing",
        severity: Severity::Error,
        summary: super::described("a reservation or Capacity Block is chosen without its id"),
        help: "enter the capacity reservation id, `cr-` followed by 17 hex digits",
        reference: super::described("eksctl validation.go:942-957 (A4.1-A4.3)"),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(reservation_id_missing),
    },
    Rule {
        id: "reservation-id-malformed",
        severity: Severity::Error,
        summary: super::described(
            "capacity reservation id is not `cr-` followed by 8 or 17 hex digits",
        ),
        help: "copy the id from the EC2 console (Capacity Reservations) or `aws ec2 describe-capacity-reservations`",
        reference: super::described("AWS docs: resource IDs"),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(reservation_id_malformed),
    },
    Rule {
        id: "reservation-group-not-pinned",
        severity: Severity::Warning,
        summary: super::described(
            "a node group on a reservation is not pinned to the reservation's zone",
        ),
        help: "a reservation lives in one availability zone: pin the group to that zone or its subnet",
        reference: super::described(
            "reference manifests' comments; eksctl does not check this (A4.8)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(reservation_group_not_pinned),
    },
    Rule {
        id: "capacity-block-ineligible-instance-type",
        severity: Severity::Error,
        summary: super::described("Capacity Blocks for ML are not sold for this instance type"),
        help: "Capacity Blocks exist for p4d, p4de, p5, p5e, p5en, p6, p6e-gb200, trn1.32xlarge, trn2 and trn2u",
        reference: super::described(
            "eksctl instance_types.go CBRSupported (A6.4); AWS docs: Capacity Blocks for ML",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(capacity_block_ineligible_instance_type),
    },
    Rule {
        id: "capacity-blocks-only-instance-type",
        severity: Severity::Error,
        summary: super::described(
            "the instance type is sold only as Capacity Blocks for ML, and the group asks for other capacity",
        ),
        help: "reserve a Capacity Block of the UltraServer and set the group's capacity to Capacity Block with its reservation id",
        reference: super::described(
            "AWS EC2 User Guide, Capacity Blocks for ML (UltraServers: P6e-GB200, Trn2); a launch into a Capacity Block needs marketType capacity-block (eksctl instanceMarketOptions); catalog column cb_only",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(capacity_blocks_only_instance_type),
    },
    Rule {
        id: "eksctl-arm-type-unknown",
        severity: Severity::Error,
        summary: super::described(
            "eksctl does not know the Arm instance type, gives the group an x86-64 AMI type, and EKS refuses the node group",
        ),
        help: "give the group a custom `ami` (the EKS-optimized AL2023 arm64 image: SSM parameter /aws/service/eks/optimized-ami/VERSION/amazon-linux-2023/arm64/nvidia/recommended/image_id for NVIDIA types) with amiFamily AmazonLinux2023",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/amitype.go GetAMIType (the architecture from pkg/utils/instance/instance_types.go; a type it lacks is taken as x86-64) and pkg/cfn/builder/managed_nodegroup.go (AmiType unless the launch template has an image); EKS CreateNodegroup refuses an AMI type of another architecture; catalog column eksctl",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(eksctl_arm_type_unknown),
    },
    Rule {
        id: "eksctl-accelerated-type-unknown",
        severity: Severity::Error,
        summary: super::described(
            "eksctl does not know the GPU or Neuron instance type and gives the group the standard AMI, without the accelerator's drivers",
        ),
        help: "give the group a custom `ami` (the EKS-optimized AL2023 NVIDIA or Neuron image for the cluster's version) with amiFamily AmazonLinux2023",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/amitype.go GetAMIType (NVIDIA and Neuron variants only for types pkg/utils/instance/instance_types.go marks); EKS user guide, EKS-optimized accelerated AMIs (the standard AMI has no NVIDIA or Neuron driver); catalog column eksctl",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(eksctl_accelerated_type_unknown),
    },
    Rule {
        id: "eksctl-device-plugin-not-installed",
        severity: Severity::Warning,
        summary: super::described(
            "eksctl installs no NVIDIA or Neuron device plugin for an instance type it does not know",
        ),
        help: "install the device plugin yourself (NVIDIA's device plugin or GPU Operator, or the Neuron device plugin) before scheduling pods that ask for the accelerators",
        reference: super::described(
            "eksctl pkg/eks/tasks.go and pkg/addons/device_plugin.go (the NVIDIA and Neuron device plugins are installed for groups with a type pkg/utils/instance/instance_types.go marks NVIDIA or Neuron); catalog column eksctl",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(eksctl_device_plugin_not_installed),
    },
    Rule {
        id: "ultraserver-kubernetes-version",
        severity: Severity::Warning,
        summary: super::described(
            "EKS supports P6e-GB200 UltraServers from Kubernetes 1.33, whose Dynamic Resource Allocation their multi-node NVLink needs",
        ),
        help: "use Kubernetes 1.33 or later for a cluster with p6e-gb200 nodes",
        reference: super::described(
            "EKS user guide, Use P6e-GB200 UltraServers with Amazon EKS (considerations: Kubernetes 1.33 and above, DRA on by default in EKS and the AL2023 accelerated AMIs)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(ultraserver_kubernetes_version),
    },
    Rule {
        id: "capacity-block-single-instance-type",
        severity: Severity::Error,
        summary: super::described(
            "a Capacity Block node group must have exactly one instance type",
        ),
        help: "set `instanceType` to the block's type and remove `instanceTypes`",
        reference: super::described(
            "eksctl pkg/cfn/builder/managed_nodegroup.go:173-178,217-239 (A4.6)",
        ),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(capacity_block_single_instance_type),
    },
    Rule {
        id: "gpu-ami-without-nvidia-driver",
        severity: Severity::Warning,
        summary: super::described("this AMI family ships no NVIDIA driver for a GPU instance type"),
        help: "use AmazonLinux2023, AmazonLinux2 or Bottlerocket for NVIDIA GPUs",
        reference: super::described("eksctl validation.go:910-923 (A6.1)"),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(gpu_ami_without_nvidia_driver),
    },
    Rule {
        id: "neuron-ami-unsupported",
        severity: Severity::Error,
        summary: super::described(
            "Trainium and Inferentia types need AmazonLinux2, AmazonLinux2023 or Bottlerocket",
        ),
        help: "switch the AMI family to AmazonLinux2023",
        reference: super::described("eksctl validation.go:926-940 (A6.2)"),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(neuron_ami_unsupported),
    },
    Rule {
        id: "gpu-group-without-taint",
        severity: Severity::Info,
        summary: super::described(
            "a GPU node group has no `nvidia.com/gpu` taint, so any pod may land on it",
        ),
        help: "add the taint `nvidia.com/gpu` (NoSchedule) so only pods asking for GPUs use these nodes",
        reference: super::described("EKS best practices for AI/ML: compute and autoscaling"),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(gpu_group_without_taint),
    },
    Rule {
        id: "no-system-node-group",
        severity: Severity::Warning,
        summary: super::described(
            "every node group is a GPU group: system pods will take GPU nodes",
        ),
        help: "add a small CPU node group (e.g. c5.2xlarge) for CoreDNS, controllers and Karpenter",
        reference: super::described(
            "EKS best practices for AI/ML; reference manifests' `sys` group",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(no_system_node_group),
    },
    Rule {
        id: "taint-effect-invalid",
        severity: Severity::Error,
        summary: super::described(
            "a taint needs a key and an effect of NoSchedule, PreferNoSchedule or NoExecute",
        ),
        help: "set the effect to NoSchedule for GPU taints",
        reference: super::described("eksctl validation.go:1836-1849 (A7.3)"),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(taint_effect_invalid),
    },
    Rule {
        id: "nodegroup-label-invalid",
        severity: Severity::Error,
        summary: super::described(
            "a node label is not a valid Kubernetes label, or uses a reserved kubernetes.io/k8s.io prefix",
        ),
        help: "keys are `[prefix/]name` (name up to 63 letters, digits, `-_.`); kubernetes.io and k8s.io prefixes are only for the kubelet's own labels",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/validation.go (validateLabels); k8s.io/apimachinery IsQualifiedName, IsValidLabelValue",
        ),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(nodegroup_label_invalid),
    },
    Rule {
        id: "ami-family-al2-unsupported",
        severity: Severity::Error,
        summary: super::described("AmazonLinux2 node groups are refused from Kubernetes 1.33"),
        help: "use AmazonLinux2023 (or Bottlerocket); AL2 has no EKS AMIs for 1.33 and later",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/defaults.go SetManagedNodeGroupDefaults (AmazonLinux2EOLVersion = 1.33)",
        ),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(ami_family_al2_unsupported),
    },
    Rule {
        id: "nodegroup-placement-empty",
        severity: Severity::Warning,
        summary: super::described(
            "an empty subnets or availabilityZones list is no restriction: the group may launch anywhere in the cluster",
        ),
        help: "list the subnets or zones the group belongs in, or remove the empty list",
        reference: super::described(
            "eksctl pkg/cfn/builder/managed_nodegroup.go and vpc.go: an empty list means the cluster's subnets",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(nodegroup_placement_empty),
    },
    Rule {
        id: "nodegroup-size-invalid",
        severity: Severity::Error,
        summary: super::described("a node group size is not a whole number of nodes of 0 or more"),
        help: "give minSize, desiredCapacity and maxSize as whole numbers, 0 or more",
        reference: super::described(
            "EKS CreateNodegroup scalingConfig (minSize, maxSize, desiredSize: integers, 0 or more); eksctl schema (integer)",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(nodegroup_size_invalid),
    },
    Rule {
        id: "spot-efa-training",
        severity: Severity::Warning,
        summary: super::described(
            "Spot capacity for an EFA group: one interruption stops the whole multi-node job",
        ),
        help: "use On-Demand, an ODCR or a Capacity Block for tightly-coupled NCCL training",
        reference: super::described(
            "EKS best practices for AI/ML: Spot for inference, reserved capacity for training",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(spot_efa_training),
    },
    Rule {
        id: "spot-few-instance-types",
        severity: Severity::Warning,
        summary: super::described("a Spot node group should allow at least three instance types"),
        help: "list several similar types in `instanceTypes` so Spot has pools to choose from",
        reference: super::described(
            "AWS docs: Spot best practices (be flexible about instance types)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(spot_few_instance_types),
    },
    Rule {
        id: "spot-single-zone",
        severity: Severity::Warning,
        summary: super::described("a Spot node group is pinned to one availability zone"),
        help: "let Spot groups use every zone of the cluster",
        reference: super::described("AWS docs: Spot best practices (be flexible about zones)"),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(spot_single_zone),
    },
];

fn groups<'a>(context: &Context<'a>) -> impl Iterator<Item = (usize, &'a NodeGroup)> + use<'a> {
    context.spec.node_groups.iter().enumerate()
}

/// The group's instance types, single or several.
pub(super) fn instance_type_names(group: &NodeGroup) -> impl ExactSizeIterator<Item = &str> {
    let names = if group.instance_type.is_empty() {
        group.instance_types.as_slice()
    } else {
        std::slice::from_ref(&group.instance_type)
    };
    names.iter().map(String::as_str)
}

fn instance_type_path(index: usize, group: &NodeGroup) -> String {
    if group.instance_type.is_empty() && !group.instance_types.is_empty() {
        NodeGroup::INSTANCE_TYPES.at(&[index])
    } else {
        NodeGroup::INSTANCE_TYPE.at(&[index])
    }
}

/// The reservation id of a group on an ODCR or a Capacity Block.
pub(super) fn reservation_id(group: &NodeGroup) -> Option<&str> {
    match &group.capacity {
        Capacity::Reservation { reservation_id } | Capacity::CapacityBlock { reservation_id } => {
            Some(reservation_id)
        }
        Capacity::OnDemand | Capacity::Spot => None,
    }
}

/// How many subnets or zones a group placed on the whole cluster could land in.
fn cluster_placements(context: &Context<'_>, group: &NodeGroup) -> usize {
    match &context.spec.network {
        Network::NewVpc { availability_zones } => availability_zones.len(),
        Network::ExistingVpc {
            public_subnets,
            private_subnets,
            ..
        } => {
            if group.private_networking {
                private_subnets.len()
            } else {
                public_subnets.len()
            }
        }
    }
}

fn placement_len(group: &NodeGroup) -> Option<usize> {
    match &group.placement {
        GroupPlacement::Cluster => None,
        GroupPlacement::Subnets { subnets } => Some(subnets.len()),
        GroupPlacement::AvailabilityZones { availability_zones } => Some(availability_zones.len()),
    }
}

fn is_al2023(group: &NodeGroup) -> bool {
    group
        .ami_family
        .as_deref()
        .is_none_or(|family| family == "AmazonLinux2023")
}

fn ships_accelerator_drivers(group: &NodeGroup) -> bool {
    group.ami_family.as_deref().is_none_or(|family| {
        matches!(
            family,
            "AmazonLinux2023" | "AmazonLinux2" | "Bottlerocket" | "BottlerocketFips"
        )
    })
}

fn nodegroup_name_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        match ResourceName::check(&group.name) {
            Ok(_) | Err(IdError::Placeholder) => {}
            Err(error) => report.fire(
                NodeGroup::NAME.at(&[index]),
                format!("node group name `{}` {error}", group.name),
            ),
        }
    }
}

fn nodegroup_name_duplicate(context: &Context<'_>, report: &mut Report<'_>) {
    let groups = &context.spec.node_groups;
    let names = groups.iter().map(|group| Some(group.name.as_str()));
    super::each_repeat(names, |index, first| {
        report.fire(
            NodeGroup::NAME.at(&[index]),
            format!(
                "node group name `{}` is already used by node_groups[{first}]",
                groups[index].name
            ),
        );
    });
}

fn nodegroup_size_order(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        let (min, desired, max) = (group.min_size, group.desired_capacity, group.max_size);
        if let (Some(min), Some(max)) = (min, max)
            && min > max
        {
            report.fire(
                NodeGroup::MIN_SIZE.at(&[index]),
                format!("minimum size {min} is larger than maximum size {max}"),
            );
        }
        if let (Some(desired), Some(max)) = (desired, max)
            && desired > max
        {
            report.fire(
                NodeGroup::DESIRED_CAPACITY.at(&[index]),
                format!("desired capacity {desired} is larger than maximum size {max}"),
            );
        }
        if let (Some(min), Some(desired)) = (min, desired)
            && desired < min
        {
            report.fire(
                NodeGroup::DESIRED_CAPACITY.at(&[index]),
                format!("desired capacity {desired} is smaller than minimum size {min}"),
            );
        }
        if max == Some(0) {
            report.fire(
                NodeGroup::MAX_SIZE.at(&[index]),
                "maximum size must be at least 1",
            );
        }
    }
}

fn nodegroup_instance_type_missing(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        // A launch template or an instance selector chooses the types instead.
        let chosen_elsewhere = ["launchTemplate", "instanceSelector"]
            .iter()
            .any(|key| group.extra.contains_key(*key));
        if group.instance_type.trim().is_empty()
            && group.instance_types.is_empty()
            && !chosen_elsewhere
        {
            report.fire(
                NodeGroup::INSTANCE_TYPE.at(&[index]),
                format!(
                    "node group `{}` names no instance type: eksctl launches it on m5.large",
                    group.name
                ),
            );
        }
    }
}

fn nodegroup_instance_type_and_types(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if !group.instance_type.is_empty() && !group.instance_types.is_empty() {
            report.fire(
                NodeGroup::INSTANCE_TYPES.at(&[index]),
                format!(
                    "node group `{}` sets both instanceType `{}` and instanceTypes",
                    group.name, group.instance_type
                ),
            );
        }
    }
}

fn instance_type_unknown(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        for name in instance_type_names(group) {
            if !name.trim().is_empty()
                && !ids::is_placeholder(name)
                && instances::lookup(name).is_none()
                && !instances::is_mac(name)
            {
                report.fire(
                    instance_type_path(index, group),
                    format!("instance type `{name}` is not in the catalog"),
                );
            }
        }
    }
}

fn instance_type_mac(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        for name in instance_type_names(group) {
            if instances::is_mac(name) {
                report.fire(
                    instance_type_path(index, group),
                    format!(
                        "`{name}` is an EC2 Mac instance: macOS on a Dedicated Host, which EKS nodes cannot run on"
                    ),
                );
            }
        }
    }
}

/// EKS's default quota of managed node groups per cluster.
const MANAGED_NODE_GROUPS_QUOTA: usize = 30;

fn nodegroups_beyond_quota(context: &Context<'_>, report: &mut Report<'_>) {
    let count = context.spec.node_groups.len();
    if count > MANAGED_NODE_GROUPS_QUOTA {
        report.fire(
            "node_groups",
            format!(
                "the design has {count} managed node groups; EKS allows {MANAGED_NODE_GROUPS_QUOTA} per cluster unless the quota is raised, so creating group {} fails",
                MANAGED_NODE_GROUPS_QUOTA + 1
            ),
        );
    }
}

fn nodegroup_subnet_unknown(context: &Context<'_>, report: &mut Report<'_>) {
    let network = &context.spec.network;
    for (index, group) in groups(context) {
        match (&group.placement, network) {
            (GroupPlacement::Subnets { subnets }, Network::ExistingVpc { vpc_id, .. }) => {
                for (subnet_index, subnet) in subnets.iter().enumerate() {
                    // An id eksctl can look up is judged by `nodegroup-subnet-unlisted` and
                    // the live checks; a placeholder by `placeholder-left`.
                    if network.lists_subnet(subnet)
                        || ids::SubnetId::check(subnet).is_ok()
                        || ids::is_placeholder(subnet)
                    {
                        continue;
                    }
                    report.fire(
                        format!("node_groups[{index}].placement.subnets[{subnet_index}]"),
                        format!(
                            "`{subnet}` is neither the name nor the id of a subnet listed for the cluster's VPC ({vpc_id}); eksctl then asks EC2 for a subnet with that id, which EC2 refuses, and the group's stack fails after the control plane is created"
                        ),
                    );
                }
            }
            (
                GroupPlacement::Subnets { subnets },
                Network::NewVpc {
                    availability_zones: cluster_zones,
                },
            ) => {
                let unknown: Vec<String> = subnets
                    .iter()
                    .filter(|subnet| {
                        // A placeholder is `placeholder-left`'s.
                        let found = network.lists_subnet(subnet)
                            || (cluster_zones.is_empty() && is_zone(context, subnet))
                            || ids::is_placeholder(subnet);
                        !found
                    })
                    .map(|subnet| format!("`{subnet}`"))
                    .collect();
                if unknown.is_empty() {
                    continue;
                }
                report.fire(
                    NodeGroup::PLACEMENT.at(&[index]),
                    format!(
                        "node group names {}, but the file gives no VPC: `eksctl create cluster` makes a new one, whose subnets it names by zone{}, and after the control plane is created fails building the group's stack (\"subnet with ID … is not in the attached VPC\", or EC2 refuses the name as a subnet id); pin the group to an availability zone instead. (`eksctl create nodegroup` on an existing cluster takes the cluster's VPC, where these subnets may be right.)",
                        unknown.join(", "),
                        if cluster_zones.is_empty() {
                            String::new()
                        } else {
                            format!(" ({})", cluster_zones.join(", "))
                        }
                    ),
                );
            }
            (
                GroupPlacement::AvailabilityZones { availability_zones },
                Network::NewVpc {
                    availability_zones: cluster_zones,
                },
            ) if !cluster_zones.is_empty() => {
                for (zone_index, zone) in availability_zones.iter().enumerate() {
                    if !cluster_zones.contains(zone) {
                        report.fire(
                            format!("node_groups[{index}].placement.availability_zones[{zone_index}]"),
                            format!(
                                "zone `{zone}` is not one of the cluster's zones ({}): eksctl makes no subnet there, and fails building the group's stack after the control plane is created (\"mapping does not have subnet with zone\")",
                                cluster_zones.join(", ")
                            ),
                        );
                    }
                }
            }
            _ => {}
        }
    }
}

/// Whether `value` is a zone of the design's region.
fn is_zone(context: &Context<'_>, value: &str) -> bool {
    context
        .region
        .as_ref()
        .is_some_and(|region| ids::AvailabilityZone::check_in(value, region).is_ok())
}

fn nodegroup_subnet_unlisted(context: &Context<'_>, report: &mut Report<'_>) {
    let live = context.live;
    for (path, subnet) in context.spec.unlisted_group_subnet_ids() {
        // Once EC2 has answered for it, the live checks say whether it is in the VPC.
        if live.subnets.iter().any(|fact| fact.id == subnet)
            || live.missing_subnets.iter().any(|missing| missing == subnet)
        {
            continue;
        }
        report.fire(
            path,
            format!(
                "subnet `{subnet}` is not one of the subnets listed for the cluster; eksctl looks it up in the account and uses it only if it is in the cluster's VPC, else the group's stack fails after the control plane is created (\"subnet with ID … is not in the attached VPC\")"
            ),
        );
    }
    if let Network::NewVpc { availability_zones } = &context.spec.network
        && availability_zones.is_empty()
    {
        for (index, group) in groups(context) {
            let GroupPlacement::Subnets { subnets } = &group.placement else {
                continue;
            };
            for (subnet_index, subnet) in subnets.iter().enumerate() {
                if is_zone(context, subnet) {
                    report.fire(
                        format!("node_groups[{index}].placement.subnets[{subnet_index}]"),
                        format!(
                            "eksctl names the subnets of the VPC it creates by their zones, so `{subnet}` is found only if eksctl picks that zone for the cluster, which the file leaves to it"
                        ),
                    );
                }
            }
        }
    }
}

fn local_nvme_needs_al2023(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if group.local_nvme_raid0 && !is_al2023(group) {
            report.fire(
                format!("node_groups[{index}].local_nvme_raid0"),
                format!(
                    "local NVMe RAID0 writes an AL2023 NodeConfig to overrideBootstrapCommand, which eksctl refuses on {}",
                    group.ami_family.as_deref().unwrap_or_default()
                ),
            );
        }
    }
}

fn local_nvme_without_instance_store(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if !group.local_nvme_raid0 {
            continue;
        }
        for instance_type in context.group_instance_types(index) {
            if !instance_type.instance_storage {
                report.fire(
                    format!("node_groups[{index}].local_nvme_raid0"),
                    format!(
                        "{} has no local instance storage to stripe",
                        instance_type.name
                    ),
                );
            }
        }
    }
}

fn efa_unsupported_instance_type(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if !group.efa_enabled {
            continue;
        }
        for instance_type in context.group_instance_types(index) {
            if !instance_type.efa_supported {
                report.fire(
                    instance_type_path(index, group),
                    format!(
                        "{} has no EFA, but EFA is enabled for `{}`",
                        instance_type.name, group.name
                    ),
                );
            }
        }
    }
}

fn efa_card_zero_without_efa(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if !group.efa_enabled {
            continue;
        }
        for instance_type in context.group_instance_types(index) {
            // EFA types whose EFA count the catalog lacks (p6e-gb200) are not judged.
            let card_zero_refused = instance_type.efa_interfaces > 0
                && instance_type.network_cards > 0
                && !instance_type.efa_on_card_zero;
            if card_zero_refused {
                report.fire(
                    instance_type_path(index, group),
                    format!(
                        "eksctl gives EFA group `{}` an EFA interface on network card 0 and on each of {}'s {} cards, but its card 0 takes no EFA device and it has {} EFA interfaces: EC2 refuses the launch template",
                        group.name,
                        instance_type.name,
                        instance_type.network_cards,
                        instance_type.efa_interfaces
                    ),
                );
            }
        }
    }
}

fn efa_multiple_subnets(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if group.efa_enabled
            && let Some(count) = placement_len(group)
            && count > 1
        {
            report.fire(
                NodeGroup::PLACEMENT.at(&[index]),
                format!(
                    "EFA node group `{}` lists {count} subnets or zones; eksctl allows one",
                    group.name
                ),
            );
        }
    }
}

fn node_group_no_subnet_of_its_kind(context: &Context<'_>, report: &mut Report<'_>) {
    let Network::ExistingVpc {
        public_subnets,
        private_subnets,
        ..
    } = &context.spec.network
    else {
        return;
    };
    // A VPC with no subnets at all is the network rules' to say.
    if public_subnets.is_empty() && private_subnets.is_empty() {
        return;
    }
    for (index, group) in groups(context) {
        let (kind, count) = if group.private_networking {
            ("private", private_subnets.len())
        } else {
            ("public", public_subnets.len())
        };
        if count > 0 {
            continue;
        }
        let how = match &group.placement {
            // Subnets named by id outside the design are looked up in EC2 by eksctl.
            GroupPlacement::Subnets { .. } => continue,
            GroupPlacement::Cluster => format!(
                "names no subnet or zone, so eksctl gives it the VPC's {kind} subnets: none, and EKS refuses a node group without subnets"
            ),
            GroupPlacement::AvailabilityZones { .. } => format!(
                "names zones, and eksctl looks for {kind} subnets in them: it refuses the group (\"could not find {kind} subnets for zones …: mapping does not have enough subnets\")"
            ),
        };
        let networking = if group.private_networking {
            "private (privateNetworking on)"
        } else {
            "public (privateNetworking off)"
        };
        report.fire(
            NodeGroup::PLACEMENT.at(&[index]),
            format!(
                "node group `{}` is {networking} and the VPC has no {kind} subnets; it {how}",
                group.name
            ),
        );
    }
}

fn node_group_private_subnet_public_group(context: &Context<'_>, report: &mut Report<'_>) {
    let Network::ExistingVpc {
        public_subnets,
        private_subnets,
        ..
    } = &context.spec.network
    else {
        return;
    };
    for (index, group) in groups(context) {
        let GroupPlacement::Subnets { subnets } = &group.placement else {
            continue;
        };
        if group.private_networking {
            continue;
        }
        let named = |subnet: &crate::model::spec::Subnet, wanted: &str| {
            !wanted.trim().is_empty() && (subnet.name == wanted || subnet.id == wanted)
        };
        for wanted in subnets {
            // eksctl looks among the public subnets first: a name in both is public.
            if public_subnets.iter().any(|subnet| named(subnet, wanted)) {
                continue;
            }
            if private_subnets.iter().any(|subnet| named(subnet, wanted)) {
                report.fire(
                    NodeGroup::PLACEMENT.at(&[index]),
                    format!(
                        "node group `{}` is public (privateNetworking off) and names subnet `{wanted}`, which the design lists as private: eksctl refuses it (\"subnet {wanted} is specified as private in ClusterConfig, thus must only be used when `privateNetworking` is enabled\")",
                        group.name
                    ),
                );
            }
        }
    }
}

fn efa_group_not_pinned(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        let candidates = cluster_placements(context, group);
        // A new VPC that names no zone gets the ones eksctl picks (pkg/az: three where the
        // region has them, RecommendedAvailabilityZones).
        let zones_picked_by_eksctl = matches!(
            &context.spec.network,
            Network::NewVpc { availability_zones } if availability_zones.is_empty()
        );
        if group.efa_enabled
            && group.placement == GroupPlacement::Cluster
            && (candidates > 1 || zones_picked_by_eksctl)
        {
            let consequence = if reservation_id(group).is_some() {
                ", and only the reservation's zone holds its capacity"
            } else {
                ""
            };
            if zones_picked_by_eksctl {
                report.fire(
                    NodeGroup::PLACEMENT.at(&[index]),
                    format!(
                        "EFA node group `{}` names no zone, and the new VPC lists none, so eksctl picks the cluster's zones itself (three where the region has them) and gives the group every one that offers its type: its nodes may land in different zones, where EFA does not reach{consequence}",
                        group.name
                    ),
                );
                continue;
            }
            let kind = match context.spec.network {
                Network::NewVpc { .. } => "availability zones",
                Network::ExistingVpc { .. } => {
                    if group.private_networking {
                        "private subnets"
                    } else {
                        "public subnets"
                    }
                }
            };
            report.fire(
                NodeGroup::PLACEMENT.at(&[index]),
                format!(
                    "EFA node group `{}` names no subnet or zone while the cluster has {candidates} {kind}: eksctl gives it every one whose zone offers its type, so its nodes may land in different zones, where EFA does not reach{consequence}",
                    group.name
                ),
            );
        }
    }
}

fn efa_reservation_placement_group(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        // A group that names its placement group is judged by placement-group-with-reservation.
        // A Capacity Block needs none: AWS places its instances together in an UltraCluster.
        if group.efa_enabled
            && matches!(group.capacity, Capacity::Reservation { .. })
            && group.placement_group.trim().is_empty()
        {
            report.fire(
                NodeGroup::CAPACITY.at(&[index]),
                format!(
                    "`{}` uses an On-Demand Capacity Reservation, so eksctl creates no cluster placement group for its EFA nodes: they are as close together as the reservation was made",
                    group.name
                ),
            );
        }
    }
}

fn node_repair_threshold_count_and_percentage(context: &Context<'_>, report: &mut Report<'_>) {
    count_and_percentage(
        context,
        report,
        "max_unhealthy_node_threshold_count",
        "gives auto-repair's unhealthy threshold both as a count and as a percentage",
        |settings| {
            settings.max_unhealthy_node_threshold_count.is_some()
                && settings.max_unhealthy_node_threshold_percentage.is_some()
        },
    );
}

fn node_repair_parallel_count_and_percentage(context: &Context<'_>, report: &mut Report<'_>) {
    count_and_percentage(
        context,
        report,
        "max_parallel_nodes_repaired_count",
        "limits parallel repairs both by a count and by a percentage",
        |settings| {
            settings.max_parallel_nodes_repaired_count.is_some()
                && settings.max_parallel_nodes_repaired_percentage.is_some()
        },
    );
}

/// Fires at `field` of every group whose auto-repair settings give `both` a count and a
/// percentage of one limit, which EKS takes only one way.
fn count_and_percentage(
    context: &Context<'_>,
    report: &mut Report<'_>,
    field: &str,
    what: &str,
    both: fn(&crate::model::spec::NodeRepairSettings) -> bool,
) {
    for (index, group) in groups(context) {
        if both(&group.node_repair_config) {
            report.fire(
                format!("node_groups[{index}].node_repair_config.{field}"),
                format!("`{}` {what}; EKS takes one", group.name),
            );
        }
    }
}

fn node_repair_percentage_out_of_range(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        let settings = &group.node_repair_config;
        let percentages = [
            (
                "max_unhealthy_node_threshold_percentage",
                settings.max_unhealthy_node_threshold_percentage,
            ),
            (
                "max_parallel_nodes_repaired_percentage",
                settings.max_parallel_nodes_repaired_percentage,
            ),
        ];
        for (field, value) in percentages {
            if let Some(percent) = value.filter(|percent| *percent > 100) {
                report.fire(
                    format!("node_groups[{index}].node_repair_config.{field}"),
                    format!("`{}`: {percent}% is more than every node", group.name),
                );
            }
        }
    }
}

fn node_repair_override_incomplete(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        for (position, entry) in group
            .node_repair_config
            .node_repair_config_overrides
            .iter()
            .enumerate()
        {
            let mut missing: Vec<&str> = [
                ("the condition", &entry.node_monitoring_condition),
                ("the reason", &entry.node_unhealthy_reason),
                ("the action", &entry.repair_action),
            ]
            .into_iter()
            .filter(|(_, value)| value.trim().is_empty())
            .map(|(what, _)| what)
            .collect();
            // eksctl writes the wait even when it is not given (0); EKS's minimum is 1.
            if entry.min_repair_wait_time_mins == 0 {
                missing.push("the wait (at least 1 minute)");
            }
            if !missing.is_empty() {
                report.fire(
                    format!("node_groups[{index}].node_repair_config.node_repair_config_overrides[{position}]"),
                    format!(
                        "auto-repair override {} of `{}` leaves out {}",
                        position + 1,
                        group.name,
                        missing.join(" and ")
                    ),
                );
            }
        }
    }
}

fn node_repair_override_action_unknown(context: &Context<'_>, report: &mut Report<'_>) {
    const ACTIONS: [&str; 3] = ["Replace", "Reboot", "NoAction"];
    for (index, group) in groups(context) {
        for (position, entry) in group
            .node_repair_config
            .node_repair_config_overrides
            .iter()
            .enumerate()
        {
            let action = entry.repair_action.as_str();
            if !action.trim().is_empty() && !ACTIONS.contains(&action) {
                report.fire(
                    RepairOverride::REPAIR_ACTION.at(&[index, position]),
                    format!(
                        "auto-repair action `{action}` of `{}` is not Replace, Reboot or NoAction",
                        group.name
                    ),
                );
            }
        }
    }
}

fn node_repair_settings_while_off(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if !group.node_repair && !group.node_repair_config.is_empty() {
            report.fire(
                NodeGroup::NODE_REPAIR.at(&[index]),
                format!(
                    "`{}` sets auto-repair limits, but auto-repair is off: they do nothing",
                    group.name
                ),
            );
        }
    }
}

fn placement_group_with_reservation(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if group.placement_group.trim().is_empty() {
            continue;
        }
        match &group.capacity {
            Capacity::Reservation { reservation_id } => report.fire(
                NodeGroup::PLACEMENT_GROUP.at(&[index]),
                format!(
                    "`{}` launches into placement group `{}` on capacity reservation {reservation_id}: make sure the reservation was made in that placement group (a reservation made in a cluster placement group serves only launches into it)",
                    group.name, group.placement_group
                ),
            ),
            Capacity::CapacityBlock { reservation_id } => report.fire(
                NodeGroup::PLACEMENT_GROUP.at(&[index]),
                format!(
                    "`{}` launches into placement group `{}` on Capacity Block {reservation_id}: a block is bought without a placement group, and AWS already places its instances close together in an EC2 UltraCluster, so a placement group of yours adds nothing and is not where the block's capacity is",
                    group.name, group.placement_group
                ),
            ),
            Capacity::OnDemand | Capacity::Spot => {}
        }
    }
}

fn reservation_id_missing(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if reservation_id(group).is_some_and(|id| id.trim().is_empty()) {
            report.fire(
                NodeGroup::RESERVATION_ID.at(&[index]),
                format!(
                    "`{}` uses reserved capacity but has no capacity reservation id",
                    group.name
                ),
            );
        }
    }
}

fn reservation_id_malformed(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if let Some(id) = reservation_id(group)
            && let Err(IdError::Malformed(expected)) = ReservationId::check(id)
        {
            report.fire(
                NodeGroup::RESERVATION_ID.at(&[index]),
                format!("capacity reservation id `{id}` is not {expected}"),
            );
        }
    }
}

fn reservation_group_not_pinned(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if !group.efa_enabled
            && reservation_id(group).is_some()
            && group.placement == GroupPlacement::Cluster
            && cluster_placements(context, group) > 1
        {
            report.fire(
                NodeGroup::PLACEMENT.at(&[index]),
                format!(
                    "`{}` may launch in any of the cluster's zones, but its reservation lives in one",
                    group.name
                ),
            );
        }
    }
}

fn capacity_block_ineligible_instance_type(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if !matches!(group.capacity, Capacity::CapacityBlock { .. }) {
            continue;
        }
        for instance_type in context.group_instance_types(index) {
            if !instance_type.capacity_block_eligible {
                report.fire(
                    instance_type_path(index, group),
                    format!(
                        "Capacity Blocks for ML are not offered for {}",
                        instance_type.name
                    ),
                );
            }
        }
    }
}

fn capacity_blocks_only_instance_type(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        let asked = match group.capacity {
            Capacity::CapacityBlock { .. } => continue,
            Capacity::OnDemand => "On-Demand capacity",
            Capacity::Spot => "Spot capacity",
            Capacity::Reservation { .. } => "an On-Demand Capacity Reservation",
        };
        for instance_type in context.group_instance_types(index) {
            if instance_type.capacity_blocks_only {
                report.fire(
                    instance_type_path(index, group),
                    format!(
                        "{} is sold only as Capacity Blocks for ML (an UltraServer type), but `{}` asks for {asked}",
                        instance_type.name, group.name
                    ),
                );
            }
        }
    }
}

/// Whether the group gives eksctl its own image (`ami`), which leaves the AMI type out of
/// the node group. `auto`, `auto-ssm` and `static` let eksctl pick; a value that is not an
/// `ami-` id is eksctl-validation's to refuse, not these rules'.
fn has_custom_ami(group: &NodeGroup) -> bool {
    group
        .extra
        .get("ami")
        .and_then(yaml_serde::Value::as_str)
        .is_some_and(|ami| !ami.is_empty() && !matches!(ami, "auto" | "auto-ssm" | "static"))
}

/// The group's instance types eksctl's table does not list.
fn unknown_to_eksctl(
    context: &Context<'_>,
    index: usize,
) -> Vec<&'static crate::catalog::instances::InstanceType> {
    context
        .group_instance_types(index)
        .iter()
        .copied()
        .filter(|instance_type| !instance_type.eksctl_lists)
        .collect()
}

fn eksctl_arm_type_unknown(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if has_custom_ami(group) {
            continue;
        }
        for instance_type in unknown_to_eksctl(context, index) {
            if instance_type.architecture == crate::catalog::instances::Architecture::Arm64 {
                report.fire(
                    instance_type_path(index, group),
                    format!(
                        "eksctl does not list {}, so it gives `{}` an x86-64 AMI type; EKS refuses that AMI type for an arm64 instance type",
                        instance_type.name, group.name
                    ),
                );
            }
        }
    }
}

fn eksctl_accelerated_type_unknown(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if has_custom_ami(group) {
            continue;
        }
        for instance_type in unknown_to_eksctl(context, index) {
            if instance_type.architecture == crate::catalog::instances::Architecture::Amd64
                && (instance_type.nvidia_gpu || instance_type.neuron)
            {
                report.fire(
                    instance_type_path(index, group),
                    format!(
                        "eksctl does not list {}, so `{}` gets the standard AMI, which has no {} driver: the accelerators cannot be used",
                        instance_type.name,
                        group.name,
                        if instance_type.nvidia_gpu { "NVIDIA" } else { "Neuron" }
                    ),
                );
            }
        }
    }
}

fn eksctl_device_plugin_not_installed(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        // Bottlerocket's accelerated variants bring the plugins themselves.
        if group
            .ami_family
            .as_deref()
            .is_some_and(|family| family.to_ascii_lowercase().starts_with("bottlerocket"))
        {
            continue;
        }
        for instance_type in unknown_to_eksctl(context, index) {
            let plugin = if instance_type.nvidia_gpu {
                "NVIDIA"
            } else if instance_type.neuron {
                "Neuron"
            } else {
                continue;
            };
            report.fire(
                instance_type_path(index, group),
                format!(
                    "eksctl does not list {}, so it installs no {plugin} device plugin for `{}`: pods asking for its accelerators stay Pending until one is installed",
                    instance_type.name, group.name
                ),
            );
        }
    }
}

fn ultraserver_kubernetes_version(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(minor) = crate::catalog::versions::minor_of(&context.spec.cluster.kubernetes_version)
    else {
        return;
    };
    if minor >= 33 {
        return;
    }
    for (index, group) in groups(context) {
        if let Some(instance_type) = context
            .group_instance_types(index)
            .iter()
            .find(|instance_type| instance_type.family == "p6e-gb200")
        {
            report.fire(
                instance_type_path(index, group),
                format!(
                    "`{}` runs {} on Kubernetes 1.{minor}; EKS supports P6e-GB200 UltraServers from 1.33",
                    group.name, instance_type.name
                ),
            );
        }
    }
}

fn capacity_block_single_instance_type(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if matches!(group.capacity, Capacity::CapacityBlock { .. })
            && !group.instance_types.is_empty()
        {
            report.fire(
                NodeGroup::INSTANCE_TYPES.at(&[index]),
                format!(
                    "Capacity Block group `{}` must use a single `instanceType`, not `instanceTypes`",
                    group.name
                ),
            );
        }
    }
}

fn gpu_ami_without_nvidia_driver(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if !ships_accelerator_drivers(group)
            && context
                .group_instance_types(index)
                .iter()
                .any(|kind| kind.nvidia_gpu)
        {
            report.fire(
                NodeGroup::AMI_FAMILY.at(&[index]),
                format!(
                    "AMI family {} has no NVIDIA driver for `{}`",
                    group.ami_family.as_deref().unwrap_or_default(),
                    group.name
                ),
            );
        }
    }
}

fn neuron_ami_unsupported(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if !ships_accelerator_drivers(group)
            && context
                .group_instance_types(index)
                .iter()
                .any(|kind| kind.neuron)
        {
            report.fire(
                NodeGroup::AMI_FAMILY.at(&[index]),
                format!(
                    "eksctl refuses Neuron instance types on AMI family {}",
                    group.ami_family.as_deref().unwrap_or_default()
                ),
            );
        }
    }
}

fn gpu_group_without_taint(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        let has_gpu = context
            .group_instance_types(index)
            .iter()
            .any(|kind| kind.nvidia_gpu);
        let tainted = group
            .taints
            .iter()
            .any(|taint| taint.key == "nvidia.com/gpu");
        if has_gpu && !tainted {
            report.fire(
                NodeGroup::TAINTS.at(&[index]),
                format!(
                    "GPU node group `{}` has no `nvidia.com/gpu` taint",
                    group.name
                ),
            );
        }
    }
}

fn no_system_node_group(context: &Context<'_>, report: &mut Report<'_>) {
    let is_accelerated = |index: usize| {
        context
            .group_instance_types(index)
            .iter()
            .any(|kind| kind.is_accelerated())
    };
    let has_accelerated = groups(context).any(|(index, _)| is_accelerated(index));
    let has_system = groups(context)
        .any(|(index, group)| !is_accelerated(index) && instance_type_names(group).len() > 0);
    if (has_accelerated || context.spec.karpenter.is_some()) && !has_system {
        report.fire(
            "node_groups",
            "no CPU node group: CoreDNS, controllers and Karpenter would run on (or wait for) GPU nodes",
        );
    }
}

fn nodegroup_label_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        for (key, value) in &group.labels {
            if let Some(problem) = super::syntax::node_label_problem(key, value) {
                report.fire(
                    super::reading::child(&NodeGroup::LABELS.at(&[index]), key),
                    problem,
                );
            }
        }
    }
}

fn ami_family_al2_unsupported(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(minor) = crate::catalog::versions::minor_of(&context.spec.cluster.kubernetes_version)
    else {
        return;
    };
    if minor < 33 {
        return;
    }
    for (index, group) in groups(context) {
        // With a custom `ami`, eksctl leaves the family to the user.
        if group
            .ami_family
            .as_deref()
            .is_some_and(|family| family.eq_ignore_ascii_case("AmazonLinux2"))
            && !group.extra.contains_key("ami")
        {
            report.fire(
                NodeGroup::AMI_FAMILY.at(&[index]),
                format!(
                    "node group `{}` uses AmazonLinux2, which eksctl refuses for Kubernetes 1.{minor}",
                    group.name
                ),
            );
        }
    }
}

fn nodegroup_placement_empty(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        let (field, empty) = match &group.placement {
            GroupPlacement::Subnets { subnets } => ("subnets", subnets.is_empty()),
            GroupPlacement::AvailabilityZones { availability_zones } => {
                ("availabilityZones", availability_zones.is_empty())
            }
            GroupPlacement::Cluster => continue,
        };
        if empty {
            report.fire(
                NodeGroup::PLACEMENT.at(&[index]),
                format!(
                    "node group `{}` lists no {field}: eksctl reads an empty list as no restriction, so it may launch in any of the cluster's subnets",
                    group.name
                ),
            );
        }
    }
}

/// Sizes the model cannot hold (negative, fractional, not a number) stay in the group's
/// imported keys, written back as they were; each is reported at its field.
fn nodegroup_size_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        for (key, field) in [
            ("minSize", "min_size"),
            ("desiredCapacity", "desired_capacity"),
            ("maxSize", "max_size"),
        ] {
            let Some(value) = group.extra.get(key) else {
                continue;
            };
            if value.is_null() {
                continue;
            }
            let shown = yaml_serde::to_string(value).unwrap_or_default();
            report.fire(
                format!("node_groups[{index}].{field}"),
                format!(
                    "{key} `{}` of node group `{}` is not a whole number of nodes of 0 or more",
                    shown.trim(),
                    group.name
                ),
            );
        }
    }
}

fn taint_effect_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        for (taint_index, taint) in group.taints.iter().enumerate() {
            let path = format!("node_groups[{index}].taints[{taint_index}]");
            if let Some((field, problem)) =
                super::syntax::taint_syntax_problem(&taint.key, taint.value.as_deref())
            {
                report.fire(format!("{path}.{field}"), problem);
            }
            if taint.key.trim().is_empty() {
                report.fire(format!("{path}.key"), "taint has no key");
            }
            if taint.effect.is_empty() {
                // pkg/utils/taints.validateTaintEffect: an empty effect is not one of the three.
                report.fire(
                    format!("{path}.effect"),
                    format!(
                        "taint `{}` has no effect, which eksctl refuses before it creates anything (\"invalid taint effect: , unsupported taint effect. Valid taint effects are: NoSchedule, NoExecute and PreferNoSchedule\")",
                        taint.key
                    ),
                );
            } else if !matches!(
                taint.effect.as_str(),
                "NoSchedule" | "PreferNoSchedule" | "NoExecute"
            ) {
                report.fire(
                    format!("{path}.effect"),
                    format!(
                        "taint effect `{}` is not NoSchedule, PreferNoSchedule or NoExecute",
                        taint.effect
                    ),
                );
            }
        }
    }
}

fn spot_efa_training(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if group.capacity == Capacity::Spot && group.efa_enabled {
            report.fire(
                NodeGroup::CAPACITY.at(&[index]),
                format!(
                    "`{}` runs EFA (multi-node training) on Spot: one reclaimed node stops every rank of the job",
                    group.name
                ),
            );
        }
    }
}

fn spot_few_instance_types(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        let count = instance_type_names(group).len();
        if group.capacity == Capacity::Spot && count < 3 {
            report.fire(
                instance_type_path(index, group),
                format!(
                    "Spot group `{}` allows {count} instance type(s); allow at least 3",
                    group.name
                ),
            );
        }
    }
}

fn spot_single_zone(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, group) in groups(context) {
        if group.capacity == Capacity::Spot && placement_len(group) == Some(1) {
            report.fire(
                NodeGroup::PLACEMENT.at(&[index]),
                format!("Spot group `{}` may only use one zone", group.name),
            );
        }
    }
}
