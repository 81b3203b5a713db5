//! A seeded property test: random clusters, updates and fault schedules; every invariant after
//! every step (no uncordon without a new boot ID among them), the end-of-call ones (a healthy
//! end is Running, release leaves Updating), release twice the same; and, over runs of one seed
//! with a cancel at different steps, a cancel asked earlier never restarts more nodes.

use cks_rollout::engine::outdated::{changes_for, dedication_ids};
use cks_rollout::engine::window::any_open;
use cks_rollout::engine::{EngineConfig, UpdateOutcome};
use cks_rollout::model::{
    AffinityGroup, ClusterRecord, ClusterState, Vm, VmState, Volume, VolumeKind,
};
use cks_rollout::sim::{Fault, SimVm, Simulation, random};
use std::time::Duration;

const RUNS: u64 = 1000;
/// Seeds whose scenario is also run with a cancel at each of [`CANCEL_STEPS`] spread steps.
const CANCEL_SEEDS: u64 = 100;
const CANCEL_STEPS: u64 = 12;
/// Runs with rollout controls (soak, a node turning NotReady, gates, windows, gates running
/// past a window's end, restarts) drawn at random.
const CONTROL_RUNS: u64 = 300;

/// True when `v` is Running and matches the settings in `record`.
fn up_to_date(record: &ClusterRecord, groups: &[AffinityGroup], v: &SimVm) -> bool {
    let vm = Vm {
        id: v.id.clone(),
        name: v.name.clone(),
        node_name: v.name.clone(),
        node_type: v.node_type,
        state: v.state.clone(),
        service_offering_id: v.offering.clone(),
        affinity_group_ids: v.groups.clone(),
        ip_addresses: vec![],
    };
    let root = Volume {
        id: v.root_id.clone(),
        vm_id: v.id.clone(),
        kind: VolumeKind::Root,
        size_gb: v.root_gb,
        disk_offering_id: v.root_offering.clone(),
    };
    v.state == VmState::Running
        && changes_for(record, &vm, &[root], &dedication_ids(groups)).is_empty()
}

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
        if run.crashed {
            // A new process resumes the rollout after the scanner ran.
            let before: Vec<SimVm> = sim.world().vms.values().cloned().collect();
            let resumed = sim.run(&req, &cfg);
            assert!(
                resumed.violation.is_none(),
                "after a crash: {}",
                resumed.failure_report()
            );
            let w = sim.world();
            assert!(
                matches!(w.record.state, ClusterState::Running | ClusterState::Alert),
                "{}",
                resumed.failure_report()
            );
            for old in before
                .iter()
                .filter(|v| up_to_date(&w.record, &w.groups, v))
            {
                assert_eq!(
                    w.vms[&old.name].engine_stops,
                    old.engine_stops,
                    "{} was up to date and Running at the crash, and was restarted again\n{}",
                    old.name,
                    resumed.failure_report()
                );
            }
            continue;
        }
        let Ok(UpdateOutcome::RolledOut(report)) = &run.outcome else {
            continue;
        };
        rolled += 1;
        for name in &report.run.done {
            let w = sim.world();
            if let Some(n) = w.vms[name].node.as_ref() {
                assert_ne!(
                    n.boot_id,
                    format!("boot-{name}-0"),
                    "{name} done without a new boot\n{}",
                    run.failure_report()
                );
            }
        }
        let Some(first) = &report.release else {
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
        let error = report.run.error.as_ref().map(ToString::to_string);
        // A release whose uncordon the API refused left that step to the next release, and a
        // worker CloudStack added during it changes the capacity: run that one first, then the
        // next must change nothing.
        let mut first = first.clone();
        if spec
            .faults
            .iter()
            .any(|f| matches!(f, Fault::UncordonFails { .. } | Fault::AddWorker { .. }))
        {
            first = sim
                .release(error.as_deref(), report.run.notes.as_deref())
                .expect("release runs");
        }
        let before = sim.world().end_state();
        let again = sim
            .release(error.as_deref(), report.run.notes.as_deref())
            .expect("release runs");
        assert_eq!(
            sim.world().end_state(),
            before,
            "release() changed the cluster\n{}",
            run.failure_report()
        );
        assert_eq!(
            first,
            again,
            "release() twice differs\n{}",
            run.failure_report()
        );
    }
    assert!(
        rolled > RUNS / 2,
        "only {rolled} of {RUNS} updates rolled out"
    );
}

