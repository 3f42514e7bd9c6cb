//! The page as people use it, in headless Chromium by accessible names: the first visit's
//! checklist of values to fill in, moving between steps, the preview's tabs by keyboard,
//! the instance picker, groups added as valid, and the layout at 1280, 1024 and 390 px.

use fantoccini::Locator;
use shared::model::spec::ClusterSettings;
use studio_e2e::{Browser, Studio};

const FINDINGS_SUMMARY: Locator<'static> = Locator::Css(".findings-panel summary");

/// The error count the findings panel's summary gives.
async fn errors(browser: &Browser) -> usize {
    let summary = browser
        .wait_for_text(FINDINGS_SUMMARY, |text| text.starts_with("Findings: "))
        .await;
    summary
        .trim_start_matches("Findings: ")
        .split(' ')
        .next()
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("no count in `{summary}`"))
}

/// Fills in a placeholder by the checklist, whose labels say they fill in.
async fn fill_in(browser: &Browser, label: &str, value: &str) {
    let label = format!("{label} (to fill in)");
    let label = label.as_str();
    browser.fill_by_label(label, value).await;
    browser
        .client
        .find(Locator::XPath(&format!(
            "//label[normalize-space()='{label}']/following-sibling::button[normalize-space()='Fill in']"
        )))
        .await
        .unwrap_or_else(|error| panic!("no `Fill in` for `{label}`: {error}"))
        .click()
        .await
        .unwrap();
}

#[tokio::test]
async fn a_first_visit_asks_only_for_its_placeholders_and_each_is_filled_in_once() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    let checklist = Locator::Css(".checklist summary");
    browser
        .wait_for_text(checklist, |text| text == "4 values to fill in")
        .await;
    browser.screenshot("first-visit-checklist").await;
    // The first template's errors are its placeholders: filling them in clears them all.
    assert!(
        errors(&browser).await >= 4,
        "region, two zones, the reservation"
    );
    fill_in(&browser, "AWS region", "us-west-2").await;
    browser
        .wait_for_text(checklist, |text| text == "3 values to fill in")
        .await;
    // Zone hints follow the region now.
    let zone = browser
        .field_by_label("Availability zone 1 (to fill in)")
        .await;
    assert_eq!(
        zone.attr("placeholder").await.unwrap().as_deref(),
        Some("us-west-2a")
    );
    fill_in(&browser, "Availability zone 1", "us-west-2a").await;
    fill_in(&browser, "Availability zone 2", "us-west-2b").await;
    fill_in(&browser, "Capacity reservation ID", "cr-0123456789abcdef0").await;
    browser
        .wait_for_text(FINDINGS_SUMMARY, |text| {
            text.starts_with("Findings: 0 errors")
        })
        .await;
    assert!(
        browser.client.find(checklist).await.is_err(),
        "nothing is left to fill in"
    );
    browser
        .wait_for_text(Locator::Id("preview-cluster-yaml"), |text| {
            text.contains("region: us-west-2") && text.contains("- us-west-2b")
        })
        .await;
    // Both uses of the reservation got the one value.
    browser
        .by_id("tab-preview-nodepools-yaml")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Id("preview-nodepools-yaml"), |text| {
            text.contains("cr-0123456789abcdef0") && !text.contains("PLACEHOLDER")
        })
        .await;
    // The region list has names people know.
    browser.go_to_step(2).await;
    let hint = browser
        .wait_for_text(Locator::Css(".field .hint"), |text| !text.is_empty())
        .await;
    assert_eq!(hint, "US West (Oregon)");
    browser.close().await;
}

