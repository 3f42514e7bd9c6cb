//! The peers as the oracle: cases transcribed from eksctl's and Karpenter's own validation
//! tests (`tests/data/peer-cases/`), each an object the real tool accepted or refused.
//! `eks-studio lint` must report an error for every refused one and none for an accepted one.

use std::path::Path;

use serde_json::Value as Json;
use shared::lint::lint_text;
use shared::rules::Severity;

/// RFC 7386 JSON merge patch: objects merge, `null` removes, anything else replaces.
fn merge(target: &mut Json, patch: &Json) {
    match (target, patch) {
        (Json::Object(target), Json::Object(patch)) => {
            for (key, value) in patch {
                if value.is_null() {
                    target.remove(key);
                } else {
                    merge(target.entry(key.clone()).or_insert(Json::Null), value);
                }
            }
        }
        (target, patch) => *target = patch.clone(),
    }
}

struct Outcome {
    mismatches: Vec<String>,
    refused: usize,
    accepted: usize,
}

fn run_table(file: &str) -> Outcome {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/peer-cases")
        .join(file);
    let table: Json = yaml_serde::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let bases = table["bases"].as_object().expect("bases");
    let mut outcome = Outcome {
        mismatches: Vec::new(),
        refused: 0,
        accepted: 0,
    };
    for case in table["cases"].as_array().expect("cases") {
        let name = case["test"].as_str().expect("test name");
        let mut document = bases[case["base"].as_str().expect("base")].clone();
        if let Some(patch) = case.get("patch") {
            merge(&mut document, patch);
        }
        // Written as the studio writes YAML, so YAML 1.1 readers read the values as typed.
        let text = shared::yaml::text::to_string(&document).unwrap();
        let findings = match lint_text("case.yaml", &text) {
            Ok(findings) => findings,
            Err(failure) => {
                // Could not be read at all: counts as refused (exit 2), never as accepted.
                if case["expect"] == "accepted" {
                    outcome.mismatches.push(format!(
                        "{name}: accepted upstream, unreadable here: {failure}"
                    ));
                }
                outcome.refused += 1;
                continue;
            }
        };
        let errors: Vec<String> = findings
            .iter()
            .filter(|finding| finding.severity == Severity::Error)
            .map(|finding| format!("{} at {}: {}", finding.rule, finding.path, finding.message))
            .collect();
        match case["expect"].as_str() {
            Some("refused") => {
                outcome.refused += 1;
                if errors.is_empty() {
                    outcome
                        .mismatches
                        .push(format!("{name}: refused upstream, no error here\n{text}"));
                }
            }
            Some("accepted") => {
                outcome.accepted += 1;
                if !errors.is_empty() {
                    outcome.mismatches.push(format!(
                        "{name}: accepted upstream, errors here: {errors:#?}\n{text}"
                    ));
                }
            }
            other => panic!("{name}: expect must be accepted or refused, not {other:?}"),
        }
    }
    outcome
}

/// Every case of the table agrees with the tool, and the table holds at least this many
/// cases of each kind.
fn assert_table_agrees(file: &str, least_refused: usize, least_accepted: usize) {
    let outcome = run_table(file);
    assert!(
        outcome.refused >= least_refused && outcome.accepted >= least_accepted,
        "{file}: {} refused and {} accepted cases",
        outcome.refused,
        outcome.accepted
    );
    assert!(
        outcome.mismatches.is_empty(),
        "{} of {} cases disagree:\n{}",
        outcome.mismatches.len(),
        outcome.refused + outcome.accepted,
        outcome.mismatches.join("\n")
    );
}

#[test]
fn karpenter_crd_validation_cases_agree_with_the_api_server() {
    assert_table_agrees("karpenter.yaml", 80, 40);
}

#[test]
fn eksctl_config_validation_cases_agree_with_eksctl() {
    assert_table_agrees("eksctl.yaml", 120, 45);
}

/// Real manifests the upstream projects publish: every error lint reports on them is in
/// `corpus/errors.golden`, each explained in `corpus/SOURCES.md` as a real refusal.
/// Regenerate with `UPDATE_EXPECT=1` after reviewing every new line.
#[test]
fn real_world_manifests_get_only_the_errors_explained_in_the_corpus() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/corpus");
    let mut lines = Vec::new();
    let mut files = 0;
    for folder in [
        "eksctl",
        "karpenter",
        "aws-do-eks",
        "karpenter-blueprints",
        "data-on-eks",
        "aws-samples",
    ] {
        let mut paths: Vec<_> = std::fs::read_dir(corpus.join(folder))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        paths.sort();
        for path in paths {
            files += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            let name = format!("{folder}/{}", path.file_name().unwrap().to_string_lossy());
            match lint_text(&name, &text) {
                Ok(findings) => lines.extend(
                    findings
                        .iter()
                        .filter(|finding| finding.severity == Severity::Error)
                        .map(|finding| format!("{name}:{}: {}", finding.line, finding.rule)),
                ),
                Err(failure) => lines.push(format!("{name}: unreadable: {failure}")),
            }
        }
    }
    assert!(files >= 144, "only {files} manifests");
    let found = lines.join("\n") + "\n";
    let golden = corpus.join("errors.golden");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&golden, &found).unwrap();
    }
    assert_eq!(std::fs::read_to_string(&golden).unwrap(), found);
}
