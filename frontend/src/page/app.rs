//! The whole page: the step list, the step on screen with Back and Next, the findings
//! and the preview; the saved design restored on arrival.

use leptos::prelude::*;
use shared::rules::Severity;

use crate::codec::reading::{self, Reading};
use crate::page::preview::Preview;
use crate::page::split;
use crate::state::loading::LoadedSteps;
use crate::state::step::Step;
use crate::state::studio::{FIRST_TEMPLATE, Studio, counted};
use crate::widgets::checklist::PlaceholderChecklist;
use crate::widgets::deploy_panel::Deploys;
use crate::widgets::findings::{FindingsList, said_once};
use crate::widgets::undo::{ReplaceQuestion, UndoRedo};
use crate::widgets::{drafts, share};

/// The step list: one button per step with its error count.
#[component]
fn StepList() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let items = Step::ALL
        .iter()
        .map(|&step| {
            let errors = Memo::new(move |_| studio.count_on_step(step, Severity::Error));
            let warnings = Memo::new(move |_| studio.count_on_step(step, Severity::Warning));
            let current = move || studio.step.get() == step;
            let label = move || {
                let mut label = format!("{}. {}", step.number(), step.title());
                for (count, noun) in [(errors.get(), "error"), (warnings.get(), "warning")] {
                    if count > 0 {
                        label.push_str(&format!(", {}", counted(count, noun)));
                    }
                }
                label
            };
            view! {
                <li>
                    <button
                        type="button"
                        id=step.button_id()
                        class="step-button"
                        class:current=current
                        aria-current=move || current().then_some("step")
                        aria-label=label
                        on:click=move |_| studio.open_step(step)
                        on:pointerenter=move |_| prefetch(step)
                        on:focus=move |_| prefetch(step)
                    >
                        <span class="step-number">{step.number()}</span>
                        <span class="step-title">{step.title()}</span>
                        <Show when=move || { errors.get() > 0 }>
                            <span class="badge error" title="errors">{move || errors.get()}</span>
                        </Show>
                        <Show when=move || { errors.get() == 0 && warnings.get() > 0 }>
                            <span class="badge warning" title="warnings">{move || warnings.get()}</span>
                        </Show>
                    </button>
                </li>
            }
        })
        .collect_view();
    view! {
        <nav class="steps" aria-label="Wizard steps">
            <ol>{items}</ol>
        </nav>
    }
}

/// Back and Next buttons under a step.
#[component]
fn StepNavigation() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let prefetch_next = move || {
        if let Some(next) = studio.step.get_untracked().next() {
            prefetch(next);
        }
    };
    let go = move |step: Option<Step>| {
        if let Some(step) = step {
            studio.open_step(step);
        }
    };
    view! {
        <div class="step-navigation">
            <Show when=move || studio.step.get().previous().is_some()>
                <button type="button" on:click=move |_| go(studio.step.get_untracked().previous())>
                    {move || format!("← Back: {}", studio.step.get().previous().map(Step::title).unwrap_or_default())}
                </button>
            </Show>
            <Show when=move || studio.step.get().next().is_some()>
                <button
                    type="button"
                    class="primary"
                    on:click=move |_| go(studio.step.get_untracked().next())
                    on:pointerenter=move |_| prefetch_next()
                    on:focus=move |_| prefetch_next()
                >
                    {move || format!("Next: {} →", studio.step.get().next().map(Step::title).unwrap_or_default())}
                </button>
            </Show>
        </div>
    }
}

/// Starts loading `step`'s code when the pointer or the focus comes to a way to open it.
fn prefetch(step: Step) {
    expect_context::<LoadedSteps>().when_shown(step, || ());
}

