//! One change at a time to a running cluster, whoever makes it: the apply lock is a
//! Kubernetes `Lease` in the cluster itself (`kube-system/eks-studio-apply`), where every
//! server, terminal and CI job that can change the cluster meets, not a file of one
//! machine.
//!
//! It is taken and kept the way Kubernetes' own leader election keeps its Leases, with
//! the API server's optimistic concurrency: `kubectl create` when there is none (the
//! API server refuses a second create: AlreadyExists), else `kubectl replace` carrying the
//! `resourceVersion` that was read (a write in between makes it Conflict). A Lease is
//! held while its holder is named and `renewTime + leaseDurationSeconds` is later than
//! now; its holder renews it every third of that, so a holder that dies (kill -9, a lost
//! machine) loses it when it expires, and nothing waits forever. Released, it names no
//! holder. A forced break (`--break-lock`) takes a held Lease all the same and says whose
//! it was, in the Lease (`eks-studio/broke`) and to the person who broke it.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use aws_sdk_eks::primitives::{DateTime, DateTimeFormat};
use serde_json::{Value, json};
use tokio::sync::watch;

use super::objects::{PrivateDir, run};

use shared::changes::lock::{BROKE, JOB, TOOL, WHERE, WHO};
pub use shared::changes::lock::{
    DEFAULT_LEASE_SECONDS, HELD_EXIT_CODE, LEASE_NAME, LEASE_NAMESPACE, LOCK_SECONDS_VARIABLE,
};

/// The Lease's duration: [`LOCK_SECONDS_VARIABLE`] when it is a number of at least 3,
/// else [`DEFAULT_LEASE_SECONDS`].
pub fn lease_seconds() -> u32 {
    std::env::var(LOCK_SECONDS_VARIABLE)
        .ok()
        .and_then(|text| text.trim().parse::<u32>().ok())
        .filter(|seconds| *seconds >= 3)
        .unwrap_or(DEFAULT_LEASE_SECONDS)
}

/// Who takes the lock, as others are told.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Holder {
    /// The person (`alice`, the token's holder).
    pub who: String,
    /// Where: the host, and the server's address.
    pub at: String,
    /// What: `eks-studio apply`, `eks-studio serve`.
    pub tool: String,
    /// Which job: the server's job id, or the terminal's run.
    pub job: String,
}

impl Holder {
    /// The Lease's `holderIdentity`: unique to this taker (its job).
    fn identity(&self) -> String {
        shared::changes::lock::identity(&self.tool, &self.job, &self.who, &self.at)
    }

    /// This process's user and host, for a holder at a terminal.
    pub fn this_user(tool: &str, job: &str) -> Holder {
        let who = ["USER", "LOGNAME"]
            .iter()
            .find_map(|name| std::env::var(name).ok().filter(|value| !value.is_empty()))
            .unwrap_or_else(|| "unknown user".to_owned());
        Holder {
            who,
            at: host_name(),
            tool: tool.to_owned(),
            job: job.to_owned(),
        }
    }
}

/// This machine's name, as the kernel has it.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown host".to_owned())
}

/// Someone else's hold on the lock, as read from the Lease.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HeldBy {
    /// Who, as the Lease's annotations say (its `holderIdentity` when they are missing).
    pub holder: Holder,
    /// When they took it (`acquireTime`).
    pub since: String,
    /// When they last renewed it (`renewTime`).
    pub renewed: String,
    /// Seconds until it expires unless renewed.
    pub expires_in_seconds: i64,
}

/// `eks-studio apply (job terminal run 42) by alice on laptop`.
impl std::fmt::Display for Holder {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "{} (job {}) by {} on {}",
            self.tool, self.job, self.who, self.at
        )
    }
}

impl std::fmt::Display for HeldBy {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "{}, since {}; last renewed {}, it expires in {} s unless renewed",
            self.holder,
            self.since,
            self.renewed,
            self.expires_in_seconds.max(0)
        )
    }
}

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Someone else holds it.
    #[error(
        "another apply holds the cluster's lock (Lease {LEASE_NAMESPACE}/{LEASE_NAME}): {0}; nothing was run. Wait for it to end, or break the lock with --break-lock if its holder is gone"
    )]
    Held(Box<HeldBy>),
    /// The cluster's API could not be asked.
    #[error("cannot take the cluster's lock (Lease {LEASE_NAMESPACE}/{LEASE_NAME}): {0}")]
    Failed(String),
}

/// The lock, held: renewed in the background until released or lost.
pub struct ClusterLock {
    access: Access,
    identity: String,
    renewal: tokio::task::JoinHandle<()>,
    lost: watch::Receiver<Option<String>>,
    /// Whose lock a forced break took, when it did.
    pub broke: Option<HeldBy>,
}

