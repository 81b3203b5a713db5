//! The look just before a control or etcd node is stopped: when the API server the batch talks
//! to stops answering, the batch moves to another control node that serves (never the node going
//! down, never one not Running) or stops with nothing down; an etcd member is judged by quorum
//! alone, and is stopped only while the other members keep quorum with no learner among them.

use crate::common::{Rival, cfg, cluster, error_text, is_step, offerings, report, run_with_ok};
use cks_rollout::engine::{Event, StepKind};
use cks_rollout::model::{ClusterState, VmState};
use cks_rollout::sim::{SimRun, Simulation, World};

/// Rolls the control nodes of a 3+0+2 cluster; while c-1 is drained (the batch talks to c-2's
/// API server), `down` stops answering, and answers again once c-1 is back.
fn control_rollout(
    down: &'static [&'static str],
    also: impl Fn(&mut World),
) -> (Simulation, SimRun) {
    let sim = Simulation::new(&cluster(3, 0, 2), 5).expect("simulable");
    let mut rival = Rival {
        sim: &sim,
        act: |e: &Event, w: &mut World| {
            let up = if is_step(e, StepKind::Drain, "c-1") {
                also(w);
                false
            } else if is_step(e, StepKind::Uncordon, "c-1") {
                true
            } else {
                return;
            };
            for node in down {
                w.vms.get_mut(*node).expect("a control node").api_down = !up;
            }
        },
    };
    let run = run_with_ok(
        &sim,
        &offerings(&[("control", "medium")]),
        &cfg(),
        &mut rival,
    );
    (sim, run)
}

/// The calls other than health probes that reached an API server that did not answer.
fn unanswered(sim: &Simulation) -> Vec<String> {
    sim.world()
        .trace
        .iter()
        .filter(|l| l.contains("does not answer") && !l.contains("kube.readyz"))
        .cloned()
        .collect()
}

#[test]
fn when_the_batchs_api_server_stops_answering_it_moves_to_another_that_serves() {
    let (sim, run) = control_rollout(&["c-2"], |_| {});
    assert!(report(&run).run.error.is_none(), "{}", run.failure_report());
    assert_eq!(sim.world().record.state, ClusterState::Running);
    assert_eq!(unanswered(&sim), Vec::<String>::new());
    let w = sim.world();
    let stop = format!("cloud.stop_vm({})", w.vms["c-1"].id);
    assert!(
        w.trace
            .iter()
            .skip_while(|l| !l.contains(&stop))
            .any(|l| l.contains("kube.list_nodes(via Control(\"c-3\"))")),
        "c-3 serves the batch once c-1 is down"
    );
}

#[test]
fn with_no_other_api_server_serving_nothing_is_stopped() {
    // c-3 is stopped (by someone else) and c-2 stops answering: only c-1, going down, serves.
    let (sim, run) = control_rollout(&["c-2"], |w| {
        w.vms.get_mut("c-3").expect("c-3").state = VmState::Stopped;
    });
    let error = error_text(&run);
    assert!(error.contains("c-1"), "{error}\n{}", run.failure_report());
    assert_eq!(
        sim.world().vms["c-1"].engine_stops,
        0,
        "c-1 was not stopped"
    );
}

#[test]
fn an_etcd_member_is_stopped_on_quorum_alone_whatever_the_api_servers_say() {
    let sim = Simulation::new(&cluster(3, 3, 2), 5).expect("simulable");
    // Every API server stops answering while e-1's batch is checked, and answers again once
    // e-1 is back.
    let mut rival = Rival {
        sim: &sim,
        act: |e: &Event, w: &mut World| {
            let down = if e.step == StepKind::Preflight && e.batch == Some(1) {
                true
            } else if is_step(e, StepKind::Uncordon, "e-1") {
                false
            } else {
                return;
            };
            for node in ["c-1", "c-2", "c-3"] {
                w.vms.get_mut(node).expect("a control node").api_down = down;
            }
        },
    };
    let run = run_with_ok(&sim, &offerings(&[("etcd", "medium")]), &cfg(), &mut rival);
    assert!(report(&run).run.error.is_none(), "{}", run.failure_report());
    assert_eq!(sim.world().vms["e-1"].engine_stops, 1);
    assert_eq!(sim.world().record.state, ClusterState::Running);
}

/// Rolls the external etcd members of a 3+3+2 cluster; once e-1's batch has passed its
/// preflight, `change` happens to the other members. Its error, and whether e-1 was stopped.
fn etcd_rollout_with(change: impl Fn(&mut World)) -> (Option<String>, u32) {
    let sim = Simulation::new(&cluster(3, 3, 2), 5).expect("simulable");
    let mut rival = Rival {
        sim: &sim,
        act: |e: &Event, w: &mut World| {
            if e.step == StepKind::Preflight && e.batch == Some(1) {
                change(w);
            }
        },
    };
    let run = run_with_ok(&sim, &offerings(&[("etcd", "medium")]), &cfg(), &mut rival);
    let error = report(&run).run.error.as_ref().map(ToString::to_string);
    let stops = sim.world().vms["e-1"].engine_stops;
    (error, stops)
}

#[test]
fn a_member_unhealthy_after_the_preflight_keeps_the_next_one_from_being_stopped() {
    let (error, stops) = etcd_rollout_with(|w| {
        w.vms.get_mut("e-2").expect("e-2").etcd_unhealthy = true;
    });
    let error = error.expect("the batch stopped");
    assert!(error.contains("e-1") && error.contains("quorum"), "{error}");
    assert_eq!(stops, 0, "e-1 was not stopped");
}

#[test]
fn a_learner_among_the_members_keeps_the_next_one_from_being_stopped() {
    let (error, stops) = etcd_rollout_with(|w| {
        w.vms.get_mut("e-3").expect("e-3").etcd_learner = true;
    });
    let error = error.expect("the batch stopped");
    assert!(error.contains("e-1"), "{error}");
    assert_eq!(stops, 0, "e-1 was not stopped");
}
