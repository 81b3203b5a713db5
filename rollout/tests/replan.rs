//! Nodes that change under a rollout: a worker CloudStack adds is planned again and rolled, and a
//! cluster whose nodes keep changing stops the rollout after five re-plans, saying so.

use crate::common::{Rival, cluster, report, workers_with};
use cks_rollout::engine::{EngineError, Event, StepKind};
use cks_rollout::model::ClusterState;
use cks_rollout::sim::{SimRun, Simulation, World};

/// Rolls the workers of a 3+0+2 cluster onto `medium` while CloudStack adds a worker at the end
/// of each of the first `adds` worker batches.
fn rolled_while_adding(adds: usize) -> (Simulation, SimRun) {
    let sim = Simulation::new(&cluster(3, 0, 2), 6).expect("simulable");
    let mut added = 0;
    let mut rival = Rival {
        sim: &sim,
        act: |e: &Event, w: &mut World| {
            let a_worker_back = e.step == StepKind::Uncordon
                && e.node.as_deref().is_some_and(|n| n.starts_with("w-"));
            if a_worker_back && added < adds {
                added += 1;
                w.add_worker();
            }
        },
    };
    let run = workers_with(&sim, &mut rival);
    (sim, run)
}

#[test]
fn a_worker_added_during_the_rollout_is_planned_again_and_rolled() {
    let (sim, run) = rolled_while_adding(1);
    let r = report(&run);
    assert!(r.run.error.is_none(), "{}", run.failure_report());
    let w = sim.world();
    assert_eq!(
        w.vms["w-3"].offering, "medium",
        "the added worker was rolled"
    );
    assert_eq!(w.vms["w-3"].engine_stops, 1);
    assert_eq!(w.record.state, ClusterState::Running);
}

#[test]
fn nodes_that_keep_changing_stop_the_rollout_after_five_re_plans() {
    let (_, run) = rolled_while_adding(6);
    match &report(&run).run.error {
        Some(EngineError::NodesKeepChanging { times, .. }) => assert_eq!(*times, 5),
        other => panic!("expected the nodes to keep changing: {other:?}"),
    }
    // Five changes are re-planned and rolled: the rollout goes to its end.
    let (sim, run) = rolled_while_adding(5);
    assert!(report(&run).run.error.is_none(), "{}", run.failure_report());
    assert_eq!(sim.world().record.state, ClusterState::Running);
}
