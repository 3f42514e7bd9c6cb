//! A job's steps run one after another as child processes: argument vectors, never a shell
//! string. Each step leads its own process group, so cancel (and shutdown) stop everything
//! it started, and whatever it leaves behind is killed when it ends.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use shared::Spec;
use shared::deploy::sequence::Arg;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};
use tokio::process::Command;
use tokio::sync::watch;

use super::Tools;
use super::stages::read_eksctl_line;
use super::store::{EventBody, JobState, OutputStream, StepState, Store, StoreError};

/// Set in every step's environment, so a restarted server can find what an earlier one left.
pub const JOB_MARKER_VARIABLE: &str = "EKS_STUDIO_DEPLOY_JOB";

/// The job's directory, also in every step's environment: with the job id it names one job
/// of one data directory, so a server never takes another's processes for its own.
pub const JOB_DIRECTORY_VARIABLE: &str = "EKS_STUDIO_DEPLOY_JOB_DIR";

/// Longest line stored as one event; longer ones are split.
const MAX_LINE_BYTES: u64 = 64 * 1024;

/// Most output of a step kept for later steps (an ARN, a URL).
const MAX_KEPT_BYTES: usize = 16 * 1024;

/// How long a step's output may go without a new line once its process group is gone
/// before it is no longer read (something outside the group holds it open). Lines already
/// in the pipe are always stored, however long a busy store takes.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// One argument of a step: as it is, or with what an earlier step printed.
#[derive(Clone, Debug)]
pub enum StepArg {
    /// Passed as it is.
    Plain(OsString),
    /// `prefix` and the output an earlier step kept under `name`.
    Read {
        /// Text before the value.
        prefix: String,
        /// The earlier step's [`StepCommand::output_into`].
        name: &'static str,
    },
    /// The path of a copy of `source` (written beside it) in which each `(text, name)` of
    /// `fills` has the text replaced by the output an earlier step kept under `name`.
    Filled {
        /// The bundle's file.
        source: PathBuf,
        /// What to replace, and the name of the value that replaces it.
        fills: Vec<(&'static str, &'static str)>,
    },
}

/// Why a step's arguments could not be made.
#[derive(Debug)]
enum Unresolved {
    /// It needs a value no earlier step printed.
    Unread(&'static str),
    /// The filled copy of a file could not be written.
    Unfilled(PathBuf, io::Error),
}

/// Where the filled copy of `source` goes: `volumes.yaml` → `volumes.filled.yaml`.
fn filled_path(source: &Path) -> PathBuf {
    let stem = source
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match source.extension() {
        Some(extension) => format!("{stem}.filled.{}", extension.to_string_lossy()),
        None => format!("{stem}.filled"),
    };
    source.with_file_name(name)
}

/// One step: what to run, with which arguments.
#[derive(Clone, Debug)]
pub struct StepCommand {
    /// Short machine name.
    pub name: &'static str,
    /// What it does, in words.
    pub title: String,
    /// The program (a path, or a name looked up on `PATH`).
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<StepArg>,
    /// The name its standard output, trimmed, is kept under for later steps.
    pub output_into: Option<&'static str>,
    /// Not a program: the job waits here until the deploy is approved.
    pub approval: bool,
}

pub use shared::deploy::plan::APPROVAL_STEP;

impl StepCommand {
    /// The argument vector as text, program first, for the job's record; a value read from
    /// an earlier step shows as `${NAME}`.
    pub fn display(&self) -> Vec<String> {
        if self.approval {
            return Vec::new();
        }
        std::iter::once(self.program.to_string_lossy().into_owned())
            .chain(self.args.iter().map(|arg| match arg {
                StepArg::Plain(text) => text.to_string_lossy().into_owned(),
                StepArg::Read { prefix, name } => format!("{prefix}${{{name}}}"),
                StepArg::Filled { source, fills } => {
                    let names: Vec<String> = fills
                        .iter()
                        .map(|(_, name)| format!("${{{name}}}"))
                        .collect();
                    format!(
                        "{} (with {})",
                        filled_path(source).to_string_lossy(),
                        names.join(", ")
                    )
                }
            }))
            .collect()
    }

