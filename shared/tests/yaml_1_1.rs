//! Every file the studio writes reads the same under a YAML 1.1 reader (eksctl and kubectl
//! read YAML through sigs.k8s.io/yaml, YAML 1.1 rules; PyYAML here) as under the YAML 1.2
//! reader the studio itself uses: every template's bundle, and every test manifest
//! imported and rendered again.

use std::io::Write;
use std::process::{Command, Stdio};

/// A Python with PyYAML: the EC2 emulator's environment (`cargo xtask test` sets
/// `EC2_EMULATOR_PYTHON`), else the machine's `python3`.
fn python() -> String {
    std::env::var("EC2_EMULATOR_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Every document of each text as PyYAML reads it, as JSON (dates as their ISO text, so a
/// date shows as something other than the string it was written as only if it was read
/// as a date).
fn pyyaml_read(texts: &[String]) -> Vec<serde_json::Value> {
    const SCRIPT: &str = r#"
import json, sys, yaml, datetime
texts = json.load(sys.stdin)
def plain(value):
    if isinstance(value, (datetime.date, datetime.datetime)):
        return {"__date__": value.isoformat()}
    if isinstance(value, dict):
        return {str(k) if not isinstance(k, str) else k: plain(v) for k, v in value.items()} if all(isinstance(k, str) for k in value) else {"__non_string_keys__": [repr(k) for k in value]}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value
json.dump([[plain(d) for d in yaml.safe_load_all(t)] for t in texts], sys.stdout)
"#;
    let mut child = Command::new(python())
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|error| {
            panic!("a Python with PyYAML is needed (set EC2_EMULATOR_PYTHON; `cargo xtask test` does): {error}")
        });
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(texts).unwrap().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "PyYAML could not read the texts (is PyYAML installed for {}?)",
        python()
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The same texts as serde_yaml (YAML 1.2) reads them.
fn serde_yaml_read(texts: &[String]) -> Vec<serde_json::Value> {
    texts
        .iter()
        .map(|text| {
            let documents: Vec<serde_json::Value> = serde_yaml::Deserializer::from_str(text)
                .map(|document| serde::Deserialize::deserialize(document).unwrap())
                .collect();
            serde_json::Value::from(documents)
        })
        .collect()
}

fn assert_same_under_both(named: &[(String, String)]) {
    let texts: Vec<String> = named.iter().map(|(_, text)| text.clone()).collect();
    let one_one = pyyaml_read(&texts);
    let one_two = serde_yaml_read(&texts);
    for (((name, text), old), new) in named.iter().zip(&one_one).zip(&one_two) {
        assert_eq!(old, new, "{name} reads differently under YAML 1.1:\n{text}");
    }
}

#[test]
fn every_templates_bundle_reads_the_same_under_yaml_1_1() {
    let mut named = Vec::new();
    for template in shared::TEMPLATES {
        let spec = template.spec();
        let findings = shared::rules::validate(&spec);
        for file in shared::bundle::bundle_files(&spec, &findings, &[]).unwrap() {
            if file.path.ends_with(".yaml") {
                named.push((format!("{}/{}", template.id, file.path), file.contents));
            }
        }
    }
    assert!(named.len() >= shared::TEMPLATES.len());
    assert_same_under_both(&named);
}

#[test]
fn converted_manifests_read_the_same_under_yaml_1_1() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut named = Vec::new();
    for folder in ["seeds", "manifests", "examples", "yaml-1-1"] {
        let mut paths: Vec<_> = std::fs::read_dir(data.join(folder))
            .unwrap()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| {
                path.extension()
                    .is_some_and(|extension| extension == "yaml")
            })
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            let Ok(file) = shared::lint::import_yaml(&text) else {
                continue;
            };
            let name = path.display().to_string();
            if file.cluster_document.is_some() {
                named.push((
                    name.clone(),
                    shared::render_cluster_yaml(&file.spec).unwrap(),
                ));
            }
            if let Some(karpenter) = shared::render::render_karpenter_yaml(&file.spec).unwrap() {
                named.push((name, karpenter));
            }
        }
    }
    assert!(
        named
            .iter()
            .any(|(name, _)| name.contains("ambiguous-values"))
    );
    assert_same_under_both(&named);
}

#[test]
fn the_ambiguous_values_survive_convert_as_strings() {
    let text = include_str!("data/yaml-1-1/ambiguous-values.yaml");
    let file = shared::lint::import_yaml(text).unwrap();
    let rendered = shared::render_cluster_yaml(&file.spec).unwrap();
    let read = &pyyaml_read(std::slice::from_ref(&rendered))[0][0];
    let labels = &read["managedNodeGroups"][0]["labels"];
    assert_eq!(labels["spot"], "off", "{rendered}");
    assert_eq!(labels["ready"], "yes");
    assert_eq!(labels["on"], "value of a key YAML 1.1 reads as true");
    assert_eq!(read["metadata"]["tags"]["review-on"], "2012-10-17");
    assert_eq!(read["metadata"]["tags"]["window"], "12:30:00");
    assert_eq!(read["metadata"]["tags"]["mode"], "0755");
    assert_eq!(read["managedNodeGroups"][0]["tags"]["rack"], "190:20:30");
}
