//! The preview shows exactly what a download would contain, rendered by `shared` on every
//! change. Highlighting is deliberately cheap: one pass per line splitting key from value,
//! written as one HTML string (line numbers are CSS counters, so copying the text copies
//! only the YAML).

use leptos::prelude::*;
use shared::Spec;
use shared::deploy::bundle::BundleFile;
use shared::documents::import::TextImportError;
use shared::lint::editable::EditableFile;
use shared::rules::{Finding, Severity};
use shared::yaml::source::Position;

use crate::state::history::EDITOR_ID;
use crate::state::studio::Studio;
use crate::widgets::editor::{LineMarks, NumberedText, mark};

/// The files the preview can show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tab {
    ClusterYaml,
    NodePools,
    KarpenterValues,
    /// What Karpenter needs on AWS (its CloudFormation stack).
    KarpenterStack,
    /// Karpenter's access to the cluster (its second stack).
    KarpenterAccess,
    /// The device plugins' Helm values, one document per plugin the pools need.
    DevicePlugins,
    /// The volumes for datasets and checkpoints.
    Storage,
    /// EKS Auto Mode's NodePools and NodeClasses.
    AutoMode,
    StudioJson,
}

impl Tab {
    fn title(self) -> &'static str {
        match self {
            Tab::ClusterYaml => "cluster.yaml",
            Tab::NodePools => shared::documents::render::NODEPOOLS_PATH,
            Tab::KarpenterValues => shared::documents::render::KARPENTER_VALUES_PATH,
            Tab::KarpenterStack => shared::documents::karpenter_aws::PREREQUISITES_PATH,
            Tab::KarpenterAccess => shared::documents::karpenter_aws::CLUSTER_ACCESS_PATH,
            Tab::DevicePlugins => "plugins/*.yaml",
            Tab::Storage => shared::documents::storage::STORAGE_PATH,
            Tab::AutoMode => shared::documents::auto_mode::PATH,
            Tab::StudioJson => "studio.json",
        }
    }

    /// The file this tab shows, when it can be edited.
    fn editable(self) -> Option<EditableFile> {
        match self {
            Tab::ClusterYaml => Some(EditableFile::ClusterConfig),
            Tab::NodePools => Some(EditableFile::NodePools),
            Tab::AutoMode => Some(EditableFile::AutoModePools),
            _ => None,
        }
    }

    /// Whether the server renders the tab's file: the files only the bundle holds (the
    /// page carries no writer for them).
    fn rendered_by_server(self) -> bool {
        matches!(
            self,
            Tab::KarpenterStack | Tab::KarpenterAccess | Tab::DevicePlugins | Tab::Storage
        )
    }

    /// The tab's text out of the bundle's files; `None` when the bundle has no such file.
    fn text_in(self, files: &[BundleFile]) -> Option<String> {
        let file = |path: &str| {
            files
                .iter()
                .find(|file| file.path == path)
                .map(|file| file.contents.clone())
        };
        match self {
            Tab::KarpenterStack => file(shared::documents::karpenter_aws::PREREQUISITES_PATH),
            Tab::KarpenterAccess => file(shared::documents::karpenter_aws::CLUSTER_ACCESS_PATH),
            Tab::Storage => file(shared::documents::storage::STORAGE_PATH),
            Tab::DevicePlugins => {
                // Each plugin's values, headed by its path, in the order the bundle has them.
                let documents: Vec<String> = shared::documents::device_plugins::Plugin::ALL
                    .iter()
                    .filter_map(|plugin| {
                        let path = plugin.chart().values_path;
                        file(path).map(|text| format!("# {path}\n{text}"))
                    })
                    .collect();
                (!documents.is_empty()).then(|| documents.join("---\n"))
            }
            _ => None,
        }
    }

    /// DOM id of the tab's text.
    fn panel_id(self) -> &'static str {
        match self {
            Tab::ClusterYaml => "preview-cluster-yaml",
            Tab::NodePools => "preview-nodepools-yaml",
            Tab::KarpenterValues => "preview-values-yaml",
            Tab::KarpenterStack => "preview-karpenter-stack-yaml",
            Tab::KarpenterAccess => "preview-karpenter-access-yaml",
            Tab::DevicePlugins => "preview-device-plugins-yaml",
            Tab::Storage => "preview-storage-yaml",
            Tab::AutoMode => "preview-auto-mode-yaml",
            Tab::StudioJson => "preview-studio-json",
        }
    }
}

