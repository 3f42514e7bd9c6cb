//! Keystroke → validated preview latency in headless Chromium, as a user meets it: keys
//! typed into "Cluster name" through WebDriver (real key events, not a script setting the
//! value), timed from the input event's own time stamp to the moment the preview's DOM
//! holds the new name, and to the moment every effect the keystroke queued has run
//! (validation, findings). Measured on the template a first visit opens, on the largest
//! seed template, on designs with 16, 32, 64 and 300 node groups (a quarter as many
//! Karpenter pools; 300 is the most the page accepts), and, for a 3 MB import of 12,000
//! node groups, the time until the page says it is refused and a keystroke after it.
//! A measurement that prints figures, not a behaviour test, so `cargo xtask test` does
//! not run it; `cargo xtask bench --only browser` runs it with the page and the server
//! built (or run it after `cargo xtask test` has built them with `cargo test -p studio-e2e
//! --features bench --test latency -- --nocapture` and the same `EKS_STUDIO_BIN`,
//! `EKS_STUDIO_DIST`, `CHROMEDRIVER` variables the end-to-end step sets).

use std::time::{Duration, Instant};

use shared::model::spec::MOST_NODE_GROUPS;
use studio_e2e::{Browser, Studio};

const NAME_FIELD: &str = "f-cluster-name";
/// WebDriver's Backspace key.
const BACKSPACE: &str = "\u{E003}";

/// Watches one keystroke at a time: the input event's time stamp (when the browser took
/// the key), then a MutationObserver sees the preview hold `name: <value>` (the DOM a user
/// reads), then a MessageChannel message, delivered only after every microtask the
/// keystroke queued, marks the end of all its effects. Each keystroke pushes
/// `[to the preview, to every effect]` in ms.
const WATCH: &str = r#"
const input = document.getElementById(arguments[0]);
const preview = document.getElementById('preview-cluster-yaml');
window.__keystrokes = [];
let pending = null;
input.addEventListener('input', (event) => {
  pending = { at: event.timeStamp, line: 'name: ' + input.value + '\n' };
}, { capture: true });
new MutationObserver(() => {
  if (!pending || !preview.textContent.includes(pending.line)) { return; }
  const shown = performance.now();
  const keystroke = pending;
  pending = null;
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    window.__keystrokes.push([shown - keystroke.at, performance.now() - keystroke.at]);
  };
  channel.port2.postMessage(0);
}).observe(preview, { childList: true, subtree: true, characterData: true });
"#;

fn median_and_p95(mut times: Vec<f64>) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |fraction: f64| times[((times.len() - 1) as f64 * fraction).round() as usize];
    (at(0.5), at(0.95))
}

async fn keystrokes_seen(browser: &Browser) -> usize {
    browser
        .eval("return window.__keystrokes.length;", Vec::new())
        .await
        .as_u64()
        .unwrap_or(0) as usize
}

