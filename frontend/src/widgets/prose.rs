//! Text the rules and checks write, shown as they mean it: their `backticked` names and
//! keys as code.

use leptos::prelude::*;

/// `text` with each `backticked` part as `<code>`; text whose backticks do not pair up is
/// shown as it is.
pub fn with_code(text: String) -> AnyView {
    if text.matches('`').count() % 2 == 1 || !text.contains('`') {
        return text.into_any();
    }
    text.split('`')
        .enumerate()
        .map(|(index, part)| {
            if index % 2 == 1 {
                view! { <code>{part.to_owned()}</code> }.into_any()
            } else {
                part.to_owned().into_any()
            }
        })
        .collect_view()
        .into_any()
}
