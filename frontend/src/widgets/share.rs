//! Share links: the spec in the URL fragment (deflated, base64url), which never reaches
//! the server. "Copy share link" writes one; a page opened with one reads it.
//!
//! A first visit needs only the button: in the page's build (`--cfg page_split`) the code
//! that writes and reads a link (deflate through the browser, base64url, reading the spec)
//! is a split point of its own, fetched on the first click or when the page is opened
//! with a link, like the reader (`codec::reading`), whose generated loader is declared as
//! an `unsafe extern` import.
#![allow(unsafe_code)]

use leptos::prelude::*;
use shared::Spec;
use wasm_bindgen::JsValue;

use crate::state::studio::Studio;

/// The URL fragment prefix of a share link.
pub const SHARE_PREFIX: &str = "#spec=";

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
    let deflated = browser_deflate::deflate_raw(json.as_bytes())
        .await
        .map_err(|error| format!("the browser could not deflate the spec ({error})"))?;
    Ok(format!("{SHARE_PREFIX}{}", base64url_encode(&deflated)))
}

/// The largest design a share link may inflate to: what the server reads at most, far
/// beyond any real design. A link is a few kilobytes that deflate can make expand a
/// thousand times; past this the page stops reading it.
pub const MAX_SHARED_SPEC_BYTES: usize = 2 * 1024 * 1024;

/// The spec in a share link's fragment, after its `#spec=`.
async fn read_share(encoded: String, current: Spec) -> Result<Spec, String> {
    let deflated =
        base64url_decode(&encoded).ok_or("the link's spec is not base64url (cut short?)")?;
    let json = browser_deflate::inflate_raw(&deflated, MAX_SHARED_SPEC_BYTES)
        .await
        .map_err(|error| format!("the link's spec does not inflate ({error})"))?;
    let json = String::from_utf8(json).map_err(|_| "the link's spec is not UTF-8 text")?;
    crate::codec::reading::read_later(crate::codec::reading::Reading::Saved, json, current)
        .await
        .map(|(spec, _)| spec)
        .map_err(|error| error.message)
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
        match split::read(&encoded, &current).await {
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
            let fragment = match split::fragment(&spec).await {
                Ok(fragment) => fragment,
                Err(error) => {
                    status.set(format!("No link: {error}."));
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

#[cfg(page_split)]
mod split {
    use leptos::wasm_split::{SplitLoaderError, wasm_split};
    use shared::Spec;

    use crate::state::loading::Later;

    /// Why a share link's code could not be fetched.
    const NOT_LOADED: &str =
        "the page could not fetch the code for share links; check the connection to the server";

    #[wasm_split(sharing, wasm_split_path = ::leptos::wasm_split, fallible)]
    fn write(spec: &Spec) -> Result<Later<String>, SplitLoaderError> {
        let spec = spec.clone();
        Ok(Box::pin(async move { super::share_fragment(&spec).await }))
    }

    #[wasm_split(sharing, wasm_split_path = ::leptos::wasm_split, fallible)]
    fn open(encoded: &str, current: &Spec) -> Result<Later<Spec>, SplitLoaderError> {
        Ok(Box::pin(super::read_share(
            encoded.to_owned(),
            current.clone(),
        )))
    }

    /// The fragment of a share link for `spec`, loading the code first.
    pub async fn fragment(spec: &Spec) -> Result<String, String> {
        write(spec).await.map_err(|_| NOT_LOADED.to_owned())?.await
    }

    /// The spec in a share link's fragment, loading the code first.
    pub async fn read(encoded: &str, current: &Spec) -> Result<Spec, String> {
        open(encoded, current)
            .await
            .map_err(|_| NOT_LOADED.to_owned())?
            .await
    }
}

#[cfg(not(page_split))]
mod split {
    use shared::Spec;

    pub async fn fragment(spec: &Spec) -> Result<String, String> {
        super::share_fragment(spec).await
    }

    pub async fn read(encoded: &str, current: &Spec) -> Result<Spec, String> {
        super::read_share(encoded.to_owned(), current.clone()).await
    }
}