#[tokio::test]
async fn the_step_list_opens_a_step_at_its_heading_and_the_tabs_follow_the_arrow_keys() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.client.set_window_size(1280, 800).await.unwrap();
    browser.open(&studio).await;
    // Scroll down the long Karpenter step, then pick another step from the list.
    browser.go_to_step(6).await;
    browser
        .eval(
            "window.scrollTo(0, document.body.scrollHeight); return 0;",
            vec![],
        )
        .await;
    browser.by_id("step-button-4").await.click().await.unwrap();
    browser.wait_for_element("step-title-4").await;
    let (focused, top) = {
        let value = browser
            .eval(
                "const heading = document.getElementById('step-title-4'); return [document.activeElement === heading, heading.getBoundingClientRect().top];",
                vec![],
            )
            .await;
        (value[0].as_bool().unwrap(), value[1].as_f64().unwrap())
    };
    assert!(focused, "focus moves to the step's heading");
    assert!(
        (-1.0..200.0).contains(&top),
        "the heading is at the top: {top}"
    );
    // A step's warnings are in its accessible name, not only in its badge.
    let labels = browser
        .eval(
            "return [...document.querySelectorAll('.step-button')].map(b => b.getAttribute('aria-label'));",
            vec![],
        )
        .await;
    let labels: Vec<String> = serde_json::from_value(labels).unwrap();
    assert!(
        labels
            .iter()
            .all(|label| !label.contains(" 1 errors") && !label.contains(" 1 warnings")),
        "{labels:?}"
    );
    // The preview's tabs: arrow keys move between them, as the tabs pattern has it.
    let first = browser.by_id("tab-preview-cluster-yaml").await;
    first.click().await.unwrap();
    first.send_keys("\u{E014}").await.unwrap();
    let selected = browser
        .eval(
            "return [document.activeElement.id, document.activeElement.getAttribute('aria-selected')];",
            vec![],
        )
        .await;
    assert_eq!(
        selected,
        serde_json::json!(["tab-preview-nodepools-yaml", "true"])
    );
    browser
        .by_id("tab-preview-nodepools-yaml")
        .await
        .send_keys("\u{E010}")
        .await
        .unwrap();
    let last = browser
        .eval("return document.activeElement.id;", vec![])
        .await;
    assert_eq!(last, "tab-preview-studio-json");
    // A skip link leads past the header to the form.
    let skip = browser
        .eval(
            "const link = document.querySelector('a.skip-link'); return [link.textContent, link.getAttribute('href')];",
            vec![],
        )
        .await;
    assert_eq!(skip, serde_json::json!(["Skip to the form", "#wizard"]));
    browser.close().await;
}

#[tokio::test]
async fn the_picker_opens_on_accelerated_types_finds_a_gpu_model_and_sorts_by_price() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.client.set_window_size(1280, 800).await.unwrap();
    browser.open(&studio).await;
    browser.go_to_step(4).await;
    let before = errors(&browser).await;
    browser.click_button("Add GPU group").await;
    browser.click_button("Add CPU system group").await;
    // Groups as added bring no error of their own.
    assert_eq!(errors(&browser).await, before);
    browser.click_button("Choose from the catalog").await;
    let accelerated = browser.field_by_label("GPU or Neuron only").await;
    assert_eq!(
        accelerated.prop("checked").await.unwrap().as_deref(),
        Some("true")
    );
    let first_row = Locator::Css(".picker tbody tr");
    let row = browser
        .wait_for_text(first_row, |text| !text.is_empty())
        .await;
    assert!(!row.starts_with("a1."), "{row}");
    browser.fill_by_label("Search instance types", "H100").await;
    browser
        .wait_for_text(Locator::Css(".picker .hint"), |text| {
            text.starts_with("2 types match")
        })
        .await;
    browser.click_button("$/h").await;
    let rows = browser
        .eval(
            "return [...document.querySelectorAll('.picker tbody th')].map(th => th.textContent);",
            vec![],
        )
        .await;
    assert_eq!(
        rows,
        serde_json::json!(["p5.4xlarge", "p5.48xlarge"]),
        "cheapest first"
    );
    let sorted = browser
        .eval(
            "return [...document.querySelectorAll('.picker thead th')].map(th => th.getAttribute('aria-sort'));",
            vec![],
        )
        .await;
    assert_eq!(sorted[6], "ascending");
    // The table fits the form's column at 1280 px: no sideways scroll inside it.
    let overflow = sideways_scroll(&browser, ".table-scroll").await;
    assert_eq!(overflow, 0, "the picker scrolls sideways at 1280 px");
    browser.screenshot("picker-1280").await;
    browser.close().await;
}

