//! The engine's `Store` port over PostgreSQL: each call one serialisable transaction.

use ::postgres::error::SqlState;

use super::{PostgresStore, StoreError};
use crate::model::{ClusterRecord, ClusterState, Lease, TypeSettings};
use crate::ports::{PortError, PortErrorKind, PortResult, Store};

/// Whether `e` means "the database is not there right now" (connection lost, server shutting
/// down or starting, conflicts that outlasted the retries): the engine retries those later.
fn unavailable(e: &::postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.code() {
        // No SQLSTATE: the connection or the socket failed.
        None => true,
        Some(code) => {
            code.code().starts_with("08")
                || [
                    SqlState::ADMIN_SHUTDOWN,
                    SqlState::CRASH_SHUTDOWN,
                    SqlState::CANNOT_CONNECT_NOW,
                    SqlState::T_R_SERIALIZATION_FAILURE,
                    SqlState::T_R_DEADLOCK_DETECTED,
                ]
                .contains(code)
        }
    }
}

fn port(e: StoreError) -> PortError {
    let kind = match &e {
        StoreError::NoSuchCluster { .. } => PortErrorKind::NotFound,
        StoreError::Postgres { source, .. } if unavailable(source) => PortErrorKind::Unavailable,
        _ => PortErrorKind::Other,
    };
    PortError::new(kind, e.to_string())
}

impl Store for PostgresStore {
    fn load(&mut self, cluster_id: &str) -> PortResult<ClusterRecord> {
        self.get(cluster_id).map_err(port)
    }

    fn compare_and_set_state(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        new: ClusterState,
        lease: Option<&Lease>,
    ) -> PortResult<bool> {
        self.update(cluster_id, |r| {
            if r.state != expected {
                return false;
            }
            r.state = new;
            r.lease = lease.cloned();
            true
        })
        .map_err(port)
    }

    fn save_settings(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        settings: &TypeSettings,
    ) -> PortResult<bool> {
        self.update(cluster_id, |r| {
            if r.state != expected {
                return false;
            }
            r.settings = settings.clone();
            true
        })
        .map_err(port)
    }

    fn renew_lease(&mut self, cluster_id: &str, lease: &Lease) -> PortResult<bool> {
        self.update(cluster_id, |r| match &mut r.lease {
            Some(held) if held.owner == lease.owner => {
                held.heartbeat_ms = lease.heartbeat_ms;
                true
            }
            _ => false,
        })
        .map_err(port)
    }

    fn begin_rollout(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        lease: &Lease,
        settings: &TypeSettings,
    ) -> PortResult<bool> {
        self.update(cluster_id, |r| {
            if r.state != expected {
                return false;
            }
            r.state = ClusterState::Updating;
            r.lease = Some(lease.clone());
            r.cancel = false;
            r.settings = settings.clone();
            true
        })
        .map_err(port)
    }

    fn request_cancel(&mut self, cluster_id: &str) -> PortResult<bool> {
        self.update(cluster_id, |r| {
            if r.state != ClusterState::Updating {
                return false;
            }
            r.cancel = true;
            true
        })
        .map_err(port)
    }

    fn set_cancel(&mut self, cluster_id: &str, cancel: bool) -> PortResult<()> {
        self.update(cluster_id, |r| {
            r.cancel = cancel;
            true
        })
        .map(|_| ())
        .map_err(port)
    }

    fn set_last_error(&mut self, cluster_id: &str, error: Option<&str>) -> PortResult<()> {
        self.update(cluster_id, |r| {
            r.last_error = error.map(str::to_string);
            true
        })
        .map(|_| ())
        .map_err(port)
    }

    fn set_capacity(&mut self, cluster_id: &str, cores: u64, memory_mb: u64) -> PortResult<()> {
        self.update(cluster_id, |r| {
            r.cores = cores;
            r.memory_mb = memory_mb;
            true
        })
        .map(|_| ())
        .map_err(port)
    }
}
