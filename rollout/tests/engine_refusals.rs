//! The two refusals that depend on what CloudStack and discovery report, played by the
//! simulator through the Cloud port: the autoscaler risk (apache/cloudstack#11994) and the node
//! types whose VMs could not all be matched to their nodes (a note when the update leaves them
//! alone).

use crate::common::{cfg, cluster, offerings, report, run_ok};
use cks_rollout::engine::{Note, UpdateError, UpdateOutcome, check_update, plan_update};
use cks_rollout::model::{ClusterState, NodeType};
use cks_rollout::sim::{ClusterSpec, NodeOverride, Simulation};

/// An autoscaling cluster on CloudStack `version` (`None`: `listCapabilities` does not say).
fn autoscaling(version: Option<&str>) -> ClusterSpec {
    let mut spec = cluster(3, 0, 3);
    spec.autoscaling = true;
    spec.cloudstack_version = version.map(str::to_string);
    spec
}

/// The update is refused with nothing stored, annotated, cordoned or stopped.
fn refused_untouched(sim: &Simulation, err: &UpdateError) {
    let w = sim.world();
    assert_eq!(w.record.state, ClusterState::Running, "{err}");
    assert!(w.record.settings.is_empty(), "nothing stored: {err}");
    assert!(w.vms.values().all(|v| v.engine_stops == 0), "{err}");
    let trace = w.trace.join("\n");
    for mutating in ["set_annotation", "set_unschedulable", "begin_rollout"] {
        assert!(
            !trace.contains(mutating),
            "{mutating} after a refusal:\n{trace}"
        );
    }
}

#[test]
fn moving_workers_off_the_default_offering_of_an_autoscaling_cluster_on_4_21_is_refused() {
    for version in [Some("4.21.0.0"), Some("4.22.1.0"), None] {
        let sim = Simulation::new(&autoscaling(version), 1).expect("simulable");
        let run = sim.run(&offerings(&[("worker", "medium")]), &cfg());
        assert!(run.violation.is_none(), "{}", run.failure_report());
        let err = run.outcome.expect_err("refused");
        let UpdateError::AutoscalerRisk(refused) = &err else {
            panic!("{version:?}: {err:?}");
        };
        assert_eq!(refused.moves, "worker nodes to medium", "{err}");
        assert_eq!(refused.default, "small", "{err}");
        assert!(err.to_string().contains("apache/cloudstack#11994"), "{err}");
        refused_untouched(&sim, &err);
    }
}

#[test]
fn moving_control_nodes_off_the_default_offering_of_an_autoscaling_cluster_is_refused_too() {
    let sim = Simulation::new(&autoscaling(Some("4.21.0.0")), 1).expect("simulable");
    let err = sim
        .update(
            &offerings(&[("control", "medium")]),
            &cfg(),
            &mut cks_rollout::engine::NoProgress,
        )
        .expect_err("refused");
    assert!(
        matches!(&err, UpdateError::AutoscalerRisk(r) if r.moves == "control nodes to medium"),
        "{err:?}"
    );
    refused_untouched(&sim, &err);
}

#[test]
fn an_accepted_autoscaler_risk_rolls_out_with_a_note_saying_what_was_accepted() {
    let sim = Simulation::new(&autoscaling(Some("4.21.0.0")), 1).expect("simulable");
    let mut req = offerings(&[("worker", "medium")]);
    req.accept_autoscaler_risk = true;
    let run = run_ok(&sim, &req);
    let r = report(&run);
    assert!(r.run.error.is_none(), "{}", run.failure_report());
    assert_eq!(
        r.notes,
        vec![Note::AutoscalerRiskAccepted {
            version: "4.21".into()
        }]
    );
    assert!(r.notes[0].to_string().contains("11994"));
    let w = sim.world();
    assert!(
        ["w-1", "w-2", "w-3"]
            .iter()
            .all(|n| w.vms[*n].offering == "medium")
    );
}

