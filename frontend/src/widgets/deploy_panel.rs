//! The deploy panel: the token prompt, "Deploy", the plan eksctl printed, progress by
//! eksctl's CloudFormation stacks, the live log, cancel, and the history of past deploys.
//!
//! The state lives in [`Deploys`], provided once by the app, so a deploy keeps being
//! followed while the user moves between steps. The server does the work and keeps every
//! line; the page only shows what its event stream says.

use std::collections::VecDeque;

use leptos::prelude::*;
use shared::rules::Severity;

use crate::server::api::{self, DeployEvent, EventBody, Job, JobState, StageKind};
use crate::state::studio::Studio;
use shared::deploy::plan::APPROVAL_STEP;
use shared::model::live_checks::StepState;

/// sessionStorage key of the deploy token: kept for this tab, gone when it closes.
const TOKEN_KEY: &str = "eks-studio.deploy-token";
/// How many log lines the page shows; the server keeps them all.
const LOG_LINES_SHOWN: usize = 400;
/// How many times in a row a dropped event stream is reopened before the page gives up.
const STREAM_RETRIES: u32 = 10;

/// One CloudFormation stack, or the cluster's readiness, as eksctl's lines report it.
#[derive(Clone, Debug, PartialEq)]
struct StageRow {
    /// "Cluster stack", "Node group gpu stack", "Cluster", "Failure".
    what: String,
    /// The stack's name, or the line that said it.
    detail: String,
    /// "building", "deploying", "waiting for CloudFormation", "created", "ready", "failed".
    state: String,
}

/// The deploy being followed and the history, shared by every mount of the panel.
#[derive(Clone, Copy)]
pub struct Deploys {
    token: RwSignal<String>,
    /// The last thing the panel has to say (accepted, refused, unreachable…).
    message: RwSignal<String>,
    /// Files of the server's the last refused deploy would make eksctl read, waiting for
    /// the user's yes or no.
    server_files: RwSignal<Vec<String>>,
    busy: RwSignal<bool>,
    /// The job followed, with its steps as the events move them.
    job: RwSignal<Option<Job>>,
    state: RwSignal<Option<JobState>>,
    plan: RwSignal<String>,
    log: RwSignal<VecDeque<String>>,
    log_total: RwSignal<usize>,
    stages: RwSignal<Vec<StageRow>>,
    history: RwSignal<Vec<Job>>,
    history_message: RwSignal<String>,
    /// Bumped when another job is followed, so the old stream's reader stops.
    generation: StoredValue<u64>,
    abort: StoredValue<Option<web_sys::AbortController>, LocalStorage>,
}

fn session_storage() -> Option<web_sys::Storage> {
    window().session_storage().ok().flatten()
}

/// `2026-11-30T10:00:00.123Z` → `2026-11-30 10:00:00 UTC`.
fn readable_time(rfc3339: &str) -> String {
    match rfc3339.get(..19) {
        Some(seconds) => format!("{} UTC", seconds.replace('T', " ")),
        None => rfc3339.to_owned(),
    }
}

async fn pause_ms(milliseconds: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ =
            window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, milliseconds);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

impl Deploys {
    /// Empty, with the token this tab kept.
    pub fn new() -> Deploys {
        let token = session_storage()
            .and_then(|storage| storage.get_item(TOKEN_KEY).ok().flatten())
            .unwrap_or_default();
        Deploys {
            token: RwSignal::new(token),
            message: RwSignal::new(String::new()),
            server_files: RwSignal::new(Vec::new()),
            busy: RwSignal::new(false),
            job: RwSignal::new(None),
            state: RwSignal::new(None),
            plan: RwSignal::new(String::new()),
            log: RwSignal::new(VecDeque::new()),
            log_total: RwSignal::new(0),
            stages: RwSignal::new(Vec::new()),
            history: RwSignal::new(Vec::new()),
            history_message: RwSignal::new(String::new()),
            generation: StoredValue::new(0),
            abort: StoredValue::new_local(None),
        }
    }

    fn set_token(self, token: String) {
        if let Some(storage) = session_storage() {
            let _ = storage.set_item(TOKEN_KEY, &token);
        }
        self.token.set(token);
    }

    fn has_token(self) -> bool {
        !self.token.with_untracked(|token| token.trim().is_empty())
    }

