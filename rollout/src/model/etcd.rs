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
    /// Its client URL.
    pub client_url: String,
    /// Health.
    pub health: MemberHealth,
    /// True for a learner (non-voting) member.
    pub learner: bool,
}
