//! Each template shows its name, its id as the CLI knows it, and one line on what it is.

use leptos::prelude::*;

use crate::Studio;

/// Template picker: a radio group, one card per template.
#[component]
pub fn StartStep() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let cards = shared::TEMPLATES
        .iter()
        .map(|template| {
            let id = template.id;
            let input_id = format!("template-{id}");
            view! {
                <li class="template-card">
                    <input
                        type="radio"
                        name="template"
                        id=input_id.clone()
                        value=id
                        prop:checked=move || studio.template_id.with(|chosen| chosen == id)
                        on:change=move |_| studio.choose_template(id)
                    />
                    <label for=input_id>
                        <span class="template-name">{template.name}</span>
                        <code class="template-id">{id}</code>
                        <span class="template-summary">{template.summary}</span>
                    </label>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="step" aria-labelledby="step-start">
            <h2 id="step-start">"1. Start from a template"</h2>
            <fieldset>
                <legend class="visually-hidden">"Template"</legend>
                <ul class="template-list">{cards}</ul>
            </fieldset>
        </section>
    }
}
