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

/// A label's value as a number, when it is one.
fn as_number(value: Option<Label>) -> Option<u64> {
    match value {
        Some(Label::Number(number)) => Some(number),
        Some(Label::Text(text)) => text.parse::<u64>().ok(),
        None => None,
    }
}

fn satisfies(
    instance_type: &'static InstanceType,
    requirement: &Requirement,
    bound: Option<u64>,
) -> bool {
    let value = label_value(instance_type, &requirement.key);
    let number = || as_number(value);
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

/// The requirements the catalog can judge, each with its index among `requirements`, its
/// key as judged ([`evaluated_key`]) and its first value as a number (the bound of `Gt`…).
fn evaluated(
    requirements: &[Requirement],
    auto_mode: bool,
) -> Vec<(usize, Requirement, Option<u64>)> {
    requirements
        .iter()
        .enumerate()
        .filter(|(_, requirement)| OPERATORS.contains(&requirement.operator.as_str()))
        .filter_map(|(index, requirement)| {
            let key = evaluated_key(&requirement.key, auto_mode)?;
            let bound = requirement
                .values
                .first()
                .and_then(|value| value.parse::<u64>().ok());
            let mut requirement = requirement.clone();
            requirement.key = key;
            Some((index, requirement, bound))
        })
        .collect()
}

fn scan_catalog(requirements: &[Requirement], auto_mode: bool) -> Vec<&'static InstanceType> {
    let evaluated = evaluated(requirements, auto_mode);
    instances::all()
        .iter()
        .filter(|instance_type| {
            evaluated
                .iter()
                .all(|(_, requirement, bound)| satisfies(instance_type, requirement, *bound))
        })
        .collect()
}

/// Whether Karpenter (or Auto Mode) writes a label's values in MiB: the memory and GPU
/// memory of an instance type (`karpenter.k8s.aws/instance-gpu-memory: "81559"`).
pub fn in_mebibytes(key: &str) -> bool {
    let label = key
        .strip_prefix("karpenter.k8s.aws/")
        .or_else(|| key.strip_prefix("eks.amazonaws.com/"));
    matches!(label, Some("instance-memory" | "instance-gpu-memory"))
}

/// A size as people write it (`24Gi`, `24 GiB`, `0.5 TiB`, `512Mi`, or MiB as a bare
/// number) in whole MiB, rounded; `None` for anything else. Only binary units: `24G` and
/// `24GB` are ambiguous (Kubernetes reads `G` as 10⁹ bytes) and are not guessed.
pub fn mebibytes(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|character: char| !(character.is_ascii_digit() || character == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "mi" | "mib" => 1.0,
        "gi" | "gib" => 1024.0,
        "ti" | "tib" => 1024.0 * 1024.0,
        _ => return None,
    };
    let mib = (number * scale).round();
    (0.0..1e15).contains(&mib).then_some(mib as u64)
}

/// MiB in GiB as a person reads it: `24 GiB`, `22.35 GiB`.
pub fn gibibytes_text(mib: u64) -> String {
    if mib.is_multiple_of(1024) {
        format!("{} GiB", mib / 1024)
    } else {
        let text = format!("{:.2}", mib as f64 / 1024.0);
        format!("{} GiB", text.trim_end_matches('0').trim_end_matches('.'))
    }
}

/// What a requirement's values mean when its label is in MiB: the values in GiB, or, for
/// values written in other units (`24Gi`), the MiB Karpenter needs in their place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitNote {
    /// In words: "MiB, as Karpenter writes the label: 24576 is 24 GiB".
    pub words: String,
    /// The values rewritten in MiB, when some were written in another unit.
    pub in_mebibytes: Option<Vec<String>>,
}

/// The [`UnitNote`] for a requirement on a label in MiB with values; `None` otherwise.
pub fn unit_note(key: &str, values: &[String]) -> Option<UnitNote> {
    if !in_mebibytes(key) || values.is_empty() {
        return None;
    }
    let label = key.rsplit('/').next().unwrap_or(key);
    let plain = |value: &String| value.trim().parse::<u64>().ok();
    if values.iter().all(|value| plain(value).is_some()) {
        let read: Vec<String> = values
            .iter()
            .filter_map(plain)
            .map(|mib| format!("{} is {}", grouped(mib), gibibytes_text(mib)))
            .collect();
        return Some(UnitNote {
            words: format!("`{label}` is in MiB: {}", read.join("; ")),
            in_mebibytes: None,
        });
    }
    let converted: Option<Vec<String>> = values
        .iter()
        .map(|value| mebibytes(value).map(|mib| mib.to_string()))
        .collect();
    Some(match converted {
        Some(converted) => UnitNote {
            words: format!(
                "Karpenter reads `{label}` in MiB and compares whole numbers: {} is {}",
                values.join(", "),
                converted.join(", ")
            ),
            in_mebibytes: Some(converted),
        },
        None => UnitNote {
            words: format!(
                "Karpenter reads `{label}` in MiB: write whole MiB (24 GiB is 24576), or a size in Gi or Mi here to convert it"
            ),
            in_mebibytes: None,
        },
    })
}

