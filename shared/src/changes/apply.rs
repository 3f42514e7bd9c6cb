//! A plan as the run that makes it: its changes' commands in the plan's order (the control
//! plane, creations, changes in place, the node groups' upgrades, replacements,
//! deletions), each step a program and its arguments, and `apply.sh`, the same steps as a
//! script. `eks-studio apply` and `apply.sh` run exactly these vectors.
//!
//! Every step runs in the bundle's directory (its `cluster.yaml` and Karpenter files are
//! the arguments' relative paths) with `KUBECONFIG` naming `kubeconfig` there, which the
//! first step writes when a step needs the cluster's API (`aws eks update-kubeconfig`).
//! A command that several changes share (`kubectl apply -f karpenter/nodepools.yaml`)
//! runs once, unless something was deleted since it last ran.

use serde::Serialize;
use yaml_serde::Value;

use super::{Action, Plan, Step};
use crate::deploy::sequence::{Tool, shell_quote};
use crate::documents::render::{RenderError, cluster_document};
use crate::model::spec::Spec;

/// The kubeconfig the steps read, in the bundle's directory.
pub const KUBECONFIG_FILE: &str = "kubeconfig";

/// The flag that consents to the steps that drain nodes or let Karpenter replace them.
pub const ALLOW_DISRUPTION: &str = "--allow-disruption";

/// One step of an apply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ApplyStep {
    /// The command, as the plan made it.
    #[serde(flatten)]
    pub step: Step,
    /// The change it belongs to, as the plan marks it (`-/+ nodegroup sys`); the set-up
    /// step's own words otherwise.
    pub change: String,
    /// What it does to running pods, when its change disrupts them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disruption: Option<String>,
    /// The kind and name of the object its change is of (none for the set-up step).
    #[serde(skip)]
    pub object: Option<(String, String)>,
}

impl ApplyStep {
    /// The step in words for a job's list: its change and what the command does
    /// (`-/+ nodegroup gpu: eksctl delete nodegroup gpu`), with what it disrupts.
    pub fn title(&self) -> String {
        let verb: Vec<&str> = self
            .step
            .args
            .iter()
            .take_while(|arg| !arg.starts_with('-'))
            .take(2)
            .map(String::as_str)
            .collect();
        let mut title = format!(
            "{}: {} {}",
            self.change,
            self.step.tool.command(),
            verb.join(" ")
        );
        // The object a command names by flag: which group a replacement's four eksctl
        // steps act on (`gpu-interim`, `gpu`).
        let named = ["--include", "--name"].iter().find_map(|flag| {
            let at = self.step.args.iter().position(|arg| arg == flag)?;
            self.step.args.get(at + 1)
        });
        if let Some(object) = named {
            title.push(' ');
            title.push_str(object);
        }
        if let Some(wait) = &self.step.wait {
            title.push_str(&format!(", waits up to {}", wait.up_to));
        }
        if let Some(disruption) = &self.disruption {
            title.push_str(&format!(" (disrupts: {disruption})"));
        }
        title
    }

    /// The whole argument vector, program first.
    pub fn argv(&self) -> Vec<String> {
        self.step.argv()
    }
}

/// The `ClusterConfig` the plan's interim groups are made from ([`super::INTERIM_FILE`]), when
/// it makes one: the design's, its group lists holding only the groups replaced under
/// their names, each under its interim group's name.
pub fn interim_file(plan: &Plan, after: &Spec) -> Result<Option<String>, RenderError> {
    let interims: Vec<(&str, &str)> = plan
        .changes
        .iter()
        .filter_map(|change| Some((change.name.as_str(), change.interim.as_deref()?)))
        .collect();
    if interims.is_empty() {
        return Ok(None);
    }
    let mut document = cluster_document(after)?;
    for list in ["managedNodeGroups", "nodeGroups"] {
        let Some(groups) = document.get_mut(list).and_then(Value::as_sequence_mut) else {
            continue;
        };
        groups.retain_mut(|group| {
            let name = group
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let Some((_, interim)) = interims.iter().find(|(replaced, _)| *replaced == name) else {
                return false;
            };
            if let Some(group) = group.as_mapping_mut() {
                group.insert("name".into(), (*interim).into());
            }
            true
        });
    }
    Ok(Some(crate::yaml::text::to_string(&document)?))
}

