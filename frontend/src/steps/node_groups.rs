//! Node groups: a CPU system group and GPU groups, each with an instance type chosen from
//! the embedded catalog, sizes and node settings. Capacity and placement are the next step.

use leptos::prelude::*;
use shared::catalog::instances::{self, CatalogFilter, InstanceType};
use shared::fields;
use shared::model::items;
use shared::model::spec::{NodeGroup, NodeTaint, RepairOverride};

use crate::state::step::Step;
use crate::state::step::field_id;
use crate::state::studio::Studio;
use crate::widgets::bind::{Bound, Rows, field};
use crate::widgets::fields::{
    CheckboxField, FieldFindings, ListField, NumberField, OptionalTextField, SelectField,
    TextField, options,
};
use crate::widgets::heading::StepHeading;

/// Most rows the picker lists at once; narrowing the filter shows the rest.
const PICKER_ROWS: usize = 40;

use shared::model::resolve::accelerators;
use shared::model::spec::{AddonPolicies, NodeRepairSettings};

fn bandwidth(instance_type: &InstanceType) -> String {
    instance_type
        .network_bandwidth_mbps
        .map(|mbps| format!("{} Gbps", f64::from(mbps) / 1000.0))
        .unwrap_or_else(|| "—".to_owned())
}

/// One line on what an instance type offers.
pub fn summary(instance_type: &InstanceType) -> String {
    // The catalog's 0 is "not known" for a type newer than its tables (p6e-gb200's EFA
    // interfaces, c8g-flex's sizes): said so rather than shown as none.
    let efa = match (instance_type.efa_interfaces, instance_type.efa_supported) {
        (0, true) => "EFA".to_owned(),
        (0, false) => "no EFA".to_owned(),
        (n, _) => format!("{n} EFA"),
    };
    let memory = instance_type
        .known_memory_gib()
        .map_or_else(|| "memory not known".to_owned(), |gib| format!("{gib} GiB"));
    let vcpus = instance_type.known_vcpus().map_or_else(
        || "vCPUs not known".to_owned(),
        |vcpus| format!("{vcpus} vCPU"),
    );
    format!(
        "{vcpus}, {memory}, {}, {efa}, {}{}",
        accelerators(instance_type),
        bandwidth(instance_type),
        if instance_type.capacity_block_eligible {
            ", Capacity Blocks"
        } else {
            ""
        }
    )
}

/// What the picker's table is sorted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SortBy {
    Name,
    Gpus,
    Vcpus,
    Memory,
    Efa,
    Network,
    Price,
}

impl SortBy {
    const ALL: [(SortBy, &'static str); 7] = [
        (SortBy::Name, "Type"),
        (SortBy::Gpus, "GPUs"),
        (SortBy::Vcpus, "vCPU"),
        (SortBy::Memory, "GiB"),
        (SortBy::Efa, "EFA"),
        (SortBy::Network, "Gbps"),
        (SortBy::Price, "$/h"),
    ];

    /// The order of two types by this column, ascending; unknown prices go last.
    fn compare(self, a: &Row, b: &Row) -> std::cmp::Ordering {
        let total_gpu_memory = |row: &Row| {
            u64::from(row.instance.gpu_count) * u64::from(row.instance.gpu_memory_mib.unwrap_or(0))
                + u64::from(row.instance.accelerator_count)
        };
        match self {
            SortBy::Name => a.instance.name.cmp(b.instance.name),
            SortBy::Gpus => total_gpu_memory(a).cmp(&total_gpu_memory(b)),
            SortBy::Vcpus => a.instance.vcpus.cmp(&b.instance.vcpus),
            SortBy::Memory => a.instance.memory_mib.cmp(&b.instance.memory_mib),
            SortBy::Efa => a.instance.efa_interfaces.cmp(&b.instance.efa_interfaces),
            SortBy::Network => a
                .instance
                .network_bandwidth_mbps
                .cmp(&b.instance.network_bandwidth_mbps),
            SortBy::Price => {
                let price = |row: &Row| row.price.map(|price| price.usd_per_hour);
                match (price(a), price(b)) {
                    (Some(a), Some(b)) => a.total_cmp(&b),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                }
            }
        }
        .then_with(|| a.instance.name.cmp(b.instance.name))
    }
}

/// One row of the picker: a type, its price in the design's region and, once EC2 said,
/// where it is offered.
#[derive(Clone, Copy, PartialEq)]
struct Row {
    instance: &'static InstanceType,
    price: Option<shared::catalog::prices::Price>,
    offered: Option<Offered>,
}

/// In how many zones a type is offered: of the group's zones when they are known, else
/// of the region's (`of` is `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Offered {
    zones: usize,
    of: Option<usize>,
}