/// The step on screen. A step whose code is not loaded yet says so until it arrives.
#[component]
fn CurrentStep() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let steps = expect_context::<LoadedSteps>();
    // A step opened without `open_step` (the saved step of a draft) is loaded here.
    Effect::new(move || {
        let step = studio.step.get();
        if !steps.is_loaded(step) {
            steps.when_shown(step, || ());
        }
    });
    // Redrawn only when the step or its own loading changes, not when another step's
    // code arrives (a prefetch), which would redraw the step being edited.
    let shown = Memo::new(move |_| {
        let step = studio.step.get();
        (step, steps.is_loaded(step), steps.failed(step))
    });
    move || {
        let (step, loaded, failed) = shown.get();
        if loaded && let Some(view) = split::view(step) {
            return view;
        }
        if failed {
            return view! {
                <section class="step" aria-labelledby="step-loading">
                    <h2 id="step-loading">{step.title()}</h2>
                    <p class="boot-failed" role="alert">
                        "This step's code could not be loaded. Check the connection to the server, then try again."
                    </p>
                    <button type="button" on:click=move |_| studio.open_step(step)>"Try again"</button>
                </section>
            }
            .into_any();
        }
        view! {
            <section class="step" aria-labelledby="step-loading">
                <h2 id="step-loading">{step.title()}</h2>
                <p role="status">"Loading this step…"</p>
            </section>
        }
        .into_any()
    }
}

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let studio = Studio::new(FIRST_TEMPLATE);
    provide_context(split::loaded_steps());
    provide_context(studio);
    // The saved work opens where it was, once read; until then the page says so, and
    // nothing is saved over it.
    let restored = RwSignal::new(false);
    match drafts::autosaved() {
        Some(saved) => {
            let step = drafts::saved_step();
            let running = drafts::saved_running();
            let template = studio.spec.get_untracked();
            let history = drafts::saved_history();
            reading::read(Reading::Saved, saved, template.clone(), move |read| {
                if let Ok((spec, _)) = read {
                    if spec != template {
                        studio.history.forget_next();
                        studio.template_id.set(String::new());
                        studio.spec.set(spec);
                    }
                    // Undo goes on where it was before the reload.
                    if let Some(text) = history {
                        leptos::task::spawn_local(async move {
                            if let Some(saved) = reading::history_later(text).await {
                                studio.history.restore(saved.past, saved.future);
                            }
                        });
                    }
                    if let Some(step) = step {
                        studio.step.set(step);
                    }
                    // Still planned against the cluster it was read from.
                    studio.running.set(running);
                }
                restored.set(true);
            });
        }
        None => restored.set(true),
    }
    drafts::remember_step(studio.step, restored);
    drafts::remember_running(studio.running, restored);
    // Deploys outlive the Review step, so a running one is still followed after a detour.
    provide_context(Deploys::new());
    drafts::autosave(studio.spec, studio.history, restored);
    view! {
        <a class="skip-link" href="#wizard">"Skip to the form"</a>
        <header class="topbar">
            <h1>"EKS Training Studio"</h1>
            <p class="tagline">"Design a GPU training cluster; see the eksctl YAML as you type."</p>
            <UndoRedo />
            <share::ShareLink />
            {move || {
                use_context::<drafts::AutosaveFailure>()
                    .and_then(|failure| failure.0.get())
                    .map(|why| view! {
                        <p class="warning save-failed" role="status" id="save-failed" title=why>
                            "Not saved in this browser"
                        </p>
                    })
            }}
        </header>
        <Show
            when=move || restored.get()
            fallback=|| view! { <p class="boot-status" role="status">"Opening your saved design…"</p> }
        >
        <main class="studio">
            <StepList />
            <div class="wizard" id="wizard" tabindex="-1">
                <ReplaceQuestion />
                <PlaceholderChecklist />
                <CurrentStep />
                <StepNavigation />
                <Show when=move || studio.step.get() != Step::Review>
                    <details class="findings-panel" open>
                        <summary>
                            {move || {
                                let (errors, total) = studio.shown_findings.with(|findings| {
                                    let said = |severity| said_once(findings, severity).len();
                                    let errors = said(Severity::Error);
                                    (errors, errors + said(Severity::Warning) + said(Severity::Info))
                                });
                                format!("Findings: {}, {total} in all", counted(errors, "error"))
                            }}
                        </summary>
                        <FindingsList />
                    </details>
                </Show>
            </div>
            <Preview />
        </main>
        </Show>
    }
}
