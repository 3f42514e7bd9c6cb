//! `eks-studio read` and `eks-studio plan`: a running cluster read into a design (its
//! bundle written out), and what a design would change on it.
//!
//! Exit codes of `read`: 0 read (things not read are listed), 2 the cluster could not be
//! read. Of `plan`, as `diff`: 0 no changes, 1 changes, 3 a change the peers refuse,
//! 2 a design or the cluster that cannot be read.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use shared::changes::plan::LivePlan;
use shared::changes::read::Reading;
use shared::model::ids::Region;

use crate::aws::{AwsOptions, LiveAws};
use crate::cli::diff::{DiffFormat, design_at, plan_exit_code};
use crate::cli::read::{terminal_safe, terminal_safe_lines};
use crate::deploy::planning::PlanError;

/// The flags `read`, `plan` and `apply` share: which cluster, and how to reach it.
#[derive(Debug, clap::Args)]
pub struct ClusterFlags {
    /// The cluster's name.
    #[arg(long)]
    cluster: String,
    /// Its region.
    #[arg(long)]
    region: String,
    /// EC2 endpoint to use instead of AWS's (e.g. an emulator).
    #[arg(long)]
    ec2_endpoint: Option<String>,
    /// EKS endpoint to use instead of AWS's (e.g. an emulator).
    #[arg(long)]
    eks_endpoint: Option<String>,
    /// The AWS CLI the kubeconfigs name for kubectl's and helm's token (`aws eks
    /// get-token`); an apply's steps run it too (`aws eks update-kubeconfig`,
    /// `update-nodegroup-config`).
    #[arg(long, default_value = "aws")]
    aws: PathBuf,
    /// The kubectl that reads Karpenter's objects from the cluster (and an apply's steps
    /// run).
    #[arg(long, default_value = "kubectl")]
    kubectl: PathBuf,
    /// The helm that reads the Karpenter chart's values (and an apply's steps run).
    #[arg(long, default_value = "helm")]
    helm: PathBuf,
}

impl ClusterFlags {
    /// The cluster to reach, with `eksctl` when the command runs it.
    pub fn args(&self, eksctl: Option<PathBuf>) -> ClusterArgs<'_> {
        let defaults = crate::deploy::Tools::default();
        ClusterArgs {
            cluster: &self.cluster,
            region: &self.region,
            ec2_endpoint: self.ec2_endpoint.clone(),
            eks_endpoint: self.eks_endpoint.clone(),
            tools: crate::deploy::Tools {
                eksctl: eksctl.unwrap_or(defaults.eksctl),
                aws: self.aws.clone(),
                kubectl: self.kubectl.clone(),
                helm: self.helm.clone(),
            },
        }
    }
}

/// Which cluster, and how to reach AWS.
#[derive(Clone)]
pub struct ClusterArgs<'a> {
    /// Its name.
    pub cluster: &'a str,
    /// Its region.
    pub region: &'a str,
    /// Another EC2 endpoint (an emulator).
    pub ec2_endpoint: Option<String>,
    /// Another EKS endpoint (an emulator).
    pub eks_endpoint: Option<String>,
    /// The `aws` and `kubectl` that read the objects inside the cluster.
    pub tools: crate::deploy::Tools,
}

/// Runs `work` with the region `args` names and AWS as they configure it, on a runtime
/// of its own; the error in words.
fn with_aws<T>(
    args: ClusterArgs<'_>,
    work: impl AsyncFnOnce(&LiveAws, &Region, &crate::deploy::Tools, &str) -> Result<T, String>,
) -> Result<T, String> {
    let region = Region::parse(args.region.trim())
        .map_err(|_| format!("`{}` is not a known AWS region", args.region))?;
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    runtime.block_on(async {
        let aws = LiveAws::from_default_chain(AwsOptions::from_environment(
            args.ec2_endpoint,
            args.eks_endpoint,
        ))
        .await;
        work(&aws, &region, &args.tools, args.cluster).await
    })
}

/// Reads the cluster into a design.
fn read_running(args: ClusterArgs<'_>) -> Result<Reading, String> {
    let cluster = args.cluster.to_owned();
    with_aws(args, async |aws, region, tools, name| {
        crate::deploy::objects::read_running(aws, tools, region, name, &[])
            .await
            .map_err(|error| error.to_string())
    })
    .map_err(|error| format!("cannot read cluster {cluster}: {error}"))
}

/// `eks-studio read`: the bundle of the running cluster's design into `out` (or its
/// `cluster.yaml` on standard output), and what was not read.
pub fn read(args: ClusterArgs<'_>, out: Option<&Path>) -> ExitCode {
    let reading = match read_running(args) {
        Ok(reading) => reading,
        Err(message) => {
            eprintln!("error: {}", terminal_safe(&message));
            return ExitCode::from(2);
        }
    };
    match out {
        Some(out) => {
            let written = crate::cli::render::write_bundle(&reading.spec, out);
            if written != ExitCode::SUCCESS {
                return written;
            }
        }
        None => match shared::documents::render::render_cluster_yaml(&reading.spec) {
            Ok(yaml) => print!("{}", terminal_safe_lines(&yaml)),
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::from(2);
            }
        },
    }
    for gap in &reading.not_read {
        eprintln!(
            "not read: {}: {}",
            terminal_safe(&gap.what),
            terminal_safe(&gap.why)
        );
    }
    ExitCode::SUCCESS
}

