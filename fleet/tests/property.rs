//! Random fleets, failures and worker kills: every invariant holds in every run.

use cks_fleet::sim::Simulation;
use cks_fleet::sim::spec::FleetSimSpec;
use proptest::prelude::*;

fn fleet(
    seed: u64,
    count: usize,
    stages: &[(u32, u32, u64)],
    workers: usize,
    kills: &[(usize, u64)],
    failures: &[usize],
    (halt_after, lease): (u32, u64),
) -> FleetSimSpec {
    let mut text = format!(
        "seed: {seed}\nworkers: {workers}\nto: 1.33.1\nhalt_after: {halt_after}\nlease_seconds: {lease}\nstages:\n"
    );
    for (i, (size, parallelism, soak)) in stages.iter().enumerate() {
        let size = if i + 1 == stages.len() {
            String::new()
        } else {
            format!("clusters: {size}, ")
        };
        text.push_str(&format!(
            "  - {{{size}parallelism: {parallelism}, soak: {soak}m}}\n"
        ));
    }
    text.push_str("clusters:\n");
    for i in 0..count {
        let fail = if failures.contains(&i) {
            ", fail_upgrade: \"upgrade failed\""
        } else {
            ""
        };
        let project = if i % 4 == 0 { ", project: team" } else { "" };
        text.push_str(&format!(
            "  - {{name: c{i}, upgrade_minutes: {}{fail}{project}}}\n",
            5 + (i * 7) % 30
        ));
    }
    text.push_str("kills:\n");
    for (w, at) in kills {
        text.push_str(&format!("  - {{worker: {w}, at_minutes: {at}}}\n"));
    }
    if kills.is_empty() {
        text = text.replace("kills:\n", "");
    }
    serde_norway::from_str(&text).expect("a generated description")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn every_invariant_holds_for_random_fleets_failures_and_kills(
        seed in 0u64..1000,
        count in 3usize..40,
        stages in proptest::collection::vec((1u32..5, 1u32..5, 0u64..45), 1..4),
        workers in 2usize..5,
        kill_at in proptest::collection::vec(1u64..240, 0..2),
        failures in proptest::collection::vec(0usize..40, 0..4),
        halt_after in 1u32..4,
        lease in 60u64..600,
    ) {
        let kills: Vec<(usize, u64)> = kill_at.iter().enumerate().map(|(i, at)| (i + 1, *at)).filter(|(w, _)| *w < workers).collect();
        let spec = fleet(seed, count, &stages, workers, &kills, &failures, (halt_after, lease));
        let out = Simulation::new(&spec).expect("simulable").run();
        prop_assert!(out.violations.is_empty(), "{:?}", out.violations);
        prop_assert!(out.summary.ended);
    }
}
