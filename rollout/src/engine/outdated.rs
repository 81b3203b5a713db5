//! When a node is out of date, and what would change on it.

use crate::model::{
    AffinityGroup, ClusterRecord, NodeStatus, ServiceOffering, Vm, Volume, VolumeKind,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// One difference between a VM and its type's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// The service offering differs.
    Offering {
        /// Current offering id.
        from: String,
        /// Target offering id.
        to: String,
    },
    /// The root disk is smaller than the type's size.
    RootDisk {
        /// Root volume id.
        volume_id: String,
        /// Current size (GB).
        from_gb: u64,
        /// Target size (GB).
        to_gb: u64,
    },
    /// The affinity groups differ from those recorded for the type (dedication groups aside).
    AffinityGroups {
        /// Current group ids (dedication groups aside), sorted.
        from: Vec<String>,
        /// Target group ids: the recorded ones plus the VM's dedication groups, sorted.
        to: Vec<String>,
    },
}

/// The ids of explicit dedication groups among `groups`.
pub fn dedication_ids(groups: &[AffinityGroup]) -> BTreeSet<String> {
    groups
        .iter()
        .filter(|g| g.is_dedication())
        .map(|g| g.id.clone())
        .collect()
}

/// The root volume of `vm`, if listed.
pub fn root_volume<'a>(vm: &Vm, volumes: &'a [Volume]) -> Option<&'a Volume> {
    volumes
        .iter()
        .find(|v| v.vm_id == vm.id && v.kind == VolumeKind::Root)
}

/// The VM's groups without dedication groups, sorted.
pub fn compared_groups(vm: &Vm, dedication: &BTreeSet<String>) -> Vec<String> {
    let set: BTreeSet<&String> = vm
        .affinity_group_ids
        .iter()
        .filter(|g| !dedication.contains(*g))
        .collect();
    set.into_iter().cloned().collect()
}

/// What would change on `vm` to match `record`'s settings for its type; empty when up to date.
pub fn changes_for(
    record: &ClusterRecord,
    vm: &Vm,
    volumes: &[Volume],
    dedication: &BTreeSet<String>,
) -> Vec<Change> {
    let settings = record.settings_of(vm.node_type);
    let mut out = Vec::new();
    let target = record.offering_for(vm.node_type);
    if vm.service_offering_id != target {
        out.push(Change::Offering {
            from: vm.service_offering_id.clone(),
            to: target.to_string(),
        });
    }
    if let (Some(size), Some(root)) = (settings.root_disk_size_gb, root_volume(vm, volumes))
        && root.size_gb < size
    {
        out.push(Change::RootDisk {
            volume_id: root.id.clone(),
            from_gb: root.size_gb,
            to_gb: size,
        });
    }
    // No recorded groups (or an empty record) leaves each node's groups as they are: an empty
    // list never means "remove every group".
    if let Some(recorded) = settings
        .affinity_group_ids
        .as_ref()
        .filter(|g| !g.is_empty())
    {
        let current = compared_groups(vm, dedication);
        let wanted: BTreeSet<&String> = recorded.iter().collect();
        let wanted: Vec<String> = wanted.into_iter().cloned().collect();
        if current != wanted {
            let mut to: BTreeSet<String> = wanted.iter().cloned().collect();
            to.extend(
                vm.affinity_group_ids
                    .iter()
                    .filter(|g| dedication.contains(*g))
                    .cloned(),
            );
            out.push(Change::AffinityGroups {
                from: current,
                to: to.into_iter().collect(),
            });
        }
    }
    out
}

/// Lowest share of the offering's memory a node may report as capacity (the kernel keeps some).
pub const MEMORY_CAPACITY_MIN_PERCENT: u64 = 85;

/// True when the node reports the CPU count of `offering` and a memory capacity between
/// [`MEMORY_CAPACITY_MIN_PERCENT`] and 100 % of its memory.
pub fn capacity_matches(offering: &ServiceOffering, node: &NodeStatus) -> bool {
    let want_kib = offering.memory_mb * 1024;
    node.capacity_cpu == offering.cpu_cores
        && node.capacity_memory_kib <= want_kib
        && node.capacity_memory_kib * 100 >= want_kib * MEMORY_CAPACITY_MIN_PERCENT
}

