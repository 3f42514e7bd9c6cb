//! A new VPC needs only its zones; an existing one needs its id and the subnets the
//! cluster may use, each with the zone it is in.

use leptos::prelude::*;
use shared::Spec;
use shared::fields;
use shared::model::spec::{Network, Subnet};

use crate::state::step::Step;
use crate::state::studio::Studio;
use crate::widgets::bind::Bound;
use crate::widgets::fields::{
    FieldFindings, ListField, OptionalTextField, SelectField, TextField, options,
};
use crate::widgets::heading::StepHeading;

fn subnets(spec: &Spec, private: bool) -> Option<&Vec<Subnet>> {
    match &spec.network {
        Network::ExistingVpc {
            public_subnets,
            private_subnets,
            ..
        } => Some(if private {
            private_subnets
        } else {
            public_subnets
        }),
        Network::NewVpc { .. } => None,
    }
}

fn subnets_mut(spec: &mut Spec, private: bool) -> Option<&mut Vec<Subnet>> {
    match &mut spec.network {
        Network::ExistingVpc {
            public_subnets,
            private_subnets,
            ..
        } => Some(if private {
            private_subnets
        } else {
            public_subnets
        }),
        Network::NewVpc { .. } => None,
    }
}

/// Switches between a new and an existing VPC, carrying the zones across.
fn set_mode(spec: &mut Spec, mode: &str) {
    let zones = spec.network.zones();
    spec.network = match mode {
        "existing-vpc" => Network::ExistingVpc {
            vpc_id: String::new(),
            public_subnets: Vec::new(),
            private_subnets: zones
                .iter()
                .enumerate()
                .map(|(idx, zone)| Subnet {
                    name: format!("private-{}", idx + 1),
                    availability_zone: Some(zone.clone()),
                    ..Subnet::default()
                })
                .collect(),
        },
        _ => Network::NewVpc {
            availability_zones: zones,
        },
    };
}

/// One subnet: local name, id and zone.
#[component]
fn SubnetRow(private: bool, index: usize) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let spec = studio.spec;
    let kind = if private { "private" } else { "public" };
    let object = if private {
        fields::PRIVATE_SUBNET
    } else {
        fields::PUBLIC_SUBNET
    };
    let subnet = Bound::new(
        studio,
        fields::item(object, &[index]),
        move |spec| subnets(spec, private).and_then(|subnets| subnets.get(index)),
        move |spec| subnets_mut(spec, private).and_then(|subnets| subnets.get_mut(index)),
    );
    view! {
        <fieldset class="row subnet" id=crate::state::step::field_id(subnet.path()) tabindex="-1">
            <legend>{format!("{} subnet {}", if private { "Private" } else { "Public" }, index + 1)}</legend>
            <TextField
                at=subnet.place(Subnet::NAME)
                value=subnet.get(|subnet| subnet.name.clone())
                set=subnet.set(|subnet, name| subnet.name = name)
            />
            <TextField
                at=subnet.place(Subnet::ID)
                placeholder="subnet-0123456789abcdef0"
                value=subnet.get(|subnet| subnet.id.clone())
                set=subnet.set(|subnet, id| subnet.id = id)
            />
            <OptionalTextField
                at=subnet.place(Subnet::ZONE)
                placeholder=Signal::derive(move || spec.with(|spec| shared::model::ids::example_zones(&spec.cluster.region, 1)))
                value=subnet.get(|subnet| subnet.availability_zone.clone())
                set=subnet.set(|subnet, zone| subnet.availability_zone = zone)
            />
            <button
                type="button"
                class="remove"
                on:click=move |_| {
                    spec.update(|spec| {
                        if let Some(subnets) = subnets_mut(spec, private)
                            && index < subnets.len()
                        {
                            subnets.remove(index);
                        }
                    })
                }
            >
                {format!("Remove {kind} subnet {}", index + 1)}
            </button>
        </fieldset>
    }
}

/// The public or the private subnets, with add and remove.
#[component]
fn SubnetList(private: bool) -> impl IntoView {
    let spec = expect_context::<Studio>().spec;
    let kind = if private { "private" } else { "public" };
    let count = Memo::new(move |_| spec.with(|spec| subnets(spec, private).map_or(0, Vec::len)));
    view! {
        <div class="subnet-list" id=crate::state::step::field_id(&format!("network.{kind}_subnets")) tabindex="-1">
            <h3>{if private { "Private subnets" } else { "Public subnets" }}</h3>
            <FieldFindings path=format!("network.{kind}_subnets") />
            {move || (0..count.get()).map(|index| view! { <SubnetRow private=private index=index /> }).collect_view()}
            <button
                type="button"
                on:click=move |_| {
                    spec.update(|spec| {
                        if let Some(subnets) = subnets_mut(spec, private) {
                            let number = subnets.len() + 1;
                            subnets.push(Subnet { name: format!("{kind}-{number}"), ..Subnet::default() });
                        }
                    })
                }
            >
                {format!("Add {kind} subnet")}
            </button>
        </div>
    }
}

/// New VPC (zones) or existing VPC (id and subnets).
#[component]
pub fn NetworkStep() -> impl IntoView {
    let spec = expect_context::<Studio>().spec;
    let mode = Memo::new(move |_| {
        spec.with(|spec| match spec.network {
            Network::NewVpc { .. } => "new-vpc",
            Network::ExistingVpc { .. } => "existing-vpc",
        })
    });
    view! {
        <section class="step" aria-labelledby="step-title-3">
            <StepHeading step=Step::Network />
            <FieldFindings path="network" />
            <SelectField
                at=Network::VPC_MODE
                options=options(&[("new-vpc", "New VPC created by eksctl"), ("existing-vpc", "Existing VPC")])
                value=Signal::derive(move || mode.get().to_owned())
                set=move |new_mode: String| spec.update(|spec| set_mode(spec, &new_mode))
            />
            {move || match mode.get() {
                "new-vpc" => view! {
                    <ListField
                        at=Network::AVAILABILITY_ZONES
                        placeholder=Signal::derive(move || spec.with(|spec| shared::model::ids::example_zones(&spec.cluster.region, 2)))
                        value=Signal::derive(move || spec.with(|spec| match &spec.network {
                            Network::NewVpc { availability_zones } => availability_zones.clone(),
                            Network::ExistingVpc { .. } => Vec::new(),
                        }))
                        set=move |zones| spec.update(|spec| {
                            if let Network::NewVpc { availability_zones } = &mut spec.network {
                                *availability_zones = zones;
                            }
                        })
                    />
                    <TextField
                        at=Spec::VPC_CIDR
                        placeholder="192.168.0.0/16 (eksctl's default)"
                        value=Signal::derive(move || spec.with(|spec| spec.vpc_cidr().unwrap_or_default().to_owned()))
                        set=move |cidr: String| spec.update(|spec| spec.set_vpc_cidr(&cidr))
                    />
                }
                .into_any(),
                _ => view! {
                    <TextField
                        at=Network::VPC_ID
                        placeholder="vpc-0123456789abcdef0"
                        value=Signal::derive(move || spec.with(|spec| match &spec.network {
                            Network::ExistingVpc { vpc_id, .. } => vpc_id.clone(),
                            Network::NewVpc { .. } => String::new(),
                        }))
                        set=move |id| spec.update(|spec| {
                            if let Network::ExistingVpc { vpc_id, .. } = &mut spec.network {
                                *vpc_id = id;
                            }
                        })
                    />
                    <SubnetList private=true />
                    <SubnetList private=false />
                }
                .into_any(),
            }}
        </section>
    }
}
