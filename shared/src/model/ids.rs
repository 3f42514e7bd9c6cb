//! Once parsed, these values are known to be well formed, so rules and renderers take
//! them instead of re-checking strings. Parsing says plainly what is wrong.

use std::fmt;

/// Why a value did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdError {
    /// Nothing was entered.
    Empty,
    /// A `PLACEHOLDER_…` or example value is still there.
    Placeholder,
    /// The value has the wrong shape; the text says what shape is expected.
    Malformed(String),
}

impl fmt::Display for IdError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdError::Empty => write!(formatter, "is empty"),
            IdError::Placeholder => write!(formatter, "is still a placeholder"),
            IdError::Malformed(expected) => write!(formatter, "is not {expected}"),
        }
    }
}

/// Example reservation id used by the reference manifests.
pub const EXAMPLE_RESERVATION_ID: &str = "cr-xxxxxxxxxx";

/// Whether a value is a placeholder left in from a template or a tutorial: the seeds'
/// `PLACEHOLDER_…`, `cr-xxxxxxxxxx`, and in a one-word value a shell variable
/// (`${CLUSTER_NAME}`, `$CLUSTER_NAME`), `YOUR_…`, an ARN's account that is no account
/// (`ACCOUNT_ID`, `11111`), or a whole value in angle brackets (`<your cluster>`). Text with
/// spaces or lines (a boot script, user data) may use shell variables as they are meant:
/// only its `PLACEHOLDER_` counts there.
pub fn is_placeholder(value: &str) -> bool {
    let value = value.trim();
    if value.contains("PLACEHOLDER_") || value == EXAMPLE_RESERVATION_ID {
        return true;
    }
    if value.len() > 2 && value.starts_with('<') && value.ends_with('>') && !value.contains('\n') {
        return true;
    }
    if value.contains(char::is_whitespace) {
        return false;
    }
    if value
        .split([':', '/'])
        .any(|part| crossed_out(part, value.starts_with("arn:")))
        || not_an_account(value)
    {
        return true;
    }
    let bytes = value.as_bytes();
    let identifier = |start: usize, upper_only: bool| -> usize {
        bytes[start..]
            .iter()
            .take_while(|byte| {
                byte.is_ascii_uppercase()
                    || byte.is_ascii_digit()
                    || **byte == b'_'
                    || (!upper_only && byte.is_ascii_lowercase())
            })
            .count()
    };
    for (index, byte) in bytes.iter().enumerate() {
        match byte {
            b'$' if bytes.get(index + 1) == Some(&b'{') => {
                let length = identifier(index + 2, false);
                if length > 0 && bytes.get(index + 2 + length) == Some(&b'}') {
                    return true;
                }
            }
            b'$' if identifier(index + 1, true) >= 2 => return true,
            b'Y' if value[index..].starts_with("YOUR_")
                && bytes.get(index + 5).is_some_and(u8::is_ascii_uppercase) =>
            {
                return true;
            }
            _ => {}
        }
    }
    false
}

/// An AWS id or account number written with x's for its digits, as tutorials do:
/// `cr-xxxxxxxxxxxxxxxxx`, `subnet-xxxxxxxxxxxxxxx11`, and in an ARN `xxxxxxxxxxxx`. No
/// real id holds an `x`: their digits are hexadecimal, and account numbers decimal.
fn crossed_out(part: &str, in_arn: bool) -> bool {
    let digits = match part.split_once('-') {
        Some((kind, digits))
            if (1..=12).contains(&kind.len()) && kind.bytes().all(|b| b.is_ascii_lowercase()) =>
        {
            digits
        }
        _ if in_arn && part.len() == 12 => part,
        _ => return false,
    };
    let crossed = digits.bytes().filter(|b| matches!(b, b'x' | b'X')).count();
    crossed >= 4
        && digits
            .bytes()
            .all(|b| matches!(b, b'x' | b'X') || b.is_ascii_digit())
}

