//! The simulated gate commands: what each gate answers before which batch, as described in the
//! cluster file, and the gates running in virtual time.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// What a gate answers before one batch (any gate not described exits 0 at once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateSpec {
    /// The batch it answers for.
    pub batch: usize,
    /// Only the gate whose command contains this (absent: every gate).
    #[serde(default)]
    pub command: Option<String>,
    /// Its exit code.
    #[serde(default)]
    pub exit: i32,
    /// Its last line of output.
    #[serde(default)]
    pub output: String,
    /// How long it runs, in seconds.
    #[serde(default)]
    pub seconds: u64,
}

/// A gate started in the simulation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimGate {
    /// When it exits (virtual time).
    pub ends_at: Duration,
    /// Exit code.
    pub exit: i32,
    /// Last line.
    pub output: String,
}

/// The described gates and those running.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gates {
    /// As described.
    pub spec: Vec<GateSpec>,
    /// Running, by handle.
    pub running: BTreeMap<u64, SimGate>,
    /// Every gate started: (batch, command, nodes).
    pub started: Vec<(usize, String, Vec<String>)>,
    pub(in crate::sim) next: u64,
}

impl Gates {
    /// The gates of a description.
    pub fn new(spec: Vec<GateSpec>) -> Self {
        Gates {
            spec,
            ..Default::default()
        }
    }
}
