//! Jobs, their steps and every event (log line, stage, step and state change) live in one
//! SQLite file, so history and logs survive a restart. Event ids come from one
//! `AUTOINCREMENT` column: they only grow, which is what resuming with `Last-Event-ID` needs.
//!
//! Every write happens under one lock and announces the newest event id on a watch
//! channel while still holding it, so a follower that reads "everything after N" and
//! then waits for the announcement misses nothing and sees nothing twice.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::{Connection, ErrorCode, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use super::stages::Stage;

const SCHEMA: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA foreign_keys = ON;
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    cluster TEXT NOT NULL,
    region TEXT NOT NULL,
    state TEXT NOT NULL,
    directory TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    finished_at TEXT
);
-- One active deploy per cluster name and region, enforced where the jobs live.
CREATE UNIQUE INDEX IF NOT EXISTS one_active_deploy_per_cluster
    ON jobs (cluster, region) WHERE state IN ('pending', 'running');
CREATE TABLE IF NOT EXISTS steps (
    job_id TEXT NOT NULL REFERENCES jobs (id),
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    title TEXT NOT NULL,
    command TEXT NOT NULL,
    state TEXT NOT NULL,
    exit_code INTEGER,
    started_at TEXT,
    finished_at TEXT,
    PRIMARY KEY (job_id, position)
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id TEXT NOT NULL REFERENCES jobs (id),
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    kind TEXT NOT NULL,
    step INTEGER,
    stream TEXT,
    text TEXT,
    state TEXT,
    exit_code INTEGER,
    stage TEXT
);
CREATE INDEX IF NOT EXISTS events_by_job ON events (job_id, id);
";

const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/// A store failure: SQLite's, or the blocking task it ran on.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused or failed.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// The blocking task running the query panicked or was cancelled.
    #[error("store task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
    /// A step's output could not be stored from some line on.
    #[error("{lost} line(s) of output could not be stored: {cause}")]
    LinesLost {
        /// Lines read but not stored (the first refused one included).
        lost: usize,
        /// Why the first was refused.
        cause: Box<StoreError>,
    },
}

impl StoreError {
    /// Whether the data directory refused the write (full, read-only, gone) rather than a
    /// fault in the studio.
    pub fn is_storage(&self) -> bool {
        match self {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(error, _)) => matches!(
                error.code,
                ErrorCode::DiskFull
                    | ErrorCode::SystemIoFailure
                    | ErrorCode::ReadOnly
                    | ErrorCode::CannotOpen
                    | ErrorCode::DatabaseBusy
                    | ErrorCode::DatabaseLocked
            ),
            StoreError::LinesLost { cause, .. } => cause.is_storage(),
            StoreError::Sqlite(_) | StoreError::Task(_) => false,
        }
    }
}

/// Where a job is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    /// Accepted; no step has started yet.
    Pending,
    /// A step is running.
    Running,
    /// Every step succeeded.
    Succeeded,
    /// A step failed or could not start.
    Failed,
    /// Stopped on request.
    Cancelled,
    /// The server stopped while it ran; its logs are kept.
    Interrupted,
}

/// Where a step is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepState {
    /// Not started yet.
    Pending,
    /// Its process runs.
    Running,
    /// Exited 0.
    Succeeded,
    /// Exited non-zero, was killed by a signal, or could not start.
    Failed,
    /// Stopped on request.
    Cancelled,
    /// The server stopped while it ran.
    Interrupted,
    /// Never ran because an earlier step did not succeed.
    Skipped,
}

macro_rules! text_enum {
    ($name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        impl $name {
            /// The lowercase name used in JSON and in the database.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }

            fn from_db(text: &str) -> rusqlite::Result<$name> {
                match text {
                    $($text => Ok($name::$variant),)*
                    other => Err(rusqlite::Error::InvalidColumnType(
                        0,
                        format!("unknown {} `{other}`", stringify!($name)),
                        rusqlite::types::Type::Text,
                    )),
                }
            }
        }
    };
}

text_enum!(JobState {
    Pending = "pending",
    Running = "running",
    Succeeded = "succeeded",
    Failed = "failed",
    Cancelled = "cancelled",
    Interrupted = "interrupted",
});

