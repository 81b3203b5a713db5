//! The safety invariants, checked after every simulated step (and at the calls they are about).
//! A violation names the invariant, the step and the nodes.

use super::Violation;
use super::world::World;
use crate::model::{NodeType, ROLLOUT_ANNOTATION, Readiness, VmState};
use crate::ports::{PortError, PortErrorKind, PortResult};

fn violate(w: &mut World, invariant: &'static str, nodes: Vec<String>, detail: String) {
    if w.violation.is_none() {
        w.violation = Some(Violation {
            invariant,
            step: w.step,
            nodes,
            detail,
        });
    }
}

fn phase_index(t: NodeType) -> usize {
    match t {
        NodeType::Etcd => 0,
        NodeType::Control => 1,
        NodeType::Worker => 2,
    }
}

/// The nodes the engine has disrupted: cordoned with its annotation, or stopped by it.
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

/// State invariants after every step: at most the clamped number of workers, or one control or
/// etcd node, disrupted by the engine, and never two types at once.
pub fn check_state(w: &mut World) {
    let d = disrupted(w);
    let names = |t: Option<NodeType>| -> Vec<String> {
        d.iter()
            .filter(|(x, _)| t.is_none_or(|t| *x == t))
            .map(|(_, n)| n.clone())
            .collect()
    };
    let types: std::collections::BTreeSet<NodeType> = d.iter().map(|(t, _)| *t).collect();
    if types.len() > 1 {
        violate(
            w,
            "one-type-at-a-time",
            names(None),
            format!("disrupted types {types:?}"),
        );
    }
    let workers = names(Some(NodeType::Worker));
    if workers.len() as u32 > w.worker_budget {
        let detail = format!(
            "{} workers disrupted, budget {}",
            workers.len(),
            w.worker_budget
        );
        violate(w, "worker-budget", workers, detail);
    }
    for t in [NodeType::Control, NodeType::Etcd] {
        let n = names(Some(t));
        if n.len() > 1 {
            violate(
                w,
                "one-control-or-etcd",
                n,
                format!("{} {t} nodes disrupted", d.len()),
            );
        }
    }
}

/// The engine touches (annotates, cordons, stops) `node`: phases must be in order. Nodes already
/// out of service (stopped, or annotated by an earlier run) are finished first and are not
/// steps of a phase.
pub fn touch(w: &mut World, node: &str) {
    let Some(t) = w
        .vms
        .get(node)
        .filter(|v| v.state == VmState::Running)
        .filter(|v| {
            v.node
                .as_ref()
                .is_none_or(|n| !n.annotations.contains_key(ROLLOUT_ANNOTATION))
        })
        .map(|v| v.node_type)
    else {
        return;
    };
    if let Some(p) = w.phase
        && phase_index(t) < phase_index(p)
    {
        violate(
            w,
            "phases-in-order",
            vec![node.to_string()],
            format!("touched a {t} node after the {p} phase began"),
        );
    }
    if w.phase.is_none_or(|p| phase_index(t) > phase_index(p)) {
        w.phase = Some(t);
    }
}

/// Steps within which the engine must have looked before stopping a member or control node.
pub const RECHECK_WINDOW: u64 = 3;

/// The engine stops `node`: it looked at etcd health (for a member) and another API server (for
/// a control node) within [`RECHECK_WINDOW`] steps, and what it saw kept quorum and the API.
pub fn on_stop(w: &mut World, node: &str) {
    let Some(t) = w.vms.get(node).map(|v| v.node_type) else {
        return;
    };
    let step = w.step;
    if t == w.member_type() {
        let (healthy, need, seen) = super::ports::others_healthy(w, node);
        if step.saturating_sub(seen) > RECHECK_WINDOW {
            violate(
                w,
                "etcd-quorum",
                vec![node.to_string()],
                format!("stopped a member without a health check since step {seen}"),
            );
        } else if healthy < need {
            violate(
                w,
                "etcd-quorum",
                vec![node.to_string()],
                format!("stopped a member with {healthy} other healthy members, quorum {need}"),
            );
        }
    }
    if t == NodeType::Control {
        let other = w
            .api_seen
            .iter()
            .any(|(n, (up, at))| n != node && *up && step.saturating_sub(*at) <= RECHECK_WINDOW);
        if !other {
            violate(
                w,
                "api-availability",
                vec![node.to_string()],
                "stopped a control node without another API server seen serving just before"
                    .to_string(),
            );
        }
    }
}

/// A setting of `node`'s VM changes: only while it is stopped.
pub fn on_change(w: &mut World, node: &str, call: &str) -> PortResult<()> {
    let state = w.vms.get(node).map(|v| v.state.clone());
    if state != Some(VmState::Stopped) {
        violate(
            w,
            "change-only-while-stopped",
            vec![node.to_string()],
            format!("{call} while the VM is {state:?}"),
        );
        return Err(PortError::new(
            PortErrorKind::Refused,
            format!("{call}: VM of {node} must be stopped"),
        ));
    }
    Ok(())
}

/// The engine annotates `node`: never a node someone else cordoned.
pub fn on_annotate(w: &mut World, node: &str) {
    let cordoned_by_other = w
        .vms
        .get(node)
        .and_then(|v| v.node.as_ref())
        .is_some_and(|n| n.unschedulable && !n.annotations.contains_key(ROLLOUT_ANNOTATION));
    if cordoned_by_other {
        violate(
            w,
            "never-annotate-foreign-cordon",
            vec![node.to_string()],
            "annotated a node someone else cordoned".to_string(),
        );
    }
}

/// The engine uncordons `node`: only nodes it annotated.
pub fn on_uncordon(w: &mut World, node: &str) {
    let annotated = w
        .vms
        .get(node)
        .and_then(|v| v.node.as_ref())
        .is_some_and(|n| n.annotations.contains_key(ROLLOUT_ANNOTATION));
    if !annotated {
        violate(
            w,
            "uncordon-only-annotated",
            vec![node.to_string()],
            "uncordoned a node without the rollout annotation".to_string(),
        );
    }
}

/// The engine marks `node` done (uncordon or annotation removal) after restarting it: only when
/// Ready with a boot ID other than the one before its stop.
pub fn on_done(w: &mut World, node: &str, clear: bool) {
    let Some(v) = w.vms.get(node) else {
        return;
    };
    let Some(before) = v.stopped_boot.clone() else {
        return;
    };
    let (boot, ready) = v.node.as_ref().map_or((String::new(), false), |n| {
        (n.boot_id.clone(), n.ready == Readiness::True)
    });
    if boot == before || !ready {
        violate(
            w,
            "done-only-with-new-boot-id",
            vec![node.to_string()],
            format!("marked done with boot ID {boot} (before stop: {before}), ready={ready}"),
        );
    }
    if clear && let Some(v) = w.vms.get_mut(node) {
        v.stopped_boot = None;
    }
}

/// The engine finished with `node` (its annotation removed): from now on it counts as any node.
pub fn on_finished(w: &mut World, node: &str) {
    if let Some(v) = w.vms.get_mut(node) {
        v.external_down = false;
    }
}
