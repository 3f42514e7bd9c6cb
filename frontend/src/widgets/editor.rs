//! Text with line numbers: a plain textarea beside a gutter that scrolls with it, each
//! line with a finding marked in the gutter. A code editor component would weigh more
//! than the whole rest of the page's budget allows; the textarea keeps the browser's own
//! editing, undo within the field, selection and accessibility.

use leptos::prelude::*;
use shared::rules::Severity;
use wasm_bindgen::JsCast;

/// The worst severity on each marked line, sorted by line.
pub type LineMarks = Vec<(usize, Severity)>;

/// Adds `severity` at `line` to sorted marks, keeping the worst one per line.
pub fn mark(marks: &mut LineMarks, line: usize, severity: Severity) {
    match marks.binary_search_by_key(&line, |(marked, _)| *marked) {
        Ok(found) => marks[found].1 = marks[found].1.min(severity),
        Err(at) => marks.insert(at, (line, severity)),
    }
}

/// The gutter's numbers as HTML, one per line of `text`, marked lines with their severity.
fn gutter_html(text: &str, marks: &[(usize, Severity)]) -> String {
    let lines = text.split('\n').count();
    let mut html = String::with_capacity(lines * 6);
    let mut marks = marks.iter().peekable();
    for line in 1..=lines {
        match marks.next_if(|(marked, _)| *marked == line) {
            Some((_, severity)) => html.push_str(&format!(
                "<span class=\"n flag-{}\" data-line=\"{line}\">{line}</span>\n",
                severity.as_str()
            )),
            None => html.push_str(&format!("{line}\n")),
        }
    }
    html
}

/// The UTF-16 offset of `line`:`column` (both from 1) in `text`, as a textarea counts.
fn offset_of(text: &str, line: usize, column: usize) -> u32 {
    let mut offset = 0;
    for (index, content) in text.split('\n').enumerate() {
        if index + 1 == line {
            let within: usize = content
                .chars()
                .take(column.saturating_sub(1))
                .map(char::len_utf16)
                .sum();
            return (offset + within) as u32;
        }
        offset += content.encode_utf16().count() + 1;
    }
    offset as u32
}

/// Puts the caret of the textarea `id` at `line`:`column`, scrolled into view and
/// focused.
pub fn go_to_line(id: &str, line: usize, column: usize) {
    let Some(area) = document()
        .get_element_by_id(id)
        .and_then(|element| element.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
    else {
        return;
    };
    let text = area.value();
    let offset = offset_of(&text, line, column);
    let _ = area.focus();
    let _ = area.set_selection_range(offset, offset);
    let lines = text.split('\n').count().max(1) as i32;
    let line_height = area.scroll_height() / lines;
    let top = (line as i32 - 1) * line_height - area.client_height() / 3;
    area.set_scroll_top(top.max(0));
}

/// The line the caret of a textarea is on, from 1.
fn caret_line(area: &web_sys::HtmlTextAreaElement) -> usize {
    let text = area.value();
    let caret = area.selection_start().ok().flatten().unwrap_or(0) as usize;
    let mut units = 0;
    let mut line = 1;
    for character in text.chars() {
        if units >= caret {
            break;
        }
        units += character.len_utf16();
        if character == '\n' {
            line += 1;
        }
    }
    line
}

/// A textarea with line numbers. `on_line` is told the line of a marked number clicked
/// in the gutter, or of the caret when Alt+Enter is pressed in the text (to go to that
/// line's finding).
#[component]
pub fn NumberedText(
    /// DOM id of the textarea.
    id: &'static str,
    /// The text, kept as typed.
    text: Signal<String>,
    /// Called with the new text on every change.
    on_input: Callback<String>,
    /// The lines to mark.
    #[prop(into)]
    marks: Signal<LineMarks>,
    /// Called with the line of a marked number clicked.
    #[prop(optional)]
    on_line: Option<Callback<usize>>,
    /// The textarea's accessible name, when no `<label for>` names it.
    #[prop(optional, into)]
    label: MaybeProp<String>,
    /// Id of the element describing it.
    #[prop(optional)]
    described_by: Option<&'static str>,
    /// Extra class of the box (its height).
    #[prop(optional)]
    class: &'static str,
) -> impl IntoView {
    let gutter = NodeRef::<leptos::html::Pre>::new();
    let scrolled = move |event: leptos::ev::Event| {
        if let (Some(gutter), Some(area)) = (
            gutter.get_untracked(),
            event
                .target()
                .and_then(|target| target.dyn_into::<web_sys::Element>().ok()),
        ) {
            gutter.set_scroll_top(area.scroll_top());
        }
    };
    let clicked_gutter = move |event: leptos::ev::MouseEvent| {
        let line = event
            .target()
            .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
            .and_then(|element| element.get_attribute("data-line"))
            .and_then(|line| line.parse().ok());
        if let (Some(line), Some(on_line)) = (line, on_line) {
            on_line.run(line);
        }
    };
    let key = move |event: leptos::ev::KeyboardEvent| {
        if event.key() == "Enter"
            && event.alt_key()
            && let Some(on_line) = on_line
            && let Some(area) = event
                .target()
                .and_then(|target| target.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
        {
            event.prevent_default();
            on_line.run(caret_line(&area));
        }
    };
    view! {
        <div class=format!("numbered {class}")>
            <pre
                class="gutter"
                aria-hidden="true"
                node_ref=gutter
                on:click=clicked_gutter
                inner_html=move || text.with(|text| marks.with(|marks| gutter_html(text, marks)))
            ></pre>
            <textarea
                id=id
                wrap="off"
                spellcheck="false"
                autocapitalize="off"
                aria-label=move || label.get()
                aria-describedby=described_by
                prop:value=move || text.get()
                on:input=move |event| on_input.run(event_target_value(&event))
                on:scroll=scrolled
                on:keydown=key
            ></textarea>
        </div>
    }
}