/// The steps that make `plan` on cluster `cluster` in `region`, in order.
pub fn apply_steps(plan: &Plan, cluster: &str, region: &str) -> Vec<ApplyStep> {
    let mut steps: Vec<ApplyStep> = Vec::new();
    let mut ran: Vec<&Step> = Vec::new();
    for change in &plan.changes {
        let mark = format!("{} {} {}", change.action.mark(), change.kind, change.name);
        // The step that moves the pods carries the change's disruption: the deletion of a
        // replacement, the scale-in, the roll, the apply Karpenter drifts on.
        let draining = change
            .steps
            .iter()
            .position(|step| step.moves_pods)
            .unwrap_or(0);
        for (index, step) in change.steps.iter().enumerate() {
            if ran.iter().any(|done| done.same_command(step)) {
                continue;
            }
            if step.deletes.is_some() {
                ran.clear();
            } else {
                ran.push(step);
            }
            steps.push(ApplyStep {
                step: step.clone(),
                change: mark.clone(),
                disruption: (change.disruptive && index == draining)
                    .then(|| change.disruption.clone()),
                object: Some((change.kind.clone(), change.name.clone())),
            });
        }
    }
    let needs_cluster_api = steps
        .iter()
        .any(|step| matches!(step.step.tool, Tool::Kubectl | Tool::Helm));
    if needs_cluster_api {
        steps.insert(
            0,
            ApplyStep {
                step: Step::aws(&[
                    "eks",
                    "update-kubeconfig",
                    "--name",
                    cluster,
                    "--region",
                    region,
                    "--kubeconfig",
                    KUBECONFIG_FILE,
                ]),
                change: "the cluster's kubeconfig, for kubectl and helm".to_owned(),
                disruption: None,
                object: None,
            },
        );
    }
    steps
}

/// What the person applying `plan` consents to: one line per change that drains nodes or
/// lets Karpenter replace them, with the running jobs it names and the reservation it
/// leaves, if any.
pub fn disruptions(plan: &Plan) -> Vec<String> {
    plan.changes
        .iter()
        .filter(|change| change.disruptive)
        .map(|change| {
            let mut line = format!(
                "{} {} {}: {}",
                change.action.mark(),
                change.kind,
                change.name,
                change.disruption
            );
            let place = format!("node_groups[{}]", change.name);
            let leaves = plan.findings.iter().find(|finding| {
                change.kind == "nodegroup"
                    && finding.path == place
                    && finding.rule == crate::rules::changes::NODEGROUP_LEAVES_RESERVATION.id
            });
            if let Some(finding) = leaves {
                line.push_str(&format!("; {}", finding.message));
            }
            line
        })
        .collect()
}

