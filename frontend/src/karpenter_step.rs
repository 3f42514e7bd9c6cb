//! Karpenter's own objects are edited as they are written: a NodePool *is* the user's
//! intent, so the inputs map one to one onto `shared::karpenter`'s fields, and the paths
//! of the findings (`karpenter.node_pools[0].spec.template.spec.requirements[2].values`)
//! name the same fields.

use leptos::prelude::*;
use shared::karpenter::{
    Budget, Disruption, Ec2NodeClass, NodePool, Requirement, SelectorTerm, Taint, TemplateMeta,
};
use shared::spec::KarpenterSettings;
use shared::{items, karpenter};

use crate::fields::{
    CheckboxField, FieldFindings, ListField, NumberField, OptionalTextField, SelectField,
    TextField, options,
};
use crate::{Step, StepHeading, Studio, field_id};

/// Items of a list field (a plain name, as `view!` attribute closures need).
type Items = Vec<String>;

fn read_pool<T: Default>(studio: Studio, index: usize, read: impl FnOnce(&NodePool) -> T) -> T {
    studio.karpenter(|karpenter| {
        karpenter
            .node_pools
            .get(index)
            .map(read)
            .unwrap_or_default()
    })
}

fn write_pool(studio: Studio, index: usize, write: impl FnOnce(&mut NodePool)) {
    studio.update_karpenter(|karpenter| {
        if let Some(pool) = karpenter.node_pools.get_mut(index) {
            write(pool);
        }
    });
}

fn read_class<T: Default>(
    studio: Studio,
    index: usize,
    read: impl FnOnce(&Ec2NodeClass) -> T,
) -> T {
    studio.karpenter(|karpenter| {
        karpenter
            .node_classes
            .get(index)
            .map(read)
            .unwrap_or_default()
    })
}

fn write_class(studio: Studio, index: usize, write: impl FnOnce(&mut Ec2NodeClass)) {
    studio.update_karpenter(|karpenter| {
        if let Some(class) = karpenter.node_classes.get_mut(index) {
            write(class);
        }
    });
}

/// Every operator a requirement may use, each named by itself.
fn operator_options() -> Vec<(String, String)> {
    karpenter::OPERATORS
        .iter()
        .map(|operator| (operator.to_string(), operator.to_string()))
        .collect()
}

/// One requirement row: key, operator, values.
#[component]
fn RequirementRow(pool: usize, index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let base = format!("karpenter.node_pools[{pool}].spec.template.spec.requirements[{index}]");
    let read = move |field: fn(&Requirement) -> String| {
        Signal::derive(move || {
            read_pool(studio, pool, |node_pool| {
                node_pool
                    .spec
                    .template
                    .spec
                    .requirements
                    .get(index)
                    .map(field)
                    .unwrap_or_default()
            })
        })
    };
    let write = move |change: Box<dyn FnOnce(&mut Requirement)>| {
        write_pool(studio, pool, |node_pool| {
            if let Some(requirement) = node_pool.spec.template.spec.requirements.get_mut(index) {
                change(requirement);
            }
        })
    };
    view! {
        <fieldset class="row requirement" id=field_id(&base) tabindex="-1">
            <legend>{format!("Requirement {}", index + 1)}</legend>
            <TextField
                label="Key"
                path=format!("{base}.key")
                suggestions="requirement-keys"
                value=read(|requirement| requirement.key.clone())
                set=move |key| write(Box::new(move |requirement| requirement.key = key))
            />
            <SelectField
                label="Operator"
                path=format!("{base}.operator")
                options=operator_options()
                value=read(|requirement| requirement.operator.clone())
                set=move |operator| write(Box::new(move |requirement| requirement.operator = operator))
            />
            <ListField
                label="Values"
                path=format!("{base}.values")
                placeholder="on-demand, spot"
                value=Signal::derive(move || {
                    read_pool(studio, pool, |node_pool| {
                        node_pool.spec.template.spec.requirements.get(index).map(|requirement| requirement.values.to_vec()).unwrap_or_default()
                    })
                })
                set={move |values: Vec<String>| write(Box::new(move |requirement| requirement.values = values.into()))}
            />
            <NumberField
                label="Min values"
                path=format!("{base}.minValues")
                value=Signal::derive(move || {
                    read_pool(studio, pool, |node_pool| {
                        node_pool.spec.template.spec.requirements.get(index).and_then(|requirement| requirement.min_values)
                    })
                })
                set=move |min| write(Box::new(move |requirement| requirement.min_values = min))
            />
            <FieldFindings path=base.clone() />
            <button
                type="button"
                class="remove"
                on:click=move |_| write_pool(studio, pool, |node_pool| {
                    let requirements = &mut node_pool.spec.template.spec.requirements;
                    if index < requirements.len() {
                        requirements.remove(index);
                    }
                })
            >
                {format!("Remove requirement {}", index + 1)}
            </button>
        </fieldset>
    }
}

