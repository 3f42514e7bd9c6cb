//! Rules on `accessConfig`: what eksctl refuses (`validateAccessEntries` and the
//! authentication mode check of `ValidateClusterConfig`, eksctl
//! `pkg/apis/eksctl.io/v1alpha5/access_entry.go` and `validation.go`), and the access entry
//! an EKS Auto Mode NodeClass with its own node role needs (EKS user guide, "Create a Node
//! Class for Amazon EKS", Create node class access entry).

use super::syntax::is_arn;
use super::{Check, Context, Report, Rule, Severity, Stage};
use crate::model::spec::{AccessConfig, AccessEntry};
use crate::upstream::auto_mode::NodeClass;

pub(super) static RULES: &[Rule] = &[
    Rule {
        id: "access-entries-need-api-authentication",
        severity: Severity::Error,
        summary: super::described(
            "access entries need authenticationMode API or API_AND_CONFIG_MAP",
        ),
        help: "set accessConfig.authenticationMode to API_AND_CONFIG_MAP (or API)",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/validation.go (ValidateClusterConfig, accessConfig); eksctl refuses the file before calling AWS",
        ),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(access_entries_need_api_authentication),
    },
    Rule {
        id: "access-entry-invalid",
        severity: Severity::Error,
        summary: super::described(
            "an access entry lacks a valid principal ARN, has an unknown type, a field its type does not take, or a malformed access policy",
        ),
        help: "give principalARN; for EC2_LINUX, EC2_WINDOWS, FARGATE_LINUX and HYBRID_LINUX no groups, username or policies; each policy a cluster-access-policy ARN with a cluster or namespace scope",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/access_entry.go (validateAccessEntries); eksctl refuses the file before calling AWS",
        ),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(access_entry_invalid),
    },
    Rule {
        id: "auto-mode-node-role-without-access-entry",
        severity: Severity::Warning,
        summary: super::described(
            "an Auto Mode NodeClass names its own node role, and the design gives that role no EC2 access entry",
        ),
        help: "add an access entry of type EC2 for the role with the AmazonEKSAutoNodePolicy access policy (cluster scope), or create it with `aws eks create-access-entry` before the nodes launch",
        reference: super::described(
            "EKS user guide, Create a Node Class for Amazon EKS (Create node class access entry: a custom node class needs an EKS access entry of type EC2 for its node role, with AmazonEKSAutoNodePolicy; EKS makes one only for the built-in node class)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(auto_mode_node_role_without_access_entry),
    },
];

fn access<'a>(context: &Context<'a>) -> Option<&'a AccessConfig> {
    context.spec.cluster.access.as_ref()
}

fn entry_path(index: usize) -> String {
    format!("cluster.access.access_entries[{index}]")
}

fn access_entries_need_api_authentication(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(access) = access(context) else {
        return;
    };
    if !access.access_entries.is_empty() && access.authentication_mode == "CONFIG_MAP" {
        report.fire(
            AccessConfig::AUTHENTICATION_MODE.path(),
            "access entries need authenticationMode API_AND_CONFIG_MAP or API, not CONFIG_MAP",
        );
    }
}

/// The node entry types: eksctl refuses groups, a user name and policies on them.
const NODE_TYPES: [&str; 4] = ["EC2_LINUX", "EC2_WINDOWS", "FARGATE_LINUX", "HYBRID_LINUX"];

