//! The inputs of one NodePool and of its requirements, taints and disruption budgets,
//! shared by the Karpenter step's pools and the Cluster step's EKS Auto Mode pools.

use leptos::prelude::*;
use shared::upstream::karpenter::{Budget, Disruption, NodePool, Requirement, Taint, TemplateMeta};
use shared::{model::items, upstream::karpenter};

use crate::state::step::field_id;
use crate::widgets::bind::{Bound, Rows, field};
use crate::widgets::fields::{
    FieldFindings, ListField, NumberField, OptionalTextField, SelectField, TextField, options,
};

/// Items of a list field (a plain name, as `view!` attribute closures need).
type Items = Vec<String>;

pub(crate) fn optional(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}

/// Every operator a requirement may use, each named by itself.
fn operator_options() -> Vec<(String, String)> {
    karpenter::OPERATORS
        .iter()
        .map(|operator| (operator.to_string(), operator.to_string()))
        .collect()
}

/// One requirement's inputs: key (suggested from the datalist `keys`), operator, values,
/// min values.
fn requirement_fields(requirement: Bound<Requirement>, keys: &'static str) -> impl IntoView {
    // A label in MiB (memory, GPU memory) says so, and offers to write a size typed in Gi.
    let note = requirement.get(|requirement| {
        shared::upstream::matching::unit_note(&requirement.key, &requirement.values)
    });
    let convert = requirement.clone();
    let unit = move || {
        note.get().map(|note| {
            let convert = convert.clone();
            let button = note.in_mebibytes.map(|values| {
                view! {
                    <button
                        type="button"
                        on:click=move |_| {
                            let values = values.clone();
                            convert.write(|requirement| requirement.values = values.into());
                        }
                    >
                        "Write in MiB"
                    </button>
                }
            });
            view! {
                <p class="hint unit-note">
                    {crate::widgets::prose::with_code(note.words)}
                    " "
                    {button}
                </p>
            }
        })
    };
    view! {
        <TextField
            at=requirement.place(Requirement::KEY)
            suggestions=keys
            value=requirement.get(|requirement| requirement.key.clone())
            set=requirement.set(|requirement, key| requirement.key = key)
        />
        <SelectField
            at=requirement.place(Requirement::OPERATOR)
            options=operator_options()
            value=requirement.get(|requirement| requirement.operator.clone())
            set=requirement.set(|requirement, operator| requirement.operator = operator)
        />
        <ListField
            at=requirement.place(Requirement::VALUES)
            placeholder="on-demand, spot"
            value=requirement.get(|requirement| requirement.values.to_vec())
            set=requirement.set(|requirement, values: Items| requirement.values = values.into())
        />
        <NumberField
            at=requirement.place(Requirement::MIN_VALUES)
            value=requirement.get(|requirement| requirement.min_values)
            set=requirement.set(|requirement, min| requirement.min_values = min)
        />
        {unit}
    }
}

/// A requirement of a Karpenter NodePool or NodeOverlay (Karpenter's label keys).
pub(crate) fn requirement_row(requirement: Bound<Requirement>) -> impl IntoView {
    requirement_fields(requirement, "requirement-keys")
}

/// One taint's inputs: key, value, effect.
pub(crate) fn taint_row(taint: Bound<Taint>) -> impl IntoView {
    view! {
        <TextField
            at=taint.place(Taint::KEY)
            value=taint.get(|taint| taint.key.clone())
            set=taint.set(|taint, key| taint.key = key)
        />
        <TextField
            at=taint.place(Taint::VALUE)
            value=taint.get(|taint| taint.value.clone().unwrap_or_default())
            set=taint.set(|taint, value| taint.value = optional(value))
        />
        <SelectField
            at=taint.place(Taint::EFFECT)
            options=options(&[
                ("NoSchedule", "NoSchedule"),
                ("PreferNoSchedule", "PreferNoSchedule"),
                ("NoExecute", "NoExecute"),
            ])
            value=taint.get(|taint| taint.effect.clone())
            set=taint.set(|taint, effect| taint.effect = effect)
        />
    }
}

