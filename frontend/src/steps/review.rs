//! The last step: every finding, the live AWS checks, the bundle and the deploy. The live
//! checks, the bundle and the deploy ask the server; when it has no AWS credentials the
//! page says which checks could not run, and the rest works as before.

use leptos::prelude::*;
use shared::deploy::bundle::{self, CheckLine};
use wasm_bindgen::{JsCast, JsValue};

use crate::server::api;
use crate::state::step::Step;
use crate::state::studio::LiveChecks;
use crate::state::studio::Studio;
use crate::steps::changes::ChangesPanel;
use crate::widgets::deploy_panel::DeployPanel;
use crate::widgets::findings::FindingsList;
use crate::widgets::heading::StepHeading;

/// Offers `bytes` as a file download called `file_name`.
fn download(bytes: &[u8], file_name: &str) -> Result<(), String> {
    let array = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&array);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/zip");
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(|_| "the browser could not build the file".to_owned())?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)
        .map_err(|_| "the browser could not offer the file".to_owned())?;
    let anchor: web_sys::HtmlAnchorElement = document()
        .create_element("a")
        .map_err(|_| "no document".to_owned())?
        .unchecked_into();
    anchor.set_href(&url);
    anchor.set_download(file_name);
    anchor.click();
    // Give the download a moment to start before the URL is released.
    set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(30),
    );
    let _ = JsValue::NULL;
    Ok(())
}

/// "Run live checks" and their answers.
#[component]
fn LiveChecksPanel() -> impl IntoView {
    let studio = expect_context::<Studio>();
    // Asked once each time the panel opens; a plain task and signal rather than a
    // resource, which would bring Leptos's async machinery into the page for one answer.
    let health = RwSignal::new(None::<Result<api::Health, String>>);
    leptos::task::spawn_local(async move {
        let answer = api::health().await;
        // The panel may be gone by now (another step was chosen).
        health.try_set(Some(answer));
    });
    let run = move |_| {
        studio.live_checks.set(LiveChecks::Running);
        let spec = studio.spec.get_untracked();
        leptos::task::spawn_local(async move {
            let answer = match api::run_checks(&spec).await {
                Ok((checks, facts)) => {
                    studio.live_facts.set(facts);
                    studio.live_checks_for.set(Some(spec));
                    LiveChecks::Done(checks)
                }
                Err(reason) => LiveChecks::CouldNotRun(reason),
            };
            studio.live_checks.set(answer);
        });
    };
    let health_line = move || {
        match health.get() {
        None => view! { <p>"Asking the server about AWS access…"</p> }.into_any(),
        Some(Ok(health)) if health.aws.credentials => {
            view! { <p class="ok">"The server has AWS credentials: live checks can run."</p> }
                .into_any()
        }
        Some(Ok(_)) => view! {
            <p class="hint" id="aws-status">
                "The server has no AWS credentials, so these checks cannot run: " {shared::model::live_checks::live_checks_in_words()}
                ". Everything else (rules, preview, bundle) works without AWS."
            </p>
        }
        .into_any(),
        Some(Err(reason)) => view! {
            <p class="hint" id="aws-status">
                {format!("The server cannot be reached ({reason}), so these checks cannot run: {}. Everything else works in this page.", shared::model::live_checks::live_checks_in_words())}
            </p>
        }
        .into_any(),
    }
    };
    let results = move || {
        match studio.live_checks.get() {
        LiveChecks::NotRun => ().into_any(),
        LiveChecks::Running => view! { <p role="status">"Running live checks…"</p> }.into_any(),
        LiveChecks::CouldNotRun(reason) => view! {
            <p class="warning" role="status" id="live-checks-result">{format!("Live checks could not run: {reason}")}</p>
        }
        .into_any(),
        LiveChecks::Done(checks) => {
            // Checks that end the same way for the same reason are said once, with each
            // check's id and field.
            let mut said: Vec<(shared::model::live_checks::LiveCheck, Vec<String>, Vec<String>)> = Vec::new();
            for check in checks {
                match said.iter_mut().find(|(first, _, _)| {
                    first.status == check.status && first.message == check.message
                }) {
                    Some((_, ids, paths)) => {
                        ids.push(check.id.clone());
                        if !check.path.is_empty() && !paths.contains(&check.path) {
                            paths.push(check.path.clone());
                        }
                    }
                    None => {
                        let paths = (!check.path.is_empty()).then(|| check.path.clone()).into_iter().collect();
                        said.push((check.clone(), vec![check.id.clone()], paths));
                    }
                }
            }
            let rows = said
                .into_iter()
                .map(|(check, ids, paths)| {
                    let links = paths
                        .into_iter()
                        .map(|path| {
                            let target = path.clone();
                            let place = studio.spec.with_untracked(|spec| shared::model::places::place(spec, &path));
                            view! {
                                " "
                                <button type="button" class="link" title=path.clone() on:click=move |_| studio.go_to_path(&target)>
                                    "go to "
                                    {crate::widgets::prose::with_code(place)}
                                </button>
                            }
                        })
                        .collect_view();
                    view! {
                        <li class=format!("check {}", check.status)>
                            <span class="severity">{check.status.as_str()}</span>
                            " "
                            <code>{ids.join(", ")}</code>
                            " — "
                            {crate::widgets::prose::with_code(check.message.clone())}
                            {links}
                        </li>
                    }
                })
                .collect_view();
            view! {
                <Show when=move || studio.live_checks_stale()>
                    <p class="hint" id="live-checks-stale">
                        "The design changed after these checks ran: they are about the design as it was. Run them again to check it as it is now."
                    </p>
                </Show>
                <ul class=move || if studio.live_checks_stale() { "checks stale" } else { "checks" } id="live-checks-result" role="status">{rows}</ul>
            }
            .into_any()
        }
    }
    };
    view! {
        <section class="panel" aria-labelledby="live-checks-title">
            <h3 id="live-checks-title">"Live AWS checks"</h3>
            {health_line}
            <button
                type="button"
                disabled=move || studio.live_checks.get() == LiveChecks::Running
                on:click=run
            >
                "Run live checks"
            </button>
            {results}
        </section>
    }
}

