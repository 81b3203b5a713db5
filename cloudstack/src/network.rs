//! What discovery reads of a cluster's network, read once into types: the stored kubeconfig
//! (`getKubernetesClusterConfig`), a network's guest type (`listNetworks`) and the
//! port-forwarding rules of a public address (`listPortForwardingRules`).

use serde::Deserialize;

use crate::scalar;

/// `getKubernetesClusterConfig`'s answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ClusterConfigAnswer {
    /// The stored config.
    #[serde(rename = "clusterconfig", default)]
    pub cluster_config: ClusterConfig,
}

/// A cluster's stored config.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ClusterConfig {
    /// The kubeconfig text, when one is stored.
    #[serde(
        rename = "configdata",
        default,
        deserialize_with = "scalar::optional_text"
    )]
    pub config_data: Option<String>,
}

/// A network from `listNetworks`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Network {
    /// Its guest type: `Isolated`, `Shared`, `L2`.
    #[serde(rename = "type", default, deserialize_with = "scalar::optional_text")]
    pub kind: Option<String>,
}

/// A rule from `listPortForwardingRules`; each part absent when the answer leaves it out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct PortForwardingRule {
    /// The public address.
    #[serde(
        rename = "ipaddress",
        default,
        deserialize_with = "scalar::optional_text"
    )]
    pub public_address: Option<String>,
    /// The public port (text, as CloudStack lists it).
    #[serde(
        rename = "publicport",
        default,
        deserialize_with = "scalar::optional_text"
    )]
    pub public_port: Option<String>,
    /// The VM's port.
    #[serde(
        rename = "privateport",
        default,
        deserialize_with = "scalar::optional_text"
    )]
    pub private_port: Option<String>,
    /// The VM.
    #[serde(
        rename = "virtualmachineid",
        default,
        deserialize_with = "scalar::optional_text"
    )]
    pub vm_id: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_answer_reads_with_missing_parts_absent() {
        let config: ClusterConfigAnswer =
            serde_json::from_value(json!({"clusterconfig": {"configdata": "apiVersion: v1"}}))
                .expect("an answer");
        assert_eq!(
            config.cluster_config.config_data.as_deref(),
            Some("apiVersion: v1")
        );
        let empty: ClusterConfigAnswer = serde_json::from_value(json!({})).expect("an answer");
        assert_eq!(empty.cluster_config.config_data, None);
        let rule: PortForwardingRule = serde_json::from_value(json!({
            "ipaddress": "203.0.113.5", "publicport": 2222, "privateport": "22",
            "virtualmachineid": "vm-1"
        }))
        .expect("a rule");
        assert_eq!(rule.public_port.as_deref(), Some("2222"));
        assert_eq!(rule.private_port.as_deref(), Some("22"));
        let network: Network =
            serde_json::from_value(json!({"type": "Isolated"})).expect("a network");
        assert_eq!(network.kind.as_deref(), Some("Isolated"));
    }
}
