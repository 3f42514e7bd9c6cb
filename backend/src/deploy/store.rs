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
use tokio::sync::watch;

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

/// Columns added since the first schema, each with its definition: a data directory of
/// an older server gets them at open, its jobs with none.
const ADDED_COLUMNS: [(&str, &str); 2] = [("requested_by", "TEXT"), ("approved_by", "TEXT")];

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

pub use shared::model::live_checks::{
    DeployEvent as Event, EventBody, Job, JobState, JobStep as Step, OutputStream, StepState,
};

/// A stored name read back as the enum it names; a name no version wrote is an error.
fn from_db<T>(text: &str, parse: fn(&str) -> Option<T>, what: &str) -> rusqlite::Result<T> {
    parse(text).ok_or_else(|| {
        rusqlite::Error::InvalidColumnType(
            0,
            format!("unknown {what} `{text}`"),
            rusqlite::types::Type::Text,
        )
    })
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
    /// Who asked for it, in words (`alice@laptop`, the token's holder from 10.0.0.7).
    pub requested_by: String,
    /// Steps in order.
    pub steps: Vec<NewStep>,
}

/// A step of a job to create.
#[derive(Clone, Debug)]
pub struct NewStep {
    /// Short machine name, e.g. `create-cluster`.
    pub name: String,
    /// What it does, in words.
    pub title: String,
    /// The argument vector it runs, as shown.
    pub command: Vec<String>,
}

