//! The checks before a batch takes nodes down.

use super::members::member_of;
use super::observe::Snapshot;
use super::safety::quorum;
use crate::model::{EtcdMember, MemberHealth, NodeType, VmState};
use serde::{Deserialize, Serialize};

/// A preflight verdict for one batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// Safe to take the batch's nodes down.
    Pass,
    /// Every node of the batch is already stopped: starting them only helps.
    AlreadyDown,
    /// Not safe now.
    Fail {
        /// Every reason found.
        reasons: Vec<String>,
    },
}

/// True when nodes of type `t` are etcd members (etcd nodes, or control nodes with stacked etcd).
pub fn is_member_type(snap: &Snapshot, t: NodeType) -> bool {
    match t {
        NodeType::Etcd => true,
        NodeType::Control => !snap.record.external_etcd(),
        NodeType::Worker => false,
    }
}

/// Why taking control or etcd nodes `going_down` (of `batch`) now is unsafe, added to
/// `reasons`: etcd quorum among the other members (unknown counts as unhealthy), learners,
/// etcd not ready, no other API server serving.
fn etcd_and_api(
    snap: &Snapshot,
    t: NodeType,
    batch: &[String],
    going_down: &[&String],
    reasons: &mut Vec<String>,
) {
    let voting: Vec<_> = snap.members.iter().filter(|m| !m.learner).collect();
    if voting.is_empty() {
        reasons.push("etcd members unknown".to_string());
    } else {
        // The batch's own members, told by address (or name), not counted as others.
        let mut own: Vec<&EtcdMember> = Vec::new();
        if is_member_type(snap, t) {
            for name in going_down {
                let Some(vm) = snap.vm_by_node(name) else {
                    continue;
                };
                match member_of(vm, &snap.members) {
                    Ok(m) => own.push(m),
                    Err(e) => reasons.push(e.to_string()),
                }
            }
        }
        let n = voting.len();
        let healthy = voting
            .iter()
            .filter(|m| !own.iter().any(|o| std::ptr::eq(*o, **m)))
            .filter(|m| m.health == MemberHealth::Healthy)
            .count();
        let need = quorum(n);
        if healthy < need {
            reasons.push(format!(
                "etcd quorum: {healthy} of the other members healthy, {need} of {n} needed (unknown counts as unhealthy)"
            ));
        }
    }
    for m in snap.members.iter().filter(|m| m.learner) {
        reasons.push(format!("etcd member {} is a learner", m.name));
    }
    if !snap.etcd_ready {
        reasons.push("etcd not ready: no API server answered /readyz/etcd with 200".to_string());
    }
    if !snap.api_up.iter().any(|n| !batch.contains(n)) {
        reasons.push("no other control node serves the API (/readyz)".to_string());
    }
}

