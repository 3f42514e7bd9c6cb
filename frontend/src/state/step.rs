//! The wizard's steps, and where a spec path is edited: its step and its input's DOM id.

/// The eight steps of the wizard, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// Pick a template, import YAML or open a draft.
    Start,
    /// Name, region, Kubernetes version.
    Cluster,
    /// New or existing VPC.
    Network,
    /// Managed node groups.
    NodeGroups,
    /// Capacity type and placement per node group.
    Capacity,
    /// Karpenter pools and classes.
    Karpenter,
    /// EKS add-ons.
    Addons,
    /// Findings, live checks, bundle, deploy.
    Review,
}

impl Step {
    /// Every step, in wizard order.
    pub const ALL: [Step; 8] = [
        Step::Start,
        Step::Cluster,
        Step::Network,
        Step::NodeGroups,
        Step::Capacity,
        Step::Karpenter,
        Step::Addons,
        Step::Review,
    ];

    /// The step's title in the step list.
    pub fn title(self) -> &'static str {
        match self {
            Step::Start => "Start",
            Step::Cluster => "Cluster",
            Step::Network => "Network",
            Step::NodeGroups => "Node groups",
            Step::Capacity => "Capacity",
            Step::Karpenter => "Karpenter",
            Step::Addons => "Add-ons and storage",
            Step::Review => "Review and ship",
        }
    }

    /// 1-based position in the wizard.
    pub fn number(self) -> usize {
        Step::ALL.iter().position(|step| *step == self).unwrap_or(0) + 1
    }

    /// DOM id of the step's button in the step list.
    pub fn button_id(self) -> String {
        format!("step-button-{}", self.number())
    }

    /// The step after this one.
    pub fn next(self) -> Option<Step> {
        Step::ALL.get(self.number()).copied()
    }

    /// The step before this one.
    pub fn previous(self) -> Option<Step> {
        self.number().checked_sub(2).map(|idx| Step::ALL[idx])
    }
}

/// The step whose form holds the field at a spec path.
///
/// Placement lives with capacity: a reservation exists in one zone, so the zone or subnet
/// a group is pinned to is chosen next to the reservation. EKS Auto Mode's own pools and
/// classes are edited under Auto Mode, in the Cluster step.
pub fn step_of_path(path: &str) -> Step {
    let is_capacity = path.starts_with("node_groups[")
        && path
            .split_once("].")
            .is_some_and(|(_, rest)| rest.starts_with("capacity") || rest.starts_with("placement"));
    if path.starts_with("cluster") || path.starts_with("auto_mode_pools") {
        Step::Cluster
    } else if path.starts_with("network") {
        Step::Network
    } else if is_capacity {
        Step::Capacity
    } else if path.starts_with("node_groups") {
        Step::NodeGroups
    } else if path.starts_with("karpenter") {
        Step::Karpenter
    } else if path.starts_with("addons") || path.starts_with("storage") {
        Step::Addons
    } else {
        Step::Review
    }
}

/// The DOM id of the control editing the spec field at `path`: every run of characters
/// other than ASCII letters and digits becomes one `-`, behind an `f-` prefix.
/// `node_groups[1].instance_type` → `f-node-groups-1-instance-type`.
pub fn field_id(path: &str) -> String {
    let mut id = String::from("f");
    let mut pending_dash = true;
    for character in path.chars() {
        if character.is_ascii_alphanumeric() {
            if pending_dash {
                id.push('-');
                pending_dash = false;
            }
            id.push(character.to_ascii_lowercase());
        } else {
            pending_dash = true;
        }
    }
    id
}

/// The path one level up: `a.b[2]` → `a.b`, `a.b` → `a`, `a` → none.
pub fn parent_path(path: &str) -> Option<&str> {
    let cut = path.rfind(['.', '['])?;
    Some(&path[..cut])
}
