//! YAML text through the importer, both ways the studio reads it: the strict way of
//! `eks-studio convert` (`lint::import_yaml`: schemas enforced) and the lenient way of the
//! browser's import (`shared::documents::import::import_text`). Whatever is
//! imported is then checked and rendered into a bundle, as the studio does next.
//!
//! Nothing may panic, and every refusal must point into the text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shared::documents::import;
use shared::{Spec, lint, rules};

/// The last line a position may name: one past the last line break.
fn last_line(text: &str) -> usize {
    text.chars()
        .filter(|char| matches!(char, '\n' | '\r'))
        .count()
        + 1
}

fn assert_in_text(text: &str, line: usize, column: usize, message: &str) {
    assert!(
        line >= 1 && column >= 1 && line <= last_line(text),
        "position {line}:{column} is outside the text ({} lines): {message}",
        last_line(text)
    );
}

/// What the studio does with an imported design: check it, render every file, zip them.
fn check_and_render(spec: &Spec) {
    let findings = rules::validate(spec);
    if let Ok(files) = shared::deploy::bundle::bundle_files(spec, &findings, &[]) {
        shared::deploy::bundle::zip_bundle(&files);
    }
    if let Some(settings) = &spec.karpenter {
        let _ = shared::documents::render::karpenter_documents(settings);
    }
}

fn strict(text: &str) {
    match lint::import_yaml(text) {
        Ok(file) => check_and_render(&file.spec),
        Err(failures) => {
            assert!(!failures.is_empty(), "a refusal says why");
            for failure in failures {
                assert_in_text(text, failure.line, failure.column, &failure.message);
            }
        }
    }
}

fn lenient(text: &str) {
    match import::import_text(text, &Spec::default()) {
        Ok((spec, _summary)) => check_and_render(&spec),
        // Line 0 is a problem of the text as a whole (no document, two clusters).
        Err(error) if error.line == 0 => assert!(!error.message.is_empty()),
        Err(error) => assert_in_text(text, error.line, error.column, &error.message),
    }
}

/// No text of N bytes reads into more than a fixed multiple of N (aliases included).
fn within_byte_budget(text: &str) {
    if let Ok(documents) = shared::yaml::source::parse_documents(text) {
        let held: usize = documents
            .iter()
            .map(|document| shared::yaml::source::counted_bytes(&document.to_value()))
            .sum();
        let budget = shared::yaml::source::byte_budget(text.len());
        assert!(
            held <= budget,
            "{} bytes of text read into {held} bytes of values, over the budget of {budget}",
            text.len()
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    within_byte_budget(text);
    strict(text);
    lenient(text);
});
