//! The cluster view: per-type settings, out-of-date counts and the last error.

use super::observe::Snapshot;
use super::outdated::{changes_for, dedication_ids};
use super::validate::types_of;
use crate::model::{ClusterState, NodeType};
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
}

/// The view of `snap` (only its cloud part is needed).
pub fn cluster_view(snap: &Snapshot) -> ClusterView {
    let r = &snap.record;
    let dedication = dedication_ids(&snap.groups);
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
                out_of_date: snap
                    .vms_of(t)
                    .filter(|vm| !changes_for(r, vm, &snap.volumes, &dedication).is_empty())
                    .count(),
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
    }
}
