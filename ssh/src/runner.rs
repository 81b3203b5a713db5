//! The way to the node: a trait that runs one command remotely and reports how it ended.

use std::time::Duration;

use serde::Serialize;

use crate::command::RemoteCommand;

/// What a remote command printed and how it exited. Output is kept bounded: the last
/// [`KEEP_STDOUT_BYTES`] of stdout and the last [`KEEP_STDERR_LINES`] lines of stderr.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RemoteOutput {
    /// The remote command's exit code.
    pub exit_code: i32,
    /// Its standard output (the tail, when long).
    pub stdout: String,
    /// The last lines of its standard error.
    pub stderr_tail: Vec<String>,
}

/// How much of a command's stdout is kept.
pub const KEEP_STDOUT_BYTES: usize = 64 * 1024;
/// How many of the last stderr lines are kept.
pub const KEEP_STDERR_LINES: usize = 20;

/// Why a command could not be run to its end on the node. None of these carries a key or a
/// password.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum RunError {
    /// Nothing listens on the SSH port.
    #[error("connection refused by {target}: is sshd running and the port ({target}) right?")]
    ConnectionRefused {
        /// `host:port`.
        target: String,
    },
    /// The TCP connection or the SSH handshake did not finish within the connect timeout.
    #[error("no SSH connection to {target} within {} s (connect timeout)", .after.as_secs())]
    ConnectTimeout {
        /// `host:port`.
        target: String,
        /// The connect timeout (`after_secs` in JSON).
        #[serde(rename = "after_secs", serialize_with = "as_secs")]
        after: Duration,
    },
    /// The server did not accept the key for the user.
    #[error("authentication failed for user {user} on {target}: the server did not accept the key")]
    Authentication {
        /// The login user.
        user: String,
        /// `host:port`.
        target: String,
    },
    /// The server's host key is not the trusted one.
    #[error("host key of {target} refused: {detail}")]
    HostKeyRejected {
        /// `host:port`.
        target: String,
        /// What did not match.
        detail: String,
    },
    /// The command did not finish within the command timeout; the client was killed. The remote
    /// command itself may still be running on the node (without a terminal, closing the session
    /// does not signal it).
    #[error("the command did not finish within {} s on {target}; it was stopped", .after.as_secs())]
    CommandTimeout {
        /// `host:port`.
        target: String,
        /// The command timeout (`after_secs` in JSON).
        #[serde(rename = "after_secs", serialize_with = "as_secs")]
        after: Duration,
    },
    /// Another SSH failure (the client's own messages are in `stderr_tail`).
    #[error("ssh to {target} failed with status {code}: {}", .stderr_tail.join(" | "))]
    Ssh {
        /// `host:port`.
        target: String,
        /// The client's exit status.
        code: i32,
        /// The last lines the client printed.
        stderr_tail: Vec<String>,
    },
    /// The SSH client could not be started.
    #[error("could not run {program}: {message}; install the Debian package openssh-client")]
    Spawn {
        /// The program.
        program: String,
        /// The operating system's message.
        message: String,
    },
    /// A local file the client needs could not be written.
    #[error("could not write {what}: {message}")]
    Local {
        /// What was being written.
        what: String,
        /// The operating system's message.
        message: String,
    },
}

fn as_secs<S: serde::Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(duration.as_secs())
}

/// Runs commands on a cluster node.
///
/// The real implementation is [`crate::openssh::SshRunner`]; tests of a caller's decisions can
/// use any other.
pub trait RemoteRunner {
    /// Runs `command` and returns its output whatever its exit code; an error means the
    /// command could not be run to its end.
    fn run(&self, command: &RemoteCommand) -> Result<RemoteOutput, RunError>;
}
