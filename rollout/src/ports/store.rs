//! The cluster record: state transitions, settings, flags and the rollout lease.

use super::PortResult;
use crate::model::{ClusterRecord, ClusterState, Lease, TypeSettings};

/// The store of cluster records (the CloudStack database, or SQLite for the CLI).
pub trait Store {
    /// Load the record.
    fn load(&mut self, cluster_id: &str) -> PortResult<ClusterRecord>;

    /// In one transaction: if the state is `expected`, set it to `new` and the lease to `lease`
    /// and return `true`; otherwise change nothing and return `false`.
    fn compare_and_set_state(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        new: ClusterState,
        lease: Option<&Lease>,
    ) -> PortResult<bool>;

    /// In one transaction: if the state is `expected`, store `settings` (all types) and return
    /// `true`; otherwise change nothing and return `false`.
    fn save_settings(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        settings: &TypeSettings,
    ) -> PortResult<bool>;

    /// Renew the lease's heartbeat if `lease.owner` still holds it; `false` if it does not
    /// (the rollout must stop: someone else owns the cluster now).
    fn renew_lease(&mut self, cluster_id: &str, lease: &Lease) -> PortResult<bool>;

    /// Set or clear `rollout.cancel`.
    fn set_cancel(&mut self, cluster_id: &str, cancel: bool) -> PortResult<()>;

    /// Set or clear `rollout.lasterror`.
    fn set_last_error(&mut self, cluster_id: &str, error: Option<&str>) -> PortResult<()>;

    /// Record the cluster's total CPU cores and memory (MiB).
    fn set_capacity(&mut self, cluster_id: &str, cores: u64, memory_mb: u64) -> PortResult<()>;
}
