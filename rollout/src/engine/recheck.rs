//! The check just before a control or etcd node is stopped: another API server serves, and
//! the other etcd members (the node's own found by address) keep quorum.

use super::error::UnsafeStop;
use super::members::member_of;
use super::observe::Snapshot;
use super::run::Runner;
use super::safety::quorum;
use crate::model::{Endpoint, MemberHealth, NodeType, ReadyzCheck, VmState};

impl Runner<'_, '_> {
    /// Just before stopping a control or etcd node: another API server still serves and the
    /// other etcd members still have quorum.
    /// For a control node, `ep` moves to another control node if the chosen one stopped serving.
    pub(super) fn recheck(
        &mut self,
        t: NodeType,
        snap: &Snapshot,
        avoid: &[String],
        node: &str,
        ep: &mut Endpoint,
    ) -> Result<(), UnsafeStop> {
        if t == NodeType::Worker {
            return Ok(());
        }
        if t == NodeType::Control && self.ports.kube.readyz(ep, ReadyzCheck::All) != Ok(true) {
            let others: Vec<Endpoint> = snap
                .vms_of(NodeType::Control)
                .filter(|v| !avoid.contains(&v.node_name) && v.state == VmState::Running)
                .map(|v| Endpoint::Control(v.node_name.clone()))
                .filter(|e| e != ep)
                .collect();
            let serving = others
                .into_iter()
                .find(|e| self.ports.kube.readyz(e, ReadyzCheck::All) == Ok(true));
            match serving {
                Some(e) => *ep = e,
                None => {
                    return Err(UnsafeStop::NoOtherApi {
                        node: node.to_string(),
                    });
                }
            }
        }
        let members = self
            .ports
            .etcd
            .members()
            .map_err(|source| UnsafeStop::EtcdUnreadable {
                node: node.to_string(),
                source,
            })?;
        // The node's own member (stacked or external etcd) does not count: it is going down.
        let own = if super::preflight::is_member_type(snap, t) {
            let vm = snap.vm_by_node(node).ok_or_else(|| UnsafeStop::VmGone {
                node: node.to_string(),
            })?;
            Some(member_of(vm, &members).map_err(|e| UnsafeStop::MemberUnknown(Box::new(e)))?)
        } else {
            None
        };
        let voting: Vec<_> = members.iter().filter(|m| !m.learner).collect();
        let healthy = voting
            .iter()
            .filter(|m| own.is_none_or(|o| !std::ptr::eq(**m, o)))
            .filter(|m| m.health == MemberHealth::Healthy)
            .count();
        let need = quorum(voting.len());
        if voting.is_empty() || healthy < need || members.iter().any(|m| m.learner) {
            return Err(UnsafeStop::NoQuorum {
                node: node.to_string(),
                member: own.map(|o| o.name.clone()),
                healthy,
                need,
                voting: voting.len(),
            });
        }
        Ok(())
    }
}
