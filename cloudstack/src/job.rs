//! CloudStack's async jobs: one reader of `queryAsyncJobResult`, and the wait for a job to end.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::{client::CloudStackClient, error::CloudStackError};

/// Where an async job stands, read once from `queryAsyncJobResult`.
#[derive(Debug)]
pub enum JobState {
    /// Still running.
    Pending,
    /// Done, with its `jobresult`.
    Done(Value),
    /// Failed, with CloudStack's error code and text.
    Failed(CloudStackError),
}

impl CloudStackClient {
    /// One look at job `job` (made by `command`).
    pub fn job_state(&self, command: &str, job: &str) -> Result<JobState, CloudStackError> {
        let status = self.call("queryAsyncJobResult", &[("jobid", job.to_string())])?;
        let result = || status.get("jobresult").cloned().unwrap_or(Value::Null);
        Ok(match status.get("jobstatus").and_then(Value::as_u64) {
            Some(0) | None => JobState::Pending,
            Some(1) => JobState::Done(result()),
            Some(_) => {
                let result = result();
                JobState::Failed(CloudStackError::Job {
                    command: command.to_string(),
                    job: job.to_string(),
                    code: result
                        .get("errorcode")
                        .and_then(Value::as_u64)
                        .unwrap_or(530),
                    text: result
                        .get("errortext")
                        .and_then(Value::as_str)
                        .unwrap_or("the job failed without an error text")
                        .to_string(),
                })
            }
        })
    }

    /// Polls job `job` (made by `command`) until it succeeds, fails or the job timeout passes.
    pub fn wait_for_job(&self, command: &str, job: &str) -> Result<Value, CloudStackError> {
        let start = Instant::now();
        loop {
            match self.job_state(command, job)? {
                JobState::Pending => {}
                JobState::Done(result) => return Ok(result),
                JobState::Failed(error) => return Err(error),
            }
            if start.elapsed() >= self.config().job_timeout {
                return Err(CloudStackError::JobTimeout {
                    command: command.to_string(),
                    job: job.to_string(),
                    waited: start.elapsed(),
                });
            }
            std::thread::sleep(
                self.config()
                    .poll_interval
                    .min(self.config().job_timeout.saturating_sub(start.elapsed()))
                    .max(Duration::from_millis(1)),
            );
        }
    }
}
