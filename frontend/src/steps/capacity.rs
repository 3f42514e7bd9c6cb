//! How each node group's instances are obtained, and where: a reservation lives in one
//! availability zone, so the zone or subnet a group is pinned to is chosen here, next to
//! it. Conflicting choices are explained by the findings shown under each control.

use leptos::prelude::*;
use shared::model::spec::{Capacity, GroupPlacement, Network, NodeGroup};

use crate::state::step::Step;
use crate::state::step::field_id;
use crate::state::studio::Studio;
use crate::widgets::fields::{ListField, NumberField, SelectField, TextField, options};
use crate::widgets::heading::StepHeading;

/// Items of a list field (a plain name, as `view!` attribute closures need).
type Items = Vec<String>;

fn capacity_kind(capacity: &Capacity) -> &'static str {
    match capacity {
        Capacity::OnDemand => "on-demand",
        Capacity::Reservation { .. } => "reservation",
        Capacity::CapacityBlock { .. } => "capacity-block",
        Capacity::Spot => "spot",
    }
}

fn reservation_id(capacity: &Capacity) -> Option<&String> {
    match capacity {
        Capacity::Reservation { reservation_id } | Capacity::CapacityBlock { reservation_id } => {
            Some(reservation_id)
        }
        Capacity::OnDemand | Capacity::Spot => None,
    }
}

/// Switches the capacity type, keeping a reservation id already typed.
fn set_capacity_kind(group: &mut NodeGroup, kind: &str) {
    let kept = reservation_id(&group.capacity).cloned().unwrap_or_default();
    group.capacity = match kind {
        "reservation" => Capacity::Reservation {
            reservation_id: kept,
        },
        "capacity-block" => Capacity::CapacityBlock {
            reservation_id: kept,
        },
        "spot" => Capacity::Spot,
        _ => Capacity::OnDemand,
    };
}

fn placement_kind(placement: &GroupPlacement) -> &'static str {
    match placement {
        GroupPlacement::Cluster => "cluster",
        GroupPlacement::Subnets { .. } => "subnets",
        GroupPlacement::AvailabilityZones { .. } => "availability-zones",
    }
}

fn set_placement_kind(group: &mut NodeGroup, kind: &str) {
    group.placement = match kind {
        "subnets" => GroupPlacement::Subnets {
            subnets: Vec::new(),
        },
        "availability-zones" => GroupPlacement::AvailabilityZones {
            availability_zones: Vec::new(),
        },
        _ => GroupPlacement::Cluster,
    };
}

/// The existing VPC's subnets as "name (id, zone)", for the subnet hint.
fn known_subnets(network: &Network) -> String {
    match network {
        Network::ExistingVpc {
            public_subnets,
            private_subnets,
            ..
        } => private_subnets
            .iter()
            .chain(public_subnets)
            .map(|subnet| {
                let zone = subnet
                    .availability_zone
                    .as_deref()
                    .unwrap_or("zone unknown");
                format!("{} ({}, {zone})", subnet.name, subnet.id)
            })
            .collect::<Vec<_>>()
            .join("; "),
        Network::NewVpc { .. } => {
            "eksctl creates the subnets of a new VPC: pin the group to an availability zone instead"
                .to_owned()
        }
    }
}

