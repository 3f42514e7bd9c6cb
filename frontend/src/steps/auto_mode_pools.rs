//! EKS Auto Mode's own NodePools and NodeClasses (`auto-mode/nodepools.yaml`), edited in
//! the Cluster step under Auto Mode: a pool has the same inputs as a Karpenter pool, with
//! Auto Mode's `eks.amazonaws.com/` label keys; a NodeClass has its name, node role and
//! the IDs of its subnets, security groups and capacity reservations.

use leptos::prelude::*;
use shared::documents::auto_mode;
use shared::fields;
use shared::upstream::auto_mode::{BUILT_IN_NODE_CLASS, NodeClass};
use shared::upstream::karpenter::{self, NodePool};

use crate::state::step::field_id;
use crate::state::studio::Studio;
use crate::steps::pool_fields::NodePoolFields;
use crate::widgets::bind::Bound;
use crate::widgets::fields::{FieldFindings, ListField, OptionalTextField, TextField};

/// Items of a list field (a plain name, as `view!` attribute closures need).
type Items = Vec<String>;

/// The requirement keys an Auto Mode pool's key field suggests: Auto Mode's labels (EKS
/// user guide, EKS Auto Mode Supported Labels) most used to choose training capacity.
const REQUIREMENT_KEYS: &[&str] = &[
    "karpenter.sh/capacity-type",
    "eks.amazonaws.com/instance-category",
    "eks.amazonaws.com/instance-family",
    "eks.amazonaws.com/instance-generation",
    "eks.amazonaws.com/instance-gpu-name",
    "eks.amazonaws.com/instance-gpu-count",
    "eks.amazonaws.com/instance-gpu-memory",
    "eks.amazonaws.com/instance-gpu-manufacturer",
    "eks.amazonaws.com/instance-cpu",
    "eks.amazonaws.com/instance-memory",
    "node.kubernetes.io/instance-type",
    "kubernetes.io/arch",
    "topology.kubernetes.io/zone",
];

fn bound_pool(studio: Studio, index: usize) -> Bound<NodePool> {
    Bound::new(
        studio,
        fields::item(fields::AUTO_MODE_POOL, &[index]),
        move |spec| spec.auto_mode_pools.node_pools.get(index),
        move |spec| spec.auto_mode_pools.node_pools.get_mut(index),
    )
}

fn bound_class(studio: Studio, index: usize) -> Bound<NodeClass> {
    Bound::new(
        studio,
        fields::item(fields::AUTO_MODE_CLASS, &[index]),
        move |spec| spec.auto_mode_pools.node_classes.get(index),
        move |spec| spec.auto_mode_pools.node_classes.get_mut(index),
    )
}

/// What pool `index` can launch, by Auto Mode's labels: how many catalog types, and their
/// families.
#[component]
fn AutoPoolTypes(index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let summary = Memo::new(move |_| {
        studio.spec.with(|spec| {
            let Some(pool) = spec.auto_mode_pools.node_pools.get(index) else {
                return String::new();
            };
            let types = shared::upstream::matching::matching_instance_types(pool);
            let mut families: Vec<&str> = types.iter().map(|instance| instance.family).collect();
            families.dedup();
            match types.len() {
                0 => "No instance type in the catalog matches these requirements".to_owned(),
                count if families.len() > 12 => format!(
                    "{count} instance types can launch, of {} families",
                    families.len()
                ),
                1 => format!("1 instance type can launch: {}", types[0].name),
                count => format!("{count} instance types can launch: {}", families.join(", ")),
            }
        })
    });
    view! { <p class="hint pool-types">{summary}</p> }
}

