//! What a deploy's `cluster.yaml` may carry when eksctl runs it on the studio's server, and
//! what in it grants access to the cluster.
//!
//! eksctl runs where the deploy runs, so a key that makes it read a local file, run a
//! program or reach a host of the file's choosing acts on the server, not on AWS. A design
//! can come from a stranger (an imported file, a share link), so the deploy carries only
//! the keys listed here, each one read in eksctl's create path (`pkg/ctl/create`,
//! `pkg/actions`, `pkg/apis/eksctl.io/v1alpha5/defaults.go` at 99984adb): they send data to
//! AWS or to the cluster and nothing else. Every other key is refused, by name. The list
//! is an allow-list on purpose: a key eksctl adds later is refused until it is read.

use yaml_serde::Value;

use crate::upstream::node_group_keys::{OnServer, group_key};

/// One pattern a path to a key: `.`-separated segments; `[]` after a segment means each
/// item of that sequence; `*` is any one key; a final `**` is the whole value below.
///
/// Left out on purpose (eksctl acts on the server with them):
/// - `gitops.flux`: eksctl runs the `flux bootstrap` program found on the server's `PATH`
///   with the file's flags (a Git host of its choosing, a private key file of the
///   server's), `pkg/flux/flux.go`.
/// - `ssh.publicKeyPath` of a node group: eksctl reads that file of the server's and
///   imports it into EC2 (`pkg/ssh/client/ssh.go`); a deploy asks the user to confirm it
///   ([`server_files`]).
/// - `ssh.allow: true` with no key: eksctl then reads the server's `~/.ssh/id_rsa.pub`
///   (`setSSHDefaults` in `defaults.go`); refused by [`refused_keys`].
const ALLOWED: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata.name",
    "metadata.region",
    "metadata.version",
    "metadata.forceUpdateVersion",
    "metadata.tags.*",
    "metadata.annotations.*",
    "metadata.rollbackConfig.**",
    "upgradePolicy.**",
    "kubernetesNetworkConfig.**",
    "autoModeConfig.**",
    "remoteNetworkConfig.**",
    "iam.withOIDC",
    "iam.serviceRoleARN",
    "iam.serviceRolePermissionsBoundary",
    "iam.fargatePodExecutionRoleARN",
    "iam.fargatePodExecutionRolePermissionsBoundary",
    "iam.vpcResourceControllerPolicy",
    // Roles and Kubernetes service accounts: inline policies are documents, not paths.
    "iam.serviceAccounts[].**",
    "iam.podIdentityAssociations[].**",
    "iamIdentityMappings[].**",
    // The issuer URL is reached by EKS, not by eksctl.
    "identityProviders[].**",
    "accessConfig.**",
    "vpc.**",
    "addons[].**",
    "addonsConfig.**",
    "privateCluster.**",
    "fargateProfiles[].**",
    "availabilityZones[]",
    "localZones[]",
    "cloudWatch.**",
    "secretsEncryption.**",
    // eksctl installs Karpenter's chart from its own fixed repository, at this version.
    "karpenter.**",
    "outpost.**",
    "controlPlaneScalingConfig.**",
    "zonalShiftConfig.**",
    "kubeAPIServerConfig.**",
    "kubeSchedulerConfig.**",
    "kubeControllerManagerConfig.**",
    "capabilities.**",
    "controlPlaneOutpostARN",
    "controlPlaneInstanceType",
    "controlPlanePlacement.**",
];

/// A key the deploy will not carry, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefusedKey {
    /// Where it is, e.g. `gitops.flux` or `nodeGroups[0].ssh.allow`.
    pub path: String,
    /// What eksctl would do with it on the server, or that its effect is not known.
    pub reason: String,
}

fn allowed(pattern_path: &[String]) -> Allowance {
    // A node group's keys, managed or not, as their rows say (`upstream::node_group_keys`).
    let node_group = |rest: &[String]| -> Allowance {
        let Some((key, below)) = rest.split_first() else {
            return Allowance::Descend;
        };
        match group_key(key).map(|row| row.on_server) {
            Some(OnServer::Carried) => Allowance::Whole,
            Some(OnServer::Below(keys)) => match below {
                [] => Allowance::Descend,
                [leaf] if keys.contains(&leaf.as_str()) => Allowance::Whole,
                _ => Allowance::No,
            },
            None => Allowance::No,
        }
    };
    match pattern_path {
        [first, rest @ ..] if first == "nodeGroups" || first == "managedNodeGroups" => match rest {
            [] => Allowance::Descend,
            [item, rest @ ..] if item == "[]" => node_group(rest),
            _ => Allowance::No,
        },
        _ => ALLOWED
            .iter()
            .map(|pattern| match_pattern(pattern, pattern_path))
            .max()
            .unwrap_or(Allowance::No),
    }
}