fn escape(text: &str, html: &mut String) {
    for character in text.chars() {
        match character {
            '&' => html.push_str("&amp;"),
            '<' => html.push_str("&lt;"),
            '>' => html.push_str("&gt;"),
            '"' => html.push_str("&quot;"),
            _ => html.push(character),
        }
    }
}

fn span(class: &str, text: &str, html: &mut String) {
    if text.is_empty() {
        return;
    }
    html.push_str("<span class=\"");
    html.push_str(class);
    html.push_str("\">");
    escape(text, html);
    html.push_str("</span>");
}

/// Where a line's key ends (the `:` of `key:` or `key: value`), if it has one.
fn key_end(line: &str) -> Option<usize> {
    let quoted = line.starts_with('"') || line.starts_with('\'');
    if quoted {
        let quote = line.chars().next()?;
        let close = line[1..].find(quote)? + 1;
        return line[close + 1..].starts_with(':').then_some(close + 1);
    }
    let colon = line
        .find(": ")
        .or_else(|| line.ends_with(':').then(|| line.len() - 1))?;
    let key = &line[..colon];
    (!key.is_empty() && !key.contains(['{', '[', '#'])).then_some(colon)
}

/// YAML or JSON text as HTML, one `<span class="l">` per line (its line break inside it),
/// keys and values marked; a line in `marks` carries its severity (`flag-error`) and its
/// number (`data-line`).
pub fn highlight(text: &str, marks: &[(usize, Severity)]) -> Vec<String> {
    let mut marks = marks.iter().peekable();
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let mut html = String::with_capacity(line.len() * 2 + 40);
        match marks.next_if(|(marked, _)| *marked == index + 1) {
            Some((number, severity)) => html.push_str(&format!(
                "<span class=\"l flag-{}\" data-line=\"{number}\">",
                severity.as_str()
            )),
            None => html.push_str("<span class=\"l\">"),
        }
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        html.push_str(indent);
        let (dash, rest) = match body.strip_prefix("- ") {
            Some(rest) => ("- ", rest),
            None if body == "-" => ("-", ""),
            None => ("", body),
        };
        span("p", dash, &mut html);
        if rest.starts_with('#') {
            span("c", rest, &mut html);
        } else if let Some(end) = key_end(rest) {
            span("k", &rest[..end], &mut html);
            html.push(':');
            let value = &rest[end + 1..];
            let trimmed = value.trim_start();
            html.push_str(&value[..value.len() - trimmed.len()]);
            span("v", trimmed, &mut html);
        } else {
            span("v", rest, &mut html);
        }
        html.push_str("\n</span>");
        lines.push(html);
    }
    lines
}

/// Makes `pre`, whose children are the lines `shown`, hold `lines`, touching only the
/// lines between the first and the last that differ: a keystroke changes a few lines of a
/// file thousands long, and parsing all of them again was most of a keystroke's cost.
fn patch_lines(pre: &web_sys::Element, shown: &[String], lines: &[String]) {
    let prefix = shown
        .iter()
        .zip(lines)
        .take_while(|(was, now)| was == now)
        .count();
    let room = shown.len().min(lines.len()) - prefix;
    let suffix = shown
        .iter()
        .rev()
        .zip(lines.iter().rev())
        .take(room)
        .take_while(|(was, now)| was == now)
        .count();
    let old = &shown[prefix..shown.len() - suffix];
    let new = &lines[prefix..lines.len() - suffix];
    let children = pre.children();
    if old.len() == new.len() {
        for (offset, (was, now)) in old.iter().zip(new).enumerate() {
            if was != now
                && let Some(child) = children.item((prefix + offset) as u32)
            {
                child.set_outer_html(now);
            }
        }
        return;
    }
    for _ in old {
        if let Some(child) = children.item(prefix as u32) {
            child.remove();
        }
    }
    let html = new.concat();
    match children.item(prefix as u32) {
        Some(next) => next.insert_adjacent_html("beforebegin", &html).ok(),
        None => pre.insert_adjacent_html("beforeend", &html).ok(),
    };
}