/// How the lock reaches the cluster's API: kubectl, with a kubeconfig of its own.
#[derive(Clone)]
struct Access {
    kubectl: PathBuf,
    kubeconfig: PathBuf,
    /// The kubeconfig's private folder, removed when the last copy goes.
    _dir: Option<std::sync::Arc<PrivateDir>>,
}

/// What the API server answered a write.
enum Written {
    Done,
    /// AlreadyExists or Conflict: someone wrote first.
    Lost,
}

/// The Lease as it was read.
struct Observed {
    resource_version: String,
    identity: String,
    holder: Holder,
    acquired: String,
    renewed: String,
    renewed_at: Option<SystemTime>,
    seconds: i64,
    transitions: i64,
    /// Whose lock a forced break took, as the Lease says (kept until the next plain take).
    broke: Option<String>,
}

impl Observed {
    fn read(lease: &Value) -> Observed {
        let text = |value: &Value| value.as_str().unwrap_or_default().to_owned();
        let spec = &lease["spec"];
        let annotations = &lease["metadata"]["annotations"];
        let identity = text(&spec["holderIdentity"]);
        let annotated = |key: &str| {
            annotations[key]
                .as_str()
                .filter(|value| !value.is_empty())
                .map(str::to_owned)
        };
        let holder = Holder {
            who: annotated(WHO).unwrap_or_else(|| identity.clone()),
            at: annotated(WHERE).unwrap_or_else(|| "unknown".to_owned()),
            tool: annotated(TOOL).unwrap_or_else(|| "unknown tool".to_owned()),
            job: annotated(JOB).unwrap_or_else(|| "unknown".to_owned()),
        };
        let renewed = text(&spec["renewTime"]);
        Observed {
            resource_version: text(&lease["metadata"]["resourceVersion"]),
            holder,
            acquired: text(&spec["acquireTime"]),
            renewed_at: parse_time(&renewed),
            renewed,
            seconds: spec["leaseDurationSeconds"].as_i64().unwrap_or(0),
            transitions: spec["leaseTransitions"].as_i64().unwrap_or(0),
            broke: annotated(BROKE),
            identity,
        }
    }

    /// Seconds until the hold expires (negative once it has); `None` when no one holds it.
    fn expires_in(&self, now: SystemTime) -> Option<i64> {
        if self.identity.is_empty() {
            return None;
        }
        let renewed = self.renewed_at?;
        let until = renewed + Duration::from_secs(self.seconds.max(0) as u64);
        Some(match until.duration_since(now) {
            Ok(left) => left.as_secs() as i64,
            Err(past) => -(past.duration().as_secs() as i64) - 1,
        })
    }

    fn held_by(&self, now: SystemTime) -> Option<HeldBy> {
        let left = self.expires_in(now)?;
        (left >= 0).then(|| HeldBy {
            holder: self.holder.clone(),
            since: self.acquired.clone(),
            renewed: self.renewed.clone(),
            expires_in_seconds: left,
        })
    }
}

/// A time as Kubernetes' MicroTime writes it: RFC 3339 in UTC with six digits of
/// fraction, the only form the API server parses for a Lease's times.
fn micro_time(time: SystemTime) -> String {
    let since = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    let seconds = DateTime::from_secs(since.as_secs() as i64)
        .fmt(DateTimeFormat::DateTime)
        .unwrap_or_default();
    let whole = seconds.trim_end_matches('Z');
    format!("{whole}.{:06}Z", since.subsec_micros())
}

fn parse_time(text: &str) -> Option<SystemTime> {
    let time = DateTime::from_str(text.trim(), DateTimeFormat::DateTime).ok()?;
    SystemTime::try_from(time).ok()
}

/// The Lease naming `holder` as held from `acquired`, renewed now; the `resourceVersion`
/// it replaces, when it replaces one.
fn lease(
    holder: Option<&Holder>,
    acquired: &str,
    seconds: u32,
    transitions: i64,
    resource_version: Option<&str>,
    broke: Option<&str>,
) -> Value {
    let mut annotations = serde_json::Map::new();
    if let Some(holder) = holder {
        annotations.insert(WHO.into(), holder.who.clone().into());
        annotations.insert(WHERE.into(), holder.at.clone().into());
        annotations.insert(TOOL.into(), holder.tool.clone().into());
        annotations.insert(JOB.into(), holder.job.clone().into());
    }
    if let Some(broke) = broke {
        annotations.insert(BROKE.into(), broke.into());
    }
    let mut metadata = json!({
        "name": LEASE_NAME,
        "namespace": LEASE_NAMESPACE,
        "annotations": annotations,
    });
    if let Some(version) = resource_version {
        metadata["resourceVersion"] = version.into();
    }
    json!({
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": metadata,
        "spec": {
            "holderIdentity": holder.map(Holder::identity).unwrap_or_default(),
            "leaseDurationSeconds": seconds,
            "acquireTime": acquired,
            "renewTime": micro_time(SystemTime::now()),
            "leaseTransitions": transitions,
        },
    })
}

