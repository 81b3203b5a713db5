//! The simulator's cluster description loads from YAML.

use crate::common::{cfg, offerings};
use cks_rollout::engine::UpdateOutcome;
use cks_rollout::model::ClusterState;
use cks_rollout::sim::{ClusterSpec, Fault, Simulation};
/// A description using every section and a few faults.
const FULL: &str = r#"
id: cluster-1
name: demo
service_offering: small
offerings:
  - { id: small, name: small, cpu_cores: 2, memory_mb: 4096 }
  - { id: medium, name: medium, cpu_cores: 4, memory_mb: 8192 }
  - { id: large, name: large, cpu_cores: 8, memory_mb: 16384 }
disk_offerings:
  - { id: fixed-20, name: fixed-20, size_gb: 20, customized: false }
  - { id: custom, name: custom, size_gb: 0, customized: true }
affinity_groups:
  - { id: ag-1, name: spread, kind: host anti-affinity }
  - { id: ag-dedicated, name: dedicated, kind: ExplicitDedication }
control: { count: 3 }
workers: { count: 6, root_disk_gb: 20, affinity_groups: [ag-1] }
etcd: { count: 3 }
settings:
  worker: { offering_id: small }
nodes:
  - { node: w-6, offering: medium }          # already differs
  - { node: w-5, cordoned: true }             # cordoned by someone else: stays cordoned
pods:
  - { app: web, replicas: 4 }
  - { app: logs, namespace: kube-system, daemonset: true }
pdbs:
  - { name: web-pdb, app: web, min_available: 3 }
faults:
  - { fault: never_ready, node: w-3 }
  - { fault: pdb_blocks, pdb: web-pdb, times: 5 }
  - { fault: api_down, node: c-2, at_step: 40, until_step: 120 }
state: Running
"#;

fn example() -> ClusterSpec {
    serde_norway::from_str(FULL).expect("description parses")
}

#[test]
fn a_description_with_every_section_loads_and_runs_with_every_invariant_kept() {
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