/// How far a path is allowed: not at all, as a step towards allowed keys, or with
/// everything below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Allowance {
    No,
    Descend,
    Whole,
}

fn match_pattern(pattern: &str, path: &[String]) -> Allowance {
    let segments: Vec<&str> = pattern
        .split('.')
        .flat_map(|segment| match segment.strip_suffix("[]") {
            Some(name) => vec![name, "[]"],
            None => vec![segment],
        })
        .collect();
    for (index, step) in path.iter().enumerate() {
        match segments.get(index) {
            None => return Allowance::No,
            Some(&"**") => return Allowance::Whole,
            Some(&"*") if step != "[]" => {}
            Some(segment) if segment == step => {}
            Some(_) => return Allowance::No,
        }
    }
    match segments.get(path.len()) {
        None | Some(&"**") => Allowance::Whole,
        Some(_) => Allowance::Descend,
    }
}

/// Every key of the ClusterConfig `cluster` that a deploy on the server will not carry,
/// each with its reason.
pub fn refused_keys(cluster: &Value) -> Vec<RefusedKey> {
    let mut refused = Vec::new();
    walk(cluster, &mut Vec::new(), &mut String::new(), &mut refused);
    for (group_path, group) in node_groups(cluster) {
        if let Some(ssh) = group.get("ssh")
            && ssh.get("allow").and_then(Value::as_bool) == Some(true)
            && ["publicKey", "publicKeyName", "publicKeyPath"]
                .iter()
                .all(|key| ssh.get(key).is_none_or(Value::is_null))
        {
            refused.push(RefusedKey {
                path: format!("{group_path}.ssh.allow"),
                reason: "SSH allowed with no key: eksctl then reads the key file ~/.ssh/id_rsa.pub of the machine it runs on, this server; give `ssh.publicKey` or `ssh.publicKeyName`".into(),
            });
        }
    }
    refused
}

fn walk(value: &Value, pattern: &mut Vec<String>, display: &mut String, out: &mut Vec<RefusedKey>) {
    match value {
        Value::Mapping(mapping) => {
            for (key, child) in mapping {
                let name = match key {
                    Value::String(text) => text.clone(),
                    other => yaml_serde::to_string(other)
                        .unwrap_or_default()
                        .trim()
                        .to_owned(),
                };
                let before = display.len();
                if !display.is_empty() {
                    display.push('.');
                }
                display.push_str(&name);
                pattern.push(name);
                match allowed(pattern) {
                    Allowance::Whole => {}
                    Allowance::Descend => walk(child, pattern, display, out),
                    Allowance::No => out.push(RefusedKey {
                        path: display.clone(),
                        reason: refusal_reason(pattern),
                    }),
                }
                pattern.pop();
                display.truncate(before);
            }
        }
        Value::Sequence(items) => {
            pattern.push("[]".into());
            for (index, item) in items.iter().enumerate() {
                let before = display.len();
                display.push_str(&format!("[{index}]"));
                walk(item, pattern, display, out);
                display.truncate(before);
            }
            pattern.pop();
        }
        Value::Tagged(tagged) => walk(&tagged.value, pattern, display, out),
        _ => {}
    }
}

fn refusal_reason(pattern: &[String]) -> String {
    match pattern {
        [first, ..] if first == "gitops" => "eksctl runs the `flux` program of the machine it runs on, this server, with the file's flags (a Git host of the file's choosing, a private key file of the server's); bootstrap Flux yourself after the deploy".into(),
        _ => "not a key the deploy knows the effect of on this server (it runs eksctl here): only keys whose effect is on AWS or the cluster alone are deployed; remove it, or run eksctl with this file yourself".into(),
    }
}

/// Each node group of `cluster`, managed or not, with its path.
fn node_groups(cluster: &Value) -> Vec<(String, &Value)> {
    let mut groups = Vec::new();
    for list in ["nodeGroups", "managedNodeGroups"] {
        if let Some(Value::Sequence(items)) = cluster.get(list) {
            for (index, group) in items.iter().enumerate() {
                groups.push((format!("{list}[{index}]"), group));
            }
        }
    }
    groups
}

