//! Rules on Karpenter NodePools and EC2NodeClasses: what the CRDs' CEL rules and
//! Karpenter's runtime refuse, and the cross-object mistakes nobody checks before AWS.

use std::collections::BTreeSet;

use super::karpenter_node_classes::{
    karpenter_ami_alias_invalid, karpenter_ami_alias_version_unpublished,
    karpenter_efa_interfaces_fit_no_type, karpenter_efa_on_card_without_efa,
    karpenter_efa_types_without_efa, karpenter_instance_store_policy,
    karpenter_network_interfaces_invalid, karpenter_node_overlay_invalid,
    karpenter_placement_group_selector_invalid, karpenter_placement_group_with_reservation,
    karpenter_role_or_instance_profile, karpenter_selector_terms_invalid,
};
use super::reading::{class_path, classes, pool_path, pools};
use super::{Check, Context, Report, Rule, Severity, Stage};
use crate::model::ids::{IdError, ReservationId};
use crate::model::spec::KarpenterSettings;
use crate::upstream::karpenter::{CAPACITY_TYPE, Ec2NodeClass, NodePool, OPERATORS, Requirement};
use crate::upstream::matching::capacity_types;

const NODEPOOL_CRD: &str = "karpenter-provider-aws pkg/apis/crds/karpenter.sh_nodepools.yaml";