impl Access {
    fn args<'a>(&'a self, words: &[&'a str], kubeconfig: &'a str) -> Vec<&'a str> {
        let mut args = words.to_vec();
        args.extend(["--kubeconfig", kubeconfig]);
        args
    }

    /// The Lease, or `None` when there is none.
    async fn get(&self) -> Result<Option<Value>, String> {
        let kubeconfig = self.kubeconfig.to_string_lossy().into_owned();
        let args = self.args(
            &[
                "get",
                "lease",
                LEASE_NAME,
                "--namespace",
                LEASE_NAMESPACE,
                "--output",
                "json",
            ],
            &kubeconfig,
        );
        match run(&self.kubectl, &args, &self.kubeconfig).await {
            Ok(stdout) => serde_json::from_slice(&stdout)
                .map(Some)
                .map_err(|error| format!("kubectl's answer is not JSON: {error}")),
            Err(why) if why.contains("(NotFound)") => Ok(None),
            Err(why) => Err(why),
        }
    }

    /// `kubectl create` (no `resourceVersion`) or `replace` (with one) of `lease`.
    async fn write(&self, lease: &Value) -> Result<Written, String> {
        let verb = if lease["metadata"]["resourceVersion"].is_string() {
            "replace"
        } else {
            "create"
        };
        let mut random = [0u8; 6];
        getrandom::fill(&mut random).map_err(|error| error.to_string())?;
        let name: String = random.iter().map(|byte| format!("{byte:02x}")).collect();
        let file = self
            .kubeconfig
            .with_file_name(format!("lease-{verb}-{name}.json"));
        std::fs::write(&file, lease.to_string())
            .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
        let (kubeconfig, file_text) = (
            self.kubeconfig.to_string_lossy().into_owned(),
            file.to_string_lossy().into_owned(),
        );
        let args = self.args(&[verb, "--filename", &file_text], &kubeconfig);
        let answer = run(&self.kubectl, &args, &self.kubeconfig).await;
        let _ = std::fs::remove_file(&file);
        match answer {
            Ok(_) => Ok(Written::Done),
            Err(why) if why.contains("(AlreadyExists)") || why.contains("(Conflict)") => {
                Ok(Written::Lost)
            }
            Err(why) => Err(why),
        }
    }
}

impl ClusterLock {
    /// Takes the lock of the cluster `kubeconfig` names for `holder`, with `kubectl`.
    /// `break_lock` takes it from a live holder too. A kubeconfig in `dir` goes with the
    /// lock.
    pub async fn take(
        kubectl: &Path,
        kubeconfig: &Path,
        dir: Option<PrivateDir>,
        holder: &Holder,
        break_lock: bool,
    ) -> Result<ClusterLock, LockError> {
        let access = Access {
            kubectl: kubectl.to_path_buf(),
            kubeconfig: kubeconfig.to_path_buf(),
            _dir: dir.map(std::sync::Arc::new),
        };
        let seconds = lease_seconds();
        let identity = holder.identity();
        let mut broke = None;
        // A few rounds: each lost race means someone else wrote, and the next read says who.
        for _ in 0..5 {
            let now = SystemTime::now();
            let observed = access.get().await.map_err(LockError::Failed)?;
            let written = match observed.as_ref().map(Observed::read) {
                None => {
                    let lease = lease(Some(holder), &micro_time(now), seconds, 0, None, None);
                    access.write(&lease).await
                }
                Some(observed) => {
                    let held = observed
                        .held_by(now)
                        .filter(|_| observed.identity != identity);
                    let broken = match (held, break_lock) {
                        (Some(held), false) => return Err(LockError::Held(Box::new(held))),
                        (held, _) => held,
                    };
                    let note = broken.as_ref().map(|held| {
                        format!(
                            "{} broke the lock of {} at {}",
                            identity,
                            held.holder.clone().identity(),
                            micro_time(now)
                        )
                    });
                    let lease = lease(
                        Some(holder),
                        &micro_time(now),
                        seconds,
                        observed.transitions + 1,
                        Some(&observed.resource_version),
                        note.as_deref(),
                    );
                    broke = broken;
                    access.write(&lease).await
                }
            };
            match written.map_err(LockError::Failed)? {
                Written::Done => {
                    let (lost_sender, lost) = watch::channel(None);
                    let renewal =
                        tokio::spawn(keep(access.clone(), holder.clone(), seconds, lost_sender));
                    return Ok(ClusterLock {
                        access,
                        identity,
                        renewal,
                        lost,
                        broke,
                    });
                }
                Written::Lost => continue,
            }
        }
        Err(LockError::Failed(
            "the Lease changed under every attempt to take it; try again".into(),
        ))
    }