    /// The deploy token this tab holds (empty when none was entered): reads of running
    /// clusters and plans against them need it as deploys do.
    pub fn token(self) -> String {
        self.token.get_untracked()
    }

    /// [`Deploys::token`], tracked: what plans with it runs again when it is entered.
    pub fn token_tracked(self) -> String {
        self.token.get()
    }

    /// Posts the spec; on 202 follows the new job. `confirm_server_files` resends it with
    /// the user's yes to the server files the last answer listed.
    fn start(self, spec: shared::Spec, confirm_server_files: bool) {
        if !self.has_token() {
            self.message.set(
                "Enter the deploy token the server printed at start (\"Deploy token: …\").".into(),
            );
            crate::state::studio::focus_id("deploy-token");
            return;
        }
        let token = self.token.get_untracked();
        self.busy.set(true);
        self.message.set("Asking the server to deploy…".into());
        self.server_files.set(Vec::new());
        leptos::task::spawn_local(async move {
            match api::start_deploy(&token, &spec, confirm_server_files).await {
                Ok(job) => {
                    self.message.try_set(format!(
                        "Deploy of {} in {} accepted (job {}).",
                        job.cluster, job.region, job.id
                    ));
                    self.follow(job);
                    self.load_history();
                }
                Err(api::DeployRefusal::ServerFiles(files)) => {
                    self.message.try_set(
                        "Deploy did not start: the design makes eksctl read files of the server's (below). Give the key itself (ssh.publicKey) or an EC2 key pair (ssh.publicKeyName) instead, or confirm that eksctl may read them."
                            .into(),
                    );
                    self.server_files.try_set(files);
                }
                Err(api::DeployRefusal::Other(reason)) => {
                    self.message
                        .try_set(format!("Deploy did not start: {reason}"));
                }
            }
            self.busy.try_set(false);
        });
    }

    /// Asks the server to apply `plan`, the plan on screen, to the running cluster; on 202
    /// follows the new job, which waits for approval. What happened is said in `message`
    /// and returned for the Changes view to say beside its button.
    pub fn start_apply(
        self,
        running: crate::state::running::RunningCluster,
        spec: shared::Spec,
        plan: api::LivePlan,
        allow_disruption: bool,
        said: RwSignal<String>,
    ) {
        if !self.has_token() {
            said.set("Enter the deploy token (in Deploy, below) first: the server applies with its own AWS credentials.".into());
            crate::state::studio::focus_id("deploy-token");
            return;
        }
        let token = self.token.get_untracked();
        self.busy.set(true);
        said.set("Asking the server to apply the plan…".into());
        leptos::task::spawn_local(async move {
            let answer = api::start_apply(
                &token,
                &running.region,
                &running.cluster,
                &spec,
                &plan,
                allow_disruption,
            )
            .await;
            let text = match answer {
                Ok(job) => {
                    let text = format!(
                        "Apply to {} accepted (job {}): review it in Deploy below, then approve.",
                        job.cluster, job.id
                    );
                    self.follow(job);
                    self.load_history();
                    request_animation_frame(|| crate::state::studio::focus_id("approve-deploy"));
                    text
                }
                Err(reason) => format!("Apply did not start: {reason}"),
            };
            self.message.try_set(text.clone());
            said.try_set(text);
            self.busy.try_set(false);
        });
    }

    /// The followed job's state (tracked): a view that depends on what a job changed
    /// reads it to refresh when the job ends.
    pub fn followed_state(self) -> Option<JobState> {
        self.state.get()
    }

    /// Whether the followed job applies a plan to a running cluster (its approval comes
    /// first) rather than creating one.
    fn is_apply(self) -> bool {
        self.job.with(|job| {
            job.as_ref()
                .and_then(|job| job.steps.first())
                .is_some_and(|step| step.name == APPROVAL_STEP)
        })
    }

