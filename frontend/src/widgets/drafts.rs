//! The browser keeps the work: the current spec is saved to localStorage as it changes and
//! restored on reload; named drafts sit beside it; a share link carries the spec in the URL
//! fragment (deflated, base64url), which never reaches the server.

use std::collections::BTreeMap;
use std::time::Duration;

use leptos::prelude::*;
use shared::Spec;
use wasm_bindgen::JsValue;

use crate::state::studio::Studio;

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
/// The URL fragment prefix of a share link.
pub const SHARE_PREFIX: &str = "#spec=";

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

const BASE64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url without padding.
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let triple = chunk.iter().enumerate().fold(0u32, |acc, (idx, byte)| {
            acc | (u32::from(*byte) << (16 - 8 * idx))
        });
        for idx in 0..=chunk.len() {
            text.push(BASE64URL[((triple >> (18 - 6 * idx)) & 63) as usize] as char);
        }
    }
    text
}

/// Decodes base64url (padding and whitespace ignored); `None` on any other character.
pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let mut bytes = Vec::with_capacity(text.len() * 3 / 4);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for character in text
        .bytes()
        .filter(|byte| !matches!(byte, b'=' | b'\n' | b' '))
    {
        let value = BASE64URL
            .iter()
            .position(|candidate| *candidate == character)? as u32;
        buffer = (buffer << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((buffer >> bits) as u8);
        }
    }
    Some(bytes)
}

/// The fragment of a share link for `spec`: `#spec=` and the deflated JSON in base64url.
pub async fn share_fragment(spec: &Spec) -> Result<String, String> {
    // The same JSON as studio.json: one serialiser for the spec keeps the page small, and
    // deflate makes the indentation nearly free.
    let json = crate::codec::reading::json_later(spec).await?;
    let deflated = browser_deflate::deflate_raw(json.as_bytes()).await?;
    Ok(format!("{SHARE_PREFIX}{}", base64url_encode(&deflated)))
}

/// The largest design a share link may inflate to: what the server reads at most, far
/// beyond any real design. A link is a few kilobytes that deflate can make expand a
/// thousand times; past this the page stops reading it.
pub const MAX_SHARED_SPEC_BYTES: usize = 2 * 1024 * 1024;

/// The spec in a share link's fragment, after its `#spec=`.
async fn read_share(encoded: &str, current: Spec) -> Result<Spec, String> {
    let deflated =
        base64url_decode(encoded).ok_or("the link's spec is not base64url (cut short?)")?;
    let json = browser_deflate::inflate_raw(&deflated, MAX_SHARED_SPEC_BYTES)
        .await
        .map_err(|error| format!("the link's spec does not inflate ({error})"))?;
    let json = String::from_utf8(json).map_err(|_| "the link's spec is not UTF-8 text")?;
    crate::codec::reading::read_later(crate::codec::reading::Reading::Saved, json, current)
        .await
        .map(|(spec, _)| spec)
        .map_err(|error| error.message)
}

/// The design saved as the user typed, as saved: the page opens on it, else on a template.
/// A share link in the address replaces it once read (see [`ShareLink`]).
pub fn autosaved() -> Option<String> {
    storage()?.get_item(AUTOSAVE_KEY).ok().flatten()
}

/// The undo history saved with the design, if any.
pub fn saved_history() -> Option<String> {
    storage()?.get_item(HISTORY_KEY).ok().flatten()
}

/// Deflate and inflate by the browser's own `CompressionStream`, in the raw deflate
/// format share links have always held: the page carries no deflate code of its own.
pub mod browser_deflate {
    use js_sys::{Array, Uint8Array};
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::JsFuture;

    // web-sys offers these two only behind its unstable APIs.
    #[wasm_bindgen]
    extern "C" {
        type CompressionStream;
        #[wasm_bindgen(constructor, catch)]
        fn new(format: &str) -> Result<CompressionStream, JsValue>;
    }

    #[wasm_bindgen]
    extern "C" {
        type DecompressionStream;
        #[wasm_bindgen(constructor, catch)]
        fn new(format: &str) -> Result<DecompressionStream, JsValue>;
    }

    fn message(error: JsValue) -> String {
        error
            .dyn_ref::<js_sys::Error>()
            .map(|error| String::from(error.message()))
            .or_else(|| error.as_string())
            .unwrap_or_else(|| "the browser gave no reason".to_owned())
    }

    /// `bytes` piped through a transform stream, collected.
    async fn through(bytes: &[u8], transform: JsValue) -> Result<Vec<u8>, JsValue> {
        let blob =
            web_sys::Blob::new_with_u8_array_sequence(&Array::of1(&Uint8Array::from(bytes)))?;
        let stream = blob.stream().pipe_through(transform.unchecked_ref());
        let response = web_sys::Response::new_with_opt_readable_stream(Some(&stream))?;
        let buffer = JsFuture::from(response.array_buffer()?).await?;
        Ok(Uint8Array::new(&buffer).to_vec())
    }

