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
        if run.outcome.is_ok() {
            rolled += 1;
        }
        let released =
            matches!(&run.outcome, Ok(UpdateOutcome::RolledOut(r)) if r.release.is_some());
        if !run.crashed && released {
            sim.quiesce();
            let before = sim.world().signature();
            let last = sim.world().record.last_error.clone();
            let again = sim.release(last.as_deref()).expect("release runs");
            let after = sim.world().signature();
            assert_eq!(
                before,
                after,
                "release() changed the cluster\n{}",
                run.failure_report()
            );
            assert_eq!(again.state, state);
            let third = sim.release(last.as_deref()).expect("release runs");
            assert_eq!(
                again,
                third,
                "release() twice differs\n{}",
                run.failure_report()
            );
        }
    }
    assert!(
        rolled > RUNS / 2,
        "only {rolled} of {RUNS} updates were accepted"
    );
}