impl Offered {
    fn everywhere(self) -> bool {
        self.zones > 0 && self.of.is_none_or(|of| self.zones == of)
    }

    /// The tag beside the type's name.
    fn tag(self) -> String {
        match (self.zones, self.of) {
            (0, Some(_)) => "not in these zones".to_owned(),
            (0, None) => "not offered here".to_owned(),
            (zones, Some(of)) => format!("in {zones}/{of} zones"),
            (zones, None) => crate::state::studio::counted(zones, "zone"),
        }
    }
}

/// The zones group `index` may launch in, when every one is known and none is a placeholder.
fn group_zones(studio: Studio, index: usize) -> Option<Vec<String>> {
    let zones = studio.live_facts.with(|live| {
        studio
            .spec
            .with(|spec| shared::rules::node_group_zones(spec, live, index))
    })?;
    let usable = !zones.is_empty()
        && zones
            .iter()
            .all(|zone| !zone.trim().is_empty() && !shared::model::ids::is_placeholder(zone));
    usable.then_some(zones)
}

/// Search and filters over the catalog, opening on GPU and Neuron types; choosing a row
/// sets the group's instance type.
#[component]
fn InstancePicker(index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let filter = RwSignal::new(CatalogFilter {
        accelerated_only: true,
        ..CatalogFilter::default()
    });
    let sort = RwSignal::new((SortBy::Name, true));
    let offered_only = RwSignal::new(false);
    Effect::new(move |_| {
        let region = studio
            .spec
            .with(|spec| spec.cluster.region.trim().to_owned());
        if shared::model::ids::Region::parse(&region).is_ok() {
            studio.ask_zone_offerings(&region);
        }
    });
    // The group's zones, tracked apart so a keystroke elsewhere does not re-sort the rows.
    let zones = Memo::new(move |_| group_zones(studio, index));
    let results = Memo::new(move |_| {
        let region = studio.spec.with(|spec| spec.cluster.region.clone());
        let zones = zones.get();
        studio.zone_offerings.with(|known| {
            let offerings = match &known.answer {
                Some(Ok(answer))
                    if answer.status == shared::model::live_checks::CheckStatus::Ok
                        && answer.region == region.trim() =>
                {
                    Some(&answer.instance_types)
                }
                _ => None,
            };
            let mut rows: Vec<Row> = filter
                .with(instances::search)
                .into_iter()
                .map(|instance| Row {
                    instance,
                    price: shared::catalog::prices::on_demand(&region, instance.name),
                    offered: offerings.map(|offerings| {
                        let listed = offerings
                            .get(instance.name)
                            .map(Vec::as_slice)
                            .unwrap_or_default();
                        match &zones {
                            Some(zones) => Offered {
                                zones: zones.iter().filter(|zone| listed.contains(*zone)).count(),
                                of: Some(zones.len()),
                            },
                            None => Offered {
                                zones: listed.len(),
                                of: None,
                            },
                        }
                    }),
                })
                .filter(|row| !offered_only.get() || row.offered.is_none_or(Offered::everywhere))
                .collect();
            let (by, ascending) = sort.get();
            rows.sort_by(|a, b| {
                let order = by.compare(a, b);
                if ascending { order } else { order.reverse() }
            });
            rows
        })
    });
    // Where EC2 offers the type, said on the tag's title.
    let offered_title = move |name: &str| {
        studio.zone_offerings.with_untracked(|known| {
            let Some(Ok(answer)) = &known.answer else {
                return String::new();
            };
            let listed = answer.instance_types.get(name).cloned().unwrap_or_default();
            let missing: Vec<String> = zones
                .get_untracked()
                .unwrap_or_default()
                .into_iter()
                .filter(|zone| !listed.contains(zone))
                .collect();
            match (listed.is_empty(), missing.is_empty()) {
                (true, _) => format!("EC2 offers {name} in none of {}'s zones", answer.region),
                (false, true) => format!("EC2 offers {name} in {}", listed.join(", ")),
                (false, false) => format!(
                    "EC2 offers {name} in {}; not in {}",
                    listed.join(", "),
                    missing.join(", ")
                ),
            }
        })
    };
    let id = move |name: &str| format!("picker-{index}-{name}");
    let number = move |text: String| text.trim().parse::<u32>().unwrap_or(0);
    let models = instances::gpu_models()
        .into_iter()
        .map(|model| view! { <option value=model>{model}</option> })
        .collect_view();
    let rows = move || {
        results.with(|results| {
            results
                .iter()
                .take(PICKER_ROWS)
                .map(|row| {
                    let instance_type = row.instance;
                    let name = instance_type.name;
                    let price = row
                        .price
                        .map(|price| {
                            let mut shown = shared::catalog::prices::per_hour(&price).trim_end_matches("/h").to_owned();
                            if price.region == shared::catalog::prices::REFERENCE_REGION
                                && studio.spec.with_untracked(|spec| spec.cluster.region.trim() != price.region)
                            {
                                shown.push('*');
                            }
                            shown
                        })
                        .unwrap_or_else(|| "—".to_owned());
                    view! {
                        <tr>
                            <th scope="row">
                                <button
                                    type="button"
                                    class="link"
                                    aria-label=format!("Use {name}")
                                    title=summary(instance_type)
                                    on:click=move |_| {
                                        studio.update_group(index, |group| group.instance_type = name.to_owned());
                                        let input_id = field_id(&format!("node_groups[{index}].instance_type"));
                                        request_animation_frame(move || crate::state::studio::focus_id(&input_id));
                                    }
                                >
                                    {name}
                                </button>
                                {row.offered.map(|offered| {
                                    let class = if offered.everywhere() { "offered" } else { "offered missing" };
                                    view! { <span class=class title=offered_title(name)>{offered.tag()}</span> }
                                })}
                            </th>
                            <td class="wrap">
                                {accelerators(instance_type)}
                                {instance_type.capacity_block_eligible.then_some(view! { <span class="tag" title="Sold as Capacity Blocks for ML">"CB"</span> })}
                            </td>
                            <td>{instance_type.known_vcpus().map_or_else(|| "—".to_owned(), |vcpus| vcpus.to_string())}</td>
                            <td>{instance_type.known_memory_gib().map_or_else(|| "—".to_owned(), |gib| gib.to_string())}</td>
                            <td>{instance_type.efa_interfaces}</td>
                            <td>{instance_type.network_bandwidth_mbps.map(|mbps| format!("{}", f64::from(mbps) / 1000.0)).unwrap_or_else(|| "—".to_owned())}</td>
                            <td>{price}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <div class="picker" role="group" aria-label="Instance type catalog">
            <div class="picker-filters">
                <div class="field">
                    <label for=id("text")>"Search instance types"</label>
                    <input
                        id=id("text")
                        type="search"
                        placeholder="h100, 80gb, trn2, 48xlarge"
                        prop:value=move || filter.with(|filter| filter.text.clone())
                        on:input=move |event| filter.update(|filter| filter.text = event_target_value(&event))
                    />
                </div>
                <div class="field">
                    <label for=id("model")>"GPU model"</label>
                    <select
                        id=id("model")
                        on:change=move |event| filter.update(|filter| filter.gpu_model = event_target_value(&event))
                    >
                        <option value="">"any"</option>
                        {models}
                    </select>
                </div>
                <div class="field number">
                    <label for=id("memory")>"Min GPU memory (GiB)"</label>
                    <input
                        id=id("memory")
                        type="number"
                        min="0"
                        on:input=move |event| {
                            filter.update(|filter| filter.min_gpu_memory_mib = number(event_target_value(&event)) * 1024)
                        }
                    />
                </div>
                <div class="field number">
                    <label for=id("count")>"Min GPUs"</label>
                    <input
                        id=id("count")
                        type="number"
                        min="0"
                        on:input=move |event| filter.update(|filter| filter.min_gpu_count = number(event_target_value(&event)))
                    />
                </div>
                <div class="field number">
                    <label for=id("generation")>"Min generation"</label>
                    <input
                        id=id("generation")
                        type="number"
                        min="0"
                        on:input=move |event| filter.update(|filter| filter.min_generation = number(event_target_value(&event)))
                    />
                </div>
                <div class="field checkbox">
                    <input
                        id=id("efa")
                        type="checkbox"
                        on:change=move |event| filter.update(|filter| filter.efa_required = event_target_checked(&event))
                    />
                    <label for=id("efa")>"EFA only"</label>
                </div>
                <div class="field checkbox">
                    <input
                        id=id("cb")
                        type="checkbox"
                        on:change=move |event| {
                            filter.update(|filter| filter.capacity_block_only = event_target_checked(&event))
                        }
                    />
                    <label for=id("cb")>"Capacity Block eligible"</label>
                </div>
                <div class="field checkbox">
                    <input
                        id=id("accelerated")
                        type="checkbox"
                        prop:checked=move || filter.with(|filter| filter.accelerated_only)
                        on:change=move |event| {
                            filter.update(|filter| filter.accelerated_only = event_target_checked(&event))
                        }
                    />
                    <label for=id("accelerated")>"GPU or Neuron only"</label>
                </div>
                <Show when=move || studio.zone_offerings.with(|known| matches!(&known.answer, Some(Ok(answer)) if answer.status == shared::model::live_checks::CheckStatus::Ok))>
                    <div class="field checkbox">
                        <input
                            id=id("offered")
                            type="checkbox"
                            prop:checked=move || offered_only.get()
                            on:change=move |event| offered_only.set(event_target_checked(&event))
                        />
                        <label for=id("offered")>"Offered in every zone of this group"</label>
                    </div>
                </Show>
            </div>
            <p class="hint" aria-live="polite">
                {move || {
                    let total = results.with(Vec::len);
                    let matching = crate::state::studio::counted(total, "type");
                    let verb = if total == 1 { "matches" } else { "match" };
                    let priced = studio.spec.with(|spec| {
                        shared::model::resolve::price_note(&spec.cluster.region)
                            .map(|note| format!("; * {note}"))
                            .unwrap_or_default()
                    });
                    let offered = studio.zone_offerings.with(|known| match &known.answer {
                        _ if known.region.is_empty() => String::new(),
                        None => "; asking EC2 where they are offered…".to_owned(),
                        Some(Ok(answer)) if answer.status == shared::model::live_checks::CheckStatus::Ok => match zones.get() {
                            Some(zones) => format!("; EC2's offerings checked against {}", zones.join(", ")),
                            None => format!("; EC2's offerings in {}", answer.region),
                        },
                        Some(Ok(answer)) => format!("; where they are offered is not known: {}", answer.message),
                        Some(Err(error)) => format!("; where they are offered is not known: {error}"),
                    });
                    if total > PICKER_ROWS {
                        format!("{matching} {verb}; the first {PICKER_ROWS} are listed{priced}{offered}")
                    } else {
                        format!("{matching} {verb}{priced}{offered}")
                    }
                }}
            </p>
            <div class="table-scroll">
                <table>
                    <thead>
                        <tr>
                            {SortBy::ALL
                                .into_iter()
                                .map(|(column, title)| {
                                    let order = move || {
                                        let (by, ascending) = sort.get();
                                        match (by == column, ascending) {
                                            (false, _) => "none",
                                            (true, true) => "ascending",
                                            (true, false) => "descending",
                                        }
                                    };
                                    view! {
                                        <th scope="col" aria-sort=order>
                                            <button
                                                type="button"
                                                class="sort"
                                                on:click=move |_| sort.update(|(by, ascending)| {
                                                    if *by == column {
                                                        *ascending = !*ascending;
                                                    } else {
                                                        // Bigger first for amounts, A to Z and cheapest first otherwise.
                                                        *ascending = matches!(column, SortBy::Name | SortBy::Price);
                                                        *by = column;
                                                    }
                                                })
                                            >
                                                {title}
                                                <span aria-hidden="true">
                                                    {move || match order() {
                                                        "ascending" => " ▲",
                                                        "descending" => " ▼",
                                                        _ => "",
                                                    }}
                                                </span>
                                            </button>
                                        </th>
                                    }
                                })
                                .collect_view()}
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </div>
    }
}

/// The group's taints as `key=value:Effect` items.
fn taint_items(group: &NodeGroup) -> Vec<String> {
    group
        .taints
        .iter()
        .map(|taint| items::taint_to_item(&taint.key, taint.value.as_deref(), &taint.effect))
        .collect()
}

fn taint_of(item: &str) -> NodeTaint {
    let (key, value, effect) = items::item_to_taint(item);
    NodeTaint { key, value, effect }
}

/// Node group `index`, bound.
pub(crate) fn bound_group(studio: Studio, index: usize) -> Bound<NodeGroup> {
    Bound::new(
        studio,
        fields::item(fields::NODE_GROUP_ITEM, &[index]),
        move |spec| spec.node_groups.get(index),
        move |spec| spec.node_groups.get_mut(index),
    )
}

/// One node group's settings.
#[component]
fn NodeGroupEditor(index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let group = bound_group(studio, index);
    let (group_id, group_path) = (field_id(group.path()), group.path().to_owned());
    let show_picker = RwSignal::new(false);
    let instance_summary = Memo::new(move |_| {
        studio.group(index, |group| {
            instances::lookup(group.instance_type.trim()).map(summary)
        })
    });
    let title = group.get(move |group| format!("Node group {}: {}", index + 1, group.name));
    let repair_shown = group.get(|group| group.node_repair || !group.node_repair_config.is_empty());
    let repair_group = group.clone();
    let policies = field!(group, addon_policies);
    view! {
        <fieldset class="group" id=group_id tabindex="-1">
            <legend>{title}</legend>
            <div class="grid">
                <TextField
                    at=group.place(NodeGroup::NAME)
                    value=group.get(|group| group.name.clone())
                    set=group.set(|group, name| group.name = name)
                />
                <div class="instance-type">
                    <TextField
                        at=group.place(NodeGroup::INSTANCE_TYPE)
                        placeholder="p5.48xlarge"
                        value=group.get(|group| group.instance_type.clone())
                        set=group.set(|group, name| group.instance_type = name)
                    />
                    <p class="hint instance-summary">
                        {move || instance_summary.get().unwrap_or_else(|| "not in the catalog".to_owned())}
                    </p>
                    <button
                        type="button"
                        aria-expanded=move || show_picker.get().to_string()
                        on:click=move |_| show_picker.update(|shown| *shown = !*shown)
                    >
                        {move || if show_picker.get() { "Close the catalog" } else { "Choose from the catalog" }}
                    </button>
                </div>
            </div>
            <Show when=move || show_picker.get()>
                <InstancePicker index=index />
            </Show>
            <div class="grid sizes">
                <NumberField
                    at=group.place(NodeGroup::MIN_SIZE)
                    value=group.get(|group| group.min_size)
                    set=group.set(|group, size| group.min_size = size)
                />
                <NumberField
                    at=group.place(NodeGroup::DESIRED_CAPACITY)
                    value=group.get(|group| group.desired_capacity)
                    set=group.set(|group, size| group.desired_capacity = size)
                />
                <NumberField
                    at=group.place(NodeGroup::MAX_SIZE)
                    value=group.get(|group| group.max_size)
                    set=group.set(|group, size| group.max_size = size)
                />
            </div>
            <ListField
                at=group.place(NodeGroup::INSTANCE_TYPES)
                placeholder="g5.12xlarge, g6.12xlarge"
                value=group.get(|group| group.instance_types.clone())
                set=group.set(|group, types| group.instance_types = types)
            />
            <OptionalTextField
                at=group.place(NodeGroup::AMI_FAMILY)
                placeholder="AmazonLinux2023 (eksctl default)"
                suggestions="ami-families"
                value=group.get(|group| group.ami_family.clone())
                set=group.set(|group, family| group.ami_family = family)
            />
            <OptionalTextField
                at=group.place(NodeGroup::CUSTOM_AMI)
                placeholder="ami-… (empty: eksctl picks the EKS-optimized AMI)"
                value=group.get(|group| group.extra.get("ami").and_then(|ami| ami.as_str()).map(str::to_owned))
                set=group.set(|group, ami: Option<String>| match ami {
                    Some(ami) => {
                        group.extra.insert("ami".into(), ami.into());
                    }
                    None => {
                        group.extra.remove("ami");
                    }
                })
            />
            <div class="grid checks">
                <CheckboxField
                    at=group.place(NodeGroup::EFA)
                    checked=group.get(|group| group.efa_enabled)
                    set=group.set(|group, on| group.efa_enabled = on)
                />
                <CheckboxField
                    at=group.place(NodeGroup::PRIVATE_NETWORKING)
                    checked=group.get(|group| group.private_networking)
                    set=group.set(|group, on| group.private_networking = on)
                />
                <CheckboxField
                    at=group.place(NodeGroup::LOCAL_NVME_RAID0)
                    checked=group.get(|group| group.local_nvme_raid0)
                    set=group.set(|group, on| group.local_nvme_raid0 = on)
                />
                <CheckboxField
                    at=group.place(NodeGroup::NODE_REPAIR)
                    checked=group.get(|group| group.node_repair)
                    set=group.set(|group, on| group.node_repair = on)
                />
            </div>
            <Show when=move || repair_shown.get()>
                <RepairSettings group=repair_group.clone() />
            </Show>
            <div class="grid">
                <ListField
                    at=group.place(NodeGroup::LABELS)
                    placeholder="team=ml, workload=training"
                    value=group.get(|group| items::map_to_items(&group.labels))
                    set=group.set(|group, labels: Vec<String>| group.labels = items::items_to_map(&labels))
                />
                <ListField
                    at=group.place(NodeGroup::TAINTS)
                    placeholder="nvidia.com/gpu:NoSchedule"
                    value=group.get(taint_items)
                    set=group.set(|group, taints: Vec<String>| group.taints = taints.iter().map(|item| taint_of(item)).collect())
                />
            </div>
            <fieldset class="policies">
                <legend>"IAM add-on policies"</legend>
                <div class="grid checks">
                    <CheckboxField
                        at=policies.place(AddonPolicies::AUTO_SCALER_POLICY)
                        checked=policies.get(|policies| policies.auto_scaler)
                        set=policies.set(|policies, on| policies.auto_scaler = on)
                    />
                    <CheckboxField
                        at=policies.place(AddonPolicies::CLOUD_WATCH_POLICY)
                        checked=policies.get(|policies| policies.cloud_watch)
                        set=policies.set(|policies, on| policies.cloud_watch = on)
                    />
                    <CheckboxField
                        at=policies.place(AddonPolicies::EBS_POLICY)
                        checked=policies.get(|policies| policies.ebs)
                        set=policies.set(|policies, on| policies.ebs = on)
                    />
                    <CheckboxField
                        at=policies.place(AddonPolicies::FSX_POLICY)
                        checked=policies.get(|policies| policies.fsx)
                        set=policies.set(|policies, on| policies.fsx = on)
                    />
                </div>
            </fieldset>
            <FieldFindings path=group_path />
            <button
                type="button"
                class="remove"
                on:click=move |_| {
                    studio.spec.update(|spec| {
                        if index < spec.node_groups.len() {
                            spec.node_groups.remove(index);
                        }
                    })
                }
            >
                {format!("Remove node group {}", index + 1)}
            </button>
        </fieldset>
    }
}

/// Every node group, with add and remove.
#[component]
pub fn NodeGroupsStep() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let count = Memo::new(move |_| studio.spec.with(|spec| spec.node_groups.len()));
    let auto_mode = Memo::new(move |_| studio.spec.with(|spec| spec.cluster.auto_mode_enabled()));
    let add = move |gpu: bool| {
        studio.spec.update(|spec| {
            let group = shared::templates::added_group(spec, gpu);
            spec.node_groups.push(group);
        })
    };
    view! {
        <section class="step" aria-labelledby="step-title-4">
            <StepHeading step=Step::NodeGroups />
            <datalist id="ami-families">
                <option value="AmazonLinux2023"></option>
                <option value="AmazonLinux2"></option>
                <option value="Bottlerocket"></option>
                <option value="Ubuntu2204"></option>
                <option value="Ubuntu2404"></option>
            </datalist>
            <Show when=move || auto_mode.get()>
                <p class="hint">
                    "EKS Auto Mode is on: AWS runs the nodes, from its built-in pools and the Auto Mode NodePools listed in the Cluster step. eksctl refuses node groups in the same file; add them after the cluster exists (eksctl create nodegroup)."
                </p>
            </Show>
            <FieldFindings path="node_groups" />
            {move || (0..count.get()).map(|index| view! { <NodeGroupEditor index=index /> }).collect_view()}
            <div class="actions">
                <button type="button" on:click=move |_| add(false)>"Add CPU system group"</button>
                <button type="button" on:click=move |_| add(true)>"Add GPU group"</button>
            </div>
        </section>
    }
}

/// Auto-repair's limits (each a count or a percentage; EKS takes one of each pair) and
/// its per-condition overrides, shown while auto-repair is on or a limit is set.
#[component]
fn RepairSettings(group: Bound<NodeGroup>) -> impl IntoView {
    let settings = field!(group, node_repair_config);
    let number =
        |field: fields::Field,
         read: fn(&shared::model::spec::NodeRepairSettings) -> Option<u32>,
         write: fn(&mut shared::model::spec::NodeRepairSettings, Option<u32>)| {
            view! {
                <NumberField
                    at=settings.place(field)
                    value=settings.get(read)
                    set=settings.set(write)
                />
            }
        };
    let add = settings.clone();
    view! {
        <div class="grid">
            {number(
                NodeRepairSettings::UNHEALTHY_COUNT,
                |s| s.max_unhealthy_node_threshold_count,
                |s, v| s.max_unhealthy_node_threshold_count = v,
            )}
            {number(
                NodeRepairSettings::UNHEALTHY_PERCENTAGE,
                |s| s.max_unhealthy_node_threshold_percentage,
                |s, v| s.max_unhealthy_node_threshold_percentage = v,
            )}
            {number(
                NodeRepairSettings::PARALLEL_COUNT,
                |s| s.max_parallel_nodes_repaired_count,
                |s, v| s.max_parallel_nodes_repaired_count = v,
            )}
            {number(
                NodeRepairSettings::PARALLEL_PERCENTAGE,
                |s| s.max_parallel_nodes_repaired_percentage,
                |s, v| s.max_parallel_nodes_repaired_percentage = v,
            )}
        </div>
        <Rows
            list=field!(settings, node_repair_config_overrides)
            noun="Repair override"
            class="repair-override"
            row=repair_override_row
            add_label="Add repair override"
            add=move || add.write(|settings| {
                settings.node_repair_config_overrides.push(RepairOverride {
                    min_repair_wait_time_mins: 10,
                    repair_action: "Reboot".into(),
                    ..RepairOverride::default()
                });
            })
        />
    }
}

fn repair_override_row(entry: Bound<RepairOverride>) -> impl IntoView {
    view! {
        <TextField
            at=entry.place(RepairOverride::REPAIR_CONDITION)
            placeholder="AcceleratedHardwareReady"
            value=entry.get(|entry| entry.node_monitoring_condition.clone())
            set=entry.set(|entry, condition| entry.node_monitoring_condition = condition)
        />
        <TextField
            at=entry.place(RepairOverride::REPAIR_REASON)
            placeholder="NvidiaXID13Error"
            value=entry.get(|entry| entry.node_unhealthy_reason.clone())
            set=entry.set(|entry, reason| entry.node_unhealthy_reason = reason)
        />
        <NumberField
            at=entry.place(RepairOverride::REPAIR_WAIT)
            value=entry.get(|entry| Some(entry.min_repair_wait_time_mins))
            set=entry.set(|entry, minutes: Option<u32>| entry.min_repair_wait_time_mins = minutes.unwrap_or(0))
        />
        <SelectField
            at=entry.place(RepairOverride::REPAIR_ACTION)
            options=options(&[("Replace", "Replace"), ("Reboot", "Reboot"), ("NoAction", "No action")])
            value=entry.get(|entry| entry.repair_action.clone())
            set=entry.set(|entry, action: String| entry.repair_action = action)
        />
    }
}
