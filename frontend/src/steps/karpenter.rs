//! Karpenter's own objects are edited as they are written: a NodePool *is* the user's
//! intent, so the inputs map one to one onto `shared::upstream::karpenter`'s fields, and the paths
//! of the findings (`karpenter.node_pools[0].spec.template.spec.requirements[2].values`)
//! name the same fields.

use leptos::prelude::*;
use shared::catalog::instances::InstanceType;
use shared::fields;
use shared::model::spec::{Addon, ControllerIdentity, KarpenterRelease, KarpenterSettings};
use shared::upstream::karpenter::{Ec2NodeClass, NodeOverlay, NodePool, Requirement, SelectorTerm};
use shared::{documents::karpenter_aws, model::items, upstream::karpenter};

use crate::state::step::Step;
use crate::state::step::field_id;
use crate::state::studio::Studio;
use crate::steps::pool_fields::{NodePoolFields, optional, requirement_row};
use crate::widgets::bind::{Bound, Rows, field};
use crate::widgets::fields::{
    CheckboxField, FieldFindings, ListField, NumberField, OptionalTextField, SelectField,
    TextField, options,
};
use crate::widgets::heading::StepHeading;
use shared::model::spec::Spec;

/// Items of a list field (a plain name, as `view!` attribute closures need).
type Items = Vec<String>;

fn bound_pool(studio: Studio, index: usize) -> Bound<NodePool> {
    Bound::new(
        studio,
        fields::item(fields::KARPENTER_POOL, &[index]),
        move |spec| spec.karpenter.as_ref()?.node_pools.get(index),
        move |spec| spec.karpenter.as_mut()?.node_pools.get_mut(index),
    )
}

fn bound_class(studio: Studio, index: usize) -> Bound<Ec2NodeClass> {
    Bound::new(
        studio,
        fields::item(fields::NODE_CLASS_ITEM, &[index]),
        move |spec| spec.karpenter.as_ref()?.node_classes.get(index),
        move |spec| spec.karpenter.as_mut()?.node_classes.get_mut(index),
    )
}

