//! Nodes an earlier run left annotated, Ready with the annotated boot ID on a Running VM that is
//! up to date: before planning, the engine waits (at most the boot wait, 600 s) for a new boot.
//! One that comes back is uncordoned as finished; one Ready with its old boot ID all through the
//! wait never went down and is uncordoned too; neither is restarted. One that goes NotReady in
//! the wait is left to its batch; one that cannot be looked at ends the wait at the boot wait.

use crate::common::{cluster, first_step, offerings, report, run_ok};
use cks_rollout::engine::{RolloutReport, StepKind};
use cks_rollout::model::{ClusterState, ROLLOUT_ANNOTATION};
use cks_rollout::sim::{ClusterSpec, Fault, NodeOverride, SimRun, Simulation};

/// A 3+0+3 cluster whose w-2 an earlier run annotated with its boot ID and cordoned, already
/// on the new offering; with `restarting`, started again, its kubelet posting the new boot 45 s
/// in.
fn unsure_w2(restarting: bool) -> ClusterSpec {
    let mut spec = cluster(3, 0, 3);
    spec.nodes.push(NodeOverride {
        node: "w-2".into(),
        offering: Some("medium".into()),
        cordoned: true,
        restarting,
        annotations: [(ROLLOUT_ANNOTATION.to_string(), "boot-w-2-0".to_string())].into(),
        ..Default::default()
    });
    spec.state = ClusterState::Alert;
    spec
}

fn rolled(spec: &ClusterSpec) -> (Simulation, SimRun) {
    let sim = Simulation::new(spec, 3).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    (sim, run)
}

/// When w-2 was settled, and what was said of it.
fn settled_w2(r: &RolloutReport) -> Option<(u64, String)> {
    r.events
        .iter()
        .find(|e| e.step == StepKind::Settle && e.node.as_deref() == Some("w-2"))
        .map(|e| (e.at_ms, e.detail.clone()))
}

/// The step of the engine's first look at w-2 when `spec` is rolled out.
fn first_look_at_w2(spec: &ClusterSpec) -> u64 {
    let (probe, _) = rolled(spec);
    first_step(&probe, "kube.get_node(w-2)")
}

/// When the rollout announced its plan.
fn planned_at(r: &RolloutReport) -> u64 {
    r.events
        .iter()
        .find(|e| e.step == StepKind::Start)
        .map(|e| e.at_ms)
        .expect("a plan")
}

#[test]
fn a_node_whose_new_boot_comes_in_the_wait_is_uncordoned_as_finished_before_the_plan() {
    let (sim, run) = rolled(&unsure_w2(true));
    let r = report(&run);
    let (at, said) = settled_w2(r).expect("w-2 settled");
    assert_eq!(said, "came back after an earlier run");
    assert!(
        (45_000..600_000).contains(&at),
        "settled once its new boot posted, at {at} ms"
    );
    assert!(planned_at(r) >= at, "settled before the plan");
    let w = sim.world();
    assert_eq!(w.vms["w-2"].engine_stops, 0, "not restarted");
    let n = w.vms["w-2"].node.as_ref().expect("w-2's node");
    assert!(!n.unschedulable && n.annotations.is_empty());
    assert_eq!(w.record.state, ClusterState::Running);
}

#[test]
fn a_node_ready_with_its_old_boot_all_through_the_wait_never_went_down_and_is_uncordoned() {
    let (sim, run) = rolled(&unsure_w2(false));
    let r = report(&run);
    let (at, said) = settled_w2(r).expect("w-2 settled");
    assert_eq!(
        said,
        "never went down: Ready with its boot ID all through the wait"
    );
    assert_eq!(at, 600_000, "settled when the boot wait ran out");
    assert!(planned_at(r) >= at, "settled before the plan");
    let w = sim.world();
    assert_eq!(w.vms["w-2"].engine_stops, 0, "not restarted");
    let n = w.vms["w-2"].node.as_ref().expect("w-2's node");
    assert!(!n.unschedulable && n.annotations.is_empty());
}

#[test]
fn a_node_that_goes_not_ready_in_the_wait_is_left_to_its_batch() {
    let spec = unsure_w2(false);
    // The step of the engine's first look at w-2 in the wait; it turns NotReady just after.
    let first_look = first_look_at_w2(&spec);
    let mut spec = spec;
    spec.faults.push(Fault::NodeNotReady {
        node: "w-2".into(),
        at_step: first_look + 1,
        until_step: None,
    });
    let (sim, run) = rolled(&spec);
    let r = report(&run);
    assert_eq!(settled_w2(r), None, "w-2 was not settled");
    assert!(
        planned_at(r) < 600_000,
        "the wait ended when w-2 went NotReady, not at the boot wait"
    );
    assert!(
        sim.world().vms["w-2"].engine_stops >= 1,
        "its batch restarted it"
    );
}

#[test]
fn a_node_that_cannot_be_looked_at_ends_the_wait_at_the_boot_wait_unsettled() {
    let spec = unsure_w2(false);
    let first_look = first_look_at_w2(&spec);
    // The API server the wait looks through stops answering after its first look at w-2.
    let mut spec = spec;
    spec.faults.push(Fault::ApiDown {
        node: "c-1".into(),
        at_step: first_look + 1,
        until_step: None,
    });
    let sim = Simulation::new(&spec, 3).expect("simulable");
    let run = sim.run(&offerings(&[("worker", "medium")]), &crate::common::cfg());
    let r = report(&run);
    assert_eq!(settled_w2(r), None, "w-2 was not settled");
    assert!(
        planned_at(r) >= 600_000,
        "the wait went on to the boot wait, then the plan"
    );
}
