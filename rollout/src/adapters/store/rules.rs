//! The store's rules, written once for every database: each `Store` call is one change of the
//! cluster record in one transaction, so a backend only says how to read a record and how to
//! change it atomically ([`RecordStore`]).

use ::postgres::error::SqlState;

use super::error::StoreError;
use crate::model::{ClusterRecord, ClusterState, Lease, TypeSettings};
use crate::ports::{PortError, PortErrorKind, PortResult, Store};
use std::time::Duration;

/// A database of cluster records that can change one record in one transaction.
pub trait RecordStore {
    /// Reads one record.
    fn record(&mut self, id: &str) -> Result<ClusterRecord, StoreError>;

    /// In one transaction: reads the record and the database's clock (milliseconds since the
    /// Unix epoch), lets `change` edit the record (returning whether to write it), writes it
    /// back; returns what `change` returned. `change` may run again when the
    /// backend retries the transaction, on the record as it is then.
    fn change(
        &mut self,
        id: &str,
        change: &mut dyn FnMut(&mut ClusterRecord, u64) -> bool,
    ) -> Result<bool, StoreError>;
}

/// A database of cluster records as the command line opens it: a [`RecordStore`] that also
/// writes whole records and lists them.
pub trait RecordTable: RecordStore + Send + std::fmt::Debug {
    /// Writes `record` whole, replacing any record with its id.
    fn put(&mut self, record: &ClusterRecord) -> Result<(), StoreError>;

    /// Writes `record` unless a record with its id exists; `true` when it wrote it.
    fn insert_new(&mut self, record: &ClusterRecord) -> Result<bool, StoreError>;

    /// Every record's id.
    fn ids(&mut self) -> Result<Vec<String>, StoreError>;
}

/// Whether a PostgreSQL error means "the database is not there right now" (connection lost,
/// server shutting down or starting, conflicts that outlasted the retries): the engine retries
/// those later.
pub fn postgres_unavailable(e: &::postgres::Error) -> bool {
    e.is_closed() || unavailable_state(e.code())
}