/// The instance types pool `index` can launch, recomputed on every change of its
/// requirements.
#[component]
fn PoolTypes(index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let resolved = Memo::new(move |_| {
        studio
            .spec
            .with(|spec| shared::model::resolve::resolve(spec).into_iter().nth(index))
    });
    let summary = move || {
        resolved.with(|pool| match pool {
            Some(pool) if pool.count > 0 => {
                let mut families: Vec<&str> = pool
                    .instance_types
                    .iter()
                    .map(|instance| instance.family)
                    .collect();
                families.dedup();
                let noun = if pool.count == 1 {
                    "instance type"
                } else {
                    "instance types"
                };
                format!("{} {noun} can launch: {}", pool.count, families.join(", "))
            }
            _ => "No instance type in the catalog matches these requirements".to_owned(),
        })
    };
    // With live checks, where EC2 offers each type (zone names; the facts hold ids too).
    let offered = move |name: &str| {
        studio.live_facts.with(|facts| {
            facts
                .offerings
                .iter()
                .find(|fact| fact.instance_type == name)
                .map(|fact| {
                    let zones: Vec<&str> = fact
                        .availability_zones
                        .iter()
                        .map(String::as_str)
                        .filter(|zone| {
                            zone.chars()
                                .last()
                                .is_some_and(|last| last.is_ascii_lowercase())
                        })
                        .collect();
                    if zones.is_empty() {
                        " (not offered in this region)".to_owned()
                    } else {
                        format!(" (offered in {})", zones.join(", "))
                    }
                })
        })
    };
    // With live checks, a pool that allows Spot shows each type's latest Spot price.
    let allows_spot = Memo::new(move |_| {
        studio.spec.with(|spec| {
            spec.karpenter
                .as_ref()
                .and_then(|karpenter| karpenter.node_pools.get(index))
                .is_some_and(|pool| {
                    shared::upstream::matching::capacity_types(pool).contains("spot")
                })
        })
    });
    let spot_price = move |name: &str| {
        if !allows_spot.get() {
            return None;
        }
        studio.live_facts.with(|facts| {
            facts
                .cheapest_spot(name)
                .map(|fact| format!(", Spot from {}", fact.said()))
        })
    };
    let rows = move || {
        resolved.with(|pool| {
            pool.iter()
                .flat_map(|pool| pool.instance_types.iter())
                .map(|instance| {
                    let region = studio
                        .spec
                        .with_untracked(|spec| spec.cluster.region.trim().to_owned());
                    let price = instance
                        .on_demand
                        .map(|price| {
                            let place = if price.region == region {
                                String::new()
                            } else {
                                format!(" in {}", price.region)
                            };
                            format!(
                                ", {} on-demand{place}",
                                shared::catalog::prices::per_hour(&price)
                            )
                        })
                        .unwrap_or_default();
                    let (vcpus, memory_gib) = shared::model::resolve::sizes(instance);
                    let line = format!(
                        "{}: {}, {vcpus} vCPU, {memory_gib} GiB, {} EFA{price}{}{}",
                        instance.name,
                        shared::model::resolve::accelerators(instance),
                        instance.efa_interfaces,
                        spot_price(instance.name).unwrap_or_default(),
                        offered(instance.name).unwrap_or_default()
                    );
                    view! { <li>{line}</li> }
                })
                .collect_view()
        })
    };
    // When nothing can launch, which requirement shuts out which types, and by how much.
    let exclusions = move || {
        resolved.with(|pool| {
            pool.iter()
                .flat_map(|pool| pool.excluded_by.iter())
                .map(|exclusion| {
                    view! { <li>{crate::widgets::prose::with_code(exclusion.words.clone())}</li> }
                })
                .collect_view()
        })
    };
    let price_note = move || {
        studio
            .spec
            .with(|spec| shared::model::resolve::price_note(&spec.cluster.region))
            .map(|note| {
                let mut sentence = note[..1].to_uppercase();
                sentence.push_str(&note[1..]);
                view! { <p class="hint">{format!("{sentence}.")}</p> }
            })
    };
    view! {
        <details class="pool-types">
            <summary>{summary}</summary>
            {price_note}
            <ul>{rows}</ul>
        </details>
        <ul class="pool-exclusions" id=format!("pool-exclusions-{index}")>{exclusions}</ul>
    }
}

/// One NodePool.
#[component]
fn PoolEditor(index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    view! {
        <NodePoolFields
            pool=bound_pool(studio, index)
            number=index + 1
            class_names="node-class-names"
            auto_mode=false
            types=view! { <PoolTypes index=index /> }.into_any()
            remove=move || studio.update_karpenter(|karpenter| {
                if index < karpenter.node_pools.len() {
                    karpenter.node_pools.remove(index);
                }
            })
        />
    }
}

fn bound_overlay(studio: Studio, index: usize) -> Bound<NodeOverlay> {
    Bound::new(
        studio,
        fields::item(fields::NODE_OVERLAY_ITEM, &[index]),
        move |spec| spec.karpenter.as_ref()?.node_overlays.get(index),
        move |spec| spec.karpenter.as_mut()?.node_overlays.get_mut(index),
    )
}

/// What an overlay changes, in one line: "price -15%; weight 10 (2 requirements)".
fn overlay_summary(overlay: &NodeOverlay) -> String {
    let spec = &overlay.spec;
    let mut changes = Vec::new();
    if let Some(price) = &spec.price {
        changes.push(format!("price {price}"));
    }
    if let Some(adjustment) = &spec.price_adjustment {
        changes.push(format!("price {adjustment}"));
    }
    if !spec.capacity.is_empty() {
        changes.push(format!(
            "capacity {}",
            items::limits_to_items(&spec.capacity).join(", ")
        ));
    }
    if let Some(weight) = spec.weight {
        changes.push(format!("weight {weight}"));
    }
    let requirements = spec.requirements.len();
    format!(
        "{}: {} ({requirements} requirement{})",
        overlay.metadata.name,
        if changes.is_empty() {
            "changes nothing".to_owned()
        } else {
            changes.join("; ")
        },
        if requirements == 1 { "" } else { "s" },
    )
}

