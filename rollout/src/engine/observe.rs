//! One look at the world: the record, VMs, volumes, nodes, etcd members and catalogues.

use super::error::EngineError;
use super::outdated::{Change, changes_for, dedication_ids};
use crate::model::{
    AffinityGroup, ClusterRecord, DiskOffering, Endpoint, EtcdMember, NodeStatus, NodeType,
    ReadyzCheck, ServiceOffering, TypeSettings, Vm, VmState, Volume,
};
use crate::ports::Ports;
use std::collections::{BTreeMap, BTreeSet};

/// What the engine saw at one moment.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The cluster record.
    pub record: ClusterRecord,
    /// The cluster's VMs, sorted by node name.
    pub vms: Vec<Vm>,
    /// Their volumes.
    pub volumes: Vec<Volume>,
    /// Kubernetes nodes (empty when no API server answered).
    pub nodes: Vec<NodeStatus>,
    /// True when a node list was obtained.
    pub nodes_known: bool,
    /// etcd members (empty when unknown).
    pub members: Vec<EtcdMember>,
    /// Control nodes whose API server answered `/readyz` with 200.
    pub api_up: BTreeSet<String>,
    /// True when `/readyz/etcd` answered 200 through some control node.
    pub etcd_ready: bool,
    /// Service offerings.
    pub offerings: Vec<ServiceOffering>,
    /// Disk offerings.
    pub disk_offerings: Vec<DiskOffering>,
    /// Affinity groups.
    pub groups: Vec<AffinityGroup>,
    /// What would change on each VM to match the record's settings for its type, by VM id:
    /// computed once when the snapshot is taken ([`Snapshot::compute_changes`]), and again
    /// when its settings are replaced ([`Snapshot::set_settings`]).
    pub changes: BTreeMap<String, Vec<Change>>,
    /// Why the nodes of a type cannot be rolled out ([`crate::ports::Cloud::unmatched`]).
    pub unmatched: BTreeMap<NodeType, Vec<String>>,
}

impl Snapshot {
    /// What would change on `vm` to match its type's settings; empty when up to date.
    pub fn changes_of(&self, vm: &Vm) -> &[Change] {
        self.changes.get(&vm.id).map(Vec::as_slice).unwrap_or(&[])
    }

    /// True when `vm` differs from its type's settings.
    pub fn out_of_date(&self, vm: &Vm) -> bool {
        !self.changes_of(vm).is_empty()
    }

    /// Replaces the record's settings (a validated request's) and computes the changes again.
    pub fn set_settings(&mut self, settings: TypeSettings) {
        self.record.settings = settings;
        self.compute_changes();
    }

    /// Computes [`Snapshot::changes`] from the record, the VMs, their volumes and the groups.
    pub fn compute_changes(&mut self) {
        let dedication = dedication_ids(&self.groups);
        self.changes = self
            .vms
            .iter()
            .map(|vm| {
                let changes = changes_for(&self.record, vm, &self.volumes, &dedication);
                (vm.id.clone(), changes)
            })
            .collect();
    }

    /// The node named `name`.
    pub fn node(&self, name: &str) -> Option<&NodeStatus> {
        self.nodes.iter().find(|n| n.name == name)
    }

    /// The VM whose node is `name`.
    pub fn vm_by_node(&self, name: &str) -> Option<&Vm> {
        self.vms.iter().find(|v| v.node_name == name)
    }

    /// An offering by id.
    pub fn offering(&self, id: &str) -> Option<&ServiceOffering> {
        self.offerings.iter().find(|o| o.id == id)
    }

    /// VMs of one type.
    pub fn vms_of(&self, t: NodeType) -> impl Iterator<Item = &Vm> {
        self.vms.iter().filter(move |v| v.node_type == t)
    }

