//! The Kubernetes `Node` as the API answers it (`GET /api/v1/nodes`, `GET /api/v1/nodes/NAME`),
//! read once into [`Node`]: the parts discovery (name, labels, InternalIP addresses) and the
//! rollout (readiness, boot ID, capacity, cordon, annotations) use. A label or annotation that
//! is not a string, or a part the answer leaves out, reads as absent.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};

/// A `NodeList`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct NodeList {
    /// Its nodes.
    #[serde(default)]
    pub items: Vec<Node>,
}

impl NodeList {
    /// Reads a `NodeList` answer; one of another shape lists no node.
    pub fn read(answer: serde_json::Value) -> NodeList {
        serde_json::from_value(answer).unwrap_or_default()
    }
}

/// One node.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Node {
    /// Name, labels and annotations.
    #[serde(default)]
    pub metadata: Metadata,
    /// Whether it is cordoned.
    #[serde(default)]
    pub spec: Spec,
    /// Conditions, addresses, boot and capacity.
    #[serde(default)]
    pub status: Status,
}

impl Node {
    /// Reads one `Node` answer; one of another shape reads as a node with nothing known.
    pub fn read(answer: serde_json::Value) -> Node {
        serde_json::from_value(answer).unwrap_or_default()
    }

    /// The status of its `Ready` condition (`True`, `False`, `Unknown`), when it reports one.
    pub fn ready(&self) -> Option<&str> {
        self.status
            .conditions
            .iter()
            .find(|c| c.kind == "Ready")
            .map(|c| c.status.as_str())
    }

    /// Its `InternalIP` addresses.
    pub fn internal_ips(&self) -> Vec<String> {
        self.status
            .addresses
            .iter()
            .filter(|a| a.kind == "InternalIP" && !a.address.is_empty())
            .map(|a| a.address.clone())
            .collect()
    }
}

/// A node's metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Metadata {
    /// Its name (empty when the answer names none).
    #[serde(default)]
    pub name: String,
    /// Its labels.
    #[serde(default, deserialize_with = "strings")]
    pub labels: BTreeMap<String, String>,
    /// Its annotations.
    #[serde(default, deserialize_with = "strings")]
    pub annotations: BTreeMap<String, String>,
}

/// A node's spec.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Spec {
    /// Cordoned.
    #[serde(default)]
    pub unschedulable: bool,
}

/// A node's status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Status {
    /// Its conditions.
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// Its addresses.
    #[serde(default)]
    pub addresses: Vec<Address>,
    /// The kubelet's report of the machine.
    #[serde(rename = "nodeInfo", default)]
    pub node_info: NodeInfo,
    /// Its capacity, as quantities (`cpu: "4"`, `memory: "8Gi"`).
    #[serde(default, deserialize_with = "strings")]
    pub capacity: BTreeMap<String, String>,
}

/// A condition.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Condition {
    /// `Ready`, `MemoryPressure`, ...
    #[serde(rename = "type", default)]
    pub kind: String,
    /// `True`, `False` or `Unknown`.
    #[serde(default)]
    pub status: String,
}

/// An address.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Address {
    /// `InternalIP`, `Hostname`, ...
    #[serde(rename = "type", default)]
    pub kind: String,
    /// The address.
    #[serde(default)]
    pub address: String,
}

/// The kubelet's report of the machine.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct NodeInfo {
    /// The ID of the current boot.
    #[serde(rename = "bootID", default)]
    pub boot_id: String,
}

/// Labels or annotations: names to values.
type StringMap = BTreeMap<String, String>;

/// A string map whose non-string values are left out.
fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<StringMap, D::Error> {
    let map: Option<BTreeMap<String, serde_json::Value>> = Option::deserialize(d)?;
    Ok(map
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(k, v)| match v {
            serde_json::Value::String(s) => Some((k, s)),
            _ => None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_real_shaped_node_reads_whole() {
        let node = Node::read(json!({
            "metadata": {"name": "k1-node-1", "labels": {"kubernetes.io/hostname": "k1-node-1"},
                         "annotations": {"a": "b", "odd": 3}},
            "spec": {"unschedulable": true},
            "status": {
                "conditions": [{"type": "MemoryPressure", "status": "False"},
                               {"type": "Ready", "status": "True"}],
                "addresses": [{"type": "InternalIP", "address": "10.1.1.5"},
                              {"type": "Hostname", "address": "k1-node-1"}],
                "nodeInfo": {"bootID": "b-1"},
                "capacity": {"cpu": "4", "memory": "8Gi"}
            }
        }));
        assert_eq!(node.metadata.name, "k1-node-1");
        assert_eq!(node.ready(), Some("True"));
        assert_eq!(node.internal_ips(), ["10.1.1.5"]);
        assert_eq!(node.status.node_info.boot_id, "b-1");
        assert_eq!(node.status.capacity["memory"], "8Gi");
        assert!(node.spec.unschedulable);
        assert_eq!(
            node.metadata.annotations.len(),
            1,
            "a non-string value is left out"
        );
    }

    #[test]
    fn a_node_of_another_shape_reads_as_nothing_known() {
        assert_eq!(Node::read(json!({"status": "broken"})), Node::default());
        assert_eq!(Node::read(json!({})).ready(), None);
        assert!(NodeList::read(json!({"items": 3})).items.is_empty());
    }
}
