//! One command of a plan, made once where the plan is made: the program and its
//! arguments, what it waits for and for how long, whether it moves running pods (the step
//! the person's consent is for), and what it deletes. The apply, `apply.sh`, `plan.txt`,
//! the page and the approval all render this value; none of them reads a command's
//! words back.

use serde::{Deserialize, Serialize};

use crate::deploy::sequence::Tool;

/// How long eksctl waits for what a command starts when the command sets no timeout
/// (`pkg/ctl/cmdutils`: `DefaultWaitTimeout`).
pub const EKSCTL_WAIT: &str = "25m";

/// How long `eksctl upgrade cluster` waits for the control plane (`pkg/ctl/upgrade`).
pub const CLUSTER_UPGRADE_WAIT: &str = "65m";

/// How long `eksctl upgrade nodegroup` waits for the group's nodes to roll
/// (`pkg/ctl/upgrade`).
pub const NODEGROUP_UPGRADE_WAIT: &str = "45m";

/// What a step waits for before it succeeds, and for how long at most before it fails.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wait {
    /// What it waits for, in words (`the node group's nodes to roll`).
    pub until: String,
    /// For how long at most, as the peer writes a timeout (`25m`, `300s`).
    pub up_to: String,
}

/// One command of a change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// The program.
    pub tool: Tool,
    /// Its arguments.
    pub args: Vec<String>,
    /// What it waits for, when it waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<Wait>,
    /// Whether this is the command that moves running pods (a drain, a scale-in, a roll,
    /// an apply Karpenter replaces nodes for): the one a disruptive change's consent is
    /// for.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub moves_pods: bool,
    /// What it deletes (`nodegroup gpu`), when it deletes something.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletes: Option<String>,
}

impl Step {
    /// `tool` run with `args`, which neither waits, moves pods nor deletes.
    pub fn new(tool: Tool, args: &[&str]) -> Step {
        Step {
            tool,
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
            wait: None,
            moves_pods: false,
            deletes: None,
        }
    }

    /// `eksctl` with `args`.
    pub fn eksctl(args: &[&str]) -> Step {
        Step::new(Tool::Eksctl, args)
    }

    /// `aws` with `args`.
    pub fn aws(args: &[&str]) -> Step {
        Step::new(Tool::Aws, args)
    }

    /// `kubectl` with `args`.
    pub fn kubectl(args: &[&str]) -> Step {
        Step::new(Tool::Kubectl, args)
    }

    /// `helm` with `args`.
    pub fn helm(args: &[&str]) -> Step {
        Step::new(Tool::Helm, args)
    }

    /// The step with `args` added at its end.
    pub fn arg(mut self, arg: impl Into<String>) -> Step {
        self.args.push(arg.into());
        self
    }

    /// The step with each of `args` added at its end.
    pub fn with_args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Step {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// The step, waiting up to `up_to` for `until`.
    pub fn waits(mut self, until: &str, up_to: &str) -> Step {
        self.wait = Some(Wait {
            until: until.to_owned(),
            up_to: up_to.to_owned(),
        });
        self
    }

    /// The step, as the one that moves running pods.
    pub fn moving_pods(mut self) -> Step {
        self.moves_pods = true;
        self
    }

    /// The step, as one that deletes `what`.
    pub fn deleting(mut self, what: impl Into<String>) -> Step {
        self.deletes = Some(what.into());
        self
    }

    /// The whole argument vector, program first.
    pub fn argv(&self) -> Vec<String> {
        std::iter::once(self.tool.command().to_owned())
            .chain(self.args.iter().cloned())
            .collect()
    }

    /// Whether `other` runs the same command (what the steps say of it aside).
    pub fn same_command(&self, other: &Step) -> bool {
        self.tool == other.tool && self.args == other.args
    }

    /// Whether the step has `arg` among its arguments.
    pub fn has(&self, arg: &str) -> bool {
        self.args.iter().any(|word| word == arg)
    }
}
