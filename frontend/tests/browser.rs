//! Browser tests: real components mounted in headless Chromium.
#![cfg(target_arch = "wasm32")]

use frontend::App;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Event, EventInit, HtmlElement, HtmlInputElement, HtmlTextAreaElement};

wasm_bindgen_test_configure!(run_in_browser);

fn element_by_id<T: JsCast>(id: &str) -> T {
    leptos::prelude::document()
        .get_element_by_id(id)
        .unwrap_or_else(|| panic!("no element #{id}"))
        .dyn_into::<T>()
        .unwrap()
}

fn text_of(id: &str) -> String {
    element_by_id::<HtmlElement>(id)
        .text_content()
        .unwrap_or_default()
}

fn fire(target: &web_sys::EventTarget, kind: &str) {
    let init = EventInit::new();
    init.set_bubbles(true);
    let event = Event::new_with_event_init_dict(kind, &init).unwrap();
    target.dispatch_event(&event).unwrap();
}

fn type_into(input: &HtmlInputElement, text: &str) {
    input.set_value(text);
    fire(input, "input");
}

fn preview_text() -> String {
    text_of("preview-cluster-yaml")
}

/// Mounts the whole page in a fresh container, with no saved work from earlier tests.
async fn mount_app() -> leptos::mount::UnmountHandle<impl leptos::tachys::view::Mountable> {
    let window = leptos::prelude::window();
    window.local_storage().unwrap().unwrap().clear().unwrap();
    let document = leptos::prelude::document();
    let container: HtmlElement = document.create_element("div").unwrap().dyn_into().unwrap();
    document.body().unwrap().append_child(&container).unwrap();
    let mounted = leptos::mount::mount_to(container, App);
    settle().await;
    mounted
}

async fn go_to_step(number: usize) {
    element_by_id::<HtmlElement>(&format!("step-button-{number}")).click();
    settle().await;
}

/// Lets the page finish reacting: effects created while another effect runs start on a
/// later turn of the event loop.
async fn settle() {
    wait_ms(0).await;
}

async fn wait_ms(milliseconds: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        leptos::prelude::window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, milliseconds)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
}

/// Lets the page run until `done` holds, or five seconds pass: on a loaded machine the
/// rules' run after a keystroke can take more than one turn of the event loop.
async fn settle_until(done: impl Fn() -> bool) {
    settle().await;
    for _ in 0..250 {
        if done() {
            return;
        }
        wait_ms(20).await;
    }
}

#[wasm_bindgen_test]
async fn editing_the_cluster_name_updates_the_preview() {
    let mounted = mount_app().await;
    assert!(preview_text().contains("apiVersion: eksctl.io/v1alpha5"));
    assert!(preview_text().contains("name: eks-p5-training"));

    go_to_step(2).await;
    let name_input = element_by_id::<HtmlInputElement>("f-cluster-name");
    assert_eq!(name_input.value(), "eks-p5-training");
    type_into(&name_input, "team-a-training");
    settle().await;

    let preview = preview_text();
    assert!(
        preview.contains("name: team-a-training"),
        "preview was:\n{preview}"
    );
    assert!(!preview.contains("name: eks-p5-training"));
    drop(mounted);
}

#[wasm_bindgen_test]
async fn choosing_another_template_replaces_the_spec() {
    let mounted = mount_app().await;
    let g4dn = element_by_id::<HtmlInputElement>("template-g4dn");
    g4dn.click();
    settle().await;

    let preview = preview_text();
    assert!(
        preview.contains("instanceType: g4dn.8xlarge"),
        "preview was:\n{preview}"
    );
    go_to_step(2).await;
    assert_eq!(
        element_by_id::<HtmlInputElement>("f-cluster-name").value(),
        "eks-g4dn"
    );
    drop(mounted);
}

#[wasm_bindgen_test]
async fn a_fields_finding_appears_and_clears_as_you_type() {
    let mounted = mount_app().await;
    go_to_step(2).await;
    let region = element_by_id::<HtmlInputElement>("f-cluster-region");
    let findings = || text_of("f-cluster-region-findings");
    assert!(
        findings().contains("PLACEHOLDER_AWS_REGION"),
        "findings were: {}",
        findings()
    );
    assert_eq!(
        region.get_attribute("aria-invalid").as_deref(),
        Some("true")
    );

    type_into(&region, "us-east-1");
    settle_until(|| findings().is_empty()).await;
    assert_eq!(findings(), "", "a real region has no finding");
    assert_eq!(region.get_attribute("aria-invalid"), None);

    type_into(&region, "us-nowhere-9");
    settle_until(|| findings().contains("us-nowhere-9")).await;
    assert!(
        findings().contains("us-nowhere-9"),
        "findings were: {}",
        findings()
    );
    drop(mounted);
}

