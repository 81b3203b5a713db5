//! Telling the OpenSSH client's own failures (status 255 and its messages) from the remote
//! command's exit code.

use std::time::Duration;

use crate::runner::{RemoteOutput, RunError};

/// The status the OpenSSH client exits with when it fails itself.
pub const SSH_FAILURE_STATUS: i32 = 255;

/// What the classifier needs to name the connection in its errors.
#[derive(Debug, Clone)]
pub struct Connection<'a> {
    /// `host:port`.
    pub target: &'a str,
    /// The login user.
    pub user: &'a str,
    /// The connect timeout in effect.
    pub connect_timeout: Duration,
}

/// Turns the client's exit status and output into the command's output or the reason it did not
/// run. Status 255 with one of the client's known messages is the client's failure; any other
/// status is the remote command's.
pub fn classify(
    connection: &Connection<'_>,
    status: i32,
    stdout: String,
    stderr_tail: Vec<String>,
) -> Result<RemoteOutput, RunError> {
    if status != SSH_FAILURE_STATUS {
        return Ok(RemoteOutput {
            exit_code: status,
            stdout,
            stderr_tail,
        });
    }
    let target = connection.target.to_string();
    let has = |needle: &str| stderr_tail.iter().any(|line| line.contains(needle));
    if has("Connection refused") {
        return Err(RunError::ConnectionRefused { target });
    }
    if has("Connection timed out")
        || has("Operation timed out")
        || has("timed out during banner exchange")
    {
        return Err(RunError::ConnectTimeout {
            target,
            after: connection.connect_timeout,
        });
    }
    if has("Host key verification failed")
        || has("host key is known")
        || has("HOST IDENTIFICATION HAS CHANGED")
        || has("has changed and you have requested strict checking")
    {
        return Err(RunError::HostKeyRejected {
            target,
            detail: host_key_detail(&stderr_tail),
        });
    }
    if has("Permission denied (") || has("Too many authentication failures") {
        return Err(RunError::Authentication {
            user: connection.user.to_string(),
            target,
        });
    }
    Err(RunError::Ssh {
        target,
        code: status,
        stderr_tail,
    })
}

/// The sentence that says why the host key was refused, with the fingerprint the server sent
/// when the client printed it.
fn host_key_detail(stderr_tail: &[String]) -> String {
    let find = |needle: &str| stderr_tail.iter().find(|line| line.contains(needle));
    let reason = find("has changed and you have requested strict checking")
        .or_else(|| find("host key is known"))
        .or_else(|| stderr_tail.last())
        .cloned()
        .unwrap_or_default();
    let sent = stderr_tail
        .iter()
        .map(|line| line.trim().trim_end_matches('.'))
        .find(|line| line.starts_with("SHA256:") && !line.contains(' '));
    match sent {
        Some(fingerprint) => format!("{reason} The server sent {fingerprint}."),
        None => reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connection() -> Connection<'static> {
        Connection {
            target: "127.0.0.1:2222",
            user: "cloud",
            connect_timeout: Duration::from_secs(10),
        }
    }

    fn run(status: i32, stderr: &[&str]) -> Result<RemoteOutput, RunError> {
        classify(
            &connection(),
            status,
            String::new(),
            stderr.iter().map(|s| s.to_string()).collect(),
        )
    }

    #[test]
    fn other_statuses_belong_to_the_remote_command() {
        let output = run(1, &["Permission denied (publickey)."]).expect("remote exit");
        assert_eq!(output.exit_code, 1);
    }

    #[test]
    fn recognises_the_clients_messages() {
        assert!(matches!(
            run(
                255,
                &["ssh: connect to host 127.0.0.1 port 2222: Connection refused"]
            ),
            Err(RunError::ConnectionRefused { .. })
        ));
        assert!(matches!(
            run(255, &["Connection timed out during banner exchange"]),
            Err(RunError::ConnectTimeout { .. })
        ));
        assert!(matches!(
            run(255, &["cloud@127.0.0.1: Permission denied (publickey)."]),
            Err(RunError::Authentication { .. })
        ));
        let Err(RunError::HostKeyRejected { detail, .. }) = run(
            255,
            &[
                "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.",
                "Host key verification failed.",
            ],
        ) else {
            panic!("host key rejection expected");
        };
        assert!(
            detail.starts_with("No ED25519 host key is known"),
            "{detail}"
        );
        let Err(RunError::HostKeyRejected { detail, .. }) = run(
            255,
            &[
                "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @",
                "The fingerprint for the ED25519 key sent by the remote host is",
                "SHA256:TNZ0WFvSG1Zlnuy8icSfWVSPXenu/dZcmBKXluGcfZk.",
                "Host key for [127.0.0.1]:2222 has changed and you have requested strict checking.",
                "Host key verification failed.",
            ],
        ) else {
            panic!("host key rejection expected");
        };
        assert_eq!(
            detail,
            "Host key for [127.0.0.1]:2222 has changed and you have requested strict checking. \
             The server sent SHA256:TNZ0WFvSG1Zlnuy8icSfWVSPXenu/dZcmBKXluGcfZk."
        );
        assert!(matches!(
            run(255, &["something else"]),
            Err(RunError::Ssh { code: 255, .. })
        ));
    }
}
