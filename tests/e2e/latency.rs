//! Keystroke → validated preview latency in headless Chromium, for the largest seed
//! template and for designs with 16, 32 and 64 node groups (a quarter as many Karpenter
//! pools). A measurement that prints figures, not a behaviour test, so `cargo xtask test`
//! does not run it; run it after `cargo xtask test` has built the page and the server with
//! `cargo test -p studio-e2e --features bench --test latency -- --nocapture` and the same
//! `EKS_STUDIO_BIN`, `EKS_STUDIO_DIST`, `CHROMEDRIVER` variables the end-to-end step sets.

use fantoccini::Locator;
use studio_e2e::{Browser, Studio};

const PREVIEW: Locator<'static> = Locator::Id("preview-cluster-yaml");

/// Types into a field `samples` times and measures, per keystroke, the time from the
/// input event to the moment every effect has run (validation, preview, findings): a
/// MessageChannel message is delivered only after the microtasks the keystroke queued.
const MEASURE: &str = r#"
const [id, samples, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const input = document.getElementById(id);
const base = input.value;
const times = [];
const channel = new MessageChannel();
let started = 0;
channel.port1.onmessage = () => {
  times.push(performance.now() - started);
  if (times.length >= samples) { done(times); return; }
  setTimeout(next, 0);
};
function next() {
  started = performance.now();
  input.value = base + (times.length % 2 ? '-a' : '-b');
  input.dispatchEvent(new Event('input', { bubbles: true }));
  channel.port2.postMessage(0);
}
next();
"#;

fn median_and_p95(mut times: Vec<f64>) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |fraction: f64| times[((times.len() - 1) as f64 * fraction).round() as usize];
    (at(0.5), at(0.95))
}

async fn measure(browser: &Browser, label: &str) {
    let answer = browser
        .client
        .execute_async(MEASURE, vec!["f-cluster-name".into(), 60.into()])
        .await
        .unwrap();
    let times: Vec<f64> = serde_json::from_value(answer).unwrap();
    let (median, p95) = median_and_p95(times[10..].to_vec());
    println!("keystroke → validated preview, {label}: median {median:.2} ms, p95 {p95:.2} ms");
}

/// `template` with its first node group repeated `groups` times and its first NodePool
/// `pools` times, each under its own name.
fn sized(template: &serde_json::Value, groups: usize, pools: usize) -> serde_json::Value {
    let mut spec = template.clone();
    let group = spec["node_groups"][0].clone();
    let pool = spec["karpenter"]["node_pools"][0].clone();
    spec["node_groups"] = (0..groups)
        .map(|idx| {
            let mut group = group.clone();
            group["name"] = format!("group-{idx}").into();
            group
        })
        .collect::<Vec<_>>()
        .into();
    spec["karpenter"]["node_pools"] = (0..pools)
        .map(|idx| {
            let mut pool = pool.clone();
            pool["metadata"]["name"] = format!("pool-{idx}").into();
            pool
        })
        .collect::<Vec<_>>()
        .into();
    spec
}

#[tokio::test]
async fn keystroke_to_validated_preview_latency() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("karpenter-spot-inference").await;
    browser.go_to_step(2).await;
    measure(&browser, "largest seed template (karpenter-spot-inference)").await;

    // n node groups and n/4 NodePools, built from the studio.json of a template, for
    // n = 16, 32, 64: the largest is the budgeted case, the others show how cost grows.
    browser.choose_template("karpenter-reserved-training").await;
    // The keystrokes above edited the design, so the page asks before replacing it.
    browser
        .wait_for_element("replace-yes")
        .await
        .click()
        .await
        .unwrap();
    browser
        .by_id("tab-preview-studio-json")
        .await
        .click()
        .await
        .unwrap();
    let json = browser
        .wait_for_text(Locator::Id("preview-studio-json"), |text| {
            text.contains("eks-p5-training")
        })
        .await;
    let template: serde_json::Value = serde_json::from_str(&json).unwrap();
    for groups in [16, 32, 64] {
        let spec = sized(&template, groups, groups / 4);
        // The page autosaves 200 ms after the last change (the template chosen above, the
        // keystrokes of the last measurement); let that save happen first, or it would
        // replace the design stored here before the reload reads it.
        tokio::time::sleep(std::time::Duration::from_millis(600)).await;
        browser
            .eval(
                "localStorage.setItem('eks-studio.autosave', arguments[0]);",
                vec![spec.to_string().into()],
            )
            .await;
        browser.client.refresh().await.unwrap();
        let last = format!("name: group-{}", groups - 1);
        browser
            .wait_for_text(PREVIEW, |text| text.contains(&last))
            .await;
        browser.go_to_step(2).await;
        measure(
            &browser,
            &format!("{groups} node groups and {} NodePools", groups / 4),
        )
        .await;
    }
    browser.close().await;
}
