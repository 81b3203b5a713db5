//! The post-upgrade redeploy of the cluster autoscaler: decide, run, confirm.

use std::time::Duration;

use serde::Serialize;

use crate::command::{self, AutoscaleBounds, ClusterId, NodeLayout, RemoteCommand};
use crate::outcome::{FailureCause, Outcome, SkipReason, Step};
use cks_ssh::runner::{RemoteOutput, RemoteRunner};

/// How long `kubectl rollout status` waits for the new autoscaler by default (as Mold's hook).
pub const DEFAULT_ROLLOUT_TIMEOUT: Duration = Duration::from_secs(120);

/// `--rollout-timeout` does not fit inside the command timeout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RolloutTimeoutError {
    /// An explicit rollout wait of zero, or not shorter than the command timeout.
    #[error(
        "--rollout-timeout {} must be at least 1 and less than --timeout {}, so that kubectl \
         gives up before the command is stopped",
        .rollout.as_secs(),
        .command.as_secs()
    )]
    DoesNotFit {
        /// The rollout wait asked for.
        rollout: Duration,
        /// The command timeout.
        command: Duration,
    },
    /// The command timeout leaves no whole second for the rollout wait.
    #[error(
        "--timeout {} leaves no time for `kubectl rollout status`; give --timeout 2 or more",
        .command.as_secs()
    )]
    CommandTooShort {
        /// The command timeout.
        command: Duration,
    },
}

/// How long `kubectl rollout status` waits, given the command timeout and an explicit
/// `--rollout-timeout` if any.
///
/// Unset, it is [`DEFAULT_ROLLOUT_TIMEOUT`], shortened to fit inside `command` with a tenth of it
/// (at least a second) to spare for the SSH round trip, so `--timeout 20` alone waits 18 s. An
/// explicit value is kept as given, and refused when it is zero or not shorter than `command`.
///
/// ```
/// use std::time::Duration;
/// use cks_upgrade_hook::hook::rollout_timeout_within;
/// let s = Duration::from_secs;
/// assert_eq!(rollout_timeout_within(s(300), None), Ok(s(120)));
/// assert_eq!(rollout_timeout_within(s(20), None), Ok(s(18)));
/// assert!(rollout_timeout_within(s(20), Some(s(30))).is_err());
/// ```
pub fn rollout_timeout_within(
    command: Duration,
    explicit: Option<Duration>,
) -> Result<Duration, RolloutTimeoutError> {
    let secs = command.as_secs();
    match explicit {
        Some(rollout) if rollout.as_secs() == 0 || rollout >= command => {
            Err(RolloutTimeoutError::DoesNotFit { rollout, command })
        }
        Some(rollout) => Ok(rollout),
        None => {
            let spare = (secs / 10).max(1);
            let fits = secs.saturating_sub(spare);
            if fits == 0 {
                return Err(RolloutTimeoutError::CommandTooShort { command });
            }
            Ok(DEFAULT_ROLLOUT_TIMEOUT.min(Duration::from_secs(fits)))
        }
    }
}

/// The cluster as CloudStack stores it once its upgrade has saved the new version: its id, its
/// autoscaling settings, and how its first control node is laid out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UpgradedCluster {
    /// The cluster's UUID (checked when the command is built).
    pub id: String,
    /// Whether autoscaling is enabled (`autoscaling_enabled`).
    pub autoscaling_enabled: bool,
    /// `minsize`, if set.
    pub min_size: Option<u32>,
    /// `maxsize`, if set.
    pub max_size: Option<u32>,
    /// Where the node keeps its scripts and whether to use `sudo`.
    pub layout: NodeLayout,
    /// How long `kubectl rollout status` may wait for the new autoscaler.
    pub rollout_timeout: Duration,
}

impl UpgradedCluster {
    /// A cluster with the CKS node layout and the default rollout timeout.
    pub fn new(
        id: &str,
        autoscaling_enabled: bool,
        min_size: Option<u32>,
        max_size: Option<u32>,
    ) -> Self {
        UpgradedCluster {
            id: id.to_string(),
            autoscaling_enabled,
            min_size,
            max_size,
            layout: NodeLayout::default(),
            rollout_timeout: DEFAULT_ROLLOUT_TIMEOUT,
        }
    }
}

/// What the hook will do for a cluster, decided from its settings alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Nothing to redeploy, for this reason.
    Skip(SkipReason),
    /// Run this redeploy command.
    Redeploy(RemoteCommand),
}

/// Decides what the hook will do for `cluster`, with no I/O.
///
/// # Errors
/// Autoscaling is enabled with both sizes set, but the settings do not make a valid command
/// (the id is not a UUID, or not 1 <= min <= max).
pub fn plan(cluster: &UpgradedCluster) -> Result<Plan, command::CommandError> {
    if !cluster.autoscaling_enabled {
        return Ok(Plan::Skip(SkipReason::AutoscalingDisabled));
    }
    let Some(min) = cluster.min_size else {
        return Ok(Plan::Skip(SkipReason::MinSizeUnset));
    };
    let Some(max) = cluster.max_size else {
        return Ok(Plan::Skip(SkipReason::MaxSizeUnset));
    };
    let id = ClusterId::parse(&cluster.id)?;
    let bounds = AutoscaleBounds::new(min, max)?;
    Ok(Plan::Redeploy(command::enable(
        &cluster.layout,
        &id,
        bounds,
    )))
}

