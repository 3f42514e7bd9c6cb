//! The preview shows exactly what a download would contain.

use leptos::prelude::*;

/// The live `cluster.yaml` preview.
#[component]
pub fn Preview(
    /// The rendered YAML, or why it could not be rendered.
    cluster_yaml: Memo<Result<String, String>>,
) -> impl IntoView {
    view! {
        <aside class="preview" aria-labelledby="preview-title">
            <h2 id="preview-title">"cluster.yaml"</h2>
            <pre id="preview-cluster-yaml" class="yaml" tabindex="0" aria-label="cluster.yaml preview">
                {move || match cluster_yaml.get() {
                    Ok(yaml) => yaml,
                    Err(error) => error,
                }}
            </pre>
        </aside>
    }
}