    /// The arguments with the values earlier steps printed; the name of a value no earlier
    /// step printed.
    fn resolved_args(
        &self,
        values: &BTreeMap<&'static str, String>,
    ) -> Result<Vec<OsString>, Unresolved> {
        self.args
            .iter()
            .map(|arg| match arg {
                StepArg::Plain(text) => Ok(text.clone()),
                StepArg::Read { prefix, name } => values
                    .get(name)
                    .map(|value| OsString::from(format!("{prefix}{value}")))
                    .ok_or(Unresolved::Unread(name)),
                StepArg::Filled { source, fills } => {
                    let mut text = std::fs::read_to_string(source)
                        .map_err(|error| Unresolved::Unfilled(source.clone(), error))?;
                    for (placeholder, name) in fills {
                        let value = values.get(name).ok_or(Unresolved::Unread(name))?;
                        text = text.replace(placeholder, value);
                    }
                    let target = filled_path(source);
                    std::fs::write(&target, text)
                        .map_err(|error| Unresolved::Unfilled(target.clone(), error))?;
                    Ok(target.into_os_string())
                }
            })
            .collect()
    }
}

/// The steps of a deploy of `spec`, whose bundle is written to `directory`: the same
/// sequence as its `deploy.sh` (`shared::deploy::sequence`), with this server's tools and
/// absolute paths to the bundle's files. With `review`, the job waits after the plan
/// until it is approved ([`APPROVAL_STEP`]), its title saying what will be created.
pub fn plan_steps(tools: &Tools, directory: &Path, spec: &Spec, review: bool) -> Vec<StepCommand> {
    let mut steps: Vec<StepCommand> = shared::deploy::sequence::deploy_steps(spec)
        .into_iter()
        .map(|step| StepCommand {
            name: step.name,
            title: step.title,
            program: tools.path(step.tool).to_path_buf(),
            args: step
                .args
                .into_iter()
                .map(|arg| match arg {
                    Arg::Text(text) => StepArg::Plain(OsString::from(text)),
                    Arg::File(path) => StepArg::Plain(directory.join(path).into_os_string()),
                    Arg::Read { prefix, name } => StepArg::Read { prefix, name },
                    Arg::Filled { path, fills } => StepArg::Filled {
                        source: directory.join(path),
                        fills,
                    },
                })
                .collect(),
            output_into: step.output_into,
            approval: false,
        })
        .collect();
    if review {
        steps.insert(
            1,
            StepCommand {
                name: APPROVAL_STEP,
                title: shared::deploy::plan::approval_title(&shared::deploy::plan::summary(spec)),
                program: PathBuf::new(),
                args: Vec::new(),
                output_into: None,
                approval: true,
            },
        );
    }
    steps
}

/// The steps of an apply job in `directory`: the approval (its `title`), each of the
/// plan's steps with this server's tools (their file arguments are the bundle's,
/// relative to the directory the steps run in), then this server's own `eks-studio plan`
/// of the design against the cluster, which fails when anything is still different.
pub fn apply_step_commands(
    tools: &Tools,
    directory: &Path,
    steps: &[shared::changes::apply::ApplyStep],
    title: String,
    studio: &Path,
    cluster: &str,
    region: &str,
) -> Vec<StepCommand> {
    let plain = |text: &str| StepArg::Plain(OsString::from(text));
    let mut commands = vec![StepCommand {
        name: APPROVAL_STEP,
        title,
        program: PathBuf::new(),
        args: Vec::new(),
        output_into: None,
        approval: true,
    }];
    commands.extend(steps.iter().map(|step| StepCommand {
        name: "apply-step",
        title: step.title(),
        program: tools.path(step.step.tool).to_path_buf(),
        args: step.step.args.iter().map(|arg| plain(arg)).collect(),
        output_into: None,
        approval: false,
    }));
    let mut args = vec![
        plain("plan"),
        StepArg::Plain(directory.join("studio.json").into_os_string()),
        plain("--cluster"),
        plain(cluster),
        plain("--region"),
        plain(region),
    ];
    for (flag, path) in [
        ("--aws", &tools.aws),
        ("--kubectl", &tools.kubectl),
        ("--helm", &tools.helm),
    ] {
        args.push(plain(flag));
        args.push(StepArg::Plain(path.clone().into_os_string()));
    }
    commands.push(StepCommand {
        name: "read-again",
        title: "read the cluster again: nothing may be left to change".to_owned(),
        program: studio.to_path_buf(),
        args,
        output_into: None,
        approval: false,
    });
    commands
}

/// Why a running job is asked to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Someone cancelled it.
    Cancelled,
    /// The server is stopping.
    Shutdown,
}

