//! The deterministic fleet simulator: simulated clusters whose upgrade jobs take their time and
//! fail as described, several workers interleaved step by step on one simulated clock, some
//! killed mid-stage, all driven through the real worker and the real rules, with the invariants
//! checked after every step ([`invariants`]).

pub mod cloud;
pub mod invariants;
pub mod spec;
mod spec_error;

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use cloud::{SimClock, SimCloud, SimCluster, SimOps, SimStore};
pub use invariants::Violation;
use spec::FleetSimSpec;
pub use spec_error::SpecError;

use crate::model::{Actions, FleetPlan, FleetRecord, NodeSettings, SkippedCluster, TargetVersion};
use crate::stages::split;
use crate::worker::{KeptEvents, Step, Summary, Worker, WorkerPorts};

/// When the simulated clock starts (2026-12-07T00:00:00Z).
pub const START_MS: u64 = 1_796_601_600_000;
/// Steps at the most, so a run that would never end stops.
const MAX_STEPS: u64 = 200_000;

/// One simulated worker.
struct SimWorker {
    worker: Worker,
    wake_ms: u64,
    alive: bool,
    kill_at: Option<u64>,
}

/// A simulation ready to run.
pub struct Simulation {
    clock: SimClock,
    cloud: Rc<RefCell<SimCloud>>,
    store: SimStore,
    workers: Vec<SimWorker>,
    rng: StdRng,
    cancel_at: Option<u64>,
    target: Option<semver::Version>,
}

/// How a simulation ended.
#[derive(Debug)]
pub struct SimOutcome {
    /// The fleet's summary.
    pub summary: Summary,
    /// Invariants broken, in order.
    pub violations: Vec<Violation>,
    /// Every worker's events.
    pub events: KeptEvents,
    /// Steps taken.
    pub steps: u64,
    /// Simulated minutes from start to end.
    pub minutes: u64,
    /// The record at the end.
    pub record: FleetRecord,
}

fn version(text: &str, what: &str) -> Result<semver::Version, SpecError> {
    semver::Version::parse(text.trim_start_matches('v')).map_err(|e| SpecError::BadVersion {
        what: what.to_string(),
        text: text.to_string(),
        detail: e.to_string(),
    })
}

impl Simulation {
    /// Builds the simulation `spec` describes; an error names the entry that is wrong.
    pub fn new(spec: &FleetSimSpec) -> Result<Self, SpecError> {
        if spec.workers == 0 {
            return Err(SpecError::NoWorkers);
        }
        let killed: BTreeSet<usize> = spec.kills.iter().map(|k| k.worker).collect();
        if let Some(bad) = killed.iter().find(|w| **w == 0 || **w > spec.workers) {
            return Err(SpecError::UnknownWorker {
                worker: *bad,
                workers: spec.workers,
            });
        }
        if killed.len() >= spec.workers {
            return Err(SpecError::EveryWorkerKilled);
        }
        let clock = SimClock::default();
        clock.0.set(START_MS);
        let target = spec.to.as_deref().map(|t| version(t, "to")).transpose()?;
        let mut cloud = SimCloud::default();
        cloud.gates = spec.gates.clone();
        let (mut ids, mut skipped, mut rows) = (Vec::new(), Vec::new(), Vec::new());
        for (i, c) in spec.all_clusters().into_iter().enumerate() {
            let id = format!("id-{:03}-{}", i + 1, c.name);
            let v = version(&c.version, &format!("cluster {}: version", c.name))?;
            if let Some(t) = &target {
                if v > *t {
                    return Err(SpecError::Newer {
                        cluster: c.name.clone(),
                        version: v.to_string(),
                        target: t.to_string(),
                    });
                }
                let reason = if v == *t {
                    Some(format!("already on {t}"))
                } else if c.state != "Running" {
                    Some(format!("it is {}, not Running", c.state))
                } else {
                    None
                };
                if let Some(reason) = reason {
                    skipped.push(SkippedCluster {
                        id: id.clone(),
                        name: c.name.clone(),
                        reason,
                    });
                }
            }
            if !skipped.iter().any(|s| s.id == id) {
                ids.push(id.clone());
                rows.push((id.clone(), c.name.clone(), c.project.clone(), v.to_string()));
            }
            cloud.clusters.insert(
                id,
                SimCluster {
                    state: c.state.clone(),
                    version: v,
                    job: None,
                    upgrades: 0,
                    spec: c,
                },
            );
        }
        for s in &spec.stages {
            crate::stages::check_stage(s, 0, "the description")?;
        }
        let (stages, _) = split(&ids, &spec.stages, spec.halt_after.max(1), &[])?;
        let actions = Actions {
            upgrade: target.as_ref().map(|t| TargetVersion {
                id: format!("kv-{t}"),
                name: format!("v{t}"),
                semver: t.clone(),
            }),
            settings: spec.settings.as_ref().map(|s| NodeSettings {
                offerings: s.offering.clone(),
                root_disk_sizes: s.root_disk_size.clone(),
                affinity_groups: s.affinity_groups.clone(),
            }),
        };
        if actions.upgrade.is_none() && actions.settings.is_none() {
            return Err(SpecError::NothingToDo);
        }
        let plan = FleetPlan {
            stages,
            actions,
            windows: vec![],
            lease_ms: spec.lease_seconds * 1000,
            gate_timeout_ms: 300_000,
            gate_env: vec![],
            skipped,
        };
        let record = FleetRecord::new("fleet", START_MS, plan, rows);
        let poll = Duration::from_secs(spec.poll_seconds.max(1));
        let workers = (1..=spec.workers)
            .map(|n| SimWorker {
                worker: Worker::new(&format!("worker-{n}"), "fleet", poll),
                wake_ms: START_MS,
                alive: true,
                kill_at: spec
                    .kills
                    .iter()
                    .filter(|k| k.worker == n)
                    .map(|k| START_MS + k.at_minutes * 60_000)
                    .min(),
            })
            .collect();
        Ok(Simulation {
            store: SimStore {
                record: Rc::new(RefCell::new(record)),
                clock: clock.clone(),
                broken_lease_check: false,
            },
            cloud: Rc::new(RefCell::new(cloud)),
            clock,
            workers,
            rng: StdRng::seed_from_u64(spec.seed),
            cancel_at: spec.cancel_at_minutes.map(|m| START_MS + m * 60_000),
            target,
        })
    }

