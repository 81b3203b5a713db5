//! Gate commands run on this machine: `sh -c CMD` in a process group of its own, with a
//! cleared environment (`PATH`, `HOME`, `LANG`, the variables `--gate-env` names and the
//! `CKS_*` ones it is told the cluster, batch and nodes by), its output read into a bounded
//! tail; what it may show (command line, last line) with every known secret replaced; and the
//! look for `/var/run/reboot-required` on each node over SSH.

use crate::ports::{
    GateCall, GateRun, GateStatus, Hooks, PortError, PortErrorKind, PortResult,
    is_dns1123_subdomain,
};
use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The bytes of a gate's output kept (its end): the last line is taken from them.
const TAIL: usize = 4096;
/// The longest last line reported (in characters).
const LINE: usize = 300;
/// How long, after a gate exited, its output may still come (from a child it left running):
/// then its process group is killed.
pub const READ_GRACE: Duration = Duration::from_secs(2);
/// How long after that kill the readers are waited for: a child that left the gate's process
/// group can hold the pipe for ever, so its reader is then left behind and the gate counts as
/// done with the output read so far.
pub const KILL_GRACE: Duration = Duration::from_secs(1);
/// The variables of this process's environment every gate gets.
pub const GATE_BASE_ENV: [&str; 3] = ["PATH", "HOME", "LANG"];
/// What a secret is replaced by where a gate's command line or output is shown.
pub const REDACTED: &str = "[redacted]";
/// The variables of this process's environment whose values are secrets.
const SECRET_VARIABLES: [&str; 3] = ["CLOUDSTACK_SECRET", "CLOUDSTACK_KEY", "PGPASSWORD"];
/// The variable holding the store's URL (its password is a secret).
const STORE_VARIABLE: &str = "CKS_ROLLOUT_STORE";

/// A running gate: the process and the readers of its output.
struct Running {
    child: Child,
    tail: Arc<Mutex<Vec<u8>>>,
    readers: Vec<JoinHandle<()>>,
    /// When the process was seen exited, and its exit code.
    exited: Option<(Instant, Option<i32>)>,
    /// True once its process group was killed.
    killed: bool,
}

/// [`Hooks`] over local processes and SSH to the nodes.
#[derive(Default)]
pub struct CommandHooks {
    next: u64,
    running: BTreeMap<u64, Running>,
    ssh: BTreeMap<String, Box<dyn cks_ssh::RemoteRunner>>,
    secrets: Vec<String>,
    env: Vec<(String, String)>,
}

impl CommandHooks {
    /// No gate running yet, no SSH route to any node; the secrets of this environment
    /// (`CLOUDSTACK_SECRET`, `CLOUDSTACK_KEY`, `PGPASSWORD`, the password in
    /// `CKS_ROLLOUT_STORE`) known.
    pub fn new() -> Self {
        let mut secrets: Vec<String> = SECRET_VARIABLES
            .iter()
            .filter_map(|v| std::env::var(v).ok())
            .collect();
        secrets.extend(
            std::env::var(STORE_VARIABLE)
                .ok()
                .and_then(|url| url_password(&url)),
        );
        Self::default().with_secrets(secrets)
    }

    /// The way to `node` over SSH (for `reboot_required`).
    pub fn with_ssh(mut self, node: &str, runner: Box<dyn cks_ssh::RemoteRunner>) -> Self {
        self.ssh.insert(node.to_string(), runner);
        self
    }

    /// Every gate also gets these variables (a fleet's `CKS_FLEET`, `CKS_STAGE`, ...).
    pub fn with_env(mut self, env: Vec<(String, String)>) -> Self {
        self.env = env;
        self
    }

    /// Also replace these values wherever a gate's command line or output is shown (the keys
    /// of a CloudStack config file, the password of a `--store` URL).
    pub fn with_secrets(mut self, secrets: impl IntoIterator<Item = String>) -> Self {
        self.secrets
            .extend(secrets.into_iter().filter(|s| !s.is_empty()));
        // The longest first, so one secret inside another leaves nothing of either.
        self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        self.secrets.dedup();
        self
    }
}

/// The password of a URL `scheme://USER:PASSWORD@HOST...` or its `password=` parameter.
pub fn url_password(url: &str) -> Option<String> {
    let (head, query) = url.split_once('?').unwrap_or((url, ""));
    let in_userinfo = head
        .split_once("://")
        .and_then(|(_, rest)| rest.rsplit_once('@'))
        .and_then(|(userinfo, _)| userinfo.split_once(':'))
        .map(|(_, password)| password.to_string());
    in_userinfo
        .or_else(|| {
            query
                .split('&')
                .find_map(|kv| kv.strip_prefix("password="))
                .map(str::to_string)
        })
        .filter(|p| !p.is_empty())
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
    bounded(untrimmed_last_line(&String::from_utf8_lossy(tail)))
}

fn untrimmed_last_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("")
}

fn bounded(line: &str) -> String {
    line.chars()
        .filter(|c| !c.is_control())
        .take(LINE)
        .collect()
}

