//! The real [`RemoteRunner`]: the OpenSSH client (`ssh`), with host-key verification, key-only
//! authentication, a connect timeout and a command timeout that kills the client.
//!
//! Why the OpenSSH client rather than a Rust SSH library: host-key checking is the part that
//! must not be wrong, and `ssh` does it with the same maintained code and known_hosts format
//! operators already use (hashed entries, `[host]:port`, markers such as `@revoked`); it adds no
//! second crypto stack to the build and needs no async runtime; and it is the same client an
//! operator would use by hand to debug the node, so its messages mean what they already know.
//! The cost is a process per command and reading the client's messages to classify failures,
//! which [`classify`] does from its exit status 255 and its fixed error texts.
//!
//! A pinned fingerprint is checked by scanning the server's host keys with `ssh-keyscan`,
//! keeping only the key whose SHA-256 fingerprint equals the pin, and handing `ssh` a
//! temporary known_hosts that holds exactly that key with strict checking on; the real
//! connection is then verified by `ssh` itself against that key, so a different server
//! answering the second connection is refused.

pub mod address;
pub mod classify;
pub mod exec;
pub mod host_key;

use std::io::Write;
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use tempfile::{NamedTempFile, TempDir};

use crate::command::RemoteCommand;
use crate::runner::{RemoteOutput, RemoteRunner, RunError};
pub use address::NodeAddress;
use classify::Connection;
use exec::Finished;
pub use host_key::{Fingerprint, HostKeyPolicy, PinMismatch};

/// CKS's SSH connect timeout.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// CKS's timeout for the redeploy command (5 minutes).
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(300);

/// Everything needed to reach the node. The key is a path; its contents are never read here.
#[derive(Debug, Clone)]
pub struct SshConfig {
    /// Where the node is.
    pub address: NodeAddress,
    /// The login user (CKS uses `cloud`).
    pub user: String,
    /// The private key file.
    pub key_file: PathBuf,
    /// How the host key is checked.
    pub host_key: HostKeyPolicy,
    /// How long the TCP connection and SSH handshake may take.
    pub connect_timeout: Duration,
    /// How long each command may run before the client is killed.
    pub command_timeout: Duration,
    /// The `ssh` program.
    pub ssh_program: PathBuf,
    /// The `ssh-keyscan` program (for pinned fingerprints).
    pub keyscan_program: PathBuf,
}

impl SshConfig {
    /// A config with CKS's timeouts and `ssh`/`ssh-keyscan` from `PATH`.
    pub fn new(address: NodeAddress, user: &str, key_file: &Path, host_key: HostKeyPolicy) -> Self {
        SshConfig {
            address,
            user: user.to_string(),
            key_file: key_file.to_path_buf(),
            host_key,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            command_timeout: DEFAULT_COMMAND_TIMEOUT,
            ssh_program: PathBuf::from("ssh"),
            keyscan_program: PathBuf::from("ssh-keyscan"),
        }
    }
}

/// Runs commands on the node with the OpenSSH client.
#[derive(Debug)]
pub struct SshRunner {
    config: SshConfig,
    /// For a pinned fingerprint: the known_hosts holding the pinned key, once scanned.
    pinned_known_hosts: Mutex<Option<NamedTempFile>>,
    /// For paths ssh would expand: a private directory of plainly named links to them.
    links: Mutex<Option<TempDir>>,
}

impl SshRunner {
    /// A runner for `config`.
    pub fn new(config: SshConfig) -> Self {
        SshRunner {
            config,
            pinned_known_hosts: Mutex::new(None),
            links: Mutex::new(None),
        }
    }

    fn target(&self) -> String {
        self.config.address.to_string()
    }

    fn connection<'a>(&'a self, target: &'a str) -> Connection<'a> {
        Connection {
            target,
            user: &self.config.user,
            connect_timeout: self.config.connect_timeout,
        }
    }

