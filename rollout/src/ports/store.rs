//! The cluster record: state transitions, settings, flags and the rollout lease.

use super::error::PortResult;
use crate::model::{ClusterRecord, ClusterState, Lease, TypeSettings};
use std::time::Duration;

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

    /// In one transaction: if `lease` still holds the cluster (state `Updating`, same owner, the
    /// heartbeat it last wrote, renewed less than `timeout` ago by the store's own clock; see
    /// [`ClusterRecord::held_by`]), renew the heartbeat to the store's clock, write it into
    /// `lease` and return `true`; otherwise change nothing and return `false`: the lease is lost
    /// and the rollout must stop at once.
    fn hold_lease(
        &mut self,
        cluster_id: &str,
        lease: &mut Lease,
        timeout: Duration,
    ) -> PortResult<bool>;

    /// In one transaction: if `lease` still holds the cluster (as [`Store::hold_lease`]), set
    /// the state to `new`, clear the lease and return `true`; otherwise change nothing and
    /// return `false`.
    fn end_rollout(
        &mut self,
        cluster_id: &str,
        lease: &Lease,
        timeout: Duration,
        new: ClusterState,
    ) -> PortResult<bool>;

    /// The scanner's compare-and-set, in one transaction: if the cluster is `Updating` with
    /// exactly the lease `seen` (owner and heartbeat) and that heartbeat is at least `timeout`
    /// old by the store's own clock (or there is no lease), move it to `Alert`, clear the lease
    /// and return `true`; otherwise change nothing and return `false`.
    fn expire_lease(
        &mut self,
        cluster_id: &str,
        seen: Option<&Lease>,
        timeout: Duration,
    ) -> PortResult<bool>;

    /// In one transaction: if the state is `expected`, move it to `Updating` with `lease` (its
    /// heartbeat stamped with the store's own clock), clear `rollout.cancel` and store
    /// `settings`, and return `true`; otherwise change nothing and return `false`. A cancel can
    /// land only once the cluster is `Updating`, so none asked for this rollout is ever erased.
    fn begin_rollout(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        lease: &Lease,
        settings: &TypeSettings,
    ) -> PortResult<bool>;

    /// In one transaction: if the state is `Updating`, set `rollout.cancel` and return `true`;
    /// otherwise change nothing and return `false` (no rollout runs to cancel).
    fn request_cancel(&mut self, cluster_id: &str) -> PortResult<bool>;

    /// Set or clear `rollout.cancel` (release clears it).
    fn set_cancel(&mut self, cluster_id: &str, cancel: bool) -> PortResult<()>;

    /// Set or clear `rollout.lasterror`.
    fn set_last_error(&mut self, cluster_id: &str, error: Option<&str>) -> PortResult<()>;

    /// Record the cluster's total CPU cores and memory (MiB).
    fn set_capacity(&mut self, cluster_id: &str, cores: u64, memory_mb: u64) -> PortResult<()>;
}
