//! Why a cluster failed and why a stage's gate failed: the reasons a worker records, each with
//! the values its line names.

use thiserror::Error;

/// Why a cluster of the fleet failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClusterFailure {
    /// CloudStack no longer knows the cluster.
    #[error("CloudStack no longer knows the cluster: {detail}")]
    Gone {
        /// What CloudStack answered.
        detail: String,
    },
    /// The cluster is in a state other than Running.
    #[error("the cluster is {state}; it must be Running")]
    NotRunning {
        /// The cluster's CloudStack state.
        state: String,
    },
    /// The action could not be started.
    #[error("starting the {action}: {detail}")]
    NotStarted {
        /// The action's name (`upgrade`, `refresh`, `settings`).
        action: &'static str,
        /// What the port answered.
        detail: String,
    },
    /// The action ran and failed.
    #[error("{action}: {error}")]
    ActionFailed {
        /// The action's name.
        action: &'static str,
        /// Why it failed.
        error: String,
    },
}

/// Why a gate of a stage failed (the fleet halts with this line).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GateFailure {
    /// The gate's command could not be started.
    #[error("gate {command:?} did not start: {detail}")]
    NotStarted {
        /// The command line.
        command: String,
        /// What the port answered.
        detail: String,
    },
    /// The gate ran past the gate timeout and was stopped.
    #[error("gate {command:?} ran past its timeout of {seconds} s and was stopped")]
    TimedOut {
        /// The command line, as shown.
        command: String,
        /// The gate timeout in seconds.
        seconds: u64,
    },
    /// The gate exited with a code other than 0, or was killed.
    #[error("gate {command:?} {}: {last_line}", exit_text(*code))]
    Exited {
        /// The command line, as shown.
        command: String,
        /// Its exit code; `None` when a signal killed it.
        code: Option<i32>,
        /// The last line of its output.
        last_line: String,
    },
    /// The gate's status could not be read.
    #[error("gate {command:?}: {detail}")]
    Status {
        /// The command line, as shown.
        command: String,
        /// What the port answered.
        detail: String,
    },
}

fn exit_text(code: Option<i32>) -> String {
    code.map_or("was killed by a signal".to_string(), |c| {
        format!("exited {c}")
    })
}
