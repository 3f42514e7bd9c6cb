//! The browser studio. Components live here so browser tests can mount them;
//! `main.rs` only mounts [`App`] on the page.
//!
//! The spec is one `RwSignal<Spec>`; the preview is a `Memo` over it, computed by the
//! same `shared` renderer the server and the CLI use, on every keystroke.
#![cfg(target_arch = "wasm32")]

/// The Cluster step: name, region, Kubernetes version, OIDC.
mod cluster_step;
/// The live YAML preview pane.
mod preview;
/// The Start step: pick a template.
mod start_step;

use leptos::prelude::*;
use shared::Spec;

pub use cluster_step::ClusterStep;
pub use preview::Preview;
pub use start_step::StartStep;

/// The template a first visit opens with, so the preview is never empty.
pub const FIRST_TEMPLATE: &str = "p5-capacity-block";

/// The design being edited, shared with every step through context.
#[derive(Clone, Copy)]
pub struct Studio {
    /// The spec as the user has typed it so far.
    pub spec: RwSignal<Spec>,
    /// Id of the template the spec started from.
    pub template_id: RwSignal<String>,
}

impl Studio {
    /// A studio opened on `template_id`.
    pub fn new(template_id: &str) -> Studio {
        let template = shared::template(template_id)
            .or_else(|| shared::TEMPLATES.first())
            .expect("there is at least one template");
        Studio {
            spec: RwSignal::new(template.spec()),
            template_id: RwSignal::new(template.id.to_owned()),
        }
    }

    /// Replaces the spec with a fresh copy of a template.
    pub fn choose_template(&self, template_id: &str) {
        if let Some(template) = shared::template(template_id) {
            self.spec.set(template.spec());
            self.template_id.set(template.id.to_owned());
        }
    }
}

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let studio = Studio::new(FIRST_TEMPLATE);
    provide_context(studio);
    let cluster_yaml = Memo::new(move |_| {
        studio
            .spec
            .with(|spec| shared::render_cluster_yaml(spec).map_err(|error| error.to_string()))
    });
    view! {
        <header class="topbar">
            <h1>"EKS Training Studio"</h1>
            <p class="tagline">"Design a GPU training cluster; see the eksctl YAML as you type."</p>
        </header>
        <main class="studio">
            <div class="wizard">
                <StartStep />
                <ClusterStep />
            </div>
            <Preview cluster_yaml=cluster_yaml />
        </main>
    }
}
