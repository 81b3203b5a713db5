//! Everything that can go wrong talking to the Kubernetes API.

use std::path::PathBuf;
use std::time::Duration;

/// Everything that can go wrong talking to the Kubernetes API.
#[derive(Debug, thiserror::Error)]
pub enum KubeError {
    /// The kubeconfig is unusable.
    #[error("kubeconfig {path}: {detail}")]
    Kubeconfig {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The HTTP client could not be built (a bad certificate or key).
    #[error("building the Kubernetes HTTP client: {0}; check the kubeconfig's certificates")]
    Client(reqwest::Error),
    /// No answer.
    #[error("{what} on {server}: {source}")]
    Http {
        /// The call.
        what: String,
        /// The API server.
        server: String,
        /// Why.
        source: reqwest::Error,
    },
    /// The answer could not be read whole: larger than the answer limit, or it stopped
    /// arriving within the request timeout.
    #[error("{what} on {server}: {reason}")]
    Answer {
        /// The call.
        what: String,
        /// The API server.
        server: String,
        /// Why.
        reason: cks_pinning::answer_read::AnswerReadError,
    },
    /// An error status.
    #[error("{what} on {server}: HTTP {status}: {message}")]
    Status {
        /// The call.
        what: String,
        /// The API server.
        server: String,
        /// HTTP status.
        status: u16,
        /// The Status message.
        message: String,
    },
    /// An answer that is not what the API sends.
    #[error("{what}: unexpected answer: {detail}")]
    BadResponse {
        /// The call.
        what: String,
        /// What was wrong.
        detail: String,
    },
    /// A drain a budget never allowed within the timeout.
    #[error("draining {node}: pod {pod} could not be evicted within {waited:?}{}: {message}", budget.as_ref().map(|b| format!(" (PodDisruptionBudget {b})")).unwrap_or_default())]
    DrainBlocked {
        /// The node.
        node: String,
        /// The pod (`namespace/name`).
        pod: String,
        /// The blocking budget (`namespace/name`), if known.
        budget: Option<String>,
        /// The API's message.
        message: String,
        /// Time spent.
        waited: Duration,
    },
}
