//! What the design would change on the running cluster it was read from, planned by the
//! server (`POST /api/plan`) against the cluster as it is now, again after each pause in
//! typing: each change with its `+ ~ -/+ -` mark, the fields, the disruption in words and
//! the commands; what the peers would refuse; what was not read or not compared.

use leptos::prelude::*;

use crate::server::api::{self, LivePlan};
use crate::state::studio::Studio;

/// How long the design must stay unchanged before it is planned again.
const PAUSE: std::time::Duration = std::time::Duration::from_millis(600);

fn mark(action: &str) -> &'static str {
    match action {
        "create" => "+",
        "update" => "~",
        "replace" => "-/+",
        "delete" => "-",
        _ => "?",
    }
}

/// The plan against the running cluster, when the design came from one.
#[component]
pub fn ChangesPanel() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let answer = RwSignal::new(None::<Result<LivePlan, String>>);
    let asked = StoredValue::new(0_u64);
    Effect::new(move |_| {
        let Some(running) = studio.running.get() else {
            return;
        };
        let spec = studio.spec.get();
        let turn = asked.get_value() + 1;
        asked.set_value(turn);
        set_timeout(
            move || {
                if asked.try_get_value() != Some(turn) {
                    return;
                }
                leptos::task::spawn_local(async move {
                    let plan = api::plan(&running.region, &running.cluster, &spec).await;
                    if asked.try_get_value() == Some(turn) {
                        answer.try_set(Some(plan));
                    }
                });
            },
            PAUSE,
        );
    });
    let body = move || match answer.get() {
        None => view! { <p role="status">"Planning against the running cluster…"</p> }.into_any(),
        Some(Err(error)) => {
            view! { <p class="error" role="alert">{format!("Could not plan: {error}")}</p> }
                .into_any()
        }
        Some(Ok(plan)) => {
            let count = |action: &str| {
                plan.changes
                    .iter()
                    .filter(|change| change.action == action)
                    .count()
            };
            let disruptive = plan
                .changes
                .iter()
                .filter(|change| change.disruptive)
                .count();
            let summary = if plan.changes.is_empty() {
                "No changes: the cluster already is what the design says.".to_owned()
            } else {
                format!(
                    "{} to create, {} to update, {} to replace, {} to delete; {disruptive} disrupt running pods.",
                    count("create"),
                    count("update"),
                    count("replace"),
                    count("delete")
                )
            };
            let changes = plan
                .changes
                .iter()
                .map(|change| {
                    let fields = if change.fields.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", change.fields.join(", "))
                    };
                    let steps = change
                        .steps
                        .iter()
                        .map(|step| view! { <li><code>{format!("$ {}", step.join(" "))}</code></li> })
                        .collect_view();
                    let disruption = (!change.disruption.is_empty())
                        .then(|| view! { <p class="disruption">{format!("disrupts: {}", change.disruption)}</p> });
                    view! {
                        <li class=format!("change change-{}", change.action)>
                            <p class="change-line">
                                <span class="change-mark">{mark(&change.action)}</span>
                                {format!(" {} {}{fields}", change.kind, change.name)}
                            </p>
                            {disruption}
                            <ul class="change-steps">{steps}</ul>
                        </li>
                    }
                })
                .collect_view();
            let findings = plan
                .findings
                .iter()
                .map(|finding| {
                    view! {
                        <li class=format!("finding {:?}", finding.severity).to_lowercase()>
                            {format!("{}: {}", finding.rule, finding.message)}
                        </li>
                    }
                })
                .collect_view();
            let unseen = plan
                .not_compared
                .iter()
                .map(|what| view! { <li>{format!("not compared: {what}")}</li> })
                .chain(plan.not_read.iter().map(|gap| {
                    view! { <li>{format!("not read: {}: {}", gap.what, gap.why)}</li> }
                }))
                .collect_view();
            view! {
                <p class="plan-summary" id="plan-summary">{summary}</p>
                <ul class="changes">{changes}</ul>
                <ul class="plan-findings">{findings}</ul>
                <details>
                    <summary>"What the plan could not see"</summary>
                    <ul class="plan-unseen">{unseen}</ul>
                </details>
            }
            .into_any()
        }
    };
    view! {
        <Show when=move || studio.running.with(Option::is_some)>
            <section class="panel" aria-labelledby="changes-title">
                <h3 id="changes-title">
                    {move || studio.running.with(|running| running.as_ref().map(|running| {
                        format!("Changes to the running cluster `{}` ({})", running.cluster, running.region)
                    }).unwrap_or_default())}
                </h3>
                {body}
            </section>
        </Show>
    }
}
