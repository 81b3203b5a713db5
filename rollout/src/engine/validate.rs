//! The update call's checks and the settings it stores.

use super::note::Note;
use super::observe::Snapshot;
use super::outdated::{Change, changes_for, compared_groups, dedication_ids, root_volume};
use super::request::UpdateError;
use super::safety::{cannot_lose_a_node, cannot_lose_reason};
use crate::model::{
    ClusterRecord, ClusterState, KubernetesVersion, NodeType, ServiceOffering, TypeSettings,
    VmState,
};
use std::collections::BTreeSet;

/// A checked update: the settings to store and the worker batch knob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validated {
    /// Settings of every type after the call.
    pub settings: TypeSettings,
    /// `maxunavailable` (1 when not given).
    pub max_unavailable: u32,
    /// The node types left alone that cannot be rolled out.
    pub notes: Vec<Note>,
}

/// The node types the cluster has.
pub fn types_of(record: &ClusterRecord) -> Vec<NodeType> {
    NodeType::ALL
        .into_iter()
        .filter(|t| *t != NodeType::Etcd || record.external_etcd())
        .collect()
}

/// The stored settings, completed: a type without an offering of its own gets the cluster's; a
/// type without recorded groups whose nodes all share the same (non-empty) groups gets those.
pub fn prepare_settings(snap: &Snapshot) -> TypeSettings {
    let record = &snap.record;
    let dedication = dedication_ids(&snap.groups);
    let mut settings = record.settings.clone();
    for t in types_of(record) {
        let s = settings.entry(t).or_default();
        if s.offering_id.is_none() {
            s.offering_id = Some(record.service_offering_id.clone());
        }
        if s.affinity_group_ids.is_none() {
            let sets: BTreeSet<Vec<String>> = snap
                .vms_of(t)
                .map(|vm| compared_groups(vm, &dedication))
                .collect();
            if sets.len() == 1
                && let Some(shared) = sets.into_iter().next()
                && !shared.is_empty()
            {
                s.affinity_group_ids = Some(shared);
            }
        }
    }
    settings
}

fn parse_type(
    record: &ClusterRecord,
    parameter: &'static str,
    key: &str,
) -> Result<NodeType, UpdateError> {
    let t: NodeType = key
        .parse()
        .map_err(|e: crate::model::UnknownNodeType| UpdateError::param(parameter, e.to_string()))?;
    if t == NodeType::Etcd && !record.external_etcd() {
        return Err(UpdateError::param(
            parameter,
            format!("node type '{key}': cluster {} has no etcd nodes", record.id),
        ));
    }
    Ok(t)
}

/// Refuses `req` when it changes a node type whose VMs and nodes could not all be matched
/// ([`Snapshot::unmatched`]); the other types can still be rolled out, and each of their
/// reasons is a [`Note::Blocked`].
pub(super) fn refuse_unmatched(
    req: &super::request::UpdateRequest,
    snap: &Snapshot,
) -> Result<Vec<Note>, UpdateError> {
    let mut notes = Vec::new();
    for (node_type, reasons) in &snap.unmatched {
        let name = node_type.as_str();
        let touched = req.node_offerings.contains_key(name)
            || req.node_root_disk_sizes.contains_key(name)
            || req.node_affinity_groups.contains_key(name);
        if touched && !reasons.is_empty() {
            return Err(UpdateError::Unmatched {
                node_type: *node_type,
                reasons: reasons.clone(),
            });
        }
        notes.extend(reasons.iter().map(|reason| Note::Blocked {
            node_type: *node_type,
            reason: reason.clone(),
        }));
    }
    Ok(notes)
}

/// Smallest node CKS creates: 2 vCPUs (`MIN_KUBERNETES_CLUSTER_NODE_CPU`).
pub const MIN_NODE_CPU: u32 = 2;
/// Smallest node memory CKS accepts, MiB (`MIN_KUBERNETES_CLUSTER_NODE_RAM_SIZE`).
pub const MIN_NODE_MEMORY_MB: u64 = 2048;

