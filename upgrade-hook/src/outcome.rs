//! What the post-upgrade redeploy did: skipped, redeployed, or failed with a cause.

use std::fmt;

use serde::Serialize;

use crate::command::CommandError;
use cks_ssh::runner::RunError;

/// The result of [`crate::redeploy_after_upgrade`]. A failure is a warning for the caller, never
/// a reason to fail the upgrade.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Nothing to redeploy.
    Skipped {
        /// Why.
        reason: SkipReason,
    },
    /// The autoscaler was redeployed from the new ISO and its rollout finished.
    Redeployed {
        /// The redeploy command that ran.
        command: String,
        /// The last line `kubectl rollout status` printed.
        rollout_status: String,
        /// The images the autoscaler Deployment now runs.
        images: Vec<String>,
    },
    /// Something went wrong; the previous autoscaler keeps running.
    Failed {
        /// The step that failed.
        step: Step,
        /// Why.
        cause: FailureCause,
    },
}

impl Outcome {
    /// Whether this is [`Outcome::Failed`].
    pub fn is_failed(&self) -> bool {
        matches!(self, Outcome::Failed { .. })
    }
}

/// Why the redeploy was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// Autoscaling is not enabled on the cluster.
    AutoscalingDisabled,
    /// Autoscaling is enabled but the minimum size is not set.
    MinSizeUnset,
    /// Autoscaling is enabled but the maximum size is not set.
    MaxSizeUnset,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SkipReason::AutoscalingDisabled => "autoscaling is disabled on the cluster",
            SkipReason::MinSizeUnset => "autoscaling is enabled but its minimum size is unset",
            SkipReason::MaxSizeUnset => "autoscaling is enabled but its maximum size is unset",
        })
    }
}

/// The step of the redeploy that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Checking the cluster's autoscaling settings.
    Settings,
    /// Running `autoscale-kube-cluster -e`.
    Redeploy,
    /// Waiting for `kubectl rollout status`.
    RolloutStatus,
    /// Reading the Deployment's images.
    ReadImages,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Step::Settings => "checking the autoscaling settings",
            Step::Redeploy => "redeploying the autoscaler",
            Step::RolloutStatus => "waiting for the autoscaler rollout",
            Step::ReadImages => "reading the autoscaler's image",
        })
    }
}

/// Why a step failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FailureCause {
    /// The cluster's settings do not make a valid command.
    InvalidSettings {
        /// What is wrong.
        error: CommandError,
    },
    /// The command could not be run to its end (connection, authentication, host key, timeout).
    Transport {
        /// What went wrong.
        error: RunError,
    },
    /// The remote command exited non-zero.
    RemoteExit {
        /// Its exit code.
        code: i32,
        /// The last lines of its stderr.
        stderr_tail: Vec<String>,
    },
    /// The Deployment reported no image.
    NoImage {
        /// What kubectl printed.
        stdout: String,
    },
}

impl fmt::Display for FailureCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureCause::InvalidSettings { error } => write!(f, "{error}"),
            FailureCause::Transport { error } => write!(f, "{error}"),
            FailureCause::RemoteExit { code, stderr_tail } if stderr_tail.is_empty() => {
                write!(f, "the remote command exited with {code} (no stderr)")
            }
            FailureCause::RemoteExit { code, stderr_tail } => write!(
                f,
                "the remote command exited with {code}; last stderr lines: {}",
                stderr_tail.join(" | ")
            ),
            FailureCause::NoImage { stdout } => {
                write!(
                    f,
                    "the Deployment lists no image (kubectl printed {stdout:?})"
                )
            }
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Skipped { reason } => write!(f, "skipped: {reason}; nothing to redeploy"),
            Outcome::Redeployed {
                rollout_status,
                images,
                ..
            } => write!(
                f,
                "redeployed: the cluster autoscaler runs {} ({rollout_status})",
                images.join(", ")
            ),
            Outcome::Failed { step, cause } => write!(
                f,
                "failed: {step}: {cause}; the previous autoscaler keeps running and the upgrade \
                 is not affected"
            ),
        }
    }
}