/// An ARN whose account is no account: written in words (`arn:aws:iam::ACCOUNT_ID:role/eks`,
/// `…::account-id:…`) or in too few or too many digits (`…::11111:policy/boundary`, as
/// eksctl's own example writes it). An account number is twelve digits, so nothing such
/// an ARN names exists; the one word an ARN's account holds is `aws`, for what AWS owns
/// (managed policies, EKS access policies), and some ARNs have none (S3's).
fn not_an_account(value: &str) -> bool {
    let fields: Vec<&str> = value.splitn(6, ':').collect();
    // arn, partition, service, region, account, resource: a shape AWS parses.
    let [arn, _, _, _, account, _] = fields[..] else {
        return false;
    };
    // A word or a number: a policy's wildcard (`*`) or variable (`${aws:…}`) is left alone.
    let word = !account.is_empty()
        && account
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-');
    let twelve_digits = account.len() == 12 && account.bytes().all(|byte| byte.is_ascii_digit());
    arn == "arn" && word && account != "aws" && !twelve_digits
}

fn is_hex_id(value: &str, prefix: &str) -> bool {
    value
        .strip_prefix(prefix)
        .filter(|hex| hex.len() == 8 || hex.len() == 17)
        .is_some_and(|hex| {
            hex.bytes()
                .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
        })
}

pub(crate) fn check_common(value: &str) -> Result<(), IdError> {
    if value.trim().is_empty() {
        Err(IdError::Empty)
    } else if is_placeholder(value) {
        Err(IdError::Placeholder)
    } else {
        Ok(())
    }
}

macro_rules! aws_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            /// Parses `prefix-` followed by 8 or 17 lowercase hex digits.
            pub fn parse(value: &str) -> Result<$name, IdError> {
                $name::check(value).map(|()| $name(value.to_owned()))
            }

            /// What [`Self::parse`] says of `value`, without keeping a copy of it.
            pub fn check(value: &str) -> Result<(), IdError> {
                check_common(value)?;
                if is_hex_id(value, $prefix) {
                    Ok(())
                } else {
                    Err(IdError::Malformed(format!(
                        "`{}` followed by 8 or 17 hex digits",
                        $prefix
                    )))
                }
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str(&self.0)
            }
        }
    };
}

aws_id!(
    /// A VPC id, `vpc-…`.
    VpcId,
    "vpc-"
);
aws_id!(
    /// A subnet id, `subnet-…`.
    SubnetId,
    "subnet-"
);
aws_id!(
    /// A capacity reservation id (ODCR or Capacity Block), `cr-…`.
    ReservationId,
    "cr-"
);
aws_id!(
    /// A security group id, `sg-…`.
    SecurityGroupId,
    "sg-"
);

/// A name eksctl accepts for a cluster or node group: a letter, then letters, digits and
/// hyphens, at most 100 characters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResourceName(String);

impl ResourceName {
    /// Parses a cluster or node group name.
    pub fn parse(value: &str) -> Result<ResourceName, IdError> {
        ResourceName::check(value).map(|()| ResourceName(value.to_owned()))
    }