/// The design at `design` and what it would change on the running cluster; the error
/// is said in words.
pub(crate) fn live_plan(
    design: &Path,
    args: ClusterArgs<'_>,
    max_bytes: u64,
) -> Result<(shared::Spec, LivePlan), String> {
    let after = design_at(design, max_bytes)?;
    let live = plan_for(&after, args)?;
    Ok((after, live))
}

/// What `after` would change on the running cluster (the one read-then-plan,
/// [`crate::deploy::planning`]).
pub(crate) fn plan_for(after: &shared::Spec, args: ClusterArgs<'_>) -> Result<LivePlan, String> {
    let cluster = args.cluster.to_owned();
    with_aws(args, async |aws, region, tools, name| {
        crate::deploy::planning::plan_running(aws, tools, region, name, after.clone())
            .await
            .map(|(_, live)| live)
            .map_err(|error| match error {
                PlanError::Beyond(reason) => reason,
                error => format!("cannot read cluster {cluster}: {error}"),
            })
    })
}

/// The plan as a person reads it, with what was not compared or not read.
pub(crate) fn plan_text(live: &LivePlan) -> String {
    let mut text = shared::changes::human(&live.plan);
    for what in &live.not_compared {
        text.push_str(&format!("not compared: {what}\n"));
    }
    for gap in &live.not_read {
        text.push_str(&format!("not read: {}: {}\n", gap.what, gap.why));
    }
    text
}

/// `eks-studio plan`: what the design at `design` would change on the running cluster;
/// with `out`, the design's bundle written there with `apply.sh`, `plan.txt` and
/// `plan.json`.
pub fn plan(
    design: &Path,
    args: ClusterArgs<'_>,
    format: DiffFormat,
    max_bytes: u64,
    out: Option<&Path>,
) -> ExitCode {
    let (cluster, region) = (args.cluster.to_owned(), args.region.to_owned());
    let (after, live) = match live_plan(design, args, max_bytes) {
        Ok(planned) => planned,
        Err(message) => {
            eprintln!("error: {}", terminal_safe(&message));
            return ExitCode::from(2);
        }
    };
    match format {
        DiffFormat::Human => print!("{}", terminal_safe_lines(&plan_text(&live))),
        DiffFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&live).expect("a plan serialises to JSON")
        ),
    }
    if let Some(out) = out
        && let Err(message) = write_apply_bundle(&after, &live, &cluster, &region, out)
    {
        eprintln!("error: {}", terminal_safe(&message));
        return ExitCode::from(2);
    }
    plan_exit_code(&live.plan)
}

/// Writes the bundle of `after` with the plan beside it into `out`: `apply.sh`,
/// `plan.txt`, `plan.json`.
pub(crate) fn write_apply_bundle(
    after: &shared::Spec,
    live: &LivePlan,
    cluster: &str,
    region: &str,
    out: &Path,
) -> Result<(), String> {
    let findings = shared::rules::validate_with(after, &crate::clock::todays_facts());
    let mut files: Vec<(String, String, bool)> =
        shared::deploy::bundle::bundle_files(after, &findings, &[])
            .map_err(|error| error.to_string())?
            .into_iter()
            .map(|file| (file.path, file.contents, file.executable))
            .collect();
    files.push((
        "apply.sh".into(),
        shared::changes::apply::apply_script(&live.plan, cluster, region),
        true,
    ));
    if let Some(interim) = shared::changes::apply::interim_file(&live.plan, after)
        .map_err(|error| error.to_string())?
    {
        files.push((shared::changes::INTERIM_FILE.into(), interim, false));
    }
    files.push(("plan.txt".into(), plan_text(live), false));
    files.push((
        "plan.json".into(),
        serde_json::to_string_pretty(live).expect("a plan serialises to JSON") + "\n",
        false,
    ));
    for (path, contents, executable) in files {
        let path = out.join(path);
        crate::cli::files::write_file(&path, &contents, executable)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    }
    Ok(())
}

/// The cluster's apply lock, held for `holder` on a runtime of its own that renews it
/// while the caller runs its steps; or why not (someone else holds it: `Held`).
pub(crate) fn lock_cluster(
    args: &ClusterArgs<'_>,
    holder: &crate::deploy::lock::Holder,
    break_lock: bool,
) -> Result<
    (tokio::runtime::Runtime, crate::deploy::lock::ClusterLock),
    crate::deploy::lock::LockError,
> {
    use crate::deploy::lock::{ClusterLock, LockError};
    let region = Region::parse(args.region.trim())
        .map_err(|_| LockError::Failed(format!("`{}` is not a known AWS region", args.region)))?;
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|error| LockError::Failed(format!("cannot start the async runtime: {error}")))?;
    let lock = runtime.block_on(async {
        let aws = LiveAws::from_default_chain(AwsOptions::from_environment(
            args.ec2_endpoint.clone(),
            args.eks_endpoint.clone(),
        ))
        .await;
        let (dir, kubeconfig) =
            crate::deploy::objects::private_kubeconfig(&aws, &args.tools, &region, args.cluster)
                .await
                .map_err(LockError::Failed)?;
        ClusterLock::take(
            &args.tools.kubectl,
            &kubeconfig,
            Some(dir),
            holder,
            break_lock,
        )
        .await
    })?;
    Ok((runtime, lock))
}