/// What became of a job to create.
#[derive(Debug)]
pub enum Created {
    /// Stored, pending.
    Stored,
    /// Not stored: this job is already active for the same cluster name and region.
    AlreadyActive(String),
    /// The store failed.
    Failed(StoreError),
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
        let present: Vec<String> = connection
            .prepare("SELECT name FROM pragma_table_info('jobs')")?
            .query_map([], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        for (column, definition) in ADDED_COLUMNS {
            if !present.iter().any(|name| name == column) {
                connection.execute_batch(&format!(
                    "ALTER TABLE jobs ADD COLUMN {column} {definition}"
                ))?;
            }
        }
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
            let body = EventBody::State {
                state: JobState::Interrupted,
                text: explain(id),
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
    pub async fn create_job(&self, job: NewJob) -> Created {
        let stored = self.with(move |connection, _| {
            let transaction = connection.transaction()?;
            let inserted = transaction.execute(
                "INSERT INTO jobs (id, cluster, region, state, directory, requested_by) VALUES (?1, ?2, ?3, 'pending', ?4, ?5)",
                params![job.id, job.cluster, job.region, job.directory, job.requested_by],
            );
            match inserted {
                Ok(_) => {}
                Err(rusqlite::Error::SqliteFailure(error, _))
                    if error.code == ErrorCode::ConstraintViolation =>
                {
                    drop(transaction);
                    let active = active_job(connection, &job.cluster, &job.region)?;
                    return Ok(Some(active.unwrap_or_default()));
                }
                Err(error) => return Err(error.into()),
            }
            for (position, NewStep { name, title, command }) in job.steps.iter().enumerate() {
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
            Ok(None)
        })
        .await;
        match stored {
            Ok(None) => Created::Stored,
            Ok(Some(active)) => Created::AlreadyActive(active),
            Err(error) => Created::Failed(error),
        }
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

    /// Records who approved a job.
    pub async fn set_approved_by(&self, job_id: &str, by: String) -> Result<(), StoreError> {
        let job_id = job_id.to_owned();
        self.with(move |connection, _| {
            connection.execute(
                "UPDATE jobs SET approved_by = ?2 WHERE id = ?1",
                params![job_id, by],
            )?;
            Ok(())
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
            let body = EventBody::Step {
                step: position,
                state,
                exit_code,
                text,
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
            let body = EventBody::State {
                state: JobState::Failed,
                text,
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
            let body = EventBody::State { state, text };
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
            Ok(state
                .map(|state| from_db(&state, JobState::parse, "job state"))
                .transpose()?)
        })
        .await
    }
}

const JOB_SELECT: &str = "SELECT id, cluster, region, state, created_at, finished_at, directory, requested_by, approved_by FROM jobs";

fn job_from_row(row: &Row<'_>) -> rusqlite::Result<Job> {
    Ok(Job {
        id: row.get(0)?,
        cluster: row.get(1)?,
        region: row.get(2)?,
        state: from_db(&row.get::<_, String>(3)?, JobState::parse, "job state")?,
        created_at: row.get(4)?,
        finished_at: row.get(5)?,
        directory: row.get(6)?,
        requested_by: row.get(7)?,
        approved_by: row.get(8)?,
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
                state: from_db(&row.get::<_, String>(4)?, StepState::parse, "step state")?,
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

/// The event's columns: kind, step, stream, text, state, exit code and stage (JSON).
type EventColumns<'a> = (
    &'static str,
    Option<i64>,
    Option<&'static str>,
    &'a str,
    Option<&'static str>,
    Option<i32>,
    Option<String>,
);

fn event_columns(body: &EventBody) -> EventColumns<'_> {
    match body {
        EventBody::Log { step, stream, text } => (
            "log",
            Some(*step as i64),
            Some(stream.as_str()),
            text,
            None,
            None,
            None,
        ),
        EventBody::Stage { step, text, stage } => (
            "stage",
            Some(*step as i64),
            None,
            text,
            None,
            None,
            Some(serde_json::to_string(stage).expect("a stage serialises")),
        ),
        EventBody::Step {
            step,
            state,
            exit_code,
            text,
        } => (
            "step",
            Some(*step as i64),
            None,
            text,
            Some(state.as_str()),
            *exit_code,
            None,
        ),
        EventBody::State { state, text } => {
            ("state", None, None, text, Some(state.as_str()), None, None)
        }
    }
}

fn insert_event(connection: &Connection, job_id: &str, body: &EventBody) -> rusqlite::Result<i64> {
    let (kind, step, stream, text, state, exit_code, stage) = event_columns(body);
    connection.execute(
        "INSERT INTO events (job_id, kind, step, stream, text, state, exit_code, stage)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![job_id, kind, step, stream, text, state, exit_code, stage],
    )?;
    Ok(connection.last_insert_rowid())
}

fn event_from_row(row: &Row<'_>) -> rusqlite::Result<Event> {
    let kind: String = row.get(3)?;
    let step = row.get::<_, Option<i64>>(4)?.unwrap_or(0) as usize;
    let stream: Option<String> = row.get(5)?;
    let text: String = row.get::<_, Option<String>>(6)?.unwrap_or_default();
    let state: Option<String> = row.get(7)?;
    let state = state.as_deref().unwrap_or_default();
    let body = match kind.as_str() {
        "log" => EventBody::Log {
            step,
            stream: from_db(
                stream.as_deref().unwrap_or_default(),
                OutputStream::parse,
                "output stream",
            )?,
            text,
        },
        "stage" => {
            let stage: Option<String> = row.get(9)?;
            EventBody::Stage {
                step,
                text,
                stage: from_db(
                    stage.as_deref().unwrap_or_default(),
                    |stage| serde_json::from_str(stage).ok(),
                    "stage",
                )?,
            }
        }
        "step" => EventBody::Step {
            step,
            state: from_db(state, StepState::parse, "step state")?,
            exit_code: row.get(8)?,
            text,
        },
        "state" => EventBody::State {
            state: from_db(state, JobState::parse, "job state")?,
            text,
        },
        other => from_db(other, |_| None, "event kind")?,
    };
    Ok(Event {
        id: row.get(0)?,
        job_id: row.get(1)?,
        at: row.get(2)?,
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A data directory an older server made (its jobs table without the columns added
    /// since) opens, gains them, and its jobs read with no one named.
    #[test]
    fn an_older_store_gains_the_columns_added_since_and_keeps_its_jobs() {
        let dir = std::env::temp_dir().join(format!("eks-studio-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("deploys.sqlite3");
        {
            let old = Connection::open(&path).unwrap();
            old.execute_batch(
                "CREATE TABLE jobs (id TEXT PRIMARY KEY, cluster TEXT NOT NULL, region TEXT NOT NULL,
                 state TEXT NOT NULL, directory TEXT NOT NULL,
                 created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
                 finished_at TEXT);
                 INSERT INTO jobs (id, cluster, region, state, directory)
                 VALUES ('old', 'train', 'us-east-1', 'succeeded', '/tmp/old');",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let job = runtime.block_on(store.job("old", false)).unwrap().unwrap();
        assert_eq!(job.requested_by, None);
        assert_eq!(job.approved_by, None);
        runtime
            .block_on(store.set_approved_by("old", "alice".into()))
            .unwrap();
        let job = runtime.block_on(store.job("old", false)).unwrap().unwrap();
        assert_eq!(job.approved_by.as_deref(), Some("alice"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
