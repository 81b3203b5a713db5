//! The engine crashes at every step boundary of a 3-control, 3-etcd, 6-worker rollout; the
//! scanner runs, the rollout is resumed, and the end is the same as without a crash, with no
//! node restarted twice.

use crate::common::{cfg, cluster, offerings};
use cks_rollout::engine::ScanOutcome;
use cks_rollout::model::ClusterState;
use cks_rollout::sim::{Fault, Simulation};

const SEED: u64 = 42;

fn request() -> cks_rollout::engine::UpdateRequest {
    let mut req = offerings(&[
        ("control", "medium"),
        ("etcd", "medium"),
        ("worker", "large"),
    ]);
    req.node_root_disk_sizes.insert("worker".into(), 40);
    req.max_unavailable = Some(2);
    req
}

#[test]
fn crash_at_every_step_then_scan_and_resume_reaches_the_uninterrupted_end() {
    let spec = cluster(3, 3, 6);
    let req = request();
    let clean = Simulation::new(&spec, SEED).expect("simulable");
    let run = clean.run(&req, &cfg());
    assert!(run.violation.is_none(), "{}", run.failure_report());
    assert_eq!(
        clean.world().record.state,
        ClusterState::Running,
        "{}",
        run.failure_report()
    );
    let expected = clean.world().signature();
    let steps = clean.world().step;
    assert!(
        steps > 100,
        "a 12-node rollout takes many steps, got {steps}"
    );
    for vm in clean.world().vms.values() {
        assert_eq!(
            vm.engine_stops, 1,
            "{} restarted once in the clean run",
            vm.name
        );
    }

    for crash_at in 1..=steps {
        let mut spec = spec.clone();
        spec.faults.push(Fault::Crash { at_step: crash_at });
        let sim = Simulation::new(&spec, SEED).expect("simulable");
        let first = sim.run(&req, &cfg());
        let context = || {
            format!(
                "crash before step {crash_at}\n{}",
                sim.world().trace.join("\n")
            )
        };
        assert!(first.violation.is_none(), "{}", first.failure_report());
        assert!(first.crashed, "{}", context());
        let state = sim.world().record.state;
        match &first.scan {
            Some(ScanOutcome::MovedToAlert { cores, .. }) => {
                assert_eq!(state, ClusterState::Alert);
                assert_eq!(
                    *cores,
                    sim.world().capacity().0,
                    "scanner recounts capacity"
                );
            }
            Some(ScanOutcome::NotUpdating) => {
                assert!(
                    matches!(state, ClusterState::Running | ClusterState::Alert),
                    "{}",
                    context()
                );
            }
            other => panic!("scanner: {other:?}\n{}", context()),
        }
        let resumed = sim.run(&req, &cfg());
        assert!(resumed.violation.is_none(), "{}", resumed.failure_report());
        assert!(!resumed.crashed);
        assert_eq!(sim.world().signature(), expected, "{}", context());
        for vm in sim.world().vms.values() {
            assert!(
                vm.engine_stops <= 1,
                "{} restarted {} times; {}",
                vm.name,
                vm.engine_stops,
                context()
            );
        }
    }
}
