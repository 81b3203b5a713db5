//! A second engine process on the same cluster record (`scan`, then `run`), started by a
//! scheduled fault in the middle of the first one's step, and the invariant that at no step do
//! two engines act on one cluster.

use super::ports::SimHandle;
use crate::engine::{EngineConfig, NoProgress, UpdateRequest};
use crate::ports::Ports;
use std::collections::BTreeMap;

/// The engine processes of a simulation.
#[derive(Debug, Clone, Default)]
pub struct Engines {
    /// The engine making calls now (0: the first process, 1: the second).
    pub current: u8,
    /// Per engine: the step its rollout moved the cluster to `Updating`.
    pub began: BTreeMap<u8, u64>,
    /// Per engine: the step of its last act on the cluster.
    pub last_act: BTreeMap<u8, u64>,
    /// The second engine's call (its own owner), set by the update call.
    pub second: Option<(UpdateRequest, EngineConfig)>,
    /// A `second_engine` fault fired: it runs once the current step is over.
    pub due: bool,
    /// The virtual time the store last confirmed a lease (a confirmation at that same instant
    /// is not a step of its own).
    pub held_at: Option<std::time::Duration>,
}

/// The calls that act on the cluster (when they succeed).
const ACTS: [&str; 10] = [
    "kube.set_annotation",
    "kube.set_unschedulable",
    "kube.evict",
    "cloud.stop_vm",
    "cloud.start_vm",
    "cloud.change_offering",
    "cloud.resize_volume",
    "cloud.update_affinity_groups",
    "store.end_rollout",
    "store.cas(Updating",
];

impl Engines {
    /// Note the call `what` the current engine made at `step`, `ok` when it succeeded and
    /// `won` when it answered `true`.
    pub fn note(&mut self, what: &str, step: u64, ok: bool, won: bool) {
        if what.starts_with("store.begin_rollout") && won {
            self.began.insert(self.current, step);
        }
        if ok && ACTS.iter().any(|a| what.starts_with(a)) {
            self.last_act.insert(self.current, step);
        }
    }

    /// `one-engine-at-a-time`: the engine that acted at `step` did so although another acted
    /// on the cluster since this one's rollout began. The detail, if it did.
    pub fn check(&self, step: u64) -> Option<String> {
        let me = self.current;
        if self.last_act.get(&me) != Some(&step) {
            return None;
        }
        let began = self.began.get(&me).copied().unwrap_or(0);
        self.last_act
            .iter()
            .find(|(other, at)| **other != me && **at > began)
            .map(|(other, at)| {
                format!(
                    "engine {me} (rollout begun at step {began}) acted although engine {other} acted at step {at}"
                )
            })
    }
}

/// Run the second engine if a fault asked for it: the scanner, then the update call, with its
/// own owner, on the world's record (not a real store).
pub fn run_due(h: &SimHandle) {
    let second = {
        let mut w = h.0.borrow_mut();
        if !w.engines.due || w.engines.current != 0 || w.crashed {
            return;
        }
        w.engines.due = false;
        let Some(second) = w.engines.second.clone() else {
            return;
        };
        w.engines.current = 1;
        let line = format!("#{} second engine: scan, then run", w.step);
        w.trace.push(line);
        second
    };
    let (req, cfg) = second;
    let id = h.0.borrow().record.id.clone();
    let (mut cloud, mut kube, mut etcd, mut store, mut clock, mut hooks) = (
        h.clone(),
        h.clone(),
        h.clone(),
        h.clone(),
        h.clone(),
        h.clone(),
    );
    let mut ports = Ports {
        cloud: &mut cloud,
        kube: &mut kube,
        etcd: &mut etcd,
        store: &mut store,
        clock: &mut clock,
        hooks: Some(&mut hooks),
    };
    let scan = crate::engine::scan(&mut ports, &id, cfg.lease_timeout);
    let run = crate::engine::update(&mut ports, &id, &req, &cfg, &mut NoProgress);
    let mut w = h.0.borrow_mut();
    let line = format!(
        "#{} second engine done: scan {:?}; run {}",
        w.step,
        scan.map_err(|e| e.to_string()),
        match &run {
            Ok(crate::engine::UpdateOutcome::RolledOut(r)) => format!(
                "rolled out, error {:?}",
                r.run.error.as_ref().map(|e| e.to_string())
            ),
            Ok(other) => format!("{other:?}"),
            Err(e) => format!("refused: {e}"),
        }
    );
    w.trace.push(line);
    w.engines.current = 0;
}
