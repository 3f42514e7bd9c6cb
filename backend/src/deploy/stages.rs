//! eksctl's log lines read as progress: which CloudFormation stack is being built,
//! deployed or waited for, and when the cluster is ready. A cheap reading of the line's
//! words, not a parser of eksctl's output; the raw line is always kept beside it.

pub use shared::model::live_checks::{Stage, StageKind};

/// Reads a line printed by eksctl, e.g.
/// `2026-11-30 10:00:00 [ℹ]  deploying stack "eksctl-NAME-cluster"`.
pub fn read_eksctl_line(line: &str) -> Option<Stage> {
    if line.starts_with("Error: ") {
        return Some(stage(StageKind::Failed, None));
    }
    let (marker, message) = split_marker(line)?;
    if marker == "✖" {
        return Some(stage(StageKind::Failed, first_quoted(message)));
    }
    let kind = if message.starts_with("building ") && message.contains("stack \"") {
        StageKind::StackBuilding
    } else if message.starts_with("deploying stack \"") {
        StageKind::StackDeploying
    } else if message.starts_with("waiting for CloudFormation stack \"") {
        StageKind::StackWaiting
    } else if message.starts_with("EKS cluster \"") && message.ends_with("region is ready") {
        return Some(stage(StageKind::ClusterReady, None));
    } else {
        return None;
    };
    Some(stage(kind, first_quoted(message)))
}

fn stage(kind: StageKind, stack: Option<&str>) -> Stage {
    let nodegroup = stack
        .and_then(|stack| stack.split_once("-nodegroup-"))
        .map(|(_, group)| group.to_owned());
    Stage {
        kind,
        stack: stack.map(str::to_owned),
        nodegroup,
    }
}

/// `[ℹ]  message` after the timestamp: the marker inside the brackets and the message.
fn split_marker(line: &str) -> Option<(&str, &str)> {
    let open = line.find('[')?;
    let close = open + line[open..].find(']')?;
    Some((&line[open + 1..close], line[close + 1..].trim()))
}

fn first_quoted(message: &str) -> Option<&str> {
    let start = message.find('"')? + 1;
    let length = message[start..].find('"')?;
    Some(&message[start..start + length])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_and_stack(line: &str) -> Option<(StageKind, Option<String>, Option<String>)> {
        read_eksctl_line(line).map(|stage| (stage.kind, stage.stack, stage.nodegroup))
    }

    #[test]
    fn reads_the_stack_lines_of_a_cluster_creation() {
        let cluster = Some("eksctl-demo-cluster".to_owned());
        let lines = [
            (
                r#"2026-11-30 10:00:00 [ℹ]  building cluster stack "eksctl-demo-cluster""#,
                Some((StageKind::StackBuilding, cluster.clone(), None)),
            ),
            (
                r#"2026-11-30 10:00:01 [ℹ]  deploying stack "eksctl-demo-cluster""#,
                Some((StageKind::StackDeploying, cluster.clone(), None)),
            ),
            (
                r#"2026-11-30 10:00:31 [ℹ]  waiting for CloudFormation stack "eksctl-demo-cluster""#,
                Some((StageKind::StackWaiting, cluster, None)),
            ),
            (
                r#"2026-11-30 10:10:00 [ℹ]  building managed nodegroup stack "eksctl-demo-nodegroup-gpu-a""#,
                Some((
                    StageKind::StackBuilding,
                    Some("eksctl-demo-nodegroup-gpu-a".to_owned()),
                    Some("gpu-a".to_owned()),
                )),
            ),
            (
                r#"2026-11-30 10:20:00 [✔]  EKS cluster "demo" in "us-west-2" region is ready"#,
                Some((StageKind::ClusterReady, None, None)),
            ),
            (
                r#"Error: failed to create cluster "demo""#,
                Some((StageKind::Failed, None, None)),
            ),
            (r#"2026-11-30 10:00:00 [ℹ]  using region us-west-2"#, None),
            ("apiVersion: eksctl.io/v1alpha5", None),
        ];
        for (line, expected) in lines {
            assert_eq!(kind_and_stack(line), expected, "{line}");
        }
    }
}