/// Check that taking down `batch` (node names, all of type `t`) is safe given `snap`.
pub fn preflight(snap: &Snapshot, t: NodeType, batch: &[String]) -> Verdict {
    let going_down: Vec<&String> = batch
        .iter()
        .filter(|n| {
            snap.vm_by_node(n)
                .is_some_and(|vm| vm.state != VmState::Stopped)
        })
        .collect();
    if going_down.is_empty() {
        return Verdict::AlreadyDown;
    }
    let mut reasons = Vec::new();
    for vm in snap.vms.iter().filter(|v| !batch.contains(&v.node_name)) {
        if vm.state != VmState::Running {
            reasons.push(format!(
                "VM of {} is {:?}, not Running",
                vm.node_name, vm.state
            ));
        }
        if vm.node_type == NodeType::Etcd || vm.state != VmState::Running {
            continue;
        }
        if !snap.nodes_known {
            continue;
        }
        match snap.node(&vm.node_name) {
            None => reasons.push(format!("node {} is not registered", vm.node_name)),
            Some(n) if !n.is_ready() => {
                reasons.push(format!("node {} is not Ready ({:?})", n.name, n.ready))
            }
            Some(_) => {}
        }
    }
    if !snap.nodes_known {
        reasons.push("no API server answered the node list".to_string());
    }
    if matches!(t, NodeType::Control | NodeType::Etcd) {
        etcd_and_api(snap, t, batch, &going_down, &mut reasons);
    }
    if reasons.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Fail { reasons }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        ClusterRecord, ClusterState, EtcdMember, NodeStatus, Readiness, Vm, VmState,
    };
    use std::collections::BTreeSet;

    fn fails(verdict: &Verdict) -> bool {
        matches!(verdict, Verdict::Fail { .. })
    }

    fn snapshot(health: &[MemberHealth]) -> Snapshot {
        let names: Vec<String> = (1..=health.len()).map(|i| format!("c-{i}")).collect();
        Snapshot {
            record: ClusterRecord {
                service_offering_id: "small".into(),
                control_count: health.len() as u32,
                worker_count: 0,
                ..ClusterRecord::sample("k", ClusterState::Running)
            },
            vms: names
                .iter()
                .map(|n| Vm {
                    id: format!("vm-{n}"),
                    name: n.clone(),
                    node_name: n.clone(),
                    node_type: NodeType::Control,
                    state: VmState::Running,
                    service_offering_id: "small".into(),
                    affinity_group_ids: vec![],
                    ip_addresses: vec![],
                })
                .collect(),
            volumes: vec![],
            nodes: names
                .iter()
                .map(|n| NodeStatus {
                    name: n.clone(),
                    ready: Readiness::True,
                    boot_id: "b".into(),
                    capacity_cpu: 2,
                    capacity_memory_kib: 0,
                    unschedulable: false,
                    annotations: Default::default(),
                })
                .collect(),
            nodes_known: true,
            members: names
                .iter()
                .zip(health)
                .map(|(n, h)| EtcdMember {
                    name: n.clone(),
                    id: None,
                    client_url: String::new(),
                    peer_urls: vec![],
                    health: *h,
                    learner: false,
                })
                .collect(),
            api_up: names.iter().cloned().collect::<BTreeSet<_>>(),
            etcd_ready: true,
            offerings: vec![],
            disk_offerings: vec![],
            groups: vec![],
            changes: Default::default(),
            unmatched: Default::default(),
        }
    }

    use MemberHealth::{Healthy, Unhealthy, Unknown};

    #[test]
    fn a_quorum_of_the_other_members_must_be_healthy_and_unknown_counts_as_unhealthy() {
        let c1 = ["c-1".to_string()];
        assert_eq!(
            preflight(
                &snapshot(&[Healthy, Healthy, Healthy]),
                NodeType::Control,
                &c1
            ),
            Verdict::Pass
        );
        for other in [Unhealthy, Unknown] {
            let v = preflight(
                &snapshot(&[Healthy, Healthy, other]),
                NodeType::Control,
                &c1,
            );
            assert!(fails(&v), "{other:?} must count as unhealthy: {v:?}");
        }
        // 5 members: 3 of the 4 others healthy is a quorum (3 of 5).
        let five = snapshot(&[Healthy, Healthy, Healthy, Healthy, Unknown]);
        assert_eq!(preflight(&five, NodeType::Control, &c1), Verdict::Pass);
        let two_down = snapshot(&[Healthy, Healthy, Healthy, Unknown, Unhealthy]);
        assert!(fails(&preflight(&two_down, NodeType::Control, &c1)));
    }

    #[test]
    fn a_learner_blocks_and_so_does_etcd_not_ready() {
        let c1 = ["c-1".to_string()];
        let mut s = snapshot(&[Healthy, Healthy, Healthy]);
        s.members[2].learner = true;
        assert!(fails(&preflight(&s, NodeType::Control, &c1)));
        let mut s = snapshot(&[Healthy, Healthy, Healthy]);
        s.etcd_ready = false;
        assert!(fails(&preflight(&s, NodeType::Control, &c1)));
    }

    #[test]
    fn every_other_vm_running_and_node_ready_and_an_already_stopped_batch_passes() {
        let c1 = ["c-1".to_string()];
        let mut s = snapshot(&[Healthy, Healthy, Healthy, Healthy, Healthy]);
        s.nodes[3].ready = Readiness::Unknown;
        let Verdict::Fail { reasons } = preflight(&s, NodeType::Control, &c1) else {
            panic!("a NotReady node fails the preflight")
        };
        assert!(
            reasons.iter().any(|r| r.contains("c-4 is not Ready")),
            "{reasons:?}"
        );
        let mut s = snapshot(&[Unknown, Healthy, Healthy]);
        s.vms[0].state = VmState::Stopped;
        assert_eq!(preflight(&s, NodeType::Control, &c1), Verdict::AlreadyDown);
    }
}