impl StopReason {
    fn job_state(self) -> JobState {
        match self {
            StopReason::Cancelled => JobState::Cancelled,
            StopReason::Shutdown => JobState::Interrupted,
        }
    }

    fn step_state(self) -> StepState {
        match self {
            StopReason::Cancelled => StepState::Cancelled,
            StopReason::Shutdown => StepState::Interrupted,
        }
    }

    fn words(self) -> &'static str {
        match self {
            StopReason::Cancelled => "cancelled",
            StopReason::Shutdown => "interrupted: the server is stopping",
        }
    }
}

enum StepEnd {
    Exited(ExitStatus),
    Stopped(StopReason),
    NotStarted(io::Error),
    Lost(io::Error),
    /// It succeeded but printed nothing, though a later step needs its output.
    PrintedNothing,
    /// It needs a value no earlier step printed.
    Unread(&'static str),
    /// The filled copy of a bundle file could not be written.
    Unfilled(PathBuf, io::Error),
}

/// A look at the cluster just before a step (at its position) runs: `Err` with why the
/// step must not run.
pub type BeforeStep<'a> = &'a (
        dyn Fn(usize) -> Option<futures_util::future::BoxFuture<'static, Result<(), String>>> + Sync
    );

/// Runs a job's steps in order, stopping at the first that does not succeed or when `stop`
/// says so (or `before_step` refuses it), and records every line, step and state change.
/// Returns the job's final state.
#[allow(clippy::too_many_arguments)]
pub async fn run_job(
    store: &Store,
    job_id: &str,
    directory: &Path,
    steps: &[StepCommand],
    stop: &mut watch::Receiver<Option<StopReason>>,
    approved: &mut watch::Receiver<bool>,
    grace: Duration,
    before_step: BeforeStep<'_>,
) -> Result<JobState, StoreError> {
    store
        .set_job_state(
            job_id,
            JobState::Running,
            format!("{} step(s) to run", steps.len()),
        )
        .await?;
    let mut outcome = (JobState::Succeeded, "every step succeeded".to_owned());
    let mut values = BTreeMap::new();
    for (position, step) in steps.iter().enumerate() {
        let requested = *stop.borrow();
        if let Some(reason) = requested {
            outcome = (reason.job_state(), reason.words().to_owned());
            break;
        }
        if step.approval {
            store
                .set_step(
                    job_id,
                    position,
                    StepState::Running,
                    None,
                    "waiting for approval of the plan".to_owned(),
                )
                .await?;
            let approval = tokio::select! {
                answer = approved.wait_for(|approved| *approved) => answer.is_ok().then_some(()).ok_or(StopReason::Shutdown),
                reason = stop_requested(stop) => Err(reason),
            };
            let (state, text) = match approval {
                Ok(()) => (StepState::Succeeded, "approved".to_owned()),
                Err(reason) => (reason.step_state(), reason.words().to_owned()),
            };
            store.set_step(job_id, position, state, None, text).await?;
            if let Err(reason) = approval {
                outcome = (reason.job_state(), reason.words().to_owned());
                break;
            }
            continue;
        }
        if let Some(look) = before_step(position)
            && let Err(why) = look.await
        {
            store
                .set_step(job_id, position, StepState::Failed, None, why.clone())
                .await?;
            outcome = (
                JobState::Failed,
                format!("step `{}` not run: {why}", step.name),
            );
            break;
        }
        store
            .set_step(
                job_id,
                position,
                StepState::Running,
                None,
                step.title.clone(),
            )
            .await?;
        let end = match step.resolved_args(&values) {
            Ok(args) => {
                let (end, output) =
                    run_step(store, job_id, position, directory, step, &args, stop, grace).await?;
                match (step.output_into, end) {
                    (Some(name), StepEnd::Exited(status)) if status.success() => {
                        let value = output.trim();
                        // The AWS CLI prints `None` for a query that found nothing.
                        if value.is_empty() || value == "None" {
                            StepEnd::PrintedNothing
                        } else {
                            values.insert(name, value.to_owned());
                            StepEnd::Exited(status)
                        }
                    }
                    (_, end) => end,
                }
            }
            Err(Unresolved::Unread(name)) => StepEnd::Unread(name),
            Err(Unresolved::Unfilled(path, error)) => StepEnd::Unfilled(path, error),
        };
        let (state, exit_code, text) = match end {
            StepEnd::Exited(status) if status.success() => {
                (StepState::Succeeded, Some(0), "exited 0".to_owned())
            }
            StepEnd::Exited(status) => (
                StepState::Failed,
                status.code(),
                match status.code() {
                    Some(code) => format!("exited {code}"),
                    None => format!("ended by a signal ({status})"),
                },
            ),
            StepEnd::Stopped(reason) => (reason.step_state(), None, reason.words().to_owned()),
            StepEnd::NotStarted(error) => (
                StepState::Failed,
                None,
                format!("could not start {}: {error}", step.program.display()),
            ),
            StepEnd::Lost(error) => (
                StepState::Failed,
                None,
                format!("lost its process: {error}"),
            ),
            StepEnd::PrintedNothing => (
                StepState::Failed,
                Some(0),
                "exited 0 but printed nothing (or the AWS CLI's None, a query that found nothing), and a later step needs what it prints".to_owned(),
            ),
            StepEnd::Unread(name) => (
                StepState::Failed,
                None,
                format!("needs {name}, which no earlier step printed"),
            ),
            StepEnd::Unfilled(path, error) => (
                StepState::Failed,
                None,
                format!("could not write {}: {error}", path.display()),
            ),
        };
        store
            .set_step(job_id, position, state, exit_code, text.clone())
            .await?;
        if state != StepState::Succeeded {
            outcome = match state {
                StepState::Cancelled => (JobState::Cancelled, "cancelled".to_owned()),
                StepState::Interrupted => (JobState::Interrupted, text),
                _ => (JobState::Failed, format!("step `{}` {text}", step.name)),
            };
            break;
        }
    }
    store.skip_pending_steps(job_id).await?;
    store.set_job_state(job_id, outcome.0, outcome.1).await?;
    Ok(outcome.0)
}

/// Variables the tools get from the server's environment, by name: where to find
/// programs and the home directory (eksctl's and helm's caches), the locale, proxies and
/// certificates for HTTPS, and every `AWS_*` variable (credentials, profile, region,
/// endpoints); `HELM_*` and `EKSCTL_*` configure those tools.
const TOOL_VARIABLES: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
    "https_proxy",
    "http_proxy",
    "no_proxy",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
];

