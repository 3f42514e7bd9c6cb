//! Keys an imported `ClusterConfig` kept that eksctl does not know: the design keeps them
//! (nothing the user wrote is dropped), and eksctl refuses a file that has them. Checked on
//! the spec, so the page says so after an import, against a table of the keys eksctl's
//! schema allows (`shared/data/schemas/eksctl-keys.json`, derived from the schema by a
//! test) rather than the schema itself, which the page does not carry.

use crate::fields;
use std::sync::OnceLock;

use yaml_serde::{Mapping, Value};

use super::{Check, Context, Report, Rule, Severity, Stage};
use crate::yaml::source::mapping_key_text;

pub(super) static RULES: &[Rule] = &[
    Rule {
        id: "eksctl-unknown-field",
        severity: Severity::Error,
        summary: super::described(
            "an imported ClusterConfig has a field eksctl does not know (a typo, or a newer eksctl's)",
        ),
        help: "fix the field's name; eksctl refuses any field its ClusterConfig schema does not have",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/assets/schema.json; eksctl reads config files strictly (UnmarshalStrict)",
        ),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(eksctl_unknown_field),
    },
    Rule {
        id: "eksctl-field-dropped",
        severity: Severity::Error,
        summary: super::described(
            "an imported ClusterConfig has a field eksctl accepts and drops: a known one in another case (`cloudwatch`), or an unknown one inside an identity provider",
        ),
        help: "spell the field as eksctl does; until then the cluster does not get what it says",
        reference: super::described(
            "eksctl pkg/eks/api.go ParseConfig: UnmarshalStrict (Go's JSON decoder, which matches field names whatever their case) then runtime.Decode (case-sensitive, drops what it does not know)",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(eksctl_field_dropped_by_case),
    },
    Rule {
        id: "karpenter-unknown-field",
        severity: Severity::Error,
        summary: super::described(
            "an imported NodePool or EC2NodeClass has a field its CRD does not have (a typo, or a newer Karpenter's)",
        ),
        help: "fix the field's name; kubectl apply refuses unknown fields (strict field validation), and the API server drops them otherwise",
        reference: super::described(
            "karpenter-provider-aws pkg/apis/crds (Karpenter 1.14); kubectl --validate=strict",
        ),
        live: false,
        stage: Stage::ApiServer,
        check: Check::Spec(karpenter_unknown_field),
    },
];

/// An embedded key table, read once: `{key: subtree}` for objects, `0` where any value goes.
/// Read with the studio's YAML reader (JSON is YAML), which the page holds anyway, so the
/// page carries no second JSON parser for it.
fn parsed(cell: &'static OnceLock<Value>, text: &'static str) -> &'static Value {
    cell.get_or_init(|| {
        crate::yaml::source::parse_documents(text)
            .ok()
            .and_then(|mut documents| documents.pop())
            .map(|document| document.to_value())
            .expect("the key tables are JSON (tested)")
    })
}

/// The Karpenter key trees, `{"NodePool": tree, "EC2NodeClass": tree}`.
fn karpenter_key_table() -> &'static Value {
    static TABLE: OnceLock<Value> = OnceLock::new();
    parsed(
        &TABLE,
        include_str!("../../data/schemas/karpenter-keys.json"),
    )
}

fn karpenter_unknown_field(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(karpenter) = &context.spec.karpenter else {
        return;
    };
    let table = karpenter_key_table();
    let pool_keys = &table["NodePool"];
    for (index, pool) in karpenter.node_pools.iter().enumerate() {
        let at = fields::item(fields::KARPENTER_POOL, &[index]);
        check_mapping(&pool.extra, pool_keys, &at, report);
        check_mapping(&pool.spec.extra, &pool_keys["spec"], &at, report);
        let template = &pool_keys["spec"]["template"];
        check_mapping(&pool.spec.template.extra, template, &at, report);
        if let Some(metadata) = &pool.spec.template.metadata {
            check_mapping(&metadata.extra, &template["metadata"], &at, report);
        }
        let spec = &pool.spec.template.spec;
        check_mapping(&spec.extra, &template["spec"], &at, report);
        check_mapping(
            &spec.node_class_ref.extra,
            &template["spec"]["nodeClassRef"],
            &at,
            report,
        );
        for requirement in &spec.requirements {
            check_mapping(
                &requirement.extra,
                &template["spec"]["requirements"],
                &at,
                report,
            );
        }
        for taint in &spec.taints {
            check_mapping(&taint.extra, &template["spec"]["taints"], &at, report);
        }
        if let Some(disruption) = &pool.spec.disruption {
            let disruption_keys = &pool_keys["spec"]["disruption"];
            check_mapping(&disruption.extra, disruption_keys, &at, report);
            for budget in &disruption.budgets {
                check_mapping(&budget.extra, &disruption_keys["budgets"], &at, report);
            }
        }
    }
    let class_keys = &table["EC2NodeClass"];
    for (index, class) in karpenter.node_classes.iter().enumerate() {
        let at = fields::item(fields::NODE_CLASS_ITEM, &[index]);
        check_mapping(&class.extra, class_keys, &at, report);
        let spec = &class_keys["spec"];
        check_mapping(&class.spec.extra, spec, &at, report);
        for interface in &class.spec.network_interfaces {
            check_mapping(&interface.extra, &spec["networkInterfaces"], &at, report);
        }
        let lists: [(&str, &[crate::upstream::karpenter::SelectorTerm]); 4] = [
            ("amiSelectorTerms", &class.spec.ami_selector_terms),
            ("subnetSelectorTerms", &class.spec.subnet_selector_terms),
            (
                "securityGroupSelectorTerms",
                &class.spec.security_group_selector_terms,
            ),
            (
                "capacityReservationSelectorTerms",
                &class.spec.capacity_reservation_selector_terms,
            ),
        ];
        for (list, terms) in lists {
            for (term_index, term) in terms.iter().enumerate() {
                check_mapping(&term.extra, &spec[list], &at, report);
                // The studio models one term for every list; each list's CRD allows
                // only some of its fields (a subnet term has no `name` or `alias`).
                for field in term.fields_given() {
                    if spec[list].get(field).is_none() {
                        report.fire(
                            format!("{at}.spec.{list}[{term_index}]"),
                            format!(
                                "a {list} term cannot have `{field}`: its CRD has no such field, and kubectl apply refuses it"
                            ),
                        );
                    }
                }
            }
        }
    }
}

