//! What a first and a repeat visit cost, as Chromium counts it: bytes on the wire (the
//! `encodedDataLength` of every response: headers and the body as sent, compressed or
//! not) and the time from navigation to the preview showing `apiVersion:
//! eksctl.io/v1alpha5`, with a cold cache, over throttled links (DevTools network
//! emulation). A measurement that prints figures, run by `cargo xtask bench --only
//! visit` with the same variables the end-to-end step sets.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use studio_e2e::{Browser, Studio};

/// Records, in the page, when the preview first shows the ClusterConfig's apiVersion
/// (milliseconds since navigation started), and the first contentful paint.
const WATCH_PREVIEW: &str = r#"
(() => {
  const shown = () => {
    const preview = document.getElementById('preview-cluster-yaml');
    return preview && preview.textContent.includes('apiVersion: eksctl.io/v1alpha5');
  };
  const observer = new MutationObserver(() => {
    if (shown()) {
      observer.disconnect();
      window.__previewShownAt = performance.now();
    }
  });
  document.addEventListener('DOMContentLoaded', () => {
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
  });
})();
"#;

/// A link to throttle the page's requests to.
struct Link {
    name: &'static str,
    latency_ms: u32,
    down_bits_per_second: u32,
    up_bits_per_second: u32,
}

const LINKS: [Link; 2] = [
    Link {
        name: "150 ms / 1.6 Mbit/s",
        latency_ms: 150,
        down_bits_per_second: 1_600_000,
        up_bits_per_second: 750_000,
    },
    Link {
        name: "40 ms / 10 Mbit/s",
        latency_ms: 40,
        down_bits_per_second: 10_000_000,
        up_bits_per_second: 5_000_000,
    },
];

/// Runs per link; the fastest is reported, as the network is the thing measured.
const RUNS: usize = 3;

/// One visit: bytes per URL on the wire, and when the preview and the first paint showed.
struct Visit {
    bytes: BTreeMap<String, u64>,
    preview_ms: f64,
    first_paint_ms: f64,
}

impl Visit {
    fn total(&self) -> u64 {
        self.bytes.values().sum()
    }
}

/// The file part of a URL, for the breakdown.
fn short(url: &str) -> String {
    let path = url.splitn(4, '/').nth(3).unwrap_or(url);
    format!("/{path}")
}

async fn visit(browser: &Browser, url: &str) -> Visit {
    // Events of what came before are not this visit's.
    browser.network_events().await;
    browser.client.goto(url).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    let preview_ms = loop {
        let shown = browser
            .eval("return window.__previewShownAt || null;", vec![])
            .await;
        if let Some(at) = shown.as_f64() {
            break at;
        }
        assert!(
            Instant::now() < deadline,
            "the preview never showed apiVersion: eksctl.io/v1alpha5"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let first_paint_ms = browser
        .eval(
            "const paint = performance.getEntriesByName('first-contentful-paint')[0]; return paint ? paint.startTime : null;",
            vec![],
        )
        .await
        .as_f64()
        .unwrap_or(f64::NAN);
    // Requests the page makes once it runs (the server's health, say) count too.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut urls = BTreeMap::new();
    let mut bytes = BTreeMap::new();
    for event in browser.network_events().await {
        let params = &event["params"];
        let request = params["requestId"].as_str().unwrap_or_default().to_owned();
        match event["method"].as_str().unwrap_or_default() {
            "Network.requestWillBeSent" => {
                urls.insert(
                    request,
                    short(params["request"]["url"].as_str().unwrap_or("?")),
                );
            }
            "Network.loadingFinished" => {
                let url = urls.get(&request).cloned().unwrap_or(request);
                *bytes.entry(url).or_insert(0) +=
                    params["encodedDataLength"].as_f64().unwrap_or(0.0) as u64;
            }
            "Network.loadingFailed" => {
                panic!("a request failed during the visit: {params}");
            }
            _ => {}
        }
    }
    Visit {
        bytes,
        preview_ms,
        first_paint_ms,
    }
}

async fn throttled_browser(link: Option<&Link>) -> Browser {
    let browser = Browser::start_with_network_log().await;
    browser.cdp("Network.enable", serde_json::json!({})).await;
    browser
        .cdp("Network.clearBrowserCache", serde_json::json!({}))
        .await;
    if let Some(link) = link {
        browser
            .cdp(
                "Network.emulateNetworkConditions",
                serde_json::json!({
                    "offline": false,
                    "latency": link.latency_ms,
                    "downloadThroughput": link.down_bits_per_second / 8,
                    "uploadThroughput": link.up_bits_per_second / 8,
                }),
            )
            .await;
    }
    browser
        .cdp(
            "Page.addScriptToEvaluateOnNewDocument",
            serde_json::json!({ "source": WATCH_PREVIEW }),
        )
        .await;
    browser
}

fn kib(bytes: u64) -> f64 {
    bytes as f64 / 1024.0
}

#[tokio::test]
async fn first_and_repeat_visit() {
    let studio = Studio::start();

    // Bytes: unthrottled, a fresh profile, then the same profile again.
    let browser = throttled_browser(None).await;
    let first = visit(&browser, &studio.base_url).await;
    let repeat = visit(&browser, &studio.base_url).await;
    browser.close().await;
    let breakdown = |visit: &Visit| {
        visit
            .bytes
            .iter()
            .map(|(url, bytes)| format!("{url} {bytes}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "visit, first visit on the wire: {:.1} KiB ({} bytes: {})",
        kib(first.total()),
        first.total(),
        breakdown(&first)
    );
    println!(
        "visit, repeat visit on the wire: {:.1} KiB ({} bytes: {})",
        kib(repeat.total()),
        repeat.total(),
        breakdown(&repeat)
    );
    assert!(
        first.bytes.keys().any(|url| url.ends_with("_bg.wasm")),
        "the first visit loaded no wasm: {}",
        breakdown(&first)
    );

    for link in &LINKS {
        let mut previews = Vec::new();
        let mut paints = Vec::new();
        for _ in 0..RUNS {
            let browser = throttled_browser(Some(link)).await;
            let visit = visit(&browser, &studio.base_url).await;
            browser.close().await;
            previews.push(visit.preview_ms);
            paints.push(visit.first_paint_ms);
        }
        let fastest = previews.iter().copied().fold(f64::INFINITY, f64::min);
        let first_paint = paints.iter().copied().fold(f64::INFINITY, f64::min);
        let runs = previews
            .iter()
            .map(|ms| format!("{:.2}", ms / 1000.0))
            .collect::<Vec<_>>()
            .join(", ");
        println!(
            "visit, first visit at {} to the preview: {:.2} s (fastest of {runs} s; first paint {:.2} s)",
            link.name,
            fastest / 1000.0,
            first_paint / 1000.0
        );
    }
}