/// One disruption budget's inputs.
pub(crate) fn budget_row(budget: Bound<Budget>) -> impl IntoView {
    view! {
        <TextField
            at=budget.place(Budget::NODES)
            placeholder="10%"
            value=budget.get(|budget| budget.nodes.clone())
            set=budget.set(|budget, nodes| budget.nodes = nodes)
        />
        <ListField
            at=budget.place(Budget::REASONS)
            placeholder="Underutilized, Empty, Drifted"
            value=budget.get(|budget| budget.reasons.to_vec())
            set=budget.set(|budget, reasons: Items| budget.reasons = reasons.into())
        />
        <TextField
            at=budget.place(Budget::SCHEDULE)
            placeholder="0 9 * * mon-fri"
            value=budget.get(|budget| budget.schedule.clone().unwrap_or_default())
            set=budget.set(|budget, schedule| budget.schedule = optional(schedule))
        />
        <TextField
            at=budget.place(Budget::DURATION)
            placeholder="8h"
            value=budget.get(|budget| budget.duration.clone().unwrap_or_default())
            set=budget.set(|budget, duration| budget.duration = optional(duration))
        />
    }
}

/// One NodePool's inputs, for Karpenter's pools and EKS Auto Mode's alike: they are the
/// same `karpenter.sh/v1` object, told apart by the group of their node class.
#[component]
pub(crate) fn NodePoolFields(
    /// The pool.
    pool: Bound<NodePool>,
    /// Its place in its list, from 1.
    number: usize,
    /// The datalist of node class names its class field suggests.
    class_names: &'static str,
    /// An EKS Auto Mode pool: Auto Mode's label keys, no static node count.
    auto_mode: bool,
    /// What it launches, shown under its requirements.
    #[prop(optional)]
    types: Option<AnyView>,
    /// Removes it.
    #[prop(into)]
    remove: Callback<()>,
) -> impl IntoView {
    let disruption = pool.then(
        NodePool::DISRUPTION.key,
        |pool| pool.spec.disruption.as_ref(),
        |pool| pool.spec.disruption.as_mut(),
    );
    // Writes the disruption block, creating it when needed and dropping it when empty.
    let write_disruption = {
        let pool = pool.clone();
        move |change: Box<dyn FnOnce(&mut Disruption)>| {
            pool.write(|pool| {
                change(pool.spec.disruption.get_or_insert_with(Disruption::default));
                if pool.spec.disruption.as_ref() == Some(&Disruption::default()) {
                    pool.spec.disruption = None;
                }
            })
        }
    };
    let set_policy = write_disruption.clone();
    let set_after = write_disruption.clone();
    let add_requirement = pool.clone();
    let add_taint = pool.clone();
    let title = pool.get(move |pool| format!("NodePool {number}: {}", pool.metadata.name));
    let replicas = pool.clone();
    let base = pool.path().to_owned();
    let keys = if auto_mode {
        "auto-mode-requirement-keys"
    } else {
        "requirement-keys"
    };
    view! {
        <fieldset class="group" id=field_id(&base) tabindex="-1">
            <legend>{title}</legend>
            <div class="grid">
                <TextField
                    at=pool.place(NodePool::NAME)
                    value=pool.get(|pool| pool.metadata.name.clone())
                    set=pool.set(|pool, name| pool.metadata.name = name)
                />
                <TextField
                    at=pool.place(NodePool::NODE_CLASS_REF_NAME)
                    suggestions=class_names
                    value=pool.get(|pool| pool.spec.template.spec.node_class_ref.name.clone())
                    set=pool.set(|pool, name| pool.spec.template.spec.node_class_ref.name = name)
                />
                <Show when=move || !auto_mode>
                    <NumberField
                        at=replicas.place(NodePool::REPLICAS)
                        value=replicas.get(|pool| pool.spec.replicas.map(|count| u32::try_from(count).unwrap_or(u32::MAX)))
                        set=replicas.set(|pool, count: Option<u32>| pool.spec.replicas = count.map(u64::from))
                    />
                </Show>
                <NumberField
                    at=pool.place(NodePool::WEIGHT)
                    value=pool.get(|pool| pool.spec.weight)
                    set=pool.set(|pool, weight| pool.spec.weight = weight)
                />
                <OptionalTextField
                    at=pool.place(NodePool::EXPIRE_AFTER)
                    placeholder="720h or Never"
                    value=pool.get(|pool| pool.spec.template.spec.expire_after.clone())
                    set=pool.set(|pool, after| pool.spec.template.spec.expire_after = after)
                />
            </div>
            <ListField
                at=pool.place(NodePool::NODE_LABELS)
                placeholder="team=ml, workload=inference"
                value=pool.get(|pool| {
                    pool.spec.template.metadata.as_ref().map(|meta| items::map_to_items(&meta.labels)).unwrap_or_default()
                })
                set=pool.set(|pool, labels: Items| {
                    let labels = items::items_to_map(&labels);
                    match &mut pool.spec.template.metadata {
                        Some(meta) => *meta.labels = labels,
                        None if labels.is_empty() => {}
                        None => {
                            pool.spec.template.metadata = Some(TemplateMeta { labels: labels.into(), ..TemplateMeta::default() });
                        }
                    }
                })
            />
            <h4>"Requirements"</h4>
            <FieldFindings path=pool.place(NodePool::REQUIREMENTS).path />
            {types}
            <Rows
                list=field!(pool, spec.template.spec.requirements)
                noun="Requirement"
                class="requirement"
                row=move |requirement| requirement_fields(requirement, keys)
                add_label="Add requirement"
                add=move || add_requirement.write(|pool| {
                    pool.spec.template.spec.requirements.push(Requirement::new("", "In", &[]));
                })
            />
            <h4>"Taints"</h4>
            <Rows
                list=pool.then(
                    NodePool::POOL_TAINTS.key,
                    |pool| Some(&*pool.spec.template.spec.taints),
                    |pool| Some(&mut *pool.spec.template.spec.taints),
                )
                noun="Taint"
                class="taint"
                row=taint_row
                add_label="Add taint"
                add=move || add_taint.write(|pool| {
                    pool.spec.template.spec.taints.push(Taint { effect: "NoSchedule".into(), ..Taint::default() });
                })
            />
            <h4>"Limits and disruption"</h4>
            <ListField
                at=pool.place(NodePool::LIMITS)
                placeholder="cpu=1000, nvidia.com/gpu=64"
                value=pool.get(|pool| items::limits_to_items(&pool.spec.limits))
                set=pool.set(|pool, items| pool.spec.limits = items::items_to_limits(items).into())
            />
            <div class="grid">
                <SelectField
                    at=pool.place(NodePool::CONSOLIDATION_POLICY)
                    options=options(&[
                        ("", "not set (WhenEmptyOrUnderutilized)"),
                        ("WhenEmpty", "WhenEmpty"),
                        ("WhenEmptyOrUnderutilized", "WhenEmptyOrUnderutilized"),
                        ("Balanced", "Balanced"),
                    ])
                    value=disruption.get(|disruption| disruption.consolidation_policy.clone().unwrap_or_default())
                    set=move |policy: String| set_policy(Box::new(move |disruption| {
                        disruption.consolidation_policy = optional(policy);
                    }))
                />
                <OptionalTextField
                    at=pool.place(NodePool::CONSOLIDATE_AFTER)
                    placeholder="5m or Never"
                    value=disruption.get(|disruption| disruption.consolidate_after.clone())
                    set=move |after| set_after(Box::new(move |disruption| disruption.consolidate_after = after))
                />
            </div>
            <FieldFindings path=pool.place(NodePool::DISRUPTION).path />
            <FieldFindings path=pool.place(NodePool::BUDGETS).path />
            <Rows
                list=disruption.then(
                    "budgets",
                    |disruption| Some(&*disruption.budgets),
                    |disruption| Some(&mut *disruption.budgets),
                )
                noun="Budget"
                class="budget"
                row=budget_row
                add_label="Add disruption budget"
                add=move || write_disruption(Box::new(|disruption| {
                    disruption.budgets.push(Budget { nodes: "10%".into(), ..Budget::default() });
                }))
            />
            <FieldFindings path=base.clone() />
            <button type="button" class="remove" on:click=move |_| remove.run(())>
                {format!("Remove NodePool {number}")}
            </button>
        </fieldset>
    }
}
