//! How long the simulated CloudStack's jobs take: a range per kind of job in the cluster
//! description, each job drawn from it, and the jobs still running.

use super::spec_error::SpecError;
use crate::ports::Job;
use rand::Rng;
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// A range of job durations, in seconds; each job takes a duration drawn from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobSpan {
    /// Shortest, seconds.
    pub min_s: u64,
    /// Longest, seconds.
    pub max_s: u64,
}

/// How long each kind of CloudStack job takes. A kind left out finishes as it is started (the
/// engine has nothing to wait for), as in a description without `jobs`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobDurations {
    /// `stopVirtualMachine`.
    #[serde(default)]
    pub stop: Option<JobSpan>,
    /// `startVirtualMachine`.
    #[serde(default)]
    pub start: Option<JobSpan>,
    /// `resizeVolume`.
    #[serde(default)]
    pub resize_volume: Option<JobSpan>,
    /// `updateVMAffinityGroup`.
    #[serde(default)]
    pub update_affinity_groups: Option<JobSpan>,
}

impl JobDurations {
    /// Refuses a range whose shortest is longer than its longest.
    pub fn check(&self) -> Result<(), SpecError> {
        let kinds = [
            ("stop", self.stop),
            ("start", self.start),
            ("resize_volume", self.resize_volume),
            ("update_affinity_groups", self.update_affinity_groups),
        ];
        for (kind, span) in kinds {
            if let Some(s) = span
                && s.min_s > s.max_s
            {
                return Err(SpecError(format!(
                    "jobs.{kind}: min_s {} is more than max_s {}; give min_s <= max_s",
                    s.min_s, s.max_s
                )));
            }
        }
        Ok(())
    }
}

/// The jobs of the simulated CloudStack.
#[derive(Debug, Clone, Default)]
pub struct Jobs {
    /// The durations asked for.
    pub durations: JobDurations,
    /// Running jobs: id and the time each finishes.
    pub running: BTreeMap<String, Duration>,
    started: u64,
}

impl Jobs {
    /// The jobs of a description.
    pub fn new(durations: JobDurations) -> Self {
        Jobs {
            durations,
            ..Default::default()
        }
    }

    /// A job of `command` started at `now`, running for a duration drawn from `span` (finished
    /// at once without one).
    pub fn start(
        &mut self,
        command: &str,
        span: Option<JobSpan>,
        rng: &mut StdRng,
        now: Duration,
    ) -> Job {
        let Some(span) = span else {
            return Job::finished(command);
        };
        self.started += 1;
        let id = format!("job-{}", self.started);
        let took = Duration::from_secs(rng.random_range(span.min_s..=span.max_s));
        self.running.insert(id.clone(), now + took);
        Job {
            id,
            command: command.to_string(),
            finished: false,
            timeout: None,
            poll: None,
        }
    }
}
