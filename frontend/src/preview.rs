//! The preview shows exactly what a download would contain, rendered by `shared` on every
//! change. Highlighting is deliberately cheap: one pass per line splitting key from value,
//! written as one HTML string (line numbers are CSS counters, so copying the text copies
//! only the YAML).

use leptos::prelude::*;

use crate::Studio;

/// The files the preview can show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tab {
    ClusterYaml,
    NodePools,
    KarpenterValues,
    /// What Karpenter needs on AWS (its CloudFormation stack).
    KarpenterStack,
    /// Karpenter's access to the cluster (its second stack).
    KarpenterAccess,
    /// The device plugins' Helm values, one document per plugin the pools need.
    DevicePlugins,
    StudioJson,
}

impl Tab {
    fn title(self) -> &'static str {
        match self {
            Tab::ClusterYaml => "cluster.yaml",
            Tab::NodePools => shared::render::NODEPOOLS_PATH,
            Tab::KarpenterValues => shared::render::KARPENTER_VALUES_PATH,
            Tab::KarpenterStack => shared::karpenter_aws::PREREQUISITES_PATH,
            Tab::KarpenterAccess => shared::karpenter_aws::CLUSTER_ACCESS_PATH,
            Tab::DevicePlugins => "plugins/*.yaml",
            Tab::StudioJson => "studio.json",
        }
    }

    /// DOM id of the tab's text.
    fn panel_id(self) -> &'static str {
        match self {
            Tab::ClusterYaml => "preview-cluster-yaml",
            Tab::NodePools => "preview-nodepools-yaml",
            Tab::KarpenterValues => "preview-values-yaml",
            Tab::KarpenterStack => "preview-karpenter-stack-yaml",
            Tab::KarpenterAccess => "preview-karpenter-access-yaml",
            Tab::DevicePlugins => "preview-device-plugins-yaml",
            Tab::StudioJson => "preview-studio-json",
        }
    }
}

fn escape(text: &str, html: &mut String) {
    for character in text.chars() {
        match character {
            '&' => html.push_str("&amp;"),
            '<' => html.push_str("&lt;"),
            '>' => html.push_str("&gt;"),
            '"' => html.push_str("&quot;"),
            _ => html.push(character),
        }
    }
}

fn span(class: &str, text: &str, html: &mut String) {
    if text.is_empty() {
        return;
    }
    html.push_str("<span class=\"");
    html.push_str(class);
    html.push_str("\">");
    escape(text, html);
    html.push_str("</span>");
}

/// Where a line's key ends (the `:` of `key:` or `key: value`), if it has one.
fn key_end(line: &str) -> Option<usize> {
    let quoted = line.starts_with('"') || line.starts_with('\'');
    if quoted {
        let quote = line.chars().next()?;
        let close = line[1..].find(quote)? + 1;
        return line[close + 1..].starts_with(':').then_some(close + 1);
    }
    let colon = line
        .find(": ")
        .or_else(|| line.ends_with(':').then(|| line.len() - 1))?;
    let key = &line[..colon];
    (!key.is_empty() && !key.contains(['{', '[', '#'])).then_some(colon)
}

/// YAML or JSON text as HTML: one `<span class="l">` per line, keys and values marked.
pub fn highlight(text: &str) -> String {
    let mut html = String::with_capacity(text.len() * 2);
    for line in text.lines() {
        html.push_str("<span class=\"l\">");
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        html.push_str(indent);
        let (dash, rest) = match body.strip_prefix("- ") {
            Some(rest) => ("- ", rest),
            None if body == "-" => ("-", ""),
            None => ("", body),
        };
        span("p", dash, &mut html);
        if rest.starts_with('#') {
            span("c", rest, &mut html);
        } else if let Some(end) = key_end(rest) {
            span("k", &rest[..end], &mut html);
            html.push(':');
            let value = &rest[end + 1..];
            let trimmed = value.trim_start();
            html.push_str(&value[..value.len() - trimmed.len()]);
            span("v", trimmed, &mut html);
        } else {
            span("v", rest, &mut html);
        }
        html.push_str("</span>\n");
    }
    html
}

/// Every device plugin values file the pools need, each headed by its path.
fn device_plugin_values(spec: &shared::Spec) -> Result<Option<String>, shared::RenderError> {
    let Some(karpenter) = &spec.karpenter else {
        return Ok(None);
    };
    let mut documents = Vec::new();
    for (plugin, pools) in shared::device_plugins::needed(karpenter) {
        let values = shared::device_plugins::values(plugin, &pools);
        let text = shared::yaml_text::to_string(&values).map_err(shared::RenderError::from)?;
        documents.push(format!("# {}\n{text}", plugin.chart().values_path));
    }
    Ok((!documents.is_empty()).then(|| documents.join("---\n")))
}

