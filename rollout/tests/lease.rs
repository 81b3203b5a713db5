//! One owner, always: CloudStack jobs that outlast the lease timeout, a second engine (`scan`,
//! then `run`) against the same record in the middle of the first one's rollout, a store that
//! does not answer for a moment, and the lease timeouts the engine refuses.

use crate::common::{Rival, cfg, cluster, is_step, offerings, report, workers_with};
use cks_rollout::engine::{
    ControlError, EngineConfig, Event, NoProgress, ScanOutcome, StepKind, UpdateError,
    UpdateOutcome,
};
use cks_rollout::model::ClusterState;
use cks_rollout::sim::{Fault, JobSpan, Simulation, World, random};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::Duration;

const RUNS: u64 = 120;

/// Up to 40 minutes per job, more than the default lease timeout of 5.
fn span(rng: &mut StdRng, longest: u64) -> Option<JobSpan> {
    rng.random_bool(0.8).then(|| {
        let a = rng.random_range(0..=longest);
        let b = rng.random_range(0..=longest);
        JobSpan {
            min_s: a.min(b),
            max_s: a.max(b),
        }
    })
}

#[test]
fn jobs_up_to_forty_minutes_and_a_second_engine_never_put_two_engines_on_one_cluster() {
    let cfg = cfg();
    let (mut taken_during, mut refused_alive) = (0, 0);
    for seed in 0..RUNS {
        let (mut spec, req) = random::scenario(seed);
        let mut rng = StdRng::seed_from_u64(seed ^ 0x1ea5e);
        spec.jobs.stop = span(&mut rng, 2400).map(|s| JobSpan {
            min_s: s.min_s.max(30),
            max_s: s.max_s.max(30),
        });
        spec.jobs.start = span(&mut rng, 600);
        spec.jobs.resize_volume = span(&mut rng, 300);
        spec.jobs.update_affinity_groups = span(&mut rng, 120);
        // A probe run gives the steps; the second engine comes at one of them.
        let probe = Simulation::new(&spec, seed).expect("simulable");
        let _ = probe.update(&req, &cfg, &mut NoProgress);
        let steps = probe.world().step.max(1);
        spec.faults.push(Fault::SecondEngine {
            at_step: rng.random_range(1..=steps),
        });
        let sim = Simulation::new(&spec, seed).expect("simulable");
        let run = sim.run(&req, &cfg);
        assert!(run.violation.is_none(), "{}", run.failure_report());
        assert_ne!(
            sim.world().record.state,
            ClusterState::Updating,
            "{}",
            run.failure_report()
        );
        let second = run
            .trace
            .iter()
            .find(|l| l.contains("second engine done"))
            .cloned()
            .unwrap_or_default();
        if second.contains("OwnerAlive") {
            refused_alive += 1;
            assert!(
                second.contains("run refused"),
                "the second engine takes no cluster whose owner is alive: {second}\n{}",
                run.failure_report()
            );
        }
        if second.contains("MovedToAlert") {
            taken_during += 1;
        }
    }
    assert!(
        refused_alive > RUNS / 4,
        "the second engine met a live rollout in {refused_alive} of {RUNS} runs"
    );
    // Only a crashed first engine lets the scanner take the cluster over.
    assert!(taken_during < RUNS / 4, "taken over {taken_during} times");
}

#[test]
fn a_stop_that_outlasts_the_lease_keeps_the_cluster_with_its_owner() {
    let mut spec = cluster(3, 0, 3);
    spec.jobs.stop = Some(JobSpan {
        min_s: 1500,
        max_s: 1500,
    });
    let req = offerings(&[("worker", "medium")]);
    let probe = Simulation::new(&spec, 4).expect("simulable");
    let _ = probe.update(&req, &cfg(), &mut NoProgress);
    let trace = probe.world().trace.clone();
    // Twenty minutes into the first stop (the lease times out after five).
    let at_step = trace
        .iter()
        .filter(|l| l.contains("cloud.job_status"))
        .nth(600)
        .and_then(|l| l.trim_start_matches('#').split(' ').next()?.parse().ok())
        .expect("the first stop is polled for 25 minutes");
    spec.faults.push(Fault::SecondEngine { at_step });
    let sim = Simulation::new(&spec, 4).expect("simulable");
    let run = sim.run(&req, &cfg());
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let second = run
        .trace
        .iter()
        .find(|l| l.contains("second engine done"))
        .expect("the second engine ran");
    assert!(
        second.contains("OwnerAlive") && second.contains("refused"),
        "{second}"
    );
    assert!(matches!(run.outcome, Ok(UpdateOutcome::RolledOut(ref r)) if r.run.error.is_none()));
    assert_eq!(sim.world().record.state, ClusterState::Running);
    assert_eq!(
        sim.restarts(),
        3,
        "each worker restarted once, by the owner"
    );
}