pub(super) static RULES: &[Rule] = &[
    Rule {
        id: "karpenter-name-invalid",
        severity: Severity::Error,
        summary: super::described(
            "NodePool and EC2NodeClass names must be unique lowercase DNS names",
        ),
        help: "use lowercase letters, digits and hyphens, e.g. `gpu-training`",
        reference: super::described("Kubernetes object names (RFC 1123)"),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_name_invalid),
    },
    Rule {
        id: "karpenter-node-class-missing",
        severity: Severity::Error,
        summary: super::described("a NodePool refers to an EC2NodeClass that is not defined"),
        help: "add the EC2NodeClass or point nodeClassRef at an existing one",
        reference: super::described(NODEPOOL_CRD),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(karpenter_node_class_missing),
    },
    Rule {
        id: "karpenter-requirement-operator",
        severity: Severity::Error,
        summary: super::described(
            "requirement operator must be In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte or Lte",
        ),
        help: "use `In` with a list of values for most requirements",
        reference: super::described(
            "Karpenter NodePool CRD .spec.template.spec.requirements (B1.2)",
        ),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_requirement_operator),
    },
    Rule {
        id: "karpenter-requirement-values",
        severity: Severity::Error,
        summary: super::described("requirement values do not fit the operator"),
        help: "In/NotIn take values; Gt/Lt/Gte/Lte take one non-negative integer; Exists/DoesNotExist take none",
        reference: super::described("Karpenter NodePool CRD CEL rules (B1.2)"),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_requirement_values),
    },
    Rule {
        id: "karpenter-restricted-label",
        severity: Severity::Error,
        summary: super::described("requirement or label uses a key Karpenter reserves"),
        help: "drop the key; Karpenter sets it itself (only karpenter.sh/capacity-type and the well-known karpenter.k8s.aws labels are allowed)",
        reference: super::described(
            "Karpenter NodePool CRD (AWS provider) label-domain rules (B1.3)",
        ),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_restricted_label),
    },
    Rule {
        id: "karpenter-capacity-type-value",
        severity: Severity::Error,
        summary: super::described(
            "karpenter.sh/capacity-type values are on-demand, spot and reserved",
        ),
        help: "use `on-demand`, `spot` or `reserved`",
        reference: super::described("kubernetes-sigs/karpenter pkg/apis/v1/labels.go:34-36 (B1.4)"),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(karpenter_capacity_type_value),
    },
    Rule {
        id: "karpenter-taint-invalid",
        severity: Severity::Error,
        summary: super::described(
            "taint needs a key and an effect of NoSchedule, PreferNoSchedule or NoExecute, once per key and effect",
        ),
        help: "use e.g. key `nvidia.com/gpu`, effect `NoSchedule`",
        reference: super::described(
            "Karpenter NodePool CRD taints; pkg/apis/v1/nodeclaim_validation.go (B1.5)",
        ),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_taint_invalid),
    },
    Rule {
        id: "karpenter-disruption-invalid",
        severity: Severity::Error,
        summary: super::described(
            "disruption settings are malformed (policy, consolidateAfter, budgets)",
        ),
        help: "policy WhenEmpty/WhenEmptyOrUnderutilized/Balanced; consolidateAfter (required in a disruption block) like `5m` or `Never`; budget nodes `N` or `N%`, schedule and duration together",
        reference: super::described("Karpenter NodePool CRD .spec.disruption (B1.7)"),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_disruption_invalid),
    },
    Rule {
        id: "karpenter-expire-after-invalid",
        severity: Severity::Error,
        summary: super::described("expireAfter must be a duration such as `720h` or `Never`"),
        help: "use `720h` (30 days) for inference pools and `Never` for training pools",
        reference: super::described(
            "Karpenter NodePool CRD .spec.template.spec.expireAfter (B1.8)",
        ),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_expire_after_invalid),
    },
    Rule {
        id: "karpenter-limits-invalid",
        severity: Severity::Error,
        summary: super::described("limits must map resource names to Kubernetes quantities"),
        help: "e.g. `cpu: 1000`, `nvidia.com/gpu: 64`, `memory: 4000Gi`",
        reference: super::described("Karpenter NodePool CRD .spec.limits (B1.6)"),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_limits_invalid),
    },
    Rule {
        id: "karpenter-weight-range",
        severity: Severity::Error,
        summary: super::described("NodePool weight must be between 1 and 100"),
        help: "higher weights are tried first; leave it unset for equal priority",
        reference: super::described("Karpenter NodePool CRD .spec.weight (B1.8)"),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_weight_range),
    },
    Rule {
        id: "karpenter-static-pool-limits",
        severity: Severity::Error,
        summary: super::described("a static NodePool (replicas set) may limit only `nodes`"),
        help: "remove the cpu, memory and GPU limits; `limits.nodes` caps the pool during scaling and drift",
        reference: super::described(
            "Karpenter NodePool CRD .spec (CEL: only 'limits.nodes' is supported on static NodePools); Karpenter docs, NodePools, spec.replicas",
        ),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_static_pool_limits),
    },
    Rule {
        id: "karpenter-static-pool-weight",
        severity: Severity::Error,
        summary: super::described("a static NodePool (replicas set) may not have a weight"),
        help: "remove the weight: a static pool keeps its node count and is not chosen among pools for pending pods",
        reference: super::described(
            "Karpenter NodePool CRD .spec (CEL: 'weight' is not supported on static NodePools)",
        ),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_static_pool_weight),
    },
    Rule {
        id: "karpenter-static-pool-above-node-limit",
        severity: Severity::Warning,
        summary: super::described(
            "a static NodePool asks for more nodes than its `limits.nodes` allows",
        ),
        help: "raise limits.nodes to at least the replicas (one more leaves room for a drift replacement), or lower the replicas",
        reference: super::described(
            "kubernetes-sigs/karpenter pkg/controllers/static/provisioning/controller.go (provisions at most limits.nodes, logs `nodepool node limit reached`)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(karpenter_static_pool_above_node_limit),
    },
    Rule {
        id: "karpenter-node-repair-without-monitoring-agent",
        severity: Severity::Warning,
        summary: super::described(
            "Karpenter's node repair is on, but no agent reports the node conditions it acts on",
        ),
        help: "add the `eks-node-monitoring-agent` add-on (or run Node Problem Detector) so unhealthy GPUs and networks show as node conditions",
        reference: super::described(
            "Karpenter docs, Disruption, Node Auto Repair (needs a node monitoring agent and NodeRepair=true)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(karpenter_node_repair_without_monitoring_agent),
    },
    Rule {
        id: "karpenter-capacity-blocks-only-without-reserved",
        severity: Severity::Error,
        summary: super::described(
            "every type the NodePool allows is sold only as Capacity Blocks, but the pool does not take reserved capacity",
        ),
        help: "add `reserved` to karpenter.sh/capacity-type and select the Capacity Block in the EC2NodeClass's capacityReservationSelectorTerms",
        reference: super::described(
            "AWS EC2 User Guide, Capacity Blocks for ML (UltraServers); Karpenter docs, Capacity Reservations (capacity type `reserved`); catalog column cb_only",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(karpenter_capacity_blocks_only_without_reserved),
    },
    Rule {
        id: "karpenter-capacity-block-grace-beyond-drain",
        severity: Severity::Warning,
        summary: super::described(
            "a NodePool that launches Capacity Block nodes gives their drain more time than Karpenter starts it ahead of EC2's termination",
        ),
        help: "keep terminationGracePeriod at 10m or less on a pool of Capacity Block nodes, and have the training job checkpoint on SIGTERM within it (or often enough that the last checkpoint is recent: the Capacity step's block window)",
        reference: super::described(
            "karpenter-provider-aws v1.14.1 pkg/controllers/capacityreservation/expiration (NodeClaims on an expiring block deleted) and pkg/apis/v1/ec2nodeclass_status.go (expiring 40 minutes before the end); website/content/en/v1.14/tasks/odcrs.md, Capacity Blocks; EC2 User Guide, Capacity Blocks for ML (termination begins 30 minutes before the end, 60 for UltraServers)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(karpenter_capacity_block_grace_beyond_drain),
    },
    Rule {
        id: "karpenter-requirements-match-nothing",
        severity: Severity::Error,
        summary: super::described("a NodePool's requirements leave no instance type to launch"),
        help: "loosen the requirements (e.g. GPU memory floor, categories, generation)",
        reference: super::described("instance catalog; Karpenter well-known labels (B3)"),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(karpenter_requirements_match_nothing),
    },
    Rule {
        id: "karpenter-spot-single-instance-type",
        severity: Severity::Warning,
        summary: super::described(
            "a Spot NodePool's requirements resolve to fewer than three instance types",
        ),
        help: "allow more families or sizes so Spot has capacity pools to choose from",
        reference: super::described(
            "EKS best practices: Karpenter, diversify instance types for Spot",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(karpenter_spot_single_instance_type),
    },
    Rule {
        id: "karpenter-spot-without-interruption-queue",
        severity: Severity::Warning,
        summary: super::described("a NodePool allows Spot but Karpenter has no interruption queue"),
        help: "name the interruption queue: the bundle creates it with the EventBridge rules that feed it, and Karpenter drains nodes before Spot reclaims them",
        reference: super::described("Karpenter docs: interruption handling"),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(karpenter_spot_without_interruption_queue),
    },
    Rule {
        id: "karpenter-spot-training",
        severity: Severity::Warning,
        summary: super::described(
            "a NodePool for multi-node training (p or trn family) allows Spot",
        ),
        help: "training jobs that span nodes should run on on-demand or reserved capacity",
        reference: super::described("EKS best practices for AI/ML"),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(karpenter_spot_training),
    },
    Rule {
        id: "karpenter-consolidation-evicts-training",
        severity: Severity::Warning,
        summary: super::described(
            "a training NodePool lets Karpenter remove busy nodes (underutilisation or expiry)",
        ),
        help: "use consolidationPolicy WhenEmpty and expireAfter Never, or a budget of 0 nodes for Underutilized and Drifted",
        reference: super::described(
            "EKS best practices for AI/ML: Karpenter disruption for training",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(karpenter_consolidation_evicts_training),
    },
    Rule {
        id: "karpenter-reserved-capacity-type-missing",
        severity: Severity::Error,
        summary: super::described(
            "reservations are selected but the NodePool does not allow capacity type `reserved`",
        ),
        help: "add `reserved` to the karpenter.sh/capacity-type requirement, or Karpenter never uses the reservation",
        reference: super::described("karpenter-provider-aws docs tasks/odcrs.md (B1.4)"),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(karpenter_reserved_capacity_type_missing),
    },
    Rule {
        id: "karpenter-reservation-term-invalid",
        severity: Severity::Error,
        summary: super::described("capacityReservationSelectorTerms are malformed"),
        help: "each term: an `id` (cr-…) alone, or tags / ownerID (12 digits) / instanceMatchCriteria (open|targeted); at most 30 terms",
        reference: super::described(
            "EC2NodeClass CRD .spec.capacityReservationSelectorTerms (B2.4)",
        ),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_reservation_term_invalid),
    },
    Rule {
        id: "karpenter-role-or-instance-profile",
        severity: Severity::Error,
        summary: super::described("an EC2NodeClass needs exactly one of role and instanceProfile"),
        help: "set `role` to the node IAM role name (e.g. KarpenterNodeRole-<cluster>)",
        reference: super::described("EC2NodeClass CRD .spec (B2.1)"),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_role_or_instance_profile),
    },
    Rule {
        id: "karpenter-ami-alias-invalid",
        severity: Severity::Error,
        summary: super::described(
            "AMI selector terms are malformed (alias format, alias alone, one selector per term)",
        ),
        help: "use a single term `alias: al2023@latest` (or bottlerocket@latest)",
        reference: super::described("EC2NodeClass CRD .spec.amiSelectorTerms (B2.2)"),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_ami_alias_invalid),
    },
    Rule {
        id: "karpenter-ami-alias-version-unpublished",
        severity: Severity::Error,
        summary: super::described(
            "an AMI alias names a version no AMI is published under: the CRD accepts it, Karpenter finds no AMI",
        ),
        help: "use `latest`, or a published version: vYYYYMMDD for al2 and al2023 (an amazon-eks-ami release), MAJOR.MINOR.PATCH for bottlerocket",
        reference: super::described(
            "karpenter-provider-aws pkg/providers/amifamily/al2023.go, al2.go, bottlerocket.go DescribeImageQuery: the version is part of the SSM parameter path; no parameter, \"failed to discover any AMIs for alias\", the EC2NodeClass's AMIsReady stays False",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(karpenter_ami_alias_version_unpublished),
    },
    Rule {
        id: "karpenter-selector-terms-invalid",
        severity: Severity::Error,
        summary: super::described(
            "subnet and security group selector terms are missing or malformed",
        ),
        help: "select subnets and security groups by tag (e.g. karpenter.sh/discovery: <cluster>) or by id",
        reference: super::described(
            "EC2NodeClass CRD .spec.subnetSelectorTerms, .securityGroupSelectorTerms (B2.1, B2.3)",
        ),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_selector_terms_invalid),
    },
    Rule {
        id: "karpenter-placement-group-selector-invalid",
        severity: Severity::Error,
        summary: super::described(
            "placementGroupSelector must name a placement group by name or by `pg-` id, one of the two",
        ),
        help: "give the group's name, or its id (`pg-` and lowercase letters and digits), not both",
        reference: super::described(
            "EC2NodeClass CRD .spec.placementGroupSelector (CEL: name or id, mutually exclusive; id pattern ^pg-[0-9a-z]+$)",
        ),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_placement_group_selector_invalid),
    },
    Rule {
        id: "karpenter-network-interfaces-invalid",
        severity: Severity::Error,
        summary: super::described(
            "an EC2NodeClass's networkInterfaces lack the primary interface, repeat a card and device, or put two EFA devices on one card",
        ),
        help: "start with networkCardIndex 0, deviceIndex 0, interfaceType interface; give each card and device once and at most one efa-only device per card",
        reference: super::described(
            "EC2NodeClass CRD .spec.networkInterfaces (CEL: a primary interface with interfaceType='interface'; no duplicate networkCardIndex and deviceIndex pairs, at most one efa device per network card; interfaceType interface or efa-only)",
        ),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_network_interfaces_invalid),
    },
    Rule {
        id: "karpenter-efa-interfaces-fit-no-type",
        severity: Severity::Error,
        summary: super::described(
            "a NodePool's EC2NodeClass has network interfaces that no instance type the pool allows can take",
        ),
        help: "ask for at most as many EFA devices and network cards as the pool's instance types have (p5.48xlarge 32 cards of 2 interfaces, p5en 16 of 4, p4d 4), or allow types with more",
        reference: super::described(
            "Karpenter pkg/providers/instancetype/compatibility/compatibility.go (networkInterfaceCheck: a type is not launched when an interface's networkCardIndex is beyond its network cards, its deviceIndex beyond the card's maximum network interfaces, or the class's efa-only interfaces outnumber its EFA interfaces); network cards from its zz_generated.vpclimits.go",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(karpenter_efa_interfaces_fit_no_type),
    },
    Rule {
        id: "karpenter-efa-on-card-without-efa",
        severity: Severity::Error,
        summary: super::described(
            "an EC2NodeClass puts an EFA device on network card 0 of a type whose card 0 takes none (p6-b300)",
        ),
        help: "leave card 0 to the primary interface and put the EFA devices on cards 1 to 16 (the page's \"EFA devices\" field does this for a class whose pools launch only p6-b300)",
        reference: super::described(
            "AWS EC2 User Guide, Maximize network bandwidth on instances with multiple network cards (an EFA-only interface on card 0 only if card 0 supports EFA); aws/aws-parallelcluster#7143 (P6-B300: network card 0 supports ENA only)",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(karpenter_efa_on_card_without_efa),
    },
    Rule {
        id: "karpenter-efa-types-without-efa",
        severity: Severity::Warning,
        summary: super::described(
            "a NodePool launches only EFA instance types on an EC2NodeClass that attaches no EFA device",
        ),
        help: "give the EC2NodeClass networkInterfaces with an efa-only device per network card (the page's \"EFA devices\" field), or accept TCP between nodes",
        reference: super::described(
            "Karpenter docs, NodeClasses, spec.networkInterfaces (without it a node gets Karpenter's default interface and no EFA device); AWS EC2 User Guide, Elastic Fabric Adapter",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(karpenter_efa_types_without_efa),
    },
    Rule {
        id: "karpenter-placement-group-with-reservation",
        severity: Severity::Warning,
        summary: super::described(
            "an EC2NodeClass puts its nodes in a placement group and selects capacity reservations",
        ),
        help: "select reservations made in that placement group, or drop the placement group",
        reference: super::described(
            "AWS EC2 User Guide, Capacity Reservations in cluster placement groups (an instance uses a reservation in a placement group only when it launches into that group); Karpenter docs, NodeClasses, spec.placementGroupSelector",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(karpenter_placement_group_with_reservation),
    },
    Rule {
        id: "karpenter-node-overlay-invalid",
        severity: Severity::Error,
        summary: super::described(
            "a NodeOverlay's price, price adjustment or weight is malformed, or it sets both a price and an adjustment",
        ),
        help: "give either price (`5.00`) or priceAdjustment (`-0.5`, `+1.2`, `+10%`, `-15%`), not both; weight 1-10000",
        reference: super::described(
            "Karpenter NodeOverlay CRD karpenter.sh_nodeoverlays.yaml .spec (CEL: cannot set both 'price' and 'priceAdjustment'; patterns of price and priceAdjustment; weight 1-10000)",
        ),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_node_overlay_invalid),
    },
    Rule {
        id: "karpenter-instance-store-policy",
        severity: Severity::Error,
        summary: super::described("instanceStorePolicy must be RAID0"),
        help: "set `RAID0` to use the NVMe instance store for ephemeral storage, or leave it unset",
        reference: super::described("EC2NodeClass CRD .spec.instanceStorePolicy (B2.7)"),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_instance_store_policy),
    },
    Rule {
        id: "karpenter-newer-than-release",
        severity: Severity::Error,
        summary: super::described(
            "a NodePool or EC2NodeClass uses a field, value or label that came after the Karpenter release the design installs",
        ),
        help: "pick the Karpenter release that brought it (Karpenter step, \"Karpenter release\"), or leave it out",
        reference: super::described(
            "karpenter-provider-aws pkg/apis/crds at v1.9.2, v1.10.2, v1.11.3, v1.12.2, v1.13.1 and v1.14.1, compared tag by tag",
        ),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_newer_than_release),
    },
    Rule {
        id: "karpenter-release-kubernetes",
        severity: Severity::Warning,
        summary: super::described(
            "the Karpenter release is not one Karpenter's compatibility matrix lists for the cluster's Kubernetes version",
        ),
        help: "pick a newer Karpenter release (Karpenter step, \"Karpenter release\"), or an older Kubernetes version",
        reference: super::described(
            "karpenter-provider-aws v1.14.1 website/content/en/docs/upgrading/compatibility.md (Compatibility Matrix)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(karpenter_release_kubernetes),
    },
];

fn karpenter_newer_than_release(context: &Context<'_>, report: &mut Report<'_>) {
    use crate::upstream::karpenter_releases::{Addition, Kind, newer_than};
    let Some(karpenter) = context.spec.karpenter.as_ref() else {
        return;
    };
    let release = karpenter.release;
    let mut check = |kind: Kind, object: yaml_serde::Value, place: String, name: &str| {
        for (path, added) in newer_than(kind, &object, release) {
            let what = match added.what {
                Addition::Field(_) => format!(
                    "`{path}` came with Karpenter {}: the {} CRD of {} has no such field, so `kubectl apply` refuses {} `{name}` (unknown field; Helm and other clients that do not validate drop it instead)",
                    added.since.release(),
                    kind.name(),
                    release.chart_version(),
                    kind.name()
                ),
                Addition::Value(_, value) => format!(
                    "`{value}` came with Karpenter {}: the {} CRD of {} does not allow it in `{path}`, so the API server refuses {} `{name}`",
                    added.since.release(),
                    kind.name(),
                    release.chart_version(),
                    kind.name()
                ),
                Addition::Label(label) => format!(
                    "label `{label}` came with Karpenter {}: the {} CRD of {} restricts the karpenter.k8s.aws domain to the labels it knows, so the API server refuses {} `{name}` (label domain \"karpenter.k8s.aws\" is restricted)",
                    added.since.release(),
                    kind.name(),
                    release.chart_version(),
                    kind.name()
                ),
            };
            report.fire(format!("{place}.{path}"), what);
        }
    };
    for (index, pool) in karpenter.node_pools.iter().enumerate() {
        if let Ok(object) = yaml_serde::to_value(pool) {
            check(
                Kind::NodePool,
                object,
                pool_path(index),
                &pool.metadata.name,
            );
        }
    }
    for (index, class) in karpenter.node_classes.iter().enumerate() {
        if let Ok(object) = yaml_serde::to_value(class) {
            check(
                Kind::Ec2NodeClass,
                object,
                class_path(index),
                &class.metadata.name,
            );
        }
    }
}

fn karpenter_release_kubernetes(context: &Context<'_>, report: &mut Report<'_>) {
    use crate::upstream::karpenter_releases::KarpenterRelease;
    let Some(karpenter) = context.spec.karpenter.as_ref() else {
        return;
    };
    let version = context.spec.cluster.kubernetes_version.trim();
    let Some(minor) = crate::catalog::versions::minor_of(version) else {
        return;
    };
    let release = karpenter.release;
    if minor <= release.newest_kubernetes() {
        return;
    }
    let needs = match KarpenterRelease::oldest_for_kubernetes(minor) {
        Some(oldest) => format!("Kubernetes {version} needs Karpenter {oldest} or newer"),
        None => format!(
            "the matrix stops at Kubernetes 1.{}",
            KarpenterRelease::V1_14.newest_kubernetes()
        ),
    };
    report.fire(
        KarpenterSettings::RELEASE.path(),
        format!(
            "Karpenter {} is not listed for Kubernetes {version} in Karpenter's compatibility matrix ({needs}): the controller may not read the newer API server's objects as it should",
            release.chart_version()
        ),
    );
}

const AWS_ALLOWED_LABELS: &[&str] = &[
    "instance-category",
    "instance-family",
    "instance-generation",
    "instance-size",
    "instance-cpu",
    "instance-cpu-manufacturer",
    "instance-cpu-sustained-clock-speed-mhz",
    "instance-memory",
    "instance-network-bandwidth",
    "instance-ebs-bandwidth",
    "instance-local-nvme",
    "instance-hypervisor",
    "instance-gpu-name",
    "instance-gpu-manufacturer",
    "instance-gpu-count",
    "instance-gpu-memory",
    "instance-accelerator-name",
    "instance-accelerator-manufacturer",
    "instance-accelerator-count",
    "instance-capability-flex",
    "instance-encryption-in-transit-supported",
    "instance-tenancy",
    "capacity-reservation-id",
    "capacity-reservation-type",
    "capacity-reservation-interruptible",
    "ec2nodeclass",
    "nitro-sandbox",
    "placement-group-id",
    "placement-group-partition",
];

/// A Kubernetes duration as the CRDs' patterns take it (`30s`, `5m`, `1h30m`, `720h`):
/// whole numbers, each with a unit.
fn is_duration(text: &str) -> bool {
    text.bytes().all(|byte| byte.is_ascii_alphanumeric()) && duration_seconds(text).is_some()
}

/// A Kubernetes resource quantity (`1000`, `64`, `4000Gi`, `500m`, `1.5`).
fn is_quantity(value: &yaml_serde::Value) -> bool {
    match value {
        yaml_serde::Value::Number(number) => number.as_f64().is_some_and(|number| number >= 0.0),
        yaml_serde::Value::String(text) => {
            let number_end = text
                .find(|char: char| !(char.is_ascii_digit() || char == '.'))
                .unwrap_or(text.len());
            let (number, suffix) = text.split_at(number_end);
            !number.is_empty()
                && number.parse::<f64>().is_ok()
                && [
                    "", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
                ]
                .contains(&suffix)
        }
        _ => false,
    }
}

fn is_dns_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.bytes().all(|byte| {
            byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-' || byte == b'.'
        })
        && name.starts_with(|char: char| char.is_ascii_alphanumeric())
        && name.ends_with(|char: char| char.is_ascii_alphanumeric())
}

/// Why the API server or kubectl refuses `name` for a `kind`: none at all (kubectl looks
/// the object up by name before it applies it), or not a DNS subdomain name.
fn name_refused(kind: &str, name: &str) -> String {
    if name.is_empty() {
        format!(
            "the {kind} has no name: {}",
            crate::documents::import::NO_NAME_REFUSED
        )
    } else {
        format!("{kind} name `{name}` is not a lowercase DNS name")
    }
}

fn karpenter_name_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    let mut pool_names = BTreeSet::new();
    for (index, pool) in pools(context) {
        let name = &pool.metadata.name;
        if !is_dns_name(name) {
            report.fire(
                format!("{}.metadata.name", pool_path(index)),
                name_refused("NodePool", name),
            );
        } else if !pool_names.insert(name) {
            report.fire(
                format!("{}.metadata.name", pool_path(index)),
                format!("NodePool `{name}` is defined twice, differently: kubectl apply keeps the one applied last, so the cluster does not get the other"),
            );
        }
    }
    let mut class_names = BTreeSet::new();
    for (index, class) in classes(context) {
        let name = &class.metadata.name;
        if !is_dns_name(name) {
            report.fire(
                format!("{}.metadata.name", class_path(index)),
                name_refused("EC2NodeClass", name),
            );
        } else if !class_names.insert(name) {
            report.fire(
                format!("{}.metadata.name", class_path(index)),
                format!("EC2NodeClass `{name}` is defined twice, differently: kubectl apply keeps the one applied last, so the cluster does not get the other"),
            );
        }
    }
}

