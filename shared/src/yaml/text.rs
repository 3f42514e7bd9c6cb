//! YAML text that means the same to YAML 1.1 readers as to YAML 1.2 ones.
//!
//! eksctl and kubectl read YAML through sigs.k8s.io/yaml (go-yaml v2, YAML 1.1 rules);
//! nodeadm and PyYAML do too. yaml_serde writes YAML 1.2, where `yes`, `off`, `y`,
//! `2012-10-17`, `12:30:00` and `0755` are plain strings, so it leaves them unquoted, and
//! a YAML 1.1 reader then takes them for a boolean, a date, a sexagesimal or octal number.
//! [`to_string`] writes with yaml_serde and then quotes every plain scalar that YAML 1.1
//! would read as something other than the string it is.

use serde::Serialize;

/// `value` as YAML text whose every scalar reads the same under YAML 1.1 and 1.2.
///
/// Scalars are quoted only where yaml_serde left a string plain; a number or boolean it
/// wrote stays as it is (see `written_as_non_string`).
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, yaml_serde::Error> {
    yaml_serde::to_string(value).map(|text| quote_yaml_1_1_ambiguities(&text))
}

/// YAML 1.1's booleans (go-yaml v2 reads the one-letter forms too), nulls, and the merge
/// and value keys.
const YAML_1_1_WORDS: &[&str] = &[
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
    "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "~", "null", "Null", "NULL", "<<",
    "=",
];

fn all_digits(text: &str, allowed: impl Fn(u8) -> bool) -> bool {
    !text.is_empty() && text.bytes().all(allowed)
}

/// YAML 1.1 `int`: binary, octal (`0755`), decimal, hex and sexagesimal (`1:30`), with
/// optional sign and `_` separators.
fn is_yaml_1_1_int(text: &str) -> bool {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if let Some(binary) = unsigned.strip_prefix("0b") {
        return all_digits(binary, |byte| matches!(byte, b'0' | b'1' | b'_'));
    }
    if let Some(hex) = unsigned.strip_prefix("0x") {
        return all_digits(hex, |byte| byte.is_ascii_hexdigit() || byte == b'_');
    }
    if unsigned.contains(':') {
        return is_sexagesimal(unsigned);
    }
    all_digits(unsigned, |byte| byte.is_ascii_digit() || byte == b'_')
        && unsigned.as_bytes()[0].is_ascii_digit()
}

/// `[1-9][0-9_]*(:[0-5]?[0-9])+`, the base-60 form of YAML 1.1 (`190:20:30`).
fn is_sexagesimal(text: &str) -> bool {
    let mut parts = text.split(':');
    let first = parts.next().unwrap_or_default();
    let first_ok = first
        .as_bytes()
        .first()
        .is_some_and(|byte| (b'1'..=b'9').contains(byte))
        && all_digits(first, |byte| byte.is_ascii_digit() || byte == b'_');
    let mut rest = 0;
    let rest_ok = parts.all(|part| {
        rest += 1;
        (1..=2).contains(&part.len())
            && all_digits(part, |byte| byte.is_ascii_digit())
            && part.parse::<u32>().is_ok_and(|value| value < 60)
    });
    first_ok && rest > 0 && rest_ok
}

/// YAML 1.1 `float`: `1.5`, `.5`, `1.`, `1.5e+3`, `190:20:30.15`, `.inf`, `.nan`.
fn is_yaml_1_1_float(text: &str) -> bool {
    if matches!(text, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    if let Some((whole, fraction)) = unsigned.split_once('.')
        && whole.contains(':')
    {
        return is_sexagesimal(whole)
            && fraction
                .bytes()
                .all(|byte| byte.is_ascii_digit() || byte == b'_');
    }
    // go-yaml v2's float: `1.5`, `.5`, `1.`, `1.5e3`, `1e3` (PyYAML's is narrower).
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None if exponent.is_some() => (mantissa, None),
        None => return false,
    };
    let digit_or_separator = |byte: u8| byte.is_ascii_digit() || byte == b'_';
    let whole_ok = whole.is_empty()
        || (whole.as_bytes()[0].is_ascii_digit() && whole.bytes().all(digit_or_separator));
    let fraction_ok = fraction.is_none_or(|fraction| fraction.bytes().all(digit_or_separator));
    let digits = whole
        .bytes()
        .chain(fraction.unwrap_or_default().bytes())
        .any(|byte| byte.is_ascii_digit());
    let exponent_ok = exponent.is_none_or(|exponent| {
        all_digits(
            exponent.strip_prefix(['-', '+']).unwrap_or(exponent),
            |byte| byte.is_ascii_digit(),
        )
    });
    whole_ok && fraction_ok && digits && exponent_ok
}

