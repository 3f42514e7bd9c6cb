//! The heading every step opens with.

use leptos::prelude::*;

use crate::state::step::Step;

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
