//! Gate commands run on this machine: `sh -c CMD` in a process group of its own, told the
//! cluster, batch and nodes in its environment, its output read into a bounded tail; and the
//! look for `/var/run/reboot-required` on each node over SSH.

use crate::ports::{GateCall, GateRun, GateStatus, Hooks, PortError, PortResult};
use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The bytes of a gate's output kept (its end): the last line is taken from them.
const TAIL: usize = 4096;
/// The longest last line reported (in characters).
const LINE: usize = 300;

/// A running gate: the process and the readers of its output.
struct Running {
    child: Child,
    tail: Arc<Mutex<Vec<u8>>>,
    readers: Vec<JoinHandle<()>>,
}

/// [`Hooks`] over local processes and SSH to the nodes.
#[derive(Default)]
pub struct CommandHooks {
    next: u64,
    running: BTreeMap<u64, Running>,
    ssh: BTreeMap<String, Box<dyn cks_ssh::RemoteRunner>>,
}

impl CommandHooks {
    /// No gate running yet, no SSH route to any node.
    pub fn new() -> Self {
        Self::default()
    }

    /// The way to `node` over SSH (for `reboot_required`).
    pub fn with_ssh(mut self, node: &str, runner: Box<dyn cks_ssh::RemoteRunner>) -> Self {
        self.ssh.insert(node.to_string(), runner);
        self
    }
}

/// Append what `from` prints to `tail`, keeping its last [`TAIL`] bytes.
fn read_into(mut from: impl Read + Send + 'static, tail: Arc<Mutex<Vec<u8>>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 1024];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            if let Ok(mut t) = tail.lock() {
                t.extend_from_slice(&buf[..n]);
                let over = t.len().saturating_sub(TAIL);
                t.drain(..over);
            }
        }
    })
}

/// The last non-empty line of `tail`, control characters removed, at most `LINE` characters.
pub fn last_line(tail: &[u8]) -> String {
    let text = String::from_utf8_lossy(tail);
    let line = text
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("");
    line.chars()
        .filter(|c| !c.is_control())
        .take(LINE)
        .collect()
}

impl Hooks for CommandHooks {
    fn start_gate(&mut self, call: &GateCall<'_>) -> PortResult<GateRun> {
        // One pipe for stdout and stderr, so the last line is the one the gate wrote last.
        let (output, input) = std::io::pipe()
            .map_err(|e| PortError::other(format!("a pipe for gate {:?}: {e}", call.command)))?;
        let errors = input
            .try_clone()
            .map_err(|e| PortError::other(format!("a pipe for gate {:?}: {e}", call.command)))?;
        let child = Command::new("sh")
            .arg("-c")
            .arg(call.command)
            .env("CKS_CLUSTER_ID", call.cluster)
            .env("CKS_BATCH", call.batch.to_string())
            .env("CKS_NODES", call.nodes.join(","))
            .stdin(Stdio::null())
            .stdout(input)
            .stderr(errors)
            .process_group(0)
            .spawn()
            .map_err(|e| PortError::other(format!("starting gate {:?}: {e}", call.command)))?;
        let tail = Arc::new(Mutex::new(Vec::new()));
        let readers = vec![read_into(output, tail.clone())];
        self.next += 1;
        self.running.insert(
            self.next,
            Running {
                child,
                tail,
                readers,
            },
        );
        Ok(GateRun {
            id: self.next,
            command: call.command.to_string(),
        })
    }

    fn gate_status(&mut self, run: &GateRun) -> PortResult<GateStatus> {
        let Some(r) = self.running.get_mut(&run.id) else {
            return Err(PortError::not_found(format!(
                "gate {:?} is not running",
                run.command
            )));
        };
        match r.child.try_wait() {
            Ok(None) => Ok(GateStatus::Running),
            Ok(Some(status)) => {
                let Some(mut r) = self.running.remove(&run.id) else {
                    return Ok(GateStatus::Running);
                };
                // The readers end when every process holding the pipes is gone; one the gate
                // left behind in its group is stopped rather than waited for.
                kill_group(&r.child);
                for reader in r.readers.drain(..) {
                    let _ = reader.join();
                }
                let tail = r.tail.lock().map(|t| t.clone()).unwrap_or_default();
                Ok(GateStatus::Exited {
                    code: status.code(),
                    last_line: last_line(&tail),
                })
            }
            Err(e) => Err(PortError::other(format!(
                "waiting for gate {:?}: {e}",
                run.command
            ))),
        }
    }

    fn reboot_required(&mut self, node: &str) -> PortResult<bool> {
        let runner = self.ssh.get(node).ok_or_else(|| {
            PortError::other(format!(
                "no SSH route to {node}: pass --ssh-key with --known-hosts (or --host-key-fingerprint)"
            ))
        })?;
        let command = cks_ssh::RemoteCommand::new(
            ["test", "-e", "/var/run/reboot-required"]
                .map(str::to_string)
                .to_vec(),
        );
        let out = runner
            .run(&command)
            .map_err(|e| PortError::unavailable(format!("SSH to {node}: {e}")))?;
        match out.exit_code {
            0 => Ok(true),
            1 => Ok(false),
            code => Err(PortError::other(format!(
                "`test -e /var/run/reboot-required` on {node} exited {code}: {}",
                out.stderr_tail.join(" ")
            ))),
        }
    }

    fn stop_gate(&mut self, run: &GateRun) {
        if let Some(mut r) = self.running.remove(&run.id) {
            kill_group(&r.child);
            let _ = r.child.kill();
            let _ = r.child.wait();
            for reader in r.readers.drain(..) {
                let _ = reader.join();
            }
        }
    }
}

impl Drop for CommandHooks {
    fn drop(&mut self) {
        let ids: Vec<u64> = self.running.keys().copied().collect();
        for id in ids {
            self.stop_gate(&GateRun {
                id,
                command: String::new(),
            });
        }
    }
}

/// Kill the process group the gate leads (its children included).
fn kill_group(child: &Child) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}