/// The warning for a node whose reported CPU or memory does not match its VM's offering (the
/// hypervisor, the guest or the kubelet may count differently): shown, never waited on.
pub fn capacity_warning(
    node_name: &str,
    offering: &ServiceOffering,
    node: &NodeStatus,
) -> Option<String> {
    (!capacity_matches(offering, node)).then(|| {
        format!(
            "{node_name} reports {} CPU / {} MiB, its offering {} has {} CPU / {} MiB",
            node.capacity_cpu,
            node.capacity_memory_kib / 1024,
            offering.name,
            offering.cpu_cores,
            offering.memory_mb
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ClusterState, NodeType, NodeTypeSettings, VmState};

    fn record(settings: NodeTypeSettings) -> ClusterRecord {
        ClusterRecord {
            id: "c".into(),
            name: "c".into(),
            state: ClusterState::Running,
            service_offering_id: "small".into(),
            control_count: 3,
            worker_count: 1,
            etcd_count: 0,
            settings: [(NodeType::Worker, settings)].into_iter().collect(),
            cores: 0,
            memory_mb: 0,
            cancel: false,
            last_error: None,
            lease: None,
        }
    }

    fn vm(offering: &str, groups: &[&str]) -> Vm {
        Vm {
            id: "vm-1".into(),
            name: "w-1".into(),
            node_name: "w-1".into(),
            node_type: NodeType::Worker,
            state: VmState::Running,
            service_offering_id: offering.into(),
            affinity_group_ids: groups.iter().map(|g| g.to_string()).collect(),
            ip_addresses: vec![],
        }
    }

    fn root(size_gb: u64) -> Vec<Volume> {
        vec![Volume {
            id: "vol-1".into(),
            vm_id: "vm-1".into(),
            kind: VolumeKind::Root,
            size_gb,
            disk_offering_id: None,
        }]
    }

    fn dedicated() -> BTreeSet<String> {
        ["ag-ded".to_string()].into_iter().collect()
    }

    #[test]
    fn a_node_with_another_offering_is_out_of_date() {
        let r = record(NodeTypeSettings {
            offering_id: Some("medium".into()),
            ..Default::default()
        });
        let c = changes_for(&r, &vm("small", &[]), &root(20), &dedicated());
        assert_eq!(
            c,
            vec![Change::Offering {
                from: "small".into(),
                to: "medium".into()
            }]
        );
        let none = record(NodeTypeSettings::default());
        assert!(changes_for(&none, &vm("small", &[]), &root(20), &dedicated()).is_empty());
        assert!(!changes_for(&none, &vm("large", &[]), &root(20), &dedicated()).is_empty());
    }

    #[test]
    fn only_a_smaller_root_disk_is_out_of_date() {
        let r = record(NodeTypeSettings {
            offering_id: Some("small".into()),
            root_disk_size_gb: Some(30),
            ..Default::default()
        });
        assert_eq!(
            changes_for(&r, &vm("small", &[]), &root(20), &dedicated()).len(),
            1
        );
        assert!(changes_for(&r, &vm("small", &[]), &root(30), &dedicated()).is_empty());
        assert!(changes_for(&r, &vm("small", &[]), &root(50), &dedicated()).is_empty());
    }

    #[test]
    fn groups_are_compared_without_dedication_groups_which_are_kept() {
        let r = record(NodeTypeSettings {
            offering_id: Some("small".into()),
            affinity_group_ids: Some(vec!["ag-1".into()]),
            ..Default::default()
        });
        let same = vm("small", &["ag-1", "ag-ded"]);
        assert!(changes_for(&r, &same, &root(20), &dedicated()).is_empty());
        let other = vm("small", &["ag-2", "ag-ded"]);
        assert_eq!(
            changes_for(&r, &other, &root(20), &dedicated()),
            vec![Change::AffinityGroups {
                from: vec!["ag-2".into()],
                to: vec!["ag-1".into(), "ag-ded".into()]
            }]
        );
    }

    #[test]
    fn a_type_without_recorded_groups_leaves_groups_as_they_are() {
        let r = record(NodeTypeSettings {
            offering_id: Some("small".into()),
            ..Default::default()
        });
        assert!(changes_for(&r, &vm("small", &["ag-7"]), &root(20), &dedicated()).is_empty());
    }

    #[test]
    fn capacity_must_match_the_offering() {
        let o = ServiceOffering {
            id: "m".into(),
            name: "m".into(),
            cpu_cores: 4,
            memory_mb: 8192,
            customized: false,
            inactive: false,
        };
        let node = |cpu, kib| NodeStatus {
            name: "w-1".into(),
            ready: crate::model::Readiness::True,
            boot_id: "b".into(),
            capacity_cpu: cpu,
            capacity_memory_kib: kib,
            unschedulable: false,
            annotations: Default::default(),
        };
        assert!(capacity_matches(&o, &node(4, 8192 * 1024 * 97 / 100)));
        assert!(
            !capacity_matches(&o, &node(2, 8192 * 1024 * 97 / 100)),
            "old CPU count"
        );
        assert!(!capacity_matches(&o, &node(4, 4096 * 1024)), "old memory");
    }
}
