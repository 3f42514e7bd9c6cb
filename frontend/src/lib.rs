//! The browser studio. Components live here so browser tests can mount them;
//! `main.rs` only mounts `App` on the page.
//!
//! The spec is one `RwSignal<Spec>`; the preview and the findings are `Memo`s over it,
//! computed by the same `shared` renderer and rules the server and the CLI use, on every
//! keystroke. Each input carries a DOM id derived from its spec path (`field_id`), so a
//! finding's path is all it takes to show it beside its field and to focus that field.
#![cfg(target_arch = "wasm32")]

/// Who may reach the cluster (`accessConfig`), in the Cluster step.
mod access_fields;
/// The Add-ons and storage step.
mod addons_step;
/// HTTP calls to the studio server: health, live checks, deploys.
pub mod api;
/// EKS Auto Mode's NodePools and NodeClasses, edited under Auto Mode in the Cluster step.
mod auto_mode_pools;
/// Inputs bound to one object of the spec in one line, and lists of rows.
mod bind;
/// The Capacity step: how each node group's instances are paid for and where they live.
mod capacity_step;
/// The placeholders still to fill in, as one checklist.
mod checklist;
/// The Cluster step: name, region, Kubernetes version, OIDC.
mod cluster_step;
/// The deploy panel: token, plan, progress by CloudFormation stack, live log, history.
mod deploy_panel;
/// Drafts in localStorage and share links in the URL fragment.
pub mod drafts;
/// Text with line numbers and findings marked on its lines.
mod editor;
/// Labelled inputs bound to the spec, each with its findings beside it.
mod fields;
/// The findings list grouped by severity.
mod findings;
/// Undo, redo, and asking before the design is replaced.
mod history;
/// Reading JSON with the reader imports use.
pub mod json;
/// The Karpenter step: NodePools, EC2NodeClasses and controller settings.
mod karpenter_step;
/// Code a first visit does not run (the later steps, reading YAML), loaded when needed.
mod lazy;
/// The Network step: new or existing VPC.
mod network_step;
/// The Node groups step, with the instance-type picker.
mod node_groups_step;
/// One NodePool's inputs, shared by Karpenter's and EKS Auto Mode's pools.
mod pool_fields;
/// The live preview pane: tabs, line numbers, highlighting, editing a file in place.
mod preview;
/// The Review and ship step: all findings, live checks, bundle, deploy.
mod review_step;
/// The Start step: templates, import, drafts.
mod start_step;

use std::collections::HashMap;

use leptos::prelude::*;
use shared::Spec;
use shared::model::spec::{KarpenterSettings, NodeGroup};
use shared::rules::{Finding, LiveFacts, Severity};

pub use api::LiveCheck;
pub use cluster_step::ClusterStep;
pub use findings::FindingsList;
pub use preview::Preview;
pub use start_step::StartStep;

/// The template a first visit opens with, so the preview is never empty: one whose only
/// errors are the placeholders the checklist asks for (p5 in an ODCR, through Karpenter).
pub const FIRST_TEMPLATE: &str = "karpenter-reserved-training";

/// The eight steps of the wizard, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// Pick a template, import YAML or open a draft.
    Start,
    /// Name, region, Kubernetes version.
    Cluster,
    /// New or existing VPC.
    Network,
    /// Managed node groups.
    NodeGroups,
    /// Capacity type and placement per node group.
    Capacity,
    /// Karpenter pools and classes.
    Karpenter,
    /// EKS add-ons.
    Addons,
    /// Findings, live checks, bundle, deploy.
    Review,
}

impl Step {
    /// Every step, in wizard order.
    pub const ALL: [Step; 8] = [
        Step::Start,
        Step::Cluster,
        Step::Network,
        Step::NodeGroups,
        Step::Capacity,
        Step::Karpenter,
        Step::Addons,
        Step::Review,
    ];

    /// The step's title in the step list.
    pub fn title(self) -> &'static str {
        match self {
            Step::Start => "Start",
            Step::Cluster => "Cluster",
            Step::Network => "Network",
            Step::NodeGroups => "Node groups",
            Step::Capacity => "Capacity",
            Step::Karpenter => "Karpenter",
            Step::Addons => "Add-ons and storage",
            Step::Review => "Review and ship",
        }
    }

    /// 1-based position in the wizard.
    pub fn number(self) -> usize {
        Step::ALL.iter().position(|step| *step == self).unwrap_or(0) + 1
    }

    /// DOM id of the step's button in the step list.
    pub fn button_id(self) -> String {
        format!("step-button-{}", self.number())
    }

    fn next(self) -> Option<Step> {
        Step::ALL.get(self.number()).copied()
    }

    fn previous(self) -> Option<Step> {
        self.number().checked_sub(2).map(|idx| Step::ALL[idx])
    }
}

