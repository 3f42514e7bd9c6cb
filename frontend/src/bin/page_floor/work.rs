//! Everything the studio page computes, without showing any of it: the JSON it reads
//! (drafts, share links, the server's answers), the rules with live facts, the three
//! rendered files and `studio.json`, import, the bundle's zip, the catalog search and
//! the templates. `cargo xtask bench --only page` builds it as the page is built, to
//! report how much of the page's weight is this work rather than its views.

use std::collections::BTreeMap;

use shared::Spec;
use shared::catalog::instances::CatalogFilter;
use shared::rules::LiveFacts;
use wasm_bindgen::prelude::*;

/// One of the page's computations, chosen by `what`, so that none is left out of the
/// build. `text` is a spec as JSON; `extra` is the other input the computation takes.
#[wasm_bindgen]
pub fn work(what: u32, text: &str, extra: &str) -> Vec<u8> {
    let spec: Spec = match frontend::json::from_str(text) {
        Ok(spec) => spec,
        Err(error) => return error.into_bytes(),
    };
    let facts: LiveFacts = frontend::json::from_str(extra).unwrap_or_default();
    let findings = shared::rules::validate_with(&spec, &facts);
    let text = match what {
        0 => shared::render_cluster_yaml(&spec).unwrap_or_default(),
        1 => shared::documents::render::render_karpenter_yaml(&spec)
            .ok()
            .flatten()
            .unwrap_or_default(),
        2 => shared::documents::render::render_karpenter_values(&spec)
            .ok()
            .flatten()
            .unwrap_or_default(),
        3 => spec.to_json(),
        4 => match shared::documents::import::import_text(extra, &spec) {
            Ok((imported, summary)) => imported.to_json() + &summary,
            Err(error) => error.to_string(),
        },
        5 => {
            return shared::deploy::bundle::bundle_files(&spec, &findings, &[])
                .map(|files| shared::deploy::bundle::zip_bundle(&files))
                .unwrap_or_default();
        }
        6 => {
            let filter = CatalogFilter {
                text: extra.to_owned(),
                ..CatalogFilter::default()
            };
            let names: Vec<&str> = shared::catalog::instances::search(&filter)
                .iter()
                .map(|instance_type| instance_type.name)
                .collect();
            names.join(",")
        }
        7 => shared::template(extra)
            .map(|template| template.spec().to_json())
            .unwrap_or_default(),
        8 => frontend::json::from_str::<serde_json::Value>(extra)
            .map(|value| value.to_string())
            .unwrap_or_default(),
        9 => {
            let drafts = BTreeMap::from([(extra.to_owned(), spec.to_json())]);
            serde_json::to_string(&drafts).unwrap_or_default()
        }
        _ => findings
            .iter()
            .map(|finding| format!("{} {} {}", finding.path, finding.message, finding.help))
            .collect::<Vec<_>>()
            .join("\n"),
    };
    text.into_bytes()
}
