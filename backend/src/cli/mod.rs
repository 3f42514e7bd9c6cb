//! Each subcommand is a thin call into `shared` (or into the server); the process exit
//! code follows docs/command-line.md: 0 fine, 1 findings, 2 input that cannot be read.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `eks-studio check`: the live checks from the terminal.
/// `eks-studio apply`.
pub mod apply;
pub mod check;
/// `eks-studio diff`: what a changed design would do to the cluster, offline.
pub mod diff;
/// Writing a command's output files without following symlinks.
pub mod files;
/// `eks-studio jobs`: the jobs a server keeps, with who asked and who approved.
pub mod jobs;
/// `eks-studio lint`, `convert` and `resolve`.
pub mod lint;
/// A capped read of a file, a spec named by template or file, text safe for a terminal.
pub mod read;
/// `eks-studio render`.
pub mod render;
/// `eks-studio read` and `eks-studio plan`: a running cluster read, and planned against.
pub mod running;

use crate::http::{AppState, app};

/// EKS Training Studio: design, check and ship EKS clusters for GPU training.
#[derive(Debug, Parser)]
#[command(name = "eks-studio", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the studio page and the JSON API.
    Serve {
        /// Address to listen on; loopback unless told otherwise.
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: SocketAddr,
        /// EC2 endpoint to use instead of AWS's (e.g. an emulator).
        #[arg(long)]
        ec2_endpoint: Option<String>,
        /// EKS endpoint to use instead of AWS's (e.g. an emulator), for the version check.
        #[arg(long)]
        eks_endpoint: Option<String>,
        /// The built frontend (trunk's output).
        #[arg(long, default_value = "target/dist")]
        static_dir: PathBuf,
        /// Another name requests may carry in `Host` (a DNS name or a reverse proxy's
        /// host); the listening address, any IP literal and `localhost` are always allowed.
        #[arg(long = "allowed-host", value_name = "NAME")]
        allowed_hosts: Vec<String>,
        /// Deploy jobs: where they are kept and which tools they run.
        #[command(flatten)]
        deploy: crate::deploy::DeployArgs,
    },
    /// List template ids with one line each.
    Templates,
    /// List every rule: `ID severity summary`.
    Rules,
    /// Lint eksctl / Karpenter YAML or a spec JSON: exit 0 no errors, 1 errors, 2 unreadable.
    Lint {
        /// Files to lint.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: crate::cli::lint::Format,
        /// Largest file read, in bytes (larger ones are refused, exit 2).
        #[arg(long, default_value_t = crate::cli::read::DEFAULT_MAX_BYTES)]
        max_bytes: u64,
    },
    /// Import and render again: eksctl input to DIR/cluster.yaml, Karpenter to DIR/karpenter/nodepools.yaml.
    Convert {
        /// Files to convert.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Directory to write into.
        #[arg(long)]
        out: PathBuf,
        /// Largest file read, in bytes (larger ones are refused, exit 2).
        #[arg(long, default_value_t = crate::cli::read::DEFAULT_MAX_BYTES)]
        max_bytes: u64,
    },
    /// Run the live AWS checks for a spec: exit 0 all ok, 1 any failed, 2 unreadable or not run.
    Check {
        /// The spec (`studio.json`).
        #[arg(long)]
        spec: PathBuf,
        /// EC2 endpoint to use instead of AWS's (e.g. an emulator).
        #[arg(long)]
        ec2_endpoint: Option<String>,
        /// EKS endpoint to use instead of AWS's (e.g. an emulator), for the version check.
        #[arg(long)]
        eks_endpoint: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: crate::cli::check::CheckFormat,
        /// Largest file read, in bytes (larger ones are refused, exit 2).
        #[arg(long, default_value_t = crate::cli::read::DEFAULT_MAX_BYTES)]
        max_bytes: u64,
    },
    /// List the instance types each NodePool can launch: exit 0, 2 unreadable.
    Resolve {
        /// eksctl / Karpenter YAML files whose NodePools to resolve.
        #[arg(conflicts_with_all = ["template", "spec"], required_unless_present_any = ["template", "spec"])]
        files: Vec<PathBuf>,
        /// A template's NodePools.
        #[arg(long, conflicts_with = "spec")]
        template: Option<String>,
        /// A spec's NodePools (`studio.json`).
        #[arg(long)]
        spec: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: crate::cli::lint::Format,
        /// Largest file read, in bytes (larger ones are refused, exit 2).
        #[arg(long, default_value_t = crate::cli::read::DEFAULT_MAX_BYTES)]
        max_bytes: u64,
    },
    /// What changing the cluster OLD describes into NEW would do: exit 0 no changes,
    /// 1 changes, 3 a change the peers refuse, 2 unreadable.
    Diff {
        /// The design as it is: a studio.json, a YAML file or a bundle directory.
        old: PathBuf,
        /// The design as it should be.
        new: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: diff::DiffFormat,
        /// Largest file read, in bytes (larger ones are refused, exit 2).
        #[arg(long, default_value_t = crate::cli::read::DEFAULT_MAX_BYTES)]
        max_bytes: u64,
    },
    /// List the deploys and applies a server keeps in its data directory, newest first,
    /// with who asked for each and who approved it.
    Jobs {
        /// The server's data directory
        /// [default: $XDG_DATA_HOME/eks-studio, else ~/.local/share/eks-studio].
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Read a running cluster into a design: its cluster.yaml on standard output, or its
    /// bundle into --out; what could not be read is listed. Exit 0 read, 2 not readable.
    Read {
        /// Which cluster, and how to reach it.
        #[command(flatten)]
        running: running::ClusterFlags,
        /// Directory to write the bundle into (created when missing).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// What DESIGN would change on the running cluster: exit 0 no changes, 1 changes,
    /// 3 a change the peers refuse, 2 unreadable.
    Plan {
        /// The design: a studio.json, a YAML file or a bundle directory.
        design: PathBuf,
        /// Which cluster, and how to reach it.
        #[command(flatten)]
        running: running::ClusterFlags,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: diff::DiffFormat,
        /// Directory to write the design's bundle into, with `apply.sh`, `plan.txt` and
        /// `plan.json` (created when missing).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Largest file read, in bytes (larger ones are refused, exit 2).
        #[arg(long, default_value_t = crate::cli::read::DEFAULT_MAX_BYTES)]
        max_bytes: u64,
    },
    /// Apply DESIGN to the running cluster: the plan, approved, run step by step, the
    /// cluster read again. Exit 0 done, 1 a step failed or the cluster still differs,
    /// 2 unreadable, 3 refused, 4 not approved, 5 the approved plan is stale.
    Apply {
        /// The design: a studio.json, a YAML file or a bundle directory.
        design: PathBuf,
        /// Which cluster, and how to reach it.
        #[command(flatten)]
        running: running::ClusterFlags,
        /// Apply without asking; steps that drain nodes also need --allow-disruption.
        #[arg(long)]
        auto_approve: bool,
        /// Consent to steps that drain nodes or let Karpenter replace them.
        #[arg(long)]
        allow_disruption: bool,
        /// The plan.json (from `plan --out`) that was reviewed: refused if the cluster's
        /// plan now differs from it.
        #[arg(long)]
        approved_plan: Option<PathBuf>,
        /// Take the cluster's apply lock even though someone holds it (their process is
        /// gone and its Lease has not expired yet); says whose it was, in the Lease too.
        #[arg(long)]
        break_lock: bool,
        /// Directory for the bundle the steps read (a private temporary one otherwise).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The eksctl the steps run.
        #[arg(long, default_value = "eksctl")]
        eksctl: PathBuf,
        /// Largest file read, in bytes (larger ones are refused, exit 2).
        #[arg(long, default_value_t = crate::cli::read::DEFAULT_MAX_BYTES)]
        max_bytes: u64,
    },
    /// Write a bundle's files into a directory.
    Render {
        /// Start from this template id.
        #[arg(long, conflicts_with = "spec", required_unless_present = "spec")]
        template: Option<String>,
        /// Start from this spec (`studio.json`).
        #[arg(long)]
        spec: Option<PathBuf>,
        /// Directory to write into (created when missing).
        #[arg(long)]
        out: PathBuf,
        /// Largest file read, in bytes (larger ones are refused, exit 2).
        #[arg(long, default_value_t = crate::cli::read::DEFAULT_MAX_BYTES)]
        max_bytes: u64,
    },
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    run(Cli::parse())
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Serve {
            addr,
            ec2_endpoint,
            eks_endpoint,
            static_dir,
            allowed_hosts,
            deploy,
        } => serve(
            addr,
            (ec2_endpoint, eks_endpoint),
            static_dir,
            &allowed_hosts,
            deploy,
        ),
        Command::Jobs { data_dir } => jobs::jobs(data_dir.as_deref()),
        Command::Templates => {
            let width = shared::TEMPLATES
                .iter()
                .map(|template| template.id.len())
                .max()
                .unwrap_or(0);
            for template in shared::TEMPLATES {
                println!("{:width$}  {}", template.id, template.summary);
            }
            ExitCode::SUCCESS
        }
        Command::Lint {
            files,
            format,
            max_bytes,
        } => crate::cli::lint::lint(&files, format, max_bytes),
        Command::Convert {
            files,
            out,
            max_bytes,
        } => crate::cli::lint::convert(&files, &out, max_bytes),
        Command::Rules => {
            let catalog = shared::rules::catalog();
            let width = catalog.iter().map(|rule| rule.id.len()).max().unwrap_or(0);
            for rule in &catalog {
                println!(
                    "{:width$}  {:7}  {:17}  {}\n{:width$}  source: {}",
                    rule.id,
                    rule.severity.as_str(),
                    rule.stage.as_str(),
                    rule.summary,
                    "",
                    rule.reference
                );
            }
            println!();
            for stage in shared::rules::Stage::ALL {
                let count = catalog.iter().filter(|rule| rule.stage == stage).count();
                println!("{count:3} {:17}  {}", stage.as_str(), stage.describe());
            }
            println!("{:3} rules", catalog.len());
            ExitCode::SUCCESS
        }
        Command::Check {
            spec,
            ec2_endpoint,
            eks_endpoint,
            format,
            max_bytes,
        } => crate::cli::check::check_command(&spec, ec2_endpoint, eks_endpoint, format, max_bytes),
        Command::Render {
            template,
            spec,
            out,
            max_bytes,
        } => render::render(template.as_deref(), spec.as_deref(), &out, max_bytes),
        Command::Resolve {
            files,
            template,
            spec,
            format,
            max_bytes,
        } => crate::cli::lint::resolve(
            &files,
            template.as_deref(),
            spec.as_deref(),
            format,
            max_bytes,
        ),
        Command::Diff {
            old,
            new,
            format,
            max_bytes,
        } => diff::diff(&old, &new, format, max_bytes),
        Command::Read { running, out } => running::read(running.args(None), out.as_deref()),
        Command::Plan {
            design,
            running,
            format,
            out,
            max_bytes,
        } => running::plan(
            &design,
            running.args(None),
            format,
            max_bytes,
            out.as_deref(),
        ),
        Command::Apply {
            design,
            running,
            auto_approve,
            allow_disruption,
            approved_plan,
            break_lock,
            out,
            eksctl,
            max_bytes,
        } => apply::apply(
            &design,
            running.args(Some(eksctl)),
            apply::Approval {
                auto_approve,
                allow_disruption,
                approved_plan: approved_plan.as_deref(),
                break_lock,
            },
            out.as_deref(),
            max_bytes,
        ),
    }
}

