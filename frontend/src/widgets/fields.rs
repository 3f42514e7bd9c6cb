//! Every field writes what is typed straight into the spec; the rules, not the inputs,
//! decide what is valid, so a half-typed value is kept as typed. A field's DOM id is
//! [`field_id`] of its spec path, and its findings show right under it.

use leptos::html;
use leptos::prelude::*;
use shared::rules::Finding;

use shared::fields::Field;

use crate::server::api::LiveCheck;
use crate::state::step::field_id;
use crate::state::studio::LiveChecks;
use crate::state::studio::Studio;

/// Where an input is: its spec path and its label, both from [`shared::fields`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// Spec path of the value.
    pub path: String,
    /// Visible label.
    pub label: String,
}

impl Place {
    /// The place at `path`, labelled `label` (a field's label, perhaps naming its item).
    pub fn new(path: impl Into<String>, label: impl Into<String>) -> Place {
        Place {
            path: path.into(),
            label: label.into(),
        }
    }

    /// The same place, its label saying whose it is: "IAM policy ARNs for aws-fsx-csi-driver".
    pub fn of_item(self, name: &str) -> Place {
        Place {
            label: format!("{} for {name}", self.label),
            ..self
        }
    }
}

/// A field of an object in no list (`cluster.region`) is one place.
impl From<Field> for Place {
    fn from(field: Field) -> Place {
        Place::new(field.path(), field.label)
    }
}

/// The findings at `path` (and below it, with `nested`), listed under a field.
#[component]
pub fn FieldFindings(
    /// Spec path of the field.
    #[prop(into)]
    path: String,
    /// Also show findings at paths inside this one (`path[0]`, `path.key`).
    #[prop(optional)]
    nested: bool,
    /// Paths whose findings another field already shows (left out here).
    #[prop(optional, into)]
    except: Signal<Vec<String>>,
) -> impl IntoView {
    let studio = expect_context::<Studio>();
    let list_id = format!("{}-findings", field_id(&path));
    let live_path = path.clone();
    let live = Memo::new(move |_| {
        studio.live_checks.with(|checks| match checks {
            LiveChecks::Done(checks) => checks
                .iter()
                .filter(|check| {
                    let at = check.path.as_str();
                    !at.is_empty()
                        && if nested {
                            is_at_or_under(at, &live_path)
                        } else {
                            at == live_path
                        }
                })
                .cloned()
                .collect::<Vec<LiveCheck>>(),
            _ => Vec::new(),
        })
    });
    let mine = Memo::new(move |_| {
        if nested {
            studio.shown_findings.with(|findings| {
                findings
                    .iter()
                    .filter(|finding| is_at_or_under(&finding.path, &path))
                    .filter(|finding| except.with(|except| !except.contains(&finding.path)))
                    .cloned()
                    .collect::<Vec<Finding>>()
            })
        } else {
            studio
                .findings_by_path
                .with(|by_path| by_path.get(&path).cloned().unwrap_or_default())
        }
    });
    view! {
        <ul class="field-findings" id=list_id aria-live="polite">
            {move || {
                mine.get()
                    .into_iter()
                    .map(|finding| {
                        let severity = finding.severity.as_str();
                        view! {
                            <li class=format!("finding {severity}")>
                                <span class="severity">{severity}</span>
                                " "
                                {crate::widgets::prose::with_code(finding.message)}
                                <span class="help">{crate::widgets::prose::with_code(finding.help.into_owned())}</span>
                            </li>
                        }
                    })
                    .collect_view()
            }}
            {move || {
                live.get()
                    .into_iter()
                    .map(|check| {
                        view! {
                            <li class=format!("live-check {}", check.status)>
                                <span class="severity">{format!("live check {}", check.status)}</span>
                                " "
                                {crate::widgets::prose::with_code(check.message)}
                            </li>
                        }
                    })
                    .collect_view()
            }}
        </ul>
    }
}