    /// Shows `job` from its first event and follows it until it ends, reopening the
    /// stream after the last event seen when it drops.
    fn follow(self, job: Job) {
        self.abort.update_value(|abort| {
            if let Some(abort) = abort.take() {
                abort.abort();
            }
        });
        let Ok(controller) = web_sys::AbortController::new() else {
            self.message
                .set("This browser cannot read the deploy log.".into());
            return;
        };
        let abort_signal = controller.signal();
        self.abort.set_value(Some(controller));
        self.generation.update_value(|generation| *generation += 1);
        let generation = self.generation.get_value();
        let job_id = job.id.clone();
        self.state.set(Some(job.state));
        self.job.set(Some(job));
        self.plan.set(String::new());
        self.log.set(VecDeque::new());
        self.log_total.set(0);
        self.stages.set(Vec::new());
        let token = self.token.get_untracked();
        let current = move || self.generation.try_get_value() == Some(generation);
        leptos::task::spawn_local(async move {
            let (mut last_id, mut failures) = (0, 0);
            loop {
                let before = last_id;
                let outcome =
                    api::follow_deploy(&token, &job_id, last_id, &abort_signal, |event| {
                        if current() {
                            last_id = event.id;
                            self.apply(event);
                        }
                    })
                    .await;
                if !current() {
                    return;
                }
                failures = if last_id > before { 0 } else { failures + 1 };
                match outcome {
                    Ok(true) => break,
                    Err(reason) if !reason.starts_with("server unreachable") => {
                        self.message
                            .try_set(format!("The deploy log stopped: {reason}"));
                        break;
                    }
                    Err(reason) if failures > STREAM_RETRIES => {
                        self.message.try_set(format!(
                            "The deploy log stopped: {reason}. The server keeps the job; pick it in the history to see it again."
                        ));
                        break;
                    }
                    _ => pause_ms(1000).await,
                }
            }
            self.load_history();
        });
    }

    fn push_log(self, line: String) {
        self.log.update(|lines| {
            lines.push_back(line);
            while lines.len() > LOG_LINES_SHOWN {
                lines.pop_front();
            }
        });
        self.log_total.update(|total| *total += 1);
    }

    fn apply(self, event: DeployEvent) {
        match event.body {
            EventBody::Log { step, stream, text } => {
                // The plan is what `eksctl create cluster --dry-run` printed on stdout.
                if step == 0 && stream == api::OutputStream::Stdout {
                    self.plan.update(|plan| {
                        plan.push_str(&text);
                        plan.push('\n');
                    });
                }
                self.push_log(text);
            }
            EventBody::Stage { text, stage, .. } => {
                self.stages.update(|rows| apply_stage(rows, &stage, &text));
            }
            EventBody::Step {
                step: index,
                state,
                text,
                ..
            } => {
                self.job.update(|job| {
                    if let Some(step) = job.as_mut().and_then(|job| job.steps.get_mut(index)) {
                        step.state = state;
                    }
                });
                self.push_log(format!("▸ {text}"));
            }
            EventBody::State { state, text } => {
                self.state.set(Some(state));
                self.push_log(format!("▸ {text}"));
            }
        }
    }

    /// The id of the job on screen.
    fn followed_id(self) -> Option<String> {
        self.job
            .with_untracked(|job| job.as_ref().map(|job| job.id.clone()))
    }

    /// Approves the followed job's plan: it goes on to create.
    fn approve(self) {
        let Some(job_id) = self.followed_id() else {
            return;
        };
        let token = self.token.get_untracked();
        self.message.set("Approving the plan…".into());
        leptos::task::spawn_local(async move {
            let said = match api::approve_deploy(&token, &job_id).await {
                Ok(job) => {
                    self.job.try_set(Some(job));
                    if self.is_apply() {
                        "Approved: the apply goes on to change the cluster.".to_owned()
                    } else {
                        "Approved: the deploy goes on to create the cluster.".to_owned()
                    }
                }
                Err(reason) => format!("Approval failed: {reason}"),
            };
            self.message.try_set(said);
        });
    }

    /// Whether the followed job waits for approval of its plan.
    fn awaits_approval(self) -> bool {
        self.job.with(|job| {
            job.as_ref().is_some_and(|job| {
                job.steps
                    .iter()
                    .any(|step| step.name == APPROVAL_STEP && step.state == StepState::Running)
            })
        })
    }

    fn cancel(self) {
        let Some(job_id) = self.followed_id() else {
            return;
        };
        let token = self.token.get_untracked();
        self.message.set("Cancelling…".into());
        leptos::task::spawn_local(async move {
            let said = match api::cancel_deploy(&token, &job_id).await {
                Ok(job) => format!("Deploy {} is {}.", job.id, job.state),
                Err(reason) => format!("Cancel failed: {reason}"),
            };
            self.message.try_set(said);
        });
    }