/// Prefixes of the variables the tools get ([`TOOL_VARIABLES`]).
const TOOL_VARIABLE_PREFIXES: &[&str] = &["AWS_", "LC_", "HELM_", "EKSCTL_"];

/// The part of `environment` a step's tool is given: an allow-list, so a secret the server
/// holds (its deploy token, anything it is started with) never reaches a tool.
pub fn tool_environment(
    environment: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    environment
        .into_iter()
        .filter(|(name, _)| {
            name.to_str().is_some_and(|name| {
                TOOL_VARIABLES.contains(&name)
                    || TOOL_VARIABLE_PREFIXES
                        .iter()
                        .any(|prefix| name.starts_with(prefix))
            })
        })
        .collect()
}

/// Runs one step; with its end, its standard output when a later step needs it.
#[allow(clippy::too_many_arguments)]
async fn run_step(
    store: &Store,
    job_id: &str,
    position: usize,
    directory: &Path,
    step: &StepCommand,
    args: &[OsString],
    stop: &mut watch::Receiver<Option<StopReason>>,
    grace: Duration,
) -> Result<(StepEnd, String), StoreError> {
    let mut command = Command::new(&step.program);
    command
        .args(args)
        .current_dir(directory)
        // The tools see what they need and none of the server's own secrets (the deploy
        // token above all): whatever they start inherits the same.
        .env_clear()
        .envs(tool_environment(std::env::vars_os()))
        // Each job gets its own kubeconfig: eksctl writes it, helm and kubectl read it, and
        // two deploys never race on ~/.kube/config's current context.
        .env("KUBECONFIG", directory.join("kubeconfig"))
        .env(JOB_MARKER_VARIABLE, job_id)
        // Canonical, so a server given the data directory under another spelling (a
        // relative path, a symlink) still recognises its jobs' processes.
        .env(
            JOB_DIRECTORY_VARIABLE,
            std::fs::canonicalize(directory).unwrap_or_else(|_| directory.to_path_buf()),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            store
                .append(
                    job_id,
                    EventBody::note(
                        position,
                        format!("could not start {}: {error}", step.program.display()),
                    ),
                )
                .await?;
            return Ok((StepEnd::NotStarted(error), String::new()));
        }
    };
    let group = child
        .id()
        .and_then(|pid| i32::try_from(pid).ok())
        .map(Pid::from_raw);
    let stdout_lines = Arc::new(AtomicUsize::new(0));
    let stderr_lines = Arc::new(AtomicUsize::new(0));
    let stdout = tokio::spawn(pump(
        store.clone(),
        job_id.to_owned(),
        position,
        OutputStream::Stdout,
        child.stdout.take(),
        stdout_lines.clone(),
        step.output_into.is_some(),
    ));
    let stderr = tokio::spawn(pump(
        store.clone(),
        job_id.to_owned(),
        position,
        OutputStream::Stderr,
        child.stderr.take(),
        stderr_lines.clone(),
        false,
    ));

    let end = tokio::select! {
        status = child.wait() => match status {
            Ok(status) => StepEnd::Exited(status),
            Err(error) => StepEnd::Lost(error),
        },
        reason = stop_requested(stop) => {
            store
                .append(job_id, EventBody::note(position, format!("{}: sending SIGTERM to the step's processes", reason.words())))
                .await?;
            signal_group(group, Signal::SIGTERM);
            if tokio::time::timeout(grace, child.wait()).await.is_err() {
                store
                    .append(job_id, EventBody::note(position, format!("still running after {} s: sending SIGKILL", grace.as_secs_f32())))
                    .await?;
                signal_group(group, Signal::SIGKILL);
                let _ = child.wait().await;
            }
            StepEnd::Stopped(reason)
        }
    };
    // Whatever the step started and left behind goes with it, which also closes its pipes.
    signal_group(group, Signal::SIGKILL);
    let mut output = String::new();
    for (mut pump, lines_read) in [(stdout, stdout_lines), (stderr, stderr_lines)] {
        loop {
            let before = lines_read.load(Ordering::SeqCst);
            match tokio::time::timeout(DRAIN_TIMEOUT, &mut pump).await {
                Ok(Ok(result)) => {
                    output.push_str(&result?);
                    break;
                }
                Ok(Err(join_error)) => return Err(join_error.into()),
                // Still storing what the step printed: keep going.
                Err(_) if lines_read.load(Ordering::SeqCst) != before => {}
                // Something outside the group holds the pipe open and prints nothing.
                Err(_) => {
                    pump.abort();
                    store
                        .append(
                            job_id,
                            EventBody::note(
                                position,
                                format!(
                                    "stopped reading the step's output: a process it left outside its group keeps it open, silent for {} s",
                                    DRAIN_TIMEOUT.as_secs()
                                ),
                            ),
                        )
                        .await?;
                    break;
                }
            }
        }
    }
    Ok((end, output))
}

