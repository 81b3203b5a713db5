//! The Kubernetes answers the rollout reads besides nodes ([`cks_discovery::kube_node`]), read
//! once into types: pods (`PodList`, `Pod`), PodDisruptionBudgets and the `Status` an API error
//! carries. A field of another shape reads as absent rather than losing the whole answer.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A `PodList`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct PodList {
    /// Its pods.
    #[serde(default, deserialize_with = "lenient")]
    pub items: Vec<Pod>,
}

/// A pod.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Pod {
    /// Name, namespace, labels, annotations and owners.
    #[serde(default, deserialize_with = "lenient")]
    pub metadata: Metadata,
    /// Where it is bound.
    #[serde(default, deserialize_with = "lenient")]
    pub spec: PodSpec,
    /// Its phase.
    #[serde(default, deserialize_with = "lenient")]
    pub status: PodStatus,
}

/// An object's metadata.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Metadata {
    /// Its name.
    #[serde(default, deserialize_with = "lenient")]
    pub name: String,
    /// Its namespace (empty when not given).
    #[serde(default, deserialize_with = "lenient")]
    pub namespace: String,
    /// Its labels, as JSON values (compared with a selector's values as they are).
    #[serde(default, deserialize_with = "lenient")]
    pub labels: BTreeMap<String, Value>,
    /// Its annotations.
    #[serde(default, deserialize_with = "lenient")]
    pub annotations: BTreeMap<String, Value>,
    /// Its owners.
    #[serde(rename = "ownerReferences", default, deserialize_with = "lenient")]
    pub owners: Vec<Owner>,
}

/// An owner reference.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Owner {
    /// `DaemonSet`, `ReplicaSet`, ...
    #[serde(default, deserialize_with = "lenient")]
    pub kind: String,
    /// Whether the owner is the controller; absent counts as not `false`.
    #[serde(default, deserialize_with = "lenient")]
    pub controller: Option<bool>,
}

/// A pod's spec.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct PodSpec {
    /// The node it is bound to.
    #[serde(rename = "nodeName", default, deserialize_with = "lenient")]
    pub node_name: String,
}

/// A pod's status.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct PodStatus {
    /// `Pending`, `Running`, `Succeeded`, `Failed`, ...
    #[serde(default, deserialize_with = "lenient")]
    pub phase: String,
}

/// A `PodDisruptionBudgetList`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct BudgetList {
    /// Its budgets.
    #[serde(default, deserialize_with = "lenient")]
    pub items: Vec<Budget>,
}

/// A PodDisruptionBudget: its name and the labels it selects.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Budget {
    /// Its name.
    #[serde(default, deserialize_with = "lenient")]
    pub metadata: Metadata,
    /// Its selector.
    #[serde(default, deserialize_with = "lenient")]
    pub spec: BudgetSpec,
}

/// A budget's spec.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct BudgetSpec {
    /// Its selector.
    #[serde(default, deserialize_with = "lenient")]
    pub selector: Selector,
}

/// A label selector's `matchLabels` (`None` when it has none).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Selector {
    /// The labels it matches.
    #[serde(rename = "matchLabels", default, deserialize_with = "lenient")]
    pub match_labels: Option<BTreeMap<String, Value>>,
}

/// The `Status` of an API error.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Status {
    /// Its message.
    #[serde(default, deserialize_with = "lenient")]
    pub message: Option<String>,
    /// Its details.
    #[serde(default, deserialize_with = "lenient")]
    pub details: StatusDetails,
}

/// A `Status`'s details.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct StatusDetails {
    /// Its causes.
    #[serde(default, deserialize_with = "lenient")]
    pub causes: Vec<Cause>,
}

/// A cause.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Cause {
    /// Its message.
    #[serde(default, deserialize_with = "lenient")]
    pub message: Option<String>,
}

/// Reads `answer` as `T`, or `T::default()` when it is of another shape.
pub fn read<T: serde::de::DeserializeOwned + Default>(answer: Value) -> T {
    serde_json::from_value(answer).unwrap_or_default()
}

/// A field read as `T`, or `T::default()` when it is of another shape.
fn lenient<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned + Default,
{
    Ok(read(Value::deserialize(d)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pods_budgets_and_statuses_read_with_odd_fields_absent() {
        let list: PodList = read(json!({"items": [
            {"metadata": {"name": "web-1", "namespace": "shop", "labels": {"app": "web"},
                          "ownerReferences": [{"kind": "DaemonSet", "controller": true}]},
             "spec": {"nodeName": "w-1"}, "status": {"phase": "Running"}},
            {"metadata": {"name": 7, "labels": "x"}, "spec": [], "status": {"phase": 3}}
        ]}));
        assert_eq!(list.items.len(), 2);
        assert_eq!(list.items[0].metadata.owners[0].controller, Some(true));
        assert_eq!(list.items[0].spec.node_name, "w-1");
        assert_eq!(list.items[1].metadata.name, "");
        assert!(list.items[1].metadata.labels.is_empty());
        let budgets: BudgetList = read(json!({"items": [
            {"metadata": {"name": "web-pdb"}, "spec": {"selector": {"matchLabels": {"app": "web"}}}},
            {"metadata": {"name": "any"}, "spec": {"selector": {}}}
        ]}));
        assert!(budgets.items[0].spec.selector.match_labels.is_some());
        assert!(budgets.items[1].spec.selector.match_labels.is_none());
        let status: Status = read(json!({"message": "too many", "details": {"causes": [
            {"message": "The disruption budget web-pdb needs 3 healthy pods"}]}}));
        assert_eq!(status.message.as_deref(), Some("too many"));
        assert_eq!(status.details.causes.len(), 1);
        let odd: Status = read(json!("not a status"));
        assert!(odd.message.is_none() && odd.details.causes.is_empty());
    }
}