/// One taint row: key, value, effect.
#[component]
fn TaintRow(pool: usize, index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let base = format!("karpenter.node_pools[{pool}].spec.template.spec.taints[{index}]");
    let read_taint = move |read: fn(&Taint) -> String| {
        Signal::derive(move || {
            read_pool(studio, pool, |node_pool| {
                node_pool
                    .spec
                    .template
                    .spec
                    .taints
                    .get(index)
                    .map(read)
                    .unwrap_or_default()
            })
        })
    };
    let write = move |change: Box<dyn FnOnce(&mut Taint)>| {
        write_pool(studio, pool, |node_pool| {
            if let Some(taint) = node_pool.spec.template.spec.taints.get_mut(index) {
                change(taint);
            }
        })
    };
    view! {
        <fieldset class="row taint" id=field_id(&base) tabindex="-1">
            <legend>{format!("Taint {}", index + 1)}</legend>
            <TextField
                label="Taint key"
                path=format!("{base}.key")
                value=read_taint(|taint| taint.key.clone())
                set=move |key| write(Box::new(move |taint| taint.key = key))
            />
            <TextField
                label="Taint value"
                path=format!("{base}.value")
                value=read_taint(|taint| taint.value.clone().unwrap_or_default())
                set=move |value: String| write(Box::new(move |taint| taint.value = (!value.is_empty()).then_some(value)))
            />
            <SelectField
                label="Effect"
                path=format!("{base}.effect")
                options=options(&[
                    ("NoSchedule", "NoSchedule"),
                    ("PreferNoSchedule", "PreferNoSchedule"),
                    ("NoExecute", "NoExecute"),
                ])
                value=read_taint(|taint| taint.effect.clone())
                set=move |effect| write(Box::new(move |taint| taint.effect = effect))
            />
            <button
                type="button"
                class="remove"
                on:click=move |_| write_pool(studio, pool, |node_pool| {
                    let taints = &mut node_pool.spec.template.spec.taints;
                    if index < taints.len() {
                        taints.remove(index);
                    }
                })
            >
                {format!("Remove taint {}", index + 1)}
            </button>
        </fieldset>
    }
}

/// One disruption budget row.
#[component]
fn BudgetRow(pool: usize, index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let base = format!("karpenter.node_pools[{pool}].spec.disruption.budgets[{index}]");
    let read_budget = move |read: fn(&Budget) -> String| {
        Signal::derive(move || {
            read_pool(studio, pool, |node_pool| {
                node_pool
                    .spec
                    .disruption
                    .as_ref()
                    .and_then(|disruption| disruption.budgets.get(index))
                    .map(read)
                    .unwrap_or_default()
            })
        })
    };
    let write = move |change: Box<dyn FnOnce(&mut Budget)>| {
        write_pool(studio, pool, |node_pool| {
            if let Some(budget) = node_pool
                .spec
                .disruption
                .as_mut()
                .and_then(|disruption| disruption.budgets.get_mut(index))
            {
                change(budget);
            }
        })
    };
    let optional = |text: String| (!text.is_empty()).then_some(text);
    view! {
        <fieldset class="row budget" id=field_id(&base) tabindex="-1">
            <legend>{format!("Budget {}", index + 1)}</legend>
            <TextField
                label="Nodes"
                path=format!("{base}.nodes")
                placeholder="10%"
                value=read_budget(|budget| budget.nodes.clone())
                set=move |nodes| write(Box::new(move |budget| budget.nodes = nodes))
            />
            <ListField
                label="Reasons"
                path=format!("{base}.reasons")
                placeholder="Underutilized, Empty, Drifted"
                value=Signal::derive(move || {
                    read_pool(studio, pool, |node_pool| {
                        node_pool
                            .spec
                            .disruption
                            .as_ref()
                            .and_then(|disruption| disruption.budgets.get(index))
                            .map(|budget| budget.reasons.to_vec())
                            .unwrap_or_default()
                    })
                })
                set={move |reasons: Vec<String>| write(Box::new(move |budget| budget.reasons = reasons.into()))}
            />
            <TextField
                label="Schedule (cron)"
                path=format!("{base}.schedule")
                placeholder="0 9 * * mon-fri"
                value=read_budget(|budget| budget.schedule.clone().unwrap_or_default())
                set=move |schedule: String| write(Box::new(move |budget| budget.schedule = optional(schedule)))
            />
            <TextField
                label="Duration"
                path=format!("{base}.duration")
                placeholder="8h"
                value=read_budget(|budget| budget.duration.clone().unwrap_or_default())
                set=move |duration: String| write(Box::new(move |budget| budget.duration = optional(duration)))
            />
            <button
                type="button"
                class="remove"
                on:click=move |_| write_pool(studio, pool, |node_pool| {
                    if let Some(disruption) = node_pool.spec.disruption.as_mut()
                        && index < disruption.budgets.len()
                    {
                        disruption.budgets.remove(index);
                    }
                })
            >
                {format!("Remove budget {}", index + 1)}
            </button>
        </fieldset>
    }
}