text_enum!(StepState {
    Pending = "pending",
    Running = "running",
    Succeeded = "succeeded",
    Failed = "failed",
    Cancelled = "cancelled",
    Interrupted = "interrupted",
    Skipped = "skipped",
});

text_enum!(EventKind {
    Log = "log",
    Stage = "stage",
    Step = "step",
    State = "state",
});

text_enum!(OutputStream {
    Stdout = "stdout",
    Stderr = "stderr",
});

impl JobState {
    /// Whether the job is over: nothing more will be written for it.
    pub fn is_finished(self) -> bool {
        !matches!(self, JobState::Pending | JobState::Running)
    }
}

/// What an event is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// One line a step's process printed, as printed.
    Log,
    /// A progress stage read from an eksctl line (the line is also a `log` event).
    Stage,
    /// A step started or ended.
    Step,
    /// The job's state changed; a finished state is the job's last event.
    State,
}

/// Which of a process's outputs a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// The content of an event; which fields are set depends on `kind`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventBody {
    /// What the event is about.
    pub kind: EventKind,
    /// The step's position (0 is the plan), for all but job-level events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// For `log`: which output the line came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<OutputStream>,
    /// For `log` and `stage`: the line; for `step` and `state`: what happened, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// For `step`: the step's new state; for `state`: the job's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// For `step` when its process exited with a code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// For `stage`: the stage the line marks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<Stage>,
}

impl EventBody {
    fn empty(kind: EventKind) -> EventBody {
        EventBody {
            kind,
            step: None,
            stream: None,
            text: None,
            state: None,
            exit_code: None,
            stage: None,
        }
    }

    /// A line a step printed.
    pub fn log(step: usize, stream: OutputStream, line: impl Into<String>) -> EventBody {
        EventBody {
            step: Some(step),
            stream: Some(stream),
            text: Some(line.into()),
            ..EventBody::empty(EventKind::Log)
        }
    }

    /// A progress stage read from a line.
    pub fn stage(step: usize, line: impl Into<String>, stage: Stage) -> EventBody {
        EventBody {
            step: Some(step),
            text: Some(line.into()),
            stage: Some(stage),
            ..EventBody::empty(EventKind::Stage)
        }
    }

    /// A note from the studio itself about a step (it could not start, it was stopped…),
    /// written as a log line on standard error so it reads in order with the tool's own.
    pub fn note(step: usize, text: impl Into<String>) -> EventBody {
        EventBody::log(step, OutputStream::Stderr, text)
    }
}

/// One stored event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Grows with every event of every job; SSE's event id.
    pub id: i64,
    /// The job it belongs to.
    pub job_id: String,
    /// When it was stored (RFC 3339, UTC).
    pub at: String,
    /// What happened.
    #[serde(flatten)]
    pub body: EventBody,
}

impl Event {
    /// Whether this is the job's final state change, after which nothing follows.
    pub fn ends_job(&self) -> bool {
        self.body.kind == EventKind::State
            && self
                .body
                .state
                .as_deref()
                .and_then(|state| JobState::from_db(state).ok())
                .is_some_and(JobState::is_finished)
    }
}

/// One step of a job as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Position in the job, from 0 (the plan).
    pub index: usize,
    /// Short machine name: `plan`, `create-cluster`, `install-karpenter`, `apply-nodepools`.
    pub name: String,
    /// What it does, in words.
    pub title: String,
    /// The argument vector it runs (program first), exactly as passed.
    pub command: Vec<String>,
    /// Where it is.
    pub state: StepState,
    /// Its process's exit code once it exited with one.
    pub exit_code: Option<i32>,
    /// When it started (RFC 3339, UTC).
    pub started_at: Option<String>,
    /// When it ended (RFC 3339, UTC).
    pub finished_at: Option<String>,
}

/// A deploy job as the API shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Opaque id.
    pub id: String,
    /// The cluster's name.
    pub cluster: String,
    /// The cluster's region.
    pub region: String,
    /// Where the job is.
    pub state: JobState,
    /// When it was accepted (RFC 3339, UTC).
    pub created_at: String,
    /// When it ended (RFC 3339, UTC).
    pub finished_at: Option<String>,
    /// The job's directory: the bundle it deploys and the kubeconfig eksctl writes.
    pub directory: String,
    /// Its steps in order.
    pub steps: Vec<Step>,
    /// The newest event's id (0 before any): resume the event stream after it.
    pub last_event_id: i64,
    /// What the plan step (`eksctl create cluster --dry-run`) printed on standard output,
    /// once it ran: the ClusterConfig eksctl would create. Only in single-job answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan_output: Option<String>,
}

