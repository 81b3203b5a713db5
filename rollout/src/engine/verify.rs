//! The last step of a batch: wait until each node is back, up to date, with a new boot ID (the
//! design's two conditions); a reported capacity unlike the offering's is a warning, not a wait.

use super::batch::Work;
use super::error::EngineError;
use super::error::NotBack;
use super::members::member_of;
use super::observe::{Snapshot, observe_cloud_or, observe_live};
use super::outdated::capacity_warning;
use super::preflight::is_member_type;
use super::progress::StepKind;
use super::run::Runner;
use crate::model::{ClusterRecord, MemberHealth, NodeType, VmState};
use std::time::Duration;

impl Runner<'_, '_> {
    /// Wait until every node is Running, up to date and Ready with a new boot ID (etcd nodes:
    /// member healthy); a node reporting another capacity than its offering's is named in the
    /// step's detail as a warning. `known` (the batch's record) judges "up to
    /// date" while the store does not answer, so nodes that are down are still seen coming back.
    pub(super) fn verify(
        &mut self,
        n: usize,
        t: NodeType,
        work: &mut [Work],
        deadline: Duration,
        known: &ClusterRecord,
    ) -> Result<(), EngineError> {
        let mut pending: Vec<usize> = (0..work.len()).collect();
        loop {
            let mut why = Vec::new();
            match observe_cloud_or(self.ports, &self.cluster, known) {
                Err(e) => why.push(e.to_string()),
                Ok(mut snap) => {
                    observe_live(self.ports, &mut snap);
                    let mut still = Vec::new();
                    for &i in &pending {
                        match node_verdict(&snap, t, &work[i]) {
                            Ok(warning) => {
                                let detail = match warning {
                                    Some(w) => format!(
                                        "up to date, Ready with a new boot ID; warning: {w}"
                                    ),
                                    None => "up to date, Ready with a new boot ID".to_string(),
                                };
                                self.emit(Some(n), Some(&work[i].node), StepKind::Verify, detail);
                            }
                            Err(e) => {
                                why.push(e.to_string());
                                still.push(i);
                            }
                        }
                    }
                    pending = still;
                }
            }
            if pending.is_empty() {
                return Ok(());
            }
            if self.ports.clock.now() >= deadline {
                return Err(EngineError::NotVerified {
                    batch: n,
                    seconds: self.cfg.batch_timeout.as_secs(),
                    why,
                });
            }
            self.pause()?;
        }
    }
}

/// `Ok` once the node meets the design's conditions, with the capacity warning if any.
fn node_verdict(snap: &Snapshot, t: NodeType, w: &Work) -> Result<Option<String>, NotBack> {
    let name = &w.node;
    let node_name = || name.clone();
    let vm = snap
        .vm_by_node(name)
        .ok_or_else(|| NotBack::VmGone { node: node_name() })?;
    if vm.state != VmState::Running {
        return Err(NotBack::VmNotRunning {
            node: node_name(),
            state: vm.state.clone(),
        });
    }
    let left = snap.changes_of(vm);
    if !left.is_empty() {
        return Err(NotBack::StillDiffers {
            node: node_name(),
            changes: format!("{left:?}"),
        });
    }
    if is_member_type(snap, t) {
        let member = member_of(vm, &snap.members).map_err(NotBack::MemberUnknown)?;
        if member.health != MemberHealth::Healthy {
            return Err(NotBack::MemberUnhealthy {
                node: node_name(),
                member: member.name.clone(),
            });
        }
    }
    if t == NodeType::Etcd {
        return Ok(None);
    }
    let node = snap
        .node(name)
        .ok_or_else(|| NotBack::NotReported { node: node_name() })?;
    if !node.is_ready() {
        return Err(NotBack::NotReady { node: node_name() });
    }
    if w.old_boot.as_deref() == Some(node.boot_id.as_str()) {
        return Err(NotBack::SameBoot {
            node: node_name(),
            boot_id: node.boot_id.clone(),
        });
    }
    Ok(snap
        .offering(&vm.service_offering_id)
        .and_then(|offering| capacity_warning(name, offering, node)))
}
