//! Waiting on a CloudStack job: started through the port, polled with the clock between looks,
//! the lease confirmed before the start and renewed while the job runs, so no wait on
//! CloudStack outlasts the lease.

use super::error::EngineError;
use super::run::Runner;
use crate::ports::{JobCall, JobStatus, PortError, PortErrorKind};
use std::time::Duration;

/// How long a job may run when the port names no timeout of its own (CloudStack's default
/// job timeout).
pub const JOB_TIMEOUT: Duration = Duration::from_secs(1800);

/// The longest wait between two looks at a running job, when the port names no poll interval
/// of its own.
pub const JOB_POLL: Duration = Duration::from_secs(2);

impl Runner<'_, '_> {
    /// Start `call` once the store confirms the lease, and wait for its job. The outer error
    /// stops the rollout (the lease is lost); the inner one is the job's own failure.
    pub(super) fn job(&mut self, call: JobCall<'_>) -> Result<Result<(), PortError>, EngineError> {
        self.hold()?;
        let job = match self.ports.cloud.begin_job(call) {
            Ok(job) => job,
            Err(e) => return Ok(Err(e)),
        };
        if job.finished {
            return Ok(Ok(()));
        }
        let started = self.ports.clock.now();
        let limit = job.timeout.unwrap_or(JOB_TIMEOUT);
        // The port's own poll interval (CLOUDSTACK_POLL_INTERVAL), never longer than the
        // engine's, so a renewal is never more than one poll interval away.
        let poll = self
            .cfg
            .poll_interval
            .min(job.poll.unwrap_or(JOB_POLL))
            .max(Duration::from_millis(1));
        loop {
            self.ports.clock.sleep(poll);
            match self.ports.cloud.job_status(&job) {
                Ok(JobStatus::Done) => return Ok(Ok(())),
                Ok(JobStatus::Failed(e)) => return Ok(Err(e)),
                Ok(JobStatus::Pending) => {}
                // A look that did not get through is tried again; any other error ends it.
                Err(e) if e.kind == PortErrorKind::Unavailable => {}
                Err(e) => return Ok(Err(e)),
            }
            let waited = self.ports.clock.now().saturating_sub(started);
            if waited >= limit {
                return Ok(Err(PortError::unavailable(format!(
                    "{} (job {}) did not finish within {} s; check the job in CloudStack",
                    job.command,
                    job.id,
                    limit.as_secs()
                ))));
            }
            if self.ports.clock.now().saturating_sub(self.confirmed) >= self.cfg.poll_interval {
                self.renew()?;
            }
        }
    }
}
