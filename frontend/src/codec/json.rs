//! How the page reads JSON: drafts, share links and the server's answers.
//!
//! YAML 1.2 is a superset of JSON and the page reads YAML anyway (imports), so it reads
//! JSON with the same reader: [`shared::yaml::source`] and yaml_serde's `Value`. Reading
//! it with serde_json as well would put a second copy of every type's reading code in the
//! page, the spec's above all: about 30 KiB more to load.

use std::borrow::Cow;
use std::fmt::Write;

use serde::de::DeserializeOwned;

/// Reads one JSON value (any YAML text holding one document) as a `T`.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let mut documents = shared::yaml::source::parse_documents(&yaml_safe(text))
        .map_err(|error| error.to_string())?;
    let document = match documents.len() {
        1 => documents.remove(0),
        0 => return Err("no value: the text is empty".to_owned()),
        count => return Err(format!("{count} documents where one value was expected")),
    };
    yaml_serde::from_value(document.to_value()).map_err(|error| error.to_string())
}

/// Characters JSON writers leave as they are inside strings but YAML does not take as
/// text: control characters other than tab and line breaks (DEL, C1 controls, NEL) and
/// the byte-order mark. A tool's log line can hold them. Inside a JSON string each means
/// the same as its `\u` escape, and outside one JSON has no place for them, so they are
/// written as escapes before reading.
fn yaml_safe(text: &str) -> Cow<'_, str> {
    let unsafe_in_yaml = |character: char| {
        (character.is_control() && !matches!(character, '\t' | '\n' | '\r'))
            || character == '\u{feff}'
    };
    if !text.contains(unsafe_in_yaml) {
        return Cow::Borrowed(text);
    }
    let mut safe = String::with_capacity(text.len() + 16);
    for character in text.chars() {
        if unsafe_in_yaml(character) {
            let _ = write!(safe, "\\u{:04x}", u32::from(character));
        } else {
            safe.push(character);
        }
    }
    Cow::Owned(safe)
}