#[tokio::test]
async fn the_preview_stays_beside_the_form_from_1024_px_and_the_steps_stay_usable_at_390() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    let beside = "const form = document.querySelector('.wizard').getBoundingClientRect(); const preview = document.querySelector('.preview').getBoundingClientRect(); return [preview.left >= form.right - 1, Math.abs(preview.top - form.top) < 40, preview.top];";
    for (width, height) in [(1280, 800), (1024, 768)] {
        browser.client.set_window_size(width, height).await.unwrap();
        browser.open(&studio).await;
        browser.go_to_step(4).await;
        browser
            .eval("window.scrollTo(0, 0); return 0;", vec![])
            .await;
        let placed = browser.eval(beside, vec![]).await;
        assert_eq!(
            [placed[0].as_bool(), placed[1].as_bool()],
            [Some(true), Some(true)],
            "at {width} px the preview is not beside the form: {placed}"
        );
        browser.screenshot(&format!("layout-{width}")).await;
    }
    browser.client.set_window_size(390, 844).await.unwrap();
    browser.open(&studio).await;
    // Every step's title is readable, not only its number.
    let hidden = browser
        .eval(
            "return [...document.querySelectorAll('.step-title')].filter(t => t.getBoundingClientRect().width === 0).length;",
            vec![],
        )
        .await;
    assert_eq!(hidden, 0, "step titles are hidden at 390 px");
    // The picker fits too: its details are on the type's title and in the field's summary.
    browser.go_to_step(4).await;
    browser.click_button("Choose from the catalog").await;
    browser
        .wait_for_text(Locator::Css(".picker tbody tr"), |text| !text.is_empty())
        .await;
    let picker_overflow = sideways_scroll(&browser, ".table-scroll").await;
    assert_eq!(picker_overflow, 0, "the picker scrolls sideways at 390 px");
    browser.screenshot("layout-390-picker").await;
    // A long list of labels wraps in its field instead of running out of it.
    let labels = "team=ml-platform, workload=distributed-training, cost-center=research-42, \
                  accelerator=nvidia-h100";
    browser.fill("f-node-groups-0-labels", labels).await;
    let labels_box = browser
        .eval(
            "const area = document.getElementById('f-node-groups-0-labels');
             const line = parseFloat(getComputedStyle(area).lineHeight) || 20;
             return [area.scrollWidth - area.clientWidth, area.scrollHeight - area.clientHeight, area.clientHeight > 2 * line];",
            vec![],
        )
        .await;
    assert_eq!(
        labels_box,
        serde_json::json!([0, 0, true]),
        "the labels' field hides part of `{labels}`"
    );
    browser
        .eval(
            "document.getElementById('f-node-groups-0-labels').scrollIntoView(); return 0;",
            vec![],
        )
        .await;
    browser.screenshot("layout-390-labels").await;
    browser.go_to_step(6).await;
    browser.screenshot("layout-390-karpenter").await;
    let overflow = sideways_scroll(&browser, ":root").await;
    assert_eq!(overflow, 0, "the page scrolls sideways at 390 px");
    browser.close().await;
}

/// How far the first element matching `selector` scrolls sideways (0 when it fits).
async fn sideways_scroll(browser: &Browser, selector: &str) -> serde_json::Value {
    browser
        .eval(
            "const box = document.querySelector(arguments[0]); return box.scrollWidth - box.clientWidth;",
            vec![selector.into()],
        )
        .await
}

/// The line the caret of the textarea `id` is on, from 1.
async fn caret_line(browser: &Browser, id: &str) -> u64 {
    browser
        .eval(
            "const area = document.getElementById(arguments[0]);
             return area.value.slice(0, area.selectionStart).split('\\n').length;",
            vec![id.into()],
        )
        .await
        .as_u64()
        .expect("a line")
}

/// Puts the caret of the preview's editor just after the first `text` in it.
async fn caret_after(browser: &Browser, text: &str) {
    browser
        .eval(
            "const area = document.getElementById('preview-editor');
             const end = area.value.indexOf(arguments[0]) + arguments[0].length;
             area.setSelectionRange(end, end);",
            vec![text.into()],
        )
        .await;
}

