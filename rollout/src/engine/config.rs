//! Timeouts and identity of one engine instance, and which nodes `run --restart` names.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The default per-batch timeout (`cloud.kubernetes.cluster.update.node.timeout`).
pub const DEFAULT_BATCH_TIMEOUT: Duration = Duration::from_secs(1800);

/// The default `--gate-timeout`.
pub const GATE_TIMEOUT: Duration = Duration::from_secs(300);

/// Longest wait for a node found annotated and Ready with its annotated boot ID (perhaps started
/// again by an earlier run before its kubelet posted) to report a new boot, before the rollout
/// takes it for a node that never went down and restarts it.
pub const BOOT_WAIT: Duration = Duration::from_secs(600);

/// The nodes `run --restart` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RestartScope {
    /// Every node.
    All,
    /// The control nodes.
    Control,
    /// The workers.
    Worker,
    /// The external etcd nodes.
    Etcd,
    /// The nodes where `/var/run/reboot-required` exists (OS updates waiting for a reboot).
    RebootRequired,
}

/// A `--restart` value that is not a scope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?}: expected all, control, worker, etcd or reboot-required")]
pub struct UnknownRestartScope(pub String);

impl std::str::FromStr for RestartScope {
    type Err = UnknownRestartScope;

    fn from_str(s: &str) -> Result<Self, UnknownRestartScope> {
        Ok(match s {
            "all" => RestartScope::All,
            "control" => RestartScope::Control,
            "worker" => RestartScope::Worker,
            "etcd" => RestartScope::Etcd,
            "reboot-required" => RestartScope::RebootRequired,
            _ => return Err(UnknownRestartScope(s.to_string())),
        })
    }
}

/// Engine settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineConfig {
    /// Lease owner id of this engine instance.
    pub owner: String,
    /// Time allowed for one batch, from preflight to verified (default 1800 s).
    pub batch_timeout: Duration,
    /// Time allowed for draining one node (default 600 s, bounded by the batch timeout).
    pub drain_timeout: Duration,
    /// Wait between polls (node readiness, drain rounds).
    pub poll_interval: Duration,
    /// A lease not renewed for this long means its owner is gone (default 300 s).
    pub lease_timeout: Duration,
    /// After a batch is verified and uncordoned, how long its nodes must stay Ready before the
    /// next batch's preflight (`--soak`; zero: no soak).
    #[serde(default)]
    pub soak: Duration,
    /// Commands run before each batch (`--gate`, in order); each must exit 0 for the batch to go.
    #[serde(default)]
    pub gates: Vec<String>,
    /// Time allowed for one gate command (`--gate-timeout`, default 300 s).
    #[serde(default = "default_gate_timeout")]
    pub gate_timeout: Duration,
    /// Variables of this process's environment passed on to the gates (`--gate-env`), beyond
    /// `PATH`, `HOME`, `LANG` and the `CKS_*` variables the engine sets.
    #[serde(default)]
    pub gate_env: Vec<String>,
    /// Maintenance windows (`--window`): a batch starts only while one is open (none: always).
    #[serde(default)]
    pub windows: Vec<super::window::Window>,
    /// Outside every window, wait for the next one instead of stopping (`--wait-for-window`).
    #[serde(default)]
    pub wait_for_window: bool,
    /// Also restart these nodes although their settings do not differ (`run --restart`).
    #[serde(default)]
    pub restart: Option<RestartScope>,
}

fn default_gate_timeout() -> Duration {
    GATE_TIMEOUT
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            owner: "cks-rollout".to_string(),
            batch_timeout: DEFAULT_BATCH_TIMEOUT,
            drain_timeout: Duration::from_secs(600),
            poll_interval: Duration::from_secs(10),
            lease_timeout: Duration::from_secs(300),
            soak: Duration::ZERO,
            gates: Vec::new(),
            gate_timeout: GATE_TIMEOUT,
            gate_env: Vec::new(),
            windows: Vec::new(),
            wait_for_window: false,
            restart: None,
        }
    }
}

/// The variables the engine itself sets for a gate (a `--gate-env` of one is refused).
pub const GATE_VARIABLES: [&str; 3] = ["CKS_CLUSTER_ID", "CKS_BATCH", "CKS_NODES"];

/// A rollout control value refused before anything is asked of CloudStack.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    /// The lease timeout is too short for the engine's longest wait between two renewals.
    #[error(
        "the lease timeout ({lease_ms} ms) must be at least twice the poll interval ({poll_ms} ms), the longest wait between two renewals of the lease: with a shorter one, another process's scan takes the cluster while this one waits; set --lease-timeout to at least {} s or a shorter --poll-interval",
        (2 * poll_ms).div_ceil(1000).max(1)
    )]
    LeaseTooShort {
        /// The lease timeout asked.
        lease_ms: u64,
        /// The poll interval.
        poll_ms: u64,
    },
    /// A time that must be longer than zero is zero.
    #[error("{option} is 0: expected a time longer than 0 ({what})")]
    Zero {
        /// The option (`--poll-interval`, ...).
        option: &'static str,
        /// What the time is for.
        what: &'static str,
    },
    /// `--wait-for-window` with no window to wait for.
    #[error("--wait-for-window needs at least one --window to wait for; add one or drop it")]
    WaitWithoutWindow,
    /// A `--gate-env` that is not the name of an environment variable, or one the engine sets.
    #[error(
        "--gate-env {name:?}: {why}; expected the name of a variable of this environment (letters, digits and _, not starting with a digit), e.g. --gate-env KUBECONFIG"
    )]
    GateEnv {
        /// The name as given.
        name: String,
        /// What is wrong.
        why: &'static str,
    },
    /// A `--gate` with no command.
    #[error("--gate \"\": a gate needs a command to run (sh -c CMD)")]
    EmptyGate,
}

