//! `eks-studio apply`: the plan of a design against the running cluster, shown, approved
//! and run step by step (`shared::changes::apply`, the steps `apply.sh` runs), then the
//! cluster read again: anything still different is a failure.
//!
//! Exit codes: 0 applied and the cluster is what the design says (or nothing to do);
//! 1 a step failed, or the cluster still differs after the steps; 2 a design or cluster
//! that cannot be read; 3 a change the peers refuse (nothing run); 4 not approved (no
//! terminal to ask and no `--auto-approve`, an answer other than `yes`, or disruptive
//! steps without `--allow-disruption`); 5 the cluster changed since the approved plan (or
//! since the plan shown, read again once the lock is held); 6 another apply holds the
//! cluster's lock (nothing run).
//!
//! Once approved, the apply takes the cluster's lock (`deploy::lock`, a Lease in the
//! cluster that every server, terminal and CI job takes before changing it), plans again
//! under it, and runs the steps only when that plan is the one shown; the lock is renewed
//! while the steps run and freed at the end.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use shared::changes::apply::{
    ALLOW_DISRUPTION, ApplyStep, KUBECONFIG_FILE, apply_steps, disruptions,
};

use crate::cli::read::{terminal_safe, terminal_safe_lines};
use crate::cli::running::{
    ClusterArgs, live_plan, lock_cluster, plan_for, plan_text, write_apply_bundle,
};
use crate::deploy::lock::LockError;

/// How the user approves.
pub struct Approval<'a> {
    /// No question asked.
    pub auto_approve: bool,
    /// Consent to steps that drain nodes or let Karpenter replace them.
    pub allow_disruption: bool,
    /// The `plan.json` the user approved: the apply refuses when the cluster's plan now
    /// differs from it.
    pub approved_plan: Option<&'a Path>,
    /// Take the cluster's lock from a live holder too.
    pub break_lock: bool,
}

