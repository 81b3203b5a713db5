//! The small traits a fleet worker drives: the only way it reaches the world. The real adapters
//! (PostgreSQL or SQLite, the one-cluster commands, CloudStack, `sh -c` gates) and the
//! simulator implement them.

use cks_rollout::ports::{GateRun, GateStatus, PortResult};

use crate::model::{FleetRecord, NodeSettings, TargetVersion};

/// The store of fleet records.
pub trait FleetStore {
    /// In one transaction: reads fleet `fleet`'s record and the store's clock (milliseconds
    /// since the Unix epoch), lets `change` edit the record (it returns whether to write it),
    /// and writes it back. `change` may run again when the store retries the transaction, on the
    /// record as it is then. A missing fleet is a `NotFound` error.
    fn change(
        &mut self,
        fleet: &str,
        change: &mut dyn FnMut(&mut FleetRecord, u64) -> bool,
    ) -> PortResult<()>;
}

/// What CloudStack says of a cluster now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterFacts {
    /// Its CKS state (`Running`, `Upgrading`, `Alert`, ...).
    pub state: String,
    /// Its Kubernetes version, when CloudStack names one that parses.
    pub version: Option<semver::Version>,
}

/// One act on one cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Upgrade it (`cks-upgrade-hook upgrade`: preload, `upgradeKubernetesCluster`, refresh).
    Upgrade(TargetVersion),
    /// Refresh what the new ISO carries (`cks-upgrade-hook redeploy`), for a cluster found
    /// already upgraded by an earlier claim.
    Refresh,
    /// Roll node settings out (`cks-rollout run`).
    Settings(NodeSettings),
}

impl Action {
    /// The action's name in events and messages.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Upgrade(_) => "upgrade",
            Action::Refresh => "refresh",
            Action::Settings(_) => "settings",
        }
    }
}

/// Where a started action is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionStatus {
    /// Still running.
    Running,
    /// Ended well, with what it says it did.
    Done(String),
    /// Failed, with the error (CloudStack's own where it gave one).
    Failed(String),
}

/// The acts on clusters.
pub trait ClusterOps {
    /// What CloudStack says of `cluster` now.
    fn observe(&mut self, cluster: &str) -> PortResult<ClusterFacts>;
    /// Starts `action` on `cluster`; a handle to poll it by.
    fn start(&mut self, cluster: &str, action: &Action) -> PortResult<u64>;
    /// Where action `run` is.
    fn poll(&mut self, run: u64) -> PortResult<ActionStatus>;
    /// Stops action `run` at once (the worker lost its hold).
    fn stop(&mut self, run: u64);
}

/// One gate to start, with the fleet's context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetGateCall<'c> {
    /// The command line (run by `sh -c`).
    pub command: &'c str,
    /// The fleet's name (`CKS_FLEET`).
    pub fleet: &'c str,
    /// The stage's name (`CKS_STAGE`).
    pub stage: &'c str,
    /// The stage's number, from 1 (`CKS_STAGE_NUMBER`).
    pub number: usize,
    /// The stage's clusters' ids (`CKS_CLUSTERS`, comma-separated).
    pub clusters: &'c [String],
    /// Variables of the worker's environment passed on.
    pub pass_env: &'c [String],
}

/// Gate commands, started and polled so the worker renews its hold while one runs.
pub trait FleetGates {
    /// Starts `call`'s command.
    fn start(&mut self, call: &FleetGateCall<'_>) -> PortResult<GateRun>;
    /// Looks at a started gate.
    fn status(&mut self, run: &GateRun) -> PortResult<GateStatus>;
    /// Stops a gate (and everything it started).
    fn stop(&mut self, run: &GateRun);
}