fn class_named<'a>(context: &'a Context<'_>, name: &str) -> Option<&'a Ec2NodeClass> {
    classes(context)
        .map(|(_, class)| class)
        .find(|class| class.metadata.name == name)
}

fn karpenter_node_class_missing(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, pool) in pools(context) {
        let reference = &pool.spec.template.spec.node_class_ref;
        if reference.kind == "EC2NodeClass" && class_named(context, &reference.name).is_none() {
            report.fire(
                format!("{}.spec.template.spec.nodeClassRef.name", pool_path(index)),
                format!(
                    "NodePool `{}` uses EC2NodeClass `{}`, which is not defined",
                    pool.metadata.name, reference.name
                ),
            );
        }
    }
}

fn requirements(pool: &NodePool) -> impl Iterator<Item = (usize, &Requirement)> {
    pool.spec.template.spec.requirements.iter().enumerate()
}

fn requirement_path(pool_index: usize, requirement_index: usize) -> String {
    format!(
        "{}.spec.template.spec.requirements[{requirement_index}]",
        pool_path(pool_index)
    )
}

fn karpenter_requirement_operator(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        for (index, requirement) in requirements(pool) {
            if !OPERATORS.contains(&requirement.operator.as_str()) {
                report.fire(
                    format!("{}.operator", requirement_path(pool_index, index)),
                    format!(
                        "operator `{}` of `{}` is not one of {}",
                        requirement.operator,
                        requirement.key,
                        OPERATORS.join(", ")
                    ),
                );
            }
        }
    }
}

