//! `--soak`: after each batch, its nodes stay Ready for the soak before the next batch; one that
//! turns NotReady stops the rollout between batches; the lease stays renewed all through; a batch
//! that restarted nothing has nothing to soak.

use crate::common::{Rival, cfg, cluster, is_step, offerings, report, run_with_ok};
use cks_rollout::engine::{EngineConfig, EngineError, Event, StepKind};
use cks_rollout::model::ClusterState;
use cks_rollout::sim::{Fault, Simulation, World};
use std::time::Duration;

const SEED: u64 = 3;

fn soaking(secs: u64) -> EngineConfig {
    EngineConfig {
        soak: Duration::from_secs(secs),
        ..cfg()
    }
}

/// The step number of a trace line (`#N ...`).
fn step_of(line: &str) -> Option<u64> {
    line.strip_prefix('#')?.split(' ').next()?.parse().ok()
}

/// The step at which `w-1` was uncordoned after its restart (the soak of batch 1 follows).
fn uncordon_of_first_worker(trace: &[String]) -> u64 {
    trace
        .iter()
        .find(|l| l.contains("kube.set_unschedulable(w-1, false)"))
        .and_then(|l| step_of(l))
        .expect("w-1 was uncordoned")
}

#[test]
fn each_batch_soaks_its_time_before_the_next_preflight() {
    let spec = cluster(3, 0, 3);
    let sim = Simulation::new(&spec, SEED).expect("simulable");
    // Not a whole number of poll intervals (10 s): the last wait is the rest.
    let run = sim.run(&offerings(&[("worker", "medium")]), &soaking(605));
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let r = report(&run);
    assert!(r.run.error.is_none(), "{}", run.failure_report());
    assert_eq!(sim.restarts(), 3);
    for batch in 1..=3 {
        let soak: Vec<_> = r
            .events
            .iter()
            .filter(|e| e.batch == Some(batch) && e.step == StepKind::Soak)
            .collect();
        assert_eq!(soak.len(), 2, "batch {batch}: soak began and ended");
        assert_eq!(
            soak[1].at_ms - soak[0].at_ms,
            605_000,
            "batch {batch}: the soak lasts its time exactly"
        );
        if let Some(next) = r
            .events
            .iter()
            .find(|e| e.batch == Some(batch + 1) && e.step == StepKind::Preflight)
        {
            assert!(
                next.at_ms >= soak[1].at_ms,
                "batch {} began in the soak",
                batch + 1
            );
        }
    }
}

#[test]
fn a_node_turning_not_ready_in_the_soak_stops_the_rollout_between_batches() {
    let spec = cluster(3, 0, 3);
    let req = offerings(&[("worker", "medium")]);
    let clean = Simulation::new(&spec, SEED).expect("simulable");
    clean.run(&req, &soaking(600));
    let at_step = uncordon_of_first_worker(&clean.world().trace) + 10;

    let mut spec = spec.clone();
    spec.faults.push(Fault::NodeNotReady {
        node: "w-1".into(),
        at_step,
        until_step: None,
    });
    let sim = Simulation::new(&spec, SEED).expect("simulable");
    let run = sim.run(&req, &soaking(600));
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let r = report(&run);
    match &r.run.error {
        Some(EngineError::SoakNotReady { batch, node, .. }) => {
            assert_eq!((*batch, node.as_str()), (1, "w-1"));
        }
        other => panic!(
            "expected a soak failure, got {other:?}\n{}",
            run.failure_report()
        ),
    }
    assert_eq!(sim.restarts(), 1, "no node of batch 2 was taken down");
    let w = sim.world();
    assert_eq!(w.record.state, ClusterState::Alert, "w-1 is not Ready");
    let last = w.record.last_error.clone().unwrap_or_default();
    assert!(last.contains("w-1 turned NotReady"), "{last}");
    assert!(
        w.vms
            .values()
            .all(|v| v.node.as_ref().is_none_or(|n| !n.unschedulable)),
        "nothing is left cordoned"
    );
}