/// Redeploys the cluster autoscaler from the new ISO's `autoscaler.yaml` after an upgrade.
///
/// Call it while the cluster is still `Upgrading`, after every node has been upgraded and the
/// new Kubernetes version has been saved. By then the upgrade script has refreshed
/// `/opt/autoscaler/autoscaler_tmpl.yaml` on the control node from the new ISO, so
/// `autoscale-kube-cluster -e` renders the autoscaler that matches the new version; and while the
/// cluster is `Upgrading` its autoscaling cannot be changed through the API, so the settings read
/// here are the ones the redeploy applies and no concurrent enable or disable races it. Running
/// only after every node is upgraded keeps the autoscaler from adding or removing nodes while the
/// upgrade is still draining them, and running after the new version is saved means the
/// autoscaler deployed is the one for the version the cluster now records.
///
/// It runs `[sudo] <dir>/autoscale-kube-cluster -i <uuid> -e -M <max> -m <min>` (the command CKS
/// runs when a user enables autoscaling), then confirms with `kubectl -n kube-system rollout
/// status deployment/cluster-autoscaler --timeout=<t>` and reads the image the Deployment now
/// runs.
///
/// It never returns an error: a failure is an [`Outcome::Failed`] warning with its cause, and the
/// caller's upgrade still succeeds. The previous autoscaler keeps running in that case, since the
/// Deployment's rolling update keeps the old pod until a new one is ready.
pub fn redeploy_after_upgrade(cluster: &UpgradedCluster, runner: &dyn RemoteRunner) -> Outcome {
    let redeploy = match plan(cluster) {
        Ok(Plan::Redeploy(command)) => command,
        Ok(Plan::Skip(reason)) => return Outcome::Skipped { reason },
        Err(error) => {
            return Outcome::Failed {
                step: Step::Settings,
                cause: FailureCause::InvalidSettings { error },
            };
        }
    };
    tracing::debug!(command = %redeploy, "redeploying the cluster autoscaler");
    if let Err(failure) = run_ok(runner, &redeploy, Step::Redeploy) {
        return failure;
    }
    let rollout = command::rollout_status(&cluster.layout, cluster.rollout_timeout);
    let rollout_output = match run_ok(runner, &rollout, Step::RolloutStatus) {
        Ok(output) => output,
        Err(failure) => return failure,
    };
    let images_output = match run_ok(
        runner,
        &command::autoscaler_images(&cluster.layout),
        Step::ReadImages,
    ) {
        Ok(output) => output,
        Err(failure) => return failure,
    };
    let images: Vec<String> = images_output
        .stdout
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if images.is_empty() {
        return Outcome::Failed {
            step: Step::ReadImages,
            cause: FailureCause::NoImage {
                stdout: images_output.stdout,
            },
        };
    }
    Outcome::Redeployed {
        command: redeploy.to_shell(),
        rollout_status: last_line(&rollout_output.stdout),
        images,
    }
}

/// Runs `command`, turning a transport error or a non-zero exit into a failed outcome.
fn run_ok(
    runner: &dyn RemoteRunner,
    command: &RemoteCommand,
    step: Step,
) -> Result<RemoteOutput, Outcome> {
    match runner.run(command) {
        Ok(output) if output.exit_code == 0 => Ok(output),
        Ok(output) => Err(Outcome::Failed {
            step,
            cause: FailureCause::RemoteExit {
                code: output.exit_code,
                stderr_tail: output.stderr_tail,
            },
        }),
        Err(error) => Err(Outcome::Failed {
            step,
            cause: FailureCause::Transport { error },
        }),
    }
}

