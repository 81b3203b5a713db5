//! The five ports over the simulated world: every call is one step, checked by the invariants.

mod cloud;
mod hooks;
mod kube;
mod store;

use super::world::World;
use crate::model::{ClusterRecord, EtcdMember, EvictionOutcome, MemberHealth, NodeStatus, VmState};
use crate::ports::{Clock, Etcd, PortError, PortResult, Ports};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

/// A handle on the shared world; each port is one.
#[derive(Debug, Clone)]
pub struct SimHandle(pub Rc<RefCell<World>>);

impl SimHandle {
    pub(in crate::sim) fn call<T: Shown>(
        &self,
        what: String,
        f: impl FnOnce(&mut World) -> PortResult<T>,
    ) -> PortResult<T> {
        let mut w = self.0.borrow_mut();
        if w.crashed {
            return Err(PortError::unavailable("the engine process is gone"));
        }
        w.step += 1;
        w.fire_faults();
        if w.crashed {
            let line = format!("#{} t={}s CRASH before {what}", w.step, w.now.as_secs());
            w.trace.push(line);
            return Err(PortError::unavailable("the engine process is gone"));
        }
        w.tick();
        let r = f(&mut w);
        let shown = match &r {
            Ok(v) => v.shown(),
            Err(e) => format!("error: {e}"),
        };
        let step = w.step;
        w.engines.note(&what, step, r.is_ok(), shown == "true");
        let line = format!("#{} t={}s {what} -> {shown}", w.step, w.now.as_secs());
        w.trace.push(line);
        if let Some(v) = crate::sim::invariants::check(&mut w)
            && w.violation.is_none()
        {
            w.violation = Some(v);
        }
        drop(w);
        self.second_engine();
        r
    }

    /// The second engine, on handles of its own over this world, when a fault asked for it.
    fn second_engine(&self) {
        if !self.0.borrow().engines.due {
            return;
        }
        let (mut cloud, mut kube, mut etcd, mut store, mut clock, mut hooks) = (
            self.clone(),
            self.clone(),
            self.clone(),
            self.clone(),
            self.clone(),
            self.clone(),
        );
        let mut ports = Ports {
            cloud: &mut cloud,
            kube: &mut kube,
            etcd: &mut etcd,
            store: &mut store,
            clock: &mut clock,
            hooks: Some(&mut hooks),
        };
        crate::sim::engines::run_due(&self.0, &mut ports);
    }
}

impl SimHandle {
    /// A call traced under the current step without being a step of its own (no fault fires,
    /// nothing acts).
    fn quiet<T: Shown>(
        &self,
        what: String,
        f: impl FnOnce(&mut World) -> PortResult<T>,
    ) -> PortResult<T> {
        let mut w = self.0.borrow_mut();
        if w.crashed {
            return Err(PortError::unavailable("the engine process is gone"));
        }
        let r = f(&mut w);
        let shown = match &r {
            Ok(v) => v.shown(),
            Err(e) => format!("error: {e}"),
        };
        let line = format!("#{} t={}s {what} -> {shown}", w.step, w.now.as_secs());
        w.trace.push(line);
        r
    }
}

/// A short text for a call's result in the trace.
pub(in crate::sim) trait Shown {
    fn shown(&self) -> String;
}

impl Shown for u64 {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl Shown for crate::ports::GateStatus {
    fn shown(&self) -> String {
        format!("{self:?}")
    }
}

impl Shown for () {
    fn shown(&self) -> String {
        "ok".to_string()
    }
}

impl Shown for Option<u64> {
    fn shown(&self) -> String {
        match self {
            Some(beat) => format!("held, heartbeat {beat}"),
            None => "lost".to_string(),
        }
    }
}

impl Shown for crate::ports::JobStatus {
    fn shown(&self) -> String {
        match self {
            crate::ports::JobStatus::Pending => "pending".to_string(),
            crate::ports::JobStatus::Done => "done".to_string(),
            crate::ports::JobStatus::Failed(e) => format!("failed: {e}"),
        }
    }
}

impl Shown for bool {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl<T> Shown for Vec<T> {
    fn shown(&self) -> String {
        format!("{} item(s)", self.len())
    }
}

impl Shown for Option<NodeStatus> {
    fn shown(&self) -> String {
        match self {
            Some(n) => format!(
                "{:?} boot {} unschedulable={}",
                n.ready, n.boot_id, n.unschedulable
            ),
            None => "not found".to_string(),
        }
    }
}

impl Shown for EvictionOutcome {
    fn shown(&self) -> String {
        format!("{self:?}")
    }
}

impl Shown for crate::model::CksCluster {
    fn shown(&self) -> String {
        format!("{} with {} VM(s)", self.state, self.vm_ids.len())
    }
}

impl Shown for crate::model::KubernetesVersion {
    fn shown(&self) -> String {
        format!(
            "{} (min {} vCPU, {} MiB)",
            self.name, self.min_cpu, self.min_memory_mb
        )
    }
}

impl Shown for Option<crate::model::CloudStackVersion> {
    fn shown(&self) -> String {
        self.map_or("not said".to_string(), |v| v.to_string())
    }
}

impl Shown for ClusterRecord {
    fn shown(&self) -> String {
        format!("{:?} cancel={}", self.state, self.cancel)
    }
}

impl Etcd for SimHandle {
    fn members(&mut self) -> PortResult<Vec<EtcdMember>> {
        self.call("etcd.members".into(), |w| {
            w.health_seen = (w.member_health(), w.step);
            let t = w.member_type();
            Ok(w.vms
                .values()
                .filter(|v| v.node_type == t)
                .map(|v| EtcdMember {
                    name: v.member_name.clone(),
                    id: None,
                    client_url: format!("https://{}:2379", v.member_address),
                    peer_urls: vec![format!("https://{}:2380", v.member_address)],
                    health: if v.state != VmState::Running || !v.booted {
                        MemberHealth::Unknown
                    } else if v.etcd_unhealthy {
                        MemberHealth::Unhealthy
                    } else {
                        MemberHealth::Healthy
                    },
                    learner: v.etcd_learner,
                })
                .collect())
        })
    }
}

impl Clock for SimHandle {
    fn now(&self) -> Duration {
        self.0.borrow().now
    }

    fn wall(&self) -> Duration {
        let w = self.0.borrow();
        w.epoch + w.now
    }

    fn sleep(&mut self, d: Duration) {
        self.0.borrow_mut().advance(d);
    }
}
