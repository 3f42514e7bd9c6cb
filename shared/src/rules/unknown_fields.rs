//! Keys an imported `ClusterConfig` kept that eksctl does not know: the design keeps them
//! (nothing the user wrote is dropped), and eksctl refuses a file that has them. Checked on
//! the spec, so the page says so after an import, against a table of the keys eksctl's
//! schema allows (`shared/data/schemas/eksctl-keys.json`, derived from the schema by a
//! test) rather than the schema itself, which the page does not carry.

use std::sync::OnceLock;

use serde_json::Value as Json;
use serde_yaml::{Mapping, Value};

use super::{Check, Context, Report, Rule, Severity, Stage};
use crate::yaml_source::mapping_key_text;

pub(super) static RULES: &[Rule] = &[Rule {
    id: "eksctl-unknown-field",
    severity: Severity::Error,
    summary: "an imported ClusterConfig has a field eksctl does not know (a typo, or a newer eksctl's)",
    help: "fix the field's name; eksctl refuses any field its ClusterConfig schema does not have",
    reference: "eksctl pkg/apis/eksctl.io/v1alpha5/assets/schema.json; eksctl reads config files strictly (UnmarshalStrict)",
    live: false,
    stage: Stage::EksctlValidation,
    check: Check::Spec(eksctl_unknown_field),
}];

/// The key tree: `{key: subtree}` for objects, `0` where any value goes.
fn key_table() -> &'static Json {
    static TABLE: OnceLock<Json> = OnceLock::new();
    TABLE.get_or_init(|| {
        serde_json::from_str(include_str!("../../data/schemas/eksctl-keys.json"))
            .expect("the key table is JSON (tested)")
    })
}

fn eksctl_unknown_field(context: &Context<'_>, report: &mut Report<'_>) {
    let table = key_table();
    check_mapping(&context.spec.eksctl_extra, table, "", report);
    for (index, group) in context.spec.node_groups.iter().enumerate() {
        check_mapping(
            &group.extra,
            &table["managedNodeGroups"],
            &format!("node_groups[{index}]"),
            report,
        );
    }
    for (index, addon) in context.spec.addons.iter().enumerate() {
        check_mapping(
            &addon.extra,
            &table["addons"],
            &format!("addons[{index}]"),
            report,
        );
    }
}

/// Reports each key of `mapping` the `allowed` tree does not have, and looks inside the
/// ones it has. `at` is the spec path the findings go to: the object the keys are in.
fn check_mapping(mapping: &Mapping, allowed: &Json, at: &str, report: &mut Report<'_>) {
    let Json::Object(keys) = allowed else {
        return;
    };
    for (key, value) in mapping {
        let Some(key) = mapping_key_text(key) else {
            continue;
        };
        match keys.get(&key) {
            None => {
                let suggestion = crate::schema_check::closest_key(&key, keys.keys())
                    .map(|known| format!(" (did you mean `{known}`?)"))
                    .unwrap_or_default();
                let place = if at.is_empty() {
                    String::new()
                } else {
                    format!(" in {at}")
                };
                report.fire(
                    if at.is_empty() { "cluster" } else { at },
                    format!(
                        "eksctl does not know the field `{key}`{place}{suggestion}: the design keeps it, and eksctl refuses the file"
                    ),
                );
            }
            Some(subtree) => {
                let inner = if at.is_empty() {
                    key.clone()
                } else {
                    format!("{at}.{key}")
                };
                match value {
                    Value::Mapping(inner_mapping) => {
                        check_mapping(inner_mapping, subtree, &inner, report)
                    }
                    Value::Sequence(items) => {
                        for item in items {
                            if let Value::Mapping(item) = item {
                                check_mapping(item, subtree, &inner, report);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}