/// A job to create.
#[derive(Clone, Debug)]
pub struct NewJob {
    /// Opaque id.
    pub id: String,
    /// The cluster's name.
    pub cluster: String,
    /// The cluster's region.
    pub region: String,
    /// The job's directory.
    pub directory: String,
    /// Steps in order: name, title, command.
    pub steps: Vec<(String, String, Vec<String>)>,
}

/// Why a job could not be created.
#[derive(Debug)]
pub enum CreateRefused {
    /// This job is already active for the same cluster name and region.
    Active(String),
}

/// The job store. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Store {
    connection: Arc<Mutex<Connection>>,
    newest_event: Arc<watch::Sender<i64>>,
    /// One turn at the connection at a time, waited for on the async side: hundreds of
    /// event-stream followers then wait as cheap tasks, not as blocking threads parked
    /// on the connection's mutex (the blocking pool would grow to hundreds of threads).
    turn: Arc<tokio::sync::Semaphore>,
}

impl Store {
    /// Opens (creating when missing) the database file.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let connection = Connection::open(path)?;
        connection.busy_timeout(std::time::Duration::from_secs(5))?;
        connection.execute_batch(SCHEMA)?;
        let newest: i64 =
            connection.query_row("SELECT IFNULL(MAX(id), 0) FROM events", [], |row| {
                row.get(0)
            })?;
        Ok(Store {
            connection: Arc::new(Mutex::new(connection)),
            newest_event: Arc::new(watch::channel(newest).0),
            turn: Arc::new(tokio::sync::Semaphore::new(1)),
        })
    }

    /// Announces the newest event id after every write.
    pub fn subscribe(&self) -> watch::Receiver<i64> {
        self.newest_event.subscribe()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `work` on the connection off the async threads.
    async fn with<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, &watch::Sender<i64>) -> Result<T, StoreError> + Send + 'static,
    {
        let store = self.clone();
        let turn = self
            .turn
            .clone()
            .acquire_owned()
            .await
            .expect("the store's semaphore is never closed");
        tokio::task::spawn_blocking(move || {
            let _turn = turn;
            let mut connection = store.lock();
            work(&mut connection, &store.newest_event)
        })
        .await?
    }

    /// Ids of the jobs still pending or running: at start, the ones a stopped server left.
    pub fn unfinished_jobs(&self) -> Result<Vec<String>, StoreError> {
        let connection = self.lock();
        let mut statement =
            connection.prepare("SELECT id FROM jobs WHERE state IN ('pending', 'running')")?;
        let ids = statement
            .query_map([], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    /// Marks every job left pending or running (by a server that stopped) `interrupted`,
    /// its running step too, with a state event whose text `explain` gives; returns their ids.
    pub fn interrupt_unfinished(
        &self,
        explain: impl Fn(&str) -> String,
    ) -> Result<Vec<String>, StoreError> {
        let ids = self.unfinished_jobs()?;
        let mut connection = self.lock();
        let transaction = connection.transaction()?;
        let mut newest = None;
        for id in &ids {
            transaction.execute(
                &format!(
                    "UPDATE steps SET state = CASE state WHEN 'running' THEN 'interrupted' ELSE 'skipped' END,
                         finished_at = CASE state WHEN 'running' THEN {NOW} ELSE finished_at END
                     WHERE job_id = ?1 AND state IN ('pending', 'running')"
                ),
                params![id],
            )?;
            transaction.execute(
                &format!(
                    "UPDATE jobs SET state = 'interrupted', finished_at = {NOW} WHERE id = ?1"
                ),
                params![id],
            )?;
            let body = EventBody {
                state: Some(JobState::Interrupted.as_str().into()),
                text: Some(explain(id)),
                ..EventBody::empty(EventKind::State)
            };
            newest = Some(insert_event(&transaction, id, &body)?);
        }
        transaction.commit()?;
        if let Some(newest) = newest {
            self.newest_event.send_replace(newest);
        }
        Ok(ids)
    }

    /// Stores a new pending job and its pending steps, unless one is already active for
    /// the same cluster name and region.
    pub async fn create_job(&self, job: NewJob) -> Result<Result<(), CreateRefused>, StoreError> {
        self.with(move |connection, _| {
            let transaction = connection.transaction()?;
            let inserted = transaction.execute(
                "INSERT INTO jobs (id, cluster, region, state, directory) VALUES (?1, ?2, ?3, 'pending', ?4)",
                params![job.id, job.cluster, job.region, job.directory],
            );
            match inserted {
                Ok(_) => {}
                Err(rusqlite::Error::SqliteFailure(error, _))
                    if error.code == ErrorCode::ConstraintViolation =>
                {
                    drop(transaction);
                    let active = active_job(connection, &job.cluster, &job.region)?;
                    return Ok(Err(CreateRefused::Active(active.unwrap_or_default())));
                }
                Err(error) => return Err(error.into()),
            }
            for (position, (name, title, command)) in job.steps.iter().enumerate() {
                transaction.execute(
                    "INSERT INTO steps (job_id, position, name, title, command, state) VALUES (?1, ?2, ?3, ?4, ?5, 'pending')",
                    params![
                        job.id,
                        position as i64,
                        name,
                        title,
                        serde_json::to_string(command).expect("strings serialise")
                    ],
                )?;
            }
            transaction.commit()?;
            Ok(Ok(()))
        })
        .await
    }

    /// The active job for a cluster name and region, if any.
    pub async fn active_job(
        &self,
        cluster: &str,
        region: &str,
    ) -> Result<Option<String>, StoreError> {
        let (cluster, region) = (cluster.to_owned(), region.to_owned());
        self.with(move |connection, _| Ok(active_job(connection, &cluster, &region)?))
            .await
    }

    /// Appends one event and returns its id.
    pub async fn append(&self, job_id: &str, body: EventBody) -> Result<i64, StoreError> {
        let job_id = job_id.to_owned();
        self.with(move |connection, newest| {
            let id = insert_event(connection, &job_id, &body)?;
            newest.send_replace(id);
            Ok(id)
        })
        .await
    }

    /// Changes a step's state (stamping its start or end) and records a `step` event.
    pub async fn set_step(
        &self,
        job_id: &str,
        position: usize,
        state: StepState,
        exit_code: Option<i32>,
        text: String,
    ) -> Result<(), StoreError> {
        let job_id = job_id.to_owned();
        self.with(move |connection, newest| {
            let transaction = connection.transaction()?;
            let stamp = if state == StepState::Running {
                "started_at"
            } else {
                "finished_at"
            };
            transaction.execute(
                &format!(
                    "UPDATE steps SET state = ?3, exit_code = ?4, {stamp} = {NOW} WHERE job_id = ?1 AND position = ?2"
                ),
                params![job_id, position as i64, state.as_str(), exit_code],
            )?;
            let body = EventBody {
                step: Some(position),
                state: Some(state.as_str().into()),
                exit_code,
                text: Some(text),
                ..EventBody::empty(EventKind::Step)
            };
            let id = insert_event(&transaction, &job_id, &body)?;
            transaction.commit()?;
            newest.send_replace(id);
            Ok(())
        })
        .await
    }

    /// Marks every step still pending `skipped` (no event: the job's end says why).
    pub async fn skip_pending_steps(&self, job_id: &str) -> Result<(), StoreError> {
        let job_id = job_id.to_owned();
        self.with(move |connection, _| {
            connection.execute(
                "UPDATE steps SET state = 'skipped' WHERE job_id = ?1 AND state = 'pending'",
                params![job_id],
            )?;
            Ok(())
        })
        .await
    }

    /// Ends a job that could not record its progress: its running step `failed`, its pending
    /// ones `skipped`, the job `failed` with a `state` event saying why, in one transaction
    /// (the fewest writes, for a data directory that is short of space).
    pub async fn fail_job(&self, job_id: &str, text: String) -> Result<(), StoreError> {
        let job_id = job_id.to_owned();
        self.with(move |connection, newest| {
            let transaction = connection.transaction()?;
            transaction.execute(
                &format!(
                    "UPDATE steps SET state = CASE state WHEN 'running' THEN 'failed' ELSE 'skipped' END,
                         finished_at = CASE state WHEN 'running' THEN {NOW} ELSE finished_at END
                     WHERE job_id = ?1 AND state IN ('pending', 'running')"
                ),
                params![job_id],
            )?;
            transaction.execute(
                &format!("UPDATE jobs SET state = 'failed', finished_at = {NOW} WHERE id = ?1"),
                params![job_id],
            )?;
            let body = EventBody {
                state: Some(JobState::Failed.as_str().into()),
                text: Some(text),
                ..EventBody::empty(EventKind::State)
            };
            let id = insert_event(&transaction, &job_id, &body)?;
            transaction.commit()?;
            newest.send_replace(id);
            Ok(())
        })
        .await
    }

    /// Changes the job's state (stamping its end when finished) and records a `state` event.
    pub async fn set_job_state(
        &self,
        job_id: &str,
        state: JobState,
        text: String,
    ) -> Result<(), StoreError> {
        let job_id = job_id.to_owned();
        self.with(move |connection, newest| {
            let transaction = connection.transaction()?;
            let finished_at = if state.is_finished() { NOW } else { "NULL" };
            transaction.execute(
                &format!("UPDATE jobs SET state = ?2, finished_at = {finished_at} WHERE id = ?1"),
                params![job_id, state.as_str()],
            )?;
            let body = EventBody {
                state: Some(state.as_str().into()),
                text: Some(text),
                ..EventBody::empty(EventKind::State)
            };
            let id = insert_event(&transaction, &job_id, &body)?;
            transaction.commit()?;
            newest.send_replace(id);
            Ok(())
        })
        .await
    }

    /// One job with its steps and, when `with_plan`, the plan's output.
    pub async fn job(&self, job_id: &str, with_plan: bool) -> Result<Option<Job>, StoreError> {
        let job_id = job_id.to_owned();
        self.with(move |connection, _| {
            let job = connection
                .query_row(
                    &format!("{JOB_SELECT} WHERE id = ?1"),
                    params![job_id],
                    job_from_row,
                )
                .optional()?;
            let Some(mut job) = job else { return Ok(None) };
            fill_job(connection, &mut job)?;
            if with_plan {
                job.plan_output = plan_output(connection, &job.id)?;
            }
            Ok(Some(job))
        })
        .await
    }

    /// Every job, newest first.
    pub async fn jobs(&self) -> Result<Vec<Job>, StoreError> {
        self.with(move |connection, _| {
            let mut jobs: Vec<Job> = {
                let mut statement =
                    connection.prepare(&format!("{JOB_SELECT} ORDER BY rowid DESC"))?;
                statement
                    .query_map([], job_from_row)?
                    .collect::<Result<_, _>>()?
            };
            for job in &mut jobs {
                fill_job(connection, job)?;
            }
            Ok(jobs)
        })
        .await
    }

    /// Up to `limit` events of a job with an id above `after`, oldest first.
    pub async fn events_after(
        &self,
        job_id: &str,
        after: i64,
        limit: usize,
    ) -> Result<Vec<Event>, StoreError> {
        let job_id = job_id.to_owned();
        self.with(move |connection, _| {
            let mut statement = connection.prepare_cached(
                "SELECT id, job_id, at, kind, step, stream, text, state, exit_code, stage
                 FROM events WHERE job_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3",
            )?;
            let events = statement
                .query_map(params![job_id, after, limit as i64], event_from_row)?
                .collect::<Result<_, _>>()?;
            Ok(events)
        })
        .await
    }

    /// The job's state, if it exists.
    pub async fn job_state(&self, job_id: &str) -> Result<Option<JobState>, StoreError> {
        let job_id = job_id.to_owned();
        self.with(move |connection, _| {
            let state: Option<String> = connection
                .query_row(
                    "SELECT state FROM jobs WHERE id = ?1",
                    params![job_id],
                    |row| row.get(0),
                )
                .optional()?;
            Ok(state.map(|state| JobState::from_db(&state)).transpose()?)
        })
        .await
    }
}

const JOB_SELECT: &str =
    "SELECT id, cluster, region, state, created_at, finished_at, directory FROM jobs";

fn job_from_row(row: &Row<'_>) -> rusqlite::Result<Job> {
    Ok(Job {
        id: row.get(0)?,
        cluster: row.get(1)?,
        region: row.get(2)?,
        state: JobState::from_db(&row.get::<_, String>(3)?)?,
        created_at: row.get(4)?,
        finished_at: row.get(5)?,
        directory: row.get(6)?,
        steps: Vec::new(),
        last_event_id: 0,
        plan_output: None,
    })
}

fn fill_job(connection: &Connection, job: &mut Job) -> Result<(), StoreError> {
    let mut statement = connection.prepare_cached(
        "SELECT position, name, title, command, state, exit_code, started_at, finished_at
         FROM steps WHERE job_id = ?1 ORDER BY position",
    )?;
    job.steps = statement
        .query_map(params![job.id], |row| {
            let command: String = row.get(3)?;
            Ok(Step {
                index: row.get::<_, i64>(0)? as usize,
                name: row.get(1)?,
                title: row.get(2)?,
                command: serde_json::from_str(&command).unwrap_or_default(),
                state: StepState::from_db(&row.get::<_, String>(4)?)?,
                exit_code: row.get(5)?,
                started_at: row.get(6)?,
                finished_at: row.get(7)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    job.last_event_id = connection.query_row(
        "SELECT IFNULL(MAX(id), 0) FROM events WHERE job_id = ?1",
        params![job.id],
        |row| row.get(0),
    )?;
    Ok(())
}

/// The plan step's standard output, once the plan has ended.
fn plan_output(connection: &Connection, job_id: &str) -> Result<Option<String>, StoreError> {
    let plan_state: Option<String> = connection
        .query_row(
            "SELECT state FROM steps WHERE job_id = ?1 AND position = 0",
            params![job_id],
            |row| row.get(0),
        )
        .optional()?;
    if matches!(plan_state.as_deref(), None | Some("pending" | "running")) {
        return Ok(None);
    }
    let mut statement = connection.prepare_cached(
        "SELECT text FROM events WHERE job_id = ?1 AND kind = 'log' AND step = 0 AND stream = 'stdout' ORDER BY id",
    )?;
    let mut output = String::new();
    for line in statement.query_map(params![job_id], |row| row.get::<_, String>(0))? {
        output.push_str(&line?);
        output.push('\n');
    }
    Ok(Some(output))
}

fn active_job(
    connection: &Connection,
    cluster: &str,
    region: &str,
) -> rusqlite::Result<Option<String>> {
    connection
        .query_row(
            "SELECT id FROM jobs WHERE cluster = ?1 AND region = ?2 AND state IN ('pending', 'running')",
            params![cluster, region],
            |row| row.get(0),
        )
        .optional()
}

fn insert_event(connection: &Connection, job_id: &str, body: &EventBody) -> rusqlite::Result<i64> {
    let stage = body
        .stage
        .as_ref()
        .map(|stage| serde_json::to_string(stage).expect("a stage serialises"));
    connection.execute(
        "INSERT INTO events (job_id, kind, step, stream, text, state, exit_code, stage)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            job_id,
            body.kind.as_str(),
            body.step.map(|step| step as i64),
            body.stream.map(OutputStream::as_str),
            body.text,
            body.state,
            body.exit_code,
            stage,
        ],
    )?;
    Ok(connection.last_insert_rowid())
}

fn event_from_row(row: &Row<'_>) -> rusqlite::Result<Event> {
    let stream: Option<String> = row.get(5)?;
    let stage: Option<String> = row.get(9)?;
    Ok(Event {
        id: row.get(0)?,
        job_id: row.get(1)?,
        at: row.get(2)?,
        body: EventBody {
            kind: EventKind::from_db(&row.get::<_, String>(3)?)?,
            step: row.get::<_, Option<i64>>(4)?.map(|step| step as usize),
            stream: stream.as_deref().map(OutputStream::from_db).transpose()?,
            text: row.get(6)?,
            state: row.get(7)?,
            exit_code: row.get(8)?,
            stage: stage.and_then(|stage| serde_json::from_str(&stage).ok()),
        },
    })
}