/// [`postgres_unavailable`] by the error's SQLSTATE (`None`: it has none, the connection or the
/// socket failed): a connection exception (class 08), a shutdown or start, a serialisation
/// failure or a deadlock.
fn unavailable_state(code: Option<&SqlState>) -> bool {
    match code {
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

/// A store error as the engine sees it: not found, unavailable for now (busy SQLite, a lost
/// PostgreSQL connection), or other.
fn port(e: StoreError) -> PortError {
    let kind = match &e {
        StoreError::NoSuchCluster { .. } => PortErrorKind::NotFound,
        StoreError::Sqlite { source, .. }
            if matches!(
                source.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            ) =>
        {
            PortErrorKind::Unavailable
        }
        StoreError::Postgres { source, .. } if postgres_unavailable(source) => {
            PortErrorKind::Unavailable
        }
        _ => PortErrorKind::Other,
    };
    PortError::new(kind, e.to_string())
}

impl<T: RecordStore> Store for T {
    fn load(&mut self, cluster_id: &str) -> PortResult<ClusterRecord> {
        self.record(cluster_id).map_err(port)
    }

    fn compare_and_set_state(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        new: ClusterState,
        lease: Option<&Lease>,
    ) -> PortResult<bool> {
        self.change(cluster_id, &mut |r, _| {
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
        self.change(cluster_id, &mut |r, _| {
            if r.state != expected {
                return false;
            }
            r.settings = settings.clone();
            true
        })
        .map_err(port)
    }

    fn renew_lease(&mut self, cluster_id: &str, lease: &Lease) -> PortResult<bool> {
        self.change(cluster_id, &mut |r, _| match &mut r.lease {
            Some(held) if held.owner == lease.owner => {
                held.heartbeat_ms = lease.heartbeat_ms;
                true
            }
            _ => false,
        })
        .map_err(port)
    }

    fn hold_lease(
        &mut self,
        cluster_id: &str,
        lease: &mut Lease,
        timeout: Duration,
    ) -> PortResult<bool> {
        let mut renewed = None;
        let held = self
            .change(cluster_id, &mut |r, now_ms| {
                renewed = r.renew_held(lease, timeout, now_ms);
                renewed.is_some()
            })
            .map_err(port)?;
        if let (true, Some(beat)) = (held, renewed) {
            lease.heartbeat_ms = beat;
        }
        Ok(held)
    }

    fn end_rollout(
        &mut self,
        cluster_id: &str,
        lease: &Lease,
        timeout: Duration,
        new: ClusterState,
    ) -> PortResult<bool> {
        // A release never leaves the cluster Updating.
        debug_assert_ne!(
            new,
            ClusterState::Updating,
            "a rollout of {cluster_id} ends out of Updating"
        );
        self.change(cluster_id, &mut |r, now_ms| {
            r.end_held(lease, timeout, now_ms, new)
        })
        .map_err(port)
    }

    fn expire_lease(
        &mut self,
        cluster_id: &str,
        seen: Option<&Lease>,
        timeout: Duration,
    ) -> PortResult<bool> {
        self.change(cluster_id, &mut |r, now_ms| {
            r.expire_lease(seen, timeout, now_ms)
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
        self.change(cluster_id, &mut |r, now_ms| {
            if r.state != expected {
                return false;
            }
            r.state = ClusterState::Updating;
            r.lease = Some(Lease {
                owner: lease.owner.clone(),
                heartbeat_ms: now_ms,
            });
            r.cancel = false;
            r.settings = settings.clone();
            debug_assert!(
                matches!(expected, ClusterState::Running | ClusterState::Alert),
                "a rollout of {cluster_id} begins from Running or Alert, not {expected:?}"
            );
            true
        })
        .map_err(port)
    }

    fn request_cancel(&mut self, cluster_id: &str) -> PortResult<bool> {
        self.change(cluster_id, &mut |r, _| {
            if r.state != ClusterState::Updating {
                return false;
            }
            r.cancel = true;
            true
        })
        .map_err(port)
    }

    fn set_cancel(&mut self, cluster_id: &str, cancel: bool) -> PortResult<()> {
        self.change(cluster_id, &mut |r, _| {
            r.cancel = cancel;
            true
        })
        .map(|_| ())
        .map_err(port)
    }

    fn set_last_error(&mut self, cluster_id: &str, error: Option<&str>) -> PortResult<()> {
        self.change(cluster_id, &mut |r, _| {
            r.last_error = error.map(str::to_string);
            true
        })
        .map(|_| ())
        .map_err(port)
    }

    fn set_capacity(&mut self, cluster_id: &str, cores: u64, memory_mb: u64) -> PortResult<()> {
        self.change(cluster_id, &mut |r, _| {
            r.cores = cores;
            r.memory_mb = memory_mb;
            true
        })
        .map(|_| ())
        .map_err(port)
    }
}

#[cfg(test)]
mod postgres_state_tests {
    use super::*;

    #[test]
    fn a_lost_connection_a_shutdown_or_a_conflict_is_unavailable_and_a_refusal_is_not() {
        assert!(unavailable_state(None), "no SQLSTATE: the socket failed");
        for unavailable in [
            SqlState::CONNECTION_FAILURE,
            SqlState::CONNECTION_EXCEPTION,
            SqlState::ADMIN_SHUTDOWN,
            SqlState::CRASH_SHUTDOWN,
            SqlState::CANNOT_CONNECT_NOW,
            SqlState::T_R_SERIALIZATION_FAILURE,
            SqlState::T_R_DEADLOCK_DETECTED,
        ] {
            assert!(unavailable_state(Some(&unavailable)), "{unavailable:?}");
        }
        for refused in [
            SqlState::INVALID_PASSWORD,
            SqlState::UNDEFINED_TABLE,
            SqlState::UNIQUE_VIOLATION,
        ] {
            assert!(!unavailable_state(Some(&refused)), "{refused:?}");
        }
    }
}

#[cfg(test)]
mod port_error_tests {
    use super::*;
    use std::path::PathBuf;

    fn sqlite(code: rusqlite::ErrorCode, extended_code: i32) -> StoreError {
        StoreError::Sqlite {
            path: PathBuf::from("clusters.db"),
            source: rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error {
                    code,
                    extended_code,
                },
                None,
            ),
        }
    }

    /// A busy or locked SQLite database is there in a moment (another process holds it): the
    /// engine retries. Any other SQLite failure is not waited out, and a cluster the store does
    /// not hold is not found.
    #[test]
    fn a_busy_or_locked_sqlite_is_unavailable_and_another_failure_is_not() {
        let busy = port(sqlite(rusqlite::ErrorCode::DatabaseBusy, 5));
        assert_eq!(busy.kind, PortErrorKind::Unavailable, "{busy:?}");
        let locked = port(sqlite(rusqlite::ErrorCode::DatabaseLocked, 6));
        assert_eq!(locked.kind, PortErrorKind::Unavailable, "{locked:?}");
        let full = port(sqlite(rusqlite::ErrorCode::DiskFull, 13));
        assert_eq!(full.kind, PortErrorKind::Other, "{full:?}");
        assert!(full.message.contains("clusters.db"), "{full:?}");
        let missing = port(StoreError::NoSuchCluster {
            id: "c-1".to_string(),
            store: "clusters.db".to_string(),
        });
        assert_eq!(missing.kind, PortErrorKind::NotFound, "{missing:?}");
    }
}