impl CommandHooks {
    /// `sh -c` the gate's command with its environment, its output read into a tail.
    fn spawn(&self, call: &GateCall<'_>, shown: &str) -> PortResult<Running> {
        // One pipe for stdout and stderr, so the last line is the one the gate wrote last.
        let pipe_failed =
            |e: std::io::Error| PortError::other(format!("a pipe for gate {shown:?}: {e}"));
        let (output, input) = std::io::pipe().map_err(pipe_failed)?;
        let errors = input.try_clone().map_err(pipe_failed)?;
        let mut command = Command::new("sh");
        command.arg("-c").arg(call.command).env_clear();
        for name in GATE_BASE_ENV
            .iter()
            .copied()
            .chain(call.pass_env.iter().map(String::as_str))
        {
            if let Some(value) = std::env::var_os(name) {
                command.env(name, value);
            }
        }
        let child = command
            .env("CKS_CLUSTER_ID", call.cluster)
            .env("CKS_BATCH", call.batch.to_string())
            .env("CKS_NODES", call.nodes.join(","))
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(input)
            .stderr(errors)
            .process_group(0)
            .spawn()
            .map_err(|e| PortError::other(format!("starting gate {shown:?}: {e}")))?;
        let tail = Arc::new(Mutex::new(Vec::new()));
        let reader = read_into(output, tail.clone());
        Ok(Running {
            child,
            tail,
            readers: vec![reader],
            exited: None,
            killed: false,
        })
    }
}

impl CommandHooks {
    /// The last line of `tail` as it may be shown: secrets replaced before it is cut to
    /// [`LINE`] characters (so no part of one is left); a line cut at the tail's start loses
    /// as many characters as the longest secret has, which may have been cut there.
    fn shown_line(&self, tail: &[u8]) -> String {
        let text = String::from_utf8_lossy(tail);
        let mut line = untrimmed_last_line(&text);
        let start = (line.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
        if tail.len() >= TAIL && !text.get(..start).is_some_and(|t| t.contains('\n')) {
            let longest = self.secrets.first().map_or(0, |s| s.chars().count());
            let skip = line
                .char_indices()
                .nth(longest)
                .map_or(line.len(), |(i, _)| i);
            line = &line[skip..];
        }
        bounded(&self.shown(line))
    }
}

impl Hooks for CommandHooks {
    fn start_gate(&mut self, call: &GateCall<'_>) -> PortResult<GateRun> {
        let shown = self.shown(call.command);
        if let Some(bad) = call.nodes.iter().find(|n| !is_dns1123_subdomain(n)) {
            return Err(PortError::new(
                PortErrorKind::Refused,
                format!(
                    "gate {shown:?} not started: node name {bad:?} is not a DNS-1123 subdomain"
                ),
            ));
        }
        let running = self.spawn(call, &shown)?;
        self.next += 1;
        self.running.insert(self.next, running);
        Ok(GateRun {
            id: self.next,
            command: shown,
        })
    }

    fn gate_status(&mut self, run: &GateRun) -> PortResult<GateStatus> {
        let Some(r) = self.running.get_mut(&run.id) else {
            return Err(PortError::not_found(format!(
                "gate {:?} is not running",
                run.command
            )));
        };
        let (since, code) = match r.exited {
            Some(exited) => exited,
            None => match r.child.try_wait() {
                Ok(None) => return Ok(GateStatus::Running),
                Ok(Some(status)) => *r.exited.insert((Instant::now(), status.code())),
                Err(e) => {
                    return Err(PortError::other(format!(
                        "waiting for gate {:?}: {e}",
                        run.command
                    )));
                }
            },
        };
        // The readers end when every process holding the pipe is gone. A child the gate left
        // behind gets [`READ_GRACE`], then its group is killed; one that left the group is
        // not waited for beyond [`KILL_GRACE`].
        let read = r.readers.iter().all(JoinHandle::is_finished);
        let waited = since.elapsed();
        if !read && !r.killed && waited >= READ_GRACE {
            kill_group(&r.child);
            r.killed = true;
        }
        if !read && waited < READ_GRACE + KILL_GRACE {
            return Ok(GateStatus::Running);
        }
        let Some(mut r) = self.running.remove(&run.id) else {
            return Ok(GateStatus::Running);
        };
        if !r.killed {
            kill_group(&r.child);
        }
        for reader in r.readers.drain(..).filter(JoinHandle::is_finished) {
            let _ = reader.join();
        }
        let tail = r.tail.lock().map(|t| t.clone()).unwrap_or_default();
        Ok(GateStatus::Exited {
            code,
            last_line: self.shown_line(&tail),
        })
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
            // A reader a child outside the group keeps open is left behind after the grace.
            let until = Instant::now() + KILL_GRACE;
            while !r.readers.iter().all(JoinHandle::is_finished) && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(10));
            }
            for reader in r.readers.drain(..).filter(JoinHandle::is_finished) {
                let _ = reader.join();
            }
        }
    }

    fn shown(&self, text: &str) -> String {
        self.secrets.iter().fold(text.to_string(), |t, secret| {
            t.replace(secret.as_str(), REDACTED)
        })
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
