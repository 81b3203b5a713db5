//! The rollout's events for machines: one JSON line per step in a versioned schema
//! ([`EventLine`], documented in README.md, "Events"), written to a file ([`mod@file`]) and POSTed
//! to a webhook ([`webhook`]).

pub mod file;
pub mod webhook;

use crate::engine::{Event, Progress, StepKind};
use serde::{Deserialize, Serialize};

/// The version of [`EventLine`]'s schema, in every line. A field added keeps it; a field
/// renamed, removed or changed in meaning bumps it.
pub const SCHEMA: u32 = 1;

/// One event as a line of `--events` and a webhook body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventLine {
    /// Schema version ([`SCHEMA`]).
    pub schema: u32,
    /// The cluster's id.
    pub cluster: String,
    /// Wall-clock time, RFC 3339 in UTC with milliseconds.
    pub time: String,
    /// Milliseconds since the rollout's clock started (monotonic within one run).
    pub at_ms: u64,
    /// The step (`start`, `gate`, `preflight`, `cordon`, `drain`, `stop`, ..., `release`).
    pub step: StepKind,
    /// Batch number, when the step belongs to a batch.
    pub batch: Option<usize>,
    /// Node name, when the step is about one node.
    pub node: Option<String>,
    /// What happened, in words (for a `failed` step: the reason the rollout stopped).
    pub detail: String,
}

impl EventLine {
    /// The line of `event` in `cluster`.
    pub fn new(cluster: &str, event: &Event) -> Self {
        EventLine {
            schema: SCHEMA,
            cluster: cluster.to_string(),
            time: jiff::Timestamp::from_millisecond(event.wall_ms as i64)
                .map(|t| format!("{t:.3}"))
                .unwrap_or_default(),
            at_ms: event.at_ms,
            step: event.step,
            batch: event.batch,
            node: event.node.clone(),
            detail: event.detail.clone(),
        }
    }
}

/// Hands each event to every receiver in turn.
pub struct Tee<'p> {
    /// The receivers.
    pub to: Vec<&'p mut dyn Progress>,
}

impl Progress for Tee<'_> {
    fn on_event(&mut self, event: &Event) {
        for p in &mut self.to {
            p.on_event(event);
        }
    }
}
