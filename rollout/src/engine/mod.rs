//! The rollout engine: the update call, the plan, the batch state machine, release and the
//! state scanner, all driven through [`crate::ports`].

mod batch;
mod config;
mod drain;
pub mod observe;
pub mod outdated;
pub mod plan;
pub mod preflight;
pub mod progress;
mod release;
mod request;
mod run;
pub mod safety;
mod update;
pub mod validate;
mod verify;
mod view;

pub use config::{DEFAULT_BATCH_TIMEOUT, EngineConfig};
pub use plan::{Batch, NodePlan, Phase, Plan, Skip, WorkReason};
pub use preflight::Verdict;
pub use progress::{Event, NoProgress, Progress, StepKind};
pub use release::{ReleaseOutcome, ScanOutcome, release, release_with, scan};
pub use request::{UpdateError, UpdateRequest};
pub use run::{RunOutcome, Runner};
pub use update::{RolloutReport, UpdateOutcome, plan_update, update, view};
pub use view::{ClusterView, TypeView, cluster_view};

use crate::ports::PortError;

/// A port call the engine could not do without.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The call and its error.
    #[error("{what}: {source}")]
    Port {
        /// The call.
        what: &'static str,
        /// Its error.
        source: PortError,
    },
}

impl EngineError {
    /// A failed call.
    pub fn port(what: &'static str, source: PortError) -> Self {
        EngineError::Port { what, source }
    }

    pub(crate) fn store(source: PortError) -> Self {
        Self::port("cluster store", source)
    }

    pub(crate) fn cloud(source: PortError) -> Self {
        Self::port("CloudStack", source)
    }
}