fn karpenter_requirement_values(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        for (index, requirement) in requirements(pool) {
            let path = requirement_path(pool_index, index);
            let values = &requirement.values;
            let problem = match requirement.operator.as_str() {
                "In" if values.is_empty() => Some("`In` needs at least one value".to_owned()),
                "Gt" | "Lt" | "Gte" | "Lte" => {
                    let single_integer = values.len() == 1 && values[0].parse::<u64>().is_ok();
                    (!single_integer).then(|| {
                        format!(
                            "`{}` needs exactly one non-negative integer value",
                            requirement.operator
                        )
                    })
                }
                "Exists" | "DoesNotExist" if !values.is_empty() => {
                    Some(format!("`{}` takes no values", requirement.operator))
                }
                _ => None,
            };
            if let Some(problem) = problem {
                report.fire(
                    format!("{path}.values"),
                    format!("{}: {problem}", requirement.key),
                );
            }
            for value in values {
                if value.len() > 63 {
                    report.fire(
                        format!("{path}.values"),
                        format!("value `{value}` is longer than 63 characters"),
                    );
                }
            }
            // The CRD bounds minValues to 1-50 for every operator; its CEL rule asks `In`
            // for at least that many values. With `Exists` (Karpenter's own
            // min-values-family example) it asks for that many distinct values of the key
            // among the instance types, which the scheduler checks, not the API server.
            if let Some(min_values) = requirement.min_values {
                if !(1..=50).contains(&min_values) {
                    report.fire(
                        format!("{path}.minValues"),
                        format!("minValues {min_values} is outside 1-50"),
                    );
                } else if requirement.operator == "In" && (values.len() as u32) < min_values {
                    report.fire(
                        format!("{path}.minValues"),
                        format!(
                            "minValues {min_values} needs at least that many values with operator In; {} given",
                            values.len()
                        ),
                    );
                }
            }
        }
    }
}