/// One NodePool.
#[component]
fn PoolEditor(index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let base = format!("karpenter.node_pools[{index}]");
    let claim = format!("{base}.spec.template.spec");
    let requirement_count = Memo::new(move |_| {
        read_pool(studio, index, |pool| {
            pool.spec.template.spec.requirements.len()
        })
    });
    let taint_count =
        Memo::new(move |_| read_pool(studio, index, |pool| pool.spec.template.spec.taints.len()));
    let budget_count = Memo::new(move |_| {
        read_pool(studio, index, |pool| {
            pool.spec
                .disruption
                .as_ref()
                .map_or(0, |disruption| disruption.budgets.len())
        })
    });
    let disruption_text = move |read: fn(&Disruption) -> Option<String>| {
        Signal::derive(move || {
            read_pool(studio, index, |pool| {
                pool.spec.disruption.as_ref().and_then(read)
            })
        })
    };
    let write_disruption = move |change: Box<dyn FnOnce(&mut Disruption)>| {
        write_pool(studio, index, |pool| {
            change(pool.spec.disruption.get_or_insert_with(Disruption::default));
            if pool.spec.disruption.as_ref() == Some(&Disruption::default()) {
                pool.spec.disruption = None;
            }
        })
    };
    view! {
        <fieldset class="group" id=field_id(&base) tabindex="-1">
            <legend>{move || format!("NodePool {}: {}", index + 1, read_pool(studio, index, |pool| pool.metadata.name.clone()))}</legend>
            <div class="grid">
                <TextField
                    label="NodePool name"
                    path=format!("{base}.metadata.name")
                    value=Signal::derive(move || read_pool(studio, index, |pool| pool.metadata.name.clone()))
                    set=move |name| write_pool(studio, index, |pool| pool.metadata.name = name)
                />
                <TextField
                    label="Node class"
                    path=format!("{claim}.nodeClassRef.name")
                    suggestions="node-class-names"
                    value=Signal::derive(move || read_pool(studio, index, |pool| pool.spec.template.spec.node_class_ref.name.clone()))
                    set=move |name| write_pool(studio, index, |pool| pool.spec.template.spec.node_class_ref.name = name)
                />
                <NumberField
                    label="Weight"
                    path=format!("{base}.spec.weight")
                    value=Signal::derive(move || read_pool(studio, index, |pool| pool.spec.weight))
                    set=move |weight| write_pool(studio, index, |pool| pool.spec.weight = weight)
                />
                <OptionalTextField
                    label="Expire after"
                    path=format!("{claim}.expireAfter")
                    placeholder="720h or Never"
                    value=Signal::derive(move || read_pool(studio, index, |pool| pool.spec.template.spec.expire_after.clone()))
                    set=move |after| write_pool(studio, index, |pool| pool.spec.template.spec.expire_after = after)
                />
            </div>
            <ListField
                label="Node labels"
                path=format!("{base}.spec.template.metadata.labels")
                placeholder="team=ml, workload=inference"
                value=Signal::derive(move || {
                    read_pool(studio, index, |pool| {
                        pool.spec.template.metadata.as_ref().map(|meta| items::map_to_items(&meta.labels)).unwrap_or_default()
                    })
                })
                set=move |labels: Items| write_pool(studio, index, |pool| {
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
            <FieldFindings path=format!("{claim}.requirements") />
            {move || (0..requirement_count.get()).map(|requirement| view! { <RequirementRow pool=index index=requirement /> }).collect_view()}
            <button
                type="button"
                on:click=move |_| write_pool(studio, index, |pool| {
                    pool.spec.template.spec.requirements.push(Requirement::new("", "In", &[]));
                })
            >
                "Add requirement"
            </button>
            <h4>"Taints"</h4>
            {move || (0..taint_count.get()).map(|taint| view! { <TaintRow pool=index index=taint /> }).collect_view()}
            <button
                type="button"
                on:click=move |_| write_pool(studio, index, |pool| {
                    pool.spec.template.spec.taints.push(Taint { effect: "NoSchedule".into(), ..Taint::default() });
                })
            >
                "Add taint"
            </button>
            <h4>"Limits and disruption"</h4>
            <ListField
                label="Limits"
                path=format!("{base}.spec.limits")
                placeholder="cpu=1000, nvidia.com/gpu=64"
                value=Signal::derive(move || read_pool(studio, index, |pool| items::limits_to_items(&pool.spec.limits)))
                set=move |items| write_pool(studio, index, |pool| pool.spec.limits = items::items_to_limits(items).into())
            />
            <div class="grid">
                <SelectField
                    label="Consolidation policy"
                    path=format!("{base}.spec.disruption.consolidationPolicy")
                    options=options(&[
                        ("", "not set (WhenEmptyOrUnderutilized)"),
                        ("WhenEmpty", "WhenEmpty"),
                        ("WhenEmptyOrUnderutilized", "WhenEmptyOrUnderutilized"),
                    ])
                    value=Signal::derive(move || disruption_text(|disruption| disruption.consolidation_policy.clone()).get().unwrap_or_default())
                    set=move |policy: String| write_disruption(Box::new(move |disruption| {
                        disruption.consolidation_policy = (!policy.is_empty()).then_some(policy);
                    }))
                />
                <OptionalTextField
                    label="Consolidate after"
                    path=format!("{base}.spec.disruption.consolidateAfter")
                    placeholder="5m or Never"
                    value=disruption_text(|disruption| disruption.consolidate_after.clone())
                    set=move |after| write_disruption(Box::new(move |disruption| disruption.consolidate_after = after))
                />
            </div>
            <FieldFindings path=format!("{base}.spec.disruption") />
            <FieldFindings path=format!("{base}.spec.disruption.budgets") />
            {move || (0..budget_count.get()).map(|budget| view! { <BudgetRow pool=index index=budget /> }).collect_view()}
            <button
                type="button"
                on:click=move |_| write_disruption(Box::new(|disruption| {
                    disruption.budgets.push(Budget { nodes: "10%".into(), ..Budget::default() });
                }))
            >
                "Add disruption budget"
            </button>
            <FieldFindings path=base.clone() />
            <button
                type="button"
                class="remove"
                on:click=move |_| studio.update_karpenter(|karpenter| {
                    if index < karpenter.node_pools.len() {
                        karpenter.node_pools.remove(index);
                    }
                })
            >
                {format!("Remove NodePool {}", index + 1)}
            </button>
        </fieldset>
    }
}

/// One EC2NodeClass.
#[component]
fn ClassEditor(index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let base = format!("karpenter.node_classes[{index}]");
    view! {
        <fieldset class="group" id=field_id(&base) tabindex="-1">
            <legend>{move || format!("EC2NodeClass {}: {}", index + 1, read_class(studio, index, |class| class.metadata.name.clone()))}</legend>
            <div class="grid">
                <TextField
                    label="EC2NodeClass name"
                    path=format!("{base}.metadata.name")
                    value=Signal::derive(move || read_class(studio, index, |class| class.metadata.name.clone()))
                    set=move |name| write_class(studio, index, |class| class.metadata.name = name)
                />
                <OptionalTextField
                    label="Node IAM role"
                    path=format!("{base}.spec.role")
                    placeholder="KarpenterNodeRole-my-cluster"
                    value=Signal::derive(move || read_class(studio, index, |class| class.spec.role.clone()))
                    set=move |role| write_class(studio, index, |class| class.spec.role = role)
                />
                <TextField
                    label="AMI alias"
                    path=format!("{base}.spec.amiSelectorTerms[0].alias")
                    placeholder="al2023@latest"
                    value=Signal::derive(move || {
                        read_class(studio, index, |class| {
                            class.spec.ami_selector_terms.first().and_then(|term| term.alias.clone()).unwrap_or_default()
                        })
                    })
                    set=move |alias: String| write_class(studio, index, |class| {
                        let terms = &mut class.spec.ami_selector_terms;
                        let only_one = terms.len() == 1;
                        match terms.first_mut() {
                            Some(term) if term.alias.is_some() || only_one => {
                                term.alias = (!alias.is_empty()).then_some(alias);
                            }
                            _ => terms.insert(0, SelectorTerm::alias(&alias)),
                        }
                        terms.retain(|term| *term != SelectorTerm::default());
                    })
                />
                <TextField
                    label="Subnet discovery tag (karpenter.sh/discovery)"
                    path=format!("{base}.spec.subnetSelectorTerms")
                    value=Signal::derive(move || read_class(studio, index, |class| karpenter::discovery_value(&class.spec.subnet_selector_terms)))
                    set=move |value| write_class(studio, index, |class| karpenter::set_discovery(&mut class.spec.subnet_selector_terms, value))
                />
                <TextField
                    label="Security group discovery tag (karpenter.sh/discovery)"
                    path=format!("{base}.spec.securityGroupSelectorTerms")
                    value=Signal::derive(move || {
                        read_class(studio, index, |class| karpenter::discovery_value(&class.spec.security_group_selector_terms))
                    })
                    set=move |value| {
                        write_class(studio, index, |class| karpenter::set_discovery(&mut class.spec.security_group_selector_terms, value))
                    }
                />
                <ListField
                    label="Capacity reservation IDs"
                    path=format!("{base}.spec.capacityReservationSelectorTerms")
                    placeholder="cr-0123456789abcdef0"
                    value=Signal::derive(move || {
                        read_class(studio, index, |class| {
                            class.spec.capacity_reservation_selector_terms.iter().filter_map(|term| term.id.clone()).collect()
                        })
                    })
                    set=move |ids: Items| write_class(studio, index, |class| {
                        let terms = &mut class.spec.capacity_reservation_selector_terms;
                        terms.retain(|term| term.id.is_none());
                        terms.extend(ids.iter().map(|id| SelectorTerm::id(id)));
                    })
                />
                <ListField
                    label="Capacity reservation tags (one term each)"
                    path=format!("{base}.spec.capacityReservationSelectorTerms.tags")
                    placeholder="purpose=training"
                    value=Signal::derive(move || {
                        read_class(studio, index, |class| {
                            class.spec.capacity_reservation_selector_terms.iter()
                                .filter(|term| term.id.is_none())
                                .flat_map(|term| items::map_to_items(&term.tags))
                                .collect()
                        })
                    })
                    set=move |tags: Items| write_class(studio, index, |class| {
                        let terms = &mut class.spec.capacity_reservation_selector_terms;
                        // A term's owner (ownerID) goes with its tags; keep it across edits.
                        let owner = terms.iter().find_map(|term| term.owner_id.clone());
                        terms.retain(|term| term.id.is_some());
                        terms.extend(items::items_to_map(&tags).iter().map(|(key, value)| SelectorTerm {
                            owner_id: owner.clone(),
                            ..SelectorTerm::tag(key, value)
                        }));
                    })
                />
                <TextField
                    label="Capacity reservation owner account (ownerID)"
                    path=format!("{base}.spec.capacityReservationSelectorTerms.ownerID")
                    placeholder="123456789012"
                    hint="For reservations shared from another account; applies to the tag terms."
                    value=Signal::derive(move || {
                        read_class(studio, index, |class| {
                            class.spec.capacity_reservation_selector_terms.iter()
                                .find_map(|term| term.owner_id.clone())
                                .unwrap_or_default()
                        })
                    })
                    set=move |owner: String| write_class(studio, index, |class| {
                        karpenter::set_reservation_owner(&mut class.spec.capacity_reservation_selector_terms, &owner)
                    })
                />
            </div>
            <CheckboxField
                label="Local NVMe as RAID0 (instanceStorePolicy)"
                path=format!("{base}.spec.instanceStorePolicy")
                checked=Signal::derive(move || read_class(studio, index, |class| class.spec.instance_store_policy.is_some()))
                set=move |on: bool| write_class(studio, index, |class| class.spec.instance_store_policy = on.then(|| "RAID0".to_owned()))
            />
            <FieldFindings path=format!("{base}.spec.amiSelectorTerms") nested=true />
            <FieldFindings path=base.clone() />
            <button
                type="button"
                class="remove"
                on:click=move |_| studio.update_karpenter(|karpenter| {
                    if index < karpenter.node_classes.len() {
                        karpenter.node_classes.remove(index);
                    }
                })
            >
                {format!("Remove EC2NodeClass {}", index + 1)}
            </button>
        </fieldset>
    }
}

/// Karpenter on or off; its pools, classes and controller settings.
#[component]
pub fn KarpenterStep() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let enabled = Memo::new(move |_| studio.spec.with(|spec| spec.karpenter.is_some()));
    let pool_count = Memo::new(move |_| studio.karpenter(|karpenter| karpenter.node_pools.len()));
    let class_count =
        Memo::new(move |_| studio.karpenter(|karpenter| karpenter.node_classes.len()));
    let class_names = move || {
        studio
            .karpenter(|karpenter| {
                karpenter
                    .node_classes
                    .iter()
                    .map(|class| class.metadata.name.clone())
                    .collect::<Vec<_>>()
            })
            .into_iter()
            .map(|name| view! { <option value=name></option> })
            .collect_view()
    };
    let enable = move |on: bool| {
        studio.spec.update(|spec| {
            if !on {
                spec.karpenter = None;
            } else if spec.karpenter.is_none() {
                let class = Ec2NodeClass::discovering(1, &spec.cluster.name);
                let pool = NodePool::gpu(1, &class.metadata.name);
                spec.karpenter = Some(KarpenterSettings {
                    interruption_queue: None,
                    spot_to_spot_consolidation: false,
                    node_pools: vec![pool],
                    node_classes: vec![class],
                });
            }
        })
    };
    view! {
        <section class="step" aria-labelledby="step-title-6">
            <StepHeading step=Step::Karpenter />
            <datalist id="requirement-keys">
                <option value="karpenter.sh/capacity-type"></option>
                <option value="karpenter.k8s.aws/instance-category"></option>
                <option value="karpenter.k8s.aws/instance-family"></option>
                <option value="karpenter.k8s.aws/instance-generation"></option>
                <option value="karpenter.k8s.aws/instance-gpu-memory"></option>
                <option value="karpenter.k8s.aws/instance-gpu-count"></option>
                <option value="karpenter.k8s.aws/instance-gpu-name"></option>
                <option value="node.kubernetes.io/instance-type"></option>
                <option value="kubernetes.io/arch"></option>
                <option value="topology.kubernetes.io/zone"></option>
            </datalist>
            <datalist id="node-class-names">{class_names}</datalist>
            <CheckboxField
                label="Launch nodes with Karpenter"
                path="karpenter"
                checked=Signal::derive(move || enabled.get())
                set=enable
            />
            <Show when=move || enabled.get()>
                <div class="grid">
                    <OptionalTextField
                        label="Spot interruption queue (SQS)"
                        path="karpenter.interruption_queue"
                        value=Signal::derive(move || studio.karpenter(|karpenter| karpenter.interruption_queue.clone()))
                        set=move |queue| studio.update_karpenter(|karpenter| karpenter.interruption_queue = queue)
                    />
                </div>
                <CheckboxField
                    label="Spot-to-Spot consolidation"
                    path="karpenter.spot_to_spot_consolidation"
                    checked=Signal::derive(move || studio.karpenter(|karpenter| karpenter.spot_to_spot_consolidation))
                    set=move |on| studio.update_karpenter(|karpenter| karpenter.spot_to_spot_consolidation = on)
                />
                <h3>"NodePools"</h3>
                <FieldFindings path="karpenter.node_pools" />
                {move || (0..pool_count.get()).map(|index| view! { <PoolEditor index=index /> }).collect_view()}
                <button
                    type="button"
                    on:click=move |_| studio.update_karpenter(|karpenter| {
                        let class_name = karpenter.node_classes.first().map(|class| class.metadata.name.clone()).unwrap_or_default();
                        let number = karpenter.node_pools.len() + 1;
                        karpenter.node_pools.push(NodePool::gpu(number, &class_name));
                    })
                >
                    "Add NodePool"
                </button>
                <h3>"EC2NodeClasses"</h3>
                <FieldFindings path="karpenter.node_classes" />
                {move || (0..class_count.get()).map(|index| view! { <ClassEditor index=index /> }).collect_view()}
                <button
                    type="button"
                    on:click=move |_| {
                        let cluster_name = studio.spec.with_untracked(|spec| spec.cluster.name.clone());
                        studio.update_karpenter(|karpenter| {
                            let number = karpenter.node_classes.len() + 1;
                            karpenter.node_classes.push(Ec2NodeClass::discovering(number, &cluster_name));
                        })
                    }
                >
                    "Add EC2NodeClass"
                </button>
            </Show>
        </section>
    }
}