/// Arrow keys, Home and End move between the tabs shown, as the ARIA tabs pattern has it:
/// the tab moved to is chosen and focused.
fn move_between_tabs(event: leptos::ev::KeyboardEvent) {
    use wasm_bindgen::JsCast;
    let key = event.key();
    if !matches!(key.as_str(), "ArrowRight" | "ArrowLeft" | "Home" | "End") {
        return;
    }
    let Some(list) = event
        .current_target()
        .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    let Ok(tabs) = list.query_selector_all("[role=tab]") else {
        return;
    };
    let tabs: Vec<web_sys::HtmlElement> = (0..tabs.length())
        .filter_map(|index| tabs.item(index))
        .filter_map(|node| node.dyn_into::<web_sys::HtmlElement>().ok())
        .collect();
    if tabs.is_empty() {
        return;
    }
    let current = tabs
        .iter()
        .position(|tab| tab.get_attribute("aria-selected").as_deref() == Some("true"))
        .unwrap_or(0);
    let last = tabs.len() - 1;
    let next = match key.as_str() {
        "ArrowRight" => (current + 1) % tabs.len(),
        "ArrowLeft" => current.checked_sub(1).unwrap_or(last),
        "Home" => 0,
        _ => last,
    };
    event.prevent_default();
    tabs[next].click();
    let _ = tabs[next].focus();
}

/// The live preview pane with one tab per file.
#[component]
pub fn Preview() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let tab = RwSignal::new(Tab::ClusterYaml);
    let uses_karpenter = Memo::new(move |_| studio.spec.with(|spec| spec.karpenter.is_some()));
    let needs_plugins = Memo::new(move |_| {
        studio.spec.with(|spec| {
            spec.karpenter
                .as_ref()
                .is_some_and(|karpenter| !shared::device_plugins::needed(karpenter).is_empty())
        })
    });
    Effect::new(move |_| {
        let current = tab.get_untracked();
        let karpenter_file = matches!(
            current,
            Tab::NodePools | Tab::KarpenterValues | Tab::KarpenterStack | Tab::KarpenterAccess
        );
        if (!uses_karpenter.get() && karpenter_file)
            || (!needs_plugins.get() && current == Tab::DevicePlugins)
        {
            tab.set(Tab::ClusterYaml);
        }
    });
    let text = Memo::new(move |_| {
        let current = tab.get();
        studio.spec.with(|spec| {
            let rendered = match current {
                Tab::ClusterYaml => shared::render_cluster_yaml(spec).map(Some),
                Tab::NodePools => shared::render::render_karpenter_yaml(spec),
                Tab::KarpenterValues => shared::render::render_karpenter_values(spec),
                Tab::KarpenterStack => shared::karpenter_aws::prerequisites(spec)
                    .map(|template| shared::yaml_text::to_string(&template))
                    .transpose()
                    .map_err(shared::RenderError::from),
                Tab::KarpenterAccess => shared::karpenter_aws::cluster_access(spec)
                    .map(|template| shared::yaml_text::to_string(&template))
                    .transpose()
                    .map_err(shared::RenderError::from),
                Tab::DevicePlugins => device_plugin_values(spec),
                Tab::StudioJson => Ok(Some(spec.to_json())),
            };
            match rendered {
                Ok(Some(text)) => highlight(&text),
                Ok(None) => "<span class=\"l\"># Karpenter is not used</span>".to_owned(),
                Err(error) => {
                    let mut html = "<span class=\"l error\">".to_owned();
                    escape(&format!("cannot render: {error}"), &mut html);
                    html.push_str("</span>");
                    html
                }
            }
        })
    });
    let tab_button = move |this: Tab| {
        view! {
            <button
                type="button"
                role="tab"
                id=format!("tab-{}", this.panel_id())
                aria-selected=move || (tab.get() == this).to_string()
                tabindex=move || if tab.get() == this { "0" } else { "-1" }
                aria-controls="preview-panel"
                class="tab"
                title=this.title()
                class:current=move || tab.get() == this
                on:click=move |_| tab.set(this)
            >
                {this.title().rsplit_once('/').filter(|(folder, _)| *folder == "karpenter").map_or(this.title(), |(_, file)| file)}
            </button>
        }
    };
    view! {
        <aside class="preview" aria-labelledby="preview-title">
            <h2 id="preview-title" class="visually-hidden">"Preview"</h2>
            <div class="tabs" role="tablist" aria-label="Files" on:keydown=move_between_tabs>
                {tab_button(Tab::ClusterYaml)}
                <Show when=move || uses_karpenter.get()>
                    {tab_button(Tab::NodePools)}
                    {tab_button(Tab::KarpenterValues)}
                    {tab_button(Tab::KarpenterStack)}
                    {tab_button(Tab::KarpenterAccess)}
                </Show>
                <Show when=move || needs_plugins.get()>
                    {tab_button(Tab::DevicePlugins)}
                </Show>
                {tab_button(Tab::StudioJson)}
            </div>
            <div id="preview-panel" role="tabpanel">
                <pre
                    id=move || tab.get().panel_id()
                    class="yaml"
                    tabindex="0"
                    aria-label=move || format!("{} preview", tab.get().title())
                    inner_html=move || text.get()
                ></pre>
            </div>
        </aside>
    }
}