async fn stop_requested(stop: &mut watch::Receiver<Option<StopReason>>) -> StopReason {
    let requested = stop
        .wait_for(Option::is_some)
        .await
        .ok()
        .and_then(|reason| *reason);
    match requested {
        Some(reason) => reason,
        // Nobody can ask any more: never stop.
        None => std::future::pending().await,
    }
}

fn signal_group(group: Option<Pid>, signal: Signal) {
    if let Some(group) = group {
        // ESRCH (nothing left in the group) is the usual, fine answer.
        let _ = killpg(group, signal);
    }
}

/// Stores every line of one output as a `log` event, plus a `stage` event for lines that
/// mark eksctl progress.
///
/// When the store refuses a line (a full or read-only data directory), the output is still
/// read to its end, so the tool is not killed by a broken pipe halfway through creating a
/// cluster; the first error is returned once the output ends, with how many lines were lost.
/// With `keep`, the output is also returned (up to [`MAX_KEPT_BYTES`]).
async fn pump(
    store: Store,
    job_id: String,
    position: usize,
    stream: OutputStream,
    output: Option<impl AsyncRead + Unpin>,
    lines_read: Arc<AtomicUsize>,
    keep: bool,
) -> Result<String, StoreError> {
    let mut kept = String::new();
    let Some(output) = output else {
        return Ok(kept);
    };
    let mut reader = BufReader::new(output);
    let mut line = Vec::new();
    let mut refused: Option<(StoreError, usize)> = None;
    loop {
        line.clear();
        match (&mut reader)
            .take(MAX_LINE_BYTES)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        lines_read.fetch_add(1, Ordering::SeqCst);
        if let Some((_, lost)) = &mut refused {
            *lost += 1;
            continue;
        }
        let text = String::from_utf8_lossy(&line);
        if keep && kept.len() + text.len() <= MAX_KEPT_BYTES {
            kept.push_str(&text);
        }
        let text = text.trim_end_matches(['\n', '\r']);
        let stored = match store
            .append(&job_id, EventBody::log(position, stream, text))
            .await
        {
            Ok(_) => match read_eksctl_line(text) {
                Some(stage) => store
                    .append(
                        &job_id,
                        EventBody::Stage {
                            step: position,
                            text: text.to_owned(),
                            stage,
                        },
                    )
                    .await
                    .map(drop),
                None => Ok(()),
            },
            Err(error) => Err(error),
        };
        if let Err(error) = stored {
            tracing::error!(job = %job_id, %error, "cannot store a deploy log line; reading on without storing");
            refused = Some((error, 1));
        }
    }
    match refused {
        None => Ok(kept),
        Some((error, lost)) => Err(StoreError::LinesLost {
            lost,
            cause: Box::new(error),
        }),
    }
}