/// The step whose form holds the field at a spec path.
///
/// Placement lives with capacity: a reservation exists in one zone, so the zone or subnet
/// a group is pinned to is chosen next to the reservation. EKS Auto Mode's own pools and
/// classes are edited under Auto Mode, in the Cluster step.
pub fn step_of_path(path: &str) -> Step {
    let is_capacity = path.starts_with("node_groups[")
        && path
            .split_once("].")
            .is_some_and(|(_, rest)| rest.starts_with("capacity") || rest.starts_with("placement"));
    if path.starts_with("cluster") || path.starts_with("auto_mode_pools") {
        Step::Cluster
    } else if path.starts_with("network") {
        Step::Network
    } else if is_capacity {
        Step::Capacity
    } else if path.starts_with("node_groups") {
        Step::NodeGroups
    } else if path.starts_with("karpenter") {
        Step::Karpenter
    } else if path.starts_with("addons") || path.starts_with("storage") {
        Step::Addons
    } else {
        Step::Review
    }
}

/// The DOM id of the control editing the spec field at `path`: every run of characters
/// other than ASCII letters and digits becomes one `-`, behind an `f-` prefix.
/// `node_groups[1].instance_type` → `f-node-groups-1-instance-type`.
pub fn field_id(path: &str) -> String {
    let mut id = String::from("f");
    let mut pending_dash = true;
    for character in path.chars() {
        if character.is_ascii_alphanumeric() {
            if pending_dash {
                id.push('-');
                pending_dash = false;
            }
            id.push(character.to_ascii_lowercase());
        } else {
            pending_dash = true;
        }
    }
    id
}

/// The path one level up: `a.b[2]` → `a.b`, `a.b` → `a`, `a` → none.
pub fn parent_path(path: &str) -> Option<&str> {
    let cut = path.rfind(['.', '['])?;
    Some(&path[..cut])
}

/// What the last "Run live checks" answered.
#[derive(Clone, Debug, PartialEq)]
pub enum LiveChecks {
    /// Not run yet.
    NotRun,
    /// Waiting for the server.
    Running,
    /// The server's checks.
    Done(Vec<LiveCheck>),
    /// The checks could not run at all, and why.
    CouldNotRun(String),
}

/// Where EC2 offers instance types in a region, as the server last answered, for the
/// instance picker.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ZoneOfferings {
    /// The region asked about (empty: none yet).
    pub region: String,
    /// The answer once it came, or why the server could not be asked.
    pub answer: Option<Result<api::RegionOfferings, String>>,
}

/// The design being edited, shared with every step through context.
#[derive(Clone, Copy)]
pub struct Studio {
    /// The spec as the user has typed it so far.
    pub spec: RwSignal<Spec>,
    /// Id of the template the spec started from (empty after an import).
    pub template_id: RwSignal<String>,
    /// The step on screen.
    pub step: RwSignal<Step>,
    /// Every finding of the offline rules, recomputed on each change of the spec.
    pub findings: Memo<Vec<Finding>>,
    /// The same findings keyed by path, for the fields beside which they show.
    pub findings_by_path: Memo<HashMap<String, Vec<Finding>>>,
    /// The last live checks.
    pub live_checks: RwSignal<LiveChecks>,
    /// What EC2 answered in the last live checks, which the rules take into account.
    pub live_facts: RwSignal<LiveFacts>,
    /// Undo and redo of the spec.
    pub history: history::History,
    /// A replacement of the design waiting for the user's yes.
    pub pending_replacement: RwSignal<Option<history::Replacement>>,
    /// Where EC2 offers instance types in the design's region (asked by the picker).
    pub zone_offerings: RwSignal<ZoneOfferings>,
}

impl Studio {
    /// A studio opened on `template_id`.
    pub fn new(template_id: &str) -> Studio {
        let template = shared::template(template_id)
            .or_else(|| shared::TEMPLATES.first())
            .expect("there is at least one template");
        let studio = Studio::with_spec(template.spec());
        studio.template_id.set(template.id.to_owned());
        studio
    }

    /// A studio opened on a spec (a draft, a share link, an import).
    pub fn with_spec(spec: Spec) -> Studio {
        let spec = RwSignal::new(spec);
        let live_facts = RwSignal::new(todays_facts());
        let findings = Memo::new(move |_| {
            live_facts.with(|facts| spec.with(|spec| shared::rules::validate_with(spec, facts)))
        });
        let findings_by_path = Memo::new(move |_| {
            findings.with(|findings| {
                let mut by_path: HashMap<String, Vec<Finding>> = HashMap::new();
                for finding in findings {
                    by_path
                        .entry(finding.path.clone())
                        .or_default()
                        .push(finding.clone());
                }
                by_path
            })
        });
        Studio {
            spec,
            template_id: RwSignal::new(String::new()),
            step: RwSignal::new(Step::Start),
            findings,
            findings_by_path,
            live_checks: RwSignal::new(LiveChecks::NotRun),
            live_facts,
            history: history::History::follow(spec),
            pending_replacement: RwSignal::new(None),
            zone_offerings: RwSignal::new(ZoneOfferings::default()),
        }
    }

