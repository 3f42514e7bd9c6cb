//! The browser keeps the work: the current spec is saved to localStorage as it changes and
//! restored on reload; named drafts sit beside it.
//!
//! A first visit has no drafts: in the page's build (`--cfg page_split`) the drafts'
//! panel is a split point of its own, fetched when the user opens it (at once when drafts
//! are saved), like the reader (`codec::reading`), whose generated loader is declared as
//! an `unsafe extern` import.
#![allow(unsafe_code)]

use std::collections::BTreeMap;
use std::time::Duration;

use leptos::prelude::*;
use shared::Spec;

use crate::state::studio::Studio;
use crate::widgets::disclosure::LazyDisclosure;

/// localStorage key of the spec being edited.
pub const AUTOSAVE_KEY: &str = "eks-studio.autosave";
/// localStorage key of the named drafts (a JSON object, name → spec).
pub const DRAFTS_KEY: &str = "eks-studio.drafts";
/// localStorage key of when each named draft was saved (name → ISO 8601 time).
pub const DRAFTS_SAVED_KEY: &str = "eks-studio.drafts-saved";
/// Key of the undo history saved with the design (`History::saved_text`).
pub const HISTORY_KEY: &str = "eks-studio.history";
/// localStorage key of the step the work was on (its number).
pub const STEP_KEY: &str = "eks-studio.step";
/// localStorage key of the running cluster the design is planned against (its region and
/// name, one per line).
pub const RUNNING_KEY: &str = "eks-studio.running";

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

/// The design saved as the user typed, as saved: the page opens on it, else on a template.
/// A share link in the address replaces it once read (see [`crate::widgets::share`]).
pub fn autosaved() -> Option<String> {
    storage()?.get_item(AUTOSAVE_KEY).ok().flatten()
}

/// The undo history saved with the design, if any.
pub fn saved_history() -> Option<String> {
    storage()?.get_item(HISTORY_KEY).ok().flatten()
}

/// The step the saved work was on, when there is saved work.
pub fn saved_step() -> Option<crate::state::step::Step> {
    let number: usize = storage()?.get_item(STEP_KEY).ok().flatten()?.parse().ok()?;
    crate::state::step::Step::ALL
        .get(number.checked_sub(1)?)
        .copied()
}

/// The running cluster the saved design was planned against, when it was.
pub fn saved_running() -> Option<crate::state::running::RunningCluster> {
    let text = storage()?.get_item(RUNNING_KEY).ok().flatten()?;
    let (region, cluster) = text.split_once('\n')?;
    Some(crate::state::running::RunningCluster {
        region: region.to_owned(),
        cluster: cluster.to_owned(),
        not_read: Vec::new(),
    })
}

/// Keeps the running cluster the design came from in localStorage, so a reload plans
/// against it again; a design from elsewhere (a template, an import) forgets it. Like the
/// autosave, it waits for the saved work to be read back.
pub fn remember_running(
    running: RwSignal<Option<crate::state::running::RunningCluster>>,
    ready: RwSignal<bool>,
) {
    Effect::new(move |_| {
        let place = running.with(|running| {
            running
                .as_ref()
                .map(|running| format!("{}\n{}", running.region, running.cluster))
        });
        if !ready.get() {
            return;
        }
        if let Some(storage) = storage() {
            let _ = match place {
                Some(place) => storage.set_item(RUNNING_KEY, &place),
                None => storage.remove_item(RUNNING_KEY),
            };
        }
    });
}

/// Keeps the step on screen in localStorage, so a reload opens where the work was.
/// Like the autosave, it waits for the saved work to be read back.
pub fn remember_step(step: RwSignal<crate::state::step::Step>, ready: RwSignal<bool>) {
    Effect::new(move |_| {
        let number = step.get().number();
        if !ready.get() {
            return;
        }
        if let Some(storage) = storage() {
            let _ = storage.set_item(STEP_KEY, &number.to_string());
        }
    });
}

