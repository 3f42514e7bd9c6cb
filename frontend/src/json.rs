//! How the page reads JSON: drafts, share links and the server's answers.
//!
//! YAML 1.2 is a superset of JSON and the page reads YAML anyway (imports), so it reads
//! JSON with the same reader: [`shared::yaml_source`] and serde_yaml's `Value`. Reading
//! it with serde_json as well would put a second copy of every type's reading code in the
//! page, the spec's above all: about 30 KiB more to load.

use serde::de::DeserializeOwned;

/// Reads one JSON value (any YAML text holding one document) as a `T`.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let mut documents =
        shared::yaml_source::parse_documents(text).map_err(|error| error.to_string())?;
    let document = match documents.len() {
        1 => documents.remove(0),
        0 => return Err("no value: the text is empty".to_owned()),
        count => return Err(format!("{count} documents where one value was expected")),
    };
    serde_yaml::from_value(document.value).map_err(|error| error.to_string())
}