/// The ClusterConfig key tree.
fn key_table() -> &'static Value {
    static TABLE: OnceLock<Value> = OnceLock::new();
    parsed(&TABLE, include_str!("../../data/schemas/eksctl-keys.json"))
}

fn eksctl_unknown_field(context: &Context<'_>, report: &mut Report<'_>) {
    eksctl_fields(context, report, false);
}

fn eksctl_field_dropped_by_case(context: &Context<'_>, report: &mut Report<'_>) {
    eksctl_fields(context, report, true);
}

/// The ClusterConfig keys the design kept: unknown ones, or (`case_variants`) those that
/// are a known key in another case.
fn eksctl_fields(context: &Context<'_>, report: &mut Report<'_>, case_variants: bool) {
    let table = key_table();
    walk(&context.spec.eksctl_extra, table, "", report, case_variants);
    for (index, group) in context.spec.node_groups.iter().enumerate() {
        walk(
            &group.extra,
            &table["managedNodeGroups"],
            &fields::item(fields::NODE_GROUP_ITEM, &[index]),
            report,
            case_variants,
        );
    }
    for (index, addon) in context.spec.addons.iter().enumerate() {
        walk(
            &addon.extra,
            &table["addons"],
            &fields::item(fields::ADDON_ITEM, &[index]),
            report,
            case_variants,
        );
    }
}

/// Reports each key of `mapping` the `allowed` tree does not have, and looks inside the
/// ones it has. `at` is the spec path the findings go to: the object the keys are in.
fn check_mapping(mapping: &Mapping, allowed: &Value, at: &str, report: &mut Report<'_>) {
    walk(mapping, allowed, at, report, false);
}

/// [`check_mapping`], or with `case_variants` only the keys of a ClusterConfig that are a
/// known key in another case: eksctl's strict pass matches field names whatever their
/// case (Go's JSON decoder) and accepts them, its decode then drops them. Karpenter's API
/// server matches case exactly: there a key in another case is an unknown key.
fn walk(
    mapping: &Mapping,
    allowed: &Value,
    at: &str,
    report: &mut Report<'_>,
    case_variants: bool,
) {
    let Value::Mapping(keys) = allowed else {
        return;
    };
    let known_keys = || keys.keys().filter_map(Value::as_str);
    let eksctl = !at.starts_with("karpenter");
    for (key, value) in mapping {
        let Some(key) = mapping_key_text(key) else {
            continue;
        };
        let known_in_another_case = || known_keys().find(|known| known.eq_ignore_ascii_case(&key));
        match keys.get(key.as_str()) {
            // eksctl reads identity providers with Go's plain decoder (identity_provider.go):
            // another case of a known key is read as it, an unknown key is ignored.
            None if eksctl && at.starts_with("identityProviders") => {
                if case_variants && known_in_another_case().is_none() {
                    report.fire(
                        at,
                        format!(
                            "identity providers have no field `{key}`: eksctl reads them with a decoder that ignores fields it does not know, so it accepts the file and drops the field"
                        ),
                    );
                }
            }
            None if eksctl && known_in_another_case().is_some() => {
                if case_variants {
                    let known = known_in_another_case().unwrap_or_default();
                    let place = if at.is_empty() {
                        String::new()
                    } else {
                        format!(" in {at}")
                    };
                    report.fire(
                        if at.is_empty() { "cluster" } else { at },
                        format!(
                            "`{key}`{place} is eksctl's `{known}` in another case: eksctl accepts the file (its strict check matches field names whatever their case), then drops the field, so the cluster does not get it"
                        ),
                    );
                }
            }
            None if case_variants => {}
            None => {
                let suggestion = crate::upstream::schema_check::closest_key(&key, known_keys())
                    .map(|known| format!(" (did you mean `{known}`?)"))
                    .unwrap_or_default();
                let place = if at.is_empty() {
                    String::new()
                } else {
                    format!(" in {at}")
                };
                let (tool, refusal) = if at.starts_with("karpenter") {
                    (
                        "its CRD does not have the field",
                        "kubectl apply refuses it",
                    )
                } else {
                    ("eksctl does not know the field", "eksctl refuses the file")
                };
                report.fire(
                    if at.is_empty() { "cluster" } else { at },
                    format!(
                        "{tool} `{key}`{place}{suggestion}: the design keeps it, and {refusal}"
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
                        walk(inner_mapping, subtree, &inner, report, case_variants)
                    }
                    Value::Sequence(items) => {
                        for item in items {
                            if let Value::Mapping(item) = item {
                                walk(item, subtree, &inner, report, case_variants);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}
