//! [`ClusterOps`] over the one-cluster tools: an upgrade is `cks-upgrade-hook upgrade`, a
//! refresh `cks-upgrade-hook redeploy`, node settings `cks-rollout run`, each a child process
//! with the operator's arguments, its output kept in a bounded tail; what CloudStack says of a
//! cluster is read with the shared client. A child dies with its worker (`setpriv
//! --pdeathsig`), so a killed worker leaves no tool acting on a cluster another may take over;
//! a CloudStack job it started runs on, and the next holder waits for it.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use cks_cloudstack::CloudStackClient;
use cks_rollout::ports::{PortError, PortErrorKind, PortResult};

use crate::ports::{Action, ActionStatus, ClusterFacts, ClusterOps};
use crate::select::semantic;

/// The bytes of a child's output read for its last line.
const TAIL: u64 = 8192;
/// The program that makes a child die with its parent, where the system has it.
const SETPRIV: &str = "/usr/bin/setpriv";

/// How the one-cluster tools are run.
#[derive(Debug, Clone, Default)]
pub struct Tools {
    /// `cks-upgrade-hook`.
    pub upgrade_hook: PathBuf,
    /// `cks-rollout`.
    pub rollout: PathBuf,
    /// Arguments every `cks-upgrade-hook upgrade` and `redeploy` gets (SSH login, ISO, ...).
    pub upgrade_args: Vec<String>,
    /// Arguments `upgrade` gets but `redeploy` does not (`--iso`, `--no-preload`).
    pub upgrade_only_args: Vec<String>,
    /// Arguments every `cks-rollout run` and `scan` gets (store, SSH login).
    pub rollout_args: Vec<String>,
    /// Arguments `cks-rollout run` gets but `scan` does not (events, webhook, the operator's).
    pub run_only_args: Vec<String>,
}

/// The flags of the operator's `--rollout-arg`s that `cks-rollout scan` takes too (how the
/// cluster is reached and its lease), so the scan sees the cluster as `run` will.
const SHARED_FLAGS: [&str; 14] = [
    "--lease-timeout",
    "--kubeconfig",
    "--context",
    "--control-endpoint",
    "--etcd-endpoint",
    "--etcd-cacert",
    "--etcd-cert",
    "--etcd-key",
    "--ssh-endpoint",
    "--etcd-pki-dir",
    "--etcdctl",
    "--max-answer-size",
    "--poll-interval",
    "--host-key-fingerprint",
];

/// Of `args`, those [`SHARED_FLAGS`] name, with their values (`--flag=value` or `--flag value`).
fn shared(args: &[String]) -> Vec<String> {
    let mut kept = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let name = arg.split('=').next().unwrap_or(arg);
        if SHARED_FLAGS.contains(&name) {
            kept.push(arg.clone());
            if !arg.contains('=')
                && let Some(value) = args.get(i + 1)
            {
                kept.push(value.clone());
                i += 1;
            }
        }
        i += 1;
    }
    kept
}

/// A tool found beside this executable, else on `PATH`.
pub fn beside_me(name: &str) -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|me| me.parent().map(|d| d.join(name)))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

struct Running {
    child: Child,
    output: std::fs::File,
    action: &'static str,
    /// What runs once this child exited, whatever its status (the `run` after a `scan`).
    then: Option<Command>,
}

/// The one-cluster tools as child processes, and CloudStack.
pub struct CommandOps {
    client: CloudStackClient,
    tools: Tools,
    next: u64,
    running: BTreeMap<u64, Running>,
}

impl CommandOps {
    /// Runs `tools`, asking CloudStack through `client`.
    pub fn new(client: CloudStackClient, tools: Tools) -> Self {
        CommandOps {
            client,
            tools,
            next: 0,
            running: BTreeMap::new(),
        }
    }

    fn command(&self, program: &Path) -> Command {
        if Path::new(SETPRIV).is_file() {
            let mut c = Command::new(SETPRIV);
            c.arg("--pdeathsig").arg("KILL").arg("--").arg(program);
            c
        } else {
            Command::new(program)
        }
    }
}

fn cloudstack(e: cks_cloudstack::CloudStackError) -> PortError {
    PortError::unavailable(format!("CloudStack: {e}"))
}

impl CommandOps {
    /// `cks-rollout scan`: a rollout left `Updating` by a worker that died (its lease lapsed)
    /// goes to Alert, from where `run` resumes it. It runs as the settings action's first
    /// child; its outcome is not judged: `run` says what stops it.
    fn scan(&self, cluster: &str) -> Command {
        let mut c = self.command(&self.tools.rollout);
        c.args(["scan", "--cluster-id", cluster])
            .args(&self.tools.rollout_args)
            .args(shared(&self.tools.run_only_args));
        c
    }
}

impl ClusterOps for CommandOps {
    fn observe(&mut self, cluster: &str) -> PortResult<ClusterFacts> {
        let found = self
            .client
            .find_kubernetes_cluster(cluster)
            .map_err(cloudstack)?;
        let Some(found) = found else {
            return Err(PortError::not_found(format!(
                "CloudStack lists no cluster {cluster}"
            )));
        };
        let versions = self
            .client
            .list_kubernetes_versions(None)
            .map_err(cloudstack)?;
        let version = crate::select::version_of(&found, &versions).and_then(semantic);
        Ok(ClusterFacts {
            state: found.state,
            version,
        })
    }

