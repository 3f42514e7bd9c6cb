//! "Open a running cluster" on the Start step: a region, the clusters the server's AWS
//! account runs there, and one opened, read into the design, which the Review step then
//! plans against it.
//!
//! A first visit does not need it: in the page's build (`--cfg page_split`) the panel is
//! a split point of its own, fetched when the user opens it, like the steps past Start
//! (`page::split`) and the reader (`codec::reading`), whose generated loader is declared
//! as an `unsafe extern` import.
#![allow(unsafe_code)]

use leptos::prelude::*;

use crate::state::studio::Studio;
use crate::widgets::deploy_panel::{DeployTokenField, Deploys};
use crate::widgets::disclosure::LazyDisclosure;

/// The panel behind a disclosure: its code is loaded when it is first opened.
#[component]
pub fn RunningClusterOpener() -> impl IntoView {
    view! {
        <LazyDisclosure
            class="running-opener"
            summary_id="open-running-cluster"
            summary=Signal::stored("Open a running cluster…".to_owned())
            load=|| Box::pin(split::load())
            show=split::view
        />
    }
}

/// A region, the clusters the server's AWS account runs there, and one opened: read into
/// the design, which the Review step then plans against it.
#[component]
fn RunningClusterPanel() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let deploys = expect_context::<Deploys>();
    let region = RwSignal::new(studio.spec.with_untracked(|spec| {
        let region = spec.cluster.region.trim();
        if region.starts_with("PLACEHOLDER") {
            String::new()
        } else {
            region.to_owned()
        }
    }));
    // None: not asked; Some(Err): why not; Some(Ok): the names.
    let clusters = RwSignal::new(None::<Result<Vec<String>, String>>);
    let status = RwSignal::new(String::new());
    let listing = RwSignal::new(false);
    let list = move || {
        let asked = region.get_untracked().trim().to_owned();
        listing.set(true);
        status.set(String::new());
        leptos::task::spawn_local(async move {
            let answer = crate::server::api::list_clusters(&deploys.token(), &asked).await;
            listing.set(false);
            clusters.set(Some(answer));
        });
    };
    let open = move |name: String| {
        let asked = region.get_untracked().trim().to_owned();
        status.set(format!("Reading cluster `{name}`…"));
        leptos::task::spawn_local(async move {
            let read = match crate::server::api::read_cluster(&deploys.token(), &asked, &name).await
            {
                Ok(read) => read,
                Err(error) => {
                    status.set(format!("Could not read `{name}`: {error}"));
                    return;
                }
            };
            let current = studio.spec.get_untracked();
            let design = crate::codec::reading::read_later(
                crate::codec::reading::Reading::Saved,
                read.spec_json,
                current,
            )
            .await;
            match design {
                Ok((spec, _)) => {
                    let gaps = read.not_read.len();
                    studio.open_running(
                        spec,
                        crate::state::running::RunningCluster {
                            region: asked,
                            cluster: name.clone(),
                            not_read: read.not_read,
                        },
                    );
                    status.set(format!(
                        "Read cluster `{name}`; {gaps} part(s) could not be read (listed in Review). Review and ship shows what your changes would do to it."
                    ));
                }
                Err(error) => status.set(format!("Could not read `{name}`: {}", error.message)),
            }
        });
    };
    let names = move || {
        match clusters.get() {
        None => ().into_any(),
        Some(Err(error)) => view! { <p class="error" role="alert">{format!("Could not list clusters: {error}")}</p> }.into_any(),
        Some(Ok(names)) if names.is_empty() => {
            view! { <p>"No EKS clusters in this region."</p> }.into_any()
        }
        Some(Ok(names)) => view! {
            <ul class="running-clusters">
                {names
                    .into_iter()
                    .map(|name| {
                        let label = format!("Open {name}");
                        let opened = name.clone();
                        view! {
                            <li>
                                <span class="cluster-name">{name}</span>
                                <button type="button" aria-label=label on:click=move |_| open(opened.clone())>"Open"</button>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        }
        .into_any(),
    }
    };
    view! {
        <div class="running-cluster">
            <DeployTokenField id="running-token" />
            <label for="running-region">"Region"</label>
            <input
                id="running-region"
                type="text"
                placeholder="us-east-2"
                prop:value=move || region.get()
                on:input=move |event| region.set(event_target_value(&event))
            />
            <button
                type="button"
                id="list-clusters"
                prop:disabled=move || listing.get() || region.with(|region| region.trim().is_empty())
                on:click=move |_| list()
            >
                {move || if listing.get() { "Listing…" } else { "List clusters" }}
            </button>
            {names}
            <p role="status" id="running-status">{move || status.get()}</p>
        </div>
    }
}

#[cfg(page_split)]
mod split {
    use leptos::prelude::*;
    use leptos::wasm_split::{SplitLoaderError, wasm_split};

    use crate::codec::reading::ready_now;

    #[wasm_split(running_cluster, wasm_split_path = ::leptos::wasm_split, preload(preload_running_cluster), fallible)]
    fn running_cluster_view() -> Result<AnyView, SplitLoaderError> {
        Ok(view! { <super::RunningClusterPanel /> }.into_any())
    }

    /// Fetches the panel's file; false when it could not be loaded.
    pub async fn load() -> bool {
        preload_running_cluster().await.is_ok()
    }

    /// The loaded panel.
    pub fn view() -> Option<AnyView> {
        ready_now(running_cluster_view())
    }
}

#[cfg(not(page_split))]
mod split {
    use leptos::prelude::*;

    pub async fn load() -> bool {
        true
    }

    pub fn view() -> Option<AnyView> {
        Some(view! { <super::RunningClusterPanel /> }.into_any())
    }
}