/// Saves the spec to localStorage a moment after it changes, once `ready` (the saved
/// design has been read back, so the template the page starts with never overwrites it).
/// The design the page opened with is not saved again: a visit that changes nothing
/// leaves nothing new to read back. The first save also fetches the code that reads a
/// saved design, so the next visit finds it in the browser's cache.
pub fn autosave(
    spec: RwSignal<Spec>,
    history: crate::state::history::History,
    ready: RwSignal<bool>,
) {
    let failure = AutosaveFailure(RwSignal::new(None));
    provide_context(failure);
    // Saves the design's JSON, saying so when the browser refuses it.
    let keep = move |json: &str| {
        let refused = match storage() {
            None => Some("this browser keeps no local storage for the page".to_owned()),
            Some(storage) => storage.set_item(AUTOSAVE_KEY, json).err().map(|_| {
                format!(
                    "the browser refused to keep the design ({} KB): its storage for this page is full or smaller",
                    json.len().div_ceil(1024)
                )
            }),
        };
        failure.0.try_set(refused);
    };
    // The last keystrokes before the page goes away are kept too, not only those the timer
    // below reached (when the code that writes the design is loaded, which it is once a
    // design was saved).
    // The undo history goes with them: Undo after a reload goes on where it was.
    let leaving = move || {
        if !ready.get_untracked() {
            return;
        }
        if let Some(json) = spec
            .try_with_untracked(crate::codec::reading::json_if_loaded)
            .flatten()
        {
            keep(&json);
        }
        if let Some(storage) = storage() {
            let kept = history
                .saved_text(crate::codec::reading::json_if_loaded)
                .is_some_and(|text| storage.set_item(HISTORY_KEY, &text).is_ok());
            if !kept {
                // Nothing to undo, or more than the browser keeps: no stale history left
                // to come back around another design.
                let _ = storage.remove_item(HISTORY_KEY);
            }
        }
    };
    let _ = window_event_listener(leptos::ev::pagehide, move |_| leaving());
    let _ = window_event_listener(leptos::ev::visibilitychange, move |_| {
        if document().hidden() {
            leaving();
        }
    });
    let pending = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |opened: Option<bool>| {
        spec.track();
        if !ready.get() {
            return false;
        }
        if opened != Some(true) {
            return true;
        }
        if let Some(handle) = pending.get_value() {
            handle.clear();
        }
        let handle = set_timeout_with_handle(
            move || {
                pending.try_set_value(None);
                // The page may be gone by now (tests unmount it).
                let Some(design) = spec.try_get_untracked() else {
                    return;
                };
                // The code that writes JSON also reads a saved design back: once it is
                // here, the next visit finds it in the browser's cache.
                leptos::task::spawn_local(async move {
                    if let Ok(json) = crate::codec::reading::json_later(&design).await {
                        keep(&json);
                    }
                });
            },
            Duration::from_millis(200),
        )
        .ok();
        pending.set_value(handle);
        true
    });
}

/// Why the design typed last is not saved in the browser, when it is not: the page says so
/// instead of promising it comes back on reload.
#[derive(Clone, Copy)]
pub struct AutosaveFailure(pub RwSignal<Option<String>>);

/// The named drafts, name → spec JSON.
pub fn drafts() -> BTreeMap<String, String> {
    storage()
        .and_then(|storage| storage.get_item(DRAFTS_KEY).ok().flatten())
        .and_then(|text| crate::codec::json::from_str(&text).ok())
        .unwrap_or_default()
}

fn store_drafts(drafts: &BTreeMap<String, String>) -> Result<(), String> {
    let storage = storage().ok_or("this browser keeps no local storage")?;
    let text = serde_json::to_string(drafts).expect("a map of strings serialises");
    storage
        .set_item(DRAFTS_KEY, &text)
        .map_err(|_| "the browser refused to store the draft (storage full?)".to_owned())
}

/// When each named draft was saved, name → ISO 8601 time.
fn saved_times() -> BTreeMap<String, String> {
    storage()
        .and_then(|storage| storage.get_item(DRAFTS_SAVED_KEY).ok().flatten())
        .and_then(|text| crate::codec::json::from_str(&text).ok())
        .unwrap_or_default()
}

fn store_saved_times(times: &BTreeMap<String, String>) {
    if let Some(storage) = storage() {
        let text = serde_json::to_string(times).expect("a map of strings serialises");
        let _ = storage.set_item(DRAFTS_SAVED_KEY, &text);
    }
}

/// Saves a design's JSON as the draft `name`, replacing one of the same name.
pub fn save_draft(name: &str, json: String) -> Result<(), String> {
    let mut all = drafts();
    all.insert(name.to_owned(), json);
    store_drafts(&all)?;
    let mut times = saved_times();
    times.insert(
        name.to_owned(),
        String::from(js_sys::Date::new_0().to_iso_string()),
    );
    store_saved_times(&times);
    Ok(())
}

/// Deletes the draft `name`.
pub fn delete_draft(name: &str) -> Result<(), String> {
    let mut all = drafts();
    all.remove(name);
    store_drafts(&all)?;
    let mut times = saved_times();
    times.remove(name);
    store_saved_times(&times);
    Ok(())
}

