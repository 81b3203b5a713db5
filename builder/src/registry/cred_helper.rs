//! Docker credential helpers, as `docker login` leaves them in `config.json` (`credsStore` for
//! every registry, `credHelpers` per registry): the program `docker-credential-<name>` on PATH is
//! run as `get`, given the registry's server URL on stdin, and answers
//! `{"ServerURL": …, "Username": …, "Secret": …}` on stdout.
//!
//! "Not found" is no credentials (anonymous access), whether the helper says so by exiting 1
//! with `credentials not found in native keychain` (current helpers) or by an empty username and
//! secret (older ones, such as Debian's 0.6.4). Anything else is an error: the config asked for
//! that helper. Nothing the helper printed on success is ever shown.

use std::io::{Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::credential_error::HelperFailure;
use super::credentials::Credentials;
use super::error::RegistryError;

/// How long a helper may take before it is stopped (some wait for a keyring to unlock).
pub const HELPER_TIMEOUT: Duration = Duration::from_secs(30);

/// The server URL helpers store a registry under: Docker Hub's historical index URL, otherwise
/// the host as `docker login <host>` stores it.
pub fn server_url(host: &str) -> &str {
    if host == "docker.io" {
        "https://index.docker.io/v1/"
    } else {
        host
    }
}

/// Asks `docker-credential-<helper>` for the credentials of `host` (a normalised registry host).
pub fn get(
    helper: &str,
    host: &str,
    timeout: Duration,
) -> Result<Option<Credentials>, RegistryError> {
    let program = format!("docker-credential-{helper}");
    let fail = |reason: HelperFailure| RegistryError::CredentialHelper {
        program: program.clone(),
        registry: host.to_string(),
        reason,
    };
    let mut child = Command::new(&program)
        .arg("get")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => fail(HelperFailure::NotInstalled),
            _ => fail(HelperFailure::NotStarted(e)),
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        // A helper that exits without reading its input is judged by its exit status below.
        let _ = stdin.write_all(server_url(host).as_bytes());
    }
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = wait(&mut child, timeout).map_err(fail)?;
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if !status.success() {
        let said = String::from_utf8_lossy(if stdout.is_empty() { &stderr } else { &stdout })
            .trim()
            .to_string();
        if said.contains("credentials not found") {
            return Ok(None);
        }
        let said = said.lines().next().unwrap_or("no message").to_string();
        return Err(fail(HelperFailure::Exited { status, said }));
    }
    parse_answer(&stdout).map_err(fail)
}

/// Reads a helper's `get` answer. The error never quotes the answer (it may hold the secret).
pub fn parse_answer(stdout: &[u8]) -> Result<Option<Credentials>, HelperFailure> {
    #[derive(serde::Deserialize)]
    struct Answer {
        #[serde(rename = "Username", default)]
        username: String,
        #[serde(rename = "Secret", default)]
        secret: String,
    }
    let answer: Answer = serde_json::from_slice(stdout).map_err(|e| HelperFailure::Answer {
        kind: json_error_kind(&e),
    })?;
    if answer.username.is_empty() && answer.secret.is_empty() {
        return Ok(None);
    }
    Ok(Some(Credentials {
        username: answer.username,
        password: answer.secret,
    }))
}

/// A short name for a JSON error's kind, without its position or any quoted input.
fn json_error_kind(error: &serde_json::Error) -> &'static str {
    match error.classify() {
        serde_json::error::Category::Io => "unreadable",
        serde_json::error::Category::Syntax => "not JSON",
        serde_json::error::Category::Data => "unexpected fields",
        serde_json::error::Category::Eof => "cut short",
    }
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            // At most 1 MiB: a helper's answer is a few hundred bytes.
            let _ = pipe.by_ref().take(1 << 20).read_to_end(&mut bytes);
        }
        bytes
    })
}

fn wait(child: &mut std::process::Child, timeout: Duration) -> Result<ExitStatus, HelperFailure> {
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(HelperFailure::NoAnswer { timeout });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(HelperFailure::Wait(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_an_answer_and_treats_empty_as_none() {
        let found = parse_answer(br#"{"ServerURL":"h:5000","Username":"alice","Secret":"s3cret"}"#)
            .expect("valid");
        assert_eq!(
            found,
            Some(Credentials {
                username: "alice".into(),
                password: "s3cret".into(),
            })
        );
        assert_eq!(
            parse_answer(br#"{"ServerURL":"other:1","Username":"","Secret":""}"#).ok(),
            Some(None)
        );
    }

    #[test]
    fn a_garbled_answer_is_refused_without_quoting_it() {
        let err = parse_answer(b"Secret=hunter2")
            .expect_err("not JSON")
            .to_string();
        assert!(!err.contains("hunter2"), "{err}");
        assert!(err.contains("not JSON"), "{err}");
    }

    #[test]
    fn docker_hub_is_asked_for_under_its_index_url() {
        assert_eq!(server_url("docker.io"), "https://index.docker.io/v1/");
        assert_eq!(server_url("127.0.0.1:5000"), "127.0.0.1:5000");
    }
}