#[test]
fn a_soak_longer_than_the_lease_keeps_it_renewed_against_a_second_engine() {
    let spec = cluster(3, 0, 2);
    let req = offerings(&[("worker", "medium")]);
    let long = soaking(1800);
    let clean = Simulation::new(&spec, SEED).expect("simulable");
    clean.run(&req, &long);
    // Far into the first soak, past the lease timeout: each poll of the soak is three calls
    // (the node, the cancel flag, the lease), so 150 calls are about 500 s.
    let at_step = uncordon_of_first_worker(&clean.world().trace) + 150;

    let mut spec = spec.clone();
    spec.faults.push(Fault::SecondEngine { at_step });
    let sim = Simulation::new(&spec, SEED).expect("simulable");
    let run = sim.run(&req, &long);
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let r = report(&run);
    assert!(
        r.run.error.is_none() && !r.run.lost_lease,
        "{}",
        run.failure_report()
    );
    assert_eq!(sim.restarts(), 2, "each worker restarted once");
    assert_eq!(sim.world().record.state, ClusterState::Running);
}

#[test]
fn a_cancel_in_the_soak_ends_it_early_and_stops_the_rollout() {
    let spec = cluster(3, 0, 3);
    let req = offerings(&[("worker", "medium")]);
    let clean = Simulation::new(&spec, SEED).expect("simulable");
    clean.run(&req, &soaking(3600));
    let at_step = uncordon_of_first_worker(&clean.world().trace) + 5;

    let mut spec = spec.clone();
    spec.faults.push(Fault::Cancel { at_step });
    let sim = Simulation::new(&spec, SEED).expect("simulable");
    let run = sim.run(&req, &soaking(3600));
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let r = report(&run);
    assert!(r.run.cancelled, "{}", run.failure_report());
    assert_eq!(sim.restarts(), 1);
    let ended = r
        .events
        .iter()
        .find(|e| e.step == StepKind::Soak && e.detail.contains("cancel"))
        .expect("the soak ended on the cancel");
    let began = r
        .events
        .iter()
        .find(|e| e.step == StepKind::Soak)
        .expect("the soak began");
    assert!(ended.at_ms - began.at_ms < 3_600_000);
}

#[test]
fn bad_control_values_are_refused_naming_the_option_and_what_was_expected() {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/soak-interrupted-by-not-ready.yaml");
    for (args, says) in [
        (
            vec!["--soak", "10x"],
            "is not a duration: expected whole numbers with units",
        ),
        (vec!["--gate-timeout", "m"], "is not a duration"),
        (
            vec!["--window", "Mon-Fri 22:00-05:00 Nowhere/City"],
            "not in the system's tz database",
        ),
        (
            vec!["--restart", "everything"],
            "expected all, control, worker, etcd or reboot-required",
        ),
        (
            vec!["--webhook", "not a url"],
            "--webhook: expected an http:// or https:// URL",
        ),
        (vec!["--wait-for-window"], "--window"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cks-rollout"))
            .arg("simulate")
            .arg("--cluster")
            .arg(&example)
            .args(["run", "--offering", "worker=medium"])
            .args(&args)
            .output()
            .expect("cks-rollout runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(
            String::from_utf8_lossy(&out.stdout).is_empty(),
            "{args:?}: nothing ran"
        );
    }
}

#[test]
fn a_batch_that_restarted_no_node_has_no_soak() {
    let sim = Simulation::new(&cluster(3, 0, 3), SEED).expect("simulable");
    // While w-1's batch runs, someone else moves w-3 onto the new offering: its batch has no
    // work left, and nothing to soak.
    let mut rival = Rival {
        sim: &sim,
        act: |e: &Event, w: &mut World| {
            if is_step(e, StepKind::Uncordon, "w-1") {
                w.vms.get_mut("w-3").expect("w-3").offering = "medium".into();
            }
        },
    };
    let run = run_with_ok(
        &sim,
        &offerings(&[("worker", "medium")]),
        &soaking(60),
        &mut rival,
    );
    let r = report(&run);
    let soaked: Vec<Option<usize>> = r
        .events
        .iter()
        .filter(|e| e.step == StepKind::Soak)
        .map(|e| e.batch)
        .collect();
    assert_eq!(soaked, [Some(1), Some(1), Some(2), Some(2)], "{soaked:?}");
}
