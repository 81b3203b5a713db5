//! Why a simulated fleet's description was refused, naming the entry that is wrong.

use crate::stages::StagesError;

/// A description the simulator cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// `workers: 0`.
    #[error("workers: expected 1 or more")]
    NoWorkers,
    /// A kill names a worker that is not there.
    #[error("kills: worker {worker} is not one of the {workers} workers")]
    UnknownWorker {
        /// The worker named.
        worker: usize,
        /// How many there are.
        workers: usize,
    },
    /// Every worker is killed: nobody could take the fleet over.
    #[error("kills: every worker is killed; leave one to take the fleet over")]
    EveryWorkerKilled,
    /// A version that does not parse.
    #[error("{what} {text:?}: {detail}")]
    BadVersion {
        /// Which entry.
        what: String,
        /// As written.
        text: String,
        /// What semver said.
        detail: String,
    },
    /// A cluster newer than the target.
    #[error("cluster {cluster} runs {version}, newer than the target {target}")]
    Newer {
        /// The cluster's name.
        cluster: String,
        /// Its version.
        version: String,
        /// The target.
        target: String,
    },
    /// The stages as written.
    #[error(transparent)]
    Stages(#[from] StagesError),
    /// Neither an upgrade nor settings.
    #[error("neither `to` nor `settings`: the fleet would do nothing")]
    NothingToDo,
}
