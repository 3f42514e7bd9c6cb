//! Inputs write straight into the spec; the rules, not the inputs, decide what is valid,
//! so a half-typed value is kept as typed.

use leptos::prelude::*;

use crate::server::api::{self, WhereSold as Answer};
use crate::state::step::Step;
use crate::state::studio::Studio;
use crate::widgets::bind::Bound;
use crate::widgets::fields::{CheckboxField, SelectField, TextField, options};
use crate::widgets::heading::StepHeading;
use shared::model::spec::{AutoMode, ClusterSettings};

/// The built-in node pools as the select shows them: eksctl's default (no list), one of the
/// lists it takes, or what an imported file said otherwise.
fn node_pools_choice(pools: Option<&Vec<String>>) -> String {
    match pools.map(|pools| pools.iter().map(String::as_str).collect::<Vec<_>>()) {
        None => "default".to_owned(),
        Some(pools) => match pools.as_slice() {
            [] => "none".to_owned(),
            ["general-purpose", "system"] => "both".to_owned(),
            ["general-purpose"] => "general-purpose".to_owned(),
            ["system"] => "system".to_owned(),
            _ => "as-imported".to_owned(),
        },
    }
}

/// EKS Auto Mode (`autoModeConfig`): on or off, its built-in node pools and node role.
#[component]
fn AutoModeSettings() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let spec = studio.spec;
    let enabled = Memo::new(move |_| spec.with(|spec| spec.cluster.auto_mode_enabled()));
    let auto = move |change: &dyn Fn(&mut shared::model::spec::AutoMode)| {
        spec.update(|spec| change(spec.cluster.auto_mode.get_or_insert_with(Default::default)));
    };
    let pools = Memo::new(move |_| {
        spec.with(|spec| {
            node_pools_choice(
                spec.cluster
                    .auto_mode
                    .as_ref()
                    .and_then(|auto| auto.node_pools.as_ref()),
            )
        })
    });
    let pool_options = move || {
        let mut choices = options(&[
            ("default", "general-purpose and system (eksctl's default)"),
            ("both", "general-purpose and system, listed"),
            ("general-purpose", "general-purpose only"),
            ("system", "system only"),
            ("none", "none: only NodePools you add"),
        ]);
        if pools.get_untracked() == "as-imported" {
            let listed = spec.with_untracked(|spec| {
                spec.cluster
                    .auto_mode
                    .as_ref()
                    .and_then(|auto| auto.node_pools.clone())
                    .unwrap_or_default()
                    .join(", ")
            });
            choices.push(("as-imported".to_owned(), format!("as imported: {listed}")));
        }
        choices
    };
    let auto_mode = Bound::new(
        studio,
        "cluster.auto_mode",
        |spec| spec.cluster.auto_mode.as_ref(),
        |spec| spec.cluster.auto_mode.as_mut(),
    );
    view! {
        <CheckboxField
            at=ClusterSettings::AUTO_MODE_ON
            checked=enabled
            set=move |on: bool| {
                spec.update(|spec| {
                    let auto = spec.cluster.auto_mode.get_or_insert_with(Default::default);
                    auto.enabled = on;
                    if *auto == shared::model::spec::AutoMode::default() {
                        spec.cluster.auto_mode = None;
                    }
                })
            }
        />
        <Show when=move || enabled.get()>
            <p class="hint">
                "With Auto Mode on, eksctl creates no node groups and no vpc-cni, kube-proxy or coredns add-ons with the cluster: Auto Mode's built-in pools run the system pods, and GPU nodes come from NodePools on its eks.amazonaws.com NodeClass."
            </p>
            {move || view! {
                <SelectField
                    at=AutoMode::BUILT_IN_POOLS
                    nested=true
                    options=pool_options()
                    value=pools
                    set=move |choice: String| auto(&|auto| {
                        auto.node_pools = match choice.as_str() {
                            "default" => None,
                            "both" => Some(shared::model::spec::AutoMode::NODE_POOLS.map(str::to_owned).to_vec()),
                            "none" => Some(Vec::new()),
                            "general-purpose" | "system" => Some(vec![choice.clone()]),
                            _ => auto.node_pools.clone(),
                        };
                    })
                />
            }}
            <TextField
                at=AutoMode::NODE_ROLE
                placeholder="empty: eksctl creates the role"
                value=auto_mode.get(|auto| auto.node_role_arn.clone())
                set=auto_mode.set(|auto, arn: String| auto.node_role_arn = arn)
            />
            <TextField
                at=AutoMode::BOUNDARY
                placeholder="empty: none"
                value=auto_mode.get(|auto| auto.permissions_boundary_arn.clone())
                set=auto_mode.set(|auto, arn: String| auto.permissions_boundary_arn = arn)
            />
        </Show>
        <crate::steps::auto_mode_pools::AutoModePools />
    }
}