/// The NodeOverlays: what Karpenter assumes of the instance types their requirements
/// select (a price, a price change, extended resources), edited as written; the chart
/// values turn on the NodeOverlay feature gate when there is one.
#[component]
fn NodeOverlays() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let count = Memo::new(move |_| studio.karpenter(|karpenter| karpenter.node_overlays.len()));
    let lines = Memo::new(move |_| {
        studio.karpenter(|karpenter| {
            karpenter
                .node_overlays
                .iter()
                .map(overlay_summary)
                .collect::<Vec<String>>()
        })
    });
    view! {
        <h3>"NodeOverlays"</h3>
        <p class="hint">
            "An overlay changes what Karpenter assumes of the instance types its requirements select when it chooses what to launch: a price (a Savings Plan or reservation discount), or extended resources the nodes will have. Written to nodepools.yaml; the chart values turn on the NodeOverlay feature gate."
        </p>
        <ul class="overlays">
            {move || lines.get().into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}
        </ul>
        <FieldFindings path="karpenter.node_overlays" />
        {move || (0..count.get()).map(|index| view! { <OverlayEditor index=index /> }).collect_view()}
        <button
            type="button"
            on:click=move |_| studio.update_karpenter(|karpenter| {
                let number = karpenter.node_overlays.len() + 1;
                karpenter.node_overlays.push(NodeOverlay::price_adjustment(number));
            })
        >
            "Add NodeOverlay"
        </button>
    }
}

/// One NodeOverlay.
#[component]
fn OverlayEditor(index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let overlay = bound_overlay(studio, index);
    let base = overlay.path().to_owned();
    let add_requirement = overlay.clone();
    let title =
        overlay.get(move |overlay| format!("NodeOverlay {}: {}", index + 1, overlay.metadata.name));
    view! {
        <fieldset class="group" id=field_id(&base) tabindex="-1">
            <legend>{title}</legend>
            <div class="grid">
                <TextField
                    at=overlay.place(NodeOverlay::NAME)
                    value=overlay.get(|overlay| overlay.metadata.name.clone())
                    set=overlay.set(|overlay, name| overlay.metadata.name = name)
                />
                <OptionalTextField
                    at=overlay.place(NodeOverlay::PRICE_ADJUSTMENT)
                    placeholder="-15% or +0.10"
                    value=overlay.get(|overlay| overlay.spec.price_adjustment.clone())
                    set=overlay.set(|overlay, adjustment| overlay.spec.price_adjustment = adjustment)
                />
                <OptionalTextField
                    at=overlay.place(NodeOverlay::PRICE)
                    placeholder="1.50"
                    value=overlay.get(|overlay| overlay.spec.price.clone())
                    set=overlay.set(|overlay, price| overlay.spec.price = price)
                />
                <NumberField
                    at=overlay.place(NodeOverlay::WEIGHT)
                    value=overlay.get(|overlay| overlay.spec.weight)
                    set=overlay.set(|overlay, weight| overlay.spec.weight = weight)
                />
            </div>
            <ListField
                at=overlay.place(NodeOverlay::CAPACITY)
                placeholder="smarter-devices/fuse=1"
                value=overlay.get(|overlay| items::limits_to_items(&overlay.spec.capacity))
                set=overlay.set(|overlay, items| overlay.spec.capacity = items::items_to_limits(items).into())
            />
            <h4>"Requirements"</h4>
            <FieldFindings path=overlay.place(NodeOverlay::REQUIREMENTS).path />
            <Rows
                list=field!(overlay, spec.requirements)
                noun="Requirement"
                class="requirement"
                row=requirement_row
                add_label="Add requirement"
                add=move || add_requirement.write(|overlay| {
                    overlay.spec.requirements.push(Requirement::new("", "In", &[]));
                })
            />
            <FieldFindings path=base.clone() />
            <FieldFindings path=overlay.place(NodeOverlay::SPEC).path />
            <button
                type="button"
                class="remove"
                on:click=move |_| studio.update_karpenter(|karpenter| {
                    if index < karpenter.node_overlays.len() {
                        karpenter.node_overlays.remove(index);
                    }
                })
            >
                {format!("Remove NodeOverlay {}", index + 1)}
            </button>
        </fieldset>
    }
}