/// Refuse an offering for nodes of type `t` that CloudStack's own `scaleKubernetesCluster` would
/// refuse. The rules are those of `KubernetesClusterManagerImpl.checkServiceOfferingForNodesScale`
/// and `validateServiceOfferingsForNodeTypesScale` in Apache CloudStack's
/// `plugins/integrations/kubernetes-service`: no custom (dynamic) offering; at least 2 vCPUs and
/// 2048 MB; at least the `mincpunumber` and `minmemory` of the cluster's Kubernetes version; and
/// while the cluster runs, no fewer CPUs or less memory than the type's current offering.
fn check_offering(
    snap: &Snapshot,
    t: NodeType,
    offering: &ServiceOffering,
    current: Option<&ServiceOffering>,
    version: Option<&KubernetesVersion>,
) -> Result<(), UpdateError> {
    let refuse = |rule: String| {
        Err(UpdateError::param(
            "nodeofferings",
            format!(
                "node type {t}: offering '{}' ({} vCPU, {} MiB): {rule}; CloudStack's scaleKubernetesCluster refuses it too, pick another offering",
                offering.name, offering.cpu_cores, offering.memory_mb
            ),
        ))
    };
    if offering.inactive {
        return refuse(
            "it is Inactive, and CloudStack moves no VM onto an inactive offering".into(),
        );
    }
    if offering.customized {
        return refuse("custom (dynamic) offerings are not supported for Kubernetes nodes".into());
    }
    if offering.cpu_cores < MIN_NODE_CPU || offering.memory_mb < MIN_NODE_MEMORY_MB {
        return refuse(format!(
            "a Kubernetes node needs at least {MIN_NODE_CPU} vCPUs and {MIN_NODE_MEMORY_MB} MiB"
        ));
    }
    if let Some(v) = version {
        if offering.cpu_cores < v.min_cpu {
            return refuse(format!(
                "Kubernetes {} needs at least {} vCPUs",
                v.name, v.min_cpu
            ));
        }
        if offering.memory_mb < v.min_memory_mb {
            return refuse(format!(
                "Kubernetes {} needs at least {} MiB",
                v.name, v.min_memory_mb
            ));
        }
    }
    if let Some(cur) = current
        && matches!(
            snap.record.state,
            ClusterState::Running | ClusterState::Updating
        )
        && (offering.memory_mb < cur.memory_mb || offering.cpu_cores < cur.cpu_cores)
    {
        return refuse(format!(
            "it offers less than the type's current offering '{}' ({} vCPU, {} MiB) and a running cluster cannot be scaled down",
            cur.name, cur.cpu_cores, cur.memory_mb
        ));
    }
    Ok(())
}

/// `maxunavailable` checked on its own (1 when not given): at least 1, and only with
/// `rollout=true`. The update call checks it before it asks CloudStack anything.
pub fn max_unavailable(req: &super::request::UpdateRequest) -> Result<u32, UpdateError> {
    match req.max_unavailable {
        Some(_) if !req.rollout => Err(UpdateError::param(
            "maxunavailable",
            "only applies with rollout=true; drop it or set rollout=true",
        )),
        Some(m) if m < 1 => Err(UpdateError::param(
            "maxunavailable",
            format!("must be at least 1, got {m}"),
        )),
        Some(m) => Ok(u32::try_from(m).unwrap_or(u32::MAX)),
        None => Ok(1),
    }
}

/// Check `req` against the cluster and compute the settings to store; `version` is the
/// cluster's Kubernetes version when CloudStack lists it (its node minimums apply).
pub fn validate(
    req: &super::request::UpdateRequest,
    snap: &Snapshot,
    version: Option<&KubernetesVersion>,
) -> Result<Validated, UpdateError> {
    let record = &snap.record;
    let notes = refuse_unmatched(req, snap)?;
    let max_unavailable = max_unavailable(req)?;
    let before = prepare_settings(snap);
    let mut after = before.clone();
    for (key, offering) in &req.node_offerings {
        let t = parse_type(record, "nodeofferings", key)?;
        let Some(o) = snap.offering(offering) else {
            return Err(UpdateError::param(
                "nodeofferings",
                format!("node type {t}: no service offering with id '{offering}'"),
            ));
        };
        let current = before
            .get(&t)
            .and_then(|s| s.offering_id.as_deref())
            .and_then(|id| snap.offering(id));
        if current.is_none_or(|c| c.id != o.id) {
            check_offering(snap, t, o, current, version)?;
        }
        after.entry(t).or_default().offering_id = Some(offering.clone());
    }
    for (key, size) in &req.node_root_disk_sizes {
        let t = parse_type(record, "noderootdisksizes", key)?;
        let size = u64::try_from(*size).ok().filter(|s| *s >= 1).ok_or_else(|| {
            UpdateError::param(
                "noderootdisksizes",
                format!("node type {t}: root disk size must be a whole number of GB >= 1, got {size}"),
            )
        })?;
        after.entry(t).or_default().root_disk_size_gb = Some(size);
    }
    for (key, ids) in &req.node_affinity_groups {
        let t = parse_type(record, "nodeaffinitygroups", key)?;
        after.entry(t).or_default().affinity_group_ids = Some(checked_groups(snap, t, ids)?);
    }
    if req.rollout {
        check_disks(req, snap, &after)?;
        check_cannot_lose(snap, &before, &after)?;
    }
    Ok(Validated {
        settings: after,
        max_unavailable,
        notes,
    })
}

