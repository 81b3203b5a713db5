//! The cluster view: per-type settings, out-of-date counts and the last error.

use super::observe::Snapshot;
use super::outdated::capacity_warning;
use super::release::unhealthy_vms;
use super::validate::types_of;
use crate::model::{ClusterState, NodeType, VmState};
use serde::{Deserialize, Serialize};

/// One node type in the view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeView {
    /// Node type.
    pub node_type: NodeType,
    /// Number of VMs.
    pub count: usize,
    /// Offering id nodes of this type should have.
    pub offering_id: String,
    /// Root disk size (GB) of this type, if set.
    pub root_disk_size_gb: Option<u64>,
    /// Affinity groups recorded for this type, if any.
    pub affinity_group_ids: Option<Vec<String>>,
    /// Nodes that differ.
    pub out_of_date: usize,
    /// Nodes whose VM was created since the settings were stored (a scale, the autoscaler):
    /// CloudStack gave them its own settings; the next rollout finds them out of date.
    #[serde(default)]
    pub created_since_settings: Vec<String>,
}

/// The cluster as the update API shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterView {
    /// Cluster id.
    pub id: String,
    /// State.
    pub state: ClusterState,
    /// Per type.
    pub types: Vec<TypeView>,
    /// `controlnodesoutofdate`.
    pub controlnodesoutofdate: usize,
    /// `workernodesoutofdate`.
    pub workernodesoutofdate: usize,
    /// `etcdnodesoutofdate`.
    pub etcdnodesoutofdate: usize,
    /// Recorded cores.
    pub cores: u64,
    /// Recorded memory (MiB).
    pub memory_mb: u64,
    /// `lasterror`.
    pub lasterror: Option<String>,
    /// The state and why: "Alert: VM of w-2 is Stopped", "Running; last error: ... (no node
    /// was left down)".
    pub condition: String,
    /// Nodes whose reported CPU or memory differs from their offering's (when the nodes could
    /// be read): shown, never a reason to wait or fail.
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// The state in words with its reason: an Alert names what CloudStack shows unhealthy (else
/// the recorded error); a Running cluster with an error says no node was left down.
fn condition(r: &crate::model::ClusterRecord, problems: &[String]) -> String {
    let error = r.last_error.as_deref().filter(|e| !e.is_empty());
    match r.state {
        ClusterState::Alert if !problems.is_empty() => format!("Alert: {}", problems.join("; ")),
        ClusterState::Alert => format!("Alert: {}", error.unwrap_or("no reason recorded")),
        ClusterState::Running => match error {
            Some(e) => format!("Running; last error: {e} (no node was left down)"),
            None => "Running".to_string(),
        },
        ClusterState::Updating => format!(
            "Updating: a rollout{} is running",
            r.lease
                .as_ref()
                .map(|l| format!(" by {}", l.owner))
                .unwrap_or_default()
        ),
        other => format!("{other:?}"),
    }
}

/// The view of `snap` (only its cloud part is needed).
pub fn cluster_view(snap: &Snapshot) -> ClusterView {
    let r = &snap.record;
    let types: Vec<TypeView> = types_of(r)
        .into_iter()
        .map(|t| {
            let s = r.settings_of(t);
            TypeView {
                node_type: t,
                count: snap.vms_of(t).count(),
                offering_id: r.offering_for(t).to_string(),
                root_disk_size_gb: s.root_disk_size_gb,
                affinity_group_ids: s.affinity_group_ids,
                out_of_date: snap.vms_of(t).filter(|vm| snap.out_of_date(vm)).count(),
                created_since_settings: match &s.vms_when_stored {
                    Some(known) => snap
                        .vms_of(t)
                        .filter(|vm| !known.contains(&vm.id))
                        .map(|vm| vm.node_name.clone())
                        .collect(),
                    None => Vec::new(),
                },
            }
        })
        .collect();
    let count = |t: NodeType| {
        types
            .iter()
            .find(|v| v.node_type == t)
            .map_or(0, |v| v.out_of_date)
    };
    ClusterView {
        id: r.id.clone(),
        state: r.state,
        controlnodesoutofdate: count(NodeType::Control),
        workernodesoutofdate: count(NodeType::Worker),
        etcdnodesoutofdate: count(NodeType::Etcd),
        types,
        cores: r.cores,
        memory_mb: r.memory_mb,
        lasterror: r.last_error.clone(),
        condition: condition(r, &unhealthy_vms(snap)),
        warnings: capacity_warnings(snap),
    }
}

/// A warning per Running, Ready node whose reported capacity differs from its VM's offering.
pub fn capacity_warnings(snap: &Snapshot) -> Vec<String> {
    if !snap.nodes_known {
        return Vec::new();
    }
    snap.vms
        .iter()
        .filter(|vm| vm.state == VmState::Running && vm.node_type != NodeType::Etcd)
        .filter_map(|vm| {
            let node = snap.node(&vm.node_name).filter(|n| n.is_ready())?;
            let offering = snap.offering(&vm.service_offering_id)?;
            capacity_warning(&vm.node_name, offering, node)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ClusterRecord, Lease};

    fn record(state: ClusterState, last_error: Option<&str>) -> ClusterRecord {
        ClusterRecord {
            last_error: last_error.map(str::to_string),
            ..ClusterRecord::sample("c", state)
        }
    }

    /// An Alert names what CloudStack shows unhealthy before the recorded error; with nothing
    /// unhealthy, the error; with neither, that no reason was recorded.
    #[test]
    fn an_alert_names_the_unhealthy_vms_else_the_recorded_error() {
        let stopped = vec!["VM of w-2 is Stopped".to_string()];
        let alert = record(ClusterState::Alert, Some("batch 1 failed"));
        assert_eq!(condition(&alert, &stopped), "Alert: VM of w-2 is Stopped");
        assert_eq!(condition(&alert, &[]), "Alert: batch 1 failed");
        let bare = record(ClusterState::Alert, Some(""));
        assert_eq!(condition(&bare, &[]), "Alert: no reason recorded");
    }

    /// A Running cluster with an error says no node was left down; an Updating one names the
    /// rollout's owner, where it is known.
    #[test]
    fn running_and_updating_say_what_the_record_holds() {
        let failed = record(ClusterState::Running, Some("drain of w-1 blocked"));
        assert_eq!(
            condition(&failed, &["VM of w-2 is Stopped".to_string()]),
            "Running; last error: drain of w-1 blocked (no node was left down)"
        );
        assert_eq!(
            condition(&record(ClusterState::Running, None), &[]),
            "Running"
        );
        let mut updating = record(ClusterState::Updating, None);
        assert_eq!(condition(&updating, &[]), "Updating: a rollout is running");
        updating.lease = Some(Lease {
            owner: "ops-1".into(),
            heartbeat_ms: 0,
        });
        assert_eq!(
            condition(&updating, &[]),
            "Updating: a rollout by ops-1 is running"
        );
    }
}
