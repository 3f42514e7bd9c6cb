//! One-click deploy (docs/deploy.md). A job re-checks the spec with the shared rules, writes its
//! bundle into `<data-dir>/jobs/<id>/`, then runs eksctl (and helm and kubectl when the
//! bundle has Karpenter files) as child processes, storing every line in SQLite under the
//! data directory so history and logs survive a restart.
//!
//! [`Deployer`] is the handle the routes share. Opening it marks jobs a stopped server left
//! running `interrupted` and stops whatever processes they left behind.

/// The deploy token and the middleware that asks for it.
pub mod auth;
/// One change at a time to a running cluster: the apply lock, a Lease in the cluster.
pub mod lock;
/// The objects inside a running cluster, read with `aws` and `kubectl`.
pub mod objects;
/// A design planned against a running cluster: the one read, then the plan.
pub mod planning;
/// Running a job's steps as process groups.
pub mod runner;
/// eksctl's log lines read as progress stages.
pub mod stages;
/// Jobs, steps and events in SQLite.
pub mod store;

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::Stream;
use shared::Spec;
use shared::deploy::bundle::BundleFile;
use shared::model::ids::{Region, ResourceName};
use shared::model::live_checks::EventBody;
use shared::rules::{Finding, Severity};
use tokio::sync::{Semaphore, watch};

pub use auth::{DeployToken, TokenSource};
pub use store::{Event, Job, JobState};

use runner::StopReason;
use store::{Created, NewJob, NewStep, StepState, Store, StoreError};

/// How many deploys may run at once unless configured otherwise.
pub const DEFAULT_MAX_ACTIVE_DEPLOYS: usize = 4;

/// How long a step gets between SIGTERM and SIGKILL when it is stopped.
pub const DEFAULT_STOP_GRACE: Duration = Duration::from_secs(10);

/// The command-line tools a deploy runs: paths, or names looked up on `PATH`.
#[derive(Clone, Debug)]
pub struct Tools {
    /// `eksctl`.
    pub eksctl: PathBuf,
    /// `helm`, for the Karpenter chart.
    pub helm: PathBuf,
    /// `kubectl`, for the NodePools.
    pub kubectl: PathBuf,
    /// `aws`, for what Karpenter needs on AWS.
    pub aws: PathBuf,
}

impl Tools {
    /// The path of one of the sequence's tools.
    pub fn path(&self, tool: shared::deploy::sequence::Tool) -> &std::path::Path {
        use shared::deploy::sequence::Tool;
        match tool {
            Tool::Eksctl => &self.eksctl,
            Tool::Helm => &self.helm,
            Tool::Kubectl => &self.kubectl,
            Tool::Aws => &self.aws,
        }
    }
}

impl Default for Tools {
    fn default() -> Tools {
        Tools {
            eksctl: "eksctl".into(),
            helm: "helm".into(),
            kubectl: "kubectl".into(),
            aws: "aws".into(),
        }
    }
}

/// What a [`Deployer`] needs.
#[derive(Clone, Debug)]
pub struct DeployConfig {
    /// Holds `deploys.sqlite3` and `jobs/<id>/`.
    pub data_dir: PathBuf,
    /// The tools to run.
    pub tools: Tools,
    /// The secret deploy requests must present.
    pub token: DeployToken,
    /// How many deploys may run at once; more are refused with 429.
    pub max_active_deploys: usize,
    /// Time between SIGTERM and SIGKILL when a step is stopped.
    pub stop_grace: Duration,
    /// Why the server's environment has no AWS credentials for the tools, when it has none:
    /// deploys are then refused up front.
    pub missing_credentials: Option<String>,
    /// The `eks-studio` an apply job runs last, to read the cluster again and plan (this
    /// very binary, unless told otherwise).
    pub studio: PathBuf,
}

impl DeployConfig {
    /// A configuration with the default limits.
    pub fn new(data_dir: PathBuf, tools: Tools, token: DeployToken) -> DeployConfig {
        DeployConfig {
            data_dir,
            tools,
            token,
            max_active_deploys: DEFAULT_MAX_ACTIVE_DEPLOYS,
            stop_grace: DEFAULT_STOP_GRACE,
            missing_credentials: None,
            studio: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("eks-studio")),
        }
    }
}

/// `eks-studio serve`'s deploy flags.
#[derive(Clone, Debug, clap::Args)]
pub struct DeployArgs {
    /// Where deploy jobs, their bundles and logs are kept
    /// [default: $XDG_DATA_HOME/eks-studio, else ~/.local/share/eks-studio].
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// The eksctl deploys run.
    #[arg(long, default_value = "eksctl")]
    pub eksctl: PathBuf,
    /// The kubectl deploys run (Karpenter NodePools).
    #[arg(long, default_value = "kubectl")]
    pub kubectl: PathBuf,
    /// The helm deploys run (Karpenter chart).
    #[arg(long, default_value = "helm")]
    pub helm: PathBuf,
    /// The AWS CLI deploys run (what Karpenter needs on AWS).
    #[arg(long, default_value = "aws")]
    pub aws: PathBuf,
}

impl DeployArgs {
    /// The tools these flags name (reads of a running cluster run `aws` and `kubectl`
    /// too).
    pub fn tools(&self) -> Tools {
        Tools {
            eksctl: self.eksctl.clone(),
            helm: self.helm.clone(),
            kubectl: self.kubectl.clone(),
            aws: self.aws.clone(),
        }
    }