    /// Why the lock was lost (broken by someone else, or not renewed in time), once it was.
    pub fn lost(&self) -> Option<String> {
        self.lost.borrow().clone()
    }

    /// Waits until the lock is lost, and says why.
    pub async fn until_lost(&mut self) -> String {
        let reason = match self.lost.wait_for(Option::is_some).await {
            Ok(reason) => Some(reason.clone().unwrap_or_default()),
            Err(_) => None,
        };
        match reason {
            Some(reason) => reason,
            // The renewal ended without a reason: it was released.
            None => std::future::pending().await,
        }
    }

    /// Stops renewing and frees the Lease, when it is still this holder's.
    pub async fn release(self) {
        self.renewal.abort();
        if let Ok(Some(found)) = self.access.get().await {
            let observed = Observed::read(&found);
            if observed.identity == self.identity {
                let freed = lease(
                    None,
                    &observed.acquired,
                    observed.seconds.max(1) as u32,
                    observed.transitions,
                    Some(&observed.resource_version),
                    observed.broke.as_deref(),
                );
                let _ = self.access.write(&freed).await;
            }
        }
    }
}

/// Renews the Lease every third of its duration while it is `holder`'s; says why in
/// `lost` when it is not any more (someone broke it) or could not be renewed before it
/// expired.
async fn keep(access: Access, holder: Holder, seconds: u32, lost: watch::Sender<Option<String>>) {
    let identity = holder.identity();
    let period = Duration::from_millis(u64::from(seconds) * 1000 / 3);
    let mut renewed = SystemTime::now();
    loop {
        tokio::time::sleep(period).await;
        let attempt = async {
            let Some(found) = access.get().await? else {
                return Ok(Some("the Lease was deleted".to_owned()));
            };
            let observed = Observed::read(&found);
            if observed.identity != identity {
                let by = if observed.identity.is_empty() {
                    "no one".to_owned()
                } else {
                    observed.holder.to_string()
                };
                return Ok(Some(format!("the lock was taken by {by}")));
            }
            let renewal = lease(
                Some(&holder),
                &observed.acquired,
                seconds,
                observed.transitions,
                Some(&observed.resource_version),
                observed.broke.as_deref(),
            );
            match access.write(&renewal).await? {
                Written::Done => Ok(None),
                // Written in between: the next round reads who did.
                Written::Lost => Err("the Lease changed while it was renewed".to_owned()),
            }
        };
        match attempt.await {
            Ok(None) => renewed = SystemTime::now(),
            Ok(Some(reason)) => {
                lost.send_replace(Some(reason));
                return;
            }
            Err(why) => {
                let waited = SystemTime::now()
                    .duration_since(renewed)
                    .unwrap_or_default();
                if waited >= Duration::from_secs(u64::from(seconds)) {
                    lost.send_replace(Some(format!(
                        "the lock could not be renewed for {} s, so it expired: {why}",
                        waited.as_secs()
                    )));
                    return;
                }
                tracing::warn!(%why, "the cluster's lock was not renewed this time; trying again");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_as_kubernetes_micro_time_and_read_back() {
        let time = SystemTime::UNIX_EPOCH + Duration::from_micros(1_796_682_603_123_456);
        let text = micro_time(time);
        assert_eq!(text, "2026-12-07T22:30:03.123456Z");
        assert_eq!(parse_time(&text), Some(time));
    }

    #[test]
    fn a_lease_is_held_until_its_renewal_plus_its_duration_and_never_when_it_names_no_one() {
        let holder = Holder {
            who: "alice".into(),
            at: "laptop".into(),
            tool: "eks-studio apply".into(),
            job: "run-1".into(),
        };
        let mut written = lease(
            Some(&holder),
            "2026-12-07T22:00:00.000000Z",
            60,
            2,
            None,
            None,
        );
        written["spec"]["renewTime"] = "2026-12-07T22:30:00.000000Z".into();
        written["metadata"]["resourceVersion"] = "7".into();
        let observed = Observed::read(&written);
        let at = |text: &str| parse_time(text).unwrap();
        let held = observed.held_by(at("2026-12-07T22:30:45Z")).unwrap();
        assert_eq!(held.holder, holder);
        assert_eq!(held.expires_in_seconds, 15);
        assert_eq!(held.since, "2026-12-07T22:00:00.000000Z");
        assert!(observed.held_by(at("2026-12-07T22:31:01Z")).is_none());
        let freed = lease(None, &observed.acquired, 60, 2, Some("7"), None);
        assert!(
            Observed::read(&freed)
                .held_by(at("2026-12-07T22:30:45Z"))
                .is_none()
        );
        assert_eq!(observed.resource_version, "7");
        assert_eq!(observed.transitions, 2);
    }
}
