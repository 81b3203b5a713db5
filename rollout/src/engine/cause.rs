//! What stopped one step on one node, as typed causes inside [`super::EngineError`]: why a node
//! was not safe to stop, and which change on a stopped VM failed.

use super::error::EngineError;
use super::members::UnknownMember;
use crate::model::VmState;
use crate::ports::PortError;

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