#[test]
fn no_autoscaler_refusal_before_4_21_without_autoscaling_or_on_the_default_offering() {
    let mut before = autoscaling(Some("4.20.1.0"));
    let mut without = cluster(3, 0, 3);
    without.cloudstack_version = Some("4.21.0.0".into());
    for (spec, req) in [
        (&mut before, offerings(&[("worker", "medium")])),
        (&mut without, offerings(&[("worker", "medium")])),
    ] {
        let sim = Simulation::new(spec, 1).expect("simulable");
        let run = run_ok(&sim, &req);
        assert!(report(&run).notes.is_empty());
    }
    // Without autoscaling the server's release is not even asked.
    assert!(
        !without_trace_asks_version(),
        "listCapabilities asked of a cluster that does not autoscale"
    );
    // The default offering itself is no move, even with a root disk change alongside.
    let sim = Simulation::new(&autoscaling(Some("4.21.0.0")), 1).expect("simulable");
    let mut req = offerings(&[("worker", "small")]);
    req.node_root_disk_sizes.insert("worker".into(), 30);
    let run = run_ok(&sim, &req);
    assert!(report(&run).notes.is_empty());
}

#[test]
fn the_autoscaler_risk_is_refused_by_plan_and_check_too() {
    let sim = Simulation::new(&autoscaling(Some("4.21.0.0")), 1).expect("simulable");
    let id = sim.cluster_id();
    let req = offerings(&[("worker", "medium")]);
    let mut ports = sim.ports();
    let err = plan_update(&mut ports.ports(), &id, &req).expect_err("refused");
    assert!(matches!(err, UpdateError::AutoscalerRisk(_)), "{err:?}");
    let err = check_update(&mut ports.ports(), &id, &req).expect_err("refused");
    assert!(matches!(err, UpdateError::AutoscalerRisk(_)), "{err:?}");
    let mut accepted = req.clone();
    accepted.accept_autoscaler_risk = true;
    let plan = plan_update(&mut ports.ports(), &id, &accepted).expect("planned");
    assert!(
        matches!(plan.notes.as_slice(), [Note::AutoscalerRiskAccepted { .. }]),
        "{:?}",
        plan.notes
    );
}

/// A cluster whose control node `c-2` discovery could not match to its Kubernetes node.
fn unmatched_control() -> ClusterSpec {
    let mut spec = cluster(3, 0, 3);
    spec.nodes.push(NodeOverride {
        node: "c-2".into(),
        unmatched: true,
        ..Default::default()
    });
    spec
}

#[test]
fn a_type_that_cannot_be_rolled_out_is_a_note_when_the_update_leaves_it_alone() {
    let sim = Simulation::new(&unmatched_control(), 1).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let r = report(&run);
    assert!(r.run.error.is_none(), "{}", run.failure_report());
    assert_eq!(r.notes.len(), 2, "{:?}", r.notes);
    assert!(
        r.notes.iter().all(|n| matches!(
            n,
            Note::Blocked {
                node_type: NodeType::Control,
                ..
            }
        )),
        "{:?}",
        r.notes
    );
    assert_eq!(
        r.notes[0].to_string(),
        "control nodes: VM c-2 has no Kubernetes node (no node's InternalIP is one of its addresses)"
    );
    assert_eq!(sim.world().vms["c-2"].engine_stops, 0);
    // Stored alone (rollout=false), the note comes back too.
    let sim = Simulation::new(&unmatched_control(), 1).expect("simulable");
    let mut store_only = offerings(&[("worker", "medium")]);
    store_only.rollout = false;
    let outcome = sim
        .update(&store_only, &cfg(), &mut cks_rollout::engine::NoProgress)
        .expect("stored");
    assert!(
        matches!(&outcome, UpdateOutcome::Stored { notes, .. } if notes.len() == 2),
        "{outcome:?}"
    );
}

#[test]
fn a_type_that_cannot_be_rolled_out_is_refused_when_the_update_changes_it() {
    let sim = Simulation::new(&unmatched_control(), 1).expect("simulable");
    let run = sim.run(&offerings(&[("control", "medium")]), &cfg());
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let err = run.outcome.expect_err("refused");
    assert!(
        matches!(
            &err,
            UpdateError::Unmatched {
                node_type: NodeType::Control,
                ..
            }
        ),
        "{err:?}"
    );
    refused_untouched(&sim, &err);
}

/// Whether an update of a cluster without autoscaling (on 4.21, with an offering move) asks
/// CloudStack for its release.
fn without_trace_asks_version() -> bool {
    let mut spec = cluster(3, 0, 3);
    spec.cloudstack_version = Some("4.21.0.0".into());
    let sim = Simulation::new(&spec, 1).expect("simulable");
    run_ok(&sim, &offerings(&[("worker", "medium")]));
    sim.world()
        .trace
        .iter()
        .any(|line| line.contains("cloud.cloudstack_version"))
}