    /// Breaks the store's lease check on purpose, for the test that shows the invariants catch it.
    pub fn break_lease_check(&mut self) {
        self.store.broken_lease_check = true;
    }

    /// Runs until every live worker finished.
    pub fn run(mut self) -> SimOutcome {
        let mut events = KeptEvents::default();
        let mut checker = invariants::Checker::new(self.target.clone());
        let mut steps = 0;
        let mut ops = SimOps {
            cloud: self.cloud.clone(),
            clock: self.clock.clone(),
        };
        let mut gates = SimOps {
            cloud: self.cloud.clone(),
            clock: self.clock.clone(),
        };
        let mut clock = self.clock.clone();
        while steps < MAX_STEPS {
            // The live worker that wakes first; ties broken by the seed.
            let Some(wake) = self
                .workers
                .iter()
                .filter(|w| w.alive)
                .map(|w| w.wake_ms)
                .min()
            else {
                break;
            };
            let ready: Vec<usize> = (0..self.workers.len())
                .filter(|i| self.workers[*i].alive && self.workers[*i].wake_ms == wake)
                .collect();
            let i = ready[self.rng.random_range(0..ready.len())];
            self.clock.0.set(wake.max(self.clock.0.get()));
            let now = self.clock.0.get();
            for w in &mut self.workers {
                if w.alive && w.kill_at.is_some_and(|at| at <= now) {
                    w.alive = false;
                }
            }
            if self.cancel_at.is_some_and(|at| at <= now) {
                self.cancel_at = None;
                let _ = crate::rules::cancel(&mut self.store.record.borrow_mut());
            }
            if !self.workers[i].alive {
                continue;
            }
            steps += 1;
            let step = {
                let mut ports = WorkerPorts {
                    store: &mut self.store,
                    ops: &mut ops,
                    gates: &mut gates,
                    clock: &mut clock,
                    events: &mut events,
                };
                self.workers[i].worker.step(&mut ports)
            };
            let now = self.clock.0.get();
            let w = &mut self.workers[i];
            match step {
                Step::Again => w.wake_ms = now,
                Step::Sleep(d) => w.wake_ms = now + (d.as_millis() as u64).max(1),
                Step::Finished => w.alive = false,
            }
            let acting: Vec<(String, String)> = self
                .workers
                .iter()
                .filter(|w| w.alive)
                .filter_map(|w| {
                    w.worker
                        .acting_on()
                        .map(|c| (w.worker.name.clone(), c.to_string()))
                })
                .collect();
            checker.after_step(
                steps,
                &self.store.record.borrow(),
                &self.cloud.borrow(),
                &acting,
            );
        }
        let record = self.store.record.borrow().clone();
        checker.at_end(&record, &self.cloud.borrow());
        SimOutcome {
            summary: Summary::of(&record),
            violations: checker.violations,
            events,
            steps,
            minutes: (self.clock.0.get() - START_MS) / 60_000,
            record,
        }
    }
}
