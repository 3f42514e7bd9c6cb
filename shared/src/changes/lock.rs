//! The apply lock's names, shared by everything that takes it: `eks-studio apply` and the
//! server's applies (`backend/src/deploy/lock.rs`, with kubectl) and `apply.sh` (in bash,
//! with kubectl). It is a `coordination.k8s.io/v1` Lease in the cluster, held while it
//! names a holder and `renewTime + leaseDurationSeconds` is later than now.

/// The Lease's name.
pub const LEASE_NAME: &str = "eks-studio-apply";
/// Its namespace.
pub const LEASE_NAMESPACE: &str = "kube-system";
/// How long a Lease holds without renewal, unless [`LOCK_SECONDS_VARIABLE`] says.
pub const DEFAULT_LEASE_SECONDS: u32 = 60;
/// The environment variable that sets the Lease's duration in seconds (at least 3).
pub const LOCK_SECONDS_VARIABLE: &str = "EKS_STUDIO_LOCK_SECONDS";
/// The exit code of an apply refused because someone else holds the lock.
pub const HELD_EXIT_CODE: u8 = 6;

/// Annotations that say who holds the Lease, in words: the person, the machine, the tool,
/// the job; and whose lock a forced break took.
pub const WHO: &str = "eks-studio/who";
/// See [`WHO`].
pub const WHERE: &str = "eks-studio/where";
/// See [`WHO`].
pub const TOOL: &str = "eks-studio/tool";
/// See [`WHO`].
pub const JOB: &str = "eks-studio/job";
/// See [`WHO`].
pub const BROKE: &str = "eks-studio/broke";

/// A holder's `holderIdentity`: its tool, job, person and machine in one line, unique to
/// the job.
pub fn identity(tool: &str, job: &str, who: &str, at: &str) -> String {
    format!("{tool} job {job} by {who} on {at}")
}