/// What the EFA field means for this class's pools: how many EFA devices their instance
/// types take, since Karpenter launches only types with at least as many.
/// The instance types the pools on class `index` may launch.
fn class_pool_types(spec: &shared::model::spec::Spec, index: usize) -> Vec<&'static InstanceType> {
    let Some(karpenter) = &spec.karpenter else {
        return Vec::new();
    };
    let Some(class) = karpenter.node_classes.get(index) else {
        return Vec::new();
    };
    karpenter
        .node_pools
        .iter()
        .filter(|pool| pool.spec.template.spec.node_class_ref.name == class.metadata.name)
        .flat_map(shared::upstream::matching::matching_instance_types)
        .collect()
}

fn efa_hint(studio: Studio, index: usize) -> String {
    studio.spec.with(|spec| {
        let types = class_pool_types(spec, index);
        let fewest = types
            .iter()
            .map(|instance_type| (instance_type.efa_interfaces, instance_type.name))
            .min();
        let mut hint = "Blank: Karpenter's one network interface, no EFA. A number n: the primary interface and an EFA device on card 0, then an EFA device on each of cards 1 to n − 1.".to_owned();
        if !karpenter::efa_on_card_zero(&types) {
            hint = "Blank: Karpenter's one network interface, no EFA. A number n: the primary interface on card 0, which takes no EFA device on this class's types, then an EFA device on each of cards 1 to n.".to_owned();
        }
        match fewest {
            Some((0, name)) => format!("{hint} This class's pools allow {name}, which has no EFA."),
            Some((most, name)) => format!(
                "{hint} Karpenter launches only instance types with at least n EFA interfaces; {name}, the fewest of this class's pools' types, has {most}."
            ),
            None => hint,
        }
    })
}