/// One Auto Mode NodeClass.
#[component]
fn ClassFields(index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let class = bound_class(studio, index);
    let base = class.path().to_owned();
    let title = class.get(move |class| format!("NodeClass {}: {}", index + 1, class.metadata.name));
    let tag_terms = class.get(|class| {
        let spec = &class.spec;
        [
            &spec.subnet_selector_terms,
            &spec.security_group_selector_terms,
            &spec.capacity_reservation_selector_terms,
        ]
        .iter()
        .map(|terms| terms.iter().filter(|term| term.id.is_none()).count())
        .sum::<usize>()
    });
    view! {
        <fieldset class="group" id=field_id(&base) tabindex="-1">
            <legend>{title}</legend>
            <div class="grid">
                <TextField
                    at=class.place(NodeClass::NAME)
                    value=class.get(|class| class.metadata.name.clone())
                    set=class.set(|class, name| class.metadata.name = name)
                />
                <OptionalTextField
                    at=class.place(NodeClass::ROLE)
                    placeholder="empty: Auto Mode's node role"
                    value=class.get(|class| class.spec.role.clone())
                    set=class.set(|class, role| class.spec.role = role)
                />
                <ListField
                    at=class.place(NodeClass::SUBNETS)
                    placeholder="empty: the cluster's subnets"
                    value=class.get(|class| karpenter::term_ids(&class.spec.subnet_selector_terms))
                    set=class.set(|class, ids: Items| karpenter::set_term_ids(&mut class.spec.subnet_selector_terms, &ids))
                />
                <ListField
                    at=class.place(NodeClass::SECURITY_GROUPS)
                    placeholder="empty: the cluster security group"
                    value=class.get(|class| karpenter::term_ids(&class.spec.security_group_selector_terms))
                    set=class.set(|class, ids: Items| karpenter::set_term_ids(&mut class.spec.security_group_selector_terms, &ids))
                />
                <ListField
                    at=class.place(NodeClass::RESERVATIONS)
                    placeholder="cr-0123456789abcdef0"
                    value=class.get(|class| karpenter::term_ids(&class.spec.capacity_reservation_selector_terms))
                    set=class.set(|class, ids: Items| karpenter::set_term_ids(&mut class.spec.capacity_reservation_selector_terms, &ids))
                />
            </div>
            <Show when=move || { tag_terms.get() > 0 }>
                <p class="hint">
                    {move || format!("{} selector term(s) by tag are kept as imported; the preview's auto-mode/nodepools.yaml shows them.", tag_terms.get())}
                </p>
            </Show>
            <FieldFindings path=base.clone() />
            <button
                type="button"
                class="remove"
                on:click=move |_| studio.spec.update(|spec| {
                    let classes = &mut spec.auto_mode_pools.node_classes;
                    if index < classes.len() {
                        classes.remove(index);
                    }
                })
            >
                {format!("Remove NodeClass {}", index + 1)}
            </button>
        </fieldset>
    }
}

/// Auto Mode's NodePools and NodeClasses, each editable, with buttons to add them; shown
/// when Auto Mode is on or the design has any (an imported file, a template).
#[component]
pub fn AutoModePools() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let spec = studio.spec;
    let shown = Memo::new(move |_| {
        spec.with(|spec| spec.cluster.auto_mode_enabled() || !spec.auto_mode_pools.is_empty())
    });
    let pool_count = Memo::new(move |_| spec.with(|spec| spec.auto_mode_pools.node_pools.len()));
    let class_count = Memo::new(move |_| spec.with(|spec| spec.auto_mode_pools.node_classes.len()));
    let class_names = move || {
        let mut names = vec![BUILT_IN_NODE_CLASS.to_owned()];
        names.extend(spec.with(|spec| {
            spec.auto_mode_pools
                .node_classes
                .iter()
                .map(|class| class.metadata.name.clone())
                .collect::<Vec<_>>()
        }));
        names
            .into_iter()
            .map(|name| view! { <option value=name></option> })
            .collect_view()
    };
    let pool = move |index: usize| {
        view! {
            <NodePoolFields
                pool=bound_pool(studio, index)
                number=index + 1
                class_names="auto-mode-node-class-names"
                auto_mode=true
                types=view! { <AutoPoolTypes index=index /> }.into_any()
                remove=move || spec.update(|spec| {
                    let pools = &mut spec.auto_mode_pools.node_pools;
                    if index < pools.len() {
                        pools.remove(index);
                    }
                })
            />
        }
    };
    view! {
        <Show when=move || shown.get()>
            <h3>"Auto Mode NodePools and NodeClasses"</h3>
            <p class="hint">
                "Applied with kubectl once the cluster is up (auto-mode/nodepools.yaml in the preview). A pool names Auto Mode's built-in NodeClass `default` or one of the NodeClasses below; Auto Mode uses an ODCR or Capacity Block only when a NodeClass selects it, and its nodes there are `reserved` capacity."
            </p>
            <datalist id="auto-mode-requirement-keys">
                {REQUIREMENT_KEYS.iter().map(|key| view! { <option value=*key></option> }).collect_view()}
            </datalist>
            <datalist id="auto-mode-node-class-names">{class_names}</datalist>
            <FieldFindings path="auto_mode_pools" />
            <FieldFindings path="auto_mode_pools.node_pools" />
            {move || (0..pool_count.get()).map(pool).collect_view()}
            <button
                type="button"
                on:click=move |_| spec.update(|spec| {
                    let pools = &mut spec.auto_mode_pools;
                    let class_name = pools
                        .node_classes
                        .first()
                        .map_or(BUILT_IN_NODE_CLASS.to_owned(), |class| class.metadata.name.clone());
                    let number = pools.node_pools.len() + 1;
                    pools.node_pools.push(auto_mode::gpu_pool(number, &class_name));
                })
            >
                "Add Auto Mode NodePool"
            </button>
            <FieldFindings path="auto_mode_pools.node_classes" />
            {move || (0..class_count.get()).map(|index| view! { <ClassFields index=index /> }).collect_view()}
            <button
                type="button"
                on:click=move |_| spec.update(|spec| {
                    let classes = &mut spec.auto_mode_pools.node_classes;
                    let number = classes.len() + 1;
                    classes.push(auto_mode::node_class(number));
                })
            >
                "Add Auto Mode NodeClass"
            </button>
        </Show>
    }
}
