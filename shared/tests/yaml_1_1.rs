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
    run_python(SCRIPT, texts, "PyYAML")
}

/// Runs `script` with the texts as JSON on its standard input; its JSON output.
fn run_python(script: &str, texts: &[String], reader: &str) -> Vec<serde_json::Value> {
    let mut child = Command::new(python())
        .args(["-c", script])
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
        "{reader} could not read the texts (is PyYAML installed for {}?)",
        python()
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The same texts as yaml_serde (YAML 1.2) reads them.
fn serde_yaml_read(texts: &[String]) -> Vec<serde_json::Value> {
    texts
        .iter()
        .map(|text| {
            let documents: Vec<serde_json::Value> = yaml_serde::Deserializer::from_str(text)
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
        for file in shared::deploy::bundle::bundle_files(&spec, &findings, &[]).unwrap() {
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
            if let Some(karpenter) =
                shared::documents::render::render_karpenter_yaml(&file.spec).unwrap()
            {
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

/// Texts as libyaml reads them (PyYAML's C loader: the parser go-yaml, and so eksctl and
/// kubectl, was ported from), as JSON.
fn libyaml_read(texts: &[String]) -> Vec<serde_json::Value> {
    const SCRIPT: &str = r#"
import json, sys, yaml
texts = json.load(sys.stdin)
json.dump([list(yaml.load_all(t, Loader=yaml.CSafeLoader)) for t in texts], sys.stdout)
"#;
    run_python(SCRIPT, texts, "PyYAML's C loader")
}

/// What go-yaml and libyaml accept, the studio reads to the same data: flow collections
/// whose lines sit left of their block (libyaml ignores indentation inside `[]` and `{}`),
/// merge keys, and the YAML 1.1 scalars PyYAML and go-yaml v2 resolve alike (not `1.5e3`,
/// a float to go-yaml and a string to PyYAML; the go-yaml table in yaml_source.rs has it).
#[test]
fn the_studio_reads_what_libyaml_reads() {
    let texts: Vec<String> = [
        "vpc:\n  publicAccessCIDRs: [\n\"1.2.3.4/32\",\n  \"10.0.0.0/8\"]\n",
        "spec:\n  template:\n    values: [\n  p5.48xlarge,\n p5e.48xlarge\n]\n",
        "tags: {a: b,\nc: d}\nnext: 1\n",
        "groups:\n  - name: a\n    taints: [{key: x,\n effect: NoSchedule}]\n",
        "script: |\n  if [ -f x ]; then\n    echo [\n  fi\nlist: [1,\n2]\n",
        "base: &base {a: 1, b: 2}\nuse:\n  <<: *base\n  b: 3\n",
        "flags: [yes, no, on, off, Yes, OFF, true]\nnumbers: [012, 0x1F, 1_000, -0b11, 1.5e+3, .5]\n",
        "quoted: ['yes', \"012\", '2012-10-17']\n",
    ]
    .map(str::to_owned)
    .to_vec();
    let expected = libyaml_read(&texts);
    for (text, expected) in texts.iter().zip(expected) {
        let ours: Vec<serde_json::Value> = shared::yaml::source::parse_documents(text)
            .unwrap_or_else(|error| panic!("{error} in\n{text}"))
            .into_iter()
            .map(|document| serde_json::to_value(document.to_value()).unwrap())
            .collect();
        assert_eq!(serde_json::Value::Array(ours), expected, "for\n{text}");
    }
    // Positions stay where the text has them, on re-indented lines too.
    let documents = shared::yaml::source::parse_documents(&texts[0]).unwrap();
    let path = "vpc.publicAccessCIDRs[0]".parse().unwrap();
    assert_eq!(documents[0].position(&path).to_string(), "3:1");
    // A real indentation error in block context is still one.
    assert!(shared::yaml::source::parse_documents("a:\n  b: 1\n c: 2\n").is_err());
}

/// Every string the studio writes reads back as that string under the studio's own reader,
/// which resolves plain scalars as go-yaml v2 does: the writer quotes exactly what needs it.
#[test]
fn strings_written_read_back_as_strings_under_go_yaml_rules() {
    let mut scalars: Vec<String> = [
        "hi",
        "true",
        "10",
        "0b10",
        "0xA",
        "0.1",
        ".1",
        "-10",
        "-.1",
        "6.8523e+5",
        "685.230_15e+03",
        "685_230.15",
        "y",
        "Y",
        "n",
        "NO",
        "True",
        "on",
        "Off",
        "+685_230",
        "02472256",
        "0x_0A_74_AE",
        "0b1010_0111",
        "-0b101010",
        "2015-01-01",
        "-b_c",
        "+b_c",
        "",
        "~",
        "null",
        "yes",
        "012",
        "08",
        "0o17",
        "1_000",
        "18446744073709551616",
        "1e3",
        "1.",
        "1.30",
        "0x",
        "12:30",
        "2012-10-17",
        "2012-10-17T10:00:00Z",
        "p5.48xlarge",
        "inf",
        ".inf",
        "-.Inf",
        ".NaN",
        "t",
        "+",
        ".",
        "<<",
        "1.5e3",
        "0e0",
        "+.5",
        "-0",
        "0_0",
        "1__2",
        "_1",
        "1_",
    ]
    .map(str::to_owned)
    .to_vec();
    for prefix in ["", "+", "-", "0", "0x", "0b", "0o", "."] {
        for body in ["1", "1_0", "e1", "1e", "1.5", "_", "9"] {
            scalars.push(format!("{prefix}{body}"));
        }
    }
    for scalar in &scalars {
        let text = shared::yaml::text::to_string(&serde_json::json!({ "v": scalar })).unwrap();
        let documents = shared::yaml::source::parse_documents(&text).unwrap();
        assert_eq!(
            documents[0].to_value()["v"].as_str(),
            Some(scalar.as_str()),
            "`{scalar}` was written as {text:?}"
        );
    }
}
