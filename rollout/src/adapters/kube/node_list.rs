//! The Kubernetes node list the matching rules of [`cks_discovery::nodes`] read, fetched with the
//! kubeconfig's credentials.

use std::time::Duration;

use serde_json::Value;

use cks_discovery::nodes::{KubeNode, parse_nodes};
use cks_pinning::answer_read::read_answer;

use crate::adapters::kube::KubeAccess;
use crate::adapters::tls::http_client;
use cks_discovery::DiscoveryError;

/// The cluster's nodes, read with the kubeconfig's credentials, at most `max_answer` bytes.
pub fn list_nodes(
    access: &KubeAccess,
    timeout: Duration,
    max_answer: u64,
) -> Result<Vec<KubeNode>, DiscoveryError> {
    let bad = |detail: String| DiscoveryError::Nodes {
        server: access.server.clone(),
        detail,
    };
    let http = http_client(&access.tls, timeout).map_err(|e| bad(e.to_string()))?;
    let mut request = http.get(format!("{}/api/v1/nodes", access.server));
    if let Some(token) = &access.token {
        request = request.bearer_auth(token.expose());
    }
    let response = request
        .send()
        .map_err(|e| bad(e.without_url().to_string()))?;
    let status = response.status();
    if !status.is_success() {
        return Err(bad(format!("HTTP {}", status.as_u16())));
    }
    let bytes = read_answer(response, max_answer).map_err(|e| bad(e.to_string()))?;
    let body: Value =
        serde_json::from_slice(&bytes).map_err(|e| bad(format!("not a node list: {e}")))?;
    Ok(parse_nodes(&body))
}