    fn load_history(self) {
        if !self.has_token() {
            self.history_message
                .try_set("Enter the deploy token to see past deploys.".into());
            return;
        }
        let token = self.token.get_untracked();
        leptos::task::spawn_local(async move {
            match api::deploy_history(&token).await {
                Ok(jobs) => {
                    self.history_message.try_set(if jobs.is_empty() {
                        "No deploys yet.".into()
                    } else {
                        String::new()
                    });
                    // The followed job's steps as the API has them (a step the job never
                    // reached is `skipped` once it ends).
                    let followed = self
                        .job
                        .with_untracked(|job| job.as_ref().map(|job| job.id.clone()));
                    if let Some(listed) = followed
                        .and_then(|id| jobs.iter().find(|job| job.id == id))
                        .cloned()
                    {
                        self.job.try_set(Some(listed));
                    }
                    self.history.try_set(jobs);
                }
                Err(reason) => {
                    self.history_message
                        .try_set(format!("History unavailable: {reason}"));
                }
            }
        });
    }
}

impl Default for Deploys {
    fn default() -> Deploys {
        Deploys::new()
    }
}

/// A job state as the page shows it (nothing before a job).
fn shown_state(state: Option<JobState>) -> &'static str {
    state.map(JobState::as_str).unwrap_or_default()
}

/// One row per stack, moved on as eksctl reports it; readiness marks them all created.
fn apply_stage(rows: &mut Vec<StageRow>, stage: &api::Stage, line: &str) {
    let state = match stage.kind {
        StageKind::StackBuilding => "building",
        StageKind::StackDeploying => "deploying",
        StageKind::StackWaiting => "waiting for CloudFormation",
        StageKind::ClusterReady => {
            for row in rows.iter_mut() {
                row.state = "created".into();
            }
            rows.push(StageRow {
                what: "Cluster".into(),
                detail: line.into(),
                state: "ready".into(),
            });
            return;
        }
        StageKind::Failed => {
            if !rows.iter().any(|row| row.state == "failed") {
                rows.push(StageRow {
                    what: "eksctl".into(),
                    detail: line.into(),
                    state: "failed".into(),
                });
            }
            return;
        }
    };
    let Some(stack) = stage.stack.clone() else {
        return;
    };
    let what = match &stage.nodegroup {
        Some(group) => format!("Node group {group} stack"),
        None => "Cluster stack".into(),
    };
    match rows.iter_mut().find(|row| row.detail == stack) {
        Some(row) => row.state = state.into(),
        None => rows.push(StageRow {
            what,
            detail: stack,
            state: state.into(),
        }),
    }
}

