//! The Karpenter releases a design can install, and what each one's CRDs accept.
//!
//! Taken from aws/karpenter-provider-aws at each release's tag: the CRDs in
//! `pkg/apis/crds/` (compared tag by tag, v1.9.2 to v1.14.1, for the fields, enum values
//! and well-known labels each minor release added), the Helm chart's `values.yaml`
//! (`settings.featureGates`), and the compatibility matrix in
//! `website/content/en/docs/upgrading/compatibility.md` at v1.14.1. The studio checks
//! documents against the newest release's CRDs; an older release is the newest one less
//! what came after it.

use serde::{Deserialize, Serialize};

/// A Karpenter release the bundle installs (its Helm chart and the CRDs the chart holds).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum KarpenterRelease {
    /// 1.9, long-term support.
    #[serde(rename = "1.9")]
    V1_9,
    /// 1.14, the newest release the studio knows.
    #[default]
    #[serde(rename = "1.14")]
    V1_14,
}

impl KarpenterRelease {
    /// Every release, newest first (the order the page offers them).
    pub const ALL: [Self; 2] = [Self::V1_14, Self::V1_9];

    /// The minor release, as written in the design (`1.14`).
    pub const fn minor(self) -> &'static str {
        match self {
            Self::V1_9 => "1.9",
            Self::V1_14 => "1.14",
        }
    }

    /// The chart version the bundle installs: the release's newest patch.
    pub const fn chart_version(self) -> &'static str {
        match self {
            Self::V1_9 => "1.9.2",
            Self::V1_14 => "1.14.1",
        }
    }

    /// The release's minor number (`14` for 1.14).
    const fn number(self) -> u32 {
        match self {
            Self::V1_9 => 9,
            Self::V1_14 => 14,
        }
    }

    /// The release `1.N` or `1.N.x` names, if the studio offers it.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim().trim_start_matches('v');
        Self::ALL.into_iter().find(|release| {
            text == release.minor()
                || text
                    .strip_prefix(release.minor())
                    .and_then(|rest| rest.strip_prefix('.'))
                    .is_some_and(|patch| {
                        !patch.is_empty() && patch.bytes().all(|b| b.is_ascii_digit())
                    })
        })
    }

    /// How the page names it.
    pub const fn label(self) -> &'static str {
        match self {
            Self::V1_9 => "1.9.2 (long-term support)",
            Self::V1_14 => "1.14.1 (newest)",
        }
    }

    /// Whether this release's CRDs have what came with `since`.
    pub const fn has(self, since: Since) -> bool {
        self.number() >= since.minor
    }

    /// The newest Kubernetes minor version (`1.N`) Karpenter's compatibility matrix lists
    /// for this release.
    pub const fn newest_kubernetes(self) -> u32 {
        match self {
            // Kubernetes 1.36 needs Karpenter 1.13 or newer; 1.35 needs 1.9.
            Self::V1_9 => 35,
            Self::V1_14 => 36,
        }
    }

    /// The oldest release that runs Kubernetes `1.minor`, by the matrix, when one of the
    /// releases the studio offers does.
    pub fn oldest_for_kubernetes(minor: u32) -> Option<&'static str> {
        match minor {
            ..=35 => Some("1.9"),
            36 => Some("1.13"),
            _ => None,
        }
    }
}

/// The minor release that brought something (`Since { minor: 11 }` is 1.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Since {
    /// The minor number of `1.N`.
    pub minor: u32,
}

impl Since {
    /// `1.N`.
    pub fn release(self) -> String {
        format!("1.{}", self.minor)
    }
}

/// Which object a newer field belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `EC2NodeClass` (`karpenter.k8s.aws/v1`).
    Ec2NodeClass,
    /// `NodePool` (`karpenter.sh/v1`).
    NodePool,
}

impl Kind {
    /// The object's kind as written.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Ec2NodeClass => "EC2NodeClass",
            Self::NodePool => "NodePool",
        }
    }
}

/// What a release added to the objects, in the form a document shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addition {
    /// A field under the object (keys from the object's root).
    Field(&'static [&'static str]),
    /// A value a field's enum allows (the field's keys, the value).
    Value(&'static [&'static str], &'static str),
    /// A `karpenter.k8s.aws/…` label a NodePool's requirements and template labels may
    /// use (the CRD's CEL list of the domain's allowed labels).
    Label(&'static str),
}

/// One thing a release added.
#[derive(Clone, Copy, Debug)]
pub struct Added {
    /// The object it is in.
    pub kind: Kind,
    /// What it is.
    pub what: Addition,
    /// The release that brought it.
    pub since: Since,
}

