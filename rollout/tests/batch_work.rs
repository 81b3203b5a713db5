//! Which nodes of a batch still have work when the batch starts, as the batch sees the cluster
//! then (not as the plan saw it): a node another engine finished before its batch is not
//! restarted again, one it restarted is waited for until its new boot (and restarted when none
//! comes within the boot wait), a stopped node already up to date is started, a node someone
//! else brought up to date before its batch is left alone; and what each node back in service
//! is reported as.

use std::collections::BTreeMap;

use crate::common::{Rival, cluster, is_step, offerings, report, run_ok, workers_with};
use cks_rollout::engine::{Event, RolloutReport, StepKind};
use cks_rollout::model::{ClusterState, ROLLOUT_ANNOTATION, VmState};
use cks_rollout::sim::{NodeOverride, Simulation, World};

fn node(name: &str) -> NodeOverride {
    NodeOverride {
        node: name.into(),
        ..Default::default()
    }
}

/// The nodes stopped, in order.
fn stopped(r: &RolloutReport) -> Vec<String> {
    r.events
        .iter()
        .filter(|e| e.step == StepKind::Stop)
        .filter_map(|e| e.node.clone())
        .collect()
}

/// What each node's uncordon step said.
fn back_in_service(r: &RolloutReport) -> BTreeMap<String, String> {
    r.events
        .iter()
        .filter(|e| e.step == StepKind::Uncordon)
        .filter_map(|e| Some((e.node.clone()?, e.detail.clone())))
        .collect()
}

/// `act`, once, when `node`'s batch ends (its uncordon).
fn at_the_end_of(
    node: &'static str,
    mut act: impl FnMut(&mut World),
) -> impl FnMut(&Event, &mut World) {
    move |e, w| {
        if is_step(e, StepKind::Uncordon, node) {
            act(w);
        }
    }
}

#[test]
fn a_node_another_engine_finished_before_its_batch_is_not_restarted_again() {
    let sim = Simulation::new(&cluster(3, 0, 3), 3).expect("simulable");
    // While w-1's batch runs, another engine takes w-2 the way the engine does: annotated with
    // its boot ID, cordoned, moved onto the new offering and started; it is back, Ready with a
    // new boot ID, when w-2's batch starts.
    let mut rival = Rival {
        sim: &sim,
        act: at_the_end_of("w-1", |w: &mut World| {
            let vm = w.vms.get_mut("w-2").expect("w-2");
            vm.offering = "medium".into();
            let old = std::mem::replace(&mut vm.boot_id, "boot-w-2-by-the-other-engine".into());
            if let Some(n) = vm.node.as_mut() {
                n.boot_id = vm.boot_id.clone();
                n.unschedulable = true;
                n.annotations.insert(ROLLOUT_ANNOTATION.into(), old);
            }
        }),
    };
    let run = workers_with(&sim, &mut rival);
    let r = report(&run);
    let planned: Vec<&str> = r.run.plan.phases[0]
        .batches
        .iter()
        .flat_map(|b| b.nodes.iter().map(|n| n.node.as_str()))
        .collect();
    assert_eq!(planned, ["w-1", "w-2", "w-3"]);
    assert_eq!(
        stopped(r),
        ["w-1", "w-3"],
        "w-2 is finished: only the others stop"
    );
    let w = sim.world();
    let w2 = w.vms["w-2"].node.as_ref().expect("w-2's node");
    assert!(
        !w2.unschedulable && w2.annotations.is_empty(),
        "the finished node is uncordoned and its annotation removed"
    );
    assert_eq!(w.record.state, ClusterState::Running);
}

/// While w-1's batch runs, another engine takes w-2: annotated with its boot ID, cordoned,
/// moved onto the new offering and started; its kubelet posts the new boot `posts_after` later
/// (never: `None`), reporting the old boot ID, Ready, until then.
fn taken_by_another_engine(posts_after: Option<u64>) -> impl FnMut(&mut World) {
    move |w: &mut World| {
        let now = w.now;
        let vm = w.vms.get_mut("w-2").expect("w-2");
        if let Some(n) = vm.node.as_mut() {
            n.unschedulable = true;
            n.annotations
                .insert(ROLLOUT_ANNOTATION.into(), n.boot_id.clone());
        }
        vm.offering = "medium".into();
        vm.external_down = true;
        vm.stopped_boot = Some(vm.boot_id.clone());
        vm.boot_id = "boot-w-2-by-the-other-engine".into();
        vm.booted = false;
        vm.boot_done_at = posts_after.map(|s| now + std::time::Duration::from_secs(s));
    }
}