/// One EC2NodeClass.
#[component]
fn ClassEditor(index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let class = bound_class(studio, index);
    let base = class.path().to_owned();
    let title =
        class.get(move |class| format!("EC2NodeClass {}: {}", index + 1, class.metadata.name));
    view! {
        <fieldset class="group" id=field_id(&base) tabindex="-1">
            <legend>{title}</legend>
            <div class="grid">
                <TextField
                    at=class.place(Ec2NodeClass::NAME)
                    value=class.get(|class| class.metadata.name.clone())
                    set=class.set(|class, name| class.metadata.name = name)
                />
                <OptionalTextField
                    at=class.place(Ec2NodeClass::NODE_ROLE)
                    placeholder="KarpenterNodeRole-my-cluster"
                    value=class.get(|class| class.spec.role.clone())
                    set=class.set(|class, role| class.spec.role = role)
                />
                <TextField
                    at=class.place(Ec2NodeClass::AMI_ALIAS)
                    placeholder="al2023@latest"
                    value=class.get(|class| {
                        class.spec.ami_selector_terms.first().and_then(|term| term.alias.clone()).unwrap_or_default()
                    })
                    set=class.set(|class, alias: String| {
                        let terms = &mut class.spec.ami_selector_terms;
                        let only_one = terms.len() == 1;
                        match terms.first_mut() {
                            Some(term) if term.alias.is_some() || only_one => term.alias = optional(alias),
                            _ => terms.insert(0, SelectorTerm::alias(&alias)),
                        }
                        terms.retain(|term| *term != SelectorTerm::default());
                    })
                />
                <TextField
                    at=class.place(Ec2NodeClass::SUBNET_DISCOVERY)
                    value=class.get(|class| karpenter::discovery_value(&class.spec.subnet_selector_terms))
                    set=class.set(|class, value| karpenter::set_discovery(&mut class.spec.subnet_selector_terms, value))
                />
                <TextField
                    at=class.place(Ec2NodeClass::SECURITY_GROUP_DISCOVERY)
                    value=class.get(|class| karpenter::discovery_value(&class.spec.security_group_selector_terms))
                    set=class.set(|class, value| karpenter::set_discovery(&mut class.spec.security_group_selector_terms, value))
                />
                <ListField
                    at=class.place(Ec2NodeClass::RESERVATIONS)
                    placeholder="cr-0123456789abcdef0"
                    value=class.get(|class| karpenter::term_ids(&class.spec.capacity_reservation_selector_terms))
                    set=class.set(|class, ids: Items| karpenter::set_term_ids(&mut class.spec.capacity_reservation_selector_terms, &ids))
                />
                <ListField
                    at=class.place(Ec2NodeClass::RESERVATION_TAGS)
                    placeholder="purpose=training"
                    value=class.get(|class| {
                        class.spec.capacity_reservation_selector_terms.iter()
                            .filter(|term| term.id.is_none())
                            .flat_map(|term| items::map_to_items(&term.tags))
                            .collect()
                    })
                    set=class.set(|class, tags: Items| {
                        let terms = &mut class.spec.capacity_reservation_selector_terms;
                        // A term's owner (ownerID) goes with its tags; keep it across edits.
                        let owner = terms.iter().find_map(|term| term.owner_id.clone());
                        terms.retain(|term| term.id.is_some());
                        terms.extend(items::items_to_map::<std::collections::BTreeMap<String, String>>(&tags).iter().map(|(key, value)| SelectorTerm {
                            owner_id: owner.clone(),
                            ..SelectorTerm::tag(key, value)
                        }));
                    })
                />
                <TextField
                    at=class.place(Ec2NodeClass::RESERVATION_OWNER)
                    placeholder="123456789012"
                    hint="For reservations shared from another account; applies to the tag terms."
                    value=class.get(|class| {
                        class.spec.capacity_reservation_selector_terms.iter()
                            .find_map(|term| term.owner_id.clone())
                            .unwrap_or_default()
                    })
                    set=class.set(|class, owner: String| {
                        karpenter::set_reservation_owner(&mut class.spec.capacity_reservation_selector_terms, &owner)
                    })
                />
                <OptionalTextField
                    at=class.place(Ec2NodeClass::PLACEMENT_GROUP_NAME)
                    placeholder="training-cluster-pg"
                    value=class.get(|class| class.spec.placement_group_selector.as_ref().and_then(|selector| selector.name.clone()))
                    set=class.set(|class, name| {
                        karpenter::edit_placement_group(&mut class.spec.placement_group_selector, |selector| selector.name = name)
                    })
                />
                <OptionalTextField
                    at=class.place(Ec2NodeClass::PLACEMENT_GROUP_ID)
                    placeholder="pg-0123456789abcdef0"
                    value=class.get(|class| class.spec.placement_group_selector.as_ref().and_then(|selector| selector.id.clone()))
                    set=class.set(|class, id| {
                        karpenter::edit_placement_group(&mut class.spec.placement_group_selector, |selector| selector.id = id)
                    })
                />
            </div>
            <FieldFindings path=class.place(Ec2NodeClass::PLACEMENT_GROUP_SELECTOR).path />
            <div class="grid">
                <NumberField
                    at=class.place(Ec2NodeClass::EFA_DEVICES)
                    value=class.get(|class| {
                        (!class.spec.network_interfaces.is_empty())
                            .then(|| karpenter::efa_devices(&class.spec.network_interfaces) as u32)
                    })
                    set=Callback::new({
                        let class = class.clone();
                        move |efa: Option<u32>| {
                            let card_zero = studio.spec.with_untracked(|spec| {
                                karpenter::efa_on_card_zero(&class_pool_types(spec, index))
                            });
                            class.write(|class| {
                                class.spec.network_interfaces =
                                    karpenter::efa_layout(efa.unwrap_or(0), card_zero).into()
                            })
                        }
                    })
                />
            </div>
            <p class="hint">{move || efa_hint(studio, index)}</p>
            <CheckboxField
                at=class.place(Ec2NodeClass::INSTANCE_STORE_POLICY)
                checked=class.get(|class| class.spec.instance_store_policy.is_some())
                set=class.set(|class, on: bool| class.spec.instance_store_policy = on.then(|| "RAID0".to_owned()))
            />
            <FieldFindings path=class.place(Ec2NodeClass::AMI_SELECTOR).path nested=true />
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
                // No pool until the user picks one: the presets below offer what training
                // and inference clusters use.
                spec.karpenter = Some(KarpenterSettings {
                    interruption_queue: None,
                    spot_to_spot_consolidation: false,
                    ..KarpenterSettings::default()
                });
                // The controller gets its AWS role through EKS Pod Identity.
                if !spec
                    .addons
                    .iter()
                    .any(|addon| addon.name == karpenter_aws::POD_IDENTITY_AGENT)
                {
                    spec.addons.push(Addon {
                        name: karpenter_aws::POD_IDENTITY_AGENT.into(),
                        ..Addon::default()
                    });
                }
            }
        })
    };
    let release_options = || {
        KarpenterRelease::ALL
            .iter()
            .map(|release| (release.minor().to_owned(), release.label().to_owned()))
            .collect::<Vec<_>>()
    };
    let settings = Bound::new(
        studio,
        Spec::KARPENTER_ON.path(),
        |spec| spec.karpenter.as_ref(),
        |spec| spec.karpenter.as_mut(),
    );
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
                at=Spec::KARPENTER_ON
                checked=Signal::derive(move || enabled.get())
                set=enable
            />
            <Show when=move || enabled.get()>
                <div class="grid">
                    <SelectField
                        at=settings.place(KarpenterSettings::RELEASE)
                        options=release_options()
                        value=settings.get(|karpenter| karpenter.release.minor().to_owned())
                        set=settings.set(|karpenter, choice: String| {
                            if let Some(release) = KarpenterRelease::parse(&choice) {
                                karpenter.release = release;
                            }
                        })
                    />
                    <OptionalTextField
                        at=settings.place(KarpenterSettings::INTERRUPTION_QUEUE)
                        value=settings.get(|karpenter| karpenter.interruption_queue.clone())
                        set=settings.set(|karpenter, queue| karpenter.interruption_queue = queue)
                    />
                    <SelectField
                        at=settings.place(KarpenterSettings::CONTROLLER_IDENTITY)
                        options=options(&[
                            ("pod-identity", "EKS Pod Identity"),
                            ("irsa", "IAM roles for service accounts (IRSA)"),
                        ])
                        value=settings.get(|karpenter| match karpenter.controller_identity {
                            ControllerIdentity::PodIdentity => "pod-identity".to_owned(),
                            ControllerIdentity::Irsa => "irsa".to_owned(),
                        })
                        set=settings.set(|karpenter, choice: String| {
                            karpenter.controller_identity = if choice == "irsa" {
                                ControllerIdentity::Irsa
                            } else {
                                ControllerIdentity::PodIdentity
                            };
                        })
                    />
                </div>
                <CheckboxField
                    at=settings.place(KarpenterSettings::SPOT_TO_SPOT)
                    checked=settings.get(|karpenter| karpenter.spot_to_spot_consolidation)
                    set=settings.set(|karpenter, on| karpenter.spot_to_spot_consolidation = on)
                />
                <CheckboxField
                    at=settings.place(KarpenterSettings::NODE_REPAIR)
                    checked=settings.get(|karpenter| karpenter.node_repair)
                    set=settings.set(|karpenter, on| karpenter.node_repair = on)
                />
                <h3>"NodePools"</h3>
                <FieldFindings path="karpenter.node_pools" />
                <ul class="pool-presets">
                    {shared::templates::PoolPreset::ALL
                        .into_iter()
                        .map(|preset| {
                            view! {
                                <li>
                                    <button
                                        type="button"
                                        on:click=move |_| {
                                            let cluster_name = studio
                                                .spec
                                                .with_untracked(|spec| spec.cluster.name.clone());
                                            studio
                                                .update_karpenter(|karpenter| {
                                                    preset.add_to(karpenter, &cluster_name)
                                                });
                                        }
                                    >
                                        {preset.label()}
                                    </button>
                                    " "
                                    <span class="hint">{preset.summary()}</span>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
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
                <NodeOverlays />
            </Show>
        </section>
    }
}