/// The bundle's files as the server renders them, asked for while a tab that shows one
/// of them is open: again 150 ms after the design last changed, the answer to an older
/// design dropped. Until the first answer it is `None`; later ones replace it, so the
/// text on screen stays while the next is on its way.
fn bundle_from_server(
    tab: RwSignal<Tab>,
    spec: RwSignal<Spec>,
) -> RwSignal<Option<Result<Vec<BundleFile>, String>>> {
    let answer = RwSignal::new(None);
    let asked = StoredValue::new(0u64);
    Effect::new(move |_| {
        if !tab.get().rendered_by_server() {
            return;
        }
        let design = spec.get();
        asked.update_value(|count| *count += 1);
        let ticket = asked.get_value();
        set_timeout(
            move || {
                if asked.try_get_value() != Some(ticket) {
                    return;
                }
                leptos::task::spawn_local(async move {
                    let files = split::bundle_files(&design).await;
                    if asked.try_get_value() == Some(ticket) {
                        answer.try_set(Some(files));
                    }
                });
            },
            std::time::Duration::from_millis(150),
        );
    });
    answer
}

/// Arrow keys, Home and End move between the tabs shown, as the ARIA tabs pattern has it:
/// the tab moved to is chosen and focused.
fn move_between_tabs(event: leptos::ev::KeyboardEvent) {
    use wasm_bindgen::JsCast;
    let key = event.key();
    if !matches!(key.as_str(), "ArrowRight" | "ArrowLeft" | "Home" | "End") {
        return;
    }
    let Some(list) = event
        .current_target()
        .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    let Ok(tabs) = list.query_selector_all("[role=tab]") else {
        return;
    };
    let tabs: Vec<web_sys::HtmlElement> = (0..tabs.length())
        .filter_map(|index| tabs.item(index))
        .filter_map(|node| node.dyn_into::<web_sys::HtmlElement>().ok())
        .collect();
    if tabs.is_empty() {
        return;
    }
    let current = tabs
        .iter()
        .position(|tab| tab.get_attribute("aria-selected").as_deref() == Some("true"))
        .unwrap_or(0);
    let last = tabs.len() - 1;
    let next = match key.as_str() {
        "ArrowRight" => (current + 1) % tabs.len(),
        "ArrowLeft" => current.checked_sub(1).unwrap_or(last),
        "Home" => 0,
        _ => last,
    };
    event.prevent_default();
    tabs[next].click();
    let _ = tabs[next].focus();
}

/// A file being edited as text in the preview.
#[derive(Clone, Debug, PartialEq)]
struct Edit {
    file: EditableFile,
    /// The text as typed.
    text: String,
    /// Why the text does not read (the design keeps its last state that did).
    problem: Option<TextImportError>,
    /// The design as the text last gave it; a design that differs was changed elsewhere
    /// (a field of the form, Undo), and the text is written anew from it.
    read: Spec,
}

/// The findings placed in the file on screen, sorted by line, each with its finding.
#[derive(Clone, Debug, PartialEq, Default)]
struct InFile {
    placed: Vec<(Position, Finding)>,
    marks: LineMarks,
}

