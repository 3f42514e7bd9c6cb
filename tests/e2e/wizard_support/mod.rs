//! What the wizard's browser tests share: the preview and findings they read, choosing an
//! option, a step's error count, a studio asking the emulator, the live checks run.

#![allow(dead_code)]

use fantoccini::Locator;
use studio_e2e::ec2_emulator::Ec2Emulator;
use studio_e2e::{Browser, Studio};

pub const PREVIEW: Locator<'static> = Locator::Id("preview-cluster-yaml");

pub const FINDINGS: Locator<'static> = Locator::Id("findings-list");

pub async fn select(browser: &Browser, id: &str, value: &str) {
    browser
        .by_id(id)
        .await
        .select_by_value(value)
        .await
        .unwrap_or_else(|error| panic!("cannot choose {value} in #{id}: {error}"));
}

pub async fn text_of(browser: &Browser, id: &str) -> String {
    browser.by_id(id).await.text().await.unwrap()
}

/// The error count the step list shows for step `number` (0 when none).
pub async fn step_errors(browser: &Browser, number: usize) -> usize {
    let label = browser
        .by_id(&format!("step-button-{number}"))
        .await
        .attr("aria-label")
        .await
        .unwrap()
        .unwrap_or_default();
    label
        .split(", ")
        .find(|part| part.ends_with(" error") || part.ends_with(" errors"))
        .and_then(|part| part.split(' ').next())
        .and_then(|count| count.parse().ok())
        .unwrap_or(0)
}

/// The studio with AWS credentials, asking the emulator's EC2 and EKS, with `more`
/// settings for the server.
pub fn studio_asking(emulator: &Ec2Emulator, more: &[(&str, &str)]) -> Studio {
    let mut env = vec![
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_ENDPOINT_URL_EC2", emulator.endpoint.as_str()),
        ("AWS_ENDPOINT_URL_EKS", emulator.endpoint.as_str()),
    ];
    env.extend_from_slice(more);
    Studio::start_with_env(&env)
}

pub async fn run_live_checks(browser: &Browser) -> String {
    browser.go_to_step(8).await;
    browser.click_button("Run live checks").await;
    browser
        .wait_for_text(Locator::Id("live-checks-result"), |text| {
            text.contains("capacity-reservation")
        })
        .await
}