/// `apply.sh`: the steps of `plan` as a bash script run from the bundle's directory. It
/// refuses to start when a peer would refuse a change, and when a change disrupts running
/// pods unless given [`ALLOW_DISRUPTION`], listing them.
pub fn apply_script(plan: &Plan, cluster: &str, region: &str) -> String {
    let mut script = String::from(
        "#!/usr/bin/env bash\n# Applies the plan in plan.txt to the running cluster, step by step; each step must\n# succeed before the next one starts. `eks-studio apply` runs the same steps.\nset -euo pipefail\ncd \"$(dirname \"$0\")\"\n",
    );
    script.push_str(&format!("export KUBECONFIG=\"$PWD/{KUBECONFIG_FILE}\"\n"));
    script.push_str("step() { printf '\\n==> %s\\n' \"$*\"; }\n");
    if plan.refused() {
        script.push_str("echo 'apply.sh: a peer would refuse a change of this plan (plan.txt lists why); nothing was run' >&2\n");
        for finding in plan
            .findings
            .iter()
            .filter(|finding| finding.severity == crate::rules::Severity::Error)
        {
            let line = format!(
                "  {} at {}: {}",
                finding.rule, finding.path, finding.message
            );
            script.push_str(&format!(
                "echo {} >&2\n",
                shell_quote(&crate::model::items::visible(&line))
            ));
        }
        script.push_str("exit 3\n");
        return script;
    }
    let consent = disruptions(plan);
    if !consent.is_empty() {
        script.push_str(&format!(
            "if [ \"${{1:-}}\" != {ALLOW_DISRUPTION} ]; then\n  echo {} >&2\n",
            shell_quote(&format!("apply.sh: {}:", disrupting(consent.len())))
        ));
        for line in &consent {
            script.push_str(&format!(
                "  echo {} >&2\n",
                shell_quote(&crate::model::items::visible(&format!("  {line}")))
            ));
        }
        script.push_str(&format!(
            "  echo {} >&2\n  exit 4\nfi\n",
            shell_quote(&format!("run ./apply.sh {ALLOW_DISRUPTION} to apply them"))
        ));
    }
    let steps = apply_steps(plan, cluster, region);
    if !steps.is_empty() {
        script.push_str(&super::lock::script(cluster, region, KUBECONFIG_FILE));
    }
    for step in steps {
        script.push_str(&format!(
            "\nlock_check\nstep {}\n",
            shell_quote(&crate::model::items::visible(&step.change))
        ));
        let words: Vec<String> = step.argv().iter().map(|word| shell_quote(word)).collect();
        script.push_str(&words.join(" "));
        script.push('\n');
    }
    if plan.changes.is_empty() {
        script.push_str("\necho 'No changes: the cluster already is what the design says.'\n");
    }
    script
}

/// Whether `plan` changes nothing the user must consent to: no step drains nodes.
pub fn disrupts(plan: &Plan) -> bool {
    plan.changes.iter().any(|change| change.disruptive)
}

/// The action counts in words, for a job's title (`2 to create, 1 to delete`).
pub fn counts(plan: &Plan) -> String {
    let parts: Vec<String> = [
        (Action::Create, "create"),
        (Action::Update, "update"),
        (Action::Replace, "replace"),
        (Action::Delete, "delete"),
    ]
    .into_iter()
    .filter(|(action, _)| plan.count(*action) > 0)
    .map(|(action, word)| format!("{} to {word}", plan.count(action)))
    .collect();
    if parts.is_empty() {
        "no changes".to_owned()
    } else {
        parts.join(", ")
    }
}

/// What of a change must stay the same for an approved plan to still hold: the object,
/// what happens to it, which fields, the commands, whether it disrupts, and what it
/// disrupts (the running jobs a drain stops are named there, so a job that landed on a
/// drained node since the plan was made is a difference).
fn essence(plan: &serde_json::Value) -> Vec<serde_json::Value> {
    plan["changes"]
        .as_array()
        .map(|changes| {
            changes
                .iter()
                .map(|change| {
                    serde_json::json!([
                        change["kind"],
                        change["name"],
                        change["action"],
                        change["fields"],
                        change["steps"],
                        change["disruptive"],
                        change["disruption"]
                    ])
                })
                .collect()
        })
        .unwrap_or_default()
}