    /// The known_hosts options for `ssh`, scanning the pinned key first if needed.
    fn host_key_options(&self) -> Result<Vec<String>, RunError> {
        let strict = |file: &Path| {
            vec![
                "StrictHostKeyChecking=yes".to_string(),
                format!("UserKnownHostsFile={}", config_path(file)),
                "GlobalKnownHostsFile=/dev/null".to_string(),
            ]
        };
        match &self.config.host_key {
            HostKeyPolicy::KnownHosts { path } => {
                Ok(strict(&self.plain_path(path, "known_hosts")?))
            }
            HostKeyPolicy::Insecure => Ok(vec![
                "StrictHostKeyChecking=no".to_string(),
                "UserKnownHostsFile=/dev/null".to_string(),
                "GlobalKnownHostsFile=/dev/null".to_string(),
            ]),
            HostKeyPolicy::Pinned { fingerprint } => {
                let mut pinned = self
                    .pinned_known_hosts
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                if pinned.is_none() {
                    *pinned = Some(self.scan_pinned(fingerprint)?);
                }
                let file = pinned
                    .as_ref()
                    .map(|file| file.path().to_path_buf())
                    .unwrap_or_default();
                Ok(strict(&file))
            }
        }
    }

    /// Scans the server's host keys and writes a known_hosts with the one matching `pin`.
    fn scan_pinned(&self, pin: &Fingerprint) -> Result<NamedTempFile, RunError> {
        let target = self.target();
        let address = &self.config.address;
        let mut command = Command::new(&self.config.keyscan_program);
        command
            .arg("-T")
            .arg(self.config.connect_timeout.as_secs().max(1).to_string())
            .arg("-p")
            .arg(address.port().to_string())
            .arg("--")
            .arg(address.host());
        let finished = exec::run_with_timeout(
            command,
            self.config.connect_timeout * 2 + Duration::from_secs(1),
        )
        .map_err(|error| RunError::Spawn {
            program: self.config.keyscan_program.display().to_string(),
            message: error.to_string(),
        })?;
        let scanned = match finished {
            Finished::Exited { stdout, .. } => host_key::parse_keyscan(&stdout),
            Finished::TimedOut => Vec::new(),
        };
        if scanned.is_empty() {
            // ssh-keyscan says little about why; ask the port directly.
            return Err(self.probe_failure(&target));
        }
        let text = host_key::known_hosts_for_pin(&scanned, pin).map_err(|mismatch| {
            RunError::HostKeyRejected {
                target: target.clone(),
                detail: mismatch.to_string(),
            }
        })?;
        let local = |error: std::io::Error| RunError::Local {
            what: "the pinned known_hosts file".to_string(),
            message: error.to_string(),
        };
        let mut file = tempfile::Builder::new()
            .prefix("cks-known-hosts-")
            .tempfile()
            .map_err(local)?;
        file.write_all(text.as_bytes()).map_err(local)?;
        file.flush().map_err(local)?;
        tracing::debug!(%target, %pin, "pinned host key found");
        Ok(file)
    }

    /// Why no host key came back: refused, or no SSH answer within the connect timeout.
    fn probe_failure(&self, target: &str) -> RunError {
        let address = &self.config.address;
        let addrs = (address.host(), address.port()).to_socket_addrs();
        let refused = addrs.map(|mut addrs| {
            addrs.any(|addr| {
                matches!(
                    TcpStream::connect_timeout(&addr, self.config.connect_timeout),
                    Err(error) if error.kind() == std::io::ErrorKind::ConnectionRefused
                )
            })
        });
        match refused {
            Ok(true) => RunError::ConnectionRefused {
                target: target.to_string(),
            },
            Ok(false) => RunError::ConnectTimeout {
                target: target.to_string(),
                after: self.config.connect_timeout,
            },
            Err(error) => RunError::Ssh {
                target: target.to_string(),
                code: 255,
                stderr_tail: vec![format!("could not resolve {}: {error}", address.host())],
            },
        }
    }

