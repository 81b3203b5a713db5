//! A deterministic simulator of a CKS cluster (virtual clock, one seeded RNG) implementing the
//! engine's ports, with faults injected from a data schedule and the safety invariants checked
//! after every step.
//!
//! ```
//! use cks_rollout::engine::{EngineConfig, UpdateRequest};
//! use cks_rollout::sim::{ClusterSpec, Simulation};
//!
//! let yaml = r#"
//! service_offering: small
//! offerings:
//!   - { id: small, name: small, cpu_cores: 2, memory_mb: 4096 }
//!   - { id: large, name: large, cpu_cores: 4, memory_mb: 8192 }
//! control: { count: 3 }
//! workers: { count: 3 }
//! "#;
//! let spec: ClusterSpec = serde_norway::from_str(yaml).expect("valid description");
//! let sim = Simulation::new(&spec, 7).expect("simulable");
//! let mut req = UpdateRequest { rollout: true, ..Default::default() };
//! req.node_offerings.insert("worker".into(), "large".into());
//! let run = sim.run(&req, &EngineConfig::default());
//! assert!(run.violation.is_none(), "{}", run.trace.join("\n"));
//! assert_eq!(sim.world().record.state, cks_rollout::model::ClusterState::Running);
//! ```

mod act;
mod backing;
mod end_state;
mod engines;
mod faults;
mod from_spec;
mod gates;
mod invariants;
mod jobs;
mod pods;
mod ports;
mod processes;
pub mod random;
mod record;
mod spec;
mod spec_error;
mod violation;
mod world;

pub use backing::Backing;
pub use end_state::{EndState, VmEndState};
pub use gates::{GateSpec, Gates, SimGate};
pub use invariants::{check_cancels, check_end};
pub use jobs::{JobDurations, JobSpan, Jobs};
pub use ports::SimHandle;
pub use processes::Engines;
pub use spec::{
    ClusterSpec, Fault, KubernetesVersionSpec, NodeGroupSpec, NodeOverride, PdbSpec, PodSpec,
};
pub use spec_error::SpecError;
pub use violation::Violation;
pub use world::{NODE_GRACE, SimNode, SimPod, SimVm, World, reported_memory};

use crate::engine::{
    EngineConfig, NoProgress, Progress, ReleaseOutcome, ScanOutcome, UpdateError, UpdateOutcome,
    UpdateRequest,
};
use crate::model::NodeType;
use crate::ports::Ports;
use std::cell::{Ref, RefCell, RefMut};
use std::rc::Rc;

/// Nodes restarted per cancel step, as [`Simulation::cancel_sweep`] reports them.
pub type Restarts = Vec<(u64, u32)>;

/// The five port handles of one simulation.
#[derive(Debug, Clone)]
pub struct SimPorts {
    cloud: SimHandle,
    kube: SimHandle,
    etcd: SimHandle,
    store: SimHandle,
    clock: SimHandle,
    hooks: SimHandle,
}

impl SimPorts {
    /// The engine's [`Ports`] with `store` in place of the simulation's own store port (a
    /// wrapper over it, say, to break a rule on purpose).
    pub fn ports_with_store<'a>(&'a mut self, store: &'a mut dyn crate::ports::Store) -> Ports<'a> {
        Ports {
            cloud: &mut self.cloud,
            kube: &mut self.kube,
            etcd: &mut self.etcd,
            store,
            clock: &mut self.clock,
            hooks: Some(&mut self.hooks),
        }
    }

    /// The engine's [`Ports`] with `clock` in place of the simulation's own clock (one that
    /// tells the engine another time than the world's, say, to break a rule on purpose).
    pub fn ports_with_clock<'a>(&'a mut self, clock: &'a mut dyn crate::ports::Clock) -> Ports<'a> {
        Ports {
            cloud: &mut self.cloud,
            kube: &mut self.kube,
            etcd: &mut self.etcd,
            store: &mut self.store,
            clock,
            hooks: Some(&mut self.hooks),
        }
    }

    /// The engine's [`Ports`] with `hooks` in place of the simulated gates (the real gate
    /// commands, say).
    pub fn ports_with_hooks<'a>(&'a mut self, hooks: &'a mut dyn crate::ports::Hooks) -> Ports<'a> {
        Ports {
            cloud: &mut self.cloud,
            kube: &mut self.kube,
            etcd: &mut self.etcd,
            store: &mut self.store,
            clock: &mut self.clock,
            hooks: Some(hooks),
        }
    }

