//! The simulated CloudStack and the simulated ports: clusters whose upgrade jobs take their
//! time and may fail (the cluster left in Alert, as CloudStack leaves it), settings rollouts
//! that take five minutes a node, gates with the answers the description gives, and a store
//! that runs the real rules on one record at the simulated clock.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use cks_rollout::ports::{Clock, GateRun, GateStatus, PortError, PortErrorKind, PortResult};

use super::spec::{SimClusterSpec, SimGate};
use crate::model::{ClusterStatus, FleetRecord};
use crate::ports::{
    Action, ActionStatus, ClusterFacts, ClusterOps, FleetGateCall, FleetGates, FleetStore,
};

/// The simulated clock, shared by every port (milliseconds since the Unix epoch).
#[derive(Debug, Clone, Default)]
pub struct SimClock(pub Rc<Cell<u64>>);

impl Clock for SimClock {
    fn now(&self) -> Duration {
        Duration::from_millis(self.0.get())
    }
    fn sleep(&mut self, d: Duration) {
        self.0.set(self.0.get() + d.as_millis() as u64);
    }
}

/// One simulated cluster.
#[derive(Debug, Clone)]
pub struct SimCluster {
    /// How it was described.
    pub spec: SimClusterSpec,
    /// Its CKS state.
    pub state: String,
    /// Its version.
    pub version: semver::Version,
    /// Its upgrade job: when it ends, and to which version.
    pub job: Option<(u64, semver::Version)>,
    /// Upgrade jobs CloudStack accepted for it.
    pub upgrades: u32,
}

/// An action a worker started.
#[derive(Debug, Clone)]
struct Run {
    cluster: String,
    action: &'static str,
    ends_ms: u64,
}

/// The simulated cloud.
#[derive(Debug, Default)]
pub struct SimCloud {
    /// Clusters by id.
    pub clusters: BTreeMap<String, SimCluster>,
    runs: BTreeMap<u64, Run>,
    next: u64,
    /// The gates' answers.
    pub gates: Vec<SimGate>,
    gate_runs: BTreeMap<u64, (SimGate, u64)>,
}

impl SimCloud {
    /// Ends the upgrade jobs due by `now`.
    fn settle(&mut self, now: u64) {
        for c in self.clusters.values_mut() {
            if let Some((ends, to)) = c.job.clone()
                && ends <= now
            {
                c.job = None;
                if c.spec.fail_upgrade.is_some() {
                    c.state = "Alert".into();
                } else {
                    c.version = to;
                    c.state = "Running".into();
                }
            }
        }
    }
}

/// One worker's view of the simulated cloud.
pub struct SimOps {
    /// The cloud.
    pub cloud: Rc<RefCell<SimCloud>>,
    /// The clock.
    pub clock: SimClock,
}

impl ClusterOps for SimOps {
    fn observe(&mut self, cluster: &str) -> PortResult<ClusterFacts> {
        let mut cloud = self.cloud.borrow_mut();
        cloud.settle(self.clock.0.get());
        let c = cloud
            .clusters
            .get(cluster)
            .ok_or_else(|| PortError::not_found(format!("no cluster {cluster}")))?;
        Ok(ClusterFacts {
            state: c.state.clone(),
            version: Some(c.version.clone()),
        })
    }

    fn start(&mut self, cluster: &str, action: &Action) -> PortResult<u64> {
        let now = self.clock.0.get();
        let mut cloud = self.cloud.borrow_mut();
        cloud.settle(now);
        let c = cloud
            .clusters
            .get_mut(cluster)
            .ok_or_else(|| PortError::not_found(format!("no cluster {cluster}")))?;
        let ends_ms = match action {
            Action::Upgrade(to) => {
                if c.state != "Running" {
                    return Err(PortError::new(
                        PortErrorKind::Refused,
                        format!(
                            "Kubernetes cluster : {} is not in running state",
                            c.spec.name
                        ),
                    ));
                }
                c.state = "Upgrading".into();
                c.upgrades += 1;
                let ends = now + c.spec.upgrade_minutes * 60_000;
                c.job = Some((ends, to.semver.clone()));
                ends
            }
            Action::Refresh => now + 60_000,
            Action::Settings(_) => now + u64::from(c.spec.nodes) * 300_000,
        };
        cloud.next += 1;
        let id = cloud.next;
        cloud.runs.insert(
            id,
            Run {
                cluster: cluster.to_string(),
                action: action.name(),
                ends_ms,
            },
        );
        Ok(id)
    }