/// The node groups' GPU and Neuron instance types, each once, at most four (Karpenter's
/// pools are left out: one may allow hundreds of types).
fn accelerated_types(studio: Studio) -> Vec<String> {
    studio.spec.with(|spec| {
        let mut types: Vec<String> = Vec::new();
        for group in &spec.node_groups {
            let accelerated = shared::catalog::instances::lookup(&group.instance_type)
                .is_some_and(|known| known.gpu_count > 0 || known.neuron);
            if accelerated && !types.contains(&group.instance_type) && types.len() < 4 {
                types.push(group.instance_type.clone());
            }
        }
        types
    })
}

/// One line on where a type is sold, from EC2's answer.
fn sold_line(entry: &shared::model::live_checks::TypeRegions, region: &str) -> (String, bool) {
    let here = entry.regions.iter().any(|offered| offered == region);
    let mut line = if entry.regions.is_empty() {
        format!(
            "{}: offered in none of the account's regions",
            entry.instance_type
        )
    } else {
        format!(
            "{}: offered in {}: {}",
            entry.instance_type,
            crate::state::studio::counted(entry.regions.len(), "region"),
            entry.regions.join(", ")
        )
    };
    if !here {
        line.push_str(&format!(" (not in {region})"));
    }
    let known = shared::catalog::instances::lookup(&entry.instance_type);
    if known.is_some_and(|known| known.capacity_block_eligible) {
        let unit = if known.is_some_and(|known| known.capacity_blocks_only) {
            "one UltraServer"
        } else {
            "one instance"
        };
        if entry.capacity_blocks.is_empty() {
            line.push_str(&format!(
                "; no Capacity Blocks on sale for {unit} for a day"
            ));
        } else {
            let blocks: Vec<String> = entry
                .capacity_blocks
                .iter()
                .map(|block| {
                    let mut said: Vec<String> = block.ultraserver_type.iter().cloned().collect();
                    if let Some(start) = &block.earliest_start {
                        said.push(format!("from {}", shared::rules::readable_time(start)));
                    }
                    if said.is_empty() {
                        block.region.clone()
                    } else {
                        format!("{} ({})", block.region, said.join(", "))
                    }
                })
                .collect();
            line.push_str(&format!(
                "; Capacity Blocks on sale in {}",
                blocks.join(", ")
            ));
        }
    }
    if !entry.unanswered.is_empty() {
        line.push_str(&format!(
            "; {} could not be asked",
            crate::state::studio::counted(entry.unanswered.len(), "region")
        ));
    }
    (line, here)
}