/// The id of the focused element.
/// The focused element's id once it is `id`, or after five seconds whatever it is then.
async fn focus_moves_to(browser: &Browser, id: &str) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let focused = focused_id(browser).await;
        if focused == id || std::time::Instant::now() > deadline {
            return focused;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

async fn focused_id(browser: &Browser) -> String {
    browser
        .eval("return document.activeElement.id;", vec![])
        .await
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The number of the line a finding listed under the file is on ("12:5 error …" → 12).
fn line_of(item: &str) -> u64 {
    item.split(':')
        .next()
        .and_then(|line| line.trim().parse().ok())
        .unwrap_or_else(|| panic!("no line in `{item}`"))
}

#[tokio::test]
async fn the_yaml_is_edited_in_place_with_its_findings_on_their_lines() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.client.set_window_size(1280, 800).await.unwrap();
    browser.open(&studio).await;

    // The placeholders' findings are marked on the lines of cluster.yaml and listed with
    // line:column under it.
    let heading = browser
        .wait_for_text(Locator::Id("file-findings-title"), |text| {
            text.starts_with("In cluster.yaml: ")
        })
        .await;
    assert!(heading.ends_with("findings"), "{heading}");
    let marked = browser
        .client
        .find_all(Locator::Css("#preview-cluster-yaml .flag-error"))
        .await
        .unwrap();
    assert!(marked.len() >= 3, "region, zones, reservation are marked");
    for line in &marked {
        let text = line.text().await.unwrap();
        assert!(
            text.contains("PLACEHOLDER_") || text.contains("cr-"),
            "{text}"
        );
    }

    browser.screenshot("file-findings-1280").await;

    // A finding listed goes to its line; a marked line goes to its finding.
    let first = browser.by_id("file-finding-0").await;
    let first_text = first.text().await.unwrap();
    first.click().await.unwrap();
    let gone_to = browser
        .client
        .find(Locator::Css("#preview-cluster-yaml .gone-to"))
        .await
        .expect("the line gone to is marked");
    assert_eq!(
        gone_to.attr("data-line").await.unwrap().as_deref(),
        Some(line_of(&first_text).to_string().as_str())
    );
    marked.last().unwrap().click().await.unwrap();
    let focused = focused_id(&browser).await;
    assert!(
        focused.starts_with("file-finding-"),
        "focus is on {focused:?}"
    );
    let focused_text = browser.by_id(&focused).await.text().await.unwrap();
    assert_eq!(
        marked.last().unwrap().attr("data-line").await.unwrap(),
        Some(line_of(&focused_text).to_string())
    );

    // Editing the text changes the design as it is typed.
    browser.click_button("Edit cluster.yaml").await;
    // The page moves the focus in the next frame, once the editor is drawn.
    assert_eq!(
        focus_moves_to(&browser, "preview-editor").await,
        "preview-editor"
    );
    let editor = browser.by_id("preview-editor").await;
    assert_eq!(
        editor.attr("aria-label").await.unwrap().as_deref(),
        Some("cluster.yaml, editable")
    );
    caret_after(&browser, "name: eks-p5-training").await;
    editor.send_keys("-x").await.unwrap();
    browser.go_to_step(2).await;
    let name = browser.field_by_label(ClusterSettings::NAME.label).await;
    assert_eq!(
        name.prop("value").await.unwrap().as_deref(),
        Some("eks-p5-training-x")
    );
    // Findings in the edited text are on its lines: each listed one takes the caret there.
    let item = browser.by_id("file-finding-1").await;
    let item_line = line_of(&item.text().await.unwrap());
    item.click().await.unwrap();
    assert_eq!(focused_id(&browser).await, "preview-editor");
    assert_eq!(caret_line(&browser, "preview-editor").await, item_line);
    let gutter_marks = browser
        .client
        .find_all(Locator::Css(".numbered .gutter .flag-error"))
        .await
        .unwrap();
    assert!(
        gutter_marks.len() >= 3,
        "the gutter marks the findings' lines"
    );
    browser.screenshot("editing-cluster-yaml-1280").await;

    // Text that does not read says where, and the design keeps what it last said.
    caret_after(&browser, "metadata:").await;
    editor.send_keys(" [").await.unwrap();
    browser
        .wait_for_text(Locator::Id("edit-status"), |text| {
            text.starts_with("The text does not read yet")
        })
        .await;
    let problem = browser.by_id("file-finding-0").await.text().await.unwrap();
    assert!(problem.to_lowercase().contains("error"), "{problem}");
    assert!(line_of(&problem) >= 3, "{problem}");
    assert_eq!(
        name.prop("value").await.unwrap().as_deref(),
        Some("eks-p5-training-x")
    );

    // Undo brings back the design before the edit, and the text follows it.
    browser.click_button("Undo").await;
    browser
        .wait_for_text(Locator::Id("edit-status"), |text| {
            text.starts_with("Edits go into the design")
        })
        .await;
    let text = editor.prop("value").await.unwrap().unwrap_or_default();
    assert!(text.contains("name: eks-p5-training\n"), "{text}");
    assert!(!text.contains("metadata: ["), "{text}");

    // A change in the form is written into the text being edited.
    browser
        .fill_by_label(ClusterSettings::NAME.label, "from-the-form")
        .await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let text = editor.prop("value").await.unwrap().unwrap_or_default();
        if text.contains("name: from-the-form\n") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the text never followed the form"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    browser.client.set_window_size(390, 844).await.unwrap();
    let overflow = sideways_scroll(&browser, ":root").await;
    assert_eq!(
        overflow, 0,
        "the page scrolls sideways at 390 px while editing"
    );
    browser
        .eval(
            "document.getElementById('preview-editor').scrollIntoView();",
            vec![],
        )
        .await;
    browser.screenshot("editing-cluster-yaml-390").await;
    browser.client.set_window_size(1024, 768).await.unwrap();
    browser.screenshot("editing-cluster-yaml-1024").await;

    // Stopping shows the file as the design renders it again.
    browser.click_button("Stop editing").await;
    browser
        .wait_for_text(Locator::Id("preview-cluster-yaml"), |text| {
            text.contains("name: from-the-form")
        })
        .await;
    browser.close().await;
}

#[tokio::test]
async fn the_nodepools_file_is_edited_in_place_and_keeps_the_cluster() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser
        .by_id("tab-preview-nodepools-yaml")
        .await
        .click()
        .await
        .unwrap();
    browser.click_button("Edit karpenter/nodepools.yaml").await;
    let editor = browser.by_id("preview-editor").await;
    let text = editor.prop("value").await.unwrap().unwrap_or_default();
    assert!(text.contains("kind: NodePool"), "{text}");
    // A pool's limit edited in the text shows in the Karpenter step.
    browser
        .eval(
            "const area = document.getElementById('preview-editor');
             const at = area.value.indexOf('kind: NodePool');
             const name = area.value.indexOf('name: ', at) + 'name: '.length;
             const end = area.value.indexOf('\\n', name);
             area.setSelectionRange(name, end);",
            vec![],
        )
        .await;
    editor.send_keys("renamed-pool").await.unwrap();
    browser.go_to_step(6).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let names = browser
            .eval(
                "return [...document.querySelectorAll('input')].map(i => i.value).filter(v => v === 'renamed-pool').length;",
                vec![],
            )
            .await;
        if names.as_u64() == Some(1) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the pool was never renamed in the form"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // The cluster is as it was.
    browser
        .by_id("tab-preview-cluster-yaml")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Id("preview-cluster-yaml"), |text| {
            text.contains("name: eks-p5-training")
        })
        .await;
    browser.close().await;
}