    /// Opens the deployer these flags describe, with this token.
    /// Opens the deployer; `missing_credentials` is why the server's environment has no
    /// AWS credentials, when it has none.
    pub fn open(
        self,
        token: DeployToken,
        missing_credentials: Option<String>,
    ) -> Result<Deployer, DeployError> {
        let tools = self.tools();
        let data_dir = self.data_dir.unwrap_or_else(default_data_dir);
        Deployer::open(DeployConfig {
            missing_credentials,
            ..DeployConfig::new(data_dir, tools, token)
        })
    }
}

/// Where `program` runs from: itself when it names a path (an executable file), else the
/// first executable of that name on `PATH`.
pub fn find_program(program: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |path: &Path| {
        std::fs::metadata(path)
            .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
    };
    if program.components().count() > 1 {
        return executable(program).then(|| program.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|candidate| executable(candidate))
}

/// `$XDG_DATA_HOME/eks-studio`, else `~/.local/share/eks-studio`, else `./eks-studio-data`.
pub fn default_data_dir() -> PathBuf {
    let non_empty = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(data_home) = non_empty("XDG_DATA_HOME") {
        PathBuf::from(data_home).join("eks-studio")
    } else if let Some(home) = non_empty("HOME") {
        PathBuf::from(home).join(".local/share/eks-studio")
    } else {
        PathBuf::from("eks-studio-data")
    }
}

/// Everything a deploy request can fail with; each answers with a JSON `{"error": …}`.
#[derive(Debug, thiserror::Error)]
pub enum DeployError {
    /// The spec has error findings (422, with every finding).
    #[error("the spec has {} error finding(s); fix them before deploying", errors(.0))]
    Refused(Vec<Finding>),
    /// The spec cannot be deployed for another reason (422).
    #[error("{0}")]
    Unprocessable(String),
    /// The design makes eksctl read files of the server's, and the user has not confirmed
    /// them (422, with each `key: file`).
    #[error(
        "the design makes eksctl read a file of the server's ({}); give the key itself with `ssh.publicKey`, or an EC2 key pair with `ssh.publicKeyName`, or confirm that eksctl may read it, and deploy again",
        .0.join(", ")
    )]
    ServerFiles(Vec<String>),
    /// The design carries keys whose effect on the server is not known to be harmless
    /// (422, with each key and why).
    #[error(
        "the design carries keys this server will not deploy: {}",
        .0.iter().map(|key| format!("`{}` ({})", key.path, key.reason)).collect::<Vec<_>>().join("; ")
    )]
    RefusedKeys(Vec<shared::deploy::keys::RefusedKey>),
    /// No such job (404).
    #[error("no deploy job with id `{0}`")]
    NotFound(String),
    /// A deploy of the same cluster name and region is active (409).
    #[error("a deploy of `{cluster}` in {region} is already active: job {job}")]
    Active {
        /// Cluster name.
        cluster: String,
        /// Region.
        region: String,
        /// The active job's id.
        job: String,
    },
    /// The job has already ended (409).
    #[error("job `{id}` is not active: it is {}", .state.as_str())]
    NotActive {
        /// The job's id.
        id: String,
        /// Its state.
        state: JobState,
    },
    /// The job is not waiting for approval (409).
    #[error("job `{id}` is not waiting for approval of its plan: it is {}", .state.as_str())]
    NotWaiting {
        /// The job's id.
        id: String,
        /// Its state.
        state: JobState,
    },
    /// Too many deploys run already (429).
    #[error("{0}")]
    Busy(String),
    /// Another apply holds the running cluster's lock (or it could not be taken).
    #[error(transparent)]
    Locked(lock::LockError),
    /// The server cannot deploy now: not configured, or stopping (503).
    #[error("{0}")]
    Unavailable(String),
    /// Another server holds the data directory: this one must not start on it.
    #[error("{0}")]
    DataDirInUse(String),
    /// Something failed on our side (500, detail logged).
    #[error(transparent)]
    Internal(Box<dyn std::error::Error + Send + Sync>),
}

fn errors(findings: &[Finding]) -> usize {
    findings
        .iter()
        .filter(|finding| finding.severity == Severity::Error)
        .count()
}

impl From<StoreError> for DeployError {
    fn from(error: StoreError) -> DeployError {
        DeployError::Internal(error.into())
    }
}

/// Whether the server deploys.
#[derive(Clone, Debug, Default)]
pub enum Deploys {
    /// Deploys run through this deployer.
    Enabled(Deployer),
    /// Deploys were asked for but could not be set up (a data directory that cannot be
    /// written, say).
    Unavailable(DeploysUnavailable),
    /// Deploys were not asked for (tests that serve only the rest of the API).
    #[default]
    NotEnabled,
}

impl Deploys {
    /// The token that opens the routes which reach a running cluster (deploys, applies,
    /// reads and plans); none on a server that was not asked to deploy.
    pub fn token(&self) -> Option<DeployToken> {
        match self {
            Deploys::Enabled(deployer) => Some(deployer.token().clone()),
            Deploys::Unavailable(unavailable) => Some(unavailable.token.clone()),
            Deploys::NotEnabled => None,
        }
    }
}

/// Why a server has no deploys although they were asked for, and the token whose holders
/// may read the reason.
#[derive(Clone, Debug)]
pub struct DeploysUnavailable {
    /// What went wrong (it names the data directory).
    pub reason: String,
    /// The deploy token the server would have used.
    pub token: DeployToken,
}