    fn poll(&mut self, run: u64) -> PortResult<ActionStatus> {
        let now = self.clock.0.get();
        let mut cloud = self.cloud.borrow_mut();
        cloud.settle(now);
        let Some(r) = cloud.runs.get(&run).cloned() else {
            return Err(PortError::not_found(format!("no action {run}")));
        };
        if now < r.ends_ms {
            return Ok(ActionStatus::Running);
        }
        cloud.runs.remove(&run);
        let c = &cloud.clusters[&r.cluster];
        Ok(
            match (r.action, &c.spec.fail_upgrade, &c.spec.fail_settings) {
                ("upgrade", Some(text), _) => {
                    ActionStatus::Failed(format!("{text} (the cluster is {})", c.state))
                }
                ("settings", _, Some(text)) => ActionStatus::Failed(text.clone()),
                (action, _, _) => ActionStatus::Done(format!("{action} of {} done", c.spec.name)),
            },
        )
    }

    fn stop(&mut self, run: u64) {
        // The worker's own process stops; a CloudStack job it started runs on.
        self.cloud.borrow_mut().runs.remove(&run);
    }
}

impl FleetGates for SimOps {
    fn start(&mut self, call: &FleetGateCall<'_>) -> PortResult<GateRun> {
        let mut cloud = self.cloud.borrow_mut();
        let gate = cloud
            .gates
            .iter()
            .find(|g| g.stage == call.number)
            .cloned()
            .unwrap_or(SimGate {
                stage: call.number,
                exit: 0,
                seconds: 0,
                output: String::new(),
            });
        cloud.next += 1;
        let id = cloud.next;
        let now = self.clock.0.get();
        cloud.gate_runs.insert(id, (gate, now));
        Ok(GateRun {
            id,
            command: call.command.to_string(),
        })
    }

    fn status(&mut self, run: &GateRun) -> PortResult<GateStatus> {
        let cloud = self.cloud.borrow();
        let Some((gate, started)) = cloud.gate_runs.get(&run.id) else {
            return Err(PortError::not_found("no such gate"));
        };
        if self.clock.0.get() < started + gate.seconds * 1000 {
            return Ok(GateStatus::Running);
        }
        Ok(GateStatus::Exited {
            code: Some(gate.exit),
            last_line: gate.output.clone(),
        })
    }

    fn stop(&mut self, run: &GateRun) {
        self.cloud.borrow_mut().gate_runs.remove(&run.id);
    }
}

/// The simulated store: one record, the real rules, the simulated clock.
#[derive(Debug)]
pub struct SimStore {
    /// The record.
    pub record: Rc<RefCell<FleetRecord>>,
    /// The clock.
    pub clock: SimClock,
    /// A deliberate breakage for the tests: the lease check sees every hold as lapsed, so a
    /// worker may take over a cluster another still acts on.
    pub broken_lease_check: bool,
}

impl FleetStore for SimStore {
    fn change(
        &mut self,
        fleet: &str,
        change: &mut dyn FnMut(&mut FleetRecord, u64) -> bool,
    ) -> PortResult<()> {
        let mut record = self.record.borrow_mut();
        if record.id != fleet {
            return Err(PortError::not_found(format!("no fleet {fleet}")));
        }
        let now = self.clock.0.get();
        let mut copy = record.clone();
        let lease_ms = copy.plan.lease_ms;
        if self.broken_lease_check {
            for c in copy.clusters.values_mut() {
                if let ClusterStatus::Active { lease } = &mut c.status {
                    lease.heartbeat_ms = lease.heartbeat_ms.saturating_sub(lease_ms);
                }
            }
        }
        if change(&mut copy, now) {
            if self.broken_lease_check {
                // Holds the change did not touch keep their real heartbeat.
                for (id, c) in copy.clusters.iter_mut() {
                    if let (
                        ClusterStatus::Active { lease },
                        Some(ClusterStatus::Active { lease: was }),
                    ) = (&mut c.status, record.clusters.get(id).map(|r| &r.status))
                        && lease.owner == was.owner
                        && lease.claim == was.claim
                        && lease.heartbeat_ms == was.heartbeat_ms.saturating_sub(lease_ms)
                    {
                        lease.heartbeat_ms = was.heartbeat_ms;
                    }
                }
            }
            *record = copy;
        }
        Ok(())
    }
}
