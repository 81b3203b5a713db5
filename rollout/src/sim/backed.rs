//! The simulator's store port backed by a real store (`simulate --store`): every call is first
//! a step of the simulated world (faults, trace, invariants), then the same call on the real
//! database, whose answer the engine gets and whose record the world then takes as its own.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use super::SimHandle;
use crate::model::{ClusterRecord, ClusterState, Lease, TypeSettings};
use crate::ports::{PortResult, Store};
use std::time::Duration;

/// A real store shared by the port handles of one simulation.
#[derive(Clone)]
pub struct Backing(Rc<RefCell<Box<dyn Store>>>);

impl Backing {
    /// Wraps `store`.
    pub fn new(store: Box<dyn Store>) -> Self {
        Backing(Rc::new(RefCell::new(store)))
    }
}

impl fmt::Debug for Backing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Backing(real store)")
    }
}

/// The store port of a simulation: the world's record alone, or backed by a real store.
#[derive(Debug, Clone)]
pub struct SimStore {
    model: SimHandle,
    backing: Option<Backing>,
}

impl SimStore {
    /// The port over `model`, with the calls also made on `backing` when given.
    pub fn new(model: SimHandle, backing: Option<Backing>) -> Self {
        SimStore { model, backing }
    }

    /// The call on the world, then (when backed and the world did not fail it) on the real
    /// store, whose record the world takes afterwards.
    fn call<T>(
        &mut self,
        cluster_id: &str,
        on_model: impl FnOnce(&mut SimHandle) -> PortResult<T>,
        on_real: impl FnOnce(&mut dyn Store) -> PortResult<T>,
    ) -> PortResult<T> {
        let modelled = on_model(&mut self.model)?;
        let Some(backing) = &self.backing else {
            return Ok(modelled);
        };
        let mut real = backing.0.borrow_mut();
        let answer = on_real(real.as_mut());
        if let Ok(record) = real.load(cluster_id) {
            self.model.0.borrow_mut().record = record;
        }
        answer
    }
}

impl Store for SimStore {
    fn load(&mut self, cluster_id: &str) -> PortResult<ClusterRecord> {
        self.call(cluster_id, |m| m.load(cluster_id), |r| r.load(cluster_id))
    }

    fn compare_and_set_state(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        new: ClusterState,
        lease: Option<&Lease>,
    ) -> PortResult<bool> {
        self.call(
            cluster_id,
            |m| m.compare_and_set_state(cluster_id, expected, new, lease),
            |r| r.compare_and_set_state(cluster_id, expected, new, lease),
        )
    }

    fn save_settings(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        settings: &TypeSettings,
    ) -> PortResult<bool> {
        self.call(
            cluster_id,
            |m| m.save_settings(cluster_id, expected, settings),
            |r| r.save_settings(cluster_id, expected, settings),
        )
    }

    fn renew_lease(&mut self, cluster_id: &str, lease: &Lease) -> PortResult<bool> {
        self.call(
            cluster_id,
            |m| m.renew_lease(cluster_id, lease),
            |r| r.renew_lease(cluster_id, lease),
        )
    }

    fn hold_lease(
        &mut self,
        cluster_id: &str,
        lease: &mut Lease,
        timeout: Duration,
    ) -> PortResult<bool> {
        // The world judges a copy; the real store (with its own clock) decides.
        let mut modelled = lease.clone();
        let held = self.call(
            cluster_id,
            |m| m.hold_lease(cluster_id, &mut modelled, timeout),
            |r| r.hold_lease(cluster_id, lease, timeout),
        )?;
        if self.backing.is_none() {
            *lease = modelled;
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
        self.call(
            cluster_id,
            |m| m.end_rollout(cluster_id, lease, timeout, new),
            |r| r.end_rollout(cluster_id, lease, timeout, new),
        )
    }

    fn expire_lease(
        &mut self,
        cluster_id: &str,
        seen: Option<&Lease>,
        timeout: Duration,
    ) -> PortResult<bool> {
        self.call(
            cluster_id,
            |m| m.expire_lease(cluster_id, seen, timeout),
            |r| r.expire_lease(cluster_id, seen, timeout),
        )
    }

    fn begin_rollout(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        lease: &Lease,
        settings: &TypeSettings,
    ) -> PortResult<bool> {
        self.call(
            cluster_id,
            |m| m.begin_rollout(cluster_id, expected, lease, settings),
            |r| r.begin_rollout(cluster_id, expected, lease, settings),
        )
    }

    fn request_cancel(&mut self, cluster_id: &str) -> PortResult<bool> {
        self.call(
            cluster_id,
            |m| m.request_cancel(cluster_id),
            |r| r.request_cancel(cluster_id),
        )
    }

    fn set_cancel(&mut self, cluster_id: &str, cancel: bool) -> PortResult<()> {
        self.call(
            cluster_id,
            |m| m.set_cancel(cluster_id, cancel),
            |r| r.set_cancel(cluster_id, cancel),
        )
    }

    fn set_last_error(&mut self, cluster_id: &str, error: Option<&str>) -> PortResult<()> {
        self.call(
            cluster_id,
            |m| m.set_last_error(cluster_id, error),
            |r| r.set_last_error(cluster_id, error),
        )
    }

    fn set_capacity(&mut self, cluster_id: &str, cores: u64, memory_mb: u64) -> PortResult<()> {
        self.call(
            cluster_id,
            |m| m.set_capacity(cluster_id, cores, memory_mb),
            |r| r.set_capacity(cluster_id, cores, memory_mb),
        )
    }
}
