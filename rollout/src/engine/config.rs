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

impl std::str::FromStr for RestartScope {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "all" => RestartScope::All,
            "control" => RestartScope::Control,
            "worker" => RestartScope::Worker,
            "etcd" => RestartScope::Etcd,
            "reboot-required" => RestartScope::RebootRequired,
            _ => {
                return Err(format!(
                    "{s:?}: expected all, control, worker, etcd or reboot-required"
                ));
            }
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
            windows: Vec::new(),
            wait_for_window: false,
            restart: None,
        }
    }
}

impl EngineConfig {
    /// Refuses a lease timeout not longer than twice the engine's longest wait between two
    /// renewals of the lease (the poll interval: every wait — a job poll, a drain round, a
    /// readiness poll — is at most one, and a renewal follows each), so that one late renewal
    /// never lets another process take the cluster.
    pub fn check_lease(&self) -> Result<(), super::request::UpdateError> {
        if self.lease_timeout < 2 * self.poll_interval || self.lease_timeout.is_zero() {
            return Err(super::request::UpdateError::LeaseTooShort {
                lease_ms: self.lease_timeout.as_millis() as u64,
                poll_ms: self.poll_interval.as_millis() as u64,
            });
        }
        Ok(())
    }
}