/// Types `samples` keys into "Cluster name" (a letter, then Backspace, so the name stays
/// valid) and returns each one's `[to the preview, to every effect]`.
async fn type_and_time(browser: &Browser, samples: usize) -> Vec<[f64; 2]> {
    browser.eval(WATCH, vec![NAME_FIELD.into()]).await;
    let input = browser.by_id(NAME_FIELD).await;
    input.click().await.unwrap();
    // The caret at the end, where a person adds to a name.
    input.send_keys("\u{E010}").await.unwrap();
    for index in 0..samples {
        let key = if index % 2 == 0 { "q" } else { BACKSPACE };
        input.send_keys(key).await.unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while keystrokes_seen(browser).await <= index {
            assert!(
                Instant::now() < deadline,
                "keystroke {index} never reached the preview"
            );
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    let times = browser
        .eval("return window.__keystrokes;", Vec::new())
        .await;
    serde_json::from_value(times).unwrap()
}

async fn measure(browser: &Browser, label: &str) {
    const SAMPLES: usize = 60;
    let times = type_and_time(browser, SAMPLES).await;
    // The first keys warm the step's code and the caches.
    let (shown, shown_p95) = median_and_p95(times[10..].iter().map(|time| time[0]).collect());
    let (settled, settled_p95) = median_and_p95(times[10..].iter().map(|time| time[1]).collect());
    println!(
        "keystroke → validated preview, {label}: median {shown:.2} ms, p95 {shown_p95:.2} ms \
         (every effect run: median {settled:.2} ms, p95 {settled_p95:.2} ms)"
    );
}

/// A ClusterConfig of `groups` managed node groups and `pools` NodePools (with their one
/// EC2NodeClass), as YAML to import.
fn sized(groups: usize, pools: usize) -> String {
    let mut yaml = String::from(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: eks-sized\n  region: us-east-2\n  version: \"1.35\"\nmanagedNodeGroups:\n",
    );
    for index in 0..groups {
        yaml.push_str(&format!(
            "  - name: group-{index}\n    instanceType: p5.48xlarge\n    minSize: 0\n    desiredCapacity: 0\n    maxSize: 2\n    privateNetworking: true\n    labels: {{team: research}}\n"
        ));
    }
    for index in 0..pools {
        yaml.push_str(&format!(
            "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: pool-{index}\nspec:\n  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}}\n      requirements:\n        - {{key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}}\n        - {{key: node.kubernetes.io/instance-type, operator: In, values: [g5.12xlarge, g6.12xlarge]}}\n  limits:\n    cpu: \"1000\"\n"
        ));
    }
    yaml.push_str("---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: gpu\nspec:\n  role: KarpenterNodeRole-eks-sized\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: eks-sized}}]\n  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: eks-sized}}]\n");
    yaml
}

#[tokio::test]
async fn keystroke_to_validated_preview_latency() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.go_to_step(2).await;
    measure(&browser, "first-visit template").await;
    // The keystrokes left the name as it was (a letter, then Backspace), so the page
    // replaces the design without asking.
    browser.choose_template("karpenter-spot-inference").await;
    browser.go_to_step(2).await;
    measure(&browser, "largest seed template (karpenter-spot-inference)").await;

    // n node groups and n/4 NodePools, imported as a user imports them, for n = 16, 32,
    // 64 (the budgeted case) and the most the page accepts.
    for groups in [16, 32, 64, MOST_NODE_GROUPS] {
        let yaml = sized(groups, groups / 4);
        browser.go_to_step(1).await;
        browser.wait_for_element("import-text").await;
        browser
            .eval(
                "const area = document.getElementById('import-text'); area.value = arguments[0]; area.dispatchEvent(new Event('input', { bubbles: true })); document.getElementById('import-button').click();",
                vec![yaml.into()],
            )
            .await;
        // The page asks before an import replaces a design that is not a template.
        let last = format!("name: group-{}\n", groups - 1);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let state = browser
                .eval(
                    "const yes = document.getElementById('replace-yes'); if (yes) { yes.click(); } return document.getElementById('preview-cluster-yaml').textContent.includes(arguments[0]);",
                    vec![last.clone().into()],
                )
                .await;
            if state.as_bool() == Some(true) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the sized design was never imported"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        browser.go_to_step(2).await;
        measure(
            &browser,
            &format!("{groups} node groups and {} NodePools", groups / 4),
        )
        .await;
    }
    import_beyond_what_eks_runs(&browser).await;
    browser.close().await;
}

/// A 3 MB ClusterConfig of 12,000 managed node groups pasted into the import box: the
/// time from the click on Import to the page saying it is refused, then a keystroke in the
/// design it kept.
async fn import_beyond_what_eks_runs(browser: &Browser) {
    let mut huge = String::from(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: huge\n  region: us-east-1\n  version: \"1.35\"\nmanagedNodeGroups:\n",
    );
    let mut index = 0;
    while index < 12_000 || huge.len() < 3_000_000 {
        huge.push_str(&format!(
            "  - name: training-group-{index:05}\n    instanceType: p5.48xlarge\n    minSize: 0\n    desiredCapacity: 0\n    maxSize: 4\n    labels: {{team: research, run: pretraining-{index:05}}}\n    privateNetworking: true\n    volumeSize: 500\n"
        ));
        index += 1;
    }
    let megabytes = huge.len() as f64 / 1e6;
    browser.go_to_step(1).await;
    browser.wait_for_element("import-text").await;
    let answer = browser
        .client
        .execute_async(
            r#"
const [text, done] = [arguments[0], arguments[arguments.length - 1]];
const area = document.getElementById('import-text');
area.value = text;
area.dispatchEvent(new Event('input', { bubbles: true }));
const result = document.getElementById('import-result');
const started = performance.now();
new MutationObserver((_, observer) => {
  if (result.textContent.trim()) { observer.disconnect(); done([performance.now() - started, result.textContent]); }
}).observe(result, { childList: true, subtree: true, characterData: true });
document.getElementById('import-button').click();
"#,
            vec![huge.into()],
        )
        .await
        .unwrap();
    let (took, said): (f64, String) = serde_json::from_value(answer).unwrap();
    assert!(
        said.contains("Not imported"),
        "the import was not refused: {said}"
    );
    println!(
        "import of a {megabytes:.1} MB ClusterConfig with {index} node groups, click to refusal: {took:.0} ms"
    );
    browser.go_to_step(2).await;
    measure(
        browser,
        "after the refused 3 MB import, in the 300-group design it kept",
    )
    .await;
}
