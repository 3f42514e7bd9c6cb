//! Nothing the user made is lost: every change of the design can be undone and redone
//! (typing within a moment counts as one change), and replacing the design with a template,
//! an import or a draft asks first when it would drop edits, then stays one Undo away.

use leptos::prelude::*;
use shared::Spec;

/// Most changes kept to undo.
const KEPT: usize = 100;
/// Most bytes of designs the history keeps in the browser's storage across a reload: the
/// changes nearest the current design first, older ones left out past it.
pub const SAVED_BYTES: usize = 1024 * 1024;
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
    /// The field typed in when the last change was kept: typing goes on in the same field
    /// to be one change with it.
    last_field: Option<String>,
}

/// The id of the text field the user is typing in, when the focus is in one: a change
/// made there within a moment of the last, in the same field, is the same change.
fn typing_field() -> Option<String> {
    let element = document().active_element()?;
    matches!(element.tag_name().as_str(), "INPUT" | "TEXTAREA")
        .then(|| element.id())
        .filter(|id| !id.is_empty())
}

/// Whether Ctrl+Z (Cmd+Z) in the focused element undoes the design rather than the
/// element's own text: the design's fields (`f-…`) and the preview's editor do; the import
/// box, draft names and other text that is not the design keep their own undo.
pub fn undoes_the_design() -> bool {
    let Some(element) = document().active_element() else {
        return true;
    };
    if !matches!(element.tag_name().as_str(), "INPUT" | "TEXTAREA") {
        return true;
    }
    let id = element.id();
    id.starts_with("f-") || id == EDITOR_ID
}

/// DOM id of the preview's textarea for the file being edited (the design as text).
pub const EDITOR_ID: &str = "preview-editor";

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
                    // Typing on in the same field within a moment is one change; an edit
                    // in another field, a click or a pause starts a new one.
                    let field = typing_field();
                    let same_typing = field.is_some() && field == changes.last_field;
                    if changes.past.is_empty()
                        || now - changes.last_kept_ms > ONE_CHANGE_MS
                        || !same_typing
                    {
                        changes.past.push(previous);
                        if changes.past.len() > KEPT {
                            changes.past.remove(0);
                        }
                    }
                    changes.last_kept_ms = now;
                    changes.last_field = field;
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

    /// The history as the page saves it for the next visit: `{"past": [...], "future":
    /// [...]}`, each design as `write` writes it, the nearest to the current design first
    /// kept within [`SAVED_BYTES`]; `None` when a design cannot be written (its code is not
    /// loaded) or there is nothing to undo or redo.
    pub fn saved_text(self, write: impl Fn(&Spec) -> Option<String>) -> Option<String> {
        self.changes.try_with_value(|changes| {
            if changes.past.is_empty() && changes.future.is_empty() {
                return None;
            }
            let mut budget = SAVED_BYTES;
            let mut kept = |designs: &mut dyn Iterator<Item = &Spec>| -> Option<Vec<String>> {
                let mut texts = Vec::new();
                for design in designs {
                    let text = write(design)?;
                    if text.len() > budget {
                        break;
                    }
                    budget -= text.len();
                    texts.push(text);
                }
                Some(texts)
            };
            // Both lists nearest first (the end of each), then back in their order.
            let mut past = kept(&mut changes.past.iter().rev())?;
            let mut future = kept(&mut changes.future.iter().rev())?;
            past.reverse();
            future.reverse();
            Some(format!(
                "{{\"past\": [{}], \"future\": [{}]}}",
                past.join(", "),
                future.join(", ")
            ))
        })?
    }

    /// Takes back the history a previous visit saved, around the design it left.
    pub fn restore(self, past: Vec<Spec>, future: Vec<Spec>) {
        self.changes.update_value(|changes| {
            changes.past = past;
            changes.future = future;
            let over = changes.past.len().saturating_sub(KEPT);
            changes.past.drain(..over);
            changes.last_kept_ms = f64::NEG_INFINITY;
        });
        self.refresh();
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