/// The followed job: state, steps, stacks, plan and log.
#[component]
fn FollowedJob(deploys: Deploys) -> impl IntoView {
    let log_element = NodeRef::<leptos::html::Pre>::new();
    Effect::new(move |_| {
        deploys.log.track();
        if let Some(log) = log_element.get() {
            log.set_scroll_top(log.scroll_height());
        }
    });
    let running = move || !deploys.state.get().is_some_and(JobState::is_finished);
    // The plan is the next thing to read and approve: the keyboard lands on its button.
    Effect::new(move |_| {
        if deploys.awaits_approval() {
            request_animation_frame(|| crate::state::studio::focus_id("approve-deploy"));
        }
    });
    let steps = move || {
        deploys.job.with(|job| {
            job.iter()
                .flat_map(|job| job.steps.iter())
                .map(|step| {
                    // The approval step's title holds the whole plan, shown above it.
                    let title = if step.name == APPROVAL_STEP {
                        shared::deploy::plan::APPROVAL_TITLE
                    } else {
                        step.title.as_str()
                    };
                    view! { <li class=format!("job-state {}", step.state)>{format!("{title} — {}", step.state)}</li> }
                })
                .collect_view()
        })
    };
    let stages =
        move || {
            deploys.stages.get().into_iter().map(|row| {
            let class = format!("job-state {}", row.state.split(' ').next().unwrap_or_default());
            view! {
                <li class=class>
                    <strong>{row.what}</strong> " " <code>{row.detail}</code> " — " {row.state}
                </li>
            }
        }).collect_view()
        };
    view! {
        <div class="deploy-job" aria-labelledby="deploy-job-title">
            <h4 id="deploy-job-title">
                {move || {
                    let verb = if deploys.is_apply() { "Apply to" } else { "Deploy of" };
                    deploys.job.with(|job| job.as_ref().map(|job| format!("{verb} {} in {} (job {})", job.cluster, job.region, job.id)))
                }}
            </h4>
            <p>
                "State: " <strong id="deploy-state" class=move || format!("job-state {}", shown_state(deploys.state.get()))>{move || shown_state(deploys.state.get())}</strong>
                " "
                <Show when=running>
                    <button type="button" class="remove" id="cancel-deploy" on:click=move |_| deploys.cancel()>
                        {move || if deploys.is_apply() { "Cancel apply" } else { "Cancel deploy" }}
                    </button>
                </Show>
            </p>
            <Show when=move || deploys.awaits_approval()>
                <section class="approval" aria-labelledby="approval-title">
                    <h4 id="approval-title">"Review the plan, then approve it"</h4>
                    <p class="hint">
                        {move || if deploys.is_apply() {
                            "Nothing has been changed yet. Approving applies:"
                        } else {
                            "Nothing has been created yet. Approving creates:"
                        }}
                    </p>
                    <ul id="approval-summary">{move || approval_lines(deploys)}</ul>
                    <button type="button" class="primary" id="approve-deploy" on:click=move |_| deploys.approve()>
                        {move || if deploys.is_apply() { "Approve and apply" } else { "Approve and create" }}
                    </button>
                </section>
            </Show>
            <ol class="deploy-steps" id="deploy-steps" aria-label="Steps">{steps}</ol>
            // An apply's progress is its steps; eksctl's stacks are a deploy's.
            <Show when=move || !deploys.is_apply()>
                <ul class="deploy-stages" id="deploy-stages" aria-label="CloudFormation stacks">{stages}</ul>
            </Show>
            <Show when=move || !deploys.is_apply()>
                <details class="deploy-plan" id="deploy-plan">
                    <summary>"Plan: what eksctl create cluster --dry-run resolved"</summary>
                    <pre class="deploy-log" tabindex="0">{move || plan_text(deploys)}</pre>
                </details>
            </Show>
            <h4 id="deploy-log-title">
                {move || match deploys.log_total.get() {
                    total if total > LOG_LINES_SHOWN => format!("Log (last {LOG_LINES_SHOWN} of {total} lines)"),
                    total => format!("Log ({total} lines)"),
                }}
            </h4>
            <pre id="deploy-log" class="deploy-log" node_ref=log_element tabindex="0" aria-live="polite" aria-labelledby="deploy-log-title">
                {move || deploys.log.with(|lines| lines.iter().map(String::as_str).collect::<Vec<_>>().join("\n"))}
            </pre>
        </div>
    }
}

/// What the approval step says will be created, one item per line: the server wrote it
/// from the design it deploys.
fn approval_lines(deploys: Deploys) -> impl IntoView {
    let title = deploys.job.with(|job| {
        job.as_ref()
            .and_then(|job| job.steps.iter().find(|step| step.name == APPROVAL_STEP))
            .map(|step| step.title.clone())
            .unwrap_or_default()
    });
    let lines: Vec<String> = if deploys.is_apply() {
        shared::changes::apply::lines_of_apply_title(&title)
    } else {
        shared::deploy::plan::lines_of_approval_title(&title)
            .into_iter()
            .map(str::to_owned)
            .collect()
    };
    lines
        .into_iter()
        .map(|line| view! { <li>{line}</li> })
        .collect_view()
}

/// The plan eksctl printed, or what became of the plan step when it printed none.
fn plan_text(deploys: Deploys) -> String {
    let plan = deploys.plan.get();
    if !plan.is_empty() {
        return plan;
    }
    let state = deploys.job.with(|job| {
        job.as_ref()
            .and_then(|job| job.steps.first())
            .map(|step| step.state)
    });
    match state {
        Some(StepState::Running) => "(eksctl is planning…)".to_owned(),
        Some(StepState::Failed) => {
            "(the plan failed: eksctl's error is in the log below)".to_owned()
        }
        Some(StepState::Succeeded) => "(eksctl printed no plan)".to_owned(),
        Some(StepState::Cancelled | StepState::Interrupted) => {
            "(the plan was stopped before eksctl printed it)".to_owned()
        }
        _ => "(the plan has not run yet)".to_owned(),
    }
}