/// Whether `path` is `prefix` or inside it.
pub fn is_at_or_under(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

/// Whether any error sits exactly at `path`, for `aria-invalid`.
fn has_error(studio: Studio, path: &str) -> bool {
    studio.findings_by_path.with(|by_path| {
        by_path
            .get(path)
            .is_some_and(|findings| shared::rules::has_errors(findings))
    })
}

/// A labelled text input bound to a string of the spec.
#[component]
pub fn TextField(
    /// Where it is: its spec path and label.
    #[prop(into)]
    at: Place,
    /// The current value.
    #[prop(into)]
    value: Signal<String>,
    /// Writes a new value.
    #[prop(into)]
    set: Callback<String>,
    /// Shown when empty (may follow the design, e.g. zones of its region).
    #[prop(optional, into)]
    placeholder: MaybeProp<String>,
    /// One line of help under the label (none when empty).
    #[prop(optional, into)]
    hint: MaybeProp<String>,
    /// Id of a `<datalist>` with suggestions.
    #[prop(optional)]
    suggestions: Option<&'static str>,
) -> impl IntoView {
    let Place { path, label } = at;
    let studio = expect_context::<Studio>();
    let id = field_id(&path);
    let described_by = format!("{id}-findings");
    let invalid_path = path.clone();
    view! {
        <div class="field">
            <label for=id.clone()>{label}</label>
            {move || {
                hint.get()
                    .filter(|hint| !hint.is_empty())
                    .map(|hint| view! { <span class="hint">{hint}</span> })
            }}
            <input
                id=id
                type="text"
                spellcheck="false"
                autocomplete="off"
                placeholder=move || placeholder.get()
                list=suggestions
                aria-describedby=described_by
                aria-invalid=move || has_error(studio, &invalid_path).then_some("true")
                prop:value=value
                on:input=move |event| set.run(event_target_value(&event))
            />
            <FieldFindings path=path />
        </div>
    }
}

/// A text input bound to an optional string: empty means unset.
#[component]
pub fn OptionalTextField(
    /// Where it is: its spec path and label.
    #[prop(into)]
    at: Place,
    /// The current value.
    #[prop(into)]
    value: Signal<Option<String>>,
    /// Writes a new value.
    #[prop(into)]
    set: Callback<Option<String>>,
    /// Shown when empty (may follow the design, e.g. zones of its region).
    #[prop(optional, into)]
    placeholder: MaybeProp<String>,
    /// Id of a `<datalist>` with suggestions.
    #[prop(optional)]
    suggestions: Option<&'static str>,
) -> impl IntoView {
    view! {
        <TextField
            at=at
            value=Signal::derive(move || value.get().unwrap_or_default())
            set=move |text: String| set.run((!text.is_empty()).then_some(text))
            placeholder=placeholder
            suggestions=suggestions.unwrap_or_default()
        />
    }
}

/// A number input bound to an optional count: empty means unset.
#[component]
pub fn NumberField(
    /// Where it is: its spec path and label.
    #[prop(into)]
    at: Place,
    /// The current value.
    #[prop(into)]
    value: Signal<Option<u32>>,
    /// Writes a new value.
    #[prop(into)]
    set: Callback<Option<u32>>,
) -> impl IntoView {
    let Place { path, label } = at;
    let studio = expect_context::<Studio>();
    let id = field_id(&path);
    let described_by = format!("{id}-findings");
    let invalid_path = path.clone();
    let input = NodeRef::<html::Input>::new();
    // Keep what is typed while it still means the same number (`01`, `1.`).
    let shown = move || {
        let number = value.get();
        if let Some(input) = input.get_untracked()
            && input.value().trim().parse::<u32>().ok() == number
        {
            return input.value();
        }
        number.map(|number| number.to_string()).unwrap_or_default()
    };
    view! {
        <div class="field number">
            <label for=id.clone()>{label}</label>
            <input
                node_ref=input
                id=id
                type="number"
                min="0"
                inputmode="numeric"
                aria-describedby=described_by
                aria-invalid=move || has_error(studio, &invalid_path).then_some("true")
                prop:value=shown
                on:input=move |event| set.run(event_target_value(&event).trim().parse().ok())
            />
            <FieldFindings path=path />
        </div>
    }
}

/// A labelled checkbox bound to a flag of the spec.
#[component]
pub fn CheckboxField(
    /// Where it is: its spec path and label.
    #[prop(into)]
    at: Place,
    /// Whether it is on.
    #[prop(into)]
    checked: Signal<bool>,
    /// Writes a new value.
    #[prop(into)]
    set: Callback<bool>,
) -> impl IntoView {
    let Place { path, label } = at;
    let id = field_id(&path);
    view! {
        <div class="field checkbox">
            <input
                id=id.clone()
                type="checkbox"
                aria-describedby=format!("{id}-findings")
                prop:checked=checked
                on:change=move |event| set.run(event_target_checked(&event))
            />
            <label for=id>{label}</label>
            <FieldFindings path=path />
        </div>
    }
}

/// A labelled select; `options` are (value, text) pairs.
#[component]
pub fn SelectField(
    /// Where it is: its spec path and label.
    #[prop(into)]
    at: Place,
    /// The choices: (value, text).
    options: Vec<(String, String)>,
    /// The current value.
    #[prop(into)]
    value: Signal<String>,
    /// Writes a new value.
    #[prop(into)]
    set: Callback<String>,
    /// Show findings below this path too.
    #[prop(optional)]
    nested: bool,
) -> impl IntoView {
    let Place { path, label } = at;
    let studio = expect_context::<Studio>();
    let id = field_id(&path);
    let invalid_path = path.clone();
    let options = options
        .into_iter()
        .map(|(option_value, text)| {
            let selected_value = option_value.clone();
            view! {
                <option value=option_value prop:selected=move || value.get() == selected_value>
                    {text}
                </option>
            }
        })
        .collect_view();
    view! {
        <div class="field">
            <label for=id.clone()>{label}</label>
            <select
                id=id.clone()
                aria-describedby=format!("{id}-findings")
                aria-invalid=move || has_error(studio, &invalid_path).then_some("true")
                prop:value=value
                on:change=move |event| set.run(event_target_value(&event))
            >
                {options}
            </select>
            <FieldFindings path=path nested=nested />
        </div>
    }
}

/// Splits a list separated by commas or line breaks, dropping empty items.
pub fn split_list(text: &str) -> Vec<String> {
    text.split([',', '\n'])
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The text of the input or textarea with this DOM id, and whether it has the focus.
fn typed_text(id: &str) -> Option<(String, bool)> {
    use wasm_bindgen::JsCast;
    let element = document().get_element_by_id(id)?;
    let focused = document()
        .active_element()
        .is_some_and(|active| active == element);
    let text = match element.dyn_into::<web_sys::HtmlInputElement>() {
        Ok(input) => input.value(),
        Err(element) => element
            .dyn_into::<web_sys::HtmlTextAreaElement>()
            .ok()?
            .value(),
    };
    Some((text, focused))
}

/// A text field bound to a list of strings, comma-separated. Findings of the items
/// (`path[2]`) show under it too. Without suggestions it is a textarea that wraps and
/// grows with its items, so a long list of labels or taints stays readable on a phone;
/// with suggestions (a `<datalist>`, which only inputs take) it is one line.
#[component]
pub fn ListField(
    /// Where it is: its spec path and label.
    #[prop(into)]
    at: Place,
    /// The current items.
    #[prop(into)]
    value: Signal<Vec<String>>,
    /// Writes new items.
    #[prop(into)]
    set: Callback<Vec<String>>,
    /// Shown when empty (may follow the design, e.g. zones of its region).
    #[prop(optional, into)]
    placeholder: MaybeProp<String>,
    /// Id of a `<datalist>` with suggestions.
    #[prop(optional)]
    suggestions: Option<&'static str>,
) -> impl IntoView {
    let Place { path, label } = at;
    let id = field_id(&path);
    // While someone types here, or while the typed text still means the same items (a
    // trailing comma, extra spaces, `key=` half typed), leave it alone so typing is not
    // interrupted; a change from elsewhere (a template, an import) shows the new items.
    let shown = {
        let id = id.clone();
        move || {
            let items = value.get();
            if let Some((text, typing)) = typed_text(&id)
                && (typing || split_list(&text) == items)
            {
                return text;
            }
            items.join(", ")
        }
    };
    let control = match suggestions {
        Some(suggestions) => view! {
            <input
                id=id.clone()
                type="text"
                spellcheck="false"
                autocomplete="off"
                placeholder=move || placeholder.get()
                list=suggestions
                aria-describedby=format!("{id}-findings")
                prop:value=shown
                on:input=move |event| set.run(split_list(&event_target_value(&event)))
            />
        }
        .into_any(),
        None => view! {
            <textarea
                id=id.clone()
                class="list"
                rows="1"
                spellcheck="false"
                autocomplete="off"
                placeholder=move || placeholder.get()
                aria-describedby=format!("{id}-findings")
                prop:value=shown
                on:input=move |event| set.run(split_list(&event_target_value(&event)))
            ></textarea>
        }
        .into_any(),
    };
    view! {
        <div class="field">
            <label for=id.clone()>{label}</label>
            {control}
            <FieldFindings path=path nested=true />
        </div>
    }
}

/// (value, text) pairs from string slices.
pub fn options(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(value, text)| (value.to_string(), text.to_string()))
        .collect()
}