/// The workers' rollout of a 3+3 cluster with `act` done at the end of w-1's batch.
fn rolled_with(act: impl FnMut(&mut World)) -> (Simulation, cks_rollout::sim::SimRun) {
    let sim = Simulation::new(&cluster(3, 0, 3), 3).expect("simulable");
    let mut rival = Rival {
        sim: &sim,
        act: at_the_end_of("w-1", act),
    };
    let run = workers_with(&sim, &mut rival);
    (sim, run)
}

#[test]
fn a_node_another_engine_restarted_is_waited_for_until_its_new_boot_and_not_restarted_again() {
    let (sim, run) = rolled_with(taken_by_another_engine(Some(30)));
    let r = report(&run);
    assert_eq!(
        stopped(r),
        ["w-1", "w-3"],
        "w-2 came back: only the others stop"
    );
    assert!(
        r.events.iter().any(|e| e.node.as_deref() == Some("w-2")
            && e.step == StepKind::Verify
            && e.detail.contains("waiting for a new boot")),
        "w-2's batch waited for its new boot"
    );
    let w = sim.world();
    let w2 = w.vms["w-2"].node.as_ref().expect("w-2's node");
    assert_eq!(w2.boot_id, "boot-w-2-by-the-other-engine");
    assert!(!w2.unschedulable && w2.annotations.is_empty());
    assert_eq!(w.record.state, ClusterState::Running);
}

#[test]
fn a_node_another_engine_restarted_whose_new_boot_never_comes_is_restarted_after_the_boot_wait() {
    let (sim, run) = rolled_with(taken_by_another_engine(None));
    let r = report(&run);
    assert_eq!(
        stopped(r),
        ["w-1", "w-2", "w-3"],
        "no new boot came: w-2 is restarted"
    );
    let waited = r
        .events
        .iter()
        .find(|e| e.node.as_deref() == Some("w-2") && e.detail.contains("waiting for a new boot"))
        .map(|e| e.at_ms)
        .expect("w-2's batch waited for a new boot");
    let stop = r
        .events
        .iter()
        .find(|e| e.node.as_deref() == Some("w-2") && e.step == StepKind::Stop)
        .map(|e| e.at_ms)
        .expect("w-2 stopped");
    assert!(
        stop >= waited + 600_000,
        "restarted only after the boot wait of 600 s: waited at {waited} ms, stopped at {stop} ms"
    );
    assert_eq!(sim.world().vms["w-2"].offering, "medium");
    assert_eq!(sim.world().record.state, ClusterState::Running);
}

#[test]
fn a_stopped_node_already_up_to_date_is_started_without_a_stop() {
    let mut spec = cluster(3, 0, 3);
    let mut w3 = node("w-3");
    w3.offering = Some("medium".into());
    w3.stopped = true;
    spec.nodes.push(w3);
    let sim = Simulation::new(&spec, 3).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let r = report(&run);
    assert_eq!(stopped(r), ["w-1", "w-2"], "w-3 was down already");
    assert!(
        r.events
            .iter()
            .any(|e| e.step == StepKind::StartVm && e.node.as_deref() == Some("w-3")),
        "the stopped node is started: {:?}",
        r.events
    );
    let w = sim.world();
    assert_eq!(w.vms["w-3"].state, VmState::Running);
    assert_eq!(w.record.state, ClusterState::Running);
}

#[test]
fn a_node_someone_else_brought_up_to_date_before_its_batch_is_not_restarted() {
    let sim = Simulation::new(&cluster(3, 0, 3), 3).expect("simulable");
    // While w-1's batch runs, someone else moves w-3 onto the new offering.
    let mut rival = Rival {
        sim: &sim,
        act: at_the_end_of("w-1", |w: &mut World| {
            w.vms.get_mut("w-3").expect("w-3").offering = "medium".into();
        }),
    };
    let run = workers_with(&sim, &mut rival);
    let r = report(&run);
    assert_eq!(
        r.run.plan.phases[0].batches.len(),
        3,
        "the plan had a batch for w-3"
    );
    assert_eq!(stopped(r), ["w-1", "w-2"], "w-3 had no work left");
    assert_eq!(sim.world().record.state, ClusterState::Running);
}

#[test]
fn each_node_back_in_service_says_whether_it_was_uncordoned_an_etcd_member_or_left_cordoned() {
    let mut spec = cluster(3, 3, 2);
    let mut w2 = node("w-2");
    w2.cordoned = true;
    spec.nodes.push(w2);
    let sim = Simulation::new(&spec, 3).expect("simulable");
    let run = run_ok(
        &sim,
        &offerings(&[("etcd", "medium"), ("worker", "medium")]),
    );
    let said = back_in_service(report(&run));
    assert_eq!(said["e-1"], "etcd member back");
    assert_eq!(said["w-1"], "uncordoned");
    assert_eq!(said["w-2"], "left cordoned: cordoned by someone else");
}
