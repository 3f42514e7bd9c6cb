//! `eks-studio diff OLD NEW`: what changing the cluster OLD describes into NEW would do,
//! offline. Each side is a `studio.json`, an eksctl or Karpenter YAML file, or a bundle
//! directory (its `studio.json`, else its `cluster.yaml`, `karpenter/*.yaml` and
//! `auto-mode/*.yaml` read as one design).
//!
//! Exit codes: 0 no changes, 1 changes, 3 a change the peers would refuse, 2 a side that
//! cannot be read.

use std::path::Path;
use std::process::ExitCode;

use shared::Spec;

use crate::cli::read::{read_capped, terminal_safe, terminal_safe_lines};

/// Output format of `eks-studio diff`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// `terraform plan`-like text: `+`, `~`, `-/+`, `-`, the commands, a summary.
    #[default]
    Human,
    /// `{"changes":[…],"findings":[…]}`.
    Json,
}

/// Reads both sides and prints the plan.
pub fn diff(old: &Path, new: &Path, format: DiffFormat, max_bytes: u64) -> ExitCode {
    let (before, after) = match (design_at(old, max_bytes), design_at(new, max_bytes)) {
        (Ok(before), Ok(after)) => (before, after),
        (Err(message), _) | (_, Err(message)) => {
            eprintln!("error: {}", terminal_safe(&message));
            return ExitCode::from(2);
        }
    };
    let plan = shared::changes::diff(&before, &after);
    match format {
        DiffFormat::Human => print!("{}", terminal_safe_lines(&shared::changes::human(&plan))),
        DiffFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&plan).expect("a plan serialises to JSON")
        ),
    }
    plan_exit_code(&plan)
}

/// 3 when a peer refuses a change, 0 when nothing changes, else 1.
pub(crate) fn plan_exit_code(plan: &shared::changes::Plan) -> ExitCode {
    if plan.refused() {
        ExitCode::from(3)
    } else if plan.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The design a path holds: a file, or a bundle directory.
pub(crate) fn design_at(path: &Path, max_bytes: u64) -> Result<Spec, String> {
    if path.is_dir() {
        let studio = path.join("studio.json");
        if studio.is_file() {
            return design_in_file(&studio, max_bytes);
        }
        let mut files = vec![path.join("cluster.yaml")];
        for folder in ["karpenter", "auto-mode"] {
            let mut found: Vec<_> = std::fs::read_dir(path.join(folder))
                .into_iter()
                .flatten()
                .flatten()
                .map(|entry| entry.path())
                .filter(|file| {
                    file.is_file()
                        && file
                            .extension()
                            .is_some_and(|extension| extension == "yaml")
                })
                .collect();
            found.sort();
            files.extend(found);
        }
        let mut design: Option<Spec> = None;
        for file in files.into_iter().filter(|file| file.is_file()) {
            let part = design_in_file(&file, max_bytes)?;
            design = Some(match design {
                None => part,
                Some(mut whole) => {
                    merge(&mut whole, part);
                    whole
                }
            });
        }
        return design.ok_or_else(|| {
            format!(
                "{} holds no studio.json, cluster.yaml or Karpenter file",
                path.display()
            )
        });
    }
    design_in_file(path, max_bytes)
}

/// What a later file of a directory adds to the design read so far: its Karpenter and
/// Auto Mode objects.
fn merge(whole: &mut Spec, part: Spec) {
    if let Some(karpenter) = part.karpenter {
        let settings = whole.karpenter.get_or_insert_with(Default::default);
        settings.node_pools.extend(karpenter.node_pools);
        settings.node_classes.extend(karpenter.node_classes);
        settings.node_overlays.extend(karpenter.node_overlays);
    }
    whole
        .auto_mode_pools
        .node_pools
        .extend(part.auto_mode_pools.node_pools);
    whole
        .auto_mode_pools
        .node_classes
        .extend(part.auto_mode_pools.node_classes);
}

fn design_in_file(path: &Path, max_bytes: u64) -> Result<Spec, String> {
    let shown = path.display().to_string();
    let text = read_capped(path, max_bytes).map_err(|failure| {
        format!(
            "{shown}:{}:{}: {}",
            failure.line, failure.column, failure.message
        )
    })?;
    if text.trim_start().starts_with('{') {
        return Spec::from_json(&text)
            .map_err(|error| format!("{shown}:{}:{}: {error}", error.line(), error.column()));
    }
    shared::lint::import_yaml(&text)
        .map(|parsed| parsed.spec)
        .map_err(|failures| {
            failures
                .iter()
                .map(|failure| {
                    format!(
                        "{shown}:{}:{}: {}",
                        failure.line, failure.column, failure.message
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
}
