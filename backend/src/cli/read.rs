//! What every command that reads a file shares: a capped read, a spec named by
//! `--template` or `--spec`, and text made safe for a terminal.

use std::path::Path;
use std::process::ExitCode;

use shared::lint::LintFailure;

/// The largest file `lint`, `convert`, `render --spec` and `check --spec` read unless
/// told otherwise with `--max-bytes`: far above any real manifest, far below harm (an
/// endless file such as `/dev/zero` stops here instead of filling the memory).
pub const DEFAULT_MAX_BYTES: u64 = 8 * 1024 * 1024;

/// Reads at most `max_bytes` of `path` as UTF-8 text, without the byte-order mark some
/// editors write at its start.
pub fn read_capped(path: &Path, max_bytes: u64) -> Result<String, LintFailure> {
    use std::io::Read;
    let cannot = |error: std::io::Error| LintFailure {
        line: 1,
        column: 1,
        message: format!("cannot read the file: {error}"),
    };
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > max_bytes {
        return Err(LintFailure {
            line: 1,
            column: 1,
            message: format!(
                "the file is larger than {max_bytes} bytes, the most read by default; give --max-bytes to read more"
            ),
        });
    }
    let mut text = String::from_utf8(bytes).map_err(|error| {
        let valid = &error.as_bytes()[..error.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|byte| **byte == b'\n').count() + 1;
        let column = valid
            .iter()
            .rev()
            .take_while(|byte| **byte != b'\n')
            .count()
            + 1;
        LintFailure {
            line,
            column,
            message: "the file is not UTF-8 text".into(),
        }
    })?;
    if text.starts_with('\u{FEFF}') {
        text.drain(..'\u{FEFF}'.len_utf8());
    }
    Ok(text)
}

/// `text` as it may be printed to a terminal: control characters (escape sequences, a
/// bell, carriage returns), invisible and bidirectional-override characters from names in
/// a file or from file names are shown escaped (`shared::changes::visible`).
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    shared::changes::visible(text)
}

/// [`terminal_safe`] line by line: the line breaks of a multi-line text stay.
pub fn terminal_safe_lines(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| match line.strip_suffix('\n') {
            Some(line) => format!("{}\n", terminal_safe(line)),
            None => terminal_safe(line).into_owned(),
        })
        .collect()
}

/// The design `--template ID` or `--spec FILE` names; the error is already printed.
pub fn design(
    template_id: Option<&str>,
    spec_path: Option<&Path>,
    max_bytes: u64,
) -> Result<shared::Spec, ExitCode> {
    match (template_id, spec_path) {
        (Some(id), _) => match shared::template(id) {
            Some(template) => Ok(template.spec()),
            None => {
                let known: Vec<&str> = shared::TEMPLATES
                    .iter()
                    .map(|template| template.id)
                    .collect();
                eprintln!(
                    "error: no template with id `{id}` (known: {})",
                    known.join(", ")
                );
                Err(ExitCode::from(2))
            }
        },
        (None, Some(path)) => {
            let text = match read_capped(path, max_bytes) {
                Ok(text) => text,
                Err(failure) => {
                    eprintln!("error: cannot read {}: {}", path.display(), failure.message);
                    return Err(ExitCode::from(2));
                }
            };
            match shared::Spec::from_json(&text) {
                Ok(spec) => Ok(spec),
                Err(error) => {
                    eprintln!(
                        "{}:{}:{}: error: {error}",
                        path.display(),
                        error.line(),
                        error.column()
                    );
                    Err(ExitCode::from(2))
                }
            }
        }
        (None, None) => unreachable!("clap requires --template or --spec"),
    }
}
