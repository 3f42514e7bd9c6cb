//! Nothing the user made is lost: every change of the design can be undone and redone
//! (typing within a moment counts as one change), and replacing the design with a template,
//! an import or a draft asks first when it would drop edits, then stays one Undo away.

use leptos::prelude::*;
use shared::Spec;

use crate::Studio;

/// Most changes kept to undo.
const KEPT: usize = 100;
/// Changes closer together than this (milliseconds) are one change: typing a word.
const ONE_CHANGE_MS: f64 = 1000.0;

#[derive(Default)]
struct Changes {
    past: Vec<Spec>,
    future: Vec<Spec>,
    /// When the last change was kept, by the browser's clock.
    last_kept_ms: f64,
    /// The next change is an undo or redo itself, not a new change.
    restoring: bool,
}

/// Undo and redo of the spec.
#[derive(Clone, Copy)]
pub struct History {
    changes: StoredValue<Changes>,
    /// Whether Undo has anything to do.
    pub can_undo: RwSignal<bool>,
    /// Whether Redo has anything to do.
    pub can_redo: RwSignal<bool>,
}

impl History {
    /// Follows `spec` from now on.
    pub fn follow(spec: RwSignal<Spec>) -> History {
        let history = History {
            changes: StoredValue::new(Changes::default()),
            can_undo: RwSignal::new(false),
            can_redo: RwSignal::new(false),
        };
        Effect::new(move |previous: Option<Spec>| {
            let current = spec.get();
            if let Some(previous) = previous
                && previous != current
            {
                history.changes.update_value(|changes| {
                    if std::mem::take(&mut changes.restoring) {
                        return;
                    }
                    let now = js_sys::Date::now();
                    if changes.past.is_empty() || now - changes.last_kept_ms > ONE_CHANGE_MS {
                        changes.past.push(previous);
                        if changes.past.len() > KEPT {
                            changes.past.remove(0);
                        }
                    }
                    changes.last_kept_ms = now;
                    changes.future.clear();
                });
                history.refresh();
            }
            current
        });
        history
    }

    fn refresh(self) {
        self.changes.with_value(|changes| {
            self.can_undo.set(!changes.past.is_empty());
            self.can_redo.set(!changes.future.is_empty());
        });
    }

    /// The next change is not one to undo (the saved work read back when the page opens).
    pub fn forget_next(self) {
        self.changes
            .update_value(|changes| changes.restoring = true);
    }

    /// The next change is kept on its own, never merged with typing just before it.
    pub fn break_here(self) {
        self.changes
            .update_value(|changes| changes.last_kept_ms = f64::NEG_INFINITY);
    }

    /// Goes back one change.
    pub fn undo(self, spec: RwSignal<Spec>) {
        let mut restored = None;
        self.changes.update_value(|changes| {
            if let Some(previous) = changes.past.pop() {
                changes.future.push(spec.get_untracked());
                changes.restoring = true;
                changes.last_kept_ms = f64::NEG_INFINITY;
                restored = Some(previous);
            }
        });
        if let Some(previous) = restored {
            spec.set(previous);
        }
        self.refresh();
    }

    /// Goes forward one undone change.
    pub fn redo(self, spec: RwSignal<Spec>) {
        let mut restored = None;
        self.changes.update_value(|changes| {
            if let Some(next) = changes.future.pop() {
                changes.past.push(spec.get_untracked());
                changes.restoring = true;
                changes.last_kept_ms = f64::NEG_INFINITY;
                restored = Some(next);
            }
        });
        if let Some(next) = restored {
            spec.set(next);
        }
        self.refresh();
    }
}

/// A replacement of the whole design waiting for the user's yes.
#[derive(Clone, Debug, PartialEq)]
pub struct Replacement {
    /// The design that would replace the current one.
    pub spec: Spec,
    /// Its template id (empty for an import or a draft).
    pub template_id: String,
    /// What it is, in words: "the template “…”", "the imported YAML".
    pub what: String,
}

/// Undo and Redo buttons.
#[component]
pub fn UndoRedo() -> impl IntoView {
    let studio = expect_context::<Studio>();
    view! {
        <div class="undo-redo" role="group" aria-label="Edit history">
            <button
                type="button"
                id="undo"
                prop:disabled=move || !studio.history.can_undo.get()
                on:click=move |_| studio.history.undo(studio.spec)
            >
                "Undo"
            </button>
            <button
                type="button"
                id="redo"
                prop:disabled=move || !studio.history.can_redo.get()
                on:click=move |_| studio.history.redo(studio.spec)
            >
                "Redo"
            </button>
        </div>
    }
}

/// "Replace your design …?" while a replacement waits for the user.
#[component]
pub fn ReplaceQuestion() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let question = move || {
        studio.pending_replacement.with(|pending| {
            pending.as_ref().map(|replacement| {
                let (cluster, region) = studio.spec.with(|spec| {
                    (spec.cluster.name.clone(), spec.cluster.region.clone())
                });
                format!(
                    "Replace your design (cluster `{cluster}`, {region}) with {}? Undo brings yours back.",
                    replacement.what
                )
            })
        })
    };
    Effect::new(move |_| {
        if studio.pending_replacement.with(Option::is_some) {
            request_animation_frame(|| crate::focus_id("replace-yes"));
        }
    });
    view! {
        <Show when=move || studio.pending_replacement.with(Option::is_some)>
            <div class="replace-question" role="alertdialog" aria-labelledby="replace-text">
                <p id="replace-text">{question}</p>
                <button type="button" class="primary" id="replace-yes" on:click=move |_| studio.confirm_replacement()>
                    "Replace"
                </button>
                <button type="button" on:click=move |_| studio.keep_design()>"Keep my design"</button>
            </div>
        </Show>
    }
}
