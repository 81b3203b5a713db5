//! The cluster store over the simulated world.

use super::SimHandle;
use crate::model::{ClusterRecord, ClusterState, Lease, TypeSettings};
use crate::ports::{PortError, PortResult, Store};
use crate::sim::spec::Fault;
use crate::sim::world::World;
use std::time::Duration;

fn cluster<'a>(w: &'a mut World, id: &str) -> PortResult<&'a mut ClusterRecord> {
    if w.record.id == id {
        Ok(&mut w.record)
    } else {
        Err(PortError::not_found(format!("no cluster {id}")))
    }
}

impl Store for SimHandle {
    fn load(&mut self, cluster_id: &str) -> PortResult<ClusterRecord> {
        self.call("store.load".into(), |w| {
            w.last_load_step = w.step;
            Ok(cluster(w, cluster_id)?.clone())
        })
    }

    fn compare_and_set_state(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        new: ClusterState,
        lease: Option<&Lease>,
    ) -> PortResult<bool> {
        self.call(format!("store.cas({expected:?} -> {new:?})"), |w| {
            let r = cluster(w, cluster_id)?;
            if r.state != expected {
                return Ok(false);
            }
            r.state = new;
            r.lease = lease.cloned();
            if new == ClusterState::Updating {
                w.phase = None;
            }
            Ok(true)
        })
    }

    fn save_settings(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        settings: &TypeSettings,
    ) -> PortResult<bool> {
        self.call("store.save_settings".into(), |w| {
            if w.take_fault(|f| matches!(f, Fault::SaveSettingsFails)) {
                return Err(PortError::unavailable("database is locked"));
            }
            let r = cluster(w, cluster_id)?;
            if r.state != expected {
                return Ok(false);
            }
            r.settings = settings.clone();
            Ok(true)
        })
    }

    fn renew_lease(&mut self, cluster_id: &str, lease: &Lease) -> PortResult<bool> {
        self.call("store.renew_lease".into(), |w| {
            let r = cluster(w, cluster_id)?;
            match &mut r.lease {
                Some(l) if l.owner == lease.owner => {
                    l.heartbeat_ms = lease.heartbeat_ms;
                    Ok(true)
                }
                _ => Ok(false),
            }
        })
    }

    fn hold_lease(
        &mut self,
        cluster_id: &str,
        lease: &mut Lease,
        timeout: Duration,
    ) -> PortResult<bool> {
        let hold = |w: &mut World| {
            let now_ms = w.now.as_millis() as u64;
            w.engines.held_at = Some(w.now);
            Ok(cluster(w, cluster_id)?.renew_held(lease, timeout, now_ms))
        };
        // A confirmation at the same virtual instant as the last one is traced but is not a
        // step of its own, so the steps that faults are scheduled at stay where they were.
        let same_instant = {
            let w = self.0.borrow();
            w.engines.held_at == Some(w.now)
        };
        let beat = if same_instant {
            self.quiet("store.hold_lease".into(), hold)?
        } else {
            self.call("store.hold_lease".into(), hold)?
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
        self.call(format!("store.end_rollout(Updating -> {new:?})"), |w| {
            let now_ms = w.now.as_millis() as u64;
            Ok(cluster(w, cluster_id)?.end_held(lease, timeout, now_ms, new))
        })
    }

    fn expire_lease(
        &mut self,
        cluster_id: &str,
        seen: Option<&Lease>,
        timeout: Duration,
    ) -> PortResult<bool> {
        self.call("store.expire_lease(Updating -> Alert)".into(), |w| {
            let now_ms = w.now.as_millis() as u64;
            Ok(cluster(w, cluster_id)?.expire_lease(seen, timeout, now_ms))
        })
    }

    fn begin_rollout(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        lease: &Lease,
        settings: &TypeSettings,
    ) -> PortResult<bool> {
        self.call(
            format!("store.begin_rollout({expected:?} -> Updating)"),
            |w| {
                if w.take_fault(|f| matches!(f, Fault::SaveSettingsFails)) {
                    return Err(PortError::unavailable("database is locked"));
                }
                let now_ms = w.now.as_millis() as u64;
                let r = cluster(w, cluster_id)?;
                if r.state != expected {
                    return Ok(false);
                }
                r.state = ClusterState::Updating;
                r.lease = Some(Lease {
                    owner: lease.owner.clone(),
                    heartbeat_ms: now_ms,
                });
                r.cancel = false;
                r.settings = settings.clone();
                w.engines.held_at = Some(w.now);
                w.phase = None;
                Ok(true)
            },
        )
    }

    fn request_cancel(&mut self, cluster_id: &str) -> PortResult<bool> {
        self.call("store.request_cancel".into(), |w| {
            let r = cluster(w, cluster_id)?;
            if r.state != ClusterState::Updating {
                return Ok(false);
            }
            r.cancel = true;
            Ok(true)
        })
    }

    fn set_cancel(&mut self, cluster_id: &str, cancel: bool) -> PortResult<()> {
        self.call(format!("store.set_cancel({cancel})"), |w| {
            cluster(w, cluster_id)?.cancel = cancel;
            Ok(())
        })
    }

    fn set_last_error(&mut self, cluster_id: &str, error: Option<&str>) -> PortResult<()> {
        self.call("store.set_last_error".into(), |w| {
            cluster(w, cluster_id)?.last_error = error.map(str::to_string);
            Ok(())
        })
    }

    fn set_capacity(&mut self, cluster_id: &str, cores: u64, memory_mb: u64) -> PortResult<()> {
        self.call(format!("store.set_capacity({cores}, {memory_mb})"), |w| {
            let r = cluster(w, cluster_id)?;
            r.cores = cores;
            r.memory_mb = memory_mb;
            Ok(())
        })
    }
}
