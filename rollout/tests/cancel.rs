//! A cancel landing at every step of the update call, from its first port call to the last
//! batch: refused (and saying so) while the cluster is not Updating, as the real `cancel`
//! command; once Updating, one asked earlier never restarts more nodes than one asked later, and
//! one asked before the first batch restarts none.

use crate::common::{cfg, cluster, offerings, run_ok};
use cks_rollout::engine::UpdateRequest;
use cks_rollout::model::ClusterState;
use cks_rollout::sim::{Fault, Simulation, check_cancels};

const SEED: u64 = 6;

/// The step number of a trace line (`#N ...`).
fn step_of(line: &str) -> Option<u64> {
    line.strip_prefix('#')?.split(' ').next()?.parse().ok()
}

#[test]
fn a_cancel_at_every_step_never_restarts_more_than_a_later_one_and_none_before_the_first_batch() {
    let spec = cluster(3, 0, 4);
    let req: UpdateRequest = offerings(&[("worker", "medium"), ("control", "medium")]);
    let clean = Simulation::new(&spec, SEED).expect("simulable");
    run_ok(&clean, &req);
    let trace = clean.world().trace.clone();
    let last = clean.world().step;
    let begin = trace
        .iter()
        .find(|l| l.contains("store.begin_rollout"))
        .and_then(|l| step_of(l))
        .expect("the rollout began");
    // The first batch begins with the first node taken out of service; the engine reads the
    // cancel flag in the call just before it. A cancel fault fires before call `at_step`, so
    // one with `at_step` below that call's step lands before the batch took anything.
    let first_batch = trace
        .iter()
        .find(|l| l.contains("kube.set_annotation(") || l.contains("kube.set_unschedulable("))
        .and_then(|l| step_of(l))
        .expect("a node was taken out of service");
    assert!(begin < first_batch, "{begin} < {first_batch}");

    let mut updating = Vec::new();
    for at_step in 1..=last {
        let mut spec = spec.clone();
        spec.faults.push(Fault::Cancel { at_step });
        let sim = Simulation::new(&spec, SEED).expect("simulable");
        // The cluster's state when the cancel lands: the fault fires before call `at_step`.
        let run = sim.run(&req, &cfg());
        assert!(run.violation.is_none(), "{}", run.failure_report());
        assert_ne!(sim.world().record.state, ClusterState::Updating);
        let w = sim.world();
        let line = w
            .trace
            .iter()
            .find(|l| l.starts_with(&format!("#{at_step} cancel ")))
            .cloned()
            .unwrap_or_else(|| panic!("no trace of the cancel at step {at_step}"));
        let restarts = sim.restarts();
        if at_step <= begin {
            // Not Updating yet: refused as the real `cancel` refuses it; the rollout runs whole.
            assert!(
                line.contains(
                    "cancel refused: cluster cluster-1 is Running, no rollout is running"
                ),
                "step {at_step}: {line}"
            );
            assert!(
                !w.record.cancel,
                "step {at_step}: a refused cancel is not recorded"
            );
            assert_eq!(restarts, 7, "step {at_step}: every node restarted");
            continue;
        }
        assert!(line.contains("cancel recorded"), "step {at_step}: {line}");
        if at_step < first_batch {
            assert_eq!(
                restarts,
                0,
                "a cancel at step {at_step}, before the first batch (step {first_batch}), restarts none\n{}",
                run.failure_report()
            );
        }
        updating.push((at_step, restarts));
    }
    assert!(updating.len() as u64 > last / 2, "{updating:?}");
    if let Some(v) = check_cancels(&updating) {
        panic!("{v}: {updating:?}");
    }
    assert!(
        updating.last().is_some_and(|(_, r)| *r > 0),
        "a late cancel lets batches run: {updating:?}"
    );
}

#[test]
fn the_cancel_command_on_a_cluster_not_updating_is_refused_with_the_same_reason_as_the_fault() {
    let sim = Simulation::new(&cluster(3, 0, 2), 1).expect("simulable");
    let req = UpdateRequest {
        cancel_rollout: true,
        ..Default::default()
    };
    let e = sim
        .update(&req, &cfg(), &mut cks_rollout::engine::NoProgress)
        .expect_err("refused");
    assert_eq!(e.parameter(), Some("cancelrollout"), "{e}");
    assert!(
        e.to_string()
            .contains("cluster cluster-1 is Running, no rollout is running"),
        "{e}"
    );
    assert!(!sim.world().record.cancel);
}

#[test]
fn a_cancelled_rollout_says_so_in_lasterror_with_what_is_left_per_type() {
    let mut spec = crate::common::cluster(3, 0, 4);
    spec.faults
        .push(cks_rollout::sim::Fault::Cancel { at_step: 60 });
    let sim = cks_rollout::sim::Simulation::new(&spec, 1).expect("simulable");
    let run = crate::common::run_ok(&sim, &crate::common::offerings(&[("worker", "medium")]));
    assert!(crate::common::report(&run).run.cancelled);
    let e = sim.world().record.last_error.clone().unwrap_or_default();
    assert!(
        e.starts_with("rollout cancelled on request; still out of date: control 0, worker ")
            && e.ends_with(", etcd 0"),
        "{e}"
    );
    let view = crate::common::status(&sim);
    let left = view.workernodesoutofdate;
    assert!(
        left > 0 && e.contains(&format!("worker {left},")),
        "{e} / {left}"
    );
}
