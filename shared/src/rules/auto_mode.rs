//! Rules on EKS Auto Mode's own NodePools and NodeClasses: what the API server refuses
//! without Auto Mode, and pools that never launch a node (EKS user guide, "Create a Node
//! Pool for EKS Auto Mode", "Create a Node Class for Amazon EKS", "Control deployment of
//! workloads into Capacity Reservations with EKS Auto Mode").

use super::{Check, Context, Report, Rule, Severity, Stage};
use crate::fields;
use crate::upstream::auto_mode::{self, BUILT_IN_NODE_CLASS};
use crate::upstream::karpenter::{NodePool, Requirement};

pub(super) static RULES: &[Rule] = &[
    Rule {
        id: "auto-mode-pools-without-auto-mode",
        severity: Severity::Error,
        summary: super::described(
            "NodePools or NodeClasses for EKS Auto Mode are in the design, but Auto Mode is off",
        ),
        help: "turn EKS Auto Mode on (Cluster step), or remove the Auto Mode NodePools and NodeClasses",
        reference: super::described(
            "EKS user guide, Create a Node Class for Amazon EKS: the eks.amazonaws.com/v1 NodeClass exists only in clusters with Auto Mode; kubectl apply is refused (no matches for kind NodeClass)",
        ),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(auto_mode_pools_without_auto_mode),
    },
    Rule {
        id: "auto-mode-node-class-missing",
        severity: Severity::Error,
        summary: super::described(
            "an Auto Mode NodePool names a NodeClass the design does not have",
        ),
        help: "name one of the design's NodeClasses, or `default` (Auto Mode's own)",
        reference: super::described(
            "EKS user guide, Create a Node Pool for EKS Auto Mode (nodeClassRef names an eks.amazonaws.com NodeClass; without it the pool launches no node)",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(auto_mode_node_class_missing),
    },
    Rule {
        id: "auto-mode-reserved-without-selector",
        severity: Severity::Error,
        summary: super::described(
            "an Auto Mode NodePool allows only reserved capacity, but its NodeClass selects no capacity reservation",
        ),
        help: "add the ODCR or Capacity Block to the NodeClass's capacityReservationSelectorTerms (by id, or by tags)",
        reference: super::described(
            "EKS user guide, Control deployment of workloads into Capacity Reservations with EKS Auto Mode: reserved capacity is used only through capacityReservationSelectorTerms, and Capacity Blocks for ML always require them",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(auto_mode_reserved_without_selector),
    },
    Rule {
        id: "auto-mode-reservation-unused",
        severity: Severity::Warning,
        summary: super::described(
            "an Auto Mode NodeClass selects capacity reservations, but a NodePool on it does not allow reserved capacity",
        ),
        help: "add `reserved` to the pool's karpenter.sh/capacity-type requirement: nodes launched into a selected reservation are reserved capacity",
        reference: super::described(
            "EKS user guide, Control deployment of workloads into Capacity Reservations with EKS Auto Mode (nodes in selected reservations are labelled karpenter.sh/capacity-type: reserved)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(auto_mode_reservation_unused),
    },
    Rule {
        id: "auto-mode-pool-label-unknown",
        severity: Severity::Warning,
        summary: super::described(
            "an Auto Mode NodePool requires a label Auto Mode does not put on its nodes (Karpenter's karpenter.k8s.aws/ labels, kubernetes.io/os)",
        ),
        help: "use Auto Mode's own label, eks.amazonaws.com/ in place of karpenter.k8s.aws/ (eks.amazonaws.com/instance-family, instance-gpu-name, …); Auto Mode runs Linux only",
        reference: super::described(
            "EKS user guide, Create a Node Pool for EKS Auto Mode (EKS Auto Mode Supported Labels: labels of EC2 managed instances start with eks.amazonaws.com, Auto Mode uses different labels than Karpenter; not supported: kubernetes.io/os, node.kubernetes.io/windows-build)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(auto_mode_pool_label_unknown),
    },
    Rule {
        id: "ultraserver-on-node-pool",
        severity: Severity::Warning,
        summary: super::described(
            "a Karpenter or Auto Mode NodePool asks for P6e-GB200 UltraServers, whose multi-node NVLink needs Dynamic Resource Allocation that neither supports",
        ),
        help: "run P6e-GB200 in a managed node group on its Capacity Block (the p6e-gb200-ultraserver template), as the EKS user guide recommends",
        reference: super::described(
            "EKS user guide, Use P6e-GB200 UltraServers with Amazon EKS (considerations: DRA is required; Karpenter and EKS Auto Mode do not support it; use managed or self-managed node groups)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(ultraserver_on_node_pool),
    },
];

/// Whether a pool names P6e-GB200 in an instance type or family requirement.
fn names_ultraserver(pool: &crate::upstream::karpenter::NodePool) -> bool {
    const KEYS: [&str; 3] = [
        "node.kubernetes.io/instance-type",
        "karpenter.k8s.aws/instance-family",
        "eks.amazonaws.com/instance-family",
    ];
    pool.spec
        .template
        .spec
        .requirements
        .iter()
        .any(|requirement| {
            KEYS.contains(&requirement.key.as_str())
                && requirement.operator == "In"
                && requirement
                    .values
                    .iter()
                    .any(|value| value.starts_with("p6e-gb200"))
        })
}

fn ultraserver_on_node_pool(context: &Context<'_>, report: &mut Report<'_>) {
    let spec = context.spec;
    let karpenter = spec
        .karpenter
        .iter()
        .flat_map(|karpenter| karpenter.node_pools.iter().enumerate())
        .map(|(index, pool)| {
            (
                fields::item(fields::KARPENTER_POOL, &[index]),
                "Karpenter",
                pool,
            )
        });
    let auto = spec
        .auto_mode_pools
        .node_pools
        .iter()
        .enumerate()
        .map(|(index, pool)| {
            (
                fields::item(fields::AUTO_MODE_POOL, &[index]),
                "EKS Auto Mode",
                pool,
            )
        });
    for (path, runner, pool) in karpenter.chain(auto) {
        if names_ultraserver(pool) {
            report.fire(
                format!("{path}.spec.template.spec.requirements"),
                format!(
                    "NodePool `{}` asks for P6e-GB200 UltraServers; {runner} does not support the Dynamic Resource Allocation their multi-node NVLink needs, so the EKS user guide recommends a node group for them",
                    pool.metadata.name
                ),
            );
        }
    }
}

fn auto_mode_pools_without_auto_mode(context: &Context<'_>, report: &mut Report<'_>) {
    let spec = context.spec;
    if !spec.auto_mode_pools.is_empty() && !spec.cluster.auto_mode_enabled() {
        report.fire(
            "auto_mode_pools",
            format!(
                "{} Auto Mode NodePool(s) and {} NodeClass(es) are in the design, but EKS Auto Mode is off: the cluster has no eks.amazonaws.com NodeClass to apply them to",
                spec.auto_mode_pools.node_pools.len(),
                spec.auto_mode_pools.node_classes.len()
            ),
        );
    }
}

fn auto_mode_node_class_missing(context: &Context<'_>, report: &mut Report<'_>) {
    let pools = &context.spec.auto_mode_pools;
    for (index, pool) in pools.node_pools.iter().enumerate() {
        let name = &pool.spec.template.spec.node_class_ref.name;
        if name != BUILT_IN_NODE_CLASS && auto_mode::class_of(pools, pool).is_none() {
            report.fire(
                NodePool::NODE_CLASS_REF_NAME.at_in(fields::AUTO_MODE_POOL, &[index]),
                format!(
                    "NodePool `{}` names NodeClass `{name}`, which the design does not have: the pool launches no node",
                    pool.metadata.name
                ),
            );
        }
    }
}

fn auto_mode_reserved_without_selector(context: &Context<'_>, report: &mut Report<'_>) {
    let pools = &context.spec.auto_mode_pools;
    for (index, pool) in pools.node_pools.iter().enumerate() {
        let types = crate::upstream::matching::capacity_types(pool);
        if types.len() != 1 || !types.contains("reserved") {
            continue;
        }
        let name = &pool.spec.template.spec.node_class_ref.name;
        let selects = auto_mode::class_of(pools, pool)
            .is_some_and(|class| !class.spec.capacity_reservation_selector_terms.is_empty());
        // A missing class is the rule above's.
        let missing = name != BUILT_IN_NODE_CLASS && auto_mode::class_of(pools, pool).is_none();
        if !selects && !missing {
            report.fire(
                NodePool::REQUIREMENTS.at_in(fields::AUTO_MODE_POOL, &[index]),
                format!(
                    "NodePool `{}` allows only reserved capacity, but NodeClass `{name}` selects no capacity reservation: Auto Mode launches no node for it",
                    pool.metadata.name
                ),
            );
        }
    }
}

fn auto_mode_reservation_unused(context: &Context<'_>, report: &mut Report<'_>) {
    let pools = &context.spec.auto_mode_pools;
    for (index, pool) in pools.node_pools.iter().enumerate() {
        let Some(class) = auto_mode::class_of(pools, pool) else {
            continue;
        };
        if !class.spec.capacity_reservation_selector_terms.is_empty()
            && !crate::upstream::matching::capacity_types(pool).contains("reserved")
        {
            report.fire(
                NodePool::REQUIREMENTS.at_in(fields::AUTO_MODE_POOL, &[index]),
                format!(
                    "NodeClass `{}` selects capacity reservations, but NodePool `{}` does not allow reserved capacity: it never launches into them",
                    class.metadata.name, pool.metadata.name
                ),
            );
        }
    }
}

fn auto_mode_pool_label_unknown(context: &Context<'_>, report: &mut Report<'_>) {
    use crate::upstream::matching::AUTO_MODE_INSTANCE_LABELS;
    for (pool_index, pool) in context.spec.auto_mode_pools.node_pools.iter().enumerate() {
        let requirements = &pool.spec.template.spec.requirements;
        for (index, requirement) in requirements.iter().enumerate() {
            let key = requirement.key.as_str();
            let instead = if let Some(label) = key.strip_prefix("karpenter.k8s.aws/") {
                if AUTO_MODE_INSTANCE_LABELS.contains(&label) {
                    format!("Auto Mode labels its nodes `eks.amazonaws.com/{label}`")
                } else {
                    "Auto Mode has no such label".to_owned()
                }
            } else if let Some(label) = key.strip_prefix("eks.amazonaws.com/") {
                if AUTO_MODE_INSTANCE_LABELS.contains(&label) {
                    continue;
                }
                "it is not among Auto Mode's labels".to_owned()
            } else if key == "kubernetes.io/os" || key == "node.kubernetes.io/windows-build" {
                "Auto Mode runs Linux nodes only and does not support it".to_owned()
            } else {
                continue;
            };
            report.fire(
                Requirement::KEY.at_in(fields::AUTO_MODE_REQUIREMENT, &[pool_index, index]),
                format!(
                    "NodePool `{}` requires `{key}`, but {instead}: the requirement does not choose instance types as it reads",
                    pool.metadata.name
                ),
            );
        }
    }
}