    /// The simulation's clock port.
    pub fn clock(&self) -> SimHandle {
        self.clock.clone()
    }

    /// The simulation's store port.
    pub fn store(&self) -> SimHandle {
        self.store.clone()
    }

    /// Borrow them as the engine's [`Ports`].
    pub fn ports(&mut self) -> Ports<'_> {
        Ports {
            cloud: &mut self.cloud,
            kube: &mut self.kube,
            etcd: &mut self.etcd,
            store: &mut self.store,
            clock: &mut self.clock,
            hooks: Some(&mut self.hooks),
        }
    }
}

/// What a simulated `run` gave.
#[derive(Debug, Clone)]
pub struct SimRun {
    /// The seed.
    pub seed: u64,
    /// The update call's result.
    pub outcome: Result<UpdateOutcome, UpdateError>,
    /// True when the engine crashed (then the scanner ran).
    pub crashed: bool,
    /// What the scanner did, after a crash.
    pub scan: Option<ScanOutcome>,
    /// The first broken invariant.
    pub violation: Option<Violation>,
    /// The step trace.
    pub trace: Vec<String>,
}

impl SimRun {
    /// The seed, the violation and the trace, for a failing test.
    pub fn failure_report(&self) -> String {
        format!(
            "seed {}: {}\n{}",
            self.seed,
            self.violation
                .as_ref()
                .map_or("no invariant broken".to_string(), |v| v.to_string()),
            self.trace.join("\n")
        )
    }
}

/// A simulated cluster the engine can drive.
#[derive(Debug, Clone)]
pub struct Simulation {
    world: Rc<RefCell<World>>,
    seed: u64,
}

impl Simulation {
    /// A simulation of `spec`, every random choice drawn from `seed`.
    pub fn new(spec: &ClusterSpec, seed: u64) -> Result<Self, SpecError> {
        Ok(Simulation {
            world: Rc::new(RefCell::new(World::new(spec, seed)?)),
            seed,
        })
    }

    /// The same simulation with every store call made on `store` (a real database that
    /// already holds the world's record): the store's rules run there, the engine gets its
    /// answers and the world takes its record after each call.
    pub fn backed_by(self, store: Box<dyn crate::adapters::store::RecordStore>) -> Self {
        self.world_mut().backing = Some(Backing::new(store));
        self
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Port handles on this world.
    pub fn ports(&self) -> SimPorts {
        let h = SimHandle(self.world.clone());
        SimPorts {
            cloud: h.clone(),
            kube: h.clone(),
            etcd: h.clone(),
            store: h.clone(),
            clock: h.clone(),
            hooks: h,
        }
    }

    /// The world.
    pub fn world(&self) -> Ref<'_, World> {
        self.world.borrow()
    }