/// Why a label key may not be used in a NodePool, if it may not.
fn restricted_label(key: &str) -> Option<&'static str> {
    if key == "kubernetes.io/hostname" || key == "karpenter.sh/nodepool" {
        return Some("Karpenter sets it on every node");
    }
    if let Some(name) = key.strip_prefix("karpenter.sh/") {
        return (name != "capacity-type").then_some("the karpenter.sh domain is reserved");
    }
    if let Some(name) = key.strip_prefix("karpenter.k8s.aws/") {
        return (!AWS_ALLOWED_LABELS.contains(&name))
            .then_some("only the well-known karpenter.k8s.aws labels are allowed");
    }
    None
}

fn karpenter_restricted_label(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        for (index, requirement) in requirements(pool) {
            if let Some(reason) = restricted_label(&requirement.key) {
                report.fire(
                    format!("{}.key", requirement_path(pool_index, index)),
                    format!(
                        "requirement key `{}` is restricted: {reason}",
                        requirement.key
                    ),
                );
            }
        }
        if let Some(metadata) = &pool.spec.template.metadata {
            for key in metadata.labels.keys() {
                if let Some(reason) = restricted_label(key) {
                    let mut path =
                        format!("{}.spec.template.metadata.labels", pool_path(pool_index));
                    super::push_key(&mut path, key);
                    report.fire(path, format!("label `{key}` is restricted: {reason}"));
                }
            }
        }
    }
}