fn serve(
    addr: SocketAddr,
    (ec2_endpoint, eks_endpoint): (Option<String>, Option<String>),
    static_dir: PathBuf,
    allowed_hosts: &[String],
    deploy: crate::deploy::DeployArgs,
) -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,tower_http=warn,aws_config=error".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let static_dir = if static_dir.join("index.html").is_file() {
        Some(static_dir)
    } else {
        tracing::warn!(dir = %static_dir.display(), "no built frontend here: serving the API only (build it with `cargo xtask run`)");
        None
    };
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime starts");
    runtime.block_on(async move {
        let (token, token_source) = match crate::deploy::DeployToken::from_environment() {
            Ok(token) => token,
            Err(error) => {
                eprintln!("error: cannot set up deploys: {error}");
                return ExitCode::from(2);
            }
        };
        // A data directory that cannot be written turns deploys off, not the whole studio:
        // everything else still serves, and the deploy routes say why they cannot.
        let aws = crate::aws::server_aws(ec2_endpoint, eks_endpoint).await;
        let missing_credentials = aws.status().reason.filter(|_| !aws.status().credentials);
        let tools = deploy.tools();
        let (deployer, deploy_unavailable) = match deploy.open(token.clone(), missing_credentials) {
            Ok(deployer) => (Some(deployer), None),
            // Two servers on one data directory would each take the other's running
            // deploys for leftovers: the second one does not start.
            Err(error @ crate::deploy::DeployError::DataDirInUse(_)) => {
                eprintln!("error: {error}");
                return ExitCode::from(2);
            }
            Err(error) => {
                eprintln!("warning: deploys are disabled: {error}");
                let unavailable = crate::deploy::DeploysUnavailable {
                    reason: error.to_string(),
                    token,
                };
                (None, Some(unavailable))
            }
        };
        let mut state = AppState {
            static_dir,
            aws,
            deploys: match (&deployer, deploy_unavailable) {
                (Some(deployer), _) => crate::deploy::Deploys::Enabled(deployer.clone()),
                (None, Some(unavailable)) => crate::deploy::Deploys::Unavailable(unavailable),
                (None, None) => crate::deploy::Deploys::NotEnabled,
            },
            host_guard: None,
            tools,
        };
        if let Some(reason) = state.aws.status().reason {
            tracing::info!(%reason, "offline: live checks will report that they could not run");
        }
        let listener = match tokio::net::TcpListener::bind(addr).await {
            Ok(listener) => listener,
            Err(error) => {
                eprintln!("error: cannot listen on {addr}: {error}");
                return ExitCode::from(2);
            }
        };
        let local_addr = listener
            .local_addr()
            .expect("a bound listener has an address");
        state.host_guard = Some(crate::http::guard::HostGuard::new(
            local_addr,
            allowed_hosts,
        ));
        let limits = crate::http::server::ConnectionLimits::for_this_process();
        tracing::info!(
            descriptors = crate::http::server::descriptor_limit(),
            max_connections = limits.max_connections,
            header_timeout_seconds = limits.header_timeout.as_secs(),
            "connection limits"
        );
        match (&deployer, token_source) {
            // The warning above already said why.
            (None, _) => {}
            (Some(deployer), crate::deploy::TokenSource::Generated) => {
                println!("Deploy token: {}", deployer.token().reveal());
            }
            (Some(_), crate::deploy::TokenSource::Environment) => {
                println!("Deploy token: from {}", crate::deploy::auth::TOKEN_VARIABLE);
            }
        }
        if !local_addr.ip().is_loopback() {
            println!("{}", crate::http::token::BEYOND_LOOPBACK);
        }
        // Tests and `cargo xtask run` read this line to find the port.
        println!("EKS Training Studio listening on http://{local_addr}/");
        // Running deploys are stopped and recorded `interrupted` before the server ends,
        // which also ends their event streams so the graceful shutdown can finish.
        let shutdown = async move {
            shutdown_signal().await;
            if let Some(deployer) = deployer {
                deployer.shutdown().await;
            }
        };
        crate::http::server::serve(listener, app(state), limits, shutdown).await;
        ExitCode::SUCCESS
    })
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .expect("SIGTERM handler installs");
        tokio::select! {
            _ = interrupt => {},
            _ = terminate.recv() => {},
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}
