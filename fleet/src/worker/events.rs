//! What a worker reports as it goes: one event per act, the same lines for the terminal, the
//! `--events` file and the webhook.

use serde::{Deserialize, Serialize};

/// The fleet event schema's version; a field renamed, removed or changed in meaning bumps it.
pub const SCHEMA: u32 = 1;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FleetStep {
    /// A worker claimed a cluster.
    Claim,
    /// A worker took a lapsed hold over.
    Takeover,
    /// An action started on a cluster.
    Start,
    /// An action ended well.
    Finish,
    /// A cluster is done.
    Done,
    /// A cluster failed.
    Failed,
    /// A stage's gates ran.
    Gate,
    /// A stage's soak began.
    Soak,
    /// A stage passed.
    Passed,
    /// The fleet halted.
    Halted,
    /// The fleet was cancelled.
    Cancelled,
    /// No window is open.
    Window,
    /// The worker lost its hold.
    LeaseLost,
    /// The worker could not reach the store or CloudStack and waits.
    Retry,
    /// The fleet ended.
    Ended,
}

/// One event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetEvent {
    /// Milliseconds on the worker's clock.
    pub at_ms: u64,
    /// The worker.
    pub worker: String,
    /// What happened.
    pub step: FleetStep,
    /// The stage's name, where one is concerned.
    pub stage: Option<String>,
    /// The cluster's id, where one is concerned.
    pub cluster: Option<String>,
    /// What happened, in words.
    pub detail: String,
}

/// Where a worker's events go.
pub trait FleetProgress {
    /// One event.
    fn on_event(&mut self, event: &FleetEvent);
}

/// Events dropped.
pub struct NoEvents;

impl FleetProgress for NoEvents {
    fn on_event(&mut self, _: &FleetEvent) {}
}

/// Events kept in memory (the simulator, tests).
#[derive(Debug, Default)]
pub struct KeptEvents(pub Vec<FleetEvent>);

impl FleetProgress for KeptEvents {
    fn on_event(&mut self, event: &FleetEvent) {
        self.0.push(event.clone());
    }
}
