//! What the design would change on the running cluster it was read from, planned by the
//! server (`POST /api/plan`) against the cluster as it is now, again after each pause in
//! typing: each change with its `+ ~ -/+ -` mark, the fields, the disruption in words and
//! the commands; what the peers would refuse; what was not read or not compared.

use leptos::prelude::*;

use shared::changes::visible;

use crate::server::api::{self, LivePlan};
use crate::state::studio::Studio;
use crate::widgets::deploy_panel::Deploys;

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
    let deploys = expect_context::<Deploys>();
    let answer = RwSignal::new(None::<Result<LivePlan, String>>);
    // Consent to the plan's drains, and what the last apply request came to.
    let allow_disruption = RwSignal::new(false);
    let apply_said = RwSignal::new(String::new());
    let asked = StoredValue::new(0_u64);
    Effect::new(move |_| {
        let Some(running) = studio.running.get() else {
            return;
        };
        let spec = studio.spec.get();
        let token = deploys.token_tracked();
        // Planned again when a followed job (an apply) moves on or ends: the cluster changed.
        deploys.followed_state();
        let turn = asked.get_value() + 1;
        asked.set_value(turn);
        set_timeout(
            move || {
                if asked.try_get_value() != Some(turn) {
                    return;
                }
                leptos::task::spawn_local(async move {
                    let plan = api::plan(&token, &running.region, &running.cluster, &spec).await;
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
                shared::changes::summary([
                    count("create"),
                    count("update"),
                    count("replace"),
                    count("delete"),
                    disruptive,
                ])
            };
            let changes = plan
                .changes
                .iter()
                .map(|change| {
                    let fields = if change.fields.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", visible(&change.fields.join(", ")))
                    };
                    let steps = change
                        .steps
                        .iter()
                        .map(|step| {
                            let wait = step.wait.as_ref().map(|wait| {
                                view! { <span class="hint">{format!(" waits up to {}", wait.up_to)}</span> }
                            });
                            view! { <li><code>{format!("$ {}", visible(&step.argv().join(" ")))}</code>{wait}</li> }
                        })
                        .collect_view();
                    let disruption = (!change.disruption.is_empty())
                        .then(|| view! { <p class="disruption">{format!("disrupts: {}", visible(&change.disruption))}</p> });
                    view! {
                        <li class=format!("change change-{}", change.action)>
                            <p class="change-line">
                                <span class="change-mark">{mark(&change.action)}</span>
                                {format!(" {} {}{fields}", visible(&change.kind), visible(&change.name))}
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
                            {format!("{}: ", finding.rule)}
                            {crate::widgets::prose::with_code(visible(&finding.message).into_owned())}
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
            let refused = plan
                .findings
                .iter()
                .any(|finding| finding.severity == shared::rules::Severity::Error);
            let apply = (!plan.changes.is_empty()).then(|| {
                if refused {
                    return view! {
                        <p class="hint" id="apply-status">"A peer would refuse a change of this plan (below): change the design before applying it."</p>
                    }
                    .into_any();
                }
                let approved = plan.clone();
                let consent = (disruptive > 0).then(|| {
                    view! {
                        <label class="check">
                            <input
                                type="checkbox"
                                id="allow-disruption"
                                prop:checked=move || allow_disruption.get()
                                on:change=move |event| allow_disruption.set(event_target_checked(&event))
                            />
                            {format!(
                                " Let the apply drain nodes: {disruptive} {} running pods (above)",
                                if disruptive == 1 { "change disrupts" } else { "changes disrupt" }
                            )}
                        </label>
                    }
                });
                let start = move |_| {
                    let Some(running) = studio.running.get_untracked() else {
                        return;
                    };
                    deploys.start_apply(
                        running,
                        studio.spec.get_untracked(),
                        approved.clone(),
                        allow_disruption.get_untracked(),
                        apply_said,
                    );
                };
                view! {
                    <div class="apply" role="group" aria-labelledby="apply-title">
                        <h4 id="apply-title">"Apply these changes"</h4>
                        <p class="hint">
                            "The server plans again, refuses if the cluster changed since this plan, and waits for your approval (in Deploy, below) before its first step; then it runs the steps in this order and reads the cluster again."
                        </p>
                        {consent}
                        <button type="button" class="primary" id="apply-changes" on:click=start>
                            "Apply these changes…"
                        </button>
                        <p role="status" id="apply-status">{move || apply_said.get()}</p>
                    </div>
                }
                .into_any()
            });
            view! {
                <p class="plan-summary" id="plan-summary">{summary}</p>
                <ul class="changes">{changes}</ul>
                <ul class="plan-findings">{findings}</ul>
                {apply}
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
