//! A file through `eks-studio lint`: eksctl / Karpenter YAML or a `studio.json`, every
//! finding placed at a line and column of the file.
//!
//! Nothing may panic, and every position must point into the text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shared::lint;

fn last_line(text: &str) -> usize {
    text.chars()
        .filter(|char| matches!(char, '\n' | '\r'))
        .count()
        + 1
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The format is detected from the content: JSON when it starts with `{`.
    let (line, column, message) = match lint::lint_text("input", text) {
        Ok(findings) => {
            for finding in &findings {
                assert!(
                    finding.line >= 1 && finding.column >= 1 && finding.line <= last_line(text),
                    "finding {finding:?} is outside the text"
                );
            }
            return;
        }
        Err(failure) => (failure.line, failure.column, failure.message),
    };
    assert!(
        line >= 1 && column >= 1 && line <= last_line(text),
        "failure at {line}:{column} is outside the text: {message}"
    );
});
