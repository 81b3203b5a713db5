//! The simulator's cluster description loads from YAML, including the documented example.

mod common;

use cks_rollout::engine::UpdateOutcome;
use cks_rollout::model::ClusterState;
use cks_rollout::sim::{ClusterSpec, Fault, Simulation};
use common::{cfg, offerings};
use std::path::Path;

fn example() -> ClusterSpec {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/simulated-cluster.yaml");
    let text = std::fs::read_to_string(&path).expect("example readable");
    serde_norway::from_str(&text).expect("example parses")
}

#[test]
fn the_documented_example_loads_and_runs_with_every_invariant_kept() {
    let spec = example();
    assert_eq!(
        (
            spec.control.count,
            spec.workers.count,
            spec.etcd.as_ref().map(|e| e.count)
        ),
        (3, 6, Some(3))
    );
    assert!(
        spec.faults
            .contains(&Fault::NeverReady { node: "w-3".into() })
    );
    let sim = Simulation::new(&spec, 1).expect("simulable");
    let mut req = offerings(&[("worker", "medium"), ("control", "medium")]);
    req.max_unavailable = Some(2);
    let run = sim.run(&req, &cfg());
    assert!(run.violation.is_none(), "{}", run.failure_report());
    assert!(matches!(run.outcome, Ok(UpdateOutcome::RolledOut(_))));
    assert_eq!(
        sim.world().record.state,
        ClusterState::Alert,
        "w-3 never becomes Ready"
    );
    let e = sim.world().record.last_error.clone().unwrap_or_default();
    assert!(e.contains("w-3"), "{e}");
}

#[test]
fn an_unknown_field_or_node_is_refused_with_its_name() {
    let err = serde_norway::from_str::<ClusterSpec>(
        "service_offering: s\noffering: []\ncontrol: {count: 1}\nworkers: {count: 1}\n",
    )
    .expect_err("unknown field");
    assert!(err.to_string().contains("offering"), "{err}");
    let mut spec = example();
    spec.nodes[0].node = "w-99".into();
    let err = Simulation::new(&spec, 1).expect_err("unknown node");
    assert!(err.to_string().contains("w-99"), "{err}");
}

#[test]
fn the_same_seed_gives_the_same_trace() {
    let req = offerings(&[("worker", "medium")]);
    let a = Simulation::new(&example(), 7).expect("simulable");
    let b = Simulation::new(&example(), 7).expect("simulable");
    assert_eq!(a.run(&req, &cfg()).trace, b.run(&req, &cfg()).trace);
}
