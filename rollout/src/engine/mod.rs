//! The rollout engine: the update call, the plan, the batch state machine, release and the
//! state scanner, all driven through [`crate::ports`].

pub mod autoscaler_risk;
mod batch;
mod change;
mod config;
mod drain;
mod error;
mod gate;
mod in_window;
mod job;
mod mark;
pub mod members;
mod note;
pub mod observe;
pub mod outdated;
pub mod plan;
pub mod preflight;
pub mod progress;
mod recheck;
mod release;
mod request;
pub mod restart;
mod run;
pub mod safety;
mod settle;
mod soak;
mod update;
pub mod validate;
mod verify;
mod view;
pub mod window;
mod words;

pub use config::{
    BOOT_WAIT, ControlError, DEFAULT_BATCH_TIMEOUT, EngineConfig, GATE_TIMEOUT, GATE_VARIABLES,
    RestartScope, UnknownRestartScope, is_variable_name,
};
pub use error::EngineError;
pub use error::{ChangeError, NotBack, UnsafeStop};
pub use job::{JOB_POLL, JOB_TIMEOUT};
pub use note::Note;
pub use plan::{Batch, NodePlan, Phase, Plan, Skip, WorkReason, came_back};
pub use preflight::Verdict;
pub use progress::{Event, NoProgress, Progress, StepKind};
pub use release::{ReleaseOutcome, ScanOutcome, release, release_held, release_with, scan};
pub use request::{UpdateError, UpdateRequest};
pub use run::{RunOutcome, Runner};
pub use update::{RolloutReport, UpdateOutcome, check_update, plan_update, update, view};
pub use view::{ClusterView, TypeView, cluster_view};
pub use words::duration_text;
