//! Every value a template's files hold is found again by the spec path of its field: a
//! finding about any field of any template lands on that field's line and column, not on
//! an ancestor's (`lint::file_path` would otherwise fall back without a word).

use shared::lint::{file_path, parse_yaml_file};

/// The spec path of every leaf value, in the spec paths' syntax (`a.b[2]`, `["k.e/y"]`).
fn leaves(value: &serde_json::Value, at: String, out: &mut Vec<(String, serde_json::Value)>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, inner) in map {
                let plain = key
                    .chars()
                    .all(|character| character.is_ascii_alphanumeric() || character == '_');
                let path = match (at.is_empty(), plain) {
                    (true, _) => key.clone(),
                    (false, true) => format!("{at}.{key}"),
                    (false, false) => format!("{at}[\"{key}\"]"),
                };
                leaves(inner, path, out);
            }
        }
        serde_json::Value::Array(items) => {
            for (index, inner) in items.iter().enumerate() {
                leaves(inner, format!("{at}[{index}]"), out);
            }
        }
        leaf => out.push((at, leaf.clone())),
    }
}

/// Spec fields that are written to another file than the ClusterConfig and NodePools.
const ELSEWHERE: &[&str] = &["karpenter.spot_to_spot_consolidation"];

#[test]
fn every_written_leaf_of_every_template_resolves_to_its_own_line() {
    let mut misses = Vec::new();
    for template in shared::TEMPLATES {
        let spec = template.spec();
        let mut text = shared::render_cluster_yaml(&spec).unwrap();
        if let Some(karpenter) = shared::documents::render::render_karpenter_yaml(&spec).unwrap() {
            text.push_str("---\n");
            text.push_str(&karpenter);
        }
        let file = parse_yaml_file(&text).unwrap();
        let json = serde_json::to_value(&file.spec).unwrap();
        let mut found = Vec::new();
        leaves(&json, String::new(), &mut found);
        for (path, value) in found {
            // `false` and empty values are eksctl's defaults: the renderer leaves them out.
            let written = !matches!(
                value,
                serde_json::Value::Bool(false) | serde_json::Value::Null
            );
            if !written || ELSEWHERE.contains(&path.as_str()) {
                continue;
            }
            let (document, yaml_path) = file_path(&file, &path);
            let location = file.documents[document].locate(&yaml_path);
            if yaml_path.segments().is_empty()
                || location.matched_segments != yaml_path.segments().len()
            {
                misses.push(format!("{}: {path} -> {yaml_path:?}", template.id));
            }
        }
    }
    assert!(
        misses.is_empty(),
        "{} leaves land elsewhere:\n{}",
        misses.len(),
        misses.join("\n")
    );
}
