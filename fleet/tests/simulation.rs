//! The fleet simulator runs the real worker and rules: the example fleet ends with every
//! invariant kept, a killed worker's clusters taken over, the failure threshold halting the
//! fleet, a cancel letting running clusters end; and a deliberately broken lease check is caught.

use cks_fleet::sim::Simulation;
use cks_fleet::sim::spec::FleetSimSpec;
use cks_fleet::worker::{Ending, FleetStep};

pub fn spec(text: &str) -> FleetSimSpec {
    serde_norway::from_str(text).expect("a fleet description")
}

pub fn example() -> FleetSimSpec {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/simulate-fleet.yaml");
    spec(&std::fs::read_to_string(path).expect("the example"))
}

#[test]
fn the_example_fleet_keeps_every_invariant_and_a_killed_workers_clusters_are_taken_over() {
    let out = Simulation::new(&example()).expect("simulable").run();
    assert!(out.violations.is_empty(), "{:?}", out.violations);
    let s = &out.summary;
    assert!(s.ended && s.halted.is_none(), "{s:?}");
    assert_eq!(s.count(&Ending::Failed), 1, "prod-eu-2 fails: {s:?}");
    assert_eq!(s.count(&Ending::Skipped), 1, "legacy is Alert");
    assert_eq!(s.count(&Ending::Done), 28);
    assert!(
        out.record.takeovers >= 1,
        "worker 2 was killed while holding a cluster"
    );
    assert!(out.events.0.iter().any(|e| e.step == FleetStep::Takeover));
    let failed = s
        .clusters
        .iter()
        .find(|c| c.ending == Ending::Failed)
        .expect("a failure");
    assert!(
        failed
            .detail
            .contains("Failed to upgrade Kubernetes cluster : prod-eu-2"),
        "{failed:?}"
    );
}

#[test]
fn the_threshold_halts_the_fleet_and_nothing_new_starts() {
    let out = Simulation::new(&spec(
        "workers: 2\nto: 1.33.1\nhalt_after: 2\nstages: [{name: all, parallelism: 2}]\n\
         clusters: [{name: a, fail_upgrade: boom}, {name: b, fail_upgrade: bang}, {name: c}, {name: d}, {name: e}]\n",
    ))
    .expect("simulable")
    .run();
    assert!(out.violations.is_empty(), "{:?}", out.violations);
    assert!(
        out.summary
            .halted
            .as_deref()
            .is_some_and(|h| h.contains("2 clusters failed")),
        "{:?}",
        out.summary
    );
    assert_eq!(out.summary.count(&Ending::NotStarted), 3);
}

#[test]
fn a_cancel_lets_running_clusters_end_and_starts_no_more() {
    let out = Simulation::new(&spec(
        "workers: 2\nto: 1.33.1\ncancel_at_minutes: 30\nstages: [{parallelism: 2}]\ngenerate: {count: 10}\n",
    ))
    .expect("simulable")
    .run();
    assert!(out.violations.is_empty(), "{:?}", out.violations);
    assert!(out.summary.cancelled && out.summary.ended);
    assert_eq!(
        out.summary.count(&Ending::Done),
        4,
        "two rounds of 20 minutes fit before the cancel"
    );
    assert_eq!(out.summary.count(&Ending::NotStarted), 6);
}

#[test]
fn a_broken_lease_check_is_caught() {
    let mut sim = Simulation::new(&spec(
        "workers: 3\nto: 1.33.1\nstages: [{parallelism: 3}]\ngenerate: {count: 6}\n",
    ))
    .expect("simulable");
    sim.break_lease_check();
    let out = sim.run();
    assert!(
        out.violations
            .iter()
            .any(|v| v.invariant == "one-worker-per-cluster"),
        "{:?}",
        out.violations
    );
}

#[test]
fn a_failing_gate_halts_the_fleet_before_its_stage() {
    let out = Simulation::new(&spec(
        "to: 1.33.1\nstages: [{name: canary, clusters: 1}, {name: rest, gates: [\"check\"]}]\n\
         gates: [{stage: 2, exit: 3, seconds: 10, output: \"error rate 7%\"}]\ngenerate: {count: 4}\n",
    ))
    .expect("simulable")
    .run();
    assert!(out.violations.is_empty(), "{:?}", out.violations);
    let halted = out.summary.halted.clone().unwrap_or_default();
    assert!(
        halted.contains("a gate of stage rest failed") && halted.contains("error rate 7%"),
        "{halted}"
    );
    assert_eq!(out.summary.count(&Ending::Done), 1);
}

#[test]
fn upgrade_then_settings_in_the_design_order() {
    let out = Simulation::new(&spec(
        "to: 1.33.1\nsettings: {offering: [worker=large]}\ngenerate: {count: 2}\n",
    ))
    .expect("simulable")
    .run();
    assert!(out.violations.is_empty(), "{:?}", out.violations);
    let starts: Vec<&str> = out
        .events
        .0
        .iter()
        .filter(|e| e.step == FleetStep::Start)
        .map(|e| e.detail.as_str())
        .collect();
    assert_eq!(starts.len(), 4);
    assert!(
        starts[0].starts_with("upgrade") && starts[1].starts_with("node settings"),
        "{starts:?}"
    );
}

/// A takeover found a cluster still upgrading under the last holder's job and waited with its
/// hold renewed every poll; the refresh it then started must start on a hold renewed at that
/// moment, not one a poll old that lapses before the first poll of the refresh (a second
/// worker then took the cluster over and started its own refresh beside it).
#[test]
fn an_action_starts_on_a_hold_renewed_then_and_no_takeover_runs_beside_it() {
    let mut text = String::from(
        "seed: 405\nworkers: 3\nto: 1.33.1\nhalt_after: 1\nlease_seconds: 60\nstages:\n  - {parallelism: 1, soak: 0m}\nclusters:\n",
    );
    for i in 0..9 {
        let project = if i % 4 == 0 { ", project: team" } else { "" };
        text.push_str(&format!(
            "  - {{name: c{i}, upgrade_minutes: {}{project}}}\n",
            5 + (i * 7) % 30
        ));
    }
    text.push_str("kills:\n  - {worker: 1, at_minutes: 38}\n");
    let spec: FleetSimSpec = serde_norway::from_str(&text).expect("a fleet");
    let out = Simulation::new(&spec).expect("simulable").run();
    assert!(out.violations.is_empty(), "{:?}", out.violations);
    assert!(out.summary.ended);
}