/// One line of the file's findings: "12:5" and what is wrong, which goes to that line.
fn file_finding_item(
    number: usize,
    position: Position,
    severity: Severity,
    message: String,
    go: Callback<Position>,
) -> impl IntoView {
    view! {
        <li class=format!("file-finding {}", severity.as_str())>
            <button
                type="button"
                id=format!("file-finding-{number}")
                class="link"
                data-line=position.line
                on:click=move |_| go.run(position)
            >
                <span class="at">{format!("{}:{}", position.line, position.column)}</span>
                " "
                <span class="severity">{severity.as_str()}</span>
                " "
                {crate::widgets::prose::with_code(message)}
            </button>
        </li>
    }
}

/// Focuses the first finding listed for `line`, when there is one.
fn go_to_finding_of_line(line: usize) {
    use wasm_bindgen::JsCast;
    let selector = format!(".file-findings button[data-line=\"{line}\"]");
    if let Ok(Some(button)) = document().query_selector(&selector)
        && let Ok(button) = button.dyn_into::<web_sys::HtmlElement>()
    {
        let _ = button.focus();
    }
}

/// A click on a marked line of the read-only text goes to its finding.
fn clicked_text(event: leptos::ev::MouseEvent) {
    use wasm_bindgen::JsCast;
    let line = event
        .target()
        .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
        .and_then(|element| element.closest("[data-line]").ok().flatten())
        .and_then(|element| element.get_attribute("data-line"))
        .and_then(|line| line.parse().ok());
    if let Some(line) = line {
        go_to_finding_of_line(line);
    }
}

/// Shows `line` of the read-only text, marked as the one gone to.
fn show_line(line: usize) {
    use wasm_bindgen::JsCast;
    let document = document();
    if let Ok(Some(previous)) = document.query_selector(".yaml .l.gone-to") {
        let _ = previous.class_list().remove_1("gone-to");
    }
    if let Ok(Some(element)) = document.query_selector(&format!(".yaml [data-line=\"{line}\"]")) {
        let _ = element.class_list().add_1("gone-to");
        if let Ok(element) = element.dyn_into::<web_sys::HtmlElement>() {
            element.scroll_into_view();
        }
    }
}