/// Kills processes a previous server started for these jobs and left running: processes of
/// this user whose environment names the job ([`JOB_MARKER_VARIABLE`]) and the job's
/// directory under `jobs_dir` ([`JOB_DIRECTORY_VARIABLE`]). Returns `(job id, pid)` of each.
pub fn stop_leftovers(job_ids: &[String], jobs_dir: &Path) -> Vec<(String, i32)> {
    use std::os::unix::fs::MetadataExt;
    let mut stopped = Vec::new();
    if job_ids.is_empty() {
        return stopped;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return stopped;
    };
    let own_pid = std::process::id();
    let Ok(own_uid) = std::fs::metadata("/proc/self").map(|metadata| metadata.uid()) else {
        return stopped;
    };
    let jobs_dir = std::fs::canonicalize(jobs_dir).unwrap_or_else(|_| jobs_dir.to_path_buf());
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == own_pid
            || entry
                .metadata()
                .map_or(true, |metadata| metadata.uid() != own_uid)
        {
            continue;
        }
        let Ok(environment) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let value_of = |name: &str| {
            let prefix = format!("{name}=");
            environment
                .split(|byte| *byte == 0)
                .find_map(|variable| variable.strip_prefix(prefix.as_bytes()))
        };
        let job = value_of(JOB_MARKER_VARIABLE)
            .and_then(|value| job_ids.iter().find(|id| id.as_bytes() == value));
        let job = job.filter(|id| {
            let expected = jobs_dir.join(id.as_str());
            value_of(JOB_DIRECTORY_VARIABLE)
                .is_some_and(|value| value == expected.as_os_str().as_encoded_bytes())
        });
        if let (Some(job), Ok(pid)) = (job, i32::try_from(pid))
            && kill(Pid::from_raw(pid), Signal::SIGKILL).is_ok()
        {
            stopped.push((job.clone(), pid));
        }
    }
    stopped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_get_the_allowed_variables_and_no_secret_of_the_servers() {
        let environment = [
            ("PATH", "/usr/bin"),
            ("HOME", "/home/studio"),
            ("AWS_PROFILE", "training"),
            ("AWS_ENDPOINT_URL_EC2", "http://127.0.0.1:5000"),
            ("LC_ALL", "C.UTF-8"),
            ("EKS_STUDIO_DEPLOY_TOKEN", "secret"),
            ("DATABASE_PASSWORD", "secret"),
            ("GITHUB_TOKEN", "secret"),
            ("PATHOLOGICAL", "not PATH"),
        ]
        .map(|(name, value)| (OsString::from(name), OsString::from(value)));
        let names: Vec<String> = tool_environment(environment)
            .into_iter()
            .map(|(name, _)| name.into_string().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "PATH",
                "HOME",
                "AWS_PROFILE",
                "AWS_ENDPOINT_URL_EC2",
                "LC_ALL"
            ]
        );
    }

    /// A process is a leftover of this server's job only when its environment names the
    /// job and the job's directory here: another data directory's job of the same id (or a
    /// process that only copied the job variable) is left alone.
    #[test]
    fn leftovers_are_matched_by_job_and_job_directory() {
        let scratch =
            std::env::temp_dir().join(format!("eks-studio-leftovers-{}", std::process::id()));
        let jobs_dir = scratch.join("jobs");
        std::fs::create_dir_all(jobs_dir.join("0123456789abcdef")).unwrap();
        let spawn = |directory: &Path| {
            std::process::Command::new("sleep")
                .arg("30")
                .env(JOB_MARKER_VARIABLE, "0123456789abcdef")
                .env(JOB_DIRECTORY_VARIABLE, directory)
                .spawn()
                .unwrap()
        };
        // Until a child has called exec, /proc shows the parent's environment: wait for it.
        let started = |child: &std::process::Child| {
            let environ = format!("/proc/{}/environ", child.id());
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while std::time::Instant::now() < deadline {
                let seen = std::fs::read(&environ).unwrap_or_default();
                if seen
                    .split(|byte| *byte == 0)
                    .any(|variable| variable.starts_with(JOB_DIRECTORY_VARIABLE.as_bytes()))
                {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            panic!("the child never showed its environment");
        };
        let mut elsewhere = spawn(&scratch.join("other-data/jobs/0123456789abcdef"));
        let mut ours = spawn(&std::fs::canonicalize(jobs_dir.join("0123456789abcdef")).unwrap());
        started(&elsewhere);
        started(&ours);
        let stopped = stop_leftovers(&["0123456789abcdef".to_owned()], &jobs_dir);
        assert_eq!(
            stopped,
            vec![("0123456789abcdef".to_owned(), ours.id() as i32)],
            "only the process of this data directory's job"
        );
        let _ = ours.wait();
        assert!(
            elsewhere.try_wait().unwrap().is_none(),
            "the other job's process runs on"
        );
        let _ = elsewhere.kill();
        let _ = elsewhere.wait();
        let _ = std::fs::remove_dir_all(&scratch);
    }
}