/// The preview's text and its lines: one `.l` element per line, nothing between them.
async fn preview_lines(browser: &Browser) -> (String, usize, usize) {
    let answer = browser
        .eval(
            "const pre = document.getElementById('preview-cluster-yaml');
             return [pre.textContent, pre.children.length,
                     pre.querySelectorAll(':scope > span.l').length];",
            vec![],
        )
        .await;
    (
        answer[0].as_str().unwrap().to_owned(),
        answer[1].as_u64().unwrap() as usize,
        answer[2].as_u64().unwrap() as usize,
    )
}

#[tokio::test]
async fn the_preview_changed_line_by_line_is_the_file_a_fresh_page_shows() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("karpenter-reserved-training").await;
    browser.go_to_step(2).await;
    let name = browser.field_by_label(ClusterSettings::NAME.label).await;
    // Lines change in place (the name is on several lines), then lines come and go in
    // the middle and at the end of the file.
    name.clear().await.unwrap();
    name.send_keys("line-by-line").await.unwrap();
    browser.go_to_step(4).await;
    browser.click_button("Add GPU group").await;
    browser.click_button("Add CPU system group").await;
    browser.click_button("Remove node group 1").await;
    let (text, children, lines) = preview_lines(&browser).await;
    assert!(text.contains("name: line-by-line"), "{text}");
    assert_eq!(children, text.lines().count(), "one element per line");
    assert_eq!(lines, children, "every child is a line");
    // The design is saved 200 ms after the last change; a reload renders it whole.
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    browser.client.refresh().await.unwrap();
    browser
        .wait_for_text(Locator::Id("preview-cluster-yaml"), |text| {
            text.contains("name: line-by-line")
        })
        .await;
    let (reloaded, _, _) = preview_lines(&browser).await;
    assert_eq!(
        text, reloaded,
        "the patched preview is the file rendered whole"
    );
    browser.close().await;
}

/// The value of the input with this id.
async fn value_of(browser: &Browser, id: &str) -> String {
    browser
        .by_id(id)
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default()
}

