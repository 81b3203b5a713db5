//! The engine's errors: one variant per way a rollout stops, each message saying what happened
//! and what to do, so a caller can match on "drain blocked" vs "lease lost"; and the typed
//! causes inside them: why a node was not safe to stop ([`UnsafeStop`]), which change on a
//! stopped VM failed ([`ChangeError`], which may hold the error that stopped the read before
//! it), why a node did not come back ([`NotBack`]).

use super::members::UnknownMember;
use crate::model::VmState;
use crate::ports::PortError;
use serde::{Serialize, Serializer};

/// Why the engine stopped (or could not do a call it needs).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// A port call the engine could not do without.
    #[error("{what}: {source}")]
    Port {
        /// The call.
        what: &'static str,
        /// Its error.
        source: PortError,
    },
    /// Another engine instance took the rollout lease.
    #[error(
        "lost the rollout lease of cluster {cluster} (owner {owner}); another process owns it now"
    )]
    LeaseLost {
        /// Cluster id.
        cluster: String,
        /// The lease owner this engine was.
        owner: String,
    },
    /// The store did not confirm the lease before an act, for longer than the lease timeout.
    #[error(
        "the cluster store did not confirm the rollout lease of cluster {cluster} for {seconds} s ({source}); nothing more was done, as another process may own it now: run the rollout again once the store answers"
    )]
    LeaseUnconfirmed {
        /// Cluster id.
        cluster: String,
        /// Seconds since the store last confirmed it.
        seconds: u64,
        /// The store's last error.
        source: PortError,
    },
    /// The cluster record could not be read between batches.
    #[error("reading cluster {cluster}: {source}")]
    ReadCluster {
        /// Cluster id.
        cluster: String,
        /// The store's error.
        source: PortError,
    },
    /// CloudStack reports the cluster in a state of its own operation (Scaling, Upgrading, ...).
    #[error(
        "CloudStack reports cluster {cluster} {state}: another CloudStack operation runs on it; the rollout stopped between batches with no node left down; run it again once CloudStack shows the cluster Running or Alert"
    )]
    CloudStackBusy {
        /// Cluster id.
        cluster: String,
        /// CloudStack's state name.
        state: String,
    },
    /// Nodes kept being added or removed while the rollout re-planned.
    #[error(
        "cluster {cluster}: nodes were added or removed {times} times during the rollout; run it again once the cluster's size is stable"
    )]
    NodesKeepChanging {
        /// Cluster id.
        cluster: String,
        /// Re-plans done.
        times: usize,
    },
    /// `/var/run/reboot-required` could not be read on a node (`run --restart reboot-required`).
    #[error(
        "cannot tell whether {node} needs a reboot: {cause}; nothing was taken down; check SSH to the node (--ssh-key, --known-hosts) and run the rollout again"
    )]
    RebootCheck {
        /// The node.
        node: String,
        /// Why.
        cause: String,
    },
    /// Outside every maintenance window before a batch, or before a node of it was stopped.
    #[error(
        "batch {batch}: the maintenance window closed ({windows}) {before}; the rollout stopped with no node taken down outside a window; run it again inside a window (the next opens {next}), or pass --wait-for-window to wait"
    )]
    WindowClosed {
        /// Batch number.
        batch: usize,
        /// The windows, as given.
        windows: String,
        /// What the window was checked for: "before the batch", "before NODE was stopped".
        before: String,
        /// When the next opens (RFC 3339, UTC).
        next: String,
    },
    /// A node name from the Kubernetes API that is not a DNS-1123 subdomain, before it could
    /// reach a gate.
    #[error(
        "batch {batch}: the Kubernetes API names a node {name}, which is not a DNS-1123 subdomain (at most 253 characters, dot-separated labels of lowercase letters, digits and '-'); no gate was run and no node of the batch was touched; check the node objects of the cluster"
    )]
    BadNodeName {
        /// Batch number.
        batch: usize,
        /// The name, escaped (quoted, control characters as escapes).
        name: String,
    },
    /// The gates of a batch passed after the window closed in several windows in a row.
    #[error(
        "batch {batch}: the gates passed only after the maintenance window had closed, {times} times in a row ({windows}): they take longer than a window is open; the rollout stopped with no node of the batch taken down; make the window longer or the gates shorter, and run it again"
    )]
    GatesOutlastWindow {
        /// Batch number.
        batch: usize,
        /// Windows in a row the gates passed after.
        times: usize,
        /// The windows, as given.
        windows: String,
    },
    /// A gate command before a batch did not let it go.
    #[error(
        "batch {batch}: gate `{command}` {why}; the rollout stopped between batches with no node of the batch taken down; run the rollout again once the gate passes"
    )]
    GateFailed {
        /// Batch number.
        batch: usize,
        /// The gate's command line.
        command: String,
        /// How it failed: its exit code and last line of output, or its timeout.
        why: String,
    },
    /// A node of a finished batch was not Ready during the soak that follows it.
    #[error(
        "batch {batch}: node {node} turned NotReady {} into the {} soak after its batch; the rollout stopped between batches with no node taken down; find why the node is not Ready and run the rollout again",
        super::duration_text(std::time::Duration::from_secs(*seconds)),
        super::duration_text(std::time::Duration::from_secs(*soak))
    )]
    SoakNotReady {
        /// Batch number.
        batch: usize,
        /// The node that turned NotReady.
        node: String,
        /// Seconds into the soak.
        seconds: u64,
        /// The soak asked, in seconds.
        soak: u64,
    },
    /// A batch's preflight found it unsafe to take its nodes down.
    #[error(
        "batch {batch} ({}): preflight failed: {}; nothing was taken down, fix this and run the rollout again",
        nodes.join(", "),
        reasons.join("; ")
    )]
    PreflightFailed {
        /// Batch number.
        batch: usize,
        /// Its nodes.
        nodes: Vec<String>,
        /// Every reason found.
        reasons: Vec<String>,
    },
    /// The VM of a planned node is no longer listed.
    #[error("batch {batch}: VM of {node} is gone; run the rollout again to re-plan")]
    VmGone {
        /// Batch number.
        batch: usize,
        /// Node.
        node: String,
    },
    /// A running VM has no node in the Kubernetes API.
    #[error(
        "batch {batch}: node {node} is not registered in the API; check its kubelet and run the rollout again"
    )]
    NotRegistered {
        /// Batch number.
        batch: usize,
        /// Node.
        node: String,
    },
    /// Annotating or cordoning a node failed.
    #[error("batch {batch}: node {node}: {source}")]
    Mark {
        /// Batch number.
        batch: usize,
        /// Node.
        node: String,
        /// The API's error.
        source: PortError,
    },
    /// Uncordoning a node (or removing its annotation) failed.
    #[error("batch {batch}: {action} {node}: {source}; run the rollout again to finish it")]
    Uncordon {
        /// Batch number.
        batch: usize,
        /// `uncordon` or `remove annotation of`.
        action: &'static str,
        /// Node.
        node: String,
        /// The API's error.
        source: PortError,
    },
    /// A drain did not finish.
    #[error(
        "batch {batch}: drain of {node} did not finish within the drain timeout: {cause}; no node of the batch went down and those the rollout cordoned were uncordoned; let the budget allow an eviction (or move the pod) and run the rollout again"
    )]
    DrainBlocked {
        /// Batch number.
        batch: usize,
        /// Node.
        node: String,
        /// The pod and budget that blocked it, or the last API error.
        cause: String,
    },
    /// Just before a stop, etcd or the API was not safe to lose the node.
    #[error(
        "batch {batch}: {cause}; not stopped, uncordoned; run the rollout again once etcd and the API are healthy"
    )]
    NotSafeToStop {
        /// Batch number.
        batch: usize,
        /// Node.
        node: String,
        /// What the recheck found.
        cause: UnsafeStop,
    },
    /// A stop failed and the VM was found still running: it never went down.
    #[error(
        "batch {batch}: stop VM of {node}: {source}; the VM is still Running, so it never went down and was uncordoned; run the rollout again"
    )]
    StopFailedStillUp {
        /// Batch number.
        batch: usize,
        /// Node.
        node: String,
        /// CloudStack's error.
        source: PortError,
    },
    /// A stop failed and the VM is down or in a state the engine cannot tell.
    #[error(
        "batch {batch}: stop VM of {node}: {source}; the VM is {seen}, so it stays cordoned; start it (or wait until it is Stopped) and run the rollout again"
    )]
    StopFailedDown {
        /// Batch number.
        batch: usize,
        /// Node.
        node: String,
        /// CloudStack's error.
        source: PortError,
        /// What re-reading the VM found.
        seen: String,
    },
    /// A change on a stopped VM failed.
    #[error("batch {batch}: {cause}{}", restart_note(*restarted))]
    ChangeFailed {
        /// Batch number.
        batch: usize,
        /// Node.
        node: String,
        /// The change and its error.
        cause: ChangeError,
        /// True when the VM was started again unchanged.
        restarted: bool,
    },
    /// Starting a VM failed: the node stays down and cordoned.
    #[error(
        "batch {batch}: start VM of {node}: {source}; the node stays down and cordoned: start the VM and run the rollout again"
    )]
    StartFailed {
        /// Batch number.
        batch: usize,
        /// Node.
        node: String,
        /// CloudStack's error.
        source: PortError,
    },
    /// Nodes were not back within the batch timeout.
    #[error(
        "batch {batch}: not verified within {seconds} s: {}; run the rollout again once it is back",
        why.join("; ")
    )]
    NotVerified {
        /// Batch number.
        batch: usize,
        /// The batch timeout.
        seconds: u64,
        /// What was still wrong (what release then did with the nodes is said by release).
        why: Vec<String>,
    },
}

