//! The safety invariants: one function, [`check`], called after every simulated step. A
//! violation names the invariant, the step and the nodes.

use super::act::{Act, RECHECK_WINDOW};
use super::violation::Violation;
use super::world::World;
use crate::model::{NodeType, ROLLOUT_ANNOTATION};
use std::collections::BTreeSet;

fn phase_index(t: NodeType) -> usize {
    match t {
        NodeType::Etcd => 0,
        NodeType::Control => 1,
        NodeType::Worker => 2,
    }
}

/// The nodes the engine has disrupted: cordoned with its annotation, or stopped by it (nodes
/// that were down before it touched them aside, until it is done with them).
pub fn disrupted(w: &World) -> Vec<(NodeType, String)> {
    w.vms
        .values()
        .filter(|v| !v.external_down)
        .filter(|v| {
            v.engine_stopped
                || v.node.as_ref().is_some_and(|n| {
                    n.unschedulable && n.annotations.contains_key(ROLLOUT_ANNOTATION)
                })
        })
        .map(|v| (v.node_type, v.name.clone()))
        .collect()
}

/// Every invariant, over the world after a step and the engine's acts in it:
/// - `worker-budget`, `one-control-or-etcd`, `one-type-at-a-time`: at most the clamped number
///   of workers, or one control or etcd node, disrupted by the engine;
/// - `phases-in-order`: etcd, then control, then workers;
/// - `etcd-quorum`: a member is stopped only with a quorum of the others healthy, as seen by a
///   health check just before;
/// - `api-availability`: a control node is stopped only with another API server serving;
/// - `stop-inside-window`: with maintenance windows given, a VM is stopped only while one is
///   open;
/// - `change-only-while-stopped`: offerings, disks and groups change only on stopped VMs;
/// - `never-annotate-foreign-cordon`, `uncordon-only-annotated`: only nodes the engine
///   annotated are uncordoned by it;
/// - `one-engine-at-a-time`: no engine acts on the cluster (cordon, drain, stop, change,
///   start, uncordon, state change) once another engine acted on it since its rollout began;
/// - `no-uncordon-without-new-boot-id`: a node that went down (stopped by the engine, found
///   stopped, or started again by an earlier run) is uncordoned or released only Ready with a
///   boot ID other than the one before it went down.
///
/// Checked once the update call returns, by [`check_end`]:
/// - `release-leaves-updating`: a rollout that ran (and kept its lease) never leaves the cluster
///   `Updating`;
/// - `healthy-end-is-running`: a cluster healthy all through its release ends `Running`.
///
/// Checked over several runs, by [`check_cancels`]:
/// - `cancel-earlier-restarts-no-more`: a cancel asked earlier never restarts more nodes than
///   one asked later.
pub fn check(w: &mut World) -> Option<Violation> {
    let step = w.step;
    if !healthy(w).is_empty() {
        w.unhealthy_at = step;
    }
    let mut found: Vec<(&'static str, Vec<String>, String)> = Vec::new();
    // Named first: every other rule assumes one engine.
    if let Some(detail) = w.engines.check(step) {
        found.push(("one-engine-at-a-time", vec![], detail));
    }
    for act in std::mem::take(&mut w.acts) {
        match act {
            Act::Touch { node, node_type } => {
                if let Some(p) = w.phase
                    && phase_index(node_type) < phase_index(p)
                {
                    found.push((
                        "phases-in-order",
                        vec![node],
                        format!("a {node_type} node after the {p} phase began"),
                    ));
                } else if w
                    .phase
                    .is_none_or(|p| phase_index(node_type) > phase_index(p))
                {
                    w.phase = Some(node_type);
                }
            }
            Act::StopMember {
                node,
                healthy_others,
                need,
                since_look,
            } => {
                if since_look > RECHECK_WINDOW {
                    found.push((
                        "etcd-quorum",
                        vec![node],
                        format!("stopped a member {since_look} steps after the last health check"),
                    ));
                } else if healthy_others < need {
                    found.push(("etcd-quorum", vec![node], format!("stopped a member with {healthy_others} other healthy members, quorum {need}")));
                }
            }
            Act::StopVm { node, in_window } => {
                if !in_window {
                    found.push((
                        "stop-inside-window",
                        vec![node],
                        format!(
                            "stopped at {} with every maintenance window closed",
                            crate::engine::window::shown(w.epoch + w.now)
                        ),
                    ));
                }
            }
            Act::StopControl {
                node,
                other_api_seen,
            } => {
                if !other_api_seen {
                    found.push((
                        "api-availability",
                        vec![node],
                        "stopped a control node with no other API server seen serving just before"
                            .into(),
                    ));
                }
            }
            Act::Change { node, call, state } => {
                if state != Some(crate::model::VmState::Stopped) {
                    found.push((
                        "change-only-while-stopped",
                        vec![node],
                        format!("{call} while the VM is {state:?}"),
                    ));
                }
            }
            Act::Annotate {
                node,
                foreign_cordon,
            } => {
                if foreign_cordon {
                    found.push((
                        "never-annotate-foreign-cordon",
                        vec![node],
                        "annotated a node someone else cordoned".into(),
                    ));
                }
            }
            Act::Uncordon { node, annotated } => {
                if !annotated {
                    found.push((
                        "uncordon-only-annotated",
                        vec![node],
                        "uncordoned a node without the rollout annotation".into(),
                    ));
                }
            }
            Act::Done {
                node,
                boot,
                before,
                ready,
            } => {
                if boot == before || !ready {
                    found.push((
                        "no-uncordon-without-new-boot-id",
                        vec![node],
                        format!(
                            "done with boot ID {boot} (before the stop: {before}), ready={ready}"
                        ),
                    ));
                }
            }
        }
    }
    let d = disrupted(w);
    let names = |t: Option<NodeType>| -> Vec<String> {
        d.iter()
            .filter(|(x, _)| t.is_none_or(|t| *x == t))
            .map(|(_, n)| n.clone())
            .collect()
    };
    let types: BTreeSet<NodeType> = d.iter().map(|(t, _)| *t).collect();
    if types.len() > 1 {
        found.push((
            "one-type-at-a-time",
            names(None),
            format!("disrupted types {types:?}"),
        ));
    }
    let workers = names(Some(NodeType::Worker));
    if workers.len() as u32 > w.worker_budget {
        let detail = format!(
            "{} workers disrupted, budget {}",
            workers.len(),
            w.worker_budget
        );
        found.push(("worker-budget", workers, detail));
    }
    for t in [NodeType::Control, NodeType::Etcd] {
        let n = names(Some(t));
        if n.len() > 1 {
            let detail = format!("{} {t} nodes disrupted", n.len());
            found.push(("one-control-or-etcd", n, detail));
        }
    }
    found
        .into_iter()
        .next()
        .map(|(invariant, nodes, detail)| Violation {
            invariant,
            step,
            nodes,
            detail,
        })
}

/// Why the world is not healthy (empty when it is): a VM not Running, a node not Ready, etcd
/// without quorum, no API server, or a node out of date on a type that cannot lose a node.
pub fn healthy(w: &World) -> Vec<String> {
    use crate::engine::outdated::{changes_for, dedication_ids};
    use crate::engine::safety::cannot_lose_a_node;
    use crate::model::{Readiness, Vm, VmState, Volume, VolumeKind};
    let mut out = Vec::new();
    let dedication = dedication_ids(&w.groups);
    for v in w.vms.values() {
        if v.state != VmState::Running {
            out.push(format!("{} is {:?}", v.name, v.state));
        }
        if v.node.as_ref().is_some_and(|n| n.ready != Readiness::True) {
            out.push(format!("{} not Ready", v.name));
        }
        if cannot_lose_a_node(&w.record, v.node_type) {
            let vm = Vm {
                id: v.id.clone(),
                name: v.name.clone(),
                node_name: v.name.clone(),
                node_type: v.node_type,
                state: v.state.clone(),
                service_offering_id: v.offering.clone(),
                affinity_group_ids: v.groups.clone(),
                ip_addresses: vec![],
            };
            let root = Volume {
                id: v.root_id.clone(),
                vm_id: v.id.clone(),
                kind: VolumeKind::Root,
                size_gb: v.root_gb,
                disk_offering_id: v.root_offering.clone(),
            };
            if !changes_for(&w.record, &vm, &[root], &dedication).is_empty() {
                out.push(format!(
                    "{} out of date on a type that cannot lose a node",
                    v.name
                ));
            }
        }
    }
    if !w.etcd_quorum() {
        out.push("etcd without quorum".into());
    }
    if !w.vms.keys().any(|n| w.api_serving(n)) {
        out.push("no API server".into());
    }
    out
}

/// The end-of-call invariants, once the update call returned (not after a crash).
pub fn check_end(w: &World, rolled_out: bool, lost_lease: bool) -> Option<Violation> {
    use crate::model::ClusterState;
    if !rolled_out || lost_lease {
        return None;
    }
    let fail = |invariant, detail: String| {
        Some(Violation {
            invariant,
            step: w.step,
            nodes: vec![],
            detail,
        })
    };
    if w.record.state == ClusterState::Updating {
        return fail(
            "release-leaves-updating",
            "the rollout ended and left the cluster Updating".into(),
        );
    }
    if w.record.state == ClusterState::Alert && w.unhealthy_at < w.last_load_step {
        return fail(
            "healthy-end-is-running",
            format!(
                "ended in Alert though the cluster was healthy all through its release (lasterror: {:?})",
                w.record.last_error
            ),
        );
    }
    None
}

/// `cancel-earlier-restarts-no-more` over runs with a cancel at different steps: `restarts`
/// holds, per cancel step (in increasing order), the nodes the run restarted.
pub fn check_cancels(restarts: &[(u64, u32)]) -> Option<Violation> {
    for pair in restarts.windows(2) {
        let ((early, a), (late, b)) = (pair[0], pair[1]);
        if a > b {
            return Some(Violation {
                invariant: "cancel-earlier-restarts-no-more",
                step: early,
                nodes: vec![],
                detail: format!(
                    "a cancel at step {early} restarted {a} node(s), one at step {late} only {b}"
                ),
            });
        }
    }
    None
}