fn last_line(text: &str) -> String {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rollout_wait_defaults_to_fit_inside_the_command_timeout() {
        let s = Duration::from_secs;
        assert_eq!(rollout_timeout_within(s(300), None), Ok(s(120)));
        assert_eq!(rollout_timeout_within(s(133), None), Ok(s(120)));
        assert_eq!(rollout_timeout_within(s(20), None), Ok(s(18)));
        assert_eq!(rollout_timeout_within(s(2), None), Ok(s(1)));
        let err = rollout_timeout_within(s(1), None).expect_err("no room");
        assert!(err.to_string().contains("--timeout 1"), "{err}");
    }

    #[test]
    fn an_explicit_rollout_wait_must_be_shorter_than_the_command_timeout() {
        let s = Duration::from_secs;
        assert_eq!(rollout_timeout_within(s(20), Some(s(19))), Ok(s(19)));
        assert_eq!(rollout_timeout_within(s(2), Some(s(1))), Ok(s(1)));
        for rollout in [0, 20, 120] {
            let err = rollout_timeout_within(s(20), Some(s(rollout))).expect_err("too long");
            assert!(
                err.to_string()
                    .contains(&format!("--rollout-timeout {rollout} must be")),
                "{err}"
            );
        }
    }
    use cks_ssh::runner::RunError;
    use std::cell::RefCell;

    const ID: &str = "2f9c1e3a-5b7d-4c1e-9a0b-1c2d3e4f5a6b";

    /// Answers each command with the next scripted reply and records what it was asked.
    struct Scripted {
        replies: RefCell<Vec<Result<RemoteOutput, RunError>>>,
        asked: RefCell<Vec<String>>,
    }

    impl Scripted {
        fn new(replies: Vec<Result<RemoteOutput, RunError>>) -> Self {
            Scripted {
                replies: RefCell::new(replies.into_iter().rev().collect()),
                asked: RefCell::new(Vec::new()),
            }
        }
    }

    impl RemoteRunner for Scripted {
        fn run(&self, command: &RemoteCommand) -> Result<RemoteOutput, RunError> {
            self.asked.borrow_mut().push(command.to_shell());
            self.replies
                .borrow_mut()
                .pop()
                .expect("a reply for every command")
        }
    }

    fn ok(stdout: &str) -> Result<RemoteOutput, RunError> {
        Ok(RemoteOutput {
            exit_code: 0,
            stdout: stdout.to_string(),
            stderr_tail: vec![],
        })
    }

    #[test]
    fn skips_without_running_anything() {
        for (cluster, reason) in [
            (
                UpgradedCluster::new(ID, false, Some(1), Some(3)),
                SkipReason::AutoscalingDisabled,
            ),
            (
                UpgradedCluster::new(ID, true, None, Some(3)),
                SkipReason::MinSizeUnset,
            ),
            (
                UpgradedCluster::new(ID, true, Some(1), None),
                SkipReason::MaxSizeUnset,
            ),
        ] {
            let runner = Scripted::new(vec![]);
            assert_eq!(
                redeploy_after_upgrade(&cluster, &runner),
                Outcome::Skipped { reason }
            );
            assert!(runner.asked.borrow().is_empty());
        }
    }

    #[test]
    fn invalid_settings_are_a_failed_outcome_not_an_error() {
        let runner = Scripted::new(vec![]);
        let outcome =
            redeploy_after_upgrade(&UpgradedCluster::new(ID, true, Some(4), Some(2)), &runner);
        assert!(matches!(
            outcome,
            Outcome::Failed {
                step: Step::Settings,
                cause: FailureCause::InvalidSettings { .. }
            }
        ));
        assert!(runner.asked.borrow().is_empty());
    }

    #[test]
    fn redeploys_then_confirms_the_rollout_and_reads_the_image() {
        let runner = Scripted::new(vec![
            ok(""),
            ok("Waiting...\ndeployment \"cluster-autoscaler\" successfully rolled out\n"),
            ok("registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.0"),
        ]);
        let outcome =
            redeploy_after_upgrade(&UpgradedCluster::new(ID, true, Some(1), Some(5)), &runner);
        assert_eq!(
            outcome,
            Outcome::Redeployed {
                command: format!("sudo /opt/bin/autoscale-kube-cluster -i {ID} -e -M 5 -m 1"),
                rollout_status: "deployment \"cluster-autoscaler\" successfully rolled out"
                    .to_string(),
                images: vec!["registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.0".to_string()],
            }
        );
        assert_eq!(runner.asked.borrow().len(), 3);
        assert!(
            runner.asked.borrow()[1]
                .ends_with("rollout status deployment/cluster-autoscaler --timeout=120s")
        );
    }

    #[test]
    fn a_failed_rollout_names_its_step() {
        let runner = Scripted::new(vec![
            ok(""),
            Ok(RemoteOutput {
                exit_code: 1,
                stdout: String::new(),
                stderr_tail: vec!["error: timed out waiting for the condition".to_string()],
            }),
        ]);
        let outcome =
            redeploy_after_upgrade(&UpgradedCluster::new(ID, true, Some(1), Some(5)), &runner);
        assert_eq!(
            outcome,
            Outcome::Failed {
                step: Step::RolloutStatus,
                cause: FailureCause::RemoteExit {
                    code: 1,
                    stderr_tail: vec!["error: timed out waiting for the condition".to_string()],
                },
            }
        );
    }

    #[test]
    fn an_empty_image_list_is_a_failure() {
        let runner = Scripted::new(vec![ok(""), ok("rolled out"), ok("  \n")]);
        let outcome =
            redeploy_after_upgrade(&UpgradedCluster::new(ID, true, Some(1), Some(5)), &runner);
        assert!(matches!(
            outcome,
            Outcome::Failed {
                step: Step::ReadImages,
                cause: FailureCause::NoImage { .. }
            }
        ));
    }
}
