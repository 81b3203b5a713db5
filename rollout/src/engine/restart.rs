//! `run --restart`: which nodes to restart although their settings do not differ — every
//! node, those of one type, or those where `/var/run/reboot-required` exists (asked through
//! the hooks port, over SSH on a real cluster). They then go the same safe path as a change.

use super::config::RestartScope;
use super::error::EngineError;
use super::observe::Snapshot;
use super::run::Runner;
use crate::model::{NodeType, VmState};
use std::collections::BTreeSet;

impl Runner<'_, '_> {
    /// The Running nodes `scope` names in `snap`.
    pub(super) fn restart_set(
        &mut self,
        scope: RestartScope,
        snap: &Snapshot,
    ) -> Result<BTreeSet<String>, EngineError> {
        let of = |t: NodeType| -> BTreeSet<String> {
            snap.vms_of(t)
                .filter(|v| v.state == VmState::Running)
                .map(|v| v.node_name.clone())
                .collect()
        };
        Ok(match scope {
            RestartScope::Control => of(NodeType::Control),
            RestartScope::Worker => of(NodeType::Worker),
            RestartScope::Etcd => of(NodeType::Etcd),
            RestartScope::All => [NodeType::Control, NodeType::Etcd, NodeType::Worker]
                .into_iter()
                .flat_map(of)
                .collect(),
            RestartScope::RebootRequired => {
                let running: Vec<String> = snap
                    .vms
                    .iter()
                    .filter(|v| v.state == VmState::Running)
                    .map(|v| v.node_name.clone())
                    .collect();
                let mut out = BTreeSet::new();
                for node in running {
                    let Some(hooks) = self.ports.hooks.as_mut() else {
                        return Err(EngineError::RebootCheck {
                            node,
                            cause: "this engine has no way to look at the nodes".into(),
                        });
                    };
                    match hooks.reboot_required(&node) {
                        Ok(true) => {
                            out.insert(node);
                        }
                        Ok(false) => {}
                        Err(e) => {
                            return Err(EngineError::RebootCheck {
                                node,
                                cause: e.to_string(),
                            });
                        }
                    }
                }
                out
            }
        })
    }
}