    /// Asks the server where EC2 offers instance types in `region`, once per region.
    pub fn ask_zone_offerings(&self, region: &str) {
        if self
            .zone_offerings
            .with_untracked(|known| known.region == region)
        {
            return;
        }
        self.zone_offerings.set(ZoneOfferings {
            region: region.to_owned(),
            answer: None,
        });
        let known = self.zone_offerings;
        let region = region.to_owned();
        leptos::task::spawn_local(async move {
            let answer = api::offerings(&region).await;
            known.update(|known| {
                if known.region == region {
                    known.answer = Some(answer);
                }
            });
        });
    }

    /// Replaces the spec with a fresh copy of a template, asking first when that would drop
    /// edits.
    pub fn choose_template(&self, template_id: &str) {
        if let Some(template) = shared::template(template_id) {
            self.request_replacement(history::Replacement {
                spec: template.spec(),
                template_id: template.id.to_owned(),
                what: format!("the template “{}”", template.name),
            });
        }
    }

    /// Replaces the spec (import, draft), asking first when that would drop edits.
    pub fn replace_spec(&self, spec: Spec, what: impl Into<String>) {
        self.request_replacement(history::Replacement {
            spec,
            template_id: String::new(),
            what: what.into(),
        });
    }

    /// Whether the design holds nothing the user made: it is still one of the templates as
    /// it comes (also after a reload, which keeps the spec but not where it came from).
    fn untouched(&self) -> bool {
        self.spec.with_untracked(|spec| {
            shared::TEMPLATES
                .iter()
                .any(|template| *spec == template.spec())
        })
    }

    fn request_replacement(&self, replacement: history::Replacement) {
        if self.untouched() || self.spec.with_untracked(|spec| *spec == replacement.spec) {
            self.apply_replacement(replacement);
        } else {
            self.pending_replacement.set(Some(replacement));
        }
    }

    fn apply_replacement(&self, replacement: history::Replacement) {
        self.history.break_here();
        self.spec.set(replacement.spec);
        self.template_id.set(replacement.template_id);
        self.forget_live_checks();
    }

    /// The user said yes to the waiting replacement.
    pub fn confirm_replacement(&self) {
        if let Some(replacement) = self.pending_replacement.get_untracked() {
            self.pending_replacement.set(None);
            self.apply_replacement(replacement);
        }
    }

    /// The user keeps the current design; a template card clicked shows the old one again.
    pub fn keep_design(&self) {
        self.pending_replacement.set(None);
        self.template_id.update(|_| {});
    }

    /// Drops live results that were about another design.
    fn forget_live_checks(&self) {
        self.live_checks.set(LiveChecks::NotRun);
        self.live_facts.set(todays_facts());
    }

    /// Opens `step` at its top, with focus on its heading, as Next does.
    pub fn open_step(&self, step: Step) {
        self.step.set(step);
        expect_context::<lazy::LoadedSteps>().when_shown(step, move || {
            focus_path("", step);
            if let Some(heading) =
                document().get_element_by_id(&format!("step-title-{}", step.number()))
            {
                heading.scroll_into_view();
            }
        });
    }

    /// Goes to the step holding `path` and focuses its field (or the nearest enclosing
    /// control when the field is not on screen, e.g. a whole node group).
    pub fn go_to_path(&self, path: &str) {
        let step = step_of_path(path);
        self.step.set(step);
        let path = path.to_owned();
        expect_context::<lazy::LoadedSteps>().when_shown(step, move || focus_path(&path, step));
    }

    /// Reads node group `index` (the default when it is gone).
    pub fn group<T: Default>(&self, index: usize, read: impl FnOnce(&NodeGroup) -> T) -> T {
        self.spec
            .with(|spec| spec.node_groups.get(index).map(read).unwrap_or_default())
    }

    /// Changes node group `index`, when it exists.
    pub fn update_group(&self, index: usize, write: impl FnOnce(&mut NodeGroup)) {
        self.spec.update(|spec| {
            if let Some(group) = spec.node_groups.get_mut(index) {
                write(group);
            }
        });
    }

    /// Reads Karpenter settings (the default when Karpenter is off).
    pub fn karpenter<T: Default>(&self, read: impl FnOnce(&KarpenterSettings) -> T) -> T {
        self.spec
            .with(|spec| spec.karpenter.as_ref().map(read).unwrap_or_default())
    }