/// Asks EC2 in which regions the design's GPU and Neuron types are offered, and where
/// Capacity Blocks for them are on sale.
#[component]
fn WhereSold() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let answer: RwSignal<Option<Result<Answer, String>>> = RwSignal::new(None);
    let asking = RwSignal::new(false);
    // Memos, so a keystroke elsewhere in the design (the cluster name) re-runs nothing here.
    let region = Memo::new(move |_| {
        studio
            .spec
            .with(|spec| spec.cluster.region.trim().to_owned())
    });
    let types = Memo::new(move |_| accelerated_types(studio));
    let ask = move |_| {
        let region = region.get_untracked();
        let types = types.get_untracked();
        asking.set(true);
        leptos::task::spawn_local(async move {
            let found = api::where_sold(&region, &types).await;
            answer.set(Some(found));
            asking.set(false);
        });
    };
    let can_ask = move || {
        let region_known = region.with(|region| shared::model::ids::Region::parse(region).is_ok());
        region_known && types.with(|types| !types.is_empty()) && !asking.get()
    };
    view! {
        <div class="where-sold">
            <button type="button" on:click=ask prop:disabled=move || !can_ask()>
                "Where are the GPU types sold?"
            </button>
            <p class="hint">
                "Asks EC2 which regions offer the node groups' GPU and Neuron types, and where Capacity Blocks for them are on sale."
            </p>
            <div role="status" aria-live="polite">
                {move || {
                    if asking.get() {
                        return view! { <p>"Asking every region…"</p> }.into_any();
                    }
                    let region = region.get();
                    match answer.get() {
                        None => ().into_any(),
                        Some(Err(error)) => view! { <p class="could-not-run">{format!("Could not ask: {error}")}</p> }.into_any(),
                        Some(Ok(found)) if found.status != shared::model::live_checks::CheckStatus::Ok => {
                            view! { <p class="could-not-run">{format!("Could not ask EC2: {}", found.message)}</p> }.into_any()
                        }
                        Some(Ok(found)) => view! {
                            <ul class="sold">
                                {found
                                    .instance_types
                                    .iter()
                                    .map(|entry| {
                                        let (line, here) = sold_line(entry, &region);
                                        view! { <li class=if here { "" } else { "missing" }>{line}</li> }
                                    })
                                    .collect_view()}
                            </ul>
                        }
                        .into_any(),
                    }
                }}
            </div>
        </div>
    }
}

/// Cluster name, region, Kubernetes version and OIDC.
#[component]
pub fn ClusterStep() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let spec = studio.spec;
    let regions = shared::model::ids::REGION_NAMES
        .iter()
        .map(|(code, name)| view! { <option value=*code>{*name}</option> })
        .collect_view();
    let versions = shared::model::ids::KUBERNETES_VERSIONS
        .iter()
        .map(|version| view! { <option value=*version></option> })
        .collect_view();
    let cluster = Bound::new(
        studio,
        "cluster",
        |spec| Some(&spec.cluster),
        |spec| Some(&mut spec.cluster),
    );
    view! {
        <section class="step" aria-labelledby="step-title-2">
            <StepHeading step=Step::Cluster />
            <datalist id="regions">{regions}</datalist>
            <datalist id="kubernetes-versions">{versions}</datalist>
            <TextField
                at=ClusterSettings::NAME
                value=cluster.get(|cluster| cluster.name.clone())
                set=cluster.set(|cluster, name| cluster.name = name)
            />
            <TextField
                at=ClusterSettings::REGION
                placeholder="us-east-1"
                hint=Signal::derive(move || spec.with(|spec| shared::model::ids::region_name(&spec.cluster.region).unwrap_or_default().to_owned()))
                suggestions="regions"
                value=cluster.get(|cluster| cluster.region.clone())
                set=cluster.set(|cluster, region| cluster.region = region)
            />
            <WhereSold />
            <TextField
                at=ClusterSettings::KUBERNETES_VERSION
                placeholder=shared::templates::NEWEST_STANDARD_VERSION
                suggestions="kubernetes-versions"
                value=cluster.get(|cluster| cluster.kubernetes_version.clone())
                set=cluster.set(|cluster, version| cluster.kubernetes_version = version)
            />
            <CheckboxField
                at=ClusterSettings::WITH_OIDC
                checked=cluster.get(|cluster| cluster.with_oidc)
                set=cluster.set(|cluster, on| cluster.with_oidc = on)
            />
            <AutoModeSettings />
            <crate::steps::access_fields::AccessSettings />
        </section>
    }
}
