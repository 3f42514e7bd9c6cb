//! The studio page in headless Chromium against the real server.

use fantoccini::Locator;
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
    assert!(preview.contains("name: eks-p5-cbr-vpc"), "{preview}");

    browser.go_to_step(2).await;
    let name = browser.field_by_label("Cluster name").await;
    name.clear().await.unwrap();
    name.send_keys("vision-train").await.unwrap();
    let preview = browser
        .wait_for_text(PREVIEW, |text| text.contains("name: vision-train"))
        .await;
    assert!(!preview.contains("eks-p5-cbr-vpc"), "{preview}");
    browser.screenshot("start-and-cluster").await;
    browser.close().await;
}

#[tokio::test]
async fn choosing_a_template_shows_its_manifest() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.client.goto(&studio.base_url).await.unwrap();
    browser
        .wait_for_text(PREVIEW, |text| text.contains("p5.48xlarge"))
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
