//! The one-line forms the studio's list fields show and read: `key=value` for labels and
//! tags, `key=value:Effect` (or `key:Effect`) for taints. Reading keeps what was typed,
//! half-typed items included, so the rules, not the parser, say what is wrong. And any
//! text as it may be shown on one line: names read from a cluster or a file, escaped.

use std::borrow::Cow;
use std::collections::BTreeMap;

/// `key=value` per entry; `key` alone when the value is empty.
pub fn map_to_items<'a>(map: impl IntoIterator<Item = (&'a String, &'a String)>) -> Vec<String> {
    map.into_iter()
        .map(|(key, value)| {
            if value.is_empty() {
                key.clone()
            } else {
                format!("{key}={value}")
            }
        })
        .collect()
}

/// Entries from `key=value` items (split at the first `=`; no `=` gives an empty value).
/// A later item with the same key wins.
pub fn items_to_map<Map: Default + Extend<(String, String)>>(items: &[String]) -> Map {
    // Inserted one by one (as `extend` does) rather than collected: `collect` sorts a
    // vector first, a sort instantiated for this item type in the page for lists of a
    // few items.
    let mut map = Map::default();
    map.extend(items.iter().map(|item| {
        let (key, value) = item.split_once('=').unwrap_or((item.as_str(), ""));
        (key.trim().to_owned(), value.trim().to_owned())
    }));
    map
}

/// A taint as one item: `key=value:Effect`, or `key:Effect` without a value.
pub fn taint_to_item(key: &str, value: Option<&str>, effect: &str) -> String {
    match value {
        Some(value) => format!("{key}={value}:{effect}"),
        None => format!("{key}:{effect}"),
    }
}

/// Key, value and effect of a taint item; the effect is what follows the last `:`, and is
/// empty when there is none.
pub fn item_to_taint(item: &str) -> (String, Option<String>, String) {
    let (rest, effect) = item.rsplit_once(':').unwrap_or((item, ""));
    let (key, value) = match rest.split_once('=') {
        Some((key, value)) => (key, Some(value.trim().to_owned())),
        None => (rest, None),
    };
    (key.trim().to_owned(), value, effect.trim().to_owned())
}

/// `k=v` items of a limits map; numbers stay numbers.
pub fn limits_to_items(limits: &BTreeMap<String, yaml_serde::Value>) -> Vec<String> {
    limits
        .iter()
        .map(|(resource, quantity)| match quantity {
            yaml_serde::Value::String(text) => format!("{resource}={text}"),
            yaml_serde::Value::Number(number) => format!("{resource}={number}"),
            other => format!(
                "{resource}={}",
                yaml_serde::to_string(other).unwrap_or_default().trim()
            ),
        })
        .collect()
}

/// Limits from `k=v` items (of one resource given twice, the later wins); whole numbers
/// become numbers, anything else stays text.
pub fn items_to_limits(items: Vec<String>) -> BTreeMap<String, yaml_serde::Value> {
    let mut limits = BTreeMap::new();
    limits.extend(items.into_iter().map(|item| {
        let (resource, quantity) = item.split_once('=').unwrap_or((item.as_str(), ""));
        let quantity = quantity.trim();
        let value = match quantity.parse::<i64>() {
            Ok(number) => yaml_serde::Value::from(number),
            Err(_) => yaml_serde::Value::from(quantity),
        };
        (resource.trim().to_owned(), value)
    }));
    limits
}

/// Whether `char` changes how a screen shows the text around it, or shows nothing:
/// control characters (a line break, an escape sequence, a carriage return), line and
/// paragraph separators, zero-width characters and the bidirectional overrides that can
/// make a line read otherwise than it is.
fn hidden(char: char) -> bool {
    char.is_control()
        || matches!(
            char,
            '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{FEFF}'
        )
}

/// `text` as it may be shown (a plan, a terminal, the page): every [`hidden`] character
/// escaped (`\n`, `\u{202e}`), so a name read from a cluster can neither start a new
/// line of the plan nor hide or reorder what follows it.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|char| {
                if hidden(char) {
                    char.escape_default().to_string()
                } else {
                    char.to_string()
                }
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_read_back_as_written() {
        let items = vec![
            "team=ml".to_owned(),
            " tier = gpu ".to_owned(),
            "bare".to_owned(),
        ];
        let map: BTreeMap<String, String> = items_to_map(&items);
        assert_eq!(map["team"], "ml");
        assert_eq!(map["tier"], "gpu");
        assert_eq!(map["bare"], "");
        assert_eq!(map_to_items(&map), ["bare", "team=ml", "tier=gpu"]);
    }

    #[test]
    fn taints_with_and_without_values() {
        assert_eq!(
            item_to_taint("dedicated=training:NoSchedule"),
            (
                "dedicated".into(),
                Some("training".into()),
                "NoSchedule".into()
            )
        );
        assert_eq!(
            item_to_taint("example.com/spot:PreferNoSchedule"),
            ("example.com/spot".into(), None, "PreferNoSchedule".into())
        );
        // Half typed: no effect yet, which the taint rules then report.
        assert_eq!(
            item_to_taint("dedicated"),
            ("dedicated".into(), None, String::new())
        );
        assert_eq!(
            taint_to_item("dedicated", Some("training"), "NoSchedule"),
            "dedicated=training:NoSchedule"
        );
        assert_eq!(taint_to_item("a", None, "NoExecute"), "a:NoExecute");
    }
}