    /// What [`Self::parse`] says of `value`, without keeping a copy of it.
    pub fn check(value: &str) -> Result<(), IdError> {
        check_common(value)?;
        let mut chars = value.chars();
        let starts_with_letter = chars
            .next()
            .is_some_and(|first| first.is_ascii_alphabetic());
        let rest_ok = chars.all(|char| char.is_ascii_alphanumeric() || char == '-');
        if starts_with_letter && rest_ok && value.len() <= 100 {
            Ok(())
        } else {
            Err(IdError::Malformed(
                "a letter followed by letters, digits and hyphens (at most 100)".into(),
            ))
        }
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// AWS commercial and GovCloud regions where EKS runs.
pub const REGIONS: &[&str] = &[
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
    "af-south-1",
    "ap-east-1",
    "ap-east-2",
    "ap-south-1",
    "ap-south-2",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-southeast-3",
    "ap-southeast-4",
    "ap-southeast-5",
    "ap-southeast-6",
    "ap-southeast-7",
    "ap-northeast-1",
    "ap-northeast-2",
    "ap-northeast-3",
    "ca-central-1",
    "ca-west-1",
    "eu-central-1",
    "eu-central-2",
    "eu-west-1",
    "eu-west-2",
    "eu-west-3",
    "eu-south-1",
    "eu-south-2",
    "eu-north-1",
    "il-central-1",
    "me-south-1",
    "me-central-1",
    "mx-central-1",
    "sa-east-1",
    "us-gov-east-1",
    "us-gov-west-1",
];

/// Regions eksctl supports (`pkg/apis/eksctl.io/v1alpha5/types.go` `SupportedRegions`)
/// in partitions other than `aws` and `aws-us-gov`: China and the isolated regions, for
/// which the studio has no catalog and writes no ARNs.
pub const OTHER_PARTITION_REGIONS: &[&str] = &[
    "cn-north-1",
    "cn-northwest-1",
    "us-iso-east-1",
    "us-iso-west-1",
    "us-isob-east-1",
    "us-isob-west-1",
    "us-isof-east-1",
    "us-isof-south-1",
    "eu-isoe-west-1",
];

/// The name the AWS console gives each of [`REGIONS`].
pub const REGION_NAMES: &[(&str, &str)] = &[
    ("us-east-1", "US East (N. Virginia)"),
    ("us-east-2", "US East (Ohio)"),
    ("us-west-1", "US West (N. California)"),
    ("us-west-2", "US West (Oregon)"),
    ("af-south-1", "Africa (Cape Town)"),
    ("ap-east-1", "Asia Pacific (Hong Kong)"),
    ("ap-east-2", "Asia Pacific (Taipei)"),
    ("ap-south-1", "Asia Pacific (Mumbai)"),
    ("ap-south-2", "Asia Pacific (Hyderabad)"),
    ("ap-southeast-1", "Asia Pacific (Singapore)"),
    ("ap-southeast-2", "Asia Pacific (Sydney)"),
    ("ap-southeast-3", "Asia Pacific (Jakarta)"),
    ("ap-southeast-4", "Asia Pacific (Melbourne)"),
    ("ap-southeast-5", "Asia Pacific (Malaysia)"),
    ("ap-southeast-6", "Asia Pacific (New Zealand)"),
    ("ap-southeast-7", "Asia Pacific (Thailand)"),
    ("ap-northeast-1", "Asia Pacific (Tokyo)"),
    ("ap-northeast-2", "Asia Pacific (Seoul)"),
    ("ap-northeast-3", "Asia Pacific (Osaka)"),
    ("ca-central-1", "Canada (Central)"),
    ("ca-west-1", "Canada West (Calgary)"),
    ("eu-central-1", "Europe (Frankfurt)"),
    ("eu-central-2", "Europe (Zurich)"),
    ("eu-west-1", "Europe (Ireland)"),
    ("eu-west-2", "Europe (London)"),
    ("eu-west-3", "Europe (Paris)"),
    ("eu-south-1", "Europe (Milan)"),
    ("eu-south-2", "Europe (Spain)"),
    ("eu-north-1", "Europe (Stockholm)"),
    ("il-central-1", "Israel (Tel Aviv)"),
    ("me-south-1", "Middle East (Bahrain)"),
    ("me-central-1", "Middle East (UAE)"),
    ("mx-central-1", "Mexico (Central)"),
    ("sa-east-1", "South America (São Paulo)"),
    ("us-gov-east-1", "AWS GovCloud (US-East)"),
    ("us-gov-west-1", "AWS GovCloud (US-West)"),
];

/// The console's name of a region (`US West (Oregon)`), when it is a known one.
pub fn region_name(region: &str) -> Option<&'static str> {
    REGION_NAMES
        .iter()
        .find(|(code, _)| *code == region.trim())
        .map(|(_, name)| *name)
}

/// Example zone names of `region` for input hints (`us-west-2a, us-west-2b`), or of
/// us-east-1 while the region is not a known one.
pub fn example_zones(region: &str, count: usize) -> String {
    let region = Region::parse(region.trim()).map_or("us-east-1", |region| region.0);
    (b'a'..)
        .take(count)
        .map(|letter| format!("{region}{}", letter as char))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A known AWS region.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Region(&'static str);

impl Region {
    /// Parses a region name such as `us-east-1`.
    pub fn parse(value: &str) -> Result<Region, IdError> {
        check_common(value)?;
        REGIONS
            .iter()
            .find(|known| **known == value)
            .map(|known| Region(known))
            .ok_or_else(|| IdError::Malformed("a known AWS region such as `us-east-1`".into()))
    }

    /// The region name.
    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

/// An availability zone name: the region name plus one letter (`us-east-1a`), or a
/// Local Zone / Wavelength name built on the region (`us-west-2-lax-1a`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AvailabilityZone(String);

impl AvailabilityZone {
    /// Parses a zone name and checks that it belongs to `region`.
    pub fn parse_in(value: &str, region: &Region) -> Result<AvailabilityZone, IdError> {
        AvailabilityZone::check_in(value, region).map(|()| AvailabilityZone(value.to_owned()))
    }

    /// What [`Self::parse_in`] says of `value`, without keeping a copy of it.
    pub fn check_in(value: &str, region: &Region) -> Result<(), IdError> {
        check_common(value)?;
        let suffix = value.strip_prefix(region.as_str());
        let standard = suffix.is_some_and(|suffix| {
            suffix.len() == 1 && suffix.bytes().all(|byte| byte.is_ascii_lowercase())
        });
        let local = suffix.is_some_and(|suffix| {
            suffix.starts_with('-')
                && suffix.len() > 2
                && suffix
                    .bytes()
                    .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-')
        });
        if standard || local {
            Ok(())
        } else {
            Err(IdError::Malformed(format!(
                "a zone of {} such as `{}a`",
                region.as_str(),
                region.as_str()
            )))
        }
    }

    /// The zone name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The Kubernetes versions of EKS's release calendar (`crate::catalog::versions`), oldest first;
/// which of them EKS still offers on a given day is `versions::support_on`'s answer.
pub const KUBERNETES_VERSIONS: &[&str] = &[
    "1.28", "1.29", "1.30", "1.31", "1.32", "1.33", "1.34", "1.35",
];

/// A Kubernetes version EKS offers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KubernetesVersion(&'static str);

impl KubernetesVersion {
    /// Parses `1.NN`.
    pub fn parse(value: &str) -> Result<KubernetesVersion, IdError> {
        check_common(value)?;
        KUBERNETES_VERSIONS
            .iter()
            .find(|known| **known == value)
            .map(|known| KubernetesVersion(known))
            .ok_or_else(|| {
                IdError::Malformed(format!(
                    "a Kubernetes version EKS supports ({})",
                    KUBERNETES_VERSIONS.join(", ")
                ))
            })
    }

    /// The version text.
    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::is_placeholder;

    #[test]
    fn placeholders_of_templates_and_tutorials_are_found_and_scripts_are_left_alone() {
        for placeholder in [
            "PLACEHOLDER_AWS_REGION",
            "cr-xxxxxxxxxx",
            "${CLUSTER_NAME}",
            "KarpenterNodeRole-${CLUSTER_NAME}",
            "$CLUSTER_NAME",
            "arn:aws:iam::${AWS_ACCOUNT_ID}:role/KarpenterNodeRole",
            "YOUR_CLUSTER_NAME",
            "arn:aws:iam::YOUR_ACCOUNT_ID:role/admin",
            "<your cluster>",
            "<cluster-name>",
            "cr-xxxxxxxxxxxxxxxxx",
            "vpc-xxxxxxxxxxxxxxxxx",
            "subnet-xxxxxxxxxxxxxxx11",
            "arn:aws:iam::xxxxxxxxxxxx:role/eks-admin",
            // aws-samples/eksctl-cluster-provision examples/cluster-creation/cluster.yaml
            "arn:aws:iam::ACCOUNT_ID:role/eksClusterRole",
            "arn:aws:iam::account-id:policy/my-policy",
            // eksctl's examples/17-permissions-boundary.yaml
            "arn:aws:iam::11111:policy/entity/boundary",
            "arn:aws:iam::1234567890123:role/Admin",
        ] {
            assert!(is_placeholder(placeholder), "{placeholder}");
        }
        for value in [
            "eks-training",
            "us-east-1",
            "echo $HOSTNAME > /tmp/name",
            "#!/bin/bash\nexport NODE=${HOSTNAME}\n",
            "$",
            "price$1",
            "<",
            "YOUR_lowercase",
            "a<b>",
            "cr-0123456789abcdef0",
            "x2iedn.xlarge",
            "xxxx",
            "arn:aws:iam::123456789012:role/xxxx-admin",
            "my-xxxx-cluster",
            "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
            "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy",
            "arn:aws:s3:::my-bucket/checkpoints",
            "arn:aws-us-gov:iam::123456789012:role/Admin",
            "arn:aws:iam::123456789012:role/ACCOUNT_ID",
            // A policy's wildcards and variables.
            "arn:aws:ec2:*:*:instance/*",
            "arn:aws:iam::${aws:PrincipalAccount}:role/reader",
            // Not an ARN's shape at all (eksctl's examples/17-permissions-boundary.yaml).
            "arn:aws:iam:11111:policy/entity/boundary",
        ] {
            assert!(!is_placeholder(value), "{value}");
        }
    }
}