/// "Download bundle": the zip of every file, built by the server from the design, the
/// live checks and what EC2 told them.
#[component]
fn DownloadPanel() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let status = RwSignal::new(String::new());
    let run = move |_| {
        // Results about an earlier design are not listed as this design's.
        let stale = studio.live_checks_stale();
        let checks: Vec<CheckLine> = match studio.live_checks.get_untracked() {
            LiveChecks::Done(_) if stale => Vec::new(),
            LiveChecks::Done(checks) => checks
                .into_iter()
                .map(|check| CheckLine {
                    id: check.id,
                    status: check.status,
                    message: check.message,
                })
                .collect(),
            _ => Vec::new(),
        };
        let spec = studio.spec.get_untracked();
        let facts = studio.live_facts.get_untracked();
        status.set("Building the bundle…".to_owned());
        leptos::task::spawn_local(async move {
            let name = bundle::file_name(&spec.cluster.name);
            let outcome = api::bundle(&spec, &checks, &facts)
                .await
                .and_then(|(zip, count)| download(&zip, &name).map(|()| count));
            status.try_set(match outcome {
                Ok(count) => format!("Downloaded {name} ({count} files)."),
                Err(error) => format!("Cannot build the bundle: {error}"),
            });
        });
    };
    view! {
        <section class="panel" aria-labelledby="download-title">
            <h3 id="download-title">"Bundle"</h3>
            <p class="hint">
                "cluster.yaml, the Karpenter files when used, studio.json, deploy.sh, teardown.sh and a README listing open findings and the live checks run here. Built by the studio's server."
            </p>
            <button type="button" class="primary" id="download-button" on:click=run>"Download bundle"</button>
            <p role="status" id="download-status">{move || status.get()}</p>
        </section>
    }
}

/// All findings, live checks, bundle and deploy.
#[component]
pub fn ReviewStep() -> impl IntoView {
    view! {
        <section class="step" aria-labelledby="step-title-8">
            <StepHeading step=Step::Review />
            <FindingsList />
            <ChangesPanel />
            <DownloadPanel />
            <LiveChecksPanel />
            <DeployPanel />
        </section>
    }
}
