//! Every finding, grouped by severity; each one is a button that goes to its field.

use leptos::prelude::*;
use shared::rules::Severity;

use crate::{Studio, step_of_path};

/// The findings list. Clicking (or pressing Enter on) a finding goes to its step and
/// focuses its field.
#[component]
pub fn FindingsList() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let group = move |severity: Severity, title: &'static str| {
        let items = move || {
            studio.findings.with(|findings| {
                findings
                    .iter()
                    .filter(|finding| finding.severity == severity)
                    .map(|finding| {
                        let path = finding.path.clone();
                        let step = step_of_path(&path);
                        let target = path.clone();
                        view! {
                            <li class=format!("finding {}", severity.as_str())>
                                <button type="button" class="finding-link" on:click=move |_| studio.go_to_path(&target)>
                                    <span class="message">{finding.message.clone()}</span>
                                    <span class="where">{format!("{} · {path}", step.title())}</span>
                                </button>
                            </li>
                        }
                    })
                    .collect_view()
            })
        };
        let count = move || {
            studio.findings.with(|findings| {
                findings
                    .iter()
                    .filter(|finding| finding.severity == severity)
                    .count()
            })
        };
        view! {
            <Show when=move || { count() > 0 }>
                <h3 class=format!("findings-heading {}", severity.as_str())>{move || format!("{title} ({})", count())}</h3>
                <ul class="findings">{items}</ul>
            </Show>
        }
    };
    view! {
        <div class="findings-list" id="findings-list">
            {group(Severity::Error, "Errors")}
            {group(Severity::Warning, "Warnings")}
            {group(Severity::Info, "Info")}
            <Show when=move || studio.findings.with(Vec::is_empty)>
                <p class="no-findings">"No findings: the design passes every offline rule."</p>
            </Show>
        </div>
    }
}
