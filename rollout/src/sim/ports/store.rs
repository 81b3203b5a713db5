//! The cluster store over the simulated world: the world's record is a [`RecordStore`] (or the
//! real database it is backed by), so every call runs the store's own rules
//! ([`crate::adapters::store::rules`]); each call is a step of the world, with its faults,
//! trace line and checks around the rule.

use super::{Shown, SimHandle};
use crate::adapters::store::{RecordStore, StoreError};
use crate::model::{ClusterRecord, ClusterState, Lease, TypeSettings};
use crate::ports::{PortError, PortResult, Store};
use crate::sim::spec::Fault;
use crate::sim::world::World;
use std::time::Duration;

/// How the world's store is named in its errors.
const STORE: &str = "of the simulation";

impl World {
    /// The world's own record, when it is `id`.
    fn own(&mut self, id: &str) -> Result<&mut ClusterRecord, StoreError> {
        if self.record.id == id {
            Ok(&mut self.record)
        } else {
            Err(StoreError::NoSuchCluster {
                id: id.to_string(),
                store: STORE.to_string(),
            })
        }
    }
}

impl RecordStore for World {
    fn record(&mut self, id: &str) -> Result<ClusterRecord, StoreError> {
        if let Some(backing) = self.backing.clone() {
            let record = backing.record(id)?;
            self.record = record.clone();
            return Ok(record);
        }
        self.own(id).cloned()
    }

    /// One change at the virtual time, written only when `change` says so; when backed, the
    /// change is made on the real database (with its clock) and the world takes its record.
    fn change(
        &mut self,
        id: &str,
        change: &mut dyn FnMut(&mut ClusterRecord, u64) -> bool,
    ) -> Result<bool, StoreError> {
        if let Some(backing) = self.backing.clone() {
            let answer = backing.change(id, change);
            if let Ok(record) = backing.record(id) {
                self.record = record;
            }
            return answer;
        }
        let now_ms = self.now.as_millis() as u64;
        let mut next = self.own(id)?.clone();
        if !change(&mut next, now_ms) {
            return Ok(false);
        }
        self.record = next;
        Ok(true)
    }
}

/// The fault that fails a write of the settings, as a locked database does.
fn settings_fault(w: &mut World) -> PortResult<()> {
    if w.take_fault(|f| matches!(f, Fault::SaveSettingsFails)) {
        return Err(PortError::unavailable("database is locked"));
    }
    Ok(())
}

impl SimHandle {
    /// A call to the store, unavailable while the world says the store does not answer.
    fn store_call<T: Shown>(
        &self,
        what: String,
        f: impl FnOnce(&mut World) -> PortResult<T>,
    ) -> PortResult<T> {
        self.call(what, |w| answering(w).and_then(|()| f(w)))
    }

    /// [`SimHandle::store_call`] that is not a step of its own.
    fn store_quiet<T: Shown>(
        &self,
        what: String,
        f: impl FnOnce(&mut World) -> PortResult<T>,
    ) -> PortResult<T> {
        self.quiet(what, |w| answering(w).and_then(|()| f(w)))
    }
}

/// Unavailable while the store does not answer.
fn answering(w: &World) -> PortResult<()> {
    if w.store_down {
        return Err(PortError::unavailable("the cluster store does not answer"));
    }
    Ok(())
}

impl Store for SimHandle {
    fn load(&mut self, cluster_id: &str) -> PortResult<ClusterRecord> {
        self.store_call("store.load".into(), |w| {
            w.last_load_step = w.step;
            Store::load(w, cluster_id)
        })
    }

    fn compare_and_set_state(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        new: ClusterState,
        lease: Option<&Lease>,
    ) -> PortResult<bool> {
        self.store_call(format!("store.cas({expected:?} -> {new:?})"), |w| {
            let won = Store::compare_and_set_state(w, cluster_id, expected, new, lease)?;
            if won && new == ClusterState::Updating {
                w.phase = None;
            }
            Ok(won)
        })
    }

    fn save_settings(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        settings: &TypeSettings,
    ) -> PortResult<bool> {
        self.store_call("store.save_settings".into(), |w| {
            settings_fault(w)?;
            Store::save_settings(w, cluster_id, expected, settings)
        })
    }

    fn renew_lease(&mut self, cluster_id: &str, lease: &Lease) -> PortResult<bool> {
        self.store_call("store.renew_lease".into(), |w| {
            Store::renew_lease(w, cluster_id, lease)
        })
    }

    fn hold_lease(
        &mut self,
        cluster_id: &str,
        lease: &mut Lease,
        timeout: Duration,
    ) -> PortResult<bool> {
        let hold = |w: &mut World| {
            w.engines.held_at = Some(w.now);
            let mut held = lease.clone();
            Ok(Store::hold_lease(w, cluster_id, &mut held, timeout)?.then_some(held.heartbeat_ms))
        };
        // A confirmation at the same virtual instant as the last one is traced but is not a
        // step of its own, so the steps that faults are scheduled at stay where they were.
        let same_instant = {
            let w = self.0.borrow();
            w.engines.held_at == Some(w.now)
        };
        let beat = if same_instant {
            self.store_quiet("store.hold_lease".into(), hold)?
        } else {
            self.store_call("store.hold_lease".into(), hold)?
        };
        if let Some(beat) = beat {
            lease.heartbeat_ms = beat;
        }
        Ok(beat.is_some())
    }

    fn end_rollout(
        &mut self,
        cluster_id: &str,
        lease: &Lease,
        timeout: Duration,
        new: ClusterState,
    ) -> PortResult<bool> {
        self.store_call(format!("store.end_rollout(Updating -> {new:?})"), |w| {
            Store::end_rollout(w, cluster_id, lease, timeout, new)
        })
    }

    fn expire_lease(
        &mut self,
        cluster_id: &str,
        seen: Option<&Lease>,
        timeout: Duration,
    ) -> PortResult<bool> {
        self.store_call("store.expire_lease(Updating -> Alert)".into(), |w| {
            Store::expire_lease(w, cluster_id, seen, timeout)
        })
    }

    fn begin_rollout(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        lease: &Lease,
        settings: &TypeSettings,
    ) -> PortResult<bool> {
        self.store_call(
            format!("store.begin_rollout({expected:?} -> Updating)"),
            |w| {
                settings_fault(w)?;
                let won = Store::begin_rollout(w, cluster_id, expected, lease, settings)?;
                if won {
                    w.engines.held_at = Some(w.now);
                    w.phase = None;
                }
                Ok(won)
            },
        )
    }

    fn request_cancel(&mut self, cluster_id: &str) -> PortResult<bool> {
        self.store_call("store.request_cancel".into(), |w| {
            Store::request_cancel(w, cluster_id)
        })
    }

    fn set_cancel(&mut self, cluster_id: &str, cancel: bool) -> PortResult<()> {
        self.store_call(format!("store.set_cancel({cancel})"), |w| {
            Store::set_cancel(w, cluster_id, cancel)
        })
    }

    fn set_last_error(&mut self, cluster_id: &str, error: Option<&str>) -> PortResult<()> {
        self.store_call("store.set_last_error".into(), |w| {
            Store::set_last_error(w, cluster_id, error)
        })
    }

    fn set_capacity(&mut self, cluster_id: &str, cores: u64, memory_mb: u64) -> PortResult<()> {
        self.store_call(format!("store.set_capacity({cores}, {memory_mb})"), |w| {
            Store::set_capacity(w, cluster_id, cores, memory_mb)
        })
    }
}
