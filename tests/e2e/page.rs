//! The studio page in headless Chromium against the real server.

use fantoccini::Locator;
use shared::model::spec::ClusterSettings;
use studio_e2e::{Browser, Studio};

const PREVIEW: Locator<'static> = Locator::Id("preview-cluster-yaml");

#[tokio::test]
async fn the_page_opens_on_a_template_and_the_preview_follows_the_cluster_name() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.client.goto(&studio.base_url).await.unwrap();

    let preview = browser
        .wait_for_text(PREVIEW, |text| {
            text.contains("apiVersion: eksctl.io/v1alpha5")
        })
        .await;
    assert!(preview.contains("kind: ClusterConfig"));
    // The first template: p5 in an ODCR through Karpenter, whose only errors are placeholders.
    assert!(preview.contains("name: eks-p5-training"), "{preview}");

    browser.go_to_step(2).await;
    let name = browser.field_by_label(ClusterSettings::NAME.label).await;
    name.clear().await.unwrap();
    name.send_keys("vision-train").await.unwrap();
    let preview = browser
        .wait_for_text(PREVIEW, |text| text.contains("name: vision-train"))
        .await;
    assert!(!preview.contains("name: eks-p5-training"), "{preview}");
    browser.screenshot("start-and-cluster").await;
    browser.close().await;
}

#[tokio::test]
async fn choosing_a_template_shows_its_manifest() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.client.goto(&studio.base_url).await.unwrap();
    browser
        .wait_for_text(PREVIEW, |text| text.contains("kind: ClusterConfig"))
        .await;

    let g5 = browser
        .client
        .find(Locator::Css("label[for='template-g5-node-autorepair']"))
        .await
        .unwrap();
    g5.click().await.unwrap();
    let preview = browser
        .wait_for_text(PREVIEW, |text| text.contains("instanceType: g5.8xlarge"))
        .await;
    assert!(
        preview.contains("name: eks-node-monitoring-agent"),
        "{preview}"
    );
    browser.close().await;
}

/// Copies the built page into a new directory, leaving out files whose name satisfies `drop`.
fn copy_dist_without(name: &str, drop: impl Fn(&str) -> bool) -> std::path::PathBuf {
    let from = std::path::PathBuf::from(std::env::var("EKS_STUDIO_DIST").unwrap());
    let to = std::env::temp_dir().join(format!("eks-studio-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&to);
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(&from).unwrap().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_file() && !drop(&file) {
            std::fs::copy(entry.path(), to.join(&file)).unwrap();
        }
    }
    to
}

#[tokio::test]
async fn the_frame_shows_before_the_studio_and_the_studio_replaces_it() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.client.goto(&studio.base_url).await.unwrap();
    browser
        .wait_for_text(PREVIEW, |text| {
            text.contains("apiVersion: eksctl.io/v1alpha5")
        })
        .await;
    // The loading frame is gone and exactly one title bar is on the page.
    let boot = browser
        .eval("return document.getElementById('boot') === null;", vec![])
        .await;
    assert_eq!(boot, serde_json::Value::Bool(true));
    let bars = browser
        .eval(
            "return document.querySelectorAll('header.topbar').length;",
            vec![],
        )
        .await;
    assert_eq!(bars, serde_json::json!(1));
    browser.close().await;
}

#[tokio::test]
async fn a_page_whose_code_cannot_load_says_so() {
    // The server has lost the wasm (a half-copied deploy of the page, say).
    let dist = copy_dist_without("no-wasm", |file| file.contains("_bg.wasm"));
    let studio = Studio::start_serving(&dist, &[]);
    let browser = Browser::start().await;
    browser.client.goto(&studio.base_url).await.unwrap();
    let title = browser
        .wait_for_text(Locator::Css("#boot h1"), |text| !text.is_empty())
        .await;
    assert_eq!(title, "EKS Training Studio");
    let status = browser
        .wait_for_text(Locator::Id("boot-status"), |text| {
            text.contains("could not start")
        })
        .await;
    assert!(status.contains("reload the page"), "{status}");
    browser.screenshot("boot-failed").await;
    browser.close().await;
    drop(studio);
    std::fs::remove_dir_all(&dist).unwrap();
}

/// The paths the page has asked the server for since the last call.
async fn requested_paths(browser: &Browser) -> Vec<String> {
    browser
        .network_events()
        .await
        .iter()
        .filter(|event| event["method"] == "Network.requestWillBeSent")
        .filter_map(|event| event["params"]["request"]["url"].as_str())
        .map(|url| format!("/{}", url.splitn(4, '/').nth(3).unwrap_or_default()))
        .collect()
}

#[tokio::test]
async fn a_first_visit_loads_only_what_it_shows_and_each_step_arrives_when_opened() {
    let studio = Studio::start();
    let browser = Browser::start_with_network_log().await;
    browser.cdp("Network.enable", serde_json::json!({})).await;
    browser.open(&studio).await;
    let first = requested_paths(&browser).await;
    assert!(
        first.iter().any(|path| path.ends_with("_bg.wasm")),
        "the page's own wasm: {first:?}"
    );
    assert!(
        !first
            .iter()
            .any(|path| path.starts_with("/split_") || path.starts_with("/chunk_")),
        "a first visit fetched a later step's code: {first:?}"
    );

    // The Node groups step's code comes when the step opens, and the step works.
    browser.go_to_step(4).await;
    browser.click_button("Add GPU group").await;
    let opened = requested_paths(&browser).await;
    assert!(
        opened
            .iter()
            .any(|path| path.starts_with("/split_node_groups_step_view-")),
        "{opened:?}"
    );
    assert!(
        !opened
            .iter()
            .any(|path| path.starts_with("/split_karpenter_step_view-")),
        "another step's code came too: {opened:?}"
    );

    // Reading YAML into the design is fetched with the first import, which then works.
    browser.go_to_step(1).await;
    let result = browser
        .import_yaml(
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: read-later\n  region: us-west-2\n",
        )
        .await;
    assert!(
        result.contains("Read") || result.starts_with("Imported"),
        "{result}"
    );
    // The design changed when the group was added, and its first save may already have
    // fetched the reading code (on a busy machine it does): either way, it came after the
    // first visit and before the import worked.
    let read = requested_paths(&browser).await;
    assert!(
        opened
            .iter()
            .chain(&read)
            .any(|path| path.starts_with("/split_reader-")),
        "{opened:?} then {read:?}"
    );
    browser.close().await;
}