fn restart_note(restarted: bool) -> &'static str {
    if restarted {
        "; the VM was started again unchanged"
    } else {
        "; the VM could not be started again: it stays down and cordoned, start it and run the rollout again"
    }
}

impl EngineError {
    /// A failed call.
    pub fn port(what: &'static str, source: PortError) -> Self {
        EngineError::Port { what, source }
    }

    pub(crate) fn store(source: PortError) -> Self {
        Self::port("cluster store", source)
    }

    pub(crate) fn cloud(source: PortError) -> Self {
        Self::port("CloudStack", source)
    }
}

/// Serialised as its message (reports carry the text operators read).
impl Serialize for EngineError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Why the check just before a stop refused it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnsafeStop {
    /// No other control node's API server answered.
    #[error("no other control node serves the API before stopping {node}")]
    NoOtherApi {
        /// Node.
        node: String,
    },
    /// etcd's member list could not be read.
    #[error("etcd health before stopping {node}: {source}")]
    EtcdUnreadable {
        /// Node.
        node: String,
        /// The etcd error.
        source: PortError,
    },
    /// The node's VM is no longer listed.
    #[error("VM of {node} is gone")]
    VmGone {
        /// Node.
        node: String,
    },
    /// The node's own etcd member cannot be identified (the message names both).
    #[error("{0}")]
    MemberUnknown(Box<UnknownMember>),
    /// Stopping it would leave etcd without a quorum of healthy members.
    #[error(
        "etcd quorum before stopping {node}{}: {healthy} other members healthy, {need} of {voting} needed",
        member.as_ref().map(|m| format!(" (member {m})")).unwrap_or_default()
    )]
    NoQuorum {
        /// Node.
        node: String,
        /// Its own member, when it runs one.
        member: Option<String>,
        /// Other voting members healthy.
        healthy: usize,
        /// Quorum.
        need: usize,
        /// Voting members.
        voting: usize,
    },
}