/// What an apply needs to take its cluster's lock: kubectl and a kubeconfig for the
/// cluster (its private folder goes with the lock), and whether to break a live hold.
pub struct LockRequest {
    /// The cluster's kubeconfig, and the folder it is in.
    pub kubeconfig: (objects::PrivateDir, PathBuf),
    /// Take the lock from a live holder too, saying whose it was.
    pub break_lock: bool,
    /// Who asked for the apply (the client's address, say).
    pub asked_by: String,
    /// The look at what runs on a step's nodes before it drains them, and the steps it
    /// is for (set by [`Deployer::start_apply`]).
    pub drains: Option<Drains>,
}

/// Looks again, just before a step drains the nodes of the object `(kind, name)`, at what
/// runs on them: `Err` in words when training landed there since the plan was approved.
pub type DrainGuard = std::sync::Arc<
    dyn Fn(String, String) -> futures_util::future::BoxFuture<'static, Result<(), String>>
        + Send
        + Sync,
>;

/// An apply job's drain guard and the positions of the steps that drain, each with the
/// object its change is of.
pub struct Drains {
    /// The look.
    pub guard: DrainGuard,
    /// Step position → (kind, name).
    pub at: HashMap<usize, (String, String)>,
}

impl LockRequest {
    async fn take(
        self,
        job: &str,
        config: &DeployConfig,
    ) -> Result<lock::ClusterLock, DeployError> {
        let (dir, kubeconfig) = self.kubeconfig;
        let holder = lock::Holder {
            who: self.asked_by,
            at: format!(
                "{} (server process {}, data directory {})",
                lock::host_name(),
                std::process::id(),
                config.data_dir.display()
            ),
            tool: "eks-studio serve".to_owned(),
            job: job.to_owned(),
        };
        lock::ClusterLock::take(
            &config.tools.kubectl,
            &kubeconfig,
            Some(dir),
            &holder,
            self.break_lock,
        )
        .await
        .map_err(DeployError::Locked)
    }
}

/// Whether `job` waits at its approval step.
fn waits_for_approval(job: &Job) -> bool {
    job.steps
        .iter()
        .any(|step| step.name == runner::APPROVAL_STEP && step.state == StepState::Running)
}

/// A design a deploy or an apply may carry: eksctl's document of it and the rules'
/// findings (none of them an error).
#[derive(Debug)]
pub struct Admitted {
    /// The `ClusterConfig` the design renders.
    pub cluster_document: yaml_serde::Value,
    /// Every finding, warnings and notes only.
    pub findings: Vec<Finding>,
}

/// The deploy side of the server. Cheap to clone.
#[derive(Clone)]
pub struct Deployer {
    inner: Arc<Inner>,
}

struct Inner {
    config: DeployConfig,
    /// Held open (and locked) for as long as this server uses the data directory.
    _lock: std::fs::File,
    store: Store,
    slots: Arc<Semaphore>,
    active: Mutex<HashMap<String, ActiveJob>>,
    stopping: AtomicBool,
    /// Set once `shutdown` has stopped every job: event streams end even for a job whose
    /// end could not be stored, so the server can finish.
    stopped: watch::Sender<bool>,
}

struct ActiveJob {
    stop: watch::Sender<Option<StopReason>>,
    approve: watch::Sender<bool>,
    done: watch::Receiver<bool>,
}

