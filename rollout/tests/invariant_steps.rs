//! Each per-step invariant is shown to catch a deliberate breakage: a real simulated rollout,
//! with one step the engine never takes injected through the ports at a named point, must be
//! stopped by the checker naming the broken rule and the node. (The end-of-run, cross-run,
//! window and lease invariants: invariant_breakage.rs.)

use crate::common::{cfg, cluster, offerings, run_ok};
use cks_rollout::engine::{Event, Progress, StepKind, UpdateRequest};
use cks_rollout::model::{Endpoint, ROLLOUT_ANNOTATION};
use cks_rollout::ports::{JobCall, Ports};
use cks_rollout::sim::{ClusterSpec, SimPorts, Simulation, Violation};

/// A broken engine: at the first `step` of `node`, it also does `act` through the ports.
struct BreakAt<F> {
    ports: SimPorts,
    node: &'static str,
    step: StepKind,
    act: F,
    done: bool,
}

impl<F: FnMut(&mut Ports<'_>)> Progress for BreakAt<F> {
    fn on_event(&mut self, e: &Event) {
        if !self.done && e.step == self.step && e.node.as_deref() == Some(self.node) {
            self.done = true;
            (self.act)(&mut self.ports.ports());
        }
    }
}

/// The violation a rollout of `req` on `spec` meets when `act` runs at `node`'s `step`; the
/// same rollout without it keeps every rule.
fn broken(
    spec: &ClusterSpec,
    req: &UpdateRequest,
    node: &'static str,
    step: StepKind,
    act: impl FnMut(&mut Ports<'_>),
) -> Violation {
    let sim = Simulation::new(spec, 4).expect("simulable");
    let mut hook = BreakAt {
        ports: sim.ports(),
        node,
        step,
        act,
        done: false,
    };
    let run = sim.run_with(req, &cfg(), &mut hook);
    assert!(hook.done, "{node} reached {step:?}");
    let clean = Simulation::new(spec, 4).expect("simulable");
    run_ok(&clean, req);
    run.violation.expect("the checker fires")
}

/// `node` cordoned with the rollout annotation, as the engine marks a node it takes down.
fn take_down(p: &mut Ports<'_>, node: &str) {
    let _ = p
        .kube
        .set_annotation(&Endpoint::Cluster, node, ROLLOUT_ANNOTATION, Some("boot"));
    let _ = p.kube.set_unschedulable(&Endpoint::Cluster, node, true);
}

fn vm_id(spec: &ClusterSpec, node: &str) -> String {
    let sim = Simulation::new(spec, 4).expect("simulable");
    sim.world().vms[node].id.clone()
}

#[test]
fn a_second_worker_taken_down_beyond_maxunavailable_is_named_by_the_checker() {
    let v = broken(
        &cluster(3, 0, 3),
        &offerings(&[("worker", "medium")]),
        "w-1",
        StepKind::Cordon,
        |p| take_down(p, "w-2"),
    );
    assert_eq!(v.invariant, "worker-budget", "{v}");
    assert_eq!(v.nodes, vec!["w-1".to_string(), "w-2".to_string()], "{v}");
}

#[test]
fn a_second_control_node_taken_down_is_named_by_the_checker() {
    let v = broken(
        &cluster(3, 0, 3),
        &offerings(&[("control", "medium")]),
        "c-1",
        StepKind::Cordon,
        |p| take_down(p, "c-2"),
    );
    assert_eq!(v.invariant, "one-control-or-etcd", "{v}");
    assert_eq!(v.nodes, vec!["c-1".to_string(), "c-2".to_string()], "{v}");
}

#[test]
fn a_worker_taken_down_while_a_control_node_is_down_is_named_by_the_checker() {
    let v = broken(
        &cluster(3, 0, 3),
        &offerings(&[("control", "medium")]),
        "c-1",
        StepKind::Cordon,
        |p| take_down(p, "w-1"),
    );
    assert_eq!(v.invariant, "one-type-at-a-time", "{v}");
    assert_eq!(v.nodes, vec!["c-1".to_string(), "w-1".to_string()], "{v}");
}

#[test]
fn a_control_node_touched_after_the_worker_phase_began_is_named_by_the_checker() {
    let v = broken(
        &cluster(3, 0, 3),
        &offerings(&[("control", "medium"), ("worker", "medium")]),
        "w-1",
        StepKind::Cordon,
        |p| {
            let _ =
                p.kube
                    .set_annotation(&Endpoint::Cluster, "c-1", ROLLOUT_ANNOTATION, Some("boot"));
        },
    );
    assert_eq!(v.invariant, "phases-in-order", "{v}");
    assert_eq!(v.nodes, vec!["c-1".to_string()], "{v}");
}

#[test]
fn an_etcd_member_stopped_without_a_fresh_health_check_is_named_by_the_checker() {
    let spec = cluster(3, 3, 3);
    let e2 = vm_id(&spec, "e-2");
    let v = broken(
        &spec,
        &offerings(&[("worker", "medium")]),
        "w-1",
        StepKind::StartVm,
        move |p| {
            let _ = p.cloud.begin_job(JobCall::StopVm(&e2));
        },
    );
    assert_eq!(v.invariant, "etcd-quorum", "{v}");
    assert_eq!(v.nodes, vec!["e-2".to_string()], "{v}");
}

#[test]
fn a_control_node_stopped_without_another_api_server_seen_is_named_by_the_checker() {
    let spec = cluster(3, 3, 3);
    let c2 = vm_id(&spec, "c-2");
    let v = broken(
        &spec,
        &offerings(&[("worker", "medium")]),
        "w-1",
        StepKind::StartVm,
        move |p| {
            let _ = p.cloud.begin_job(JobCall::StopVm(&c2));
        },
    );
    assert_eq!(v.invariant, "api-availability", "{v}");
    assert_eq!(v.nodes, vec!["c-2".to_string()], "{v}");
}

#[test]
fn an_offering_changed_on_a_running_vm_is_named_by_the_checker() {
    let spec = cluster(3, 0, 3);
    let w2 = vm_id(&spec, "w-2");
    let v = broken(
        &spec,
        &offerings(&[("worker", "medium")]),
        "w-1",
        StepKind::Cordon,
        move |p| {
            let _ = p.cloud.change_offering(&w2, "medium");
        },
    );
    assert_eq!(v.invariant, "change-only-while-stopped", "{v}");
    assert_eq!(v.nodes, vec!["w-2".to_string()], "{v}");
}

#[test]
fn annotating_a_node_someone_else_cordoned_is_named_by_the_checker() {
    let v = broken(
        &cluster(3, 0, 3),
        &offerings(&[("worker", "medium")]),
        "w-1",
        StepKind::Cordon,
        |p| {
            let _ = p.kube.set_unschedulable(&Endpoint::Cluster, "w-3", true);
            let _ =
                p.kube
                    .set_annotation(&Endpoint::Cluster, "w-3", ROLLOUT_ANNOTATION, Some("boot"));
        },
    );
    assert_eq!(v.invariant, "never-annotate-foreign-cordon", "{v}");
    assert_eq!(v.nodes, vec!["w-3".to_string()], "{v}");
}

#[test]
fn uncordoning_a_node_without_the_rollout_annotation_is_named_by_the_checker() {
    let v = broken(
        &cluster(3, 0, 3),
        &offerings(&[("worker", "medium")]),
        "w-1",
        StepKind::Cordon,
        |p| {
            let _ = p.kube.set_unschedulable(&Endpoint::Cluster, "w-3", true);
            let _ = p.kube.set_unschedulable(&Endpoint::Cluster, "w-3", false);
        },
    );
    assert_eq!(v.invariant, "uncordon-only-annotated", "{v}");
    assert_eq!(v.nodes, vec!["w-3".to_string()], "{v}");
}