    /// Changes Karpenter settings, when Karpenter is on.
    pub fn update_karpenter(&self, write: impl FnOnce(&mut KarpenterSettings)) {
        self.spec.update(|spec| {
            if let Some(karpenter) = spec.karpenter.as_mut() {
                write(karpenter);
            }
        });
    }

    /// Number of findings of `severity` on `step`.
    pub fn count_on_step(&self, step: Step, severity: Severity) -> usize {
        self.findings.with(|findings| {
            findings
                .iter()
                .filter(|finding| {
                    finding.severity == severity && step_of_path(&finding.path) == step
                })
                .count()
        })
    }
}

/// "1 error", "2 errors": a count with its noun in the right number (nouns that take -s).
pub fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// Focuses the element with this DOM id, when there is one.
pub fn focus_id(id: &str) {
    use wasm_bindgen::JsCast;
    if let Some(element) = document().get_element_by_id(id)
        && let Ok(element) = element.dyn_into::<web_sys::HtmlElement>()
    {
        let _ = element.focus();
    }
}

/// Focuses the control for `path`, walking up to its parents until one exists; with
/// none, the step's heading.
fn focus_path(path: &str, step: Step) {
    use wasm_bindgen::JsCast;
    let document = document();
    let mut candidate = Some(path);
    while let Some(current) = candidate {
        if let Some(element) = document.get_element_by_id(&field_id(current))
            && let Ok(element) = element.dyn_into::<web_sys::HtmlElement>()
        {
            let _ = element.focus();
            return;
        }
        candidate = parent_path(current);
    }
    if let Some(element) = document.get_element_by_id(&format!("step-title-{}", step.number()))
        && let Ok(element) = element.dyn_into::<web_sys::HtmlElement>()
    {
        let _ = element.focus();
    }
}

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

/// The heading of a step, focusable so moving between steps keeps keyboard users oriented.
#[component]
pub fn StepHeading(
    /// Which step.
    step: Step,
) -> impl IntoView {
    view! {
        <h2 id=format!("step-title-{}", step.number()) tabindex="-1">
            {format!("{}. {}", step.number(), step.title())}
        </h2>
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
    expect_context::<lazy::LoadedSteps>().when_shown(step, || ());
}

/// The step on screen. A step whose code is not loaded yet says so until it arrives.
#[component]
fn CurrentStep() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let steps = expect_context::<lazy::LoadedSteps>();
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
        if loaded && let Some(view) = steps.view(step) {
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

/// The facts the page has before any live check: today's date by the browser's clock, for
/// the rules that depend on the day (Kubernetes version support).
fn todays_facts() -> LiveFacts {
    let days = (js_sys::Date::now() / 86_400_000.0).floor() as i64;
    LiveFacts::on(shared::catalog::versions::Date::from_days_since_epoch(days))
}

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let studio = Studio::new(FIRST_TEMPLATE);
    provide_context(lazy::LoadedSteps::new());
    provide_context(studio);
    // The saved work opens where it was, once read; until then the page says so, and
    // nothing is saved over it.
    let restored = RwSignal::new(false);
    match drafts::autosaved() {
        Some(saved) => {
            let step = drafts::saved_step();
            let template = studio.spec.get_untracked();
            lazy::read(lazy::Reading::Saved, saved, template.clone(), move |read| {
                if let Ok((spec, _)) = read {
                    if spec != template {
                        studio.history.forget_next();
                        studio.template_id.set(String::new());
                        studio.spec.set(spec);
                    }
                    if let Some(step) = step {
                        studio.step.set(step);
                    }
                }
                restored.set(true);
            });
        }
        None => restored.set(true),
    }
    drafts::remember_step(studio.step, restored);
    // Deploys outlive the Review step, so a running one is still followed after a detour.
    provide_context(deploy_panel::Deploys::new());
    drafts::autosave(studio.spec, restored);
    view! {
        <a class="skip-link" href="#wizard">"Skip to the form"</a>
        <header class="topbar">
            <h1>"EKS Training Studio"</h1>
            <p class="tagline">"Design a GPU training cluster; see the eksctl YAML as you type."</p>
            <history::UndoRedo />
            <drafts::ShareLink />
        </header>
        <Show
            when=move || restored.get()
            fallback=|| view! { <p class="boot-status" role="status">"Opening your saved design…"</p> }
        >
        <main class="studio">
            <StepList />
            <div class="wizard" id="wizard" tabindex="-1">
                <history::ReplaceQuestion />
                <checklist::PlaceholderChecklist />
                <CurrentStep />
                <StepNavigation />
                <Show when=move || studio.step.get() != Step::Review>
                    <details class="findings-panel" open>
                        <summary>
                            {move || {
                                let (errors, total) = studio.findings.with(|findings| {
                                    let said = |severity| findings::said_once(findings, severity).len();
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