#[test]
fn a_cancel_asked_earlier_in_a_random_scenario_never_restarts_more_nodes_than_a_later_one() {
    let cfg = EngineConfig::default();
    let mut compared = 0;
    for seed in 0..CANCEL_SEEDS {
        let (spec, req) = random::scenario(seed);
        let clean = Simulation::new(&spec, seed).expect("random scenario is simulable");
        let run = clean.run(&req, &cfg);
        if run.crashed || !matches!(run.outcome, Ok(UpdateOutcome::RolledOut(_))) {
            continue;
        }
        let last = clean.world().step.max(1);
        let steps: Vec<u64> = (1..=CANCEL_STEPS)
            .map(|i| i * last / CANCEL_STEPS)
            .filter(|s| *s > 0)
            .collect();
        match Simulation::cancel_sweep(&spec, &req, &cfg, seed, &steps) {
            Ok(seen) => compared += seen.len(),
            Err((v, seen)) => panic!("seed {seed}: {v}; restarts per cancel step {seen:?}"),
        }
    }
    assert!(compared > 500, "only {compared} cancel runs compared");
}

#[test]
fn random_rollout_controls_keep_every_invariant() {
    let mut soaked = 0;
    let mut past_close = 0;
    for seed in 0..CONTROL_RUNS {
        let (mut spec, req) = random::scenario(seed);
        let mut cfg = EngineConfig::default();
        random::controls(seed, &mut spec, &mut cfg);
        let sim = Simulation::new(&spec, seed).expect("random scenario is simulable");
        let run = sim.run(&req, &cfg);
        assert!(run.violation.is_none(), "{}", run.failure_report());
        assert_ne!(
            sim.world().record.state,
            ClusterState::Updating,
            "left Updating\n{}",
            run.failure_report()
        );
        // Gates that passed after every window had closed: `stop-inside-window` was checked
        // after each step of what followed.
        if let Ok(UpdateOutcome::RolledOut(report)) = &run.outcome
            && !cfg.windows.is_empty()
            && report.events.iter().any(|e| {
                e.step == cks_rollout::engine::StepKind::Gate
                    && !any_open(&cfg.windows, Duration::from_millis(e.wall_ms))
            })
        {
            past_close += 1;
        }
        // No node is restarted twice in one run, whatever the controls.
        if !run.crashed
            && let Some(v) = sim.world().vms.values().find(|v| v.engine_stops > 1)
        {
            panic!(
                "{} stopped {} times\n{}",
                v.name,
                v.engine_stops,
                run.failure_report()
            );
        }
        if let Ok(UpdateOutcome::RolledOut(report)) = &run.outcome
            && !cfg.soak.is_zero()
            && report.run.error.is_none()
            && !report.run.cancelled
            && !run.crashed
        {
            soaked += 1;
            // Every batch that took a node soaked its whole time (unless a cancel ended it).
            let soaks: Vec<_> = report
                .events
                .iter()
                .filter(|e| e.step == cks_rollout::engine::StepKind::Soak)
                .collect();
            for pair in soaks.chunks(2) {
                if let [began, over] = pair
                    && !over.detail.contains("cancel asked")
                {
                    assert!(
                        over.at_ms - began.at_ms >= cfg.soak.as_millis() as u64,
                        "a soak ended early\n{}",
                        run.failure_report()
                    );
                }
            }
        }
    }
    assert!(soaked > 30, "only {soaked} runs soaked to the end");
    assert!(
        past_close > 10,
        "only {past_close} runs had a gate pass after the window closed"
    );
}
