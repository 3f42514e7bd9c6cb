//! The shapes the peers check a string against before anything else: an ARN (`arn.Parse`),
//! a CIDR (Go's `net.ParseCIDR`), Kubernetes' qualified names and label values, and what
//! eksctl refuses in a node label or a taint.

/// AWS's ARN shape as `arn.Parse` checks it: `arn:partition:service:region:account:resource`.
pub(super) fn is_arn(text: &str) -> bool {
    let parts: Vec<&str> = text.splitn(6, ':').collect();
    parts.len() == 6 && parts[0] == "arn"
}

/// Go's `net.ParseCIDR`: an IPv4 or IPv6 address, `/`, a prefix length that fits it.
pub(super) fn is_cidr(text: &str) -> bool {
    let Some((address, prefix)) = text.split_once('/') else {
        return false;
    };
    let Ok(prefix) = prefix.parse::<u8>() else {
        return false;
    };
    if prefix.to_string().len() != text.len() - address.len() - 1 {
        return false;
    }
    match address.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(_)) => prefix <= 32,
        Ok(std::net::IpAddr::V6(_)) => prefix <= 128,
        Err(_) => false,
    }
}

/// Kubernetes' `IsQualifiedName`: `[prefix/]name`, the prefix a DNS subdomain of at most 253
/// characters, the name 1-63 characters of alphanumerics, `-`, `_`, `.`, starting and
/// ending alphanumeric.
pub(crate) fn qualified_name_problem(key: &str) -> Option<String> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            return Some("the prefix before `/` is empty".into());
        }
        if prefix.len() > 253 || !is_dns_subdomain(prefix) {
            return Some(format!(
                "the prefix `{prefix}` is not a lowercase DNS subdomain"
            ));
        }
    }
    if name.is_empty() {
        return Some("the name part is empty".into());
    }
    if name.len() > 63 {
        return Some(format!(
            "the name part has {} characters, at most 63 allowed",
            name.len()
        ));
    }
    if !is_label_text(name) {
        return Some(format!(
            "`{name}` must be letters, digits, `-`, `_` or `.`, starting and ending with a letter or digit"
        ));
    }
    None
}

/// Kubernetes' `IsValidLabelValue`: empty, or 1-63 characters as a label name.
pub(crate) fn label_value_problem(value: &str) -> Option<String> {
    if value.is_empty() {
        return None;
    }
    if value.len() > 63 {
        return Some(format!(
            "the value has {} characters, at most 63 allowed",
            value.len()
        ));
    }
    (!is_label_text(value)).then(|| {
        format!("`{value}` must be letters, digits, `-`, `_` or `.`, starting and ending with a letter or digit")
    })
}

pub(super) fn is_label_text(text: &str) -> bool {
    let bytes = text.as_bytes();
    let inner = |byte: &u8| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.');
    !bytes.is_empty()
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
        && bytes.iter().all(inner)
}

pub(super) fn is_dns_subdomain(text: &str) -> bool {
    text.split('.').all(|label| {
        let bytes = label.as_bytes();
        !bytes.is_empty()
            && bytes.len() <= 63
            && bytes[0].is_ascii_lowercase() | bytes[0].is_ascii_digit()
            && (bytes[bytes.len() - 1].is_ascii_lowercase()
                || bytes[bytes.len() - 1].is_ascii_digit())
            && bytes
                .iter()
                .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || *byte == b'-')
    })
}

/// Labels the kubelet sets itself, which eksctl lets a group set under the reserved prefixes
/// (k8s.io/kubelet `IsKubeletLabel`).
pub(super) fn is_kubelet_label(key: &str) -> bool {
    const LABELS: &[&str] = &[
        "kubernetes.io/hostname",
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/region",
        "failure-domain.beta.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/region",
        "beta.kubernetes.io/instance-type",
        "node.kubernetes.io/instance-type",
        "kubernetes.io/os",
        "kubernetes.io/arch",
        "beta.kubernetes.io/os",
        "beta.kubernetes.io/arch",
    ];
    if LABELS.contains(&key) {
        return true;
    }
    let namespace = key.split_once('/').map(|(prefix, _)| prefix).unwrap_or("");
    ["kubelet.kubernetes.io", "node.kubernetes.io"]
        .iter()
        .any(|allowed| namespace == *allowed || namespace.ends_with(&format!(".{allowed}")))
}

pub(super) fn is_reserved_label_namespace(namespace: &str) -> bool {
    ["kubernetes.io", "k8s.io"]
        .iter()
        .any(|domain| namespace == *domain || namespace.ends_with(&format!(".{domain}")))
}

/// What eksctl's `validateLabels` refuses about one node label, in a sentence.
pub(super) fn node_label_problem(key: &str, value: &str) -> Option<String> {
    if key.matches('/').count() > 1 {
        return Some(format!("node label key `{key}` can only use one `/`"));
    }
    if let Some(problem) = qualified_name_problem(key) {
        return Some(format!("label key `{key}` is invalid: {problem}"));
    }
    if let Some(problem) = label_value_problem(value) {
        return Some(format!("label `{key}` has an invalid value: {problem}"));
    }
    if let Some((namespace, _)) = key.split_once('/')
        && is_reserved_label_namespace(namespace)
        && !is_kubelet_label(key)
    {
        return Some(format!(
            "label `{key}` uses a reserved prefix (kubernetes.io/, k8s.io/) that eksctl refuses"
        ));
    }
    None
}

/// What Kubernetes' taint validation (through eksctl's `validateTaints`) refuses about a
/// taint's key and value, with the field it is about; the key's absence and the effect
/// are checked beside it.
pub(super) fn taint_syntax_problem(
    key: &str,
    value: Option<&str>,
) -> Option<(&'static str, String)> {
    if !key.is_empty()
        && let Some(problem) = qualified_name_problem(key)
    {
        return Some(("key", format!("taint key `{key}` is invalid: {problem}")));
    }
    if let Some(value) = value
        && let Some(problem) = label_value_problem(value)
    {
        return Some(("value", format!("taint value is invalid: {problem}")));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_names_and_values_follow_kubernetes() {
        assert_eq!(qualified_name_problem("example.com/gpu-type"), None);
        assert_eq!(qualified_name_problem("role"), None);
        assert!(qualified_name_problem("has space").is_some());
        assert!(qualified_name_problem("Example.com/x").is_some());
        assert!(qualified_name_problem("/x").is_some());
        assert!(qualified_name_problem(&"a".repeat(64)).is_some());
        assert_eq!(label_value_problem(""), None);
        assert_eq!(label_value_problem("a-b_c.d"), None);
        assert!(label_value_problem("-a").is_some());
        assert!(label_value_problem("/ no").is_some());
        assert!(is_kubelet_label("node.kubernetes.io/lifecycle"));
        assert!(is_kubelet_label("topology.kubernetes.io/zone"));
        assert!(!is_kubelet_label("node-role.kubernetes.io/worker"));
    }

    #[test]
    fn cidrs_are_read_as_go_reads_them() {
        assert!(is_cidr("10.0.0.0/16"));
        assert!(is_cidr("2600:1f14::/56"));
        assert!(!is_cidr("10.0.0.0"));
        assert!(!is_cidr("10.0.0.0/33"));
        assert!(!is_cidr("10.0.0/16"));
        assert!(!is_cidr("10.0.0.0/016x"));
    }
}
