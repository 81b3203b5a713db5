//! The post-upgrade refresh of the CloudStack cloud controller manager (CCM) from the new ISO's
//! `provider.yaml`.
//!
//! The node-side `deploy-provider` exits as soon as a CCM pod runs, so an upgrade never
//! refreshes the CCM; but the upgrade script copies the new ISO's `provider.yaml` to
//! `/opt/provider/provider.yaml` on every node (when the ISO carries one). This applies that
//! file with `kubectl apply` on the first control node, which updates the Deployment in place
//! and leaves the `cloudstack-secret` Secret it mounts untouched (the manifest does not hold
//! it), then confirms the rollout. An old ISO without `provider.yaml` leaves no file: the
//! running CCM is then left alone, with a warning.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::command::{self, NodeLayout, RemoteCommand};
use crate::outcome::FailureCause;
use cks_ssh::runner::{RemoteOutput, RemoteRunner};

/// Where the upgrade script leaves the new ISO's `provider.yaml` on each node.
pub const DEFAULT_PROVIDER_MANIFEST: &str = "/opt/provider/provider.yaml";

/// The Secret the CCM reads its CloudStack credentials from.
pub const PROVIDER_SECRET: &str = "cloudstack-secret";

/// The CCM's Deployment in `kube-system`.
pub const PROVIDER_DEPLOYMENT: &str = "cloud-controller-manager";

/// How the CCM is refreshed on the node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProviderRefresh {
    /// Where the node keeps kubectl and whether to use sudo.
    pub layout: NodeLayout,
    /// The manifest on the node.
    pub manifest: String,
    /// How long `kubectl rollout status` waits.
    pub rollout_timeout: Duration,
}

impl ProviderRefresh {
    /// The CKS layout and manifest path, waiting `rollout_timeout` for the rollout.
    pub fn new(layout: NodeLayout, rollout_timeout: Duration) -> Self {
        ProviderRefresh {
            layout,
            manifest: DEFAULT_PROVIDER_MANIFEST.to_string(),
            rollout_timeout,
        }
    }
}

/// What the CCM refresh did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ProviderOutcome {
    /// The manifest is not on the node: the running CCM was left alone.
    ManifestMissing {
        /// The path looked at.
        manifest: String,
    },
    /// The manifest was applied and the CCM rolled out.
    Refreshed {
        /// The manifest applied.
        manifest: String,
        /// The last line `kubectl rollout status` printed.
        rollout_status: String,
        /// The images the CCM Deployment now runs.
        images: Vec<String>,
    },
    /// A step failed; the previous CCM keeps running unless the apply went through.
    Failed {
        /// The step that failed.
        step: ProviderStep,
        /// Why.
        cause: FailureCause,
    },
}

impl ProviderOutcome {
    /// Whether this is [`ProviderOutcome::Failed`].
    pub fn is_failed(&self) -> bool {
        matches!(self, ProviderOutcome::Failed { .. })
    }

    /// Whether this deserves a warning: failed, or the manifest was missing.
    pub fn is_warning(&self) -> bool {
        !matches!(self, ProviderOutcome::Refreshed { .. })
    }
}

/// The step of the CCM refresh that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderStep {
    /// Looking for the manifest on the node.
    FindManifest,
    /// Writing the ISO's manifest to the node.
    SendManifest,
    /// Checking the `cloudstack-secret` Secret is there.
    Secret,
    /// `kubectl apply -f` the manifest.
    Apply,
    /// `kubectl rollout status`.
    RolloutStatus,
    /// Reading the Deployment's images.
    ReadImages,
}

impl fmt::Display for ProviderStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProviderStep::FindManifest => "looking for the provider manifest on the node",
            ProviderStep::SendManifest => "writing the ISO's provider manifest to the node",
            ProviderStep::Secret => {
                "checking the cloudstack-secret Secret the cloud controller manager reads (create it with deploy-cloudstack-secret)"
            }
            ProviderStep::Apply => "applying the provider manifest",
            ProviderStep::RolloutStatus => "waiting for the cloud controller manager rollout",
            ProviderStep::ReadImages => "reading the cloud controller manager's image",
        })
    }
}

impl fmt::Display for ProviderOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProviderOutcome::ManifestMissing { manifest } => write!(
                f,
                "skipped: {manifest} is not on the node (the upgrade puts it there only when the new ISO carries one); \
                 the running cloud controller manager is left as it is"
            ),
            ProviderOutcome::Refreshed {
                rollout_status,
                images,
                ..
            } => write!(
                f,
                "refreshed: the cloud controller manager runs {} ({rollout_status})",
                images.join(", ")
            ),
            ProviderOutcome::Failed { step, cause } => {
                write!(f, "failed: {step}: {cause}; the upgrade is not affected")
            }
        }
    }
}

/// The most a `provider.yaml` read from an ISO may hold.
pub const MAX_PROVIDER_MANIFEST: u64 = 1 << 20;

/// The command writing its standard input to `path` on the node (its folder created).
pub fn write_manifest_command(layout: &NodeLayout, path: &str) -> RemoteCommand {
    let mut words = Vec::new();
    if layout.sudo() {
        words.push("sudo".to_string());
    }
    words.extend(
        [
            "sh",
            "-c",
            "mkdir -p \"$(dirname \"$1\")\" && cat > \"$1\"",
            "sh",
            path,
        ]
        .map(String::from),
    );
    RemoteCommand::new(words)
}

