//! Inputs write straight into the spec; the rules, not the inputs, decide what is valid,
//! so a half-typed value is kept as typed.

use leptos::prelude::*;

use crate::fields::{CheckboxField, TextField};
use crate::{Step, StepHeading, Studio};

/// Cluster name, region, Kubernetes version and OIDC.
#[component]
pub fn ClusterStep() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let spec = studio.spec;
    let regions = shared::ids::REGION_NAMES
        .iter()
        .map(|(code, name)| view! { <option value=*code>{*name}</option> })
        .collect_view();
    let versions = shared::ids::KUBERNETES_VERSIONS
        .iter()
        .map(|version| view! { <option value=*version></option> })
        .collect_view();
    view! {
        <section class="step" aria-labelledby="step-title-2">
            <StepHeading step=Step::Cluster />
            <datalist id="regions">{regions}</datalist>
            <datalist id="kubernetes-versions">{versions}</datalist>
            <TextField
                label="Cluster name"
                path="cluster.name"
                value=Signal::derive(move || spec.with(|spec| spec.cluster.name.clone()))
                set=move |name| spec.update(|spec| spec.cluster.name = name)
            />
            <TextField
                label="Region"
                path="cluster.region"
                placeholder="us-east-1"
                hint=Signal::derive(move || spec.with(|spec| shared::ids::region_name(&spec.cluster.region).unwrap_or_default().to_owned()))
                suggestions="regions"
                value=Signal::derive(move || spec.with(|spec| spec.cluster.region.clone()))
                set=move |region| spec.update(|spec| spec.cluster.region = region)
            />
            <TextField
                label="Kubernetes version"
                path="cluster.kubernetes_version"
                placeholder=shared::templates::NEWEST_STANDARD_VERSION
                suggestions="kubernetes-versions"
                value=Signal::derive(move || spec.with(|spec| spec.cluster.kubernetes_version.clone()))
                set=move |version| spec.update(|spec| spec.cluster.kubernetes_version = version)
            />
            <CheckboxField
                label="IAM OIDC provider (roles for service accounts)"
                path="cluster.with_oidc"
                checked=Signal::derive(move || spec.with(|spec| spec.cluster.with_oidc))
                set=move |on| spec.update(|spec| spec.cluster.with_oidc = on)
            />
        </section>
    }
}