fn karpenter_capacity_type_value(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        for (index, requirement) in requirements(pool) {
            if requirement.key != CAPACITY_TYPE {
                continue;
            }
            for value in &requirement.values {
                if !matches!(value.as_str(), "on-demand" | "spot" | "reserved") {
                    report.fire(
                        format!("{}.values", requirement_path(pool_index, index)),
                        format!("capacity type `{value}` is not on-demand, spot or reserved"),
                    );
                }
            }
        }
    }
}

fn karpenter_taint_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        let mut seen = BTreeSet::new();
        for (index, taint) in pool.spec.template.spec.taints.iter().enumerate() {
            let path = format!(
                "{}.spec.template.spec.taints[{index}]",
                pool_path(pool_index)
            );
            if taint.key.trim().is_empty() {
                report.fire(format!("{path}.key"), "taint has no key");
            }
            if !matches!(
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
            } else if !seen.insert((taint.key.as_str(), taint.effect.as_str())) {
                report.fire(
                    path,
                    format!("taint `{}:{}` is listed twice", taint.key, taint.effect),
                );
            }
        }
    }
}

fn karpenter_disruption_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        let Some(disruption) = &pool.spec.disruption else {
            continue;
        };
        let path = format!("{}.spec.disruption", pool_path(pool_index));
        if let Some(policy) = &disruption.consolidation_policy
            && !matches!(
                policy.as_str(),
                "WhenEmpty" | "WhenEmptyOrUnderutilized" | "Balanced"
            )
        {
            report.fire(
                format!("{path}.consolidationPolicy"),
                format!("consolidation policy `{policy}` is not WhenEmpty, WhenEmptyOrUnderutilized or Balanced"),
            );
        }
        if disruption.consolidate_after.is_none() {
            // The CRD defaults the whole block to `consolidateAfter: 0s`, but a block that
            // is given must say it.
            report.fire(
                path.clone(),
                "disruption is set without consolidateAfter, which the NodePool CRD requires in it (e.g. `0s`, `5m` or `Never`)",
            );
        }
        if let Some(after) = &disruption.consolidate_after
            && after != "Never"
            && !is_duration(after)
        {
            report.fire(
                format!("{path}.consolidateAfter"),
                format!("consolidateAfter `{after}` is not a duration such as `5m` or `Never`"),
            );
        }
        if disruption.budgets.len() > 50 {
            report.fire(
                format!("{path}.budgets"),
                "at most 50 disruption budgets are allowed",
            );
        }
        for (index, budget) in disruption.budgets.iter().enumerate() {
            let budget_path = format!("{path}.budgets[{index}]");
            let nodes = budget.nodes.strip_suffix('%').unwrap_or(&budget.nodes);
            let percent_ok = !budget.nodes.ends_with('%')
                || nodes.parse::<u32>().is_ok_and(|percent| percent <= 100);
            if nodes.parse::<u32>().is_err() || !percent_ok {
                report.fire(
                    format!("{budget_path}.nodes"),
                    format!(
                        "budget nodes `{}` is not a count (`N`) or a percentage (`N%`)",
                        budget.nodes
                    ),
                );
            }
            for reason in &budget.reasons {
                if !matches!(reason.as_str(), "Underutilized" | "Empty" | "Drifted") {
                    report.fire(
                        format!("{budget_path}.reasons"),
                        format!("budget reason `{reason}` is not Underutilized, Empty or Drifted"),
                    );
                }
            }
            if budget.schedule.is_some() != budget.duration.is_some() {
                report.fire(
                    budget_path.clone(),
                    "a budget's schedule and duration must be given together",
                );
            }
            if let Some(duration) = &budget.duration
                && !is_duration(duration)
            {
                report.fire(
                    format!("{budget_path}.duration"),
                    format!("budget duration `{duration}` is not a duration such as `1h30m`"),
                );
            }
        }
    }
}

fn karpenter_expire_after_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        if let Some(expire_after) = &pool.spec.template.spec.expire_after
            && expire_after != "Never"
            && !is_duration(expire_after)
        {
            report.fire(
                format!("{}.spec.template.spec.expireAfter", pool_path(pool_index)),
                format!("expireAfter `{expire_after}` is not a duration such as `720h` or `Never`"),
            );
        }
    }
}

fn karpenter_limits_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        for (resource, quantity) in &pool.spec.limits {
            if !is_quantity(quantity) {
                let mut path = format!("{}.spec.limits", pool_path(pool_index));
                super::push_key(&mut path, resource);
                report.fire(
                    path,
                    format!("limit of `{resource}` is not a Kubernetes quantity"),
                );
            }
        }
    }
}

fn karpenter_weight_range(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        if let Some(weight) = pool.spec.weight
            && !(1..=100).contains(&weight)
        {
            report.fire(
                format!("{}.spec.weight", pool_path(pool_index)),
                format!("weight {weight} is outside 1-100"),
            );
        }
    }
}

/// Pools with `spec.replicas` set, and their replica count.
pub(super) fn static_pools<'a>(
    context: &Context<'a>,
) -> impl Iterator<Item = (usize, &'a NodePool, u64)> + use<'a> {
    pools(context).filter_map(|(index, pool)| Some((index, pool, pool.spec.replicas?)))
}

fn karpenter_static_pool_limits(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool, _) in static_pools(context) {
        let others: Vec<&str> = pool
            .spec
            .limits
            .keys()
            .map(String::as_str)
            .filter(|resource| *resource != "nodes")
            .collect();
        if !others.is_empty() {
            report.fire(
                format!("{}.spec.limits", pool_path(pool_index)),
                format!(
                    "NodePool `{}` is static (replicas set) and limits {}: only 'limits.nodes' is supported on static NodePools",
                    pool.metadata.name,
                    others.join(", ")
                ),
            );
        }
    }
}

fn karpenter_static_pool_weight(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool, _) in static_pools(context) {
        if pool.spec.weight.is_some() {
            report.fire(
                format!("{}.spec.weight", pool_path(pool_index)),
                format!(
                    "NodePool `{}` is static (replicas set): 'weight' is not supported on static NodePools",
                    pool.metadata.name
                ),
            );
        }
    }
}

/// A `limits.nodes` written as a whole number (`"4"` or `4`).
fn node_limit(pool: &NodePool) -> Option<u64> {
    match pool.spec.limits.get("nodes")? {
        yaml_serde::Value::Number(number) => number.as_u64(),
        yaml_serde::Value::String(text) => text.trim().parse().ok(),
        _ => None,
    }
}

