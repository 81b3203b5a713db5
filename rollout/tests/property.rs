//! A seeded property test: random clusters, updates and fault schedules; every invariant after
//! every step, release twice the same, never left Updating.

use cks_rollout::engine::{EngineConfig, UpdateOutcome};
use cks_rollout::model::ClusterState;
use cks_rollout::sim::{Simulation, random};

const RUNS: u64 = 1000;

#[test]
fn a_thousand_random_clusters_and_fault_schedules_keep_every_invariant() {
    let cfg = EngineConfig::default();
    let mut rolled = 0;
    for seed in 0..RUNS {
        let (spec, req) = random::scenario(seed);
        let sim = Simulation::new(&spec, seed).expect("random scenario is simulable");
        let run = sim.run(&req, &cfg);
        assert!(run.violation.is_none(), "{}", run.failure_report());
        let state = sim.world().record.state;
        assert_ne!(
            state,
            ClusterState::Updating,
            "left Updating\n{}",
            run.failure_report()
        );
        let Ok(UpdateOutcome::RolledOut(report)) = &run.outcome else {
            continue;
        };
        rolled += 1;
        let (Some(first), false) = (&report.release, run.crashed) else {
            continue;
        };
        assert_eq!(first.state, state);
        if first.state == ClusterState::Alert {
            assert!(
                first.last_error.is_some(),
                "Alert without lasterror\n{}",
                run.failure_report()
            );
        }
        sim.quiesce();
        let before = sim.world().signature();
        let (error, notes) = (report.run.error.as_deref(), report.run.notes.as_deref());
        let again = sim.release(error, notes).expect("release runs");
        assert_eq!(
            sim.world().signature(),
            before,
            "release() changed the cluster\n{}",
            run.failure_report()
        );
        assert_eq!(
            first,
            &again,
            "release() twice differs\n{}",
            run.failure_report()
        );
    }
    assert!(
        rolled > RUNS / 2,
        "only {rolled} of {RUNS} updates rolled out"
    );
}