/// Applies the new ISO's `provider.yaml` on the node and confirms the CCM rollout. Never an
/// error: a failure is a [`ProviderOutcome::Failed`] warning.
pub fn refresh_provider(refresh: &ProviderRefresh, runner: &dyn RemoteRunner) -> ProviderOutcome {
    let layout = &refresh.layout;
    let failed = |step| move |cause| ProviderOutcome::Failed { step, cause };
    match run(runner, &command::file_exists(layout, &refresh.manifest)) {
        Ok(_) => {}
        Err(FailureCause::RemoteExit { code: 1, .. }) => {
            return ProviderOutcome::ManifestMissing {
                manifest: refresh.manifest.clone(),
            };
        }
        Err(cause) => return failed(ProviderStep::FindManifest)(cause),
    }
    let secret = command::kubectl(
        layout,
        &[
            "-n",
            "kube-system",
            "get",
            "secret",
            PROVIDER_SECRET,
            "-o",
            "name",
        ],
    );
    if let Err(cause) = run(runner, &secret) {
        return failed(ProviderStep::Secret)(cause);
    }
    let apply = command::kubectl(layout, &["apply", "-f", &refresh.manifest]);
    if let Err(cause) = run(runner, &apply) {
        return failed(ProviderStep::Apply)(cause);
    }
    let timeout = format!("--timeout={}s", refresh.rollout_timeout.as_secs().max(1));
    let deployment = format!("deployment/{PROVIDER_DEPLOYMENT}");
    let rollout = command::kubectl(
        layout,
        &[
            "-n",
            "kube-system",
            "rollout",
            "status",
            &deployment,
            &timeout,
        ],
    );
    let rollout_output = match run(runner, &rollout) {
        Ok(output) => output,
        Err(cause) => return failed(ProviderStep::RolloutStatus)(cause),
    };
    let images = command::kubectl(
        layout,
        &[
            "-n",
            "kube-system",
            "get",
            "deployment",
            PROVIDER_DEPLOYMENT,
            "-o",
            command::IMAGE_JSONPATH,
        ],
    );
    let images_output = match run(runner, &images) {
        Ok(output) => output,
        Err(cause) => return failed(ProviderStep::ReadImages)(cause),
    };
    let images: Vec<String> = images_output
        .stdout
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if images.is_empty() {
        return failed(ProviderStep::ReadImages)(FailureCause::NoImage {
            stdout: images_output.stdout,
        });
    }
    ProviderOutcome::Refreshed {
        manifest: refresh.manifest.clone(),
        rollout_status: rollout_output
            .stdout
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string(),
        images,
    }
}

fn run(runner: &dyn RemoteRunner, command: &RemoteCommand) -> Result<RemoteOutput, FailureCause> {
    match runner.run(command) {
        Ok(output) if output.exit_code == 0 => Ok(output),
        Ok(output) => Err(FailureCause::RemoteExit {
            code: output.exit_code,
            stderr_tail: output.stderr_tail,
        }),
        Err(error) => Err(FailureCause::Transport { error }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cks_ssh::runner::RunError;
    use std::cell::RefCell;

    /// Answers each command with the next scripted exit code and records what it was asked.
    struct Scripted {
        codes: RefCell<Vec<i32>>,
        asked: RefCell<Vec<String>>,
    }

    impl RemoteRunner for Scripted {
        fn run(&self, command: &RemoteCommand) -> Result<RemoteOutput, RunError> {
            self.asked.borrow_mut().push(command.to_shell());
            let code = self.codes.borrow_mut().remove(0);
            Ok(RemoteOutput {
                exit_code: code,
                stdout: "apache/cloudstack-kubernetes-provider:v1.2.0".to_string(),
                stderr_tail: vec![],
            })
        }
    }

    fn refresh() -> ProviderRefresh {
        ProviderRefresh::new(NodeLayout::default(), Duration::from_secs(120))
    }

    #[test]
    fn a_missing_manifest_leaves_the_ccm_alone() {
        let runner = Scripted {
            codes: RefCell::new(vec![1]),
            asked: RefCell::new(vec![]),
        };
        let outcome = refresh_provider(&refresh(), &runner);
        assert_eq!(
            outcome,
            ProviderOutcome::ManifestMissing {
                manifest: DEFAULT_PROVIDER_MANIFEST.to_string()
            }
        );
        assert!(outcome.is_warning() && !outcome.is_failed());
        assert_eq!(
            *runner.asked.borrow(),
            ["sudo test -f /opt/provider/provider.yaml"]
        );
    }

    #[test]
    fn without_its_secret_the_manifest_is_not_applied() {
        let runner = Scripted {
            codes: RefCell::new(vec![0, 1]),
            asked: RefCell::new(vec![]),
        };
        let outcome = refresh_provider(&refresh(), &runner);
        assert!(matches!(
            outcome,
            ProviderOutcome::Failed {
                step: ProviderStep::Secret,
                ..
            }
        ));
        assert!(outcome.to_string().contains("deploy-cloudstack-secret"));
        assert!(!runner.asked.borrow().iter().any(|c| c.contains("apply")));
    }

    #[test]
    fn applies_then_confirms_the_rollout_and_reads_the_image() {
        let runner = Scripted {
            codes: RefCell::new(vec![0, 0, 0, 0, 0]),
            asked: RefCell::new(vec![]),
        };
        let outcome = refresh_provider(&refresh(), &runner);
        assert!(
            matches!(outcome, ProviderOutcome::Refreshed { .. }),
            "{outcome}"
        );
        assert_eq!(
            runner.asked.borrow()[2],
            "sudo /opt/bin/kubectl apply -f /opt/provider/provider.yaml"
        );
    }
}