fn karpenter_static_pool_above_node_limit(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool, replicas) in static_pools(context) {
        if let Some(limit) = node_limit(pool).filter(|limit| *limit < replicas) {
            report.fire(
                format!("{}.spec.replicas", pool_path(pool_index)),
                format!(
                    "NodePool `{}` keeps {replicas} nodes, but limits.nodes is {limit}: Karpenter launches {limit} and stops there",
                    pool.metadata.name
                ),
            );
        }
    }
}

fn karpenter_node_repair_without_monitoring_agent(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(karpenter) = &context.spec.karpenter else {
        return;
    };
    let has_agent = context
        .spec
        .addons
        .iter()
        .any(|addon| addon.name == "eks-node-monitoring-agent");
    if karpenter.node_repair && !has_agent {
        report.fire(
            KarpenterSettings::NODE_REPAIR.path(),
            "Karpenter's node repair acts on node conditions that nothing in this design reports: add the eks-node-monitoring-agent add-on",
        );
    }
}

fn karpenter_capacity_blocks_only_without_reserved(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        let types = context.pool_instance_types(pool_index);
        if types.is_empty()
            || !types
                .iter()
                .all(|instance_type| instance_type.capacity_blocks_only)
            || capacity_types(pool).contains("reserved")
        {
            continue;
        }
        let names: Vec<&str> = types
            .iter()
            .map(|instance_type| instance_type.name)
            .collect();
        report.fire(
            format!("{}.spec.template.spec.requirements", pool_path(pool_index)),
            format!(
                "NodePool `{}` can only launch {}, sold only as Capacity Blocks, but its capacity types leave out `reserved`: it cannot launch a node",
                pool.metadata.name,
                names.join(", ")
            ),
        );
    }
}

/// How long before EC2 begins terminating a Capacity Block's instances Karpenter starts
/// draining them: it takes a block as expiring 40 minutes before its end, EC2 begins 30
/// minutes before it (karpenter-provider-aws `pkg/apis/v1/ec2nodeclass_status.go`).
const CAPACITY_BLOCK_DRAIN_SECONDS: f64 = 600.0;

fn karpenter_capacity_block_grace_beyond_drain(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        let spec = &pool.spec.template.spec;
        let Some(grace) = spec
            .extra
            .get("terminationGracePeriod")
            .and_then(yaml_serde::Value::as_str)
        else {
            continue;
        };
        let Some(seconds) = duration_seconds(grace) else {
            continue;
        };
        if seconds <= CAPACITY_BLOCK_DRAIN_SECONDS || !capacity_types(pool).contains("reserved") {
            continue;
        }
        // The pool launches Capacity Block nodes: it pins them by reservation type, every
        // type it allows is sold only as Capacity Blocks, or EC2 said (live checks) that a
        // reservation its class selects by id is a Capacity Block.
        let pinned = spec.requirements.iter().any(|requirement| {
            requirement.key == "karpenter.k8s.aws/capacity-reservation-type"
                && requirement.operator == "In"
                && requirement
                    .values
                    .iter()
                    .any(|value| value == "capacity-block")
        });
        let types = context.pool_instance_types(pool_index);
        let blocks_only = !types.is_empty()
            && types
                .iter()
                .all(|instance_type| instance_type.capacity_blocks_only);
        let selects_block = || {
            context
                .spec
                .karpenter
                .iter()
                .flat_map(|karpenter| karpenter.node_classes.iter())
                .filter(|class| class.metadata.name == spec.node_class_ref.name)
                .flat_map(|class| class.spec.capacity_reservation_selector_terms.iter())
                .filter_map(|term| term.id.as_deref())
                .any(|id| {
                    context
                        .live
                        .reservations
                        .iter()
                        .any(|fact| fact.id == id && fact.reservation_type == "capacity-block")
                })
        };
        if !pinned && !blocks_only && !selects_block() {
            continue;
        }
        report.fire(
            format!(
                "{}.spec.template.spec.terminationGracePeriod",
                pool_path(pool_index)
            ),
            format!(
                "NodePool `{}` launches Capacity Block nodes, which Karpenter starts draining 40 minutes before the block ends, 10 minutes before EC2 begins terminating them (for an UltraServer EC2 begins 60 minutes before the end, ahead of the drain): its `terminationGracePeriod` of {grace} lets the drain wait longer than that, so EC2 ends the instances while pods may still be finishing",
                pool.metadata.name
            ),
        );
    }
}

/// A Go duration as Kubernetes writes it (`90s`, `1h30m`, `0.5h`) in seconds; `None` for
/// anything else.
fn duration_seconds(text: &str) -> Option<f64> {
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0;
    while !rest.is_empty() {
        let number_end = rest
            .find(|character: char| !(character.is_ascii_digit() || character == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..number_end].parse().ok()?;
        rest = &rest[number_end..];
        let unit_end = rest
            .find(|character: char| character.is_ascii_digit() || character == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            _ => return None,
        };
        total += number * scale;
        rest = &rest[unit_end..];
    }
    Some(total)
}

fn karpenter_requirements_match_nothing(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        // A requirement still holding a placeholder matches nothing until it is filled in:
        // placeholder-left says so.
        let placeholder = pool
            .spec
            .template
            .spec
            .requirements
            .iter()
            .any(|requirement| {
                requirement
                    .values
                    .iter()
                    .any(|value| crate::model::ids::is_placeholder(value))
            });
        if !placeholder && context.pool_instance_types(pool_index).is_empty() {
            // Which requirement shuts out what the others allow, when one alone does.
            let why: String = crate::upstream::matching::exclusions(pool)
                .iter()
                .map(|exclusion| format!("; {}", exclusion.words))
                .collect();
            report.fire(
                format!("{}.spec.template.spec.requirements", pool_path(pool_index)),
                format!(
                    "no instance type satisfies every requirement of NodePool `{}`{why}",
                    pool.metadata.name
                ),
            );
        }
    }
}

fn karpenter_spot_single_instance_type(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        let count = context.pool_instance_types(pool_index).len();
        if capacity_types(pool).contains("spot") && (1..3).contains(&count) {
            report.fire(
                format!("{}.spec.template.spec.requirements", pool_path(pool_index)),
                format!(
                    "Spot NodePool `{}` can launch only {count} instance type(s)",
                    pool.metadata.name
                ),
            );
        }
    }
}

