//! What the engine did in a step, with the facts each invariant needs: the acts
//! [`super::record`] notes and [`super::invariants::check`] judges.

use crate::model::{NodeType, VmState};

/// Steps within which the engine must have looked before stopping a member or control node.
pub const RECHECK_WINDOW: u64 = 3;

/// One engine action, with the facts its invariant needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Act {
    /// Took a step of a phase on a running node (annotate, cordon, stop).
    Touch {
        /// Node.
        node: String,
        /// Its type.
        node_type: NodeType,
    },
    /// Stopped an etcd member.
    StopMember {
        /// Node.
        node: String,
        /// Other members healthy as the engine last saw them.
        healthy_others: usize,
        /// Quorum of all members.
        need: usize,
        /// Steps since the engine last looked.
        since_look: u64,
    },
    /// Stopped a node's VM.
    StopVm {
        /// Node.
        node: String,
        /// A maintenance window was open at the stop (or none was given).
        in_window: bool,
    },
    /// Stopped a control node.
    StopControl {
        /// Node.
        node: String,
        /// Another API server seen serving within [`RECHECK_WINDOW`] steps.
        other_api_seen: bool,
    },
    /// Changed a VM setting.
    Change {
        /// Node.
        node: String,
        /// The call.
        call: &'static str,
        /// The VM's state at the call.
        state: Option<VmState>,
    },
    /// Set the rollout annotation.
    Annotate {
        /// Node.
        node: String,
        /// The node was cordoned by someone else (no annotation of ours).
        foreign_cordon: bool,
    },
    /// Uncordoned a node.
    Uncordon {
        /// Node.
        node: String,
        /// It carried the rollout annotation.
        annotated: bool,
    },
    /// Marked a node it had stopped as done (uncordon or annotation removal).
    Done {
        /// Node.
        node: String,
        /// Boot ID now.
        boot: String,
        /// Boot ID at the engine's stop.
        before: String,
        /// Ready now.
        ready: bool,
    },
}
