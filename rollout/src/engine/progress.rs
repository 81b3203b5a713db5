//! What the engine reports as it goes: one event per step.

use serde::{Deserialize, Serialize};

/// The kind of step an event reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// The rollout started (after the state moved to Updating and the settings were stored).
    Start,
    /// A node left from an earlier run was uncordoned.
    Settle,
    /// A batch's preflight ran.
    Preflight,
    /// The rollout annotation was set.
    Annotate,
    /// The node was cordoned.
    Cordon,
    /// The node was drained.
    Drain,
    /// The VM was stopped.
    Stop,
    /// The VM's offering was changed.
    ChangeOffering,
    /// The root disk was grown.
    ResizeDisk,
    /// The VM's affinity groups were replaced.
    UpdateAffinity,
    /// The VM was started.
    StartVm,
    /// The node was verified (Ready, new boot ID, up to date, capacity).
    Verify,
    /// The node was uncordoned and its annotation removed.
    Uncordon,
    /// Outside every maintenance window: the rollout waits for the next (or it opened).
    Window,
    /// A gate command before a batch passed.
    Gate,
    /// A batch's soak began (its nodes must stay Ready this long) or ended.
    Soak,
    /// A node was skipped.
    Skip,
    /// The rollout stopped on a cancel.
    Cancelled,
    /// A batch failed.
    Failed,
    /// Nodes were added or removed since the plan: the rollout planned again.
    Replan,
    /// `release()` ran.
    Release,
}

/// One step of a rollout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Clock time in milliseconds.
    pub at_ms: u64,
    /// Wall-clock time in milliseconds since the Unix epoch (the simulator's from its
    /// description's `clock_start`).
    #[serde(default)]
    pub wall_ms: u64,
    /// Batch number, if in a batch.
    pub batch: Option<usize>,
    /// Node, if about one node.
    pub node: Option<String>,
    /// Step kind.
    pub step: StepKind,
    /// Details.
    pub detail: String,
}

/// Receives events as they happen (a terminal display, plain lines, JSON lines).
pub trait Progress {
    /// One event.
    fn on_event(&mut self, event: &Event);
}

/// A [`Progress`] that ignores events.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn on_event(&mut self, _event: &Event) {}
}