/// The undo history is saved with the design when the page goes away: after a reload,
/// Ctrl+Z and Ctrl+Shift+Z go on where they were.
#[tokio::test]
async fn the_undo_history_survives_a_reload() {
    const PREVIEW: Locator<'static> = Locator::Css("#preview-cluster-yaml");
    const CONTROL: &str = "\u{E009}";
    const SHIFT: &str = "\u{E008}";
    const RELEASE: &str = "\u{E000}";
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("p5-odcr-vpc").await;
    browser.go_to_step(2).await;
    let name = "f-cluster-name";
    let region = "f-cluster-region";
    let original = value_of(&browser, name).await;
    for (id, text) in [(name, "eks-before-reload"), (region, "us-west-2")] {
        let input = browser.by_id(id).await;
        input.click().await.unwrap();
        input
            .send_keys(&format!("{CONTROL}a{RELEASE}{text}"))
            .await
            .unwrap();
    }
    // One change undone, so there is something to redo as well.
    let undo = format!("{CONTROL}z{RELEASE}");
    let redo = format!("{CONTROL}{SHIFT}z{RELEASE}");
    browser.by_id(region).await.send_keys(&undo).await.unwrap();
    browser
        .wait_for_text(PREVIEW, |text| {
            text.contains("name: eks-before-reload\n")
                && text.contains("region: PLACEHOLDER_AWS_REGION")
        })
        .await;
    browser.client.refresh().await.unwrap();
    browser
        .wait_for_text(PREVIEW, |text| text.contains("name: eks-before-reload\n"))
        .await;
    browser.go_to_step(2).await;
    browser.wait_for_element(name).await;
    browser.by_id(name).await.send_keys(&undo).await.unwrap();
    browser
        .wait_for_text(PREVIEW, |text| {
            text.contains(&format!("name: {original}\n"))
        })
        .await;
    let input = browser.by_id(name).await;
    input.send_keys(&redo).await.unwrap();
    input.send_keys(&redo).await.unwrap();
    browser
        .wait_for_text(PREVIEW, |text| {
            text.contains("name: eks-before-reload\n") && text.contains("region: us-west-2")
        })
        .await;
    browser.close().await;
}

#[tokio::test]
async fn ctrl_z_in_a_field_undoes_the_design_one_field_at_a_time() {
    const CONTROL: &str = "\u{E009}";
    const SHIFT: &str = "\u{E008}";
    const RELEASE: &str = "\u{E000}";
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("p5-odcr-vpc").await;
    browser.go_to_step(2).await;
    let name = "f-cluster-name";
    let region = "f-cluster-region";
    let original = value_of(&browser, name).await;
    // Typing over a field's text (select all, type), then at once in another: two
    // changes, not one.
    let retype = |id: &'static str, text: &'static str| {
        let browser = &browser;
        async move {
            let input = browser.by_id(id).await;
            input.click().await.unwrap();
            input
                .send_keys(&format!("{CONTROL}a{RELEASE}{text}"))
                .await
                .unwrap();
        }
    };
    retype(name, "eks-typed").await;
    retype(region, "us-west-2").await;
    let undo = format!("{CONTROL}z{RELEASE}");
    browser.by_id(region).await.send_keys(&undo).await.unwrap();
    browser
        .wait_for_text(Locator::Css("#preview-cluster-yaml"), |text| {
            text.contains("region: PLACEHOLDER_AWS_REGION")
        })
        .await;
    assert_eq!(value_of(&browser, name).await, "eks-typed");
    assert_eq!(value_of(&browser, region).await, "PLACEHOLDER_AWS_REGION");
    // Again, from the other field: the name goes back as one change (typing is one step).
    browser.by_id(name).await.send_keys(&undo).await.unwrap();
    browser
        .wait_for_text(Locator::Css("#preview-cluster-yaml"), |text| {
            text.contains(&format!("name: {original}\n"))
        })
        .await;
    assert_eq!(value_of(&browser, name).await, original);
    // Ctrl+Shift+Z redoes it.
    let redo = format!("{CONTROL}{SHIFT}z{RELEASE}");
    browser.by_id(name).await.send_keys(&redo).await.unwrap();
    browser
        .wait_for_text(Locator::Css("#preview-cluster-yaml"), |text| {
            text.contains("name: eks-typed\n")
        })
        .await;
    // The import box keeps its own undo: Ctrl+Z there leaves the design alone.
    browser.go_to_step(1).await;
    let area = browser.field_by_label("YAML to import").await;
    area.send_keys("kind: x").await.unwrap();
    area.send_keys(&undo).await.unwrap();
    browser.go_to_step(2).await;
    assert_eq!(value_of(&browser, name).await, "eks-typed");
    browser.close().await;
}
