//! The engine processes of a simulation and the calls each made that act on the cluster, for
//! the invariant that at no step do two engines act on one cluster.

use crate::engine::{EngineConfig, UpdateRequest};
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
