//! Browser tests: real components mounted in headless Chromium.
#![cfg(target_arch = "wasm32")]

use frontend::App;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Event, EventInit, HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

fn element_by_id<T: JsCast>(id: &str) -> T {
    leptos::prelude::document()
        .get_element_by_id(id)
        .unwrap_or_else(|| panic!("no element #{id}"))
        .dyn_into::<T>()
        .unwrap()
}

fn type_into(input: &HtmlInputElement, text: &str) {
    input.set_value(text);
    let init = EventInit::new();
    init.set_bubbles(true);
    let event = Event::new_with_event_init_dict("input", &init).unwrap();
    input.dispatch_event(&event).unwrap();
}

fn preview_text() -> String {
    element_by_id::<HtmlElement>("preview-cluster-yaml")
        .text_content()
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn editing_the_cluster_name_updates_the_preview() {
    let document = leptos::prelude::document();
    let container: HtmlElement = document.create_element("div").unwrap().dyn_into().unwrap();
    document.body().unwrap().append_child(&container).unwrap();
    let mounted = leptos::mount::mount_to(container, App);
    leptos::task::tick().await;

    assert!(preview_text().contains("apiVersion: eksctl.io/v1alpha5"));
    assert!(preview_text().contains("name: eks-p5-cbr-vpc"));

    let name_input = element_by_id::<HtmlInputElement>("cluster-name");
    assert_eq!(name_input.value(), "eks-p5-cbr-vpc");
    type_into(&name_input, "team-a-training");
    leptos::task::tick().await;

    let preview = preview_text();
    assert!(
        preview.contains("name: team-a-training"),
        "preview was:\n{preview}"
    );
    assert!(!preview.contains("eks-p5-cbr-vpc"));
    drop(mounted);
}

#[wasm_bindgen_test]
async fn choosing_another_template_replaces_the_spec() {
    let document = leptos::prelude::document();
    let container: HtmlElement = document.create_element("div").unwrap().dyn_into().unwrap();
    document.body().unwrap().append_child(&container).unwrap();
    let mounted = leptos::mount::mount_to(container, App);
    leptos::task::tick().await;

    let g4dn = element_by_id::<HtmlInputElement>("template-g4dn");
    g4dn.click();
    leptos::task::tick().await;

    let preview = preview_text();
    assert!(
        preview.contains("instanceType: g4dn.8xlarge"),
        "preview was:\n{preview}"
    );
    assert_eq!(
        element_by_id::<HtmlInputElement>("cluster-name").value(),
        "eks-g4dn"
    );
    drop(mounted);
}