/// The deploy panel of the Review step.
#[component]
pub fn DeployPanel() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let deploys = use_context::<Deploys>().unwrap_or_else(|| {
        let deploys = Deploys::new();
        provide_context(deploys);
        deploys
    });
    deploys.load_history();
    let errors = Memo::new(move |_| {
        studio.findings.with(|findings| {
            findings
                .iter()
                .filter(|finding| finding.severity == Severity::Error)
                .count()
        })
    });
    let status = move || {
        let blocked = match errors.get() {
            0 => String::new(),
            1 => "Deploy is off: the design has 1 error; fix it first.".to_owned(),
            count => format!("Deploy is off: the design has {count} errors; fix them first."),
        };
        [blocked, deploys.message.get()]
            .into_iter()
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let history = move || {
        deploys.history.get().into_iter().map(|job| {
            let mut label = format!("{} in {} · {} · {}", job.cluster, job.region, job.state, readable_time(&job.created_at));
            if let Some(by) = &job.requested_by {
                label.push_str(&format!(" · asked by {by}"));
            }
            if let Some(by) = &job.approved_by {
                label.push_str(&format!(" · approved by {by}"));
            }
            let shown = job.id.clone();
            let current = move || deploys.job.with(|followed| followed.as_ref().is_some_and(|followed| followed.id == shown));
            view! {
                <li>
                    <button type="button" class=format!("history-item job-state {}", job.state) aria-current=move || current().then_some("true") on:click=move |_| deploys.follow(job.clone())>
                        {label}
                    </button>
                </li>
            }
        }).collect_view()
    };
    view! {
        <section class="panel deploy" aria-labelledby="deploy-title">
            <h3 id="deploy-title">"Deploy"</h3>
            <p class="hint">
                "The server runs eksctl (and helm and kubectl for Karpenter) with its own AWS credentials, keeps every log line, and streams them here."
            </p>
            <DeployTokenField id="deploy-token" />
            <button
                type="button"
                class="primary"
                id="deploy-button"
                aria-describedby="deploy-result"
                disabled=move || { errors.get() > 0 || deploys.busy.get() }
                on:click=move |_| deploys.start(studio.spec.get_untracked(), false)
            >
                "Deploy"
            </button>
            <p role="status" id="deploy-result">{status}</p>
            <Show when=move || deploys.server_files.with(|files| !files.is_empty())>
                <div class="server-files" role="group" aria-labelledby="server-files-title">
                    <p id="server-files-title">"eksctl would read these files on the server, with the server's permissions:"</p>
                    <ul id="server-files">
                        {move || deploys.server_files.get().into_iter().map(|file| view! { <li><code>{file}</code></li> }).collect_view()}
                    </ul>
                    <button
                        type="button"
                        id="confirm-server-files"
                        disabled=move || deploys.busy.get()
                        on:click=move |_| deploys.start(studio.spec.get_untracked(), true)
                    >
                        "Deploy and let eksctl read them"
                    </button>
                    <button type="button" on:click=move |_| deploys.server_files.set(Vec::new())>
                        "Do not deploy"
                    </button>
                </div>
            </Show>
            <Show when=move || deploys.job.with(Option::is_some)>
                <FollowedJob deploys=deploys />
            </Show>
            <h4 id="deploy-history-title">"History"</h4>
            <button type="button" on:click=move |_| deploys.load_history()>"Refresh history"</button>
            <p class="hint" id="deploy-history-status">{move || deploys.history_message.get()}</p>
            <ul class="deploy-history" id="deploy-history" aria-labelledby="deploy-history-title">{history}</ul>
        </section>
    }
}

/// The deploy token's input, bound to the one token of this tab: wherever it is entered
/// (Deploy, or opening a running cluster), every call that needs it has it.
#[component]
pub fn DeployTokenField(
    /// The input's DOM id.
    id: &'static str,
) -> impl IntoView {
    let deploys = expect_context::<Deploys>();
    let hint = format!("{id}-hint");
    view! {
        <div class="field">
            <label for=id>"Deploy token"</label>
            <input
                id=id
                type="password"
                autocomplete="off"
                aria-describedby=hint.clone()
                prop:value=move || deploys.token.get()
                on:input=move |event| deploys.set_token(event_target_value(&event))
                on:change=move |_| deploys.load_history()
            />
            <p class="hint" id=hint>
                "The server prints it at start (\"Deploy token: …\") or takes it from EKS_STUDIO_DEPLOY_TOKEN; reading a running cluster, planning against it, deploying and applying need it. Kept in this tab only."
            </p>
        </div>
    }
}