/// YAML 1.1 `timestamp`: a date `2012-10-17` (month and day of one or two digits), alone
/// or followed by a time.
fn is_yaml_1_1_timestamp(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() < 8 || !bytes[..4].iter().all(u8::is_ascii_digit) || bytes[4] != b'-' {
        return false;
    }
    let mut rest = &text[5..];
    for (index, separator) in [Some('-'), None].into_iter().enumerate() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if !(1..=2).contains(&digits) {
            return false;
        }
        rest = &rest[digits..];
        if let Some(separator) = separator {
            match rest.strip_prefix(separator) {
                Some(after) => rest = after,
                None => return false,
            }
        } else if index == 1 && rest.is_empty() {
            return true;
        }
    }
    // A time follows: `T`, `t` or white space, then `H:MM`.
    rest.strip_prefix(['T', 't', ' ', '\t'])
        .map(str::trim_start)
        .is_some_and(|time| {
            let hours = time.bytes().take_while(u8::is_ascii_digit).count();
            (1..=2).contains(&hours) && time[hours..].starts_with(':')
        })
}

/// Whether a YAML 1.1 reader takes this plain scalar for something other than a string.
pub fn yaml_1_1_reads_as_non_string(scalar: &str) -> bool {
    // go-yaml v2's reading (eksctl, kubectl) is the studio's own reader's; the checks after
    // it add what the YAML 1.1 spec and PyYAML also take for numbers or dates.
    !matches!(
        crate::yaml::source::resolve_plain(scalar.to_owned()),
        yaml_serde::Value::String(_)
    ) || YAML_1_1_WORDS.contains(&scalar)
        || is_yaml_1_1_int(scalar)
        || is_yaml_1_1_float(scalar)
        || is_yaml_1_1_timestamp(scalar)
}

/// Whether a plain scalar in yaml_serde's output is a number, boolean or null that
/// yaml_serde wrote: only in its own spellings (`true`, `null`, `42`, `-0.5`, `1e-7`,
/// `.inf`). Any other plain scalar is a string, since yaml_serde quotes a string that
/// YAML 1.2 would read as anything else. (Deciding it by parsing the scalar again would
/// bring libyaml's parser into the page for this one question.)
fn written_as_non_string(scalar: &str) -> bool {
    if matches!(
        scalar,
        "true" | "false" | "null" | ".inf" | "-.inf" | ".nan"
    ) {
        return true;
    }
    let unsigned = scalar.strip_prefix('-').unwrap_or(scalar);
    let (mantissa, exponent) = match unsigned.split_once('e') {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (unsigned, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (mantissa, None),
    };
    let canonical_whole = whole == "0"
        || (whole
            .as_bytes()
            .first()
            .is_some_and(|byte| (b'1'..=b'9').contains(byte))
            && whole.bytes().all(|byte| byte.is_ascii_digit()));
    canonical_whole
        && fraction.is_none_or(|fraction| all_digits(fraction, |byte| byte.is_ascii_digit()))
        && exponent.is_none_or(|exponent| {
            all_digits(exponent.strip_prefix('-').unwrap_or(exponent), |byte| {
                byte.is_ascii_digit()
            })
        })
}

fn quoted(scalar: &str) -> String {
    format!("'{}'", scalar.replace('\'', "''"))
}

/// `token` quoted when YAML 1.1 and 1.2 would read it differently.
fn settled(token: &str) -> std::borrow::Cow<'_, str> {
    if yaml_1_1_reads_as_non_string(token) && !written_as_non_string(token) {
        std::borrow::Cow::Owned(quoted(token))
    } else {
        std::borrow::Cow::Borrowed(token)
    }
}

/// The length of the quoted scalar `text` starts with (`'…'` or `"…"`), if it does.
fn quoted_length(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    match bytes.first()? {
        b'\'' => {
            let mut index = 1;
            while index < bytes.len() {
                if bytes[index] == b'\'' {
                    if bytes.get(index + 1) == Some(&b'\'') {
                        index += 2;
                        continue;
                    }
                    return Some(index + 1);
                }
                index += 1;
            }
            None
        }
        b'"' => {
            let mut index = 1;
            while index < bytes.len() {
                match bytes[index] {
                    b'\\' => index += 2,
                    b'"' => return Some(index + 1),
                    _ => index += 1,
                }
            }
            None
        }
        _ => None,
    }
}