/// Each `path: file` of `cluster` that makes eksctl read a file of the machine it runs on
/// (a node group's `ssh.publicKeyPath`): a deploy carries it only once the user confirms.
pub fn server_files(cluster: &Value) -> Vec<String> {
    node_groups(cluster)
        .into_iter()
        .filter_map(|(path, group)| {
            let file = group.get("ssh")?.get("publicKeyPath")?.as_str()?;
            Some(format!(
                "{path}.ssh.publicKeyPath: `{}`",
                file.escape_default()
            ))
        })
        .collect()
}

/// AWS's managed policies that grant everything, or everything of IAM.
const ADMIN_POLICIES: &[&str] = &[
    "arn:aws:iam::aws:policy/AdministratorAccess",
    "arn:aws:iam::aws:policy/IAMFullAccess",
    "arn:aws:iam::aws:policy/PowerUserAccess",
];

/// What in `cluster` grants access to the cluster or to AWS, one sentence each, for the
/// person approving a deploy: access entries and identity mappings (with their account and
/// whether they are cluster-admin), service accounts and Pod Identity associations with
/// their policies, a public API endpoint, SSH open to the world.
pub fn grants(cluster: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    let text = |value: Option<&Value>| value.and_then(Value::as_str).unwrap_or("").to_owned();
    let strings = |value: Option<&Value>| -> Vec<String> {
        match value {
            Some(Value::Sequence(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        }
    };
    let items = |value: Option<&Value>| -> Vec<Value> {
        match value {
            Some(Value::Sequence(items)) => items.clone(),
            _ => Vec::new(),
        }
    };
    let access = cluster.get("accessConfig");
    for entry in items(access.and_then(|config| config.get("accessEntries"))) {
        let principal = text(entry.get("principalARN"));
        let mut rights: Vec<String> = items(entry.get("accessPolicies"))
            .iter()
            .map(|policy| {
                let arn = text(policy.get("policyARN"));
                let name = arn.rsplit('/').next().unwrap_or(&arn).to_owned();
                let scope = policy.get("accessScope");
                let namespaces = strings(scope.and_then(|scope| scope.get("namespaces")));
                let admin = name == "AmazonEKSClusterAdminPolicy";
                let label = if admin {
                    format!("{name} (cluster-admin)")
                } else {
                    name
                };
                if namespaces.is_empty() {
                    format!("{label} on the whole cluster")
                } else {
                    format!("{label} in namespaces {}", namespaces.join(", "))
                }
            })
            .collect();
        let groups = strings(entry.get("kubernetesGroups"));
        if groups.iter().any(|group| group == "system:masters") {
            rights.push("Kubernetes group system:masters (cluster-admin)".into());
        } else if !groups.is_empty() {
            rights.push(format!("Kubernetes groups {}", groups.join(", ")));
        }
        if rights.is_empty() {
            rights.push(match text(entry.get("type")).as_str() {
                "" | "STANDARD" => "no policy yet".to_owned(),
                kind => format!("as {kind} nodes"),
            });
        }
        lines.push(format!(
            "Access entry for {principal}{}: {}",
            account_words(&principal),
            rights.join("; ")
        ));
    }
    let creator_admin = access
        .and_then(|config| config.get("bootstrapClusterCreatorAdminPermissions"))
        .and_then(Value::as_bool)
        .unwrap_or(true);
    if creator_admin {
        lines.push(
            "The identity that deploys (this server's AWS credentials) gets cluster-admin".into(),
        );
    }
    for mapping in items(cluster.get("iamIdentityMappings")) {
        let principal = if mapping.get("arn").is_some() {
            text(mapping.get("arn"))
        } else {
            format!("account {}", text(mapping.get("account")))
        };
        let groups = strings(mapping.get("groups"));
        let admin = if groups.iter().any(|group| group == "system:masters") {
            " (cluster-admin)"
        } else {
            ""
        };
        lines.push(format!(
            "aws-auth mapping for {principal}{}: Kubernetes groups {}{admin}",
            account_words(&principal),
            if groups.is_empty() {
                "none".to_owned()
            } else {
                groups.join(", ")
            }
        ));
    }
    let iam = cluster.get("iam");
    let mut roles = Vec::new();
    for account in items(iam.and_then(|iam| iam.get("serviceAccounts"))) {
        let metadata = account.get("metadata");
        let who = format!(
            "{}/{}",
            text(metadata.and_then(|metadata| metadata.get("namespace"))),
            text(metadata.and_then(|metadata| metadata.get("name")))
        );
        roles.push(("Service account", who, account));
    }
    let associations = items(iam.and_then(|iam| iam.get("podIdentityAssociations")))
        .into_iter()
        .chain(
            items(cluster.get("addons"))
                .into_iter()
                .flat_map(|addon| items(addon.get("podIdentityAssociations"))),
        );
    for association in associations {
        let who = format!(
            "{}/{}",
            text(association.get("namespace")),
            text(association.get("serviceAccountName"))
        );
        roles.push(("Pod Identity association", who, association));
    }
    for (kind, who, role) in roles {
        let mut policies = strings(role.get("attachPolicyARNs"));
        policies.extend(strings(role.get("permissionPolicyARNs")));
        let admin = policies
            .iter()
            .any(|policy| ADMIN_POLICIES.contains(&policy.as_str()))
            || role
                .get("attachPolicy")
                .or_else(|| role.get("permissionPolicy"))
                .is_some_and(grants_everything);
        let mut parts: Vec<&str> = policies
            .iter()
            .map(|arn| arn.rsplit('/').next().unwrap_or(arn))
            .collect();
        if role.get("attachPolicy").is_some() || role.get("permissionPolicy").is_some() {
            parts.push("an inline policy");
        }
        let what = if parts.is_empty() {
            "an IAM role".to_owned()
        } else {
            format!("an IAM role with {}", parts.join(", "))
        };
        let warning = if admin {
            " — administrator rights on the AWS account"
        } else {
            ""
        };
        lines.push(format!("{kind} {who} gets {what}{warning}"));
    }
    lines.extend(endpoint_words(cluster));
    for (path, group) in node_groups(cluster) {
        let Some(ssh) = group.get("ssh") else {
            continue;
        };
        let has_key = ["publicKey", "publicKeyName", "publicKeyPath"]
            .iter()
            .any(|key| ssh.get(key).is_some_and(|value| !value.is_null()));
        let allowed = ssh.get("allow").and_then(Value::as_bool).unwrap_or(has_key);
        if allowed {
            let name = text(group.get("name"));
            let from = strings(ssh.get("sourceSecurityGroupIds"));
            let from = if from.is_empty() {
                "from anywhere (0.0.0.0/0)".to_owned()
            } else {
                format!("from security groups {}", from.join(", "))
            };
            let name = if name.is_empty() { path } else { name };
            lines.push(format!("Node group {name} accepts SSH {from}"));
        }
    }
    lines
}

/// Whether an inline IAM policy document allows every action on every resource.
fn grants_everything(document: &Value) -> bool {
    let statements = match document.get("Statement") {
        Some(Value::Sequence(items)) => items.clone(),
        Some(single) => vec![single.clone()],
        None => Vec::new(),
    };
    let has_star = |value: Option<&Value>| match value {
        Some(Value::String(text)) => text == "*",
        Some(Value::Sequence(items)) => items.iter().any(|item| item.as_str() == Some("*")),
        _ => false,
    };
    statements.iter().any(|statement| {
        statement.get("Effect").and_then(Value::as_str) == Some("Allow")
            && has_star(statement.get("Action"))
            && has_star(statement.get("Resource"))
    })
}

/// ` (account N)` for an ARN that names an account.
fn account_words(arn: &str) -> String {
    let account = arn.split(':').nth(4).unwrap_or_default();
    if account.len() == 12 && account.bytes().all(|byte| byte.is_ascii_digit()) {
        format!(" (account {account})")
    } else {
        String::new()
    }
}

/// The Kubernetes API endpoint's reach, when it is public (eksctl's default: public, from
/// 0.0.0.0/0, unless `privateCluster` is on or `vpc.clusterEndpoints` says otherwise).
fn endpoint_words(cluster: &Value) -> Option<String> {
    let private_cluster = cluster
        .get("privateCluster")
        .and_then(|private| private.get("enabled"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if private_cluster {
        return None;
    }
    let vpc = cluster.get("vpc");
    let public = vpc
        .and_then(|vpc| vpc.get("clusterEndpoints"))
        .and_then(|endpoints| endpoints.get("publicAccess"))
        .and_then(Value::as_bool)
        .unwrap_or(true);
    if !public {
        return None;
    }
    let cidrs: Vec<&str> = match vpc.and_then(|vpc| vpc.get("publicAccessCIDRs")) {
        Some(Value::Sequence(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    Some(if cidrs.is_empty() || cidrs.contains(&"0.0.0.0/0") {
        "The Kubernetes API endpoint is public, reachable from anywhere (0.0.0.0/0)".to_owned()
    } else {
        format!(
            "The Kubernetes API endpoint is public, reachable from {}",
            cidrs.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Value {
        yaml_serde::from_str(text).unwrap()
    }

    #[test]
    fn gitops_and_unknown_keys_are_refused_by_name() {
        let cluster = yaml(
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: a, region: us-east-1, tags: {team: ml}}\ngitops:\n  flux: {gitProvider: github, flags: {hostname: evil.example}}\nvpc: {cidr: 10.0.0.0/16}\nsomethingNew: 1\nmanagedNodeGroups:\n  - name: gpu\n    instanceType: p5.48xlarge\n    Ssh: {allow: true}\n",
        );
        let paths: Vec<String> = refused_keys(&cluster)
            .into_iter()
            .map(|refused| refused.path)
            .collect();
        assert_eq!(
            paths,
            ["gitops", "somethingNew", "managedNodeGroups[0].Ssh"]
        );
    }

    #[test]
    fn ssh_allowed_with_no_key_is_refused_and_a_key_path_needs_confirming() {
        let cluster = yaml(
            "nodeGroups:\n  - name: a\n    ssh: {allow: true}\n  - name: b\n    ssh: {allow: true, publicKeyName: mine}\nmanagedNodeGroups:\n  - name: c\n    ssh: {publicKeyPath: /etc/passwd}\n",
        );
        let refused = refused_keys(&cluster);
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert_eq!(refused[0].path, "nodeGroups[0].ssh.allow");
        assert!(refused[0].reason.contains("~/.ssh/id_rsa.pub"));
        assert_eq!(
            server_files(&cluster),
            ["managedNodeGroups[0].ssh.publicKeyPath: `/etc/passwd`"]
        );
    }

    #[test]
    fn grants_name_admin_rights_other_accounts_and_the_public_endpoint() {
        let cluster = yaml(
            r#"
accessConfig:
  accessEntries:
    - principalARN: arn:aws:iam::999988887777:role/outsider
      accessPolicies:
        - policyARN: arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy
          accessScope: {type: cluster}
iam:
  serviceAccounts:
    - metadata: {name: ci, namespace: default}
      attachPolicyARNs: [arn:aws:iam::aws:policy/AdministratorAccess]
  podIdentityAssociations:
    - namespace: ml
      serviceAccountName: trainer
      permissionPolicy: {Version: "2012-10-17", Statement: [{Effect: Allow, Action: "*", Resource: "*"}]}
vpc:
  publicAccessCIDRs: [203.0.113.0/24]
nodeGroups:
  - name: bastion
    ssh: {publicKeyName: mine}
"#,
        );
        let lines = grants(&cluster);
        assert!(
            lines[0].contains("outsider (account 999988887777)"),
            "{lines:?}"
        );
        assert!(lines[0].contains("cluster-admin"));
        assert!(
            lines
                .iter()
                .any(|line| line.starts_with("The identity that deploys"))
        );
        assert!(lines.iter().any(|line| line.starts_with(
            "Service account default/ci gets an IAM role with AdministratorAccess — administrator"
        )));
        assert!(lines.iter().any(|line| line.starts_with(
            "Pod Identity association ml/trainer gets an IAM role with an inline policy — administrator"
        )), "{lines:?}");
        assert!(
            lines
                .iter()
                .any(|line| line.ends_with("reachable from 203.0.113.0/24"))
        );
        assert!(
            lines
                .iter()
                .any(|line| line == "Node group bastion accepts SSH from anywhere (0.0.0.0/0)")
        );
    }

    #[test]
    fn a_private_cluster_has_no_public_endpoint_line() {
        let cluster = yaml(
            "privateCluster: {enabled: true}\naccessConfig: {bootstrapClusterCreatorAdminPermissions: false}\n",
        );
        assert!(grants(&cluster).is_empty());
    }
}
