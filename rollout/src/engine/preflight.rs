//! The checks before a batch takes nodes down.

use super::observe::Snapshot;
use super::safety::quorum;
use crate::model::{MemberHealth, NodeType, VmState};
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

impl Verdict {
    /// True unless [`Verdict::Fail`].
    pub fn allows(&self) -> bool {
        !matches!(self, Verdict::Fail { .. })
    }
}

/// True when nodes of type `t` are etcd members (etcd nodes, or control nodes with stacked etcd).
pub fn is_member_type(snap: &Snapshot, t: NodeType) -> bool {
    match t {
        NodeType::Etcd => true,
        NodeType::Control => !snap.record.external_etcd(),
        NodeType::Worker => false,
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
        let voting: Vec<_> = snap.members.iter().filter(|m| !m.learner).collect();
        if voting.is_empty() {
            reasons.push("etcd members unknown".to_string());
        } else {
            let n = voting.len();
            let healthy = voting
                .iter()
                .filter(|m| !batch.contains(&m.name) && m.health == MemberHealth::Healthy)
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
            reasons
                .push("etcd not ready: no API server answered /readyz/etcd with 200".to_string());
        }
        if !snap.api_up.iter().any(|n| !batch.contains(n)) {
            reasons.push("no other control node serves the API (/readyz)".to_string());
        }
    }
    if reasons.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Fail { reasons }
    }
}
