//! Every finding, grouped by severity and said once; each field it is about is a button
//! that goes to that field.

use leptos::prelude::*;
use shared::rules::{Finding, Severity};

use crate::state::step::step_of_path;
use crate::state::studio::Studio;

/// The findings list. Clicking (or pressing Enter on) a finding goes to its step and
/// focuses its field.
#[component]
pub fn FindingsList() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let group = move |severity: Severity, title: &'static str| {
        let items = move || {
            studio.shown_findings.with(|findings| {
                said_once(findings, severity)
                    .into_iter()
                    .map(|(finding, paths)| {
                        let links = paths
                            .into_iter()
                            .map(|path| {
                                let step = step_of_path(&path);
                                let target = path.clone();
                                let place = studio.spec.with_untracked(|spec| shared::model::places::place(spec, &path));
                                view! {
                                    <button type="button" class="finding-link" title=path.clone() data-path=path.clone() on:click=move |_| studio.go_to_path(&target)>
                                        <span class="where">{format!("{} · ", step.title())}{crate::widgets::prose::with_code(place)}</span>
                                    </button>
                                }
                            })
                            .collect_view();
                        view! {
                            <li class=format!("finding {}", severity.as_str())>
                                <span class="message">{crate::widgets::prose::with_code(finding.message.clone())}</span>
                                {links}
                            </li>
                        }
                    })
                    .collect_view()
            })
        };
        let count = move || {
            studio
                .findings
                .with(|findings| said_once(findings, severity).len())
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
            <Show when=move || studio.shown_findings.with(Vec::is_empty)>
                <p class="no-findings">"No findings: the design passes every offline rule."</p>
            </Show>
        </div>
    }
}

/// The findings of `severity`, each said once: findings of one rule with the same message
/// (one placeholder in two fields, one reason for several checks) become one item with
/// every path it is about.
pub fn said_once(findings: &[Finding], severity: Severity) -> Vec<(&Finding, Vec<String>)> {
    let mut items: Vec<(&Finding, Vec<String>)> = Vec::new();
    for finding in findings
        .iter()
        .filter(|finding| finding.severity == severity)
    {
        match items
            .iter_mut()
            .find(|(first, _)| first.rule == finding.rule && first.message == finding.message)
        {
            Some((_, paths)) => {
                if !paths.contains(&finding.path) {
                    paths.push(finding.path.clone());
                }
            }
            None => items.push((finding, vec![finding.path.clone()])),
        }
    }
    items
}
