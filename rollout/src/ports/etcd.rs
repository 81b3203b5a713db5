//! etcd: the members and their health.

use super::error::PortResult;
use crate::model::EtcdMember;

/// The etcd calls the engine needs.
pub trait Etcd {
    /// Every voting and learner member with its `/health` (unreachable members are
    /// [`crate::model::MemberHealth::Unknown`], not an error).
    fn members(&mut self) -> PortResult<Vec<EtcdMember>>;
}