#[wasm_bindgen_test]
async fn an_import_error_shows_its_line_and_column() {
    let mounted = mount_app().await;
    let text = element_by_id::<HtmlTextAreaElement>("import-text");
    text.set_value(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: a: b\n",
    );
    fire(&text, "input");
    settle().await;
    element_by_id::<HtmlElement>("import-button").click();
    settle().await;
    let result = text_of("import-result");
    assert!(
        result.starts_with("YAML error at line 4, column "),
        "import said: {result}"
    );
    assert!(
        preview_text().contains("name: eks-p5-training"),
        "the spec is unchanged"
    );
    drop(mounted);
}

#[wasm_bindgen_test]
async fn a_good_import_fills_the_wizard() {
    let mounted = mount_app().await;
    let text = element_by_id::<HtmlTextAreaElement>("import-text");
    text.set_value(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: imported\n  region: us-west-2\nmanagedNodeGroups:\n  - name: gpu\n    instanceType: g5.8xlarge\n",
    );
    fire(&text, "input");
    element_by_id::<HtmlElement>("import-button").click();
    settle().await;
    assert!(text_of("import-result").starts_with("Imported cluster imported"));
    go_to_step(2).await;
    assert_eq!(
        element_by_id::<HtmlInputElement>("f-cluster-region").value(),
        "us-west-2"
    );
    drop(mounted);
}

/// The page reads JSON with its YAML reader (`frontend::json`): every template's
/// studio.json reads back as the same spec, and so do strings JSON escapes or YAML would
/// otherwise read as something else.
#[wasm_bindgen_test]
fn the_page_reads_back_the_json_it_writes() {
    for template in shared::templates::TEMPLATES {
        let spec = template.spec();
        let read: shared::Spec = frontend::json::from_str(&spec.to_json()).unwrap();
        assert_eq!(read, spec, "template {}", template.id);
    }
    let mut spec = shared::templates::TEMPLATES[0].spec();
    spec.cluster.name =
        "quote \" backslash \\ tab \t line\nbreak \u{1} del \u{7f} nel \u{85} csi \u{9b} bom \u{feff} é 😀"
            .to_owned();
    let tricky = [
        "123",
        "-1.5e3",
        "0x1F",
        "true",
        "no",
        "null",
        "~",
        "",
        "- item",
        "# note",
        "a: b",
        "{x}",
        "[y]",
        "&anchor",
        "*alias",
        "!tag",
        "  padded  ",
        "'single'",
        "\"double\"",
    ];
    spec.node_groups[0].labels = tricky
        .iter()
        .enumerate()
        .map(|(index, value)| (format!("label-{index}"), (*value).to_owned()))
        .collect();
    let read: shared::Spec = frontend::json::from_str(&spec.to_json()).unwrap();
    assert_eq!(read, spec);
    // Compact JSON, as the server answers.
    let compact = serde_json::to_string(&spec).unwrap();
    let read: shared::Spec = frontend::json::from_str(&compact).unwrap();
    assert_eq!(read, spec);
    assert!(frontend::json::from_str::<shared::Spec>("{\"cluster\": ").is_err());
    assert!(frontend::json::from_str::<shared::Spec>("").is_err());
}

/// A share link is a few kilobytes that deflate can make inflate a thousandfold: the page
/// reads it a chunk at a time and stops past the largest design it reads.
#[wasm_bindgen_test]
async fn a_share_link_that_inflates_past_the_cap_is_refused_not_read_whole() {
    use frontend::share::{MAX_SHARED_SPEC_BYTES, browser_deflate};
    let bomb = browser_deflate::deflate_raw(&vec![b' '; 3 * MAX_SHARED_SPEC_BYTES / 2])
        .await
        .unwrap();
    assert!(bomb.len() < 10_000, "{} bytes of link", bomb.len());
    let error = browser_deflate::inflate_raw(&bomb, MAX_SHARED_SPEC_BYTES)
        .await
        .unwrap_err();
    assert!(
        error.contains("inflates to more than 2097152 bytes"),
        "{error}"
    );
    let small = browser_deflate::deflate_raw(b"{\"cluster\": {}}")
        .await
        .unwrap();
    assert_eq!(
        browser_deflate::inflate_raw(&small, MAX_SHARED_SPEC_BYTES)
            .await
            .unwrap(),
        b"{\"cluster\": {}}"
    );
}
