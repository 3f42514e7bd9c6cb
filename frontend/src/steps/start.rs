//! Each template shows its name, its id as the CLI knows it, and one line on what it is.
//! Import reads eksctl and Karpenter YAML through `shared::documents::import`; a problem is shown with
//! its line and column.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use shared::rules::Severity;

use crate::state::step::Step;
use crate::state::studio::Studio;
use crate::widgets::drafts::DraftsPanel;
use crate::widgets::editor::{NumberedText, go_to_line};
use crate::widgets::heading::StepHeading;

/// Paste or choose a file, then import.
#[component]
fn ImportPanel() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let text = RwSignal::new(String::new());
    let result = RwSignal::new(None::<Result<String, shared::documents::import::TextImportError>>);
    // The design the last import read, and what became of it: `None` while the page waits
    // for the user to confirm replacing edited work, then whether it replaced the design.
    let imported = RwSignal::new(None::<shared::Spec>);
    let outcome = RwSignal::new(None::<bool>);
    let run_import = move || {
        let read = move |read: crate::codec::reading::Read| {
            result.set(Some(match read {
                Ok((spec, summary)) => {
                    outcome.set(None);
                    // Replaced (or held for confirmation) before the effect below looks.
                    studio.replace_spec(spec.clone(), "the imported YAML");
                    imported.set(Some(spec));
                    Ok(summary)
                }
                Err(error) => Err(error),
            }));
        };
        let current = studio.spec.get_untracked();
        crate::codec::reading::read(
            crate::codec::reading::Reading::Import,
            text.get_untracked(),
            current,
            read,
        );
    };
    Effect::new(move |_| {
        let waiting = studio.pending_replacement.with(Option::is_some);
        imported.with(|read| {
            if let (Some(read), false, None) = (read, waiting, outcome.get_untracked()) {
                let applied = studio.spec.with_untracked(|spec| spec == read);
                outcome.set(Some(applied));
            }
        });
    });
    let said = move |summary: String| match outcome.get() {
        Some(true) => summary,
        Some(false) => "Not imported: the current design was kept.".to_owned(),
        None if studio.pending_replacement.with(Option::is_some) => format!(
            "Read {} Confirm to replace the current design with it.",
            summary.strip_prefix("Imported ").unwrap_or(&summary)
        ),
        None => summary,
    };
    let marks = Signal::derive(move || match result.get() {
        Some(Err(error)) if error.line > 0 => vec![(error.line, Severity::Error)],
        _ => Vec::new(),
    });
    let choose_file = move |event: leptos::ev::Event| {
        let Some(input) = event
            .target()
            .and_then(|target| target.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|files| files.get(0)) else {
            return;
        };
        leptos::task::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(file.text()).await {
                Ok(contents) => {
                    text.set(contents.as_string().unwrap_or_default());
                    run_import();
                }
                Err(_) => result.set(Some(Err(shared::documents::import::TextImportError {
                    document: None,
                    line: 0,
                    column: 0,
                    syntax: false,
                    message: format!("Cannot read {}.", file.name()),
                }))),
            }
        });
    };
    view! {
        <div class="import">
            <div class="field">
                <label for="import-text">"YAML to import"</label>
                <span class="hint">"An eksctl ClusterConfig, Karpenter NodePools and EC2NodeClasses, the volumes of a bundle's storage/volumes.yaml, or several of them (separated by ---)."</span>
                <NumberedText
                    id="import-text"
                    text=text.into()
                    on_input=Callback::new(move |typed| text.set(typed))
                    marks=marks
                    described_by="import-result"
                />
            </div>
            <div class="inline-form">
                <button type="button" id="import-button" on:click=move |_| run_import()>"Import"</button>
                <div class="field">
                    <label for="import-file">"YAML file"</label>
                    <input id="import-file" type="file" accept=".yaml,.yml,text/yaml" on:change=choose_file />
                </div>
            </div>
            <p
                id="import-result"
                role="status"
                class=move || match result.get() {
                    Some(Err(_)) => "import-result error",
                    _ => "import-result",
                }
            >
                {move || match result.get() {
                    Some(Ok(summary)) => said(summary).into_any(),
                    Some(Err(error)) if error.line > 0 => {
                        let (line, column) = (error.line, error.column);
                        view! {
                            {error.to_string()}
                            " "
                            <button
                                type="button"
                                class="link"
                                on:click=move |_| go_to_line("import-text", line, column)
                            >
                                {format!("Go to line {line}")}
                            </button>
                        }
                        .into_any()
                    }
                    Some(Err(error)) => error.to_string().into_any(),
                    None => ().into_any(),
                }}
            </p>
        </div>
    }
}

/// Template picker, import and drafts.
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
        <section class="step" aria-labelledby="step-title-1">
            <StepHeading step=Step::Start />
            <h3>"Start from a template"</h3>
            <fieldset>
                <legend class="visually-hidden">"Template"</legend>
                <ul class="template-list">{cards}</ul>
            </fieldset>
            <h3>"Import YAML"</h3>
            <ImportPanel />
            <h3>"Open a running cluster"</h3>
            <crate::steps::running_cluster::RunningClusterOpener />
            <h3>"Drafts"</h3>
            <DraftsPanel />
        </section>
    }
}
