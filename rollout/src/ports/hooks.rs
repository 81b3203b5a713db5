//! The operator's hooks around a rollout: gate commands run before each batch, and the look
//! at each node for `/var/run/reboot-required`.

use super::error::PortResult;

/// One gate to start: the command and what it is told in its environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateCall<'c> {
    /// The command line, as given to `--gate` (run by `sh -c`).
    pub command: &'c str,
    /// The cluster id (`CKS_CLUSTER_ID`).
    pub cluster: &'c str,
    /// The batch number (`CKS_BATCH`).
    pub batch: usize,
    /// The batch's nodes (`CKS_NODES`, comma-separated), each a DNS-1123 subdomain
    /// ([`is_dns1123_subdomain`]; a port refuses a call with any other).
    pub nodes: &'c [String],
    /// Variables of the engine's environment passed on to the gate (`--gate-env`); a gate
    /// gets no other of them but `PATH`, `HOME` and `LANG`.
    pub pass_env: &'c [String],
}

/// True when `name` is a DNS-1123 subdomain, as Kubernetes requires of a node's name: at most
/// 253 characters, dot-separated labels of lowercase letters, digits and `-`, each beginning
/// and ending with a letter or digit.
pub fn is_dns1123_subdomain(name: &str) -> bool {
    let alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            let b = label.as_bytes();
            b.first().is_some_and(|c| alnum(*c))
                && b.last().is_some_and(|c| alnum(*c))
                && b.iter().all(|c| alnum(*c) || *c == b'-')
        })
}

/// A gate that was started: a handle the port knows it by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateRun {
    /// The port's handle.
    pub id: u64,
    /// The command line, as it may be shown ([`Hooks::shown`]).
    pub command: String,
}

/// Where a started gate is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateStatus {
    /// Still running.
    Running,
    /// It exited: `code` (None: killed by a signal) and the last line it printed.
    Exited {
        /// Exit code.
        code: Option<i32>,
        /// The last non-empty line of its output (stdout and stderr), bounded.
        last_line: String,
    },
}

/// Gate commands, started and polled so the engine renews its lease while one runs.
pub trait Hooks {
    /// Start `call`'s command.
    fn start_gate(&mut self, call: &GateCall<'_>) -> PortResult<GateRun>;

    /// Look at a started gate.
    fn gate_status(&mut self, run: &GateRun) -> PortResult<GateStatus>;

    /// Stop a gate that ran past its timeout (and everything it started).
    fn stop_gate(&mut self, run: &GateRun);

    /// True when `/var/run/reboot-required` exists on `node` (read over SSH).
    fn reboot_required(&mut self, node: &str) -> PortResult<bool>;

    /// `text` (a gate's command line or output) as it may be shown in events, the webhook and
    /// `lasterror`: every secret this port knows of replaced.
    fn shown(&self, text: &str) -> String {
        text.to_string()
    }
}