/// Capacity and placement of one group.
#[component]
fn GroupCapacity(index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let group = crate::steps::node_groups::bound_group(studio, index);
    let kind = Memo::new({
        let group = group.clone();
        move |_| group.read(|group| capacity_kind(&group.capacity))
    });
    let placement = Memo::new({
        let group = group.clone();
        move |_| group.read(|group| placement_kind(&group.placement))
    });
    let title = group.get(|group| format!("{} ({})", group.name, group.instance_type));
    let (reserved, subnets, zones, window) =
        (group.clone(), group.clone(), group.clone(), group.clone());
    view! {
        <fieldset class="group" id=format!("{}-capacity-group", field_id(group.path())) tabindex="-1">
            <legend>{title}</legend>
            <SelectField
                at=group.place(NodeGroup::CAPACITY)
                options=options(&[
                    ("on-demand", "On-Demand"),
                    ("reservation", "On-Demand Capacity Reservation (ODCR)"),
                    ("capacity-block", "Capacity Block for ML"),
                    ("spot", "Spot"),
                ])
                value=Signal::derive(move || kind.get().to_owned())
                set=group.set(|group, new_kind: String| set_capacity_kind(group, &new_kind))
            />
            <Show when=move || matches!(kind.get(), "reservation" | "capacity-block")>
                <TextField
                    at=reserved.place(NodeGroup::RESERVATION_ID)
                    placeholder="cr-0123456789abcdef0"
                    value=reserved.get(|group| reservation_id(&group.capacity).cloned().unwrap_or_default())
                    set=reserved.set(|group, id: String| {
                        if let Capacity::Reservation { reservation_id } | Capacity::CapacityBlock { reservation_id } =
                            &mut group.capacity
                        {
                            *reservation_id = id;
                        }
                    })
                />
            </Show>
            <Show when=move || kind.get() == "capacity-block">
                <p class="hint">
                    "eksctl launches the group with marketType capacity-block. The block's window, as bought (UTC, e.g. 2026-12-10 11:30), lets the studio say when to scale the group and what the run risks; live checks read it from EC2 instead."
                </p>
                <div class="grid block-window">
                    <TextField
                        at=window.place(NodeGroup::BLOCK_STARTS)
                        placeholder="2026-12-10 11:30"
                        value=window.get(|group| group.block_window.starts.clone())
                        set=window.set(|group, text: String| group.block_window.starts = text)
                    />
                    <TextField
                        at=window.place(NodeGroup::BLOCK_ENDS)
                        placeholder="2026-12-17 11:30"
                        value=window.get(|group| group.block_window.ends.clone())
                        set=window.set(|group, text: String| group.block_window.ends = text)
                    />
                    <NumberField
                        at=window.place(NodeGroup::BLOCK_CHECKPOINT)
                        value=window.get(|group| group.block_window.checkpoint_minutes)
                        set=window.set(|group, minutes: Option<u32>| group.block_window.checkpoint_minutes = minutes)
                    />
                    <TextField
                        at=window.place(NodeGroup::BLOCK_NEEDED_UNTIL)
                        placeholder="2026-12-20"
                        value=window.get(|group| group.block_window.needed_until.clone())
                        set=window.set(|group, text: String| group.block_window.needed_until = text)
                    />
                </div>
            </Show>
            <SelectField
                at=group.place(NodeGroup::PLACEMENT)
                options=options(&[
                    ("cluster", "Any of the cluster's subnets"),
                    ("subnets", "Only these subnets"),
                    ("availability-zones", "Only this availability zone"),
                ])
                value=Signal::derive(move || placement.get().to_owned())
                set=group.set(|group, new_kind: String| set_placement_kind(group, &new_kind))
            />
            {
                move || match placement.get() {
                    "subnets" => view! {
                        <ListField
                            at=subnets.place(NodeGroup::PLACEMENT_SUBNETS)
                            placeholder="private-one"
                            value=subnets.get(|group| match &group.placement {
                                GroupPlacement::Subnets { subnets } => subnets.clone(),
                                _ => Vec::new(),
                            })
                            set=subnets.set(|group, items: Items| {
                                group.placement = GroupPlacement::Subnets { subnets: items };
                            })
                        />
                        <p class="hint">
                            "Names or ids of the VPC's subnets: "
                            {move || studio.spec.with(|spec| known_subnets(&spec.network))}
                        </p>
                    }
                    .into_any(),
                    "availability-zones" => view! {
                        <ListField
                            at=zones.place(NodeGroup::PLACEMENT_ZONES)
                            placeholder=Signal::derive(move || studio.spec.with(|spec| shared::model::ids::example_zones(&spec.cluster.region, 1)))
                            value=zones.get(|group| match &group.placement {
                                GroupPlacement::AvailabilityZones { availability_zones } => availability_zones.clone(),
                                _ => Vec::new(),
                            })
                            set=zones.set(|group, items: Items| {
                                group.placement = GroupPlacement::AvailabilityZones { availability_zones: items };
                            })
                        />
                    }
                    .into_any(),
                    _ => ().into_any(),
                }
            }
            <TextField
                at=group.place(NodeGroup::PLACEMENT_GROUP)
                placeholder="empty: eksctl's choice"
                value=group.get(|group| group.placement_group.clone())
                set=group.set(|group, name: String| group.placement_group = name)
            />
            <p class="hint">
                "An existing EC2 placement group (eksctl placement.groupName). Left empty, eksctl makes a cluster placement group for an EFA group that uses no reservation; a reservation must have been made in the group named here."
            </p>
        </fieldset>
    }
}

/// Capacity type and placement for every node group.
#[component]
pub fn CapacityStep() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let count = Memo::new(move |_| studio.spec.with(|spec| spec.node_groups.len()));
    view! {
        <section class="step" aria-labelledby="step-title-5">
            <StepHeading step=Step::Capacity />
            <p class="hint">
                "On-Demand, an On-Demand Capacity Reservation, a Capacity Block for ML, or Spot, per node group. "
                "A reservation lives in one availability zone: pin the group to it."
            </p>
            {move || (0..count.get()).map(|index| view! { <GroupCapacity index=index /> }).collect_view()}
            <Show when=move || count.get() == 0>
                <p>"No node groups: add one in the Node groups step."</p>
            </Show>
        </section>
    }
}