impl fmt::Debug for Deployer {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Deployer")
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

/// Creates the job store readable by this user only, and makes an existing store and its
/// journal files so: SQLite gives the `-wal` and `-shm` files it creates the store's mode.
fn restrict_store_files(store_path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(store_path)?;
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut name = store_path.as_os_str().to_owned();
            name.push(suffix);
            let path = PathBuf::from(name);
            if path.exists() {
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = store_path;
    Ok(())
}

/// The file whose lock says which server uses a data directory.
const LOCK_FILE: &str = "server.lock";

/// Takes the data directory for this process: an exclusive lock on `server.lock` (the
/// kernel drops it when the process ends, however it ends), with this process's id
/// written in it for the next server's message. A second server on the same directory
/// would take the first one's running jobs for leftovers of a dead server.
fn lock_data_dir(data_dir: &Path) -> Result<std::fs::File, DeployError> {
    use std::io::{Read, Seek, Write};
    let path = data_dir.join(LOCK_FILE);
    let internal = |error: std::io::Error, what: &str| {
        DeployError::Internal(format!("cannot {what} {}: {error}", path.display()).into())
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(&path)
        .map_err(|error| internal(error, "open"))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            let who = if holder.is_empty() {
                "another eks-studio server".to_owned()
            } else {
                format!("another eks-studio server (process {holder})")
            };
            return Err(DeployError::DataDirInUse(format!(
                "the data directory {} is in use by {who}; stop it, or give this server another --data-dir",
                data_dir.display()
            )));
        }
        Err(std::fs::TryLockError::Error(error)) => return Err(internal(error, "lock")),
    }
    file.set_len(0).map_err(|error| internal(error, "write"))?;
    file.rewind().map_err(|error| internal(error, "write"))?;
    writeln!(file, "{}", std::process::id()).map_err(|error| internal(error, "write"))?;
    Ok(file)
}

impl Deployer {
    /// Opens the data directory (creating it), marks jobs left running by a stopped server
    /// `interrupted`, and stops the processes they left behind.
    pub fn open(config: DeployConfig) -> Result<Deployer, DeployError> {
        let internal = |error: std::io::Error, what: &str, path: &Path| {
            DeployError::Internal(format!("cannot {what} {}: {error}", path.display()).into())
        };
        let jobs_dir = config.data_dir.join("jobs");
        std::fs::create_dir_all(&jobs_dir).map_err(|error| internal(error, "create", &jobs_dir))?;
        // The store and job directories hold every deploy's log and each cluster's
        // kubeconfig: keep them to ourselves.
        #[cfg(unix)]
        for dir in [&config.data_dir, &jobs_dir] {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|error| internal(error, "restrict", dir))?;
        }
        let lock = lock_data_dir(&config.data_dir)?;
        let store_path = config.data_dir.join("deploys.sqlite3");
        restrict_store_files(&store_path)
            .map_err(|error| internal(error, "restrict", &store_path))?;
        let store = Store::open(&store_path).map_err(|error| {
            DeployError::Internal(
                format!(
                    "cannot open the job store {}: {error}",
                    store_path.display()
                )
                .into(),
            )
        })?;
        let unfinished = store.unfinished_jobs()?;
        let leftovers = runner::stop_leftovers(&unfinished, &jobs_dir);
        for (job, pid) in &leftovers {
            tracing::warn!(%job, pid, "stopped a process an earlier server left running");
        }
        let interrupted = store.interrupt_unfinished(|job| {
            let stopped = leftovers.iter().filter(|(id, _)| id == job).count();
            let mut text = "the server stopped while this job was running".to_owned();
            if stopped > 0 {
                text.push_str(&format!(
                    "; {stopped} process(es) it left running were stopped at restart"
                ));
            }
            text
        })?;
        if !interrupted.is_empty() {
            tracing::warn!(jobs = ?interrupted, "marked jobs left running by an earlier server interrupted");
        }
        let slots = Arc::new(Semaphore::new(config.max_active_deploys));
        Ok(Deployer {
            inner: Arc::new(Inner {
                config,
                _lock: lock,
                store,
                slots,
                active: Mutex::new(HashMap::new()),
                stopping: AtomicBool::new(false),
                stopped: watch::channel(false).0,
            }),
        })
    }

    /// A write the data directory refused, said plainly (503); any other store failure is
    /// ours (500).
    fn storage_refusal(&self, what: &str, error: StoreError) -> DeployError {
        if error.is_storage() {
            DeployError::Unavailable(format!(
                "cannot {what}: {error}; is the data directory {} full or read-only?",
                self.inner.config.data_dir.display()
            ))
        } else {
            DeployError::from(error)
        }
    }

    /// The token requests must present.
    pub fn token(&self) -> &DeployToken {
        &self.inner.config.token
    }

    /// The configuration it was opened with.
    pub fn config(&self) -> &DeployConfig {
        &self.inner.config
    }

    fn active(&self) -> std::sync::MutexGuard<'_, HashMap<String, ActiveJob>> {
        self.inner
            .active
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Refuses a job that could not get past its first step here: a tool its steps run
    /// (`tools`) that is not installed, or no AWS credentials for them. `what` is the job
    /// in words (`deploy the design`, `apply the plan`).
    fn check_prerequisites(
        &self,
        tools: impl IntoIterator<Item = shared::deploy::sequence::Tool>,
        what: &str,
    ) -> Result<(), DeployError> {
        let config = &self.inner.config;
        let mut missing: Vec<String> = Vec::new();
        let mut seen = Vec::new();
        for tool in tools {
            if seen.contains(&tool) {
                continue;
            }
            seen.push(tool);
            let path = config.tools.path(tool);
            if find_program(path).is_none() {
                missing.push(format!(
                    "{} (`{}` is not {})",
                    tool.command(),
                    path.display(),
                    if path.components().count() > 1 {
                        "an executable file"
                    } else {
                        "on the server's PATH"
                    }
                ));
            }
        }
        if !missing.is_empty() {
            return Err(DeployError::Unavailable(format!(
                "this server cannot {what}: it needs {} installed (or named with --{})",
                missing.join(", "),
                seen.iter()
                    .map(|tool| tool.command())
                    .collect::<Vec<_>>()
                    .join(", --")
            )));
        }
        if let Some(reason) = &config.missing_credentials {
            let verb = what.split(' ').next().unwrap_or(what);
            return Err(DeployError::Unavailable(format!(
                "this server cannot {verb}: the tools would find no AWS credentials ({reason}); start it with AWS_PROFILE or access keys in its environment"
            )));
        }
        Ok(())
    }

    /// What every job's design passes before anything else: the server is not stopping,
    /// the design is within what EKS runs, and it carries no key whose effect on the
    /// server is not known. Its `cluster.yaml` document, for the server-file check.
    fn admit(&self, spec: &Spec) -> Result<yaml_serde::Value, DeployError> {
        if self.inner.stopping.load(Ordering::SeqCst) {
            return Err(DeployError::Unavailable("the server is stopping".into()));
        }
        if let Some(reason) = spec.beyond_what_eks_runs() {
            return Err(DeployError::Unprocessable(reason));
        }
        // First what the design would make eksctl do on this server: refused whatever else
        // the rules find.
        let cluster_document = shared::documents::render::cluster_document(spec)
            .map_err(|error| DeployError::Unprocessable(error.to_string()))?;
        let refused = shared::deploy::keys::refused_keys(&cluster_document);
        if !refused.is_empty() {
            return Err(DeployError::RefusedKeys(refused));
        }
        Ok(cluster_document)
    }