    /// The `ssh` command line for `remote` (the key path included; never logged).
    fn ssh_command(&self, remote: &RemoteCommand) -> Result<Command, RunError> {
        let mut options = vec![
            "BatchMode=yes".to_string(),
            "LogLevel=ERROR".to_string(),
            format!(
                "ConnectTimeout={}",
                self.config.connect_timeout.as_secs().max(1)
            ),
            "IdentitiesOnly=yes".to_string(),
            "IdentityAgent=none".to_string(),
            "PubkeyAuthentication=yes".to_string(),
            "PasswordAuthentication=no".to_string(),
            "KbdInteractiveAuthentication=no".to_string(),
            "GSSAPIAuthentication=no".to_string(),
            "ControlMaster=no".to_string(),
            "ControlPath=none".to_string(),
            "ForwardAgent=no".to_string(),
            "ClearAllForwardings=yes".to_string(),
            "UpdateHostKeys=no".to_string(),
            "CheckHostIP=no".to_string(),
        ];
        options.extend(self.host_key_options()?);
        let mut command = Command::new(&self.config.ssh_program);
        command.args(["-F", "none", "-T"]);
        for option in options {
            command.arg("-o").arg(option);
        }
        command
            .arg("-i")
            .arg(self.plain_path(&self.config.key_file, "key")?)
            .arg("-p")
            .arg(self.config.address.port().to_string())
            .arg("-l")
            .arg(&self.config.user)
            .arg("--")
            .arg(self.config.address.host())
            .arg(remote.to_shell());
        Ok(command)
    }

    /// `path` as ssh should be given it. ssh checks a key path as given but then expands `%`
    /// tokens, `${VAR}` and a leading `~` in it (and in known_hosts paths), so a path holding
    /// those, or a `"`, is given through a plainly named link in a private directory instead.
    fn plain_path(&self, path: &Path, name: &str) -> Result<PathBuf, RunError> {
        let text = path.display().to_string();
        if !(text.contains(['%', '$', '"']) || text.starts_with('~')) {
            return Ok(path.to_path_buf());
        }
        let local = |error: std::io::Error| RunError::Local {
            what: format!("a link to the {name} file"),
            message: error.to_string(),
        };
        let mut links = self
            .links
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if links.is_none() {
            let dir = tempfile::Builder::new()
                .prefix("cks-ssh-")
                .tempdir()
                .map_err(local)?;
            *links = Some(dir);
        }
        let link = links
            .as_ref()
            .map(|dir| dir.path().join(name))
            .unwrap_or_default();
        if !link.exists() {
            let target = std::path::absolute(path).map_err(local)?;
            std::os::unix::fs::symlink(&target, &link).map_err(local)?;
        }
        Ok(link)
    }

    /// Removes the key file's path from the client's messages.
    fn redact(&self, lines: Vec<String>) -> Vec<String> {
        let key = self.config.key_file.display().to_string();
        if key.is_empty() {
            return lines;
        }
        lines
            .into_iter()
            .map(|line| line.replace(&key, "<key file>"))
            .collect()
    }
}

impl SshRunner {
    /// Runs `remote` with `input` on its standard input (a file sent to the node), counting the
    /// bytes sent in `input.sent`; otherwise as [`RemoteRunner::run`].
    pub fn run_with_input(
        &self,
        remote: &RemoteCommand,
        input: exec::Input,
    ) -> Result<RemoteOutput, RunError> {
        self.run_maybe_with_input(remote, Some(input))
    }

    fn run_maybe_with_input(
        &self,
        remote: &RemoteCommand,
        input: Option<exec::Input>,
    ) -> Result<RemoteOutput, RunError> {
        let target = self.target();
        let command = self.ssh_command(remote)?;
        tracing::debug!(%target, user = %self.config.user, command = %remote, "running over ssh");
        let finished =
            exec::run_with_input(command, input, self.config.command_timeout).map_err(|error| {
                RunError::Spawn {
                    program: self.config.ssh_program.display().to_string(),
                    message: error.to_string(),
                }
            })?;
        match finished {
            Finished::TimedOut => Err(RunError::CommandTimeout {
                target,
                after: self.config.command_timeout,
            }),
            Finished::Exited {
                status,
                stdout,
                stderr_tail,
            } => classify::classify(
                &self.connection(&target),
                status,
                stdout,
                self.redact(stderr_tail),
            ),
        }
    }
}

impl RemoteRunner for SshRunner {
    fn run(&self, remote: &RemoteCommand) -> Result<RemoteOutput, RunError> {
        self.run_maybe_with_input(remote, None)
    }
}

/// A path as an `ssh -o` value: double-quoted, for paths with spaces. Paths ssh would expand
/// never get here (see `plain_path`); the temporary files' names are plain.
fn config_path(path: &Path) -> String {
    format!("\"{}\"", path.display())
}