    /// `bytes` deflated (raw deflate, as share links hold them).
    pub async fn deflate_raw(bytes: &[u8]) -> Result<Vec<u8>, String> {
        let compress = CompressionStream::new("deflate-raw").map_err(message)?;
        through(bytes, compress.into()).await.map_err(message)
    }

    /// `bytes` inflated, read a chunk at a time and refused once past `max_bytes`.
    pub async fn inflate_raw(bytes: &[u8], max_bytes: usize) -> Result<Vec<u8>, String> {
        let inflate = DecompressionStream::new("deflate-raw").map_err(message)?;
        let blob = web_sys::Blob::new_with_u8_array_sequence(&Array::of1(&Uint8Array::from(bytes)))
            .map_err(message)?;
        let stream = blob.stream().pipe_through(inflate.unchecked_ref());
        let reader = web_sys::ReadableStreamDefaultReader::new(&stream).map_err(message)?;
        let mut inflated = Vec::new();
        loop {
            let chunk = JsFuture::from(reader.read()).await.map_err(message)?;
            let done = js_sys::Reflect::get(&chunk, &"done".into())
                .map_err(message)?
                .is_truthy();
            if done {
                return Ok(inflated);
            }
            let value = js_sys::Reflect::get(&chunk, &"value".into()).map_err(message)?;
            inflated.extend(Uint8Array::new(&value).to_vec());
            if inflated.len() > max_bytes {
                let _ = reader.cancel();
                return Err(format!(
                    "it inflates to more than {max_bytes} bytes, larger than any design the studio reads"
                ));
            }
        }
    }
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

/// Save-as, open and delete of named drafts.
#[component]
pub fn DraftsPanel() -> impl IntoView {
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

/// Opens the share link the page was opened with, if any: its spec replaces the one the
/// page started with, and the fragment is removed so a reload shows the saved work.
fn open_share_link(studio: Studio, status: RwSignal<String>) {
    let hash = location().hash().unwrap_or_default();
    let Some(encoded) = hash.strip_prefix(SHARE_PREFIX).map(str::to_owned) else {
        return;
    };
    let location = location();
    let bare = format!(
        "{}{}",
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    );
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&bare));
    }
    let current = studio.spec.get_untracked();
    leptos::task::spawn_local(async move {
        match read_share(&encoded, current).await {
            Ok(spec) => {
                studio.replace_spec(spec, "the design in the share link");
                if studio.pending_replacement.with_untracked(Option::is_none) {
                    status.set("Opened the design from the share link.".to_owned());
                }
            }
            Err(error) => status.set(format!("The share link cannot be read: {error}")),
        }
    });
}

/// "Copy share link": the link goes to the clipboard when the browser allows, and is
/// always shown so it can be copied by hand.
#[component]
pub fn ShareLink() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let link = RwSignal::new(None::<String>);
    let status = RwSignal::new(String::new());
    open_share_link(studio, status);
    let copy = move |_| {
        let spec = studio.spec.get_untracked();
        leptos::task::spawn_local(async move {
            let fragment = match share_fragment(&spec).await {
                Ok(fragment) => fragment,
                Err(error) => {
                    status.set(format!(
                        "No link: the browser could not deflate the spec ({error})."
                    ));
                    return;
                }
            };
            let location = location();
            let url = format!(
                "{}{}{fragment}",
                location.origin().unwrap_or_default(),
                location.pathname().unwrap_or_default(),
            );
            link.set(Some(url.clone()));
            status.set("Link below.".to_owned());
            let promise = window().navigator().clipboard().write_text(&url);
            match wasm_bindgen_futures::JsFuture::from(promise).await {
                Ok(_) => status.set("Copied to the clipboard.".to_owned()),
                Err(_) => {
                    status.set("The browser did not allow copying: copy the link below.".to_owned())
                }
            }
        });
    };
    view! {
        <div class="share">
            <button type="button" id="share-button" on:click=copy>"Copy share link"</button>
            <span class="status" id="share-status" role="status">{move || status.get()}</span>
            <Show when=move || link.with(Option::is_some)>
                <label for="share-link" class="visually-hidden">"Share link"</label>
                <input
                    id="share-link"
                    type="text"
                    readonly
                    prop:value=move || link.get().unwrap_or_default()
                    on:focus=move |event| {
                        use wasm_bindgen::JsCast;
                        if let Some(input) = event.target().and_then(|target| target.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                            input.select();
                        }
                    }
                />
            </Show>
        </div>
    }
}
