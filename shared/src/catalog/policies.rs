//! The policies AWS manages in IAM (`arn:aws:iam::aws:policy/…`), from
//! `shared/data/aws-managed-policies.txt`, which cites its source and day. Built into the
//! command line and the server, which check documents as written; the page checks specs,
//! which hold no policy ARN, and loads less without it.

/// Where AWS's managed policies live in an ARN of the commercial partition.
pub const ARN_PREFIX: &str = "arn:aws:iam::aws:policy/";

/// Every AWS managed policy as the path and name after [`ARN_PREFIX`]
/// (`AmazonEKSWorkerNodePolicy`, `service-role/AmazonEBSCSIDriverPolicy`), sorted; `None`
/// where the list is not built in.
#[cfg(feature = "documents")]
pub fn aws_managed() -> Option<&'static [&'static str]> {
    use std::sync::OnceLock;
    static LIST: OnceLock<Vec<&'static str>> = OnceLock::new();
    Some(LIST.get_or_init(|| {
        include_str!("../../data/aws-managed-policies.txt")
            .lines()
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .collect()
    }))
}

/// Every AWS managed policy: not built into the page.
#[cfg(not(feature = "documents"))]
pub fn aws_managed() -> Option<&'static [&'static str]> {
    None
}

/// The name of a policy's path and name (`service-role/X` → `X`).
pub fn name_of(path_and_name: &str) -> &str {
    path_and_name.rsplit('/').next().unwrap_or(path_and_name)
}

#[cfg(all(test, feature = "documents"))]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_with_unique_names() {
        let list = aws_managed().unwrap();
        assert!(list.len() > 1500);
        assert!(list.windows(2).all(|pair| pair[0] < pair[1]));
        let mut names: Vec<&str> = list.iter().map(|entry| name_of(entry)).collect();
        names.sort_unstable();
        let count = names.len();
        names.dedup();
        // IAM names a policy uniquely in its account, whatever its path.
        assert_eq!(names.len(), count);
        assert!(list.binary_search(&"AmazonEKSWorkerNodePolicy").is_ok());
        assert!(
            list.binary_search(&"service-role/AmazonEBSCSIDriverPolicy")
                .is_ok()
        );
    }
}