fn karpenter_spot_without_interruption_queue(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(karpenter) = &context.spec.karpenter else {
        return;
    };
    let has_queue = karpenter
        .interruption_queue
        .as_deref()
        .is_some_and(|queue| !queue.trim().is_empty());
    if has_queue {
        return;
    }
    // One finding for the design, at the queue it lacks, naming every pool that allows
    // Spot (a directory of pool files gets one warning, not one per file).
    let spot: Vec<String> = pools(context)
        .filter(|(_, pool)| capacity_types(pool).contains("spot"))
        .map(|(_, pool)| format!("`{}`", pool.metadata.name))
        .collect();
    let (noun, verb) = if spot.len() == 1 {
        ("NodePool", "allows")
    } else {
        ("NodePools", "allow")
    };
    if !spot.is_empty() {
        report.fire(
            KarpenterSettings::INTERRUPTION_QUEUE.path(),
            format!(
                "{noun} {} {verb} Spot, but no interruption queue is set: without it Karpenter does not receive EC2's two-minute Spot interruption warnings, so it does not cordon and drain a node before EC2 reclaims it",
                spot.join(", ")
            ),
        );
    }
}

/// Whether a pool only launches training-class instances (p and trn families).
fn is_training_pool(context: &Context<'_>, pool_index: usize) -> bool {
    let matching = context.pool_instance_types(pool_index);
    !matching.is_empty()
        && matching.iter().all(|instance_type| {
            instance_type.family.starts_with('p') || instance_type.family.starts_with("trn")
        })
}

fn karpenter_spot_training(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        if capacity_types(pool).contains("spot") && is_training_pool(context, pool_index) {
            report.fire(
                format!("{}.spec.template.spec.requirements", pool_path(pool_index)),
                format!(
                    "NodePool `{}` launches training instances (p/trn) on Spot",
                    pool.metadata.name
                ),
            );
        }
    }
}

fn karpenter_consolidation_evicts_training(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        let reserved = capacity_types(pool).contains("reserved");
        if !(reserved || is_training_pool(context, pool_index)) {
            continue;
        }
        let disruption = pool.spec.disruption.as_ref();
        // A static pool's nodes are never consolidated (its policy is ignored).
        let is_static = pool.spec.replicas.is_some();
        let budget_blocks = |reason: &str| {
            disruption.is_some_and(|disruption| {
                disruption.budgets.iter().any(|budget| {
                    budget.nodes == "0"
                        && budget.schedule.is_none()
                        && (budget.reasons.is_empty()
                            || budget.reasons.iter().any(|listed| listed == reason))
                })
            })
        };
        let policy = disruption
            .and_then(|disruption| disruption.consolidation_policy.as_deref())
            .unwrap_or("WhenEmptyOrUnderutilized");
        if !is_static && policy != "WhenEmpty" && !budget_blocks("Underutilized") {
            report.fire(
                format!("{}.spec.disruption.consolidationPolicy", pool_path(pool_index)),
                format!(
                    "training NodePool `{}` uses {policy}: Karpenter may evict running jobs to consolidate",
                    pool.metadata.name
                ),
            );
        }
        let expire_after = pool
            .spec
            .template
            .spec
            .expire_after
            .as_deref()
            .unwrap_or("720h");
        if expire_after != "Never" {
            report.fire(
                format!("{}.spec.template.spec.expireAfter", pool_path(pool_index)),
                format!(
                    "training NodePool `{}` expires nodes after {expire_after}, even in the middle of a job",
                    pool.metadata.name
                ),
            );
        }
    }
}

fn karpenter_reserved_capacity_type_missing(context: &Context<'_>, report: &mut Report<'_>) {
    for (pool_index, pool) in pools(context) {
        let class = class_named(context, &pool.spec.template.spec.node_class_ref.name);
        let selects_reservations =
            class.is_some_and(|class| !class.spec.capacity_reservation_selector_terms.is_empty());
        if selects_reservations && !capacity_types(pool).contains("reserved") {
            report.fire(
                format!("{}.spec.template.spec.requirements", pool_path(pool_index)),
                format!(
                    "NodePool `{}` uses a node class that selects reservations but does not allow capacity type `reserved`",
                    pool.metadata.name
                ),
            );
        }
    }
}

fn karpenter_reservation_term_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    for (class_index, class) in classes(context) {
        let terms = &class.spec.capacity_reservation_selector_terms;
        let path = format!(
            "{}.spec.capacityReservationSelectorTerms",
            class_path(class_index)
        );
        if terms.len() > 30 {
            report.fire(
                path.clone(),
                format!("{} terms given; at most 30 are allowed", terms.len()),
            );
        }
        for (index, term) in terms.iter().enumerate() {
            let term_path = format!("{path}[{index}]");
            if let Some(id) = &term.id {
                if let Err(IdError::Malformed(expected)) = ReservationId::check(id) {
                    report.fire(
                        format!("{term_path}.id"),
                        format!("reservation id `{id}` is not {expected}"),
                    );
                }
                if !term.tags.is_empty()
                    || term.owner_id.is_some()
                    || term.instance_match_criteria.is_some()
                {
                    report.fire(
                        term_path.clone(),
                        "a term with `id` may not also set tags, ownerID or instanceMatchCriteria",
                    );
                }
            } else if term.tags.is_empty() && term.instance_match_criteria.is_none() {
                report.fire(
                    term_path.clone(),
                    "a term needs an `id`, `tags` or `instanceMatchCriteria`",
                );
            }
            if let Some(owner) = &term.owner_id
                && !(owner.len() == 12 && owner.bytes().all(|byte| byte.is_ascii_digit()))
            {
                report.fire(
                    format!("{term_path}.ownerID"),
                    format!("owner id `{owner}` is not a 12-digit AWS account id"),
                );
            }
            if let Some(criteria) = &term.instance_match_criteria
                && !matches!(criteria.as_str(), "open" | "targeted")
            {
                report.fire(
                    format!("{term_path}.instanceMatchCriteria"),
                    format!("instanceMatchCriteria `{criteria}` is not open or targeted"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn go_durations_read_in_seconds() {
        use super::duration_seconds;
        assert_eq!(duration_seconds("10m"), Some(600.0));
        assert_eq!(duration_seconds("1h30m"), Some(5400.0));
        assert_eq!(duration_seconds("0.5h"), Some(1800.0));
        assert_eq!(duration_seconds("90s"), Some(90.0));
        assert_eq!(duration_seconds("10"), None);
        assert_eq!(duration_seconds("1d"), None);
        assert_eq!(duration_seconds(""), None);
    }
}