/// How the plan the user approved (its JSON, as `plan --out` writes it and the page
/// holds it) differs from `now`, the plan against the cluster as it is: each change one
/// has and the other lacks, and each drain that now stops other running work, in words.
/// Empty when the approval still holds. Linear in the plans' sizes.
pub fn differences(approved: &serde_json::Value, now: &Plan) -> Vec<String> {
    let now = serde_json::to_value(now).unwrap_or_default();
    let (approved, now) = (essence(approved), essence(&now));
    let key = |change: &serde_json::Value| change.to_string();
    // The same change but for what its drain stops: keyed by all but the last part.
    let object = |change: &serde_json::Value| {
        let parts = change.as_array().map(Vec::as_slice).unwrap_or_default();
        serde_json::Value::from(parts[..parts.len().saturating_sub(1)].to_vec()).to_string()
    };
    let approved_keys: std::collections::HashSet<String> = approved.iter().map(key).collect();
    let now_keys: std::collections::HashSet<String> = now.iter().map(key).collect();
    let now_objects: std::collections::HashMap<String, &serde_json::Value> = now
        .iter()
        .filter(|change| !approved_keys.contains(&key(change)))
        .map(|change| (object(change), change))
        .collect();
    let words = |change: &serde_json::Value| {
        let fields: Vec<&str> = change[3]
            .as_array()
            .map(|fields| {
                fields
                    .iter()
                    .filter_map(serde_json::Value::as_str)
                    .collect()
            })
            .unwrap_or_default();
        let text = |index: usize| change[index].as_str().unwrap_or_default().to_owned();
        if fields.is_empty() {
            format!("{} {} {}", text(2), text(0), text(1))
        } else {
            format!(
                "{} {} {} ({})",
                text(2),
                text(0),
                text(1),
                fields.join(", ")
            )
        }
    };
    let disrupted = |change: &serde_json::Value| {
        let text = change[6].as_str().unwrap_or_default();
        if text.is_empty() {
            "nothing".to_owned()
        } else {
            crate::model::items::visible(text).into_owned()
        }
    };
    let mut moved = std::collections::HashSet::new();
    let mut differences = Vec::new();
    for change in approved
        .iter()
        .filter(|change| !now_keys.contains(&key(change)))
    {
        match now_objects.get(&object(change)) {
            Some(now) => {
                moved.insert(key(now));
                differences.push(format!(
                    "what {} disrupts changed: now {}; approved: {}",
                    words(change),
                    disrupted(now),
                    disrupted(change)
                ));
            }
            None => differences.push(format!("approved, no longer planned: {}", words(change))),
        }
    }
    differences.extend(
        now.iter()
            .filter(|change| !approved_keys.contains(&key(change)) && !moved.contains(&key(change)))
            .map(|change| format!("planned now, not approved: {}", words(change))),
    );
    differences
}

/// What the person approving an apply of `plan` to `cluster` agrees to, as the job's
/// approval step says it: the changes counted on the first line, then each change that
/// drains nodes or lets Karpenter replace them on a line of its own; when the plan
/// changes who may reach the cluster or the account (access entries, Pod Identity
/// associations, the endpoint), everything the design then grants (`grants`, as
/// [`crate::deploy::keys::grants`] says it).
pub fn approval_title(cluster: &str, plan: &Plan, grants: &[String]) -> String {
    let mut title = format!("apply to {cluster}: {}", counts(plan));
    for line in disruptions(plan) {
        title.push_str(&format!(
            "\ndisrupts running pods: {}",
            crate::model::items::visible(&line)
        ));
    }
    let touches_access = plan.changes.iter().any(|change| {
        matches!(
            change.kind.as_str(),
            "accessentry" | "podidentityassociation"
        ) || (change.kind == "cluster"
            && change
                .fields
                .iter()
                .any(|field| field == "vpc" || field.starts_with("accessConfig")))
    });
    if touches_access {
        for line in grants {
            title.push_str(&format!(
                "\ngrants, once applied: {}",
                crate::model::items::visible(line)
            ));
        }
    }
    title
}

/// The lines of an [`approval_title`], for a list.
pub fn lines_of_apply_title(title: &str) -> Vec<String> {
    title
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// "1 of the plan's changes disrupts running pods", "2 of the plan's changes disrupt …".
pub fn disrupting(count: usize) -> String {
    let verb = if count == 1 { "disrupts" } else { "disrupt" };
    format!("{count} of the plan's changes {verb} running pods")
}

/// The training work that landed on the nodes a step of `approved` drains since that plan
/// was made: what `now` (the cluster planned again, just before the step) names on the
/// nodes of the change the step belongs to (`kind`, `name`) that `approved` did not, in
/// words. A drain runs only over work someone consented to stop.
pub fn landed_since(approved: &Plan, now: &Plan, kind: &str, name: &str) -> Vec<String> {
    let of = |plan: &Plan| {
        plan.changes
            .iter()
            .find(|change| change.kind == kind && change.name == name)
            .map(|change| change.workloads.clone())
            .unwrap_or_default()
    };
    let before = of(approved);
    of(now)
        .into_iter()
        .filter(|work| work.training)
        .filter(|work| {
            !before.iter().any(|known| {
                (&known.kind, &known.namespace, &known.name)
                    == (&work.kind, &work.namespace, &work.name)
            })
        })
        .map(|work| crate::model::items::visible(&work.describe()).into_owned())
        .collect()
}
