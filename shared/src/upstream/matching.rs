//! Which instance types a Karpenter or Auto Mode NodePool can launch: its requirements
//! judged against the instance catalog on the well-known labels Karpenter sets
//! (`karpenter.k8s.aws/…`, `node.kubernetes.io/instance-type`, …) or, for an Auto Mode
//! pool, on Auto Mode's `eks.amazonaws.com/…` labels; and which capacity types it allows.
//! The rules, the resolved-types view and the device plugins all ask this one matcher.

use std::collections::BTreeSet;

use crate::catalog::instances::{self, InstanceType};
use crate::upstream::karpenter::{CAPACITY_TYPE, NodePool, OPERATORS, Requirement};

/// A well-known label's value on an instance type, borrowed from the catalog.
#[derive(Clone, Copy, PartialEq)]
enum Label {
    Text(&'static str),
    Number(u64),
}

impl Label {
    fn equals(self, value: &str) -> bool {
        match self {
            Label::Text(text) => text == value,
            Label::Number(number) => value.parse::<u64>() == Ok(number),
        }
    }
}

/// The value an instance type has for a well-known label, if the studio knows it.
fn label_value(instance_type: &'static InstanceType, key: &str) -> Option<Label> {
    let family = instance_type.family;
    let category = &family[..family
        .find(|char: char| !char.is_ascii_alphabetic())
        .unwrap_or(family.len())];
    let size = instance_type.name.split_once('.').map(|(_, size)| size);
    let number = |value: u32| Some(Label::Number(u64::from(value)));
    match key {
        "node.kubernetes.io/instance-type" => Some(Label::Text(instance_type.name)),
        "kubernetes.io/arch" => Some(Label::Text(instance_type.architecture.as_str())),
        "karpenter.k8s.aws/instance-category" => Some(Label::Text(category)),
        "karpenter.k8s.aws/instance-family" => Some(Label::Text(family)),
        "karpenter.k8s.aws/instance-generation" => number(instance_type.generation),
        "karpenter.k8s.aws/instance-size" => size.map(Label::Text),
        // 0 is the catalog's "not known" (a size no public table describes yet).
        "karpenter.k8s.aws/instance-cpu" => instance_type.known_vcpus().and_then(number),
        "karpenter.k8s.aws/instance-memory" => (instance_type.memory_mib > 0)
            .then_some(instance_type.memory_mib)
            .and_then(number),
        "karpenter.k8s.aws/instance-gpu-count" => number(instance_type.gpu_count),
        "karpenter.k8s.aws/instance-gpu-memory" => instance_type.gpu_memory_mib.and_then(number),
        "karpenter.k8s.aws/instance-gpu-name" => instance_type.gpu_name.map(Label::Text),
        "karpenter.k8s.aws/instance-gpu-manufacturer" => {
            instance_type.gpu_manufacturer.map(Label::Text)
        }
        "karpenter.k8s.aws/instance-accelerator-name" => {
            instance_type.accelerator_name.map(Label::Text)
        }
        "karpenter.k8s.aws/instance-accelerator-count" => number(instance_type.accelerator_count),
        _ => None,
    }
}

const EVALUATED_KEYS: &[&str] = &[
    "node.kubernetes.io/instance-type",
    "kubernetes.io/arch",
    "karpenter.k8s.aws/instance-category",
    "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-generation",
    "karpenter.k8s.aws/instance-size",
    "karpenter.k8s.aws/instance-cpu",
    "karpenter.k8s.aws/instance-memory",
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-memory",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "karpenter.k8s.aws/instance-accelerator-name",
    "karpenter.k8s.aws/instance-accelerator-count",
];

fn satisfies(
    instance_type: &'static InstanceType,
    requirement: &Requirement,
    bound: Option<u64>,
) -> bool {
    let value = label_value(instance_type, &requirement.key);
    let number = || match value {
        Some(Label::Number(number)) => Some(number),
        Some(Label::Text(text)) => text.parse::<u64>().ok(),
        None => None,
    };
    let listed = |label: Label| requirement.values.iter().any(|value| label.equals(value));
    match requirement.operator.as_str() {
        "In" => value.is_some_and(listed),
        "NotIn" => value.is_none_or(|label| !listed(label)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        "Gt" => matches!((number(), bound), (Some(number), Some(bound)) if number > bound),
        "Gte" => matches!((number(), bound), (Some(number), Some(bound)) if number >= bound),
        "Lt" => matches!((number(), bound), (Some(number), Some(bound)) if number < bound),
        "Lte" => matches!((number(), bound), (Some(number), Some(bound)) if number <= bound),
        _ => true,
    }
}

/// The instance-type labels EKS Auto Mode puts on its nodes (EKS user guide, "Create a
/// Node Pool for EKS Auto Mode", EKS Auto Mode Supported Labels): the same facts as
/// Karpenter's `karpenter.k8s.aws/` labels, under `eks.amazonaws.com/`.
pub const AUTO_MODE_INSTANCE_LABELS: &[&str] = &[
    "instance-hypervisor",
    "compute-type",
    "instance-encryption-in-transit-supported",
    "instance-category",
    "instance-generation",
    "instance-family",
    "instance-size",
    "instance-cpu",
    "instance-cpu-manufacturer",
    "instance-memory",
    "instance-ebs-bandwidth",
    "instance-network-bandwidth",
    "instance-gpu-name",
    "instance-gpu-manufacturer",
    "instance-gpu-count",
    "instance-gpu-memory",
    "instance-local-nvme",
];

/// The key a requirement is judged under: Karpenter's own for a Karpenter pool; for an
/// Auto Mode pool, Auto Mode's `eks.amazonaws.com/` labels read as Karpenter's
/// (`karpenter.k8s.aws/` keys mean nothing to Auto Mode and narrow nothing).
fn evaluated_key(key: &str, auto_mode: bool) -> Option<String> {
    let key = if auto_mode {
        if key.starts_with("karpenter.k8s.aws/") {
            return None;
        }
        match key.strip_prefix("eks.amazonaws.com/") {
            Some(label) if AUTO_MODE_INSTANCE_LABELS.contains(&label) => {
                format!("karpenter.k8s.aws/{label}")
            }
            _ => key.to_owned(),
        }
    } else {
        key.to_owned()
    };
    EVALUATED_KEYS.contains(&key.as_str()).then_some(key)
}

/// The catalog's instance types a pool's requirements allow, judged on the labels the
/// studio knows (others, such as zone or capacity type, do not narrow the list). An EKS
/// Auto Mode pool (its nodeClassRef in `eks.amazonaws.com`) is read with Auto Mode's
/// labels.
///
/// The rules, the preview and the resolved-types view each ask for every pool on every
/// keystroke, and a keystroke seldom changes a pool's requirements: the answers for the
/// last few requirement lists are kept, so the catalog is scanned once per change.
pub fn matching_instance_types(pool: &NodePool) -> Vec<&'static InstanceType> {
    const KEPT: usize = 32;
    thread_local! {
        static ANSWERS: std::cell::RefCell<Vec<Answer>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    let requirements = &pool.spec.template.spec.requirements;
    let auto_mode =
        pool.spec.template.spec.node_class_ref.group == crate::upstream::auto_mode::GROUP;
    ANSWERS.with(|answers| {
        let mut answers = answers.borrow_mut();
        if let Some((_, _, found)) = answers
            .iter()
            .find(|(asked, mode, _)| *mode == auto_mode && asked == requirements)
        {
            return found.clone();
        }
        let found = scan_catalog(requirements, auto_mode);
        if answers.len() >= KEPT {
            answers.remove(0);
        }
        answers.push((requirements.clone(), auto_mode, found.clone()));
        found
    })
}

/// A remembered answer: the requirements, whether they were read as Auto Mode's, and the
/// types they allow.
type Answer = (Vec<Requirement>, bool, Vec<&'static InstanceType>);

fn scan_catalog(requirements: &[Requirement], auto_mode: bool) -> Vec<&'static InstanceType> {
    let evaluated: Vec<(Requirement, Option<u64>)> = requirements
        .iter()
        .filter(|requirement| OPERATORS.contains(&requirement.operator.as_str()))
        .filter_map(|requirement| {
            let key = evaluated_key(&requirement.key, auto_mode)?;
            let bound = requirement
                .values
                .first()
                .and_then(|value| value.parse::<u64>().ok());
            let mut requirement = requirement.clone();
            requirement.key = key;
            Some((requirement, bound))
        })
        .collect();
    instances::all()
        .iter()
        .filter(|instance_type| {
            evaluated
                .iter()
                .all(|(requirement, bound)| satisfies(instance_type, requirement, *bound))
        })
        .collect()
}

/// The capacity types a pool allows (Karpenter's default is on-demand only).
pub fn capacity_types(pool: &NodePool) -> BTreeSet<&str> {
    const ALL: [&str; 3] = ["on-demand", "spot", "reserved"];
    let requirement = pool
        .spec
        .template
        .spec
        .requirements
        .iter()
        .find(|requirement| requirement.key == CAPACITY_TYPE);
    // Built by `extend`, which inserts one by one; `collect` and `From<[_; N]>` sort a
    // vector first, a sort the page would carry for sets of at most three names.
    let mut types = BTreeSet::new();
    match requirement {
        Some(requirement) if requirement.operator == "In" => {
            types.extend(requirement.values.iter().map(String::as_str));
        }
        Some(requirement) if requirement.operator == "Exists" => types.extend(ALL),
        Some(requirement) if requirement.operator == "NotIn" => types.extend(
            ALL.into_iter()
                .filter(|kind| !requirement.values.iter().any(|value| value == kind)),
        ),
        _ => types.extend(["on-demand"]),
    }
    types
}