/// Quotes the YAML 1.1 ambiguities of block-style YAML as yaml_serde writes it: one
/// `key: value`, `key:` or `- item` per line (items may nest: `- - x`, `- key: value`),
/// and literal block scalars (`|`, `|-`, `|2-`) whose lines are left as they are.
pub fn quote_yaml_1_1_ambiguities(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    // The indentation of the line that opened a literal block scalar.
    let mut block_of: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let ending = &line[content.len()..];
        let indent = content.len() - content.trim_start_matches(' ').len();
        if let Some(opener) = block_of {
            if content.trim().is_empty() || indent > opener {
                out.push_str(line);
                continue;
            }
            block_of = None;
        }
        let mut rest = &content[indent..];
        out.push_str(&content[..indent]);
        while let Some(after) = rest.strip_prefix("- ") {
            out.push_str("- ");
            rest = after;
        }
        if rest == "---" || rest.starts_with("--- ") || rest == "-" || rest.is_empty() {
            out.push_str(rest);
            out.push_str(ending);
            continue;
        }
        // The key, when there is one: quoted, or plain up to the first `: ` (a plain key
        // cannot hold `: `; yaml_serde quotes such a key).
        let value = if let Some(length) = quoted_length(rest) {
            let after = &rest[length..];
            if after == ":" || after.starts_with(": ") {
                out.push_str(&rest[..length]);
                out.push(':');
                let value = after[1..].strip_prefix(' ');
                if value.is_some() {
                    out.push(' ');
                }
                value
            } else {
                out.push_str(rest);
                None
            }
        } else if let Some(key) = rest.strip_suffix(':') {
            out.push_str(&settled(key));
            out.push(':');
            None
        } else if let Some((key, value)) = rest.split_once(": ") {
            out.push_str(&settled(key));
            out.push_str(": ");
            Some(value)
        } else {
            Some(rest)
        };
        if let Some(value) = value {
            if value.starts_with('|') || value.starts_with('>') {
                block_of = Some(indent);
                out.push_str(value);
            } else if quoted_length(value).is_some() || value.starts_with(['!', '&', '*', '[', '{'])
            {
                out.push_str(value);
            } else {
                out.push_str(&settled(value));
            }
        }
        out.push_str(ending);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_1_1_non_strings_are_recognised() {
        for non_string in [
            "yes",
            "No",
            "OFF",
            "on",
            "y",
            "N",
            "~",
            "NULL",
            "<<",
            "=",
            "0755",
            "0b101",
            "0x1F",
            "1_000",
            "190:20:30",
            "+12",
            "1.5",
            ".5",
            "1.",
            "1.5e+3",
            ".inf",
            "-.INF",
            ".NaN",
            "190:20:30.15",
            "2012-10-17",
            "2001-12-14t21:59:43.10-05:00",
            "2001-12-14 21:59:43.10 -5",
            "2002-1-2",
            "1e5",
            "1E-3",
        ] {
            assert!(yaml_1_1_reads_as_non_string(non_string), "{non_string}");
        }
        for string in [
            "p5.48xlarge",
            "10.0.0.0/16",
            "us-east-1a",
            "yess",
            "onion",
            "1.2.3.4",
            "v1",
            "12:60",
            "0x",
            "2012-10",
            "abc-2012-10-17",
            "e5",
            "eks.amazonaws.com/nodegroup",
            "1.32-eks",
            "sg-0123",
        ] {
            assert!(!yaml_1_1_reads_as_non_string(string), "{string}");
        }
    }

    #[test]
    fn ambiguous_strings_are_quoted_and_nothing_else_changes() {
        let mut labels = std::collections::BTreeMap::new();
        for value in [
            "off",
            "yes",
            "y",
            "2012-10-17",
            "12:30:00",
            "0755",
            "plain",
            "1_000",
        ] {
            labels.insert(format!("k-{value}"), value.to_owned());
        }
        labels.insert("on".into(), "key too".into());
        let document = serde_json::json!({
            "labels": labels,
            "count": 3,
            "ratio": 0.5,
            "enabled": true,
            "list": ["no", "NO", 7, "seven", ["off"]],
            "items": [{ "name": "yes", "value": "null" }],
            "script": "line one\nyes\n0755\n",
            "quoted": "it's",
        });
        let text = to_string(&document).unwrap();
        for expected in [
            "k-off: 'off'",
            "k-yes: 'yes'",
            "k-y: 'y'",
            "k-2012-10-17: '2012-10-17'",
            "k-12:30:00: '12:30:00'",
            "k-0755: '0755'",
            "k-plain: plain",
            "k-1_000: '1_000'",
            "'on': key too",
            "count: 3",
            "ratio: 0.5",
            "enabled: true",
            "- 'no'",
            "- 'NO'",
            "- 7",
            "- seven",
            "- - 'off'",
            "- name: 'yes'",
            "  value: 'null'",
            "  yes\n",
        ] {
            assert!(text.contains(expected), "`{expected}` not in:\n{text}");
        }
        // Read back as YAML 1.2 it is the same document.
        let back: serde_json::Value = yaml_serde::from_str(&text).unwrap();
        assert_eq!(back, document);
    }
}