    /// The world, to change it.
    pub fn world_mut(&self) -> RefMut<'_, World> {
        self.world.borrow_mut()
    }

    /// The cluster id.
    pub fn cluster_id(&self) -> String {
        self.world().record.id.clone()
    }

    /// The update call, with the invariants' worker budget taken from `req`.
    pub fn update(
        &self,
        req: &UpdateRequest,
        cfg: &EngineConfig,
        progress: &mut dyn Progress,
    ) -> Result<UpdateOutcome, UpdateError> {
        self.prepare(req, cfg);
        let id = self.cluster_id();
        let mut p = self.ports();
        let outcome = crate::engine::update(&mut p.ports(), &id, req, cfg, progress);
        self.finish(&outcome);
        outcome
    }

    /// Before an update call made on this world's ports: the invariants' worker budget taken
    /// from `req`, and the call a `second_engine` fault runs (the same, with an owner of its
    /// own).
    pub fn prepare(&self, req: &UpdateRequest, cfg: &EngineConfig) {
        {
            let mut second = cfg.clone();
            second.owner = format!("{}-second", cfg.owner);
            self.world_mut().engines.second = Some((req.clone(), second));
        }
        {
            let mut w = self.world_mut();
            let workers = w
                .vms
                .values()
                .filter(|v| v.node_type == NodeType::Worker)
                .count() as u32;
            let m = req
                .max_unavailable
                .unwrap_or(1)
                .clamp(1, i64::from(u32::MAX)) as u32;
            // Computed here, not with the engine's function, so the check is independent.
            w.worker_budget = m.min(workers.saturating_sub(1)).max(1);
            w.max_unavailable = m;
            w.windows = cfg.windows.clone();
        }
    }

    /// After an update call made on this world's ports: the end-of-call invariants.
    pub fn finish(&self, outcome: &Result<UpdateOutcome, UpdateError>) {
        let mut w = self.world_mut();
        if !w.crashed && w.violation.is_none() {
            let (rolled_out, lost) = match outcome {
                Ok(UpdateOutcome::RolledOut(r)) => (true, r.run.lost_lease),
                _ => (false, false),
            };
            w.violation = invariants::check_end(&w, rolled_out, lost);
        }
    }

    /// Nodes restarted by the engine so far (stops it made).
    pub fn restarts(&self) -> u32 {
        self.world().vms.values().map(|v| v.engine_stops).sum()
    }

    /// `cancel-earlier-restarts-no-more` for `spec` and `req`: one run per step in `steps`
    /// (increasing) with a cancel asked at that step, each from `seed`; runs that crashed or
    /// whose cancel was refused (the cluster not Updating) are left out. Returns the restarts
    /// per step, or the violation with the restarts seen.
    pub fn cancel_sweep(
        spec: &ClusterSpec,
        req: &UpdateRequest,
        cfg: &EngineConfig,
        seed: u64,
        steps: &[u64],
    ) -> Result<Restarts, (Violation, Restarts)> {
        let mut seen = Vec::new();
        for &at_step in steps {
            let mut spec = spec.clone();
            spec.faults.push(Fault::Cancel { at_step });
            let Ok(sim) = Simulation::new(&spec, seed) else {
                continue;
            };
            let run = sim.run(req, cfg);
            // Only cancels that landed while the cluster was Updating compare: one refused (as
            // the real `cancel` refuses it) leaves the rollout whole.
            let recorded = format!("#{at_step} cancel recorded");
            if run.crashed || !run.trace.contains(&recorded) {
                continue;
            }
            if let Some(v) = run.violation {
                return Err((v, seen));
            }
            seen.push((at_step, sim.restarts()));
        }
        match invariants::check_cancels(&seen) {
            Some(v) => Err((v, seen)),
            None => Ok(seen),
        }
    }

    /// `release()` on this cluster, for a rollout that ended with `error` and `notes`.
    pub fn release(
        &self,
        error: Option<&str>,
        notes: Option<&str>,
    ) -> Result<ReleaseOutcome, crate::engine::EngineError> {
        let id = self.cluster_id();
        let mut p = self.ports();
        crate::engine::release_with(&mut p.ports(), &id, error, notes)
    }

    /// The state scanner.
    pub fn scan(&self, cfg: &EngineConfig) -> Result<ScanOutcome, crate::engine::EngineError> {
        let id = self.cluster_id();
        let mut p = self.ports();
        crate::engine::scan(&mut p.ports(), &id, cfg.lease_timeout)
    }

    /// Drop every fault not yet spent, so the world changes only through the engine.
    pub fn quiesce(&self) {
        self.world_mut().faults.clear();
    }

    /// A new engine process after a crash (the crash fault is spent).
    pub fn restart_engine(&self) {
        self.world_mut().crashed = false;
    }

    /// Run `req`; after a crash, wait out the lease and run the scanner.
    pub fn run(&self, req: &UpdateRequest, cfg: &EngineConfig) -> SimRun {
        self.run_with(req, cfg, &mut NoProgress)
    }

    /// [`Simulation::run`] reporting each step to `progress`.
    pub fn run_with(
        &self,
        req: &UpdateRequest,
        cfg: &EngineConfig,
        progress: &mut dyn Progress,
    ) -> SimRun {
        let outcome = self.update(req, cfg, progress);
        let crashed = self.world().crashed;
        let mut scan = None;
        if crashed {
            self.restart_engine();
            self.world_mut()
                .advance(cfg.lease_timeout + cfg.poll_interval);
            scan = self.scan(cfg).ok();
        }
        let w = self.world();
        SimRun {
            seed: self.seed,
            outcome,
            crashed,
            scan,
            violation: w.violation.clone(),
            trace: w.trace.clone(),
        }
    }
}