/// What came after 1.9, release by release (each compared with the release before it).
pub const ADDED: &[Added] = &[
    Added {
        kind: Kind::NodePool,
        what: Addition::Label("karpenter.k8s.aws/capacity-reservation-interruptible"),
        since: Since { minor: 10 },
    },
    Added {
        kind: Kind::Ec2NodeClass,
        what: Addition::Field(&["spec", "networkInterfaces"]),
        since: Since { minor: 11 },
    },
    Added {
        kind: Kind::Ec2NodeClass,
        what: Addition::Field(&["spec", "placementGroupSelector"]),
        since: Since { minor: 11 },
    },
    Added {
        kind: Kind::NodePool,
        what: Addition::Label("karpenter.k8s.aws/placement-group-id"),
        since: Since { minor: 11 },
    },
    Added {
        kind: Kind::NodePool,
        what: Addition::Label("karpenter.k8s.aws/placement-group-partition"),
        since: Since { minor: 11 },
    },
    Added {
        kind: Kind::Ec2NodeClass,
        what: Addition::Field(&["spec", "connectionTracking"]),
        since: Since { minor: 13 },
    },
    Added {
        kind: Kind::Ec2NodeClass,
        what: Addition::Field(&["spec", "cpuOptions"]),
        since: Since { minor: 13 },
    },
    Added {
        kind: Kind::NodePool,
        what: Addition::Value(&["spec", "disruption", "consolidationPolicy"], "Balanced"),
        since: Since { minor: 14 },
    },
];

/// What in `object` (a document of `kind`, as the YAML value the renderer writes) came
/// after `release`: each with the dotted path inside the object and the release that
/// brought it.
pub fn newer_than(
    kind: Kind,
    object: &yaml_serde::Value,
    release: KarpenterRelease,
) -> Vec<(String, &'static Added)> {
    let mut found = Vec::new();
    for added in ADDED
        .iter()
        .filter(|added| added.kind == kind && !release.has(added.since))
    {
        match added.what {
            Addition::Field(keys) => {
                if keys
                    .iter()
                    .try_fold(object, |value, key| value.get(key))
                    .is_some()
                {
                    found.push((keys.join("."), added));
                }
            }
            Addition::Value(keys, wanted) => {
                let value = keys.iter().try_fold(object, |value, key| value.get(key));
                if value.and_then(yaml_serde::Value::as_str) == Some(wanted) {
                    found.push((keys.join("."), added));
                }
            }
            Addition::Label(label) => {
                let template = &object["spec"]["template"];
                let requirements = template["spec"]["requirements"]
                    .as_sequence()
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                for (index, requirement) in requirements.iter().enumerate() {
                    if requirement["key"].as_str() == Some(label) {
                        found.push((
                            format!("spec.template.spec.requirements[{index}].key"),
                            added,
                        ));
                    }
                }
                if template["metadata"]["labels"].get(label).is_some() {
                    found.push(("spec.template.metadata.labels".to_owned(), added));
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_read_as_written() {
        assert_eq!(KarpenterRelease::parse("1.9"), Some(KarpenterRelease::V1_9));
        assert_eq!(
            KarpenterRelease::parse("v1.9.2"),
            Some(KarpenterRelease::V1_9)
        );
        assert_eq!(
            KarpenterRelease::parse("1.14.0"),
            Some(KarpenterRelease::V1_14)
        );
        assert_eq!(KarpenterRelease::parse("1.1"), None);
        assert_eq!(KarpenterRelease::parse("1.91"), None);
        assert_eq!(KarpenterRelease::parse("1.9."), None);
        let written = serde_json::to_string(&KarpenterRelease::V1_9).unwrap();
        assert_eq!(written, "\"1.9\"");
    }

    #[test]
    fn an_older_release_lacks_what_came_after_it() {
        let yaml = |json: serde_json::Value| yaml_serde::to_value(json).unwrap();
        let class = yaml(
            serde_json::json!({"spec": {"placementGroupSelector": {"name": "pg"}, "cpuOptions": {}}}),
        );
        let found = newer_than(Kind::Ec2NodeClass, &class, KarpenterRelease::V1_9);
        let paths: Vec<&str> = found.iter().map(|(path, _)| path.as_str()).collect();
        assert_eq!(paths, ["spec.placementGroupSelector", "spec.cpuOptions"]);
        assert!(newer_than(Kind::Ec2NodeClass, &class, KarpenterRelease::V1_14).is_empty());
        let pool = yaml(serde_json::json!({"spec": {
            "disruption": {"consolidationPolicy": "Balanced"},
            "template": {"spec": {"requirements": [
                {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["reserved"]},
                {"key": "karpenter.k8s.aws/placement-group-id", "operator": "Exists"}
            ]}}
        }}));
        let found = newer_than(Kind::NodePool, &pool, KarpenterRelease::V1_9);
        let paths: Vec<(&str, String)> = found
            .iter()
            .map(|(path, added)| (path.as_str(), added.since.release()))
            .collect();
        assert_eq!(
            paths,
            [
                ("spec.template.spec.requirements[1].key", "1.11".to_owned()),
                ("spec.disruption.consolidationPolicy", "1.14".to_owned()),
            ]
        );
    }
}