    /// What a design must pass before a deploy or an apply of it exists: the keys a
    /// server deploy carries, then the shared rules (any error refuses it, with the
    /// findings). Answers eksctl's document of it and the findings.
    pub fn admit_design(&self, spec: &Spec) -> Result<Admitted, DeployError> {
        let cluster_document = self.admit(spec)?;
        let findings = shared::rules::validate_with(spec, &crate::clock::todays_facts());
        if shared::rules::has_errors(&findings) {
            return Err(DeployError::Refused(findings));
        }
        Ok(Admitted {
            cluster_document,
            findings,
        })
    }

    /// Checks `spec` with the shared rules, writes its bundle and starts running it.
    /// Answers the new job, still `pending`.
    pub async fn start(&self, spec: &Spec) -> Result<Job, DeployError> {
        self.start_with(spec, false, false, "a caller of this server")
            .await
    }

    /// Starts a deploy; `server_files_confirmed` is the user's yes to eksctl reading files
    /// of the server's that the design names (refused otherwise); with `review` the job
    /// waits after the plan until [`Deployer::approve`].
    /// `requested_by` says who asked, in words; the job keeps it.
    pub async fn start_with(
        &self,
        spec: &Spec,
        server_files_confirmed: bool,
        review: bool,
        requested_by: &str,
    ) -> Result<Job, DeployError> {
        let Admitted {
            cluster_document,
            findings,
        } = self.admit_design(spec)?;
        let cluster = ResourceName::parse(&spec.cluster.name).map_err(|error| {
            DeployError::Unprocessable(format!("cluster name `{}`: {error}", spec.cluster.name))
        })?;
        let region = Region::parse(&spec.cluster.region).map_err(|error| {
            DeployError::Unprocessable(format!("region `{}`: {error}", spec.cluster.region))
        })?;
        self.check_prerequisites(
            shared::deploy::sequence::deploy_steps(spec)
                .into_iter()
                .map(|step| step.tool),
            "deploy the design",
        )?;
        let files = shared::deploy::bundle::bundle_files(spec, &findings, &[])
            .map_err(|error| DeployError::Unprocessable(error.to_string()))?;
        let server_files = shared::deploy::keys::server_files(&cluster_document);
        if !server_files.is_empty() {
            if !server_files_confirmed {
                return Err(DeployError::ServerFiles(server_files));
            }
            tracing::warn!(files = %server_files.join(", "), "deploying a design that makes eksctl read files of this server's, as the user confirmed");
        }
        self.launch(
            cluster.as_str(),
            region.as_str(),
            &files,
            (requested_by, None),
            |directory: &Path| {
                runner::plan_steps(&self.inner.config.tools, directory, spec, review)
            },
        )
        .await
    }

    /// Starts applying `live`, the plan of `spec` against its running cluster: a job that
    /// waits for approval (its title says what changes and what it disrupts), then runs
    /// the plan's steps in order in the job's directory (the bundle of `spec`, `apply.sh`,
    /// `plan.txt`, `plan.json`), then reads the cluster again with this server's own
    /// `plan` (the job fails if anything is still different).
    /// `admitted` is [`Deployer::admit_design`]'s answer for `spec`, asked before the
    /// cluster was read.
    pub async fn start_apply(
        &self,
        spec: &Spec,
        admitted: Admitted,
        live: &shared::changes::plan::LivePlan,
        mut lock: LockRequest,
        guard: DrainGuard,
    ) -> Result<Job, DeployError> {
        let Admitted {
            cluster_document,
            findings,
        } = admitted;
        let server_files = shared::deploy::keys::server_files(&cluster_document);
        if !server_files.is_empty() {
            return Err(DeployError::ServerFiles(server_files));
        }
        if live.plan.refused() {
            return Err(DeployError::Refused(live.plan.findings.clone()));
        }
        if live.plan.is_empty() {
            return Err(DeployError::Unprocessable(
                "no changes: the cluster already is what the design says".into(),
            ));
        }
        let cluster = ResourceName::parse(&spec.cluster.name).map_err(|error| {
            DeployError::Unprocessable(format!("cluster name `{}`: {error}", spec.cluster.name))
        })?;
        let region = Region::parse(&spec.cluster.region).map_err(|error| {
            DeployError::Unprocessable(format!("region `{}`: {error}", spec.cluster.region))
        })?;
        let steps =
            shared::changes::apply::apply_steps(&live.plan, cluster.as_str(), region.as_str());
        self.check_prerequisites(steps.iter().map(|step| step.step.tool), "apply the plan")?;
        // The job's steps are the approval, then these: step i runs at position i + 1. The
        // first runs right after the approval, which has just planned again.
        let at = steps
            .iter()
            .enumerate()
            .filter(|(index, step)| *index > 0 && step.disruption.is_some())
            .filter_map(|(index, step)| Some((index + 1, step.object.clone()?)))
            .collect();
        lock.drains = Some(Drains { guard, at });
        let config = &self.inner.config;
        let studio = config.studio.clone();
        let mut files = shared::deploy::bundle::bundle_files(spec, &findings, &[])
            .map_err(|error| DeployError::Unprocessable(error.to_string()))?;
        let text = |path: &str, contents: String, executable: bool| BundleFile {
            path: path.to_owned(),
            contents,
            executable,
        };
        files.push(text(
            "apply.sh",
            shared::changes::apply::apply_script(&live.plan, cluster.as_str(), region.as_str()),
            true,
        ));
        if let Some(interim) = shared::changes::apply::interim_file(&live.plan, spec)
            .map_err(|error| DeployError::Unprocessable(error.to_string()))?
        {
            files.push(text(shared::changes::INTERIM_FILE, interim, false));
        }
        files.push(text("plan.txt", shared::changes::human(&live.plan), false));
        files.push(text(
            "plan.json",
            serde_json::to_string_pretty(live)
                .map_err(|error| DeployError::Internal(error.into()))?
                + "\n",
            false,
        ));
        let title = shared::changes::apply::approval_title(
            cluster.as_str(),
            &live.plan,
            &shared::deploy::keys::grants(&cluster_document),
        );
        let tools = config.tools.clone();
        let (cluster_name, region_name) = (cluster.as_str().to_owned(), region.as_str().to_owned());
        self.launch(
            cluster.as_str(),
            region.as_str(),
            &files,
            (&lock.asked_by.clone(), Some(lock)),
            move |directory: &Path| {
                runner::apply_step_commands(
                    &tools,
                    directory,
                    &steps,
                    title,
                    &studio,
                    &cluster_name,
                    &region_name,
                )
            },
        )
        .await
    }