fn access_entry_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(access) = access(context) else {
        return;
    };
    let entries = &access.access_entries;
    super::each_repeat(
        entries
            .iter()
            .map(|entry| Some(entry.principal_arn.as_str()).filter(|arn| is_arn(arn))),
        |index, _| {
            report.fire(
                format!("{}.principal_arn", entry_path(index)),
                format!(
                    "principal `{}` has an access entry already",
                    entries[index].principal_arn
                ),
            );
        },
    );
    for (index, entry) in entries.iter().enumerate() {
        let path = entry_path(index);
        let principal = entry.principal_arn.trim();
        if principal.is_empty() {
            report.fire(
                format!("{path}.principal_arn"),
                "principalARN must be set to a valid AWS ARN",
            );
        } else if !is_arn(principal) {
            report.fire(
                format!("{path}.principal_arn"),
                format!("`{principal}` is not an AWS ARN"),
            );
        }
        let kind = entry.entry_type.as_str();
        if NODE_TYPES.contains(&kind) {
            let given = [
                (
                    "kubernetes_groups",
                    "kubernetesGroups",
                    !entry.kubernetes_groups.is_empty(),
                ),
                (
                    "kubernetes_username",
                    "kubernetesUsername",
                    !entry.kubernetes_username.is_empty(),
                ),
                (
                    "access_policies",
                    "accessPolicies",
                    !entry.access_policies.is_empty(),
                ),
            ];
            for (field, key, _) in given.iter().filter(|(_, _, given)| *given) {
                report.fire(
                    format!("{path}.{field}"),
                    format!("{key} cannot be given for an access entry of type {kind}"),
                );
            }
        } else if !kind.is_empty() && !AccessEntry::TYPES.contains(&kind) {
            report.fire(
                format!("{path}.entry_type"),
                format!(
                    "`{kind}` is not an access entry type ({})",
                    AccessEntry::TYPES.join(", ")
                ),
            );
        }
        for (item, policy) in entry.access_policies.iter().enumerate() {
            let at = format!("{path}.access_policies[{item}]");
            let arn = policy.policy_arn.trim();
            let resource = arn.splitn(6, ':').nth(5).unwrap_or("");
            if arn.is_empty() {
                report.fire(
                    format!("{at}.policy_arn"),
                    "policyARN must be set to a valid AWS ARN",
                );
            } else if !is_arn(arn) || !resource.starts_with("cluster-access-policy/") {
                report.fire(
                    format!("{at}.policy_arn"),
                    format!("`{arn}` is not a cluster-access-policy ARN"),
                );
            }
            let namespaces = !policy.namespaces.is_empty();
            match policy.scope.as_str() {
                "cluster" if namespaces => report.fire(
                    format!("{at}.namespaces"),
                    "namespaces cannot be given for a cluster access scope",
                ),
                "namespace" if !namespaces => report.fire(
                    format!("{at}.namespaces"),
                    "a namespace access scope needs at least one namespace",
                ),
                "cluster" | "namespace" => {}
                "" => report.fire(
                    format!("{at}.scope"),
                    "accessScope.type must be namespace or cluster",
                ),
                other => report.fire(
                    format!("{at}.scope"),
                    format!("`{other}` is not an access scope type (namespace, cluster)"),
                ),
            }
        }
    }
}

/// Whether `principal` is the ARN of the IAM role called `role` (a NodeClass names its
/// role by name; a role's ARN may carry a path: `role/path/name`).
fn names_role(principal: &str, role: &str) -> bool {
    let resource = principal.splitn(6, ':').nth(5).unwrap_or("");
    resource.starts_with("role/") && resource.rsplit('/').next() == Some(role)
}

fn auto_mode_node_role_without_access_entry(context: &Context<'_>, report: &mut Report<'_>) {
    let spec = context.spec;
    if !spec.cluster.auto_mode_enabled() {
        return;
    }
    let entries = access(context)
        .map(|access| access.access_entries.as_slice())
        .unwrap_or_default();
    for (index, class) in spec.auto_mode_pools.node_classes.iter().enumerate() {
        let Some(role) = class.spec.role.as_deref().map(str::trim) else {
            continue;
        };
        if role.is_empty() || role.starts_with("PLACEHOLDER_") {
            continue;
        }
        // The cluster's own Auto Mode node role gets its entry from EKS.
        let cluster_role = spec.cluster.auto_mode.as_ref().is_some_and(|auto| {
            names_role(&auto.node_role_arn, role) || auto.node_role_arn == role
        });
        if cluster_role {
            continue;
        }
        let entry = entries
            .iter()
            .find(|entry| names_role(&entry.principal_arn, role) || entry.principal_arn == role);
        let message = match entry {
            None => format!(
                "NodeClass `{}` launches nodes with role `{role}`, which has no access entry here: without one of type EC2 its nodes cannot join the cluster",
                class.metadata.name
            ),
            Some(entry) if entry.entry_type != "EC2" => format!(
                "NodeClass `{}` launches nodes with role `{role}`, whose access entry is of type {}, not EC2: its nodes cannot join the cluster",
                class.metadata.name,
                if entry.entry_type.is_empty() {
                    "STANDARD"
                } else {
                    entry.entry_type.as_str()
                }
            ),
            Some(_) => continue,
        };
        report.fire(NodeClass::ROLE.at(&[index]), message);
    }
}