    /// A control node serving the API, other than those in `avoid`.
    pub fn endpoint_avoiding(&self, avoid: &[String]) -> Endpoint {
        self.api_up
            .iter()
            .find(|n| !avoid.contains(n))
            .map(|n| Endpoint::Control(n.clone()))
            .unwrap_or(Endpoint::Cluster)
    }
}

/// Catalogues and record only (no Kubernetes or etcd calls): enough to validate an update.
pub fn observe_cloud(ports: &mut Ports<'_>, cluster_id: &str) -> Result<Snapshot, EngineError> {
    let record = ports.store.load(cluster_id).map_err(EngineError::store)?;
    observe_cloud_with(ports, cluster_id, record)
}

/// [`observe_cloud`] with `known` standing in for the record when the store does not answer:
/// the settings of a running rollout do not change, so a batch whose nodes are down still sees
/// them come back (the store's absence stops the rollout at the next batch).
pub fn observe_cloud_or(
    ports: &mut Ports<'_>,
    cluster_id: &str,
    known: &crate::model::ClusterRecord,
) -> Result<Snapshot, EngineError> {
    let record = ports
        .store
        .load(cluster_id)
        .unwrap_or_else(|_| known.clone());
    observe_cloud_with(ports, cluster_id, record)
}

fn observe_cloud_with(
    ports: &mut Ports<'_>,
    cluster_id: &str,
    record: crate::model::ClusterRecord,
) -> Result<Snapshot, EngineError> {
    let mut vms = ports
        .cloud
        .list_vms(cluster_id)
        .map_err(EngineError::cloud)?;
    vms.sort_by(|a, b| a.node_name.cmp(&b.node_name));
    let volumes = ports
        .cloud
        .list_volumes(cluster_id)
        .map_err(EngineError::cloud)?;
    let offerings = ports
        .cloud
        .list_service_offerings()
        .map_err(EngineError::cloud)?;
    let disk_offerings = ports
        .cloud
        .list_disk_offerings()
        .map_err(EngineError::cloud)?;
    let groups = ports
        .cloud
        .list_affinity_groups()
        .map_err(EngineError::cloud)?;
    let mut snap = Snapshot {
        record,
        vms,
        volumes,
        nodes: Vec::new(),
        nodes_known: false,
        members: Vec::new(),
        api_up: BTreeSet::new(),
        etcd_ready: false,
        offerings,
        disk_offerings,
        groups,
        changes: BTreeMap::new(),
        unmatched: ports.cloud.unmatched(),
    };
    snap.compute_changes();
    Ok(snap)
}

/// Everything: cloud, API servers, nodes and etcd members.
pub fn observe(ports: &mut Ports<'_>, cluster_id: &str) -> Result<Snapshot, EngineError> {
    let mut snap = observe_cloud(ports, cluster_id)?;
    observe_live(ports, &mut snap);
    Ok(snap)
}

/// Fill in the API, node and etcd parts of `snap` (failures leave them unknown).
pub fn observe_live(ports: &mut Ports<'_>, snap: &mut Snapshot) {
    snap.api_up.clear();
    for vm in snap.vms.iter().filter(|v| v.node_type == NodeType::Control) {
        if vm.state != VmState::Running {
            continue;
        }
        let ep = Endpoint::Control(vm.node_name.clone());
        if ports.kube.readyz(&ep, ReadyzCheck::All) == Ok(true) {
            snap.api_up.insert(vm.node_name.clone());
        }
    }
    let ep = snap.endpoint_avoiding(&[]);
    match ports.kube.list_nodes(&ep) {
        Ok(mut nodes) => {
            nodes.sort_by(|a, b| a.name.cmp(&b.name));
            snap.nodes = nodes;
            snap.nodes_known = true;
        }
        Err(_) => {
            snap.nodes.clear();
            snap.nodes_known = false;
        }
    }
    snap.etcd_ready = ports.kube.readyz(&ep, ReadyzCheck::Etcd) == Ok(true);
    snap.members = ports.etcd.members().unwrap_or_default();
}
