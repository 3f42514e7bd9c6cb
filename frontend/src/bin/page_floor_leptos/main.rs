//! The page's own work (`page_floor/work.rs`) behind the smallest Leptos view that uses it: one text
//! field whose value is validated and rendered as it changes. `cargo xtask bench --only
//! page` builds it as the page is built, to report the weight of the work plus Leptos
//! before any of the studio's views.

#[cfg(target_arch = "wasm32")]
#[path = "../page_floor/work.rs"]
mod work;

#[cfg(target_arch = "wasm32")]
fn main() {
    use leptos::prelude::*;

    #[component]
    fn OneField() -> impl IntoView {
        let text = RwSignal::new(String::new());
        let rendered = Memo::new(move |_| {
            String::from_utf8_lossy(&work::work(0, &text.get(), "")).into_owned()
        });
        view! {
            <label for="spec">"Spec"</label>
            <textarea
                id="spec"
                prop:value=move || text.get()
                on:input=move |event| text.set(event_target_value(&event))
            ></textarea>
            <Show when=move || !rendered.get().is_empty()>
                <pre>{move || rendered.get()}</pre>
            </Show>
        }
    }

    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(OneField);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
