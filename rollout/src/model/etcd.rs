//! The health of etcd members.

use serde::{Deserialize, Serialize};

/// A member's health as its `/health` endpoint reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MemberHealth {
    /// `{"health":"true"}`.
    Healthy,
    /// Answered, not healthy.
    Unhealthy,
    /// No answer (counts as unhealthy).
    Unknown,
}

/// One etcd member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EtcdMember {
    /// Member name: the node name of the VM running it (control node when stacked, etcd node
    /// otherwise).
    pub name: String,
    /// The member ID etcd gave it (`ID` of `member list`), when known.
    #[serde(default)]
    pub id: Option<u64>,
    /// Its client URL.
    pub client_url: String,
    /// Its peer URLs (`peerURLs` of `member list`): with the client URL, the addresses that
    /// identify which node runs it.
    #[serde(default)]
    pub peer_urls: Vec<String>,
    /// Health.
    pub health: MemberHealth,
    /// True for a learner (non-voting) member.
    pub learner: bool,
}
