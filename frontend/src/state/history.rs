//! Nothing the user made is lost: every change of the design can be undone and redone
//! (typing within a moment counts as one change), and replacing the design with a template,
//! an import or a draft asks first when it would drop edits, then stays one Undo away.

use leptos::prelude::*;
use shared::Spec;

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
    /// The running cluster it was read from, if it was.
    pub running: Option<crate::state::running::RunningCluster>,
}
