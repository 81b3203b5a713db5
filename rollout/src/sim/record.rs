//! What the engine did in a step, noted at the call (before the call changes the world) for
//! [`super::invariants::check`] to judge after the step.

use super::act::{Act, RECHECK_WINDOW};
use super::world::World;
use crate::model::{NodeType, ROLLOUT_ANNOTATION, Readiness, VmState};
use crate::ports::{PortError, PortErrorKind, PortResult};

fn push(w: &mut World, act: Act) {
    w.acts.push(act);
}

/// A phase step on `node` (nodes already out of service, stopped or annotated by an earlier
/// run, are finished first and are not phase steps).
pub fn touch(w: &mut World, node: &str) {
    let t = w
        .vms
        .get(node)
        .filter(|v| v.state == VmState::Running)
        .filter(|v| {
            v.node
                .as_ref()
                .is_none_or(|n| !n.annotations.contains_key(ROLLOUT_ANNOTATION))
        })
        .map(|v| v.node_type);
    if let Some(node_type) = t {
        push(
            w,
            Act::Touch {
                node: node.to_string(),
                node_type,
            },
        );
    }
}

/// The engine stops `node`.
pub fn stop(w: &mut World, node: &str) {
    let Some(t) = w.vms.get(node).map(|v| v.node_type) else {
        return;
    };
    let step = w.step;
    let in_window = crate::engine::window::any_open(&w.windows, w.epoch + w.now);
    push(
        w,
        Act::StopVm {
            node: node.to_string(),
            in_window,
        },
    );
    if t == w.member_type() {
        let (seen, at) = &w.health_seen;
        let healthy_others = seen
            .iter()
            .filter(|(n, h)| n.as_str() != node && **h)
            .count();
        let need = crate::engine::safety::quorum(w.member_health().len());
        let since_look = step.saturating_sub(*at);
        push(
            w,
            Act::StopMember {
                node: node.to_string(),
                healthy_others,
                need,
                since_look,
            },
        );
    }
    if t == NodeType::Control {
        let other_api_seen = w
            .api_seen
            .iter()
            .any(|(n, (up, at))| n != node && *up && step.saturating_sub(*at) <= RECHECK_WINDOW);
        push(
            w,
            Act::StopControl {
                node: node.to_string(),
                other_api_seen,
            },
        );
    }
}

/// A setting of `node`'s VM changes; the simulated cloud refuses it unless the VM is stopped.
pub fn change(w: &mut World, node: &str, call: &'static str) -> PortResult<()> {
    let state = w.vms.get(node).map(|v| v.state.clone());
    let stopped = state == Some(VmState::Stopped);
    push(
        w,
        Act::Change {
            node: node.to_string(),
            call,
            state,
        },
    );
    if stopped {
        Ok(())
    } else {
        Err(PortError::new(
            PortErrorKind::Refused,
            format!("{call}: VM of {node} must be stopped"),
        ))
    }
}

/// The engine annotates `node`.
pub fn annotate(w: &mut World, node: &str) {
    let foreign_cordon = w
        .vms
        .get(node)
        .and_then(|v| v.node.as_ref())
        .is_some_and(|n| n.unschedulable && !n.annotations.contains_key(ROLLOUT_ANNOTATION));
    push(
        w,
        Act::Annotate {
            node: node.to_string(),
            foreign_cordon,
        },
    );
}

/// The engine uncordons `node`.
pub fn uncordon(w: &mut World, node: &str) {
    let annotated = w
        .vms
        .get(node)
        .and_then(|v| v.node.as_ref())
        .is_some_and(|n| n.annotations.contains_key(ROLLOUT_ANNOTATION));
    push(
        w,
        Act::Uncordon {
            node: node.to_string(),
            annotated,
        },
    );
}

/// The engine marks `node` done (uncordon, or annotation removal with `finished`).
pub fn done(w: &mut World, node: &str, finished: bool) {
    let Some(v) = w.vms.get(node) else {
        return;
    };
    if let Some(before) = v.stopped_boot.clone() {
        let (boot, ready) = v.node.as_ref().map_or((String::new(), false), |n| {
            (n.boot_id.clone(), n.ready == Readiness::True)
        });
        push(
            w,
            Act::Done {
                node: node.to_string(),
                boot,
                before,
                ready,
            },
        );
    }
    if finished && let Some(v) = w.vms.get_mut(node) {
        v.stopped_boot = None;
        v.external_down = false;
    }
}