#[test]
fn a_lease_timeout_not_longer_than_twice_the_poll_interval_is_refused() {
    let sim = Simulation::new(&cluster(3, 0, 3), 1).expect("simulable");
    let short = EngineConfig {
        lease_timeout: Duration::from_secs(15),
        ..cfg()
    };
    let err = sim
        .update(&offerings(&[("worker", "medium")]), &short, &mut NoProgress)
        .expect_err("refused");
    assert!(
        matches!(
            err,
            UpdateError::Control(ControlError::LeaseTooShort { .. })
        ),
        "{err}"
    );
    let text = err.to_string();
    assert!(text.contains("--lease-timeout to at least 20 s"), "{text}");
    // Refused before anything is asked of CloudStack, the cluster or the store.
    assert!(
        sim.world().trace.is_empty(),
        "{}",
        sim.world().trace.join("\n")
    );
    assert_eq!(sim.world().record.state, ClusterState::Running);
    assert_eq!(sim.restarts(), 0);
}

#[test]
fn the_scanner_leaves_a_lease_renewed_since_it_read_the_record() {
    let sim = Simulation::new(&cluster(3, 0, 3), 2).expect("simulable");
    {
        let mut w = sim.world_mut();
        w.record.state = ClusterState::Updating;
        w.record.lease = Some(cks_rollout::model::Lease {
            owner: "a".into(),
            heartbeat_ms: 0,
        });
        w.advance(Duration::from_secs(600));
    }
    let mut p = sim.ports();
    let mut ports = p.ports();
    let seen = ports.store.load("cluster-1").expect("load").lease;
    // The owner renews between the scanner's read and its compare-and-set.
    sim.world_mut().record.lease = Some(cks_rollout::model::Lease {
        owner: "a".into(),
        heartbeat_ms: 600_000,
    });
    assert!(
        !ports
            .store
            .expire_lease("cluster-1", seen.as_ref(), Duration::from_secs(300))
            .expect("answers"),
        "the heartbeat changed since it was read"
    );
    assert_eq!(
        cks_rollout::engine::scan(&mut ports, "cluster-1", Duration::from_secs(300)).expect("scan"),
        ScanOutcome::OwnerAlive { owner: "a".into() }
    );
}

#[test]
fn a_store_that_does_not_answer_for_a_moment_leaves_the_batch_going_under_its_last_lease() {
    let sim = Simulation::new(&cluster(3, 0, 3), 4).expect("simulable");
    // The store does not answer from w-1's stop until its offering is changed (well inside the
    // lease timeout less a poll interval).
    let mut rival = Rival {
        sim: &sim,
        act: |e: &Event, w: &mut World| {
            if is_step(e, StepKind::Stop, "w-1") {
                w.store_down = true;
            } else if is_step(e, StepKind::ChangeOffering, "w-1") {
                w.store_down = false;
            }
        },
    };
    let run = workers_with(&sim, &mut rival);
    let r = report(&run);
    assert!(
        r.run.error.is_none() && !r.run.lost_lease,
        "{}",
        run.failure_report()
    );
    assert!(
        run.trace
            .iter()
            .any(|l| l.contains("store.hold_lease -> error: the cluster store does not answer")),
        "a confirmation of the lease went unanswered"
    );
    assert_eq!(sim.restarts(), 3);
    assert_eq!(sim.world().record.state, ClusterState::Running);
}
