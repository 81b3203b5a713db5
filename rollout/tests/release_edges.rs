//! The edges of release and the scanner: a release outside a rollout leaves a state that is not
//! the rollout's alone (scaling, upgrading, stopped), and the scanner's message keeps an earlier
//! error first, without an empty one before it.

use crate::common::cluster;
use cks_rollout::engine::{EngineConfig, ScanOutcome};
use cks_rollout::model::{ClusterState, Lease};
use cks_rollout::sim::Simulation;

#[test]
fn release_without_a_lease_leaves_a_state_the_rollout_does_not_own() {
    for state in [
        ClusterState::Scaling,
        ClusterState::Upgrading,
        ClusterState::Stopped,
        ClusterState::Recovering,
    ] {
        let sim = Simulation::new(&cluster(3, 0, 3), 9).expect("simulable");
        sim.world_mut().record.state = state;
        sim.release(None, None).expect("release");
        assert_eq!(
            sim.world().record.state,
            state,
            "release moved a cluster out of {state:?}"
        );
    }
    // One the rollout owns goes to the state the cluster's health says.
    let sim = Simulation::new(&cluster(3, 0, 3), 9).expect("simulable");
    sim.world_mut().record.state = ClusterState::Alert;
    sim.release(None, None).expect("release");
    assert_eq!(sim.world().record.state, ClusterState::Running);
}

/// The last error the scanner records for an orphaned rollout whose record held `earlier`.
fn scanned_error(earlier: Option<&str>) -> String {
    let c = EngineConfig::default();
    let sim = Simulation::new(&cluster(3, 0, 3), 9).expect("simulable");
    {
        let mut w = sim.world_mut();
        w.record.state = ClusterState::Updating;
        w.record.last_error = earlier.map(str::to_string);
        w.record.lease = Some(Lease {
            owner: "ms-1:42".into(),
            heartbeat_ms: 0,
        });
    }
    sim.world_mut().advance(c.lease_timeout * 2);
    let out = sim.scan(&c).expect("scan");
    assert!(matches!(out, ScanOutcome::MovedToAlert { .. }), "{out:?}");
    let w = sim.world();
    w.record.last_error.clone().expect("an error is recorded")
}

#[test]
fn the_scanner_keeps_an_earlier_error_first_and_no_empty_one() {
    let stopped =
        "the rollout owned by ms-1:42 stopped without finishing; run the rollout again to resume";
    assert_eq!(scanned_error(None), stopped);
    assert_eq!(scanned_error(Some("")), stopped);
    assert_eq!(
        scanned_error(Some("drain of w-2 blocked by a PodDisruptionBudget")),
        format!("drain of w-2 blocked by a PodDisruptionBudget; {stopped}")
    );
}