/// A number with thousands separators: `22,888`.
fn grouped(number: u64) -> String {
    let digits = number.to_string();
    let mut text = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// A requirement that on its own shuts out instance types every other requirement of its
/// pool allows: why a pool that launches nothing launches nothing.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Exclusion {
    /// The requirement's index in the pool's requirements.
    pub requirement: usize,
    /// How many types it alone shuts out.
    pub excluded: usize,
    /// The nearest of them (by how far their value is from the bound, for `Gt`/`Lt`…),
    /// at most [`Exclusion::SHOWN`], each with its value of the label.
    pub nearest: Vec<ExcludedType>,
    /// In words: "`karpenter.k8s.aws/instance-gpu-memory Gte 24576` (24 GiB) alone shuts
    /// out 2 types every other requirement allows: g5.xlarge (22,888 MiB), …".
    pub words: String,
}

/// An instance type a requirement shuts out, with its value of the requirement's label.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ExcludedType {
    /// The type, e.g. `g5.xlarge`.
    pub name: &'static str,
    /// Its value of the label, e.g. `22,888 MiB`; "none" when it has none.
    pub value: String,
}

impl Exclusion {
    /// How many shut-out types are named.
    pub const SHOWN: usize = 4;
}

/// For a pool whose requirements allow no type: each requirement that alone shuts out
/// types all its other requirements allow, with the nearest of them. Empty when the pool
/// can launch something, or when no single requirement is to blame (two or more shut out
/// every type together).
pub fn exclusions(pool: &NodePool) -> Vec<Exclusion> {
    let requirements = &pool.spec.template.spec.requirements;
    let auto_mode =
        pool.spec.template.spec.node_class_ref.group == crate::upstream::auto_mode::GROUP;
    if !matching_instance_types(pool).is_empty() {
        return Vec::new();
    }
    let evaluated = evaluated(requirements, auto_mode);
    let catalog = instances::all();
    let mut found = Vec::new();
    for (position, (index, requirement, bound)) in evaluated.iter().enumerate() {
        let mut shut_out: Vec<&'static InstanceType> = catalog
            .iter()
            .filter(|instance_type| {
                evaluated
                    .iter()
                    .enumerate()
                    .filter(|(other, _)| *other != position)
                    .all(|(_, (_, other, bound))| satisfies(instance_type, other, *bound))
            })
            .collect();
        if shut_out.is_empty() {
            continue;
        }
        let number = |instance_type: &'static InstanceType| {
            as_number(label_value(instance_type, &requirement.key))
        };
        match bound {
            Some(bound) if matches!(requirement.operator.as_str(), "Gt" | "Gte" | "Lt" | "Lte") => {
                shut_out.sort_by_key(|instance_type| {
                    (
                        number(instance_type).map_or(u64::MAX, |value| value.abs_diff(*bound)),
                        instance_type.family,
                        instance_type.vcpus,
                    )
                });
            }
            _ => shut_out.sort_by_key(|instance_type| (instance_type.family, instance_type.vcpus)),
        }
        let mebibytes = in_mebibytes(&requirement.key);
        let nearest: Vec<ExcludedType> = shut_out
            .iter()
            .take(Exclusion::SHOWN)
            .map(|instance_type| ExcludedType {
                name: instance_type.name,
                value: match label_value(instance_type, &requirement.key) {
                    Some(Label::Number(number)) if mebibytes => {
                        format!("{} MiB", grouped(number))
                    }
                    Some(Label::Number(number)) => number.to_string(),
                    Some(Label::Text(text)) => text.to_owned(),
                    None => "none".to_owned(),
                },
            })
            .collect();
        let written = &requirements[*index];
        let mut asked = format!(
            "`{} {} {}`",
            written.key,
            written.operator,
            written.values.join(", ")
        );
        if mebibytes && let Some(bound) = bound {
            asked.push_str(&format!(" ({})", gibibytes_text(*bound)));
        }
        let noun = if shut_out.len() == 1 { "type" } else { "types" };
        let named = nearest
            .iter()
            .map(|excluded| format!("{} ({})", excluded.name, excluded.value))
            .collect::<Vec<_>>()
            .join(", ");
        let more = if shut_out.len() > nearest.len() {
            format!(" and {} more", shut_out.len() - nearest.len())
        } else {
            String::new()
        };
        found.push(Exclusion {
            requirement: *index,
            excluded: shut_out.len(),
            words: format!(
                "{asked} alone shuts out {} {noun} every other requirement allows: {named}{more}",
                shut_out.len()
            ),
            nearest,
        });
    }
    found
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
