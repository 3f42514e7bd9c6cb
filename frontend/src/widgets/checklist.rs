//! The placeholders a design still holds, as a short checklist above the steps: each value
//! once, filled in once for every field that holds it (`shared::lint::placeholders`).

use leptos::html;
use leptos::prelude::*;
use shared::lint::placeholders::{self, Placeholder};

use crate::state::studio::Studio;

/// "To fill in": one row per placeholder, gone when none is left.
#[component]
pub fn PlaceholderChecklist() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let items = Memo::new(move |_| {
        studio.spec_shown.track();
        studio.spec.with_untracked(placeholders::list)
    });
    let regions = shared::model::ids::REGION_NAMES
        .iter()
        .map(|(code, name)| view! { <option value=*code>{*name}</option> })
        .collect_view();
    view! {
        <Show when=move || items.with(|items| !items.is_empty())>
            <details class="checklist" open>
                <summary id="checklist-title">
                    {move || {
                        let count = items.with(Vec::len);
                        if count == 1 {
                            "1 value to fill in".to_owned()
                        } else {
                            format!("{count} values to fill in")
                        }
                    }}
                </summary>
                <p class="hint">"Each is filled in wherever the design uses it."</p>
                <ul aria-labelledby="checklist-title">
                    <For
                        each=move || items.get()
                        key=|item| item.token.clone()
                        children=move |item| view! { <ChecklistItem item=item /> }
                    />
                </ul>
            </details>
        </Show>
        <datalist id="checklist-regions">{regions}</datalist>
    }
}

/// One placeholder: its label, an input and "Fill in".
#[component]
fn ChecklistItem(item: Placeholder) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let input = NodeRef::<html::Input>::new();
    let id = format!("fill-{}", item.token.to_ascii_lowercase().replace('_', "-"));
    let token = item.token.clone();
    let is_zone = item.label.starts_with("Availability zone");
    let is_region = token == "PLACEHOLDER_AWS_REGION";
    let example = move || {
        if is_zone {
            studio
                .spec
                .with(|spec| shared::model::ids::example_zones(&spec.cluster.region, 1))
        } else if is_region {
            "us-west-2".to_owned()
        } else {
            String::new()
        }
    };
    let uses = match item.paths.len() {
        1 => "Show the field".to_owned(),
        count => format!("Used in {count} fields"),
    };
    let first_path = item.paths.first().cloned().unwrap_or_default();
    let fill = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        let Some(element) = input.get() else { return };
        let value = element.value();
        if value.trim().is_empty() {
            return;
        }
        let filling = crate::codec::reading::Reading::Fill {
            token: token.clone(),
        };
        let current = studio.spec.get_untracked();
        crate::codec::reading::read(filling, value, current, move |filled| {
            if let Ok((spec, _)) = filled
                && studio.spec.with_untracked(|current| *current != spec)
            {
                studio.spec.set(spec);
            }
        });
    };
    view! {
        <li>
            <form class="checklist-item" on:submit=fill>
                // The field itself has the same words for its label; this one says it fills in.
                <label for=id.clone()>
                    {item.label.clone()}
                    <span class="visually-hidden">" (to fill in)"</span>
                </label>
                <input
                    id=id
                    type="text"
                    node_ref=input
                    spellcheck="false"
                    autocomplete="off"
                    placeholder=example
                    list=is_region.then_some("checklist-regions")
                />
                <button type="submit">"Fill in"</button>
                <button
                    type="button"
                    class="link"
                    title=item.token.clone()
                    on:click=move |_| studio.go_to_path(&first_path)
                >
                    {uses}
                </button>
            </form>
        </li>
    }
}
