//! A disclosure whose contents are a split point of their own: their code is fetched when
//! it is first opened (at once, when it starts open), so a first visit that leaves it shut
//! does not load it.

use std::future::Future;
use std::pin::Pin;

use leptos::prelude::*;

/// Fetches a split point's file; false when it could not be loaded.
pub type Load = fn() -> Pin<Box<dyn Future<Output = bool>>>;

/// Where the contents' code is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Code {
    NotAsked,
    OnItsWay,
    Loaded,
    Failed,
}

/// `<details>` with `summary`; the first time it opens, `load` fetches the code `show`
/// draws its contents with.
#[component]
pub fn LazyDisclosure(
    /// The class of the `<details>`.
    class: &'static str,
    /// The id of its `<summary>`.
    summary_id: &'static str,
    /// What its `<summary>` says.
    summary: Signal<String>,
    /// Open from the start.
    #[prop(optional)]
    open: bool,
    load: Load,
    /// The contents, once their code is loaded.
    show: fn() -> Option<AnyView>,
) -> impl IntoView {
    let code = RwSignal::new(Code::NotAsked);
    let fetch = move || {
        if matches!(code.get_untracked(), Code::OnItsWay | Code::Loaded) {
            return;
        }
        code.set(Code::OnItsWay);
        leptos::task::spawn_local(async move {
            code.set(if load().await {
                Code::Loaded
            } else {
                Code::Failed
            });
        });
    };
    if open {
        fetch();
    }
    let toggle = move |event: leptos::ev::Event| {
        use wasm_bindgen::JsCast;
        let opened = event
            .target()
            .and_then(|target| target.dyn_into::<web_sys::HtmlDetailsElement>().ok())
            .is_some_and(|details| details.open());
        if opened {
            fetch();
        }
    };
    view! {
        <details class=class open=open on:toggle=toggle>
            <summary id=summary_id>{summary}</summary>
            {move || match code.get() {
                Code::Loaded => show(),
                Code::Failed => Some(view! {
                    <p class="boot-failed" role="alert">
                        "This panel's code could not be loaded. Check the connection to the server, then close and open it again."
                    </p>
                }.into_any()),
                Code::NotAsked | Code::OnItsWay => {
                    Some(view! { <p role="status">"Loading…"</p> }.into_any())
                }
            }}
        </details>
    }
}
