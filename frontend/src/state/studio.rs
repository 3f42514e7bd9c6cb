//! The design being edited and where the user is in it: the [`Studio`] every component
//! reads from context, and how a spec path becomes a focused input: its step, then its
//! DOM id.
//!
//! The spec is one `RwSignal<Spec>`; the findings are `Memo`s over it, computed by the
//! same `shared` rules the server and the CLI use, on every keystroke. Each input carries
//! a DOM id derived from its spec path ([`field_id`]), so a finding's path is all it takes
//! to show it beside its field and to focus that field.

use std::collections::HashMap;

use leptos::prelude::*;
use shared::Spec;
use shared::model::spec::{KarpenterSettings, NodeGroup};
use shared::rules::{Finding, LiveFacts, Severity};

use crate::server::api::{self, LiveCheck};
use crate::state::history::{History, Replacement};
use crate::state::loading::LoadedSteps;
use crate::state::running::RunningCluster;
use crate::state::step::{Step, field_id, parent_path, step_of_path};

/// The template a first visit opens with, so the preview is never empty: one whose only
/// errors are the placeholders the checklist asks for (p5 in an ODCR, through Karpenter).
pub const FIRST_TEMPLATE: &str = "karpenter-reserved-training";

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
    /// Every finding of the offline rules, recomputed on each change of the spec; the
    /// preview places them as soon as they change.
    pub findings: Memo<Vec<Finding>>,
    /// The same findings as the form shows them (beside the fields, in the list, in the
    /// step counts): taken in the animation frame after they change, so a keystroke's
    /// preview is patched first and the form follows before the same paint.
    pub shown_findings: RwSignal<Vec<Finding>>,
    /// Notified in the animation frame after the spec changed: what the form shows about
    /// the whole design (the placeholder checklist) tracks this rather than the spec, so it
    /// is worked out after the preview is patched, before the same paint.
    pub spec_shown: Trigger,
    /// The shown findings keyed by path, for the fields beside which they show.
    pub findings_by_path: Memo<HashMap<String, Vec<Finding>>>,
    /// The last live checks.
    pub live_checks: RwSignal<LiveChecks>,
    /// The design the last live checks ran on: results about another design are stale.
    pub live_checks_for: RwSignal<Option<shared::Spec>>,
    /// What EC2 answered in the last live checks, which the rules take into account.
    pub live_facts: RwSignal<LiveFacts>,
    /// Undo and redo of the spec.
    pub history: History,
    /// A replacement of the design waiting for the user's yes.
    pub pending_replacement: RwSignal<Option<Replacement>>,
    /// Where EC2 offers instance types in the design's region (asked by the picker).
    pub zone_offerings: RwSignal<ZoneOfferings>,
    /// The running cluster the design was read from, planned against on Review.
    pub running: RwSignal<Option<RunningCluster>>,
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
        // One frame after a keystroke, the form catches up with the preview.
        let shown_findings = RwSignal::new(findings.get_untracked());
        let spec_shown = Trigger::new();
        Effect::new(move |_| {
            spec.track();
            let now = findings.get();
            request_animation_frame(move || {
                if shown_findings.with_untracked(|shown| *shown != now) {
                    shown_findings.set(now);
                }
                spec_shown.notify();
            });
        });
        let findings_by_path = Memo::new(move |_| {
            shown_findings.with(|findings| {
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
            shown_findings,
            spec_shown,
            findings_by_path,
            live_checks: RwSignal::new(LiveChecks::NotRun),
            live_checks_for: RwSignal::new(None),
            live_facts,
            history: History::follow(spec),
            pending_replacement: RwSignal::new(None),
            zone_offerings: RwSignal::new(ZoneOfferings::default()),
            running: RwSignal::new(None),
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
            self.request_replacement(Replacement {
                spec: template.spec(),
                template_id: template.id.to_owned(),
                what: format!("the template “{}”", template.name),
                running: None,
            });
        }
    }

    /// Replaces the spec (import, draft), asking first when that would drop edits.
    pub fn replace_spec(&self, spec: Spec, what: impl Into<String>) {
        self.request_replacement(Replacement {
            spec,
            template_id: String::new(),
            what: what.into(),
            running: None,
        });
    }

    /// Replaces the spec with a running cluster's design (asking first when that would
    /// drop edits); from then on the design is planned against that cluster.
    pub fn open_running(&self, spec: Spec, running: RunningCluster) {
        let what = format!(
            "the running cluster `{}` ({})",
            running.cluster, running.region
        );
        self.request_replacement(Replacement {
            spec,
            template_id: String::new(),
            what,
            running: Some(running),
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

    fn request_replacement(&self, replacement: Replacement) {
        if self.untouched() || self.spec.with_untracked(|spec| *spec == replacement.spec) {
            self.apply_replacement(replacement);
        } else {
            self.pending_replacement.set(Some(replacement));
        }
    }

    fn apply_replacement(&self, replacement: Replacement) {
        self.history.break_here();
        self.spec.set(replacement.spec);
        self.template_id.set(replacement.template_id);
        self.running.set(replacement.running);
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
        self.live_checks_for.set(None);
        self.live_facts.set(todays_facts());
    }

    /// Whether the last live checks ran on another design than the one on screen (tracked).
    pub fn live_checks_stale(&self) -> bool {
        self.live_checks_for.with(|ran| {
            ran.as_ref()
                .is_some_and(|ran| self.spec.with(|spec| spec != ran))
        })
    }

    /// Opens `step` at its top, with focus on its heading, as Next does.
    pub fn open_step(&self, step: Step) {
        self.step.set(step);
        expect_context::<LoadedSteps>().when_shown(step, move || {
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
        expect_context::<LoadedSteps>().when_shown(step, move || focus_path(&path, step));
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
        self.shown_findings.with(|findings| {
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

/// The facts the page has before any live check: today's date by the browser's clock, for
/// the rules that depend on the day (Kubernetes version support).
pub fn todays_facts() -> LiveFacts {
    let days = (js_sys::Date::now() / 86_400_000.0).floor() as i64;
    LiveFacts::on(shared::catalog::versions::Date::from_days_since_epoch(days))
}