/// The bash functions `apply.sh` takes, keeps and frees the lock with (`lock_take`,
/// `lock_check` before each step, `lock_release` on exit), for `cluster` in `region`.
/// They write the kubeconfig first (`aws eks update-kubeconfig`), as the lock needs the
/// cluster's API whatever the steps are.
pub fn script(cluster: &str, region: &str, kubeconfig: &str) -> String {
    let quote = crate::deploy::sequence::shell_quote;
    let mut text = String::from(
        "\n# One change at a time: the cluster's apply lock, a Lease every eks-studio apply,\n# server and apply.sh takes before changing the cluster (docs/security.md).\n",
    );
    text.push_str(&format!(
        "LOCK_LEASE={LEASE_NAME}\nLOCK_NAMESPACE={LEASE_NAMESPACE}\nLOCK_SECONDS=\"${{{LOCK_SECONDS_VARIABLE}:-{DEFAULT_LEASE_SECONDS}}}\"\n"
    ));
    text.push_str(&format!(
        "aws eks update-kubeconfig --name {} --region {} --kubeconfig {} >/dev/null\n",
        quote(cluster),
        quote(region),
        quote(kubeconfig)
    ));
    text.push_str(&format!(
        r#"[ "$LOCK_SECONDS" -ge 3 ] 2>/dev/null || LOCK_SECONDS={DEFAULT_LEASE_SECONDS}
LOCK_DIR="$(mktemp -d)"
LOCK_WHO="$(id -un 2>/dev/null | tr -cd 'A-Za-z0-9._@-')"
LOCK_AT="$(hostname 2>/dev/null | tr -cd 'A-Za-z0-9._-')"
LOCK_JOB="run $$"
LOCK_ME="apply.sh job $LOCK_JOB by ${{LOCK_WHO:-unknown}} on ${{LOCK_AT:-unknown}}"
lock_now() {{ date -u +%Y-%m-%dT%H:%M:%S.%6NZ; }}
# The Lease as kubectl reads it, into LOCK_RV, LOCK_HOLDER, LOCK_RENEW, LOCK_SECS,
# LOCK_TRANS and LOCK_ACQ; fails when there is none.
lock_read() {{
  local out
  if ! out="$(kubectl get lease "$LOCK_LEASE" --namespace "$LOCK_NAMESPACE" --output 'jsonpath={{.metadata.resourceVersion}}|{{.spec.renewTime}}|{{.spec.leaseDurationSeconds}}|{{.spec.leaseTransitions}}|{{.spec.acquireTime}}|{{.spec.holderIdentity}}' 2>"$LOCK_DIR/err")"; then
    grep -q '(NotFound)' "$LOCK_DIR/err" && return 1
    cat "$LOCK_DIR/err" >&2
    echo "apply.sh: cannot read the cluster's lock (Lease $LOCK_NAMESPACE/$LOCK_LEASE); nothing was run" >&2
    exit 2
  fi
  # The holder last: whatever it holds stays in it.
  IFS='|' read -r LOCK_RV LOCK_RENEW LOCK_SECS LOCK_TRANS LOCK_ACQ LOCK_HOLDER <<<"$out" || true
}}
# kubectl create (no resourceVersion) or replace (the one read) of the Lease naming
# HOLDER (empty: freed), held since ACQUIRED, after TRANSITIONS takeovers.
lock_write() {{
  local verb="$1" version="$2" acquired="$3" transitions="$4" holder="$5" meta=""
  [ -n "$version" ] && meta=",\"resourceVersion\":\"$version\""
  local notes=""
  [ -n "$holder" ] && notes="\"{WHO}\":\"$LOCK_WHO\",\"{WHERE}\":\"$LOCK_AT\",\"{TOOL}\":\"apply.sh\",\"{JOB}\":\"$LOCK_JOB\""
  printf '{{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{{"name":"%s","namespace":"%s"%s,"annotations":{{%s}}}},"spec":{{"holderIdentity":"%s","leaseDurationSeconds":%s,"acquireTime":"%s","renewTime":"%s","leaseTransitions":%s}}}}\n' \
    "$LOCK_LEASE" "$LOCK_NAMESPACE" "$meta" "$notes" "$holder" "$LOCK_SECONDS" "$acquired" "$(lock_now)" "${{transitions:-0}}" >"$LOCK_DIR/lease.json"
  kubectl "$verb" --filename "$LOCK_DIR/lease.json" >/dev/null 2>"$LOCK_DIR/err"
}}
lock_take() {{
  local attempt now renewed left
  for attempt in 1 2 3 4 5; do
    now="$(lock_now)"
    if ! lock_read; then
      lock_write create "" "$now" 0 "$LOCK_ME" && return 0
    else
      if [ -n "$LOCK_HOLDER" ] && [ "$LOCK_HOLDER" != "$LOCK_ME" ]; then
        renewed="$(date -u -d "$LOCK_RENEW" +%s 2>/dev/null || echo 0)"
        left=$(( renewed + ${{LOCK_SECS:-0}} - $(date -u +%s) ))
        if [ "$left" -ge 0 ]; then
          echo "apply.sh: another apply holds the cluster's lock (Lease $LOCK_NAMESPACE/$LOCK_LEASE): $LOCK_HOLDER, since $LOCK_ACQ; last renewed $LOCK_RENEW, it expires in $left s unless renewed; nothing was run" >&2
          exit {HELD_EXIT_CODE}
        fi
      fi
      lock_write replace "$LOCK_RV" "$now" $(( ${{LOCK_TRANS:-0}} + 1 )) "$LOCK_ME" && return 0
    fi
    if ! grep -qE '\((AlreadyExists|Conflict)\)' "$LOCK_DIR/err"; then
      cat "$LOCK_DIR/err" >&2
      echo "apply.sh: cannot take the cluster's lock; nothing was run" >&2
      exit 2
    fi
  done
  echo "apply.sh: the cluster's lock changed under every attempt to take it; try again" >&2
  exit 2
}}
# Renews the Lease every third of its duration while it is this run's; says so in
# LOCK_DIR/lost when someone took it.
lock_keep() {{
  while sleep $(( LOCK_SECONDS / 3 )); do
    if ! lock_read || [ "$LOCK_HOLDER" != "$LOCK_ME" ]; then
      echo "the lock was taken by ${{LOCK_HOLDER:-no one}}" >"$LOCK_DIR/lost"
      return
    fi
    lock_write replace "$LOCK_RV" "$LOCK_ACQ" "$LOCK_TRANS" "$LOCK_ME" || true
  done
}}
lock_check() {{
  if [ -f "$LOCK_DIR/lost" ]; then
    echo "apply.sh: stopped before this step: $(cat "$LOCK_DIR/lost")" >&2
    exit 1
  fi
}}
lock_release() {{
  kill "$LOCK_KEEPER" 2>/dev/null || true
  if lock_read && [ "$LOCK_HOLDER" = "$LOCK_ME" ]; then
    lock_write replace "$LOCK_RV" "$LOCK_ACQ" "$LOCK_TRANS" "" || true
  fi
  rm -rf "$LOCK_DIR"
}}
lock_take
# In the background, holding none of the script's output: whoever reads it sees its end
# when the script ends.
lock_keep </dev/null >/dev/null 2>&1 &
LOCK_KEEPER=$!
trap lock_release EXIT
"#
    ));
    text
}