/// What a draft is: "cluster `x` in us-west-2, saved 2026-12-01 19:40 UTC".
fn draft_summary(json: &str, saved: Option<&String>) -> String {
    // Read as plain data: reading the whole design is left to opening it.
    let Ok(design) = crate::codec::json::from_str::<yaml_serde::Value>(json) else {
        return "cannot be read".to_owned();
    };
    let cluster = |key: &str| {
        design["cluster"][key]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let (cluster, region) = (cluster("name"), cluster("region"));
    let saved = saved
        .map(|time| {
            let shown = time.get(..16).unwrap_or(time).replace('T', " ");
            format!(", saved {shown} UTC")
        })
        .unwrap_or_default();
    format!("cluster `{cluster}` in {region}{saved}")
}

/// Whether any named draft is saved, without reading them.
fn any_drafts() -> bool {
    storage()
        .and_then(|storage| storage.get_item(DRAFTS_KEY).ok().flatten())
        .is_some_and(|text| text.trim() != "{}")
}

/// Where the work is kept, and the named drafts behind a disclosure, open when there are
/// some.
#[component]
pub fn DraftsPanel() -> impl IntoView {
    view! {
        <div class="drafts">
            {move || match use_context::<AutosaveFailure>().and_then(|failure| failure.0.get()) {
                None => view! {
                    <p class="hint" id="autosave-status">"Your work is saved in this browser as you type and comes back on reload."</p>
                }
                .into_any(),
                Some(why) => view! {
                    <p class="hint warning" id="autosave-status" role="status">
                        {format!("Not saved: {why}. A reload would lose it; download studio.json (Review and ship) to keep it.")}
                    </p>
                }
                .into_any(),
            }}
            <LazyDisclosure
                class="drafts-opener"
                summary_id="open-drafts"
                summary=Signal::stored("Save, open or delete named drafts".to_owned())
                open=any_drafts()
                load=|| Box::pin(split::load())
                show=split::view
            />
        </div>
    }
}

/// Save-as, open and delete of named drafts.
#[component]
fn NamedDrafts() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let list = RwSignal::new(drafts());
    let name = RwSignal::new(String::new());
    let status = RwSignal::new(String::new());
    let save = move || {
        let chosen = name.get_untracked().trim().to_owned();
        let chosen = if chosen.is_empty() {
            studio.spec.with_untracked(|spec| spec.cluster.name.clone())
        } else {
            chosen
        };
        let design = studio.spec.get_untracked();
        leptos::task::spawn_local(async move {
            let result = match crate::codec::reading::json_later(&design).await {
                Ok(json) => save_draft(&chosen, json),
                Err(error) => Err(error),
            };
            status.set(match result {
                Ok(()) => format!("Saved draft “{chosen}”."),
                Err(error) => error,
            });
            list.set(drafts());
        });
    };
    let rows = move || {
        let times = saved_times();
        list.get()
            .into_iter()
            .map(|(draft_name, json)| {
                let open_name = draft_name.clone();
                let delete_name = draft_name.clone();
                let summary = draft_summary(&json, times.get(&draft_name));
                view! {
                    <li>
                        <span class="draft-name">{draft_name.clone()}</span>
                        <span class="draft-summary">{summary}</span>
                        <button
                            type="button"
                            aria-label=format!("Open draft {draft_name}")
                            on:click={
                                let json = json.clone();
                                move |_| {
                                    let open_name = open_name.clone();
                                    let opened = move |read: crate::codec::reading::Read| match read {
                                        Ok((spec, _)) => {
                                            studio.replace_spec(spec, format!("the draft “{open_name}”"));
                                            if studio.pending_replacement.with_untracked(Option::is_none) {
                                                status.set(format!("Opened draft “{open_name}”."));
                                            }
                                        }
                                        Err(error) => status.set(format!("Draft “{open_name}” is damaged: {}", error.message)),
                                    };
                                    let current = studio.spec.get_untracked();
                                    crate::codec::reading::read(crate::codec::reading::Reading::Saved, json.clone(), current, opened);
                                }
                            }
                        >
                            "Open"
                        </button>
                        <button
                            type="button"
                            aria-label=format!("Delete draft {draft_name}")
                            on:click=move |_| {
                                if let Err(error) = delete_draft(&delete_name) {
                                    status.set(error);
                                }
                                list.set(drafts());
                            }
                        >
                            "Delete"
                        </button>
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <div class="named-drafts">
            <div class="inline-form">
                <div class="field">
                    <label for="draft-name">"Draft name"</label>
                    <input
                        id="draft-name"
                        type="text"
                        placeholder="defaults to the cluster name"
                        prop:value=move || name.get()
                        on:input=move |event| name.set(event_target_value(&event))
                        on:keydown=move |event| {
                            if event.key() == "Enter" {
                                save();
                            }
                        }
                    />
                </div>
                <button type="button" on:click=move |_| save()>"Save as draft"</button>
            </div>
            <p class="status" role="status">{move || status.get()}</p>
            <ul class="draft-list" id="draft-list">{rows}</ul>
        </div>
    }
}

#[cfg(page_split)]
mod split {
    use leptos::prelude::*;
    use leptos::wasm_split::{SplitLoaderError, wasm_split};

    use crate::codec::reading::ready_now;

    #[wasm_split(drafts, wasm_split_path = ::leptos::wasm_split, preload(preload_drafts), fallible)]
    fn drafts_view() -> Result<AnyView, SplitLoaderError> {
        Ok(view! { <super::NamedDrafts /> }.into_any())
    }

    /// Fetches the panel's file; false when it could not be loaded.
    pub async fn load() -> bool {
        preload_drafts().await.is_ok()
    }

    /// The loaded panel.
    pub fn view() -> Option<AnyView> {
        ready_now(drafts_view())
    }
}

#[cfg(not(page_split))]
mod split {
    use leptos::prelude::*;

    pub async fn load() -> bool {
        true
    }

    pub fn view() -> Option<AnyView> {
        Some(view! { <super::NamedDrafts /> }.into_any())
    }
}
