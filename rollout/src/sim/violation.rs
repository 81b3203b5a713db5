//! A broken invariant, as the checker reports it.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A broken invariant: which, at which step, on which nodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// Invariant name.
    pub invariant: &'static str,
    /// Step (port call number).
    pub step: u64,
    /// Nodes involved.
    pub nodes: Vec<String>,
    /// What happened.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invariant {} broken at step {} on {}: {}",
            self.invariant,
            self.step,
            self.nodes.join(", "),
            self.detail
        )
    }
}
