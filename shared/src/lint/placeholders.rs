//! The placeholders a design still holds (`PLACEHOLDER_AZ_1`, the example reservation id),
//! as one checklist: each token once, with every field that holds it, so filling it in
//! once fills every use. A token is one value: the same zone placeholder in the network and
//! in a node group's placement is the same zone.

use serde::Serialize;

use crate::model::ids::EXAMPLE_RESERVATION_ID;
use crate::model::spec::Spec;

const PREFIX: &str = "PLACEHOLDER_";

/// One placeholder token and where the design uses it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Placeholder {
    /// The token, e.g. `PLACEHOLDER_AZ_1`.
    pub token: String,
    /// What to fill in, in words: "AWS region", "Availability zone 1".
    pub label: String,
    /// The spec paths of every string that holds it, in the spec's order.
    pub paths: Vec<String>,
}

/// The tokens inside one string: each `PLACEHOLDER_…` run of capitals, digits and `_`,
/// or the whole string when it is the example reservation id.
fn tokens(text: &str) -> Vec<&str> {
    if text == EXAMPLE_RESERVATION_ID {
        return vec![text];
    }
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(PREFIX) {
        let after = &rest[start..];
        let end = after
            .char_indices()
            .find(|(_, character)| {
                !(character.is_ascii_uppercase() || character.is_ascii_digit() || *character == '_')
            })
            .map_or(after.len(), |(index, _)| index);
        let token = after[..end].trim_end_matches('_');
        if token.len() > PREFIX.len() {
            found.push(token);
        }
        rest = &after[end.max(PREFIX.len())..];
    }
    found
}

/// What a token asks for, in words.
pub fn label(token: &str) -> String {
    if token == EXAMPLE_RESERVATION_ID {
        return "Capacity reservation ID".to_owned();
    }
    let name = token.strip_prefix(PREFIX).unwrap_or(token);
    let numbered = |stem: &str| {
        name.strip_prefix(stem)
            .and_then(|rest| rest.strip_prefix('_'))
            .filter(|number| number.chars().all(|character| character.is_ascii_digit()))
    };
    if let Some(number) = numbered("AZ") {
        return format!("Availability zone {number}");
    }
    if let Some(number) = numbered("SUBNET_PRIVATE") {
        return format!("Private subnet {number} ID");
    }
    if let Some(number) = numbered("SUBNET_PUBLIC") {
        return format!("Public subnet {number} ID");
    }
    match name {
        "AWS_REGION" => "AWS region".to_owned(),
        "VPC_ID" => "VPC ID".to_owned(),
        "CAPACITY_RESERVATION_ID" | "RESERVATION" => "Capacity reservation ID".to_owned(),
        "ACCOUNT_ID" => "AWS account ID".to_owned(),
        "S3_POLICY_ARN" => "S3 bucket policy ARN".to_owned(),
        "S3_BUCKET" => "S3 bucket name".to_owned(),
        "FSX_SUBNET_ID" => "FSx subnet ID".to_owned(),
        "FSX_SECURITY_GROUP_ID" => "FSx security group ID".to_owned(),
        "AMI_ID" => "AMI ID".to_owned(),
        "NODE_SECURITY_GROUP_ID" => "Node security group ID".to_owned(),
        other => {
            let words = other.replace('_', " ").to_lowercase();
            let mut characters = words.chars();
            characters.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(characters).collect()
            })
        }
    }
}

/// Every placeholder token of `spec`, in the order the spec first holds each.
pub fn list(spec: &Spec) -> Vec<Placeholder> {
    let mut found: Vec<Placeholder> = Vec::new();
    crate::rules::strings::each_string(spec, &mut |path, text| {
        for token in tokens(text) {
            let path = path.render();
            match found.iter_mut().find(|known| known.token == token) {
                Some(known) => {
                    if !known.paths.contains(&path) {
                        known.paths.push(path);
                    }
                }
                None => found.push(Placeholder {
                    token: token.to_owned(),
                    label: label(token),
                    paths: vec![path],
                }),
            }
        }
    });
    found
}

/// `spec` with every use of `token` replaced by `value` (trimmed); the spec unchanged when
/// the value is empty or would make it unreadable. The spec goes through its JSON text and
/// the YAML reader, the two ways the page already reads and writes it, so filling in adds
/// no second copy of the spec's serde code to the page.
pub fn fill(spec: &Spec, token: &str, value: &str) -> Spec {
    let value = value.trim();
    if value.is_empty() || token.is_empty() {
        return spec.clone();
    }
    let Ok(mut documents) = crate::yaml::source::parse_documents(&spec.to_json()) else {
        return spec.clone();
    };
    let Some(document) = documents.pop() else {
        return spec.clone();
    };
    let mut document = document.to_value();
    replace_in(&mut document, token, value);
    yaml_serde::from_value(document).unwrap_or_else(|_| spec.clone())
}

/// The text with `token` replaced, when the text holds it.
fn replaced(text: &str, token: &str, value: &str) -> Option<String> {
    if token == EXAMPLE_RESERVATION_ID {
        (text == token).then(|| value.to_owned())
    } else {
        tokens(text)
            .contains(&token)
            .then(|| replace_token(text, token, value))
    }
}

fn replace_in(yaml: &mut yaml_serde::Value, token: &str, value: &str) {
    use yaml_serde::Value;
    match yaml {
        Value::String(text) => {
            if let Some(new) = replaced(text, token, value) {
                *text = new;
            }
        }
        Value::Sequence(items) => items
            .iter_mut()
            .for_each(|item| replace_in(item, token, value)),
        Value::Mapping(fields) => {
            // Map keys (labels, tags) may hold a token too.
            let keys: Vec<(Value, String)> = fields
                .keys()
                .filter_map(|key| {
                    let text = key.as_str()?;
                    Some((key.clone(), replaced(text, token, value)?))
                })
                .collect();
            for (key, new) in keys {
                if let Some(moved) = fields.remove(&key) {
                    fields.insert(Value::String(new), moved);
                }
            }
            fields
                .iter_mut()
                .for_each(|(_, field)| replace_in(field, token, value));
        }
        Value::Tagged(tagged) => replace_in(&mut tagged.value, token, value),
        _ => {}
    }
}

/// `text` with each whole occurrence of `token` replaced (`PLACEHOLDER_AZ_1` is not
/// replaced inside `PLACEHOLDER_AZ_12`).
fn replace_token(text: &str, token: &str, value: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(token) {
        let end = start + token.len();
        let continues = rest[end..]
            .chars()
            .next()
            .is_some_and(|next| next.is_ascii_uppercase() || next.is_ascii_digit() || next == '_');
        out.push_str(&rest[..start]);
        out.push_str(if continues { token } else { value });
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}