/// Asks on the terminal; `true` only for `yes`.
fn ask(question: &str) -> bool {
    eprint!("{question} ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer).is_ok() && answer.trim() == "yes"
}

/// A directory of this apply's own for the bundle and the kubeconfig: `--out`, or a new
/// one of this user's only (0700) with a random name, never one that exists.
fn work_directory(out: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(out) = out {
        std::fs::create_dir_all(out)
            .map_err(|error| format!("cannot make {}: {error}", out.display()))?;
        return Ok(out.to_path_buf());
    }
    crate::cli::files::new_private_dir("eks-studio-apply").map_err(|error| {
        format!(
            "cannot make a private folder in {}: {error}",
            std::env::temp_dir().display()
        )
    })
}

/// Runs one step in `dir`, its output passed through; whether it succeeded, in words
/// when not.
fn run_step(step: &ApplyStep, tools: &crate::deploy::Tools, dir: &Path) -> Result<(), String> {
    let program = tools.path(step.step.tool);
    let status = Command::new(program)
        .args(&step.step.args)
        .current_dir(dir)
        .env("KUBECONFIG", dir.join(KUBECONFIG_FILE))
        .stdin(Stdio::null())
        .status()
        .map_err(|error| format!("could not start {}: {error}", program.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(match status.code() {
            Some(code) => format!("exited with {code}"),
            None => "was stopped by a signal".to_owned(),
        })
    }
}

fn shown(step: &ApplyStep) -> String {
    step.argv()
        .iter()
        .map(|word| shared::deploy::sequence::shell_quote(word))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `eks-studio apply`.
pub fn apply(
    design: &Path,
    args: ClusterArgs<'_>,
    approval: Approval<'_>,
    out: Option<&Path>,
    max_bytes: u64,
) -> ExitCode {
    let (cluster, region) = (args.cluster.to_owned(), args.region.to_owned());
    let tools = args.tools.clone();
    let again = args.clone();
    let for_lock = args.clone();
    let (after, live) = match live_plan(design, args, max_bytes) {
        Ok(planned) => planned,
        Err(message) => {
            eprintln!("error: {}", terminal_safe(&message));
            return ExitCode::from(2);
        }
    };
    print!("{}", terminal_safe_lines(&plan_text(&live)));
    if let Some(path) = approval.approved_plan {
        let approved: serde_json::Value = match std::fs::read_to_string(path)
            .map_err(|error| error.to_string())
            .and_then(|text| serde_json::from_str(&text).map_err(|error| error.to_string()))
        {
            Ok(approved) => approved,
            Err(error) => {
                eprintln!(
                    "error: cannot read the approved plan {}: {error}",
                    path.display()
                );
                return ExitCode::from(2);
            }
        };
        let differences = shared::changes::apply::differences(&approved, &live.plan);
        if !differences.is_empty() {
            eprintln!(
                "error: the cluster changed since the plan in {} was made; nothing was run:",
                path.display()
            );
            for difference in differences {
                eprintln!("  {}", terminal_safe(&difference));
            }
            eprintln!("plan again, review it and apply that plan");
            return ExitCode::from(5);
        }
    }
    if live.plan.refused() {
        eprintln!("error: a peer would refuse a change of this plan (above); nothing was run");
        return ExitCode::from(3);
    }
    if live.plan.is_empty() {
        return ExitCode::SUCCESS;
    }
    let consent = disruptions(&live.plan);
    if approval.auto_approve {
        if !consent.is_empty() && !approval.allow_disruption {
            eprintln!(
                "error: {}, and --auto-approve does not consent to that; nothing was run:",
                shared::changes::apply::disrupting(consent.len())
            );
            for line in &consent {
                eprintln!("  {}", terminal_safe(line));
            }
            eprintln!("give {ALLOW_DISRUPTION} as well to apply them");
            return ExitCode::from(4);
        }
    } else {
        if !std::io::stdin().is_terminal() {
            eprintln!(
                "error: no terminal to ask for approval; give --auto-approve (and {ALLOW_DISRUPTION} for changes that disrupt running pods) to apply without asking"
            );
            return ExitCode::from(4);
        }
        for line in &consent {
            eprintln!("disrupts: {}", terminal_safe(line));
        }
        if !ask(&format!(
            "Apply these changes to cluster {}? Only 'yes' is accepted:",
            terminal_safe(&cluster)
        )) {
            eprintln!("apply cancelled; nothing was run");
            return ExitCode::from(4);
        }
    }
    // One change at a time: the cluster's lock, then the plan again under it.
    let holder = crate::deploy::lock::Holder::this_user(
        "eks-studio apply",
        &format!("terminal run {}", std::process::id()),
    );
    let (runtime, lock) = match lock_cluster(&for_lock, &holder, approval.break_lock) {
        Ok(held) => held,
        Err(error @ LockError::Held(_)) => {
            eprintln!("error: {}", terminal_safe(&error.to_string()));
            return ExitCode::from(crate::deploy::lock::HELD_EXIT_CODE);
        }
        Err(error) => {
            eprintln!("error: {}", terminal_safe(&error.to_string()));
            return ExitCode::from(2);
        }
    };
    if let Some(broke) = &lock.broke {
        eprintln!(
            "warning: broke the cluster's lock, held by {}",
            terminal_safe(&broke.to_string())
        );
    }
    let release = |code: ExitCode, lock: crate::deploy::lock::ClusterLock| {
        runtime.block_on(lock.release());
        code
    };
    let approved = serde_json::to_value(&live.plan).unwrap_or_default();
    match plan_for(&after, again.clone()) {
        Ok(now) => {
            let differences = shared::changes::apply::differences(&approved, &now.plan);
            if !differences.is_empty() {
                eprintln!(
                    "error: the cluster changed since the plan above was made; nothing was run:"
                );
                for difference in differences {
                    eprintln!("  {}", terminal_safe(&difference));
                }
                eprintln!("plan again, review it and apply that plan");
                return release(ExitCode::from(5), lock);
            }
        }
        Err(message) => {
            eprintln!(
                "error: the cluster could not be read again under its lock: {}",
                terminal_safe(&message)
            );
            return release(ExitCode::from(2), lock);
        }
    }
    let dir = match work_directory(out) {
        Ok(dir) => dir,
        Err(message) => {
            eprintln!("error: {}", terminal_safe(&message));
            return release(ExitCode::from(2), lock);
        }
    };
    if let Err(message) = write_apply_bundle(&after, &live, &cluster, &region, &dir) {
        eprintln!("error: {}", terminal_safe(&message));
        return release(ExitCode::from(2), lock);
    }
    let steps = apply_steps(&live.plan, &cluster, &region);
    for (index, step) in steps.iter().enumerate() {
        // A step that drains nodes first looks at what runs on them now (the first step
        // runs right after the plan under the lock): training that landed there since
        // the plan was approved stops the apply.
        if let (true, Some(_), Some((kind, name))) = (index > 0, &step.disruption, &step.object) {
            let landed = match plan_for(&after, again.clone()) {
                Ok(now) => shared::changes::apply::landed_since(&live.plan, &now.plan, kind, name),
                Err(message) => vec![format!("(the cluster could not be read: {message})")],
            };
            if !landed.is_empty() {
                eprintln!(
                    "error: stopped before step {}: since the plan was approved, training work landed on the nodes it drains ({kind} {}): {}; steps 1 to {} were done, {} to {} were not run",
                    index + 1,
                    terminal_safe(name),
                    terminal_safe(&landed.join("; ")),
                    index,
                    index + 1,
                    steps.len()
                );
                eprintln!("plan again, review what it stops and apply that plan");
                return release(ExitCode::from(1), lock);
            }
        }
        if let Some(reason) = lock.lost() {
            eprintln!(
                "error: stopped before step {}: {}; steps 1 to {} were done, {} to {} were not run",
                index + 1,
                terminal_safe(&reason),
                index,
                index + 1,
                steps.len()
            );
            return release(ExitCode::from(1), lock);
        }
        eprintln!(
            "\n==> [{}/{}] {}\n$ {}",
            index + 1,
            steps.len(),
            terminal_safe(&step.title()),
            terminal_safe(&shown(step))
        );
        if let Err(why) = run_step(step, &tools, &dir) {
            eprintln!(
                "error: step {} ({}) {why}; steps 1 to {} were done, {} to {} were not run",
                index + 1,
                terminal_safe(&shown(step)),
                index,
                index + 1,
                steps.len()
            );
            eprintln!(
                "plan again to see what is left (the bundle is in {})",
                dir.display()
            );
            return release(ExitCode::from(1), lock);
        }
    }
    // Read again: a step that succeeded but changed nothing is not done.
    let read_again = plan_for(&after, again);
    runtime.block_on(lock.release());
    match read_again {
        Ok(left) if left.plan.is_empty() => {
            println!(
                "\nApply complete: {}; the cluster is what the design says.",
                shared::changes::apply::counts(&live.plan)
            );
            ExitCode::SUCCESS
        }
        Ok(left) => {
            eprintln!(
                "error: every step succeeded, but the cluster still differs from the design:"
            );
            eprint!("{}", terminal_safe_lines(&plan_text(&left)));
            ExitCode::from(1)
        }
        Err(message) => {
            eprintln!(
                "error: every step succeeded, but the cluster could not be read again: {}",
                terminal_safe(&message)
            );
            ExitCode::from(1)
        }
    }
}
