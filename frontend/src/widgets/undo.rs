//! Undo and Redo, and the question asked before the whole design is replaced.

use leptos::prelude::*;

use crate::state::studio::{Studio, focus_id};

/// Undo and Redo buttons.
#[component]
pub fn UndoRedo() -> impl IntoView {
    let studio = expect_context::<Studio>();
    // Ctrl+Z / Ctrl+Shift+Z (Cmd on macOS; Ctrl+Y too) undo and redo the design from any of
    // its fields, as the buttons do.
    let _ = window_event_listener(leptos::ev::keydown, move |event| {
        if !(event.ctrl_key() || event.meta_key()) || event.alt_key() {
            return;
        }
        let redo = match event.key().as_str() {
            "z" | "Z" => event.shift_key(),
            "y" | "Y" if event.ctrl_key() => true,
            _ => return,
        };
        if !crate::state::history::undoes_the_design() {
            return;
        }
        event.prevent_default();
        if redo {
            studio.history.redo(studio.spec);
        } else {
            studio.history.undo(studio.spec);
        }
    });
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
            request_animation_frame(|| focus_id("replace-yes"));
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
