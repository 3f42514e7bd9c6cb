//! `eks-studio check --spec FILE`: the live AWS checks from the terminal.

use std::path::Path;
use std::process::ExitCode;

use shared::Spec;

use crate::aws::live::{self, CheckStatus, LiveReport};
use crate::aws::{AwsOptions, LiveAws};

/// Output format of `eks-studio check`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    /// One line per check, then the live findings as diagnostics.
    #[default]
    Human,
    /// The same JSON object `POST /api/checks` answers.
    Json,
}

/// `eks-studio check --spec FILE`: exit 0 when every check is ok, 1 when any failed,
/// 2 when the spec cannot be read or some check could not run.
pub fn check_command(
    spec_path: &Path,
    ec2_endpoint: Option<String>,
    eks_endpoint: Option<String>,
    format: CheckFormat,
    max_bytes: u64,
) -> ExitCode {
    let text = match crate::cli::read::read_capped(spec_path, max_bytes) {
        Ok(text) => text,
        Err(failure) => {
            eprintln!(
                "error: cannot read {}: {}",
                spec_path.display(),
                failure.message
            );
            return ExitCode::from(2);
        }
    };
    let spec = match Spec::from_json(&text) {
        Ok(spec) => spec,
        Err(error) => {
            eprintln!(
                "{}:{}:{}: error: {error}",
                spec_path.display(),
                error.line(),
                error.column()
            );
            return ExitCode::from(2);
        }
    };
    if let Some(reason) = spec.beyond_what_eks_runs() {
        eprintln!("error: {}: {reason}", spec_path.display());
        return ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let (aws, report) = runtime.block_on(async {
        let aws =
            LiveAws::from_default_chain(AwsOptions::from_environment(ec2_endpoint, eks_endpoint))
                .await;
        let report = live::run(&aws, &spec).await;
        (aws, report)
    });
    match format {
        CheckFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("a report serialises to JSON")
        ),
        CheckFormat::Human => print_human(spec_path, &spec, &aws, &report),
    }
    exit_code(&report)
}

fn exit_code(report: &LiveReport) -> ExitCode {
    let any = |status| report.checks.iter().any(|check| check.status == status);
    if any(CheckStatus::Failed) {
        ExitCode::from(1)
    } else if any(CheckStatus::CouldNotRun) {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

fn print_human(spec_path: &Path, spec: &Spec, aws: &LiveAws, report: &LiveReport) {
    let status = aws.status();
    let endpoint = status
        .ec2_endpoint
        .as_deref()
        .map(|endpoint| format!(" (EC2 at {endpoint})"))
        .unwrap_or_default();
    println!(
        "live checks for `{}` in {}{endpoint}",
        spec.cluster.name, spec.cluster.region
    );
    if let Some(reason) = &status.reason {
        println!("offline: {reason}");
    }
    let id_width = report
        .checks
        .iter()
        .map(|check| check.id.len())
        .max()
        .unwrap_or(0);
    for check in &report.checks {
        println!(
            "  {:13}  {:id_width$}  {}: {}",
            check.status.as_str(),
            check.id,
            check.path,
            check.message
        );
    }
    let live_findings = report
        .findings
        .iter()
        .filter(|finding| shared::rules::rule(&finding.rule).is_some_and(|rule| rule.live));
    let mut first = true;
    for finding in live_findings {
        if first {
            println!();
            first = false;
        }
        println!(
            "{}: {}[{}]: {}: {}",
            spec_path.display(),
            finding.severity,
            finding.rule,
            finding.path,
            finding.message
        );
        println!("  = help: {}", finding.help);
    }
    let count = |status| {
        report
            .checks
            .iter()
            .filter(|check| check.status == status)
            .count()
    };
    println!(
        "\n{} ok, {} failed, {} could not run",
        count(CheckStatus::Ok),
        count(CheckStatus::Failed),
        count(CheckStatus::CouldNotRun)
    );
}