/// The live preview pane with one tab per file; `cluster.yaml` and the NodePools can be
/// edited in place, and the findings about a file are marked on its lines.
#[component]
pub fn Preview() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let tab = RwSignal::new(Tab::ClusterYaml);
    let edit = RwSignal::new(None::<Edit>);
    let uses_karpenter = Memo::new(move |_| studio.spec.with(|spec| spec.karpenter.is_some()));
    let needs_plugins = Memo::new(move |_| {
        studio.spec.with(|spec| {
            spec.karpenter.as_ref().is_some_and(|karpenter| {
                !shared::documents::device_plugins::needed(karpenter).is_empty()
            })
        })
    });
    let has_volumes = Memo::new(move |_| studio.spec.with(|spec| !spec.storage.is_empty()));
    let has_auto_mode_pools =
        Memo::new(move |_| studio.spec.with(|spec| !spec.auto_mode_pools.is_empty()));
    Effect::new(move |_| {
        let current = tab.get_untracked();
        let karpenter_file = matches!(
            current,
            Tab::NodePools | Tab::KarpenterValues | Tab::KarpenterStack | Tab::KarpenterAccess
        );
        if (!uses_karpenter.get() && karpenter_file)
            || (!needs_plugins.get() && current == Tab::DevicePlugins)
            || (!has_volumes.get() && current == Tab::Storage)
            || (!has_auto_mode_pools.get() && current == Tab::AutoMode)
        {
            tab.set(Tab::ClusterYaml);
        }
    });
    // A design changed elsewhere is written into the text being edited.
    Effect::new(move |_| {
        studio.spec.with(|spec| {
            let stale =
                edit.with_untracked(|edit| edit.as_ref().is_some_and(|edit| edit.read != *spec));
            if stale {
                edit.update(|edit| {
                    if let Some(edit) = edit {
                        if let Ok(Some(text)) = edit.file.render(spec) {
                            edit.text = text;
                            edit.problem = None;
                        }
                        edit.read = spec.clone();
                    }
                });
            }
        });
    });
    let editing = Memo::new(move |_| {
        let file = tab.get().editable();
        edit.with(|edit| edit.as_ref().is_some_and(|edit| Some(edit.file) == file))
    });
    let from_server = bundle_from_server(tab, studio.spec);
    let json_code_loaded = RwSignal::new(false);
    let rendered = Memo::new(move |_| {
        let current = tab.get();
        json_code_loaded.track();
        studio.spec.with(|spec| {
            match current {
                Tab::ClusterYaml => shared::render_cluster_yaml(spec).map(Some),
                Tab::NodePools => shared::documents::render::render_karpenter_yaml(spec),
                Tab::KarpenterValues => shared::documents::render::render_karpenter_values(spec),
                Tab::AutoMode => shared::documents::auto_mode::render(spec),
                Tab::KarpenterStack | Tab::KarpenterAccess | Tab::DevicePlugins | Tab::Storage => {
                    return from_server.with(|answer| match answer {
                        None => Ok(Some(
                            "# Asking the studio's server for this file…".to_owned(),
                        )),
                        Some(Ok(files)) => Ok(current.text_in(files)),
                        Some(Err(error)) => Err(error.clone()),
                    });
                }
                Tab::StudioJson => Ok(Some(match crate::codec::reading::json_if_loaded(spec) {
                    Some(json) => json,
                    None => {
                        // Shown again once the code that writes JSON has arrived.
                        let design = spec.clone();
                        leptos::task::spawn_local(async move {
                            let _ = crate::codec::reading::json_later(&design).await;
                            json_code_loaded.try_set(true);
                        });
                        "// Loading the code that writes studio.json…".to_owned()
                    }
                })),
            }
            .map_err(|error| error.to_string())
        })
    });
    let in_file = Memo::new(move |_| {
        let Some(file) = tab.get().editable() else {
            return InFile::default();
        };
        let place = |text: &str| {
            studio.spec.with(|spec| {
                studio.findings.with(|findings| {
                    let mut in_file = InFile::default();
                    for placed in file.place(text, spec, findings) {
                        let finding = &findings[placed.finding];
                        mark(&mut in_file.marks, placed.position.line, finding.severity);
                        in_file.placed.push((placed.position, finding.clone()));
                    }
                    in_file.placed.sort_by_key(|(position, finding)| {
                        (position.line, position.column, finding.severity)
                    });
                    in_file
                })
            })
        };
        if editing.get() {
            edit.with(|edit| place(edit.as_ref().map_or("", |edit| edit.text.as_str())))
        } else {
            rendered.with(|text| match text {
                Ok(Some(text)) => place(text),
                _ => InFile::default(),
            })
        }
    });
    let html = Memo::new(move |_| {
        rendered.with(|rendered| match rendered {
            Ok(Some(text)) => in_file.with(|in_file| highlight(text, &in_file.marks)),
            Ok(None) => vec!["<span class=\"l\"># Karpenter is not used\n</span>".to_owned()],
            Err(error) => {
                let mut html = "<span class=\"l error\">".to_owned();
                escape(&format!("cannot render: {error}"), &mut html);
                html.push_str("\n</span>");
                vec![html]
            }
        })
    });
    // The read-only view is updated line by line: `shown` is what its element holds.
    let pre_ref = NodeRef::<leptos::html::Pre>::new();
    let shown = StoredValue::new_local((None::<web_sys::Element>, Vec::<String>::new()));
    Effect::new(move |_| {
        let Some(pre) = pre_ref.get() else {
            return;
        };
        let pre: web_sys::Element = pre.into();
        html.with(|lines| {
            shown.update_value(|(element, shown)| {
                if element.as_ref() == Some(&pre) {
                    patch_lines(&pre, shown, lines);
                } else {
                    pre.set_inner_html(&lines.concat());
                    *element = Some(pre.clone());
                }
                shown.clone_from(lines);
            });
        });
    });
    let start_editing = move |_| {
        let Some(file) = tab.get_untracked().editable() else {
            return;
        };
        if editing.get_untracked() {
            edit.set(None);
            return;
        }
        let text = rendered.with_untracked(|rendered| rendered.clone().ok().flatten());
        if let Some(text) = text {
            edit.set(Some(Edit {
                file,
                text,
                problem: None,
                read: studio.spec.get_untracked(),
            }));
            request_animation_frame(|| crate::state::studio::focus_id(EDITOR_ID));
        }
    };
    let keystrokes = StoredValue::new(0_u64);
    let typed = Callback::new(move |text: String| {
        let Some(file) = edit.with_untracked(|edit| edit.as_ref().map(|edit| edit.file)) else {
            return;
        };
        // Each keystroke's text is read in turn; only the last one typed counts.
        let typed_now = keystrokes.get_value() + 1;
        keystrokes.set_value(typed_now);
        let read_text = text.clone();
        let read = move |read: crate::codec::reading::Read| {
            if keystrokes.get_value() != typed_now {
                return;
            }
            edit.update(|edit| {
                if let Some(edit) = edit {
                    edit.text = text;
                    match &read {
                        Ok((spec, _)) => {
                            edit.problem = None;
                            edit.read = spec.clone();
                        }
                        Err(problem) => edit.problem = Some(problem.clone()),
                    }
                }
            });
            if let Ok((spec, _)) = read
                && studio.spec.with_untracked(|current| *current != spec)
            {
                studio.spec.set(spec);
            }
        };
        let current = studio.spec.get_untracked();
        crate::codec::reading::read(
            crate::codec::reading::Reading::File(file),
            read_text,
            current,
            read,
        );
    });
    let go_to = Callback::new(move |position: Position| {
        if editing.get_untracked() {
            crate::widgets::editor::go_to_line(EDITOR_ID, position.line, position.column);
        } else {
            show_line(position.line);
        }
    });
    let editor_marks = Signal::derive(move || {
        let mut marks = in_file.get().marks;
        if let Some(problem) = edit.with(|edit| edit.as_ref().and_then(|edit| edit.problem.clone()))
            && problem.line > 0
        {
            mark(&mut marks, problem.line, Severity::Error);
        }
        marks
    });
    let editor_text = Signal::derive(move || {
        edit.with(|edit| {
            edit.as_ref()
                .map(|edit| edit.text.clone())
                .unwrap_or_default()
        })
    });
    let tab_button = move |this: Tab| {
        view! {
            <button
                type="button"
                role="tab"
                id=format!("tab-{}", this.panel_id())
                aria-selected=move || (tab.get() == this).to_string()
                tabindex=move || if tab.get() == this { "0" } else { "-1" }
                aria-controls="preview-panel"
                class="tab"
                title=this.title()
                class:current=move || tab.get() == this
                on:click=move |_| tab.set(this)
            >
                {this.title().rsplit_once('/').filter(|(folder, _)| *folder == "karpenter").map_or(this.title(), |(_, file)| file)}
            </button>
        }
    };
    let findings_list = move || {
        let problem = editing
            .get()
            .then(|| edit.with(|edit| edit.as_ref().and_then(|edit| edit.problem.clone())))
            .flatten();
        let placed = in_file.get().placed;
        let title = tab.get().title();
        let count = placed.len() + usize::from(problem.is_some());
        let mut items = Vec::new();
        if let Some(problem) = problem {
            let position = Position {
                line: problem.line.max(1),
                column: problem.column.max(1),
            };
            items.push(
                file_finding_item(
                    0,
                    position,
                    Severity::Error,
                    format!(
                        "{}; the design keeps what the text last said",
                        problem.message
                    ),
                    go_to,
                )
                .into_any(),
            );
        }
        for (position, finding) in placed {
            let number = items.len();
            items.push(
                file_finding_item(number, position, finding.severity, finding.message, go_to)
                    .into_any(),
            );
        }
        (count > 0).then(|| {
            view! {
                <div class="file-findings">
                    <h3 id="file-findings-title">{format!("In {title}: {}", crate::state::studio::counted(count, "finding"))}</h3>
                    <ol aria-labelledby="file-findings-title">{items}</ol>
                </div>
            }
        })
    };
    view! {
        <aside class="preview" aria-labelledby="preview-title">
            <h2 id="preview-title" class="visually-hidden">"Preview"</h2>
            <div class="tabs" role="tablist" aria-label="Files" on:keydown=move_between_tabs>
                {tab_button(Tab::ClusterYaml)}
                <Show when=move || uses_karpenter.get()>
                    {tab_button(Tab::NodePools)}
                    {tab_button(Tab::KarpenterValues)}
                    {tab_button(Tab::KarpenterStack)}
                    {tab_button(Tab::KarpenterAccess)}
                </Show>
                <Show when=move || needs_plugins.get()>
                    {tab_button(Tab::DevicePlugins)}
                </Show>
                <Show when=move || has_volumes.get()>
                    {tab_button(Tab::Storage)}
                </Show>
                <Show when=move || has_auto_mode_pools.get()>
                    {tab_button(Tab::AutoMode)}
                </Show>
                {tab_button(Tab::StudioJson)}
            </div>
            <div id="preview-panel" role="tabpanel">
                <Show when=move || tab.get().editable().is_some()>
                    <div class="edit-bar">
                        <button
                            type="button"
                            id="edit-file"
                            aria-pressed=move || editing.get().to_string()
                            on:click=start_editing
                        >
                            {move || if editing.get() { "Stop editing".to_owned() } else { format!("Edit {}", tab.get().title()) }}
                        </button>
                        <span id="edit-status" class="hint" role="status">
                            {move || editing.get().then(|| {
                                if edit.with(|edit| edit.as_ref().is_some_and(|edit| edit.problem.is_some())) {
                                    "The text does not read yet; the design keeps what it last said."
                                } else {
                                    "Edits go into the design as you type. Alt+Enter goes to the finding on the line."
                                }
                            })}
                        </span>
                    </div>
                </Show>
                <Show
                    when=move || editing.get()
                    fallback=move || view! {
                        <pre
                            id=move || tab.get().panel_id()
                            class="yaml"
                            tabindex="0"
                            aria-label=move || format!("{} preview", tab.get().title())
                            on:click=clicked_text
                            node_ref=pre_ref
                        ></pre>
                    }
                >
                    <NumberedText
                        id=EDITOR_ID
                        text=editor_text
                        on_input=typed
                        marks=editor_marks
                        on_line=Callback::new(go_to_finding_of_line)
                        label=Signal::derive(move || format!("{}, editable", tab.get().title()))
                        described_by="edit-status"
                        class="code"
                    />
                </Show>
                {findings_list}
            </div>
        </aside>
    }
}

// Only the tabs of files the server renders ask for them: in the page's build
// (`--cfg page_split`) the code that asks is a split point, fetched when such a tab is
// first opened (the generated loader is an `unsafe extern` import, as in
// `codec::reading`).
#[cfg(page_split)]
#[allow(unsafe_code)]
mod split {
    use leptos::wasm_split::{SplitLoaderError, wasm_split};
    use shared::Spec;
    use shared::deploy::bundle::BundleFile;

    use crate::state::loading::Later;

    #[wasm_split(server_files, wasm_split_path = ::leptos::wasm_split, fallible)]
    fn ask(spec: &Spec) -> Result<Later<Vec<BundleFile>>, SplitLoaderError> {
        let spec = spec.clone();
        Ok(Box::pin(async move {
            crate::server::api::bundle_files(&spec).await
        }))
    }

    /// The bundle's files as the server renders them, loading the code that asks first.
    pub async fn bundle_files(spec: &Spec) -> Result<Vec<BundleFile>, String> {
        ask(spec)
            .await
            .map_err(|_| {
                "the page could not fetch the code that asks the server for this file; check the connection to the server".to_owned()
            })?
            .await
    }
}

#[cfg(not(page_split))]
mod split {
    pub use crate::server::api::bundle_files;
}
