//! The engine crashes at every step boundary of a 3-control, 3-etcd, 6-worker rollout; the
//! scanner runs (once the lease expired, or at once with a zero lease timeout, as an operator
//! taking over), the rollout is resumed, and the end is the same as without a crash, with no
//! node restarted twice.

use crate::common::{cfg, cluster, offerings};
use cks_rollout::engine::{EngineConfig, NoProgress, ScanOutcome};
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
    let expected = clean.world().end_state();
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
        assert_eq!(sim.world().end_state(), expected, "{}", context());
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

#[test]
fn crash_at_every_step_then_take_the_lease_over_at_once_and_resume_reaches_the_same_end() {
    let spec = cluster(3, 3, 6);
    let req = request();
    let clean = Simulation::new(&spec, SEED).expect("simulable");
    let run = clean.run(&req, &cfg());
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let expected = clean.world().end_state();
    let steps = clean.world().step;
    let at_once = EngineConfig {
        lease_timeout: std::time::Duration::ZERO,
        ..cfg()
    };
    let mut taken_over = 0;
    for crash_at in 1..=steps {
        let mut spec = spec.clone();
        spec.faults.push(Fault::Crash { at_step: crash_at });
        let sim = Simulation::new(&spec, SEED).expect("simulable");
        let context = || {
            format!(
                "crash before step {crash_at}\n{}",
                sim.world().trace.join("\n")
            )
        };
        // The first process dies; no time passes before the next one takes over.
        let _ = sim.update(&req, &cfg(), &mut NoProgress);
        assert!(sim.world().crashed, "{}", context());
        assert!(sim.world().violation.is_none(), "{}", context());
        sim.restart_engine();
        let was_updating = sim.world().record.state == ClusterState::Updating;
        let scan = sim.scan(&at_once).expect("the scanner runs");
        if was_updating {
            assert!(
                matches!(scan, ScanOutcome::MovedToAlert { .. }),
                "a zero lease timeout takes the lease over at once: {scan:?}\n{}",
                context()
            );
            taken_over += 1;
        } else {
            assert_eq!(scan, ScanOutcome::NotUpdating, "{}", context());
        }
        let resumed = sim.run(&req, &cfg());
        assert!(resumed.violation.is_none(), "{}", resumed.failure_report());
        assert!(!resumed.crashed);
        assert_eq!(sim.world().end_state(), expected, "{}", context());
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
    assert!(
        taken_over > steps / 2,
        "most crashes land while Updating: {taken_over} of {steps}"
    );
}