/// True for the name of an environment variable: ASCII letters, digits and `_`, not starting
/// with a digit.
pub fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl EngineConfig {
    /// Refuses a lease timeout not longer than twice the engine's longest wait between two
    /// renewals of the lease (the poll interval: every wait — a job poll, a drain round, a
    /// readiness poll — is at most one, and a renewal follows each), so that one late renewal
    /// never lets another process take the cluster.
    pub fn check_lease(&self) -> Result<(), ControlError> {
        if self.lease_timeout < 2 * self.poll_interval || self.lease_timeout.is_zero() {
            return Err(ControlError::LeaseTooShort {
                lease_ms: self.lease_timeout.as_millis() as u64,
                poll_ms: self.poll_interval.as_millis() as u64,
            });
        }
        Ok(())
    }

    /// Every control value of a rollout checked on its own, before anything is asked of
    /// CloudStack: times longer than zero, the lease against the poll interval, a window to
    /// wait for, gates with a command and `--gate-env` names of variables.
    pub fn check(&self) -> Result<(), ControlError> {
        let zero = |d: Duration, option, what| {
            if d.is_zero() {
                Err(ControlError::Zero { option, what })
            } else {
                Ok(())
            }
        };
        zero(
            self.poll_interval,
            "--poll-interval",
            "the wait between two looks",
        )?;
        zero(
            self.batch_timeout,
            "--batch-timeout",
            "the time one batch may take",
        )?;
        zero(
            self.drain_timeout,
            "--drain-timeout",
            "the time one drain may take",
        )?;
        if !self.gates.is_empty() {
            zero(
                self.gate_timeout,
                "--gate-timeout",
                "the time one gate may run",
            )?;
        }
        self.check_lease()?;
        if self.wait_for_window && self.windows.is_empty() {
            return Err(ControlError::WaitWithoutWindow);
        }
        if self.gates.iter().any(|g| g.trim().is_empty()) {
            return Err(ControlError::EmptyGate);
        }
        for name in &self.gate_env {
            let why = if !is_variable_name(name) {
                "not the name of an environment variable"
            } else if GATE_VARIABLES.contains(&name.as_str()) {
                "the engine sets this one itself for every gate"
            } else {
                continue;
            };
            return Err(ControlError::GateEnv {
                name: name.clone(),
                why,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_restart_scope_is_read_from_its_name_and_anything_else_is_named_in_the_refusal() {
        for (text, scope) in [
            ("all", RestartScope::All),
            ("control", RestartScope::Control),
            ("worker", RestartScope::Worker),
            ("etcd", RestartScope::Etcd),
            ("reboot-required", RestartScope::RebootRequired),
        ] {
            assert_eq!(text.parse::<RestartScope>(), Ok(scope), "{text}");
        }
        let e = "workers".parse::<RestartScope>().expect_err("not a scope");
        assert_eq!(
            e.to_string(),
            "\"workers\": expected all, control, worker, etcd or reboot-required"
        );
    }

    #[test]
    fn a_config_written_without_a_gate_timeout_reads_the_default_one() {
        let mut written = serde_json::to_value(EngineConfig::default()).expect("serialises");
        written
            .as_object_mut()
            .expect("an object")
            .remove("gate_timeout");
        let read: EngineConfig = serde_json::from_value(written).expect("reads back");
        assert_eq!(read.gate_timeout, GATE_TIMEOUT);
        assert_eq!(GATE_TIMEOUT, Duration::from_secs(300));
    }

    #[test]
    fn a_gate_env_name_may_start_with_an_underscore_but_not_a_digit() {
        for name in ["_PROXY", "HTTP_PROXY", "a1"] {
            assert!(is_variable_name(name), "{name}");
        }
        for name in ["1A", "", "A-B", "A B"] {
            assert!(!is_variable_name(name), "{name:?}");
        }
    }

    #[test]
    fn a_lease_of_exactly_two_poll_intervals_is_enough_and_one_less_is_refused() {
        let at = |lease_ms| EngineConfig {
            lease_timeout: Duration::from_millis(lease_ms),
            poll_interval: Duration::from_secs(10),
            ..EngineConfig::default()
        };
        assert_eq!(at(20_000).check_lease(), Ok(()));
        assert!(matches!(
            at(19_999).check_lease(),
            Err(ControlError::LeaseTooShort {
                lease_ms: 19_999,
                poll_ms: 10_000
            })
        ));
    }
}