    /// Stores a job for `cluster` in `region` (refused while another is active there, or
    /// at the concurrency limit), writes `files` into its directory and runs the steps
    /// `make_steps` gives for that directory.
    async fn launch(
        &self,
        cluster: &str,
        region: &str,
        files: &[BundleFile],
        (requested_by, lock): (&str, Option<LockRequest>),
        make_steps: impl FnOnce(&Path) -> Vec<runner::StepCommand>,
    ) -> Result<Job, DeployError> {
        let active_conflict = |job: String| DeployError::Active {
            cluster: cluster.to_owned(),
            region: region.to_owned(),
            job,
        };
        let store = &self.inner.store;
        if let Some(job) = store.active_job(cluster, region).await? {
            return Err(active_conflict(job));
        }
        let permit = self.inner.slots.clone().try_acquire_owned().map_err(|_| {
            DeployError::Busy(format!(
                "{} deploy(s) are already running, the most this server runs at once; wait for one to end",
                self.inner.config.max_active_deploys
            ))
        })?;

        let id = new_job_id()?;
        // An apply's job exists only once it holds the cluster's lock: another apply of
        // it, from any server or terminal, is refused here, before a step runs.
        let (mut lock, drains) = match lock {
            Some(mut request) => {
                let drains = request.drains.take();
                (Some(request.take(&id, &self.inner.config).await?), drains)
            }
            None => (None, None),
        };
        let directory = self.inner.config.data_dir.join("jobs").join(&id);
        let steps = make_steps(&directory);
        let new_job = NewJob {
            id: id.clone(),
            cluster: cluster.to_owned(),
            region: region.to_owned(),
            directory: directory.to_string_lossy().into_owned(),
            requested_by: requested_by.to_owned(),
            steps: steps
                .iter()
                .map(|step| NewStep {
                    name: step.name.to_owned(),
                    title: step.title.clone(),
                    command: step.display(),
                })
                .collect(),
        };
        let created = store.create_job(new_job).await;
        if !matches!(created, Created::Stored)
            && let Some(lock) = lock.take()
        {
            lock.release().await;
        }
        match created {
            Created::Stored => {}
            Created::AlreadyActive(job) => return Err(active_conflict(job)),
            Created::Failed(error) => {
                return Err(self.storage_refusal("store the deploy job", error));
            }
        }
        if let Some(lock) = &lock {
            let mut said = vec![format!(
                "took the cluster's lock (Lease {}/{}); it is renewed while this job runs",
                lock::LEASE_NAMESPACE,
                lock::LEASE_NAME
            )];
            if let Some(broke) = &lock.broke {
                said.push(format!("broke the lock held by {broke}"));
                tracing::warn!(job = %id, held = %broke, "an apply broke the cluster's lock");
            }
            for line in said {
                let _ = store.append(&id, EventBody::note(0, line)).await;
            }
        }
        if let Err(error) = write_bundle(&directory, files).await {
            let text = format!(
                "cannot write the bundle to {}: {error}",
                directory.display()
            );
            // Not awaited: a full data directory may refuse this for a while.
            let deployer = self.clone();
            let (job_id, failure) = (id.clone(), text.clone());
            tokio::spawn(async move { deployer.record_failure(&job_id, failure).await });
            return Err(DeployError::Unavailable(format!("job {id} failed: {text}")));
        }

        // Read before the runner starts, so the answer is always the job as accepted.
        let accepted = self.job(&id).await;
        let (stop, mut stop_requests) = watch::channel(None);
        let (done_sender, done) = watch::channel(false);
        let (approve, mut approvals) = watch::channel(false);
        self.active().insert(
            id.clone(),
            ActiveJob {
                stop,
                approve,
                done,
            },
        );
        let deployer = self.clone();
        let job_id = id.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let store = &deployer.inner.store;
            let grace = deployer.inner.config.stop_grace;
            let before_step = |position: usize| {
                let drains = drains.as_ref()?;
                let (kind, name) = drains.at.get(&position)?;
                Some((drains.guard)(kind.clone(), name.clone()))
            };
            let run = runner::run_job(
                store,
                &job_id,
                &directory,
                &steps,
                &mut stop_requests,
                &mut approvals,
                grace,
                &before_step,
            );
            let result = match lock.as_mut() {
                None => run.await,
                Some(held) => {
                    tokio::pin!(run);
                    tokio::select! {
                        result = &mut run => result,
                        reason = held.until_lost() => {
                            // Someone broke the lock, or it could not be renewed: another
                            // actor may be changing the cluster, so no further step runs.
                            let line = format!("stopping before the next step: {reason}");
                            tracing::warn!(job = %job_id, %reason, "an apply lost the cluster's lock");
                            let _ = store.append(&job_id, EventBody::note(0, line)).await;
                            if let Some(job) = deployer.active().get(&job_id) {
                                job.stop.send_replace(Some(StopReason::Cancelled));
                            }
                            run.await
                        }
                    }
                }
            };
            if let Some(held) = lock {
                held.release().await;
            }
            if let Err(error) = result {
                tracing::error!(job = %job_id, %error, "deploy job failed to record its progress");
                let text = deployer.failure_text(&error);
                deployer.record_failure(&job_id, text).await;
            }
            deployer.active().remove(&job_id);
            done_sender.send_replace(true);
        });
        accepted
    }

    /// What a job that stopped on this store error records as its end.
    fn failure_text(&self, error: &StoreError) -> String {
        if error.is_storage() {
            format!(
                "stopped: the job's progress could not be stored ({error}); is the data directory {} full or read-only? The step's tool may have gone on running: check the cluster before deploying again",
                self.inner.config.data_dir.display()
            )
        } else {
            format!("internal error: {error}")
        }
    }

    /// Records that a job stopped because its progress could not be stored. A data directory
    /// that is full or read-only refuses this too, so it is tried again every second while
    /// the job keeps its slot and its cluster, until it is stored or the server stops (a
    /// restart then marks the job interrupted, with every line stored before).
    async fn record_failure(&self, job_id: &str, text: String) {
        loop {
            match self.inner.store.fail_job(job_id, text.clone()).await {
                Ok(()) => return,
                Err(retry_error) => {
                    tracing::warn!(job = %job_id, error = %retry_error, "cannot record the deploy job's failure yet; trying again");
                }
            }
            if self.inner.stopping.load(Ordering::SeqCst) {
                return;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }

    /// One job with its steps and plan output.
    pub async fn job(&self, id: &str) -> Result<Job, DeployError> {
        self.inner
            .store
            .job(id, true)
            .await?
            .ok_or_else(|| DeployError::NotFound(id.to_owned()))
    }

    /// Every job, newest first.
    pub async fn jobs(&self) -> Result<Vec<Job>, DeployError> {
        Ok(self.inner.store.jobs().await?)
    }

    /// For a job waiting for its approval, what it would apply when it is an apply: its
    /// design and the plan it shows (`studio.json` and `plan.json` of its directory), so
    /// the approval can plan again first. `None` for a deploy; an error when the job is
    /// not waiting.
    pub async fn waiting_apply(
        &self,
        id: &str,
    ) -> Result<Option<(Spec, serde_json::Value)>, DeployError> {
        let job = self.job(id).await?;
        if !waits_for_approval(&job) {
            return Err(DeployError::NotWaiting {
                id: id.to_owned(),
                state: job.state,
            });
        }
        let directory = Path::new(&job.directory);
        let Ok(plan) = std::fs::read_to_string(directory.join("plan.json")) else {
            return Ok(None);
        };
        let unreadable = |what: &str, error: String| {
            DeployError::Internal(format!("job {id}'s {what} cannot be read: {error}").into())
        };
        let plan: serde_json::Value = serde_json::from_str(&plan)
            .map_err(|error| unreadable("plan.json", error.to_string()))?;
        let design = std::fs::read_to_string(directory.join("studio.json"))
            .map_err(|error| unreadable("studio.json", error.to_string()))?;
        let spec = Spec::from_json(&design)
            .map_err(|error| unreadable("studio.json", error.to_string()))?;
        Ok(Some((spec, plan)))
    }

    /// Cancels a job waiting for approval whose plan no longer holds, saying why in its log.
    pub async fn refuse_approval(&self, id: &str, why: &str) -> Result<Job, DeployError> {
        let _ = self
            .inner
            .store
            .append(id, EventBody::note(0, format!("approval refused: {why}")))
            .await;
        self.cancel(id).await
    }

    /// Approves the plan of a job waiting at its approval step: it goes on to create or
    /// change; `by` says who approved it, in words.
    pub async fn approve(&self, id: &str, by: &str) -> Result<Job, DeployError> {
        let job = self.job(id).await?;
        let waiting = waits_for_approval(&job);
        let sender = self.active().get(id).map(|job| job.approve.clone());
        match (waiting, sender) {
            (true, Some(approve)) => {
                self.inner.store.set_approved_by(id, by.to_owned()).await?;
                approve.send_replace(true);
                // The job moves on at once; answer once the approval is recorded.
                for _ in 0..50 {
                    let job = self.job(id).await?;
                    if job.steps.iter().any(|step| {
                        step.name == runner::APPROVAL_STEP && step.state != StepState::Running
                    }) {
                        return Ok(job);
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                self.job(id).await
            }
            _ => Err(DeployError::NotWaiting {
                id: id.to_owned(),
                state: job.state,
            }),
        }
    }

    /// Stops an active job's processes (SIGTERM to the step's process group, SIGKILL after
    /// the grace time), records it `cancelled`, and answers the job once it has ended.
    pub async fn cancel(&self, id: &str) -> Result<Job, DeployError> {
        let done = self.active().get(id).map(|job| {
            job.stop.send_replace(Some(StopReason::Cancelled));
            job.done.clone()
        });
        match done {
            Some(done) => self.wait_until_done(done).await,
            None => {
                let state = self.inner.store.job_state(id).await?;
                return Err(match state {
                    Some(state) => DeployError::NotActive {
                        id: id.to_owned(),
                        state,
                    },
                    None => DeployError::NotFound(id.to_owned()),
                });
            }
        }
        self.job(id).await
    }

    async fn wait_until_done(&self, mut done: watch::Receiver<bool>) {
        // Bounded: SIGKILL follows SIGTERM after the grace time, output drains in seconds.
        let limit = self.inner.config.stop_grace + Duration::from_secs(15);
        let _ = tokio::time::timeout(limit, done.wait_for(|done| *done)).await;
    }

    /// Stops every active job and records it `interrupted`; refuses new ones from now on.
    /// Event streams end as their jobs do.
    pub async fn shutdown(&self) {
        self.inner.stopping.store(true, Ordering::SeqCst);
        let running: Vec<watch::Receiver<bool>> = self
            .active()
            .values()
            .map(|job| {
                job.stop.send_replace(Some(StopReason::Shutdown));
                job.done.clone()
            })
            .collect();
        for done in running {
            self.wait_until_done(done).await;
        }
        self.inner.stopped.send_replace(true);
    }

    /// A job's events with ids above `after`: the stored ones, then live ones as they are
    /// written, without gaps or repeats; ends after the job's final state change.
    pub fn follow(&self, job_id: &str, after: i64) -> impl Stream<Item = Event> + Send + use<> {
        let start = Follow {
            store: self.inner.store.clone(),
            job_id: job_id.to_owned(),
            after,
            newest: self.inner.store.subscribe(),
            stopped: self.inner.stopped.subscribe(),
            pending: VecDeque::new(),
            ended: false,
        };
        futures_util::stream::unfold(start, |mut follow| async move {
            let event = follow.next_event().await?;
            Some((event, follow))
        })
    }
}

/// Where a follower is in a job's events.
struct Follow {
    store: Store,
    job_id: String,
    after: i64,
    newest: watch::Receiver<i64>,
    stopped: watch::Receiver<bool>,
    pending: VecDeque<Event>,
    ended: bool,
}

impl Follow {
    async fn next_event(&mut self) -> Option<Event> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                self.ended |= event.ends_job();
                return Some(event);
            }
            if self.ended {
                return None;
            }
            // Mark the newest id seen *before* reading, so a write after the read wakes us.
            self.newest.borrow_and_update();
            if self.read_more().await? {
                continue;
            }
            match self.store.job_state(&self.job_id).await {
                Ok(Some(state)) if state.is_finished() => {
                    // Its last events may have landed between the two reads.
                    if self.read_more().await? {
                        continue;
                    }
                    return None;
                }
                Ok(Some(_)) => {}
                Ok(None) => return None,
                Err(error) => {
                    tracing::error!(%error, "cannot follow a deploy job");
                    return None;
                }
            }
            // An error means the deployer is gone: as good as stopped.
            let stopped = tokio::select! {
                changed = self.newest.changed() => {
                    changed.ok()?;
                    false
                }
                _ = self.stopped.wait_for(|stopped| *stopped) => true,
            };
            if stopped {
                // The server is ending: whatever was stored last, then the end.
                self.ended = true;
                self.read_more().await?;
            }
        }
    }

    /// Reads the next stored events into `pending`; whether there were any.
    async fn read_more(&mut self) -> Option<bool> {
        match self.store.events_after(&self.job_id, self.after, 500).await {
            Ok(events) => {
                if let Some(last) = events.last() {
                    self.after = last.id;
                }
                let any = !events.is_empty();
                self.pending.extend(events);
                Some(any)
            }
            Err(error) => {
                tracing::error!(%error, "cannot read a deploy job's events");
                None
            }
        }
    }
}

/// 16 random hex digits.
fn new_job_id() -> Result<String, DeployError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes)
        .map_err(|error| DeployError::Internal(format!("no random bytes: {error}").into()))?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// Writes the bundle readable by the server's user alone: directories 0700, files 0600
/// (0700 for the scripts). The job directory holds the cluster's kubeconfig and its plan.
async fn write_bundle(directory: &Path, files: &[BundleFile]) -> std::io::Result<()> {
    let mut directories = tokio::fs::DirBuilder::new();
    directories.recursive(true);
    #[cfg(unix)]
    directories.mode(0o700);
    directories.create(directory).await?;
    for file in files {
        let path = directory.join(&file.path);
        if let Some(parent) = path.parent() {
            directories.create(parent).await?;
        }
        let mut options = tokio::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        options.mode(if file.executable { 0o700 } else { 0o600 });
        let mut written = options.open(&path).await?;
        tokio::io::AsyncWriteExt::write_all(&mut written, file.contents.as_bytes()).await?;
        tokio::io::AsyncWriteExt::flush(&mut written).await?;
    }
    Ok(())
}