    fn start(&mut self, cluster: &str, action: &Action) -> PortResult<u64> {
        let tools = &self.tools;
        let (first, then) = match action {
            Action::Upgrade(to) => {
                let mut c = self.command(&tools.upgrade_hook);
                c.args(["upgrade", "--cluster-id", cluster, "--to", &to.id]);
                c.args(&tools.upgrade_args).args(&tools.upgrade_only_args);
                (c, None)
            }
            Action::Refresh => {
                let mut c = self.command(&tools.upgrade_hook);
                c.args(["redeploy", "--cluster-id", cluster])
                    .args(&tools.upgrade_args);
                (c, None)
            }
            Action::Settings(s) => {
                let mut c = self.command(&tools.rollout);
                c.args(["run", "--cluster-id", cluster]);
                for (flag, values) in [
                    ("--offering", &s.offerings),
                    ("--root-disk-size", &s.root_disk_sizes),
                    ("--affinity-groups", &s.affinity_groups),
                ] {
                    for v in values {
                        c.arg(flag).arg(v);
                    }
                }
                c.args(&tools.rollout_args).args(&tools.run_only_args);
                (self.scan(cluster), Some(c))
            }
        };
        let output = tempfile::tempfile().map_err(|e| {
            PortError::other(format!("a file for the {}'s output: {e}", action.name()))
        })?;
        let child = spawn(first, &output, action.name())?;
        self.next += 1;
        self.running.insert(
            self.next,
            Running {
                child,
                output,
                action: action.name(),
                then,
            },
        );
        Ok(self.next)
    }

    fn poll(&mut self, run: u64) -> PortResult<ActionStatus> {
        let Some(r) = self.running.get_mut(&run) else {
            return Err(PortError::not_found(format!("no action {run}")));
        };
        let status = match r.child.try_wait() {
            Ok(None) => return Ok(ActionStatus::Running),
            Ok(Some(_)) if r.then.is_some() => {
                // The scan ended: the run starts, its output after the scan's.
                if let Some(next) = r.then.take() {
                    r.child = spawn(next, &r.output, r.action)?;
                }
                return Ok(ActionStatus::Running);
            }
            Ok(Some(status)) => status,
            Err(e) => {
                return Err(PortError::other(format!(
                    "waiting for the {}: {e}",
                    r.action
                )));
            }
        };
        let tail = tail_of(&mut r.output);
        let line = cks_rollout::adapters::gate_command::last_line(&tail);
        let action = r.action;
        self.running.remove(&run);
        Ok(match status.code() {
            Some(0) => ActionStatus::Done(if line.is_empty() { "done".into() } else { line }),
            Some(code) => ActionStatus::Failed(format!("exited {code}: {line}")),
            None => ActionStatus::Failed(format!("the {action} was killed by a signal: {line}")),
        })
    }

    fn stop(&mut self, run: u64) {
        if let Some(mut r) = self.running.remove(&run) {
            let _ = r.child.kill();
            let _ = r.child.wait();
        }
    }
}

impl Drop for CommandOps {
    fn drop(&mut self) {
        let runs: Vec<u64> = self.running.keys().copied().collect();
        for run in runs {
            self.stop(run);
        }
    }
}

/// Starts `command` with no input and its output into `output`.
fn spawn(mut command: Command, output: &std::fs::File, action: &str) -> PortResult<Child> {
    let copy = |f: &std::fs::File| {
        f.try_clone()
            .map_err(|e| PortError::other(format!("the {action}'s output: {e}")))
    };
    command
        .stdin(Stdio::null())
        .stdout(copy(output)?)
        .stderr(copy(output)?)
        .spawn()
        .map_err(|e| PortError::new(PortErrorKind::Other, format!("starting the {action}: {e}")))
}

/// The last [`TAIL`] bytes of `file`.
fn tail_of(file: &mut std::fs::File) -> Vec<u8> {
    let len = file.seek(SeekFrom::End(0)).unwrap_or(0);
    let _ = file.seek(SeekFrom::Start(len.saturating_sub(TAIL)));
    let mut tail = Vec::new();
    let _ = file.take(TAIL).read_to_end(&mut tail);
    tail
}

#[cfg(test)]
mod tests {
    use super::shared;

    #[test]
    fn the_scan_takes_the_operators_flags_it_knows_with_their_values() {
        let args: Vec<String> = [
            "--lease-timeout",
            "60",
            "--soak=10m",
            "--etcd-endpoint=c1=https://a:2379",
            "--gate",
            "true",
            "--control-endpoint",
            "c1=https://a:6443",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            shared(&args),
            [
                "--lease-timeout",
                "60",
                "--etcd-endpoint=c1=https://a:2379",
                "--control-endpoint",
                "c1=https://a:6443"
            ]
        );
    }
}
