//! Each template shows its name, its id as the CLI knows it, and one line on what it is.
//! Import reads eksctl and Karpenter YAML through `shared::import`; a problem is shown with
//! its line and column.

use leptos::prelude::*;
use shared::Spec;
use shared::import::{self, DocumentKind, ImportError};
use shared::yaml_source::{self, SourceDocument, YamlPath};
use wasm_bindgen::JsCast;

use crate::drafts::DraftsPanel;
use crate::{Step, StepHeading, Studio};

/// "document 2, line 4, column 3: message" for an import problem at a path of a document.
fn located(document: &SourceDocument, index: usize, count: usize, error: &ImportError) -> String {
    let path = error
        .path
        .parse::<YamlPath>()
        .unwrap_or_else(|_| YamlPath::root());
    let position = document.position(&path);
    let prefix = if count > 1 {
        format!("document {}, ", index + 1)
    } else {
        String::new()
    };
    let message = error
        .message
        .strip_prefix(&format!("document {}: ", index + 1))
        .unwrap_or(&error.message);
    format!(
        "{prefix}line {}, column {}: {message}",
        position.line, position.column
    )
}

/// Reads YAML into a spec: a `ClusterConfig` replaces the design, NodePools and
/// EC2NodeClasses replace its Karpenter objects. Returns the spec and what was read.
pub fn import_yaml(text: &str, current: &Spec) -> Result<(Spec, String), String> {
    let documents = yaml_source::parse_documents(text).map_err(|error| {
        format!(
            "YAML error at line {}, column {}: {}",
            error.line, error.column, error.message
        )
    })?;
    if documents.is_empty() {
        return Err("Nothing to import: the text holds no YAML document.".to_owned());
    }
    let count = documents.len();
    let mut cluster: Option<Spec> = None;
    let mut pools = Vec::new();
    let mut classes = Vec::new();
    for (index, document) in documents.iter().enumerate() {
        let kind = import::document_kind(&document.value)
            .map_err(|error| located(document, index, count, &error))?;
        match kind {
            DocumentKind::ClusterConfig => {
                if cluster.is_some() {
                    return Err(format!(
                        "document {}: a second ClusterConfig; import one cluster at a time",
                        index + 1
                    ));
                }
                let spec = import::import_cluster_config(&document.value)
                    .map_err(|error| located(document, index, count, &error))?;
                cluster = Some(spec);
            }
            _ => {
                let imported = import::import_karpenter(std::slice::from_ref(&document.value))
                    .map_err(|error| located(document, index, count, &error))?;
                pools.extend(imported.settings.node_pools);
                classes.extend(imported.settings.node_classes);
            }
        }
    }
    let read_cluster = cluster.is_some();
    let mut spec = cluster.unwrap_or_else(|| current.clone());
    let mut parts = Vec::new();
    if read_cluster {
        parts.push(format!(
            "cluster {} with {} node group(s)",
            spec.cluster.name,
            spec.node_groups.len()
        ));
    }
    if !pools.is_empty() || !classes.is_empty() {
        parts.push(format!(
            "{} NodePool(s) and {} EC2NodeClass(es)",
            pools.len(),
            classes.len()
        ));
        let settings = spec
            .karpenter
            .get_or_insert_with(|| current.karpenter.clone().unwrap_or_default());
        settings.node_pools = pools;
        settings.node_classes = classes;
    }
    Ok((spec, format!("Imported {}.", parts.join(" and "))))
}

/// Paste or choose a file, then import.
#[component]
fn ImportPanel() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let text = RwSignal::new(String::new());
    let result = RwSignal::new(None::<Result<String, String>>);
    let run_import = move || {
        let outcome = text.with_untracked(|text| {
            studio
                .spec
                .with_untracked(|current| import_yaml(text, current))
        });
        result.set(Some(match outcome {
            Ok((spec, summary)) => {
                studio.replace_spec(spec);
                Ok(summary)
            }
            Err(error) => Err(error),
        }));
    };
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
                Err(_) => result.set(Some(Err(format!("Cannot read {}.", file.name())))),
            }
        });
    };
    view! {
        <div class="import">
            <div class="field">
                <label for="import-text">"YAML to import"</label>
                <span class="hint">"An eksctl ClusterConfig, Karpenter NodePools and EC2NodeClasses, or both (separated by ---)."</span>
                <textarea
                    id="import-text"
                    rows="8"
                    spellcheck="false"
                    aria-describedby="import-result"
                    prop:value=move || text.get()
                    on:input=move |event| text.set(event_target_value(&event))
                ></textarea>
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
                    Some(Ok(summary)) => summary,
                    Some(Err(error)) => error,
                    None => String::new(),
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
            <h3>"Drafts"</h3>
            <DraftsPanel />
        </section>
    }
}
