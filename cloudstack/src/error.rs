//! The one error type of the CloudStack client: credentials, transport, API and job failures.

use std::path::PathBuf;
use std::time::Duration;

/// Everything that can go wrong talking to CloudStack.
#[derive(Debug, thiserror::Error)]
pub enum CloudStackError {
    /// No endpoint or keys were found.
    #[error(
        "no CloudStack credentials: set CLOUDSTACK_ENDPOINT, CLOUDSTACK_KEY and CLOUDSTACK_SECRET, or CLOUDSTACK_CONFIG to an INI file with endpoint, key and secret"
    )]
    NoCredentials,
    /// A setting from the environment is not a number of seconds.
    #[error("{name}={value:?} is not a number of seconds; set it to e.g. 2 or 0.5")]
    BadSetting {
        /// The variable.
        name: String,
        /// Its value.
        value: String,
    },
    /// The config file could not be read.
    #[error("reading the CloudStack config file {path}: {source}")]
    ConfigRead {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The config file lacks a key.
    #[error("the CloudStack config file {path} has no `{missing}` in section [{section}]; add it")]
    ConfigIncomplete {
        /// The file.
        path: PathBuf,
        /// The section read.
        section: String,
        /// The missing key (`endpoint`, `key` or `secret`).
        missing: &'static str,
    },
    /// The HTTP client could not be built.
    #[error("building the HTTP client: {0}")]
    Client(reqwest::Error),
    /// The request did not get an answer.
    #[error("CloudStack {command}: {source}")]
    Http {
        /// The API command.
        command: String,
        /// Why (without the URL, which could carry keys).
        source: reqwest::Error,
    },
    /// The answer could not be read whole: larger than the answer limit, or it stopped
    /// arriving within the request timeout.
    #[error("CloudStack {command}: {reason}")]
    Answer {
        /// The API command.
        command: String,
        /// Why.
        reason: cks_pinning::answer_read::AnswerReadError,
    },
    /// The server refused the command.
    #[error("CloudStack {command} failed (HTTP {status}, error {code}): {text}")]
    Api {
        /// The API command.
        command: String,
        /// The HTTP status.
        status: u16,
        /// CloudStack's `errorcode`.
        code: u64,
        /// CloudStack's `errortext`.
        text: String,
    },
    /// An async job failed.
    #[error("CloudStack {command} (job {job}) failed with error {code}: {text}")]
    Job {
        /// The API command.
        command: String,
        /// The job id.
        job: String,
        /// The job's `errorcode`.
        code: u64,
        /// The job's `errortext`.
        text: String,
    },
    /// An async job did not finish in time.
    #[error(
        "CloudStack {command} (job {job}) did not finish within {waited:?}; raise the job timeout or check the job in CloudStack"
    )]
    JobTimeout {
        /// The API command.
        command: String,
        /// The job id.
        job: String,
        /// How long the client waited.
        waited: Duration,
    },
    /// The server answered with a redirect, which is never followed: the signed request would
    /// go to the host it names, which could replay it while the signature is valid.
    #[error(
        "CloudStack {command}: the endpoint answered HTTP {status}, a redirect to {location}, which is not followed (it would re-send the signed request there); set CLOUDSTACK_ENDPOINT to the API's final URL"
    )]
    Redirect {
        /// The API command.
        command: String,
        /// The HTTP status.
        status: u16,
        /// Where it pointed (its `Location`, cut to 200 characters).
        location: String,
    },
    /// The answer was not what CloudStack sends.
    #[error("CloudStack {command}: unexpected answer: {detail}")]
    BadResponse {
        /// The API command.
        command: String,
        /// What was wrong.
        detail: String,
    },
}
