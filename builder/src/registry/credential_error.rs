//! Why the credentials a registry asks for could not be had, never naming a secret: the Docker
//! `config.json` that holds them ([`DockerConfigError`]), or the credential helper it names
//! ([`HelperFailure`]). [`super::error::RegistryError`] carries either with the file or helper.

use std::process::ExitStatus;
use std::time::Duration;

/// What is wrong with a docker `config.json` (never naming a secret).
#[derive(Debug, thiserror::Error)]
pub enum DockerConfigError {
    /// The file cannot be read.
    #[error("{0}")]
    Read(std::io::Error),
    /// Not JSON of the config's shape (the error names a position, never a value).
    #[error("not valid JSON: {0}")]
    Json(serde_json::Error),
    /// A helper name that is not the `<name>` of a `docker-credential-<name>` program.
    #[error(
        "{key} names `{name}`, which is not a credential helper name (the `<name>` of docker-credential-<name>)"
    )]
    HelperName {
        /// Where the name is, e.g. `credsStore`.
        key: String,
        /// The name.
        name: String,
    },
    /// An `auth` that is not base64 of `user:password`.
    #[error("the `auth` of `{host}` is not base64 of user:password")]
    AuthNotBase64 {
        /// The registry host.
        host: String,
    },
    /// An `auth` without the `:` between user and password.
    #[error("the `auth` of `{host}` has no `:`")]
    AuthNoColon {
        /// The registry host.
        host: String,
    },
}

/// Why a credential helper gave no credentials (never quoting its answer).
#[derive(Debug, thiserror::Error)]
pub enum HelperFailure {
    /// The program is not on PATH.
    #[error("it is not installed (not found on PATH)")]
    NotInstalled,
    /// The program could not be started.
    #[error("it could not be started: {0}")]
    NotStarted(std::io::Error),
    /// It gave no answer in time and was stopped.
    #[error("it gave no answer in {} s", timeout.as_secs())]
    NoAnswer {
        /// The time it had.
        timeout: Duration,
    },
    /// Waiting for it failed.
    #[error("waiting for it failed: {0}")]
    Wait(std::io::Error),
    /// It exited with an error.
    #[error("it exited with {status}: {said}")]
    Exited {
        /// Its exit status.
        status: ExitStatus,
        /// The first line it printed (not an answer: it failed).
        said: String,
    },
    /// Its answer is not the JSON helpers print.
    #[error("its answer is not the JSON credential helpers print ({kind})")]
    Answer {
        /// What kind of JSON error, without any of the answer.
        kind: &'static str,
    },
    /// The task asking the helpers stopped before it ended.
    #[error("the task asking the helpers stopped: {0}")]
    Stopped(tokio::task::JoinError),
}