/// The affinity groups `ids` asked for the nodes of type `t`, checked: at least one, each
/// listed, none an explicit dedication group; sorted, without repeats.
fn checked_groups(
    snap: &Snapshot,
    t: NodeType,
    ids: &[String],
) -> Result<Vec<String>, UpdateError> {
    if ids.is_empty() {
        return Err(UpdateError::param(
            "nodeaffinitygroups",
            format!(
                "node type {t}: an empty list would remove every affinity group of its nodes; name the groups to keep, or leave the type out to keep each node's groups as they are"
            ),
        ));
    }
    let mut set = BTreeSet::new();
    for id in ids {
        let Some(g) = snap.groups.iter().find(|g| &g.id == id) else {
            return Err(UpdateError::param(
                "nodeaffinitygroups",
                format!("node type {t}: no affinity group with id '{id}'"),
            ));
        };
        if g.is_dedication() {
            return Err(UpdateError::param(
                "nodeaffinitygroups",
                format!(
                    "node type {t}: '{}' is an explicit dedication group; CKS manages those itself, leave it out",
                    g.name
                ),
            ));
        }
        set.insert(id.clone());
    }
    Ok(set.into_iter().collect())
}

fn check_disks(
    req: &super::request::UpdateRequest,
    snap: &Snapshot,
    after: &TypeSettings,
) -> Result<(), UpdateError> {
    for key in req.node_root_disk_sizes.keys() {
        let t = parse_type(&snap.record, "noderootdisksizes", key)?;
        let Some(size) = after.get(&t).and_then(|s| s.root_disk_size_gb) else {
            continue;
        };
        for vm in snap.vms_of(t) {
            let Some(root) = root_volume(vm, &snap.volumes) else {
                continue;
            };
            if root.size_gb > size {
                return Err(UpdateError::param(
                    "noderootdisksizes",
                    format!(
                        "node type {t}: {size} GB would shrink the {} GB root disk of {}; root disks only grow",
                        root.size_gb, vm.node_name
                    ),
                ));
            }
            let fixed = root
                .disk_offering_id
                .as_ref()
                .and_then(|id| snap.disk_offerings.iter().find(|d| &d.id == id))
                .filter(|d| d.is_fixed_size());
            if let Some(d) = fixed
                && root.size_gb != size
            {
                return Err(UpdateError::param(
                    "noderootdisksizes",
                    format!(
                        "node type {t}: the root disk of {} comes from disk offering '{}' of fixed size {} GB and cannot be resized",
                        vm.node_name, d.name, d.size_gb
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn parameter_of(change: &Change) -> &'static str {
    match change {
        Change::Offering { .. } => "nodeofferings",
        Change::RootDisk { .. } => "noderootdisksizes",
        Change::AffinityGroups { .. } => "nodeaffinitygroups",
    }
}

fn kind_of(change: &Change) -> u8 {
    match change {
        Change::Offering { .. } => 0,
        Change::RootDisk { .. } => 1,
        Change::AffinityGroups { .. } => 2,
    }
}

fn check_cannot_lose(
    snap: &Snapshot,
    before: &TypeSettings,
    after: &TypeSettings,
) -> Result<(), UpdateError> {
    let dedication = dedication_ids(&snap.groups);
    let mut old = snap.record.clone();
    old.settings = before.clone();
    let mut new = snap.record.clone();
    new.settings = after.clone();
    for t in types_of(&snap.record) {
        if !cannot_lose_a_node(&snap.record, t) {
            continue;
        }
        for vm in snap.vms_of(t).filter(|vm| vm.state != VmState::Stopped) {
            let had: BTreeSet<u8> = changes_for(&old, vm, &snap.volumes, &dedication)
                .iter()
                .map(kind_of)
                .collect();
            let newly = changes_for(&new, vm, &snap.volumes, &dedication)
                .into_iter()
                .find(|c| !had.contains(&kind_of(c)));
            if let Some(change) = newly {
                return Err(UpdateError::param(
                    parameter_of(&change),
                    format!(
                        "node type {t}: this would make {} out of date, but {}; leave this type's settings as they are or use rollout=false",
                        vm.node_name,
                        cannot_lose_reason(&snap.record, t)
                    ),
                ));
            }
        }
    }
    Ok(())
}