/// Which change on a stopped VM failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChangeError {
    /// The cluster could not be read before the change.
    #[error("{0}")]
    Read(Box<EngineError>),
    /// The node's VM is no longer listed.
    #[error("VM of {node} is gone")]
    VmGone {
        /// Node.
        node: String,
    },
    /// The VM is not stopped, so nothing was changed.
    #[error("VM of {node} is {state:?}, expected Stopped; nothing changed")]
    NotStopped {
        /// Node.
        node: String,
        /// Its state.
        state: VmState,
    },
    /// The offering change failed.
    #[error("change offering of {node} to {to}: {source}")]
    Offering {
        /// Node.
        node: String,
        /// The offering asked for.
        to: String,
        /// CloudStack's error.
        source: PortError,
    },
    /// The root disk resize failed.
    #[error("resize root disk of {node} to {to_gb} GB: {source}")]
    RootDisk {
        /// Node.
        node: String,
        /// The size asked for.
        to_gb: u64,
        /// CloudStack's error.
        source: PortError,
    },
    /// The affinity group update failed.
    #[error("update affinity groups of {node}: {source}")]
    AffinityGroups {
        /// Node.
        node: String,
        /// CloudStack's error.
        source: PortError,
    },
}

/// Why a node of the batch is not back yet: each keeps the wording the batch timeout reports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotBack {
    /// The node's VM is no longer listed.
    #[error("VM of {node} is gone")]
    VmGone {
        /// Node.
        node: String,
    },
    /// The VM is not Running.
    #[error("VM of {node} is {state:?}")]
    VmNotRunning {
        /// Node.
        node: String,
        /// Its state.
        state: VmState,
    },
    /// The VM still differs from the settings.
    #[error("VM of {node} still differs: {changes}")]
    StillDiffers {
        /// Node.
        node: String,
        /// The changes left, as listed.
        changes: String,
    },
    /// Its etcd member cannot be identified.
    #[error("{0}")]
    MemberUnknown(UnknownMember),
    /// Its etcd member is not healthy.
    #[error("etcd member {member} of {node} is not healthy")]
    MemberUnhealthy {
        /// Node.
        node: String,
        /// Member.
        member: String,
    },
    /// The API server does not list the node.
    #[error("node {node} not reported by the API")]
    NotReported {
        /// Node.
        node: String,
    },
    /// The node is not Ready.
    #[error("node {node} is not Ready")]
    NotReady {
        /// Node.
        node: String,
    },
    /// The node has not booted since the stop.
    #[error("node {node} still reports the boot ID {boot_id} from before the restart")]
    SameBoot {
        /// Node.
        node: String,
        /// The boot ID recorded before the stop.
        boot_id: String,
    },
}
