//! Inputs write straight into the spec; the rules, not the inputs, decide what is valid,
//! so a half-typed value is kept as typed.

use leptos::prelude::*;

use crate::Studio;

/// Cluster name, region, Kubernetes version and OIDC.
#[component]
pub fn ClusterStep() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let spec = studio.spec;
    view! {
        <section class="step" aria-labelledby="step-cluster">
            <h2 id="step-cluster">"2. Cluster"</h2>
            <div class="field">
                <label for="cluster-name">"Cluster name"</label>
                <input
                    id="cluster-name"
                    type="text"
                    spellcheck="false"
                    prop:value=move || spec.with(|spec| spec.cluster.name.clone())
                    on:input=move |event| spec.update(|spec| spec.cluster.name = event_target_value(&event))
                />
            </div>
            <div class="field">
                <label for="cluster-region">"Region"</label>
                <input
                    id="cluster-region"
                    type="text"
                    spellcheck="false"
                    prop:value=move || spec.with(|spec| spec.cluster.region.clone())
                    on:input=move |event| spec.update(|spec| spec.cluster.region = event_target_value(&event))
                />
            </div>
            <div class="field">
                <label for="cluster-version">"Kubernetes version"</label>
                <input
                    id="cluster-version"
                    type="text"
                    prop:value=move || spec.with(|spec| spec.cluster.kubernetes_version.clone())
                    on:input=move |event| {
                        spec.update(|spec| spec.cluster.kubernetes_version = event_target_value(&event))
                    }
                />
            </div>
            <div class="field checkbox">
                <input
                    id="cluster-oidc"
                    type="checkbox"
                    prop:checked=move || spec.with(|spec| spec.cluster.with_oidc)
                    on:change=move |event| spec.update(|spec| spec.cluster.with_oidc = event_target_checked(&event))
                />
                <label for="cluster-oidc">"IAM OIDC provider"</label>
            </div>
        </section>
    }
}
