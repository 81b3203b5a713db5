//! `listCapabilities`: what the management server says about itself, read once into a type.

use serde::Deserialize;
use serde_json::Value;

use crate::{client::CloudStackClient, error::CloudStackError};

/// What `listCapabilities` reports that the callers here use.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Capabilities {
    /// The server's version, `4.22.0.0` or `4.23.0.0-SNAPSHOT`.
    #[serde(rename = "cloudstackversion")]
    pub cloudstack_version: String,
    /// Whether the Kubernetes service (CKS) is enabled.
    #[serde(rename = "kubernetesserviceenabled", default)]
    pub kubernetes_service_enabled: bool,
}

impl CloudStackClient {
    /// The server's capabilities (`listCapabilities`), its version among them.
    pub fn capabilities(&self) -> Result<Capabilities, CloudStackError> {
        const COMMAND: &str = "listCapabilities";
        let answer = self.call(COMMAND, &[])?;
        let capability = answer.get("capability").cloned().unwrap_or(Value::Null);
        let parsed: Capabilities =
            serde_json::from_value(capability).map_err(|e| CloudStackError::BadResponse {
                command: COMMAND.to_string(),
                detail: format!("no `capability` with a `cloudstackversion`: {e}"),
            })?;
        if parsed.cloudstack_version.len() > 64
            || parsed.cloudstack_version.chars().any(char::is_control)
        {
            return Err(CloudStackError::BadResponse {
                command: COMMAND.to_string(),
                detail: "`cloudstackversion` is not a version".to_string(),
            });
        }
        Ok(parsed)
    }
}
